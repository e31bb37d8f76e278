"""Synthetic ChaLearn LAP 2014 Track 1 data: XX_YYYY_W.png limb panoramas (14 masks of 480 columns side by side).

Each limb mask is a filled quadrilateral ("a polyhedron defined by four points", as the challenge page says) in
the 480 x H frame coordinates of its actor (actor 1 on the left half, actor 2 on the right half).
"""
import io
import os
import shutil
import struct
import subprocess
import time
import zlib

import numpy as np

from .common import blank_pngs, fresh_dir, scoring_python, write_expected

N_LIMBS = 14
STRIDE = 480
WIDTH = N_LIMBS * STRIDE
SAMPLE_HEIGHT = 60

# rough limb centres (x, y) in a 480 x 360 frame for an actor standing at x = 0, and the half sizes
_CENTRES = [(0, 40), (0, 110), (-70, 170), (70, 170), (-55, 135), (55, 135), (-40, 90), (40, 90),
            (-25, 345), (25, 345), (-22, 290), (22, 290), (-18, 225), (18, 225)]
_HALF = [(18, 22), (32, 45), (10, 10), (10, 10), (9, 22), (9, 22), (10, 25), (10, 25), (14, 8), (14, 8),
         (10, 30), (10, 30), (13, 32), (13, 32)]


def limb_quads(rng, actor, height, drop=0.1):
    """[(14) list of 4-point quads or None] for one actor in one frame, in 480 x height coordinates."""
    s = height / 360.0
    ax = (150 if actor == 1 else 330) + rng.randint(-30, 31)
    quads = []
    for n in range(N_LIMBS):
        if rng.rand() < drop:
            quads.append(None)
            continue
        cx, cy = ax + _CENTRES[n][0], _CENTRES[n][1] * s
        hw, hh = _HALF[n][0], max(_HALF[n][1] * s, 2.0)
        pts = [(cx - hw, cy - hh), (cx + hw, cy - hh), (cx + hw, cy + hh), (cx - hw, cy + hh)]
        quads.append([(x + rng.uniform(-3, 3), y + rng.uniform(-2, 2) * s) for x, y in pts])
    return quads


def render(quads, height, mode="L", value=255):
    """Draw the quads into a panorama image (Pillow). value: fill (int, or an RGB tuple for mode 'RGB')."""
    from PIL import Image, ImageDraw
    img = Image.new(mode, (WIDTH, height), 0)
    d = ImageDraw.Draw(img)
    for n, q in enumerate(quads):
        if q is not None:
            d.polygon([(min(max(x, 0), STRIDE - 1) + n * STRIDE, min(max(y, 0), height - 1)) for x, y in q],
                      fill=value)
    return img


def jitter(rng, quads, height, shift, drop=0.1, false_positive=0.1):
    """An imperfect prediction: every quad moved by up to `shift` pixels, some dropped, some invented."""
    out = []
    s = height / 360.0
    for q in quads:
        if q is None:
            if rng.rand() < false_positive:
                cx, cy = rng.uniform(100, 380), rng.uniform(20, 340) * s
                out.append([(cx - 10, cy - 10 * s), (cx + 10, cy - 10 * s), (cx + 10, cy + 10 * s),
                            (cx - 10, cy + 10 * s)])
            else:
                out.append(None)
        elif rng.rand() < drop:
            out.append(None)
        else:
            dx, dy = rng.uniform(-shift, shift), rng.uniform(-shift, shift) * s
            out.append([(x + dx, y + dy) for x, y in q])
    return out


def save(img, path):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    img.save(path, format="PNG")


def png_bytes(width, height, payload=b"", color_type=0):
    """A raw PNG with the given IHDR and an IDAT of `payload` compressed (for bombs and broken files)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(payload, 9))
            + chunk(b"IEND", b""))


def frames(sequences, per_sequence):
    return ["%s_%04d_%d" % (seq, f, a) for seq in sequences for f in range(1, per_sequence + 1) for a in (1, 2)]


def write_truth(rng, ref_dir, stems, h):
    """The ground-truth panoramas {stem: quads}; the first two (both actors of the first frame) have every limb,
    so that every limb's hit rate is defined."""
    fresh_dir(ref_dir)
    gt = {}
    for i, stem in enumerate(stems):
        gt[stem] = limb_quads(rng, int(stem[-1]), h, drop=0.0 if i < 2 else 0.15)   # every limb present once
        save(render(gt[stem], h), os.path.join(ref_dir, stem + ".png"))
    return gt


def write_perfect(ref_dir, out_dir, stems):
    os.makedirs(out_dir)
    for stem in stems:
        shutil.copyfile(os.path.join(ref_dir, stem + ".png"), os.path.join(out_dir, stem + "_prediction.png"))


