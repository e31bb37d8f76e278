"""VOC detection result files: `<id> <confidence> <xmin> <ymin> <xmax> <ymax>` per line (comp3/comp4).

A million lines must parse in well under a second, so the good path is a vectorized split of the common
layout (single spaces, plain decimals parsed exactly by formats.fastnum), then numpy's C text reader
(np.loadtxt into a structured array) for other layouts; when it objects to anything, or an id is unknown, or a
number is not finite, the file is parsed again with formats.text.parse_table, which names the first bad line and
what it holds.
"""
from __future__ import annotations

import io
import re
import warnings

import numpy as np

from .fastnum import gather_words, parse_decimal, words_to_matrix
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


# What np.loadtxt splits fields on, whatever its version: str.split() of the line decoded as latin-1 (numpy < 1.23)
# splits on all of these; numpy's C reader (>= 1.23) on fewer, so it never sees more fields than this count.
_FIELD_SEPARATOR = np.zeros(256, dtype=bool)
_FIELD_SEPARATOR[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32, 0x85, 0xA0]] = True


def _field_count(data):
    """The number of whitespace-separated fields in the file (maximal runs of non-separator bytes)."""
    sep = _FIELD_SEPARATOR[np.frombuffer(data, dtype=np.uint8)]
    return int(np.count_nonzero(sep[:-1] & ~sep[1:])) + int(not sep[0])


def _fast(data, width):
    dtype = [("id", "S%d" % width), ("v", np.float64, (5,))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arr = np.loadtxt(io.BytesIO(data), dtype=dtype, comments=None, ndmin=1)
    # numpy < 1.23 zips each line's fields with the dtype's six, so a file whose every line has 7 fields parses
    # without complaint there (the extra field dropped): only six fields a line may take this path on any numpy
    if _field_count(data) != 6 * arr.shape[0]:
        raise ValueError("not six fields on every line")
    return arr["id"], arr["v"]


_NOT_IN_ID = np.zeros(256, dtype=bool)
_NOT_IN_ID[[0, 9, 10, 11, 12, 13, 32]] = True


def _strict(data, width):
    """The common layout, fastest: six fields per line, separated by single spaces, every number a plain
    decimal (fastnum: exactly float(token)). Returns (ids, values) as the text reader would, or None for
    anything else (blank lines, tabs, CR, exponents, ...), which then goes to _fast / _slow."""
    arr = np.frombuffer(data, dtype=np.uint8)
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
        fast = _strict(data, width)
        keys, vals = fast if fast is not None else _fast(data, width)
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

