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
layout_errors sorts every part of the same matching into why it did or did not count (the report's "Where the
points were lost").
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .ap import ap_voc2010, pr_curve
from .bootstrap import vocap_at_true_positives
from .detection import best_candidates, match_ranked
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


def ranked_parts(kept, layout_person, part_layout, part_class, part_box):
    """(person, class, box) of the parts of the layouts `kept` (in rank order), in layout rank order and XML order
    inside a layout (stable): the order of each class's ranked list. Parts of other layouts are left out."""
    kept = np.asarray(kept, dtype=np.int64)
    part_layout = np.asarray(part_layout, dtype=np.int64)
    rank_of_layout = np.full(np.asarray(layout_person).size, -1, dtype=np.int64)
    rank_of_layout[kept] = np.arange(kept.size)
    prank = rank_of_layout[part_layout] if part_layout.size else part_layout
    sel = np.flatnonzero(prank >= 0)
    sel = sel[np.argsort(prank[sel], kind="stable")]
    person = np.asarray(layout_person, dtype=np.int64)[part_layout[sel]]
    pclass = np.asarray(part_class, dtype=np.int64)[sel]
    pbox = np.asarray(part_box, dtype=np.float64).reshape(-1, 4)[sel]
    return person, pclass, pbox


def voc_layout_ap(kept, layout_person, part_layout, part_class, part_box, gt_person, gt_class, gt_box,
                  npersons, nclasses=3, min_overlap=0.5):
    """Per part class (ap or None, rec, prec, tp, fp) for the ranked, deduplicated layouts `kept`.

    Parts of a layout not in `kept` are ignored. GT parts: gt_person (listed person index), gt_class, gt_box,
    in XML order within each person. ap is None when the class has no GT part (np = 0).
    """
    person, pclass, pbox = ranked_parts(kept, layout_person, part_layout, part_class, part_box)
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


class PartErrors(NamedTuple):
    """Where one part class lost points, by the metric's own matching (voc_layout_ap).

    Predicted parts (of the evaluated layouts): predicted = tp + fp_no_gt_part + fp_overlap + fp_taken, where
    fp_no_gt_part: the person has no GT part of this class; fp_overlap: the best +1-pixel overlap with the person's
    GT parts of the class is below 0.5 (or none overlaps); fp_taken: the overlap is >= 0.5 but an earlier part of
    the same layout took that GT part (no fallback). GT parts: gt = tp + missed_no_layout + missed_in_layout, where
    missed_no_layout: the person has no evaluated layout; missed_in_layout: it has one, which did not match the
    part. Persons with an evaluated layout (persons_with_layout): those that have more predicted parts of the
    class than GT parts (too_many) and fewer (too_few).
    """
    predicted: int
    tp: int
    fp_no_gt_part: int
    fp_overlap: int
    fp_taken: int
    gt: int
    missed_no_layout: int
    missed_in_layout: int
    persons_with_layout: int
    too_many: int
    too_few: int


class PersonCounts(NamedTuple):
    """(npersons, nclasses) counts per listed person and part class; layout: index of its evaluated layout or
    -1."""
    gt: np.ndarray
    predicted: np.ndarray
    tp: np.ndarray
    layout: np.ndarray


def layout_errors(kept, layout_person, part_layout, part_class, part_box, gt_person, gt_class, gt_box,
                  npersons, nclasses=3, min_overlap=0.5):
    """([PartErrors per class], PersonCounts) for the ranked, deduplicated layouts `kept`, with the matching of
    voc_layout_ap (match_ranked for the TPs, best_candidates for the overlap of the FPs)."""
    npersons = int(npersons)
    layout_person = np.asarray(layout_person, dtype=np.int64)
    person, pclass, pbox = ranked_parts(kept, layout_person, part_layout, part_class, part_box)
    gt_person = np.asarray(gt_person, dtype=np.int64)
    gt_class = np.asarray(gt_class, dtype=np.int64)
    gt_box = np.asarray(gt_box, dtype=np.float64).reshape(-1, 4)
    layout = np.full(npersons, -1, dtype=np.int64)
    kept = np.asarray(kept, dtype=np.int64)
    layout[layout_person[kept]] = kept
    covered = layout >= 0
    size = npersons * nclasses
    gt_count = np.bincount(gt_person * nclasses + gt_class, minlength=size).reshape(npersons, nclasses)
    pred_count = np.bincount(person * nclasses + pclass, minlength=size).reshape(npersons, nclasses)
    tp_count = np.zeros((npersons, nclasses), dtype=np.int64)
    out = []
    for c in range(nclasses):
        m = pclass == c
        g = gt_class == c
        ngroups = max(npersons, 1)
        tp, _ = match_ranked(person[m], pbox[m], gt_person[g], gt_box[g], np.zeros(int(g.sum()), dtype=bool),
                             ngroups, min_overlap)
        _, ovmax = best_candidates(person[m], pbox[m], gt_person[g], gt_box[g], ngroups)
        tp_count[:, c] = np.bincount(person[m][tp], minlength=npersons)
        no_part = gt_count[person[m], c] == 0
        hit = ovmax >= min_overlap
        missed_no_layout = int(np.count_nonzero(~covered[gt_person[g]]))
        ntp = int(np.count_nonzero(tp))
        out.append(PartErrors(
            predicted=int(np.count_nonzero(m)), tp=ntp, fp_no_gt_part=int(np.count_nonzero(no_part)),
            fp_overlap=int(np.count_nonzero(~no_part & ~hit)), fp_taken=int(np.count_nonzero(hit & ~tp)),
            gt=int(np.count_nonzero(g)), missed_no_layout=missed_no_layout,
            missed_in_layout=int(np.count_nonzero(g)) - ntp - missed_no_layout,
            persons_with_layout=int(np.count_nonzero(covered)),
            too_many=int(np.count_nonzero(covered & (pred_count[:, c] > gt_count[:, c]))),
            too_few=int(np.count_nonzero(covered & (pred_count[:, c] < gt_count[:, c])))))
    return out, PersonCounts(gt_count, pred_count, tp_count, layout)


# ------------------------------------------------------------------ on weighted persons (the bootstrap, issue 13)
def weighted_ap_voc2010_rows(rows, tp, total_pos):
    """VOCap.m's AP of a ranked list of weighted entries, for each column: rows (m, b) the weight of each entry
    (in rank order: an entry of weight k is k adjacent copies of it), tp (m,) bool its kind (a true positive, else
    a false positive), total_pos (b,) the weighted positives. Returns (b,), NaN where total_pos is 0.

    Computed on runs (consecutive true positives): along a run precision never falls, so the precision envelope is
    the same at every entry of the run (the precision at its end, or a later one), and the run adds its weight times
    that envelope over npos; false positives only move the count of entries seen. A run of weight 0 adds nothing,
    and the precision at its end (that after the last entry of weight) is at most the precision at the last true
    positive before it, so it never raises the envelope of earlier ones (as metrics.bootstrap.weighted_ap_voc2010).
    """
    total_pos = np.asarray(total_pos, dtype=np.float64)
    tp = np.asarray(tp, dtype=bool)
    if not tp.any():
        empty = np.zeros((total_pos.shape[0], 0))
        return vocap_at_true_positives(empty, empty, total_pos)
    edge = np.diff(np.concatenate(([False], tp, [False])).astype(np.int8))
    first, last = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1) - 1       # each run of true positives
    seen = np.cumsum(rows, axis=0)                    # entries up to and including each one (exact integers)
    wtp = seen[last] - np.where((first > 0)[:, None], seen[np.maximum(first - 1, 0)], 0.0)
    return vocap_at_true_positives(wtp.T, seen[last].T, total_pos)


