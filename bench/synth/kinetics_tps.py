"""Synthetic Kinetics-TPS data: gt/pred vid_result.json and part_result.json (humans, parts, states)."""
import copy
import json
import os
import subprocess
import time

import numpy as np

from .common import fresh_dir, scoring_python, write_expected, write_text

CLASSES = ("clapping", "jumping_jacks", "push_up", "squat", "lunge", "shooting_basketball", "juggling_balls",
           "high_kick", "front_raises", "situp")
PARTS = ("head", "torso", "left_arm", "right_arm", "left_hand", "right_hand", "left_leg", "right_leg", "left_foot",
         "right_foot")
STATES = ("bend", "unbend", "step_on", "kick", "raise", "hold", "swing", "still", "lift", "touch")


def _box(x1, y1, w, h):
    return [int(x1), int(y1), int(x1 + w), int(y1 + h)]


def make_gt(n_videos, n_frames, n_humans, n_parts, seed, quirks=False, first=0):
    """{video: class}, {video: {frame: {"humans": [...]}}}; n_humans may be a (lo, hi) range. The videos are
    numbered from `first` (the number is in the name: parts made with disjoint ranges share no video)."""
    rng = np.random.RandomState(seed)
    vid, part = {}, {}
    for v in range(first, first + n_videos):
        name = "%011x_%06d_%06d" % (rng.randint(1 << 30) * 2048 + v, 10 * v, 10 * v + 10)
        vid[name] = CLASSES[rng.randint(len(CLASSES))]
        frames = {}
        nh = n_humans if isinstance(n_humans, int) else rng.randint(n_humans[0], n_humans[1] + 1)
        for f in range(n_frames):
            humans = []
            for h in range(nh):
                x, y = 20 + 300 * h + rng.randint(0, 40), 10 + rng.randint(0, 40)
                w, hh = 150 + rng.randint(0, 60), 300 + rng.randint(0, 80)
                k = n_parts if isinstance(n_parts, int) else rng.randint(n_parts[0], n_parts[1] + 1)
                parts = {}
                for p in range(k):
                    px = x + rng.randint(0, w - 40)
                    py = y + rng.randint(0, hh - 60)
                    parts[PARTS[p]] = {"number": p + 1, "name": PARTS[p],
                                       "box": _box(px, py, 20 + rng.randint(0, 30), 30 + rng.randint(0, 40)),
                                       "verb": STATES[rng.randint(len(STATES))]}
                humans.append({"number": h + 1, "box": _box(x, y, w, hh), "parts": parts})
            frames["img_%05d.json" % (5 * f + 1)] = {"humans": humans}
        part[name] = frames
    if quirks:
        names = list(vid)
        first = names[0]
        # a frame without humans (dropped), a frame whose humans have no parts (dropped when predicted),
        # a video without any human (PSC 1.0)
        frames = part[names[1]]
        frames["img_%05d.json" % (5 * n_frames + 1)] = {"humans": []}
        k = list(frames)[0]
        for h in frames[k]["humans"]:
            h["parts"] = {}
        part[names[2]] = {"img_00001.json": {"humans": []}, "img_00006.json": {"humans": []}}
        part[first]["img_%05d.json" % (5 * n_frames + 6)] = {"humans": [
            {"box": [5, 5, 60, 200], "parts": {}}]}
    return vid, part


def perfect(gt_vid, gt_part):
    pred = {}
    for v, frames in gt_part.items():
        pred[v] = {f: {"humans": [{"box": list(h["box"]),
                                   "parts": {n: {"box": [list(p["box"])], "verb": [p["verb"]]}
                                             for n, p in h["parts"].items()}}
                                  for h in fr["humans"]]} for f, fr in frames.items()}
    return dict(gt_vid), pred


