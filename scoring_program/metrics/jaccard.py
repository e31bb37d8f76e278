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


def frame_masks(rows, starts, ends, nrows, nframes) -> np.ndarray:
    """Boolean (nrows, nframes) masks: interval i marks frames starts[i] .. ends[i]-1 (1-based) of row rows[i].

    Intervals are clipped to frames 1..nframes; an interval with end <= start (after clipping) marks nothing.
    Overlapping intervals of the same row are OR-ed.
    """
    rows = np.asarray(rows, dtype=np.int64)
    # np.minimum/np.maximum rather than np.clip: the same numbers, less overhead on the tiny arrays of a sequence
    s = np.minimum(np.maximum(np.asarray(starts, dtype=np.int64) - 1, 0), nframes)
    e = np.minimum(np.maximum(np.asarray(ends, dtype=np.int64) - 1, 0), nframes)
    keep = e > s
    width = nframes + 1
    size = nrows * width
    # +1 at s, -1 at e on a flattened (nrows, nframes + 1) difference array
    base = rows[keep] * width
    diff = np.bincount(base + s[keep], minlength=size) - np.bincount(base + e[keep], minlength=size)
    diff = diff[:size].reshape(nrows, width)
    return np.cumsum(diff[:, :nframes], axis=1) > 0


def jaccard_counts(gt, pred):
    """Per-row |A and B| and |A or B| of two boolean (nrows, nframes) masks, as int64 arrays."""
    inter = np.count_nonzero(gt & pred, axis=1)
    union = np.count_nonzero(gt | pred, axis=1)
    return inter.astype(np.int64), union.astype(np.int64)


def interval_jaccard(gt_keys, gt_start, gt_end, pr_keys, pr_start, pr_end, nframes):
    """Jaccard of every row key present in the ground truth.

    gt_keys / pr_keys: integer row keys (an action id, or an (actor, action) code) of each interval. Rows are the
    distinct GT keys, sorted; prediction intervals whose key is not a GT key are dropped (the 2014 code only
    loops over the ground truth's actions). Returns (keys, inter, union); J = inter / union where union > 0.
    """
    gt_keys = np.asarray(gt_keys, dtype=np.int64)
    pr_keys = np.asarray(pr_keys, dtype=np.int64)
    keys = np.unique(gt_keys)
    k = keys.size
    gt_rows = np.searchsorted(keys, gt_keys)
    if k:
        pos = np.minimum(np.searchsorted(keys, pr_keys), k - 1)
        used = keys[pos] == pr_keys
    else:
        pos = np.zeros(pr_keys.shape, dtype=np.int64)
        used = np.zeros(pr_keys.shape, dtype=bool)
    # one pass for both: GT in rows 0..k-1, prediction in rows k..2k-1
    masks = frame_masks(np.concatenate((gt_rows, pos[used] + k)),
                        np.concatenate((np.asarray(gt_start, dtype=np.int64), np.asarray(pr_start)[used])),
                        np.concatenate((np.asarray(gt_end, dtype=np.int64), np.asarray(pr_end)[used])),
                        2 * k, nframes)
    inter, union = jaccard_counts(masks[:k], masks[k:])
    return keys, inter, union


def jaccard_2014(gt_action, gt_start, gt_end, pr_action, pr_start, pr_end, nframes):
    """ChaLearn LAP 2014 Track 2 (3-column ground truth), one sequence.

    The categories scored are those of the ground truth ONLY; a predicted action absent from the ground truth
    is ignored (the seed's prose says it would count as J = 0; the code never looks at it). J per category,
    sequence score = mean J. A GT category whose clipped intervals are empty, with an empty prediction, makes
    the original divide 0 by 0 (NaN): here J = 0 and the row is flagged.

    Returns (actions, J, nan_rows, score); score is 0.0 (and every row flagged) when the GT has no interval.
    """
    keys, inter, union = interval_jaccard(gt_action, gt_start, gt_end, pr_action, pr_start, pr_end, nframes)
    nan_rows = union == 0
    j = np.where(nan_rows, 0.0, inter / np.maximum(union, 1).astype(np.float64))
    score = float(j.mean()) if j.size else 0.0
    return keys, j, nan_rows, score


def jaccard_actor(gt_actor, gt_action, gt_start, gt_end, pr_actor, pr_action, pr_start, pr_end, nframes,
                  nactions=11):
    """Actor-aware rule (4-column ground truth), one sequence.

    Frames are indexed per (actor, action): for each actor the actions of that actor's ground truth are scored
    as in the 2014 rule, a pair whose union is empty is skipped, and the sequence score is the mean J over all
    scored (actor, action) pairs. Prediction intervals of a pair absent from the ground truth are ignored.

    Returns (actors, actions, J, skipped, score); J is NaN where skipped; score is 0.0 if every pair is skipped.
    """
    gk = (np.asarray(gt_actor, dtype=np.int64) - 1) * nactions + (np.asarray(gt_action, dtype=np.int64) - 1)
    pk = (np.asarray(pr_actor, dtype=np.int64) - 1) * nactions + (np.asarray(pr_action, dtype=np.int64) - 1)
    keys, inter, union = interval_jaccard(gk, gt_start, gt_end, pk, pr_start, pr_end, nframes)
    skipped = union == 0
    j = np.where(skipped, np.nan, inter / np.maximum(union, 1).astype(np.float64))
    score = float(np.mean(j[~skipped])) if np.any(~skipped) else 0.0
    return keys // nactions + 1, keys % nactions + 1, j, skipped, score
