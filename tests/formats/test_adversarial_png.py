"""Issue 20, the PNG path (formats/images.py read_png, used by voc2011-segmentation and chalearn-lap2014-pose, for
the submission's PNGs and the reference's): the caps on chunks and bytes before the image data and on chunks of
image data, each a one-line error naming the file; crafted PNGs of millions of chunks cost no more than an honest
PNG of the same size; compressed metadata and image data are never inflated beyond the image; empty, cut and
corrupt PNGs get one clear line; PNGs written by Pillow with text, an ICC profile and EXIF score as without them.

The crafted PNGs are the starting kit's perfect samples with one file changed."""
import io
import json
import os
import shutil
import struct
import zlib

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from adversarial import MIB, assert_bounded, folder_bytes, measured, one_line
from conftest import ROOT
from scoring_program.errors import ReferenceDataError, SubmissionError
from scoring_program.formats.chalearn_pose import read_panorama
from scoring_program.formats.images import CUT_SHORT, NotPng, read_label_png, read_png
from scoring_program.formats.limits import MAX_PNG_CHUNKS, MAX_PNG_DATA_CHUNKS, MAX_PNG_PREAMBLE_BYTES

SEG = "voc2011-segmentation"
POSE = "chalearn-lap2014-pose"
SLUGS = (SEG, POSE)
CHANGED = {SEG: "results/VOC2011/Segmentation/comp5_test_cls/2011_000001.png", POSE: "01_0001_1_prediction.png"}
REF_CHANGED = {SEG: "SegmentationClass/2011_000001.png", POSE: "01_0001_1.png"}

# What each scorer says about the changed file, after "submission error: <its name>: "
SEG_KIND = "expected an indexed (palette) or 8-bit greyscale PNG; "
TOO_MANY_CHUNKS = "expected at most 4096 chunks before the image data; found more than 4096"
TOO_MANY_BYTES = "expected at most 1048576 bytes before the image data; found more than 1048576"
TOO_MANY_DATA_CHUNKS = "expected at most 4096 chunks of image data (IDAT); found more than 4096"
CUT_IN_HEADER = "expected a complete PNG file; found a file that ends inside chunk 1, before its image data"
MESSAGES = {
    (SEG, "empty"): SEG_KIND + "found an empty file (0 bytes)",
    (POSE, "empty"): "cannot read the PNG; expected a PNG image (the file is not a readable PNG); found an empty file",
    (SEG, "cut in the image data"): SEG_KIND + "found a PNG that cannot be decoded (%s)" % CUT_SHORT,
    (POSE, "cut in the image data"): "cannot decode the PNG data (%s); expected a complete, valid PNG; found a "
                                     "truncated or corrupt image" % CUT_SHORT,
    (SEG, "not a PNG"): SEG_KIND + "found a file that is not a readable image (not a PNG: its first bytes are "
                                   "b'GIF8')",
    (POSE, "not a PNG"): "cannot read the PNG; expected a PNG image (the file is not a readable PNG); found another "
                         "kind of file (first bytes b'GIF8')",
}


def chunk(kind, data=b""):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def split(png):
    """(signature and chunks before the image data, the IDAT chunks, the chunks after them) as bytes."""
    pos, first, last = 8, None, None
    while pos < len(png):
        length, kind = struct.unpack_from(">I4s", png, pos)
        if kind == b"IDAT":
            first = pos if first is None else first
            last = pos + 12 + length
        pos += 12 + length
    return png[:first], png[first:last], png[last:]


def rebuild(png, before=b"", data=None, after=b""):
    """png with `before` inserted before its image data, its IDAT chunks replaced by `data`, `after` inserted after
    them (before IEND)."""
    head, idat, tail = split(png)
    return head + before + (idat if data is None else data) + after + tail


def sample(slug):
    with open(os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect", CHANGED[slug]), "rb") as f:
        return f.read()


def submission(tmp_path, slug, name, png):
    """The perfect sample with its CHANGED file replaced by png."""
    res = tmp_path / name
    shutil.copytree(os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), str(res))
    (res / CHANGED[slug]).write_bytes(png)
    return res


def reference(slug):
    return os.path.join(ROOT, "reference_data", slug)


