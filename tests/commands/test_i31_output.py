"""Issue 31, the command's output integrity and what the hidden level prints, each through
competitions/SLUG/score.py INPUT OUTPUT in a subprocess, as the worker runs it:

- the hidden level prints no time and no progress line; the full level keeps both;
- no numpy or Python warning reaches the participant (none at the hidden level, one line without a source path at
  the full level);
- an internal error at the hidden level is one fixed line, no traceback, no array size;
- a closed stdout (or stderr) is never a traceback;
- two runs into one OUTPUT leave the last run's complete outcome;
- a result file that is a symbolic link or a FIFO is refused in one line; 20,000 junk files are summarised.
"""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT, read_scores
from scoring_program.errors import HIDDEN_BUG

PY = sys.executable


def score_py(slug):
    return os.path.join(ROOT, "competitions", slug, "score.py")


def make_input(tmp_path, slug, res=None, name="input", sample="perfect"):
    """INPUT/ref (the sample's reference, no REPORT_LEVEL file: the hidden level) and INPUT/res (a copy of the kit's
    sample submission, or `res`)."""
    inp = tmp_path / name
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(inp / "ref"))
    shutil.copytree(res or os.path.join(ROOT, "starting_kit", slug, "submissions", sample), str(inp / "res"))
    return inp


def score(slug, inp, out, *args, **kw):
    return subprocess.run([PY, score_py(slug), str(inp), str(out)] + list(args), capture_output=True, text=True,
                          timeout=300, **kw)


# score.py with the task's evaluate hook patched in the child (MODE: memory, warn, progress), then run as the worker
# runs it (runpy, __main__): what a MemoryError deep in numpy, a warning or a slow run would print
PATCHED = r"""
import os, runpy, sys, warnings
sys.path.insert(0, %(root)r)
import numpy as np
from scoring_program.tasks import base, registry
mode, slug = sys.argv[1], sys.argv[2]
task = registry.get(slug)
original = task.evaluate
def evaluate(*args, **kwargs):
    if mode == "memory":
        raise MemoryError("Unable to allocate 1.2 GiB for an array with shape (161061273,) and data type float64")
    if mode == "warn":
        np.array([1e308]) * 10.0
        np.array([0.0]) / np.array([0.0])
        warnings.warn("a warning of ours", RuntimeWarning)
    return original(*args, **kwargs)
task.evaluate = evaluate
if mode == "progress":
    base.Progress.__init__.__defaults__ = (0.0,)    # a line at every call, as a slow run would print them
script = os.path.join(%(root)r, "competitions", slug, "score.py")
sys.argv = [script] + sys.argv[3:]
runpy.run_path(script, run_name="__main__")
""" % {"root": ROOT}


def patched(mode, slug, inp, out, *args):
    return subprocess.run([PY, "-c", PATCHED, mode, slug, str(inp), str(out)] + list(args), capture_output=True,
                          text=True, timeout=300)


# ---------------------------------------------------------------------------------------------------------------
# 1. the hidden level prints no time and no progress line

def test_hidden_level_prints_no_time(tmp_path):
    """kinetics-tps names its phases (the "time:" line): at the hidden level neither it nor the run's seconds."""
    inp = make_input(tmp_path, "kinetics-tps")
    p = score("kinetics-tps", inp, tmp_path / "out")
    assert p.returncode == 0 and p.stderr == ""
    full = score("kinetics-tps", inp, tmp_path / "out", "--report", "full")
    lines = full.stdout.splitlines()
    assert full.returncode == 0 and lines[0].startswith("kinetics-tps  score: 0.9999")
    assert p.stdout == "%s\nscores written to %s\n" % (lines[0], tmp_path / "out" / "scores.txt")
    assert lines[1].startswith("scores written to %s (" % (tmp_path / "out" / "scores.txt")) and lines[1].endswith(" s)")
    assert lines[2].startswith("time: JSON to arrays ")


