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


def members_of(group, chosen, counts, chunk: int):
    """The elements whose group is chosen, group by group (index order inside), at most `chunk` at a time: yields
    (g, the indices of those elements of group g). group: the group of every element; chosen: bool per group;
    counts: the elements of each group (np.bincount(group))."""
    at = np.flatnonzero(chosen[group])
    at = at[np.argsort(group[at], kind="stable")]
    groups = np.flatnonzero(chosen)
    bounds = np.concatenate(([0], np.cumsum(counts[groups]))).tolist()
    for g, a, b in zip(groups.tolist(), bounds[:-1], bounds[1:]):
        for lo in range(a, b, chunk):
            yield g, at[lo:min(b, lo + chunk)]
