"""Issue 11's "done when", for every competition: a bundle built from a modified copy of the sample reference with
an organizer.yaml, dry-run as the workers would, then the kit unzipped and every command of its README run from the
kit's root (the organizer's kit: its placeholders pointed at the organizer's data)."""
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from conftest import ROOT, competition_slugs, run_score
from test_kit import readme_commands, run_commands

SLUGS = competition_slugs()
PLACEHOLDERS = ("VOC2011", "TEST_DIR", "DATA_DIR", "FRAMES_DIR", "LABELS_DIR", "VIDEO_LIST_DIR", "TEST_IMAGES")


def public_stand_ins(slug, ref, kit, commands):
    """What a participant holds for the real test set, made from the organizer's data (ids, frame lists and sizes,
    class names: no label), for the kit README's baseline commands; returns the commands with the class
    placeholders filled in."""
    if slug == "action-tubes":
        with open(str(ref / "videos.csv")) as f:
            rows = [line.rstrip("\n").split(",") for line in f][1:]
        (kit / "test_list.csv").write_text("video,num_frames\n" + "".join("%s,%s\n" % (r[0], r[2]) for r in rows))
        classes = ",".join(sorted(set(r[1] for r in rows)))
        return [(c.replace("CLASSES", classes), w) for c, w in commands]
    if slug == "kinetics-tps":
        from PIL import Image
        with open(str(ref / "gt_part_result.json")) as f:
            part = json.load(f)
        for video, frames in part.items():
            for frame in frames:        # the ground truth names a frame img_00001.json, the video img_00001.jpg
                path = kit / "TEST_FRAMES" / video / (os.path.splitext(frame)[0] + ".jpg")
                path.parent.mkdir(parents=True, exist_ok=True)
                Image.new("RGB", (340, 256)).save(str(path), format="JPEG")
        with open(str(ref / "gt_vid_result.json")) as f:
            first_class = sorted(set(json.load(f).values()))[0]
        return [(c.replace("CLASS", first_class), w) for c, w in commands]
    return commands
ORGANIZER_YAML = """\
title: Our own test set
description: Our data, our dates.
phases:
  - name: Development
    start: 2025-01-06
    end: 2025-02-28
    max_submissions_per_day: 5
  - name: Final
    start: 2025-03-01
    end: 2025-03-15
    max_submissions: 3
"""


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable] + [str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def _zip_folder(folder, path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for dirpath, _, files in os.walk(folder):
            for f in sorted(files):
                full = os.path.join(dirpath, f)
                z.write(full, os.path.relpath(full, folder))
    return path


@pytest.mark.parametrize("slug", SLUGS)
def test_organizer_bundle_dry_run_and_kit_readme(slug, tmp_path):
    ref = tmp_path / "ground_truth"
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(ref))
    (ref / "organizer_notes.md").write_text("our notes: not ground truth, never read by the scorer\n")
    config = tmp_path / "organizer.yaml"
    config.write_text(ORGANIZER_YAML)
    out = tmp_path / "bundles"
    p = _cli("-m", "scoring_program.bundle", slug, "--reference-data", ref, "--config", config, "--out", out)
    assert p.returncode == 0, p.stderr

    codabench = out / slug / ("%s-codabench.zip" % slug)
    codalab = out / slug / ("%s-codalab.zip" % slug)
    with zipfile.ZipFile(str(codabench)) as z:
        v2 = yaml.safe_load(z.read("competition.yaml"))
        reference_names = zipfile.ZipFile(io.BytesIO(z.read("reference_data.zip"))).namelist()
        kit_bytes = z.read("starting_kit.zip")
    v1 = yaml.safe_load(zipfile.ZipFile(str(codalab)).read("competition.yaml"))
    assert v2["title"] == v1["title"] == "Our own test set"
    assert [(ph["name"], str(ph["start"])[:10], str(ph.get("end"))[:10]) for ph in v2["phases"]] == [
        ("Development", "2025-01-06", "2025-02-28"), ("Final", "2025-03-01", "2025-03-15")]
    assert [v1["phases"][n]["label"] for n in sorted(v1["phases"])] == ["Development", "Final"]
    assert v2["docker_image"] == v1["competition_docker_image"] == "codalab/codalab-legacy:py37"
    assert reference_names and "organizer_notes.md" not in reference_names

    # the dry run scores the sample's perfect submission against the organizer's (same) data: score.py's numbers
    sub = _zip_folder(os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), str(tmp_path / "sub.zip"))
    kept = tmp_path / "dryrun"
    p = _cli("-m", "scoring_program.dryrun", slug, sub, "--dist", out, "--keep", kept)
    assert p.returncode == 0, p.stdout + p.stderr
    direct, direct_out = run_score(slug, os.path.join(ROOT, "reference_data", slug),
                                   os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), tmp_path)
    assert direct.returncode == 0
    with open(str(kept / "scores.json")) as f, open(str(direct_out / "scores.json")) as g:
        assert json.load(f) == json.load(g)

    # the organizer's kit: no sample material, and every README command runs from its root
    kit = tmp_path / "kit"
    with zipfile.ZipFile(io.BytesIO(kit_bytes)) as z:
        names = z.namelist()
        z.extractall(str(kit))
    assert not [n for n in names if n.startswith(("submissions/", "malformed/", "sample_input/"))]
    with open(str(kit / "README.md"), encoding="utf-8") as f:
        commands = readme_commands(f.read())
    assert commands and all(c.startswith("python3 ") for c, _ in commands)
    for name in PLACEHOLDERS:
        os.symlink(str(ref), str(kit / name))
    run_commands(public_stand_ins(slug, ref, kit, commands), kit, tmp_path)
    assert os.path.isfile(str(kit / "my_submission.zip"))