def test_hidden_level_prints_no_progress_line(tmp_path):
    """action-tubes reports progress while it evaluates (the pace of the ground truth's tubes): with a line at every
    call, the full level prints them, the hidden level none, and the scores are the same."""
    inp = make_input(tmp_path, "action-tubes")
    full = patched("progress", "action-tubes", inp, tmp_path / "full", "--report", "full")
    assert full.returncode == 0, full.stderr
    assert [l.rsplit(" (", 1)[0] for l in full.stderr.splitlines()] == [
        "progress: 0/3 measures", "progress: 1/3 measures", "progress: 2/3 measures", "progress: 3/3 measures"]
    hidden = patched("progress", "action-tubes", inp, tmp_path / "hidden")
    assert hidden.returncode == 0 and hidden.stderr == ""
    assert read_scores(tmp_path / "hidden") == read_scores(tmp_path / "full")


# ---------------------------------------------------------------------------------------------------------------
# 2. no numpy or Python warning reaches the participant

def _no_python_warning(text):
    assert "Warning" not in text and ".py" not in text, text


def test_kinetics_boxes_of_1_7e308_print_no_warning(tmp_path):
    """Boxes of +-1.7e308 overflow in the overlap arithmetic: no RuntimeWarning with a source path, at either level
    (the task's own errstate, and cli's for the whole run as the safety net)."""
    res = tmp_path / "res"
    res.mkdir()
    kit = os.path.join(ROOT, "starting_kit", "kinetics-tps", "submissions", "perfect")
    shutil.copy(os.path.join(kit, "pred_vid_result.json"), str(res))
    with open(os.path.join(kit, "pred_part_result.json")) as f:
        parts = json.load(f)
    huge = [-1.7e308, -1.7e308, 1.7e308, 1.7e308]
    for frames in parts.values():
        for frame in frames.values():
            for human in frame["humans"]:
                human["box"] = huge
                for part in human["parts"].values():
                    part["box"] = [huge for _ in part["box"]]
    (res / "pred_part_result.json").write_text(json.dumps(parts))
    inp = make_input(tmp_path, "kinetics-tps", res=str(res))
    for level in ([], ["--report", "full"]):
        p = score("kinetics-tps", inp, tmp_path / "out", *level)
        assert p.returncode == 0
        assert p.stdout.splitlines()[0] == "kinetics-tps  score: 0.083325  top1: 1.0000  mean_PSC: 0.0833"
        _no_python_warning(p.stderr)


def test_a_warning_inside_the_task_never_reaches_the_participant(tmp_path):
    """Task-agnostic: numpy overflow and 0/0 and a Python RuntimeWarning raised inside a task's evaluate. Hidden
    level: nothing on stderr; full level: one line, the count and the first warning's text, no source path."""
    inp = make_input(tmp_path, "voc2011-classification", sample="random")
    hidden = patched("warn", "voc2011-classification", inp, tmp_path / "out")
    assert hidden.returncode == 0 and hidden.stderr == ""
    assert (tmp_path / "out" / "scores.txt").exists()
    full = patched("warn", "voc2011-classification", inp, tmp_path / "out", "--report", "full")
    assert full.returncode == 0
    assert full.stderr == ("warning: the scoring program raised 1 Python warning(s) (please report it), the first: "
                           "RuntimeWarning: a warning of ours\n")


# ---------------------------------------------------------------------------------------------------------------
# 3. an internal error at the hidden level: one fixed line

def test_memory_error_at_the_hidden_level_is_one_fixed_line(tmp_path):
    inp = make_input(tmp_path, "voc2011-classification", sample="random")
    out = tmp_path / "out"
    shutil.copytree(os.path.join(ROOT, "starting_kit", "voc2011-classification", "submissions", "random"), str(out))
    (out / "scores.txt").write_text("mAP: 1\n")      # an earlier run's scores: removed
    p = patched("memory", "voc2011-classification", inp, out)
    assert p.returncode == 3
    assert p.stderr == HIDDEN_BUG % ("the scoring program", "your") + "\n"
    assert "161061273" not in p.stderr and "Traceback" not in p.stderr and "GiB" not in p.stderr
    assert p.stdout == "" and not (out / "scores.txt").exists()
    full = patched("memory", "voc2011-classification", inp, out, "--report", "full")
    assert full.returncode == 3
    assert full.stderr.startswith("internal error in the scoring program (not your fault); please report this:\n"
                                  "Traceback (most recent call last):\n")
    assert full.stderr.endswith("MemoryError: Unable to allocate 1.2 GiB for an array with shape (161061273,) and "
                                "data type float64\n")


