"""Synthetic VOC2011 segmentation data: ImageSets/Segmentation/<set>.txt and SegmentationClass/<id>.png
(indexed PNGs with the VOC colour map, void 255 borders), result folders comp5_<set>_cls/<id>.png."""
import os
import struct
import zlib

import numpy as np

from .common import blank_pngs, fresh_dir, scoring_python, write_expected, write_text

NCLS = 21


def voc_colormap(n=256):
    """VOClabelcolormap.m: bit-interleaved colours, index 255 = cream 'void'."""
    cmap = np.zeros((n, 3), dtype=np.uint8)
    for i in range(n):
        r = g = b = 0
        c = i
        for j in range(8):
            r |= ((c >> 0) & 1) << (7 - j)
            g |= ((c >> 1) & 1) << (7 - j)
            b |= ((c >> 2) & 1) << (7 - j)
            c >>= 3
        cmap[i] = (r, g, b)
    return cmap


PALETTE = voc_colormap().ravel().tolist()


def save_indexed(path, arr):
    from PIL import Image

    im = Image.fromarray(np.ascontiguousarray(arr, dtype=np.uint8), mode="P")
    im.putpalette(PALETTE)
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    im.save(path)


def make_label_image(rng, h, w, classes, nobj, void=True, jitter=0.0, base=None, cycle=False):
    """Background with a few ellipses of the given classes; a 2-3 pixel void ring around each (as VOC's borders).

    base: (params) of a ground truth to perturb (a prediction): centres and radii moved by `jitter` * radius.
    Returns (label array, params).
    """
    yy, xx = np.mgrid[0:h, 0:w]
    lab = np.zeros((h, w), dtype=np.uint8)
    params = []
    if base is None:
        for k in range(nobj):
            cls = int(classes[k % len(classes)]) if cycle else int(rng.choice(classes))
            ry, rx = rng.uniform(0.12, 0.35) * h, rng.uniform(0.12, 0.35) * w
            cy, cx = rng.uniform(0.2, 0.8) * h, rng.uniform(0.2, 0.8) * w
            if cycle:   # side by side, so that no object hides another
                rx = rng.uniform(0.08, 0.12) * w
                cx = (k + 0.5) / nobj * w
            params.append((cls, cy, cx, ry, rx))
    else:
        for cls, cy, cx, ry, rx in base:
            if rng.rand() < 0.15:
                cls = int(rng.randint(1, NCLS))
            d = jitter * np.array([ry, rx])
            params.append((cls, cy + rng.uniform(-1, 1) * d[0], cx + rng.uniform(-1, 1) * d[1],
                           ry * rng.uniform(1 - jitter, 1 + jitter), rx * rng.uniform(1 - jitter, 1 + jitter)))
    for cls, cy, cx, ry, rx in params:
        q = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2
        if void:
            ring = ((yy - cy) / (ry + 2.5)) ** 2 + ((xx - cx) / (rx + 2.5)) ** 2 <= 1.0
            lab[ring] = 255
        lab[q <= 1.0] = cls
    return lab, params


def make_set(n, h, w, seed, ncls_cover=True, year="2011", per_image=3):
    """ids '<year>_%06d', label images, their params. ncls_cover: per_image objects side by side in each image,
    the classes in turn (every class appears once n * per_image >= 20)."""
    rng = np.random.RandomState(seed)
    ids = ["%s_%06d" % (year, i + 1) for i in range(n)]
    gts, params = [], []
    for i in range(n):
        if ncls_cover:   # every class appears at least once in the sample
            classes = [1 + (per_image * i + k) % (NCLS - 1) for k in range(per_image)]
        else:
            classes = list(range(1, NCLS))
        lab, p = make_label_image(rng, h, w, classes, nobj=per_image if ncls_cover else int(rng.randint(1, 4)),
                                  cycle=ncls_cover)
        gts.append(lab)
        params.append(p)
    return ids, gts, params


def write_reference(ref_dir, ids, gts, set_name="test"):
    write_text(os.path.join(ref_dir, "ImageSets", "Segmentation", "%s.txt" % set_name), "".join(i + "\n" for i in ids))
    for i, g in zip(ids, gts):
        save_indexed(os.path.join(ref_dir, "SegmentationClass", i + ".png"), g)


