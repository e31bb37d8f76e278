"""action-tubes: hand-computed scenarios for every rule of the issue, an ACT frameAP oracle, format checks."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring_program.errors import SubmissionError
from scoring_program.formats import tubes as fmt
from scoring_program.formats.files import Submission
from scoring_program.metrics import tubes as M
from scoring_program.tasks.action_tubes import TASK


def box(x1, y1, x2, y2):
    return [x1, y1, x2, y2]


def frame_ap1(dets, gts, nclasses=1, th=0.5):
    """dets: (class, key, score, box); gts: (class, key, box)."""
    d = list(zip(*dets)) if dets else [[], [], [], []]
    g = list(zip(*gts))
    aps, curves, tp = M.frame_ap(np.array(d[0], dtype=np.int64), np.array(d[1], dtype=np.int64),
                                 np.array(d[2], dtype=np.float64), np.array(d[3], dtype=np.float64).reshape(-1, 4),
                                 np.array(g[0]), np.array(g[1]), np.array(g[2], dtype=np.float64), nclasses, th)
    return aps, tp


GOOD = box(0, 0, 9, 9)
BAD = box(100, 100, 109, 109)


# ---------------------------------------------------------------------------------------------- frame-AP

def test_float32_score_ties_keep_file_order():
    # 0.5 and 0.5 + 1e-9 differ in float64 but are equal in float32: the FP written first ranks first
    aps, tp = frame_ap1([(0, 1, 0.5, BAD), (0, 1, 0.5 + 1e-9, GOOD)], [(0, 1, GOOD)])
    assert tp.tolist() == [False, True]
    assert aps[0] == pytest.approx(0.25)   # points (0,1) (0,0) (1,0.5): 0 + 1 * 0.5 / 2
    # a float32-distinct score does reorder
    aps, _ = frame_ap1([(0, 1, 0.5, BAD), (0, 1, 0.5001, GOOD)], [(0, 1, GOOD)])
    assert aps[0] == pytest.approx(1.0)


def test_consumed_gt_second_detection_takes_the_remaining_box():
    a, b = box(0, 0, 9, 9), box(0, 0, 9, 6)          # IoU(a, b) = 70/100
    # det1 == a takes a; det2 == a: best remaining is b at 0.7 >= 0.5: TP (VOC's rule would say FP)
    aps, tp = frame_ap1([(0, 1, 0.9, a), (0, 1, 0.8, a)], [(0, 1, a), (0, 1, b)])
    assert tp.tolist() == [True, True]
    assert aps[0] == pytest.approx(1.0)
    # remaining box below the threshold: FP although the consumed one matched perfectly
    c = box(0, 0, 9, 2)                              # IoU(a, c) = 0.3
    aps, tp = frame_ap1([(0, 1, 0.9, a), (0, 1, 0.8, a)], [(0, 1, a), (0, 1, c)])
    assert tp.tolist() == [True, False]
    assert aps[0] == pytest.approx(0.5 * (1 + 1) / 2)  # (0,1) (0.5,1) (0.5,0.5)


def test_argmax_over_remaining_first_of_equal_ious():
    a = box(0, 0, 9, 9)
    aps, tp = frame_ap1([(0, 1, 0.9, a), (0, 1, 0.8, a), (0, 1, 0.7, a)], [(0, 1, a), (0, 1, a)])
    assert tp.tolist() == [True, True, False]


def test_no_gt_in_frame_other_class_or_other_frame_is_false_positive():
    aps, tp = frame_ap1([(0, 2, 0.9, GOOD), (1, 1, 0.8, GOOD), (0, 1, 0.1, GOOD)], [(0, 1, GOOD)], nclasses=2)
    assert tp.tolist() == [False, False, True]
    assert aps[0] == pytest.approx(0.25) and aps[1] == 0.0


def test_iou_threshold_is_inclusive_and_plus_one_pixel():
    g = box(0, 0, 9, 9)
    d = box(0, 0, 9, 4)          # +1 pixel: 50 / 100 = 0.5 exactly (without +1 it would be 36/81)
    aps, tp = frame_ap1([(0, 1, 0.9, d)], [(0, 1, g)])
    assert tp.tolist() == [True]


def test_trapezoid_without_envelope():
    # TP, FP, TP with 2 GT boxes: points (0,1) (.5,1) (.5,.5) (1,2/3)
    g1, g2 = (0, 1, GOOD), (0, 2, GOOD)
    aps, _ = frame_ap1([(0, 1, 0.9, GOOD), (0, 3, 0.8, GOOD), (0, 2, 0.7, GOOD)], [g1, g2])
    assert aps[0] == pytest.approx(0.5 * (1 + 1) / 2 + 0.5 * (0.5 + 2 / 3.0) / 2)   # 0.7916..., VOC would give 0.8333
    assert aps[0] != pytest.approx(0.5 + 0.5 * 2 / 3.0)


def test_no_detections_ap_zero_and_missed_gt_lowers_recall():
    aps, _ = frame_ap1([], [(0, 1, GOOD)])
    assert aps[0] == 0.0
    aps, _ = frame_ap1([(0, 1, 0.9, GOOD)], [(0, 1, GOOD), (0, 2, GOOD)])
    assert aps[0] == pytest.approx(0.5)      # (0,1) -> (0.5, 1): nothing appended at recall 1


def act_frame_ap_oracle(dets, gts, nclasses, th=0.5):
    """Pure-Python transliteration of ACT frameAP (stable sort on float32 scores, as the issue fixes it)."""
    out = []
    for c in range(nclasses):
        detections = [d for d in dets if d[0] == c]
        gt = {}
        for gc, k, b in gts:
            if gc == c:
                gt.setdefault(k, []).append(b)
        s32 = [float(np.float32(d[2])) for d in detections]
        order = sorted(range(len(detections)), key=lambda j: -s32[j])
        pr = [(1.0, 0.0)]
        fn = sum(len(v) for v in gt.values())
        fp = tp = 0
        for j in order:
            k, b = detections[j][1], detections[j][3]
            ispositive = False
            if k in gt:
                ious = []
                for g in gt[k]:
                    iw = min(g[2], b[2]) - max(g[0], b[0]) + 1
                    ih = min(g[3], b[3]) - max(g[1], b[1]) + 1
                    inter = max(0, iw) * max(0, ih)
                    ua = (g[2] - g[0] + 1) * (g[3] - g[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - inter
                    with np.errstate(divide="ignore", invalid="ignore"):
                        ious.append(np.float64(inter) / np.float64(ua))
                amax = int(np.argmax(ious))            # the first NaN, if any
                with np.errstate(invalid="ignore"):
                    hit = ious[amax] >= th
                if hit:
                    ispositive = True
                    del gt[k][amax]
                    if not gt[k]:
                        del gt[k]
            if ispositive:
                tp += 1
                fn -= 1
            else:
                fp += 1
            if tp + fn > 0:
                pr.append((tp / float(tp + fp), tp / float(tp + fn)))
            else:
                pr.append((0.0, 0.0))
        ap = sum((pr[i][1] - pr[i - 1][1]) * (pr[i][0] + pr[i - 1][0]) * 0.5 for i in range(1, len(pr)))
        out.append(ap)
    return out


grid_box = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(2, 5), st.integers(2, 5)).map(
    lambda t: [t[0] * 2, t[1] * 2, t[0] * 2 + t[2] * 2, t[1] * 2 + t[3] * 2])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3), st.sampled_from([0.1, 0.5, 0.5 + 1e-9, 0.7, 0.9]),
                          grid_box), max_size=25),
       st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3), grid_box), min_size=1, max_size=10))
def test_frame_ap_matches_act_loop(dets, gts):
    ours, _ = frame_ap1(dets, gts, nclasses=2) if dets else (np.zeros(2), None)
    assert np.allclose(ours, act_frame_ap_oracle(dets, gts, 2), rtol=0, atol=1e-12)


# boxes with x1 > x2 or y1 > y2 on a small grid: +1 areas of either sign that often cancel a ground-truth box's
any_box = st.tuples(*[st.integers(0, 6)] * 4).map(list)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3), st.sampled_from([0.1, 0.5, 0.7, 0.9]),
                          st.one_of(any_box, grid_box)), max_size=25),
       st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3), st.one_of(grid_box, st.sampled_from(
           [box(0, 0, 1, 1), box(0, 0, 4, 0), box(2, 2, 3, 3)]))), min_size=1, max_size=10))
def test_frame_ap_with_inverted_boxes_matches_act_loop(dets, gts):
    ours, _ = frame_ap1(dets, gts, nclasses=2) if dets else (np.zeros(2), None)
    assert np.allclose(ours, act_frame_ap_oracle(dets, gts, 2), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------------- inverted boxes

GT10 = box(10, 10, 19, 19)      # +1 area 10 x 10 = 100


def frame_iou(det, gt=GT10):
    return float(M.iou2d_act(np.array([det], dtype=np.float64), np.array([gt], dtype=np.float64))[0])


def test_inverted_box_iou_uses_the_raw_union():
    # x2 - x1 + 1 = 11 - 20 + 1 = -8, y2 - y1 + 1 = 10: area -80; iw = min(19, 11) - max(10, 20) + 1 = -8 -> inter 0
    # union = 100 + (-80) - 0 = 20: IoU = 0 / 20 = +0.0
    v = frame_iou(box(20, 10, 11, 19))
    assert v == 0.0 and np.copysign(1.0, v) == 1.0
    # area -13 x 10 = -130: union -30, 0 / -30 = -0.0 (ACT's numpy gives the same)
    v = frame_iou(box(25, 10, 11, 19))
    assert v == 0.0 and np.copysign(1.0, v) == -1.0
    # area -10 x 10 = -100: union 0, 0 / 0 = NaN
    assert np.isnan(frame_iou(box(22, 10, 11, 19)))
    # both sides inverted: area (-8) x (-8) = +64, union 164, IoU 0
    assert frame_iou(box(19, 19, 10, 10)) == 0.0
    # inverted by less than a pixel: x2 - x1 + 1 = 0.5 > 0, a 0.5 x 10 box inside the ground truth: 5 / 100
    assert frame_iou(box(10.5, 10, 10, 19)) == 0.05
    # the swapped corners of the first box: a proper box (11..20 x 10..19), 9 x 10 = 90 / (100 + 100 - 90)
    assert frame_iou(box(11, 10, 20, 19)) == 90 / 110.0


@pytest.mark.parametrize("inverted", [box(20, 10, 11, 19), box(22, 10, 11, 19)])   # union 20 / union 0 (NaN)
def test_inverted_box_is_a_frame_false_positive(inverted):
    # GT boxes in frames 1 and 2; ranks: GT10 on frame 1 (TP), the inverted box on frame 2 (FP), GT10 on frame 2 (TP)
    # points (0,1) (.5,1) (.5,.5) (1,2/3): AP = .5 * (1 + 1) / 2 + .5 * (.5 + 2/3) / 2 = 0.7916...
    dets = [(0, 1, 0.9, GT10), (0, 2, 0.8, inverted), (0, 2, 0.7, GT10)]
    aps, tp = frame_ap1(dets, [(0, 1, GT10), (0, 2, GT10)])
    assert tp.tolist() == [True, False, True]
    assert aps[0] == pytest.approx(0.5 + 0.5 * (0.5 + 2 / 3.0) / 2, abs=1e-15)
    # with its corners swapped (11..20 x 10..19, IoU 90/110 >= .5) it is a true positive and the third a FP: AP 1
    aps, tp = frame_ap1([(0, 1, 0.9, GT10), (0, 2, 0.8, box(11, 10, 20, 19)), (0, 2, 0.7, GT10)],
                        [(0, 1, GT10), (0, 2, GT10)])
    assert tp.tolist() == [True, True, False] and aps[0] == 1.0


def test_inverted_frame_lowers_the_tube_st_iou():
    # GT tube frames 1-4 of GOOD (area 100); the tube has GOOD except frame 3: x2 - x1 + 1 = -8, area -80, union 20,
    # IoU 0: ST-IoU = 1 x mean(1, 1, 0, 1) = 0.75
    inv = box(9, 0, 0, 9)
    tube = (1, [GOOD, GOOD, inv, GOOD])
    assert st_iou(tube, (1, [GOOD] * 4)) == 0.75
    aps, _ = video_ap1([(0, 0, 0.9) + tube], [(0, 0, 1, [GOOD] * 4)], [0.5, 0.75, 0.8])
    assert aps[:, 0].tolist() == [1.0, 1.0, 0.0]
    # area -100 on frame 3 (union 0): ACT's iou3d is np.mean over a NaN frame: NaN, never >= a threshold
    nan_tube = (1, [GOOD, GOOD, box(11, 0, 0, 9), GOOD])
    assert np.isnan(st_iou(nan_tube, (1, [GOOD] * 4)))
    aps, _ = video_ap1([(0, 0, 0.9) + nan_tube], [(0, 0, 1, [GOOD] * 4)], [0.2])
    assert aps[0, 0] == 0.0


def test_nan_st_iou_blocks_the_tube_while_that_gt_tube_is_free():
    # one video, one class, GT tubes G1 (frames 1-2, A, area 100) and G2 (frames 3-4, B). The tube T covers frames
    # 2-4: on frame 2 a box of area -10 x 10 = -100 (union 0 with A: NaN), then B twice.
    # ST-IoU(T, G1) = NaN (the shared frame 2), ST-IoU(T, G2) = 2/3 x 1.
    A, B, minus100 = GOOD, box(50, 50, 59, 59), box(11, 0, 0, 9)
    g1, g2 = (0, 0, 1, [A, A]), (0, 0, 3, [B, B])
    T = (0, 0, 0.9, 2, [minus100, B, B])
    # ACT: ious = [nan, 0.667]; np.argmax -> 0 (the NaN); nan >= 0.5 is False: a FP, nothing consumed; AP 0
    aps, kept = video_ap1([T], [g1, g2], [0.5])
    assert kept.tolist() == [0] and aps[0, 0] == 0.0
    # the same tube with a proper box on frame 2: ious = [0.25, 0.667] -> G2, a TP of 2 GT tubes: AP 0.5
    aps, _ = video_ap1([(0, 0, 0.9, 2, [A, B, B])], [g1, g2], [0.5])
    assert aps[0, 0] == 0.5
    # once G1 is consumed by a higher-ranked tube T0 (frames 1-2; frame 2 box 10 x 9 = 90: IoU .9 with A, and with
    # T's box a union of 90 - 100 = -10, ST-IoU -0.0, so the NMS keeps both), T is no longer blocked: TP, TP, AP 1
    T0 = (0, 0, 0.95, 1, [A, box(0, 0, 9, 8)])
    aps, kept = video_ap1([T0, T], [g1, g2], [0.5])
    assert sorted(kept.tolist()) == [0, 1] and aps[0, 0] == 1.0


def test_nan_st_iou_suppresses_in_nms():
    # K (0.9) frames 1-3 of A; S (0.5) frames 3-6, frame 3 a box of area -100: ST-IoU(S, K) = (1/6) x NaN = NaN.
    # ACT keeps `ious <= 0.3` only: S is suppressed although its temporal IoU alone (1/6) could not exceed 0.3
    A = GOOD
    t = tube_set([(1, [A] * 3), (3, [box(11, 0, 0, 9)] + [A] * 3)])
    kept = M.nms3d(np.array([0, 0]), np.array([0.9, 0.5]), t.first, t.length, t.start, t.box)
    assert kept.tolist() == [0]
    # area -80 instead (union 20, IoU 0): ST-IoU 0 <= 0.3, both kept
    t = tube_set([(1, [A] * 3), (3, [box(9, 0, 0, 9)] + [A] * 3)])
    kept = M.nms3d(np.array([0, 0]), np.array([0.9, 0.5]), t.first, t.length, t.start, t.box)
    assert kept.tolist() == [0, 1]
    # two boxes of +1 area 0 on a shared frame: 0 / (0 + 0) = NaN as well
    zero = box(1, 0, 0, 9)
    t = tube_set([(1, [A, zero]), (2, [zero, A, A, A, A])])
    kept = M.nms3d(np.array([0, 0]), np.array([0.9, 0.5]), t.first, t.length, t.start, t.box)
    assert kept.tolist() == [0]


def test_auc_inverted_frame_counts_zero_with_matlab_eps():
    # GT tube frames 1-4 of A (area 100); the tube's frame 3 has area -100: ACT would divide 0 by 0, Gkioxari's
    # inters ./ (union + eps) gives 0 / eps = 0: mean over num_frames = 5 is (1 + 1 + 0 + 1) / 5 = 0.6
    A = GOOD
    tubes = tube_set([(1, [A, A, box(11, 0, 0, 9), A])])
    gts = tube_set([(1, [A] * 4)])
    iou = M.auc_tube_iou(tubes, gts, [0], [0], np.array([5]))
    assert iou.tolist() == [0.6]
    # the video's only tube of its class: correct at 0.5 and 0.6 (>=), a negative at 0.7
    for th, correct in ((0.5, True), (0.6, True), (0.7, False)):
        r = M.auc_gkioxari(np.arange(2), np.array([0, 1]), np.array([0, 0]), np.array([0.9, 0.8]),
                           np.array([iou[0], 0.0]), np.array([0, 1]), 2, th)
        assert r["num_neg"].tolist() == ([1, 0] if correct else [2, 0])


def test_auc_union_of_minus_eps_is_nan_and_a_negative():
    # GT box 1 x 1 (area 1); the tube's box: x2 - x1 + 1 = 0 - (3 + 2^-51) + 1 = -(2 + 2^-51), y2 - y1 + 1 = 0.5:
    # area -(1 + 2^-52), union 1 - (1 + 2^-52) = -eps; + eps = 0: 0 / 0 = NaN in MATLAB and here
    x1 = float("3.0000000000000004")
    assert x1 == 3 + 2.0 ** -51
    tubes = tube_set([(1, [box(x1, 0.5, 0, 0), box(0, 0, 0, 0)])])
    gts = tube_set([(1, [box(0, 0, 0, 0)] * 2)])
    iou = M.auc_tube_iou(tubes, gts, [0], [0], np.array([2]))
    assert np.isnan(iou[0])
    r = M.auc_gkioxari(np.arange(1), np.array([0]), np.array([0]), np.array([0.9]), iou, np.array([0]), 1, 0.1)
    assert r["num_neg"].tolist() == [1]          # `iou(j) >= iou_thresh` is False for NaN: a negative


def act_iou2d(b1, b2):
    """ACT_utils.iou2d / overlap2d / area2d, verbatim (b1: (n, 4), b2: (4,))."""
    b1 = np.asarray(b1, dtype=np.float64).reshape(-1, 4)
    b2 = np.asarray(b2, dtype=np.float64).reshape(1, 4)
    xmin = np.maximum(b1[:, 0], b2[:, 0])
    ymin = np.maximum(b1[:, 1], b2[:, 1])
    xmax = np.minimum(b1[:, 2] + 1, b2[:, 2] + 1)
    ymax = np.minimum(b1[:, 3] + 1, b2[:, 3] + 1)
    ov = np.maximum(0, xmax - xmin) * np.maximum(0, ymax - ymin)
    area = lambda b: (b[:, 2] - b[:, 0] + 1) * (b[:, 3] - b[:, 1] + 1)  # noqa: E731
    with np.errstate(divide="ignore", invalid="ignore"):
        return ov / (area(b1) + area(b2) - ov)


def act_iou3dt(t1, t2):
    """ACT iou3dt on (first, boxes) tubes."""
    (f1, b1), (f2, b2) = t1, t2
    tmin, tmax = max(f1, f2), min(f1 + len(b1) - 1, f2 + len(b2) - 1)
    if tmax < tmin:
        return 0.0
    tunion = max(f1 + len(b1) - 1, f2 + len(b2) - 1) - min(f1, f2) + 1
    p1 = np.array(b1[tmin - f1:tmax - f1 + 1], dtype=np.float64)
    p2 = np.array(b2[tmin - f2:tmax - f2 + 1], dtype=np.float64)
    ov = np.array([act_iou2d(p1[i], p2[i])[0] for i in range(len(p1))])
    return np.mean(ov) * ((tmax - tmin + 1) / float(tunion))


def act_video_ap_oracle(tube_specs, gt_specs, th, nvideos, nclasses):
    """ACT videoAP with nms3dt at 0.3 (stable sorts, as the issue fixes them), on video_ap1's specs."""
    aps = []
    for c in range(nclasses):
        dets = []
        for v in range(nvideos):
            ltubes = [(s[3], s[4], s[2]) for s in tube_specs if s[0] == v and s[1] == c]
            I = sorted(range(len(ltubes)), key=lambda i: ltubes[i][2])
            keep = []
            while I:
                i = I[-1]
                keep.append(i)
                with np.errstate(invalid="ignore"):
                    I = [j for j in I[:-1] if act_iou3dt(ltubes[j][:2], ltubes[i][:2]) <= 0.3]
            dets += [(v, ltubes[i][2], ltubes[i][:2]) for i in keep]
        gt = {}
        for v in range(nvideos):
            tubes = [(s[2], s[3]) for s in gt_specs if s[0] == v and s[1] == c]
            if tubes:
                gt[v] = tubes
        fn = sum(len(g) for g in gt.values())
        tp = fp = 0
        pr = [(1.0, 0.0)]
        for j in sorted(range(len(dets)), key=lambda j: -dets[j][1]):
            v, _, tube = dets[j]
            ispositive = False
            if v in gt:
                ious = [act_iou3dt(g, tube) for g in gt[v]]
                amax = int(np.argmax(ious))
                with np.errstate(invalid="ignore"):
                    if ious[amax] >= th:
                        ispositive = True
                        del gt[v][amax]
                        if not gt[v]:
                            del gt[v]
            if ispositive:
                tp, fn = tp + 1, fn - 1
            else:
                fp += 1
            pr.append((tp / float(tp + fp), tp / float(tp + fn)) if tp + fn else (0.0, 0.0))
        aps.append(sum((pr[i][1] - pr[i - 1][1]) * (pr[i][0] + pr[i - 1][0]) * 0.5 for i in range(1, len(pr))))
    return aps


