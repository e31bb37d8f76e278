"""validate agrees with the scorer (issue 23, item 2): given the public test list (--ids), validate fails exactly the
submissions that score.py fails.

Every case runs through both (in this process, as conftest's score_in_process and command_in_process run them:
the same exit code and lines as a process of their own): score.py INPUT OUTPUT (INPUT/ref the competition's sample reference,
INPUT/res the submission) and `python -m scoring_program.validate SLUG SUBMISSION --ids LIST`, where LIST is the
public test list as a participant has it (VOC's ImageSets/<task>/test.txt, which also names the set; the other
competitions' ids, as the kit baselines' --ids-out writes them). The cases: every starting kit's submissions and
malformed examples, and the mistakes issue 23 found (.jpg and .mp4 ids, a missing or empty PNG, an empty JSON file,
a header row, separators other than the format's), whose one-line messages are asserted exactly where both say the
same.

KNOWN lists the faults that the test list cannot reveal: they need a fact of the test data that is not in an id
list (a video's frame count, an image's size, the class set, which sequences identify the actors). validate passes
them and the scorer fails them; the test asserts that this is still so, so that a fix removes its line here."""
import glob
import json
import os
import shutil

import pytest

from conftest import ROOT, command_in_process, score_in_process

KIT = os.path.join(ROOT, "starting_kit")
REFERENCE = os.path.join(ROOT, "reference_data")
VOC_LISTS = {"voc2011-classification": "Main", "voc2011-detection": "Main", "voc2011-segmentation": "Segmentation",
             "voc2011-layout": "Layout", "voc2011-action": "Action"}

KNOWN = {   # (slug, case): the fact of the test data it needs, which no id list holds
    ("action-tubes", "frame_out_of_range"): "each video's num_frames",
    ("action-tubes", "unknown_label"): "the class set of the test videos",
    ("chalearn-lap2014-pose", "size_mismatch"): "each panorama's size",
    ("voc2011-segmentation", "size_mismatch"): "each test image's size",
}


