"""Kinetics-TPS JSON files: ground truth and submission, flattened into numpy arrays.

    gt_vid_result.json     {video: action_class}
    gt_part_result.json    {video: {frame_json_name: {"humans": [{"box": [x1,y1,x2,y2],
                                    "parts": {part_name: {"box": [x1,y1,x2,y2], "verb": STATE}}}]}}}
    pred_vid_result.json   {video: predicted_class}
    pred_part_result.json  {video: {frame_json_name: {"humans": [{"box": [x1,y1,x2,y2],
                                    "parts": {part_name: {"box": [[..], [..]], "verb": [S1, S2]}}}]}}}

Other keys ("number", "name") are ignored. The part files are read straight from their bytes into arrays by a
vectorized structural pass (formats.kinetics_json: no Python object per number, string or container). A block of a
prediction file that the pass does not read itself (a fault, a box of more than 4 numbers, a container under an
ignored key) goes to json.loads alone and to flatten_part_file, the stdlib path: it works on whole lists at once
(list comprehensions and numpy), each rule a vectorized predicate that gives the first bad item, and only the
message of the first fault in file order is built from the objects. A file the pass cannot cut in blocks goes to
json.loads whole, within a memory budget (formats.jsoncaps). The two small vid_result files always go through
json.loads. Before any of it, the caps (formats.jsoncaps): no string over limits.MAX_FIELD_CHARS, no number over
limits.MAX_NUMBER_CHARS.

Every rule of a submission holds for everything it holds, whether or not the ground truth has that video or frame
(issue 20): a rule checked only where the ground truth has humans would tell the participant which frames are
annotated. Only the test videos (the keys of gt_vid_result.json, which the participants know) are looked up.
"""
from __future__ import annotations

import gc
import json
import math
import operator
from contextlib import contextmanager
from itertools import chain, compress, islice, repeat
from typing import NamedTuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some, shorten
from .jsoncaps import check_caps, check_json_cost
from .limits import ECHO_CHARS
from .kinetics_json import BlockReader, PartFile, Strings, json_error, read_part_file
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


def parse_json(data, label, err=SubmissionError):
    """json.loads of a file's bytes (the stdlib path), with load_json's messages. The caps come first
    (formats.jsoncaps: no string over limits.MAX_FIELD_CHARS, no number over limits.MAX_NUMBER_CHARS), so no
    integer json.loads converts has more than 64 digits, and the messages are the same on every Python; then, for
    a participant's file, what json.loads would take in memory (check_json_cost)."""
    check_caps(data, label, err)
    if err is SubmissionError:
        check_json_cost(data, label)
    try:
        with no_cycle_collection():
            return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise json_error(label, e, err)


def _found(x):
    """What was found, for a message: the kind of value and its start (json.dumps, shortened)."""
    if isinstance(x, dict):
        return "an object with keys %s" % _keys(x, 6)
    if isinstance(x, list):
        return "a list of %d: %s" % (len(x), shorten(_dumps_start(x)))
    if isinstance(x, str):
        return "the text %s" % shorten(x)
    return shorten(_dumps_start(x))


def _keys(obj, most=ECHO_CHARS):
    """The first keys of an object, joined and shortened (never a join of all of a crafted object's keys)."""
    return shorten(", ".join(map(str, islice(obj, most))))


def _dumps_start(x, budget=2 * ECHO_CHARS):
    """json.dumps(x), or a text that starts with its first `budget` - 1 characters and is longer (a copy of x cut
    to what those characters show): shortened (errors.shorten keeps fewer), both read the same, and a list of a
    million numbers costs nothing."""
    return json.dumps(_cut(x, budget))


def _cut(x, budget):
    """x with each list or object cut after the items that reach `budget` characters of json.dumps."""
    if not isinstance(x, (list, dict)) or budget <= 0:
        return x
    items = x.items() if isinstance(x, dict) else x
    out, used = [], 1
    for item in items:
        if used > budget:
            break
        if isinstance(x, dict):
            item = (item[0], _cut(item[1], budget - used - len(json.dumps(item[0])) - 2))
            used += len(json.dumps(item[0])) + 2 + len(json.dumps(item[1])) + 2
        else:
            item = _cut(item, budget - used)
            used += len(json.dumps(item)) + 2
        out.append(item)
    return dict(out) if isinstance(x, dict) else out


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


