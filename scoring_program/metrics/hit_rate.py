"""ChaLearn LAP 2014 Track 1 (multi-limb pose): per-limb Jaccard and hit rate over limb panoramas.

The rule is the one of the starting kit's ChalearnLAPEvaluation.py (evalPose, getLimbPanoramic, overlap_images),
which is what the Codalab platform computed; where it differs from the challenge page's prose, the code wins:

- A panorama is 14 limb masks side by side, 480 columns each. getLimbPanoramic takes
  `im[:, (n-1)*480 : (n-1)*480 + 479]`: 479 columns, the LAST column of every 480-px block is ignored.
- A limb is evaluated iff its ground-truth slice has any non-zero pixel (`count_nonzero >= 1`, on the 8-bit
  luminance, BEFORE binarization): a slice holding only values 1..127 is evaluated but can never be hit.
- Both slices are binarized with `value > 127`; J = |A and B| / |A or B|, 0 when the union is empty.
- A hit iff J > 0.5, STRICTLY (the prose says >= 0.5). Tested here with integers: 2 * |A and B| > |A or B|.
- Predictions on limbs that are empty in the ground truth never count (they are not evaluated).

Arrays in, numbers out: images are 2-D uint8 luminance arrays of shape (H, 14 * 480), any height H.
"""
from __future__ import annotations

import numpy as np

N_LIMBS = 14
LIMB_STRIDE = 480          # width of one limb block in the panorama
LIMB_COLUMNS = 479         # columns of a block that are scored (getLimbPanoramic's endcol = startcol + 479)
PANORAMA_WIDTH = N_LIMBS * LIMB_STRIDE
THRESHOLD = 127            # binarization: value > 127


def _per_limb_columns(column_values, reduce):
    """(6720,) per-column values -> (14,) per-limb values over the 479 scored columns of each block."""
    return reduce(column_values.reshape(N_LIMBS, LIMB_STRIDE)[:, :LIMB_COLUMNS], axis=1)


def _check(img, name):
    if img.ndim != 2 or img.shape[1] != PANORAMA_WIDTH or img.dtype != np.uint8:
        raise ValueError("%s must be a uint8 array of shape (H, %d), got %s %s"
                         % (name, PANORAMA_WIDTH, img.dtype, img.shape))


def evaluated_limbs(gt):
    """(14,) bool: limb n is evaluated iff its GT slice (479 columns) has a non-zero pixel (before binarization)."""
    gt = np.asarray(gt)
    _check(gt, "gt")
    if gt.shape[0] == 0:
        return np.zeros(N_LIMBS, dtype=bool)
    return _per_limb_columns(gt.max(axis=0), np.max) > 0


def limb_overlaps(gt, pred):
    """Per-limb (evaluated, intersection, union) pixel counts of one GT/prediction panorama pair.

    evaluated: (14,) bool (see evaluated_limbs); intersection / union: (14,) int64 counts of the binarized
    (> 127) slices, restricted to the 479 scored columns of each limb. Vectorized over the 14 slices: one pass
    per mask over the pixels, column sums, then a (14, 480) reshape.
    """
    gt = np.asarray(gt)
    pred = np.asarray(pred)
    _check(gt, "gt")
    _check(pred, "pred")
    if gt.shape != pred.shape:
        raise ValueError("gt and pred shapes differ: %s vs %s" % (gt.shape, pred.shape))
    evaluated = evaluated_limbs(gt)
    gb = (gt > THRESHOLD).view(np.uint8)
    pb = (pred > THRESHOLD).view(np.uint8)
    inter_cols = np.add.reduce(gb & pb, axis=0, dtype=np.int64)
    union_cols = np.add.reduce(gb | pb, axis=0, dtype=np.int64)
    return evaluated, _per_limb_columns(inter_cols, np.sum), _per_limb_columns(union_cols, np.sum)


def jaccard(intersection, union):
    """J = intersection / union, 0 where the union is empty (overlap_images)."""
    intersection = np.asarray(intersection, dtype=np.float64)
    union = np.asarray(union, dtype=np.float64)
    out = np.zeros(np.broadcast(intersection, union).shape)
    np.divide(intersection, union, out=out, where=union > 0)
    return out


def is_hit(intersection, union, threshold_num=1, threshold_den=2):
    """J > num/den STRICTLY, in exact integer arithmetic: den * |A and B| > num * |A or B| (an empty union is
    J = 0: never a hit for a non-negative threshold). Default 1/2: the original's `J > 0.5`."""
    intersection = np.asarray(intersection, dtype=np.int64)
    union = np.asarray(union, dtype=np.int64)
    return threshold_den * intersection > threshold_num * union


def limb_hits(gt, pred):
    """(evaluated, hit) (14,) bool each, hit only where evaluated: the per-panorama rule of evalPose."""
    evaluated, inter, union = limb_overlaps(gt, pred)
    return evaluated, evaluated & is_hit(inter, union)


def hit_rate(hits, evaluations):
    """Pooled hit rate hits / evaluations; None when nothing was evaluated (the original divides by zero)."""
    hits = int(np.sum(hits))
    evaluations = int(np.sum(evaluations))
    if evaluations == 0:
        return None
    return hits / float(evaluations)


def weighted_hit_rate(weights, hits, evaluations):
    """mean_hit_rate of weighted panoramas: (b, n) weights, (n,) per-panorama hits and evaluations -> (b,).

    evalPose pools `score += hit; nevals += 1` over every panorama, so a panorama of weight k is k copies of it:
    sum(w * hits) / sum(w * evaluations), exact. Where the weighted evaluations are 0 but some panorama has
    weight > 0, 0 (as hit_rate's None is written: no limb evaluated); NaN where every weight is 0 (no panorama).
    """
    weights = np.asarray(weights, dtype=np.float64)
    total = weights @ np.asarray(evaluations, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (weights @ np.asarray(hits, dtype=np.float64)) / total
    out[total == 0] = 0.0
    out[weights.sum(axis=1) == 0] = np.nan
    return out