def same_size_honest(png, size):
    """png with one tEXt comment after its image data (libpng writes text there too), `size` bytes in all."""
    pad = size - len(png) - 12 - len(b"Comment\0")
    assert pad >= 0
    return rebuild(png, after=chunk(b"tEXt", b"Comment\0" + b"x" * pad))


def scores(run):
    with open(str(run.out / "scores.json")) as f:
        return json.load(f)


def perfect_scores(tmp_path, slug):
    run = measured(slug, reference(slug), os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"),
                   tmp_path, name="perfect")
    assert run.returncode == 0, run
    return scores(run)


def deflated(n_mib, prefix=b""):
    """A zlib stream of prefix and n_mib MiB of zeros (about 1 KiB a MiB), in a blink: after a full flush the
    compressor starts afresh, so each MiB compresses to the same bytes, written n_mib times; then an empty final
    block and the Adler-32 of it all."""
    z = zlib.compressobj(9)
    block = bytes(MIB)
    head = z.compress(prefix) + z.flush(zlib.Z_FULL_FLUSH)
    segment = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    adler = zlib.adler32(prefix)
    for _ in range(n_mib):
        adler = zlib.adler32(block, adler)
    return head + segment * n_mib + b"\x03\x00" + struct.pack(">I", adler & 0xFFFFFFFF)


# ---------------------------------------------------------------- cost: millions of chunks

N_CHUNKS = 4000000      # 48 MB of 12-byte chunks (120 KB zipped). Before the fix: 14.5 s (segmentation), 19 s (pose)


@pytest.mark.parametrize("where", ["before the image data", "in the image data", "after the image data"])
@pytest.mark.parametrize("slug", SLUGS)
def test_millions_of_chunks_cost_what_an_honest_png_of_the_same_size_costs(tmp_path, slug, where):
    """4 million empty chunks: private ancillary ones before the first IDAT (refused: more than 4096), empty IDAT
    chunks after the real one (refused: more than 4096 chunks of image data), private ones after the image data
    (never read: scored as the perfect sample). Against the same PNG with a comment after its image data that makes
    it exactly as large, scored as the perfect sample."""
    png = sample(slug)
    crafted = {"before the image data": lambda: rebuild(png, before=chunk(b"prVt") * N_CHUNKS),
               "in the image data": lambda: rebuild(png, data=split(png)[1] + chunk(b"IDAT") * N_CHUNKS),
               "after the image data": lambda: rebuild(png, after=chunk(b"prVt") * N_CHUNKS)}[where]()
    attack_dir = submission(tmp_path, slug, "attack-res", crafted)
    honest_dir = submission(tmp_path, slug, "honest-res", same_size_honest(png, len(crafted)))
    del crafted
    attack = measured(slug, reference(slug), attack_dir, tmp_path, name="attack")
    honest = measured(slug, reference(slug), honest_dir, tmp_path, name="honest")
    assert honest.returncode == 0, honest
    assert scores(honest) == perfect_scores(tmp_path, slug)
    if where == "after the image data":
        assert attack.returncode == 0, attack
        assert scores(attack) == scores(honest)
    else:
        assert attack.returncode == 1, attack
        assert one_line(attack) == "submission error: %s: %s" % (CHANGED[slug], TOO_MANY_CHUNKS if where.startswith(
            "before") else TOO_MANY_DATA_CHUNKS)
    assert_bounded(attack, honest, folder_bytes(attack_dir) + folder_bytes(reference(slug)))


# ---------------------------------------------------------------- cost: what inflates to gigabytes

def idat_bomb(png, n_mib):
    """png with its image data followed, in the same zlib stream, by n_mib MiB of zeros."""
    rows = zlib.decompress(b"".join(_payloads(split(png)[1])))
    return rebuild(png, data=chunk(b"IDAT", deflated(n_mib, rows)))


def _payloads(idat_chunks):
    pos, out = 0, []
    while pos < len(idat_chunks):
        length = struct.unpack_from(">I", idat_chunks, pos)[0]
        out.append(idat_chunks[pos + 8:pos + 8 + length])
        pos += 12 + length
    return out


def test_deflated_is_a_zlib_stream_of_zeros():
    assert zlib.decompress(deflated(3, b"rows")) == b"rows" + bytes(3 * MIB)


