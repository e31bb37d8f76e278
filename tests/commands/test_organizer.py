"""The organizer's first hour (issue 11): a bundle from their own ground truth and organizer.yaml, read with the
competition's own reference loader before anything is written, then dry-run as the workers would."""
import io
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from conftest import CHECKER, ROOT, checker_run, competition_slugs, read_scores, run_score
from scoring_program import bundle
from scoring_program.bundling import BundleError
from scoring_program.bundling.reference import read_reference
from scoring_program.formats.voc import VOC_CLASSES
from scoring_program.tasks import registry

VOC_SLUGS = ["voc2011-classification", "voc2011-detection", "voc2011-segmentation", "voc2011-layout",
             "voc2011-action"]


def cli(module, *args):
    return subprocess.run([sys.executable, "-m", "scoring_program.%s" % module] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)


def lines(text):
    return [line for line in text.splitlines() if line.strip()]


def sample(slug, dest):
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(dest))
    return dest


def zip_member(path, member):
    with zipfile.ZipFile(str(path)) as z:
        return z.read(member)


def names_in(data):
    return sorted(zipfile.ZipFile(io.BytesIO(data)).namelist())


def bundles(out, slug):
    return out / slug / ("%s-codabench.zip" % slug), out / slug / ("%s-codalab.zip" % slug)


ORGANIZER_YAML = """\
title: VOC2011 classification, our own test set
description: Our images, labelled as VOC2011.
docker_image: codalab/codalab-legacy:py312
drop_classes: [sheep]                 # no positive in the hidden test set (organizer_reference)
phases:
  - name: Development
    start: 2024-03-01
    end: 2024-04-30 12:00
    max_submissions: 50
    max_submissions_per_day: 3
  - name: Final
    description: The final test.
    start: 2024-05-01
    end: 2024-05-15
    max_submissions: 3
    max_submissions_per_day: 1
    execution_time_limit: 300
pages:
  overview: my_overview.md
"""


def organizer_reference(tmp_path):
    """The classification sample without any positive sheep (every '1' of sheep_test.txt made '-1') and with a
    list for a class the competition does not have (unicorn_test.txt, a copy of cow_test.txt)."""
    ref = sample("voc2011-classification", tmp_path / "VOC2011")
    main = ref / "ImageSets" / "Main"
    sheep = main / "sheep_test.txt"
    text = sheep.read_text()
    assert text.count(" 1\n") > 0
    sheep.write_text(text.replace(" 1\n", "-1\n"))
    shutil.copy(str(main / "cow_test.txt"), str(main / "unicorn_test.txt"))
    return ref


