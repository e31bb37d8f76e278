"""The near-miss hint engine (formats.hints) and the scorer's warnings that use it (issue 23): a submission that
matches nothing says why, through score.py (stderr, the report) and through validate, in the same words.

The broken submissions are built in tmp_path from the committed samples."""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

from conftest import ROOT, run_score

from scoring_program.formats.hints import (Hint, NearMiss, Unmatched, Vocabulary, box_hint, frame_hint, unmatched)

KIT = os.path.join(ROOT, "starting_kit")
REF = os.path.join(ROOT, "reference_data")


def validate(slug, sub, *args):
    return subprocess.run([sys.executable, "-m", "scoring_program.validate", slug, str(sub)] + list(args),
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def warnings(text):
    return [l for l in text.splitlines() if l.startswith("warning: ")]


def report_text(out):
    with open(os.path.join(str(out), "detailed_results.html"), encoding="utf-8") as f:
        return f.read()


def scores_json(out):
    with open(os.path.join(str(out), "scores.json")) as f:
        return json.load(f)


# ---------------------------------------------------------------------------------------------- the engine
def test_vocabulary_names_each_kind_of_near_miss():
    v = Vocabulary(["brush_hair/v_brush_hair_g01_c01", "shooting_basketball", "left_arm", "img_00001.json",
                    "2008_000001", "push_up"])
    assert v.hint("v_brush_hair_g01_c01") == Hint("have no class folder", "brush_hair/v_brush_hair_g01_c01")
    assert v.hint("Shooting Basketball") == Hint("use spaces for underscores (and another letter case)",
                                                 "shooting_basketball")
    assert v.hint("push up") == Hint("use spaces for underscores", "push_up")
    assert v.hint("push-up") == Hint("use hyphens for underscores", "push_up")
    assert v.hint("PUSH_UP") == Hint("differ in letter case", "push_up")
    assert v.hint("leftArm") == Hint("are written in camelCase", "left_arm")
    assert v.hint("img_00001") == Hint('have no ".json" extension', "img_00001.json")
    assert v.hint("2008_000001.jpg") == Hint('end in ".jpg"', "2008_000001")
    assert v.hint("push_up") is None and v.hint("2008_000002") is None     # known; an id typo is no evidence
    assert "push_up" in v and "push up" not in v


def test_class_folder_needs_one_video_of_that_name():
    v = Vocabulary(["a/x", "b/x", "c/y"])
    assert v.hint("x") is None and v.hint("y") == Hint("have no class folder", "c/y")


def test_unmatched_full_and_own_shapes():
    v = Vocabulary(["brush_hair/v_brush_hair_g01_c01"])
    u = unmatched("res/frame_detections.csv", "video ids", ["v_brush_hair_g01_c01"], [False], v, "rows",
                  "name a test video", count=408, total=408)
    assert u.full() == ('res/frame_detections.csv: 0 of 408 rows name a test video; video ids have no class folder '
                        '(first: "v_brush_hair_g01_c01"; the format expects "brush_hair/v_brush_hair_g01_c01")')
    assert u.own() == ('res/frame_detections.csv: video ids have no class folder (first: "v_brush_hair_g01_c01"; '
                       'the format expects "brush_hair/v_brush_hair_g01_c01")')
    plain = Unmatched("f.csv", "video ids", 2, 5, "rows", "name a test video", "zz\nx", None)
    assert plain.full() == 'f.csv: 3 of 5 rows name a test video (first: "zz\\nx")' and plain.own() is None
    assert unmatched("f", "ids", ["a"], [True], v, "rows", "x") is None


def test_box_and_frame_hints():
    rng = np.random.RandomState(0)
    boxes = rng.rand(10, 4)
    assert box_hint(boxes) == ("every coordinate of the 10 boxes lies within 0..1 (the first: %s): they look "
                               "normalised; the format expects pixel coordinates"
                               % " ".join("%g" % v for v in boxes[0]))
    # judged on the bulk: one box of ten 1% past the edge (normalised, not clipped), all-zero placeholders aside
    boxes[3, 2] = 1.01
    placeholders = np.zeros((5, 4))
    assert box_hint([placeholders, boxes]) == (
        "9 of the 15 boxes have every coordinate within 0..1 (the first: %s): they look normalised; the format "
        "expects pixel coordinates" % " ".join("%g" % v for v in boxes[0]))
    boxes[:2] = [[20, 30, 240, 310], [5, 6, 70, 80]]   # 8 of 10 is not the bulk: pixel boxes under a pixel happen
    boxes[2:, 2:] = boxes[2:, :2] + 0.5 * (1.0 - boxes[2:, :2])                   # corners, not x, y, w, h
    assert box_hint(boxes) is None
    xywh = np.array([[100, 50, 80, 120], [30, 40, 20, 20], [5, 5, 50, 50.]])
    assert box_hint(xywh) == ("2 of the 3 boxes have x2 < x1 or y2 < y1 (the first: 100 50 80 120): they look "
                              "written as x, y, width, height; the format expects corners x1, y1, x2, y2")
    assert box_hint(np.array([[10, 10, 50, 60], [0, 0, 1, 1.]])) is None          # pixel corners
    assert box_hint(np.zeros((0, 4))) is None and box_hint(np.zeros((3, 4))) is None
    assert frame_hint(0) == " (frames count from 1: are yours 0-based?)" and frame_hint(7) == ""


def test_near_miss_singular_for_plural():
    assert NearMiss(["frame_detections.csv"])("frame_detection.csv") == "frame_detections.csv"


# ---------------------------------------------------------------------------------------------- action-tubes
TUBES = "action-tubes"


def _tubes_detections(tmp_path, change_row):
    """res/frame_detections.csv: the perfect sample's, each row (its fields) changed by change_row(header, fields);
    returns (res, rows)."""
    res = tmp_path / "res"
    res.mkdir()
    with open(os.path.join(KIT, TUBES, "submissions", "perfect", "frame_detections.csv")) as f:
        lines = f.read().splitlines()
    head = lines[0].split(",")
    rows = [lines[0]] + [",".join(change_row(head, l.split(","))) for l in lines[1:]]
    (res / "frame_detections.csv").write_text("".join(l + "\n" for l in rows))
    return res, len(rows) - 1


def _tubes_without_class_folder(tmp_path):
    return _tubes_detections(tmp_path, lambda head, f: [re.sub(r"^[a-z_]+/", "", f[0])] + f[1:])


def test_tubes_ids_without_class_folder_say_so_at_both_levels(tmp_path):
    res, nrows = _tubes_without_class_folder(tmp_path)
    own = ('frame_detections.csv: video ids have no class folder (first: "v_brush_hair_g01_c01"; the format '
           'expects "brush_hair/v_brush_hair_g01_c01")')
    proc, out = run_score(TUBES, os.path.join(REF, TUBES), res, tmp_path, name="hidden", level="hidden")
    assert proc.returncode == 0 and scores_json(out)["frame_mAP"] == 0.0
    assert "warning: " + own in warnings(proc.stderr)
    assert own.replace('"', "&quot;") in report_text(out)
    proc, out = run_score(TUBES, os.path.join(REF, TUBES), res, tmp_path, name="full", level="full")
    assert proc.returncode == 0
    assert ("warning: frame_detections.csv: 0 of %d rows name a test video; video ids have no class folder "
            '(first: "v_brush_hair_g01_c01"; the format expects "brush_hair/v_brush_hair_g01_c01")' % nrows
            in warnings(proc.stderr))
    # validate, given the public test list, says the same hint
    ids = tmp_path / "test_ids.txt"
    with open(os.path.join(REF, TUBES, "videos.csv")) as f:
        ids.write_text("".join(l.split(",")[0] + "\n" for l in f.read().splitlines()[1:]))
    v = validate(TUBES, res, "--ids", str(ids))
    assert v.returncode == 0 and "warning: " + own in warnings(v.stdout)


def test_tubes_hint_is_the_same_for_two_references_at_the_hidden_level(tmp_path):
    from privacy import hidden_sees_only_scores, read_lines, write_lines
    res, _ = _tubes_without_class_folder(tmp_path)
    ref_b = tmp_path / "ref_b"
    shutil.copytree(os.path.join(REF, TUBES), str(ref_b))
    videos = read_lines(str(ref_b / "videos.csv"))      # one test video of another (sample) class
    fields = videos[1].split(",")
    other = [l.split(",")[1] for l in videos[1:] if l.split(",")[1] != fields[1]][0]
    videos[1] = ",".join([fields[0], other] + fields[2:])
    write_lines(str(ref_b / "videos.csv"), videos)
    gt = read_lines(str(ref_b / "gt_tubes.csv"))
    write_lines(str(ref_b / "gt_tubes.csv"), [",".join(l.split(",")[:2] + [other] + l.split(",")[3:])
                                              if l.startswith(fields[0] + ",") else l for l in gt])
    ra, rb = hidden_sees_only_scores(TUBES, str(res), os.path.join(REF, TUBES), str(ref_b), tmp_path)
    assert any("have no class folder" in w for w in ra.shown_warnings())


def test_tubes_singular_file_name_is_named_by_the_scorer_and_validate(tmp_path):
    res = tmp_path / "res"
    res.mkdir()
    sub = os.path.join(KIT, TUBES, "submissions", "perfect")
    shutil.copy(os.path.join(sub, "frame_detections.csv"), str(res / "frame_detection.csv"))
    shutil.copy(os.path.join(sub, "tubes.csv"), str(res / "tubes.csv"))
    line = ("warning: frame_detection.csv will be ignored: only frame_detections.csv and tubes.csv are read "
            "(did you mean frame_detections.csv?)")
    proc, out = run_score(TUBES, os.path.join(REF, TUBES), res, tmp_path, level="hidden")
    assert proc.returncode == 0 and scores_json(out)["frame_mAP"] == 0.0 and scores_json(out)["video_mAP_50"] == 1.0
    assert warnings(proc.stderr) == [line]
    assert line[len("warning: "):] in report_text(out)
    v = validate(TUBES, res)
    assert v.returncode == 0 and warnings(v.stdout) == [line]


def test_tubes_frame_zero_suggests_zero_based_frames(tmp_path):
    res, _ = _tubes_detections(tmp_path, lambda head, f: [str(int(v) - 1) if head[k] == "frame" else v
                                                          for k, v in enumerate(f)])
    proc, out = run_score(TUBES, os.path.join(REF, TUBES), res, tmp_path, level="hidden")
    assert proc.returncode == 1 and not os.path.exists(str(out / "scores.txt"))
    assert len(proc.stderr.splitlines()) == 1
    assert "frame_detections.csv" in proc.stderr and "line 2" in proc.stderr
    assert "found 0 (frames count from 1: are yours 0-based?)" in proc.stderr
    v = validate(TUBES, res)        # validate knows no num_frames, and no lower bound either
    assert v.returncode in (0, 1)


# ---------------------------------------------------------------------------------------------- kinetics-tps
KIN = "kinetics-tps"


def _kinetics(tmp_path, classes=None, parts=None, frames=None):
    sub = os.path.join(KIT, KIN, "submissions", "perfect")
    with open(os.path.join(sub, "pred_vid_result.json")) as f:
        vid = json.load(f)
    with open(os.path.join(sub, "pred_part_result.json")) as f:
        part = json.load(f)
    if classes:
        vid = {k: classes(c) for k, c in vid.items()}
    if parts:
        for video in part.values():
            for frame in video.values():
                for human in frame["humans"]:
                    human["parts"] = {parts(n): p for n, p in human["parts"].items()}
    if frames:
        part = {v: {frames(k): f for k, f in fs.items()} for v, fs in part.items()}
    res = tmp_path / "res"
    res.mkdir()
    (res / "pred_vid_result.json").write_text(json.dumps(vid))
    (res / "pred_part_result.json").write_text(json.dumps(part))
    return res


def test_kinetics_title_case_classes(tmp_path):
    res = _kinetics(tmp_path, classes=lambda c: c.replace("_", " ").title())
    line = ('warning: pred_vid_result.json: 12 of 12 predicted classes use spaces for underscores (and another letter '
            'case) (first: "Shooting Basketball"; the format expects "shooting_basketball")')
    for level in ("hidden", "full"):        # the submission's own count, at every level
        proc, out = run_score(KIN, os.path.join(REF, KIN), res, tmp_path, name=level, level=level)
        assert proc.returncode == 0 and scores_json(out)["score"] == 0.0
        assert warnings(proc.stderr) == [line]


def test_kinetics_camel_case_part(tmp_path):
    res = _kinetics(tmp_path, parts=lambda n: "leftArm" if n == "left_arm" else n)
    line = ('warning: pred_part_result.json: 93 of 593 part names are written in camelCase (first: "leftArm"; the '
            'format expects "left_arm")')
    for level in ("hidden", "full"):
        proc, out = run_score(KIN, os.path.join(REF, KIN), res, tmp_path, name=level, level=level)
        assert proc.returncode == 0
        assert abs(scores_json(out)["score"] - 0.9999) > 0.1        # the part is ignored, as the original ignores it
        assert warnings(proc.stderr) == [line]


def test_kinetics_frame_keys_without_json(tmp_path):
    res = _kinetics(tmp_path, frames=lambda k: k[:-len(".json")])
    proc, out = run_score(KIN, os.path.join(REF, KIN), res, tmp_path, level="hidden")
    assert proc.returncode == 0
    own = [w for w in warnings(proc.stderr) if "frame keys" in w]
    assert own == ['warning: pred_part_result.json: 48 of 48 frame keys have no ".json" extension (first: '
                   '"img_00001"; the format expects "img_00001.json")'], own
    proc, out = run_score(KIN, os.path.join(REF, KIN), res, tmp_path, name="full", level="full")
    assert any(re.fullmatch(r'warning: 45 evaluated frame\(s\) are missing from pred_part_result\.json: each counts '
                            r'as PSC 0 \(first: video "[^"]+", frame "img_00001\.json"\)', w)
               for w in warnings(proc.stderr)), proc.stderr


# ---------------------------------------------------------------------------------------------- voc2011-detection
DET = "voc2011-detection"


def _detections(tmp_path, convert):
    src = os.path.join(KIT, DET, "submissions", "perfect")
    res = tmp_path / "res"
    res.mkdir()
    for dirpath, _, names in os.walk(src):
        for name in names:
            with open(os.path.join(dirpath, name)) as f:
                rows = [l.split() for l in f.read().splitlines() if l.strip()]
            (res / name).write_text("".join("%s %s %s\n" % (r[0], r[1], " ".join(
                "%.6g" % v for v in convert(*[float(x) for x in r[2:]]))) for r in rows))
    return res


def test_voc_detection_normalised_boxes(tmp_path):
    res = _detections(tmp_path, lambda x1, y1, x2, y2: (x1 / 1000, y1 / 1000, x2 / 1000, y2 / 1000))
    proc, out = run_score(DET, os.path.join(REF, DET), res, tmp_path, level="hidden")
    assert proc.returncode == 0 and scores_json(out)["mAP"] == 0.0
    [line] = warnings(proc.stderr)
    assert re.fullmatch(r"warning: the 20 result files: every coordinate of the 117 detection boxes lies within "
                        r"0\.\.1 \(the first: [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+\): they look normalised; the format "
                        r"expects pixel coordinates \(xmin ymin xmax ymax\)", line), line
    assert line[len("warning: "):] in report_text(out)
    v = validate(DET, res)
    assert v.returncode == 0 and warnings(v.stdout) == [line]
    proc, out = run_score(DET, os.path.join(REF, DET), res, tmp_path, name="full", level="full")
    assert ("All 0 does not mean nothing was lost: the mean AP is 0.0000, and no single oracle recovers any of it, "
            "because the 108 missed objects are not reached" in report_text(out))      # TIDE's all-zero breakdown


def test_voc_detection_xywh_boxes(tmp_path):
    res = _detections(tmp_path, lambda x1, y1, x2, y2: (x1, y1, x2 - x1, y2 - y1))
    proc, out = run_score(DET, os.path.join(REF, DET), res, tmp_path, level="hidden")
    assert proc.returncode == 0 and scores_json(out)["mAP"] < 0.01
    [line] = warnings(proc.stderr)
    assert re.fullmatch(r"warning: the 20 result files: \d+ of the 117 detection boxes have x2 < x1 or y2 < y1 \(the first: "
                        r"[0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+\): "
                        r"they look written as x, y, width, height; the format expects corners x1, y1, x2, y2 "
                        r"\(xmin ymin xmax ymax\)", line), line
    assert warnings(validate(DET, res).stdout) == [line]


# ---------------------------------------------------------------------------------------------- the other competitions
def _copy_sample(tmp_path, slug, change_text=None, rename=None):
    """The perfect sample of slug in tmp_path/res, each text file's lines changed by change_text(line), and files
    renamed by rename(name) (None: unchanged)."""
    res = tmp_path / "res"
    shutil.copytree(os.path.join(KIT, slug, "submissions", "perfect"), str(res))
    for dirpath, _, names in os.walk(str(res)):
        for name in names:
            path = os.path.join(dirpath, name)
            if change_text and name.endswith((".txt", ".xml", ".csv")):
                with open(path) as f:
                    lines = f.read().splitlines()
                with open(path, "w") as f:
                    f.write("".join(change_text(l) + "\n" for l in lines))
            new = rename(name) if rename else None
            if new:
                os.rename(path, os.path.join(dirpath, new))
    return res


def _ids_file(tmp_path, ids):
    path = tmp_path / "ids.txt"
    path.write_text("".join(i + "\n" for i in ids))
    return str(path)


def test_voc_classification_ids_with_jpg_name_the_near_miss(tmp_path):
    slug = "voc2011-classification"
    res = _copy_sample(tmp_path, slug, change_text=lambda l: re.sub(r"^(\S+)", r"\1.jpg", l))
    proc, out = run_score(slug, os.path.join(REF, slug), res, tmp_path, level="hidden")
    hint = 'image ids end in ".jpg" (first: "2011_000001.jpg"; the format expects "2011_000001")'
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and hint in proc.stderr, proc.stderr
    with open(os.path.join(REF, slug, "ImageSets", "Main", "aeroplane_test.txt")) as f:
        ids = _ids_file(tmp_path, [l.split()[0] for l in f if l.strip()])
    v = validate(slug, res, "--ids", ids)
    assert v.returncode == 1 and hint in v.stderr


def test_cultural_ids_without_jpg_name_the_near_miss(tmp_path):
    slug = "chalearn-lap2015-cultural-event"
    res = _copy_sample(tmp_path, slug, change_text=lambda l: l.replace(".jpg ", " ", 1))
    proc, out = run_score(slug, os.path.join(REF, slug), res, tmp_path, level="hidden")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1
    assert re.search(r'found \d+ unknown; image ids have no "\.jpg" extension \(first: "(\d+)"; the format expects '
                     r'"\1\.jpg"\)', proc.stderr), proc.stderr


def test_segmentation_png_in_capitals_is_named_by_the_scorer_as_by_validate(tmp_path):
    slug = "voc2011-segmentation"
    res = _copy_sample(tmp_path, slug, rename=lambda n: n[:-4] + ".PNG" if n == "2011_000001.png" else None)
    proc, out = run_score(slug, os.path.join(REF, slug), res, tmp_path, level="hidden")
    hint = "comp5_test_cls/2011_000001.PNG: did you mean 2011_000001.png?"
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and hint in proc.stderr, proc.stderr
    with open(os.path.join(REF, slug, "ImageSets", "Segmentation", "test.txt")) as f:
        ids = _ids_file(tmp_path, f.read().split())
    v = validate(slug, res, "--ids", ids)
    assert v.returncode == 1 and hint in v.stderr
    assert v.stderr.strip() == proc.stderr.strip()      # the same line


def test_chalearn_sequence_in_lower_case_is_named_by_the_scorer_as_by_validate(tmp_path):
    slug = "chalearn-lap2014-action"
    res = _copy_sample(tmp_path, slug, rename=lambda n: "seq01_prediction.csv" if n == "Seq01_prediction.csv" else None)
    line = "warning: seq01_prediction.csv will be ignored: no sequence 'seq01' (did you mean 'Seq01'?)"
    proc, out = run_score(slug, os.path.join(REF, slug), res, tmp_path, level="hidden")
    assert proc.returncode == 0 and scores_json(out)["mean_jaccard"] < 1.0
    assert warnings(proc.stderr) == [line]
    assert warnings(validate(slug, res).stdout) == [line]


def test_layout_image_ids_with_jpg_name_the_near_miss(tmp_path):
    slug = "voc2011-layout"
    res = _copy_sample(tmp_path, slug, change_text=lambda l: re.sub(r"<image>([^<]*)</image>",
                                                                    r"<image>\1.jpg</image>", l))
    proc, out = run_score(slug, os.path.join(REF, slug), res, tmp_path, level="hidden")
    hint = 'image ids end in ".jpg" (first: "2011_000001.jpg"; the format expects "2011_000001")'
    assert proc.returncode == 0 and scores_json(out)["mAP"] == 0.0
    [line] = warnings(proc.stderr)
    assert line.endswith("were skipped, first at line 2; %s." % hint), line
    ids = _ids_file(tmp_path, sorted(n[:-4] for n in os.listdir(os.path.join(REF, slug, "Annotations"))))
    [line] = warnings(validate(slug, res, "--ids", ids).stdout)
    assert line.endswith("they will be skipped; " + hint), line


def test_leveled_warning_hint_for_everyone_count_for_full_and_the_organizer():
    from scoring_program.report.result import FULL, HIDDEN, Leveled, Own, Result
    r = Result("t")
    r.warnings = [Leveled("f.csv: the hint", "f.csv: 0 of 3 rows name a test video; the hint"), "a count", Own("own")]
    r.level = HIDDEN
    assert r.shown_warnings() == ["f.csv: the hint", "own"]
    assert r.withheld()[0] == ["f.csv: 0 of 3 rows name a test video; the hint", "a count"]
    r.level = FULL
    assert r.shown_warnings() == ["f.csv: 0 of 3 rows name a test video; the hint", "a count", "own"]
    assert r.withheld() == ([], [])
