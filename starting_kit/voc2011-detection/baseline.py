#!/usr/bin/env python3
"""A chance-level baseline that writes a valid VOC2011 detection submission: sliding windows, no model.

    python baseline.py IMAGE_LIST OUT_DIR [--comp 3|4] [--per-image 49] [--size 500x375]

IMAGE_LIST is the devkit's ImageSets/Main/<set>.txt (one image id per line; its file name gives the set).
Writes OUT_DIR/comp<N>_det_<set>_<class>.txt for the 20 classes, one line per detection:
"<id> <confidence> <xmin> <ymin> <xmax> <ymax>" (1-based pixel coordinates, as the devkit's example detector).
Every class gets the same windows in every image: a quarter of the image wide and high, on a grid with half-window
steps (7 x 7 = 49 windows, --per-image keeps those nearest the centre), scored 1, 1/2, 1/3, ... from the centre
out, in an image of --size (most VOC images are 500 x 375; no image is read). It is a prior of where objects are,
not a method: replace `detect` with your detector. Zip the CONTENTS of OUT_DIR (or the folder: both are accepted).
"""
import argparse
import os

CLASSES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
           "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
           "tvmonitor")


def windows(width, height, count):
    """The `count` grid windows (xmin, ymin, xmax, ymax), 1-based, nearest the image centre first."""
    w, h = width / 4.0, height / 4.0
    grid = []
    for i in range(7):
        for j in range(7):
            x1, y1 = i * w / 2, j * h / 2
            off_centre = ((x1 + w / 2) / width - 0.5) ** 2 + ((y1 + h / 2) / height - 0.5) ** 2
            grid.append((off_centre, i, j, (round(x1) + 1, round(y1) + 1, round(x1 + w), round(y1 + h))))
    return [box for _, _, _, box in sorted(grid)[:count]]


def detect(image_id, cls, boxes):
    """Your model goes here: a list of (confidence, xmin, ymin, xmax, ymax) for `cls` in `image_id`."""
    return [(1.0 / (k + 1),) + box for k, box in enumerate(boxes)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("image_list")
    ap.add_argument("out_dir")
    ap.add_argument("--comp", type=int, choices=(3, 4), default=3)
    ap.add_argument("--per-image", type=int, default=49, help="windows per image and class (default 49)")
    ap.add_argument("--size", default="500x375", help="image width x height (default 500x375)")
    a = ap.parse_args()
    set_name = os.path.splitext(os.path.basename(a.image_list))[0]
    with open(a.image_list) as f:
        ids = [line.split()[0] for line in f if line.strip()]
    boxes = windows(*(int(v) for v in a.size.lower().split("x")), count=a.per_image)
    os.makedirs(a.out_dir, exist_ok=True)
    for cls in CLASSES:
        with open(os.path.join(a.out_dir, "comp%d_det_%s_%s.txt" % (a.comp, set_name, cls)), "w") as f:
            for i in ids:
                for c, x1, y1, x2, y2 in detect(i, cls, boxes):
                    f.write("%s %.6f %d %d %d %d\n" % (i, c, x1, y1, x2, y2))
    print("wrote %d files for %d images into %s" % (len(CLASSES), len(ids), a.out_dir))


if __name__ == "__main__":
    main()