def test_organizer_bundle_warns_drops_sheep_merges_the_yaml_and_dry_runs(tmp_path):
    slug = "voc2011-classification"
    ref = organizer_reference(tmp_path)
    (tmp_path / "organizer.yaml").write_text(ORGANIZER_YAML)
    (tmp_path / "my_overview.md").write_text("# Our challenge\n\nWelcome, **participants**.\n")
    out = tmp_path / "bundles"
    p = cli("bundle", slug, "--reference-data", ref, "--config", tmp_path / "organizer.yaml", "--out", out)
    assert p.returncode == 0, p.stderr
    assert lines(p.stderr) == [
        "warning: ImageSets/Main/unicorn_test.txt: 'unicorn' is not one of the competition's 20 classes: the file "
        "is not bundled and never scored",
        "warning: sheep: no positive image in ImageSets/Main/sheep_test.txt",
    ]
    assert lines(p.stdout)[:2] == [
        "note: leaderboard column AP_sheep dropped (no submission can fill it): sheep: no positive image in "
        "ImageSets/Main/sheep_test.txt",
        "note: legacy Codalab bundle: phase 'Development' stays open until 'Final' starts (2024-05-01): v1.5 "
        "phases have only a start date, so its end (2024-04-30 12:00:00) is not in the legacy yaml",
    ]
    cb, cl = bundles(out, slug)
    columns = ["mAP"] + ["AP_" + c for c in VOC_CLASSES if c != "sheep"]

    # Codabench v2: the config over competitions/<slug>/competition.yaml, 20 columns
    y2 = yaml.safe_load(zip_member(cb, "competition.yaml"))
    assert y2["title"] == "VOC2011 classification, our own test set"
    assert y2["description"] == "Our images, labelled as VOC2011."
    assert y2["docker_image"] == "codalab/codalab-legacy:py312"
    assert y2["version"] == 2 and y2["enable_detailed_results"] is True           # kept from the default
    dev, final = y2["phases"]
    assert (dev["index"], dev["name"], str(dev["start"]), str(dev["end"])) == (0, "Development", "2024-03-01",
                                                                              "2024-04-30 12:00:00")
    assert (dev["max_submissions"], dev["max_submissions_per_day"], dev["execution_time_limit"]) == (50, 3, 600)
    # no description of its own: the one naming its set and result files (templates/phase.md), never an inherited
    # text about another set
    assert dev["description"] == "Results on the test set (one comp1_cls_test_<class>.txt file per class, or comp2_...)."
    assert dev["tasks"] == [0] and dev["starting_kit"] == "starting_kit.zip"
    assert (final["index"], final["name"], str(final["start"]), str(final["end"])) == (1, "Final", "2024-05-01",
                                                                                      "2024-05-15")
    assert (final["max_submissions"], final["max_submissions_per_day"], final["execution_time_limit"]) == (3, 1, 300)
    assert final["description"] == "The final test."
    assert [c["key"] for c in y2["leaderboards"][0]["columns"]] == columns
    assert [c["index"] for c in y2["leaderboards"][0]["columns"]] == list(range(20))
    assert zip_member(cb, "pages/overview.md") == b"# Our challenge\n\nWelcome, **participants**.\n"
    assert zip_member(cb, "pages/terms.md") == open(os.path.join(ROOT, "competitions", slug, "pages", "terms.md"),
                                                    "rb").read()
    ref_names = names_in(zip_member(cb, "reference_data.zip"))
    assert ref_names == sorted(["REPORT_LEVEL"] + ["ImageSets/Main/%s_test.txt" % c for c in VOC_CLASSES])  # no unicorn
    assert zipfile.ZipFile(io.BytesIO(zip_member(cb, "reference_data.zip"))).read("REPORT_LEVEL") == b"hidden\n"

    # legacy v1.5: start dates only, the last end as the competition's end_date
    y1 = yaml.safe_load(zip_member(cl, "competition.yaml"))
    assert y1["title"] == y2["title"] and y1["competition_docker_image"] == "codalab/codalab-legacy:py312"
    assert str(y1["end_date"]) == "2024-05-15 00:00:00"
    assert sorted(y1["phases"]) == [1, 2]
    assert [(p["label"], str(p["start_date"]), p["max_submissions"], p["max_submissions_per_day"],
             p["execution_time_limit"]) for p in (y1["phases"][1], y1["phases"][2])] == [
        ("Development", "2024-03-01 00:00:00", 50, 3, 600), ("Final", "2024-05-01 00:00:00", 3, 1, 300)]
    assert not any("end" in k for p in y1["phases"].values() for k in p)
    assert list(y1["leaderboard"]["columns"]) == columns
    assert b"<h1>Our challenge</h1>" in zip_member(cl, "overview.html")
    assert b"<strong>participants</strong>" in zip_member(cl, "overview.html")

    # the dry run scores the sample's random submission against the bundled reference: the other 19 APs are the
    # sample's, AP_sheep is not written, and mAP is the mean of the 19 (the sheep AP left out)
    p = cli("dryrun", slug, os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), "--dist", out)
    assert p.returncode == 0, p.stderr
    scores = read_scores(out / slug / "dryrun-codabench")
    assert list(scores) == columns
    proc, sample_out = run_score(slug, os.path.join(ROOT, "reference_data", slug),
                                 os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    before = read_scores(sample_out)
    for c in VOC_CLASSES:
        if c != "sheep":
            assert scores["AP_" + c] == before["AP_" + c]
    aps = [scores["AP_" + c] for c in VOC_CLASSES if c != "sheep"]
    assert scores["mAP"] == pytest.approx(sum(aps) / 19, abs=1e-12)
    assert scores["mAP"] == pytest.approx((20 * before["mAP"] - before["AP_sheep"]) / 19, abs=1e-12)
    assert before["mAP"] == pytest.approx(0.7542828588460078, abs=1e-12)
    assert "mAP 0.75" in p.stdout and "AP_sheep" not in p.stdout


@pytest.mark.skipif(not os.path.isfile(CHECKER), reason="../shared/tools/codalab_check.py not present")
def test_the_same_bundle_is_accepted_by_the_outside_checker(tmp_path):
    ref = organizer_reference(tmp_path)
    (tmp_path / "organizer.yaml").write_text(ORGANIZER_YAML)
    (tmp_path / "my_overview.md").write_text("# Ours\n")
    out = tmp_path / "bundles"
    assert bundle.main(["voc2011-classification", "--reference-data", str(ref), "--config",
                        str(tmp_path / "organizer.yaml"), "--out", str(out)]) == 0
    for path in bundles(out, "voc2011-classification"):
        p = checker_run(["check-bundle", path], tmp_path)
        assert p.returncode == 0 and "ERROR" not in p.stdout, p.stdout + p.stderr


# ------------------------------------------------------------------ a VOC2011 download: several sets, JPEGImages
def voc2011_style(root, slug):
    """The slug's sample laid out as the VOC2011 download: each list of the 'test' set split into val (first half
    of its lines), train (second half) and trainval (all), the test lists removed, JPEGImages/<id>.jpg for every
    image. Returns {set: [image ids]} of the sets' first lists."""
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(root))
    ids = {}
    for dirpath, _, files in os.walk(str(root / "ImageSets")):
        for f in sorted(files):
            if not f.endswith("test.txt"):
                continue
            path = os.path.join(dirpath, f)
            with open(path) as fh:
                rows = [r for r in fh.read().splitlines() if r.strip()]
            half = len(rows) // 2
            for set_name, part in (("val", rows[:half]), ("train", rows[half:]), ("trainval", rows)):
                with open(path[:-len("test.txt")] + set_name + ".txt", "w") as fh:
                    fh.write("".join(r + "\n" for r in part))
                ids.setdefault(set_name, [r.split()[0] for r in part])
            os.unlink(path)
    jpeg = root / "JPEGImages"
    jpeg.mkdir()
    for i in sorted(set(ids["trainval"])):
        (jpeg / (i + ".jpg")).write_bytes(b"\xff\xd8\xff\xe0 an image")
    return ids


