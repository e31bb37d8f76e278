"""Kinetics-TPS: Part State Correctness (PSC) and PSC-conditioned video accuracy, as the official evaluator computes
them (eval_detection.py of the Kinetics-TPS-evaluation repository, final commit). Arrays in, numbers out.

Every sum here is accumulated in the order of the official Python loops (parts of a human, then humans of a frame,
then frames of a video, then thresholds), because the threshold test `PSC >= t` sees the last bit of a PSC:
0.2 + 0.2 + 0.2 is not 0.6, and a video whose PSC rounds either side of t = 0.6 is counted or not.
"""
from __future__ import annotations

from typing import Callable, Tuple

import numpy as np

from .assignment import linear_sum_assignment_batch
from .overlap import iou_columns_plus1

HUMAN_IOU = 0.5     # a matched pair needs IoU > 0.5 (strict, float32)
PART_IOU = 0.3      # a part proposal needs IoU >= 0.3 (inclusive, float64)
STEPS = 10000       # thresholds t/10000, t = 1..9999
PART_BLOCK = 1 << 18  # part_correctness: proposal pairs per block (its temporaries stay near 25 MB)


def iou_tps_float32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of boxes a (..., N, 4) with b (..., M, 4) -> (..., N, M) float32, as bbox_iou on np.float32 boxes.

    bbox_iou: iw = min(x2) - max(x1) + 1, ih likewise; "if interW <= 0 or interH <= 0: return -1.0";
    iou = iw*ih / (areaA + areaB - iw*ih) with area = (x2-x1+1)(y2-y1+1). The human boxes were np.float32
    arrays, so every step is float32 arithmetic (the division, done in float64 by NumPy 1.x and then stored in
    the float32 matrix, rounds to the same float32: double rounding is innocuous for one division).
    """
    a = np.asarray(a, dtype=np.float32)[..., :, None, :]
    b = np.asarray(b, dtype=np.float32)[..., None, :, :]
    one = np.float32(1)
    iw = (np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])) + one
    ih = (np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])) + one
    inter = iw * ih
    area_a = ((a[..., 2] - a[..., 0]) + one) * ((a[..., 3] - a[..., 1]) + one)
    area_b = ((b[..., 2] - b[..., 0]) + one) * ((b[..., 3] - b[..., 1]) + one)
    union = (area_a + area_b) - inter
    disjoint = (iw <= 0) | (ih <= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ov = inter / np.where(disjoint, one, union)
    return np.where(disjoint, np.float32(-1.0), ov).astype(np.float32)


def _starts(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.int64)
    return np.cumsum(counts) - counts


def positions(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Position of each item inside its group, for items listed group by group (group ids non-decreasing)."""
    group = np.asarray(group, dtype=np.int64)
    counts = np.bincount(group, minlength=n_groups)
    return np.arange(group.size, dtype=np.int64) - _starts(counts)[group]


