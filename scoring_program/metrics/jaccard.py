"""Frame-level Jaccard index of temporal intervals (ChaLearn LAP 2014 Track 2, ChalearnLAPEvaluation.py).

The original builds one binary vector per action over the frames of a sequence:

    gtLabels[actionID-1, startFrame-1:endFrame-1] = 1      (numpy slice: frames start .. end-1, 1-based)

so the END FRAME IS EXCLUSIVE (start == end marks nothing) and a slice past the end of the vector is cut at the
sequence length. Intervals of the same row are OR-ed. J = |A and B| / |A or B| per row.

Here the masks are built with a difference array: +1 at the first marked frame, -1 one past the last, a cumulative
sum along frames, > 0. No Python loop over intervals or frames.
"""
from __future__ import annotations

import numpy as np

from .segments import expand


CHUNK_ROWS = 1 << 18     # intervals per step of frame_masks: its temporaries stay bounded whatever a file holds


def frame_masks(rows, starts, ends, nrows, nframes) -> np.ndarray:
    """Boolean (nrows, nframes) masks: interval i marks frames starts[i] .. ends[i]-1 (1-based) of row rows[i].

    Intervals are clipped to frames 1..nframes; an interval with end <= start (after clipping) marks nothing.
    Overlapping intervals of the same row are OR-ed. CHUNK_ROWS intervals at a time (the difference array is a
    sum: the chunks add up to the same counts).
    """
    width = nframes + 1
    size = nrows * width
    diff = np.zeros(size, dtype=np.int64)
    for a in range(0, len(rows), CHUNK_ROWS):
        row = np.asarray(rows[a:a + CHUNK_ROWS], dtype=np.int64)
        # np.minimum/np.maximum rather than np.clip: the same numbers, less overhead on the tiny arrays of a sequence
        s = np.minimum(np.maximum(np.asarray(starts[a:a + CHUNK_ROWS], dtype=np.int64) - 1, 0), nframes)
        e = np.minimum(np.maximum(np.asarray(ends[a:a + CHUNK_ROWS], dtype=np.int64) - 1, 0), nframes)
        keep = e > s
        # +1 at s, -1 at e on a flattened (nrows, nframes + 1) difference array
        base = row[keep] * width
        diff += np.bincount(base + s[keep], minlength=size)[:size]
        diff -= np.bincount(base + e[keep], minlength=size)[:size]
    diff = diff.reshape(nrows, width)
    return np.cumsum(diff[:, :nframes], axis=1) > 0


def jaccard_counts(gt, pred):
    """Per-row |A and B| and |A or B| of two boolean (nrows, nframes) masks, as int64 arrays."""
    inter = np.count_nonzero(gt & pred, axis=1)
    union = np.count_nonzero(gt | pred, axis=1)
    return inter.astype(np.int64), union.astype(np.int64)


def key_rows(keys, pr_keys) -> np.ndarray:
    """The mask row of each prediction key: its index in keys (sorted, unique), or len(keys) (a spare row, thrown
    away) for a key absent from keys. As int16 (keys are at most 22), CHUNK_ROWS at a time."""
    k = keys.size
    out = np.empty(len(pr_keys), dtype=np.int16)
    for a in range(0, len(pr_keys), CHUNK_ROWS):
        part = np.asarray(pr_keys[a:a + CHUNK_ROWS], dtype=np.int64)
        if k:
            pos = np.minimum(np.searchsorted(keys, part), k - 1)
            out[a:a + CHUNK_ROWS] = np.where(keys[pos] == part, pos, k)
        else:
            out[a:a + CHUNK_ROWS] = k
    return out


def key_masks(gt_keys, gt_start, gt_end, pr_keys, pr_start, pr_end, nframes):
    """The frame masks the metric compares: (keys, gt_masks, pr_masks), one row per distinct GT key, sorted.

    gt_keys / pr_keys: integer row keys (an action id, or an (actor, action) code) of each interval. Prediction
    intervals whose key is not a GT key are dropped (the 2014 code only loops over the ground truth's actions).
    gt_masks / pr_masks: boolean (len(keys), nframes), built by frame_masks (clipping, exclusive end, OR).
    """
    return sequence_masks(gt_keys, gt_start, gt_end, pr_keys, pr_start, pr_end, nframes)[:3]