small_box = st.sampled_from([box(0, 0, 1, 1), box(5, 0, 0, 0), box(1, 0, 0, 0), box(0, 0, 2, 1), box(3, 0, 1, 1),
                             box(1, 1, 0, 0), box(0, 0, 0, 2), box(2, 0, 1, 3)])
gt_box = st.sampled_from([box(0, 0, 1, 1), box(0, 0, 3, 0), box(0, 0, 2, 1)])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.sampled_from([0.2, 0.5, 0.9]),
                          st.integers(1, 4), st.lists(small_box, min_size=1, max_size=3)), min_size=1, max_size=8),
       st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(1, 4),
                          st.lists(gt_box, min_size=1, max_size=3)), min_size=1, max_size=5))
def test_video_ap_with_inverted_boxes_matches_act_loop(tubes, gts):
    # boxes whose +1 areas are -4, 0, +2 ... against ground-truth areas 4, 4, 6: NaN frame IoUs in the NMS and in
    # the matching; the oracle is ACT's code with numpy's NaN semantics
    for th in (0.2, 0.5):
        ours, _ = video_ap1(tubes, gts, [th], nvideos=2, nclasses=2)
        assert np.allclose(ours[0], act_video_ap_oracle(tubes, gts, th, 2, 2), rtol=0, atol=1e-12), th


