"""PASCAL VOC devkit text files: image-set lists and per-class result files."""
from __future__ import annotations

import numpy as np

from ..errors import ReferenceDataError
from .text import check_known, lookup, parse_table, read_bytes, to_float, to_int

VOC_CLASSES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
               "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
               "tvmonitor")


def join_keys(cols):
    """Composite key (e.g. image id + object index) as one 'S' array, for vectorized lookups."""
    if len(cols) == 1:
        return cols[0]
    out = cols[0].astype(object)
    for c in cols[1:]:
        out = out + b"\x00" + c.astype(object)
    return out.astype("S")


def read_gt_labels(path, label, nkey=1):
    """`<id> [<object>] <label>` with label in {1, -1, 0}: returns (keys 'S' array, labels int8)."""
    rec = parse_table(read_bytes(path, label, ReferenceDataError), label, nkey + 1, ReferenceDataError)
    labels = to_int(rec, nkey, "label", ReferenceDataError)
    bad = np.flatnonzero((labels != 1) & (labels != -1) & (labels != 0))
    if bad.size:
        raise ReferenceDataError(label, int(rec.lines[bad[0]]), expected="a label 1, -1 or 0",
                                 found=str(labels[bad[0]]))
    keys = join_keys(rec.cols[:nkey])
    uniq, first = np.unique(keys, return_index=True)
    if uniq.size != keys.size:
        dup = np.setdiff1d(np.arange(keys.size), first)
        raise ReferenceDataError(label, int(rec.lines[dup[0]]), message="an id is listed twice")
    return keys, labels.astype(np.int8), rec


class ConfidenceFile(object):
    """A parsed `<id> [<object>] <confidence>` result file mapped onto a GT list.

    confidence[i] is the confidence of GT item i (-inf when absent); when an id appears twice the LAST line
    wins (out(j)=confidence(i) in a loop over lines), and duplicates are counted for the report.
    """

    def __init__(self, confidence, nlines, nduplicates, first_duplicate_line):
        self.confidence = confidence
        self.nlines = nlines
        self.nduplicates = nduplicates
        self.first_duplicate_line = first_duplicate_line


def read_confidences(path, label, gt_keys, nkey=1, what="image id") -> ConfidenceFile:
    rec = parse_table(read_bytes(path, label), label, nkey + 1)
    conf = to_float(rec, nkey, "confidence")
    keys = join_keys(rec.cols[:nkey])
    idx = lookup(keys, gt_keys)
    check_known(keys, idx >= 0, rec, what)
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