def _bad_boxes(boxes, longer):
    """bool per box of a list: True where the box breaks _is_box(box, longer), found in C passes over the flat
    numbers (the rule's vectorized predicate, for the index of the first bad box; _boxes is the fast path that
    only says whether all are good)."""
    n = len(boxes)
    bad = ~np.fromiter(map(isinstance, boxes, repeat(list)), dtype=bool, count=n)
    lists = np.flatnonzero(~bad)
    lengths = np.fromiter(map(len, compress(boxes, ~bad)), dtype=np.int64, count=lists.size)
    wrong_length = lengths < 4 if longer else lengths != 4
    bad[lists[wrong_length]] = True
    flat = list(chain.from_iterable(compress(boxes, ~bad)))
    owner = np.repeat(lists[~wrong_length], lengths[~wrong_length])
    finite = np.fromiter(map(isinstance, flat, repeat((int, float))), dtype=bool, count=len(flat))
    numbers = list(compress(flat, finite))
    try:
        finite[finite] = np.isfinite(np.array(numbers, dtype=np.float64).reshape(-1))
    except OverflowError:       # an int beyond any float (not from a file: the caps keep a literal to 64 chars)
        finite[finite] = np.fromiter(map(_is_number, numbers), dtype=bool, count=len(numbers))
    bad[owner[~finite]] = True
    return bad


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
    videos = dict(zip(scan.video_key, range(len(scan.video_key))))
    if len(videos) != len(scan.video_key):
        return None
    # a video's frames are consecutive (frame_video is sorted): one dict per video, built in C
    bounds = np.searchsorted(scan.frame_video, np.arange(len(scan.video_key) + 1)).tolist()
    keys = scan.frame_key
    per_video = [dict(zip(keys[a:b], range(a, b))) for a, b in zip(bounds[:-1], bounds[1:])]
    if sum(map(len, per_video)) != len(scan.frame_key):
        return None
    return videos, per_video


def _scan_part_file(data, pred, reader=None):
    """The bytes of a part_result file -> (scan, videos, per_video) (kinetics_json.read_part_file, then
    _frames_by_video), or None where either gives up (the stdlib path then)."""
    scan = read_part_file(data, pred=pred, reader=reader)
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
        self.cut_warning = None     # the warning about boxes of more than 4 numbers (cut_box_text), or None


# ---------------------------------------------------------------- the rules of a predicted part file
#
# Every rule holds for everything in pred_part_result.json, whether or not the ground truth has that video or frame
# (issue 20: a rule checked only where the ground truth has humans tells which frames are annotated). The count
# rules are one vectorized predicate each, shared by the byte pass (read_part_predictions) and the stdlib path
# (flatten_predictions); each returns the index of the first item that breaks it, or -1.

def _first(mask):
    """Index of the first True of a bool array, or -1."""
    k = int(np.argmax(mask)) if mask.size else 0
    return k if mask.size and mask[k] else -1


def too_many_humans(frame_humans):
    """The first frame with more than MAX_HUMANS predicted humans (the original keeps 10 per frame)."""
    return _first(frame_humans > MAX_HUMANS)


def too_many_proposals(part_nverb):
    """The first part with more than MAX_PROPOSALS verbs (the original's limit of 5 proposals per part)."""
    return _first(part_nverb > MAX_PROPOSALS)


def more_boxes_than_verbs(part_nbox, part_nverb):
    """The first part with more boxes than verbs (the original reads verb j for box j)."""
    return _first(part_nbox > part_nverb)


def count_fault(frame_humans, part_nverb, part_nbox):
    """True when a count rule fails in a block of the byte pass (which then reads the block with json.loads and
    flatten_predictions, to name the first fault)."""
    return (too_many_humans(frame_humans) >= 0 or too_many_proposals(part_nverb) >= 0
            or more_boxes_than_verbs(part_nbox, part_nverb) >= 0)


class PredFile(NamedTuple):
    """A predicted part file, checked: every video, frame, human, part and proposal in file order (the byte pass's
    PartFile), its keys (_frames_by_video) and the warning about its boxes of more than 4 numbers (or None)."""
    part: object
    keys: tuple
    cut_warning: object