def sequence_masks(gt_keys, gt_start, gt_end, pr_keys, pr_start, pr_end, nframes):
    """key_masks and the number of prediction intervals dropped (their key is not a GT key):
    (keys, gt_masks, pr_masks, dropped).

    A dropped interval is marked on a spare row, thrown away, rather than left out: every interval costs the same
    work whether its key is in the ground truth or not, so the time tells nothing of a sequence's action set.
    """
    gt_keys = np.asarray(gt_keys, dtype=np.int64)
    keys = np.unique(gt_keys)
    k = keys.size
    gt_masks = frame_masks(np.searchsorted(keys, gt_keys), gt_start, gt_end, k, nframes)
    rows = key_rows(keys, pr_keys)
    pr_masks = frame_masks(rows, pr_start, pr_end, k + 1, nframes)[:k]
    return keys, gt_masks, pr_masks, int(np.count_nonzero(rows == k))


def interval_jaccard(gt_keys, gt_start, gt_end, pr_keys, pr_start, pr_end, nframes):
    """Jaccard of every row key present in the ground truth (rows and masks: key_masks).

    Returns (keys, inter, union); J = inter / union where union > 0.
    """
    keys, gt, pr = key_masks(gt_keys, gt_start, gt_end, pr_keys, pr_start, pr_end, nframes)
    inter, union = jaccard_counts(gt, pr)
    return keys, inter, union


def actor_action_keys(actor, action, nactions):
    """The row key of an (actor, action) pair (1-based ids): (actor - 1) * nactions + (action - 1)."""
    return (np.asarray(actor, dtype=np.int64) - 1) * nactions + (np.asarray(action, dtype=np.int64) - 1)


def jaccard_2014(gt_action, gt_start, gt_end, pr_action, pr_start, pr_end, nframes):
    """ChaLearn LAP 2014 Track 2 (3-column ground truth), one sequence.

    The categories scored are those of the ground truth ONLY; a predicted action absent from the ground truth
    is ignored (the seed's prose says it would count as J = 0; the code never looks at it). J per category,
    sequence score = mean J. A GT category whose clipped intervals are empty, with an empty prediction, makes
    the original divide 0 by 0 (NaN): here J = 0 and the row is flagged.

    Returns (actions, J, nan_rows, score); score is 0.0 (and every row flagged) when the GT has no interval.
    """
    return rule_2014(*interval_jaccard(gt_action, gt_start, gt_end, pr_action, pr_start, pr_end, nframes))


def rule_2014(actions, inter, union):
    """jaccard_2014 from the per-action frame counts (inter, union: int64 per action)."""
    nan_rows = union == 0
    j = np.where(nan_rows, 0.0, inter / np.maximum(union, 1).astype(np.float64))
    score = float(j.mean()) if j.size else 0.0
    return actions, j, nan_rows, score


def jaccard_actor(gt_actor, gt_action, gt_start, gt_end, pr_actor, pr_action, pr_start, pr_end, nframes,
                  nactions=11):
    """Actor-aware rule (4-column ground truth), one sequence.

    Frames are indexed per (actor, action): for each actor the actions of that actor's ground truth are scored
    as in the 2014 rule, a pair whose union is empty is skipped, and the sequence score is the mean J over all
    scored (actor, action) pairs. Prediction intervals of a pair absent from the ground truth are ignored.

    Returns (actors, actions, J, skipped, score); J is NaN where skipped; score is 0.0 if every pair is skipped.
    """
    keys, inter, union = interval_jaccard(actor_action_keys(gt_actor, gt_action, nactions), gt_start, gt_end,
                                          actor_action_keys(pr_actor, pr_action, nactions), pr_start, pr_end,
                                          nframes)
    return rule_actor(keys, inter, union, nactions)