def expected_reference_files(slug, val_ids):
    if slug == "voc2011-classification":
        return ["REPORT_LEVEL"] + ["ImageSets/Main/%s_val.txt" % c for c in VOC_CLASSES]
    if slug == "voc2011-action":
        from scoring_program.tasks.voc2011_action import ACTIONS
        return ["REPORT_LEVEL"] + ["ImageSets/Action/%s_val.txt" % a for a in ACTIONS]
    folder, per_image = {"voc2011-detection": ("Main", "Annotations/%s.xml"),
                         "voc2011-segmentation": ("Segmentation", "SegmentationClass/%s.png"),
                         "voc2011-layout": ("Layout", "Annotations/%s.xml")}[slug]
    return ["REPORT_LEVEL", "ImageSets/%s/val.txt" % folder] + [per_image % i for i in set(val_ids)]


@pytest.mark.parametrize("slug", VOC_SLUGS)
def test_voc2011_folder_with_three_sets_builds_only_with_set_and_bundles_only_that_set(tmp_path, slug):
    ref = tmp_path / "VOC2011"
    ids = voc2011_style(ref, slug)
    out = tmp_path / "bundles"
    p = cli("bundle", slug, "--reference-data", ref, "--out", out)
    assert p.returncode == 2
    assert lines(p.stderr) == ["error: %s holds 3 image sets for %s: train, trainval, val; choose one with --set NAME"
                               % (ref, slug)]
    assert not out.exists()

    (tmp_path / "full.yaml").write_text("report: full\n")     # half the sample: a class may have no positive
    p = cli("bundle", slug, "--reference-data", ref, "--out", out, "--set", "val", "--config", tmp_path / "full.yaml")
    assert p.returncode == 0, p.stderr
    cb, cl = bundles(out, slug)
    for path in (cb, cl):
        names = names_in(zip_member(path, "reference_data.zip"))
        assert names == sorted(expected_reference_files(slug, ids["val"]))
        assert not any(n.startswith("JPEGImages/") or n.endswith(("train.txt", "trainval.txt")) for n in names)
    # the scorer reads the bundled reference alone (one set left) with the yaml's columns
    work = tmp_path / "ref"
    zipfile.ZipFile(io.BytesIO(zip_member(cb, "reference_data.zip"))).extractall(str(work))
    y2 = yaml.safe_load(zip_member(cb, "competition.yaml"))
    task = registry.get(slug)
    assert [k.key for k in task.score_keys(str(work))] == [c["key"] for c in y2["leaderboards"][0]["columns"]]
    assert task.load_reference(str(work)).set_name == "val"