def noisy(gt_vid, gt_part, seed, proposals=3, p_class=0.7, p_missing=0.05, jitter=12):
    """A realistic imperfect submission: jittered boxes, `proposals` proposals per part (one near the truth with
    the right state most of the time), some missed frames, some wrong classes, an extra false human."""
    rng = np.random.RandomState(seed)
    vid = {v: (c if rng.rand() < p_class else CLASSES[rng.randint(len(CLASSES))]) for v, c in gt_vid.items()}
    pred = {}
    for v, frames in gt_part.items():
        out = {}
        for f, fr in frames.items():
            if rng.rand() < p_missing:
                continue
            humans = []
            for h in fr["humans"]:
                b = np.array(h["box"]) + rng.randint(-jitter, jitter + 1, size=4)
                parts = {}
                for n, p in h["parts"].items():
                    boxes, verbs = [], []
                    for j in range(proposals):
                        d = rng.randint(-4 - 6 * j, 5 + 6 * j, size=4)
                        boxes.append([int(x) for x in np.array(p["box"]) + d])
                        ok = rng.rand() < (0.8 if j == 0 else 0.3)
                        verbs.append(p["verb"] if ok else STATES[rng.randint(len(STATES))])
                    parts[n] = {"box": boxes, "verb": verbs}
                humans.append({"box": [int(x) for x in b], "parts": parts})
            if humans and rng.rand() < 0.2:
                humans.append({"box": [400, 300, 480, 420], "parts": {}})
            out[f] = {"humans": humans}
        pred[v] = out
    return vid, pred


def write_json(path, obj, indent=None):
    write_text(path, json.dumps(obj, indent=indent, separators=(",", ":") if indent is None else None) + "\n")


def write_submission(d, vid, part, indent=None):
    write_json(os.path.join(d, "pred_vid_result.json"), vid, indent)
    write_json(os.path.join(d, "pred_part_result.json"), part, indent)


def write_reference(ref_dir, gt_vid, gt_part):
    fresh_dir(ref_dir)
    write_json(os.path.join(ref_dir, "gt_vid_result.json"), gt_vid, 1)
    write_json(os.path.join(ref_dir, "gt_part_result.json"), gt_part)


def write_perfect(subs, gt_vid, gt_part):
    """Makes subs and writes subs/perfect; returns the perfect prediction (vid, part)."""
    fresh_dir(subs)
    pv, pp = perfect(gt_vid, gt_part)
    write_submission(os.path.join(subs, "perfect"), pv, pp)
    return pv, pp


