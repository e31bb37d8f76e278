"""Report levels (issue 20): hidden by default and from REPORT_LEVEL, full on request; the organizer's report gets
what the participant's level withheld; reference errors never quote the reference; output integrity (all score
files or none, serialized runs, a failing stdout)."""
import io
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile

import pytest

from conftest import ROOT, run_score
from scoring_program.report.result import LEVEL_FILE, LEVEL_TEXT

DET = "voc2011-detection"
CLS = "voc2011-classification"


def _sample(slug, name="random"):
    return os.path.join(ROOT, "starting_kit", slug, "submissions", name)


def _ref(slug):
    return os.path.join(ROOT, "reference_data", slug)


def _page(out):
    return (out / "detailed_results.html").read_text(encoding="utf-8")


def _ref_with_level(tmp_path, slug, text):
    ref = tmp_path / "ref-level"
    shutil.copytree(_ref(slug), str(ref))
    (ref / LEVEL_FILE).write_bytes(text)
    return ref


def test_without_a_level_file_the_report_is_hidden(tmp_path):
    proc, out = run_score(DET, _ref(DET), _sample(DET), tmp_path, level=None)
    assert proc.returncode == 0, proc.stderr
    page = _page(out)
    body = page.split("<body>", 1)[1]
    assert body.lstrip().startswith("<p class='note level'>Report level: hidden.")
    assert "Where the points were lost" not in page and "<h2>Curves</h2>" not in page
    assert "Per class" in page          # drawn from the score values alone
    assert "AP_person" in page


def test_level_file_full_and_the_command_line_override(tmp_path):
    ref = _ref_with_level(tmp_path, DET, b"full\n")
    proc, out = run_score(DET, str(ref), _sample(DET), tmp_path, name="full", level=None)
    assert proc.returncode == 0, proc.stderr
    full = _page(out)
    assert LEVEL_TEXT["full"] in full and "Where the points were lost" in full and "<h2>Curves</h2>" in full
    proc, out = run_score(DET, str(ref), _sample(DET), tmp_path, name="forced", level="hidden")
    assert proc.returncode == 0 and "Where the points were lost" not in _page(out)
    # the scores are the same at both levels, byte for byte
    assert (out / "scores.json").read_bytes() == (tmp_path / "full" / "output" / "scores.json").read_bytes()


def test_a_bad_level_file_is_the_organizers_fault_and_is_not_quoted(tmp_path):
    ref = _ref_with_level(tmp_path, CLS, b"secret-word\n")
    proc, out = run_score(CLS, str(ref), _sample(CLS), tmp_path, level=None)
    assert proc.returncode == 2 and not (out / "scores.txt").exists()
    assert "REPORT_LEVEL, line 1" in proc.stderr and "secret-word" not in proc.stderr


def test_a_bad_report_option_is_a_usage_error(tmp_path):
    proc, out = run_score(CLS, _ref(CLS), _sample(CLS), tmp_path, level="everything")
    assert proc.returncode == 2 and proc.stderr.startswith("error: --report takes full or hidden")


def test_the_organizers_report_holds_what_hidden_withheld(tmp_path):
    inp = tmp_path / "input"
    shutil.copytree(_ref(DET), str(inp / "ref"))
    shutil.copytree(_sample(DET), str(inp / "res"))
    private = tmp_path / "organizer.html"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "competitions", DET, "score.py"), str(inp),
                        str(tmp_path / "out"), "--private-report", str(private)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = private.read_text(encoding="utf-8")
    assert "Where the points were lost" in text and "<h2>Curves</h2>" in text
    assert "Where the points were lost" not in _page(tmp_path / "out")


def test_hidden_warnings_and_notes_are_the_submissions_own_only():
    from scoring_program.report.result import FULL, Own, Result
    r = Result("t")
    r.warnings = [Own("3 lines of your file were skipped"), "12 positives not listed"]
    r.notes = ["class x has no detections in the test set", Own("you sent 2 files")]
    assert r.shown_warnings() == ["3 lines of your file were skipped"] and r.shown_notes() == ["you sent 2 files"]
    assert r.withheld() == (["12 positives not listed"], ["class x has no detections in the test set"])
    r.level = FULL
    assert len(r.shown_warnings()) == 2 and len(r.shown_notes()) == 2 and r.withheld() == ([], [])


def test_a_broken_reference_is_named_by_file_and_line_only(tmp_path):
    ref = tmp_path / "ref2"
    shutil.copytree(_ref(CLS), str(ref))
    p = ref / "ImageSets" / "Main" / "car_test.txt"
    lines = p.read_text().splitlines()
    secret = lines[3].split()[0]
    lines[3] = secret + " -1 x"
    p.write_text("\n".join(lines) + "\n")
    proc, out = run_score(CLS, str(ref), _sample(CLS), tmp_path, level=None)
    assert proc.returncode == 2 and "car_test.txt, line 4" in proc.stderr
    assert secret not in proc.stderr and "-1 x" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc, out = run_score(CLS, str(ref), _sample(CLS), tmp_path, name="full", level="full")
    assert proc.returncode == 2 and secret in proc.stderr    # the full level: the ground truth is released


def test_echoed_text_is_escaped_and_short():
    from scoring_program.errors import SubmissionError, shorten
    line = SubmissionError("a\nfake: line.txt", 3, found="x" * 5000 + "\r\n").render()
    assert "\n" not in line and "\r" not in line and len(line) < 300
    assert "a\\nfake: line.txt" in line
    assert len(shorten("y" * 10000, limit=10 ** 6)) <= 205 and shorten("a\u2028b") == repr("a\u2028b")


