#!/usr/bin/env python3
"""A prior baseline for ChaLearn LAP 2014 Track 1 (multi-limb pose), no model: the same "average pose" boxes for
every frame, written as valid prediction panoramas. Needs only the standard library and numpy.

    python baseline.py FRAMES_DIR OUT_DIR [--height 360] [--ids-out FILE]

FRAMES_DIR (searched with its subfolders) holds the frames to predict, XX_YYYY.jpg; only their names are read, and
the panoramas get the height --height (360, the challenge's frames). The sample has no frames: its ground-truth
masks XX_YYYY_W.png stand in for the frame list there, and only their names and heights are read. For each frame
and each actor W in 1, 2 it writes OUT_DIR/XX_YYYY_W_prediction.png: a 6720-pixel-wide panorama of 14 limb masks,
480 columns each (head, torso, lhand, rhand, lforearm, rforearm, larm, rarm, lfoot, rfoot, lleg, rleg, lthigh,
rthigh), 255 = limb, 0 = not, each limb a box at its average place for an actor standing in the left (actor 1) or
right (actor 2) half of the frame. Replace `panorama` with your model. Zip the contents of OUT_DIR and submit.
--ids-out FILE also writes the panorama names XX_YYYY_W, one a line (the list `validate --ids` takes).
"""
import argparse
import os
import re
import struct
import sys
import zlib

import numpy as np

LIMB_STRIDE = 480
N_LIMBS = 14
# average limb centre (dx from the actor's x, y) and half size in a 480 x 360 frame
CENTRES = [(0, 40), (0, 110), (-70, 170), (70, 170), (-55, 135), (55, 135), (-40, 90), (40, 90),
           (-25, 345), (25, 345), (-22, 290), (22, 290), (-18, 225), (18, 225)]
HALF = [(18, 22), (32, 45), (10, 10), (10, 10), (9, 22), (9, 22), (10, 25), (10, 25), (14, 8), (14, 8),
        (10, 30), (10, 30), (13, 32), (13, 32)]
ACTOR_X = {1: 150, 2: 330}     # actor 1 is the leftmost, actor 2 the rightmost


def panorama(actor, height):
    img = np.zeros((height, N_LIMBS * LIMB_STRIDE), dtype=np.uint8)
    s = height / 360.0
    for n in range(N_LIMBS):
        cx, cy = ACTOR_X[actor] + CENTRES[n][0], CENTRES[n][1] * s
        hw, hh = HALF[n][0], max(HALF[n][1] * s, 1.0)
        x0, x1 = int(max(cx - hw, 0)), int(min(cx + hw, LIMB_STRIDE - 2))   # column 480 of a block is ignored
        y0, y1 = int(max(cy - hh, 0)), int(min(cy + hh, height - 1))
        img[y0:y1 + 1, n * LIMB_STRIDE + x0:n * LIMB_STRIDE + x1 + 1] = 255
    return img


def write_png(path, img):
    """8-bit greyscale PNG with the standard library."""
    h, w = img.shape
    raw = b"".join(b"\x00" + img[r].tobytes() for r in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def png_height(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">I", head[20:24])[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("frames_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--height", type=int, default=360, help="panorama height for .jpg frames (default 360)")
    ap.add_argument("--ids-out", help="also write the panorama names here, one a line")
    a = ap.parse_args(argv)
    os.makedirs(a.out_dir, exist_ok=True)
    frames = {}
    for folder, _, names in sorted(os.walk(a.frames_dir)):
        for name in sorted(names):
            m = re.fullmatch(r"([^_]+_[^_.]+)(?:_[12])?\.(?:jpg|jpeg|png)", name, flags=re.IGNORECASE)
            if m:
                h = png_height(os.path.join(folder, name)) if name.lower().endswith(".png") else None
                frames[m.group(1)] = h or frames.get(m.group(1)) or a.height
    cache, stems = {}, []
    for frame, h in sorted(frames.items()):
        for actor in (1, 2):
            if (actor, h) not in cache:
                cache[actor, h] = panorama(actor, h)
            stems.append("%s_%d" % (frame, actor))
            write_png(os.path.join(a.out_dir, stems[-1] + "_prediction.png"), cache[actor, h])
    if a.ids_out:
        with open(a.ids_out, "w") as f:
            f.writelines(stem + "\n" for stem in stems)
    print("wrote %d prediction panoramas to %s" % (len(stems), a.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
