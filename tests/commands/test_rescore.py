"""rescore (issue 13, part 1): many submissions against one reference, each folder bit-for-bit what score.py
writes, failures recorded and never fatal, resumable."""
import csv
import glob
import os
import zipfile

import pytest

from conftest import ROOT, competition_slugs, run_score
from scoring_program import rescore

OUTPUT_FILES = ["detailed_results.html", "scores.json", "scores.txt"]


def _zip_dir(folder, dest):
    with zipfile.ZipFile(dest, "w") as z:
        for dp, dn, fn in os.walk(folder):
            for f in sorted(fn):
                p = os.path.join(dp, f)
                z.write(p, os.path.relpath(p, folder))
    return dest


def _kit_archive(slug, tmp_path):
    """One bulk archive holding every sample of the starting kit (submissions and malformed) as inner zips."""
    folders = sorted(f for f in glob.glob(os.path.join(ROOT, "starting_kit", slug, "submissions", "*")) +
                     glob.glob(os.path.join(ROOT, "starting_kit", slug, "malformed", "*")) if os.path.isdir(f))
    inner = tmp_path / "inner"
    inner.mkdir()
    bulk = tmp_path / "all.zip"
    names = {}
    with zipfile.ZipFile(str(bulk), "w") as z:
        for folder in folders:
            name = "%s-%s" % (os.path.basename(os.path.dirname(folder)), os.path.basename(folder))
            z.write(_zip_dir(folder, str(inner / (name + ".zip"))), name + ".zip")
            names[name] = folder
    return str(bulk), names


@pytest.mark.parametrize("slug", competition_slugs())
def test_rescore_equals_score_py_one_by_one(slug, tmp_path):
    ref = os.path.join(ROOT, "reference_data", slug)
    bulk, names = _kit_archive(slug, tmp_path)
    out = tmp_path / "rescored"
    records = rescore.rescore(slug, ref, [bulk], str(out), jobs=2, progress=lambda r: None, resamples=40, seed=5)
    assert [r["name"] for r in records] == sorted(names)
    # the bootstrap (decompose=True) leaves the files alone, and every scored submission has one
    scored = [r for r in records if r["status"] == "scored"]
    assert scored and all(len(r["bootstrap"]["scores"]) == 40 for r in scored)
    assert len((out / "bootstrap.csv").read_text().splitlines()) == 41
    assert "Scores and ranks" in (out / "ranking.html").read_text()
    by_name = {r["name"]: r for r in records}
    for name, folder in names.items():
        proc, single = run_score(slug, ref, folder, tmp_path, name="single", level=None)
        rec = by_name[name]
        if proc.returncode == 0:
            assert rec["status"] == "scored", rec
            assert sorted(os.listdir(str(out / rescore.SUBMISSIONS / name))) == OUTPUT_FILES
            for f in OUTPUT_FILES:
                assert (out / rescore.SUBMISSIONS / name / f).read_bytes() == (single / f).read_bytes(), (name, f)
        else:
            line = [x for x in proc.stderr.splitlines() if not x.startswith("progress: ")][0]
            assert rec["status"] == "failed" and rec["exit"] == proc.returncode and rec["error"] == line, name
            assert (out / rescore.SUBMISSIONS / name / "error.txt").read_text() == "exit %d\n%s\n" % (
                proc.returncode, line)
            assert not (out / rescore.SUBMISSIONS / name / "scores.txt").exists()
    rows = list(csv.DictReader(open(str(out / "leaderboard.csv"))))
    assert [r["name"] for r in rows] == sorted(names)
    perfect = [r for r in rows if r["name"] == "submissions-perfect"][0]
    with open(str(out / rescore.SUBMISSIONS / "submissions-perfect" / "scores.txt")) as f:
        first_key, first_value = f.readline().strip().split(": ")
    assert perfect["status"] == "scored" and perfect[first_key] == first_value
    page = (out / "leaderboard.html").read_text()
    assert "submissions-perfect" in page and ("Failed" in page) == any(r["status"] == "failed" for r in rows)


