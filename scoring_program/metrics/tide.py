"""Where the AP was lost: the error types and oracles of TIDE (Bolya et al., ECCV 2020, "TIDE: A General Toolbox
for Identifying Object Detection Errors"; github dbolya/tide, tidecv/quantify.py and tidecv/errors/), computed on
the metric's OWN matching and AP, vectorized.

The caller gives, per detection (class-major, in the metric's rank order inside a class): its class, the score the
metric ranks by, and its true/false-positive flags from the metric's matching (a detection with neither, e.g. VOC's
difficult match, stays where it is in every oracle); per counted ground truth (VOC: not difficult): its class and
whether the metric matched it; and the metric's IoU of the (detection, ground truth) pairs of the same image (frame),
every class, at IoU >= 0.1 (overlapping_pairs). A NaN IoU (a degenerate box, see metrics.tubes) fails every test: the
box overlaps nothing.

Error types (TIDERun._eval_image): each false positive gets ONE, tested in this order:
  1. background if its image holds no counted ground truth at all;
  2. localization: its best IoU with a ground truth of its class (matched or not; the first of equal IoUs in ground
     truth order, np.argmax) is in [0.1, 0.5);
  3. class: its best IoU with a ground truth of another class is >= 0.5;
  4. duplicate: its best IoU with an already matched ground truth of its class is >= 0.5;
  5. background: its IoU with every ground truth is < 0.1;
  6. both: none of these (e.g. an IoU in [0.1, 0.5) with another class's ground truth only).
TIDE writes `0.1 <= iou <= 0.5` and `iou <= 0.1`; the metrics here match at IoU >= 0.5, so the intervals are taken
half-open ([0.1, 0.5) and < 0.1): an IoU of exactly 0.5 with a free ground truth is a match, not an error.
A missed ground truth is a counted one that the metric did not match and that no localization or class error
targets while it is unmatched (TIDE's `usable`).

Oracles (main_errors.py, error.py BestGTMatch, TIDERun.fix_errors), each applied alone to the original results,
dAP = AP(fixed) - AP(original) per class, clamped at 0 as fix_main_errors does (here no fix can lower the AP):
  localization: each localization error targeting an unmatched ground truth takes its box and becomes a true
    positive if it is the best claimant of that ground truth: the highest score among ALL localization and class
    errors targeting it (one fix per ground truth; ties: the earlier in class-major rank order); every other
    localization error is removed (suppressed). So a localization error loses its ground truth to a better-scored
    class error, as in TIDE;
  class: every class error leaves its class; the best claimant (same rule) is added to its ground truth's class as
    a true positive with its score (ranked after that class's own detections of equal score), the others are
    removed;
  both, duplicate, background: the errors of that type are removed;
  missed: the missed ground truths are removed from the number of positives (MissedError.fix returns -1 positive);
    a class left without positives has AP 0 (APDataObject.get_ap).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .segments import members_of, segment_of, segment_starts

LOC, CLS, BOTH, DUPE, BKG, MISSED = range(6)
ERROR_TYPES = ("localization", "class", "both", "duplicate", "background", "missed")
NO_ERROR = -1
POS_THRESHOLD = 0.5
BG_THRESHOLD = 0.1


class TideErrors(NamedTuple):
    """kind: per detection, an index of ERROR_TYPES (NO_ERROR for a true positive or an ignored detection);
    target: per detection, the ground truth a localization or class error aims at (-1 otherwise);
    missed: per ground truth, True for a missed one."""
    kind: np.ndarray
    target: np.ndarray
    missed: np.ndarray


SPECIAL_TYPES = ("false positives", "false negatives")     # TIDE's special errors: FalsePos, FalseNeg


class TideResult(NamedTuple):
    """ap: (nclasses,) the AP of the original results (NaN where ap_of gives None); dap: (6, nclasses) the AP
    gained per class by each oracle of ERROR_TYPES (NaN where the class has no AP); count: (6, nclasses) detections
    of each type per class (missed: ground truths); special: (2, nclasses) the AP gained per class by TIDE's
    special oracles of SPECIAL_TYPES (NaN where the class has no AP): every false positive ranked below every true
    positive (FalsePositiveError: perfect precision, recall unchanged), every unmatched ground truth removed from
    the positives (FalseNegativeError: perfect recall, precision unchanged; a class left without positives has AP
    0, as get_ap gives)."""
    ap: np.ndarray
    dap: np.ndarray
    count: np.ndarray
    special: np.ndarray


def overlapping_pairs(det_group, gt_group, iou_of, min_iou: float = BG_THRESHOLD, chunk: int = 1 << 14) -> tuple:
    """The (detection, ground truth) pairs of the same group (image, frame) whose IoU is >= min_iou: (pair_det,
    pair_gt, iou), detection-major, ground truths in index order inside a detection's pairs. iou_of(pair_det,
    pair_gt) -> the metric's IoU of those pairs (a NaN fails the test). Only these pairs can make a detection
    anything but a background error (classify_errors); they are built about `chunk` pairs at a time, so memory
    stays bounded."""
    det_group = np.asarray(det_group, dtype=np.int64)
    gt_group = np.asarray(gt_group, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    if not det_group.size or not gt_group.size:
        return empty, empty, np.zeros(0)
    ngroups = int(max(det_group.max(), gt_group.max())) + 1
    # the ground truths group-major, index order inside a group (none to sort when they come so, as VOC's do)
    gt_order = None if np.all(gt_group[1:] >= gt_group[:-1]) else np.argsort(gt_group, kind="stable")
    per_group = np.bincount(gt_group, minlength=ngroups)
    counts = per_group[det_group]
    ends = np.cumsum(counts)
    # per detection: its first pair's position in the group-major ground truths, less its first pair's index
    shift = segment_starts(per_group)[det_group] - (ends - counts)
    out = []
    lo = 0
    while lo < det_group.size:
        hi = max(int(np.searchsorted(ends, ends[lo] - counts[lo] + chunk, side="right")), lo + 1)
        n = counts[lo:hi]
        pair_det = np.repeat(np.arange(lo, hi, dtype=np.int64), n)
        pair_gt = np.arange(ends[lo] - counts[lo], ends[hi - 1], dtype=np.int64)
        pair_gt += np.repeat(shift[lo:hi], n)
        if gt_order is not None:
            pair_gt = gt_order[pair_gt]
        iou = np.asarray(iou_of(pair_det, pair_gt), dtype=np.float64)
        with np.errstate(invalid="ignore"):
            keep = np.flatnonzero(iou >= min_iou)       # few: gathered, faster than three boolean selections
        out.append((pair_det.take(keep), pair_gt.take(keep), iou.take(keep)))
        lo = hi
    return tuple(np.concatenate([o[k] for o in out]) for k in range(3))


def _segment_max_first(values: np.ndarray, starts: np.ndarray) -> tuple:
    """Per segment (consecutive, non-empty, starting at starts): the maximum and the index of its first
    occurrence."""
    top = np.maximum.reduceat(values, starts)
    seg = segment_of(np.diff(np.append(starts, values.size)))
    idx = np.where(values == top[seg], np.arange(values.size), values.size)
    return top, np.minimum.reduceat(idx, starts)


def _classes(det_class) -> np.ndarray:
    """det_class as an integer array, int8 kept (no int64 copy of a million detections' classes)."""
    det_class = np.asarray(det_class)
    return det_class if det_class.dtype.kind == "i" else det_class.astype(np.int64)


def classify_errors(det_class, det_fp, pair_det, pair_gt, pair_iou, gt_class, gt_matched,
                    pos_threshold=POS_THRESHOLD, bg_threshold=BG_THRESHOLD):
    """TIDE's error type of every false positive and the missed ground truths (module docstring): TideErrors.

    pair_det, pair_gt, pair_iou: the same-image pairs, detection-major with ground truths in index order inside a
    detection (overlapping_pairs order); pairs with an IoU below bg_threshold may be left out (they change nothing:
    a false positive without a pair at or above it is a background error); gt_class, gt_matched: per counted ground
    truth."""
    kind, target = false_positive_errors(det_class, det_fp, pair_det, pair_gt, pair_iou, gt_class, gt_matched,
                                         pos_threshold, bg_threshold)
    return TideErrors(kind, target, missed_objects(target, gt_matched))


def _no_errors_yet(det_class, det_fp, gt_class, gt_matched) -> tuple:
    """The arguments as arrays, and (kind, target) before any pair is seen: every false positive a background
    error (no ground truth at >= bg_threshold), no target."""
    det_class = _classes(det_class)
    det_fp = np.asarray(det_fp, dtype=bool)
    gt_class = np.asarray(gt_class, dtype=np.int64)
    kind = np.full(det_class.size, NO_ERROR, dtype=np.int8)
    kind[det_fp] = BKG
    target = np.full(det_class.size, -1, dtype=np.int32 if gt_class.size < 2 ** 31 else np.int64)
    return det_class, det_fp, gt_class, np.asarray(gt_matched, dtype=bool), kind, target


def _set_types(kind, target, dets, best_same, aim_same, best_other, aim_other, best_dupe, pos_threshold,
               bg_threshold) -> None:
    """kind and target of the false positives dets, each with a pair at >= bg_threshold (not background): from
    their best IoU with a ground truth of their class (aim_same: that ground truth), of another class (aim_other)
    and of their class already matched, in TIDE's order."""
    loc = best_same < pos_threshold                           # and >= bg_threshold when of its class
    loc &= best_same >= bg_threshold
    cls = ~loc & (best_other >= pos_threshold)
    dupe = ~loc & ~cls & (best_dupe >= pos_threshold)
    kind[dets] = np.select([loc, cls, dupe], [LOC, CLS, DUPE], BOTH)
    target[dets[loc]] = aim_same[loc]
    target[dets[cls]] = aim_other[cls]


def false_positive_errors(det_class, det_fp, pair_det, pair_gt, pair_iou, gt_class, gt_matched,
                          pos_threshold=POS_THRESHOLD, bg_threshold=BG_THRESHOLD) -> tuple:
    """classify_errors' (kind, target) of each detection (TideErrors' fields). A detection's type and target
    depend only on its own pairs and on whether the ground truths of ITS class are matched (duplicate), so a
    metric that matches class by class may call this once per class, on that class's detections and pairs, once
    that class is matched: the same values as one call over every class."""
    det_class, det_fp, gt_class, gt_matched, kind, target = _no_errors_yet(det_class, det_fp, gt_class, gt_matched)
    pair_det = np.asarray(pair_det, dtype=np.int64)
    iou = np.asarray(pair_iou, dtype=np.float64)
    pg = np.asarray(pair_gt, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        keep = det_fp[pair_det] & (iou >= bg_threshold)
    pd = pair_det
    if not keep.all():          # overlapping_pairs of false positives only: nothing to leave out, no copy
        pd, pg, iou = pair_det[keep], pg[keep], iou[keep]
    if pd.size:
        starts = np.flatnonzero(np.concatenate(([True], pd[1:] != pd[:-1])))
        dets = pd[starts]
        same = gt_class[pg] == det_class[pd]
        best_same, arg_same = _segment_max_first(np.where(same, iou, -1.0), starts)
        best_other, arg_other = _segment_max_first(np.where(same, -1.0, iou), starts)
        best_dupe = np.maximum.reduceat(np.where(same & gt_matched[pg], iou, -1.0), starts)
        _set_types(kind, target, dets, best_same, pg[arg_same], best_other, pg[arg_other], best_dupe,
                   pos_threshold, bg_threshold)
    return kind, target


HEAVY = 1 << 11     # false positives of one group from which its ground truths are faced as scalars (_face)


def false_positive_errors_plus1(det_class, det_fp, rows, det_group, det_boxes, gt_group, gt_columns, gt_class,
                                gt_matched, pos_threshold=POS_THRESHOLD, bg_threshold=BG_THRESHOLD,
                                chunk: int = 1 << 16, heavy: int = HEAVY) -> tuple:
    """false_positive_errors' (kind, target) with the IoU of metrics.overlap.iou_columns_plus1 (VOC's +1 pixel
    convention), computed without pair arrays: the same values, bit for bit, as overlapping_pairs and
    false_positive_errors on that IoU.

    det_class, det_fp: per detection, in the metric's rank order; rows: per detection, its row in det_group (its
    group: image, frame) and det_boxes ((N, 4) xmin ymin xmax ymax); gt_group, gt_class, gt_matched: per ground
    truth; gt_columns: its four box columns (contiguous float64 arrays).

    The false positives are taken `chunk` at a time, sorted by the number of ground truths in their group; pass k
    computes the IoU of each one whose group holds more than k ground truths with the k-th of them (index order),
    so a chunk costs (its false positives x the ground truths of their groups) IoUs, as many as the pairs, without
    building them. A false positive's pairs all fall in its chunk, so its best IoUs are final once the chunk is
    done: memory is O(chunk), whatever the groups hold. Why the values are the same: each IoU is computed with
    iou_columns_plus1's operations in its order (the x overlap first: a pair whose x ranges do not meet, NaN
    included, has IoU 0 there too); the passes visit a false positive's ground truths in index order, the order of
    its pairs, and a running maximum updated only by a strictly greater IoU keeps the first of equal ones, as
    _segment_max_first does; a NaN IoU fails `>= bg_threshold` in both. The false positives of a group that holds
    at least `heavy` of them face its ground truths apart, a ground truth's coordinates as scalars (the same
    operations on the same values: the same bits)."""
    det_class, det_fp, gt_class, gt_matched, kind, target = _no_errors_yet(det_class, det_fp, gt_class, gt_matched)
    gt_group = np.asarray(gt_group, dtype=np.int64)
    fp = np.flatnonzero(det_fp)
    if not fp.size or not gt_group.size:
        return kind, target
    fp_rows = np.asarray(rows)[fp]
    group = np.asarray(det_group)[fp_rows].astype(np.int64)
    ngroups = int(max(group.max(), gt_group.max())) + 1
    # the ground truths group-major, index order inside a group (none to sort when they come so, as VOC's do)
    gt_order = None if np.all(gt_group[1:] >= gt_group[:-1]) else np.argsort(gt_group, kind="stable")
    per_group = np.bincount(gt_group, minlength=ngroups)
    first = segment_starts(per_group)
    gx1, gy1, gx2, gy2 = gt_columns
    fp_per_group = np.bincount(group, minlength=ngroups)
    is_heavy = (fp_per_group >= max(heavy, 1)) & (per_group > 0)
    with np.errstate(all="ignore"):             # +-1e308 boxes overflow, as iou_columns_plus1 lets them
        garea = (gx2 - gx1 + 1.0) * (gy2 - gy1 + 1.0)
        gts = (gx1, gy1, gx2, gy2, garea)
        if is_heavy.any():
            _heavy_errors(fp, fp_rows, group, is_heavy, fp_per_group, first, per_group, gt_order, det_class,
                          det_boxes, gts, gt_class, gt_matched, pos_threshold, bg_threshold, chunk, kind, target)
            per_group = np.where(is_heavy, 0, per_group)      # their false positives are done
        for lo in range(0, fp.size, chunk):
            hi = min(fp.size, lo + chunk)
            count = per_group.take(group[lo:hi])
            by = np.argsort(-count, kind="stable")
            neg = -count.take(by)                       # ascending: the false positives of the fullest groups first
            if not neg[0]:
                continue
            det = _fp_columns(det_boxes, fp_rows[lo:hi].take(by))
            start = first.take(group[lo:hi].take(by))
            dets = fp[lo:hi].take(by)
            own = det_class.take(dets)
            bests = _no_bests(hi - lo)
            for k in range(int(-neg[0])):
                m = int(np.searchsorted(neg, -k, side="left"))      # those whose group holds more than k
                g = start[:m] + k
                if gt_order is not None:
                    g = gt_order.take(g)
                _face(m, det, own, g, gts, gt_class, gt_matched, bg_threshold, bests)
            _set_hits(kind, target, dets, bests, pos_threshold, bg_threshold)
    return kind, target


def _heavy_errors(fp, fp_rows, group, is_heavy, fp_per_group, first, per_group, gt_order, det_class, det_boxes,
                  gts, gt_class, gt_matched, pos_threshold, bg_threshold, chunk, kind, target):
    """false_positive_errors_plus1 for the false positives of the groups where is_heavy, into kind and target: per
    group, `chunk` of them at a time face its ground truths in index order, one at a time (_face with a scalar)."""
    for g, sel in members_of(group, is_heavy, fp_per_group, chunk):     # rank order inside a group
        objects = np.arange(first[g], first[g] + per_group[g])
        if gt_order is not None:
            objects = gt_order.take(objects)
        det = _fp_columns(det_boxes, fp_rows.take(sel))
        dets = fp.take(sel)
        own = det_class.take(dets)
        bests = _no_bests(sel.size)
        for j in objects.tolist():
            _face(sel.size, det, own, j, gts, gt_class, gt_matched, bg_threshold, bests)
        _set_hits(kind, target, dets, bests, pos_threshold, bg_threshold)


def _fp_columns(det_boxes, rows) -> tuple:
    """x1, y1, x2, y2 (contiguous float64) and the +1 area of the boxes at `rows` of det_boxes ((N, 4))."""
    box = np.asarray(det_boxes)[rows]
    dx1, dy1, dx2, dy2 = [np.ascontiguousarray(box[:, k], dtype=np.float64) for k in range(4)]
    return dx1, dy1, dx2, dy2, (dx2 - dx1 + 1.0) * (dy2 - dy1 + 1.0)


def _no_bests(size: int) -> tuple:
    """_face's running bests of `size` false positives, none yet: (best_same, arg_same, best_other, arg_other,
    best_dupe)."""
    return (np.full(size, -1.0), np.full(size, -1, dtype=np.int64), np.full(size, -1.0),
            np.full(size, -1, dtype=np.int64), np.full(size, -1.0))


def _set_hits(kind, target, dets, bests, pos_threshold, bg_threshold):
    """_set_types for the false positives `dets` (in the order of bests) that met a ground truth at >= bg_threshold."""
    best_same, arg_same, best_other, arg_other, best_dupe = bests
    hit = np.flatnonzero((best_same >= 0) | (best_other >= 0))
    _set_types(kind, target, dets.take(hit), best_same.take(hit), arg_same.take(hit), best_other.take(hit),
               arg_other.take(hit), best_dupe.take(hit), pos_threshold, bg_threshold)


def _face(m, det, own, g, gts, gt_class, gt_matched, bg_threshold, bests):
    """One pass of false_positive_errors_plus1: the first m false positives (det: their x1, y1, x2, y2 and +1 area
    columns; own: their classes) each face one ground truth, g (an index array of m, or one index for all: its
    values as scalars, the same operations), iou_columns_plus1's operations in its order; the running best
    same-class, other-class and duplicate IoUs >= bg_threshold and their targets (bests) are updated in place,
    a strictly greater IoU only."""
    dx1, dy1, dx2, dy2, darea = det
    gx1, gy1, gx2, gy2, garea = gts
    best_same, arg_same, best_other, arg_other, best_dupe = bests
    scalar = np.ndim(g) == 0

    def pick(column):                       # the ground truths' values: one scalar, or a gather of g as it is now
        return column[g] if scalar else column.take(g)

    iw = np.minimum(dx2[:m], pick(gx2))
    iw -= np.maximum(dx1[:m], pick(gx1))
    iw += 1.0
    near = np.flatnonzero(iw > 0)
    if near.size == m:                      # every pair meets in x: slices, no gathers
        d = None
        ih = np.minimum(dy2[:m], pick(gy2))
        ih -= np.maximum(dy1[:m], pick(gy1))
        area = darea[:m]
    else:
        d, iw = near, iw.take(near)
        if not scalar:
            g = g.take(near)
        ih = np.minimum(dy2.take(d), pick(gy2))
        ih -= np.maximum(dy1.take(d), pick(gy1))
        area = darea.take(d)
    ih += 1.0
    inter = iw * ih
    union = area + pick(garea) - inter
    ok = ih > 0
    iou = np.where(ok, inter / np.where(ok, union, 1.0), 0.0)
    kept = np.flatnonzero(iou >= bg_threshold)
    if not kept.size:
        return
    d = kept if d is None else d.take(kept)
    iou = iou.take(kept)
    if scalar:
        same = own.take(d) == gt_class[g]
        dupe = same & gt_matched[g]
    else:
        g = g.take(kept)
        same = gt_class.take(g) == own.take(d)
        dupe = same & gt_matched.take(g)
    for sel, best, arg in ((same, best_same, arg_same), (~same, best_other, arg_other)):
        ds, vs = d[sel], iou[sel]
        up = vs > best.take(ds)
        best[ds[up]] = vs[up]
        arg[ds[up]] = g if scalar else g[sel][up]
    dd = d[dupe]
    best_dupe[dd] = np.maximum(best_dupe.take(dd), iou[dupe])


def missed_objects(target, gt_matched) -> np.ndarray:
    """Per ground truth: missed (TideErrors.missed): not matched, and no localization or class error (target, every
    detection's) aims at it."""
    gt_matched = np.asarray(gt_matched, dtype=bool)
    aimed = target[target >= 0]
    usable = np.zeros(gt_matched.size, dtype=bool)
    usable[aimed[~gt_matched[aimed]]] = True
    return ~gt_matched & ~usable


def best_claimants(det_score, errors, gt_matched):
    """Per detection: True for the localization or class error that TIDE's BestGTMatch fixes, the highest score
    among the errors aiming at the same unmatched ground truth (ties: the earlier detection)."""
    n = errors.kind.size
    claim = np.flatnonzero(errors.target >= 0)
    claim = claim[~np.asarray(gt_matched, dtype=bool)[errors.target[claim]]]
    best = np.zeros(n, dtype=bool)
    if claim.size:
        aim = errors.target[claim]
        order = np.lexsort((claim, -np.asarray(det_score, dtype=np.float64)[claim], aim))
        first = np.concatenate(([True], aim[order][1:] != aim[order][:-1]))
        best[claim[order[first]]] = True
    return best


def tide_delta_ap(det_class, det_score, det_tp, det_fp, errors, gt_class, gt_matched, npos, nclasses, ap_of):
    """TIDE's dAP per error type and class (module docstring): TideResult.

    det_*: class-major, in the metric's rank order inside a class (det_score non-increasing there); npos: the
    metric's number of positives per class; ap_of(tp, fp, npos) -> the metric's AP (None: the class has none)
    from flags in rank order. Only the classes an oracle changes are recomputed (a loop over classes)."""
    det_class = _classes(det_class)
    det_score = np.asarray(det_score, dtype=np.float64)
    det_tp = np.asarray(det_tp, dtype=bool)
    det_fp = np.asarray(det_fp, dtype=bool)
    gt_class = np.asarray(gt_class, dtype=np.int64)
    npos = np.asarray(npos, dtype=np.int64)
    edges = np.arange(nclasses + 1)
    if nclasses < np.iinfo(det_class.dtype).max:
        edges = edges.astype(det_class.dtype)       # int8 classes searched as int8: no int64 copy of a million
    bounds = np.searchsorted(det_class, edges)
    kind = errors.kind

    def aps(tp, fp, keep, pos, classes, moved=None):
        out = {}
        for c in classes:
            b0, b1 = bounds[c], bounds[c + 1]
            k = keep[b0:b1]
            t, f = tp[b0:b1][k], fp[b0:b1][k]
            if moved is not None and np.any(moved[0] == c):
                s = np.concatenate((det_score[b0:b1][k], moved[1][moved[0] == c]))
                order = np.lexsort((np.arange(s.size), -s))          # own detections first among equal scores
                t = np.concatenate((t, np.ones(s.size - t.size, dtype=bool)))[order]
                f = np.concatenate((f, np.zeros(t.size - f.size, dtype=bool)))[order]
            ap = ap_of(t, f, int(pos[c])) if pos[c] > 0 or npos[c] == 0 else 0.0   # no positive left: 0 (get_ap)
            out[c] = np.nan if ap is None else ap
        return out

    everything = np.ones(det_class.size, dtype=bool)
    ap = aps(det_tp, det_fp, everything, npos, range(nclasses))
    base = np.array([ap[c] for c in range(nclasses)], dtype=np.float64)
    dap = np.zeros((len(ERROR_TYPES), nclasses))
    count = np.zeros((len(ERROR_TYPES), nclasses), dtype=np.int64)
    best = best_claimants(det_score, errors, gt_matched)
    for t in (LOC, CLS, BOTH, DUPE, BKG):
        of_type = kind == t
        count[t] = [np.count_nonzero(of_type[bounds[c]:bounds[c + 1]]) for c in range(nclasses)]   # class-major
        tp, fp, keep, moved = det_tp, det_fp, ~of_type, None
        touched = set(np.flatnonzero(count[t]).tolist())
        if t == LOC:
            keep = ~of_type | best
            tp = det_tp | (of_type & best)
            fp = det_fp & ~(of_type & best)
        elif t == CLS:
            fixed = np.flatnonzero(of_type & best)
            moved = (gt_class[errors.target[fixed]], det_score[fixed])     # (new class, score) in rank order
            touched |= set(moved[0].tolist())
        for c, v in aps(tp, fp, keep, npos, sorted(touched), moved).items():
            dap[t, c] = v - base[c]
    count[MISSED] = np.bincount(gt_class[errors.missed], minlength=nclasses)
    touched = np.flatnonzero(count[MISSED])
    for c, v in aps(det_tp, det_fp, everything, npos - count[MISSED], touched).items():
        dap[MISSED, c] = v - base[c]
    with np.errstate(invalid="ignore"):
        dap = np.where(np.isnan(base)[None, :], np.nan, np.maximum(dap, 0.0))
    special = special_delta_ap(det_tp, det_fp, bounds, npos, base, ap_of)
    return TideResult(base, dap, count, special)


def special_delta_ap(det_tp, det_fp, bounds, npos, base, ap_of) -> np.ndarray:
    """TIDE's special errors (quantify.py fix_special_errors, main_errors.py FalsePositiveError and
    FalseNegativeError): (2, nclasses) dAP, NaN where base (the original AP) is NaN. bounds: (nclasses + 1,) the
    class-major segments of det_tp, det_fp (rank order inside a class).

    False positives: FalsePositiveError.fix scores every true positive 1 and every other detection 0, so the true
    positives come first: ap_of on ntp true positives alone (the false positives after them add no recall).
    False negatives: fix_errors(false_neg_dict=...) takes every unmatched counted ground truth out of the
    positives: ap_of on the same flags with npos = ntp (0 positives left: AP 0, get_ap)."""
    nclasses = base.size
    out = np.full((len(SPECIAL_TYPES), nclasses), np.nan)
    for c in np.flatnonzero(~np.isnan(base)):
        tp = det_tp[bounds[c]:bounds[c + 1]]
        fp = det_fp[bounds[c]:bounds[c + 1]]
        ntp = int(np.count_nonzero(tp))
        perfect = np.ones(ntp, dtype=bool)
        out[0, c] = ap_of(perfect, ~perfect, int(npos[c])) - base[c]
        out[1, c] = (ap_of(tp, fp, ntp) if ntp else 0.0) - base[c]
    return out
