#!/usr/bin/env python3
"""A trivial baseline for ChaLearn LAP 2014 Track 2: predict one action over the whole of every sequence.

    python baseline.py DATA_DIR OUT_DIR [--action 6]

DATA_DIR holds SeqXX_data.csv files (the number of frames is the first column of the last row); OUT_DIR receives
one SeqXX_prediction.csv per sequence, ready to be zipped and submitted. Standard library only.
"""
import argparse
import os
import sys


def frames(path):
    with open(path) as f:
        rows = [ln for ln in f.read().splitlines() if ln.strip()]
    return int(rows[-1].split(",")[0])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--action", type=int, default=6, help="action id 1..11 (default 6, Walk)")
    args = ap.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(args.data_dir)):
        if not name.endswith("_data.csv"):
            continue
        seq = name[:-len("_data.csv")]
        end = frames(os.path.join(args.data_dir, name)) + 1        # the end frame is exclusive
        with open(os.path.join(args.out_dir, seq + "_prediction.csv"), "w", newline="\n") as f:
            f.write("1,%d,1,%d" % (args.action, end))              # ActorID,ActionID,Start,End; no final newline
        n += 1
    sys.stdout.write("wrote %d prediction file(s) to %s\n" % (n, args.out_dir))
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
