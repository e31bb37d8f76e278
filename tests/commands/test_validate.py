"""validate agrees with the scorer on files: what the scorer rejects is an error, what it never reads is a warning
with a near-miss hint. Each competition's cases run validate (no reference) and the scorer (the sample reference
data): an ignored file leaves the scores exactly as without it, a rejected file is rejected by both."""
import os
import shutil

import numpy as np
import pytest

from conftest import ROOT, command_in_process
from scoring_program.errors import SubmissionError
from scoring_program.formats.files import Submission
from scoring_program.tasks import registry


def kit_copy(tmp_path, slug, which="random", name="res"):
    dst = tmp_path / name
    shutil.copytree(os.path.join(ROOT, "starting_kit", slug, "submissions", which), str(dst))
    return dst


def validate(slug, res, ids=None):
    return registry.get(slug).validate(Submission(str(res)), None if ids is None else np.array(ids, dtype="S"))


def warnings(notes):
    return [n for n in notes if n.startswith("warning: ")]


def validate_error(slug, res, ids=None):
    with pytest.raises(SubmissionError) as e:
        validate(slug, res, ids)
    return e.value.render()


def score(slug, res):
    return registry.get(slug).score(os.path.join(ROOT, "reference_data", slug), Submission(str(res))).scores


def score_error(slug, res):
    with pytest.raises(SubmissionError) as e:
        score(slug, res)
    return e.value.render()


def rename(res, old, new):
    os.rename(str(res / old), str(res / new))


def assert_scored_as_without(slug, res, rel, tmp_path):
    """The scorer never reads res/rel: the scores with it are the scores without it."""
    without = tmp_path / "without"
    shutil.copytree(str(res), str(without))
    os.remove(str(without / rel))
    assert score(slug, res) == score(slug, without)


class Change(object):
    """A submission made for a case: the kit's random submission (kit=True) or an empty folder, then `renames`
    [(old, new)], `copies` [(source, new)] (source: in the submission, or from the project's root when kit is
    False), `writes` [(new, text or bytes)] and `removes` [path], all relative to the submission. `made`: the
    files it adds."""

    def __init__(self, slug, kit=True, renames=(), copies=(), writes=(), removes=()):
        self.slug, self.kit, self.removes = slug, kit, list(removes)
        self.renames, self.copies, self.writes = list(renames), list(copies), list(writes)
        self.made = [new for _, new in self.renames + self.copies] + [new for new, _ in self.writes]

    def make(self, tmp_path):
        if self.kit:
            res = kit_copy(tmp_path, self.slug)
        else:
            res = tmp_path / "res"
            res.mkdir()
        for path in self.removes:
            os.remove(str(res / path))
        for old, new in self.renames:
            rename(res, old, new)
        for source, new in self.copies:
            shutil.copyfile(str(res / source) if self.kit else os.path.join(ROOT, source), str(res / new))
        for new, data in self.writes:
            (res / new).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return res


def test_the_sample_submissions_have_no_warning():
    for slug in registry.available():
        kit = os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect")
        if os.path.isdir(kit):
            assert warnings(validate(slug, kit)) == [], slug


MAIN = "results/VOC2011/Main/"
SEG = "results/VOC2011/Segmentation/comp5_test_cls/"
SEG_IDS = ["2011_%06d" % i for i in range(1, 9)]
ACT = "results/VOC2011/Action/"
POSE_IDS = ["%02d_%04d_%d" % (s, f, a) for s in (1, 2) for f in (1, 2, 3) for a in (1, 2)]

