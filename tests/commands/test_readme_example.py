"""Issue 29: the README's two-phase organizer example runs as written. Its organizer.yaml (the block of "Write your
settings"), a Development phase on `validation` beside it, the Final phase on --reference-data (a synthetic VOC2011
detection test set of 600 images, large enough that a 0.3 private fraction leaves every class positives in the
public part) with `private: {fraction: 0.3}` drawn by the build; then each phase dry-run twice through both
flavors, and the reveal: rescore on a Codabench-named bulk download with --bundle, --phase Final and --private."""
import csv
import io
import os
import re
import shutil
import zipfile

import pytest

from conftest import ROOT, command_in_process, read_scores, run_score

SLUG = "voc2011-detection"


def readme_organizer_yaml():
    """The organizer.yaml block of the README's checklist, unindented."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    block = re.search(r"\n(       title: My challenge\n(?:       .*\n|\n)+?)\n   \*\*", text).group(1)
    return "".join(line[7:] + "\n" for line in block.rstrip("\n").split("\n"))


def _submission_zip(folder, path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in sorted(os.listdir(folder)):
            z.write(os.path.join(folder, name), name)
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def test_the_readme_two_phase_example_builds_dry_runs_twice_and_reveals(tmp_path):
    from bench.synth.voc2011_detection import make_bench
    cfg_text = readme_organizer_yaml()
    assert "private: {fraction: 0.3}" in cfg_text and "reference_data: validation" in cfg_text
    work = tmp_path / "organizer"
    work.mkdir()
    (work / "organizer.yaml").write_text(cfg_text)
    (work / "my_overview.md").write_text("# My challenge\n")
    shutil.copytree(os.path.join(ROOT, "validation_data", SLUG), str(work / "validation"))
    data = make_bench(str(tmp_path / "data"), n_images=600, per_class=300)
    gt, entry = os.path.join(data["input"], "ref"), os.path.join(data["input"], "res")

    out = tmp_path / "my_bundles"
    p = command_in_process("bundle", [SLUG, "--reference-data", gt, "--config", work / "organizer.yaml", "--out", out,
                                      "--set", "test"])
    assert p.returncode == 0, p.stderr
    private = out / SLUG / "private_part" / "Final"
    assert ("private part of phase 'Final': " in p.stdout and str(private) in p.stdout
            and "drawn from a new 128-bit secret" in p.stdout)
    assert p.stdout.count("exposure: ") == 3
    assert len((private / "secret.txt").read_text().split()[0]) == 32

    dev_entry = os.path.join(ROOT, "starting_kit", SLUG, "validation_submissions", "random")
    for phase, sub in (("Development", dev_entry), ("Final", entry)):
        for flavor in ("codabench", "codalab"):
            seen = []
            for attempt in (1, 2):
                keep = tmp_path / ("dry-%s-%s-%d" % (phase, flavor, attempt))
                p = command_in_process("dryrun", [SLUG, sub, "--dist", out, "--phase", phase, "--flavor", flavor,
                                                  "--keep", keep])
                assert p.returncode == 0, p.stderr
                seen.append(read_scores(keep))
            assert seen[0] == seen[1] and len(seen[0]) == 21
    # the Final phase's leaderboard score is the public part's: the organizer's whole reference says the same
    proc, whole = run_score(SLUG, str(private / "reference"), entry, tmp_path, name="whole", level=None)
    assert proc.returncode == 0, proc.stderr
    assert read_scores(whole)["mAP"] == pytest.approx(seen[0]["mAP"], abs=1e-12)     # (the 0/1 decomposition)
    # EvalAI, as its worker calls evaluate() (track: comp3 gives one EvalAI phase per track, final-comp3 the comp3
    # one): the Final phase's public split, then with the whole annotation the host uploads, its host-only split too
    # (the private part's mAP)
    annotation = out / SLUG / "evalai_annotations" / "final-comp3.zip"
    for ann in (None, annotation):
        p = command_in_process("dryrun", [SLUG, entry, "--dist", out, "--phase", "final-comp3", "--flavor", "evalai"]
                               + (["--annotation", ann] if ann else []))
        assert p.returncode == 0, p.stderr
        rows = [l for l in p.stdout.splitlines() if l.startswith("leaderboard row, split ")]
        assert len(rows) == (2 if ann else 1)
        assert rows[0].startswith("leaderboard row, split final-comp3-public: mAP %.4f, " % seen[0]["mAP"])
        if ann:
            assert rows[1] == ("leaderboard row, split final-comp3-private: mAP %.4f"
                               % read_scores(whole / "private")["mAP"])

    # the reveal: a bulk download as Codabench names its files, two entries of one owner (the latest is ranked)
    bulk = tmp_path / "download"
    bulk.mkdir()
    _submission_zip(entry, str(bulk / "7_alice_PhaseId2_2024-05-03_07-09_sub.zip"))
    _submission_zip(os.path.join(ROOT, "starting_kit", SLUG, "submissions", "random"),   # the sample's ids
                    str(bulk / "9_bob_PhaseId2_2024-05-04_01-02_sub.zip"))
    _submission_zip(entry, str(bulk / "5_bob_PhaseId2_2024-05-02_01-02_sub.zip"))
    final = tmp_path / "final_table"
    p = command_in_process("rescore", [SLUG, bulk, "--bundle", out / SLUG / ("%s-codabench.zip" % SLUG), "--phase",
                                       "Final", "--private", private, "--out", final, "--bootstrap", "50"])
    assert p.returncode == 0, p.stderr
    rows = list(csv.reader(open(str(final / "final" / "private.csv"))))
    assert rows[0][0].startswith("rank (private part: ")
    # bob's latest (9, the kit's sample submission) names images of another set and fails: his earlier one ranks,
    # as the platform's leaderboard keeps the latest that scored
    assert sorted((r[2], r[3]) for r in rows[1:]) == [("alice", "7"), ("bob", "5")]
    alice = [r for r in rows[1:] if r[2] == "alice"][0]
    assert float(alice[5]) == pytest.approx(read_scores(whole / "private")["mAP"], abs=1e-12)
