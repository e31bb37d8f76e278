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
