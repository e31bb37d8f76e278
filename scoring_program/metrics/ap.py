"""Average precision variants, each named for its original.

ap_voc2010 -- VOCap.m of the VOC2010+ devkits ("all points", precision envelope, recall 0 and 1 sentinels).
ap_trapezoid_raw -- ACT's frameAP/videoAP: trapezoid rule on the raw PR points starting at (0, 1).
"""
from __future__ import annotations

import numpy as np


def pr_curve(tp, fp, npos):
    """Cumulative precision/recall from per-rank tp/fp indicators (VOCevalcls.m / VOCevaldet.m).

    tp, fp: boolean or 0/1 arrays in rank order; a rank with neither (difficult) still takes a position.
    Returns (rec, prec) as float64 arrays; rec = cumtp / npos, prec = cumtp / (cumtp + cumfp).
    Where cumtp + cumfp == 0 (only ignored items so far) precision is NaN exactly as MATLAB's 0/0; VOCap's
    envelope (max with NaN) then behaves as MATLAB's max, which ignores NaN: see ap_voc2010.
    """
    tp = np.cumsum(np.asarray(tp, dtype=np.float64))
    fp = np.cumsum(np.asarray(fp, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        rec = tp / float(npos) if npos > 0 else np.zeros_like(tp)
        prec = tp / (tp + fp)
    return rec, prec


def ap_voc2010(rec, prec) -> float:
    """VOCap.m (VOC2010 and later devkits):

        mrec=[0 ; rec ; 1]; mpre=[0 ; prec ; 0];
        for i=numel(mpre)-1:-1:1, mpre(i)=max(mpre(i),mpre(i+1)); end
        i=find(mrec(2:end)~=mrec(1:end-1))+1;
        ap=sum((mrec(i)-mrec(i-1)).*mpre(i));

    MATLAB's max(a, b) ignores NaN (returns the other operand), so a NaN precision (0/0 before the first
    counted item) is replaced by the envelope from the right; np.fmax has the same rule.
    """
    rec = np.asarray(rec, dtype=np.float64)
    prec = np.asarray(prec, dtype=np.float64)
    mrec = np.concatenate(([0.0], rec, [1.0]))
    mpre = np.concatenate(([0.0], prec, [0.0]))
    # right-to-left running maximum == reversed cumulative fmax
    mpre = np.fmax.accumulate(mpre[::-1])[::-1]
    i = np.flatnonzero(mrec[1:] != mrec[:-1]) + 1
    ap = float(np.sum((mrec[i] - mrec[i - 1]) * mpre[i]))
    if ap != ap:  # all precision NaN: cannot happen with the sentinel 0, kept for safety
        return 0.0
    return ap


def ap_trapezoid_raw(rec, prec) -> float:
    """ACT frameAP/videoAP: pr = [[1, 0]] + points; ap = sum((r_i - r_{i-1}) * (p_i + p_{i-1}) / 2)."""
    rec = np.concatenate(([0.0], np.asarray(rec, dtype=np.float64)))
    prec = np.concatenate(([1.0], np.asarray(prec, dtype=np.float64)))
    if rec.size < 2:
        return 0.0
    return float(np.sum((rec[1:] - rec[:-1]) * (prec[1:] + prec[:-1]) / 2.0))