def write_submission(out_dir, ids, preds, comp=5, set_name="test", subdir="results/VOC2011/Segmentation"):
    folder = os.path.join(out_dir, subdir, "comp%d_%s_cls" % (comp, set_name))
    for i, p in zip(ids, preds):
        save_indexed(os.path.join(folder, i + ".png"), p)
    return folder


def predictions(ids, gts, params, seed, jitter=0.15):
    rng = np.random.RandomState(seed)
    out = []
    for g, p in zip(gts, params):
        lab, _ = make_label_image(rng, g.shape[0], g.shape[1], None, 0, void=False, jitter=jitter, base=p)
        out.append(lab)
    return out


def png_with_declared_size(width, height):
    """A tiny valid-looking indexed PNG whose header declares width x height (a decompression bomb's header)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    plte = bytes(PALETTE[:3 * 256])
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"PLTE", plte) + chunk(b"IDAT", idat) + \
        chunk(b"IEND", b"")


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def write_part(ref_dir, subs, ids, gts, params, seed, set_name):
    """One part of the sample: its reference and its perfect and random submissions (subs/perfect, subs/random)."""
    fresh_dir(ref_dir)
    write_reference(ref_dir, ids, gts, set_name)
    fresh_dir(subs)
    write_submission(os.path.join(subs, "perfect"), ids, [np.where(g == 255, 0, g) for g in gts],
                     set_name=set_name)
    write_submission(os.path.join(subs, "random"), ids, predictions(ids, gts, params, seed=seed), set_name=set_name)


def make_sample(ref_dir, kit_dir):
    from PIL import Image

    h, w = 30, 40
    ids, gts, params = make_set(8, h, w, seed=2011)
    subs = os.path.join(kit_dir, "submissions")
    write_part(ref_dir, subs, ids, gts, params, 7, "test")
    good = [np.where(g == 255, 0, g) for g in gts]
    # perfect plus an empty file named for an image outside the set: ignored unread (as VOCevalseg.m), a warning
    extra = write_submission(os.path.join(subs, "unknown_image"), ids, good)
    write_bytes(os.path.join(extra, "2011_999999.png"), b"")
    bad = fresh_dir(os.path.join(kit_dir, "malformed"))
    expected = {}

    def case(name, file, contains, why, comp=5, set_name="test", preds=None, drop=(), extra=None, raw=None,
             subdir="results/VOC2011/Segmentation"):
        preds = good if preds is None else preds
        keep = [(i, p) for i, p in zip(ids, preds) if i not in drop]
        if subdir is None:   # the PNGs loose, not in a comp5_<set>_cls folder
            folder = os.path.join(bad, name)
            for i, p in keep:
                save_indexed(os.path.join(folder, i + ".png"), p)
        else:
            folder = write_submission(os.path.join(bad, name), [i for i, _ in keep], [p for _, p in keep], comp,
                                      set_name, subdir)
        for rel, data in (raw or {}).items():
            write_bytes(os.path.join(folder, rel), data)
        if extra:
            extra(os.path.join(bad, name), folder)
        expected[name] = {"file": file, "line": None, "contains": contains, "why": why}

    third = "comp5_test_cls/%s.png" % ids[2]
    p255 = [p.copy() for p in good]
    p255[2][5, 7] = 255
    case("value_255", third, "value 255 at pixel x=7, y=5", "a result pixel labelled 255 ('void' is not a "
         "prediction)", preds=p255)
    p21 = [p.copy() for p in good]
    p21[2][0, 3] = 21
    case("value_21", third, "expected class indices 0..20", "a class index above 20", preds=p21)

    def rgb(root, folder):
        Image.fromarray(np.zeros((h, w, 3), dtype=np.uint8)).save(os.path.join(folder, ids[2] + ".png"))
    case("rgb_png", third, "expected an indexed (palette) or 8-bit greyscale PNG", "an RGB result image",
         extra=rgb)

    def grey16(root, folder):
        Image.fromarray(good[2].astype(np.uint16)).save(os.path.join(folder, ids[2] + ".png"))
    case("grey16_png", third, "found a 16-bit greyscale PNG", "a 16-bit greyscale result image", extra=grey16)
    small = [p.copy() for p in good]
    small[2] = small[2][:, :-1]
    case("size_mismatch", third, "found 39 x 30", "a result image narrower than the ground truth", preds=small)
    case("missing_image", "comp5_test_cls", "result image missing for 1 of 8 images", "one test image has no "
         "result", drop=(ids[4],))
    case("not_a_png", third, "not a readable image", "a text file named .png", raw={ids[2] + ".png": b"hello\n"})
    with open(os.path.join(subs, "perfect", "results", "VOC2011", "Segmentation", "comp5_test_cls",
                           ids[0] + ".png"), "rb") as f:
        png0 = f.read()
    case("truncated_png", "comp5_test_cls/%s.png" % ids[0], "cannot be decoded", "a PNG cut short",
         raw={ids[0] + ".png": png0[:-60]})
    case("decompression_bomb", third, "too large to decode", "a PNG header declaring 100000 x 100000 pixels",
         raw={ids[2] + ".png": png_with_declared_size(100000, 100000)})

    def add_comp6(root, folder):
        write_submission(root, ids, good, 6)
    case("mixed_comp", "comp6_test_cls", "may not mix comp5 and comp6", "comp5 and comp6 folders together",
         extra=add_comp6)
    case("wrong_set", "comp5_val_cls", "results for the 'test' set", "results for another image set",
         set_name="val")
    case("no_folder", None, "expected a folder comp5_test_cls", "the PNGs are not inside comp5_test_cls",
         subdir=None)
    write_expected(kit_dir, expected)


def make_validation(val_dir, kit_dir):
    """The Development phase's part: set 'val', 4 images 2010_000001.. of 30 x 50 pixels with 5 objects each (every
    class appears)."""
    ids, gts, params = make_set(4, 30, 50, seed=2010, year="2010", per_image=5)
    write_part(val_dir, os.path.join(kit_dir, "validation_submissions"), ids, gts, params, 8, "val")


def make_bench(work_dir, n_images=1449, h=375, w=500):
    inp = os.path.join(work_dir, "input")
    ref = os.path.join(inp, "ref")
    ids = ["2011_%06d" % (i + 1) for i in range(n_images)]
    write_text(os.path.join(ref, "ImageSets", "Segmentation", "test.txt"), "".join(i + "\n" for i in ids))
    rng = np.random.RandomState(1)
    folder = None
    for k, i in enumerate(ids):   # one image at a time: the generator's memory stays flat too
        g, p = make_label_image(rng, h, w, list(range(1, NCLS)), nobj=int(rng.randint(1, 5)))
        save_indexed(os.path.join(ref, "SegmentationClass", i + ".png"), g)
        pred, _ = make_label_image(rng, h, w, None, 0, void=False, jitter=0.15, base=p)
        folder = write_submission(os.path.join(inp, "res"), [i], [pred], subdir="")
    return {"input": inp, "what": "%d images of %dx%d" % (n_images, w, h), "ids": ids,
            "gt_dir": os.path.join(ref, "SegmentationClass"), "res_dir": folder}


_DECODE_ONLY = """
import os, sys
import numpy as np
from PIL import Image
gt_dir, res_dir, ids = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
for i in ids:
    a = np.asarray(Image.open(os.path.join(gt_dir, i + '.png')))
    b = np.asarray(Image.open(os.path.join(res_dir, i + '.png')))
"""


def bench_baseline(info):
    """Decoding the same PNG pairs alone (a whole process importing numpy and Pillow, as the scorer does)."""
    from bench.run import measure

    argv = [scoring_python(), "-c", _DECODE_ONLY, info["gt_dir"], info["res_dir"], ",".join(info["ids"])]
    return "decode only", measure(argv)[0]


def strip_labels(ref_dir):
    """What a participant does not have: every label PNG blanked, leaving the images' names and sizes
    (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    blank_pngs(ref_dir)