@pytest.mark.parametrize("slug", SLUGS)
def test_compressed_text_icc_profile_and_image_data_are_never_inflated_beyond_the_image(tmp_path, slug):
    """Before the image data, a zTXt chunk inflating to 512 MiB and an iCCP chunk inflating to 256 MiB (inside the
    1 MiB allowed there); the image data followed, in its zlib stream, by 512 MiB of zeros. Scored as the perfect
    sample (metadata changes no pixel and is not decoded; decoding stops at the last row), within the issue's
    memory bound and an honest PNG's time. (Before the fix: refused, exit 1, for the zTXt chunk, which Pillow
    inflates up to 1 MB.)"""
    png = sample(slug)
    metadata = chunk(b"zTXt", b"Comment\0\0" + deflated(512)) + chunk(b"iCCP", b"profile\0\0" + deflated(256))
    crafted = rebuild(idat_bomb(png, 512), before=metadata)
    assert len(crafted) < 2 * MIB
    attack_dir = submission(tmp_path, slug, "attack-res", crafted)
    honest_dir = submission(tmp_path, slug, "honest-res", same_size_honest(png, len(crafted)))
    attack = measured(slug, reference(slug), attack_dir, tmp_path, name="attack")
    honest = measured(slug, reference(slug), honest_dir, tmp_path, name="honest")
    assert attack.returncode == 0, attack
    assert scores(attack) == scores(honest) == perfect_scores(tmp_path, slug)
    assert_bounded(attack, honest, folder_bytes(attack_dir) + folder_bytes(reference(slug)))


# ---------------------------------------------------------------- crash: one line naming the file

def _crafted(slug, case):
    png = sample(slug)
    head, idat, tail = split(png)
    return {
        "more than 4096 chunks before the image data": lambda: rebuild(png, before=chunk(b"prVt") * MAX_PNG_CHUNKS),
        "more than 1 MiB before the image data": lambda: rebuild(png, before=chunk(b"prVt", bytes(MIB))),
        "more than 4096 chunks of image data": lambda: rebuild(png, data=idat + chunk(b"IDAT") * MAX_PNG_DATA_CHUNKS),
        "empty": lambda: b"",
        "cut in the header": lambda: png[:20],                 # inside IHDR
        "cut in the image data": lambda: head + idat[:len(idat) // 2],
        "not a PNG": lambda: b"GIF89a, not a PNG",
    }[case]()


CRASHES = {"more than 4096 chunks before the image data": TOO_MANY_CHUNKS,
           "more than 1 MiB before the image data": TOO_MANY_BYTES,
           "more than 4096 chunks of image data": TOO_MANY_DATA_CHUNKS,
           "empty": None, "cut in the header": CUT_IN_HEADER, "cut in the image data": None, "not a PNG": None}


@pytest.mark.parametrize("case", sorted(CRASHES))
@pytest.mark.parametrize("slug", SLUGS)
def test_a_broken_png_is_one_line_naming_the_file(tmp_path, slug, case):
    res = submission(tmp_path, slug, "res", _crafted(slug, case))
    run = measured(slug, reference(slug), res, tmp_path, name="run")
    assert run.returncode == 1, run
    assert not (run.out / "scores.json").exists()
    assert one_line(run) == "submission error: %s: %s" % (CHANGED[slug], CRASHES[case] or MESSAGES[slug, case])


@pytest.mark.parametrize("slug", SLUGS)
def test_pillows_own_message_is_quoted_on_one_line(tmp_path, slug):
    """Image data that is not a zlib stream: Pillow's message, quoted (errors.shorten), on the scorer's one line."""
    png = rebuild(sample(slug), data=chunk(b"IDAT", b"\x00\xff" * 64))
    res = submission(tmp_path, slug, "res", png)
    run = measured(slug, reference(slug), res, tmp_path, name="run")
    assert run.returncode == 1, run
    line = one_line(run)
    head = {SEG: SEG_KIND + "found a PNG that cannot be decoded ('", POSE: "cannot decode the PNG data ('"}[slug]
    assert line.startswith("submission error: %s: %s" % (CHANGED[slug], head)), line
    assert len(line) < 400 and "object at 0x" not in line


@pytest.mark.parametrize("slug", SLUGS)
def test_the_references_pngs_are_walked_too(tmp_path, slug):
    """A ground-truth PNG over a cap: exit 2 (the organizer's fault), one line naming it; the detail (the organizer
    tools' line) says which cap."""
    ref = tmp_path / "ref"
    shutil.copytree(reference(slug), str(ref))
    gt = ref / REF_CHANGED[slug]
    gt.write_bytes(rebuild(gt.read_bytes(), before=chunk(b"prVt") * MAX_PNG_CHUNKS))
    run = measured(slug, ref, os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), tmp_path)
    assert run.returncode == 2, run
    assert one_line(run).startswith("reference data error (the organizer's fault, not yours): ref/%s: "
                                    % REF_CHANGED[slug])
    with pytest.raises(ReferenceDataError) as e:
        read_png(str(gt), "ref/" + REF_CHANGED[slug], ReferenceDataError)
    assert e.value.detail().endswith(TOO_MANY_CHUNKS)


