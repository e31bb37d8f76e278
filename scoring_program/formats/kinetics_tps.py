"""Kinetics-TPS JSON files: ground truth and submission, flattened into numpy arrays.

    gt_vid_result.json     {video: action_class}
    gt_part_result.json    {video: {frame_json_name: {"humans": [{"box": [x1,y1,x2,y2],
                                    "parts": {part_name: {"box": [x1,y1,x2,y2], "verb": STATE}}}]}}}
    pred_vid_result.json   {video: predicted_class}
    pred_part_result.json  {video: {frame_json_name: {"humans": [{"box": [x1,y1,x2,y2],
                                    "parts": {part_name: {"box": [[..], [..]], "verb": [S1, S2]}}}]}}}

Other keys ("number", "name") are ignored. The part files are read straight from their bytes into arrays by a
vectorized structural pass (formats.kinetics_json: no Python object per number, string or container) when they are
valid JSON of exactly this shape and every rule below holds (read_ground_truth, read_predictions_bytes). Anything
else takes the stdlib path, which gives the same arrays or the message: json.loads builds the Python objects;
everything after that works on whole lists at once (list comprehensions and numpy), and only when a check fails do
we walk the objects one by one to name the video, frame, human and part at fault. The two small vid_result files
always go through json.loads.
"""
from __future__ import annotations

import gc
import json
import math
import sys
from contextlib import contextmanager
from itertools import chain, repeat
from typing import NamedTuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some, shorten
from .text import read_bytes

MAX_HUMANS = 10
MAX_PROPOSALS = 5
_MISSING = object()


@contextmanager
def no_cycle_collection():
    """Pause Python's cyclic garbage collector.

    json builds millions of small containers, and each collection while they are alive walks all of them (once
    per generation, even after the parse): at 5,000 videos that is 4x the parse time. Parsed JSON holds no
    reference cycles, so pausing loses nothing; reference counting still frees everything.
    """
    collect = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collect:
            gc.enable()


def load_json(path, label, err=SubmissionError):
    """Parse a JSON file; invalid JSON names the line and column (json.JSONDecodeError's lineno/colno)."""
    return parse_json(read_bytes(path, label, err), label, err)


@contextmanager
def any_int_digits():
    """Integers of any number of digits convert from and to text, as on the platform's Python 3.7 (3.7.3 in
    codalab-legacy:py37, which predates the limit). Python >= 3.11, and the 3.7.14 / 3.8.14 / 3.9.14 / 3.10.7
    security releases, refuse more than sys.get_int_max_str_digits() (4300 by default) with a ValueError: json.loads
    of a longer integer literal, json.dumps of the number. The limit is lifted (0) inside and restored after.
    Conversion is then quadratic in the digits, as on the platform: a million digits take seconds to parse."""
    get_limit = getattr(sys, "get_int_max_str_digits", None)
    if get_limit is None:
        yield
        return
    previous = get_limit()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(previous)


def parse_json(data, label, err=SubmissionError):
    """json.loads of a file's bytes (the stdlib path), with load_json's messages. Integer literals of any length
    parse (any_int_digits): one in an ignored key changes nothing, one where a number is read is not finite."""
    try:
        with no_cycle_collection(), any_int_digits():
            return json.loads(data)
    except json.JSONDecodeError as e:
        raise err(label, line=e.lineno, message="not valid JSON (%s at column %d)" % (e.msg, e.colno))
    except UnicodeDecodeError:
        raise err(label, message="not valid JSON (the file is not UTF-8 text)")
    except RecursionError:
        raise err(label, message="not valid JSON (nested too deeply)")


def _found(x):
    with any_int_digits():              # a number parse_json read prints whatever its length, as on Python 3.7
        return _describe(x)


def _describe(x):
    if isinstance(x, dict):
        return "an object with keys %s" % shorten(", ".join(map(str, list(x)[:6])))
    if isinstance(x, list):
        return "a list of %d: %s" % (len(x), shorten(json.dumps(x)))
    if isinstance(x, str):
        return "the text %s" % shorten(x)
    return shorten(json.dumps(x))


def _is_number(x):
    if not isinstance(x, (int, float)):          # bool is an int: the official arithmetic accepts it too
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _is_box(b, longer=False):
    """The rule for one box: a list of 4 finite numbers; with longer=True (predicted boxes) also more than 4, of
    which the metric reads the first 4 (the original indexes box[0] .. box[3] and never looks further)."""
    return (isinstance(b, list) and (len(b) == 4 or longer and len(b) > 4)
            and all(_is_number(x) for x in b))