def test_inverted_boxes_warning_count_and_first_line(tmp_path):
    p = str(tmp_path / "frame_detections.csv")
    write(p, "video,frame,label,score,x1,y1,x2,y2\n"
             "vX,1,run,0.9,9,0,0,9\n"            # line 2: inverted, but a video outside the test list: not counted
             "v,1,run,0.9,0,0,9,9\n"
             "v,2,run,0.8,0,9.5,9,9\n"           # line 4: y1 > y2 by half a pixel: counted
             "v,3,run,0.7,30,0,10,9\n")          # line 5
    videos = fmt.Videos(np.array([b"v"]), np.zeros(1, dtype=np.int64), np.array([10]), np.array([b"run"]))
    d = fmt.read_frame_detections(p, "res/frame_detections.csv", videos)
    assert d.inverted == fmt.InvertedBoxes(2, 4, "0,9.5,9,9")
    q = str(tmp_path / "tubes.csv")
    write(q, "video,tube,label,score,frame,x1,y1,x2,y2\nv,a,run,0.5,1,0,0,9,9\nv,b,run,0.4,1,0,0,9,9\n"
             "v,a,run,0.5,2,9,0,0,9\n")
    assert fmt.read_tubes(q, "res/tubes.csv", videos).inverted == fmt.InvertedBoxes(1, 4, "9,0,0,9")
    ok = str(tmp_path / "ok.csv")
    write(ok, "video,frame,label,score,x1,y1,x2,y2\nv,1,run,0.9,0,0,0,0\n")     # x1 == x2: a 1-pixel box
    assert fmt.read_frame_detections(ok, "ok.csv", videos).inverted is None
    # the task: one warning per file, the participant's own file and line, nothing of the ground truth
    ref = tmp_path / "ref"
    write(str(ref / "videos.csv"), "video,label,num_frames\nv,run,3\n")
    write(str(ref / "gt_tubes.csv"), "video,tube,label,frame,x1,y1,x2,y2\n" +
          "".join("v,1,run,%d,0,0,9,9\n" % f for f in (1, 2, 3)))
    res = tmp_path / "res"
    write(str(res / "frame_detections.csv"), open(p).read())
    write(str(res / "tubes.csv"), open(q).read())
    r = TASK.score(str(ref), Submission(str(res)))
    assert [w for w in r.warnings if "name a test video" not in w and "look written" not in w] == [   # issue 23: the hint is apart
        "frame_detections.csv: 2 box(es) with x1 > x2 or y1 > y2, first at line 4 (x1,y1,x2,y2 = 0,9.5,9,9); "
        "scored as the original code scores them: width x2 - x1 + 1 and height y2 - y1 + 1 are taken as they are, "
        "so a box inverted by a pixel or more overlaps nothing (see the evaluation rules).",
        "tubes.csv: 1 box(es) with x1 > x2 or y1 > y2, first at line 4 (x1,y1,x2,y2 = 9,0,0,9); scored as the "
        "original code scores them: width x2 - x1 + 1 and height y2 - y1 + 1 are taken as they are, so a box "
        "inverted by a pixel or more overlaps nothing (see the evaluation rules)."]
    # validate (no ground truth: every row counts) says the same as a note
    notes = TASK.validate(Submission(str(res)))
    assert [n for n in notes if n.startswith("warning: ") and "look written" not in n] == [
        "warning: frame_detections.csv: 3 box(es) with x1 > x2 or y1 > y2, first at line 2 (x1,y1,x2,y2 = 9,0,0,9)"
        "; scored as the original code scores them: width x2 - x1 + 1 and height y2 - y1 + 1 are taken as they "
        "are, so a box inverted by a pixel or more overlaps nothing (see the evaluation rules).",
        "warning: " + [w for w in r.warnings if "name a test video" not in w and "look written" not in w][1]]