# ---------------------------------------------------------------- the caps, to the unit

def _png(before=b"", data_chunks=1):
    """A 3 x 2 indexed PNG: IHDR, PLTE, `before`, its image data in data_chunks IDAT chunks (all but one empty)."""
    rows = zlib.compress(b"\x00\x01\x02\x03" * 2)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 3, 2, 8, 3, 0, 0, 0))
            + chunk(b"PLTE", bytes(range(12))) + before + chunk(b"IDAT", rows)
            + chunk(b"IDAT") * (data_chunks - 1) + chunk(b"IEND"))


def _pixels(tmp_path, data, err=SubmissionError):
    path = tmp_path / "x.png"
    path.write_bytes(data)
    return read_label_png(str(path), "x.png", err).tolist()


PIXELS = [[1, 2, 3], [1, 2, 3]]


def test_chunks_before_the_image_data_up_to_the_cap(tmp_path):
    """IHDR and PLTE count: 4094 more chunks make 4096, accepted; one more is refused."""
    assert _pixels(tmp_path, _png(chunk(b"prVt") * (MAX_PNG_CHUNKS - 2))) == PIXELS
    with pytest.raises(SubmissionError) as e:
        _pixels(tmp_path, _png(chunk(b"prVt") * (MAX_PNG_CHUNKS - 1)))
    assert str(e.value) == "submission error: x.png: " + TOO_MANY_CHUNKS


def test_bytes_before_the_image_data_up_to_the_cap(tmp_path):
    """8 (signature) + 25 (IHDR) + 24 (PLTE) + a chunk of 12 + n bytes: the first IDAT at byte 1048576 is
    accepted, at 1048577 refused."""
    n = MAX_PNG_PREAMBLE_BYTES - 8 - 25 - 24 - 12
    assert _pixels(tmp_path, _png(chunk(b"prVt", bytes(n)))) == PIXELS
    with pytest.raises(SubmissionError) as e:
        _pixels(tmp_path, _png(chunk(b"prVt", bytes(n + 1))))
    assert str(e.value) == "submission error: x.png: " + TOO_MANY_BYTES


def test_chunks_of_image_data_up_to_the_cap(tmp_path):
    assert _pixels(tmp_path, _png(data_chunks=MAX_PNG_DATA_CHUNKS)) == PIXELS
    with pytest.raises(SubmissionError) as e:
        _pixels(tmp_path, _png(data_chunks=MAX_PNG_DATA_CHUNKS + 1))
    assert str(e.value) == "submission error: x.png: " + TOO_MANY_DATA_CHUNKS


def test_the_reference_gets_the_same_caps_as_a_reference_error(tmp_path):
    with pytest.raises(ReferenceDataError) as e:
        _pixels(tmp_path, _png(data_chunks=MAX_PNG_DATA_CHUNKS + 1), ReferenceDataError)
    assert e.value.detail() == ("reference data error (the organizer's fault, not yours): x.png: "
                                + TOO_MANY_DATA_CHUNKS)


