"""The full level's "Beyond AP at IoU 0.5" table (issue 23, Deliver 5): AP at IoU 0.75, the maximum recall per class
and TIDE's false-positive / false-negative split (metrics.tide.special_delta_ap), for voc2011-detection and
action-tubes' frame-AP. Numbers computed by hand on tiny cases, AP@0.75 against the same AP code run at 0.75 on its
own, and the table kept from the hidden level.

The detection case, class car, three objects (not difficult), every box (xmin, ymin, xmax, ymax) with VOC's +1:
  image A: object (0, 0, 99, 99);  image B: objects (0, 0, 99, 99) and (300, 300, 349, 349).
  detections, ranked: d1 A 0.9 (0, 0, 99, 99), IoU 1 -> TP at 0.5 and 0.75;
                      d3 A 0.85 (200, 200, 250, 250), no overlap -> FP;
                      d2 B 0.8 (0, 0, 99, 59), IoU 100*60 / 10000 = 0.6 -> TP at 0.5, FP at 0.75.
  AP@0.5 (VOCap.m): recall 1/3, 1/3, 2/3 at precision 1, 1/2, 2/3 -> 1/3 * 1 + 1/3 * 2/3 = 5/9.
  AP@0.75: one TP at rank 1 -> 1/3 * 1 = 1/3.  Max recall: 2 of 3 = 2/3.
  FP fixed (every FP below every TP): recall 1/3, 2/3 at precision 1 -> 2/3: dAP 2/3 - 5/9 = 1/9.
  FN fixed (the missed object leaves the positives, npos 2): 1/2 * 1 + 1/2 * 2/3 = 5/6: dAP 5/6 - 5/9 = 5/18.
"""
import os

import numpy as np
import pytest

from bench.synth.voc2011_detection import annotation_xml
from conftest import run_score
from privacy import hidden_sees_only_scores
from scoring_program.formats.files import Submission
from scoring_program.metrics import tubes as M
from scoring_program.metrics.detection import voc_det_ap
from scoring_program.metrics.tide import SPECIAL_TYPES
from scoring_program.report.result import LOST
from scoring_program.tasks.voc2011_detection import TASK, counted_objects

OBJECTS = {"2011_000001": [{"name": "car", "box": (0, 0, 99, 99)}],
           "2011_000002": [{"name": "car", "box": (0, 0, 99, 99)}, {"name": "car", "box": (300, 300, 349, 349)}]}
CAR = ("2011_000001 0.9 0 0 99 99\n"
       "2011_000002 0.8 0 0 99 59\n"
       "2011_000001 0.85 200 200 250 250\n")


def make_ref(root, objects):
    os.makedirs(os.path.join(root, "ImageSets", "Main"))
    os.makedirs(os.path.join(root, "Annotations"))
    with open(os.path.join(root, "ImageSets", "Main", "test.txt"), "w") as f:
        f.write("".join(i + "\n" for i in sorted(objects)))
    for i, objs in objects.items():
        with open(os.path.join(root, "Annotations", i + ".xml"), "w") as f:
            f.write(annotation_xml(i, objs))
    return root


def make_res(root, files):
    os.makedirs(root)
    for name, text in files.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(text)
    return root


def beyond(result):
    """The rows of the "Beyond AP at IoU 0.5" table ({first cell: the four numbers}), None without it."""
    for section in result.sections:
        if section.title == LOST:
            for block in section.blocks:
                if getattr(block, "title", "").startswith("Beyond AP at IoU 0.5"):
                    assert block.header == ["class", "AP@0.75", "max recall", "dAP: FP", "dAP: FN"]
                    return {row[0]: row[1:] for row in block.rows}
    return None


@pytest.fixture
def case(tmp_path):
    return (make_ref(str(tmp_path / "ref"), OBJECTS),
            make_res(str(tmp_path / "res"), {"comp3_det_test_car.txt": CAR}))


def test_detection_by_hand(case):
    ref, res = case
    result = TASK.score(ref, Submission(res), analyses=True)
    assert result.scores["AP_car"] == pytest.approx(5 / 9., abs=1e-15)
    rows = beyond(result)
    assert list(rows) == ["mean over 1 class", "car"]          # the only class with objects
    assert rows["car"] == pytest.approx([1 / 3., 2 / 3., 1 / 9., 5 / 18.], abs=1e-15)
    assert rows["mean over 1 class"] == rows["car"]
    assert SPECIAL_TYPES == ("false positives", "false negatives")