def test_inverted_box_sample_scores_with_a_warning(root):
    # the former malformed/inverted_box: line 6 has x1 = 40 > x2 = 9 (a catch box in a brush_hair video)
    r = TASK.score(os.path.join(root, "reference_data", "action-tubes"),
                   Submission(os.path.join(root, "starting_kit", "action-tubes", "submissions", "inverted_box")))
    assert len(r.warnings) == 1 and r.warnings[0].startswith(
        "frame_detections.csv: 1 box(es) with x1 > x2 or y1 > y2, first at line 6 (x1,y1,x2,y2 = 40,1,9,9)")
    assert list(r.scores) == [k.key for k in TASK.score_keys()]


def test_inverted_box_in_the_reference_is_still_an_error(tmp_path):
    from scoring_program.errors import ReferenceDataError
    write(str(tmp_path / "videos.csv"), "video,label,num_frames\nv,run,3\n")
    write(str(tmp_path / "gt_tubes.csv"), "video,tube,label,frame,x1,y1,x2,y2\nv,1,run,1,9,0,0,9\n")
    videos = fmt.read_videos(str(tmp_path / "videos.csv"))
    with pytest.raises(ReferenceDataError) as e:
        fmt.read_gt_tubes(str(tmp_path / "gt_tubes.csv"), videos)
    assert "line 2" in str(e.value) and "x1 <= x2" in str(e.value)


# ---------------------------------------------------------------------------------------------- ST-IoU, NMS

def tube_set(specs):
    """specs: (first, [boxes...]) -> metrics.tubes.Tubes (first, length, start, box)."""
    first, length, start, boxes = [], [], [], []
    for f, bs in specs:
        first.append(f)
        length.append(len(bs))
        start.append(len(boxes))
        boxes += bs
    return M.Tubes(np.array(first), np.array(length), np.array(start), np.array(boxes, dtype=np.float64).reshape(-1, 4))


def st_iou(a_spec, b_spec):
    a = tube_set([a_spec])
    b = tube_set([b_spec])
    return float(M.pair_frames(a, b, [0], [0]).st_iou()[0])


def test_one_shared_frame_counts_in_st_iou():
    assert st_iou((1, [GOOD] * 5), (5, [GOOD] * 5)) == pytest.approx(1 / 9.0)   # frames 1-5 and 5-9
    assert st_iou((1, [GOOD] * 4), (5, [GOOD] * 5)) == 0.0                       # 1-4 and 5-9: disjoint


def test_st_iou_is_temporal_iou_times_mean_frame_iou():
    half = box(0, 0, 9, 4)      # IoU 0.5 with GOOD
    v = st_iou((1, [GOOD, half, GOOD, half]), (3, [GOOD, GOOD, GOOD]))   # common frames 3,4: mean(1, .5)
    assert v == pytest.approx(0.75 * 2 / 5.0)