class WeightedLayoutAP(object):
    """VOCap of one part class on weighted persons: a person of weight k counts as k copies of the person (its GT
    parts and its evaluated layout), 0 as the person left out of the list (its layouts then skipped as unknown).

    person, tp, fp: the class's ranked parts (voc_layout_ap's order: layout rank, then XML order inside a layout)
    with the listed person of each; npos: (npersons,) the person's GT parts of the class. The parts of one person
    are consecutive (one evaluated layout per person: a block).

    Where the copies go: a copy of a layout has the same confidence, and ties keep file order, so a copy written
    right after its original is ranked right after it: the block is repeated whole, (a b)(a b), not part by part
    (a a)(b b) as metrics.bootstrap.weighted_ap_voc2010 repeats entries. The two agree when the block's parts are
    all true or all false positives; they differ for a mixed block (a person's two hands, one right, one wrong), so
    the parts of mixed blocks are expanded into copies: copy r of a person of weight w is there (weight 1) iff
    w > r, and copies no row of the weights reaches are not made. Every other part stays one entry weighted by its
    person (weighted_ap_voc2010_rows). The result is
    VOCap on the list with the copies, exactly (tested against the scorer on duplicated persons).
    """

    def __init__(self, person, tp, fp, npos):
        person = np.asarray(person, dtype=np.intp)
        tp = np.asarray(tp, dtype=bool)
        if np.unique(person).size != np.count_nonzero(np.diff(person)) + min(person.size, 1):
            raise ValueError("the parts of one person must be consecutive in the ranking")
        counted = np.flatnonzero(tp | np.asarray(fp, dtype=bool))        # an entry that is neither never counts
        person, tp = person[counted], tp[counted]
        first = np.concatenate(([True], person[1:] != person[:-1]))[:person.size]
        starts = np.flatnonzero(first)
        block = np.cumsum(first) - 1                                       # block (person run) of each part
        mixed_block = (np.minimum.reduceat(tp, starts) != np.maximum.reduceat(tp, starts)) if starts.size \
            else np.zeros(0, dtype=bool)
        # what follows the block of the last true positive never counts (inside it, it does: between copies)
        end = np.flatnonzero(block == block[np.flatnonzero(tp)[-1]])[-1] + 1 if tp.any() else 0
        self.person, self.tp, self.block = person[:end], tp[:end], block[:end]
        self.mixed = mixed_block[self.block]
        self.mixed_at = np.flatnonzero(self.mixed)
        self.npos = np.asarray(npos, dtype=np.float64)

    def __call__(self, weights):
        """(b, npersons) weights -> (b,) AP, NaN where the weighted GT parts are 0."""
        weights = np.asarray(weights, dtype=np.float64)
        total_pos = weights @ self.npos
        by_person = np.ascontiguousarray(weights.T)                          # (npersons, b): rows gather fast
        rows = by_person[self.person]                                        # (m, b), one entry per part
        tp = self.tp
        if self.mixed_at.size:
            mixed_weights = rows[self.mixed_at]
            rows[self.mixed_at] = mixed_weights > 0                          # copy 0 of a mixed block
            reach = mixed_weights.max(axis=1) if mixed_weights.shape[1] else np.zeros(self.mixed_at.size)
            extra = [(r, self.mixed_at[reach > r]) for r in range(1, int(reach.max()))]
            if extra:                 # copies 1, 2, ... of the mixed blocks, each right after the one before
                entry = np.concatenate([np.arange(self.tp.size)] + [at for _, at in extra])
                copy = np.concatenate([np.zeros(self.tp.size, dtype=np.intp)]
                                      + [np.full(at.size, r, dtype=np.intp) for r, at in extra])
                order = np.lexsort((entry, copy, self.block[entry]))
                rows = np.concatenate([rows] + [mixed_weights[reach > r] > r for r, _ in extra])[order]
                tp = self.tp[entry[order]]
        return weighted_ap_voc2010_rows(rows, tp, total_pos)
