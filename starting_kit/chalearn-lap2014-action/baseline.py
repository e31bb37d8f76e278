#!/usr/bin/env python3
"""A prior baseline for ChaLearn LAP 2014 Track 2, no model: every action, over the whole of every sequence.

    python baseline.py DATA_DIR OUT_DIR [--actions 1-11] [--ids-out FILE]

DATA_DIR holds the test sequences' SeqXX_data.csv files (the number of frames is the first column of the last
row; nothing else is read). OUT_DIR receives one SeqXX_prediction.csv per sequence: for actors 1 and 2, each action
of --actions (default all 11) from the first frame to the last. The original evaluation ignores a predicted action
that a sequence does not have, so this prior scores, for each action a sequence has, the share of the sequence the
action covers: the score to beat, not a method. Replace `predict` with your model. Standard library only.
--ids-out FILE also writes the sequence names, one a line (the list `validate --ids` takes).
"""
import argparse
import os
import sys


def frames(path):
    with open(path) as f:
        rows = [ln for ln in f.read().splitlines() if ln.strip()]
    return int(rows[-1].split(",")[0])


def predict(sequence, num_frames, actions):
    """Your model here: [(actor, action, start frame, end frame + 1), ...] (the end frame is exclusive)."""
    return [(actor, action, 1, num_frames + 1) for actor in (1, 2) for action in actions]


def action_list(text):
    """'1-11' or '3,6,7' -> [1, ..., 11] or [3, 6, 7]."""
    out = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        out.extend(range(int(first), int(last or first) + 1))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--actions", type=action_list, default="1-11", help="action ids, e.g. 1-11 or 3,6 (default 1-11)")
    ap.add_argument("--ids-out", help="also write the sequence names here, one a line")
    args = ap.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    sequences = []
    for name in sorted(os.listdir(args.data_dir)):
        if not name.endswith("_data.csv"):
            continue
        seq = name[:-len("_data.csv")]
        rows = predict(seq, frames(os.path.join(args.data_dir, name)), args.actions)
        with open(os.path.join(args.out_dir, seq + "_prediction.csv"), "w", newline="\n") as f:
            f.write("\n".join("%d,%d,%d,%d" % row for row in rows))     # ActorID,ActionID,Start,End; no final newline
        sequences.append(seq)
    if args.ids_out:
        with open(args.ids_out, "w") as f:
            f.writelines(seq + "\n" for seq in sequences)
    sys.stdout.write("wrote %d prediction file(s) to %s\n" % (len(sequences), args.out_dir))
    return 0 if sequences else 1


if __name__ == "__main__":
    sys.exit(main())