def test_nms_keeps_the_later_of_equal_scores():
    t = tube_set([(1, [GOOD] * 4), (1, [box(0, 0, 9, 8)] * 4)])        # ST-IoU 0.9 > 0.3
    kept = M.nms3d(np.array([0, 0]), np.array([0.5, 0.5]), t.first, t.length, t.start, t.box)
    assert kept.tolist() == [1]
    kept = M.nms3d(np.array([0, 0]), np.array([0.6, 0.5]), t.first, t.length, t.start, t.box)
    assert kept.tolist() == [0]
    kept = M.nms3d(np.array([0, 1]), np.array([0.5, 0.5]), t.first, t.length, t.start, t.box)
    assert sorted(kept.tolist()) == [0, 1]     # other group (video or class): no suppression


def test_nms_threshold_is_strictly_greater_than_0_3():
    # frames 1-3 vs 3-5 identical boxes: ST-IoU = 1/5 <= 0.3 kept; 1-3 vs 2-4: 2/4 = 0.5 > 0.3 dropped
    t = tube_set([(1, [GOOD] * 3), (3, [GOOD] * 3), (2, [GOOD] * 3)])
    kept = M.nms3d(np.zeros(3, dtype=np.int64), np.array([0.9, 0.8, 0.7]), t.first, t.length, t.start,
                   t.box)
    assert kept.tolist() == [0, 1]


def nms_oracle(scores, tubes_spec, overlap=0.3):
    """ACT nms3dt with the stable ascending order (later of equal scores last = kept first)."""
    I = sorted(range(len(scores)), key=lambda i: scores[i])
    keep = []
    while I:
        i = I[-1]
        keep.append(i)
        I = [j for j in I[:-1] if st_iou(tubes_spec[j], tubes_spec[i]) <= overlap]
    return keep


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 5), grid_box, st.sampled_from([0.2, 0.5, 0.9])),
                min_size=1, max_size=9))
def test_nms_matches_act_loop(items):
    specs = [(f, [b] * L) for f, L, b, _ in items]
    scores = [s for *_, s in items]
    t = tube_set(specs)
    kept = M.nms3d(np.zeros(len(items), dtype=np.int64), np.array(scores), t.first, t.length, t.start,
                   t.box)
    assert kept.tolist() == nms_oracle(scores, specs)


# ---------------------------------------------------------------------------------------------- video-AP

def video_ap1(tube_specs, gt_specs, thresholds, nvideos=1, nclasses=1):
    """tube_specs: (video, label, score, first, boxes); gt_specs: (video, label, first, boxes)."""
    t = tube_set([(s[3], s[4]) for s in tube_specs])
    t = t._replace(video=np.array([s[0] for s in tube_specs]), label=np.array([s[1] for s in tube_specs]),
                   score=np.array([s[2] for s in tube_specs], dtype=np.float64))
    g = tube_set([(s[2], s[3]) for s in gt_specs])
    g = g._replace(video=np.array([s[0] for s in gt_specs]), label=np.array([s[1] for s in gt_specs]))
    aps, _, kept = M.video_ap(t, g, nvideos, nclasses, thresholds)
    return aps, kept


def test_threshold_values_are_python_floats():
    th = M.video_thresholds_50_95()
    assert th[3] == 0.65
    assert th[7] == 0.8500000000000001
    # Note: the issue text says 0.6500000000000001 is the 4th value; 0.5 + 0.05 * 3 evaluates to 0.65 exactly and it
    # is the 8th value, 0.5 + 0.05 * 7, that rounds up. We implement MOC's expression, whatever it evaluates to.
    assert th == [0.5 + 0.05 * i for i in range(10)]


def test_st_iou_exactly_on_the_threshold():
    g = box(0, 0, 19, 0)
    d65 = box(0, 0, 12, 0)      # 13 / 20 = 0.65
    d85 = box(0, 0, 16, 0)      # 17 / 20 = 0.85
    th = M.video_thresholds_50_95()
    aps, _ = video_ap1([(0, 0, 0.9, 1, [d65, d65])], [(0, 0, 1, [g, g])], th)
    assert aps[:, 0].tolist() == [1.0, 1.0, 1.0, 1.0, 0, 0, 0, 0, 0, 0]
    aps, _ = video_ap1([(0, 0, 0.9, 1, [d85, d85])], [(0, 0, 1, [g, g])], th)
    assert aps[:, 0].tolist() == [1.0] * 7 + [0.0] * 3     # 0.85 < 0.8500000000000001


def test_video_ap_suppressed_duplicates_are_not_false_positives():
    # two near-identical tubes; without NMS the second would be a FP (AP 0.75 instead of 1)
    aps, kept = video_ap1([(0, 0, 0.9, 1, [GOOD] * 3), (0, 0, 0.8, 1, [box(0, 0, 9, 8)] * 3)],
                          [(0, 0, 1, [GOOD] * 3)], [0.5])
    assert kept.tolist() == [0] and aps[0, 0] == 1.0


def test_video_ap_consumes_gt_tubes_and_sorts_over_videos():
    # video 0: GT tube; tubes A (0.9, good) and B (0.4, good, different time so not suppressed? no: same class
    # same video -> put B far in time so ST-IoU(A, B) = 0 and B also has ST-IoU 0 with the GT: FP)
    # video 1: GT tube, tube C (0.6, good) -> ranking A TP, C TP, B FP: AP 1
    aps, kept = video_ap1([(0, 0, 0.9, 1, [GOOD] * 3), (0, 0, 0.4, 10, [GOOD] * 3), (1, 0, 0.6, 1, [GOOD] * 3)],
                          [(0, 0, 1, [GOOD] * 3), (1, 0, 1, [GOOD] * 3)], [0.5], nvideos=2)
    assert aps[0, 0] == pytest.approx(1.0)
    # the same with B scored above C: TP, FP, TP -> 0.5*(1+1)/2 + 0.5*(0.5+2/3)/2
    aps, _ = video_ap1([(0, 0, 0.9, 1, [GOOD] * 3), (0, 0, 0.7, 10, [GOOD] * 3), (1, 0, 0.6, 1, [GOOD] * 3)],
                       [(0, 0, 1, [GOOD] * 3), (1, 0, 1, [GOOD] * 3)], [0.5], nvideos=2)
    assert aps[0, 0] == pytest.approx(0.5 + 0.5 * (0.5 + 2 / 3.0) / 2)


# ---------------------------------------------------------------------------------------------- AUC

def test_mean_roc_neighbour_rule():
    A = (np.array([0.0, 0.25, 0.5]), np.array([0.5, 0.75, 1.0]))
    B = (np.array([0.2, 0.4]), np.array([0.3, 0.6]))
    C = (np.zeros(0), np.zeros(0))          # no kept point: contributes 0
    F, T = M.mean_roc([A, B, C], 3)
    assert F.tolist() == [0.0, 0.2, 0.25, 0.4, 0.5]
    # A: 0.5 (exact), 0.75 (nearest .25 > .2 -> i2 = i1-1: max(.75,.5)), 0.75, 1 (nearest .5 > .4: max(1,.75)), 1
    # B: 0.3 (nearest .2 > 0, i2 out of range), 0.3, 0.6 (nearest .2 <= .25: max(.3,.6)), 0.6, 0.6 (i2 out of range)
    assert T == pytest.approx(np.array([0.8, 1.05, 1.35, 1.6, 1.6]) / 3)
    assert M._area(F, T) == pytest.approx((0.2 * 1.05 + 0.05 * 1.35 + 0.15 * 1.6 + 0.1 * 1.6) / 3)


