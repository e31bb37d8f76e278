"""PNG files of every kind the scorers read, with random pixels, for decoding tests: the ones Pillow writes, and
the ones it cannot (2- and 4-bit greyscale, Adam7-interlaced, 16-bit colour, greyscale with a tRNS chunk),
written chunk by chunk here."""
import io
import struct
import zlib

import numpy as np
from PIL import Image

# Adam7 passes: (first column, first row, column step, row step)
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _pack_rows(samples, depth):
    """(h, w) array of samples (< 2**depth) -> list of row bytes at that bit depth (big-endian, as PNG)."""
    samples = np.asarray(samples)
    if depth == 16:
        return [row.astype(">u2").tobytes() for row in samples]
    if depth == 8:
        return [row.astype(np.uint8).tobytes() for row in samples]
    per = 8 // depth
    h, w = samples.shape
    padded = np.zeros((h, -(-w // per) * per), dtype=np.uint8)
    padded[:, :w] = samples
    groups = padded.reshape(h, -1, per)
    shifts = np.arange(per - 1, -1, -1, dtype=np.uint8) * depth
    return [row.tobytes() for row in np.bitwise_or.reduce(groups << shifts, axis=2).astype(np.uint8)]


def raw_png(samples, depth, color_type, interlace=False, extra=b""):
    """A PNG of the given samples ((h, w) or (h, w, channels) integers), bit depth and colour type, every row with
    filter 0; interlace: Adam7. extra: chunks placed before IDAT (PLTE, tRNS, ...)."""
    samples = np.asarray(samples)
    h, w = samples.shape[:2]
    flat = samples.reshape(h, -1) if samples.ndim == 3 else samples
    channels = 1 if samples.ndim == 2 else samples.shape[2]
    if interlace:
        parts = []
        for x0, y0, dx, dy in ADAM7:
            sub = samples[y0::dy, x0::dx]
            if sub.shape[0] and sub.shape[1]:
                parts += _pack_rows(sub.reshape(sub.shape[0], -1) if sub.ndim == 3 else sub, depth)
    else:
        parts = _pack_rows(flat, depth)
    if channels > 1 and depth < 8:
        raise ValueError("sub-byte depths are for one channel only")
    raw = b"".join(b"\x00" + p for p in parts)
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 1 if interlace else 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + extra + _chunk(b"IDAT", zlib.compress(raw))
            + _chunk(b"IEND", b""))


def _pillow(img, **options):
    buf = io.BytesIO()
    img.save(buf, format="PNG", **options)
    return buf.getvalue()


def _palette(rng, n):
    return _chunk(b"PLTE", rng.randint(0, 256, 3 * n).astype(np.uint8).tobytes())


def label_kinds(rng, h, w):
    """{kind: PNG bytes} of the label PNGs VOCevalseg's reader accepts: palette (8, 4, 2 and 1 bit, interlaced or
    not) and 8-bit greyscale (interlaced or not)."""
    out = {}
    for depth in (8, 4, 2, 1):
        idx = rng.randint(0, 2 ** depth, (h, w))
        out["P%d" % depth] = raw_png(idx, depth, 3, extra=_palette(rng, 2 ** depth))
        out["P%d interlaced" % depth] = raw_png(idx, depth, 3, True, _palette(rng, 2 ** depth))
    grey = rng.randint(0, 256, (h, w))
    out["L"] = _pillow(Image.fromarray(grey.astype(np.uint8)))
    out["L interlaced"] = raw_png(grey, 8, 0, True)
    out["P by Pillow"] = _pillow(Image.fromarray(grey.astype(np.uint8)).quantize(64))
    return out


def panorama_kinds(rng, h, w):
    """{kind: PNG bytes} of every kind of PNG the pose scorer reads through Pillow's convert('L'): the label kinds,
    greyscale at 1, 2, 4 and 16 bits, greyscale with a tRNS chunk, grey+alpha, RGB and RGBA at 8 and 16 bits,
    palette with transparency."""
    out = label_kinds(rng, h, w)
    for depth in (1, 2, 4, 16):
        out["L%d" % depth] = raw_png(rng.randint(0, 2 ** depth, (h, w)), depth, 0)
    out["L4 interlaced"] = raw_png(rng.randint(0, 16, (h, w)), 4, 0, True)
    out["L + tRNS"] = raw_png(rng.randint(0, 256, (h, w)), 8, 0, extra=_chunk(b"tRNS", struct.pack(">H", 7)))
    rgb = rng.randint(0, 256, (h, w, 3)).astype(np.uint8)
    out["RGB"] = _pillow(Image.fromarray(rgb))
    out["RGBA"] = _pillow(Image.fromarray(rgb).convert("RGBA"))
    out["LA"] = _pillow(Image.fromarray(rgb).convert("LA"))
    out["1 by Pillow"] = _pillow(Image.fromarray(rgb).convert("1"))
    out["I;16 by Pillow"] = _pillow(Image.fromarray(rng.randint(0, 65536, (h, w)).astype(np.uint16)))
    out["P + tRNS"] = _pillow(Image.fromarray(rgb).quantize(64), transparency=3)
    out["RGB16"] = raw_png(rng.randint(0, 65536, (h, w, 3)), 16, 2)
    out["RGBA16 interlaced"] = raw_png(rng.randint(0, 65536, (h, w, 4)), 16, 6, True)
    out["RGB interlaced"] = raw_png(rgb, 8, 2, True)
    return out


def filtered_png(samples, colour_type, filters, extra=b"", tail=b""):
    """A non-interlaced 8-bit one-channel PNG whose row y is stored with filter type filters[y]: 0 None, 1 Sub,
    2 Up (what encoders choose row by row). tail: bytes inflated after the last row (Pillow ignores them)."""
    samples = np.asarray(samples, dtype=np.int64)
    h, w = samples.shape
    rows, prev = [], np.zeros(w, dtype=np.int64)
    for y in range(h):
        row = samples[y]
        if filters[y] == 1:
            stored = row - np.concatenate([[0], row[:-1]])
        elif filters[y] == 2:
            stored = row - prev
        else:
            stored = row
        rows.append(bytes([filters[y]]) + (stored % 256).astype(np.uint8).tobytes())
        prev = row
    ihdr = struct.pack(">IIBBBBB", w, h, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + extra
            + _chunk(b"IDAT", zlib.compress(b"".join(rows) + tail)) + _chunk(b"IEND", b""))


def plte_chunk(entries):
    """A PLTE chunk holding these (R, G, B) entries, in order."""
    return _chunk(b"PLTE", np.asarray(entries, dtype=np.uint8).tobytes())


def palette_chunk(n=256):
    return _chunk(b"PLTE", bytes((7 * i) % 256 for i in range(3 * n)))
