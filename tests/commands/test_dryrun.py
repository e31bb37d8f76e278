"""The worker emulation: both flavors on the sample, a zipped submission with a wrapping folder, unsafe zips."""
import io
import os
import subprocess
import sys
import zipfile

import pytest

from conftest import CHECKER, ROOT, checker_run, command_in_process, competition_slugs, read_scores, run_score

from scoring_program import bundle, dryrun, participant
from scoring_program.safezip import UnsafeZip, safe_extract

SLUG = "voc2011-classification"
KIT = os.path.join(ROOT, "starting_kit", SLUG)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("dist"))
    for slug in competition_slugs():
        bundle.build(slug, out)
    return out


def zip_folder(folder, dest, wrap=None):
    with zipfile.ZipFile(dest, "w") as z:
        for dp, dn, fn in os.walk(folder):
            for f in fn:
                p = os.path.join(dp, f)
                rel = os.path.relpath(p, folder)
                z.write(p, os.path.join(wrap, rel) if wrap else rel)
    return dest


@pytest.mark.parametrize("flavor", ["codabench", "codalab"])
@pytest.mark.parametrize("slug", competition_slugs())
def test_dry_run_perfect_sample(dist, tmp_path, flavor, slug):
    sub = os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect")
    code, scores, out, err = dryrun.run(slug, sub, flavor, dist=dist, keep=str(tmp_path / "out"))
    assert code == 0, err
    assert scores and os.path.isfile(os.path.join(out, "detailed_results.html"))
    assert dict(scores) == read_scores(out)


def test_dry_run_zip_with_wrapping_folder(dist, tmp_path):
    z = zip_folder(os.path.join(KIT, "submissions", "random"), str(tmp_path / "sub.zip"), wrap="my_results")
    code, scores, out, err = dryrun.run(SLUG, z, "codabench", dist=dist)
    assert code == 0, err
    assert dict(scores)["mAP"] == pytest.approx(0.7542828588460078, abs=1e-12)


def test_dry_run_malformed_fails_like_the_worker(dist, tmp_path):
    code, scores, out, err = dryrun.run(SLUG, os.path.join(KIT, "malformed", "unknown_id"), "codalab", dist=dist)
    assert code == 1 and scores == [] and err.startswith("submission error:")


