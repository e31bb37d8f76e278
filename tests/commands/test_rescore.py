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
    assert re.findall(r"<tr><td>(\d+)</td><td[^>]*>(\w)</td>", page) == [("1", "a"), ("1", "b"), ("3", "c")]
    stats = ranking_statistics([0.5, 0.5, 0.0], [[0.6, 0.4, 0.0], [0.4, 0.6, 0.01]])
    assert list(stats.official_rank) == [1, 1, 3]
    svg = interval_svg(["a", "b", "c"], stats, 4)
    ticks = re.findall(r'fill="#444">([^<]+)</text>', svg)
    assert "0.0" in ticks and not any(t.startswith("-0.0") or t == "-0" for t in ticks), ticks


# ------------------------------------------------------------------ bulk downloads as the platforms name them
def _zip_bytes(folder, tmp_path):
    dest = str(tmp_path / ("%s-%d.zip" % (os.path.basename(folder), len(os.listdir(str(tmp_path))))))
    with open(_zip_dir(folder, dest), "rb") as f:
        return f.read()


def codabench_name(sid, owner, phase_id, when, file_name="submission.zip"):
    """A file of Codabench's bulk_submissions.zip: download_many's name (src/apps/api/views/submissions.py)
    f"{sub.id}_{sub.owner}_PhaseId{sub.phase.id}_{sub.data.created_when.strftime('%Y-%m-%d:%M-%S')}_{file_path}",
    stored by the page (submission_manager.tag) as file.name.replace(/[:/\\]/g, "_")."""
    import re
    server = f"{sid}_{owner}_PhaseId{phase_id}_{when.strftime('%Y-%m-%d:%M-%S')}_{file_path_of(file_name)}"
    return re.sub(r"[:/\\]", "_", server)


def file_path_of(file_name):
    """sub.data.data_file.name.split('/')[-1]: PathWrapper keeps the uploaded name's first 35 characters and its
    extension."""
    name, ext = os.path.splitext(file_name)
    return name[:35] + ext


def test_platform_names_give_owner_submission_and_phase():
    import datetime
    when = datetime.datetime(2024, 5, 3, 14, 7, 9)
    name = codabench_name(1234, "bob_the_2nd", 56, when, "my_team_final_results_with_a_very_long_name.zip")
    assert name == "1234_bob_the_2nd_PhaseId56_2024-05-03_07-09_my_team_final_results_with_a_very_l.zip"
    e = rescore.named("x", None, name)
    assert (e.platform, e.owner, e.submission, e.phase) == ("codabench", "bob_the_2nd", "1234", "56")
    # the server's own name (saved from the API's list), ':' kept
    e = rescore.named("x", None, "77_ann_PhaseId5_2024-05-03:07-09_sub.zip")
    assert (e.owner, e.submission, e.phase) == ("ann", "77", "5")
    # legacy Codalab: "%s - %s submission.zip" % (username, or "Team %s " % team name, submission_number)
    e = rescore.named("x", None, "alice - 3 submission.zip")
    assert (e.platform, e.owner, e.submission, e.phase) == ("codalab", "alice", "3", "")
    assert rescore.named("x", None, "Team Blue Sky  - 12 submission.zip").owner == "Team Blue Sky"
    for plain in ("team_a.zip", "1234_bob_PhaseId56_2024-05-03_sub.zip", "alice - 3 output.zip"):
        assert rescore.named("x", None, plain).platform == ""
    assert rescore.platform_own("alice - 3 output.zip") and rescore.platform_own("failed.txt")
    assert not rescore.platform_own("alice - 3 submission.zip")


