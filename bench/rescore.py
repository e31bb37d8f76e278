"""Rescore throughput (issue 13): N voc2011-detection submissions at bench scale (1,000,000 detections each),
scored by `rescore --jobs J` and by a shell-style loop of score.py, one process per submission.

    python -m bench.rescore [--n 50] [--jobs 2] [--keep]

The N submissions are copies of the bench's submission with the confidences of one class shifted per copy, so
each is a distinct file set (and a distinct content hash). Prints both wall times, the ratio, and the peak RSS of
the rescore process tree's largest member.
"""
import argparse
import os
import resource
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
                if k == i % len(files):              # one file per copy differs: its first line's confidence
                    with open(src) as f:
                        lines = f.readlines()
                    head = lines[0].split(" ")
                    head[1] = repr(float(head[1]) + 1e-3 * (i + 1))
                    lines[0] = " ".join(head)
                    with open(os.path.join(dest, name), "w") as f:
                        f.writelines(lines)
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

        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "scoring_program.rescore", SLUG, "--ref", ref] +
                       [os.path.join(subs, "sub%03d" % i) for i in range(a.n)] + ["--out",
                        os.path.join(work, "rescored"), "--jobs", str(a.jobs)], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        rescored = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
        print("rescore --jobs %d: %.1f s (%.2f s per submission); %.2fx the loop; peak RSS of one process %.0f MiB"
              % (a.jobs, rescored, rescored / a.n, loop / rescored, peak))
        same = all(open(os.path.join(work, "loop", "sub%03d" % i, "out", "scores.txt")).read() ==
                   open(os.path.join(work, "rescored", "sub%03d" % i, "scores.txt")).read() for i in range(a.n))
        print("scores identical to the loop's: %s" % same)
        return 0 if same else 1
    finally:
        if a.keep:
            print("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