def test_detection_hidden_level_computes_no_analysis(case):
    ref, res = case
    result = TASK.score(ref, Submission(res), analyses=False)
    assert result.sections == [] and result.plots == []
    assert result.scores == TASK.score(ref, Submission(res), analyses=True).scores


def test_detection_table_only_at_the_full_level(case, tmp_path):
    """Through score.py: the table at --report full, nothing of it at the hidden level, where the page is a function
    of the scores alone (privacy.hidden_sees_only_scores, against a reference where image A holds a second car
    under d3: AP@0.75, max recall and the FP/FN split would change, and so does the score)."""
    ref, res = case
    full, out = run_score("voc2011-detection", ref, res, tmp_path, name="full", level="full")
    assert full.returncode == 0, full.stderr
    page = (out / "detailed_results.html").read_text(encoding="utf-8")
    assert "Beyond AP at IoU 0.5" in page and "<td>AP@0.75</td>" not in page and "<th>AP@<wbr>0.75</th>" in page
    hidden, out = run_score("voc2011-detection", ref, res, tmp_path, name="hidden", level=None)
    assert hidden.returncode == 0, hidden.stderr
    page = (out / "detailed_results.html").read_text(encoding="utf-8")
    assert "AP@0.75" not in page and "max recall" not in page and "dAP" not in page
    moved = dict(OBJECTS, **{"2011_000001": [{"name": "car", "box": (0, 0, 99, 99)},
                                             {"name": "car", "box": (200, 200, 250, 250)}]})
    ref_b = make_ref(str(tmp_path / "ref-b"), moved)
    TASK._cached = None
    assert TASK.score(ref_b, Submission(res)).scores["AP_car"] == 0.75      # 3 TPs of 4 objects: the scores differ
    ra, rb = hidden_sees_only_scores("voc2011-detection", res, ref, ref_b, tmp_path)
    assert beyond(ra) is None and beyond(rb) is None


def test_detection_ap75_against_the_same_ap_run_at_075():
    """Random small scenes: the evaluation's AP@0.75 (one matching, the candidates reused at 0.75) equals
    voc_det_ap(min_overlap=0.75) run class by class on its own, and the max recall the TPs at 0.5 over npos."""
    rng = np.random.RandomState(7)
    for trial in range(40):
        nimg = rng.randint(1, 5)
        objects, lines = {}, {}
        for i in range(nimg):
            image = "2011_%06d" % (i + 1)
            objects[image] = []
            for _ in range(rng.randint(0, 4)):
                x, y = rng.randint(0, 60, 2)
                objects[image].append({"name": ("car", "dog")[rng.randint(2)],
                                       "box": (x, y, x + rng.randint(5, 40), y + rng.randint(5, 40)),
                                       "difficult": int(rng.rand() < 0.2)})
            for _ in range(rng.randint(0, 6)):
                x, y = rng.randint(0, 60, 2)
                cls = ("car", "dog")[rng.randint(2)]
                lines.setdefault(cls, []).append("%s %.2f %d %d %d %d\n" % (
                    image, rng.rand(), x, y, x + rng.randint(5, 40), y + rng.randint(5, 40)))
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            ref = make_ref(os.path.join(tmp, "ref"), objects)
            res = make_res(os.path.join(tmp, "res"), {"comp3_det_test_%s.txt" % c: "".join(v)
                                                      for c, v in lines.items()})
            TASK._cached = None
            reference = TASK.reference(ref)
            submitted = TASK.read_submission(Submission(res), reference, lambda *a: None)
            evaluation = TASK.evaluate(reference, submitted, lambda *a: None, False, True)
        gt = reference.data
        for record in evaluation.classes:
            k = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
                 "diningtable", "dog").index(record.name) if record.name in ("car", "dog") else None
            if k is None or record.ap is None:
                assert record.ap75 is None
                continue
            g = gt.cls == k
            text = "".join(lines.get(record.name, []))
            rows = [l.split() for l in text.splitlines()]
            ids = [i.decode() for i in gt.ids.tolist()]
            ap75 = voc_det_ap([float(r[1]) for r in rows], [ids.index(r[0]) for r in rows],
                              np.array([[float(v) for v in r[2:]] for r in rows]).reshape(-1, 4), gt.img[g],
                              gt.boxes[g], gt.difficult[g], len(ids), min_overlap=0.75)[0]
            assert record.ap75 == ap75, (trial, record.name)
            assert record.ntp == int(np.count_nonzero(evaluation.gt_matched[g]))
        assert counted_objects(gt).size == int(np.count_nonzero((gt.cls >= 0) & ~gt.difficult))


