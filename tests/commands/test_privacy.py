"""Privacy of ChaLearn action and pose (the two leaks issue 12 measured); the other eight competitions' privacy
tests sit in their own test files and use the same helpers (tests/privacy.py)."""
import os

import numpy as np

from conftest import ROOT
from privacy import no_item_ids, only_numbers_differ


def test_chalearn_action_report_shows_no_sequence_labels(tmp_path):
    def relabel_one_instance(ref):
        # Seq01's Fight (11) instances become Run (9): the actions scored over the whole set stay the same (Fight
        # and Run are both in Seq04), only what Seq01 holds changes
        path = os.path.join(ref, "Seq01_labels.csv")
        with open(path) as f:
            rows = [line.split(",") for line in f.read().split()]
        assert [r[0] for r in rows].count("11") == 2
        rows = [["9"] + r[1:] if r[0] == "11" else r for r in rows]
        with open(path, "w") as f:
            f.write("".join(",".join(r) + "\n" for r in rows))
    only_numbers_differ("chalearn-lap2014-action", relabel_one_instance, tmp_path)


def test_pose_report_shows_no_per_panorama_annotation_counts(tmp_path):
    def blank_one_limb(ref):
        from PIL import Image
        path = os.path.join(ref, sorted(n for n in os.listdir(ref) if n.endswith(".png"))[0])
        arr = np.array(Image.open(path).convert("L"))
        arr[:, :480] = 0                                             # the head of one panorama is no longer annotated
        Image.fromarray(arr).save(path)
    only_numbers_differ("chalearn-lap2014-pose", blank_one_limb, tmp_path)


def test_chalearn_action_names_no_test_sequence(tmp_path):
    ids = sorted(n.split("_")[0] for n in os.listdir(os.path.join(ROOT, "reference_data", "chalearn-lap2014-action"))
                 if n.endswith("_labels.csv"))
    assert len(ids) >= 3
    no_item_ids("chalearn-lap2014-action", ids, tmp_path, submission="perfect")