def ordered_group_sum(values: np.ndarray, group: np.ndarray, pos: np.ndarray, n_groups: int) -> np.ndarray:
    """Per-group sum accumulated in increasing `pos` order, exactly as `s = 0; for x in items: s += x`.

    One vectorized addition per position (items of one group have distinct positions), so the work is
    O(items + largest position), and every group sees the same sequence of float64 additions as the loop.
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros(n_groups, dtype=np.float64)
    if values.size == 0:
        return out
    pos = np.asarray(pos, dtype=np.int64)
    order = np.argsort(pos, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(pos))])
    group = np.asarray(group, dtype=np.int64)
    for k in range(bounds.size - 1):
        idx = order[bounds[k]:bounds[k + 1]]
        if idx.size:
            out[group[idx]] += values[idx]
    return out


def tps_cost_matrices(iou32: np.ndarray, n_gt: np.ndarray, n_pred: np.ndarray) -> np.ndarray:
    """The cost the official code hands to linear_sum_assignment: `1 - iou_matrix`.

    iou32 (F, n, n) float32 with padding already 0.0. When the frame's matrix was already square (n_gt == n_pred)
    it stayed float32, so 1 - iou is rounded to float32; otherwise np.concatenate with the float64 padding made it
    float64 and 1 - iou is float64. Both are then read as float64 by scipy.
    """
    square = (np.asarray(n_gt) == np.asarray(n_pred))[:, None, None]
    c32 = (np.float32(1) - iou32).astype(np.float64)
    c64 = 1.0 - iou32.astype(np.float64)
    return np.where(square, c32, c64)


def match_humans(gt_boxes: np.ndarray, gt_frame: np.ndarray, pred_boxes: np.ndarray, pred_frame: np.ndarray,
                 n_frames: int, thresh: float = HUMAN_IOU) -> Tuple[np.ndarray, np.ndarray]:
    """Per GT human, the index of its matched predicted human, or -1 (match_bboxes of the official code).

    Per frame: the float32 IoU matrix (GT rows x predicted columns, -1.0 for disjoint pairs) is padded with 0.0
    to a square, ONE optimal assignment maximizing total IoU is taken (scipy's linear_sum_assignment on
    1 - IoU, including its tie order), and only assigned real pairs with IoU > thresh (strict, float32) are kept.
    Humans are listed frame by frame (gt_frame and pred_frame non-decreasing). Frames are solved in batches of
    one matrix size. Returns (matched, iou_of_match).
    """
    gt32 = np.asarray(gt_boxes, dtype=np.float32).reshape(-1, 4)
    pr32 = np.asarray(pred_boxes, dtype=np.float32).reshape(-1, 4)
    gt_frame = np.asarray(gt_frame, dtype=np.int64)
    pred_frame = np.asarray(pred_frame, dtype=np.int64)
    n_gt = np.bincount(gt_frame, minlength=n_frames)
    n_pr = np.bincount(pred_frame, minlength=n_frames)
    gt_pos = positions(gt_frame, n_frames)
    pr_pos = positions(pred_frame, n_frames)
    pr_start = _starts(n_pr)
    matched = np.full(gt32.shape[0], -1, dtype=np.int64)
    matched_iou = np.zeros(gt32.shape[0], dtype=np.float32)
    size = np.maximum(n_gt, n_pr)
    live = (n_gt > 0) & (n_pr > 0)
    for n in np.unique(size[live]):
        n = int(n)
        frames = np.flatnonzero(live & (size == n))
        rank = np.full(n_frames, -1, dtype=np.int64)
        rank[frames] = np.arange(frames.size)
        gsel = np.flatnonzero(rank[gt_frame] >= 0)
        psel = np.flatnonzero(rank[pred_frame] >= 0)
        G = np.zeros((frames.size, n, 4), dtype=np.float32)
        P = np.zeros((frames.size, n, 4), dtype=np.float32)
        gf, gr = rank[gt_frame[gsel]], gt_pos[gsel]
        G[gf, gr] = gt32[gsel]
        P[rank[pred_frame[psel]], pr_pos[psel]] = pr32[psel]
        iou = iou_tps_float32(G, P)
        idx = np.arange(n)
        valid = (idx[None, :, None] < n_gt[frames][:, None, None]) & (idx[None, None, :] < n_pr[frames][:, None, None])
        iou = np.where(valid, iou, np.float32(0.0))
        col = linear_sum_assignment_batch(tps_cost_matrices(iou, n_gt[frames], n_pr[frames]))
        c = col[gf, gr]
        val = iou[gf, gr, c]
        ok = (c < n_pr[frames][gf]) & (val > thresh)
        matched[gsel[ok]] = pr_start[frames[gf[ok]]] + c[ok]
        matched_iou[gsel[ok]] = val[ok]
    return matched, matched_iou


def part_correctness(part_human: np.ndarray, part_name: np.ndarray, part_box: np.ndarray, part_verb: np.ndarray,
                     matched: np.ndarray, pp_human: np.ndarray, pp_name: np.ndarray, pp_nverb: np.ndarray,
                     pp_nbox: np.ndarray, pp_box_start: np.ndarray, prop_box: np.ndarray, prop_verb: np.ndarray,
                     thresh: float = PART_IOU, block: int = PART_BLOCK) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Correctness of every GT part (eval_human_TPS).

    For a GT part of a matched GT human: if the matched prediction has a part of that name, N_p = the length of
    its VERB list, and the part is correct when some proposal j (j over the BOX list) has IoU >= thresh with the
    GT part box (float64, +1 pixel, -1.0 when disjoint) and verb j == the GT state; correctness = 1.0 / N_p if
    correct, else 0 (also 0 when N_p == 0, when the part is missing, or when the human is unmatched).
    Names and verbs arrive as integer codes (-1: unknown to the ground truth, never equal).
    Proposal pairs are taken `block` at a time (each pair's IoU is the same float operations either way).
    Returns (value float64, found bool, correct bool) per GT part.
    """
    part_human = np.asarray(part_human, dtype=np.int64)
    n_parts = part_human.size
    value = np.zeros(n_parts, dtype=np.float64)
    found = np.zeros(n_parts, dtype=bool)
    correct = np.zeros(n_parts, dtype=bool)
    pp_human = np.asarray(pp_human, dtype=np.int64)
    if n_parts == 0 or pp_human.size == 0:
        return value, found, correct
    part_name = np.asarray(part_name, dtype=np.int64)
    pp_name = np.asarray(pp_name, dtype=np.int64)
    width = int(max(part_name.max(), pp_name.max())) + 2
    keys = pp_human * width + (pp_name + 1)
    order = np.argsort(keys, kind="stable")
    skeys = keys[order]
    ph = matched[part_human]
    q = np.full(n_parts, -1, dtype=np.int64)
    asked = np.flatnonzero(ph >= 0)
    want = ph[asked] * width + (part_name[asked] + 1)
    at = np.minimum(np.searchsorted(skeys, want), skeys.size - 1)
    hit = skeys[at] == want
    q[asked[hit]] = order[at[hit]]
    found = q >= 0
    gp = np.flatnonzero(found)
    nb = np.asarray(pp_nbox, dtype=np.int64)[q[gp]]
    first = np.asarray(pp_box_start, dtype=np.int64)[q[gp]]
    end = np.cumsum(nb)
    a = np.asarray(part_box, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(prop_box, dtype=np.float64).reshape(-1, 4)
    prop_verb, part_verb = np.asarray(prop_verb), np.asarray(part_verb)
    correct = np.zeros(n_parts, dtype=bool)
    i = 0
    while i < gp.size:      # GT parts i..j-1: about `block` proposal pairs at a time (at least one part), so memory
        j = max(int(np.searchsorted(end, end[i] - nb[i] + block, side="right")), i + 1)     # stays bounded
        owner = np.repeat(gp[i:j], nb[i:j])                     # GT part of each proposal pair
        prop = np.arange(owner.size) + np.repeat(first[i:j] - _starts(nb[i:j]), nb[i:j])
        same = prop_verb[prop] == part_verb[owner]              # only these pairs can make the part correct
        owner, prop = owner[same], prop[same]
        iou = iou_columns_plus1(*[a[owner, k] for k in range(4)], *[b[prop, k] for k in range(4)], disjoint=-1.0)
        correct[owner[iou >= thresh]] = True
        i = j
    nverb = np.asarray(pp_nverb, dtype=np.int64)[np.maximum(q, 0)]
    with np.errstate(divide="ignore"):
        value = np.where(correct, 1.0 / np.where(correct, nverb, 1), 0.0)
    return value, found, correct


def frame_and_video_psc(part_value: np.ndarray, part_human: np.ndarray, human_frame: np.ndarray,
                        frame_video: np.ndarray, frame_has_pred: np.ndarray, n_videos: int
                        ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Frame PSC (pooled) and video PSC with the official frame bookkeeping (eval_video_TPS).

    Frames arrive already restricted to those with at least one GT human (frames without GT humans leave the
    video's count). Frame PSC = (sum over the frame's GT humans of the sum over their parts of correctness) /
    (number of GT parts of all its GT humans). A frame missing from the prediction counts as 0 and stays in the
    count, even when its humans have no parts; a predicted frame whose GT humans have no parts at all leaves the
    count. Video PSC = (sum of frame PSCs, frame order) / counted frames, or 1.0 when no frame is counted.
    Returns (frame_psc, frame_counted, frame_part_count, video_psc, video_frames).
    """
    human_frame = np.asarray(human_frame, dtype=np.int64)
    frame_video = np.asarray(frame_video, dtype=np.int64)
    n_humans, n_frames = human_frame.size, frame_video.size
    part_human = np.asarray(part_human, dtype=np.int64)
    human_sum = ordered_group_sum(part_value, part_human, positions(part_human, n_humans), n_humans)
    frame_sum = ordered_group_sum(human_sum, human_frame, positions(human_frame, n_frames), n_frames)
    count = np.bincount(human_frame[part_human], minlength=n_frames)
    has_pred = np.asarray(frame_has_pred, dtype=bool)
    scored = has_pred & (count > 0)
    counted = ~has_pred | scored
    frame_psc = np.zeros(n_frames, dtype=np.float64)
    frame_psc[scored] = frame_sum[scored] / count[scored]
    video_sum = ordered_group_sum(frame_psc, frame_video, positions(frame_video, n_videos), n_videos)
    video_frames = np.bincount(frame_video[counted], minlength=n_videos)
    video_psc = np.ones(n_videos, dtype=np.float64)
    some = video_frames > 0
    video_psc[some] = video_sum[some] / video_frames[some]
    return frame_psc, counted, count, video_psc, video_frames


def psc_accuracy_curve(video_psc: np.ndarray, class_correct: np.ndarray, steps: int = STEPS
                       ) -> Tuple[np.ndarray, np.ndarray]:
    """acc(t) for t = k/steps, k = 0..steps-1: share of videos with PSC >= t (inclusive) AND the right class.

    cal_pvacc for every threshold at once: one sort and one searchsorted (not one pass per threshold).
    """
    video_psc = np.asarray(video_psc, dtype=np.float64)
    n = video_psc.size
    t = np.arange(steps) / steps
    good = np.sort(video_psc[np.asarray(class_correct, dtype=bool)])
    cnt = good.size - np.searchsorted(good, t, side="left")
    return t, cnt / n


def area_left_riemann(acc: np.ndarray, steps: int = STEPS) -> float:
    """cal_area: `area += 1.0 / steps * acc(t/steps)` for t = 1..steps-1 in that order (t = 0 skipped).

    A left Riemann sum without the t = 1 term, so a perfect submission gets 0.9998999999999062. np.cumsum
    adds sequentially, exactly like the loop (np.sum would add pairwise and differ in the last bits).
    """
    terms = (1.0 / steps) * np.asarray(acc, dtype=np.float64)[1:steps]
    return float(np.cumsum(terms)[-1]) if terms.size else 0.0


def points_lost(video_psc: np.ndarray, class_correct: np.ndarray, steps: int = STEPS) -> Tuple[float, float]:
    """Where the score's area falls short of a perfect submission's (steps - 1) / steps, as (lost to a wrong class,
    lost to a PSC below the threshold), each a share of the videos.

    A video adds 1/(steps * n) to the area for each t = 1..steps-1 with PSC >= t/steps and the right class: a video
    of the wrong class loses all (steps - 1) terms; one of the right class loses the thresholds above its PSC.
    The two add up to (steps - 1) / steps - score up to the rounding of the sums.
    """
    video_psc = np.asarray(video_psc, dtype=np.float64)
    class_correct = np.asarray(class_correct, dtype=bool)
    n = max(video_psc.size, 1)
    t = np.arange(1, steps) / steps
    kept = np.searchsorted(t, video_psc[class_correct], side="right")       # thresholds t <= PSC
    wrong = np.count_nonzero(~class_correct)
    return wrong * (steps - 1) / steps / n, float(np.sum((steps - 1) - kept)) / steps / n


def weighted_area_left_riemann(video_psc: np.ndarray, class_correct: np.ndarray, steps: int = STEPS
                               ) -> Callable[[np.ndarray], np.ndarray]:
    """The score (area_left_riemann of psc_accuracy_curve) on weighted videos, as a function score(weights):
    weights (b, n) -> (b,) float64. A video of weight k counts as k copies of itself, weight 0 removes it:

        acc_w(t) = (sum of the weights of the videos with the right class and PSC >= t) / (sum of all weights)

    and the score is cal_area's left Riemann sum of acc_w over t = 1..steps-1, accumulated in that order (np.cumsum),
    so with every weight 1 it is the official score bit for bit (the weighted counts are sums of whole numbers,
    exact in float64). NaN where every weight is 0 (no video: the original divides by zero). A video's PSC is its
    own (its frames go with it), so only the counts are weighted. The sort and the threshold positions do not
    depend on the weights and are computed here once; score(weights) costs one (b, steps) gather and cumsum.
    """
    video_psc = np.asarray(video_psc, dtype=np.float64)
    good = np.flatnonzero(np.asarray(class_correct, dtype=bool))
    good = good[np.argsort(video_psc[good], kind="stable")]           # right-class videos by ascending PSC
    t = np.arange(steps) / steps
    first = np.searchsorted(video_psc[good], t, side="left")[1:steps]   # per t = 1..steps-1: first video with PSC >= t

    def score(weights):
        weights = np.asarray(weights, dtype=np.float64)
        b = weights.shape[0]
        tail = np.zeros((b, good.size + 1))                               # tail[:, j]: weight of good[j:]
        tail[:, :good.size] = np.cumsum(np.take(weights, good[::-1], axis=1), axis=1)[:, ::-1]
        n = weights.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = tail[:, first] / n[:, None]
        out = np.cumsum((1.0 / steps) * acc, axis=1)[:, -1] if first.size else np.zeros(b)
        out[n == 0] = np.nan
        return out

    return score
