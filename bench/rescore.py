"""Rescore throughput and the bootstrap's cost (issue 13): N voc2011-detection submissions at bench scale
(1,000,000 detections each).

    python -m bench.rescore [--n 50] [--jobs 2] [--bootstrap 1000] [--small 5] [--keep]

1. a shell-style loop of score.py, one process per submission;
2. `rescore --jobs J --bootstrap 0`: the ratio to the loop, and the time per submission against the scorer's time
   minus its reference loading (measured in-process, once);
3. `rescore --jobs J --bootstrap B`: the bootstrap's cost per submission per 100 resamples, as a share of one full
   scoring (the loop's time per submission);
4. memory: the peak RSS of the largest process of the rescore tree with the bootstrap, for --small submissions and
   for N (flat: the same).

The N submissions are copies of the bench's submission in which the confidences of one class's file are scaled per
copy (a distinct content hash, and distinct scores in that class). Prints every time and the ratios.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUG = "voc2011-detection"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--small", type=int, default=5, help="the smaller run of the memory check")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args(argv)
    sys.path.insert(0, ROOT)
    from bench.synth import get
    work = tempfile.mkdtemp(prefix="bench-rescore-")
    try:
        t0 = time.perf_counter()
        info = get(SLUG).make_bench(work)
        base_res = os.path.join(info["input"], "res")
        subs = os.path.join(work, "subs")
        os.makedirs(subs)
        files = sorted(os.listdir(base_res))
        for i in range(a.n):
            dest = os.path.join(subs, "sub%03d" % i)
            os.makedirs(dest)
            for k, name in enumerate(files):
                src = os.path.join(base_res, name)
                if k == i % len(files):              # one class's file differs per copy: its confidences scaled
                    with open(src) as f:
                        lines = f.readlines()
                    factor = 1.0 - 0.6 * (i + 1) / float(a.n + 1)
                    rows = [ln.split(" ", 2) for ln in lines]
                    with open(os.path.join(dest, name), "w") as f:
                        f.writelines("%s %r %s" % (r[0], float(r[1]) * factor if (j * 7919 + i) % 3 else
                                                   float(r[1]), r[2]) for j, r in enumerate(rows))
                else:
                    os.link(src, os.path.join(dest, name))
        print("data: %s, %d submissions (%.1f s to generate)" % (info["what"], a.n, time.perf_counter() - t0))
        ref = os.path.join(info["input"], "ref")
        score_py = os.path.join(ROOT, "competitions", SLUG, "score.py")

        t0 = time.perf_counter()
        for i in range(a.n):
            inp = os.path.join(work, "loop", "sub%03d" % i, "input")
            os.makedirs(inp)
            os.symlink(ref, os.path.join(inp, "ref"))
            os.symlink(os.path.join(subs, "sub%03d" % i), os.path.join(inp, "res"))
            subprocess.run([sys.executable, score_py, inp, os.path.join(work, "loop", "sub%03d" % i, "out")],
                           check=True, capture_output=True)
        loop = time.perf_counter() - t0
        print("loop of score.py: %.1f s (%.2f s per submission)" % (loop, loop / a.n))

        from scoring_program.rescore import SUBMISSIONS
        from scoring_program.tasks import registry
        t0 = time.perf_counter()
        registry.get(SLUG).load_reference(ref)
        ref_load = time.perf_counter() - t0
        print("reference loading alone (in-process): %.2f s; the scorer's time minus it: %.2f s per submission"
              % (ref_load, loop / a.n - ref_load))

        def run_rescore(n, boot, out):
            t0 = time.perf_counter()
            p = subprocess.Popen([sys.executable, "-m", "scoring_program.rescore", SLUG, "--ref", ref] +
                                 [os.path.join(subs, "sub%03d" % i) for i in range(n)] +
                                 ["--out", os.path.join(work, out), "--jobs", str(a.jobs), "--bootstrap", str(boot)],
                                 cwd=ROOT, stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(p.pid, 0)
            if status != 0:
                raise SystemExit("rescore failed (status %d)" % status)
            return time.perf_counter() - t0, usage.ru_maxrss / 1024.0

        rescored, peak = run_rescore(a.n, 0, "rescored")
        print("rescore --jobs %d --bootstrap 0: %.1f s (%.2f s per submission); %.2fx the loop (target >= 1.8x); "
              "per submission per job %.2f s (target <= %.2f s: the scorer minus its reference loading); peak RSS "
              "%.0f MiB" % (a.jobs, rescored, rescored / a.n, loop / rescored, rescored * a.jobs / a.n,
                            loop / a.n - ref_load, peak))
        same = all(open(os.path.join(work, "loop", "sub%03d" % i, "out", "scores.txt")).read() ==
                   open(os.path.join(work, "rescored", SUBMISSIONS, "sub%03d" % i, "scores.txt")).read()
                   for i in range(a.n))
        print("scores identical to the loop's: %s" % same)
        if a.bootstrap:
            booted, peak_n = run_rescore(a.n, a.bootstrap, "booted")
            extra = (booted - rescored) * a.jobs / a.n          # CPU-seconds of bootstrap per submission
            share = extra / (a.bootstrap / 100.0) / (loop / a.n)
            print("rescore --jobs %d --bootstrap %d: %.1f s; the bootstrap adds %.2f s per submission per job, "
                  "%.1f%% of one full scoring per 100 resamples (target < 10%%); peak RSS %.0f MiB"
                  % (a.jobs, a.bootstrap, booted, extra, 100 * share, peak_n))
            _, peak_small = run_rescore(a.small, a.bootstrap, "booted-small")
            print("memory: peak RSS of the largest rescore process, %d submissions: %.0f MiB; %d submissions: "
                  "%.0f MiB (flat: %s)" % (a.small, peak_small, a.n, peak_n,
                                           "yes" if peak_n <= 1.1 * peak_small else "NO"))
        return 0 if same else 1
    finally:
        if a.keep:
            print("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