def test_mean_roc_takes_the_first_index_of_the_nearest_value():
    D = (np.array([0.25, 0.25, 0.75]), np.array([0.1, 0.2, 0.9]))
    E = (np.array([0.3]), np.array([1.0]))
    F, T = M.mean_roc([D, E], 2)
    assert F.tolist() == [0.25, 0.3, 0.75]
    # D at .25: first index (0), diff 0 -> 0.1; at .3: i1 = 0, fpr <= x -> i2 = 1: max(.1, .2) = .2 (not .9)
    # E: always index 0 -> 1.0
    assert T == pytest.approx([(0.1 + 1) / 2, (0.2 + 1) / 2, (0.9 + 1) / 2])


def auc_case(tubes, video_label, nclasses, th=0.5):
    """tubes: (video, label, score, iou)."""
    v, l, s, i = [np.array(x) for x in zip(*tubes)]
    V = len(video_label)
    return M.auc_gkioxari(np.arange(V), v, l, s.astype(float), i.astype(float), np.array(video_label), nclasses, th)


def test_auc_perfect_detector_is_0_5_not_0_6():
    # 3 classes x 3 videos; each video: its class's tube correct (score 1), other classes' tubes negatives (0.1).
    # Per class 3 positives and 6 negatives: fpr 1/6, 2/6, 3/6 kept, 4/6 > 0.6 not: area 0.5
    video_label = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    tubes = [(v, c, 1.0 if c == video_label[v] else 0.1, 1.0) for v in range(9) for c in range(3)]
    r = auc_case(tubes, video_label, 3)
    assert r["auc"] == pytest.approx(0.5)
    assert r["fpr"][-1] == 0.5


def test_auc_top3_and_one_correct_per_video_and_class():
    # one video of class 0 with 4 tubes of class 0: the good one is 4th by score -> not kept; 3 negatives
    r = auc_case([(0, 0, 0.9, 0.1), (0, 0, 0.8, 0.1), (0, 0, 0.7, 0.1), (0, 0, 0.6, 0.9), (1, 1, 1.0, 1.0)],
                 [0, 1], 2)
    assert r["num_neg"].tolist() == [3, 0]
    curves = r["class_curves"]
    assert curves[0][1].tolist() == [0.0]         # tpr stays 0; fpr 1/3 is the only point <= 0.6
    # two correct tubes of one video: the second is a negative
    r = auc_case([(0, 0, 0.9, 0.9), (0, 0, 0.8, 0.9), (1, 1, 1.0, 1.0), (1, 1, 0.5, 0.1)], [0, 1], 2)
    assert r["num_neg"].tolist() == [1, 1]


def test_auc_scores_compared_as_float32():
    # two negatives and one positive with scores equal in float32: stable order puts the first written first
    r = auc_case([(0, 0, 0.5, 0.0), (1, 0, 0.5 + 1e-9, 1.0), (1, 1, 0.3, 1.0), (2, 0, 0.1, 0.0)], [1, 0, 1], 2)
    fpr, tpr = r["class_curves"][0]
    # class 0 (1 positive video, negatives: videos 0 and 2): order v0 (neg), v1 (pos): fpr [.5, .5, 1] tpr [0, 1, 1]
    assert fpr.tolist() == [0.5, 0.5] and tpr.tolist() == [0.0, 1.0]


def test_auc_fewer_than_two_fpr_values_is_zero():
    r = auc_case([(0, 0, 1.0, 1.0), (1, 1, 1.0, 1.0)], [0, 1], 2)
    assert r["auc"] == 0.0       # no negatives at all: no kept points


# ---------------------------------------------------------------------------------------------- task, formats

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_task_hand_case_and_auc_keys_not_written_with_two_gt_tubes(tmp_path):
    ref = tmp_path / "ref"
    write(str(ref / "videos.csv"), "video,label,num_frames\nv1,run,3\nv2,jump,3\n")
    gt = "video,tube,label,frame,x1,y1,x2,y2\n" + "".join(
        "v1,%d,run,%d,0,0,9,9\n" % (t, f) for t in (1, 2) for f in (1, 2)) + "v2,1,jump,3,0,0,9,9\n"
    write(str(ref / "gt_tubes.csv"), gt)
    # columns in another order, an extra column, CRLF line ends, an ignored video
    res = tmp_path / "res"
    write(str(res / "sub" / "frame_detections.csv"),
          "score,video,frame,x1,y1,x2,y2,label,extra\r\n0.9,v1,1,0,0,9,9,run,x\r\n0.8,v1,1,0,0,9,9,run,x\r\n"
          "0.7,vX,1,0,0,9,9,run,x\r\n")
    r = TASK.score(str(ref), Submission(str(res)))
    assert "AUC_10" not in r.scores
    assert any("AUC is not computed" in n for n in r.notes)
    # run: 4 GT boxes, 2 TP -> (0,1) (.25,1) (.5,1): AP 0.5; jump: 0
    assert r.scores["frame_mAP"] == pytest.approx(0.25)
    assert r.scores["video_mAP_50"] == 0.0


def test_sample_perfect_scores(root):
    r = TASK.score(os.path.join(root, "reference_data", "action-tubes"),
                   Submission(os.path.join(root, "starting_kit", "action-tubes", "submissions", "perfect")))
    assert [k.key for k in TASK.score_keys()] == list(r.scores)
    assert all(r.scores[k] == 1.0 for k in list(r.scores)[:5])
    assert all(r.scores["AUC_%d" % k] == pytest.approx(0.5) for k in (10, 20, 30, 40, 50, 60))


def test_csv_errors_name_file_and_line(tmp_path):
    p = str(tmp_path / "tubes.csv")
    write(p, "video,tube,label,score,frame,x1,y1,x2,y2\nv,a,run,0.5,1,0,0,9,9\n\nv,a,run,0.5,2,0,0,9,9\n"
             "v,a,run,0.5,4,0,0,9,9\n")
    fake = fmt.Videos(np.array([b"v"]), np.zeros(1, dtype=np.int64), np.array([10]), np.array([b"run"]))
    with pytest.raises(SubmissionError) as e:
        fmt.read_tubes(p, "tubes.csv", fake)
    assert "tubes.csv, line 5" in str(e.value) and "jumps from frame 2 to 4" in str(e.value)


def test_tube_rows_in_any_order_are_grouped(tmp_path):
    p = str(tmp_path / "tubes.csv")
    write(p, "video,tube,label,score,frame,x1,y1,x2,y2\nv,a,run,0.5,2,0,0,9,9\nv,b,run,0.4,1,0,0,9,9\n"
             "v,a,run,0.5,1,0,0,9,9\n")
    fake = fmt.Videos(np.array([b"v"]), np.zeros(1, dtype=np.int64), np.array([10]), np.array([b"run"]))
    b = fmt.read_tubes(p, "tubes.csv", fake)
    assert b.tube_length.tolist() == [2, 1] and b.tube_first.tolist() == [1, 1]
    assert b.tube_score.tolist() == [0.5, 0.4] and b.tube_line.tolist() == [2, 3]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e6, 1e6, allow_nan=False).map(repr),
                          st.decimals(-10 ** 6, 10 ** 6, places=4, allow_nan=False, allow_infinity=False).map(str),
                          st.integers(-10 ** 9, 10 ** 9).map(str)), min_size=1, max_size=20))
def test_number_parser_equals_float(tokens):
    data = ("score\n" + "".join(" %s \n" % t for t in tokens)).encode()
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as f:
        f.write(data)
    try:
        t = fmt.read_csv(f.name, "x.csv", ("score",))
        vals = fmt.number_column(t, "score")
    finally:
        os.unlink(f.name)
    assert vals.tolist() == [float(x) for x in tokens]