def make_sample(ref_dir, kit_dir):
    gt_vid, gt_part = make_gt(12, 4, (1, 3), (3, 10), seed=2021, quirks=True)
    write_reference(ref_dir, gt_vid, gt_part)
    subs = os.path.join(kit_dir, "submissions")
    pv, pp = write_perfect(subs, gt_vid, gt_part)
    rv, rp = noisy(gt_vid, gt_part, seed=5, proposals=2, p_missing=0.15)
    rp["not_a_test_video"] = {"img_00001.json": {"humans": []}}
    write_submission(os.path.join(subs, "random"), rv, rp)

    bad = fresh_dir(os.path.join(kit_dir, "malformed"))
    expected = {}
    names = list(gt_vid)
    v0, f0 = names[0], list(gt_part[names[0]])[0]

    def case(name, vid, part, file, contains, why, line=None, texts=None):
        d = os.path.join(bad, name)
        if vid is not None:
            write_json(os.path.join(d, "pred_vid_result.json"), vid, 1)
        if part is not None:
            write_json(os.path.join(d, "pred_part_result.json"), part)
        for rel, text in (texts or {}).items():
            write_text(os.path.join(d, rel), text)
        expected[name] = {"file": file, "line": line, "contains": contains, "why": why}

    def edit(fn):
        # the other videos' frames are simply absent (legal: they score 0), which keeps the samples small
        p = {v: {} for v in pp}
        p[v0] = copy.deepcopy(pp[v0])
        fn(p)
        return p

    vid_missing = dict(pv)
    del vid_missing[names[3]]
    case("missing_video_class", vid_missing, edit(lambda p: None), "pred_vid_result.json", "has no predicted class",
         "a test video without a predicted class")
    part_missing = edit(lambda p: None)
    del part_missing[names[3]]
    case("missing_video_parts", pv, part_missing, "pred_part_result.json", "video %r is missing" % names[3],
         "a test video with ground-truth humans absent from the part results")
    case("frame_without_humans", pv, edit(lambda p: p[v0].__setitem__(f0, {"people": []})),
         "pred_part_result.json", "expected an object with a 'humans' list", "a predicted frame without 'humans'")
    case("human_without_parts", pv, edit(lambda p: p[v0][f0]["humans"][0].pop("parts")),
         "pred_part_result.json", "expected a 'parts' object for every predicted human",
         "a predicted human without 'parts'")
    case("human_without_box", pv, edit(lambda p: p[v0][f0]["humans"][0].pop("box")),
         "pred_part_result.json", "expected a 'box' for every predicted human", "a predicted human without 'box'")
    case("too_many_humans", pv, edit(lambda p: p[v0][f0]["humans"].extend(
        [{"box": [1, 1, 9, 9], "parts": {}}] * 11)), "pred_part_result.json",
        "expected at most 10 predicted humans per frame", "more than 10 predicted humans in a frame")

    def six(p):
        part = next(iter(p[v0][f0]["humans"][0]["parts"].values()))
        part["verb"] = ["bend"] * 6
    case("too_many_proposals", pv, edit(six), "pred_part_result.json", "expected at most 5 proposals per part",
         "6 proposals for one part")

    def more_boxes(p):
        part = next(iter(p[v0][f0]["humans"][0]["parts"].values()))
        part["box"] = part["box"] * 2
    case("more_boxes_than_verbs", pv, edit(more_boxes), "pred_part_result.json",
         "expected no more boxes than verbs", "2 boxes for 1 verb")

    def three(p):
        p[v0][f0]["humans"][0]["box"] = [1, 2, 3]
    case("box_three_numbers", pv, edit(three), "pred_part_result.json", "4 finite numbers",
         "a human box with 3 numbers")

    def text_box(p):
        part = next(iter(p[v0][f0]["humans"][0]["parts"].values()))
        part["box"] = [["10", 20, 30, 40]]
    case("box_not_numbers", pv, edit(text_box), "pred_part_result.json", "4 finite numbers",
         "a part box with a text coordinate")
    nan_text = json.dumps(edit(three)).replace("[1, 2, 3]", "[1, 2, 3, NaN]")
    case("nan_in_box", pv, None, "pred_part_result.json", "4 finite numbers", "NaN as a coordinate",
         texts={"pred_part_result.json": nan_text})

    def verb_num(p):
        part = next(iter(p[v0][f0]["humans"][0]["parts"].values()))
        part["verb"] = [3]
    case("verb_not_text", pv, edit(verb_num), "pred_part_result.json", "expected a list of state names",
         "a state that is a number")
    lines = json.dumps(pv, indent=1).split("\n")
    lines[3] = lines[3].rstrip(",")
    broken = "\n".join(lines) + "\n"
    try:
        json.loads(broken)
        raise AssertionError("the broken JSON parses")
    except json.JSONDecodeError as e:
        bad_line = e.lineno
    case("invalid_json", None, edit(lambda p: None), "pred_vid_result.json", "not valid JSON", "a missing comma", line=bad_line,
         texts={"pred_vid_result.json": broken})
    case("missing_file", pv, None, "pred_part_result.json", "the submission has no pred_part_result.json",
         "only pred_vid_result.json")
    write_expected(kit_dir, expected)


def make_validation(val_dir, kit_dir):
    """The validation part: 6 videos numbered 100..105 (the test part's are 0..11), 4 frames, 1-3 humans;
    kit_dir/validation_submissions/perfect and random (a noisy submission that scores above 0)."""
    gt_vid, gt_part = make_gt(6, 4, (1, 3), (3, 10), seed=2022, first=100)
    write_reference(val_dir, gt_vid, gt_part)
    subs = os.path.join(kit_dir, "validation_submissions")
    write_perfect(subs, gt_vid, gt_part)
    rv, rp = noisy(gt_vid, gt_part, seed=6, proposals=2, p_missing=0.15)
    write_submission(os.path.join(subs, "random"), rv, rp)


# make_bench's layouts: how participants write JSON. json.dump's defaults put a space after "," and ":"; with indent,
# a newline and the indent after ",", a space after ":".
LAYOUTS = {"json.dump defaults": {}, "compact": {"separators": (",", ":")}, "indent=2": {"indent": 2},
           "indent=4": {"indent": 4}}


