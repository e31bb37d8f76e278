"""python -m bench.ranking_example [--out PNG]: the README's picture of rescore's ranking page (issue 13).

Eight "teams" are made from the voc2011-classification starting kit (its perfect submission's labels plus Gaussian
noise of eight strengths, seeded), rescored with `rescore --bootstrap 1000`, and the ranking page is screenshotted in
headless Chromium (skipped with a message when no chromium is installed). `make samples` runs it.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUG = "voc2011-classification"
PICTURE = os.path.join(ROOT, "bench", "ranking-example.png")
NOISE = [0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 1.1, 1.4]
TEAMS = ["aurora", "basalt", "cirrus", "delta", "ember", "fjord", "gale", "heron"]


def make_teams(dest):
    """One submission folder per team under dest; returns their paths."""
    kit = os.path.join(ROOT, "starting_kit", SLUG, "submissions", "perfect")
    ref = os.path.join(ROOT, "reference_data", SLUG, "ImageSets", "Main")
    rng = np.random.RandomState(2011)
    out = []
    for team, sigma in zip(TEAMS, NOISE):
        folder = os.path.join(dest, team)
        for path in sorted(glob.glob(os.path.join(kit, "results", "VOC2011", "Main", "*.txt"))):
            cls = os.path.basename(path)[len("comp1_cls_test_"):-len(".txt")]
            with open(os.path.join(ref, "%s_test.txt" % cls)) as f:
                rows = [line.split() for line in f if line.strip()]
            ids = [r[0] for r in rows]
            truth = np.array([float(r[1]) > 0 for r in rows], dtype=np.float64)
            conf = truth + sigma * rng.randn(len(ids))
            rel = os.path.relpath(path, kit)
            os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
            with open(os.path.join(folder, rel), "w") as f:
                f.writelines("%s %.6f\n" % (i, c) for i, c in zip(ids, conf))
        out.append(folder)
    return out


def screenshot(page, png, width=1000, height=2150):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None:
        sys.stderr.write("bench.ranking_example: no chromium on PATH, %s not regenerated\n" % png)
        return False
    profile = tempfile.mkdtemp(prefix="chrome-")
    try:
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--hide-scrollbars", "--user-data-dir=" + profile, "--window-size=%d,%d" % (width, height),
                        "--screenshot=" + png, "file://" + os.path.abspath(page)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=True)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.ranking_example", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=PICTURE, help="the picture (default: bench/ranking-example.png)")
    ap.add_argument("--keep", default=None, help="keep the rescore folder here")
    a = ap.parse_args(argv)
    from scoring_program import rescore
    work = tempfile.mkdtemp(prefix="ranking-example-")
    try:
        teams = make_teams(os.path.join(work, "teams"))
        out = a.keep or os.path.join(work, "out")
        rescore.rescore(SLUG, os.path.join(ROOT, "reference_data", SLUG), teams, out, jobs=2,
                        progress=lambda r: None, resamples=1000, seed=0)
        if screenshot(os.path.join(out, "ranking.html"), a.out):
            print("wrote %s" % os.path.relpath(a.out, ROOT))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
