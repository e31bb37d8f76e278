"""VOCevaldet.m (VOC2010+ devkits) detection matching and AP, in an order-free vectorized form.

The devkit walks the detections in rank order (``[sc,si]=sort(-confidence)``, a stable sort) and for each one:

    ovmax=-inf; for j over the image's GT objects of the class (XML order):
        iw=min(x2)-max(x1)+1; ih=min(y2)-max(y1)+1
        if iw>0 & ih>0: ov=iw*ih/ua (ua with the +1 convention); if ov>ovmax: ovmax=ov; jmax=j
    if ovmax>=0.5: if ~diff(jmax): if ~det(jmax): tp, det(jmax)=true else fp   (difficult: neither)
    else fp

The candidate jmax depends only on the detection and the GT (the first maximum over ALL GT objects of the
class in the image, difficult ones included), never on the other detections. "Already detected" means that
an earlier-ranked detection had the same non-difficult candidate with ovmax >= 0.5. So: compute every
candidate at once (the devkit's inner loop over GT objects, each step one vector pass over the detections that
face that many objects: memory bounded by the submission, no detections x objects pair arrays), then a detection
is a TP iff it is the first claimant of its candidate. No fallback to a second-best free object, exactly as the
devkit.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .ap import ap_voc2010, pr_curve
from .ranking import stable_descending_order
from .segments import members_of, segment_starts


# detections matched at a time: every array of the matching but its inputs and outputs is this long (a few hundred
# KiB: cache-resident), whatever the number of ground-truth objects each detection faces
CHUNK = 1 << 15
# detections of one group (image) from which that group's objects are faced one at a time as scalars (no gathers,
# no bookkeeping of who faces which object): a submission that piles its detections on a few images costs about
# what an honest one of its size costs
HEAVY = 1 << 11


def _area_plus1(x1, y1, x2, y2):
    """(x2 - x1 + 1) * (y2 - y1 + 1): metrics.overlap.iou_columns_plus1's area, the same operations in the same
    order (the same bits)."""
    return (x2 - x1 + 1.0) * (y2 - y1 + 1.0)


def best_candidates(det_group, det_boxes, gt_group, gt_boxes, ngroups: int, chunk: int = CHUNK,
                    heavy: int = HEAVY) -> tuple:
    """For each detection, the GT index of its first-maximum +1-pixel overlap within its group, and that overlap.

    det_group[i], gt_group[j]: integer group (image) of each item, 0 <= g < ngroups. Within a group, GT
    order is index order (XML order). Returns (candidate int64, -1 when none; ovmax float64, -inf when none).
    Overlaps are computed only for (detection, GT) pairs of the same group.

    VOCevaldet.m's inner loop as it is written, with the detections as the vector: the j-th GT object of its group
    is overlapped with every detection facing more than j objects, at once, and taken when the boxes meet (iw > 0
    and ih > 0) and its overlap is strictly larger than the best so far (`if ov>ovmax`: the first maximum wins, a
    NaN is never taken). The overlap is metrics.overlap.iou_columns_plus1's, operation for operation (the same
    bits). Memory is bounded by `chunk` detections at a time (never detections x objects: no pair arrays), and a
    (detection, object) pair costs a fixed few in-place vector passes on cache-sized arrays. The detections of a
    group that holds at least `heavy` of them face its objects apart (_heavy_candidates): the same operations with
    each object's coordinates as scalars.
    """
    det_group = np.asarray(det_group)
    if det_group.dtype.kind not in "iu":        # int32 image indices are kept as they are (no int64 copy)
        det_group = det_group.astype(np.int64)
    gt_group = np.asarray(gt_group, dtype=np.int64)
    nd = det_group.size
    cand = np.full(nd, -1, dtype=np.int64)
    ovmax = np.full(nd, -np.inf)
    if nd == 0 or gt_group.size == 0:
        return cand, ovmax
    gt_order = np.argsort(gt_group, kind="stable")          # group-major, XML order inside a group
    counts = np.bincount(gt_group, minlength=ngroups)
    starts = segment_starts(counts)
    gt_boxes = np.asarray(gt_boxes, dtype=np.float64).reshape(-1, 4)
    gx1, gy1, gx2, gy2 = [np.ascontiguousarray(gt_boxes[gt_order, k]) for k in range(4)]
    det_boxes = np.asarray(det_boxes, dtype=np.float64).reshape(-1, 4)
    per_group = np.bincount(det_group, minlength=ngroups)
    is_heavy = (per_group >= max(heavy, 1)) & (counts > 0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):     # coordinates near 1e308: inf, NaN
        garea = _area_plus1(gx1, gy1, gx2, gy2)
        if is_heavy.any():
            _heavy_candidates(det_group, det_boxes, is_heavy, per_group, starts, counts,
                              (gx1, gy1, gx2, gy2, garea), chunk, cand, ovmax)
            counts = np.where(is_heavy, 0, counts)           # their detections are done
        for lo in range(0, nd, chunk):
            group = det_group[lo:lo + chunk]
            left = counts[group]                             # GT objects still to face, per detection
            rows = np.flatnonzero(left)
            if not rows.size:
                continue
            left = left[rows]
            slot = starts[group[rows]]                       # the object it faces now, group-major
            columns = [det_boxes[lo + rows, k] for k in range(4)]
            columns.append(_area_plus1(*columns))
            best = np.full(rows.size, -np.inf)
            arg = np.full(rows.size, -1, dtype=np.int64)     # the best object so far, group-major
            while rows.size:
                dx1, dy1, dx2, dy2, darea = columns
                iw = np.minimum(dx2, gx2.take(slot))         # iou_columns_plus1's operations, in place
                iw -= np.maximum(dx1, gx1.take(slot))
                iw += 1.0
                ih = np.minimum(dy2, gy2.take(slot))
                ih -= np.maximum(dy1, gy1.take(slot))
                ih += 1.0
                take = iw > 0
                take &= ih > 0                               # the boxes meet
                iw *= ih                                     # the intersection
                ua = garea.take(slot)
                ua += darea
                ua -= iw
                iw /= ua                                     # the overlap where they meet
                take &= iw > best
                np.copyto(best, iw, where=take)
                np.copyto(arg, slot, where=take)
                left -= 1
                slot += 1
                going = left > 0
                if not going.all():                          # those done: their best is final
                    done = ~going
                    ovmax[lo + rows[done]] = best[done]
                    cand[lo + rows[done]] = arg[done]
                    rows, left, slot, best, arg = [a[going] for a in (rows, left, slot, best, arg)]
                    columns = [c[going] for c in columns]
    found = cand >= 0
    cand[found] = gt_order[cand[found]]
    return cand, ovmax


def _heavy_candidates(det_group, det_boxes, is_heavy, per_group, starts, counts, gt_columns, chunk, cand, ovmax):
    """best_candidates for the detections of the groups where is_heavy, into cand (group-major object positions)
    and ovmax: per group, `chunk` of its detections at a time face its objects in XML order, each object's
    coordinates and area as scalars; the operations of best_candidates' loop, in its order, on the same values
    (garea + darea is darea + garea: IEEE addition commutes), so the same bits."""
    gx1, gy1, gx2, gy2, garea = gt_columns
    for g, rows in members_of(det_group, is_heavy, per_group, chunk):
        dx1, dy1, dx2, dy2 = [det_boxes[rows, k] for k in range(4)]
        darea = _area_plus1(dx1, dy1, dx2, dy2)
        best = np.full(rows.size, -np.inf)
        arg = np.full(rows.size, -1, dtype=np.int64)
        for j in range(int(starts[g]), int(starts[g] + counts[g])):
            iw = np.minimum(dx2, gx2[j])
            iw -= np.maximum(dx1, gx1[j])
            iw += 1.0
            ih = np.minimum(dy2, gy2[j])
            ih -= np.maximum(dy1, gy1[j])
            ih += 1.0
            take = iw > 0
            take &= ih > 0
            iw *= ih
            ua = darea + garea[j]
            ua -= iw
            iw /= ua
            take &= iw > best
            np.copyto(best, iw, where=take)
            arg[take] = j
        ovmax[rows] = best
        cand[rows] = arg


class DetMatch(NamedTuple):
    """One class's VOCevaldet.m matching, in rank order: order (result-file index of each rank), tp, fp (bool; a
    detection whose candidate is difficult has neither), candidate (the GT index of its first-maximum overlap,
    -1 when none; for a true positive, the object it matched) and overlap (that overlap, -inf when none: the
    matching at another threshold is voc_flags(candidate, overlap, ...), nothing is overlapped again)."""
    order: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    candidate: np.ndarray
    overlap: np.ndarray


def match_ranked(det_group, det_boxes, gt_group, gt_boxes, gt_difficult, ngroups, min_overlap=0.5,
                 with_candidates=False):
    """tp, fp (bool arrays) for detections already in rank order, VOCevaldet.m's rules (see module doc);
    with_candidates: also each detection's candidate and its overlap (best_candidates).

    A detection whose candidate is difficult (ovmax >= min_overlap) is neither TP nor FP; exactly
    min_overlap matches (>=).
    """
    cand, ovmax = best_candidates(det_group, det_boxes, gt_group, gt_boxes, ngroups)
    tp, fp = voc_flags(cand, ovmax, gt_difficult, min_overlap)
    if with_candidates:
        return tp, fp, cand, ovmax
    return tp, fp


def voc_flags(candidate, overlap, gt_difficult, min_overlap=0.5) -> tuple:
    """tp, fp (bool, rank order) from each ranked detection's candidate and its overlap (best_candidates):
    VOCevaldet.m's rules at min_overlap (>= matches; a difficult candidate: neither; the first claimant in rank
    order takes the object, a later one is a false positive). The candidate does not depend on the threshold, so
    one best_candidates serves every threshold."""
    diff = np.asarray(gt_difficult, dtype=bool)
    hit = overlap >= min_overlap
    hit_diff = np.zeros(hit.shape, dtype=bool)
    hit_diff[hit] = diff[candidate[hit]]
    claim = np.flatnonzero(hit & ~hit_diff)
    tp = np.zeros(hit.shape, dtype=bool)
    if claim.size:
        _, first = np.unique(candidate[claim], return_index=True)   # first claimant in rank order wins
        tp[claim[first]] = True
    fp = ~tp & ~hit_diff
    return tp, fp


def voc_det_match(confidence, det_group, det_boxes, gt_group, gt_boxes, gt_difficult, ngroups, min_overlap=0.5):
    """VOCevaldet.m's ranking and matching for one class, detections in result-file order: DetMatch.

    A detection's candidate does not depend on its rank (module doc): the candidates are found in result-file order
    (the boxes read in place, not gathered in rank order: a million rows gathered at random cost more than the
    matching), and only they are put in rank order for the first-claimant rule."""
    order = stable_descending_order(np.asarray(confidence, dtype=np.float64))
    cand, ovmax = best_candidates(det_group, det_boxes, gt_group, gt_boxes, ngroups)
    cand, ovmax = cand[order], ovmax[order]
    tp, fp = voc_flags(cand, ovmax, gt_difficult, min_overlap)
    return DetMatch(order, tp, fp, cand, ovmax)


def voc_ap_of_flags(tp, fp, npos):
    """VOCap.m on tp/fp flags in rank order (pr_curve); None when npos is 0 (VOCevaldet.m's AP is undefined).

    Computed from the true positives' ranks alone: VOCap.m sums over the recall changes, which are the true
    positives (and the sentinel recall 1), and a precision envelope there is the largest precision from that rank
    on, which is a true positive's (after a true positive, false positives only lower the precision and a rank with
    neither keeps it). The precisions, recalls and terms are those of pr_curve + ap_voc2010 on every rank, in the
    same order: the same bits, for a fraction of the work (TIDE's oracles compute many APs of long lists)."""
    if not npos:
        return None
    tp = np.asarray(tp, dtype=bool)
    hits = np.flatnonzero(tp)
    neither = np.flatnonzero(~tp & ~np.asarray(fp, dtype=bool))
    ctp = np.arange(1, hits.size + 1, dtype=np.float64)
    cfp = (hits + 1 - np.searchsorted(neither, hits)).astype(np.float64) - ctp   # false positives up to each hit
    return ap_voc2010(ctp / float(npos), ctp / (ctp + cfp))


def voc_det_ap(confidence, det_group, det_boxes, gt_group, gt_boxes, gt_difficult, ngroups, min_overlap=0.5):
    """VOCevaldet.m + VOCap.m for one class. Detections in result-file order; ranked by a stable sort.

    Returns (ap, rec, prec, tp, fp) with tp/fp in rank order; ap is None when npos (non-difficult GT) is 0.
    """
    m = voc_det_match(confidence, det_group, det_boxes, gt_group, gt_boxes, gt_difficult, ngroups, min_overlap)
    npos = int(np.count_nonzero(~np.asarray(gt_difficult, dtype=bool)))
    rec, prec = pr_curve(m.tp, m.fp, npos)
    if npos == 0:
        return None, rec, prec, m.tp, m.fp
    return ap_voc2010(rec, prec), rec, prec, m.tp, m.fp


def voc_det_map_on_weighted_images(nimages, nclasses, det_class, det_image, tp, fp, gt_image, gt_class):
    """VOCevaldet.m's mAP on weighted images, for the bootstrap (issue 13): score(weights) -> (b,) for a (b,
    nimages) block of image weights, weight k counting the image k times (0: removed).

    det_class, det_image, tp, fp: every detection, class-major in rank order, with VOCevaldet.m's outcome (neither
    tp nor fp: its candidate is difficult); gt_image, gt_class: the counted objects (not difficult). The matching is
    decided inside each image, so a copy of an image repeats its detections' outcomes; ranked by a stable sort the
    copies of a detection are adjacent (ties kept in file order), and VOCap.m on the list with copies is the
    weighted AP of metrics.bootstrap.RankedLists.ap_voc2010 (exact, not an approximation). Per class: the weighted
    number of positives is the weighted count of its counted objects; a class without weighted positives has no AP
    and leaves the mean (as a class without non-difficult objects does), a class without detections or without a
    result file has AP 0; the mean is over the classes with an AP, 0 when none has (as report() writes it).
    """
    from .bootstrap import RankedLists, nanmean_rows
    nimages, nclasses = int(nimages), int(nclasses)
    npos = np.bincount(np.asarray(gt_image, dtype=np.intp) * nclasses + np.asarray(gt_class, dtype=np.intp),
                       minlength=nimages * nclasses).reshape(nimages, nclasses).astype(np.float64)
    lists = RankedLists(det_class, det_image, tp, fp, nclasses)

    def score(weights):
        aps = lists.ap_voc2010(weights, weights @ npos)
        mean = nanmean_rows(aps)
        mean[np.isnan(mean)] = 0.0
        return mean

    return score