def make_bench(work_dir, n_videos=5000, layouts=None):
    """Full-scale data, the same four files in each layout of LAYOUTS (one timed run per layout; bench_baseline
    times json.load of each layout's files alone)."""
    t0 = time.perf_counter()
    gt_vid, gt_part = make_gt(n_videos, 10, 2, 10, seed=1)
    vid, part = noisy(gt_vid, gt_part, seed=2, proposals=3, p_missing=0.02)
    inputs = {}
    for label in layouts or LAYOUTS:
        inp = os.path.join(work_dir, "input-" + label.replace(" ", "_").replace("=", ""))
        for rel, obj in (("ref/gt_vid_result.json", gt_vid), ("ref/gt_part_result.json", gt_part),
                         ("res/pred_vid_result.json", vid), ("res/pred_part_result.json", part)):
            write_text(os.path.join(inp, rel), json.dumps(obj, **LAYOUTS[label]) + "\n")
        inputs[label] = inp
    return {"input": inputs["compact" if "compact" in inputs else label], "inputs": inputs,
            "what": "%d videos x 10 frames x 2 humans x 10 parts x 3 proposals (made in %.0f s)"
            % (n_videos, time.perf_counter() - t0)}


def bench_baseline(info):
    """Comparison processes on the same four files, for each layout of the run (label, seconds, the run's label,
    peak RSS in MiB):

    - json.load of the four files alone, with the cyclic GC paused (12.3 s -> 3.1 s at 5,000 videos): what the
      stdlib path spends merely parsing. The scorer reads the part files straight from their bytes
      (formats.jsonpass, formats.kinetics_json), so the ratio is the whole scoring process against parsing alone
      (issue 22 asks for <= 1.0 in every layout).
    - the token floor (compact files only): the least a numpy pass over the bytes must do before anything is
      checked or converted: in blocks of 512 KB, the offsets of the bytes " , : [ ] { } (7 comparisons), their
      codes and the depth (a cumulative sum). No string, number, grammar or schema is looked at, and no white
      space is dropped. The scorer's reader does this and then everything else, so its time cannot fall below
      this one."""
    load = ("import gc,json,sys\ngc.disable()\nfor p in sys.argv[1:]:\n    json.load(open(p, 'rb'))\n")
    floor = ("import sys\nimport numpy as np\n"
             "delta = np.zeros(256, dtype=np.int8)\n"
             "delta[[123, 91]] = 1\ndelta[[125, 93]] = -1\n"
             "for p in sys.argv[1:]:\n"
             "    a = np.frombuffer(open(p, 'rb').read(), dtype=np.uint8)\n"
             "    depth = 0\n"
             "    for s in range(0, a.size, 1 << 19):\n"
             "        c = a[s:s + (1 << 19)]\n"
             "        m = c == 34\n"
             "        for ch in (44, 58, 91, 93, 123, 125):\n"
             "            m |= c == ch\n"
             "        pos = np.flatnonzero(m).astype(np.int32)\n"
             "        d = np.cumsum(delta.take(c.take(pos)), dtype=np.int16)\n"
             "        depth += int(d[-1]) if d.size else 0\n")
    out = []
    for run, inp in sorted((info.get("inputs") or {"all": info["input"]}).items()):
        files = [os.path.join(inp, "ref", "gt_vid_result.json"), os.path.join(inp, "ref", "gt_part_result.json"),
                 os.path.join(inp, "res", "pred_vid_result.json"), os.path.join(inp, "res", "pred_part_result.json")]
        for label, code in (("json.load only", load), ("token floor", floor)):
            if label == "token floor" and run not in ("compact", "all"):
                continue
            seconds, peak = _timed([scoring_python(), "-c", code] + files)
            out.append((label, seconds, run, peak))
    return out


def _timed(argv):
    """(seconds, peak RSS in MiB) of a process that must succeed."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv)
    _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise SystemExit("%s failed" % argv[:3])
    return time.perf_counter() - t0, usage.ru_maxrss / 1024.0


def strip_labels(ref_dir):
    """What a participant does not have: gt_vid_result.json removed and gt_part_result.json cut to its videos' frame
    names (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    os.remove(os.path.join(ref_dir, "gt_vid_result.json"))
    path = os.path.join(ref_dir, "gt_part_result.json")
    with open(path, encoding="utf-8") as f:
        videos = json.load(f)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({v: {frame: {} for frame in frames} for v, frames in videos.items()}, f)
