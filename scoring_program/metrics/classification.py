"""VOCevalcls.m: AP of a ranking of the ground-truth list by submitted confidence."""
from __future__ import annotations

import numpy as np

from .ap import ap_voc2010, pr_curve
from .ranking import stable_descending_order


def voc_cls_ap(confidence, labels):
    """AP (VOCap) of the GT list ranked by `confidence`, as VOCevalcls.m computes it.

    confidence[i] is the score of GT item i (-inf when the result file does not mention it);
    labels[i] is 1 (positive), -1 (negative) or 0 (difficult: neither tp nor fp, still ranked).
    [so,si]=sort(-out) is a stable sort, so ties and -inf items keep GT-list order.
    Returns (ap, rec, prec); ap is None when there is no positive (the devkit would divide by zero).
    """
    labels = np.asarray(labels)
    npos = int(np.count_nonzero(labels > 0))
    order = stable_descending_order(np.asarray(confidence, dtype=np.float64))
    ranked = labels[order]
    rec, prec = pr_curve(ranked > 0, ranked < 0, npos)
    if npos == 0:
        return None, rec, prec
    return ap_voc2010(rec, prec), rec, prec