def test_rerun_skips_unchanged_and_rescores_changed(tmp_path, capsys):
    slug = "voc2011-classification"
    ref = os.path.join(ROOT, "reference_data", slug)
    subs = tmp_path / "subs"
    subs.mkdir()
    for n in ("perfect", "random"):
        _zip_dir(os.path.join(ROOT, "starting_kit", slug, "submissions", n), str(subs / (n + ".zip")))
    out = str(tmp_path / "out")
    seen = []
    rescore.rescore(slug, ref, [str(subs)], out, jobs=1, progress=seen.append)
    assert sorted(r["name"] for r in seen) == ["perfect", "random"]
    seen.clear()
    rescore.rescore(slug, ref, [str(subs)], out, jobs=1, progress=seen.append)
    assert seen == [] and "2 of 2 submission(s) unchanged" in capsys.readouterr().err
    # a changed submission, and an output folder someone deleted, are scored again
    _zip_dir(os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), str(subs / "random.zip"))
    rescore.rescore(slug, ref, [str(subs)], out, jobs=1, progress=seen.append)
    assert [r["name"] for r in seen] == ["random"]
    assert open(os.path.join(out, rescore.SUBMISSIONS, "random", "scores.txt")).read() == open(
        os.path.join(out, rescore.SUBMISSIONS, "perfect", "scores.txt")).read()


def test_timeout_is_recorded(tmp_path, monkeypatch):
    import multiprocessing
    import time
    from scoring_program.tasks import registry
    if multiprocessing.get_start_method() != "fork":
        pytest.skip("the workers see the monkeypatched task only when forked")
    slug = "voc2011-classification"
    task = registry.get(slug)

    def slow(*a, **k):
        time.sleep(5)
    monkeypatch.setattr(task, "score", slow)
    out = tmp_path / "out"
    [rec] = rescore.rescore(slug, os.path.join(ROOT, "reference_data", slug),
                            [os.path.join(ROOT, "starting_kit", slug, "submissions", "random")], str(out), jobs=1,
                            timeout=0.2, progress=lambda r: None)
    assert rec["status"] == "failed" and rec["exit"] == 3 and rec["error"].startswith("time limit")
    assert (out / rescore.SUBMISSIONS / "random" / "error.txt").read_text().startswith("exit 3\ntime limit")


def test_two_submissions_with_one_name_are_refused(tmp_path):
    slug = "voc2011-classification"
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        _zip_dir(os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), str(d / "team.zip"))
    with pytest.raises(rescore.RescoreError, match="two submissions are named 'team'"):
        rescore.rescore(slug, os.path.join(ROOT, "reference_data", slug), [str(a / "team.zip"), str(b / "team.zip")],
                        str(tmp_path / "out"))


# ------------------------------------------------------------------ --bootstrap (ranking robustness)
def test_bootstrap_files_are_the_decomposition_s_scores_on_the_seeded_resamples(tmp_path):
    import numpy as np
    from scoring_program.formats.files import Submission
    from scoring_program.metrics.bootstrap import bootstrap_scores
    from scoring_program.tasks import registry
    slug = "voc2011-classification"
    ref = os.path.join(ROOT, "reference_data", slug)
    subs = sorted(glob.glob(os.path.join(ROOT, "starting_kit", slug, "submissions", "*")))
    out = tmp_path / "out"
    records = rescore.rescore(slug, ref, subs, str(out), jobs=2, progress=lambda r: None, resamples=120, seed=7)
    with open(str(out / "bootstrap.csv")) as f:
        rows = list(csv.reader(f))
    names = rows[0][1:]
    assert rows[0][0] == "resample" and sorted(names) == sorted(r["name"] for r in records)
    assert [r[0] for r in rows[1:]] == [str(i) for i in range(1, 121)]
    table = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    task = registry.get(slug)
    for j, name in enumerate(names):
        res = task.score(ref, Submission(os.path.join(ROOT, "starting_kit", slug, "submissions", name)),
                         decompose=True)
        want = bootstrap_scores(res.decomposition, 120, seed=7)
        assert np.array_equal(table[:, j], want)
    # official order: the first column is the best submission
    assert names[0] == "perfect"
    page = (out / "ranking.html").read_text()
    assert "Kendall" in page and "Significance map" in page and "<svg" in page
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "") and "<script" not in page


