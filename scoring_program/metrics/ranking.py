"""Ranking helpers shared by every AP-style metric."""
from __future__ import annotations

import numpy as np


def stable_descending_order(scores) -> np.ndarray:
    """Indices that sort `scores` by descending value, ties kept in input order.

    MATLAB's ``[~, si] = sort(-x)`` (VOCevalcls.m, VOCevaldet.m) is stable, and so is this. Never use
    ``np.argsort(x)[::-1]``: it reverses the order of ties. -inf entries sort last, in input order.
    """
    s = np.asarray(scores)
    return np.argsort(-s, kind="stable")


def rank_of(order) -> np.ndarray:
    """Each item's place in `order`, the inverse permutation: rank_of(order)[order[k]] == k (int64)."""
    order = np.asarray(order)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank


def kept_index(keep) -> np.ndarray:
    """For a bool mask over elements, each element's index among the kept ones (0, 1, ... in order), -1 for a
    dropped one (int64): maps an index array into the old elements onto the kept ones."""
    keep = np.asarray(keep, dtype=bool)
    index = np.full(keep.size, -1, dtype=np.int64)
    index[keep] = np.arange(int(np.count_nonzero(keep)))
    return index


def class_then_descending_order(classes, scores32) -> np.ndarray:
    """``np.lexsort((np.arange(n), -scores32, classes))``: by class, then by descending float32 score, ties in
    input order; computed as ONE stable argsort of an int64 key (class in the high 32 bits, the score's bits mapped
    to an order-preserving unsigned integer in the low 32), 2-3x faster than lexsort (numpy 1.17's lexsort on a
    float32 key is the slowest step of action-tubes frame-AP on codalab-legacy:py37).

    classes: integers in [0, 2**31); scores32: finite float32 (-0.0 and 0.0 are equal, as for lexsort).
    """
    s = np.asarray(scores32, dtype=np.float32) + np.float32(0.0)        # -0.0 + 0.0 is 0.0
    bits = s.view(np.uint32).astype(np.int64)
    ascending = np.where(bits >= 2 ** 31, 0xFFFFFFFF - bits, bits + 2 ** 31)   # float order -> integer order
    key = (np.asarray(classes, dtype=np.int64) << 32) | (0xFFFFFFFF - ascending)
    return np.argsort(key, kind="stable")