def _ids_file(slug, folder):
    """The public test list a participant passes to --ids (written into folder when it is not a VOC devkit list)."""
    if slug in VOC_LISTS:
        return os.path.join(REFERENCE, slug, "ImageSets", VOC_LISTS[slug], "test.txt")
    ref = os.path.join(REFERENCE, slug)
    if slug == "action-tubes":
        with open(os.path.join(ref, "videos.csv"), encoding="utf-8") as f:
            ids = [line.split(",")[0] for line in f.read().splitlines()[1:] if line.strip()]
    elif slug == "chalearn-lap2014-action":
        ids = sorted(os.path.basename(p)[:-len("_data.csv")] for p in glob.glob(os.path.join(ref, "*_data.csv")))
    elif slug == "chalearn-lap2014-pose":
        ids = sorted(os.path.basename(p)[:-len(".png")] for p in glob.glob(os.path.join(ref, "*.png")))
    elif slug == "chalearn-lap2015-cultural-event":
        first = sorted(glob.glob(os.path.join(ref, "*_val.txt")))[0]
        with open(first, encoding="utf-8") as f:
            ids = [line.split()[0] for line in f if line.strip()]
    else:
        with open(os.path.join(ref, "gt_part_result.json"), encoding="utf-8") as f:
            ids = list(json.load(f))
    path = os.path.join(str(folder), "test_ids.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(i + "\n" for i in ids))
    return path


def _one_line(stderr):
    lines = stderr.splitlines()
    return lines[0] if lines else ""


def run_both(slug, submission, tmp_path):
    """(score.py's exit code and first stderr line, validate's exit code and first stderr line)."""
    inp = tmp_path / "input"
    inp.mkdir()
    os.symlink(os.path.join(REFERENCE, slug), str(inp / "ref"))
    os.symlink(str(submission), str(inp / "res"))
    # both in this process (conftest: the same exit code and lines as a process of their own)
    score = score_in_process(slug, [str(inp), str(tmp_path / "output")])
    check = command_in_process("validate", [slug, str(submission), "--ids", _ids_file(slug, tmp_path)])
    assert score.returncode in (0, 1) and check.returncode in (0, 1), (score.stderr, check.stderr)
    return (score.returncode, _one_line(score.stderr)), (check.returncode, _one_line(check.stderr))


def _kit_cases():
    cases = []
    for slug in sorted(os.listdir(KIT)):
        for kind in ("submissions", "malformed"):
            top = os.path.join(KIT, slug, kind)
            cases += [(slug, kind, name) for name in sorted(os.listdir(top)) if os.path.isdir(os.path.join(top, name))]
    return cases


@pytest.mark.parametrize("slug,kind,name", _kit_cases(), ids=lambda x: x)
def test_kit_submissions_and_malformed_examples(slug, kind, name, tmp_path):
    (scored, score_line), (checked, check_line) = run_both(slug, os.path.join(KIT, slug, kind, name), tmp_path)
    if (slug, name) in KNOWN:
        assert (scored, checked) == (1, 0), "validate now catches it: remove (%r, %r) from KNOWN" % (slug, name)
        return
    assert checked == scored, (score_line, check_line)
    assert scored == (0 if kind == "submissions" else 1)


# ------------------------------------------------------------------------------------- the mistakes issue 23 found

def _rewrite(paths, edit):
    for path in paths:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(edit(text))


def _files(folder, suffix):
    return sorted(os.path.join(d, n) for d, _, names in os.walk(folder) for n in names if n.endswith(suffix))


def _first_field_suffix(suffix, sep):
    def edit(text):
        return "".join((line.split(sep, 1)[0] + suffix + sep + line.split(sep, 1)[1]) if sep in line else line
                       for line in text.splitlines(True))
    return edit


def _csv_column_suffix(column, suffix):
    def edit(text):
        lines = text.splitlines(True)
        k = lines[0].strip().split(",").index(column)

        def one(line):
            fields = line.rstrip("\n").split(",")
            fields[k] += suffix
            return ",".join(fields) + "\n"
        return lines[0] + "".join(one(line) for line in lines[1:] if line.strip())
    return edit


def _first_frame_zero(text):
    lines = text.splitlines(True)
    k = lines[0].strip().split(",").index("frame")
    fields = lines[1].rstrip("\n").split(",")
    fields[k] = "0"
    return "".join([lines[0], ",".join(fields) + "\n"] + lines[2:])


def _separated(suffix, old, new, files=None):
    """The mutation that writes every `suffix` file (the first `files` of them) with `new` for `old`."""
    return lambda d: _rewrite(_files(d, suffix)[:files], lambda t: t.replace(old, new))


def _kinetics_mp4(text):
    videos = json.loads(text)
    return json.dumps({k + ".mp4": v for k, v in videos.items()})


def _header_over_three_columns(text):
    rows = [line.split(",")[1:] for line in text.splitlines() if line.strip()]
    return "ActorID,ActionID,StartFrame,EndFrame\n" + "".join(",".join(r) + "\n" for r in rows)


# (slug, case, what to do to a copy of the kit's perfect submission, the one line both print or None)
MISTAKES = [
    ("voc2011-classification", "jpg_ids", lambda d: _rewrite(_files(d, ".txt"), _first_field_suffix(".jpg", " ")),
     None),
    ("voc2011-detection", "jpg_ids", lambda d: _rewrite(_files(d, ".txt"), _first_field_suffix(".jpg", " ")), None),
    ("voc2011-action", "jpg_ids", lambda d: _rewrite(_files(d, ".txt"), _first_field_suffix(".jpg", " ")), None),
    ("voc2011-segmentation", "missing_png", lambda d: os.remove(_files(d, ".png")[0]),
     "submission error: results/VOC2011/Segmentation/comp5_test_cls: result image missing for 1 of 8 images; "
     "expected one <id>.png per image of the evaluated set; found no '2011_000001.png'"),
    ("voc2011-segmentation", "empty_png", lambda d: open(_files(d, ".png")[0], "w").close(),
     "submission error: results/VOC2011/Segmentation/comp5_test_cls/2011_000001.png: expected an indexed (palette) "
     "or 8-bit greyscale PNG; found an empty file (0 bytes)"),
    ("chalearn-lap2014-pose", "empty_png", lambda d: open(_files(d, ".png")[0], "w").close(),
     "submission error: 01_0001_1_prediction.png: cannot read the PNG; expected a PNG image (the file is not a "
     "readable PNG); found an empty file"),
    ("action-tubes", "mp4_ids", lambda d: _rewrite(_files(d, ".csv"), _csv_column_suffix("video", ".mp4")), ""),
    ("action-tubes", "semicolons", _separated(".csv", ",", ";"),
     "submission error: frame_detections.csv, line 1: expected a header row naming the columns "
     "video,frame,label,score,x1,y1,x2,y2; found fields separated by ';', not commas: "
     "'video;frame;label;score;x1;y1;x2;y2'"),
    ("action-tubes", "tabs", _separated(".csv", ",", "\t"),
     "submission error: frame_detections.csv, line 1: expected a header row naming the columns "
     "video,frame,label,score,x1,y1,x2,y2; found fields separated by tabs, not commas: "
     "'video\\tframe\\tlabel\\tscore\\tx1\\ty1\\tx2\\ty2'"),
    ("kinetics-tps", "mp4_ids", lambda d: _rewrite([os.path.join(d, "pred_vid_result.json")], _kinetics_mp4), None),
    ("kinetics-tps", "empty_video_file", lambda d: open(os.path.join(d, "pred_vid_result.json"), "w").close(),
     "submission error: pred_vid_result.json: the file is empty; expected a JSON object"),
    ("kinetics-tps", "blank_part_file", lambda d: _rewrite([os.path.join(d, "pred_part_result.json")],
                                                           lambda t: "\n  \n"),
     "submission error: pred_part_result.json: the file holds only white space; expected a JSON object"),
    ("chalearn-lap2014-action", "header_row", lambda d: _rewrite(_files(d, ".csv")[:1], _header_over_three_columns),
     "submission error: Seq01_prediction.csv, line 1: expected no header row: every line is a prediction, "
     "ActionID,StartFrame,EndFrame or ActorID,ActionID,StartFrame,EndFrame; found a header row: "
     "'ActorID,ActionID,StartFrame,EndFrame'"),
    ("chalearn-lap2014-action", "only_words", lambda d: _rewrite(_files(d, ".csv")[:1], lambda t: "my notes\n"),
     "submission error: Seq01_prediction.csv, line 1: expected 3 or 4 comma-separated fields (ActionID,StartFrame,"
     "EndFrame or ActorID,ActionID,StartFrame,EndFrame); found 1 (the fields are separated by spaces, not commas): "
     "'my notes'"),         # no rows of numbers below: not a header row
    ("chalearn-lap2014-action", "tabs", _separated(".csv", ",", "\t"),
     "submission error: Seq01_prediction.csv, line 1: expected 3 or 4 comma-separated fields (ActionID,StartFrame,"
     "EndFrame or ActorID,ActionID,StartFrame,EndFrame); found 1 (the fields are separated by tabs, not commas): "
     "'1\\t6\\t1\\t41'"),
    ("chalearn-lap2015-cultural-event", "header_row", lambda d: _rewrite(_files(d, ".txt")[:1],
                                                                      lambda t: "image confidence\n" + t),
     "submission error: Annual_Buffalo_Roundup.txt, line 1: expected data from the first line on (no header row); "
     "found a header row: 'image confidence'"),
    ("voc2011-detection", "header_row", lambda d: _rewrite(_files(d, ".txt")[:1],
                                                        lambda t: "image confidence xmin ymin xmax ymax\n" + t), None),
    ("chalearn-lap2015-cultural-event", "commas", _separated(".txt", " ", ","),
     "submission error: Annual_Buffalo_Roundup.txt, line 1: expected 2 fields (<image id> <confidence>); found 1 "
     "(the fields are separated by commas, not spaces or tabs): '005297.jpg,0.000000'"),
    ("voc2011-detection", "commas", _separated(".txt", " ", ",", 1),
     "submission error: results/VOC2011/Main/comp3_det_test_aeroplane.txt, line 1: expected 6 fields; found 1 (the "
     "fields are separated by commas, not spaces or tabs): '2011_000001,1.000000,416.000000,277.000000,469.000000,"
     "342.00...'"),
]


@pytest.mark.parametrize("slug,case,mutate,line", MISTAKES, ids=["%s-%s" % (m[0], m[1]) for m in MISTAKES])
def test_mistakes_issue_23_found(slug, case, mutate, line, tmp_path):
    submission = tmp_path / "submission"
    shutil.copytree(os.path.join(KIT, slug, "submissions", "perfect"), str(submission))
    mutate(str(submission))
    (scored, score_line), (checked, check_line) = run_both(slug, submission, tmp_path)
    assert checked == scored, (score_line, check_line)
    assert scored == (0 if line == "" else 1)
    if line:
        assert score_line == check_line == line


def test_frame_zero_is_said_in_words_without_the_video_lengths(tmp_path):
    """validate has no videos.csv: a frame out of range is 'a positive frame number', not 1..2305843009213693951;
    the scorer, which has the lengths, gives the range."""
    submission = tmp_path / "submission"
    shutil.copytree(os.path.join(KIT, "action-tubes", "submissions", "perfect"), str(submission))
    _rewrite([str(submission / "frame_detections.csv")], _first_frame_zero)
    (scored, score_line), (checked, check_line) = run_both("action-tubes", submission, tmp_path)
    assert (scored, checked) == (1, 1)
    assert check_line == ("submission error: frame_detections.csv, line 2: expected a positive frame number (1-based, "
                          "at most the video's num_frames); found 0 (frames count from 1: are yours 0-based?)")
    assert score_line == ("submission error: frame_detections.csv, line 2: expected a frame in 1..35 (the video's "
                          "num_frames); found 0 (frames count from 1: are yours 0-based?)")