def test_codabench_bulk_download_keeps_the_latest_that_scores_per_owner(tmp_path, capsys):
    """Codabench's bulk_submissions.zip (failed.txt included): one entry per owner and phase, the latest by id; an
    owner whose latest fails gets the one before; owner, submission id and phase on every row; --all and --pick."""
    import datetime
    slug = "voc2011-classification"
    ref = os.path.join(ROOT, "reference_data", slug)
    kit = os.path.join(ROOT, "starting_kit", slug)
    day = datetime.datetime(2011, 10, 5, 14, 7, 9)
    subs = [(101, "alice", kit + "/submissions/perfect"), (140, "alice", kit + "/submissions/random"),
            (120, "bob_2", kit + "/submissions/perfect"), (130, "carol", kit + "/submissions/random"),
            (150, "carol", kit + "/malformed/unknown_id")]
    bulk = tmp_path / "bulk_submissions.zip"
    with zipfile.ZipFile(str(bulk), "w") as z:
        for sid, owner, folder in subs:
            z.writestr(codabench_name(sid, owner, 57, day + datetime.timedelta(hours=sid)),
                       _zip_bytes(folder, tmp_path))
        z.writestr("failed.txt", "The following submissions failed to download:\n\n"
                                 "160_dave_PhaseId57_2011-10-06:01-02_submission.zip (HTTP 404)")
    records = rescore.rescore(slug, ref, [str(bulk)], str(tmp_path / "out"), jobs=2, progress=lambda r: None)
    err = capsys.readouterr().err
    assert "could not fetch 1 submission(s)" in err and "160_dave" in err
    assert "2 of 5 left out" in err
    kept = dict((r["owner"], (r["submission_id"], r["phase"], r["status"])) for r in records)
    assert kept == {"alice": ("140", "57", "scored"), "bob_2": ("120", "57", "scored"),
                    "carol": ("130", "57", "scored")}          # carol's 150 failed: her 130 is her leaderboard's
    rows = list(csv.DictReader(open(str(tmp_path / "out" / "leaderboard.csv"))))
    assert list(rows[0])[:7] == ["name", "owner", "submission_id", "phase", "status", "exit_code", "error"]
    assert [(r["owner"], r["submission_id"], r["phase"]) for r in rows] == [
        ("bob_2", "120", "57"), ("carol", "130", "57"), ("alice", "140", "57")]
    page = (tmp_path / "out" / "leaderboard.html").read_text()
    assert "Left out" in page and "<td>101</td>" in page and "<td>150</td>" in page and "failed (" in page
    # --all: every one; --pick: the chosen one for its owner, the latest for the others
    every = rescore.rescore(slug, ref, [str(bulk)], str(tmp_path / "all"), jobs=2, progress=lambda r: None,
                            keep_all=True)
    assert sorted(r["submission_id"] for r in every) == ["101", "120", "130", "140", "150"]
    picked = rescore.rescore(slug, ref, [str(bulk)], str(tmp_path / "pick"), jobs=2, progress=lambda r: None,
                             picks=["101"])
    assert sorted(r["submission_id"] for r in picked) == ["101", "120", "130"]
    with pytest.raises(rescore.RescoreError, match="--pick '999': no submission has that id"):
        rescore.rescore(slug, ref, [str(bulk)], str(tmp_path / "p2"), picks=["999"])
    with pytest.raises(rescore.RescoreError, match="are both submissions of 'alice' \\(phase 57\\)"):
        rescore.rescore(slug, ref, [str(bulk)], str(tmp_path / "p3"), picks=["101", "140"])


def test_legacy_codalab_download_leaves_the_platform_s_files_out(tmp_path, capsys):
    """legacy Codalab's "Download all submissions on leaderboard" (apps/web/views.py, download_leaderboard_results):
    per entry '<user> - <n> submission.zip', output.zip, profile.txt, method.txt; team_names_and_members.txt and
    detailed_results.html once per entry (several members of one name)."""
    import warnings
    slug = "voc2011-classification"
    kit = os.path.join(ROOT, "starting_kit", slug, "submissions")
    bulk = tmp_path / "My challenge-17-results.zip"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # zipfile's "Duplicate name" warning
        with zipfile.ZipFile(str(bulk), "w") as z:
            z.writestr("team_names_and_members.txt", "Team: Blue Sky; members: a, b\n")
            for user, n, what in (("alice", 3, "random"), ("Team Blue Sky ", 2, "perfect")):
                z.writestr("%s - %s submission.zip" % (user, n), _zip_bytes(os.path.join(kit, what), tmp_path))
                z.writestr("%s - %s output.zip" % (user, n), _zip_bytes(os.path.join(kit, what), tmp_path))
                z.writestr("%s - %s profile.txt" % (user, n), "Organization: x")
                z.writestr("%s - %s method.txt" % (user, n), "method_name: y")
                z.writestr("detailed_results.html", "<html></html>")
    records = rescore.rescore(slug, os.path.join(ROOT, "reference_data", slug), [str(bulk)], str(tmp_path / "out"),
                              jobs=1, progress=lambda r: None)
    assert [(r["name"], r["owner"], r["submission_id"], r["phase"], r["status"]) for r in records] == [
        ("Team Blue Sky  - 2 submission", "Team Blue Sky", "2", "", "scored"),
        ("alice - 3 submission", "alice", "3", "", "scored")]
    assert records[0]["scores"]["mAP"] == 1.0
    assert "9 file(s) of the platform's own" in capsys.readouterr().err
