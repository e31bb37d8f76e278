#!/usr/bin/env python3
"""A chance-level Kinetics-TPS baseline: a fixed class and a prior of where people and their parts are, no model.

    python baseline.py INPUT OUT_DIR --class NAME [--state unbend] [--size 640x480] [--ids-out FILE]

INPUT names the test videos and their frames, either as
  - a folder holding one folder of frames per test video (`<video>/img_00001.jpg`, ...): the frames predicted are
    those numbered 1, 6, 11, ... (the challenge evaluates every 5th frame), their size read from the first one; or
  - a JSON test list `{video: [frame key, ...]}` (the sample has no frames: the kit's public
    `sample_input/test_frames.json` stands in for them there, and --size gives the frame size; never the ground
    truth `sample_input/ref/`, which a participant does not have for the test).
For every frame it predicts three people standing side by side (0.3 of the frame wide, 0.75 high, centred in its
left, middle and right third), each with the 10 parts in a fixed layout and one state (--state), and every video
gets the same class (--class, one of the Data page's classes). Replace `predict_class` and `predict_frame` with your
model. Writes OUT_DIR/pred_vid_result.json and OUT_DIR/pred_part_result.json. Standard library only.
--ids-out FILE also writes the video ids, one a line (the list `validate --ids` takes).
"""
import argparse
import json
import os
import re
import struct
import sys

# part: (centre x, centre y, width, height) as fractions of the person's box
LAYOUT = (("head", (0.5, 0.1, 0.3, 0.16)), ("torso", (0.5, 0.33, 0.45, 0.3)),
          ("left_arm", (0.72, 0.3, 0.18, 0.22)), ("right_arm", (0.28, 0.3, 0.18, 0.22)),
          ("left_hand", (0.8, 0.5, 0.14, 0.09)), ("right_hand", (0.2, 0.5, 0.14, 0.09)),
          ("left_leg", (0.62, 0.7, 0.2, 0.3)), ("right_leg", (0.38, 0.7, 0.2, 0.3)),
          ("left_foot", (0.65, 0.95, 0.18, 0.08)), ("right_foot", (0.35, 0.95, 0.18, 0.08)))
FRAME_STEP = 5
FRAME_RX = re.compile(r"img_(\d+)\.(?:jpg|jpeg|png)", re.IGNORECASE)


def box(cx, cy, w, h):
    return [int(round(cx - w / 2)), int(round(cy - h / 2)), int(round(cx + w / 2)), int(round(cy + h / 2))]


def predict_class(video, fixed_class):
    """Your classifier here. The baseline: the same class for every video."""
    return fixed_class


def predict_frame(video, frame, width, height, state):
    """Your model here: {"humans": [...]} for one frame. The baseline: three standing people, parts in a fixed
    layout, one state."""
    humans = []
    pw, ph, top = 0.3 * width, 0.75 * height, 0.05 * height
    for third in range(3):
        left = width * (third + 0.5) / 3 - pw / 2
        parts = {name: {"box": [box(left + cx * pw, top + cy * ph, w * pw, h * ph)], "verb": [state]}
                 for name, (cx, cy, w, h) in LAYOUT}
        humans.append({"box": box(left + pw / 2, top + ph / 2, pw, ph), "parts": parts})
    return {"humans": humans}


def image_size(path):
    """(width, height) from a PNG or JPEG file's header."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", data[16:24])
    i = 2
    while i + 9 <= len(data) and data[i] == 0xFF:
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):       # a start-of-frame segment
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    raise ValueError("%s: no image size found" % path)


def read_test_list(path, size):
    """[(video, [frame key, ...], (width, height))] from a folder of frame folders or a JSON file's keys."""
    if not os.path.isdir(path):
        with open(path, encoding="utf-8") as f:
            return [(video, list(frames), size) for video, frames in json.load(f).items()]
    videos = []
    for video in sorted(os.listdir(path)):
        folder = os.path.join(path, video)
        if not os.path.isdir(folder):
            continue
        frames = sorted((int(m.group(1)), name) for name in os.listdir(folder) for m in [FRAME_RX.fullmatch(name)]
                        if m and int(m.group(1)) % FRAME_STEP == 1)
        if frames:
            first = image_size(os.path.join(folder, frames[0][1]))
            videos.append((video, ["img_%05d.json" % n for n, _ in frames], first))
    return videos


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("out_dir")
    ap.add_argument("--class", dest="cls", required=True, help="the class predicted for every video")
    ap.add_argument("--state", default="unbend", help="the state predicted for every part (default unbend)")
    ap.add_argument("--size", default="640x480", help="frame width x height for a JSON list (default 640x480)")
    ap.add_argument("--ids-out", help="also write the video ids here, one a line")
    a = ap.parse_args(argv)
    size = tuple(int(v) for v in a.size.lower().split("x"))
    videos = read_test_list(a.input, size)
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "pred_vid_result.json"), "w", encoding="utf-8") as f:
        json.dump({video: predict_class(video, a.cls) for video, _, _ in videos}, f)
    with open(os.path.join(a.out_dir, "pred_part_result.json"), "w", encoding="utf-8") as f:
        json.dump({video: {frame: predict_frame(video, frame, w, h, a.state) for frame in frames}
                   for video, frames, (w, h) in videos}, f)
    if a.ids_out:
        with open(a.ids_out, "w", encoding="utf-8") as f:
            f.writelines(video + "\n" for video, _, _ in videos)
    print("wrote pred_vid_result.json and pred_part_result.json for %d videos into %s" % (len(videos), a.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
