"""Segments: a flat array cut into consecutive runs given by their lengths (`counts`), the one place of the idiom
that vectorized readers and metrics share: where each segment starts (an exclusive cumulative sum), which segment
each element belongs to and its offset inside it (a repeat). Pure numpy."""
from __future__ import annotations

import numpy as np


def segment_starts(counts) -> np.ndarray:
    """(k,) int64: the first element of each of the k segments, the exclusive cumulative sum of counts."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.cumsum(counts) - counts


def segment_of(counts) -> np.ndarray:
    """(sum(counts),) int64: the segment of every element, 0 repeated counts[0] times, 1 counts[1] times, ..."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)


def offsets(counts) -> np.ndarray:
    """(sum(counts),) int64: the position of every element inside its segment, 0 .. counts[k] - 1 for segment k."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.arange(int(counts.sum()), dtype=np.int64)
    out -= np.repeat(segment_starts(counts), counts)      # in place: two arrays of the total at most
    return out


def expand(counts):
    """(segment_of(counts), offsets(counts)): the segment of every element and its position inside it."""
    return segment_of(counts), offsets(counts)