# A file the scorer never reads: validate warns exactly so (with a near-miss hint), gives the other notes named
# among its notes, and the scores with each file the change made are the scores without it.
# name: (Change, --ids or None, the warnings, other notes)
IGNORED = {
    "voc_classification_wrong_case_prefix": (
        Change("voc2011-classification", renames=[(MAIN + "comp1_cls_test_dog.txt", MAIN + "Comp1_cls_test_dog.txt")]),
        None, ["warning: results/VOC2011/Main/Comp1_cls_test_dog.txt will be ignored: only files named "
               "comp1_cls_test_<class>.txt are read (did you mean comp1_cls_test_dog.txt?)"], []),
    "voc_detection_csv_extension": (
        Change("voc2011-detection", renames=[(MAIN + "comp3_det_test_person.txt", MAIN + "comp3_det_test_person.csv")]),
        None, ["warning: results/VOC2011/Main/comp3_det_test_person.csv will be ignored: only files named "
               "comp3_det_test_<class>.txt are read (did you mean comp3_det_test_person.txt?)"],
        ["no file for: person (those classes will score AP 0)"]),
    "voc_segmentation_files_outside_the_folder": (
        Change("voc2011-segmentation", copies=[(SEG + "2011_000001.png", "2011_000001.png")]),
        SEG_IDS, ["warning: 2011_000001.png will be ignored: only <id>.png files directly inside "
                  "results/VOC2011/Segmentation/comp5_test_cls are read"], []),
    "voc_layout_other_files": (
        Change("voc2011-layout", writes=[("comp7_layout_test.txt", "my notes")]),
        None, ["warning: comp7_layout_test.txt will be ignored: only the file comp7_layout_test.xml is read"], []),
    "voc_action_csv_extension": (
        Change("voc2011-action",
               renames=[(ACT + "comp9_action_test_phoning.txt", ACT + "comp9_action_test_phoning.csv")]),
        None, ["warning: results/VOC2011/Action/comp9_action_test_phoning.csv will be ignored: only files named "
               "comp9_action_test_<action>.txt are read (did you mean comp9_action_test_phoning.txt?)"], []),
    "pose_uppercase_png": (
        Change("chalearn-lap2014-pose", renames=[("01_0001_1_prediction.png", "01_0001_1_prediction.PNG")]),
        None, ["warning: 01_0003_1.png will be ignored: 01_0003_1_prediction.png is read instead",
               "warning: 01_0001_1_prediction.PNG will be ignored: not named XX_YYYY_W_prediction.png "
               "(did you mean 01_0001_1_prediction.png?)"],
        ["11 prediction panoramas, heights [60]"]),
    "pose_panorama_outside_the_ids_hints_the_padded_name": (
        Change("chalearn-lap2014-pose", renames=[("01_0001_1_prediction.png", "1_1_1_prediction.png")]),
        POSE_IDS, ["warning: 01_0003_1.png will be ignored: 01_0003_1_prediction.png is read instead",
                   "warning: 09_0001_1_prediction.png will be ignored: no panorama '09_0001_1' in the --ids list",
                   "warning: 1_1_1_prediction.png will be ignored: no panorama '1_1_1' in the --ids list (did you "
                   "mean '01_0001_1'?)"], []),
    "action_sequence_case": (
        Change("chalearn-lap2014-action", renames=[("Seq02_prediction.csv", "seq02_prediction.csv")]),
        None, ["warning: seq02_prediction.csv will be ignored: no sequence 'seq02' (did you mean 'Seq02'?)"], []),
    "action_sequence_case_with_ids": (
        Change("chalearn-lap2014-action", renames=[("Seq02_prediction.csv", "seq02_prediction.csv")]),
        ["Seq%02d" % i for i in range(1, 7)],
        ["warning: seq02_prediction.csv will be ignored: no sequence 'seq02' in the --ids list (did you mean "
         "'Seq02'?)"], []),
    "action_wrong_extension_and_alias": (
        Change("chalearn-lap2014-action", renames=[("Seq03_prediction.csv", "Seq03_prediction.txt")],
               copies=[("Seq01_prediction.csv", "Seq01_predictions.csv")]),
        None, ["warning: Seq01_predictions.csv will be ignored: Seq01_prediction.csv is read instead",
               "warning: Seq03_prediction.txt will be ignored: only files named SeqXX_prediction.csv are read "
               "(did you mean Seq03_prediction.csv?)"], []),
    "cultural_wrong_extension_and_typo": (
        Change("chalearn-lap2015-cultural-event", renames=[("La_Tomatina.txt", "La_Tomatina.csv"),
                                                           ("Obon.txt", "Obn.txt")]),
        None, ["warning: La_Tomatina.csv will be ignored: only <Category>.txt files are read (did you mean "
               "La_Tomatina.txt?)", "warning: Obn.txt will be ignored: no category 'Obn' (did you mean Obon.txt?)"],
        ["48 category file(s)"]),
    "cultural_other_txt_file_is_a_warning_even_when_malformed": (
        Change("chalearn-lap2015-cultural-event", writes=[("README.txt", "my notes\n")]),
        None, ["warning: 1 file(s) name no category of the 50: each is read only if the reference data has such a "
               "category (a later edition's): 'README.txt'",
               "warning: README.txt would be an error if the reference data had a category 'README': README.txt, "
               "line 1: expected a number for the confidence; found 'notes'"], []),
    "kinetics_other_files": (
        Change("kinetics-tps", copies=[("pred_vid_result.json", "pred_vid_result (1).json")]),
        None, ["warning: pred_vid_result (1).json will be ignored: only pred_vid_result.json and "
               "pred_part_result.json are read"], []),
    "tubes_misnamed_detections": (
        Change("action-tubes", renames=[("frame_detections.csv", "frame_detection.csv")]),
        None, ["warning: frame_detection.csv will be ignored: only frame_detections.csv and tubes.csv are read "
               "(did you mean frame_detections.csv?)"], ["no frame_detections.csv: frame-AP will be 0"]),
}


