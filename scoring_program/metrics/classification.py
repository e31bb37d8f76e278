"""VOCevalcls.m: AP of a ranking of the ground-truth list by submitted confidence, and where that AP was lost."""
from __future__ import annotations

import numpy as np

from .ap import ap_voc2010, pr_curve
from .ranking import stable_descending_order


def voc_cls_ranking(confidence, labels):
    """The ranking VOCevalcls.m scores: (order, rec, prec, npos).

    order: the GT-list indices in rank order ([so,si]=sort(-out), a stable sort: ties and -inf items keep GT-list
    order); rec, prec: cumulated down that ranking (label 1 a tp, -1 a fp, 0 neither but still ranked);
    npos: the number of label-1 items.
    """
    labels = np.asarray(labels)
    npos = int(np.count_nonzero(labels > 0))
    order = stable_descending_order(np.asarray(confidence, dtype=np.float64))
    ranked = labels[order]
    rec, prec = pr_curve(ranked > 0, ranked < 0, npos)
    return order, rec, prec, npos


def voc_cls_ap(confidence, labels):
    """AP (VOCap) of the GT list ranked by `confidence`, as VOCevalcls.m computes it.

    confidence[i] is the score of GT item i (-inf when the result file does not mention it);
    labels[i] is 1 (positive), -1 (negative) or 0 (difficult: neither tp nor fp, still ranked).
    [so,si]=sort(-out) is a stable sort, so ties and -inf items keep GT-list order.
    Returns (ap, rec, prec); ap is None when there is no positive (the devkit would divide by zero).
    """
    _, rec, prec, npos = voc_cls_ranking(confidence, labels)
    if npos == 0:
        return None, rec, prec
    return ap_voc2010(rec, prec), rec, prec


def interpolated_precision_at(rec, prec, recall=0.5) -> float:
    """The precision of VOCap.m's envelope at `recall`: the largest precision at any rank whose recall is >= recall
    (NaN precisions, 0/0 before the first counted item, ignored as MATLAB's max ignores them); 0 when no rank
    reaches that recall (VOCap's sentinel recall 1 / precision 0). With recall 0.5 this is the report's "precision
    at 50% recall": the best precision a cut-off of the ranking achieves once it holds half of the positives."""
    rec = np.asarray(rec, dtype=np.float64)
    prec = np.asarray(prec, dtype=np.float64)
    reached = prec[(rec >= recall) & ~np.isnan(prec)]
    return float(reached.max()) if reached.size else 0.0


def ap_split_at(rec, prec, recall=0.5):
    """VOCap's AP cut in two at `recall`: (area of the envelope over recall [0, recall], area over [recall, 1]);
    the two add up to ap_voc2010(rec, prec) (up to rounding).

    The envelope on [0, recall] only sees the points beyond `recall` through their best precision, so it is the
    envelope of the points below `recall` plus one point (recall, interpolated_precision_at(recall)); VOCap's
    sentinel recall 1 / precision 0 then adds nothing beyond `recall`.
    """
    rec = np.asarray(rec, dtype=np.float64)
    prec = np.asarray(prec, dtype=np.float64)
    below = rec < recall
    head = ap_voc2010(np.append(rec[below], recall), np.append(prec[below], interpolated_precision_at(rec, prec,
                                                                                                       recall)))
    return head, ap_voc2010(rec, prec) - head
