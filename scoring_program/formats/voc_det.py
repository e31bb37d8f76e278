"""VOC detection result files: `<id> <confidence> <xmin> <ymin> <xmax> <ymax>` per line (comp3/comp4).

A million lines must parse in well under a second, so the good path is a vectorized split of the common
layout (single spaces, plain decimals parsed exactly by formats.fastnum), block by block; any other layout, an
unknown id or a number that is not finite goes to formats.text.parse_table, which reads every layout and names the
first bad line and what it holds.
"""
from __future__ import annotations

import re

import numpy as np

from .fastnum import gather_words, parse_decimal, words_to_matrix
from .text import blocks, check_known, lookup, parse_table, read_bytes, to_float

_NONBLANK = re.compile(rb"\S")


class Detections(object):
    """image (index into the image list), confidence, boxes (N, 4), in result-file order."""

    def __init__(self, image, confidence, boxes):
        self.image = image
        self.confidence = confidence
        self.boxes = boxes

    def __len__(self):
        return int(self.image.size)


_NOT_IN_ID = np.zeros(256, dtype=bool)
_NOT_IN_ID[[0, 9, 10, 11, 12, 13, 32]] = True


def _strict(data, width):
    """The common layout, fastest: six fields per line, separated by single spaces, every number a plain
    decimal (fastnum: exactly float(token)). Returns (ids, values) as the text reader would, or None for
    anything else (blank lines, tabs, CR, exponents, ...), which then goes to _slow. Read in blocks of lines,
    after a count of spaces and newlines (in C) that most other layouts already fail."""
    nlines = data.count(b"\n") + (not data.endswith(b"\n"))
    if data.count(b" ") != 5 * nlines:
        return None
    ids, vals = [], []
    for b0, b1, one_line in blocks(data):
        if one_line:            # a line of a megabyte is not six short fields
            return None
        part = _strict_block(np.frombuffer(data, dtype=np.uint8, count=b1 - b0, offset=b0), width)
        if part is None:
            return None
        ids.append(part[0])
        vals.append(part[1])
    return np.concatenate(ids), np.concatenate(vals)


def _strict_block(arr, width):
    """_strict on one block of whole lines."""
    m = arr == 32
    m |= arr == 10
    pos = np.flatnonzero(m)
    nnl = int(np.count_nonzero(arr == 10))
    if arr[-1] != 10:
        pos = np.append(pos, arr.size)
        nnl += 1
    n = pos.size // 6
    if n == 0 or pos.size != 6 * n or nnl != n:
        return None
    S = pos.reshape(n, 6)
    last = S[:, 5]
    if not (arr[last[last < arr.size]] == 10).all():
        return None
    start = np.empty(n, dtype=np.int64)
    start[0] = 0
    start[1:] = S[:-1, 5] + 1
    length = S[:, 0] - start
    w = int(length.max())
    if w >= width or int(length.min()) < 1:       # an id longer than every evaluated id is unknown
        return None
    mat = words_to_matrix(gather_words(arr, start, length, (w + 7) // 8), w)
    inside = np.arange(w)[None, :] < length[:, None]
    if (_NOT_IN_ID[mat] & inside).any():
        return None
    vals = np.empty((n, 5))
    for k in range(1, 6):
        s = S[:, k - 1] + 1
        ln = S[:, k] - s
        wk = int(ln.max())
        if wk > 64:
            return None
        v, ok = parse_decimal(gather_words(arr, s, ln, max((wk + 7) // 8, 1)), ln)
        if not ok.all():
            return None
        vals[:, k - 1] = v
    return mat.view("S%d" % w).ravel(), vals


def _slow(data, label, ids):
    rec = parse_table(data, label, 6)
    keys = rec.keys(0, ids)
    idx = lookup(keys, ids)
    check_known(keys, idx >= 0, rec, "image id")
    vals = np.stack([to_float(rec, k, name) for k, name in
                     ((1, "confidence"), (2, "xmin"), (3, "ymin"), (4, "xmax"), (5, "ymax"))], axis=1)
    return idx, vals


def _known_index(keys, ids, index):
    """The index of each key in ids, or None when one is not there."""
    if index is None:
        idx = lookup(keys, ids)
        return idx if bool((idx >= 0).all()) else None
    try:
        return np.fromiter(map(index.__getitem__, keys.tolist()), dtype=np.int64, count=keys.size)
    except KeyError:
        return None


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
    fast = _strict(data, width)
    good = False
    if fast is not None:
        keys, vals = fast
        idx = _known_index(keys, ids, index)
        good = idx is not None and bool(np.isfinite(vals).all())
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
        keys = rec.keys(0, ids)
        check_known(keys, np.isin(keys, ids), rec, "image id")
    return len(rec)

