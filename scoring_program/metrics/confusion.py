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


def joint_histogram(gt, pred, nclasses) -> np.ndarray:
    """(256, nclasses) int64 counts of (gt value, predicted value) pixel pairs of one image.

    gt: uint8 array, any value 0..255; pred: same shape, values 0..nclasses-1 (the caller checks this first:
    a larger value would be counted in the wrong cell). One bincount of ``nclasses*gt + pred``: rows 0..nclasses-1
    are the confusion counts, row 255 the void pixels, other rows ground-truth values that are not labels.
    """
    code = np.asarray(gt).astype(np.intp).ravel()
    code *= nclasses
    code += np.asarray(pred).ravel()
    return np.bincount(code, minlength=256 * nclasses).reshape(256, nclasses)


def confusion_matrix(gt, pred, nclasses) -> np.ndarray:
    """(nclasses, nclasses) counts, rows = ground truth, columns = prediction, of one image.

    Pixels whose gt is not a label (void 255, or any value >= nclasses) are not counted (VOCevalseg's locs).
    """
    return joint_histogram(gt, pred, nclasses)[:nclasses].copy()


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
