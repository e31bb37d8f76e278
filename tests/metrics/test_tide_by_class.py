"""metrics.tide classified class by class (false_positive_errors, missed_objects: what voc2011-detection does, so
that one class's pairs live at a time) gives classify_errors' values over every class at once; overlapping_pairs'
chunks and ground-truth order change nothing; formats.hints.box_hint on a list of arrays is box_hint on their
concatenation."""
import numpy as np
import pytest

from scoring_program.formats.hints import box_hint
from scoring_program.metrics.detection import voc_det_match
from scoring_program.metrics.overlap import iou_pairs_plus1
from scoring_program.metrics.tide import (classify_errors, false_positive_errors, missed_objects,
                                          overlapping_pairs)


def random_case(seed, nclasses=4, nimages=12, ndets=300, ngts=40):
    """Random objects and detections on a small canvas (many overlaps), matched per class by VOCevaldet.m's rules:
    ranked class-major (cls, img, box, fp), the counted objects (gc, gi, gb), matched per counted object, and
    each class's slice of the ranked detections."""
    rng = np.random.RandomState(seed)

    def boxes(n):
        xy = rng.randint(0, 40, size=(n, 2)).astype(np.float64)
        return np.hstack([xy, xy + rng.randint(0, 25, size=(n, 2))])

    gc, gi, gb = rng.randint(0, nclasses, ngts), np.sort(rng.randint(0, nimages, ngts)), boxes(ngts)
    dc, di, db = rng.randint(0, nclasses, ndets), rng.randint(0, nimages, ndets), boxes(ndets)
    conf = rng.randint(0, 20, ndets) / 20.0            # ties on purpose
    cls, img, box, fp, slices = [], [], [], [], []
    matched = np.zeros(ngts, dtype=bool)
    for c in range(nclasses):
        mine, g = np.flatnonzero(dc == c), np.flatnonzero(gc == c)
        m = voc_det_match(conf[mine], di[mine], db[mine], gi[g], gb[g], np.zeros(g.size, dtype=bool), nimages)
        matched[g[m.candidate[m.tp]]] = True
        start = len(cls)
        cls += [c] * mine.size
        img += di[mine][m.order].tolist()
        box += db[mine][m.order].tolist()
        fp += m.fp.tolist()
        slices.append(slice(start, len(cls)))
    return (np.array(cls, dtype=np.int8), np.array(img), np.array(box).reshape(-1, 4), np.array(fp, dtype=bool),
            gc, gi, gb, matched, slices)


@pytest.mark.parametrize("seed", range(6))
def test_errors_class_by_class_equal_errors_over_every_class(seed):
    cls, img, box, fp, gc, gi, gb, matched, slices = random_case(seed)
    pd, pg, iou = overlapping_pairs(img, gi, lambda a, b: iou_pairs_plus1(box[a], gb[b]))
    whole = classify_errors(cls, fp, pd, pg, iou, gc, matched)
    assert (whole.kind >= 0).sum() > 20 and (whole.target >= 0).sum() > 5         # the case is not trivial
    kinds, targets = [], []
    for s in slices:            # each class's pairs alone, indices local to the class
        fps = np.flatnonzero(fp[s])
        a, b, v = overlapping_pairs(img[s][fps], gi, lambda x, y: iou_pairs_plus1(box[s][fps][x], gb[y]))
        kind, target = false_positive_errors(cls[s], fp[s], fps[a], b, v, gc, matched)
        kinds.append(kind)
        targets.append(target)
    kind, target = np.concatenate(kinds), np.concatenate(targets)
    assert kind.dtype == whole.kind.dtype and target.dtype == whole.target.dtype
    assert kind.tolist() == whole.kind.tolist()
    assert target.tolist() == whole.target.tolist()
    assert missed_objects(target, matched).tolist() == whole.missed.tolist()


@pytest.mark.parametrize("seed", range(4))
def test_overlapping_pairs_chunks_and_ground_truth_order(seed):
    rng = np.random.RandomState(seed)
    det_group, gt_group = rng.randint(0, 7, 60), rng.randint(0, 7, 25)       # ground truths not group-major
    def boxes(n):
        xy = rng.randint(0, 30, size=(n, 2)).astype(np.float64)
        return np.hstack([xy, xy + rng.randint(0, 20, size=(n, 2))])

    det_box, gt_box = boxes(60), boxes(25)

    def iou_of(a, b):
        return iou_pairs_plus1(det_box[a], gt_box[b])

    expected = [(d, g) for d in range(60) for g in range(25)
                if det_group[d] == gt_group[g] and iou_of(np.array([d]), np.array([g]))[0] >= 0.1]
    assert len(expected) > 10
    for chunk in (1, 3, 1 << 14):
        pd, pg, iou = overlapping_pairs(det_group, gt_group, iou_of, chunk=chunk)
        assert list(zip(pd.tolist(), pg.tolist())) == expected        # detection-major, ground truths in order
        assert iou.tolist() == iou_of(pd, pg).tolist()
    order = np.argsort(gt_group, kind="stable")                        # the same objects, group-major
    pd, pg, _ = overlapping_pairs(det_group, gt_group[order], lambda a, b: iou_of(a, order[b]))
    assert list(zip(pd.tolist(), order[pg].tolist())) == expected


def test_box_hint_of_a_list_is_the_hint_of_the_concatenation():
    rng = np.random.RandomState(0)
    cases = [[rng.rand(5, 4), rng.rand(3, 4), np.zeros((0, 4))],                          # normalised
             [np.array([[10, 10, 5, 5.], [20, 20, 8, 9]]), np.array([[1, 1, 30, 30.]])],    # x, y, w, h
             [np.array([[10, 10, 50, 60.]]), np.array([[0, 0, 1, 1.]])],                    # pixel corners
             [np.zeros((0, 4)), np.zeros((0, 4))], []]
    for parts in cases:
        whole = np.concatenate(parts) if parts else np.zeros((0, 4))
        assert box_hint(parts, "detection boxes") == box_hint(whole, "detection boxes")
    assert box_hint(cases[0]) == ("every coordinate of the 8 boxes lies within 0..1 (the first: %s): they look "
                                  "normalised; the format expects pixel coordinates"
                                  % " ".join("%g" % v for v in cases[0][0][0]))
    assert box_hint(cases[1]).startswith("2 of the 3 boxes have x2 < x1 or y2 < y1 (the first: 10 10 5 5)")