# ---- action-tubes frame-AP (ACT frameAP: float32 scores, trapezoid AP from (0, 1)) -----------------------------
# One class, two frames (keys 0 and 1), a ground-truth box (0, 0, 99, 99) in each; detections ranked:
#   key 0, 0.9, (0, 0, 99, 99): IoU 1 -> TP at 0.5 and 0.75;  key 0, 0.85, (200, 200, 250, 250): FP;
#   key 1, 0.8, (0, 0, 99, 59): IoU 0.6 -> TP at 0.5, FP at 0.75.
# AP@0.5: points (0, 1), (1/2, 1), (1/2, 1/2), (1, 2/3): 1/2 * (1 + 1) / 2 + 0 + 1/2 * (1/2 + 2/3) / 2 = 19/24.
# AP@0.75: (0, 1), (1/2, 1), (1/2, 1/2), (1/2, 1/3): 1/2.  Max recall 1.
# FP fixed: (1/2, 1), (1, 1): 1 -> dAP 5/24.  FN fixed: nothing missed -> dAP 0.
DET_KEY = np.array([0, 1, 0])
DET_SCORE = np.array([0.9, 0.8, 0.85])
DET_BOX = np.array([[0, 0, 99, 99], [0, 0, 99, 59], [200, 200, 250, 250]], dtype=float)
GT_KEY = np.array([0, 1])
GT_BOX = np.array([[0, 0, 99, 99], [0, 0, 99, 99]], dtype=float)


def test_frame_ap_by_hand():
    label, gt_class = np.zeros(3, dtype=np.int64), np.zeros(2, dtype=np.int64)
    m = M.frame_match(label, DET_KEY, DET_SCORE, DET_BOX, gt_class, GT_KEY, GT_BOX, also=(0.75,))
    npos = np.bincount(gt_class, minlength=1)
    aps, _ = M.class_aps(m.tp[m.order], label[m.order], npos, 1)
    aps75, _ = M.class_aps(m.tp_at[0][m.order], label[m.order], npos, 1)
    assert aps[0] == pytest.approx(19 / 24., abs=1e-15) and aps75[0] == pytest.approx(0.5, abs=1e-15)
    assert int(m.tp.sum()) / 2. == 1.0                          # max recall
    tide, _ = M.frame_tide(label, DET_KEY, DET_BOX, gt_class, GT_KEY, GT_BOX, m, 1)
    assert tide.special[:, 0] == pytest.approx([5 / 24., 0.0], abs=1e-15)
    # the independent computation: ACT's frameAP run at 0.75 on its own
    assert M.frame_ap(label, DET_KEY, DET_SCORE, DET_BOX, gt_class, GT_KEY, GT_BOX, 1, th=0.75)[0][0] == aps75[0]


def test_frame_ap75_against_frame_ap_at_075():
    rng = np.random.RandomState(3)
    for trial in range(60):
        n, g, C = rng.randint(0, 30), rng.randint(1, 10), 2
        det_key, gt_key = rng.randint(0, 4, n), rng.randint(0, 4, g)
        xy = rng.randint(0, 40, (n, 2))
        det_box = np.concatenate([xy, xy + rng.randint(5, 30, (n, 2))], axis=1).astype(float)
        xy = rng.randint(0, 40, (g, 2))
        gt_box = np.concatenate([xy, xy + rng.randint(5, 30, (g, 2))], axis=1).astype(float)
        label, gt_class = rng.randint(0, C, n), rng.randint(0, C, g)
        score = np.round(rng.rand(n), 2)
        m = M.frame_match(label, det_key, score, det_box, gt_class, gt_key, gt_box, also=(0.75,))
        aps75 = M.class_aps(m.tp_at[0][m.order], label[m.order], np.bincount(gt_class, minlength=C), C)[0]
        alone = M.frame_ap(label, det_key, score, det_box, gt_class, gt_key, gt_box, C, th=0.75)
        assert aps75.tolist() == alone[0].tolist() and m.tp_at[0].tolist() == alone[2].tolist(), trial


# ---- issue 31: the matching's candidates, chunk by chunk, are the devkit loop's -------------------------------