# ------------------------------------------------------------------ output integrity
def _score_argv(inp, out):
    return [sys.executable, os.path.join(ROOT, "competitions", DET, "score.py"), str(inp), str(out)]


def _det_input(tmp_path, name="input", res=None):
    inp = tmp_path / name
    os.makedirs(str(inp))
    os.symlink(_ref(DET), str(inp / "ref"))
    os.symlink(res or _sample(DET), str(inp / "res"))
    return inp


def test_a_failing_stdout_after_the_scores_is_not_a_submission_error(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    inp, out = _det_input(tmp_path), tmp_path / "out"
    with open("/dev/full", "w") as full:
        p = subprocess.run(_score_argv(inp, out), stdout=full, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(str(out))) == ["detailed_results.html", "scores.json", "scores.txt"]


def test_a_kill_leaves_all_score_files_or_none_and_no_temporary_file(tmp_path):
    inp = _det_input(tmp_path)
    honest = subprocess.run(_score_argv(inp, tmp_path / "ref-out"), capture_output=True)
    assert honest.returncode == 0
    start = time.perf_counter()
    subprocess.run(_score_argv(inp, tmp_path / "timing"), capture_output=True)
    took = time.perf_counter() - start
    seen = set()
    for i in range(15):
        out = tmp_path / ("out%d" % i)
        proc = subprocess.Popen(_score_argv(inp, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(took * (0.3 + 0.75 * i / 14))      # from before the reading to after the writing
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate()
        names = sorted(os.listdir(str(out))) if out.exists() else []
        assert names in ([], ["detailed_results.html", "scores.json", "scores.txt"]), (names, err)
        seen.add((proc.returncode, len(names)))
        if names:
            assert (out / "scores.json").read_bytes() == (tmp_path / "ref-out" / "scores.json").read_bytes()
        else:
            # killed before the handler was set (while importing): the default action; after it: one line
            assert proc.returncode == -signal.SIGTERM or (proc.returncode == 128 + signal.SIGTERM
                                                          and b"no scores written" in err), (proc.returncode, err)
    assert any(n == 0 for _, n in seen), seen          # some kills landed before the scores


def test_a_killed_runs_temporary_files_are_removed_by_the_next_run(tmp_path):
    inp, out = _det_input(tmp_path), tmp_path / "out"
    out.mkdir()
    for name in (".scores.txt.abc123.tmp", ".detailed_results.html.x.tmp", "scores.json"):
        (out / name).write_text("left by a killed run")
    p = subprocess.run(_score_argv(inp, out) + ["--report", "hidden"], capture_output=True, text=True)
    assert p.returncode == 0
    assert sorted(os.listdir(str(out))) == ["detailed_results.html", "scores.json", "scores.txt"]


def test_two_runs_into_one_output_end_in_the_outcome_of_the_last(tmp_path):
    good = _det_input(tmp_path, "good")
    bad_res = tmp_path / "bad-res"
    shutil.copytree(_sample(DET), str(bad_res))
    victim = sorted(p for p in bad_res.rglob("*.txt"))[0]
    victim.write_text("nonsense\n")
    bad = _det_input(tmp_path, "bad", res=str(bad_res))
    for i in range(6):
        out = tmp_path / ("shared%d" % i)
        first, second = (good, bad) if i % 2 == 0 else (bad, good)
        pa = subprocess.Popen(_score_argv(first, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.05 * i)
        pb = subprocess.Popen(_score_argv(second, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        codes = {first: pa.wait(), second: pb.wait()}
        assert codes[good] == 0 and codes[bad] == 1
        names = sorted(os.listdir(str(out)))
        assert names in ([], ["detailed_results.html", "scores.json", "scores.txt"])
        # serialized: the folder holds one run's outcome, all of it (never exit 0 for a run whose files vanished
        # while it was writing them)


# ------------------------------------------------------------------ the bundle writes the level
def test_bundles_are_hidden_by_default_full_on_request_and_the_kit_sample_is_full(tmp_path):
    from scoring_program import bundle
    plan = bundle.prepare(CLS)          # the sample: Development (validation part, full), Final (test part)
    with zipfile.ZipFile(io.BytesIO(plan.codabench)) as z:
        dev = zipfile.ZipFile(io.BytesIO(z.read("reference_data_0.zip")))
        ref = zipfile.ZipFile(io.BytesIO(z.read("reference_data_1.zip")))
        kit = zipfile.ZipFile(io.BytesIO(z.read("starting_kit.zip")))
    assert ref.read(LEVEL_FILE) == b"hidden\n" and dev.read(LEVEL_FILE) == b"full\n"
    assert kit.read("sample_input/ref/" + LEVEL_FILE) == b"full\n"
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("report: full\n")
    plan = bundle.prepare(CLS, config=str(cfg))
    with zipfile.ZipFile(io.BytesIO(plan.codabench)) as z:
        assert zipfile.ZipFile(io.BytesIO(z.read("reference_data.zip"))).read(LEVEL_FILE) == b"full\n"
    cfg.write_text("report: everything\n")
    with pytest.raises(bundle.BundleError, match="report: expected hidden .* or full"):
        bundle.prepare(CLS, config=str(cfg))
