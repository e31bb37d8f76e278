"""kinetics-tps, issue 31: every hint the scorer gives, validate gives in the same words (with the public test list,
--ids), from the submission alone: its own count of rows and its first example; nothing the participant sees
varies with the ground truth but the scores; the kit's baseline reads the public test list only.

Each case is a copy of the kit's perfect submission with one mistake, run through score.py (INPUT/ref the sample's
reference, at the hidden level of the Final phase and at the full level) and through
`python -m scoring_program.validate kinetics-tps SUB --ids LIST`."""
import copy
import json
import os
import warnings

import pytest

from conftest import ROOT, command_in_process, run_score

SLUG = "kinetics-tps"
PERFECT = os.path.join(ROOT, "starting_kit", SLUG, "submissions", "perfect")
REF = os.path.join(ROOT, "reference_data", SLUG)
VID, PART = "pred_vid_result.json", "pred_part_result.json"


def _load(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return json.load(f)


def _write(folder, files):
    folder.mkdir(parents=True)
    for name, doc in files.items():
        (folder / name).write_text(json.dumps(doc), encoding="utf-8")
    return folder


def _humans(part):
    return [h for frames in part.values() for frame in frames.values() for h in frame["humans"]]


def _title_classes(vid, part):
    return {k: v.replace("_", " ").title() for k, v in vid.items()}, part


def _title_states(vid, part):
    for h in _humans(part):
        for p in h["parts"].values():
            p["verb"] = [v.title() for v in p["verb"]]
    return vid, part


def _camel_parts(vid, part):
    for h in _humans(part):
        h["parts"] = {("leftArm" if n == "left_arm" else n): p for n, p in h["parts"].items()}
    return vid, part


def _frames(rename):
    return lambda vid, part: (vid, {v: {rename(k): f for k, f in fs.items()} for v, fs in part.items()})


def _boxes(convert):
    def mutate(vid, part):
        for h in _humans(part):
            h["box"] = convert(h["box"])
            for p in h["parts"].values():
                p["box"] = [convert(b) for b in p["box"]]
        return vid, part
    return mutate


def _normalised(box):          # by a 1000 x 1000 frame, clipped at 1
    return [min(1.0, x / 1000.0) for x in box]


def _xywh(box):
    return [box[0], box[1], box[2] - box[0], box[3] - box[1]]


# (case, mutation, the score it gets (the hint changes nothing), the one warning line both print)
CASES = [
    ("title_case_classes", _title_classes, 0.0,
     'pred_vid_result.json: 12 of 12 predicted classes use spaces for underscores (and another letter case) (first: '
     '"Shooting Basketball"; the format expects "shooting_basketball")'),
    ("title_case_states", _title_states, 0.083325,
     'pred_part_result.json: 593 of 593 part states differ in letter case (first: "Lift"; the format expects "lift")'),
    ("camel_case_parts", _camel_parts, 0.845992,
     'pred_part_result.json: 93 of 593 part names are written in camelCase (first: "leftArm"; the format expects '
     '"left_arm")'),
    ("frame_keys_without_json", _frames(lambda k: k[:-len(".json")]), 0.083325,
     'pred_part_result.json: 48 of 48 frame keys have no ".json" extension (first: "img_00001"; the format expects '
     '"img_00001.json")'),
    ("integer_frame_keys", _frames(lambda k: str(int(k[4:9]))), 0.083325,
     'pred_part_result.json: 48 of 48 frame keys are frame numbers (first: "1"; the format expects '
     '"img_00001.json")'),
    ("normalised_boxes", _boxes(_normalised), 0.083325,
     "pred_part_result.json: every coordinate of the 690 predicted boxes lies within 0..1 (the first: 0.02 0.04 "
     "0.192 0.384): they look normalised; the format expects pixel coordinates"),
    ("xywh_boxes", _boxes(_xywh), 0.083325,
     "pred_part_result.json: 645 of the 690 predicted boxes have x2 < x1 or y2 < y1 (the first: 327 49 170 327): "
     "they look written as x, y, width, height; the format expects corners x1, y1, x2, y2"),
]


def _ids(tmp_path, ref=REF):
    path = tmp_path / "test_ids.txt"
    path.write_text("".join(v + "\n" for v in _load(ref, "gt_vid_result.json")), encoding="utf-8")
    return str(path)


def _validate(sub, ids):
    return command_in_process("validate", [SLUG, str(sub), "--ids", ids])


def _warnings(text):
    return [line[len("warning: "):] for line in text.splitlines() if line.startswith("warning: ")]


def _score(out):
    with open(os.path.join(str(out), "scores.json")) as f:
        return json.load(f)["score"]


@pytest.mark.parametrize("case,mutate,score,line", CASES, ids=[c[0] for c in CASES])
def test_the_scorer_and_validate_give_the_same_hint(case, mutate, score, line, tmp_path):
    vid, part = mutate(_load(PERFECT, VID), _load(PERFECT, PART))
    sub = _write(tmp_path / "sub", {VID: vid, PART: part})
    for level in ("hidden", "full"):
        proc, out = run_score(SLUG, REF, sub, tmp_path, name=level, level=level)
        assert proc.returncode == 0, proc.stderr
        assert _score(out) == pytest.approx(score, abs=5e-7)
        assert [w for w in _warnings(proc.stderr) if "missing from" not in w] == [line]     # full: + missing frames
        assert "RuntimeWarning" not in proc.stderr
    checked = _validate(sub, _ids(tmp_path))
    assert checked.returncode == 0, checked.stderr
    assert _warnings(checked.stdout) == [line]


def test_mp4_video_ids_get_the_hint_in_the_same_error_line(tmp_path):
    vid = {k + ".mp4": v for k, v in _load(PERFECT, VID).items()}
    sub = _write(tmp_path / "sub", {VID: vid, PART: _load(PERFECT, PART)})
    proc, _ = run_score(SLUG, REF, sub, tmp_path, level="hidden")
    checked = _validate(sub, _ids(tmp_path))
    first = next(iter(_load(REF, "gt_vid_result.json")))
    assert proc.returncode == checked.returncode == 1
    assert proc.stderr.splitlines()[0] == checked.stderr.splitlines()[0]
    assert proc.stderr.splitlines()[0].startswith(
        "submission error: pred_vid_result.json: video '%s' has no predicted class; expected a class for every test "
        'video; found 12 of 12 video ids end in ".mp4" (first: "%s.mp4"; the format expects "%s"); 12 missing: '
        "'%s'," % (first, first, first, first))


def test_a_near_miss_file_name_is_named_by_the_scorer_too(tmp_path):
    sub = _write(tmp_path / "sub", {"pred_vid_results.json": _load(PERFECT, VID), PART: _load(PERFECT, PART)})
    proc, _ = run_score(SLUG, REF, sub, tmp_path, level="hidden")
    checked = _validate(sub, _ids(tmp_path))
    line = ("submission error: pred_vid_result.json: the submission has no pred_vid_result.json; expected "
            "pred_vid_result.json and pred_part_result.json; found pred_part_result.json, pred_vid_results.json; "
            "pred_vid_results.json: did you mean pred_vid_result.json?")
    assert proc.returncode == checked.returncode == 1
    assert proc.stderr.splitlines()[0] == checked.stderr.splitlines()[0] == line


def _without_scores(stderr):
    return [line for line in stderr.splitlines() if not line.startswith(("time:", "kinetics-tps  score"))]


def test_the_letter_case_hint_does_not_depend_on_the_test_set_holding_the_class(tmp_path):
    """'Lunge' for a video: reference A has no lunge video, reference B makes that video a lunge. The hint is the
    same (and so is every other line but the scores)."""
    vid, part = _load(REF, "gt_vid_result.json"), _load(REF, "gt_part_result.json")
    assert "lunge" not in vid.values()
    video = next(iter(vid))
    a = _write(tmp_path / "ref_a", {"gt_vid_result.json": vid, "gt_part_result.json": part})
    b = _write(tmp_path / "ref_b", {"gt_vid_result.json": dict(vid, **{video: "lunge"}), "gt_part_result.json": part})
    pred = dict(_load(PERFECT, VID), **{video: "Lunge"})
    sub = _write(tmp_path / "sub", {VID: pred, PART: _load(PERFECT, PART)})
    seen = []
    for name, ref in (("a", a), ("b", b)):
        proc, _ = run_score(SLUG, ref, sub, tmp_path, name=name, level="hidden")
        assert proc.returncode == 0, proc.stderr
        seen.append(_without_scores(proc.stderr))
    assert seen[0] == seen[1] == ['warning: pred_vid_result.json: 1 of 12 predicted classes differ in letter case '
                                  '(first: "Lunge"; the format expects "lunge")']
    assert _warnings(_validate(sub, _ids(tmp_path)).stdout) == [seen[0][0][len("warning: "):]]


@pytest.mark.parametrize("box", [[0, 0, 1e30, 1e30], [-1.7e308, -1.7e308, 1.7e308, 1.7e308]])
def test_huge_boxes_give_no_numpy_warning_with_or_without_ground_truth_humans(box, tmp_path):
    """Every predicted human box huge: the same stderr whether the probed frame has ground-truth humans or not; and
    the task's own evaluate raises no RuntimeWarning (np.errstate inside it, not only the command line's)."""
    from scoring_program.formats.files import Submission
    from scoring_program.tasks.kinetics_tps import TASK
    vid, part = _load(REF, "gt_vid_result.json"), _load(REF, "gt_part_result.json")
    video = next(iter(part))
    frame = next(iter(part[video]))
    a = _write(tmp_path / "ref_a", {"gt_vid_result.json": vid, "gt_part_result.json": part})
    empty = copy.deepcopy(part)
    empty[video][frame] = {"humans": []}
    b = _write(tmp_path / "ref_b", {"gt_vid_result.json": vid, "gt_part_result.json": empty})
    pvid, ppart = _load(PERFECT, VID), _load(PERFECT, PART)
    for h in ppart[video][frame]["humans"]:
        h["box"] = list(box)
    sub = _write(tmp_path / "sub", {VID: pvid, PART: ppart})
    seen = []
    for name, ref in (("a", a), ("b", b)):
        proc, _ = run_score(SLUG, ref, sub, tmp_path, name=name, level="hidden")
        assert proc.returncode == 0, proc.stderr
        seen.append(_without_scores(proc.stderr))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            TASK._cached = None
            TASK.score(str(ref), Submission(str(sub)))
    assert seen[0] == seen[1] == []


def test_the_kit_test_list_holds_no_label():
    """kit_extras' test_frames.json: the test videos and every frame key of the sample, nothing else."""
    from scoring_program.tasks.kinetics_tps import TASK
    listed = json.loads(TASK.kit_extras(TASK.load_reference(REF))["test_frames.json"].decode("utf-8"))
    part = _load(REF, "gt_part_result.json")
    assert listed == {v: list(frames) for v, frames in part.items()}
    assert all(isinstance(k, str) for keys in listed.values() for k in keys)


def test_mp4_video_ids_in_the_part_file_get_the_hint_too(tmp_path):
    part = {k + ".mp4": v for k, v in _load(PERFECT, PART).items()}
    sub = _write(tmp_path / "sub", {VID: _load(PERFECT, VID), PART: part})
    proc, _ = run_score(SLUG, REF, sub, tmp_path, level="hidden")
    checked = _validate(sub, _ids(tmp_path))
    first = next(iter(_load(REF, "gt_vid_result.json")))
    line = ("submission error: pred_part_result.json: video '%s' is missing; expected part results for every test "
            'video; found 12 of 12 video ids end in ".mp4" (first: "%s.mp4"; the format expects "%s")'
            % (first, first, first))
    assert proc.returncode == checked.returncode == 1
    assert proc.stderr.splitlines()[0] == checked.stderr.splitlines()[0] == line
