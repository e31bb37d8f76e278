#!/usr/bin/env python3
"""A prior baseline for VOC2011 segmentation, no model: every pixel labelled background.

    python baseline.py VOC2011_DIR OUT_DIR [--set=test] [--comp=5]

Reads the image ids from VOC2011_DIR/ImageSets/Segmentation/<set>.txt and each image's size from the header of
JPEGImages/<id>.jpg (the sample has no images: there the header of SegmentationClass/<id>.png gives the size, and
nothing else of it is read), and writes OUT_DIR/comp5_<set>_cls/<id>.png:
8-bit indexed PNGs with the VOC colour map, written with the standard library only. Replace `predict` with your
segmenter (it must return height x width class indices 0..20). Zip the CONTENTS of OUT_DIR to submit.
"""
import os
import struct
import sys
import zlib


def voc_colormap():
    out = bytearray()
    for i in range(256):
        r = g = b = 0
        c = i
        for j in range(8):
            r |= ((c >> 0) & 1) << (7 - j)
            g |= ((c >> 1) & 1) << (7 - j)
            b |= ((c >> 2) & 1) << (7 - j)
            c >>= 3
        out += bytes((r, g, b))
    return bytes(out)


def write_indexed_png(path, rows, width, height):
    """rows: list of `height` bytes objects of `width` class indices each."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
                + chunk(b"PLTE", voc_colormap()) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


def jpeg_size(path):
    with open(path, "rb") as f:
        data = f.read()
    i = 2
    while i < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        i += 2 + struct.unpack(">H", data[i + 2:i + 4])[0]
    raise ValueError("no frame header in %s" % path)


def image_size(voc, img):
    jpg = os.path.join(voc, "JPEGImages", img + ".jpg")
    if os.path.isfile(jpg):
        return jpeg_size(jpg)
    return png_size(os.path.join(voc, "SegmentationClass", img + ".png"))


def predict(voc, img, width, height):
    """Your segmenter here. The baseline: background (0) everywhere."""
    return [bytes(width)] * height


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    voc, out = args
    set_name, comp = opts.get("set", "test"), int(opts.get("comp", "5"))
    with open(os.path.join(voc, "ImageSets", "Segmentation", set_name + ".txt")) as f:
        ids = [line.split()[0] for line in f if line.strip()]
    folder = os.path.join(out, "comp%d_%s_cls" % (comp, set_name))
    os.makedirs(folder, exist_ok=True)
    for img in ids:
        w, h = image_size(voc, img)
        write_indexed_png(os.path.join(folder, img + ".png"), predict(voc, img, w, h), w, h)
    print("wrote %d images to %s" % (len(ids), folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