def devkit_candidates(det_group, det_boxes, gt_group, gt_boxes):
    """VOCevaldet.m's inner loop, transliterated: per detection, over its image's objects in index (XML) order,
    `if iw>0 & ih>0: ov=iw*ih/ua; if ov>ovmax: ovmax=ov; jmax=j` (Python floats: the same IEEE operations, in the
    order of metrics.overlap.iou_columns_plus1)."""
    cand, ovmax = [], []
    for g, bb in zip(det_group, det_boxes):
        best, arg = -np.inf, -1
        for j in np.flatnonzero(gt_group == g):
            gt = gt_boxes[j]
            iw = min(bb[2], gt[2]) - max(bb[0], gt[0]) + 1.0
            ih = min(bb[3], gt[3]) - max(bb[1], gt[1]) + 1.0
            if iw > 0 and ih > 0:
                inter = iw * ih
                ua = (bb[2] - bb[0] + 1.0) * (bb[3] - bb[1] + 1.0) + (gt[2] - gt[0] + 1.0) * (gt[3] - gt[1] + 1.0)
                ua -= inter
                ov = inter / ua if ua != 0 else (np.inf if inter > 0 else np.nan)
                if ov > best:
                    best, arg = ov, int(j)
        cand.append(arg)
        ovmax.append(best)
    return np.array(cand, dtype=np.int64), np.array(ovmax, dtype=np.float64)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunk", [1, 2, 7, 1 << 15])
@pytest.mark.parametrize("heavy", [1, 9, 1 << 11])
def test_best_candidates_in_chunks_are_the_devkit_loops(seed, chunk, heavy):
    """Ties (integer boxes on a small grid: equal overlaps, the first in XML order wins), boxes that touch, boxes of
    negative size, groups without objects and detections at chunk edges: the same candidate and the same bits,
    whichever groups face their objects as scalars (heavy 1: every group, 9: some, 2048: none)."""
    from scoring_program.metrics.detection import best_candidates
    rng = np.random.RandomState(seed)
    ngroups = 4
    det_group = rng.randint(0, ngroups, 40)
    gt_group = rng.choice([0, 1, 1, 2, 2, 2], 12)          # group 3: no object
    corner = rng.randint(0, 12, (40, 2))
    det_boxes = np.concatenate([corner, corner + rng.randint(-3, 9, (40, 2))], axis=1).astype(float)
    corner = rng.randint(0, 12, (12, 2))
    gt_boxes = np.concatenate([corner, corner + rng.randint(0, 9, (12, 2))], axis=1).astype(float)
    cand, ovmax = best_candidates(det_group.astype(np.int32), det_boxes, gt_group, gt_boxes, ngroups, chunk=chunk,
                                  heavy=heavy)
    want_cand, want_ov = devkit_candidates(det_group, det_boxes, gt_group, gt_boxes)
    assert cand.tolist() == want_cand.tolist()
    assert ovmax.tobytes() == want_ov.tobytes()
    assert (cand >= 0).sum() >= 5 and (cand < 0).sum() >= 5      # both kinds are exercised


def test_best_candidates_by_hand_first_maximum_and_huge_coordinates():
    """One image, objects O0 (0, 0, 9, 9), O1 = O0 again, O2 (0, 0, 4, 9) (XML order). d0 = O0: overlap 1 with O0
    and O1, the first wins -> O0. d1 (0, 0, 4, 9): 50/100 = 0.5 with O0 and O1, 1 with O2 -> O2. d2 (20, 20, 30, 30)
    meets none -> -1, -inf. d3 (0, 0, 1e308, 1e308): the union overflows to inf, the overlap is 0 (not NaN) with each
    -> O0 at 0.0 (0 > -inf). d4 in an image without objects -> -1."""
    from scoring_program.metrics.detection import best_candidates
    gt = np.array([[0, 0, 9, 9], [0, 0, 9, 9], [0, 0, 4, 9]], dtype=float)
    det = np.array([[0, 0, 9, 9], [0, 0, 4, 9], [20, 20, 30, 30], [0, 0, 1e308, 1e308], [0, 0, 9, 9]], dtype=float)
    for chunk, heavy in ((1, 1), (2, 1), (1 << 15, 1), (1, 1 << 11), (1 << 15, 1 << 11)):
        cand, ovmax = best_candidates([0, 0, 0, 0, 1], det, [0, 0, 0], gt, 2, chunk=chunk, heavy=heavy)
        assert cand.tolist() == [0, 2, -1, 0, -1]
        assert ovmax.tolist() == [1.0, 1.0, -np.inf, 0.0, -np.inf]
