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
"""
from __future__ import annotations

import numpy as np

from .ap import ap_trapezoid_raw
from .overlap import iou_pairs_plus1

NMS_THRESHOLD = 0.3
ROC_MAX_FPR = 0.6
AUC_TOP = 3


def video_thresholds_50_95():
    """MOC-Detector videoAP_all: thr = 0.5 + 0.05 * i for i in range(10), Python floats (0.8500000000000001 is
    the 8th value: a tube at exactly 0.85 is a false positive there)."""
    return [0.5 + 0.05 * i for i in range(10)]


# ----------------------------------------------------------------------------------------------- helpers

def _expand(counts):
    """For segments of the given lengths: (segment index, offset inside the segment) of every element."""
    counts = np.asarray(counts, dtype=np.int64)
    seg = np.repeat(np.arange(counts.size), counts)
    off = np.arange(seg.size, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return seg, off


def _segment_sums(values, counts):
    """Sum of each consecutive segment, bit-identical to np.sum of the segment alone.

    np.add.reduceat does not use numpy's pairwise summation, np.sum(axis=1) on a C-contiguous (k, L) block
    does; so segments are summed in blocks of equal length (a loop over distinct lengths, not over segments)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(counts.size)
    starts = np.cumsum(counts) - counts
    for L in np.unique(counts[counts > 0]).tolist():
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
        """ACT iou3dt: 0 if tmax < tmin (one shared frame counts); else mean IoU x (tmax-tmin+1)/(union span)."""
        ok = self.L > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = self.iou_sum / np.where(ok, self.L, 1)
            tiou = self.L / np.where(ok, self.U, 1).astype(np.float64)
        return np.where(ok, mean * tiou, 0.0)


def _box_columns(box):
    """x1, y1, x2, y2 as contiguous columns and the +1 area of every row (as iou_pairs_plus1 computes it)."""
    box = np.asarray(box, dtype=np.float64).reshape(-1, 4)
    x1, y1, x2, y2 = (np.ascontiguousarray(box[:, k]) for k in range(4))
    return x1, y1, x2, y2, (x2 - x1 + 1.0) * (y2 - y1 + 1.0)


