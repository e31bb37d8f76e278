#!/usr/bin/env python3
"""A chance-level baseline for action-tubes: sliding windows near the frame centre, no model, no video read.

    python baseline.py TEST_LIST OUT_DIR --classes A,B,... [--size 320x240] [--windows 20] [--ids-out FILE]

TEST_LIST is a CSV file whose header names the columns `video` (the id as the scorer names it, for example
`brush_hair/v_brush_hair_g01_c01`) and `num_frames`, and optionally `width` and `height` (the frame size of that
video, else --size); no other column is read. --classes lists the test set's classes (the Data page's list).

The windows are 1/5 of the frame wide and 1/4 of it high, on a grid with half-window steps; the --windows nearest
the frame centre are kept, scored 1, 1/2, 1/3, ... from the centre out. Every class gets the same windows in every
frame (OUT_DIR/frame_detections.csv) and one static tube per window covering the whole video (OUT_DIR/tubes.csv).
It is a prior of where an actor stands, not a method: replace `predict_video` with your detector.
Standard library only. --ids-out FILE also writes the video ids, one a line (the list `validate --ids` takes).
"""
import argparse
import csv
import os
import sys


def windows(width, height, count):
    """The `count` grid windows (x1, y1, x2, y2) nearest the frame centre, nearest first (inclusive corners)."""
    w, h = width / 5.0, height / 4.0
    nx, ny = int((width - w) // (w / 2)) + 1, int((height - h) // (h / 2)) + 1
    x0, y0 = (width - w - (nx - 1) * w / 2) / 2, (height - h - (ny - 1) * h / 2) / 2
    grid = []
    for i in range(nx):
        for j in range(ny):
            x1, y1 = x0 + i * w / 2, y0 + j * h / 2
            off_centre = ((x1 + w / 2) / width - 0.5) ** 2 + ((y1 + h / 2) / height - 0.5) ** 2
            grid.append((off_centre, i, j, (round(x1), round(y1), round(x1 + w) - 1, round(y1 + h) - 1)))
    return [box for _, _, _, box in sorted(grid)[:count]]


def predict_video(num_frames, width, height, classes, count):
    """Your model here: [(label, tube score, [(frame, x1, y1, x2, y2), ...]), ...] for one video. The baseline:
    every class, every window, a static tube over all frames; the same boxes serve as frame detections."""
    boxes = windows(width, height, count)
    return [(label, 1.0 / (k + 1), [(frame,) + box for frame in range(1, num_frames + 1)])
            for label in classes for k, box in enumerate(boxes)]


def read_test_list(path, size):
    """[(video, num_frames, width, height)] from the CSV test list; only the named columns are read."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [(r["video"], int(r["num_frames"]), int(r.get("width") or size[0]), int(r.get("height") or size[1]))
            for r in rows]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("test_list")
    ap.add_argument("out_dir")
    ap.add_argument("--classes", required=True, help="the test set's classes, comma-separated")
    ap.add_argument("--size", default="320x240", help="frame width x height when the list has none (320x240)")
    ap.add_argument("--windows", type=int, default=20, help="windows per frame and class (default 20)")
    ap.add_argument("--ids-out", help="also write the video ids here, one a line")
    a = ap.parse_args(argv)
    classes = [c for c in a.classes.split(",") if c]
    size = tuple(int(v) for v in a.size.lower().split("x"))
    videos = read_test_list(a.test_list, size)
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "frame_detections.csv"), "w", newline="") as fd, \
            open(os.path.join(a.out_dir, "tubes.csv"), "w", newline="") as ft:
        detections, tubes = csv.writer(fd, lineterminator="\n"), csv.writer(ft, lineterminator="\n")
        detections.writerow(["video", "frame", "label", "score", "x1", "y1", "x2", "y2"])
        tubes.writerow(["video", "tube", "label", "score", "frame", "x1", "y1", "x2", "y2"])
        for video, num_frames, width, height in videos:
            for t, (label, score, rows) in enumerate(predict_video(num_frames, width, height, classes, a.windows)):
                for row in rows:
                    detections.writerow([video, row[0], label, "%.4f" % score] + list(row[1:]))
                    tubes.writerow([video, "t%d" % t, label, "%.4f" % score] + list(row))
    if a.ids_out:
        with open(a.ids_out, "w", encoding="utf-8") as f:
            f.writelines(video + "\n" for video, _, _, _ in videos)
    print("wrote frame_detections.csv and tubes.csv for %d videos and %d classes into %s"
          % (len(videos), len(classes), a.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