def read_part_predictions(data, label):
    """PredFile of the bytes of pred_part_result.json: the byte pass, which reads what it cannot itself a block at
    a time with json.loads and flatten_predictions (BlockReader); json.loads of the whole file only where the pass
    cannot cut it in blocks (a repeated video or frame key, a frame larger than kinetics_json.MAX_BLOCK). The same
    arrays and the same first fault either way."""
    reader = BlockReader(label, lambda doc: flatten_part_file(doc, label), count_fault)
    found = _scan_part_file(data, pred=True, reader=reader)
    if found is not None:
        scan = found[0]
        return PredFile(scan, found[1:], None if scan.cut is None else cut_box_text(*scan.cut))
    return flatten_predictions(parse_json(data, label), label)


def _is_missing(items):
    return np.fromiter(map(operator.is_, items, repeat(_MISSING)), dtype=bool, count=len(items))


def _is_not(items, kind):
    return ~np.fromiter(map(isinstance, items, repeat(kind)), dtype=bool, count=len(items))


def _lengths(items):
    return np.fromiter(map(len, items), dtype=np.int64, count=len(items))


def _members(objects):
    """The members of a list of dicts, flat: (members per dict, the dict of each, their keys, their values)."""
    counts = _lengths(objects)
    owner = np.repeat(np.arange(len(objects), dtype=np.int64), counts)
    return counts, owner, list(chain.from_iterable(objects)), list(chain.from_iterable(map(dict.values, objects)))


def _get(objects, key):
    """obj.get(key, _MISSING) of a list of dicts, in C."""
    return list(map(dict.get, objects, repeat(key), repeat(_MISSING)))


class _Fault(NamedTuple):
    """The first fault found so far: the level (video, frame, human, part, box), the item's index in its level's
    flat list (file order) and the rule (by its place in the order of the checks)."""
    level: str
    index: int
    rule: str


def flatten_predictions(pred_part, label):
    """PredFile of a parsed pred_part_result, or SubmissionError naming the first fault in file order
    (flatten_part_file)."""
    part = flatten_part_file(pred_part, label)
    return PredFile(part, _frames_by_video(part), None if part.cut is None else cut_box_text(*part.cut))


