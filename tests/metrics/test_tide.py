"""metrics.tide: TIDE's error types and oracles (Bolya et al., ECCV 2020) on hand-made cases worked out by hand, on
VOCevaldet.m's matching (VOC AP, +1 pixel boxes) and on ACT frameAP's (trapezoid AP, frames as the images)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring_program.metrics import tubes as M
from scoring_program.metrics.detection import voc_ap_of_flags, voc_det_ap, voc_det_match
from scoring_program.metrics.overlap import iou_pairs_plus1
from scoring_program.metrics.tide import (BKG, BOTH, CLS, DUPE, LOC, MISSED, NO_ERROR, classify_errors,
                                          overlapping_pairs, tide_delta_ap)

G = [0, 0, 9, 9]                 # a 10 x 10 box (+1 pixel): area 100
LOC_03 = [0, 0, 9, 2]            # IoU with G: 30 / 100 = 0.3
FAR = [100, 100, 109, 109]       # IoU 0 with G
EDGE_01 = [0, 0, 9, 0]           # IoU with G: 10 / 100 = 0.1 exactly (the low end of localization)


def voc_tide(dets, gts, nclasses, nimages=4):
    """dets: (class, image, confidence, box) in result-file order per class; gts: (class, image, box, difficult).
    Runs VOCevaldet.m per class, then TIDE as the task does. Returns (TideResult, TideErrors in rank order,
    ranked (class, confidence) list)."""
    gc = np.array([g[0] for g in gts])
    gi = np.array([g[1] for g in gts])
    gb = np.array([g[2] for g in gts], dtype=np.float64).reshape(-1, 4)
    gd = np.array([g[3] for g in gts], dtype=bool)
    cls, img, conf, box, tp, fp = [], [], [], [], [], []
    matched = np.zeros(len(gts), dtype=bool)
    for c in range(nclasses):
        mine = [d for d in dets if d[0] == c]
        g = np.flatnonzero(gc == c)
        m = voc_det_match(np.array([d[2] for d in mine], dtype=float), np.array([d[1] for d in mine], dtype=int),
                          np.array([d[3] for d in mine], dtype=float).reshape(-1, 4), gi[g], gb[g], gd[g], nimages)
        matched[g[m.candidate[m.tp]]] = True
        for k in m.order:
            cls.append(c)
            img.append(mine[k][1])
            conf.append(mine[k][2])
            box.append(mine[k][3])
        tp += m.tp.tolist()
        fp += m.fp.tolist()
    cls, img, conf = np.array(cls, dtype=np.int64), np.array(img, dtype=np.int64), np.array(conf, dtype=float)
    box, tp, fp = np.array(box, dtype=float).reshape(-1, 4), np.array(tp, dtype=bool), np.array(fp, dtype=bool)
    counted = np.flatnonzero(~gd)
    pd, pg, iou = overlapping_pairs(img, gi[counted], lambda a, b: iou_pairs_plus1(box[a], gb[counted][b]))
    errors = classify_errors(cls, fp, pd, pg, iou, gc[counted], matched[counted])
    npos = np.bincount(gc[counted], minlength=nclasses)
    res = tide_delta_ap(cls, conf, tp, fp, errors, gc[counted], matched[counted], npos, nclasses, voc_ap_of_flags)
    return res, errors


def dap(res, c=0):
    """{type: dAP} of class c, rounded for exact comparison with fractions worked out by hand."""
    return [round(float(v), 12) for v in res.dap[:, c]]


# ---- VOC: one class, 2 objects, 4 detections ----------------------------------------------------------------

def test_one_class_background_tp_duplicate_localization():
    # image 0: object g1 = G; image 1: object g2 = G. Ranked: background 0.9, TP on g1 0.8, duplicate of g1 0.7,
    # localization on g2 0.6 (IoU 0.3, g2 unmatched)
    dets = [(0, 0, 0.9, FAR), (0, 0, 0.8, G), (0, 0, 0.7, G), (0, 1, 0.6, LOC_03)]
    res, err = voc_tide(dets, [(0, 0, G, False), (0, 1, G, False)], 1)
    assert err.kind.tolist() == [BKG, NO_ERROR, DUPE, LOC]
    assert err.target.tolist() == [-1, -1, -1, 1]
    assert err.missed.tolist() == [False, False]          # g2 is aimed at by the localization error: not missed
    # original F T F F, npos 2: precision 1/2 at recall 1/2 -> AP = 0.5 * 0.5 = 0.25
    assert res.ap[0] == pytest.approx(0.25)
    # localization fixed: F T F T -> envelope 1/2 up to recall 1: AP 0.5 -> +0.25
    # background removed: T F F -> AP 0.5 -> +0.25
    # duplicate removed: F T F -> AP 0.25 -> +0 (it ranks after the only true positive)
    assert dap(res) == [0.25, 0.0, 0.0, 0.0, 0.25, 0.0]
    assert res.count[:, 0].tolist() == [1, 0, 0, 1, 1, 0]


def test_duplicate_before_a_true_positive_costs_ap():
    # g1 in image 0, g2 in image 1. Ranked: TP g1 0.9, duplicate of g1 0.8, TP g2 0.7, background 0.6
    dets = [(0, 0, 0.9, G), (0, 0, 0.8, G), (0, 1, 0.7, G), (0, 1, 0.6, FAR)]
    res, err = voc_tide(dets, [(0, 0, G, False), (0, 1, G, False)], 1)
    assert err.kind.tolist() == [NO_ERROR, DUPE, NO_ERROR, BKG]
    # T F T F: precision 1 at recall 1/2, 2/3 at recall 1 -> AP = 0.5 + 0.5 * 2/3 = 5/6
    assert res.ap[0] == pytest.approx(5 / 6)
    # duplicate removed: T T F -> AP 1 -> +1/6; the background one ranks last: +0
    assert dap(res) == [0.0, 0.0, 0.0, round(1 / 6, 12), 0.0, 0.0]


def test_localization_on_a_matched_object_is_suppressed_and_the_other_object_missed():
    # g1 (image 0) is matched by the TP at 0.8; the 0.9 detection's best IoU of its class is 0.3 with g1: a
    # localization error aiming at a matched object, which the fix removes. g2 (image 1) has nothing near it: missed.
    dets = [(0, 0, 0.9, LOC_03), (0, 0, 0.8, G)]
    res, err = voc_tide(dets, [(0, 0, G, False), (0, 1, G, False)], 1)
    assert err.kind.tolist() == [LOC, NO_ERROR]
    assert err.target.tolist() == [0, -1]
    assert err.missed.tolist() == [False, True]
    # original F T, npos 2: AP 0.5 * 0.5 = 0.25; localization removed: T: AP 0.5, +0.25; missed fixed: npos 1,
    # F T: precision 1/2 up to recall 1: AP 0.5, +0.25
    assert res.ap[0] == pytest.approx(0.25)
    assert dap(res) == [0.25, 0.0, 0.0, 0.0, 0.0, 0.25]


# ---- VOC: two classes, wrong class and missed -----------------------------------------------------------------

def test_wrong_class_moves_the_detection_and_beats_a_localization_error_on_the_same_object():
    # class 0 objects: a1 = G in image 0, a2 = FAR in image 1 (missed: nothing near it). class 1 object: b1 = G in
    # image 1. Class 0 detections: G in image 1 at 0.9 (IoU 1 with b1: wrong class), G in image 0 at 0.8 (TP a1).
    # Class 1 detection: LOC_03 in image 1 at 0.6 (IoU 0.3 with b1: localization).
    dets = [(0, 1, 0.9, G), (0, 0, 0.8, G), (1, 1, 0.6, LOC_03)]
    gts = [(0, 0, G, False), (0, 1, FAR, False), (1, 1, G, False)]
    res, err = voc_tide(dets, gts, 2)
    assert err.kind.tolist() == [CLS, NO_ERROR, LOC]
    assert err.target.tolist() == [2, -1, 2]
    assert err.missed.tolist() == [False, True, False]
    # class 0: F T, npos 2 -> AP 0.5 * 0.5 = 0.25; class 1: F, npos 1 -> AP 0
    assert res.ap.tolist() == pytest.approx([0.25, 0.0])
    # wrong class fixed: class 0 loses its FP (T: AP 0.5, +0.25); class 1 gains it as a TP at 0.9 ranked before its
    # own 0.6 FP (T F: AP 1, +1)
    # localization fixed: b1's best claimant is the wrong-class error (0.9 > 0.6), so the localization error is
    # removed, not fixed: class 1 has no detection left, AP 0, +0 (TIDE's BestGTMatch across both types)
    # missed fixed: class 0 npos 2 -> 1: F T -> precision 1/2 at recall 1: AP 0.5, +0.25
    assert dap(res, 0) == [0.0, 0.25, 0.0, 0.0, 0.0, 0.25]
    assert dap(res, 1) == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert res.count[:, 0].tolist() == [0, 1, 0, 0, 0, 1]
    assert res.count[:, 1].tolist() == [1, 0, 0, 0, 0, 0]


def test_localization_is_tested_before_wrong_class_and_both_is_the_rest():
    # image 0: class 0 object G, class 1 object G shifted; detection of class 0 with IoU 0.3 with its own object and
    # IoU 1 with the class 1 object: localization (tested first). Image 1: only a class 1 object; a class 0
    # detection with IoU 0.3 with it: 'both' (not of its class, below 0.5, not background).
    dets = [(0, 0, 0.9, [0, 0, 9, 2]), (0, 1, 0.8, LOC_03)]
    gts = [(0, 0, G, False), (1, 0, [0, 0, 9, 2], False), (1, 1, G, False)]
    res, err = voc_tide(dets, gts, 2)
    assert err.kind.tolist() == [LOC, BOTH]
    assert err.target.tolist() == [0, -1]
    # class 0: F F, npos 1 -> AP 0. Localization fixed: T F -> AP 1. Both removed: F -> AP 0.
    assert dap(res, 0) == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    # class 1: no detection, npos 2; neither object is matched or aimed at by a localization or class error: both
    # missed. Fixing them leaves no positive: AP 0 (TIDE's get_ap), +0
    assert err.missed.tolist() == [False, True, True]
    assert dap(res, 1) == [0.0] * 6


def test_iou_thresholds_half_open():
    # IoU exactly 0.1 with its own object is localization; just under 0.1 with every object is background
    dets = [(0, 0, 0.9, EDGE_01), (0, 1, 0.8, [0, 0, 8, 0])]      # second: 9 / 100 = 0.09
    res, err = voc_tide(dets, [(0, 0, G, False), (0, 1, G, False)], 1)
    assert err.kind.tolist() == [LOC, BKG]


def test_difficult_objects_are_not_ground_truth_for_tide():
    # the detection on a difficult object is ignored by VOCevaldet.m: no error; a detection at IoU 0.3 with the
    # difficult object and 0 with everything else is background (difficult objects are not ground truth here)
    dets = [(0, 0, 0.9, G), (0, 0, 0.8, LOC_03)]
    res, err = voc_tide(dets, [(0, 0, G, True), (0, 1, G, False)], 1)
    assert err.kind.tolist() == [NO_ERROR, BKG]
    assert err.missed.tolist() == [True]      # per counted object (not difficult): never matched nor aimed at
    # ranks: ignored, F; npos 1: AP 0. Background removed: AP 0 (no TP). Missed fixed: npos 0 -> AP 0
    assert dap(res) == [0.0] * 6


# ---- ACT frame-AP: frames as the images, trapezoid AP ----------------------------------------------------------

def act_tide(dets, gts, nclasses):
    """dets: (class, frame key, score, box); gts: (class, frame key, box)."""
    dc = np.array([d[0] for d in dets], dtype=np.int64)
    dk = np.array([d[1] for d in dets], dtype=np.int64)
    ds = np.array([d[2] for d in dets], dtype=float)
    db = np.array([d[3] for d in dets], dtype=float).reshape(-1, 4)
    gc = np.array([g[0] for g in gts], dtype=np.int64)
    gk = np.array([g[1] for g in gts], dtype=np.int64)
    gb = np.array([g[2] for g in gts], dtype=float).reshape(-1, 4)
    m = M.frame_match(dc, dk, ds, db, gc, gk, gb)
    aps, _, _ = M.frame_ap(dc, dk, ds, db, gc, gk, gb, nclasses)
    res, err = M.frame_tide(dc, dk, db, gc, gk, gb, m, nclasses)
    assert res.ap.tolist() == aps.tolist()              # the same AP as the metric, to the bit
    return res, err


def test_act_frame_tide_one_class():
    # frame 1: box G, frame 2: box G. Ranked: TP 0.9 (frame 1), background 0.8 (frame 2), localization 0.7
    # (frame 2, IoU 0.3), duplicate 0.6 (frame 1)
    dets = [(0, 1, 0.9, G), (0, 2, 0.8, FAR), (0, 2, 0.7, LOC_03), (0, 1, 0.6, G)]
    res, err = act_tide(dets, [(0, 1, G), (0, 2, G)], 1)
    assert err.kind.tolist() == [NO_ERROR, BKG, LOC, DUPE]
    # ACT points from (0, 1): (0.5, 1) (0.5, 1/2) (0.5, 1/3) (0.5, 1/4): AP = 0.5 * (1 + 1) / 2 = 0.5
    assert res.ap[0] == pytest.approx(0.5)
    # localization fixed: (0.5, 1) (0.5, 1/2) (1, 2/3) (1, 1/2): AP 0.5 + 0.5 * (1/2 + 2/3) / 2 = 0.5 + 7/24
    # background removed: (0.5, 1) (0.5, 1/2) (0.5, 1/3): AP 0.5, +0; duplicate removed: +0 (after every TP)
    assert dap(res) == [round(7 / 24, 12), 0.0, 0.0, 0.0, 0.0, 0.0]


def test_act_frame_tide_wrong_class_and_missed():
    # class 0 box G in frame 1, class 1 box G in frame 2, class 1 box FAR in frame 3 (missed).
    # class 0 detection: G in frame 2 at 0.9 (wrong class, IoU 1 with the class 1 box). class 1 detection: G in
    # frame 2 at 0.5 (TP).
    dets = [(0, 2, 0.9, G), (1, 2, 0.5, G)]
    res, err = act_tide(dets, [(0, 1, G), (1, 2, G), (1, 3, FAR)], 2)
    assert err.kind.tolist() == [CLS, NO_ERROR]
    # the wrong-class error aims at a box already matched by class 1's TP: the fix removes it, adds nothing
    assert err.missed.tolist() == [True, False, True]
    # class 0: (0, 0), npos 1: AP 0; removing its only detection leaves none: AP 0. Missed fixed: npos 0: AP 0
    assert dap(res, 0) == [0.0] * 6
    # class 1: (1/2, 1), npos 2: AP 1/2 * (1 + 1) / 2 = 0.5. Missed fixed: npos 1: (1, 1): AP 1, +0.5
    assert res.ap[1] == pytest.approx(0.5)
    assert dap(res, 1) == [0.0, 0.0, 0.0, 0.0, 0.0, 0.5]
    assert res.count[MISSED].tolist() == [1, 1]


# ---- properties -------------------------------------------------------------------------------------------------

boxes = st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(1, 25), st.integers(1, 25)).map(
    lambda t: [t[0], t[1], t[0] + t[2], t[1] + t[3]])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 9), boxes), max_size=14),
       st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), boxes, st.booleans()), min_size=1, max_size=8))
def test_every_fix_gains_and_the_base_ap_is_the_metric(dets, gts):
    dets = [(c, i, s / 10.0, b) for c, i, s, b in dets]
    res, err = voc_tide(dets, gts, 3)
    assert np.all(np.nan_to_num(res.dap) >= 0)
    for c in range(3):
        mine = [d for d in dets if d[0] == c]
        g = [x for x in gts if x[0] == c]
        ap = voc_det_ap(np.array([d[2] for d in mine], dtype=float), np.array([d[1] for d in mine], dtype=int),
                        np.array([d[3] for d in mine], dtype=float).reshape(-1, 4), np.array([x[1] for x in g]),
                        np.array([x[2] for x in g], dtype=float).reshape(-1, 4), np.array([x[3] for x in g],
                                                                                          dtype=bool), 4)[0]
        assert (ap is None and np.isnan(res.ap[c])) or ap == res.ap[c]
    # every false positive has a type, nothing else has one
    assert np.count_nonzero(err.kind != NO_ERROR) == res.count[:MISSED].sum()
