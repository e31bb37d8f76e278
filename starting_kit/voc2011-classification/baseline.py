#!/usr/bin/env python3
"""A chance-level baseline that writes a valid VOC2011 classification submission.

    python baseline.py IMAGE_LIST OUT_DIR [--comp 1|2] [--seed 0]

IMAGE_LIST is the devkit's ImageSets/Main/<set>.txt (one image id per line; its file name gives the set).
Writes OUT_DIR/comp<N>_cls_<set>_<class>.txt for the 20 classes, one "<id> <confidence>" line per image.
Replace `predict` with your classifier. Zip the CONTENTS of OUT_DIR (or the folder: both are accepted).
"""
import argparse
import os
import random

CLASSES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
           "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
           "tvmonitor")


def predict(image_id, cls, rng):
    """Your model goes here: return a confidence that `cls` is present in `image_id` (higher = more likely)."""
    return rng.random()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("image_list")
    ap.add_argument("out_dir")
    ap.add_argument("--comp", type=int, choices=(1, 2), default=1)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    set_name = os.path.splitext(os.path.basename(a.image_list))[0]
    with open(a.image_list) as f:
        ids = [line.split()[0] for line in f if line.strip()]
    rng = random.Random(a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    for cls in CLASSES:
        path = os.path.join(a.out_dir, "comp%d_cls_%s_%s.txt" % (a.comp, set_name, cls))
        with open(path, "w") as f:
            for i in ids:
                f.write("%s %.6f\n" % (i, predict(i, cls, rng)))
    print("wrote %d files for %d images into %s" % (len(CLASSES), len(ids), a.out_dir))


if __name__ == "__main__":
    main()
