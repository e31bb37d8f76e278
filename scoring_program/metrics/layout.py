"""VOCevallayout_pr.m: per-part-class AP of person layouts (VOC2010+ devkits).

Layouts are ranked by descending confidence (stable: ties keep XML order). Only the first layout of each
listed person in that ranking is evaluated; a layout of a person that is not in the list, or a later layout of
a person already seen, is skipped (the caller reports it). Inside a layout, predicted parts are taken in XML
order; a part's candidate is the GT part of the same class of that person with the largest +1-pixel overlap
(first on ties). It is a TP iff overlap >= 0.5 and no earlier part of THIS layout took that GT part; otherwise
an FP (no fallback: two predicted hands on one true hand give one TP and one FP). A part class absent from the
person's GT makes every such predicted part an FP. Each part carries its layout's confidence, so the ranked
list of a class is its parts in layout order. AP per class is VOCap.

Because a person has at most one evaluated layout, "taken by an earlier part of this layout" is the detection
rule "first claimant" with the person as the group: the matching reuses metrics.detection.match_ranked.
"""
from __future__ import annotations

import numpy as np

from .ap import ap_voc2010, pr_curve
from .detection import match_ranked
from .ranking import stable_descending_order


def select_layouts(person, confidence):
    """Rank layouts and keep the first of each listed person.

    person[i]: index of the listed person of layout i, or -1 when (image, object) is not in the list.
    Returns (kept: layout indices in rank order, unknown: layout indices with person -1 (XML order),
    repeated: layout indices skipped because their person already had a better-ranked layout (XML order)).
    """
    person = np.asarray(person, dtype=np.int64)
    order = stable_descending_order(np.asarray(confidence, dtype=np.float64))
    known = order[person[order] >= 0]
    _, first = np.unique(person[known], return_index=True)
    keep_mask = np.zeros(known.size, dtype=bool)
    keep_mask[first] = True
    kept = known[keep_mask]
    unknown = np.flatnonzero(person < 0)
    repeated = np.sort(known[~keep_mask])
    return kept, unknown, repeated


def voc_layout_ap(kept, layout_person, part_layout, part_class, part_box, gt_person, gt_class, gt_box,
                  npersons, nclasses=3, min_overlap=0.5):
    """Per part class (ap or None, rec, prec, tp, fp) for the ranked, deduplicated layouts `kept`.

    Parts of a layout not in `kept` are ignored. GT parts: gt_person (listed person index), gt_class, gt_box,
    in XML order within each person. ap is None when the class has no GT part (np = 0).
    """
    kept = np.asarray(kept, dtype=np.int64)
    part_layout = np.asarray(part_layout, dtype=np.int64)
    rank_of_layout = np.full(np.asarray(layout_person).size, -1, dtype=np.int64)
    rank_of_layout[kept] = np.arange(kept.size)
    prank = rank_of_layout[part_layout] if part_layout.size else part_layout
    sel = np.flatnonzero(prank >= 0)
    # parts in layout rank order, XML order inside a layout (stable)
    sel = sel[np.argsort(prank[sel], kind="stable")]
    person = np.asarray(layout_person, dtype=np.int64)[part_layout[sel]]
    pclass = np.asarray(part_class, dtype=np.int64)[sel]
    pbox = np.asarray(part_box, dtype=np.float64).reshape(-1, 4)[sel]
    gt_person = np.asarray(gt_person, dtype=np.int64)
    gt_class = np.asarray(gt_class, dtype=np.int64)
    gt_box = np.asarray(gt_box, dtype=np.float64).reshape(-1, 4)
    out = []
    for c in range(nclasses):
        m = pclass == c
        g = gt_class == c
        npos = int(np.count_nonzero(g))
        tp, fp = match_ranked(person[m], pbox[m], gt_person[g], gt_box[g], np.zeros(npos, dtype=bool),
                              max(int(npersons), 1), min_overlap)
        rec, prec = pr_curve(tp, fp, npos)
        out.append((None if npos == 0 else ap_voc2010(rec, prec), rec, prec, tp, fp))
    return out