def flatten_part_file(pred_part, label):
    """PartFile (formats.kinetics_json, with .cut) of a parsed pred_part_result, or SubmissionError naming the
    first fault in file order.

    The checks run level by level over flat lists (videos, frames, humans, parts, proposal boxes), each rule a
    vectorized predicate giving the first bad item. A level only looks at the items before the first fault of the
    level above it (the items after it come later in the file), so the deepest fault found is the first in file
    order; only its message is built from the objects (_fault_message).
    """
    if not isinstance(pred_part, dict):
        raise SubmissionError(label, expected="an object {video: {frame: {humans}}}", found=_found(pred_part))
    fault = None
    video_key = list(pred_part)
    videos = list(pred_part.values())

    def check(level, rule, k, *lists):
        """Record item k (-1: none) as the fault; return the lists cut before it."""
        nonlocal fault
        if k < 0:
            return lists if len(lists) > 1 else lists[0]
        fault = _Fault(level, k, rule)
        cut = tuple(x[:k] for x in lists)
        return cut if len(cut) > 1 else cut[0]

    videos = check("video", "object", _first(_is_not(videos, dict)), videos)
    _, frame_video, frame_key, frames = _members(videos)
    all_frames = frames
    frames = check("frame", "humans", _first(_is_not(frames, dict)), frames)
    humans_lists = _get(frames, "humans")
    humans_lists = check("frame", "humans", _first(_is_missing(humans_lists)), humans_lists)
    humans_lists = check("frame", "list", _first(_is_not(humans_lists, list)), humans_lists)
    frame_humans = _lengths(humans_lists)
    humans_lists, frame_humans = check("frame", "count", too_many_humans(frame_humans), humans_lists,
                                       frame_humans)
    human_frame = np.repeat(np.arange(len(humans_lists), dtype=np.int64), frame_humans)
    humans = all_humans = list(chain.from_iterable(humans_lists))
    humans = check("human", "object", _first(_is_not(humans, dict)), humans)
    human_boxes = _get(humans, "box")
    humans, human_boxes = check("human", "box", _first(_is_missing(human_boxes)), humans, human_boxes)
    human_box = _boxes(lambda: human_boxes, len(human_boxes), longer=True)
    if human_box is None:
        humans, human_boxes = check("human", "box value", _first(_bad_boxes(human_boxes, True)), humans,
                                    human_boxes)
    parts = _get(humans, "parts")
    parts = check("human", "parts", _first(_is_missing(parts)), parts)
    parts = check("human", "parts object", _first(_is_not(parts, dict)), parts)
    human_parts, part_human, names, values = _members(parts)
    all_values = values
    values = check("part", "object", _first(_is_not(values, dict)), values)
    verbs, boxes = _get(values, "verb"), _get(values, "box")
    verbs, boxes = check("part", "object", _first(_is_missing(verbs) | _is_missing(boxes)), verbs, boxes)
    not_list = _is_not(verbs, list)
    nverb = np.zeros(len(verbs), dtype=np.int64)
    nverb[~not_list] = _lengths(list(compress(verbs, ~not_list)))
    flat_verbs = list(chain.from_iterable(compress(verbs, ~not_list)))
    not_text = np.repeat(np.flatnonzero(~not_list), nverb[~not_list])[_is_not(flat_verbs, str)]
    not_list[not_text] = True
    verbs, boxes, nverb = check("part", "verbs", _first(not_list), verbs, boxes, nverb)
    verbs, boxes, nverb = check("part", "verb count", too_many_proposals(nverb), verbs, boxes, nverb)
    verbs, boxes, nverb = check("part", "boxes", _first(_is_not(boxes, list)), verbs, boxes, nverb)
    nbox = _lengths(boxes)
    verbs, boxes, nverb, nbox = check("part", "box count", more_boxes_than_verbs(nbox, nverb), verbs, boxes, nverb,
                                      nbox)
    proposals = _boxes(lambda: chain.from_iterable(boxes), int(nbox.sum()), longer=True)
    if proposals is None:
        check("box", "box value", _first(_bad_boxes(list(chain.from_iterable(boxes)), True)), boxes)
    places = _Places(video_key, frame_video, frame_key, human_frame, part_human, names, nbox)
    if fault is not None:
        raise _fault_message(label, fault, places, pred_part, all_frames, all_humans, all_values)
    verbs = list(chain.from_iterable(verbs))
    cut = _first_cut(human_box.cut, proposals.cut, places, all_humans, all_values)
    return PartFile(video_key, frame_key, frame_video, frame_humans, human_box.boxes, human_parts,
                    _strings(names), None, _strings(verbs), nbox, nverb, proposals.boxes, cut)


def _strings(texts):
    """Strings (formats.kinetics_json) of a list of str: distinct UTF-8 texts in order of first appearance, and a
    code per item, as the byte pass gives them."""
    vocab = {}
    codes = _codes(vocab, texts)
    return Strings([t.encode("utf-8", "surrogatepass") for t in vocab], codes)


class _Places(NamedTuple):
    """Where the items of flatten_part_file's flat lists lie, for the messages: the video of each frame, the frame
    of each human, the human and name of each part, the proposal boxes per part."""
    video_key: list
    frame_video: np.ndarray
    frame_key: list
    human_frame: np.ndarray
    part_human: np.ndarray
    part_name: list
    part_nbox: np.ndarray

    def box(self, index):
        """(part, j): proposal box `index` (flat) is box j of that part."""
        part = int(np.searchsorted(np.cumsum(self.part_nbox), index, side="right"))
        return part, index - int(self.part_nbox[:part].sum())

    def where(self, level, index):
        """'video ... > frame ... > humans[i] > parts ... > box[j]', down to item `index` of `level`."""
        if level == "box":
            part, j = self.box(index)
            return "%s > box[%d]" % (self.where("part", part), j)
        if level == "part":
            return "%s > parts %s" % (self.where("human", int(self.part_human[index])), shorten(self.part_name[index]))
        if level == "human":
            frame = int(self.human_frame[index])
            return "%s > humans[%d]" % (self.where("frame", frame),
                                        index - int(np.searchsorted(self.human_frame, frame)))
        if level == "frame":
            return "video %s > frame %s" % (shorten(self.video_key[int(self.frame_video[index])]),
                                            shorten(self.frame_key[index]))
        return "video %s" % shorten(self.video_key[index])


