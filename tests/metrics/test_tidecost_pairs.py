"""metrics.tide.overlapping_pairs against its definition, written out pair by pair: every (detection, ground truth) of
the same group whose IoU is >= min_iou (a NaN fails), detection-major, ground truths in index order inside a
detection's pairs, whatever the order of the ground-truth groups and wherever the chunks fall; iou_of is asked about
at most `chunk` pairs at a time (or one detection's pairs, when it has more), each (detection, ground truth) of the
same group exactly once. Issue 31, item 6: its exact output is what every TIDE number of the full level is made of."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring_program.metrics.tide import overlapping_pairs

# IoU values around the threshold 0.1, NaN (a degenerate box) and 0 (disjoint)
VALUES = [0.0, 0.05, 0.0999999, 0.1, 0.1000001, 0.3, 0.5, 1.0, float("nan")]


def by_definition(det_group, gt_group, table, min_iou):
    out = [(d, g, table[d, g]) for d in range(len(det_group)) for g in range(len(gt_group))
           if det_group[d] == gt_group[g] and table[d, g] >= min_iou]
    return ([d for d, _, _ in out], [g for _, g, _ in out], [v for _, _, v in out])


@st.composite
def cases(draw):
    ngroups = draw(st.integers(1, 5))
    det_group = draw(st.lists(st.integers(0, ngroups - 1), min_size=0, max_size=30))
    gt_group = draw(st.lists(st.integers(0, ngroups - 1), min_size=0, max_size=12))
    if draw(st.booleans()):
        gt_group = sorted(gt_group)          # VOC's counted objects come image-major
    table = np.array(draw(st.lists(st.sampled_from(VALUES), min_size=len(det_group) * len(gt_group),
                                   max_size=len(det_group) * len(gt_group))), dtype=np.float64)
    table = table.reshape(len(det_group), len(gt_group))
    return det_group, gt_group, table, draw(st.integers(1, 40)), draw(st.sampled_from([0.1, 0.5]))


@settings(max_examples=300, deadline=None)
@given(cases())
def test_overlapping_pairs_are_the_definitions_pairs_in_its_order(case):
    det_group, gt_group, table, chunk, min_iou = case
    asked = []

    def iou_of(pair_det, pair_gt):
        asked.append((pair_det.copy(), pair_gt.copy()))
        return table[pair_det, pair_gt]

    pd, pg, iou = overlapping_pairs(np.array(det_group, dtype=np.int64), np.array(gt_group, dtype=np.int64), iou_of,
                                    min_iou=min_iou, chunk=chunk)
    want_d, want_g, want_v = by_definition(det_group, gt_group, table, min_iou)
    assert pd.dtype == np.int64 and pg.dtype == np.int64 and iou.dtype == np.float64
    assert pd.tolist() == want_d and pg.tolist() == want_g
    assert iou.tolist() == want_v                          # the very values iou_of gave, no NaN kept
    # every same-group pair asked about exactly once; at most `chunk` pairs a call unless one detection has more
    per_group = np.bincount(np.array(gt_group, dtype=np.int64), minlength=6)
    most = int(per_group.max()) if gt_group else 0
    asked_pairs = sorted((int(d), int(g)) for a, b in asked for d, g in zip(a, b))
    assert asked_pairs == sorted((d, g) for d in range(len(det_group)) for g in range(len(gt_group))
                                 if det_group[d] == gt_group[g])
    assert all(a.size <= max(chunk, most) for a, _ in asked)


def test_hand_worked_pairs_of_two_images_with_unsorted_objects():
    # objects 0..3 in images 1, 0, 1, 0; detections in images 0, 1, 1, 2 (image 2 has no object)
    det_group = np.array([0, 1, 1, 2])
    gt_group = np.array([1, 0, 1, 0])
    table = np.array([[9, 0.2, 9, 0.05],          # det 0 (image 0): object 1 kept, object 3 below 0.1
                      [0.1, 9, float("nan"), 9],  # det 1 (image 1): object 0 at exactly 0.1 kept, NaN fails
                      [0.7, 9, 0.4, 9],           # det 2 (image 1): both, in object order
                      [9, 9, 9, 9]])              # det 3: no object in image 2
    pd, pg, iou = overlapping_pairs(det_group, gt_group, lambda a, b: table[a, b], chunk=1)
    assert pd.tolist() == [0, 1, 2, 2]
    assert pg.tolist() == [1, 0, 0, 2]
    assert iou.tolist() == [0.2, 0.1, 0.7, 0.4]


@pytest.mark.parametrize("dets, gts", [([], [0, 1]), ([0, 1], []), ([], [])])
def test_no_detection_or_no_object_gives_no_pair_and_asks_nothing(dets, gts):
    def iou_of(a, b):
        raise AssertionError("asked")
    pd, pg, iou = overlapping_pairs(np.array(dets, dtype=np.int64), np.array(gts, dtype=np.int64), iou_of)
    assert (pd.tolist(), pg.tolist(), iou.tolist()) == ([], [], [])
    assert pd.dtype == np.int64 and pg.dtype == np.int64 and iou.dtype == np.float64
