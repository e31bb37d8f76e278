"""Helpers for the adversarial tests (issue 20): run a scorer on a crafted submission as a worker does and measure
what it cost, side by side with an honest submission of the same size, in the same test.

    run = measured(slug, ref_dir, res_dir, tmp_path, name="attack")
    run.returncode, run.seconds, run.peak_rss (bytes, of the scorer process alone), run.stdout, run.stderr, run.out

    assert_bounded(attack, honest, input_bytes)   # the issue's bounds, one place

Peak RSS is the scorer's own ru_maxrss, read by a small launcher process that forks and execs it: a child forked
straight from pytest would start with pytest's pages in its RSS (fork copies the mappings; ru_maxrss keeps the
maximum across the exec), so a large test process would inflate every figure.
"""
import os
import subprocess
import sys
import time

from conftest import ROOT

MIB = 1024 * 1024
RSS_BASE = 256 * MIB        # the bound: peak RSS <= 256 MiB + 8x the input (unzipped submission + reference)
RSS_PER_INPUT_BYTE = 8


class Run(object):
    def __init__(self, returncode, seconds, peak_rss, stdout, stderr, out, cpu=None):
        self.returncode = returncode
        self.seconds = seconds
        self.cpu = seconds if cpu is None else cpu       # the scorer's own CPU seconds (user + system)
        self.peak_rss = peak_rss
        self.stdout = stdout
        self.stderr = stderr
        self.out = out

    def __repr__(self):
        return "Run(exit %d, %.2f s, %.2f s CPU, %.1f MiB, stderr %r)" % (
            self.returncode, self.seconds, self.cpu, self.peak_rss / MIB, self.stderr[-300:])


def folder_bytes(path):
    total = 0
    for root, _dirs, files in os.walk(str(path)):
        for name in files:
            p = os.path.join(root, name)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


# python -c LAUNCHER RUSAGE_FILE ARGV...: fork, exec ARGV in the child, wait, write its peak RSS in bytes, exit as it did
LAUNCHER = ("import os, sys\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    os.execv(sys.argv[2], sys.argv[2:])\n"
            "_, status, usage = os.wait4(pid, 0)\n"
            "open(sys.argv[1], 'w').write('%d %r' % (usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime))\n"
            "sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))\n")


def measured(slug, ref_dir, res_dir, tmp_path, name="run", args=(), timeout=600):
    """competitions/<slug>/score.py INPUT OUTPUT with INPUT/ref and INPUT/res symbolic links (nothing copied, so
    a large crafted submission costs the test no disk twice); returns a Run."""
    inp = tmp_path / name / "input"
    out = tmp_path / name / "output"
    inp.mkdir(parents=True)
    os.symlink(os.path.abspath(str(ref_dir)), str(inp / "ref"))
    os.symlink(os.path.abspath(str(res_dir)), str(inp / "res"))
    err_path = tmp_path / name / "stderr"
    out_path = tmp_path / name / "stdout"
    rusage = tmp_path / name / "peak_rss"
    argv = [sys.executable, "-c", LAUNCHER, str(rusage), sys.executable,
            os.path.join(ROOT, "competitions", slug, "score.py"), str(inp), str(out)] + list(args)
    start = time.perf_counter()
    with open(str(out_path), "wb") as so, open(str(err_path), "wb") as se:
        proc = subprocess.Popen(argv, stdout=so, stderr=se, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
    seconds = time.perf_counter() - start
    peak, cpu = rusage.read_text().split() if rusage.exists() else (0, seconds)
    return Run(proc.returncode, seconds, int(peak), out_path.read_text(errors="replace"),
               err_path.read_text(errors="replace"), out, float(cpu))


def best_of(slug, ref_dir, submissions, tmp_path, rounds=2, args=()):
    """{name: the run of least CPU time among `rounds`} for each submission folder of submissions (name -> folder),
    the runs interleaved round by round (a neighbour's burst on a shared machine hits one run, not a whole side);
    each run must exit 0."""
    runs = {}
    for k in range(rounds):
        for name, res in submissions.items():
            run = measured(slug, ref_dir, res, tmp_path, name="%s%d" % (name, k), args=args)
            assert run.returncode == 0, run
            best = runs.get(name)
            runs[name] = run if best is None or run.cpu < best.cpu else best
    return runs


def rss_bound(input_bytes):
    return RSS_BASE + RSS_PER_INPUT_BYTE * input_bytes


def assert_bounded(attack, honest, input_bytes, time_ratio=3.0, slack_seconds=2.0):
    """The attack's peak RSS is within the issue's bound for its input, and its time within time_ratio of the
    honest run's (of the same size, measured in the same test) plus slack_seconds. The time compared is the
    scorer's CPU time (user + system, from wait4), not the wall clock: on a loaded CI machine (make compat runs two
    suites on two cores) the wall clock measures the neighbours as much as the scorer, its CPU time does not."""
    assert attack.peak_rss <= rss_bound(input_bytes), (attack, input_bytes)
    assert attack.cpu <= time_ratio * honest.cpu + slack_seconds, (attack, honest)


def one_line(run):
    """The scorer's verdict on stderr is one line (progress lines aside), with no traceback."""
    lines = [l for l in run.stderr.splitlines() if l.strip() and not l.startswith("progress: ")]
    assert len(lines) == 1, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    assert len(lines[0]) <= 1000, lines[0][:300]
    return lines[0]
