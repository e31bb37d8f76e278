#!/usr/bin/env python3
"""Baseline for action-tubes: a 'centre box' detector that needs no video.

For every test video of ref/videos.csv it predicts, in every frame, a fixed box in the middle of a 320x240 image
for every class (score 1/number of classes, higher for the video's own label when --oracle-labels is given), and
one tube per class covering the whole video. Writes OUT/frame_detections.csv and OUT/tubes.csv.

    python baseline.py REF_DIR OUT_DIR [--oracle-labels]
"""
import csv
import os
import sys


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    ref, out = argv[0], argv[1]
    oracle = "--oracle-labels" in argv
    with open(os.path.join(ref, "videos.csv"), newline="") as f:
        videos = [(r["video"], r["label"], int(r["num_frames"])) for r in csv.DictReader(f)]
    classes = sorted(set(v[1] for v in videos))
    box = (100, 60, 219, 179)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "frame_detections.csv"), "w", newline="") as fd, \
            open(os.path.join(out, "tubes.csv"), "w", newline="") as ft:
        wd, wt = csv.writer(fd), csv.writer(ft)
        wd.writerow(["video", "frame", "label", "score", "x1", "y1", "x2", "y2"])
        wt.writerow(["video", "tube", "label", "score", "frame", "x1", "y1", "x2", "y2"])
        for vid, label, nf in videos:
            for k, c in enumerate(classes):
                score = 1.0 / len(classes) + (1.0 if oracle and c == label else 0.0)
                for frame in range(1, nf + 1):
                    wd.writerow([vid, frame, c, "%.4f" % score] + list(box))
                    wt.writerow([vid, "centre_%d" % k, c, "%.4f" % score, frame] + list(box))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