def make_sample(ref_dir, kit_dir):
    rng = np.random.RandomState(2014)
    h = SAMPLE_HEIGHT
    stems = frames(("01", "02"), 3)
    gt = write_truth(rng, ref_dir, stems, h)
    subs = os.path.join(kit_dir, "submissions")
    fresh_dir(subs)
    write_perfect(ref_dir, os.path.join(subs, "perfect"), stems)
    rnd = os.path.join(subs, "random")
    for i, stem in enumerate(stems):
        if stem == "02_0003_2":
            continue                                          # missing: one evaluation, no hit
        pred = jitter(rng, gt[stem], h, shift=12 if i % 3 else 4)
        if stem == "01_0002_1":
            img = render(pred, h, "RGB", (40, 220, 90))       # colour PNG: luminance 157 > 127
        else:
            img = render(pred, h)
        name = stem + (".png" if stem == "01_0002_2" else "_prediction.png")   # plain name accepted
        save(img, os.path.join(rnd, name))
    # both names for one panorama: the _prediction one wins, the other (empty) is ignored
    save(render([None] * N_LIMBS, h), os.path.join(rnd, "01_0003_1.png"))
    # a prediction without ground truth: ignored, listed in the report
    save(render(limb_quads(rng, 1, h), h), os.path.join(rnd, "09_0001_1_prediction.png"))

    bad = fresh_dir(os.path.join(kit_dir, "malformed"))
    expected = {}

    def case(name, fname, data, contains, why):
        path = os.path.join(bad, name, fname)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        expected[name] = {"file": fname, "line": None, "contains": contains, "why": why}

    buf = io.BytesIO()
    render(gt[stems[0]], h + 2).save(buf, format="PNG")
    case("size_mismatch", "01_0001_1_prediction.png", buf.getvalue(), "size mismatch",
         "a panorama 2 rows taller than its ground truth")
    buf = io.BytesIO()
    render(gt[stems[1]], h).save(buf, format="PNG")
    whole = buf.getvalue()
    case("truncated_png", "01_0001_2_prediction.png", whole[:len(whole) // 2], "cannot decode the PNG data",
         "a PNG cut in half")
    case("not_a_png", "01_0002_1_prediction.png", b"this is not an image\n", "cannot read the PNG",
         "a text file named .png")
    buf = io.BytesIO()
    render(gt[stems[2]], h).convert("RGB").save(buf, format="JPEG")
    case("jpeg_named_png", "01_0002_2_prediction.png", buf.getvalue(), "cannot read the PNG",
         "a JPEG file with a .png name (only PNG is accepted)")
    case("decompression_bomb", "01_0003_1_prediction.png", png_bytes(WIDTH, 10000, b"\x00" * 1000),
         "decompression bomb", "a PNG declaring 6720x10000 pixels (refused before decoding)")
    write_expected(kit_dir, expected)


def make_validation(val_dir, kit_dir):
    """The validation part: sequence 03 (3 frames x 2 actors = 6 panoramas), disjoint from the test part's 01 and
    02, every limb present once; kit_dir/validation_submissions/perfect and random (every panorama jittered)."""
    rng = np.random.RandomState(2015)
    h = SAMPLE_HEIGHT
    stems = frames(("03",), 3)
    gt = write_truth(rng, val_dir, stems, h)
    subs = fresh_dir(os.path.join(kit_dir, "validation_submissions"))
    write_perfect(val_dir, os.path.join(subs, "perfect"), stems)
    for i, stem in enumerate(stems):
        pred = jitter(rng, gt[stem], h, shift=12 if i % 3 else 4)
        save(render(pred, h), os.path.join(subs, "random", stem + "_prediction.png"))


def make_bench(work_dir, n_frames=2234, height=360, pool=32):
    """2,234 frames x 2 actors at 360 x 6720 (GT and prediction): a pool of `pool` distinct pairs, hard-linked."""
    rng = np.random.RandomState(1)
    inp = os.path.join(work_dir, "input")
    ref = os.path.join(inp, "ref")
    res = os.path.join(inp, "res")
    src = os.path.join(work_dir, "pool")
    for d in (ref, res, src):
        os.makedirs(d)
    for k in range(pool):
        actor = 1 + k % 2
        q = limb_quads(rng, actor, height, drop=0.15)
        save(render(q, height), os.path.join(src, "gt%d.png" % k))
        save(render(jitter(rng, q, height, shift=rng.choice([3, 8, 20])), height), os.path.join(src, "p%d.png" % k))
    seqs = ("04", "05", "06")
    per = -(-n_frames // len(seqs))
    stems = []
    for f in range(n_frames):
        seq = seqs[f // per]
        for a in (1, 2):
            stems.append("%s_%04d_%d" % (seq, f % per + 1, a))
    for i, stem in enumerate(stems):
        k = 2 * ((i // 2) % (pool // 2)) + (i % 2)
        _link(os.path.join(src, "gt%d.png" % k), os.path.join(ref, stem + ".png"))
        _link(os.path.join(src, "p%d.png" % k), os.path.join(res, stem + "_prediction.png"))
    return {"input": inp, "what": "%d frames x 2 actors, %dx%d panoramas (GT + prediction)" % (n_frames, WIDTH,
                                                                                                  height)}


def _link(a, b):
    try:
        os.link(a, b)
    except OSError:
        shutil.copyfile(a, b)


DECODE_ONLY = """
import os, sys, numpy
from PIL import Image
for d in sys.argv[1:]:
    for n in sorted(os.listdir(d)):
        if n.endswith('.png'):
            numpy.asarray(Image.open(os.path.join(d, n)).convert('L'))
"""


def bench_baseline(info):
    """Decode the same PNGs alone (Pillow convert('L') + numpy), in a fresh interpreter like score.py."""
    inp = info["input"]
    t0 = time.perf_counter()
    subprocess.run([scoring_python(), "-c", DECODE_ONLY, os.path.join(inp, "ref"), os.path.join(inp, "res")],
                   check=True)
    return "decode-only", time.perf_counter() - t0


def strip_labels(ref_dir):
    """What a participant does not have: every limb mask blanked, leaving the panoramas' names and sizes
    (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    blank_pngs(ref_dir)
