"""Spatio-temporal action detection: ACT's frameAP / videoAP (Kalogeiton et al., ACT-detector ACT.py, the
MOC-Detector port) and Gkioxari's get_ROC_curve_JHMDB.m (AUC). Pure numpy: arrays in, numbers out.

Boxes are [x1, y1, x2, y2] with inclusive corners (+1 pixel IoU, ACT's area2d/overlap2d). A tube is given by
its first frame, its length and the row of its first box in a box array (rows of a tube are consecutive frames).

The greedy matchings of ACT ("each detection in turn takes the best still-unmatched ground truth of its group")
are sequential only inside a group ((video, frame) for frames, (video, class) for tubes). greedy_consume()
runs them in rounds over all groups at once: in each round every group's earliest detection that still has a
free ground truth at or above the threshold takes its best free one. Detections in between have no free
ground truth at the threshold and, as the free set only shrinks, are false positives: the outcome is the
sequential one, with at most (max ground truths per group) rounds.

Boxes with x1 > x2 or y1 > y2 are scored as the originals score them (issue 10). ACT's overlap2d clamps the
intersection width and height at 0 and area2d's (x2 - x1 + 1) * (y2 - y1 + 1) enters the union as it is, so a box
inverted by a pixel or more overlaps nothing and its area may be zero or negative: the IoU is 0 / union, i.e. 0.0,
-0.0 (negative union) or NaN (0 / 0: the box's area is minus the other's, or both are 0). What ACT then does with a
NaN, each a failed comparison, never a NaN in a score:
- frameAP: np.argmax(ious) returns the first NaN and `ious[amax] >= th` is False: a false positive. A detection
  with a NaN IoU overlaps no box at all (the ground truth's area is >= 1), so it was a false positive anyway.
- videoAP: iou3d's np.mean and iou3dt keep the NaN; in the matching np.argmax picks the first NaN among the
  still-unmatched ground-truth tubes, so the tube is a false positive and consumes nothing, even if another free
  ground-truth tube is matched above the threshold (GreedyPairs.match: "blocked").
- nms3dt keeps `ious <= overlap` only: a NaN ST-IoU with the kept tube suppresses the tube (nms3d).
- Gkioxari's inters_union divides by union + eps (MATLAB's eps = 2^-52): 0 / (0 + eps) = 0, NaN only for a union of
  exactly -eps; a NaN mean IoU fails `iou(j) >= iou_thresh`: a negative (auc_tube_iou, auc_gkioxari).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from .ap import ap_trapezoid_raw
from .ranking import class_then_descending_order, rank_of
from .segments import expand, segment_starts
from .tide import classify_errors, overlapping_pairs, tide_delta_ap

NMS_THRESHOLD = 0.3
ROC_MAX_FPR = 0.6
AUC_TOP = 3
MATLAB_EPS = 2.0 ** -52         # eps in MATLAB, np.finfo(np.float64).eps


def video_thresholds_50_95():
    """MOC-Detector videpAP_050_095 (so spelled): thr = 0.5 + 0.05 * i for i in range(10), Python floats
    (0.8500000000000001 is the 8th value: a tube at exactly 0.85 is a false positive there)."""
    return [0.5 + 0.05 * i for i in range(10)]


class Tubes(NamedTuple):
    """T tubes, in list order, and their boxes (video_ap, pair_frames, auc_tube_iou).

    first (T,) int64: the first frame of each tube; length (T,) int64: its frames; start (T,) int64: the row of its
    first box in `box`; box (R, 4) float64: x1 y1 x2 y2 per row, a tube's rows consecutive frames (rows of other
    tubes may lie between tubes). video, label (T,) int64: the tube's video and class (video_ap: its groups; None
    where unused); score (T,) float64: the tubes video_ap ranks (None for ground truth)."""
    first: np.ndarray
    length: np.ndarray
    start: np.ndarray
    box: np.ndarray
    video: Optional[np.ndarray] = None
    label: Optional[np.ndarray] = None
    score: Optional[np.ndarray] = None


# ----------------------------------------------------------------------------------------------- helpers

def _segment_sums(values: np.ndarray, counts) -> np.ndarray:
    """Sum of each consecutive segment, bit-identical to np.sum of the segment alone.

    np.add.reduceat does not use numpy's pairwise summation, np.sum(axis=1) on a C-contiguous (k, L) block
    does; so segments are summed in blocks of equal length (a loop over distinct lengths, not over segments)."""
    counts = np.asarray(counts, dtype=np.int64)
    if counts.size and counts[0] > 0 and counts.min() == counts.max():    # one length: the rows are the values
        return values.reshape(counts.size, int(counts[0])).sum(axis=1)
    out = np.zeros(counts.size)
    starts = segment_starts(counts)
    filled = counts[counts > 0]
    lengths = [int(filled[0])] if filled.size and filled.min() == filled.max() else np.unique(filled).tolist()
    for L in lengths:
        sel = np.flatnonzero(counts == L)
        rows = starts[sel][:, None] + np.arange(L)[None, :]
        out[sel] = values[rows].sum(axis=1)
    return out


class PairFrames(object):
    """Per pair of tubes (a, b): overlap length L, union span U and the sum of per-frame +1 IoUs over the
    common frames, summed as ACT's np.mean sums them (see _segment_sums)."""

    def __init__(self, L, U, iou_sum):
        self.L = L
        self.U = U
        self.iou_sum = iou_sum

    def st_iou(self):
        """ACT iou3dt: 0 if tmax < tmin (one shared frame counts); else mean IoU x (tmax-tmin+1)/(union span).
        A NaN frame IoU (0 / 0, see _iou_rows) makes the mean NaN, as np.mean does in iou3d."""
        ok = self.L > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = self.iou_sum / np.where(ok, self.L, 1)
            tiou = self.L / np.where(ok, self.U, 1).astype(np.float64)
        return np.where(ok, mean * tiou, 0.0)


def _box_columns(box):
    """x1, y1, x2, y2 as contiguous columns and the +1 area of every row, (x2 - x1 + 1) * (y2 - y1 + 1) as it is
    (zero or negative for a box with x1 > x2 or y1 > y2 by a pixel or more)."""
    box = np.asarray(box, dtype=np.float64).reshape(-1, 4)
    x1, y1, x2, y2 = (np.ascontiguousarray(box[:, k]) for k in range(4))
    with np.errstate(over="ignore", invalid="ignore"):
        return x1, y1, x2, y2, (x2 - x1 + 1.0) * (y2 - y1 + 1.0)


def _plus1_sides(ca, cb, ia, ib) -> tuple:
    """The +1 width and height of the overlap of the pairs (box_a[ia], box_b[ib]) of columns ca, cb (x1, y1, x2, y2
    first): iw = min(x2) - max(x1) + 1, ih likewise, in that order of operations (positive both: the boxes meet)."""
    with np.errstate(over="ignore", invalid="ignore"):
        iw = np.minimum(ca[2][ia], cb[2][ib])
        iw -= np.maximum(ca[0][ia], cb[0][ib])
        iw += 1.0
        ih = np.minimum(ca[3][ia], cb[3][ib])
        ih -= np.maximum(ca[1][ia], cb[1][ib])
        ih += 1.0
    return iw, ih