BOX = "a box [x1, y1, x2, y2] of 4 finite numbers"


class CutBoxes(NamedTuple):
    """Predicted boxes as the metric reads them, and which of them had more than 4 numbers."""
    boxes: np.ndarray       # (N, 4) float64: the first 4 numbers of each box
    cut: np.ndarray         # indices of the boxes that had more than 4 numbers (empty in the usual case)


def as_boxes(boxes):
    """(N, 4) float64 array from a list of N boxes, or None when any of them is not 4 finite numbers."""
    found = _boxes(lambda: boxes, len(boxes), longer=False)
    return None if found is None else found.boxes


def as_predicted_boxes(boxes):
    """CutBoxes from a list of N predicted boxes, or None when any of them breaks _is_box(box, longer=True)."""
    return _boxes(lambda: boxes, len(boxes), longer=True)


def as_predicted_box_groups(groups, n):
    """as_predicted_boxes of the n boxes of a list of box lists (chain.from_iterable(groups)), without building
    that list."""
    return _boxes(lambda: chain.from_iterable(groups), n, longer=True)


def _boxes(each_box, n, longer):
    """CutBoxes of the n boxes a zero-argument function's iterator yields, or None when one breaks _is_box.

    All in C over the flat sequence: len() of every box; then np.array over the numbers, whose dtype tells
    ints, floats and bools (all accepted, as in the original's arithmetic) from anything else (text, null,
    lists: the len() of a text or an object may well be 4). When that dtype is not numeric, math.fsum, which
    raises TypeError on anything but a number, decides (np.fromiter alone would read the text "12" as 12.0).
    Boxes longer than 4 (allowed with longer=True) are checked whole like the others, then cut to their first 4
    numbers by one gather; when every box has 4 numbers (the usual case) the flat array is only reshaped.
    """
    if n == 0:
        return CutBoxes(np.zeros((0, 4)), np.zeros(0, dtype=np.int64))
    try:
        all_four = set(map(len, each_box())) == {4}
        if not all_four:
            lengths = np.fromiter(map(len, each_box()), dtype=np.int64, count=n)
            if not longer or lengths.min() < 4:
                return None
        flat = tuple(chain.from_iterable(each_box()))
        try:
            arr = np.array(flat)
        except (ValueError, OverflowError, TypeError):
            arr = None
        if arr is not None and arr.ndim == 1 and arr.dtype.kind in "biuf":
            arr = arr.astype(np.float64)
        else:
            try:
                math.fsum(flat)
            except OverflowError:           # finite numbers whose sum overflows: look at the types instead
                if not set(map(type, flat)) <= {int, float, bool}:
                    return None
            arr = np.fromiter(flat, dtype=np.float64, count=len(flat))
    except (TypeError, ValueError, OverflowError):
        return None
    if not np.isfinite(arr).all():
        return None
    if all_four:
        return CutBoxes(arr.reshape(-1, 4), np.zeros(0, dtype=np.int64))
    starts = np.cumsum(lengths) - lengths
    return CutBoxes(arr[starts[:, None] + np.arange(4)], np.flatnonzero(lengths > 4))


class GroundTruth(object):
    """Flattened ground truth. Frames are those with at least one GT human, video by video in file order."""

    def __init__(self):
        self.videos = []            # GT video names (gt_vid_result order)
        self.classes = []           # their action classes
        self.frame_video = None     # (F,) video index of each frame with humans
        self.frame_name = []        # (F,) frame key
        self.empty_frames = None    # (V,) frames without GT humans (dropped from the count)
        self.human_frame = None     # (H,)
        self.human_box = None       # (H, 4) float64 as written (the metric casts to float32 like the original)
        self.part_human = None      # (P,)
        self.part_name = None       # (P,) integer code of the part name
        self.part_box = None        # (P, 4) float64
        self.part_verb = None       # (P,) integer code of the state
        self.names = {}             # part name -> code
        self.verbs = {}             # state -> code

    @property
    def n_videos(self):
        return len(self.videos)


def _ref_fault(label, where, expected, x):
    return ReferenceDataError(label, message=where, expected=expected, found=_found(x))