def _fault_message(label, fault, places, pred_part, frames, humans, values):
    """The SubmissionError of the first fault: where it is and what was found (the one object looked at)."""
    where = places.where(fault.level, fault.index)
    level, rule, k = fault.level, fault.rule, fault.index
    if level == "video":
        return _sub_fault(label, where, "an object {frame: {humans}}", pred_part[places.video_key[k]])
    if level == "frame":
        fr = frames[k]
        hs = fr.get("humans", _MISSING) if isinstance(fr, dict) else _MISSING
        if rule == "humans":
            return _sub_fault(label, where, "an object with a 'humans' list", fr)
        if rule == "list":
            return _sub_fault(label, where + " > humans", "a list of humans", hs)
        return SubmissionError(label, message=where, expected="at most %d predicted humans per frame" % MAX_HUMANS,
                               found="%d" % len(hs))
    if level == "human":
        h = humans[k]
        if rule == "object":
            return _sub_fault(label, where, "an object with 'box' and 'parts'", h)
        if rule == "box":
            return SubmissionError(label, message=where, expected="a 'box' for every predicted human",
                                   found="keys %s" % _keys(h))
        if rule == "box value":
            return _sub_fault(label, where + " > box", BOX, h["box"])
        if rule == "parts":
            return SubmissionError(label, message=where, expected="a 'parts' object for every predicted human",
                                   found="keys %s" % _keys(h))
        return _sub_fault(label, where + " > parts", "an object {part_name: {box, verb}}", h["parts"])
    if level == "part":
        p = values[k]
        if rule == "object":
            return _sub_fault(label, where, "an object with 'box' and 'verb' lists", p)
        if rule == "verbs":
            return _sub_fault(label, where + " > verb", "a list of state names", p["verb"])
        if rule == "verb count":
            return SubmissionError(label, message=where + " > verb",
                                   expected="at most %d proposals per part" % MAX_PROPOSALS,
                                   found="%d" % len(p["verb"]))
        if rule == "boxes":
            return _sub_fault(label, where + " > box", "a list of boxes", p["box"])
        return SubmissionError(label, message=where, expected="no more boxes than verbs (one state per box)",
                               found="%d boxes and %d verbs" % (len(p["box"]), len(p["verb"])))
    part, j = places.box(k)
    return _sub_fault(label, where, BOX, values[part]["box"][j])


def _first_cut(human_cut, prop_cut, places, humans, values):
    """(count, where, box) of the predicted boxes of more than 4 numbers, for their warning (cut_box_text), or
    None: their number in the whole file and the first of them in file order (a human's box before its parts'
    boxes), as the participant wrote it."""
    n_cut = human_cut.size + prop_cut.size
    if n_cut == 0:
        return None
    first = []
    if human_cut.size:
        h = int(human_cut[0])
        first.append(((h, -1), "human", h, humans[h]["box"]))
    if prop_cut.size:
        q = int(prop_cut[0])
        part, j = places.box(q)
        first.append(((int(places.part_human[part]), part), "box", q, values[part]["box"][j]))
    _, level, index, box = min(first, key=lambda f: f[0])
    where = places.where(level, index)
    return n_cut, where + (" > box" if level == "human" else ""), box


def cut_box_text(count, where, box):
    """The one text of that warning (scoring and validate): the count and the first box, as submitted."""
    return ("%d predicted box(es) have more than 4 numbers: only the first 4 (x1, y1, x2, y2) are read, as the "
            "original does; the first: %s = %s" % (count, where, shorten(_dumps_start(box))))


def _sub_fault(label, where, expected, x):
    return SubmissionError(label, message=where, expected=expected, found=_found(x))


# ---------------------------------------------------------------- the class file

def check_classes(pred_vid, label):
    """The rules of pred_vid_result.json alone: an object whose every value (every video of the file, in file
    order) is text."""
    if not isinstance(pred_vid, dict):
        raise SubmissionError(label, expected="an object {video: predicted_class}", found=_found(pred_vid))
    values = list(pred_vid.values())
    k = _first(_is_not(values, str))
    if k >= 0:
        raise _sub_fault(label, "video %s" % shorten(next(islice(pred_vid, k, None))), "a class name (text)",
                         values[k])