def rule_actor(keys, inter, union, nactions=11):
    """jaccard_actor from the per-(actor, action) frame counts (keys: actor_action_keys)."""
    skipped = union == 0
    j = np.where(skipped, np.nan, inter / np.maximum(union, 1).astype(np.float64))
    score = float(np.mean(j[~skipped])) if np.any(~skipped) else 0.0
    return keys // nactions + 1, keys % nactions + 1, j, skipped, score


# ---------------------------------------------------------------- where the points were lost (report only)
def frame_errors(gt_masks, pr_masks):
    """Per row of key_masks: (gt_frames, pr_frames, common) int64 counts. The metric's union is
    gt_frames + pr_frames - common, so J = common / (common + missed + outside) with missed = gt_frames - common
    (GT frames no prediction covers) and outside = pr_frames - common (predicted frames outside every GT interval
    of the row)."""
    common = np.count_nonzero(gt_masks & pr_masks, axis=1).astype(np.int64)
    return (np.count_nonzero(gt_masks, axis=1).astype(np.int64),
            np.count_nonzero(pr_masks, axis=1).astype(np.int64), common)


def mask_runs(masks):
    """The intervals of boolean (rows, nframes) masks: every maximal run of marked frames, in row-major order, as
    (start, end) positions in a flat layout where each row is padded by an unmarked frame on both sides (width
    nframes + 2): runs of different rows never touch, and row = start // (nframes + 2), the 0-based first frame
    = start % (nframes + 2) - 1, end exclusive."""
    rows, n = masks.shape
    padded = np.zeros((rows, n + 2), dtype=np.int8)
    padded[:, 1:-1] = masks
    step = np.diff(padded.ravel())
    return np.flatnonzero(step == 1) + 1, np.flatnonzero(step == -1) + 1


def matched_offsets(gt_masks: np.ndarray, pr_masks: np.ndarray) -> tuple:
    """Start and end offsets of the matched intervals: (row, start_offset, end_offset), one per matched pair.

    Intervals are the runs of the metric's masks (mask_runs: after clipping to the sequence, exclusive end, and
    the OR of one row's intervals, so touching or overlapping rows of one key are one interval). A GT interval
    and a predicted interval of the same row are matched iff they share at least one frame; a GT interval
    overlapping two predicted intervals gives two pairs. start_offset = predicted start - GT start, end_offset =
    predicted end - GT end, in frames (negative: earlier than the GT).

    Vectorized: the runs of each mask set are disjoint and sorted, so the predicted runs overlapping a GT run
    [gs, ge) are a contiguous range, from the first whose end is > gs to the last whose start is < ge.
    """
    width = gt_masks.shape[1] + 2
    gs, ge = mask_runs(gt_masks)
    ps, pe = mask_runs(pr_masks)
    lo = np.searchsorted(pe, gs, side="right")
    hi = np.searchsorted(ps, ge, side="left")
    count = np.maximum(hi - lo, 0)
    g, within = expand(count)
    p = lo[g] + within
    return gs[g] // width, ps[p] - gs[g], pe[p] - ge[g]


# ---------------------------------------------------------------- the ranking score on weighted sequences (bootstrap)
def weighted_mean_jaccard(weights, sequence_scores):
    """mean_jaccard of weighted sequences: (b, n) weights, (n,) sequence scores -> (b,).

    evalAction averages in two steps: action_overlap_csv gives one score per sequence (the mean J over the
    sequence's scored actions, or (actor, action) pairs of both actors pooled: not a mean per actor first), then
    `score += ...; numSamples += 1` over the ground-truth sequences and `score / numSamples`: every sequence counts
    the same, whatever its number of actions, actors or frames. A sequence of weight k is k copies of it, so the
    score is sum(w * s) / sum(w): a weighted mean over sequences, exact (no collapsing). NaN where every weight is
    0 (no sequence: the original divides 0 by 0; a reference without sequences is refused).
    """
    weights = np.asarray(weights, dtype=np.float64)
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (weights @ np.asarray(sequence_scores, dtype=np.float64)) / total
    out[total == 0] = np.nan
    return out