# ---------------------------------------------------------------------------------------------------------------
# 4. a closed stdout or stderr

@pytest.mark.parametrize("fd", [1, 2])
def test_a_closed_stream_is_never_a_traceback(tmp_path, fd):
    """`score.py IN OUT >&-` (and 2>&-): exit 0, the scores written, nothing on the other stream."""
    inp = make_input(tmp_path, "voc2011-classification", sample="random")
    p = subprocess.run([PY, score_py("voc2011-classification"), str(inp), str(tmp_path / "out"), "--report", "full"],
                       capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.close(fd))
    assert p.returncode == 0
    assert (p.stderr if fd == 1 else p.stdout) == ("" if fd == 1 else p.stdout)
    if fd == 2:
        assert p.stdout.startswith("voc2011-classification  mAP: 0.7543  ")
    assert read_scores(tmp_path / "out")["mAP"] == pytest.approx(0.7542828588460078, abs=0)
    assert sorted(os.listdir(str(tmp_path / "out"))) == ["detailed_results.html", "scores.json", "scores.txt"]


# ---------------------------------------------------------------------------------------------------------------
# 5. two runs into one OUTPUT

def holding(run, out):
    """Wait until `run` holds OUTPUT (cli.queued_output's flock, probed without waiting) or has ended."""
    import fcntl
    while run.poll() is None:
        if out.is_dir():
            fd = os.open(str(out), os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return                          # held by the run
            finally:
                os.close(fd)                    # never kept: closing the probe's descriptor releases it
        time.sleep(0.002)


def test_two_runs_into_one_output_leave_the_last_run_s_outcome(tmp_path):
    """16 pairs, a valid and a malformed submission into one OUTPUT, started together (the second 0 to 30 ms after
    the first) or back to back (the second once the first holds OUTPUT, while it still runs), in both orders.
    Every time: the valid run exits 0, the malformed 1, and OUTPUT holds the outcome of the run that finished last
    (all three score files, or none, and no temporary file); back to back, that is the run started last."""
    slug = "voc2011-classification"
    valid = make_input(tmp_path, slug, sample="random", name="valid")
    bad = make_input(tmp_path, slug, name="bad",
                     res=os.path.join(ROOT, "starting_kit", slug, "malformed", "not_a_number"))
    start = time.time()
    outcomes = []
    for i in range(16):
        out = tmp_path / ("out%d" % i)
        if i % 4 == 3:
            out.mkdir()         # an OUTPUT that exists, with an earlier run's scores in it
            (out / "scores.txt").write_text("mAP: 1\n")
        first, second = (valid, bad) if i % 2 else (bad, valid)
        runs = [subprocess.Popen([PY, score_py(slug), str(first), str(out)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)]
        if i < 8:
            time.sleep(0.01 * (i % 4))      # together: the second starts before the first holds OUTPUT
        else:
            holding(runs[0], out)           # back to back: the second starts while the first holds OUTPUT
        runs.append(subprocess.Popen([PY, score_py(slug), str(second), str(out)], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE))
        ended = {}
        while len(ended) < 2:
            for k, r in enumerate(runs):
                if k not in ended and r.poll() is not None:
                    ended[k] = time.perf_counter()
            time.sleep(0.002)
        for r in runs:
            r.communicate()
        last = max(ended, key=ended.get)
        codes = [r.returncode for r in runs]
        assert codes == ([1, 0] if first is bad else [0, 1]), (i, codes)
        names = sorted(os.listdir(str(out)))
        valid_last = (first, second)[last] is valid
        outcomes.append((i, valid_last, names))
        assert names == (["detailed_results.html", "scores.json", "scores.txt"] if valid_last else []), outcomes
        if i >= 8:
            assert last == 1, outcomes
    assert time.time() - start < 120        # 15 s on an idle machine, 55 to 65 s at a load of 8 on 2 cores


# ---------------------------------------------------------------------------------------------------------------
# 6. local runs: symbolic links, FIFOs, junk files

def validate(slug, res):
    return subprocess.run([PY, "-m", "scoring_program.validate", slug, str(res)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


def _first_result(inp):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(str(inp / "res")) for f in fs)[0]


def test_a_result_file_that_is_a_symbolic_link_is_refused_in_one_line(tmp_path):
    inp = make_input(tmp_path, "voc2011-classification", sample="random")
    secret = tmp_path / "secret.txt"
    secret.write_text("2011_000001 THE-TARGET-TEXT\n")
    target = _first_result(inp)
    os.unlink(target)
    os.symlink(str(secret), target)
    p = score("voc2011-classification", inp, tmp_path / "out")
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == ("submission error: results/VOC2011/Main/comp1_cls_test_aeroplane.txt: expected a regular "
                        "file; found a symbolic link, which the scorer does not open\n")
    assert "THE-TARGET-TEXT" not in p.stderr and not (tmp_path / "out" / "scores.txt").exists()
    v = validate("voc2011-classification", inp / "res")      # validate copies the folder: the link stays a link
    assert v.returncode == 1 and v.stderr == p.stderr


def test_a_result_file_that_is_a_fifo_is_refused_in_one_line_without_waiting(tmp_path):
    inp = make_input(tmp_path, "kinetics-tps")
    fifo = str(inp / "res" / "pred_part_result.json")
    os.unlink(fifo)
    os.mkfifo(fifo)
    p = score("kinetics-tps", inp, tmp_path / "out")        # opening it would wait for a writer: the timeout
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == ("submission error: pred_part_result.json: expected a regular file; found a named pipe "
                        "(FIFO), which the scorer does not open\n")
    v = validate("kinetics-tps", inp / "res")
    assert v.returncode == 1 and v.stderr == p.stderr


def test_links_and_fifos_the_scorer_does_not_read_are_only_ignored(tmp_path):
    """A link or a FIFO under a name the scorer never reads is listed as ignored like any other file, never opened."""
    inp = make_input(tmp_path, "kinetics-tps")
    os.mkfifo(str(inp / "res" / "notes.fifo"))
    os.symlink("/etc/hostname", str(inp / "res" / "notes.txt"))
    p = score("kinetics-tps", inp, tmp_path / "out")
    assert p.returncode == 0
    assert "will be ignored" in p.stderr and "notes.fifo" in p.stderr and "notes.txt" in p.stderr
    assert read_scores(tmp_path / "out")["score"] == 0.9998999999999062


def _junk_input(tmp_path, count):
    inp = make_input(tmp_path, "kinetics-tps")
    junk = inp / "res" / "junk"
    junk.mkdir()
    for k in range(count):
        open(str(junk / ("j%05d" % k)), "w").close()
    return inp


def test_20000_junk_files_are_summarised_not_listed(tmp_path):
    """20,000 empty files beside the results: the scores are the full ones, the ignored files take a bounded number
    of warning lines whatever their count, and the run stays quick (the walk and the labels are linear)."""
    inp = _junk_input(tmp_path, 20000)
    start = time.perf_counter()
    p = score("kinetics-tps", inp, tmp_path / "out")
    seconds = time.perf_counter() - start
    assert p.returncode == 0 and read_scores(tmp_path / "out")["score"] == 0.9998999999999062
    lines = p.stderr.splitlines()
    assert lines[-1].startswith("warning: 20000 files will be ignored: first junk/j00000 (") and lines[-1].endswith(
        ", then 'junk/j00001', 'junk/j00002', 'junk/j00003', 'junk/j00004', 'junk/j00005' and 19994 more"), lines
    assert len(lines) == 1, lines
    assert seconds < 20, seconds


def test_junk_files_are_one_warning_line(tmp_path):
    inp = _junk_input(tmp_path, 20000)
    p = score("kinetics-tps", inp, tmp_path / "out")
    assert p.returncode == 0
    lines = [l for l in p.stderr.splitlines() if "will be ignored" in l]
    assert len(lines) == 1 and lines[0].startswith("warning: 20000 files will be ignored: first "), lines