def _iou_rows(ca, cb, ia, ib):
    """metrics.overlap.iou_pairs_plus1(box_a[ia], box_b[ib]), the same operations in the same order (so the same
    bits), on precomputed columns and areas: iw, ih, inter = iw*ih, ua = area_a + area_b - inter."""
    iw = np.minimum(ca[2][ia], cb[2][ib])
    iw -= np.maximum(ca[0][ia], cb[0][ib])
    iw += 1.0
    ih = np.minimum(ca[3][ia], cb[3][ib])
    ih -= np.maximum(ca[1][ia], cb[1][ib])
    ih += 1.0
    inter = iw * ih
    ua = ca[4][ia] + cb[4][ib]
    ua -= inter
    ok = (iw > 0) & (ih > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inter /= ua
    inter[~ok] = 0.0
    return inter


def pair_frames(a, b, pa, pb, chunk=250000):
    """a, b: dicts with first, length, start (row of first box), box (rows x 4). pa, pb: pair indices."""
    pa = np.asarray(pa, dtype=np.int64)
    pb = np.asarray(pb, dtype=np.int64)
    fa = a["first"][pa]
    fb = b["first"][pb]
    la = fa + a["length"][pa] - 1
    lb = fb + b["length"][pb] - 1
    tmin = np.maximum(fa, fb)
    tmax = np.minimum(la, lb)
    L = np.maximum(tmax - tmin + 1, 0)
    U = np.maximum(la, lb) - np.minimum(fa, fb) + 1
    iou_sum = np.zeros(pa.size, dtype=np.float64)
    ra0 = a["start"][pa] + (tmin - fa)
    rb0 = b["start"][pb] + (tmin - fb)
    cum = np.cumsum(L)
    i = 0
    n = pa.size
    ca = cb = None
    while i < n:
        base = cum[i - 1] if i else 0
        j = int(np.searchsorted(cum, base + chunk, side="right"))
        j = min(max(j, i + 1), n)
        idx = np.arange(i, j)
        cnt = L[idx]
        seg, off = _expand(cnt)
        if seg.size:
            if ca is None:
                ca = _box_columns(a["box"])
                cb = ca if b["box"] is a["box"] else _box_columns(b["box"])
            rows = idx[seg]
            ious = _iou_rows(ca, cb, ra0[rows] + off, rb0[rows] + off)
            iou_sum[idx] = _segment_sums(ious, cnt)
        i = j
    return PairFrames(L, U, iou_sum)


# ----------------------------------------------------------------------------------------------- greedy matching

class GreedyPairs(object):
    """Candidate (detection, ground truth) pairs of the same group, sorted once for every threshold:
    by group, by detection rank, by descending IoU, by ground-truth order (np.argmax takes the first max)."""

    def __init__(self, pair_det, pair_gt, pair_iou, det_rank, det_group, ndet, ngt):
        pair_det = np.asarray(pair_det, dtype=np.int64)
        pair_gt = np.asarray(pair_gt, dtype=np.int64)
        pair_iou = np.asarray(pair_iou, dtype=np.float64)
        grp = np.asarray(det_group)[pair_det]
        o = np.lexsort((pair_gt, -pair_iou, np.asarray(det_rank)[pair_det], grp))
        self.det = pair_det[o]
        self.gt = pair_gt[o]
        self.iou = pair_iou[o]
        self.grp = grp[o]
        self.ndet = ndet
        self.ngt = ngt

    def match(self, th):
        """tp[d] for every detection at IoU threshold th (>= th is a match, ACT's `ious[amax] >= th`)."""
        tp = np.zeros(self.ndet, dtype=bool)
        used = np.zeros(self.ngt, dtype=bool)
        keep = self.iou >= th
        d, g, grp = self.det[keep], self.gt[keep], self.grp[keep]
        while d.size:
            first = np.ones(d.size, dtype=bool)
            first[1:] = grp[1:] != grp[:-1]
            tp[d[first]] = True
            used[g[first]] = True
            alive = ~tp[d] & ~used[g]
            d, g, grp = d[alive], g[alive], grp[alive]
        return tp


def greedy_consume(pair_det, pair_gt, pair_iou, det_rank, det_group, th, ndet=None, ngt=None):
    """ACT's loop, order-free: see the module docstring. Returns tp per detection."""
    ndet = int(len(det_rank)) if ndet is None else ndet
    ngt = int(np.max(pair_gt) + 1) if ngt is None and len(pair_gt) else (ngt or 0)
    return GreedyPairs(pair_det, pair_gt, pair_iou, det_rank, det_group, ndet, ngt).match(th)


def class_aps(tp_ranked, class_ranked, npos, nclasses):
    """AP per class from TP flags in rank order (sorted by class, then rank): ACT pr arrays + pr_to_ap.

    prec = tp / (tp + fp), rec = tp / npos (ACT's tp / (tp + fn)); a class without ground truth has recall 0
    throughout (ACT writes 0 when tp + fn == 0): AP 0. Returns (aps, curves[(rec, prec)])."""
    counts = np.bincount(class_ranked, minlength=nclasses)
    ends = np.cumsum(counts)
    aps = np.zeros(nclasses)
    curves = []
    for c in range(nclasses):
        t = tp_ranked[ends[c] - counts[c]:ends[c]].astype(np.float64)
        if t.size == 0:
            curves.append((np.zeros(0), np.zeros(0)))
            continue
        ctp = np.cumsum(t)
        cfp = np.arange(1, t.size + 1) - ctp
        prec = ctp / (ctp + cfp)
        rec = ctp / npos[c] if npos[c] > 0 else np.zeros_like(ctp)
        if npos[c] == 0:
            prec = np.zeros_like(ctp)
        aps[c] = ap_trapezoid_raw(rec, prec)
        curves.append((rec, prec))
    return aps, curves


# ----------------------------------------------------------------------------------------------- frame-AP

def frame_ap(det_class, det_key, det_score, det_box, gt_class, gt_key, gt_box, nclasses, th=0.5):
    """ACT frameAP. det_key / gt_key: one int64 per (video, frame); gt rows in ACT's list order within a key.

    Ranking: descending float32 score (ACT stores detections as float32), ties in input order (stable).
    Each detection takes the best +1 IoU among the still-unmatched boxes of its class in its (video, frame):
    >= th is a TP and consumes that box, else FP. AP: trapezoid on the raw PR points from (0, 1).
    Returns (aps, curves, tp flags per detection).
    """
    det_class = np.asarray(det_class, dtype=np.int64)
    det_key = np.asarray(det_key, dtype=np.int64)
    gt_class = np.asarray(gt_class, dtype=np.int64)
    gt_key = np.asarray(gt_key, dtype=np.int64)
    n = det_class.size
    s32 = np.asarray(det_score, dtype=np.float64).astype(np.float32)
    order = np.lexsort((np.arange(n), -s32, det_class))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    span = int(max(det_key.max() if n else 0, gt_key.max() if gt_key.size else 0)) + 1
    dgrp = det_class * span + det_key
    ggrp = gt_class * span + gt_key
    go = np.argsort(ggrp, kind="stable")
    gs = ggrp[go]
    lo = np.searchsorted(gs, dgrp, side="left")
    hi = np.searchsorted(gs, dgrp, side="right")
    pd, off = _expand(hi - lo)
    pg = lo[pd] + off
    ious = iou_pairs_plus1(np.asarray(det_box)[pd], np.asarray(gt_box)[go][pg])
    tp = GreedyPairs(pd, pg, ious, rank, dgrp, n, gs.size).match(th)
    npos = np.bincount(gt_class, minlength=nclasses)
    aps, curves = class_aps(tp[order], det_class[order], npos, nclasses)
    return aps, curves, tp


# ----------------------------------------------------------------------------------------------- video-AP

def nms3d(group, score, first, length, start, box, overlap=NMS_THRESHOLD):
    """ACT nms3dt per group: keep the highest score, drop the tubes whose ST-IoU with it is > overlap, repeat.

    ACT takes I[-1] of np.argsort(scores) (ascending): among equal scores the tube LATER in the input is kept
    first (we make that stable). Returns (kept indices in keep order, grouped by group)."""
    group = np.asarray(group, dtype=np.int64)
    n = group.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((-np.arange(n), -np.asarray(score, dtype=np.float64), group))
    g = group[order]
    gend = np.searchsorted(g, g, side="right")
    cnt = gend - np.arange(n) - 1
    ei, off = _expand(cnt)
    ej = ei + 1 + off
    a = {"first": np.asarray(first)[order], "length": np.asarray(length)[order], "start": np.asarray(start)[order],
         "box": box}
    # ST-IoU <= T-IoU: pairs whose temporal IoU is <= overlap cannot conflict
    fa, fb = a["first"][ei], a["first"][ej]
    la, lb = fa + a["length"][ei] - 1, fb + a["length"][ej] - 1
    tint = np.minimum(la, lb) - np.maximum(fa, fb) + 1
    tuni = np.maximum(la, lb) - np.minimum(fa, fb) + 1
    maybe = tint > overlap * tuni
    ei, ej = ei[maybe], ej[maybe]
    conflict = pair_frames(a, a, ei, ej).st_iou() > overlap
    ei, ej = ei[conflict], ej[conflict]
    state = np.zeros(n, dtype=np.int8)          # 0 undecided, 1 kept, 2 suppressed
    while True:
        und = state == 0
        if not und.any():
            break
        kept_in = np.zeros(n, dtype=bool)
        kept_in[ej[state[ei] == 1]] = True
        und_in = np.zeros(n, dtype=bool)
        und_in[ej[state[ei] == 0]] = True
        state[und & kept_in] = 2
        state[und & ~kept_in & ~und_in] = 1
        live = (state[ej] == 0) & (state[ei] != 2)
        ei, ej = ei[live], ej[live]
    return order[state == 1]


def video_ap(tubes, gts, nvideos, nclasses, thresholds):
    """ACT videoAP at several thresholds with one sort and one ST-IoU matrix.

    tubes: dict video, label, score, first, length, start, box (input order = file order).
    gts: dict video, label, first, length, start, box (tube order = ACT's list order).
    Returns (aps (nthr, nclasses), curves per threshold, kept tube indices).
    """
    tv = np.asarray(tubes["video"], dtype=np.int64)
    tl = np.asarray(tubes["label"], dtype=np.int64)
    ts = np.asarray(tubes["score"], dtype=np.float64)
    kept = nms3d(tl * nvideos + tv, ts, tubes["first"], tubes["length"], tubes["start"], tubes["box"])
    nk = kept.size
    kv, kl, ks = tv[kept], tl[kept], ts[kept]
    # per class: video by video (videos.csv order), NMS keep order inside; then stable by descending score
    order = np.lexsort((np.arange(nk), kv, -ks, kl))
    rank = np.empty(nk, dtype=np.int64)
    rank[order] = np.arange(nk)
    kgrp = kl * nvideos + kv
    gv = np.asarray(gts["video"], dtype=np.int64)
    gl = np.asarray(gts["label"], dtype=np.int64)
    ggrp = gl * nvideos + gv
    go = np.argsort(ggrp, kind="stable")
    gs = ggrp[go]
    lo = np.searchsorted(gs, kgrp, side="left")
    hi = np.searchsorted(gs, kgrp, side="right")
    pd, off = _expand(hi - lo)
    pg = lo[pd] + off
    a = {k: np.asarray(tubes[k])[kept] for k in ("first", "length", "start")}
    a["box"] = tubes["box"]
    b = {k: np.asarray(gts[k])[go] for k in ("first", "length", "start")}
    b["box"] = gts["box"]
    st = pair_frames(a, b, pd, pg).st_iou()
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


# ----------------------------------------------------------------------------------------------- AUC

def auc_gkioxari(video_rank, tube_video, tube_label, tube_score, tube_iou, video_label, nclasses, th):
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
    ok = (np.asarray(tube_iou, dtype=np.float64)[idx] >= th) & (tube_label[idx] == video_label[tube_video[idx]])
    cum = np.cumsum(ok)
    before = cum - ok
    gfirst = np.searchsorted(grp, grp, side="left")
    base = before[gfirst]
    correct = ok & (cum - base == 1)
    lab = tube_label[idx]
    s32 = score[idx].astype(np.float32)
    o2 = np.lexsort((np.arange(idx.size), -s32, lab))
    lab2 = lab[o2]
    corr2 = correct[o2]
    num_gt = np.bincount(video_label, minlength=nclasses)
    counts = np.bincount(lab2, minlength=nclasses)
    ends = np.cumsum(counts)
    num_neg = np.bincount(lab2[~corr2], minlength=nclasses)
    class_curves, class_auc = [], np.zeros(nclasses)
    for c in range(nclasses):
        t = corr2[ends[c] - counts[c]:ends[c]]
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