def test_bootstrap_rerun_skips_same_params_and_rescores_new_seed(tmp_path):
    slug = "voc2011-classification"
    ref = os.path.join(ROOT, "reference_data", slug)
    subs = sorted(glob.glob(os.path.join(ROOT, "starting_kit", slug, "submissions", "*")))
    out = tmp_path / "out"
    seen = []
    rescore.rescore(slug, ref, subs, str(out), jobs=1, progress=lambda r: seen.append(r["name"]), resamples=30,
                    seed=1)
    first = (out / "bootstrap.csv").read_text()
    assert len(seen) == len(subs)
    seen.clear()
    rescore.rescore(slug, ref, subs, str(out), jobs=1, progress=lambda r: seen.append(r["name"]), resamples=30,
                    seed=1)
    assert seen == [] and (out / "bootstrap.csv").read_text() == first
    rescore.rescore(slug, ref, subs, str(out), jobs=1, progress=lambda r: seen.append(r["name"]), resamples=30,
                    seed=2)
    assert len(seen) == len(subs) and (out / "bootstrap.csv").read_text() != first


def test_bootstrap_command_line(tmp_path):
    import subprocess
    import sys
    slug = "voc2011-action"
    ref = os.path.join(ROOT, "reference_data", slug)
    subs = sorted(glob.glob(os.path.join(ROOT, "starting_kit", slug, "submissions", "*")))
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "scoring_program.rescore", slug, "--ref", ref] + subs +
                       ["--out", str(out), "--jobs", "1", "--bootstrap", "50", "--seed", "3"], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "ranking.html" in p.stdout
    assert len((out / "bootstrap.csv").read_text().splitlines()) == 51
    p = subprocess.run([sys.executable, "-m", "scoring_program.rescore", slug, "--ref", ref] + subs +
                       ["--out", str(tmp_path / "o2"), "--bootstrap", "0"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0 and not (tmp_path / "o2" / "ranking.html").exists()


# ------------------------------------------------------------------ the organizer's pages read right
def test_ties_share_one_rank_on_both_pages_and_no_axis_shows_minus_zero():
    """Tied submissions rank 1, 1, 3 in leaderboard.html, as in ranking.html; a score axis that starts below 0
    labels its 0 tick "0.0", never "-0.0"."""
    import re
    from collections import namedtuple
    from scoring_program.metrics.bootstrap import ranking_statistics
    from scoring_program.report.leaderboard import render_leaderboard
    from scoring_program.report.ranking import interval_svg
    Key = namedtuple("Key", "key label precision")
    recs = [{"name": n, "scores": {"mAP": v}} for n, v in (("a", 0.5), ("b", 0.5), ("c", 0.25))]
    page = render_leaderboard("t", [Key("mAP", "mAP", 4)], recs, [])
    assert re.findall(r"<tr><td>(\d+)</td><td>(\w)</td>", page) == [("1", "a"), ("1", "b"), ("3", "c")]
    stats = ranking_statistics([0.5, 0.5, 0.0], [[0.6, 0.4, 0.0], [0.4, 0.6, 0.01]])
    assert list(stats.official_rank) == [1, 1, 3]
    svg = interval_svg(["a", "b", "c"], stats, 4)
    ticks = re.findall(r'fill="#444">([^<]+)</text>', svg)
    assert "0.0" in ticks and not any(t.startswith("-0.0") or t == "-0" for t in ticks), ticks