def read_pred_classes(pred_vid, gt, label):
    """Predicted class per ground-truth video, and the number of other videos: check_classes, then every test
    video (a key of gt_vid_result.json: the public list of test videos) must have one."""
    check_classes(pred_vid, label)
    missing = [v for v in gt.videos if v not in pred_vid]
    if missing:
        raise SubmissionError(label, message="video %s has no predicted class" % shorten(missing[0]),
                              expected="a class for every test video",
                              found="%d missing: %s" % (len(missing), quote_some(missing)))
    return list(map(pred_vid.__getitem__, gt.videos)), len(pred_vid) - len(gt.videos)


# ---------------------------------------------------------------- both paths, aligned with the ground truth

def read_predictions(pred_vid, pred_part, gt, vid_label, part_label):
    """Predictions of a parsed submission (the stdlib path): every rule on the whole part file first
    (flatten_predictions), then the alignment with the ground truth."""
    return _align(flatten_predictions(pred_part, part_label), pred_vid, gt, vid_label, part_label)


def read_predictions_bytes(pred_vid, data, gt, vid_label, part_label):
    """Predictions from the parsed pred_vid_result and the bytes of pred_part_result (read_part_predictions: the
    byte pass, or the stdlib path for the messages and the boxes of more than 4 numbers)."""
    return _align(read_part_predictions(data, part_label), pred_vid, gt, vid_label, part_label)


def _align(pred, pred_vid, gt, vid_label, part_label):
    """Predictions of a checked part file (a PartFile: every frame of the file) for the ground truth's frames
    with humans. A test video missing from the part file is an error, whether or not it has frames with humans;
    predicted frames the ground truth does not evaluate are only counted (extra_frames). pred: a PredFile."""
    scan = pred.part
    videos, per_video = pred.keys
    pr = Predictions()
    pr.classes, pr.extra_videos = read_pred_classes(pred_vid, gt, vid_label)
    missing = [name for name in gt.videos if name not in videos]
    if missing:
        raise SubmissionError(part_label, message="video %s is missing" % shorten(missing[0]),
                              expected="part results for every test video")
    pr.cut_warning = pred.cut_warning
    n_frames = len(gt.frame_name)
    match = np.full(n_frames, -1, dtype=np.int64)
    bounds = np.searchsorted(gt.frame_video, np.arange(gt.n_videos + 1))
    for v, name in enumerate(gt.videos):
        a, b = int(bounds[v]), int(bounds[v + 1])
        pv = per_video[videos[name]]
        if a == b:
            continue
        get = pv.get
        got = [get(f, -1) for f in gt.frame_name[a:b]]
        match[a:b] = got
        pr.extra_frames += len(pv) - (b - a) + got.count(-1)
    pr.frame_has_pred = match >= 0
    pr.missing_frames = int(n_frames - pr.frame_has_pred.sum())
    ev = np.flatnonzero(pr.frame_has_pred)
    frames = match[ev]
    n_h = scan.frame_humans[frames]
    human_sel = _segments(_starts(scan.frame_humans), scan.frame_humans, frames)
    pr.human_frame = np.repeat(ev, n_h)
    pr.human_box = scan.human_box[human_sel]
    part_sel = _segments(_starts(scan.human_parts), scan.human_parts, human_sel)
    pr.pp_human = np.repeat(np.arange(human_sel.size, dtype=np.int64), scan.human_parts[human_sel])
    nverb, nbox = scan.part_nverb[part_sel], scan.part_nbox[part_sel]
    names = np.array([gt.names.get(t, -1) for t in _texts(scan.part_name)] or [-1], dtype=np.int64)
    pr.pp_name = names[scan.part_name.codes[part_sel]]
    pr.pp_nverb, pr.pp_nbox = nverb, nbox
    pr.pp_box_start = np.cumsum(nbox) - nbox
    verbs = np.array([gt.verbs.get(t, -1) for t in _texts(scan.part_verb)] or [-1], dtype=np.int64)
    pr.prop_box, pr.prop_verb = _proposals(scan, part_sel, nbox, verbs)
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
