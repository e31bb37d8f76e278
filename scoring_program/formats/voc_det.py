"""VOC detection result files: `<id> <confidence> <xmin> <ymin> <xmax> <ymax>` per line (comp3/comp4).

A schema on the text engines: formats.text splits the lines (a million lines in well under a second: the common
layout, single spaces, is one reshape) and formats.fastnum reads the numbers (plain decimals exactly, the rest by
numpy). The rules, in the order they are checked, each naming the first bad line: six fields per line (the
tokenizer), each number column in turn a finite number (a first line of words above the data is named as a header
row), then ids among the evaluated images. The scorer (parse_detections) and validate (check_boxes) check them in
this one order, so that a file with several faults gets the same message from both.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat

import numpy as np

from .text import check_known, has_content, lookup, parse_table, read_bytes, to_float

NUMBERS = ("confidence", "xmin", "ymin", "xmax", "ymax")      # columns 1..5, after the image id
IMAGE_INDEX = np.int32      # an image list holds far fewer than 2**31 ids (the reference lists every image)


@dataclass
class Detections:
    """Detections in result-file order: image (N,) int32, the index into the image list (IMAGE_INDEX: a million
    detections hold 4 MB less than with int64); confidence (N,) float64; boxes (N, 4) float64, xmin ymin xmax
    ymax."""
    image: np.ndarray
    confidence: np.ndarray
    boxes: np.ndarray

    def __len__(self):
        return int(self.image.size)


def id_index(ids: np.ndarray) -> dict:
    """{id bytes: position} for repeated lookups of result-file ids (faster than a sorted search of strings)."""
    return {k: i for i, k in enumerate(ids.tolist())}


def _image_index(keys: np.ndarray, ids: np.ndarray, index) -> np.ndarray:
    """The index of each key in ids, -1 when it is not there (index: id_index(ids), or None)."""
    if index is None:
        return lookup(keys, ids)
    return np.fromiter(map(index.get, keys.tolist(), repeat(-1)), dtype=np.int64, count=keys.size)


def _numbers(rec) -> tuple:
    """(confidence (N,), boxes (N, 4)) of the records, each column in turn a finite number: the first field that is
    not names its line (formats.text.number_error: a header row is named as one)."""
    confidence = to_float(rec, 1, NUMBERS[0])
    boxes = np.empty((len(rec), 4))
    for k, name in enumerate(NUMBERS[1:]):
        boxes[:, k] = to_float(rec, k + 2, name)
    return confidence, boxes


def parse_detections(data: bytes, label: str, ids: np.ndarray, index=None) -> Detections:
    """ids: the evaluated image ids ('S' array); index: id_index(ids), optional.

    Numbers that are not finite, then unknown ids, are errors naming the line (the module's order)."""
    if not has_content(data, 0, len(data)):
        return Detections(np.zeros(0, dtype=IMAGE_INDEX), np.zeros(0), np.zeros((0, 4)))
    rec = parse_table(data, label, 6)
    confidence, boxes = _numbers(rec)
    keys = rec.keys(0, ids)
    image = _image_index(keys, ids, index)
    check_known(keys, image >= 0, rec, "image id", universe=ids)
    del keys
    return Detections(image.astype(IMAGE_INDEX), confidence, boxes)


def read_detections(path, label: str, ids: np.ndarray, index=None) -> Detections:
    return parse_detections(read_bytes(path, label), label, ids, index)


def check_syntax(path, label: str, ids=None) -> int:
    """validate(): six fields per line, finite numbers, ids among `ids` when given. Returns the line count."""
    return len(check_boxes(path, label, ids))


def check_boxes(path, label: str, ids=None) -> np.ndarray:
    """check_syntax's checks, in parse_detections' order; returns the boxes (N, 4) xmin ymin xmax ymax (for
    formats.hints.box_hint)."""
    data = read_bytes(path, label)
    rec = parse_table(data, label, 6)
    _, boxes = _numbers(rec)
    if ids is not None:
        keys = rec.keys(0, ids)
        check_known(keys, np.isin(keys, ids), rec, "image id", universe=ids)
    return boxes