def test_cli_prints_the_row(dist):
    p = subprocess.run([sys.executable, "-m", "scoring_program.dryrun", SLUG, os.path.join(KIT, "submissions",
                        "perfect"), "--dist", dist, "--flavor", "codalab"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "mAP 1.0000" in p.stdout and "detailed report:" in p.stdout


@pytest.mark.parametrize("entry", ["../evil.txt", "/abs.txt", "a/../../b.txt"])
def test_unsafe_zip_entries_are_refused(tmp_path, entry):
    z = str(tmp_path / "bad.zip")
    with zipfile.ZipFile(z, "w") as f:
        f.writestr(entry, "x")
    with pytest.raises(UnsafeZip):
        safe_extract(z, str(tmp_path / "x"))


def test_symlink_and_size_limit_are_refused(tmp_path):
    z = str(tmp_path / "link.zip")
    with zipfile.ZipFile(z, "w") as f:
        info = zipfile.ZipInfo("link")
        info.external_attr = (0o120777 << 16)
        f.writestr(info, "/etc/passwd")
    with pytest.raises(UnsafeZip):
        safe_extract(z, str(tmp_path / "x"))
    z2 = str(tmp_path / "big.zip")
    with zipfile.ZipFile(z2, "w", zipfile.ZIP_DEFLATED) as f:
        f.writestr("zeros.txt", b"0" * 100000)
    with pytest.raises(UnsafeZip):
        safe_extract(z2, str(tmp_path / "y"), max_bytes=1000)


@pytest.mark.skipif(not os.path.isfile(CHECKER), reason="../shared/tools/codalab_check.py not present")
@pytest.mark.parametrize("flavor", ["codabench", "codalab"])
def test_outside_worker_emulation_scores_the_sample(dist, tmp_path, flavor):
    b = os.path.join(dist, SLUG, "%s-%s.zip" % (SLUG, flavor))
    _number, final_ref, _name = dryrun.phase_reference(b, flavor)       # the last phase's: Final, the test part
    assert (_number, final_ref, _name) == (2, "reference_data_1.zip", "Final")
    with zipfile.ZipFile(b) as z:
        z.extract("scoring_program.zip", str(tmp_path))
        z.extract(final_ref, str(tmp_path))
    sub = zip_folder(os.path.join(KIT, "submissions", "random"), str(tmp_path / "sub.zip"))
    p = checker_run(["run-scoring", tmp_path / "scoring_program.zip", tmp_path / final_ref, sub,
                     tmp_path / "out", "--flavor", flavor, "--bundle", b, "--strict"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert '"mAP": 0.754282858846' in p.stdout.strip().splitlines()[-1]


# ------------------------------------------------------------------ the sample bundles: a phase per part of the sample
@pytest.mark.parametrize("slug", competition_slugs())
def test_the_sample_bundle_scores_each_phase_against_its_own_part_of_the_sample(dist, tmp_path, slug):
    """Development scores the sample's validation part (validation_data/, report full), Final its test part
    (reference_data/, hidden), in both yamls; each phase's dry run gives score.py's scores on that part."""
    for flavor in ("codabench", "codalab"):
        assert dryrun.bundle_phases(slug, dist, flavor) == ["Development", "Final"]
    b = os.path.join(dist, slug, "%s-codabench.zip" % slug)
    with zipfile.ZipFile(b) as z:
        for member, part, level in (("reference_data_0.zip", participant.validation_dir(slug), b"full\n"),
                                    ("reference_data_1.zip", participant.sample_dir(slug), b"hidden\n")):
            ref = zipfile.ZipFile(io.BytesIO(z.read(member)))
            assert ref.read("REPORT_LEVEL") == level
            members = [n for n in ref.namelist() if n != "REPORT_LEVEL" and not n.endswith("/")]
            assert members       # the files the loader read (VOC classification: not the plain image list)
            for n in members:
                with open(os.path.join(part, n), "rb") as f:
                    assert ref.read(n) == f.read(), n
    scores = {}
    for phase, part, folder, level in (("Development", participant.validation_dir(slug), "validation_submissions",
                                        "full"), ("Final", participant.sample_dir(slug), "submissions", None)):
        for name in ("perfect", "random"):
            sub = os.path.join(ROOT, "starting_kit", slug, folder, name)
            code, got, out, err = dryrun.run(slug, sub, "codabench", dist=dist, phase=phase,
                                             keep=str(tmp_path / ("%s-%s" % (phase, name))))
            assert code == 0, err
            proc, direct = run_score(slug, part, sub, tmp_path, name="direct-%s-%s" % (phase, name), level=level)
            assert proc.returncode == 0, proc.stderr
            assert dict(got) == read_scores(direct)
            page = open(os.path.join(out, "detailed_results.html"), encoding="utf-8").read()
            assert ("Report level: full." in page) == (phase == "Development")
            scores[phase, name] = dict(got)
    key = list(scores["Final", "random"])[0]            # the ranking score
    assert 0 < scores["Development", "random"][key] < scores["Development", "perfect"][key]
    assert scores["Development", "random"] != scores["Final", "random"]


def test_demo_runs_each_phase_through_the_three_workers_and_ends_with_a_verdict(dist, monkeypatch, capsys):
    """The notes first (what the rows are, each warning of the scored runs once, where the reports are), then the
    verdict: its table, a row per phase, and the verdict line, last (issue 31: the verdict no longer drowns)."""
    monkeypatch.setattr(bundle, "bundle_slugs", lambda: ["voc2011-classification", "voc2011-layout"])
    assert dryrun.demo(dist) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("dry runs of each phase's sample submission (starting_kit/<slug>/validation_"
                               "submissions/random for Development, submissions/random for Final) through the "
                               "codabench, codalab, evalai workers' emulations")
    assert lines[-1] == "demo: OK: 12 of 12 dry runs scored (2 competitions, each phase through the 3 workers)"
    rows = [line.split(" | ")[:2] for line in lines[-5:-1]]
    assert [(a.strip(), b.strip()) for a, b in rows] == [
        ("voc2011-classification", "Development"), ("voc2011-classification", "Final"),
        ("voc2011-layout", "Development"), ("voc2011-layout", "Final")]
    assert lines[-6] == "verdict, one row per phase:"
    example = lines[-7].split(", e.g. ")[1]
    assert example == os.path.join(dist, "voc2011-classification", "dryrun-codabench-development",
                                   "detailed_results.html") and os.path.isfile(example)
    # the layout sample's four warnings, each once with the runs that gave it (the three workers of one phase)
    notes = lines[1:-7]
    assert len(notes) == 4 and all(n.startswith("warning: comp7_layout_") for n in notes)
    assert notes[0].startswith("warning: comp7_layout_val.xml: 1 layout(s) for a person (image, object) that is not "
                               "in the val list were skipped")
    assert all(n.endswith(" (voc2011-layout Development: codabench, codalab, evalai)") for n in notes[:2])
    assert all(n.endswith(" (voc2011-layout Final: codabench, codalab, evalai)") for n in notes[2:])


def test_demo_notes_fold_one_warning_of_many_runs_into_one_line():
    warned = dryrun.OrderedDict([("warning: w1", [("a", "Final", "codabench"), ("a", "Final", "codalab"),
                                                  ("b", "Development", "evalai")]),
                                 ("warning: w2", [("b", "Final", "codabench")])])
    assert dryrun.demo_notes(warned) == ["warning: w1 (a Final: codabench, codalab; b Development: evalai)",
                                         "warning: w2 (b Final: codabench)"]


# ------------------------------------------------------------------ nothing built behind your back, nothing deleted
def _dryrun(*args):
    return command_in_process("dryrun", args)


def test_no_bundle_is_an_error_naming_the_build_command_and_builds_nothing(tmp_path):
    dist = tmp_path / "nonexistent"
    p = _dryrun(SLUG, os.path.join(KIT, "submissions", "random"), "--dist", dist)
    assert p.returncode == 2 and p.stdout == ""
    bundle_zip = dist / SLUG / ("%s-codabench.zip" % SLUG)
    assert p.stderr.splitlines() == [
        "error: no bundle %s: build it first with `python -m scoring_program.bundle %s --reference-data DIR --out "
        "%s` (or `make bundles` for the sample bundles in dist/)" % (bundle_zip, SLUG, dist)]
    assert not dist.exists()


def test_demo_without_bundles_is_the_same_error(tmp_path):
    p = _dryrun("--demo", "--dist", tmp_path / "empty")
    assert p.returncode == 2 and p.stderr.startswith("error: no bundle ") and not (tmp_path / "empty").exists()


def test_keep_refuses_a_non_empty_folder_and_deletes_nothing(dist, tmp_path):
    keep = tmp_path / "my_results"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    (keep / "scores.txt").write_text("mAP: 0.9\n")
    p = _dryrun(SLUG, os.path.join(KIT, "submissions", "random"), "--dist", dist, "--keep", keep)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.splitlines() == [
        "error: %s is not empty (notes.txt, scores.txt): the dry run's outputs go to a new or empty folder, and "
        "nothing in it is deleted; choose another --keep" % keep]
    assert sorted(os.listdir(str(keep))) == ["notes.txt", "scores.txt"]
    assert (keep / "scores.txt").read_text() == "mAP: 0.9\n"


def test_keep_takes_a_new_or_an_empty_folder(dist, tmp_path):
    for keep in (tmp_path / "new", tmp_path / "empty"):
        if keep.name == "empty":
            keep.mkdir()
        p = _dryrun(SLUG, os.path.join(KIT, "submissions", "random"), "--dist", dist, "--keep", keep)
        assert p.returncode == 0, p.stderr
        assert sorted(os.listdir(str(keep))) == ["detailed_results.html", "scores.json", "scores.txt"]
        assert read_scores(keep)["mAP"] == pytest.approx(0.7542828588460078, abs=1e-12)


def test_keep_refuses_a_file(dist, tmp_path):
    (tmp_path / "f").write_text("mine")
    with pytest.raises(dryrun.DryRunError):
        dryrun.run(SLUG, os.path.join(KIT, "submissions", "random"), dist=dist, keep=str(tmp_path / "f"))
    assert (tmp_path / "f").read_text() == "mine"


def test_the_default_output_folder_is_replaced_only_when_it_holds_an_earlier_dry_run(tmp_path):
    out = str(tmp_path / "dist")
    bundle.build(SLUG, out)
    sub = os.path.join(KIT, "submissions", "random")
    assert dryrun.main([SLUG, sub, "--dist", out]) == 0
    default = os.path.join(out, SLUG, "dryrun-codabench")
    assert sorted(os.listdir(default)) == ["detailed_results.html", "scores.json", "scores.txt"]
    assert dryrun.main([SLUG, sub, "--dist", out]) == 0          # an earlier dry run: replaced
    with open(os.path.join(default, "my_notes.md"), "w") as f:
        f.write("mine")
    assert dryrun.main([SLUG, sub, "--dist", out]) == 2          # something of yours: refused
    assert os.path.isfile(os.path.join(default, "my_notes.md"))


def test_dry_run_private_report(dist, tmp_path):
    path = tmp_path / "organizer.html"
    keep = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "scoring_program.dryrun", SLUG, os.path.join(KIT, "submissions",
                        "random"), "--dist", dist, "--keep", str(keep), "--private-report", str(path)],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "per-item diagnostics" in path.read_text(encoding="utf-8")
    assert sorted(os.listdir(str(keep))) == ["detailed_results.html", "scores.json", "scores.txt"]
    assert "per-item tables (organizer only): %s" % path in p.stdout


def test_dry_run_private_report_inside_keep_is_refused(dist, tmp_path):
    keep = tmp_path / "out"
    with pytest.raises(dryrun.DryRunError, match="inside the output folder"):
        dryrun.run(SLUG, os.path.join(KIT, "submissions", "random"), dist=dist, keep=str(keep),
                   private_report=str(keep / "p.html"))
    assert not keep.exists() or not os.listdir(str(keep))
