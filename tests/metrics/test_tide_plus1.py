"""metrics.tide.false_positive_errors_plus1 (voc2011-detection's TIDE classification, no pair arrays) gives, bit for
bit, what overlapping_pairs and false_positive_errors give on the devkit's +1 IoU (iou_pairs_plus1): on a case
worked out by hand, on random cases with ties, inverted, zero-area and overflowing (+-1e308) boxes, ground truths
in any group order, detections in any row order and chunks of any size."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring_program.metrics.overlap import iou_pairs_plus1
from scoring_program.metrics.tide import (BKG, BOTH, CLS, DUPE, LOC, NO_ERROR, false_positive_errors,
                                          false_positive_errors_plus1, overlapping_pairs)

HUGE = 1e308


def by_pairs(det_class, det_fp, rows, det_group, det_boxes, gt_group, gt_boxes, gt_class, gt_matched):
    """The definition: every (false positive, ground truth of its group) pair's IoU, then false_positive_errors."""
    fp = np.flatnonzero(det_fp)
    fbox = det_boxes[rows[fp]]
    pd, pg, iou = overlapping_pairs(det_group[rows[fp]], gt_group, lambda a, b: iou_pairs_plus1(fbox[a], gt_boxes[b]))
    return false_positive_errors(det_class, det_fp, fp[pd], pg, iou, gt_class, gt_matched)


def plus1(det_class, det_fp, rows, det_group, det_boxes, gt_group, gt_boxes, gt_class, gt_matched, chunk=1 << 16,
          heavy=1 << 11):
    return false_positive_errors_plus1(det_class, det_fp, rows, det_group, det_boxes, gt_group,
                                       [np.ascontiguousarray(gt_boxes[:, k]) for k in range(4)], gt_class,
                                       gt_matched, chunk=chunk, heavy=heavy)


def test_a_case_worked_out_by_hand():
    # image 0: g0 (class 0) and g1 (class 1) on the same 10 x 10 box, g2 (class 0, matched) 20 pixels right,
    # g3 (class 1) at x 50..59; image 1 holds no ground truth
    gt_boxes = np.array([[0, 0, 9, 9], [0, 0, 9, 9], [20, 0, 29, 9], [50, 0, 59, 9]], dtype=float)
    gt_group, gt_class = np.zeros(4, dtype=np.int64), np.array([0, 1, 0, 1])
    gt_matched = np.array([False, False, True, False])
    ranked = [  # (class, image, box, false positive), in rank order
        (0, 0, (0, 0, 9, 9), True),      # IoU 1 with g0 (its class: not a localization error) and g1: class, g1
        (0, 0, (0, 0, 2, 9), True),      # 30 / 100 = 0.3 with g0 (and g1): localization, g0
        (0, 0, (20, 0, 29, 9), True),    # IoU 1 with g2, matched, and with no other class: duplicate
        (0, 1, (0, 0, 9, 9), True),      # an image without ground truth: background
        (0, 0, (100, 100, 110, 110), True),     # meets nothing: background
        (0, 0, (5, 0, 24, 9), True),     # 50 / 250 = 0.2 with g0, g1 and g2: localization, the first of g0 and g2
        (1, 0, (0, 0, 9, 9), True),      # class 1: IoU 1 with g1 (its class) and g0: class, g0
        (1, 0, (50, 0, 59, 9), False),   # a true positive: no error
        (0, 0, (55, 0, 64, 9), True),    # 50 / 150 = 0.33 with g3 only (another class): both
    ]
    n = len(ranked)
    rows = np.arange(n)[::-1].copy()     # the detections' rows in file order are the ranks reversed
    det_class = np.array([r[0] for r in ranked], dtype=np.int8)
    det_fp = np.array([r[3] for r in ranked])
    det_group = np.array([r[1] for r in ranked])[rows]
    det_boxes = np.array([r[2] for r in ranked], dtype=float)[rows]
    args = (det_class, det_fp, rows, det_group, det_boxes, gt_group, gt_boxes, gt_class, gt_matched)
    for chunk, heavy in ((1, 1 << 11), (4, 1 << 11), (1 << 16, 1 << 11), (1, 1), (4, 1), (1 << 16, 1), (4, 3)):
        kind, target = plus1(*args, chunk=chunk, heavy=heavy)      # heavy 1, 3: image 0 faced as scalars
        assert kind.tolist() == [CLS, LOC, DUPE, BKG, BKG, LOC, CLS, NO_ERROR, BOTH]
        assert target.tolist() == [1, 0, -1, -1, -1, 0, 0, -1, -1]
    assert [v.tolist() for v in by_pairs(*args)] == [kind.tolist(), target.tolist()]


