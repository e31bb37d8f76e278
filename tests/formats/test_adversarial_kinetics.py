"""kinetics-tps under attack (issue 20): the format rules do not depend on the ground truth, every cap is one line,
and a crafted submission costs no more than an honest one of the same size.

- Privacy of the rules: a submission with a fault in a frame (or video) that the ground truth does not annotate
  fails exactly as one whose fault lies in an annotated frame. Each case is scored against two references that
  differ in that one item: the exit code and stderr must be identical.
- Crashes: each cap (a string of more than limits.MAX_FIELD_CHARS, a number of more than limits.MAX_NUMBER_CHARS)
  is exit 1 and one line naming the file, the line and the length, wherever it is (read or ignored key, part or
  class file), and whichever reader meets it (the byte pass, or json.loads of the whole file).
- Cost: crafted files (800,000-digit integers, a 16 MiB name, a million empty objects, deep nesting, many keys)
  against an honest file of the same size, run and measured in the same test (adversarial.measured).
- The block reader: a block the byte pass does not read itself goes to json.loads alone, with the messages and
  the arrays of json.loads on the whole file.
"""
import json
import os
import random

import numpy as np
import pytest

from adversarial import MIB, assert_bounded, folder_bytes, measured, one_line
from conftest import ROOT

KIN = "kinetics-tps"
REF = os.path.join(ROOT, "reference_data", KIN)
PERFECT = os.path.join(ROOT, "starting_kit", KIN, "submissions", "perfect")


HUMAN = {"box": [10, 10, 90, 190], "parts": {"head": {"box": [[30, 10, 60, 40]], "verb": ["still"]}}}
GT_HUMAN = {"box": [10, 10, 90, 190], "parts": {"head": {"box": [30, 10, 60, 40], "verb": "still"}}}

def _load(folder, name):
    with open(os.path.join(folder, name)) as f:
        return json.load(f)