# ---- what the participant sees (issue 12) ---------------------------------------------------------------------

def test_report_shows_no_per_video_facts(tmp_path):
    from privacy import only_numbers_differ

    def move_one_box(ref):
        # the first ground-truth box of the first video moves 30 pixels right: only that video's ground truth changes
        path = os.path.join(ref, "gt_tubes.csv")
        with open(path) as f:
            lines = f.read().splitlines()
        cells = lines[1].split(",")
        cells[4], cells[6] = str(int(cells[4]) + 30), str(int(cells[6]) + 30)
        lines[1] = ",".join(cells)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    only_numbers_differ("action-tubes", move_one_box, tmp_path, submission="perfect")


def test_report_names_no_test_video(root, tmp_path):
    from privacy import no_item_ids
    with open(os.path.join(root, "reference_data", "action-tubes", "videos.csv")) as f:
        ids = [line.split(",")[0] for line in f.read().splitlines()[1:]]
    assert len(ids) >= 5
    no_item_ids("action-tubes", ids, tmp_path, submission="perfect")
    no_item_ids("action-tubes", ids, tmp_path / "random", submission="random")


def test_private_per_video_table_only_when_asked(root):
    ref = os.path.join(root, "reference_data", "action-tubes")
    sub = Submission(os.path.join(root, "starting_kit", "action-tubes", "submissions", "random"))
    assert TASK.score(ref, sub).private == []
    res = TASK.score(ref, sub, private=True)
    (table,) = res.private
    with open(os.path.join(ref, "videos.csv")) as f:
        ids = [line.split(",")[0] for line in f.read().splitlines()[1:]]
    assert [r[0] for r in table.rows] == ids
    col = table.header.index
    frame_table = res.tables[0]                          # class, AP, GT boxes, detections, TP
    assert sum(r[col("GT boxes")] for r in table.rows) == sum(r[2] for r in frame_table.rows)
    assert sum(r[col("frame detections")] for r in table.rows) == sum(r[3] for r in frame_table.rows)
    assert sum(r[col("frame TP")] for r in table.rows) == sum(r[4] for r in frame_table.rows)


def test_report_bars_tide_and_curves(root):
    from scoring_program.report.result import LOST
    res = TASK.score(os.path.join(root, "reference_data", "action-tubes"),
                     Submission(os.path.join(root, "starting_kit", "action-tubes", "submissions", "random")))
    frame_bars, video_bars = res.bars
    assert frame_bars.values == [r[1] for r in res.tables[0].rows]
    assert video_bars.values == [r[2] for r in res.tables[1].rows]
    section, video_section = res.sections
    assert video_section.title == "Where the video-AP points were lost"
    assert section.title == LOST
    dap_table = section.blocks[1]
    assert [r[1] for r in dap_table.rows] == ["%.4f" % r[1] for r in res.tables[0].rows]
    # the frame-AP curves start at (0, 1) and shade the trapezoid area, which is the AP
    frame_plots = [p for p in res.plots if p.title.startswith("frame-AP: ")]
    assert frame_plots
    for p in frame_plots:
        s = p.series[0]
        assert s.fill and s.x[0] == 0.0 and s.y[0] == 1.0
        ap = float(np.sum(np.diff(s.x) * (s.y[1:] + s.y[:-1]) / 2))
        # drawn from blocks of >= 10 ranks (report.result.rank_blocks): the area is the AP up to that resolution
        assert ap == pytest.approx(dict((r[0], r[1]) for r in res.tables[0].rows)[p.title[len("frame-AP: "):]],
                                   abs=0.02)


# ---------------------------------------------------------------------------------------------- bootstrap (issue 13)

def test_weighted_frame_map_by_hand():
    """Videos V0 (class 0, two GT boxes of class 0) and V1 (class 1, one GT box of class 1). Class 0 ranked: a (V0,
    TP), b (V1, FP), c (V0, TP); class 1: d (V1, TP). ACT's trapezoid from (recall 0, precision 1):
    weights 1,1: class 0 points (1/2, 1), (1/2, 1/2), (1, 2/3): 1/2 * (1 + 1)/2 + 0 + 1/2 * (1/2 + 2/3)/2 = 19/24;
    class 1: 1 -> mAP (19/24 + 1) / 2 = 43/48.
    weights 1,0: V1 removed, so is class 1 from the class set (the labels of the videos); class 0 is a+ c+ -> 1.
    weights 2,1 (collapsed points): a (weight 2): tp 2 / seen 2, nothing before: 2 * (1 + 1)/2 = 2; c (weight 2):
    tp 4 / seen 5, before it 2 / 3: 2 * (4/5 + 2/3)/2 = 22/15; npos 4 -> (2 + 22/15) / 4 = 13/15; class 1: 1 ->
    mAP 14/15 (the list with real copies a a b c c would give 1/2 + 17/96 + 31/160: copies are not collapsible).
    weights 0,0: no class left -> NaN."""
    match = M.FrameMatch(order=np.array([0, 1, 2, 3]), score32=np.zeros(4, dtype=np.float32),
                         tp=np.array([True, False, True, True]), gt=np.array([0, -1, 1, 2]))
    score = M.frame_map_on_weighted_videos([0, 1], 2, gt_video=[0, 0, 1], gt_class=[0, 0, 1], det_video=[0, 1, 0, 1],
                                           det_class=[0, 0, 0, 1], match=match)
    got = score(np.array([[1., 1], [1, 0], [2, 1], [0, 0]]))
    assert np.allclose(got[:3], [43 / 48., 1.0, 14 / 15.], rtol=0, atol=1e-15) and np.isnan(got[3])
    # without frame detections every class scores 0, over the classes of the weighted videos
    empty = M.frame_map_on_weighted_videos([0, 1], 2, gt_video=[0, 0, 1], gt_class=[0, 0, 1])
    assert np.array_equal(empty(np.array([[1., 1], [0, 1]])), [0.0, 0.0])


def _without_videos(ref_dir, removed, out):
    """ref_dir's videos.csv and gt_tubes.csv without the removed videos (the submission's rows of those videos
    are then ignored by the scorer, as rows of videos outside the test list)."""
    os.makedirs(out)
    for name in ("videos.csv", "gt_tubes.csv"):
        with open(os.path.join(ref_dir, name)) as f:
            lines = f.read().splitlines()
        with open(os.path.join(out, name), "w") as f:
            f.write("".join(line + "\n" for k, line in enumerate(lines) if k == 0 or line.split(",")[0] not in removed))
    return out