coordinate = st.one_of(st.integers(-4, 40).map(lambda v: v / 2.0), st.sampled_from([-HUGE, HUGE]))


def random_boxes(rng, n, odd):
    xy = rng.randint(0, 30, size=(n, 2)).astype(np.float64)
    boxes = np.hstack([xy, xy + rng.randint(-2, 20, size=(n, 2))])      # some inverted, some one pixel wide
    special = rng.rand(n, 4) < odd
    boxes[special] = rng.choice([-HUGE, HUGE, 0.0, 29.5], size=int(special.sum()))
    return boxes


def random_case(rng, ndet, ngt, ngroups, nclasses, odd, sorted_gt):
    """The arguments of by_pairs and plus1: random boxes on a small canvas (many overlaps), copies of boxes (ties in
    IoU), detections in a group without ground truth, and detections on a ground truth of their group or near it
    (localization, class and duplicate errors)."""
    gt_group = rng.randint(0, ngroups, ngt)
    if sorted_gt:
        gt_group.sort()
    gt_boxes = random_boxes(rng, ngt, odd)
    dup = rng.rand(ngt) < 0.2                      # copies of the previous box: ties in IoU
    dup[:1] = False
    gt_boxes[dup] = gt_boxes[np.flatnonzero(dup) - 1]
    gt_group[dup] = gt_group[np.flatnonzero(dup) - 1]
    gt_class = rng.randint(0, nclasses, ngt)
    gt_matched = rng.rand(ngt) < 0.4
    det_class = np.sort(rng.randint(0, nclasses, ndet)).astype(np.int8)
    det_fp = rng.rand(ndet) < 0.8
    rows = rng.permutation(ndet)
    det_group = rng.randint(0, ngroups + 1, ndet)          # some in a group without ground truth
    det_boxes = random_boxes(rng, ndet, odd)
    for i in np.flatnonzero(rng.rand(ndet) < 0.3):        # some on a ground truth of their group, or near it
        mine = np.flatnonzero(gt_group == det_group[i])
        if mine.size:
            det_boxes[i] = gt_boxes[rng.choice(mine)] + rng.randint(-3, 4, 4) * (rng.rand() < 0.5)
    return det_class, det_fp, rows, det_group, det_boxes, gt_group, gt_boxes, gt_class, gt_matched


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), ndet=st.integers(0, 120), ngt=st.integers(0, 30),
       ngroups=st.integers(1, 6), nclasses=st.integers(1, 3), odd=st.sampled_from([0.0, 0.05, 0.3]),
       sorted_gt=st.booleans(), chunk=st.sampled_from([1, 2, 3, 7, 1 << 16]),
       heavy=st.sampled_from([1, 5, 30, 1 << 11]))
def test_the_same_values_as_the_pairs(seed, ndet, ngt, ngroups, nclasses, odd, sorted_gt, chunk, heavy):
    """Any chunk; heavy: the groups of at least that many false positives face their ground truths as scalars
    (1: all, 2048: none)."""
    args = random_case(np.random.RandomState(seed), ndet, ngt, ngroups, nclasses, odd, sorted_gt)
    with np.errstate(all="ignore"):
        expected = by_pairs(*args)
    with np.errstate(all="raise"):                          # no warning escapes either
        kind, target = plus1(*args, chunk=chunk, heavy=heavy)
    assert kind.dtype == expected[0].dtype and target.dtype == expected[1].dtype
    assert kind.tolist() == expected[0].tolist()
    assert target.tolist() == expected[1].tolist()


@pytest.mark.parametrize("seed", range(3))
def test_random_cases_are_not_trivial(seed):
    """The generator above makes every error type, so the test above compares something."""
    args = random_case(np.random.RandomState(seed), 400, 30, 4, 2, 0.05, False)
    kind, target = plus1(*args, chunk=5, heavy=60)
    assert set(kind.tolist()) == {NO_ERROR, LOC, CLS, BOTH, DUPE, BKG}
    assert (target >= 0).sum() > 20
    with np.errstate(all="ignore"):
        assert [v.tolist() for v in by_pairs(*args)] == [kind.tolist(), target.tolist()]