@pytest.mark.parametrize("change,found", [
    (lambda p: p[:30] + bytes([p[30] ^ 0xFF]) + p[31:], "a wrong CRC in chunk 1"),              # IHDR's CRC
    (lambda p: p[:8] + chunk(b"PLTE", bytes(3)) + p[8:], "chunk 1 of another type or length"),  # IHDR not first
    (lambda p: rebuild(p, before=p[8:33]), "another one, chunk 3"),                            # IHDR twice
    (lambda p: rebuild(p, before=chunk(b"p1Vt")), "chunk 3 of another type"),                  # not 4 letters
])
def test_broken_chunks_before_the_image_data(tmp_path, change, found):
    with pytest.raises(SubmissionError) as e:
        _pixels(tmp_path, change(_png()))
    assert str(e.value).endswith("found " + found)


def test_what_follows_the_image_data_is_never_read(tmp_path):
    """Anything after the first run of IDAT chunks (chunks with a wrong CRC, junk, a cut chunk) changes nothing,
    as for Pillow, which reads no further chunk for the pixels."""
    assert _pixels(tmp_path, rebuild(_png(), after=b"\x00\x00\x00\x05junk!" + b"\xff" * 100)) == PIXELS
    assert _pixels(tmp_path, _png()[:-12]) == PIXELS                    # no IEND


def test_not_a_png_is_left_to_the_caller(tmp_path):
    path = tmp_path / "x.png"
    path.write_bytes(b"\xff\xd8\xff\xe0 a JPEG")
    with pytest.raises(NotPng) as e:
        read_png(str(path), "x.png")
    assert e.value.head == b"\xff\xd8\xff\xe0 a J"
    with pytest.raises(SubmissionError) as e:
        read_label_png(str(path), "x.png")
    assert str(e.value) == "submission error: x.png: " + SEG_KIND + "found a JPEG file"


# ---------------------------------------------------------------- honest PNGs with metadata

def with_metadata(png):
    """png saved again by Pillow with tEXt, zTXt and iTXt chunks, an ICC profile and EXIF."""
    im = Image.open(io.BytesIO(png))
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", "a participant's pipeline")
    info.add_text("Comment", "compressed " * 500, zip=True)
    info.add_itxt("Title", "pr\u00e9diction", lang="fr", tkey="Titre")
    exif = Image.Exif()
    exif[0x0131] = "writer"
    out = io.BytesIO()
    im.save(out, format="PNG", pnginfo=info, icc_profile=bytes(range(256)) * 12, exif=exif.tobytes())
    data = out.getvalue()
    assert {b"tEXt", b"zTXt", b"iTXt", b"iCCP", b"eXIf"} <= set(_kinds(data))
    return data


def _kinds(png):
    pos, kinds = 8, []
    while pos < len(png):
        length, kind = struct.unpack_from(">I4s", png, pos)
        kinds.append(kind)
        pos += 12 + length
    return kinds


@pytest.mark.parametrize("slug", SLUGS)
def test_pngs_written_by_pillow_with_text_icc_and_exif_score_the_same(tmp_path, slug):
    kit = os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect")
    res = tmp_path / "res"
    shutil.copytree(kit, str(res))
    n = 0
    for root, _, files in os.walk(str(res)):
        for name in files:
            if name.endswith(".png"):
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    data = with_metadata(f.read())
                with open(path, "wb") as f:
                    f.write(data)
                n += 1
    assert n >= 8
    run = measured(slug, reference(slug), res, tmp_path, name="metadata")
    assert run.returncode == 0, run
    with open(str(run.out / "scores.json"), "rb") as f:
        got = f.read()
    base = measured(slug, reference(slug), kit, tmp_path, name="plain")
    with open(str(base.out / "scores.json"), "rb") as f:
        assert got == f.read()


def test_a_panorama_with_metadata_decodes_as_without(tmp_path):
    rng = np.random.RandomState(0)
    for mode in ("L", "RGB", "P", "LA", "1"):
        arr = rng.randint(0, 256, (7, 30, 3)).astype(np.uint8)
        im = Image.fromarray(arr, "RGB").convert(mode)
        out = io.BytesIO()
        im.save(out, format="PNG")
        plain, rich = tmp_path / ("%s-plain.png" % mode), tmp_path / ("%s-rich.png" % mode)
        plain.write_bytes(out.getvalue())
        rich.write_bytes(with_metadata(out.getvalue()))
        assert np.array_equal(read_panorama(str(plain), "p.png"), read_panorama(str(rich), "p.png")), mode
