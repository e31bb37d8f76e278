"""validate agrees with the scorer on files: what the scorer rejects is an error, what it never reads is a warning
with a near-miss hint. Each competition's cases run validate (no reference) and the scorer (the sample reference
data): an ignored file leaves the scores exactly as without it, a rejected file is rejected by both."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT
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


def test_the_sample_submissions_have_no_warning():
    for slug in registry.available():
        kit = os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect")
        if os.path.isdir(kit):
            assert warnings(validate(slug, kit)) == [], slug


# ---------------------------------------------------------------- voc2011-classification
MAIN = "results/VOC2011/Main/"


def test_voc_classification_wrong_case_prefix_is_ignored_with_hint(tmp_path):
    slug = "voc2011-classification"
    res = kit_copy(tmp_path, slug)
    rename(res, MAIN + "comp1_cls_test_dog.txt", MAIN + "Comp1_cls_test_dog.txt")
    assert warnings(validate(slug, res)) == [
        "warning: results/VOC2011/Main/Comp1_cls_test_dog.txt will be ignored: only files named "
        "comp1_cls_test_<class>.txt are read (did you mean comp1_cls_test_dog.txt?)"]
    assert_scored_as_without(slug, res, MAIN + "Comp1_cls_test_dog.txt", tmp_path)


def test_voc_classification_unknown_class_is_rejected_by_both(tmp_path):
    slug = "voc2011-classification"
    res = kit_copy(tmp_path, slug)
    rename(res, MAIN + "comp1_cls_test_dog.txt", MAIN + "comp1_cls_test_Dog.txt")
    msg = validate_error(slug, res)
    assert msg == ("submission error: results/VOC2011/Main/comp1_cls_test_Dog.txt: expected one of the names "
                   "aeroplane, bicycle, bird, boat, bottle, bus, car, cat, chair, cow, diningtable, dog, horse, "
                   "motorbike, person, pottedplant, sheep, sofa, train, tvmonitor; found 'Dog'")
    assert score_error(slug, res) == msg


def test_voc_classification_only_unknown_names_still_reports_the_name_not_the_set(tmp_path):
    slug = "voc2011-classification"
    res = tmp_path / "res"
    res.mkdir()
    (res / "comp1_cls_test_Dog.txt").write_text("2011_000001 0.5\n")
    assert validate_error(slug, res) == score_error(slug, res)


# ---------------------------------------------------------------- voc2011-detection
def test_voc_detection_csv_extension_is_ignored_with_hint(tmp_path):
    slug = "voc2011-detection"
    res = kit_copy(tmp_path, slug)
    rename(res, MAIN + "comp3_det_test_person.txt", MAIN + "comp3_det_test_person.csv")
    notes = validate(slug, res)
    assert "no file for: person (those classes will score AP 0)" in notes
    assert warnings(notes) == [
        "warning: results/VOC2011/Main/comp3_det_test_person.csv will be ignored: only files named "
        "comp3_det_test_<class>.txt are read (did you mean comp3_det_test_person.txt?)"]
    assert_scored_as_without(slug, res, MAIN + "comp3_det_test_person.csv", tmp_path)


def test_voc_detection_nothing_readable_is_the_scorers_error_with_the_hint(tmp_path):
    slug = "voc2011-detection"
    res = tmp_path / "res"
    res.mkdir()
    shutil.copyfile(os.path.join(ROOT, "starting_kit", slug, "submissions", "random", MAIN, "comp3_det_test_dog.txt"),
                    str(res / "comp3_det_test_dog.csv"))
    scored = score_error(slug, res)
    assert scored == ("submission error: expected result files named comp3_det_test_<name>.txt (e.g. "
                      "comp3_det_test_aeroplane.txt); found no such file; files present: 'comp3_det_test_dog.csv'")
    assert validate_error(slug, res) == scored + "; comp3_det_test_dog.csv: did you mean comp3_det_test_dog.txt?"


def test_voc_detection_near_miss_set_gives_the_hint_in_that_set(tmp_path):
    res = tmp_path / "res"
    res.mkdir()
    (res / "Comp3-det-val-car.txt").write_text("")
    assert validate_error("voc2011-detection", res).endswith(
        "; Comp3-det-val-car.txt: did you mean comp3_det_val_car.txt?")


# ---------------------------------------------------------------- voc2011-segmentation
SEG = "results/VOC2011/Segmentation/comp5_test_cls/"
SEG_IDS = ["2011_%06d" % i for i in range(1, 9)]


def test_voc_segmentation_uppercase_png_is_ignored_with_hint_and_missing_with_ids(tmp_path):
    slug = "voc2011-segmentation"
    res = kit_copy(tmp_path, slug)
    rename(res, SEG + "2011_000003.png", SEG + "2011_000003.PNG")
    assert warnings(validate(slug, res)) == [
        "warning: results/VOC2011/Segmentation/comp5_test_cls/2011_000003.PNG will be ignored: only <id>.png files "
        "directly inside results/VOC2011/Segmentation/comp5_test_cls are read (did you mean 2011_000003.png?)"]
    scored = score_error(slug, res)       # the scorer needs every image of the set
    assert scored == ("submission error: results/VOC2011/Segmentation/comp5_test_cls: result image missing for 1 "
                      "of 8 images; expected one <id>.png per image of the evaluated set; found no '2011_000003.png'")
    assert validate_error(slug, res, SEG_IDS) == (
        scored + "; results/VOC2011/Segmentation/comp5_test_cls/2011_000003.PNG: did you mean 2011_000003.png?")


def test_voc_segmentation_files_outside_the_folder_are_ignored(tmp_path):
    slug = "voc2011-segmentation"
    res = kit_copy(tmp_path, slug)
    shutil.copyfile(str(res / SEG / "2011_000001.png"), str(res / "2011_000001.png"))
    assert warnings(validate(slug, res, SEG_IDS)) == [
        "warning: 2011_000001.png will be ignored: only <id>.png files directly inside "
        "results/VOC2011/Segmentation/comp5_test_cls are read"]
    assert_scored_as_without(slug, res, "2011_000001.png", tmp_path)


def test_voc_segmentation_png_outside_the_ids_hints_the_missing_id(tmp_path):
    slug = "voc2011-segmentation"
    res = kit_copy(tmp_path, slug)
    rename(res, SEG + "2011_000003.png", SEG + "2011_00003.png")
    msg = validate_error(slug, res, SEG_IDS)
    assert msg.endswith("found no '2011_000003.png'; the folder's 1 other PNG file(s) name no image of the set "
                        "(first: 2011_00003.png); results/VOC2011/Segmentation/comp5_test_cls/2011_00003.png: did "
                        "you mean '2011_000003'?")
    assert msg == score_error(slug, res) + ("; results/VOC2011/Segmentation/comp5_test_cls/2011_00003.png: did you "
                                            "mean '2011_000003'?")


def test_voc_segmentation_near_miss_folder_is_the_scorers_error_with_the_hint(tmp_path):
    slug = "voc2011-segmentation"
    res = kit_copy(tmp_path, slug)
    rename(res, "results/VOC2011/Segmentation/comp5_test_cls", "results/VOC2011/Segmentation/comp5_test")
    assert validate_error(slug, res) == (
        "submission error: expected a folder comp5_<set>_cls holding one <id>.png per test image; found 8 PNG "
        "file(s) outside such a folder; folder 'comp5_test': did you mean comp5_test_cls?")
    assert score_error(slug, res) == ("submission error: expected a folder comp5_test_cls holding one <id>.png per "
                                      "test image; found 8 PNG file(s) outside such a folder")


# ---------------------------------------------------------------- voc2011-layout
def test_voc_layout_extension_case_is_the_scorers_error_with_the_hint(tmp_path):
    slug = "voc2011-layout"
    res = kit_copy(tmp_path, slug)
    rename(res, "comp7_layout_test.xml", "comp7_layout_test.XML")
    scored = score_error(slug, res)
    assert scored == ("submission error: expected a results file named comp7_layout_test.xml; found no such file; "
                      "files present: 'comp7_layout_test.XML'")
    assert validate_error(slug, res) == (
        "submission error: expected a results file named comp7_layout_<set>.xml; found no such file; files present: "
        "'comp7_layout_test.XML'; comp7_layout_test.XML: did you mean comp7_layout_test.xml?")


def test_voc_layout_other_files_are_ignored(tmp_path):
    slug = "voc2011-layout"
    res = kit_copy(tmp_path, slug)
    (res / "comp7_layout_test.txt").write_text("my notes")
    assert warnings(validate(slug, res)) == [
        "warning: comp7_layout_test.txt will be ignored: only the file comp7_layout_test.xml is read"]
    assert_scored_as_without(slug, res, "comp7_layout_test.txt", tmp_path)


# ---------------------------------------------------------------- voc2011-action
ACT = "results/VOC2011/Action/"


def test_voc_action_csv_extension_is_ignored_with_hint(tmp_path):
    slug = "voc2011-action"
    res = kit_copy(tmp_path, slug)
    rename(res, ACT + "comp9_action_test_phoning.txt", ACT + "comp9_action_test_phoning.csv")
    assert warnings(validate(slug, res)) == [
        "warning: results/VOC2011/Action/comp9_action_test_phoning.csv will be ignored: only files named "
        "comp9_action_test_<action>.txt are read (did you mean comp9_action_test_phoning.txt?)"]
    assert_scored_as_without(slug, res, ACT + "comp9_action_test_phoning.csv", tmp_path)


def test_voc_action_unknown_action_is_rejected_by_both(tmp_path):
    slug = "voc2011-action"
    res = kit_copy(tmp_path, slug)
    rename(res, ACT + "comp9_action_test_phoning.txt", ACT + "comp9_action_test_phone.txt")
    msg = validate_error(slug, res)
    assert msg == ("submission error: results/VOC2011/Action/comp9_action_test_phone.txt: expected one of the names "
                   "jumping, phoning, playinginstrument, reading, ridingbike, ridinghorse, running, takingphoto, "
                   "usingcomputer, walking; found 'phone'")
    assert score_error(slug, res) == msg


# ---------------------------------------------------------------- chalearn-lap2014-pose
POSE_IDS = ["%02d_%04d_%d" % (s, f, a) for s in (1, 2) for f in (1, 2, 3) for a in (1, 2)]


def test_pose_uppercase_png_is_ignored_with_hint(tmp_path):
    slug = "chalearn-lap2014-pose"
    res = kit_copy(tmp_path, slug)
    rename(res, "01_0001_1_prediction.png", "01_0001_1_prediction.PNG")
    notes = validate(slug, res)
    assert notes[0] == "11 prediction panoramas, heights [60]"
    assert warnings(notes) == [
        "warning: 01_0003_1.png will be ignored: 01_0003_1_prediction.png is read instead",
        "warning: 01_0001_1_prediction.PNG will be ignored: not named XX_YYYY_W_prediction.png "
        "(did you mean 01_0001_1_prediction.png?)"]
    assert_scored_as_without(slug, res, "01_0001_1_prediction.PNG", tmp_path)


def test_pose_panorama_outside_the_ids_hints_the_padded_name(tmp_path):
    slug = "chalearn-lap2014-pose"
    res = kit_copy(tmp_path, slug)
    rename(res, "01_0001_1_prediction.png", "1_1_1_prediction.png")
    assert "warning: 1_1_1_prediction.png will be ignored: no panorama '1_1_1' in the --ids list (did you mean " \
           "'01_0001_1'?)" in warnings(validate(slug, res, POSE_IDS))
    assert "warning: 09_0001_1_prediction.png will be ignored: no panorama '09_0001_1' in the --ids list" \
           in warnings(validate(slug, res, POSE_IDS))
    assert_scored_as_without(slug, res, "1_1_1_prediction.png", tmp_path)


def test_pose_nothing_readable_is_an_error_with_the_hint(tmp_path):
    slug = "chalearn-lap2014-pose"
    res = tmp_path / "res"
    res.mkdir()
    shutil.copyfile(os.path.join(ROOT, "starting_kit", slug, "submissions", "random", "01_0001_1_prediction.png"),
                    str(res / "Seq01_0001_1_prediction.png"))
    assert validate_error(slug, res) == (
        "submission error: expected prediction panoramas named XX_YYYY_W_prediction.png; found "
        "'Seq01_0001_1_prediction.png'; Seq01_0001_1_prediction.png: did you mean '01_0001_1'?")


def test_pose_unreadable_png_is_rejected_by_both(tmp_path):
    slug = "chalearn-lap2014-pose"
    res = kit_copy(tmp_path, slug)
    (res / "01_0002_1_prediction.png").write_bytes(b"not a png")
    msg = validate_error(slug, res)
    assert msg.startswith("submission error: 01_0002_1_prediction.png: ")
    assert score_error(slug, res).startswith("submission error: 01_0002_1_prediction.png: ")


# ---------------------------------------------------------------- chalearn-lap2014-action
def test_action_sequence_case_is_ignored_with_hint(tmp_path):
    slug = "chalearn-lap2014-action"
    res = kit_copy(tmp_path, slug)
    rename(res, "Seq02_prediction.csv", "seq02_prediction.csv")
    assert warnings(validate(slug, res)) == [
        "warning: seq02_prediction.csv will be ignored: no sequence 'seq02' (did you mean 'Seq02'?)"]
    assert warnings(validate(slug, res, ["Seq%02d" % i for i in range(1, 7)])) == [
        "warning: seq02_prediction.csv will be ignored: no sequence 'seq02' in the --ids list (did you mean 'Seq02'?)"]
    assert_scored_as_without(slug, res, "seq02_prediction.csv", tmp_path)


def test_action_wrong_extension_and_alias_are_ignored(tmp_path):
    slug = "chalearn-lap2014-action"
    res = kit_copy(tmp_path, slug)
    rename(res, "Seq03_prediction.csv", "Seq03_prediction.txt")
    shutil.copyfile(str(res / "Seq01_prediction.csv"), str(res / "Seq01_predictions.csv"))
    assert warnings(validate(slug, res)) == [
        "warning: Seq01_predictions.csv will be ignored: Seq01_prediction.csv is read instead",
        "warning: Seq03_prediction.txt will be ignored: only files named SeqXX_prediction.csv are read "
        "(did you mean Seq03_prediction.csv?)"]
    assert_scored_as_without(slug, res, "Seq03_prediction.txt", tmp_path)


def test_action_no_file_of_a_sequence_is_rejected_by_both_with_the_hint(tmp_path):
    slug = "chalearn-lap2014-action"
    res = tmp_path / "res"
    res.mkdir()
    (res / "seq02_prediction.csv").write_text("6,1,41")
    assert score_error(slug, res) == (
        "submission error: seq02_prediction.csv: expected a file SeqXX_prediction.csv for a sequence of the ground "
        "truth; found 1 prediction file(s), none for a sequence of the ground truth (names are matched exactly, case "
        "included)")
    assert validate_error(slug, res) == (
        "submission error: seq02_prediction.csv: expected a file SeqXX_prediction.csv for a sequence of the test "
        "set; found 1 prediction file(s), none for a sequence of the test set (names are matched exactly, case "
        "included); seq02_prediction.csv: did you mean 'Seq02'?")


# ---------------------------------------------------------------- chalearn-lap2015-cultural-event
def test_cultural_wrong_extension_and_typo_are_ignored_with_hint(tmp_path):
    slug = "chalearn-lap2015-cultural-event"
    res = kit_copy(tmp_path, slug)
    rename(res, "La_Tomatina.txt", "La_Tomatina.csv")
    rename(res, "Obon.txt", "Obn.txt")
    notes = validate(slug, res)
    assert notes[0] == "48 category file(s)"
    assert warnings(notes) == [
        "warning: La_Tomatina.csv will be ignored: only <Category>.txt files are read (did you mean La_Tomatina.txt?)",
        "warning: Obn.txt will be ignored: no category 'Obn' (did you mean Obon.txt?)"]
    assert_scored_as_without(slug, res, "La_Tomatina.csv", tmp_path)
    assert_scored_as_without(slug, res, "Obn.txt", tmp_path / "2")


def test_cultural_wrong_case_is_rejected_by_both(tmp_path):
    slug = "chalearn-lap2015-cultural-event"
    res = kit_copy(tmp_path, slug)
    rename(res, "La_Tomatina.txt", "la_tomatina.txt")
    msg = validate_error(slug, res)
    assert msg == ("submission error: la_tomatina.txt: expected the file name La_Tomatina.txt (exact spelling and "
                   "case); found 'la_tomatina.txt'")
    assert score_error(slug, res) == msg


def test_cultural_other_txt_file_is_a_warning_even_when_malformed(tmp_path):
    slug = "chalearn-lap2015-cultural-event"
    res = kit_copy(tmp_path, slug)
    (res / "README.txt").write_text("my notes\n")
    assert warnings(validate(slug, res)) == [
        "warning: 1 file(s) name no category of the 50: each is read only if the reference data has such a category "
        "(a later edition's): 'README.txt'",
        "warning: README.txt would be an error if the reference data had a category 'README': README.txt, line 1: "
        "expected a number for the confidence; found 'notes'"]
    assert_scored_as_without(slug, res, "README.txt", tmp_path)


def test_cultural_no_category_file_is_rejected_with_the_hint(tmp_path):
    slug = "chalearn-lap2015-cultural-event"
    res = tmp_path / "res"
    res.mkdir()
    (res / "La_Tomatina.csv").write_text("a.jpg 0.5\n")
    assert validate_error(slug, res) == (
        "submission error: expected one file <Category>.txt per category (e.g. La_Tomatina.txt); found none (files "
        "present: 'La_Tomatina.csv'); La_Tomatina.csv: did you mean La_Tomatina.txt?")
    assert score_error(slug, res).startswith("submission error: expected one file <Category>.txt per category")


# ---------------------------------------------------------------- kinetics-tps
def test_kinetics_misnamed_file_is_the_scorers_error_with_the_hint(tmp_path):
    slug = "kinetics-tps"
    res = kit_copy(tmp_path, slug)
    rename(res, "pred_vid_result.json", "pred_vid_results.json")
    scored = score_error(slug, res)
    assert scored == ("submission error: pred_vid_result.json: the submission has no pred_vid_result.json; expected "
                      "pred_vid_result.json and pred_part_result.json; found pred_part_result.json, "
                      "pred_vid_results.json")
    assert validate_error(slug, res) == scored + "; pred_vid_results.json: did you mean pred_vid_result.json?"


def test_kinetics_other_files_are_ignored(tmp_path):
    slug = "kinetics-tps"
    res = kit_copy(tmp_path, slug)
    shutil.copyfile(str(res / "pred_vid_result.json"), str(res / "pred_vid_result (1).json"))
    assert warnings(validate(slug, res)) == [
        "warning: pred_vid_result (1).json will be ignored: only pred_vid_result.json and pred_part_result.json are "
        "read"]
    assert_scored_as_without(slug, res, "pred_vid_result (1).json", tmp_path)


# ---------------------------------------------------------------- action-tubes
def test_tubes_misnamed_detections_are_ignored_with_hint(tmp_path):
    slug = "action-tubes"
    res = kit_copy(tmp_path, slug)
    rename(res, "frame_detections.csv", "frame_detection.csv")
    notes = validate(slug, res)
    assert "no frame_detections.csv: frame-AP will be 0" in notes
    assert warnings(notes) == [
        "warning: frame_detection.csv will be ignored: only frame_detections.csv and tubes.csv are read "
        "(did you mean frame_detections.csv?)"]
    assert_scored_as_without(slug, res, "frame_detection.csv", tmp_path)


def test_tubes_nothing_readable_is_the_scorers_error_with_the_hint(tmp_path):
    slug = "action-tubes"
    res = kit_copy(tmp_path, slug)
    os.remove(str(res / "frame_detections.csv"))
    rename(res, "tubes.csv", "Tubes.csv")
    scored = score_error(slug, res)
    assert scored == ("submission error: expected frame_detections.csv and/or tubes.csv in the submission; found "
                      "Tubes.csv")
    assert validate_error(slug, res) == scored + "; Tubes.csv: did you mean tubes.csv?"


# ---------------------------------------------------------------- command line
def _validate_cli(*args):
    return subprocess.run([sys.executable, "-m", "scoring_program.validate"] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=ROOT)


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
