"""Each starting kit's baseline builds a valid submission from the test list alone and gives a first real score.

From the unzipped sample kit, the baseline runs as its README says: the submission scores above 0 on the ranking
key, exactly the number the README states (to 4 decimals), and it is the same file for file when the sample's labels
are removed or blanked first (the baseline reads the test list, never a label). The forms of the real test lists
that the sample cannot show (frame and image folders, per-video frame sizes) have a test each."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from PIL import Image

from bench.synth import get as generator
from conftest import ROOT, competition_slugs
from scoring_program import bundle
from test_kit import readme_commands, run_commands

SLUGS = competition_slugs()
STATED = re.compile(r"the baseline scores `(\w+)` = (\d+\.\d{4})")


def _unzipped_kit(slug, dest):
    with zipfile.ZipFile(io.BytesIO(bundle.prepare(slug).codabench)) as z:
        kit = z.read("starting_kit.zip")
    with zipfile.ZipFile(io.BytesIO(kit)) as z:
        z.extractall(str(dest))
    with open(str(dest / "README.md"), encoding="utf-8") as f:
        return f.read()


def _outputs(kit):
    """{relative path: bytes} of the submission (sample_input/res) and of the files beside the README (the ids)."""
    paths = [p for p in kit.iterdir() if p.is_file()] + [p for p in (kit / "sample_input" / "res").rglob("*")
                                                          if p.is_file()]
    return {str(p.relative_to(kit)): p.read_bytes() for p in paths}


def test_every_competition_has_a_label_stripper():
    """bench/synth/<module>.strip_labels(ref_dir): what removes or blanks every label of the sample's ground truth
    (what a participant does not have), leaving what the test data gives: ids, frame counts and sizes, the persons'
    boxes of the VOC tasters."""
    assert [s for s in SLUGS if not hasattr(generator(s), "strip_labels")] == []


@pytest.mark.parametrize("slug", SLUGS)
def test_baseline_scores_above_zero_as_stated_and_reads_no_label(slug, tmp_path):
    kit, blind = tmp_path / "kit", tmp_path / "blind"
    readme = _unzipped_kit(slug, kit)
    shutil.copytree(str(kit), str(blind))
    generator(slug).strip_labels(str(blind / "sample_input" / "ref"))
    commands = readme_commands(readme)
    baseline = [c for c in commands if c[0].startswith("python3 baseline.py ")]
    scoring = [c for c in commands if c[0].startswith("python3 score.py ")]
    assert baseline and scoring, "the README runs no baseline or no score.py"
    (tmp_path / "run1").mkdir()
    (tmp_path / "run2").mkdir()
    run_commands(baseline + scoring[:1], kit, tmp_path / "run1")
    with open(str(kit / "sample_output" / "scores.txt")) as f:
        key, value = [x.strip() for x in f.readline().split(":")]
    stated = STATED.findall(readme)
    assert len(stated) == 1, "the README states the baseline's score once, as 'the baseline scores `key` = 0.1234'"
    assert float(value) > 0
    assert (key, "%.4f" % float(value)) == stated[0]
    run_commands(baseline, blind, tmp_path / "run2")
    assert any(k.startswith("sample_input") for k in _outputs(kit))
    assert _outputs(blind) == _outputs(kit), "the baseline's output depends on the sample's labels"


def _baseline(slug, *args):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "starting_kit", slug, "baseline.py")]
                          + [str(a) for a in args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def _validate(slug, submission, ids):
    proc = subprocess.run([sys.executable, "-m", "scoring_program.validate", slug, str(submission), "--ids",
                           str(ids)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning" not in proc.stdout + proc.stderr


def test_kinetics_baseline_reads_frame_folders(tmp_path):
    """Test videos as frame folders: every 5th frame is predicted, the size read from a PNG or a JPEG frame."""
    frames = tmp_path / "frames"
    for video, size, ext in (("vid_png", (320, 240), "png"), ("vid_jpg", (340, 256), "jpg")):
        (frames / video).mkdir(parents=True)
        for n in range(1, 13):
            Image.new("RGB", size).save(str(frames / video / ("img_%05d.%s" % (n, ext))))
    (frames / "notes.txt").write_text("not a video")
    _baseline("kinetics-tps", frames, tmp_path / "out", "--class", "clapping", "--ids-out", tmp_path / "ids.txt")
    assert (tmp_path / "ids.txt").read_text() == "vid_jpg\nvid_png\n"
    with open(str(tmp_path / "out" / "pred_part_result.json")) as f:
        part = json.load(f)
    assert sorted(part["vid_png"]) == ["img_00001.json", "img_00006.json", "img_00011.json"]
    for video, (width, height) in (("vid_png", (320, 240)), ("vid_jpg", (340, 256))):
        boxes = np.array([h["box"] for h in part[video]["img_00001.json"]["humans"]])
        assert boxes[:, 0].min() >= 0 and boxes[:, 2].max() <= width and boxes[:, 3].max() <= height
        assert boxes[:, 2].max() > 0.8 * width
    _validate("kinetics-tps", tmp_path / "out", tmp_path / "ids.txt")


def test_cultural_event_baseline_reads_an_image_folder_or_a_list(tmp_path):
    images = tmp_path / "test"
    images.mkdir()
    for name in ("000002.jpg", "000001.jpg", "readme.txt"):
        (images / name).write_bytes(b"")
    _baseline("chalearn-lap2015-cultural-event", images, tmp_path / "a", "--ids-out", tmp_path / "ids.txt")
    assert (tmp_path / "ids.txt").read_text() == "000001.jpg\n000002.jpg\n"
    _baseline("chalearn-lap2015-cultural-event", tmp_path / "ids.txt", tmp_path / "b")
    assert len(os.listdir(str(tmp_path / "a"))) == 50
    for name in os.listdir(str(tmp_path / "a")):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    _validate("chalearn-lap2015-cultural-event", tmp_path / "a", tmp_path / "ids.txt")


def test_action_tubes_baseline_takes_a_frame_size_per_video(tmp_path):
    (tmp_path / "list.csv").write_text("num_frames,video,height,width\n3,a/v1,480,720\n2,b/v2,,\n")
    _baseline("action-tubes", tmp_path / "list.csv", tmp_path / "out", "--classes", "a,b", "--windows", "1",
              "--ids-out", tmp_path / "ids.txt")
    with open(str(tmp_path / "out" / "tubes.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * 3 + 2 * 2
    centre = {r["video"]: [int(r[k]) for k in ("x1", "y1", "x2", "y2")] for r in rows}
    assert centre == {"a/v1": [288, 180, 431, 299], "b/v2": [128, 90, 191, 149]}     # a fifth x a quarter, centred
    _validate("action-tubes", tmp_path / "out", tmp_path / "ids.txt")


def test_pose_baseline_reads_frame_names_in_subfolders(tmp_path):
    for seq in ("01", "02"):
        (tmp_path / "frames" / seq).mkdir(parents=True)
        for frame in ("0001", "0002"):
            (tmp_path / "frames" / seq / ("%s_%s.jpg" % (seq, frame))).write_bytes(b"")
    _baseline("chalearn-lap2014-pose", tmp_path / "frames", tmp_path / "out", "--ids-out", tmp_path / "ids.txt")
    stems = (tmp_path / "ids.txt").read_text().split()
    assert stems == ["%s_%s_%d" % (s, f, a) for s in ("01", "02") for f in ("0001", "0002") for a in (1, 2)]
    with Image.open(str(tmp_path / "out" / "01_0001_1_prediction.png")) as im:
        assert im.size == (6720, 360)
    _validate("chalearn-lap2014-pose", tmp_path / "out", tmp_path / "ids.txt")