def _write(folder, files):
    """files: {name: object (json.dumps, compact) or text}."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content, separators=(",", ":"))
        (folder / name).write_text(text)
    return folder


def _perfect():
    return _load(PERFECT, "pred_vid_result.json"), _load(PERFECT, "pred_part_result.json")


def _reference_pair(tmp_path, video=None, frame="img_99991.json", humans=None):
    """Two references: the sample's, and the same with one more frame in one video (annotated with one human
    unless humans says otherwise)."""
    vid, part = _load(REF, "gt_vid_result.json"), _load(REF, "gt_part_result.json")
    video = video or next(iter(part))
    a = _write(tmp_path / "ref_a", {"gt_vid_result.json": vid, "gt_part_result.json": part})
    if humans is None:
        humans = [GT_HUMAN]
    part[video][frame] = {"humans": humans}
    b = _write(tmp_path / "ref_b", {"gt_vid_result.json": vid, "gt_part_result.json": part})
    return a, b


def _same_verdict(tmp_path, res, refs):
    """score.py against both references: the same exit code and the same stderr (returned)."""
    runs = [measured(KIN, ref, res, tmp_path, name="against_%s" % os.path.basename(str(ref))) for ref in refs]
    assert runs[0].returncode == runs[1].returncode, runs
    assert runs[0].stderr == runs[1].stderr, runs
    return runs[0]


# ---------------------------------------------------------------- privacy of the rules

FAULTS = {
    "too_many_humans": ({"humans": [HUMAN] * 11}, "at most 10 predicted humans per frame; found 11"),
    "too_many_proposals": ({"humans": [{"box": [1, 2, 3, 4], "parts": {"head": {"box": [], "verb": ["s"] * 6}}}]},
                           "at most 5 proposals per part; found 6"),
    "more_boxes_than_verbs": ({"humans": [{"box": [1, 2, 3, 4], "parts": {"head": {"box": [[1, 2, 3, 4]] * 2,
                                                                                    "verb": ["s"]}}}]},
                              "no more boxes than verbs"),
    "box_syntax": ({"humans": [{"box": [1, 2, 3], "parts": {}}]}, "4 finite numbers"),
    "part_box": ({"humans": [{"box": [1, 2, 3, 4], "parts": {"head": {"box": [[1, "2", 3, 4]], "verb": ["s"]}}}]},
                 "parts 'head' > box[0]"),
    "no_humans": ({"people": []}, "an object with a 'humans' list"),
    "human_without_box": ({"humans": [{"parts": {}}]}, "a 'box' for every predicted human"),
    "parts_not_object": ({"humans": [{"box": [1, 2, 3, 4], "parts": []}]}, "an object {part_name: {box, verb}}"),
    "verb_not_text": ({"humans": [{"box": [1, 2, 3, 4], "parts": {"head": {"box": [], "verb": [3]}}}]},
                      "a list of state names"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_in_a_frame_the_ground_truth_lacks_fails_as_in_one_it_has(tmp_path, fault):
    """The frame img_99991.json is annotated in one reference and absent from the other; the submission puts its
    fault there. On main's code the first reference scored the submission (the frame was never looked at) and the
    second named the frame: the error told the participant that the frame is in the hidden test set."""
    frame, text = FAULTS[fault]
    vid, part = _perfect()
    video = next(iter(part))
    part[video]["img_99991.json"] = frame
    res = _write(tmp_path / "res", {"pred_vid_result.json": vid, "pred_part_result.json": part})
    run = _same_verdict(tmp_path, res, _reference_pair(tmp_path, video))
    assert run.returncode == 1
    line = one_line(run)
    assert line.startswith("submission error: pred_part_result.json: video '%s' > frame 'img_99991.json'" % video)
    assert text in line


def test_the_first_fault_in_file_order_is_named_whatever_the_reference(tmp_path):
    """Two faulty frames: the one the file holds first is named, annotated or not (on main's code, only the
    annotated one was ever named)."""
    vid, part = _perfect()
    video = next(iter(part))
    frames = part[video]
    frames["img_99991.json"] = FAULTS["too_many_humans"][0]
    frames["img_99992.json"] = FAULTS["box_syntax"][0]
    res = _write(tmp_path / "res", {"pred_vid_result.json": vid, "pred_part_result.json": part})
    run = _same_verdict(tmp_path, res, _reference_pair(tmp_path, video, frame="img_99992.json"))
    assert "frame 'img_99991.json'; expected at most 10 predicted humans per frame; found 11" in one_line(run)


def test_a_test_video_missing_from_the_part_file_fails_whether_or_not_it_has_humans(tmp_path):
    """A test video whose frames have no ground-truth humans, left out of pred_part_result.json: main's code let it
    pass and refused it once one frame had a human (a bit about the hidden annotation); now both refuse it."""
    vid, part = _load(REF, "gt_vid_result.json"), _load(REF, "gt_part_result.json")
    video = next(iter(part))
    part[video] = dict((f, {"humans": []}) for f in part[video])
    a = _write(tmp_path / "ref_a", {"gt_vid_result.json": vid, "gt_part_result.json": part})
    part[video]["img_00001.json"] = {"humans": [GT_HUMAN]}
    b = _write(tmp_path / "ref_b", {"gt_vid_result.json": vid, "gt_part_result.json": part})
    pvid, ppart = _perfect()
    del ppart[video]
    res = _write(tmp_path / "res", {"pred_vid_result.json": pvid, "pred_part_result.json": ppart})
    run = _same_verdict(tmp_path, res, (a, b))
    assert one_line(run) == ("submission error: pred_part_result.json: video '%s' is missing; expected part "
                             "results for every test video" % video)


def test_a_class_that_is_not_text_fails_for_any_video_of_the_file(tmp_path):
    vid, part = _perfect()
    vid["not_a_test_video"] = 7
    res = _write(tmp_path / "res", {"pred_vid_result.json": vid, "pred_part_result.json": part})
    run = _same_verdict(tmp_path, res, _reference_pair(tmp_path))
    assert one_line(run) == ("submission error: pred_vid_result.json: video 'not_a_test_video'; expected a class "
                             "name (text); found '7'")


def test_the_long_box_warning_counts_the_whole_file(tmp_path):
    """Boxes of more than 4 numbers are legal (the first 4 are read) and warned about: the count and the first box
    are those of the file, annotated frames or not."""
    vid, part = _perfect()
    video = next(iter(part))
    part[video]["img_99991.json"] = {"humans": [dict(HUMAN, box=[10, 10, 90, 190, 0.5])]}
    res = _write(tmp_path / "res", {"pred_vid_result.json": vid, "pred_part_result.json": part})
    runs = [measured(KIN, ref, res, tmp_path, name="r%d" % k) for k, ref in enumerate(_reference_pair(tmp_path))]
    warnings = [[x for x in r.stderr.splitlines() if x.startswith("warning: ")] for r in runs]
    assert [r.returncode for r in runs] == [0, 0]
    assert warnings[0] == warnings[1] == [
        "warning: 1 predicted box(es) have more than 4 numbers: only the first 4 (x1, y1, x2, y2) are read, as the "
        "original does; the first: video '%s' > frame 'img_99991.json' > humans[0] > box = '[10, 10, 90, 190, "
        "0.5]'" % video]


# ---------------------------------------------------------------- crashes: each cap is one line

def _sample_with(tmp_path, part_text=None, vid_text=None):
    vid, part = _perfect()
    return _write(tmp_path / "res", {
        "pred_vid_result.json": vid_text if vid_text is not None else vid,
        "pred_part_result.json": part_text if part_text is not None else json.dumps(part, indent=1)})


def _inject(member):
    """The perfect part file (indented: one value a line) with `member` added first in its first video."""
    _, part = _perfect()
    text = json.dumps(part, indent=1)
    head = '{\n "%s": {\n' % next(iter(part))
    assert text.startswith(head)
    return head + member + ",\n" + text[len(head):]


LONG = 300000
CAPS = {
    "part_name": (_inject('"f": {"humans": [{"box": [1, 2, 3, 4], "parts": {"%s": {"box": [], "verb": []}}}]}'
                          % ("a" * LONG)), "pred_part_result.json", 3, "field", LONG),
    "verb": (_inject('"f": {"humans": [{"box": [1, 2, 3, 4], "parts": {"p": {"box": [], "verb": ["%s"]}}}]}'
                     % ("a" * LONG)), "pred_part_result.json", 3, "field", LONG),
    "frame_key": (_inject('"%s": {"humans": []}' % ("f" * LONG)), "pred_part_result.json", 3, "field", LONG),
    "ignored_key": (_inject('"f": {"humans": [], "%s": 1}' % ("k" * LONG)), "pred_part_result.json", 3, "field",
                    LONG),
    "escaped_text": (_inject('"f": {"humans": [], "n": "%s"}' % ("\\\"" * LONG)), "pred_part_result.json", 3,
                     "field", 2 * LONG),
    "ignored_integer": (_inject('"f": {"humans": [], "number": %s}' % ("9" * LONG)), "pred_part_result.json", 3,
                        "number", LONG),
    "negative_integer": (_inject('"f": {"humans": [], "number": -%s}' % ("9" * LONG)), "pred_part_result.json", 3,
                         "number", LONG + 1),
    "box_number": (_inject('"f": {"humans": [{"box": [1, 2, 3, 1%s], "parts": {}}]}' % ("0" * 64)),
                   "pred_part_result.json", 3, "number", 65),
    "long_float": (_inject('"f": {"humans": [], "x": 0.%se5}' % ("1" * LONG)), "pred_part_result.json", 3,
                   "number", LONG + 4),
    "class_name": ('{\n"v": "%s"\n}' % ("c" * LONG), "pred_vid_result.json", 2, "field", LONG),
    "class_file_integer": ('{\n"v": "c",\n"w": %s\n}' % ("1" * LONG), "pred_vid_result.json", 3, "number", LONG),
}


@pytest.mark.parametrize("case", sorted(CAPS))
def test_each_cap_is_one_line_with_the_file_line_and_length(tmp_path, case):
    text, name, line, kind, length = CAPS[case]
    res = _sample_with(tmp_path, **{("part_text" if name.startswith("pred_part") else "vid_text"): text})
    run = measured(KIN, REF, res, tmp_path)
    assert run.returncode == 1, run
    cap = 256 if kind == "field" else 64
    assert one_line(run) == ("submission error: %s, line %d: expected a %s of at most %d characters; found a %s of "
                             "%d characters" % (name, line, kind, cap, kind, length))
    assert not os.path.exists(os.path.join(str(run.out), "scores.txt"))


def test_a_cap_is_named_the_same_by_either_reader(tmp_path):
    """The same long number in a file the byte pass reads and in one it leaves to json.loads whole (a repeated frame
    key): the same message. And it comes before any other fault of the file, wherever that one is."""
    member = '"f": {"humans": [], "number": %s}' % ("9" * 100)
    plain = _inject(member)
    repeated = _inject(member + ',\n"f": {"humans": []}')
    broken = "{ ," + _inject(member)[1:]                            # invalid JSON on line 1
    lines = []
    for k, text in enumerate((plain, repeated, broken)):
        res = _write(tmp_path / ("res%d" % k), {"pred_vid_result.json": _perfect()[0], "pred_part_result.json": text})
        lines.append(one_line(measured(KIN, REF, res, tmp_path, name="r%d" % k)))
    assert lines == ["submission error: pred_part_result.json, line 3: expected a number of at most 64 characters; "
                     "found a number of 100 characters"] * 3


def test_integers_of_64_digits_are_read(tmp_path):
    """At the cap, a number is read: a 64-digit integer in an ignored key changes nothing."""
    res = _sample_with(tmp_path, part_text=_inject('"f": {"humans": [], "number": %s}' % ("9" * 64)))
    run = measured(KIN, REF, res, tmp_path)
    assert run.returncode == 0, run
    assert run.stdout.startswith("kinetics-tps  score: 0.999900  top1: 1.0000  mean_PSC: 1.0000")


def test_a_message_quotes_at_most_a_short_start_of_participant_text(tmp_path):
    """Frame keys, part names and the values found are shortened (errors.shorten): a frame key of 256 characters
    and a box of 100,000 numbers make a short line."""
    key = "k" * 256
    member = '"%s": {"humans": [{"box": [%s], "parts": {}}]}' % (key, ", ".join(["1"] * 100000 + ['"x"']))
    run = measured(KIN, REF, _sample_with(tmp_path, part_text=_inject(member)), tmp_path)
    line = one_line(run)
    assert len(line) < 400 and key not in line and "'kkkkk" in line and "4 finite numbers" in line


# ---------------------------------------------------------------- cost: crafted against honest, same size

def _honest_of_size(size, small=False):
    """The perfect sample with extra frames (not in the ground truth: ignored) of honest content, about size
    bytes: copies of a sample frame, or (small) frames without humans."""
    vid, part = _perfect()
    video = next(iter(part))
    frame = '{"humans":[],"n":1}' if small else json.dumps(next(iter(part[video].values())), separators=(",", ":"))
    n = size // (len(frame) + 20)
    extra = ",".join('"x%08d.json":%s' % (i, frame) for i in range(n))
    return _inject_compact(part, extra)


def _inject_compact(part, members):
    text = json.dumps(part, separators=(",", ":"))
    head = '{"%s":{' % next(iter(part))
    assert text.startswith(head)
    return head + members + "," + text[len(head):]


def _crafted(kind, size):
    _, part = _perfect()
    if kind == "long_integers":         # 800,000 digits each, in a key the scorer ignores
        digits = 800000
        members = '"f":{"humans":[],%s}' % ",".join('"n%d":%s' % (i, "9" * digits) for i in range(size // digits))
    elif kind == "long_string":         # one part name of the whole size
        members = '"f":{"humans":[{"box":[1,2,3,4],"parts":{"%s":{"box":[],"verb":[]}}}]}' % ("a" * size)
    elif kind == "long_states":         # many states of 1,000 characters
        state = "s" * 1000
        members = ",".join('"g%d":{"humans":[{"box":[1,2,3,4],"parts":{"p":{"box":[],"verb":["%s"]}}}]}'
                           % (i, state) for i in range(size // 1080))
    elif kind == "empty_objects":       # a million and more, under a key the scorer ignores
        members = '"f":{"humans":[],"pad":[%s]}' % ",".join(["{}"] * (size // 3))
    elif kind == "empty_humans":        # ... and as humans
        members = '"f":{"humans":[%s]}' % ",".join(["{}"] * (size // 3))
    elif kind == "deep":
        members = '"f":{"humans":%s%s}' % ("[" * (size // 2), "]" * (size // 2))
    elif kind == "many_keys":
        members = '"f":{"humans":[],%s}' % ",".join('"k%07d":0' % i for i in range(size // 12))
    elif kind == "many_small_frames":   # frames of an ignored container each: every block read by json.loads
        members = ",".join('"f%d":{"humans":[],"x":[{}]}' % i for i in range(size // 32))
    else:
        raise ValueError(kind)
    return _inject_compact(part, members)


SIZE = 16 * MIB
COST_CASES = ["long_integers", "long_string", "long_states", "empty_objects", "empty_humans", "deep", "many_keys",
              "many_small_frames"]


@pytest.mark.parametrize("kind", COST_CASES)
def test_a_crafted_file_costs_no_more_than_an_honest_one_of_its_size(tmp_path, kind):
    """Peak RSS within 256 MiB + 8x the input and time within 3x the honest run's (+2 s), both measured here (the
    honest file of many small frames has small frames too: frames cost their keys whatever they hold).
    On main's code: 800,000-digit integers took minutes (quadratic int() in json.loads), a long name or state
    GiBs (fixed-width arrays of the byte pass), a million empty objects or deep nesting 800 MB (json.loads of the
    whole file; the byte pass growing its block to the whole file)."""
    vid = _perfect()[0]
    honest = _write(tmp_path / "honest", {"pred_vid_result.json": vid,
                                          "pred_part_result.json": _honest_of_size(SIZE, kind == "many_small_frames")})
    crafted = _write(tmp_path / "crafted", {"pred_vid_result.json": vid,
                                            "pred_part_result.json": _crafted(kind, SIZE)})
    size = folder_bytes(crafted) + folder_bytes(REF)
    assert abs(folder_bytes(honest) - folder_bytes(crafted)) < SIZE // 8
    h = measured(KIN, REF, honest, tmp_path, name="honest", timeout=120)
    assert h.returncode == 0, h
    c = measured(KIN, REF, crafted, tmp_path, name="crafted", timeout=120)
    assert c.returncode in (0, 1), c
    if c.returncode == 1:
        one_line(c)
    assert_bounded(c, h, size)


# ---------------------------------------------------------------- the block reader agrees with json.loads whole

def _random_document(rng, n_frames):
    """A prediction file of many frames, with what the byte pass leaves to json.loads here and there: boxes of 5
    numbers, containers under ignored keys, faults of the schema, and (rarely) a syntax error."""
    videos = {}
    for v in range(rng.randint(1, 4)):
        frames = {}
        for f in range(n_frames):
            humans = []
            for _ in range(rng.choice([0, 1, 2, 2, 3])):
                parts = {}
                for name in rng.sample(["head", "torso", "left_arm", "right_hand"], rng.randint(0, 4)):
                    nv = rng.choice([0, 1, 2, 3] if rng.random() > 0.01 else [6])
                    nb = rng.randint(0, nv) if rng.random() > 0.01 else nv + 1
                    width = 5 if rng.random() < 0.02 else 4
                    parts[name] = {"box": [[rng.randint(0, 300) for _ in range(width)] for _ in range(nb)],
                                   "verb": [rng.choice(["still", "bend", "lift"]) for _ in range(nv)]}
                human = {"box": [rng.randint(0, 300) for _ in range(4)], "parts": parts}
                if rng.random() < 0.01:
                    human["extra"] = {"a": [1, 2]}
                humans.append(human)
            frames["img_%05d.json" % f] = {"humans": humans}
        videos["v%d" % v] = frames
    text = json.dumps(videos, separators=(",", ":") if rng.random() < 0.5 else (", ", ": "))
    if rng.random() < 0.3:
        at = rng.randrange(len(text))
        text = text[:at] + rng.choice(["", "{", "]", ",", '"', "x"]) + text[at + 1:]
    return text.encode()


@pytest.mark.parametrize("seed", range(12))
def test_blocks_read_by_json_loads_give_what_the_whole_file_gives(seed, monkeypatch):
    """In blocks of 2 KB, the byte pass sends a block it does not read to json.loads alone: the first fault (a
    syntax error anywhere before any fault of the schema, as json.loads of the whole file finds them), the
    warning about long boxes, and the arrays are those of the stdlib path."""
    from scoring_program.errors import SubmissionError
    from scoring_program.formats import kinetics_json, kinetics_tps as ktps
    monkeypatch.setattr(kinetics_json, "BLOCK", 2048)
    rng = random.Random(seed)
    for _ in range(6):
        data = _random_document(rng, rng.choice([20, 60]))
        outcomes = []
        for read in (lambda: ktps.read_part_predictions(data, "p.json"),
                     lambda: ktps.flatten_predictions(ktps.parse_json(data, "p.json"), "p.json")):
            try:
                pred = read()
                part = pred.part
                outcomes.append(("ok", pred.cut_warning, part.video_key, part.frame_key,
                                 [np.asarray(getattr(part, k)).tobytes() for k in
                                  ("frame_video", "frame_humans", "human_box", "human_parts", "part_nbox",
                                   "part_nverb", "prop_box")],
                                 [t for t in part.part_name.texts], part.part_name.codes.tolist(),
                                 [t for t in part.part_verb.texts], part.part_verb.codes.tolist()))
            except SubmissionError as e:
                outcomes.append(("error", str(e)))
        assert outcomes[0] == outcomes[1]