def _check_gt_human(label, where, h):
    if not isinstance(h, dict):
        raise _ref_fault(label, where, "an object with 'box' and 'parts'", h)
    if not _is_box(h.get("box")):
        raise _ref_fault(label, where + " > box", BOX, h.get("box"))
    parts = h.get("parts")
    if not isinstance(parts, dict):
        raise _ref_fault(label, where + " > parts", "an object {part_name: {box, verb}}", parts)
    for name, p in parts.items():
        w = "%s > parts %r" % (where, name)
        if not isinstance(p, dict):
            raise _ref_fault(label, w, "an object with 'box' and 'verb'", p)
        if not _is_box(p.get("box")):
            raise _ref_fault(label, w + " > box", BOX, p.get("box"))
        if not isinstance(p.get("verb"), str):
            raise _ref_fault(label, w + " > verb", "a state name", p.get("verb"))


def read_ground_truth(vid_path, part_path, vid_label="gt_vid_result.json", part_label="gt_part_result.json"):
    """GroundTruth of the two files: gt_part_result.json straight from its bytes (formats.kinetics_json) when it is
    what that pass handles, else json.loads and flatten_ground_truth (the same arrays, and the messages)."""
    vid = load_json(vid_path, vid_label, ReferenceDataError)
    data = read_bytes(part_path, part_label, ReferenceDataError)
    gt = ground_truth_from_bytes(vid, data)
    if gt is None:
        gt = flatten_ground_truth(vid, parse_json(data, part_label, ReferenceDataError), vid_label, part_label)
    return gt


