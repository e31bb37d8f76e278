"""formats/images.py: decoding straight into a reused numpy array (load_into, DecodeBuffer) gives exactly what
np.asarray(Image.open(...)) gives, for every kind of label PNG, and keeps Pillow's errors and messages."""
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image, PngImagePlugin

from pngkinds import filtered_png, label_kinds, palette_chunk
from scoring_program.errors import SubmissionError
from scoring_program.formats.images import DecodeBuffer, LabelImage, load_into, read_label_png

KINDS = sorted(label_kinds(np.random.RandomState(0), 3, 5))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("h,w", [(1, 1), (9, 17), (40, 33)])
def test_decoded_label_equals_pillow_asarray(tmp_path, kind, h, w):
    data = label_kinds(np.random.RandomState(h * 100 + w), h, w)[kind]
    path = tmp_path / "x.png"
    path.write_bytes(data)
    expected = np.asarray(Image.open(io.BytesIO(data)))
    ours = read_label_png(str(path), "x.png")
    assert ours.dtype == np.uint8 and ours.shape == (h, w)
    assert np.array_equal(ours, expected)
    buffer = DecodeBuffer()
    buffer.array(h, w)[...] = 77                       # stale pixels must all be overwritten
    assert np.array_equal(read_label_png(str(path), "x.png", buffer=buffer), expected)


def test_one_buffer_serves_image_after_image_and_follows_the_size(tmp_path):
    rng = np.random.RandomState(1)
    buffer = DecodeBuffer()
    seen = []
    for k, (h, w) in enumerate([(20, 30), (20, 30), (7, 30), (20, 30)]):
        data = label_kinds(rng, h, w)[KINDS[k % len(KINDS)]]
        path = tmp_path / ("%d.png" % k)
        path.write_bytes(data)
        arr = read_label_png(str(path), "x.png", buffer=buffer)
        assert np.array_equal(arr, np.asarray(Image.open(io.BytesIO(data))))
        seen.append(arr)
    assert seen[1] is seen[0]                           # same size: the same array, nothing allocated
    assert seen[2].shape == (7, 30) and seen[3].shape == (20, 30)


def test_a_pillow_that_allocates_its_own_memory_still_gives_the_pixels(tmp_path, monkeypatch):
    data = label_kinds(np.random.RandomState(2), 11, 13)["P8"]
    original = PngImagePlugin.PngImageFile.load_prepare

    def own_memory(self):
        self.im = Image.core.new(self.mode, self.size)
        original(self)

    monkeypatch.setattr(PngImagePlugin.PngImageFile, "load_prepare", own_memory)
    buffer = DecodeBuffer()
    arr = load_into(Image.open(io.BytesIO(data)), buffer)
    assert arr is not buffer.array(11, 13)
    assert np.array_equal(arr, np.asarray(Image.open(io.BytesIO(data))))


@pytest.mark.parametrize("use_buffer", [False, True])
def test_truncated_label_png_keeps_its_message(tmp_path, use_buffer):
    data = label_kinds(np.random.RandomState(3), 40, 50)["L"]
    path = tmp_path / "x.png"
    path.write_bytes(data[:-40])
    with pytest.raises(SubmissionError) as e:
        with LabelImage(str(path), "x.png") as im:
            im.decode(buffer=DecodeBuffer() if use_buffer else None)
    assert str(e.value) == ("submission error: x.png: expected an indexed (palette) or 8-bit greyscale PNG; found a "
                            "PNG that cannot be decoded (the file is cut short: it ends before its image data is "
                            "complete)")


# ---------------------------------------------------------------- plain label PNGs, read by zlib alone

def _outcome(path, use_plain, monkeypatch):
    """The pixels, or the message, of read_label_png with or without the plain path."""
    from scoring_program.formats import images

    with monkeypatch.context() as m:
        if not use_plain:
            m.setattr(images.PlainPng, "plain", classmethod(lambda cls, path: None))
        try:
            return read_label_png(str(path), "x.png", buffer=DecodeBuffer()).copy()
        except SubmissionError as e:
            return str(e)


def _same(a, b):
    return a == b if isinstance(a, str) or isinstance(b, str) else np.array_equal(a, b)


def plain_bases():
    rng = np.random.RandomState(4)
    idx = rng.randint(0, 21, (20, 9))
    return {
        "palette": filtered_png(idx, 3, [0] * 20, palette_chunk()),
        "grey": filtered_png(idx, 0, [0] * 20),
        "palette by Pillow": label_kinds(rng, 20, 9)["P by Pillow"],
        "palette with tRNS and pHYs": filtered_png(
            idx, 3, [0] * 20, palette_chunk(32) + _chunk(b"tRNS", b"\xff\x00") + _chunk(b"pHYs", bytes(9))),
        "Sub on row 12": filtered_png(idx, 3, [0] * 12 + [1] + [0] * 7, palette_chunk()),
        "Up on row 0": filtered_png(idx, 3, [2] + [0] * 19, palette_chunk()),
        "Up on row 3": filtered_png(idx, 3, [0] * 3 + [2] * 17, palette_chunk()),
        "grey, Up on row 3": filtered_png(idx, 0, [0] * 3 + [2] * 17),
        "data after the last row": filtered_png(idx, 3, [0] * 20, palette_chunk(), tail=b"\x00" * 5000),
    }


def _chunk(kind, data):
    import struct
    import zlib
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


@pytest.mark.parametrize("name", sorted(plain_bases()))
def test_plain_and_filtered_label_pngs_decode_as_pillow(tmp_path, monkeypatch, name):
    data = plain_bases()[name]
    path = tmp_path / "x.png"
    path.write_bytes(data)
    expected = np.asarray(Image.open(io.BytesIO(data)))
    assert np.array_equal(_outcome(path, True, monkeypatch), expected)


@pytest.mark.parametrize("name", ["palette", "palette by Pillow", "palette with tRNS and pHYs",
                                  "data after the last row"])
def test_a_plain_label_png_is_read_without_pillow(tmp_path, monkeypatch, name):
    data = plain_bases()[name]
    path = tmp_path / "x.png"
    path.write_bytes(data)
    expected = np.asarray(Image.open(io.BytesIO(data)))

    def no_pillow(*args, **kwargs):
        raise AssertionError("Pillow opened a plain label PNG")

    monkeypatch.setattr(Image, "open", no_pillow)
    assert np.array_equal(read_label_png(str(path), "x.png"), expected)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(plain_bases())), st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)),
                                                         max_size=3),
       st.one_of(st.none(), st.integers(0, 10 ** 6)), st.binary(max_size=20))
def test_any_damage_to_a_plain_png_gives_what_pillow_alone_gives(tmp_path, monkeypatch, name, flips, cut, tail):
    """Bytes changed anywhere (signature, IHDR, CRCs, lengths, zlib data), the file cut short, bytes appended: the
    plain path returns the same pixels as Pillow, or leaves the file to Pillow and its message."""
    data = bytearray(plain_bases()[name])
    for pos, value in flips:
        data[pos % len(data)] = value
    if cut is not None:
        data = data[:cut % (len(data) + 1)]
    path = tmp_path / "x.png"
    path.write_bytes(bytes(data) + tail)
    assert _same(_outcome(path, True, monkeypatch), _outcome(path, False, monkeypatch))
