#!/usr/bin/env python3
"""A chance-level baseline that writes a valid VOC2011 action submission: the same confidence for every person.

    python baseline.py VOC2011_DIR OUT_DIR [--set=test] [--comp=9]

Reads the persons (image id, object index) of each action from VOC2011_DIR/ImageSets/Action/<action>_<set>.txt:
only the first two fields of a line are read (the test set's lists have no label; a list that has one, as the
sample's, keeps it unread). Writes OUT_DIR/comp9_action_<set>_<action>.txt with one line per person, all with
confidence 0, which the devkit ranks in list order: chance level. Replace `predict` with your classifier. Zip the
CONTENTS of OUT_DIR to submit.
"""
import os
import sys

ACTIONS = ("jumping", "phoning", "playinginstrument", "reading", "ridingbike", "ridinghorse", "running",
           "takingphoto", "usingcomputer", "walking")


def predict(action, img, obj):
    """Your classifier here. The baseline: a constant, which ranks persons in list order."""
    return 0.0


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    voc, out = args
    set_name, comp = opts.get("set", "test"), int(opts.get("comp", "9"))
    os.makedirs(out, exist_ok=True)
    for action in ACTIONS:
        with open(os.path.join(voc, "ImageSets", "Action", "%s_%s.txt" % (action, set_name))) as f:
            persons = [line.split()[:2] for line in f if line.strip()]
        with open(os.path.join(out, "comp%d_action_%s_%s.txt" % (comp, set_name, action)), "w") as f:
            for img, obj in persons:
                f.write("%s %s %.6f\n" % (img, obj, predict(action, img, int(obj))))
    print("wrote %d files to %s" % (len(ACTIONS), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
