#!/usr/bin/env python3
"""A trivial baseline for ChaLearn LAP 2014 Track 1 (multi-limb pose): the same "average pose" boxes for every
frame, written as valid prediction panoramas. Needs only the standard library and numpy.

    python baseline.py FRAMES_DIR OUT_DIR [--height 360]

FRAMES_DIR holds the frames to predict, XX_YYYY.jpg (or the ground-truth masks XX_YYYY_W.png of a validation
set, whose height is then reused). For each frame and each actor W in 1, 2 it writes
OUT_DIR/XX_YYYY_W_prediction.png: a 6720-pixel-wide panorama of 14 limb masks, 480 columns each (head, torso,
lhand, rhand, lforearm, rforearm, larm, rarm, lfoot, rfoot, lleg, rleg, lthigh, rthigh), 255 = limb, 0 = not.
Zip the contents of OUT_DIR and submit.
"""
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


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    height = 360
    if "--height" in argv:
        height = int(argv[argv.index("--height") + 1])
        args.remove(str(height))
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    src, out = args
    os.makedirs(out, exist_ok=True)
    frames = {}
    for name in sorted(os.listdir(src)):
        m = re.fullmatch(r"([^_]+_[^_.]+)(?:_[12])?\.(?:jpg|jpeg|png)", name, flags=re.IGNORECASE)
        if m:
            h = png_height(os.path.join(src, name)) if name.lower().endswith(".png") else None
            frames[m.group(1)] = h or frames.get(m.group(1)) or height
    cache = {}
    for frame, h in frames.items():
        for actor in (1, 2):
            if (actor, h) not in cache:
                cache[actor, h] = panorama(actor, h)
            write_png(os.path.join(out, "%s_%d_prediction.png" % (frame, actor)), cache[actor, h])
    print("wrote %d prediction panoramas to %s" % (2 * len(frames), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
