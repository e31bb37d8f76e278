"""What the participant sees (report, scores, stdout, stderr) holds aggregates only (issue 12): scoring the same
submission against two references that differ only in ONE test item's labels gives outputs that differ only in
numbers. Numbers are masked, so a per-item NUMBER (pose's per-sequence-and-actor counts, removed) is not caught
here; per-item names and labels are. The audit of all ten competitions is issue 12's."""
import os
import re
import shutil

import numpy as np

from conftest import ROOT, run_score

NUMBER = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?")


def _seen(proc, out):
    """Everything the participant sees, with every number masked."""
    parts = [proc.stdout, proc.stderr]
    for name in ("scores.txt", "scores.json", "detailed_results.html"):
        with open(os.path.join(str(out), name), encoding="utf-8") as f:
            parts.append(f.read())
    text = "\n".join(parts)
    text = re.sub(r"scores written to \S+", "scores written to OUT", text)
    return NUMBER.sub("#", text)


def _both(slug, modify, tmp_path):
    ref_a = os.path.join(ROOT, "reference_data", slug)
    ref_b = str(tmp_path / "ref_b")
    shutil.copytree(ref_a, ref_b)
    modify(ref_b)
    res = os.path.join(ROOT, "starting_kit", slug, "submissions", "random")
    pa, oa = run_score(slug, ref_a, res, tmp_path, name="a")
    pb, ob = run_score(slug, ref_b, res, tmp_path, name="b")
    assert pa.returncode == 0 and pb.returncode == 0, (pa.stderr, pb.stderr)
    return (pa, oa), (pb, ob)


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
    (pa, oa), (pb, ob) = _both("chalearn-lap2014-action", relabel_one_instance, tmp_path)
    assert (oa / "scores.txt").read_text() != (ob / "scores.txt").read_text()     # the change is scored...
    assert _seen(pa, oa) == _seen(pb, ob)                                           # ...and only numbers show it


def test_pose_report_shows_no_per_panorama_annotation_counts(tmp_path):
    def blank_one_limb(ref):
        from PIL import Image
        path = os.path.join(ref, sorted(n for n in os.listdir(ref) if n.endswith(".png"))[0])
        arr = np.array(Image.open(path).convert("L"))
        arr[:, :480] = 0                                             # the head of one panorama is no longer annotated
        Image.fromarray(arr).save(path)
    (pa, oa), (pb, ob) = _both("chalearn-lap2014-pose", blank_one_limb, tmp_path)
    assert (oa / "scores.txt").read_text() != (ob / "scores.txt").read_text()
    assert _seen(pa, oa) == _seen(pb, ob)
