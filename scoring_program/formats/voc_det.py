"""VOC detection result files: `<id> <confidence> <xmin> <ymin> <xmax> <ymax>` per line (comp3/comp4).

A million lines must parse in well under a second, so the good path is numpy's C text reader (np.loadtxt
into a structured array); when it objects to anything, or an id is unknown, or a number is not finite, the
file is parsed again with formats.text.parse_table, which names the first bad line and what it holds.
"""
from __future__ import annotations

import io
import re
import warnings

import numpy as np

from .text import check_known, lookup, parse_table, read_bytes, to_float

_NONBLANK = re.compile(rb"\S")


class Detections(object):
    """image (index into the image list), confidence, boxes (N, 4), in result-file order."""

    def __init__(self, image, confidence, boxes):
        self.image = image
        self.confidence = confidence
        self.boxes = boxes

    def __len__(self):
        return int(self.image.size)


def _fast(data, width):
    dtype = [("id", "S%d" % width), ("v", np.float64, (5,))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arr = np.loadtxt(io.BytesIO(data), dtype=dtype, comments=None, ndmin=1)
    return arr["id"], arr["v"]


def _slow(data, label, ids):
    rec = parse_table(data, label, 6)
    keys = rec.cols[0]
    idx = lookup(keys, ids)
    check_known(keys, idx >= 0, rec, "image id")
    vals = np.stack([to_float(rec, k, name) for k, name in
                     ((1, "confidence"), (2, "xmin"), (3, "ymin"), (4, "xmax"), (5, "ymax"))], axis=1)
    return idx, vals


def id_index(ids):
    """{id bytes: position} for repeated lookups of result-file ids (faster than a sorted search of strings)."""
    return {k: i for i, k in enumerate(ids.tolist())}


def parse_detections(data: bytes, label, ids, index=None) -> Detections:
    """ids: the evaluated image ids ('S' array); index: id_index(ids), optional.

    Unknown ids and non-finite numbers are errors naming the line.
    """
    if _NONBLANK.search(data) is None:
        return Detections(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros((0, 4)))
    width = max(int(ids.dtype.itemsize), 1) + 1     # a longer id is truncated to a length no real id has
    try:
        keys, vals = _fast(data, width)
        if index is None:
            idx = lookup(keys, ids)
        else:
            idx = np.fromiter(map(index.__getitem__, keys.tolist()), dtype=np.int64, count=keys.size)
        good = bool((idx >= 0).all() and np.isfinite(vals).all())
    except (ValueError, TypeError, UnicodeError, IndexError, KeyError):
        good = False
    if not good:
        idx, vals = _slow(data, label, ids)
    return Detections(idx, vals[:, 0].copy(), vals[:, 1:].copy())


def read_detections(path, label, ids, index=None) -> Detections:
    return parse_detections(read_bytes(path, label), label, ids, index)


def check_syntax(path, label, ids=None) -> int:
    """validate(): six fields per line, finite numbers, ids among `ids` when given. Returns the line count."""
    data = read_bytes(path, label)
    rec = parse_table(data, label, 6)
    for k, name in ((1, "confidence"), (2, "xmin"), (3, "ymin"), (4, "xmax"), (5, "ymax")):
        to_float(rec, k, name)
    if ids is not None:
        check_known(rec.cols[0], np.isin(rec.cols[0], ids), rec, "image id")
    return len(rec)

