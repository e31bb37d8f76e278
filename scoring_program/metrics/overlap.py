"""Box overlaps with the PASCAL "+1 pixel" convention (inclusive integer corners: width = x2 - x1 + 1)."""
from __future__ import annotations

import numpy as np


def iou_matrix_plus1(a, b, disjoint=0.0):
    """Pairwise IoU of boxes a (N,4) and b (M,4), [x1, y1, x2, y2], +1 pixel convention (VOCevaldet.m):

        iw = min(x2) - max(x1) + 1; ih = min(y2) - max(y1) + 1
        if iw > 0 and ih > 0: ua = (w_a+1)(h_a+1) + (w_b+1)(h_b+1) - iw*ih; ov = iw*ih/ua
        else: `disjoint` (VOC leaves ovmax at -inf, Kinetics-TPS uses -1.0; 0 for plain IoU)

    float64 throughout; returns an (N, M) array.
    """
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    iw = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]) + 1.0
    ih = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]) + 1.0
    inter = iw * ih
    area_a = (a[:, 2] - a[:, 0] + 1.0) * (a[:, 3] - a[:, 1] + 1.0)
    area_b = (b[:, 2] - b[:, 0] + 1.0) * (b[:, 3] - b[:, 1] + 1.0)
    ua = area_a[:, None] + area_b[None, :] - inter
    ok = (iw > 0) & (ih > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ov = np.where(ok, inter / np.where(ok, ua, 1.0), disjoint)
    return ov


def iou_pairs_plus1(a, b, disjoint=0.0):
    """Elementwise IoU of a[i] with b[i] (both (N,4)), same convention as iou_matrix_plus1."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    return iou_columns_plus1(a[:, 0], a[:, 1], a[:, 2], a[:, 3], b[:, 0], b[:, 1], b[:, 2], b[:, 3], disjoint)


def iou_columns_plus1(ax1, ay1, ax2, ay2, bx1, by1, bx2, by2, disjoint=0.0):
    """iou_pairs_plus1 on boxes given as eight coordinate columns (contiguous columns are faster to gather).

    Coordinates near 1e308 overflow to inf and give NaN, as the same float arithmetic does in Python."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        iw = np.minimum(ax2, bx2) - np.maximum(ax1, bx1) + 1.0
        ih = np.minimum(ay2, by2) - np.maximum(ay1, by1) + 1.0
        inter = iw * ih
        ua = (ax2 - ax1 + 1.0) * (ay2 - ay1 + 1.0) + (bx2 - bx1 + 1.0) * (by2 - by1 + 1.0) - inter
        ok = (iw > 0) & (ih > 0)
        return np.where(ok, inter / np.where(ok, ua, 1.0), disjoint)