def _iou_rows(ca, cb, ia, ib, union_eps=0.0):
    """ACT iou2d of the pairs (box_a[ia], box_b[ib]) on precomputed columns and areas (_box_columns):

        iw = min(x2) - max(x1) + 1, ih = min(y2) - max(y1) + 1
        inter = iw * ih if iw > 0 and ih > 0, else 0          (overlap2d: np.maximum(0, .) on each side)
        iou = inter / (area_a + area_b - inter)                (area2d as it is, no clamp)

    ACT adds the 1 to x2 before the difference (min(x2 + 1) - max(x1)): the same value for pixel coordinates.
    Where the boxes overlap, the operations and their order are metrics.overlap.iou_pairs_plus1's (the same bits).
    Where they do not, the union is the raw area_a + area_b: 0 / positive = 0.0, 0 / negative = -0.0, 0 / 0 = NaN,
    numpy's results in ACT (see the module docstring). union_eps is added to the union of those pairs only
    (Gkioxari's inters ./ (union + eps), see auc_tube_iou)."""
    iw, ih = _plus1_sides(ca, cb, ia, ib)
    return _iou_of_sides(iw, ih, ca[4][ia], cb[4][ib], (iw <= 0) | (ih <= 0), union_eps)


def _iou_of_sides(iw, ih, area_a, area_b, apart=None, union_eps=0.0):
    """_iou_rows from the pairs' +1 sides (_plus1_sides) and +1 areas, in its order of operations: inter = iw * ih,
    0 where `apart` (None: no pair is), divided by area_a + area_b - inter (+ union_eps where apart). iw is
    overwritten."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        iw *= ih
        if apart is not None:
            iw[apart] = 0.0
        area_a = area_a + area_b
        area_a -= iw
        if union_eps:
            area_a[apart] += union_eps
        iw /= area_a
    return iw


def iou2d_act(box_a, box_b):
    """ACT iou2d of box_a[i] with box_b[i] (both (N, 4)): the +1 pixel IoU with the raw union (_iou_rows)."""
    ca, cb = _box_columns(box_a), _box_columns(box_b)
    rows = np.arange(ca[0].size)
    return _iou_rows(ca, cb, rows, rows)


def pair_frames(a: Tubes, b: Tubes, pa, pb, chunk: int = 250000, union_eps: float = 0.0, columns=None) -> PairFrames:
    """The frames shared by the pairs of tubes (a[pa[k]], b[pb[k]]) (pa, pb: index arrays). union_eps: see _iou_rows
    (0 for ACT, MATLAB_EPS for Gkioxari's AUC). columns: the _box_columns of a's and b's boxes, when the caller has
    them."""
    pa = np.asarray(pa, dtype=np.int64)
    pb = np.asarray(pb, dtype=np.int64)
    fa = a.first[pa]
    fb = b.first[pb]
    la = fa + a.length[pa] - 1
    lb = fb + b.length[pb] - 1
    tmin = np.maximum(fa, fb)
    tmax = np.minimum(la, lb)
    L = np.maximum(tmax - tmin + 1, 0)
    U = np.maximum(la, lb) - np.minimum(fa, fb) + 1
    ra0 = a.start[pa] + (tmin - fa)
    rb0 = b.start[pb] + (tmin - fb)
    if not np.any(L):
        return PairFrames(L, U, np.zeros(pa.size, dtype=np.float64))
    if columns is None:
        ca = _box_columns(a.box)
        columns = ca, (ca if b.box is a.box else _box_columns(b.box))
    iou_sum = frame_iou_sums(columns[0], columns[1], ra0, rb0, L, chunk, union_eps)
    return PairFrames(L, U, iou_sum)


def frame_iou_sums(ca: tuple, cb: tuple, ra0: np.ndarray, rb0: np.ndarray, L: np.ndarray, chunk: int = 250000,
                   union_eps: float = 0.0) -> np.ndarray:
    """Per pair k: the sum of the frame IoUs (_iou_rows) of the box rows ra0[k] + i and rb0[k] + i, i < L[k],
    summed as ACT's np.mean sums them (_segment_sums); ca, cb: _box_columns of the two box arrays. Frames are
    compared `chunk` at a time."""
    iou_sum = np.zeros(L.size, dtype=np.float64)
    for i, j in _frame_blocks(L, chunk):
        idx = np.arange(i, j)
        cnt = L[idx]
        if cnt.min() == 1 and cnt.max() == 1:       # one common frame each: the sum is its IoU, as np.sum of
            one = _iou_rows(ca, cb, ra0[idx], rb0[idx], union_eps)     # one value gives it (-0.0 + 0.0 = 0.0, as
            iou_sum[idx] = np.add(one, 0.0, out=one)                    # the sum starts from 0.0)
            continue
        seg, off = expand(cnt)
        rows_a, rows_b = ra0[idx[seg]] + off, rb0[idx[seg]] + off
        if rows_a.size:
            iou_sum[idx] = _segment_sums(_iou_rows(ca, cb, rows_a, rows_b, union_eps), cnt)
    return iou_sum


def _frame_blocks(L: np.ndarray, chunk: int):
    """Consecutive pairs [i, j) whose frames (L: per pair) add up to about `chunk` (at least one pair a block)."""
    cum = np.cumsum(L)
    i, n = 0, L.size
    while i < n:
        base = cum[i - 1] if i else 0
        j = min(max(int(np.searchsorted(cum, base + chunk, side="right")), i + 1), n)
        yield i, j
        i = j


# ----------------------------------------------------------------------------------------------- greedy matching

class GreedyPairs(object):
    """Candidate (detection, ground truth) pairs of the same group, sorted once for every threshold:
    by group, by detection rank, by descending IoU, by ground-truth order (np.argmax takes the first max).
    Pairs whose IoU is NaN are kept apart: while such a ground truth is free, np.argmax picks it (see match)."""

    def __init__(self, pair_det, pair_gt, pair_iou, det_rank, det_group, ndet, ngt, presorted=False):
        """presorted: the pairs come by group and detection rank already, each detection's pairs together in
        ascending ground-truth order (frame_match makes them so): only the pairs of detections with several are
        sorted (by descending IoU), so that the cost the ground truth adds is the pairs' IoUs alone."""
        pair_det = np.asarray(pair_det, dtype=np.int64)
        pair_gt = np.asarray(pair_gt, dtype=np.int64)
        pair_iou = np.asarray(pair_iou, dtype=np.float64)
        nan = np.isnan(pair_iou)
        self.nan_det = pair_det[nan]
        self.nan_gt = pair_gt[nan]
        grp = np.asarray(det_group)[pair_det]
        if presorted:
            o = _within_detection_order(pair_det, pair_gt, pair_iou)
        else:
            o = np.lexsort((pair_gt, -pair_iou, np.asarray(det_rank)[pair_det], grp))
        self.det = pair_det[o]
        self.gt = pair_gt[o]
        self.iou = pair_iou[o]
        self.grp = grp[o]
        self.ndet = ndet
        self.ngt = ngt

    def match(self, th, with_gt=False):
        """tp[d] for every detection at IoU threshold th (>= th is a match, ACT's `ious[amax] >= th`); with_gt:
        also the ground truth each detection took (-1: none).

        A detection with a NaN IoU against a ground truth that is still free when its turn comes is "blocked":
        ACT's np.argmax returns that NaN, `nan >= th` is False, so it is a false positive and consumes nothing,
        whatever its other IoUs. In a round, the group's earliest detection with a free pair at >= th either takes
        its best free ground truth or, blocked, is set aside; the free set is then the sequential one."""
        tp = np.zeros(self.ndet, dtype=bool)
        used = np.zeros(self.ngt, dtype=bool)
        took = np.full(self.ndet if with_gt else 0, -1, dtype=np.int64)
        with np.errstate(invalid="ignore"):
            keep = self.iou >= th
        d, g, grp = self.det[keep], self.gt[keep], self.grp[keep]
        nan_det, nan_gt = self.nan_det, self.nan_gt
        has_nan = nan_det.size > 0
        if has_nan:
            aside = np.zeros(self.ndet, dtype=bool)     # blocked at their turn: false positives
            mark = np.zeros(self.ndet, dtype=bool)
        while d.size:
            first = np.ones(d.size, dtype=bool)
            first[1:] = grp[1:] != grp[:-1]
            fd, fg = d[first], g[first]
            if has_nan:
                free = ~used[nan_gt]
                nan_det, nan_gt = nan_det[free], nan_gt[free]     # a used ground truth is never free again
                mark[nan_det] = True
                stop = mark[fd]
                mark[nan_det] = False
                aside[fd[stop]] = True
                fd, fg = fd[~stop], fg[~stop]
            tp[fd] = True
            used[fg] = True
            if with_gt:
                took[fd] = fg
            alive = ~tp[d] & ~used[g]
            if has_nan:
                alive &= ~aside[d]
            d, g, grp = d[alive], g[alive], grp[alive]
        return (tp, took) if with_gt else tp


def _within_detection_order(pair_det, pair_gt, pair_iou) -> np.ndarray:
    """The order of pairs grouped by detection (each detection's pairs contiguous, in ascending ground-truth order)
    that sorts each detection's pairs by descending IoU, then ground truth, in place: lexsort on the pairs of the
    detections with several pairs only."""
    n = pair_det.size
    o = np.arange(n)
    if n < 2:
        return o
    same = pair_det[1:] == pair_det[:-1]
    if not same.any():
        return o
    several = np.zeros(n, dtype=bool)
    several[1:] |= same
    several[:-1] |= same
    idx = np.flatnonzero(several)
    segment = np.cumsum(np.concatenate(([True], ~same)))[idx]      # the detection's run, ascending
    o[idx] = idx[np.lexsort((pair_gt[idx], -pair_iou[idx], segment))]
    return o


def greedy_consume(pair_det, pair_gt, pair_iou, det_rank, det_group, th, ndet=None, ngt=None):
    """ACT's loop, order-free: see the module docstring. Returns tp per detection."""
    ndet = int(len(det_rank)) if ndet is None else ndet
    ngt = int(np.max(pair_gt) + 1) if ngt is None and len(pair_gt) else (ngt or 0)
    return GreedyPairs(pair_det, pair_gt, pair_iou, det_rank, det_group, ndet, ngt).match(th)


def class_aps(tp_ranked: np.ndarray, class_ranked: np.ndarray, npos: np.ndarray, nclasses: int) -> tuple:
    """AP per class from TP flags in rank order (sorted by class, then rank): ACT pr arrays + pr_to_ap.

    prec = tp / (tp + fp), rec = tp / npos (ACT's tp / (tp + fn)); a class without ground truth has recall 0
    throughout (ACT writes 0 when tp + fn == 0): AP 0. Returns (aps, curves[(rec, prec)])."""
    counts = np.bincount(class_ranked, minlength=nclasses)
    starts = segment_starts(counts)
    aps = np.zeros(nclasses)
    curves = []
    for c in range(nclasses):
        t = tp_ranked[starts[c]:starts[c] + counts[c]]
        if t.size == 0:
            curves.append((np.zeros(0), np.zeros(0)))
            continue
        rec, prec = act_pr(t, npos[c])
        aps[c] = ap_trapezoid_raw(rec, prec)
        curves.append((rec, prec))
    return aps, curves


def act_pr(tp_ranked, npos):
    """ACT's precision/recall points of one class from TP flags in rank order (every other detection is a FP)."""
    ctp = np.cumsum(np.asarray(tp_ranked).astype(np.float64))
    cfp = np.arange(1, ctp.size + 1) - ctp
    prec = ctp / (ctp + cfp)
    rec = ctp / npos if npos > 0 else np.zeros_like(ctp)
    if npos == 0:
        prec = np.zeros_like(ctp)
    return rec, prec


def act_ap_of_flags(tp, fp, npos):
    """ACT's AP (pr_to_ap) of one class from tp flags in rank order (fp = not tp in ACT; for metrics.tide)."""
    return ap_trapezoid_raw(*act_pr(tp, npos)) if len(tp) else 0.0


# ----------------------------------------------------------------------------------------------- frame-AP

class FrameMatch(NamedTuple):
    """ACT frameAP's matching: order (detections class-major in rank order), score32 (the float32 scores ranked),
    tp and gt (the ground-truth row each detection took, -1: none), per detection in input order; tp_at: the tp
    flags of the same matching at each of frame_match's `also` thresholds."""
    order: np.ndarray
    score32: np.ndarray
    tp: np.ndarray
    gt: np.ndarray
    tp_at: tuple = ()


def frame_match(det_class, det_key, det_score, det_box, gt_class, gt_key, gt_box, th: float = 0.5,
                also: tuple = ()) -> FrameMatch:
    """ACT frameAP's ranking and greedy matching (frame_ap): FrameMatch; also: other thresholds matched on the same
    candidate pairs (FrameMatch.tp_at), as frame_ap at that threshold would."""
    det_class = np.asarray(det_class, dtype=np.int64)
    det_key = np.asarray(det_key, dtype=np.int64)
    gt_class = np.asarray(gt_class, dtype=np.int64)
    gt_key = np.asarray(gt_key, dtype=np.int64)
    n = det_class.size
    s32 = np.asarray(det_score, dtype=np.float64).astype(np.float32)
    order = class_then_descending_order(det_class, s32)
    rank = rank_of(order)
    span = int(max(det_key.max() if n else 0, gt_key.max() if gt_key.size else 0)) + 1
    dgrp = det_class * span + det_key
    ggrp = gt_class * span + gt_key
    go = np.argsort(ggrp, kind="stable")
    gs = ggrp[go]
    # the detections by (class, video frame), rank order inside (a sort of the submission alone): the pairs are
    # built in that order, so that the ground truth adds only their IoUs (GreedyPairs' presorted)
    by_group = order[np.argsort(dgrp[order], kind="stable")]
    lo = np.searchsorted(gs, dgrp[by_group], side="left")
    hi = np.searchsorted(gs, dgrp[by_group], side="right")
    seg, off = expand(hi - lo)
    pd = by_group[seg]
    pg = lo[seg] + off
    del seg, off
    ious = _iou_rows(_box_columns(det_box), _box_columns(np.asarray(gt_box)[go]), pd, pg)
    pairs = GreedyPairs(pd, pg, ious, rank, dgrp, n, gs.size, presorted=True)
    tp, took = pairs.match(th, with_gt=True)
    return FrameMatch(order, s32, tp, np.where(took >= 0, go[np.maximum(took, 0)] if go.size else -1, -1),
                      tuple(pairs.match(t) for t in also))


def frame_ap(det_class, det_key, det_score, det_box, gt_class, gt_key, gt_box, nclasses, th=0.5):
    """ACT frameAP. det_key / gt_key: one int64 per (video, frame); gt rows in ACT's list order within a key.

    Ranking: descending float32 score (ACT stores detections as float32), ties in input order (stable).
    Each detection takes the best +1 IoU among the still-unmatched boxes of its class in its (video, frame):
    >= th is a TP and consumes that box, else FP. AP: trapezoid on the raw PR points from (0, 1).
    A box with x1 > x2 or y1 > y2 (by a pixel or more) overlaps nothing: IoU 0, -0.0 or NaN (_iou_rows), a FP.
    Returns (aps, curves, tp flags per detection).
    """
    m = frame_match(det_class, det_key, det_score, det_box, gt_class, gt_key, gt_box, th)
    npos = np.bincount(np.asarray(gt_class, dtype=np.int64), minlength=nclasses)
    aps, curves = class_aps(m.tp[m.order], np.asarray(det_class, dtype=np.int64)[m.order], npos, nclasses)
    return aps, curves, m.tp


def frame_tide(det_class, det_key, det_box, gt_class, gt_key, gt_box, match, nclasses):
    """TIDE's error analysis (metrics.tide) on ACT frameAP's matching, the frames as images: (TideResult,
    TideErrors with kind/target in class-major rank order, i.e. of detection match.order[i])."""
    order = match.order
    det_class = np.asarray(det_class, dtype=np.int64)[order]
    tp = match.tp[order]
    fp = ~tp
    gt_class = np.asarray(gt_class, dtype=np.int64)
    gt_matched = np.zeros(gt_class.size, dtype=bool)
    gt_matched[match.gt[match.gt >= 0]] = True
    # the false positives in file order: their boxes are read from det_box in order, not at random (3x faster at
    # a million), and not copied; rank_of(order) maps a row to its place in class-major rank order
    fp_rows = np.flatnonzero(~match.tp)
    box = np.asarray(det_box, dtype=np.float64).reshape(-1, 4)
    with np.errstate(over="ignore", invalid="ignore"):      # _box_columns' area, on the rows as they are
        det_columns = (box[:, 0], box[:, 1], box[:, 2], box[:, 3],
                       (box[:, 2] - box[:, 0] + 1.0) * (box[:, 3] - box[:, 1] + 1.0))
    gt_columns = _box_columns(gt_box)
    pair_fp, pair_gt, ious = overlapping_pairs(np.asarray(det_key, dtype=np.int64)[fp_rows], gt_key,
                                               lambda a, b: _iou_rows(det_columns, gt_columns, fp_rows[a], b))
    errors = classify_errors(det_class, fp, rank_of(order)[fp_rows[pair_fp]], pair_gt, ious, gt_class, gt_matched)
    npos = np.bincount(gt_class, minlength=nclasses)
    result = tide_delta_ap(det_class, match.score32[order], tp, fp, errors, gt_class, gt_matched, npos, nclasses,
                           act_ap_of_flags)
    return result, errors


# ----------------------------------------------------------------------------------------------- video-AP

NMS_WINDOW = 64                 # ranks of a group decided together (nms3d)
PAIR_BUDGET = 1 << 18           # tube pairs handled together (nms3d, video_ap): a fixed memory budget
NMS_CHUNK = 1 << 13             # tube pairs compared at once (small arrays stay in the processor's cache)
NMS_FRAMES = 250000             # common frames of those pairs compared at once (_frame_sums)


def nms3d(group, score, first, length, start, box, overlap: float = NMS_THRESHOLD, window: int = NMS_WINDOW,
          budget: int = PAIR_BUDGET) -> np.ndarray:
    """ACT nms3dt per group: keep the highest score, drop the tubes whose ST-IoU with it is > overlap, repeat.

    ACT takes I[-1] of np.argsort(scores) (ascending): among equal scores the tube LATER in the input is kept
    first (we make that stable). ACT keeps `ious <= overlap`, so a NaN ST-IoU (see _iou_rows) suppresses too.
    Returns (kept indices in keep order, grouped by group).

    ACT compares each kept tube with every tube left in its group (n x kept ST-IoUs, one at a time). Here the
    tubes of every group are decided a window of `window` ranks at a time, all groups at once: a tube of the
    window is compared with the tubes already kept in its group and with the earlier tubes of the window
    (_nms_window); the pairs are built and compared in blocks of whole groups of at most about `budget` pairs, so
    memory is bounded whatever the group sizes, and no pair with a tube suppressed in an earlier window is built. The
    outcome is the sequential one (a tube is kept iff no earlier kept tube conflicts with it) for any window and
    budget. The cost is (tubes x kept tubes per group) pairs at most, as ACT's: formats.limits bounds the tubes of
    a video and class in tubes.csv. Pairs that cannot conflict cost little or nothing: a group is split into
    clusters of tubes whose hulls may overlap (_nms_clusters; tubes of different clusters never conflict, so the
    greedy runs on each alone), and within a cluster only pairs that can conflict get their frame IoUs
    (_conflicts, _nms_hulls)."""
    group = np.asarray(group, dtype=np.int64)
    n = group.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((-np.arange(n), -np.asarray(score, dtype=np.float64), group))
    first = np.asarray(first, dtype=np.int64)
    start = np.asarray(start, dtype=np.int64)
    length = np.asarray(length, dtype=np.int64)
    columns = _box_columns(box)
    hull, special = _nms_hulls(columns, start, length)
    # tubes of one group that can never conflict are apart: the greedy runs on each cluster alone, in keep order
    cluster = _nms_clusters(group, hull, special)
    order_in = order[np.argsort(cluster[order], kind="stable")]
    g = cluster[order_in]
    gstart = np.searchsorted(g, g, side="left")
    rank = np.arange(n) - gstart
    first, start, length = first[order_in], start[order_in], length[order_in]
    tubes = _NmsTubes(first, first + length - 1, start, columns, tuple(c[order_in] for c in hull),
                      None if special is None else special[order_in], columns[4][start])
    state = np.zeros(n, dtype=np.int8)          # 0 undecided, 1 kept, 2 suppressed
    kept = np.zeros(0, dtype=np.int64)          # positions kept so far, ascending (groups are contiguous)
    by_rank = np.argsort(rank, kind="stable")   # positions by rank, then position
    rank_end = np.searchsorted(rank[by_rank], np.arange(0, int(rank.max()) + window + 1, window))
    for w in range(rank_end.size - 1):
        members = np.sort(by_rank[rank_end[w]:rank_end[w + 1]])
        _nms_window(tubes, state, kept, gstart, members, w * window, overlap, budget)
        kept = np.flatnonzero(state == 1)
    keep = np.zeros(n, dtype=bool)
    keep[order_in[state == 1]] = True
    return order[keep[order]]


def _nms_clusters(group: np.ndarray, hull: tuple, special: Optional[np.ndarray]) -> np.ndarray:
    """A cluster id per tube (int64, equal only within a group) such that two tubes that can conflict share it: two
    tubes whose hulls overlap (_nms_hulls) are in one cluster, and a special tube is in its group's only cluster. A
    sweep per axis: tubes by group and hull x1, a new cluster where x1 > the running max of fl(x2 + 1) of the cluster
    so far; then the same on y inside each x cluster. Sorting the submission's tubes: O(T log T), no pairs.

    Why a cut is safe: round to nearest leaves no float strictly between fl(b + 1) and b + 1, so a > fl(b + 1) means
    a >= b + 1, b - a <= -1 and the pair's +1 width fl(fl(min x2 - max x1) + 1) <= fl(fl(b - a) + 1) <= 0 (rounding
    is monotone): no tube after the cut overlaps one before it."""
    n = group.size
    ids = np.asarray(group, dtype=np.int64)
    for low, high in ((hull[0], hull[2]), (hull[1], hull[3])):
        if special is not None:
            low, high = np.where(special, -np.inf, low), np.where(special, np.inf, high)
        o = np.lexsort((low, ids))
        lo = low[o]
        with np.errstate(over="ignore"):
            reach = high[o] + 1.0
        sid = ids[o]
        new_id = np.ones(n, dtype=bool)
        new_id[1:] = sid[1:] != sid[:-1]
        dense = np.cumsum(new_id) - 1
        values = np.sort(np.concatenate((lo, reach)))      # order-preserving integer ranks of the floats
        span = 2 * n + 1
        lo_key = dense * span + np.searchsorted(values, lo, side="left")
        reach_key = np.maximum.accumulate(dense * span + np.searchsorted(values, reach, side="left"))
        cut = new_id.copy()
        cut[1:] |= lo_key[1:] > reach_key[:-1]
        ids = np.empty(n, dtype=np.int64)
        ids[o] = np.cumsum(cut) - 1
    return ids


class _NmsTubes(NamedTuple):
    """nms3d's tubes in its group-major keep order (T,): first and last frame, start (the row of the first box), the
    _box_columns of every box row; hull: (x1, y1, x2, y2) of each tube's hull (min x1, min y1, max x2, max y2 over
    its boxes, inverted ones as they are); special (bool: a box whose +1 area is not in (0, inf), the only boxes
    whose IoU can be NaN, see _nms_hulls; None when no tube has one); hull_area: the +1 area of each tube's first box
(its hull's when the tube has one frame, the only use). Columns apart: a pair's values are one gather
    each (faster than rows of a (T, k) array)."""
    first: np.ndarray
    last: np.ndarray
    start: np.ndarray
    columns: tuple
    hull: tuple
    special: Optional[np.ndarray]
    hull_area: np.ndarray


def _nms_hulls(columns: tuple, start: np.ndarray, length: np.ndarray) -> tuple:
    """(hull, special) of _NmsTubes: per tube the hull of its boxes and whether a box has a +1 area outside (0, inf).

    Why they decide which pairs can conflict (_conflicts), with frame IoUs computed as _iou_rows does:
    - boxes that overlap in a frame (iw > 0 and ih > 0) have hulls that overlap: min(hull x2) >= min(x2) and
      max(hull x1) <= max(x1), and rounded subtraction is monotone, so the hulls' iw >= the frame's iw > 0;
    - a frame where the boxes do not overlap has IoU 0 / (area_a + area_b): 0.0 or -0.0 unless the union is 0 or
      NaN, which needs an area <= 0 or NaN (inf + -inf included);
    - boxes that overlap have iw, ih <= their own +1 widths and heights, so a finite area bounds inter: the IoU is
      in (0, 1], never NaN, unless an area is inf (inter = inf, union inf - inf = NaN: boxes of +-1e308).
    So a pair of tubes neither of which is special, whose hulls do not overlap, has frame IoUs of +-0.0 only: its
    ST-IoU is 0 (<= any overlap); and with overlapping hulls its ST-IoU is at most its temporal IoU."""
    x1, y1, x2, y2, area = columns
    n = start.size
    if n and int(length.min()) == 1 and int(length.max()) == 1:
        hull = tuple(c[start] for c in (x1, y1, x2, y2))
        with np.errstate(invalid="ignore"):
            bad = ~((area[start] > 0) & (area[start] < np.inf))
        return hull, (bad if bad.any() else None)
    # np.minimum.reduceat over [start, start + length) of each tube: indices interleaved, even slots kept (a tube
    # has at least one box: start < start + length; the odd slots' reductions are discarded)
    edges = np.empty(2 * n, dtype=np.int64)
    edges[0::2] = start
    edges[1::2] = start + np.maximum(length, 1)
    hull = []
    for c, ufunc in ((x1, np.minimum), (y1, np.minimum), (x2, np.maximum), (y2, np.maximum)):
        hull.append(ufunc.reduceat(np.append(c, 0.0), edges)[0::2] if n else c[:0])
    with np.errstate(invalid="ignore"):
        row_bad = ~((area > 0) & (area < np.inf))
    if not row_bad.any():
        return tuple(hull), None
    cum = np.concatenate(([0], np.cumsum(row_bad)))
    return tuple(hull), cum[start + length] > cum[start]


def _nms_window(tubes: _NmsTubes, state: np.ndarray, kept: np.ndarray, gstart: np.ndarray, members: np.ndarray,
                rank0: int, overlap: float, budget: int):
    """Decide the tubes at `members` (positions of one rank window, ascending): each is compared with the kept
    tubes of its group (`kept`, from earlier windows, ascending) and with the window's earlier tubes of its group,
    in blocks of whole groups of about `budget` pairs (at least one group); state is updated in place."""
    gs = gstart[members]
    first_kept = np.searchsorted(kept, gs, side="left")
    nkept = np.searchsorted(kept, gs + rank0, side="left") - first_kept
    window_start = gs + rank0                       # the group's first position in this window
    count = nkept + (members - window_start)        # pairs of each member: its group's kept tubes, earlier members
    heads = np.flatnonzero(np.concatenate(([True], gs[1:] != gs[:-1])))
    bounds = np.append(heads, members.size)
    pairs_before = np.concatenate(([0], np.cumsum(count)))[bounds]     # pairs before each group, and in all
    at = 0
    while at < heads.size:
        nxt = int(np.searchsorted(pairs_before, pairs_before[at] + budget, side="right")) - 1
        nxt = min(max(nxt, at + 1), heads.size)
        i, j = bounds[at], bounds[nxt]
        earlier_of, later_of = _candidates(kept, first_kept, nkept, members, bounds[at:nxt + 1], count[i:j])
        total = later_of.size
        pieces = []
        for p in range(0, total, NMS_CHUNK):        # pairs compared a cache-sized chunk at a time
            q = min(p + NMS_CHUNK, total)
            earlier = earlier_of(p, q)
            later = later_of[p:q]
            conflict = _conflicts(tubes, earlier, later, overlap)
            pieces.append((earlier[conflict], later[conflict]))
        earlier = np.concatenate([e for e, _ in pieces]) if pieces else np.zeros(0, dtype=np.int64)
        later = np.concatenate([l for _, l in pieces]) if pieces else np.zeros(0, dtype=np.int64)
        _resolve(state, members[i:j], earlier, later)
        at = nxt


def _candidates(kept, first_kept, nkept, members, bounds, count):
    """The pairs of one block of whole groups of a window: (earlier_of(p, q), the later tube of every pair), pairs
    member by member in members' order, each member's earlier tubes in keep order (its group's kept tubes, then the
    window's members before it). Each group's candidates are one pool (its kept tubes, then its members), so that
    the earlier tube of pair p is pool[shift[p] + p]: a chunk of pairs costs two gathers. bounds: the groups'
    first member and the end (into members), count: the pairs of each member of the block."""
    i = int(bounds[0])
    heads = bounds[:-1]
    size = np.diff(bounds)                          # members of each group in the window
    nk = nkept[heads]
    pool_len = nk + size
    seg, q = expand(pool_len)
    from_kept = q < nk[seg]
    pool = np.empty(seg.size, dtype=np.int64)
    if kept.size:
        pool[from_kept] = kept[first_kept[heads][seg[from_kept]] + q[from_kept]]
    rest = ~from_kept
    pool[rest] = members[bounds[:-1][seg[rest]] + (q[rest] - nk[seg[rest]])]
    pool_start = segment_starts(pool_len)
    member_group = np.repeat(np.arange(heads.size), size)
    pair_start = segment_starts(count)
    shift = np.repeat(pool_start[member_group] - pair_start, count)
    later = np.repeat(members[i:int(bounds[-1])], count)

    def earlier_of(p, q):
        return pool[shift[p:q] + np.arange(p, q)]

    return earlier_of, later


def _conflicts(tubes: _NmsTubes, earlier: np.ndarray, later: np.ndarray, overlap: float) -> np.ndarray:
    """ST-IoU(earlier, later) > overlap or NaN (ACT keeps `ious <= overlap` only), as pair_frames(...).st_iou()
    computes it. Only the pairs that can conflict get their frame IoUs (_nms_hulls says why): pairs that share a
    frame and either involve a special tube (a NaN IoU may be there) or have overlapping hulls and a temporal IoU
    above overlap (ST-IoU <= T-IoU when no frame IoU is NaN)."""
    fa, fb = tubes.first[earlier], tubes.first[later]
    la, lb = tubes.last[earlier], tubes.last[later]
    tmin = np.maximum(fa, fb)
    tint = np.minimum(la, lb) - tmin + 1
    tuni = np.maximum(la, lb) - np.minimum(fa, fb) + 1
    maybe = tint > overlap * tuni
    iw, ih = _plus1_sides(tubes.hull, tubes.hull, earlier, later)     # the hulls', as _iou_rows has them
    maybe &= iw > 0
    maybe &= ih > 0
    one = maybe & (tuni == 1)       # both tubes are the same one frame: their hulls are their boxes
    special = tubes.special
    if special is not None:
        odd = (tint > 0) & (special[earlier] | special[later])
        one &= ~odd
        maybe |= odd
    conflict = np.zeros(earlier.size, dtype=bool)
    idx = np.flatnonzero(one)
    if idx.size:                    # _iou_rows on boxes that overlap, its operations in its order; x 1.0 / 1
        e, l = earlier, later
        if idx.size < earlier.size:
            iw, ih, e, l = iw[idx], ih[idx], e[idx], l[idx]
        iou = _iou_of_sides(iw, ih, tubes.hull_area[e], tubes.hull_area[l])
        conflict[idx] = ~(iou <= overlap)
        maybe &= ~one
    idx = np.flatnonzero(maybe)
    if idx.size:
        conflict[idx] = _conflicts_of(tubes, earlier[idx], later[idx], fa[idx], fb[idx], tmin[idx], tint[idx],
                                      tuni[idx], overlap)
    return conflict


def _conflicts_of(tubes: _NmsTubes, earlier: np.ndarray, later: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                  tmin: np.ndarray, tint: np.ndarray, tuni: np.ndarray, overlap: float) -> np.ndarray:
    """_conflicts on pairs that share a frame: the ST-IoU from the frame IoUs."""
    rows_e = tubes.start[earlier] + (tmin - fa)
    rows_l = tubes.start[later] + (tmin - fb)
    if int(tint.max()) == 1:        # one common frame each: ST-IoU = IoU / 1 * (1 / union span), as st_iou has it
        iou = _iou_rows(tubes.columns, tubes.columns, rows_e, rows_l)
        with np.errstate(invalid="ignore"):
            iou *= 1.0 / tuni
            return ~(iou <= overlap)
    # several common frames: a pair whose boxes meet in none of them (and neither of which is special) has frame IoUs
    # of +-0.0 only, ST-IoU 0 (_nms_hulls); the others get their frame IoUs, from the same sides (_frame_sums)
    conflict = np.zeros(earlier.size, dtype=bool)
    special = tubes.special
    odd = None if special is None else special[earlier] | special[later]
    for idx, iou_sum in _frame_sums(tubes.columns, rows_e, rows_l, tint, odd):
        with np.errstate(invalid="ignore"):
            conflict[idx] = ~(PairFrames(tint[idx], tuni[idx], iou_sum).st_iou() <= overlap)
    return conflict


def _frame_sums(columns: tuple, ra0: np.ndarray, rb0: np.ndarray, L: np.ndarray, odd: Optional[np.ndarray]):
    """frame_iou_sums of the pairs whose boxes meet in a common frame (or that are odd), NMS_FRAMES frames at a time:
    yields (idx, sums): the pairs of this block that need them and their sums. Per pair k the frames are rows ra0[k] + f
    and rb0[k] + f, f < L[k]. The sides of every frame are computed once: they say which pairs meet, and give the
    IoUs of those pairs' frames with _iou_rows' operations in its order (the same bits), summed by _segment_sums."""
    area = columns[4]
    for i, j in _frame_blocks(L, NMS_FRAMES):
        cnt = L[i:j]
        seg, off = expand(cnt)
        ra = ra0[i:j][seg] + off
        rb = rb0[i:j][seg] + off
        iw, ih = _plus1_sides(columns, columns, ra, rb)
        met = iw > 0
        met &= ih > 0
        pair = np.zeros(j - i, dtype=bool)
        pair[seg[met]] = True
        if odd is not None:
            pair |= odd[i:j]
        sel = np.flatnonzero(pair)
        if not sel.size:
            continue
        if sel.size < j - i:
            k = np.flatnonzero(pair[seg])               # every frame of those pairs, pair by pair
            iw, ih, met, ra, rb = iw[k], ih[k], met[k], ra[k], rb[k]
        yield i + sel, _segment_sums(_iou_of_sides(iw, ih, area[ra], area[rb], ~met), cnt[sel])


def _resolve(state, members, earlier, later):
    """The greedy NMS of the undecided `members` (ascending positions) given the conflict edges (earlier, later):
    `later` is one of members, `earlier` precedes it in keep order and is decided or one of members. In rounds, a
    member with a kept earlier conflict is suppressed and a member with no undecided earlier conflict is kept: each
    round decides at least the first undecided member, and the outcome is the sequential one."""
    local = np.searchsorted(members, later)
    while True:
        undecided = state[members] == 0
        if not undecided.any():
            break
        earlier_state = state[earlier]
        kept_in = np.zeros(members.size, dtype=bool)
        kept_in[local[earlier_state == 1]] = True
        undecided_in = np.zeros(members.size, dtype=bool)
        undecided_in[local[earlier_state == 0]] = True
        state[members[undecided & kept_in]] = 2
        state[members[undecided & ~kept_in & ~undecided_in]] = 1
        live = (state[later] == 0) & (state[earlier] != 2)
        earlier, later, local = earlier[live], later[live], local[live]


def video_ap(tubes: Tubes, gts: Tubes, nvideos: int, nclasses: int, thresholds: list) -> tuple:
    """ACT videoAP at several thresholds with one sort and one ST-IoU matrix.

    tubes: the submitted Tubes with video, label and score (input order = file order).
    gts: the ground-truth Tubes with video and label (tube order = ACT's list order).
    Returns (aps (nthr, nclasses), curves per threshold, kept tube indices).
    """
    tv = np.asarray(tubes.video, dtype=np.int64)
    tl = np.asarray(tubes.label, dtype=np.int64)
    ts = np.asarray(tubes.score, dtype=np.float64)
    kept = nms3d(tl * nvideos + tv, ts, tubes.first, tubes.length, tubes.start, tubes.box)
    nk = kept.size
    kv, kl, ks = tv[kept], tl[kept], ts[kept]
    # per class: video by video (videos.csv order), NMS keep order inside; then stable by descending score
    order = np.lexsort((np.arange(nk), kv, -ks, kl))
    rank = rank_of(order)
    kgrp = kl * nvideos + kv
    gv = np.asarray(gts.video, dtype=np.int64)
    gl = np.asarray(gts.label, dtype=np.int64)
    ggrp = gl * nvideos + gv
    go = np.argsort(ggrp, kind="stable")
    gs = ggrp[go]
    lo = np.searchsorted(gs, kgrp, side="left")
    hi = np.searchsorted(gs, kgrp, side="right")
    a = Tubes(*(np.asarray(x)[kept] for x in (tubes.first, tubes.length, tubes.start)), box=tubes.box)
    b = Tubes(*(np.asarray(x)[go] for x in (gts.first, gts.length, gts.start)), box=gts.box)
    pd, pg, st = _useful_pairs(a, b, lo, hi - lo, min(thresholds))
    pairs = GreedyPairs(pd, pg, st, rank, kgrp, nk, gs.size)
    npos = np.bincount(gl, minlength=nclasses)
    aps = np.zeros((len(thresholds), nclasses))
    curves = []
    done = {}
    for i, th in enumerate(thresholds):
        if th not in done:
            tp = pairs.match(th)
            done[th] = class_aps(tp[order], kl[order], npos, nclasses)
        aps[i], c = done[th]
        curves.append(c)
    return aps, curves, kept


def _useful_pairs(a: Tubes, b: Tubes, first_gt: np.ndarray, count: np.ndarray, lowest: float) -> tuple:
    """The (tube, ground truth) pairs of tube k with ground truths first_gt[k] + i, i < count[k], whose ST-IoU can
    decide a match at a threshold >= lowest: ST-IoU >= lowest, or NaN (GreedyPairs.match never looks at the
    others). Computed PAIR_BUDGET pairs at a time, so that only those pairs are held: (tube, gt, ST-IoU)."""
    columns = _box_columns(a.box), _box_columns(b.box)
    cum = np.cumsum(count)
    parts = []
    i, n = 0, count.size
    while i < n:
        base = cum[i - 1] if i else 0
        j = min(max(int(np.searchsorted(cum, base + PAIR_BUDGET, side="right")), i + 1), n)
        pd, off = expand(count[i:j])
        pd += i
        pg = first_gt[pd] + off
        st = pair_frames(a, b, pd, pg, columns=columns).st_iou()
        with np.errstate(invalid="ignore"):     # NaN < lowest is False: a NaN pair is kept
            useful = ~(st < lowest)
        parts.append((pd[useful], pg[useful], st[useful]))
        i = j
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    return tuple(np.concatenate(p) for p in zip(*parts))


# ----------------------------------------------------------------------------------------------- AUC

def auc_tube_iou(tubes: Tubes, gts: Tubes, pair_tube, pair_gt, num_frames) -> np.ndarray:
    """Gkioxari's per-tube IoU: mean over frames 1..num_frames of inters_union(gt box, tube box), for the pairs
    (tubes[pair_tube], gts[pair_gt]) of two Tubes (first, length, start, box, as pair_frames).

        inters = rectint(...); union = ar1 + ar2 - inters; iou = inters ./ (union + eps)

    rectint clamps the intersection width and height at 0 as ACT does, and ar = w * h with w = x2 - x1 + 1 is
    taken as it is. A frame where either has no box counts 0 (the original needs every frame). Where the boxes
    overlap we divide by the union without eps (that union is >= 1, the ground-truth box's area: at most one unit
    in the last place of difference); where they do not, eps decides: 0 / (union + eps) is 0 (or -0.0) even for a
    union of 0, NaN only for a union of exactly -eps, and a NaN mean fails `iou >= thresh` in auc_gkioxari as in
    the original."""
    pf = pair_frames(tubes, gts, pair_tube, pair_gt, union_eps=MATLAB_EPS)
    return pf.iou_sum / num_frames


def auc_gkioxari(video_rank, tube_video, tube_label, tube_score, tube_iou, video_label, nclasses: int,
                 th: float) -> dict:
    """get_ROC_curve_JHMDB.m for one IoU threshold.

    video_rank: rank of each video in sorted-id order (MATLAB unique()). tube_iou: mean +1 IoU over frames
    1..num_frames with the video's only GT tube. Per video and class: the 3 highest scores (stable); in score
    order a tube is correct iff iou >= th, its class is the video's and no earlier kept tube of this video and
    class was; every other kept tube is a negative. Per class: stable descending sort of the float32 scores,
    tpr = cumTP / num_gt, fpr = cumFP / num_neg, kept where fpr <= 0.6. Then the mean ROC curve
    (get_average_roc_curve's neighbour rule) and its area.
    Returns dict(auc, fpr, tpr (mean curve), class_auc, class_curves, num_gt, num_neg).
    """
    tube_video = np.asarray(tube_video, dtype=np.int64)
    tube_label = np.asarray(tube_label, dtype=np.int64)
    score = np.asarray(tube_score, dtype=np.float64)
    video_label = np.asarray(video_label, dtype=np.int64)
    vr = np.asarray(video_rank, dtype=np.int64)[tube_video]
    n = tube_video.size
    order = np.lexsort((np.arange(n), -score, tube_label, vr))
    grp = (vr * nclasses + tube_label)[order]
    pos = np.arange(n) - np.searchsorted(grp, grp, side="left")
    keep = pos < AUC_TOP
    idx = order[keep]
    grp = grp[keep]
    with np.errstate(invalid="ignore"):           # a NaN IoU fails `iou(j) >= iou_thresh`: a negative
        ok = np.asarray(tube_iou, dtype=np.float64)[idx] >= th
    ok &= tube_label[idx] == video_label[tube_video[idx]]
    cum = np.cumsum(ok)
    before = cum - ok
    gfirst = np.searchsorted(grp, grp, side="left")
    base = before[gfirst]
    correct = ok & (cum - base == 1)
    lab = tube_label[idx]
    s32 = score[idx].astype(np.float32)
    o2 = class_then_descending_order(lab, s32)
    lab2 = lab[o2]
    corr2 = correct[o2]
    num_gt = np.bincount(video_label, minlength=nclasses)
    counts = np.bincount(lab2, minlength=nclasses)
    starts = segment_starts(counts)
    num_neg = np.bincount(lab2[~corr2], minlength=nclasses)
    class_curves, class_auc = [], np.zeros(nclasses)
    for c in range(nclasses):
        t = corr2[starts[c]:starts[c] + counts[c]]
        if t.size == 0 or num_neg[c] == 0:
            class_curves.append((np.zeros(0), np.zeros(0)))
            continue
        tp = np.cumsum(t).astype(np.float64)
        fp = np.cumsum(~t).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            tpr = tp / float(num_gt[c])
        fpr = fp / float(num_neg[c])
        k = fpr <= ROC_MAX_FPR
        fpr, tpr = fpr[k], tpr[k]
        class_curves.append((fpr, tpr))
        class_auc[c] = _area(fpr, tpr)
    F, T = mean_roc(class_curves, nclasses)
    return {"auc": _area(F, T), "fpr": F, "tpr": T, "class_auc": class_auc, "class_curves": class_curves,
            "num_gt": num_gt, "num_neg": num_neg}


def _area(fpr, tpr):
    """i = find(mfpr(2:end) ~= mfpr(1:end-1)) + 1; auc = sum((mfpr(i) - mfpr(i-1)) .* mtpr(i))."""
    if fpr.size < 2:
        return 0.0
    i = np.flatnonzero(fpr[1:] != fpr[:-1]) + 1
    return float(np.sum((fpr[i] - fpr[i - 1]) * tpr[i]))


def mean_roc(class_curves, nclasses):
    """get_average_roc_curve: F = sorted union of the classes' fpr values; for each class and x in F,
    [diff, i1] = min(abs(x - fpr)) (first index of the nearest), i2 = i1+1 if fpr(i1) <= x else i1-1, i2 = i1 when
    out of range or diff == 0, value max(tpr(i1), tpr(i2)); averaged over all classes (a class without points
    adds 0: the original would crash)."""
    parts = [f for f, _ in class_curves if f.size]
    if not parts:
        return np.zeros(0), np.zeros(0)
    F = np.unique(np.concatenate(parts))
    total = np.zeros(F.size)
    for fpr, tpr in class_curves:
        m = fpr.size
        if m == 0:
            continue
        pos = np.searchsorted(fpr, F, side="left")
        hi = np.minimum(pos, m - 1)
        lo = np.maximum(pos - 1, 0)
        dlo = np.abs(F - fpr[lo])
        dhi = np.abs(F - fpr[hi])
        take_lo = dlo <= dhi
        v = np.where(take_lo, fpr[lo], fpr[hi])
        diff = np.where(take_lo, dlo, dhi)
        i1 = np.searchsorted(fpr, v, side="left")
        i2 = np.where(fpr[i1] <= F, i1 + 1, i1 - 1)
        i2 = np.where((i2 < 0) | (i2 >= m) | (diff == 0), i1, i2)
        total += np.maximum(tpr[i1], tpr[i2])
    return F, total / float(nclasses)


def frame_map_on_weighted_videos(video_label, nclasses, gt_video, gt_class, det_video=None, det_class=None,
                                 match=None):
    """ACT frameAP's mAP on weighted videos, for the bootstrap (issue 13): score(weights) -> (b,) for a (b, nvideos)
    block of video weights, weight k counting the video k times (0: removed).

    video_label: the class of each test video; gt_video, gt_class: per ground-truth box; det_video, det_class: per
    frame detection (input order) and match its FrameMatch (frame_match), or None without frame detections (AP 0
    for every class). Matching is decided inside each (video, frame), so a copy of a video repeats its detections'
    outcomes. Per class the weighted number of positives is the weighted count of its ground-truth boxes (0: AP 0,
    ACT's recall is 0); AP is the trapezoid on the COLLAPSED weighted precision/recall points
    (metrics.bootstrap.RankedLists.ap_trapezoid_raw): exact for weights 0 and 1 (0 is the video removed), while
    weight k > 1 makes each true positive one point at its weighted counts, not k points (the trapezoid over k
    copies has no closed form). The mean is over the class set of the weighted videos (a class leaves it when all
    its videos have weight 0, as the class set is the labels of the test videos); NaN when no video is left.
    """
    from .bootstrap import RankedLists
    video_label = np.asarray(video_label, dtype=np.intp)
    nvideos, nclasses = video_label.size, int(nclasses)
    npos = np.bincount(np.asarray(gt_video, dtype=np.intp) * nclasses + np.asarray(gt_class, dtype=np.intp),
                       minlength=nvideos * nclasses).reshape(nvideos, nclasses).astype(np.float64)
    of_class = np.zeros((nvideos, nclasses))
    of_class[np.arange(nvideos), video_label] = 1.0
    lists = None
    if match is not None:
        order = match.order
        tp = match.tp[order]
        lists = RankedLists(np.asarray(det_class)[order], np.asarray(det_video)[order], tp, ~tp, nclasses)

    def score(weights):
        if lists is None:
            aps = np.zeros((weights.shape[0], nclasses))
        else:
            aps = lists.ap_trapezoid_raw(weights, weights @ npos)
        present = (weights @ of_class) > 0
        count = present.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(present, aps, 0.0).sum(axis=1) / count
        mean[count == 0] = np.nan
        return mean

    return score
