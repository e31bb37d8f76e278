"""PASCAL VOC devkit text files: image-set lists and per-class result files."""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from ..errors import ReferenceDataError, SubmissionError
from .fastnum import format_integers
from .text import Records, Rule, check_known, check_rules, lookup, parse_table, read_bytes, to_float, to_int

VOC_CLASSES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
               "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
               "tvmonitor")


def join_keys(cols: list) -> np.ndarray:
    """Composite key (e.g. image id + object index) as one 'S' array, for vectorized lookups.

    Fields are joined with a space, which no whitespace-separated field can contain, so keys never collide and
    read naturally in messages ('2011_000001 2'). (A b"\\x00" separator would vanish: numpy drops NULs.)
    """
    out = cols[0]
    for c in cols[1:]:
        out = np.char.add(np.char.add(out, b" "), c)
    return out


def key_columns(rec: Records, nkey: int, int_keys, err, universe=None) -> np.ndarray:
    """The first nkey columns as one key; columns listed in int_keys are compared as NUMBERS, as MATLAB's %d
    reading does ('01' is 1): they are canonicalized to plain decimal before joining. universe: the keys these
    will be looked up in (a submission's ids are then read with Records.keys, in bounded memory)."""
    cols = [rec.column(k) if universe is None else rec.keys(k, universe) for k in range(nkey)]
    for k in int_keys:
        cols[k] = format_integers(to_int(rec, k, "object index", err))
    return join_keys(cols)


def read_gt_labels(path, label: str, nkey: int = 1, int_keys=()) -> tuple:
    """`<id> [<object>] <label>` with label in {1, -1, 0}: returns (keys 'S' array, labels int8)."""
    rec = parse_table(read_bytes(path, label, ReferenceDataError), label, nkey + 1, ReferenceDataError)
    labels = to_int(rec, nkey, "label", ReferenceDataError)
    check_rules([Rule((labels == 1) | (labels == -1) | (labels == 0), "a label 1, -1 or 0", lambda i: str(labels[i]))],
                rec.lines, label, ReferenceDataError)
    keys = key_columns(rec, nkey, int_keys, ReferenceDataError)
    uniq, first = np.unique(keys, return_index=True)
    if uniq.size != keys.size:
        dup = np.setdiff1d(np.arange(keys.size), first)
        raise ReferenceDataError(label, int(rec.lines[dup[0]]), message="an id is listed twice")
    return keys, labels.astype(np.int8), rec


class ConfidenceFile(NamedTuple):
    """A parsed `<id> [<object>] <confidence>` result file mapped onto a GT list.

    confidence: (G,) float64, the confidence of GT item i (-inf when absent); when an id appears twice the LAST
    line wins (out(j)=confidence(i) in a loop over lines), and duplicates are counted for the report: nlines, the
    lines read; nduplicates, the lines that repeat an id; first_duplicate_line, the first of them (None: none).
    """
    confidence: np.ndarray
    nlines: int
    nduplicates: int
    first_duplicate_line: Optional[int]


def read_confidences(path, label: str, gt_keys: np.ndarray, nkey: int = 1, what: str = "image id",
                     int_keys=()) -> ConfidenceFile:
    rec = parse_table(read_bytes(path, label), label, nkey + 1)
    conf = to_float(rec, nkey, "confidence")
    keys = key_columns(rec, nkey, int_keys, SubmissionError, gt_keys)
    idx = lookup(keys, gt_keys)
    check_known(keys, idx >= 0, rec, what, universe=gt_keys)
    out = np.full(gt_keys.shape[0], -np.inf)
    ndup, first_dup = 0, None
    if idx.size:
        # last occurrence of each GT index wins
        rev_uniq, rev_first = np.unique(idx[::-1], return_index=True)
        last = idx.size - 1 - rev_first
        out[rev_uniq] = conf[last]
        ndup = int(idx.size - rev_uniq.size)
        if ndup:
            # the first line that repeats an id seen on an earlier line
            is_first = np.zeros(idx.size, dtype=bool)
            is_first[np.unique(idx, return_index=True)[1]] = True
            first_dup = int(rec.lines[np.flatnonzero(~is_first)[0]])
    return ConfidenceFile(out, len(rec), ndup, first_dup)