@pytest.mark.parametrize("kit, removed", [
    ("random", {"brush_hair/v_brush_hair_g01_c02", "catch/v_catch_g01_c01", "catch/v_catch_g01_c03"}),
    ("random", {"clap/v_clap_g01_c01"}),
    ("inverted_box", {"brush_hair/v_brush_hair_g01_c01", "clap/v_clap_g01_c02"}),
    ("perfect", {"catch/v_catch_g01_c01", "catch/v_catch_g01_c02", "catch/v_catch_g01_c03"}),   # a whole class
])
def test_weight_zero_is_the_video_removed(root, tmp_path, kit, removed):
    """frame_mAP on weighted videos, weight 0 == the official frame_mAP without those videos (exact: collapsed
    points are exact for weights 0 and 1), class set included. Only frame_detections.csv is submitted: the kit's
    tubes.csv holds tubes of every class in every video, which a reference without a class rejects."""
    ref_dir = os.path.join(root, "reference_data", "action-tubes")
    res = tmp_path / "res"
    res.mkdir()
    with open(os.path.join(root, "starting_kit", "action-tubes", "submissions", kit, "frame_detections.csv")) as f:
        (res / "frame_detections.csv").write_text(f.read())
    sub = Submission(str(res))
    d = TASK.score(ref_dir, sub, decompose=True).decomposition
    assert removed <= set(d.items)
    weights = np.array([[0.0 if v in removed else 1.0 for v in d.items]])
    # the official run: the reference and the submission without those videos (every row's label must be a class
    # of the reference, also on rows of videos outside it; the original dropped such rows unread)
    cut = tmp_path / "res-cut"
    cut.mkdir()
    lines = (res / "frame_detections.csv").read_text().splitlines()
    (cut / "frame_detections.csv").write_text("".join(l + "\n" for k, l in enumerate(lines)
                                                      if k == 0 or l.split(",")[0] not in removed))
    official = TASK.score(_without_videos(ref_dir, removed, str(tmp_path / "ref")),
                          Submission(str(cut))).scores["frame_mAP"]
    assert abs(d.score(weights)[0] - official) <= 1e-12


def test_tubes_of_two_videos_outside_the_test_list_may_share_a_tube_id(tmp_path):
    """Tube ids are per video: tube 1 of X and tube 1 of Y (both ignored) are two tubes, not one repeating frames."""
    p = str(tmp_path / "tubes.csv")
    write(p, "video,tube,label,score,frame,x1,y1,x2,y2\nv,1,run,0.5,1,0,0,9,9\nX,1,run,0.5,1,0,0,9,9\n"
             "Y,1,run,0.5,1,0,0,9,9\nX,1,run,0.5,2,0,0,9,9\n")
    fake = fmt.Videos(np.array([b"v"]), np.zeros(1, dtype=np.int64), np.array([10]), np.array([b"run"]))
    b = fmt.read_tubes(p, "tubes.csv", fake)
    assert b.ignored_tubes == 2 and b.tube_length.tolist() == [1] and b.tube_line.tolist() == [2]


# ---- the withheld reference (issue 29) ------------------------------------------------------------------------

def three_videos(tmp_path):
    """v1 and v2 run, v3 jump, 3 frames each; ground truth: v1 frames 1-2, v2 frame 1, v3 frame 1, all GOOD.
    Frame detections: 0.9 v1 f1 GOOD (TP), 0.8 v2 f1 GOOD (TP), 0.7 v1 f2 BAD (FP), 0.6 v3 f1 GOOD jump (TP)."""
    ref, res = tmp_path / "ref", tmp_path / "res"
    write(str(ref / "videos.csv"), "video,label,num_frames\nv1,run,3\nv2,run,3\nv3,jump,3\n")
    write(str(ref / "gt_tubes.csv"), "video,tube,label,frame,x1,y1,x2,y2\nv1,1,run,1,0,0,9,9\nv1,1,run,2,0,0,9,9\n"
                                     "v2,1,run,1,0,0,9,9\nv3,1,jump,1,0,0,9,9\n")
    write(str(res / "frame_detections.csv"), "video,frame,label,score,x1,y1,x2,y2\nv1,1,run,0.9,0,0,9,9\n"
                                             "v2,1,run,0.8,0,0,9,9\nv1,2,run,0.7,100,100,109,109\n"
                                             "v3,1,jump,0.6,0,0,9,9\n")
    return ref, res


def withheld_copy(tmp_path, ref, withheld):
    from scoring_program.tasks.base import WITHHELD_FILE
    pub = tmp_path / "public"
    pub.mkdir()
    TASK.withhold(TASK.load_reference(str(ref)), withheld, str(pub))
    (pub / WITHHELD_FILE).write_text("".join(v + "\n" for v in sorted(withheld)))
    return pub


def scores_of(ref, res):
    TASK._cached = None
    return dict(TASK.score(str(ref), Submission(str(res)), decompose=True).scores)


# whole: run has 3 GT boxes; 0.9 TP, 0.8 TP, 0.7 FP: points (1/3, 1), (2/3, 1), (2/3, 2/3), trapezoid AP 2/3;
#   jump 1/1: AP 1; frame_mAP (2/3 + 1) / 2 = 5/6.
# v3 withheld: jump has no video left and leaves the class set: frame_mAP = AP(run) = 2/3.
# v2 withheld: run has 2 GT boxes (v1); 0.9 TP (1/2, 1), 0.7 FP (1/2, 1/2): AP 1/2; jump 1: frame_mAP 3/4.
@pytest.mark.parametrize("withheld, want", [(set(), 5 / 6), ({"v3"}, 2 / 3), ({"v2"}, 3 / 4)])
def test_a_withheld_video_leaves_every_score(tmp_path, withheld, want):
    ref, res = three_videos(tmp_path)
    if not withheld:
        assert scores_of(ref, res)["frame_mAP"] == pytest.approx(want, abs=1e-12)
        return
    pub = withheld_copy(tmp_path, ref, withheld)
    # its id and num_frames stay, its label and tube rows go; every other line is as it was; the class set stays
    videos = (pub / "videos.csv").read_text()
    v = sorted(withheld)[0]
    assert "\n%s,-,3\n" % v in videos and (pub / "classes.csv").read_text() == "label\njump\nrun\n"
    assert [l for l in videos.splitlines() if not l.startswith(v)] == \
        [l for l in (ref / "videos.csv").read_text().splitlines() if not l.startswith(v)]
    assert (pub / "gt_tubes.csv").read_text() == "".join(
        l + "\n" for l in (ref / "gt_tubes.csv").read_text().splitlines() if not l.startswith(v + ","))
    got = scores_of(pub, res)
    assert got["frame_mAP"] == pytest.approx(want, abs=1e-12)
    # the official run on the reference without that video, and the submission without its rows and those of a
    # class that left (the cut reference would refuse a label it no longer has)
    cut, cut_res = tmp_path / "cut", tmp_path / "cut-res"
    for name in ("videos.csv", "gt_tubes.csv"):
        lines = (ref / name).read_text().splitlines()
        write(str(cut / name), "".join(l + "\n" for k, l in enumerate(lines) if k == 0 or l.split(",")[0] != v))
    labels = set(l.split(",")[1] for l in (cut / "videos.csv").read_text().splitlines()[1:])
    lines = (res / "frame_detections.csv").read_text().splitlines()
    write(str(cut_res / "frame_detections.csv"), "".join(l + "\n" for k, l in enumerate(lines)
                                                         if k == 0 or l.split(",")[2] in labels))
    assert scores_of(cut, cut_res) == got


def test_a_withheld_reference_accepts_the_same_labels(tmp_path):
    """v3, the only jump video, withheld: a submission may still write jump (classes.csv), and the placeholder '-'
    is no label, as on the whole reference."""
    ref, res = three_videos(tmp_path)
    pub = withheld_copy(tmp_path, ref, {"v3"})
    reference = TASK.load_reference(str(pub))
    assert reference.files == ["videos.csv", "gt_tubes.csv", "classes.csv"]
    assert reference.data.videos.label.tolist() == [1, 1, -1] and TASK.item_ids(reference) == ["v1", "v2", "v3"]
    scores_of(pub, res)
    write(str(res / "frame_detections.csv"), "video,frame,label,score,x1,y1,x2,y2\nv1,1,-,0.9,0,0,9,9\n")
    errors = []
    for folder in (ref, pub):
        TASK._cached = None
        with pytest.raises(SubmissionError) as e:
            TASK.score(str(folder), Submission(str(res)))
        errors.append(str(e.value))
    assert errors[0] == errors[1] and "1 unknown: '-'" in errors[0]
