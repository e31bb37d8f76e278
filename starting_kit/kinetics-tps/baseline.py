#!/usr/bin/env python3
"""A trivial Kinetics-TPS baseline: writes a valid submission (stdlib only).

    python baseline.py REFERENCE_OR_VIDEO_LIST_DIR OUTPUT_DIR

It reads the video and frame names from gt_part_result.json (for the public sample) and predicts, for every
sampled frame, one human covering the image with one proposal per body part in a fixed layout and the most
frequent state, and the same action class for every video. Replace `predict_frame` and `predict_class` with
your model; then zip the two files of OUTPUT_DIR.
"""
import json
import os
import sys

PARTS = ("head", "torso", "left_arm", "right_arm", "left_hand", "right_hand", "left_leg", "right_leg",
         "left_foot", "right_foot")


def predict_class(video):
    return "clapping"


def predict_frame(video, frame, width=640, height=480):
    h = height // 10
    parts = {p: {"box": [[width // 4, k * h, 3 * width // 4, (k + 1) * h - 1]], "verb": ["unbend"]}
             for k, p in enumerate(PARTS)}
    return {"humans": [{"box": [0, 0, width - 1, height - 1], "parts": parts}]}


def main(src, out):
    with open(os.path.join(src, "gt_part_result.json")) as f:
        videos = json.load(f)
    vid = {v: predict_class(v) for v in videos}
    part = {v: {fr: predict_frame(v, fr) for fr in frames} for v, frames in videos.items()}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "pred_vid_result.json"), "w") as f:
        json.dump(vid, f)
    with open(os.path.join(out, "pred_part_result.json"), "w") as f:
        json.dump(part, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