@pytest.mark.parametrize("name", sorted(IGNORED))
def test_ignored_with_hint_and_scored_as_without(tmp_path, name):
    change, ids, expected, other_notes = IGNORED[name]
    res = change.make(tmp_path)
    notes = validate(change.slug, res, ids)
    assert warnings(notes) == expected
    assert [n for n in other_notes if n not in notes] == []
    for n, made in enumerate(change.made):
        assert_scored_as_without(change.slug, res, made, tmp_path / str(n))


# A file the scorer rejects: validate rejects it with the same line (None: whatever the scorer's line is).
# name: (Change, the line)
REJECTED = {
    "voc_classification_unknown_class": (
        Change("voc2011-classification", renames=[(MAIN + "comp1_cls_test_dog.txt", MAIN + "comp1_cls_test_Dog.txt")]),
        "submission error: results/VOC2011/Main/comp1_cls_test_Dog.txt: expected one of the names aeroplane, "
        "bicycle, bird, boat, bottle, bus, car, cat, chair, cow, diningtable, dog, horse, motorbike, person, "
        "pottedplant, sheep, sofa, train, tvmonitor; found 'Dog'"),
    "voc_classification_only_unknown_names_still_reports_the_name_not_the_set": (
        Change("voc2011-classification", kit=False, writes=[("comp1_cls_test_Dog.txt", "2011_000001 0.5\n")]), None),
    "voc_action_unknown_action": (
        Change("voc2011-action",
               renames=[(ACT + "comp9_action_test_phoning.txt", ACT + "comp9_action_test_phone.txt")]),
        "submission error: results/VOC2011/Action/comp9_action_test_phone.txt: expected one of the names jumping, "
        "phoning, playinginstrument, reading, ridingbike, ridinghorse, running, takingphoto, usingcomputer, "
        "walking; found 'phone'"),
    "cultural_wrong_case": (
        Change("chalearn-lap2015-cultural-event", renames=[("La_Tomatina.txt", "la_tomatina.txt")]),
        "submission error: la_tomatina.txt: expected the file name La_Tomatina.txt (exact spelling and case); found "
        "'la_tomatina.txt'"),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected_by_both_with_the_same_line(tmp_path, name):
    change, line = REJECTED[name]
    res = change.make(tmp_path)
    msg = validate_error(change.slug, res)
    assert msg == score_error(change.slug, res)
    assert line is None or msg == line


def test_pose_unreadable_png_is_rejected_by_both(tmp_path):
    slug = "chalearn-lap2014-pose"
    res = Change(slug, writes=[("01_0002_1_prediction.png", b"not a png")]).make(tmp_path)
    for msg in (validate_error(slug, res), score_error(slug, res)):
        assert msg.startswith("submission error: 01_0002_1_prediction.png: ")


# ---------------------------------------------------------------- more hints
def test_voc_detection_near_miss_set_gives_the_hint_in_that_set(tmp_path):
    res = tmp_path / "res"
    res.mkdir()
    (res / "Comp3-det-val-car.txt").write_text("")
    assert validate_error("voc2011-detection", res).endswith(
        "; Comp3-det-val-car.txt: did you mean comp3_det_val_car.txt?")


def test_voc_segmentation_uppercase_png_is_ignored_with_hint_and_missing_with_ids(tmp_path):
    slug = "voc2011-segmentation"
    res = kit_copy(tmp_path, slug)
    rename(res, SEG + "2011_000003.png", SEG + "2011_000003.PNG")
    assert warnings(validate(slug, res)) == [
        "warning: results/VOC2011/Segmentation/comp5_test_cls/2011_000003.PNG will be ignored: only <id>.png files "
        "directly inside results/VOC2011/Segmentation/comp5_test_cls are read (did you mean 2011_000003.png?)"]
    scored = score_error(slug, res)       # the scorer needs every image of the set; its hint is validate's (#23)
    assert scored == ("submission error: results/VOC2011/Segmentation/comp5_test_cls: result image missing for 1 "
                      "of 8 images; expected one <id>.png per image of the evaluated set; found no '2011_000003.png'"
                      "; results/VOC2011/Segmentation/comp5_test_cls/2011_000003.PNG: did you mean 2011_000003.png?")
    assert validate_error(slug, res, SEG_IDS) == scored


def test_voc_segmentation_png_outside_the_ids_hints_the_missing_id(tmp_path):
    slug = "voc2011-segmentation"
    res = kit_copy(tmp_path, slug)
    rename(res, SEG + "2011_000003.png", SEG + "2011_00003.png")
    msg = validate_error(slug, res, SEG_IDS)
    assert msg.endswith("found no '2011_000003.png'; the folder's 1 other PNG file(s) name no image of the set "
                        "(first: 2011_00003.png); results/VOC2011/Segmentation/comp5_test_cls/2011_00003.png: did "
                        "you mean '2011_000003'?")
    assert msg == score_error(slug, res)      # the scorer gives validate's hint (issue 23)


def test_voc_segmentation_near_miss_folder_is_the_scorers_error_with_the_hint(tmp_path):
    slug = "voc2011-segmentation"
    res = kit_copy(tmp_path, slug)
    rename(res, "results/VOC2011/Segmentation/comp5_test_cls", "results/VOC2011/Segmentation/comp5_test")
    assert validate_error(slug, res) == (
        "submission error: expected a folder comp5_<set>_cls holding one <id>.png per test image; found 8 PNG "
        "file(s) outside such a folder; folder 'comp5_test': did you mean comp5_test_cls?")
    assert score_error(slug, res) == ("submission error: expected a folder comp5_test_cls holding one <id>.png per "
                                      "test image; found 8 PNG file(s) outside such a folder")


DET_NONE = ("submission error: expected result files named comp3_det_test_<name>.txt (e.g. "
            "comp3_det_test_aeroplane.txt); found no such file; files present: 'comp3_det_test_dog.csv'")
KINETICS_NONE = ("submission error: pred_vid_result.json: the submission has no pred_vid_result.json; expected "
                 "pred_vid_result.json and pred_part_result.json; found pred_part_result.json, pred_vid_results.json")
TUBES_NONE = "submission error: expected frame_detections.csv and/or tubes.csv in the submission; found Tubes.csv"

# The scorer's line and validate's: validate adds a near-miss hint (and names no set, or the --ids list).
# name: (Change, the scorer's line (ending with "...": its start; None: not checked), validate's line)
DIFFERENT = {
    "voc_detection_nothing_readable": (
        Change("voc2011-detection", kit=False, copies=[
            ("starting_kit/voc2011-detection/submissions/random/%scomp3_det_test_dog.txt" % MAIN,
             "comp3_det_test_dog.csv")]),
        DET_NONE, DET_NONE + "; comp3_det_test_dog.csv: did you mean comp3_det_test_dog.txt?"),
    "kinetics_misnamed_file": (
        Change("kinetics-tps", renames=[("pred_vid_result.json", "pred_vid_results.json")]),
        KINETICS_NONE + "; pred_vid_results.json: did you mean pred_vid_result.json?",
        KINETICS_NONE + "; pred_vid_results.json: did you mean pred_vid_result.json?"),   # issue 31: the scorer too
    "tubes_nothing_readable": (
        Change("action-tubes", removes=["frame_detections.csv"], renames=[("tubes.csv", "Tubes.csv")]),
        TUBES_NONE, TUBES_NONE + "; Tubes.csv: did you mean tubes.csv?"),
    "voc_layout_extension_case": (
        Change("voc2011-layout", renames=[("comp7_layout_test.xml", "comp7_layout_test.XML")]),
        "submission error: expected a results file named comp7_layout_test.xml; found no such file; files present: "
        "'comp7_layout_test.XML'",
        "submission error: expected a results file named comp7_layout_<set>.xml; found no such file; files present: "
        "'comp7_layout_test.XML'; comp7_layout_test.XML: did you mean comp7_layout_test.xml?"),
    "pose_nothing_readable": (
        Change("chalearn-lap2014-pose", kit=False, copies=[
            ("starting_kit/chalearn-lap2014-pose/submissions/random/01_0001_1_prediction.png",
             "Seq01_0001_1_prediction.png")]),
        None,
        "submission error: expected prediction panoramas named XX_YYYY_W_prediction.png; found "
        "'Seq01_0001_1_prediction.png'; Seq01_0001_1_prediction.png: did you mean '01_0001_1'?"),
    "action_no_file_of_a_sequence": (
        Change("chalearn-lap2014-action", kit=False, writes=[("seq02_prediction.csv", "6,1,41")]),
        "submission error: seq02_prediction.csv: expected a file SeqXX_prediction.csv for a sequence of the ground "
        "truth; found 1 prediction file(s), none for a sequence of the ground truth (names are matched exactly, case "
        "included); seq02_prediction.csv: did you mean 'Seq02'?",
        "submission error: seq02_prediction.csv: expected a file SeqXX_prediction.csv for a sequence of the test "
        "set; found 1 prediction file(s), none for a sequence of the test set (names are matched exactly, case "
        "included); seq02_prediction.csv: did you mean 'Seq02'?"),
    "cultural_no_category_file": (
        Change("chalearn-lap2015-cultural-event", kit=False, writes=[("La_Tomatina.csv", "a.jpg 0.5\n")]),
        "submission error: expected one file <Category>.txt per category...",
        "submission error: expected one file <Category>.txt per category (e.g. La_Tomatina.txt); found none (files "
        "present: 'La_Tomatina.csv'); La_Tomatina.csv: did you mean La_Tomatina.txt?"),
}


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_the_scorers_line_and_validates(tmp_path, name):
    change, scored_line, validate_line = DIFFERENT[name]
    res = change.make(tmp_path)
    assert validate_error(change.slug, res) == validate_line
    if scored_line is not None and scored_line.endswith("..."):
        assert score_error(change.slug, res).startswith(scored_line[:-3])
    elif scored_line is not None:
        assert score_error(change.slug, res) == scored_line


# ---------------------------------------------------------------- command line
def _validate_cli(*args):
    return command_in_process("validate", args)


def test_cli_warnings_exit_0_after_the_notes(tmp_path):
    res = kit_copy(tmp_path, "voc2011-detection")
    rename(res, MAIN + "comp3_det_test_person.txt", MAIN + "comp3_det_test_person.csv")
    p = _validate_cli("voc2011-detection", res)
    assert p.returncode == 0 and p.stderr == ""
    lines = p.stdout.splitlines()
    assert lines[-2:] == [
        "warning: results/VOC2011/Main/comp3_det_test_person.csv will be ignored: only files named "
        "comp3_det_test_<class>.txt are read (did you mean comp3_det_test_person.txt?)",
        "OK: %s looks like a valid voc2011-detection submission (names and syntax; scores need the reference data); "
        "1 warning(s) above" % res]


def test_cli_error_is_one_line_exit_1(tmp_path):
    res = tmp_path / "res"
    res.mkdir()
    (res / "seq02_prediction.csv").write_text("6,1,41")
    ids = tmp_path / "ids.txt"
    ids.write_text("Seq01\nSeq02\n")
    p = _validate_cli("chalearn-lap2014-action", res, "--ids", ids)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == ("submission error: seq02_prediction.csv: expected a file SeqXX_prediction.csv for a sequence "
                        "of the --ids list; found 1 prediction file(s), none for a sequence of the --ids list (names "
                        "are matched exactly, case included); seq02_prediction.csv: did you mean 'Seq02'?\n")