def test_set_names_the_sets_when_it_is_not_one_of_them(tmp_path):
    ref = tmp_path / "VOC2011"
    voc2011_style(ref, "voc2011-detection")
    p = cli("bundle", "voc2011-detection", "--reference-data", ref, "--out", tmp_path / "o", "--set", "test")
    assert p.returncode == 2 and not (tmp_path / "o").exists()
    assert lines(p.stderr) == ["error: reference data error: %s: no image set 'test'; found complete sets train, "
                               "trainval, val" % (ref / "ImageSets" / "Main")]


def test_set_is_refused_for_a_competition_without_image_sets(tmp_path):
    ref = sample("chalearn-lap2014-action", tmp_path / "gt")
    p = cli("bundle", "chalearn-lap2014-action", "--reference-data", ref, "--out", tmp_path / "o", "--set", "val")
    assert p.returncode == 2 and not (tmp_path / "o").exists()
    assert lines(p.stderr) == ["error: --set: chalearn-lap2014-action has no image sets (--set is for the VOC "
                               "competitions)"]


# ------------------------------------------------------------------ foreign or broken data: one line, nothing written
def test_voc_data_given_to_chalearn_action_is_one_line_and_nothing_is_written(tmp_path):
    ref = tmp_path / "VOC2011"
    voc2011_style(ref, "voc2011-detection")
    out = tmp_path / "bundles"
    p = cli("bundle", "chalearn-lap2014-action", "--reference-data", ref, "--out", out)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert lines(p.stderr) == ["error: reference data error: %s: expected files SeqXX_labels.csv and "
                               "SeqXX_data.csv; found none" % ref]
    assert p.stdout == "" and not out.exists()


@pytest.mark.parametrize("slug", competition_slugs())
def test_every_other_competitions_sample_is_a_one_line_error(slug):
    for other in competition_slugs():
        if other == slug:
            continue
        with pytest.raises(BundleError) as e:
            read_reference(slug, os.path.join(ROOT, "reference_data", other))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith("reference data error: %s" % os.path.join(ROOT, "reference_data",
                                                                                          other)), (other, msg)


def test_a_deleted_annotation_is_named_and_nothing_is_written(tmp_path):
    ref = sample("voc2011-detection", tmp_path / "VOC2011")
    (ref / "Annotations" / "2011_000007.xml").unlink()
    out = tmp_path / "bundles"
    p = cli("bundle", "voc2011-detection", "--reference-data", ref, "--out", out)
    assert p.returncode == 2 and not out.exists()
    assert lines(p.stderr) == ["error: reference data error: %s: cannot read the file (No such file or directory)"
                               % (ref / "Annotations" / "2011_000007.xml")]


