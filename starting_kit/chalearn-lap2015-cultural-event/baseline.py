#!/usr/bin/env python3
"""A trivial baseline for ChaLearn LAP 2015 cultural event recognition: a random confidence per image and category.

    python baseline.py LABELS_DIR OUT_DIR [--seed 0]

LABELS_DIR holds the per-category lists (<Category>_<set>.txt, "<image id> <label>"; only the ids are read, so any
list of the evaluated images will do); OUT_DIR receives one <Category>.txt per category, ready to be zipped.
Standard library only.
"""
import argparse
import os
import random
import re
import sys

SETS = ("train", "val", "test", "trainval", "valid", "validation", "dev", "development", "final")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    rx = re.compile(r"(.+?)(?:_(%s))?\.txt" % "|".join(SETS))
    n = 0
    for name in sorted(os.listdir(args.labels_dir)):
        m = rx.fullmatch(name)
        if not m or m.group(1) in SETS:
            continue
        with open(os.path.join(args.labels_dir, name)) as f:
            ids = [ln.split()[0] for ln in f if ln.strip()]
        with open(os.path.join(args.out_dir, m.group(1) + ".txt"), "w", newline="\n") as f:
            f.writelines("%s %.6f\n" % (i, rng.random()) for i in ids)
        n += 1
    sys.stdout.write("wrote %d category file(s) to %s\n" % (n, args.out_dir))
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
