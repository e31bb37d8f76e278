#!/usr/bin/env python3
"""A chance-level baseline that writes a valid VOC2011 detection submission.

    python baseline.py IMAGE_LIST OUT_DIR [--comp 3|4] [--per-image 3] [--seed 0]

IMAGE_LIST is the devkit's ImageSets/Main/<set>.txt (one image id per line; its file name gives the set).
Writes OUT_DIR/comp<N>_det_<set>_<class>.txt for the 20 classes, one line per detection:
"<id> <confidence> <xmin> <ymin> <xmax> <ymax>" (1-based pixel coordinates, as the devkit's example detector).
Replace `detect` with your detector. Zip the CONTENTS of OUT_DIR (or the folder: both are accepted).
"""
import argparse
import os
import random

CLASSES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
           "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
           "tvmonitor")


def detect(image_id, cls, rng, n):
    """Your model goes here: a list of (confidence, xmin, ymin, xmax, ymax) for `cls` in `image_id`."""
    out = []
    for _ in range(n):
        x1, y1 = rng.randint(1, 300), rng.randint(1, 200)
        out.append((rng.random(), x1, y1, x1 + rng.randint(20, 200), y1 + rng.randint(20, 170)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("image_list")
    ap.add_argument("out_dir")
    ap.add_argument("--comp", type=int, choices=(3, 4), default=3)
    ap.add_argument("--per-image", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    set_name = os.path.splitext(os.path.basename(a.image_list))[0]
    with open(a.image_list) as f:
        ids = [line.split()[0] for line in f if line.strip()]
    rng = random.Random(a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    for cls in CLASSES:
        with open(os.path.join(a.out_dir, "comp%d_det_%s_%s.txt" % (a.comp, set_name, cls)), "w") as f:
            for i in ids:
                for c, x1, y1, x2, y2 in detect(i, cls, rng, a.per_image):
                    f.write("%s %f %f %f %f %f\n" % (i, c, x1, y1, x2, y2))
    print("wrote %d files for %d images into %s" % (len(CLASSES), len(ids), a.out_dir))


if __name__ == "__main__":
    main()