def test_a_truncated_annotation_is_named_with_its_line_and_nothing_is_written(tmp_path):
    ref = sample("voc2011-detection", tmp_path / "VOC2011")
    xml = ref / "Annotations" / "2011_000003.xml"
    data = xml.read_bytes()
    xml.write_bytes(data[:len(data) // 2])
    out = tmp_path / "bundles"
    p = cli("bundle", "voc2011-detection", "--reference-data", ref, "--out", out)
    assert p.returncode == 2 and not out.exists() and "Traceback" not in p.stderr
    [msg] = lines(p.stderr)
    assert msg.startswith("error: reference data error: %s, line " % xml) and "not well-formed XML" in msg


def test_a_deleted_and_a_truncated_annotation_name_the_first_in_list_order(tmp_path):
    ref = sample("voc2011-detection", tmp_path / "VOC2011")
    (ref / "Annotations" / "2011_000009.xml").unlink()
    xml = ref / "Annotations" / "2011_000004.xml"
    xml.write_bytes(xml.read_bytes()[:40])
    out = tmp_path / "bundles"
    p = cli("bundle", "voc2011-detection", "--reference-data", ref, "--out", out)
    assert p.returncode == 2 and not out.exists()
    [msg] = lines(p.stderr)
    assert msg.startswith("error: reference data error: %s" % xml)


# ------------------------------------------------------------------ columns the reference can never fill
def test_action_tubes_auc_columns_are_dropped_when_a_video_has_two_ground_truth_tubes(tmp_path):
    slug = "action-tubes"
    ref = sample(slug, tmp_path / "gt")
    gt = ref / "gt_tubes.csv"
    rows = gt.read_text().splitlines()
    first = [r for r in rows[1:] if r.startswith("brush_hair/v_brush_hair_g01_c01,1,")][:5]
    gt.write_text("\n".join(rows + [r.replace(",1,brush_hair,", ",2,brush_hair,") for r in first]) + "\n")
    out = tmp_path / "bundles"
    p = cli("bundle", slug, "--reference-data", ref, "--out", out)
    assert p.returncode == 0, p.stderr
    auc = ["AUC_%d" % k for k in (10, 20, 30, 40, 50, 60)]
    assert lines(p.stdout)[:6] == ["note: leaderboard column %s dropped (no submission can fill it): AUC is defined "
                                   "only when every test video has exactly one ground-truth tube (J-HMDB, UCF "
                                   "Sports); 1 of the 9 videos have none or several" % k for k in auc]
    cb, cl = bundles(out, slug)
    keys = [c["key"] for c in yaml.safe_load(zip_member(cb, "competition.yaml"))["leaderboards"][0]["columns"]]
    assert keys == ["frame_mAP", "video_mAP_20", "video_mAP_50", "video_mAP_75", "video_mAP_50_95"]
    p = cli("dryrun", slug, os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), "--dist", out,
            "--flavor", "codalab")
    assert p.returncode == 0, p.stderr
    scores = read_scores(out / slug / "dryrun-codalab")
    assert list(scores) == keys
    assert scores["frame_mAP"] < 1.0          # the second tube's 5 boxes are not predicted


def test_pose_limb_empty_in_every_panorama_is_dropped(tmp_path):
    import numpy as np
    from PIL import Image
    slug = "chalearn-lap2014-pose"
    ref = sample(slug, tmp_path / "gt")
    for name in sorted(os.listdir(str(ref))):
        a = np.array(Image.open(str(ref / name)).convert("L"))
        a[:, 0:480] = 0                                   # the head, in every ground-truth panorama
        Image.fromarray(a).save(str(ref / name))
    out = tmp_path / "bundles"
    p = cli("bundle", slug, "--reference-data", ref, "--out", out)      # hidden: a column from the labels, refused
    assert p.returncode == 2 and not out.exists()
    assert lines(p.stderr) == ["error: phase(s) Final evaluation (hidden): class head has no positive in its reference data: a "
                               "leaderboard column made from hidden labels would tell it; add positives of it (more "
                               "data), or drop it in organizer.yaml (drop_classes: [head]: its column left off the "
                               "leaderboard)"]
    (tmp_path / "organizer.yaml").write_text("drop_classes: [head]\n")
    p = cli("bundle", slug, "--reference-data", ref, "--out", out, "--config", tmp_path / "organizer.yaml")
    assert p.returncode == 0, p.stderr
    assert lines(p.stderr) == ["warning: Head: empty in all 12 ground-truth panoramas"]
    assert lines(p.stdout)[0] == ("note: leaderboard column hit_rate_head dropped (no submission can fill it): "
                                  "Head: empty in all 12 ground-truth panoramas")
    p = cli("dryrun", slug, os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), "--dist", out)
    assert p.returncode == 0, p.stderr
    scores = read_scores(out / slug / "dryrun-codabench")
    assert "hit_rate_head" not in scores and len(scores) == 14 and scores["mean_hit_rate"] == 1.0
