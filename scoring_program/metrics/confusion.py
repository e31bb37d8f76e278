"""Pixel confusion matrices and intersection-over-union, as VOCevalseg.m computes them.

VOCevalseg.m, per image:

    locs = gtim<255;                        % void pixels (255) are excluded
    sumim = 1+gtim+resim*num;               % num = 21 classes including background
    hs = histc(sumim(locs),1:num*num);
    confcounts(:) = confcounts(:) + hs(:);  % confcounts(gt+1, res+1): rows = ground truth, columns = result

and at the end, for each class j: ``accuracies(j) = confcounts(j,j) / (rowsum + colsum - confcounts(j,j))``.
"""
from __future__ import annotations

import numpy as np


_S8 = np.uint64(8)
_LOW56 = np.uint64(0x00FFFFFFFFFFFFFF)


def joint_histogram(gt, pred, nclasses) -> np.ndarray:
    """(256, nclasses) int64 counts of (gt value, predicted value) pixel pairs of one image.

    gt: uint8 array, any value 0..255; pred: uint8, same shape, values 0..nclasses-1 (the caller checks this
    first: a larger value would be counted in the wrong cell). Rows 0..nclasses-1 are the confusion counts (rows =
    ground truth, columns = prediction), row 255 the void pixels, other rows ground-truth values that are not
    labels. Equal to ``bincount(nclasses*gt + pred)``, computed faster:

    the pixels are read 8 at a time as uint64 words. A word where gt and pred are equal and all 8 bytes hold one
    value (most of a segmentation: the inside of regions that are labelled right) adds 8 to one diagonal cell, so
    those words are counted with a bincount 8 times shorter; only the other words (borders, errors) are expanded
    to pixels and binned by ``nclasses*gt + pred``.
    """
    g = np.ascontiguousarray(gt, dtype=np.uint8).reshape(-1)
    p = np.ascontiguousarray(pred, dtype=np.uint8).reshape(-1)
    n8 = g.size - g.size % 8
    g64 = g[:n8].view(np.uint64)
    p64 = p[:n8].view(np.uint64)
    uniform = g64 == p64
    uniform &= (g64 >> _S8) == (g64 & _LOW56)          # all 8 bytes equal
    diag = np.bincount(g[:n8:8][uniform], minlength=256)[:nclasses] * 8
    rest = np.flatnonzero(~uniform)
    code = g64[rest].view(np.uint8).astype(np.intp)
    code *= nclasses
    code += p64[rest].view(np.uint8)
    h = np.bincount(code, minlength=256 * nclasses)
    if n8 < g.size:   # the last size % 8 pixels
        h += np.bincount(g[n8:].astype(np.intp) * nclasses + p[n8:], minlength=256 * nclasses)
    h = h.reshape(256, nclasses)
    k = np.arange(nclasses)
    h[k, k] += diag
    return h


def iou_per_class(conf):
    """IoU of each class from a confusion matrix: C[j,j] / (row sum + column sum - C[j,j]).

    Returns a list with None for a class absent from both the ground truth and the predictions (the devkit's
    0/0 = NaN), so that it can be left out of a mean rather than poisoning it.
    """
    conf = np.asarray(conf, dtype=np.float64)
    tp = np.diag(conf)
    denom = conf.sum(axis=1) + conf.sum(axis=0) - tp
    out = []
    for t, d in zip(tp.tolist(), denom.tolist()):
        out.append(None if d == 0 else t / d)
    return out


def mean_iou(ious):
    """Mean over the classes that have an IoU (None entries left out); None when no class has one."""
    vals = [v for v in ious if v is not None]
    return float(np.mean(vals)) if vals else None


def row_normalized_percent(conf) -> np.ndarray:
    """The devkit's displayed ``conf``: 100 * counts / (1e-20 + row sum), each ground-truth row sums to 100."""
    conf = np.asarray(conf, dtype=np.float64)
    return 100.0 * conf / (1e-20 + conf.sum(axis=1, keepdims=True))


# ------------------------------------------------------------------ on weighted images (the bootstrap, issue 13)
def per_image_iou_counts(image_conf) -> np.ndarray:
    """(n, k, k) confusion counts of n images -> (n, 3k) float64: per image, the true positives C[j,j], the
    ground-truth pixels (row sums) and the predicted pixels (column sums) of each class j: all that
    weighted_mean_iou sums."""
    image_conf = np.asarray(image_conf)
    n, k = image_conf.shape[0], image_conf.shape[1]
    tp = image_conf.reshape(n, k * k)[:, ::k + 1]
    return np.concatenate([tp, image_conf.sum(axis=2), image_conf.sum(axis=1)], axis=1).astype(np.float64)


def weighted_mean_iou(weights, counts) -> np.ndarray:
    """mean_iou(iou_per_class(sum over images of weight * confusion counts)) for each row of weights.

    weights: (b, n) non-negative whole numbers (an image of weight w counts w times: the confusion matrix of the set
    with w copies of it); counts: per_image_iou_counts (n, 3k). The sums are exact integers in float64 (below
    2**53), so the IoU is VOCevalseg.m's TP / (TP + FP + FN) of the pooled matrix. A class with no weighted pixel
    in the ground truth or the predictions (0/0) leaves the mean, as iou_per_class/mean_iou; NaN where no class
    is left. Returns (b,).
    """
    weights = np.asarray(weights, dtype=np.float64)
    k = counts.shape[1] // 3
    total = weights @ counts                                  # (b, 3k)
    tp, gt, pred = total[:, :k], total[:, k:2 * k], total[:, 2 * k:]
    denom = gt + pred - tp
    scored = denom > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = np.where(scored, tp / np.where(scored, denom, 1.0), 0.0)
        out = iou.sum(axis=1) / scored.sum(axis=1)
    out[~scored.any(axis=1)] = np.nan
    return out