def _segments(starts, lengths, which):
    """Indices of the items of the segments `which` (segment k: items starts[k] .. starts[k] + lengths[k] - 1), in
    that order."""
    n = lengths[which]
    total = int(n.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.cumsum(n) - n
    return np.repeat(starts[which] - first, n) + np.arange(total, dtype=np.int64)


def _starts(counts):
    return np.cumsum(counts) - counts


def _texts(strings):
    return [t.decode("utf-8", "surrogatepass") for t in strings.texts]


def _frames_by_video(scan):
    """({video key: index}, per video {frame key: frame index}) of a PartFile; None when a key repeats (json.loads
    keeps the last value at the first one's place: left to the stdlib path)."""
    videos = dict((k, i) for i, k in enumerate(scan.video_key))
    if len(videos) != len(scan.video_key):
        return None
    per_video = [dict() for _ in scan.video_key]
    for v, f, i in zip(scan.frame_video.tolist(), scan.frame_key, range(len(scan.frame_key))):
        per_video[v][f] = i
    if sum(map(len, per_video)) != len(scan.frame_key):
        return None
    return videos, per_video


def _scan_part_file(data, pred):
    """The bytes of a part_result file -> (scan, videos, per_video) (kinetics_json.read_part_file, then
    _frames_by_video), or None where either gives up (the stdlib path then)."""
    from .kinetics_json import read_part_file
    scan = read_part_file(data, pred=pred)
    found = None if scan is None else _frames_by_video(scan)
    return None if found is None else (scan,) + tuple(found)


def ground_truth_from_bytes(vid, data):
    """GroundTruth from the parsed gt_vid_result and the bytes of gt_part_result, or None for the stdlib path
    (anything flatten_ground_truth would reject, or the pass does not handle)."""
    if not isinstance(vid, dict) or not vid or not all(isinstance(c, str) for c in vid.values()):
        return None
    found = _scan_part_file(data, pred=False)
    if found is None:
        return None
    scan, videos, per_video = found
    gt = GroundTruth()
    gt.videos = list(vid)
    gt.classes = list(vid.values())
    order = [videos.get(name, -1) for name in gt.videos]
    if -1 in order:
        return None
    frame_start = np.searchsorted(scan.frame_video, np.arange(len(scan.video_key) + 1))
    frames = _segments(frame_start[:-1], np.diff(frame_start), np.array(order, dtype=np.int64))
    video_of = np.repeat(np.arange(len(order), dtype=np.int64), np.diff(frame_start)[order])
    humans = scan.frame_humans[frames]
    kept = humans > 0
    gt.empty_frames = np.bincount(video_of[~kept], minlength=len(order)).astype(np.int64)
    frames, video_of, humans = frames[kept], video_of[kept], humans[kept]
    gt.frame_video = video_of
    gt.frame_name = [scan.frame_key[k] for k in frames.tolist()]
    human_sel = _segments(_starts(scan.frame_humans), scan.frame_humans, frames)
    gt.human_frame = np.repeat(np.arange(frames.size, dtype=np.int64), humans)
    gt.human_box = scan.human_box[human_sel]
    nparts = scan.human_parts[human_sel]
    part_sel = _segments(_starts(scan.human_parts), scan.human_parts, human_sel)
    gt.part_human = np.repeat(np.arange(human_sel.size, dtype=np.int64), nparts)
    gt.part_box = scan.part_box[part_sel]
    gt.part_name = _recode(scan.part_name, part_sel, gt.names)
    gt.part_verb = _recode(scan.part_verb, part_sel, gt.verbs)
    return gt


def _recode(strings, sel, vocab):
    """Codes of the occurrences sel, dense in order of first appearance among them (as _codes), filling vocab."""
    if sel.size == strings.codes.size and np.array_equal(sel, np.arange(sel.size)):
        for t in _texts(strings):           # every occurrence, in file order: the pass's codes already are
            vocab[t] = len(vocab)
        return strings.codes.astype(np.int64)
    codes = strings.codes[sel]
    if codes.size == 0:
        return codes.astype(np.int64)
    uniq, first = np.unique(codes, return_index=True)
    ranked = uniq[np.argsort(first, kind="stable")]
    lut = np.zeros(int(uniq.max()) + 1, dtype=np.int64)
    lut[ranked] = np.arange(ranked.size)
    texts = _texts(strings)
    for c in ranked.tolist():
        vocab[texts[c]] = len(vocab)
    return lut[codes]


def flatten_ground_truth(vid, part, vid_label="gt_vid_result.json", part_label="gt_part_result.json"):
    """GroundTruth arrays from the parsed gt_vid_result and gt_part_result objects."""
    if not isinstance(vid, dict) or not vid:
        raise ReferenceDataError(vid_label, expected="a non-empty object {video: action_class}", found=_found(vid))
    if not isinstance(part, dict):
        raise ReferenceDataError(part_label, expected="an object {video: {frame: {humans}}}", found=_found(part))
    gt = GroundTruth()
    gt.videos = list(vid)
    gt.classes = list(vid.values())
    bad = [v for v, c in vid.items() if not isinstance(c, str)]
    if bad:
        raise ReferenceDataError(vid_label, message="video %r" % bad[0], expected="a class name", found=_found(vid[bad[0]]))
    frame_video, frame_humans, empty = [], [], []
    for v, name in enumerate(gt.videos):
        frames = part.get(name, _MISSING)
        if frames is _MISSING:
            raise ReferenceDataError(part_label, message="video %r of %s has no entry" % (name, vid_label))
        if not isinstance(frames, dict):
            raise _ref_fault(part_label, "video %r" % name, "an object {frame: {humans}}", frames)
        n_empty = 0
        for fname, fr in frames.items():
            hs = fr.get("humans", _MISSING) if isinstance(fr, dict) else _MISSING
            if not isinstance(hs, list):
                raise _ref_fault(part_label, "video %r > frame %r" % (name, fname), "an object with a 'humans' list",
                                 fr if hs is _MISSING else hs)
            if hs:
                frame_video.append(v)
                gt.frame_name.append(fname)
                frame_humans.append(hs)
            else:
                n_empty += 1
        empty.append(n_empty)
    gt.frame_video = np.array(frame_video, dtype=np.int64)
    gt.empty_frames = np.array(empty, dtype=np.int64)
    try:
        _flatten_gt(gt, frame_humans)
    except (KeyError, TypeError, ValueError, AttributeError):
        for k, hs in enumerate(frame_humans):
            for i, h in enumerate(hs):
                _check_gt_human(part_label, "video %r > frame %r > humans[%d]"
                                % (gt.videos[frame_video[k]], gt.frame_name[k], i), h)
        raise ReferenceDataError(part_label, message="malformed ground truth")
    return gt


def _codes(vocab, items):
    """Integer code per item (a list of hashables), adding new items to vocab with the next free codes, in order of
    first appearance (codes stay dense: 0 .. len(vocab) - 1)."""
    for x in dict.fromkeys(items):
        vocab.setdefault(x, len(vocab))
    return np.fromiter(map(vocab.__getitem__, items), dtype=np.int64, count=len(items))


def _humans_and_parts(humans, read_boxes):
    """Boxes of a flat list of humans, and their parts flattened: (boxes, owner human, names, part objects).

    read_boxes: as_boxes (ground truth) or as_predicted_boxes, whose result is returned as it is.
    A part object that is not a dict fails later, at p["box"] / p["verb"] (TypeError), as do humans that are not.
    """
    box = read_boxes([h["box"] for h in humans])
    parts = [h["parts"] for h in humans]
    if box is None or not set(map(type, parts)) <= {dict}:
        raise ValueError("human")
    n_p = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    owner = np.repeat(np.arange(len(parts), dtype=np.int64), n_p)
    names = list(chain.from_iterable(parts))
    vals = list(chain.from_iterable(map(dict.values, parts)))
    return box, owner, names, vals


def _flatten_gt(gt, frame_humans):
    n_h = np.fromiter(map(len, frame_humans), dtype=np.int64, count=len(frame_humans))
    humans = list(chain.from_iterable(frame_humans))
    gt.human_frame = np.repeat(np.arange(len(frame_humans), dtype=np.int64), n_h)
    gt.human_box, gt.part_human, names, vals = _humans_and_parts(humans, as_boxes)
    gt.part_box = as_boxes([p["box"] for p in vals])
    verbs = [p["verb"] for p in vals]
    if gt.part_box is None or not set(map(type, verbs)) <= {str}:
        raise ValueError("bad part")
    gt.part_name = _codes(gt.names, names)
    gt.part_verb = _codes(gt.verbs, verbs)


class Predictions(object):
    """The parts of a submission the metric reads, aligned with a GroundTruth."""

    def __init__(self):
        self.classes = []           # predicted class per GT video
        self.frame_has_pred = None  # (F,) per GT frame with humans
        self.human_frame = None     # (Hp,) GT frame index of each predicted human in an evaluated frame
        self.human_box = None       # (Hp, 4)
        self.pp_human = None        # predicted parts: owner human, name code (-1: not a GT part name)
        self.pp_name = None
        self.pp_nverb = None        # N_p = length of the verb list
        self.pp_nbox = None         # length of the box list (<= N_p)
        self.pp_box_start = None
        self.prop_box = None        # (Q, 4) every proposal box
        self.prop_verb = None       # (Q,) state code of verb j for box j (-1: not a GT state)
        self.extra_videos = 0       # videos only in the prediction (ignored)
        self.extra_frames = 0       # frames of GT videos only in the prediction (ignored)
        self.missing_frames = 0
        self.human_cut = None       # indices of the human boxes / proposal boxes that had more than 4 numbers
        self.prop_cut = None        # (only their first 4 are read)
        self.cut_warning = None     # the warning about them (cut_box_warning), or None


def _sub_fault(label, where, expected, x):
    return SubmissionError(label, message=where, expected=expected, found=_found(x))


def check_pred_frame(label, video, fname, fr):
    """Every rule for one predicted frame, in order; raises SubmissionError naming video, frame, human, part.

    Returns the boxes with more than 4 numbers (legal: the metric reads the first 4) as (where, box) pairs.
    """
    where = "video %r > frame %r" % (video, fname)
    cut = []
    hs = fr.get("humans", _MISSING) if isinstance(fr, dict) else _MISSING
    if hs is _MISSING:
        raise _sub_fault(label, where, "an object with a 'humans' list", fr)
    if not isinstance(hs, list):
        raise _sub_fault(label, where + " > humans", "a list of humans", hs)
    if len(hs) > MAX_HUMANS:
        raise SubmissionError(label, message=where, expected="at most %d predicted humans per frame" % MAX_HUMANS,
                              found="%d" % len(hs))
    for i, h in enumerate(hs):
        w = "%s > humans[%d]" % (where, i)
        if not isinstance(h, dict):
            raise _sub_fault(label, w, "an object with 'box' and 'parts'", h)
        if "box" not in h:
            raise SubmissionError(label, message=w, expected="a 'box' for every predicted human",
                                  found="keys %s" % shorten(", ".join(map(str, h))))
        if not _is_box(h["box"], longer=True):
            raise _sub_fault(label, w + " > box", BOX, h["box"])
        if len(h["box"]) > 4:
            cut.append((w + " > box", h["box"]))
        if "parts" not in h:
            raise SubmissionError(label, message=w, expected="a 'parts' object for every predicted human",
                                  found="keys %s" % shorten(", ".join(map(str, h))))
        if not isinstance(h["parts"], dict):
            raise _sub_fault(label, w + " > parts", "an object {part_name: {box, verb}}", h["parts"])
        for name, p in h["parts"].items():
            wp = "%s > parts %r" % (w, name)
            if not isinstance(p, dict) or "verb" not in p or "box" not in p:
                raise _sub_fault(label, wp, "an object with 'box' and 'verb' lists", p)
            verbs, boxes = p["verb"], p["box"]
            if not isinstance(verbs, list) or not all(isinstance(s, str) for s in verbs):
                raise _sub_fault(label, wp + " > verb", "a list of state names", verbs)
            if len(verbs) > MAX_PROPOSALS:
                raise SubmissionError(label, message=wp + " > verb",
                                      expected="at most %d proposals per part" % MAX_PROPOSALS,
                                      found="%d" % len(verbs))
            if not isinstance(boxes, list):
                raise _sub_fault(label, wp + " > box", "a list of boxes", boxes)
            if len(boxes) > len(verbs):
                raise SubmissionError(label, message=wp, expected="no more boxes than verbs (one state per box)",
                                      found="%d boxes and %d verbs" % (len(boxes), len(verbs)))
            for j, b in enumerate(boxes):
                if not _is_box(b, longer=True):
                    raise _sub_fault(label, "%s > box[%d]" % (wp, j), BOX, b)
                if len(b) > 4:
                    cut.append(("%s > box[%d]" % (wp, j), b))
    return cut


def read_pred_classes(pred_vid, gt, label):
    if not isinstance(pred_vid, dict):
        raise SubmissionError(label, expected="an object {video: predicted_class}", found=_found(pred_vid))
    out = []
    for v in gt.videos:
        c = pred_vid.get(v, _MISSING)
        if c is _MISSING:
            missing = [x for x in gt.videos if x not in pred_vid]
            raise SubmissionError(label, message="video %r has no predicted class" % v,
                                  expected="a class for every test video",
                                  found="%d missing: %s" % (len(missing), quote_some(missing)))
        if not isinstance(c, str):
            raise _sub_fault(label, "video %r" % v, "a class name (text)", c)
        out.append(c)
    return out, len(pred_vid) - len(gt.videos)


def read_predictions(pred_vid, pred_part, gt, vid_label, part_label):
    """Align a parsed submission with the ground truth; raise SubmissionError on every fault the metric would meet."""
    pr = Predictions()
    pr.classes, pr.extra_videos = read_pred_classes(pred_vid, gt, vid_label)
    if not isinstance(pred_part, dict):
        raise SubmissionError(part_label, expected="an object {video: {frame: {humans}}}", found=_found(pred_part))
    n_frames = len(gt.frame_name)
    frames = [None] * n_frames
    bounds = np.searchsorted(gt.frame_video, np.arange(gt.n_videos + 1))
    for v, name in enumerate(gt.videos):
        a, b = int(bounds[v]), int(bounds[v + 1])
        pv = pred_part.get(name, _MISSING)
        if a == b:
            continue
        if pv is _MISSING:
            raise SubmissionError(part_label, message="video %r is missing" % name,
                                  expected="part results for every test video")
        if not isinstance(pv, dict):
            raise _sub_fault(part_label, "video %r" % name, "an object {frame: {humans}}", pv)
        get = pv.get
        frames[a:b] = [get(f, _MISSING) for f in gt.frame_name[a:b]]
        pr.extra_frames += len(pv) - (b - a) + sum(1 for f in gt.frame_name[a:b] if f not in pv)
    pr.frame_has_pred = np.fromiter((f is not _MISSING for f in frames), dtype=bool, count=n_frames)
    pr.missing_frames = int(n_frames - pr.frame_has_pred.sum())
    ev = np.flatnonzero(pr.frame_has_pred)
    ev_frames = [frames[k] for k in ev]
    try:
        _flatten_pred(pr, ev, ev_frames, gt)
    except (KeyError, TypeError, ValueError, AttributeError):
        for k, fr in zip(ev, ev_frames):
            check_pred_frame(part_label, gt.videos[gt.frame_video[k]], gt.frame_name[k], fr)
        raise SubmissionError(part_label, message="malformed part results")
    pr.cut_warning = cut_box_warning(pr, gt, frames)
    return pr


def read_predictions_bytes(pred_vid, data, gt, vid_label, part_label):
    """Predictions from the parsed pred_vid_result and the bytes of pred_part_result: straight from the bytes when
    the structural pass handles them and every rule holds, else json.loads and read_predictions (the messages)."""
    pr = predictions_from_bytes(pred_vid, data, gt, vid_label)
    if pr is None:
        pr = read_predictions(pred_vid, parse_json(data, part_label), gt, vid_label, part_label)
    return pr


def predictions_from_bytes(pred_vid, data, gt, vid_label):
    """Predictions, or None for the stdlib path (a fault to name, or what the pass does not handle; boxes of more
    than 4 numbers, legal but rare, go there too for their warning)."""
    found = _scan_part_file(data, pred=True)
    if found is None:
        return None
    scan, videos, per_video = found
    pr = Predictions()
    pr.classes, pr.extra_videos = read_pred_classes(pred_vid, gt, vid_label)    # part_result is valid JSON
    n_frames = len(gt.frame_name)
    match = np.full(n_frames, -1, dtype=np.int64)
    bounds = np.searchsorted(gt.frame_video, np.arange(gt.n_videos + 1))
    for v, name in enumerate(gt.videos):
        a, b = int(bounds[v]), int(bounds[v + 1])
        if a == b:
            continue
        j = videos.get(name)
        if j is None:
            return None
        pv = per_video[j]
        get = pv.get
        got = [get(f, -1) for f in gt.frame_name[a:b]]
        match[a:b] = got
        missing = got.count(-1)
        pr.extra_frames += len(pv) - (b - a) + missing
    pr.frame_has_pred = match >= 0
    pr.missing_frames = int(n_frames - pr.frame_has_pred.sum())
    ev = np.flatnonzero(pr.frame_has_pred)
    frames = match[ev]
    n_h = scan.frame_humans[frames]
    if n_h.size and n_h.max() > MAX_HUMANS:
        return None
    human_sel = _segments(_starts(scan.frame_humans), scan.frame_humans, frames)
    pr.human_frame = np.repeat(ev, n_h)
    pr.human_box = scan.human_box[human_sel]
    pr.human_cut = np.zeros(0, dtype=np.int64)
    part_sel = _segments(_starts(scan.human_parts), scan.human_parts, human_sel)
    pr.pp_human = np.repeat(np.arange(human_sel.size, dtype=np.int64), scan.human_parts[human_sel])
    nverb, nbox = scan.part_nverb[part_sel], scan.part_nbox[part_sel]
    if (nverb > MAX_PROPOSALS).any() or (nbox > nverb).any():
        return None
    names = np.array([gt.names.get(t, -1) for t in _texts(scan.part_name)] or [-1], dtype=np.int64)
    pr.pp_name = names[scan.part_name.codes[part_sel]]
    pr.pp_nverb, pr.pp_nbox = nverb, nbox
    pr.pp_box_start = np.cumsum(nbox) - nbox
    verbs = np.array([gt.verbs.get(t, -1) for t in _texts(scan.part_verb)] or [-1], dtype=np.int64)
    pr.prop_box, pr.prop_verb = _proposals(scan, part_sel, nbox, verbs)
    pr.prop_cut = np.zeros(0, dtype=np.int64)
    return pr


def _proposals(scan, part_sel, nbox, verb_codes, block=1 << 16):
    """(prop_box, prop_verb) of the parts part_sel: box j of a part and its verb j (a GT state code), a block of
    parts at a time (small temporaries). When the parts are in file order (the usual case), the boxes move down
    inside the pass's own buffer instead of into a copy: each block reads rows at or after the ones it writes,
    and the rows it reads have not been written yet."""
    box_start = _starts(scan.part_nbox)
    verb_start = _starts(scan.part_nverb)
    total = int(nbox.sum())
    src = scan.prop_box
    in_place = part_sel.size < 2 or bool((np.diff(part_sel) > 0).all())
    boxes = src if in_place else np.empty((total, 4), dtype=np.float64)
    verbs = np.empty(total, dtype=np.int64)
    codes = scan.part_verb.codes
    at = 0
    for a in range(0, part_sel.size, block):
        parts = part_sel[a:a + block]
        n = nbox[a:a + block]
        k = int(n.sum())
        j = np.arange(k) - np.repeat(_starts(n), n)
        rows = np.repeat(box_start[parts], n) + j
        boxes[at:at + k] = src[rows]
        verbs[at:at + k] = verb_codes[codes[np.repeat(verb_start[parts], n) + j]]
        at += k
    return boxes[:total], verbs


def cut_box_warning(pr, gt, frames):
    """The warning for predicted boxes of more than 4 numbers, or None. It names the first such box in file order
    (human box before its parts' boxes) as the participant wrote it. frames: the predicted frame objects, indexed
    like the ground-truth frames (read_predictions' list)."""
    n_cut = pr.human_cut.size + pr.prop_cut.size
    if n_cut == 0:
        return None
    candidates = [(int(h), -1, 0) for h in pr.human_cut[:1]]          # (human, part, proposal); -1: the human box
    if pr.prop_cut.size:
        q = int(pr.prop_cut[0])
        part = int(np.searchsorted(pr.pp_box_start, q, side="right")) - 1   # the part whose boxes hold q
        candidates.append((int(pr.pp_human[part]), part, q - int(pr.pp_box_start[part])))
    human, part, j = min(candidates)
    k = int(pr.human_frame[human])
    i = human - int(np.searchsorted(pr.human_frame, k))                   # its position in the frame
    obj = frames[k]["humans"][i]
    where = "video %r > frame %r > humans[%d]" % (gt.videos[gt.frame_video[k]], gt.frame_name[k], i)
    if part < 0:
        where, box = where + " > box", obj["box"]
    else:
        name, p = list(obj["parts"].items())[part - int(np.searchsorted(pr.pp_human, human))]
        where, box = "%s > parts %r > box[%d]" % (where, name, j), p["box"][j]
    return cut_box_text(n_cut, where, box)


def cut_box_text(count, where, box):
    """The one text of that warning (scoring and validate): the count and the first box, as submitted."""
    return ("%d predicted box(es) have more than 4 numbers: only the first 4 (x1, y1, x2, y2) are read, as the "
            "original does; the first: %s = %s" % (count, where, shorten(json.dumps(box))))


def _flatten_pred(pr, ev, ev_frames, gt):
    if not set(map(type, ev_frames)) <= {dict}:
        raise ValueError("frame")
    hls = [f["humans"] for f in ev_frames]
    if not set(map(type, hls)) <= {list}:
        raise ValueError("humans")
    n_h = np.fromiter(map(len, hls), dtype=np.int64, count=len(hls))
    if n_h.size and n_h.max() > MAX_HUMANS:
        raise ValueError("too many humans")
    humans = list(chain.from_iterable(hls))
    pr.human_frame = np.repeat(ev, n_h)
    human_boxes, pr.pp_human, names, vals = _humans_and_parts(humans, as_predicted_boxes)
    pr.human_box, pr.human_cut = human_boxes
    verbs = [p["verb"] for p in vals]
    boxes = [p["box"] for p in vals]
    if not set(map(type, verbs)) <= {list} or not set(map(type, boxes)) <= {list}:
        raise ValueError("part lists")
    nverb = np.fromiter(map(len, verbs), dtype=np.int64, count=len(verbs))
    nbox = np.fromiter(map(len, boxes), dtype=np.int64, count=len(boxes))
    if (nverb > MAX_PROPOSALS).any() or (nbox > nverb).any():
        raise ValueError("proposals")
    # states unknown to the ground truth (code -1) are the only ones whose type needs a look; an unhashable one
    # (a list, an object) raises TypeError here
    verb_code = np.fromiter(map(gt.verbs.get, chain.from_iterable(verbs), repeat(-1)), dtype=np.int64,
                            count=int(nverb.sum()))
    verb_start = np.cumsum(nverb) - nverb
    unknown = np.flatnonzero(verb_code < 0)
    if unknown.size > 1000:
        if not set(map(type, chain.from_iterable(verbs))) <= {str}:
            raise ValueError("verbs")
    elif unknown.size:
        part = np.searchsorted(verb_start, unknown, side="right") - 1
        if not set(type(verbs[k][j]) for k, j in zip(part.tolist(), (unknown - verb_start[part]).tolist())) <= {str}:
            raise ValueError("verbs")
    prop_boxes = as_predicted_box_groups(boxes, int(nbox.sum()))
    if prop_boxes is None:
        raise ValueError("boxes")
    pr.prop_box, pr.prop_cut = prop_boxes
    pr.pp_name = np.fromiter(map(gt.names.get, names, repeat(-1)), dtype=np.int64, count=len(names))
    pr.pp_nverb, pr.pp_nbox = nverb, nbox
    pr.pp_box_start = np.cumsum(nbox) - nbox
    owner = np.repeat(np.arange(nbox.size), nbox)
    j = np.arange(owner.size) - pr.pp_box_start[owner]
    pr.prop_verb = verb_code[verb_start[owner] + j]
