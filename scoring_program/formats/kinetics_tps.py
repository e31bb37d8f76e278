"""Kinetics-TPS JSON files: ground truth and submission, flattened into numpy arrays.

    gt_vid_result.json     {video: action_class}
    gt_part_result.json    {video: {frame_json_name: {"humans": [{"box": [x1,y1,x2,y2],
                                    "parts": {part_name: {"box": [x1,y1,x2,y2], "verb": STATE}}}]}}}
    pred_vid_result.json   {video: predicted_class}
    pred_part_result.json  {video: {frame_json_name: {"humans": [{"box": [x1,y1,x2,y2],
                                    "parts": {part_name: {"box": [[..], [..]], "verb": [S1, S2]}}}]}}}

Other keys ("number", "name") are ignored. The part files are read straight from their bytes into arrays by the
JSON byte pass and the schema on it (formats.jsonpass, formats.kinetics_json: no Python object per number, string
or container). A block of a prediction file that the pass does not read itself (a fault, a box of more than 4
numbers, a container deeper than the schema) goes to json.loads alone and to flatten_part_file, the stdlib path; a
ground-truth file the pass does not read goes to json.loads whole and to flatten_ground_truth. Both work on whole
lists at once (list comprehensions and numpy), level by level (videos, frames, humans, parts, boxes): each rule of
RULES is a vectorized predicate that gives the first bad item, and only the message of the first fault is built from
the objects. The count rules (MAX_HUMANS, MAX_PROPOSALS, no more boxes than verbs) carry their test in the table,
which the byte pass evaluates on its counts too. A file the pass cannot cut in blocks goes to json.loads whole,
within a memory budget (formats.jsoncaps). The two small vid_result files always go through json.loads. Before any
of it, the caps (formats.jsoncaps): no string over limits.MAX_FIELD_CHARS, no number over limits.MAX_NUMBER_CHARS.

Every rule of a submission holds for everything it holds, whether or not the ground truth has that video or frame
(issue 20): a rule checked only where the ground truth has humans would tell the participant which frames are
annotated. Only the test videos (the keys of gt_vid_result.json, which the participants know) are looked up.
"""
from __future__ import annotations

import json
import math
import operator
from itertools import chain, compress, islice, repeat
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Type, Union

import numpy as np

from ..errors import ReferenceDataError, ScoringError, SubmissionError, quote_some, shorten
from .jsoncaps import file_bytes, load_json, no_cycle_collection, parse_json
from .kinetics_json import BlockReader, PartFile, Strings, read_part_file, segments
from .limits import ECHO_CHARS

__all__ = ["GroundTruth", "Predictions", "PredFile", "RULES", "MAX_HUMANS", "MAX_PROPOSALS", "file_bytes",
           "load_json", "no_cycle_collection", "parse_json", "read_ground_truth", "flatten_ground_truth",
           "read_part_predictions", "flatten_predictions", "flatten_part_file", "read_predictions",
           "read_predictions_bytes", "check_classes", "read_pred_classes", "count_fault", "cut_box_text",
           "align_predictions", "missing_videos_error", "texts"]

MAX_HUMANS = 10
MAX_PROPOSALS = 5
_MISSING = object()


# ---------------------------------------------------------------- the records

class GroundTruth(NamedTuple):
    """The flattened ground truth: V videos (gt_vid_result.json's order), the F frames with at least one human (video
    by video, each video's frames in gt_part_result.json's order), their H humans and P parts, in that order."""
    videos: List[str]           # (V,) video names, gt_vid_result.json's keys
    classes: List[str]          # (V,) their action classes
    frame_video: np.ndarray     # (F,) int64 video index of each frame with humans
    frame_name: List[str]       # (F,) its frame key
    empty_frames: np.ndarray    # (V,) int64 frames of the video without humans (dropped from the count)
    human_frame: np.ndarray     # (H,) int64 frame index of each human
    human_box: np.ndarray       # (H, 4) float64 as written (the metric casts to float32 like the original)
    part_human: np.ndarray      # (P,) int64 human index of each part
    part_name: np.ndarray       # (P,) int64 code of its name (names)
    part_box: np.ndarray        # (P, 4) float64
    part_verb: np.ndarray       # (P,) int64 code of its state (verbs)
    names: Dict[str, int]       # part name -> code, dense in order of first appearance among the parts
    verbs: Dict[str, int]       # state -> code, likewise

    @property
    def n_videos(self) -> int:
        return len(self.videos)


class Predictions(NamedTuple):
    """The parts of a submission the metric reads, aligned with a GroundTruth (V videos, F frames): the predicted
    humans (Hp) of the frames the ground truth evaluates, their parts (Pp, in file order) and the parts' proposals
    (Q: box j of a part with its verb j)."""
    classes: List[str]          # (V,) predicted class per ground-truth video
    extra_videos: int           # videos only in the prediction (ignored)
    frame_has_pred: np.ndarray  # (F,) bool: the ground-truth frame has a predicted frame
    missing_frames: int         # ground-truth frames without one (PSC 0)
    extra_frames: int           # frames of ground-truth videos only in the prediction (ignored)
    human_frame: np.ndarray     # (Hp,) int64 ground-truth frame index of each predicted human in an evaluated frame
    human_box: np.ndarray       # (Hp, 4) float64
    pp_human: np.ndarray        # (Pp,) int64 predicted human of each predicted part
    pp_name: np.ndarray         # (Pp,) int64 ground-truth name code (-1: not a ground-truth part name)
    pp_nverb: np.ndarray        # (Pp,) int64 N_p, the length of the verb list
    pp_nbox: np.ndarray         # (Pp,) int64 length of the box list (<= N_p)
    pp_box_start: np.ndarray    # (Pp,) int64 index of the part's first proposal
    prop_box: np.ndarray        # (Q, 4) float64 every proposal box
    prop_verb: np.ndarray       # (Q,) int64 ground-truth state code of verb j for box j (-1: not a ground-truth state)
    cut_warning: Optional[str]  # the warning about boxes of more than 4 numbers (cut_box_text), or None
    written: Optional["WrittenNames"] = None   # the names as the whole part file writes them (for the hints)


class WrittenNames(NamedTuple):
    """The names a predicted part file writes, over the whole file (facts about the submission alone, for the
    near-miss hints of formats.hints): distinct part names and states in order of first appearance with their
    number of occurrences, and the frame keys (in file order)."""
    part_names: List[str]
    part_counts: np.ndarray     # int64 occurrences of each part name
    states: List[str]
    state_counts: np.ndarray    # int64 occurrences of each state
    frame_keys: list            # str, every frame key of the file


class PredFile(NamedTuple):
    """A predicted part file, checked: every video, frame, human, part and proposal in file order (the byte pass's
    PartFile), its keys (_frames_by_video) and the warning about its boxes of more than 4 numbers (or None)."""
    part: PartFile
    keys: Tuple[Dict[str, int], List[Dict[str, int]]]
    cut_warning: Optional[str]


# ---------------------------------------------------------------- what a message quotes

def _found(x: object) -> str:
    """What was found, for a message: the kind of value and its start (json.dumps, shortened)."""
    if isinstance(x, dict):
        return "an object with keys %s" % _keys(x, 6)
    if isinstance(x, list):
        return "a list of %d: %s" % (len(x), shorten(_dumps_start(x)))
    if isinstance(x, str):
        return "the text %s" % shorten(x)
    return shorten(_dumps_start(x))


def _keys(obj: dict, most: int = ECHO_CHARS) -> str:
    """The first keys of an object, joined and shortened (never a join of all of a crafted object's keys)."""
    return shorten(", ".join(map(str, islice(obj, most))))


def _dumps_start(x: object, budget: int = 2 * ECHO_CHARS) -> str:
    """json.dumps(x), or a text that starts with its first `budget` - 1 characters and is longer (a copy of x cut
    to what those characters show): shortened (errors.shorten keeps fewer), both read the same, and a list of a
    million numbers costs nothing."""
    return json.dumps(_cut(x, budget))


def _cut(x: object, budget: int) -> object:
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


def _found_at(key: str) -> Callable[[dict], str]:
    """found of a rule about the value under `key` of the item (an object): that value (null when missing)."""
    return lambda item: _found(item.get(key))


def _found_keys(item: dict) -> str:
    return "keys %s" % _keys(item)


def _found_humans(frame: object) -> str:
    """found of the ground truth's frame rule: the 'humans' value, or the frame when it has none."""
    has = isinstance(frame, dict) and "humans" in frame
    return _found(frame["humans"] if has else frame)


# ---------------------------------------------------------------- the rules, each written once

BOX = "a box [x1, y1, x2, y2] of 4 finite numbers"


class Rule(NamedTuple):
    """A rule of a part file, the one place it is written: the level of the items it holds for (video, frame,
    human, part, box), what the message adds to the item's place, what was expected, what was found (a function of
    the item, the one object the message looks at), and for the count rules the vectorized test that both readers
    evaluate (the byte pass on its counts, the stdlib path on the lists' lengths): True where an item breaks it."""
    level: str
    where: str
    expected: Optional[str]                 # None: the message is the place and `where` alone
    found: Optional[Callable[[object], str]]
    test: Optional[Callable[..., np.ndarray]] = None


# Each reader checks its rules level by level, in this order; the first item breaking any rule of a level is the
# one named (the item's first rule in this order).
RULES = {
    "pred": {
        "video object": Rule("video", "", "an object {frame: {humans}}", _found),
        "frame humans": Rule("frame", "", "an object with a 'humans' list", _found),
        "frame list": Rule("frame", " > humans", "a list of humans", _found_at("humans")),
        "humans per frame": Rule("frame", "", "at most %d predicted humans per frame" % MAX_HUMANS,
                                 lambda frame: "%d" % len(frame["humans"]),
                                 test=lambda frame_humans: frame_humans > MAX_HUMANS),
        "human object": Rule("human", "", "an object with 'box' and 'parts'", _found),
        "human box": Rule("human", "", "a 'box' for every predicted human", _found_keys),
        "human box value": Rule("human", " > box", BOX, _found_at("box")),
        "human parts": Rule("human", "", "a 'parts' object for every predicted human", _found_keys),
        "human parts object": Rule("human", " > parts", "an object {part_name: {box, verb}}", _found_at("parts")),
        "part object": Rule("part", "", "an object with 'box' and 'verb' lists", _found),
        "part verbs": Rule("part", " > verb", "a list of state names", _found_at("verb")),
        "proposals per part": Rule("part", " > verb", "at most %d proposals per part" % MAX_PROPOSALS,
                                   lambda part: "%d" % len(part["verb"]),
                                   test=lambda part_nverb: part_nverb > MAX_PROPOSALS),
        "part boxes": Rule("part", " > box", "a list of boxes", _found_at("box")),
        "boxes per verb": Rule("part", "", "no more boxes than verbs (one state per box)",
                               lambda part: "%d boxes and %d verbs" % (len(part["box"]), len(part["verb"])),
                               test=lambda part_nbox, part_nverb: part_nbox > part_nverb),
        "box value": Rule("box", "", BOX, _found),
    },
    "gt": {
        "video entry": Rule("video", " of %s has no entry", None, None),
        "video object": Rule("video", "", "an object {frame: {humans}}", _found),
        "frame humans": Rule("frame", "", "an object with a 'humans' list", _found_humans),
        "human object": Rule("human", "", "an object with 'box' and 'parts'", _found),
        "human box": Rule("human", " > box", BOX, _found_at("box")),
        "human parts": Rule("human", " > parts", "an object {part_name: {box, verb}}", _found_at("parts")),
        "part object": Rule("part", "", "an object with 'box' and 'verb'", _found),
        "part box": Rule("part", " > box", BOX, _found_at("box")),
        "part verb": Rule("part", " > verb", "a state name", _found_at("verb")),
    },
}
_PRED, _GT = RULES["pred"], RULES["gt"]


def count_fault(frame_humans: np.ndarray, part_nverb: np.ndarray, part_nbox: np.ndarray) -> bool:
    """True when a count rule fails in a block of the byte pass (which then reads the block with json.loads and
    flatten_part_file, to name the first fault): the tests of RULES, on the block's counts."""
    return bool(_PRED["humans per frame"].test(frame_humans).any()
                or _PRED["proposals per part"].test(part_nverb).any()
                or _PRED["boxes per verb"].test(part_nbox, part_nverb).any())


# ---------------------------------------------------------------- boxes

class CutBoxes(NamedTuple):
    """Predicted boxes as the metric reads them, and which of them had more than 4 numbers."""
    boxes: np.ndarray       # (N, 4) float64: the first 4 numbers of each box
    cut: np.ndarray         # int64 indices of the boxes that had more than 4 numbers (empty in the usual case)


def _is_number(x: object) -> bool:
    """A finite int or float (bool is an int: the official arithmetic accepts it too)."""
    if not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def check_boxes(boxes: Sequence, longer: bool) -> Tuple[np.ndarray, Optional[CutBoxes]]:
    """The box rule on a list of boxes, in C passes over the flat numbers: (bad, read). bad[i] is True where box i is
    not a list of 4 finite numbers (ints, floats or bools, as the original's arithmetic takes them); with
    longer=True (predicted boxes) also more than 4, of which the metric reads the first 4 (the original indexes
    box[0] .. box[3] and never looks further). read: when no box is bad, the CutBoxes of them all, else None."""
    n = len(boxes)
    bad = ~np.fromiter(map(isinstance, boxes, repeat(list)), dtype=bool, count=n)
    lists = np.flatnonzero(~bad)
    lengths = np.zeros(n, dtype=np.int64)
    lengths[lists] = np.fromiter(map(len, compress(boxes, ~bad)), dtype=np.int64, count=lists.size)
    bad[lists[lengths[lists] < 4 if longer else lengths[lists] != 4]] = True
    flat = list(chain.from_iterable(compress(boxes, ~bad)))
    owner = np.repeat(np.flatnonzero(~bad), lengths[~bad])
    number = np.fromiter(map(isinstance, flat, repeat((int, float))), dtype=bool, count=len(flat))
    values = np.zeros(len(flat), dtype=np.float64)
    numbers = flat if number.all() else list(compress(flat, number))
    try:
        values[number] = np.array(numbers, dtype=np.float64).reshape(-1)
    except OverflowError:       # an int beyond any float (not from a file: the caps keep a literal to 64 chars)
        finite = np.fromiter(map(_is_number, numbers), dtype=bool, count=len(numbers))
        number[number] = finite
        values[number] = np.array(list(compress(numbers, finite)), dtype=np.float64).reshape(-1)
    number[number] = np.isfinite(values[number])
    bad[owner[~number]] = True
    if bad.any():
        return bad, None
    if n == 0 or (lengths == 4).all():
        return bad, CutBoxes(values.reshape(-1, 4), np.zeros(0, dtype=np.int64))
    starts = np.cumsum(lengths) - lengths
    return bad, CutBoxes(values[starts[:, None] + np.arange(4)], np.flatnonzero(lengths > 4))


def as_boxes(boxes: Sequence) -> Optional[np.ndarray]:
    """(N, 4) float64 array from a list of N boxes, or None when any of them is not 4 finite numbers."""
    read = check_boxes(boxes, longer=False)[1]
    return None if read is None else read.boxes


def as_predicted_boxes(boxes: Sequence) -> Optional[CutBoxes]:
    """CutBoxes from a list of N predicted boxes, or None when any of them is not 4 or more finite numbers."""
    return check_boxes(boxes, longer=True)[1]


# ---------------------------------------------------------------- flat lists, level by level

def _first(mask: np.ndarray) -> int:
    """Index of the first True of a bool array, or -1."""
    k = int(np.argmax(mask)) if mask.size else 0
    return k if mask.size and mask[k] else -1


def _is_missing(items: list) -> np.ndarray:
    return np.fromiter(map(operator.is_, items, repeat(_MISSING)), dtype=bool, count=len(items))


def _is_not(items: list, kind: type) -> np.ndarray:
    return ~np.fromiter(map(isinstance, items, repeat(kind)), dtype=bool, count=len(items))


def _lengths(items: list) -> np.ndarray:
    return np.fromiter(map(len, items), dtype=np.int64, count=len(items))


def _members(objects: List[dict]) -> Tuple[np.ndarray, np.ndarray, list, list]:
    """The members of a list of dicts, flat: (members per dict, the dict of each, their keys, their values)."""
    counts = _lengths(objects)
    owner = np.repeat(np.arange(len(objects), dtype=np.int64), counts)
    return counts, owner, list(chain.from_iterable(objects)), list(chain.from_iterable(map(dict.values, objects)))


def _get(objects: List[dict], key: str) -> list:
    """obj.get(key, _MISSING) of a list of dicts, in C."""
    return list(map(dict.get, objects, repeat(key), repeat(_MISSING)))


class _Fault(NamedTuple):
    """The first fault found so far: its rule and the item's index in its level's flat list (file order)."""
    rule: str
    index: int


class _FirstFault(object):
    """The first fault of a flattening. Each rule is checked on the items before the first fault of the rules and
    levels checked before it (the items after it come later), so the last fault recorded is the first in the
    readers' order."""

    def __init__(self) -> None:
        self.fault: Optional[_Fault] = None

    def check(self, rule: str, k: int, *lists: Sequence) -> Union[Sequence, Tuple[Sequence, ...], None]:
        """Record item k (-1: none) as breaking `rule`; return the lists cut before it (one list: that list)."""
        if k >= 0:
            self.fault = _Fault(rule, k)
            lists = tuple(x[:k] for x in lists)
        return lists[0] if len(lists) == 1 else lists


class _Places(NamedTuple):
    """Where the items of the flat lists lie, for the messages: the video of each frame, the frame of each human,
    the human and name of each part, the proposal boxes per part; quote: how a key is written in a message."""
    video_key: list
    frame_video: np.ndarray
    frame_key: list
    human_frame: np.ndarray
    part_human: np.ndarray
    part_name: list
    part_nbox: Optional[np.ndarray]
    quote: Callable[[str], str]

    def box(self, index: int) -> Tuple[int, int]:
        """(part, j): proposal box `index` (flat) is box j of that part."""
        part = int(np.searchsorted(np.cumsum(self.part_nbox), index, side="right"))
        return part, index - int(self.part_nbox[:part].sum())

    def where(self, level: str, index: int) -> str:
        """'video ... > frame ... > humans[i] > parts ... > box[j]', down to item `index` of `level`."""
        q = self.quote
        if level == "box":
            part, j = self.box(index)
            return "%s > box[%d]" % (self.where("part", part), j)
        if level == "part":
            return "%s > parts %s" % (self.where("human", int(self.part_human[index])), q(self.part_name[index]))
        if level == "human":
            frame = int(self.human_frame[index])
            return "%s > humans[%d]" % (self.where("frame", frame),
                                        index - int(np.searchsorted(self.human_frame, frame)))
        if level == "frame":
            return "video %s > frame %s" % (q(self.video_key[int(self.frame_video[index])]),
                                            q(self.frame_key[index]))
        return "video %s" % q(self.video_key[index])

    def error(self, err: Type[ScoringError], label: str, rules: Dict[str, Rule], fault: _Fault,
              items: Dict[str, list], *args) -> ScoringError:
        """The error of a fault: its place and its rule's message, found from the one item (items: the flat list
        of each level); args fill a rule's `where` that has no expected."""
        rule = rules[fault.rule]
        where = self.where(rule.level, fault.index)
        if rule.expected is None:
            return err(label, message=where + rule.where % args)
        return err(label, message=where + rule.where, expected=rule.expected,
                   found=rule.found(items[rule.level][fault.index]))


def _strings(texts: List[str]) -> Strings:
    """Strings (formats.jsonpass) of a list of str: distinct UTF-8 texts in order of first appearance, and a code
    per item, as the byte pass gives them."""
    vocab: Dict[str, int] = {}
    codes = _codes(vocab, texts)
    return Strings([t.encode("utf-8", "surrogatepass") for t in vocab], codes)


def _codes(vocab: Dict, items: list) -> np.ndarray:
    """Integer code per item (a list of hashables), adding new items to vocab with the next free codes, in order of
    first appearance (codes stay dense: 0 .. len(vocab) - 1)."""
    for x in dict.fromkeys(items):
        vocab.setdefault(x, len(vocab))
    return np.fromiter(map(vocab.__getitem__, items), dtype=np.int64, count=len(items))


def _texts(strings: Strings) -> List[str]:
    return [t.decode("utf-8", "surrogatepass") for t in strings.texts]


texts = _texts          # the distinct texts of a Strings (part names, states), in their codes' order


def _segments(starts: np.ndarray, lengths: np.ndarray, which: np.ndarray) -> np.ndarray:
    """Indices of the items of the segments `which` (segment k: items starts[k] .. starts[k] + lengths[k] - 1), in
    that order."""
    return segments(starts[which], lengths[which])


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.cumsum(counts) - counts


# ---------------------------------------------------------------- the ground truth

def read_ground_truth(vid_path: str, part_path: str, vid_label: str = "gt_vid_result.json",
                      part_label: str = "gt_part_result.json") -> GroundTruth:
    """GroundTruth of the two files: gt_part_result.json straight from its bytes (formats.kinetics_json) when it is
    what that pass handles, else json.loads and flatten_ground_truth (the same arrays, and the messages)."""
    vid = load_json(vid_path, vid_label, ReferenceDataError)
    data = file_bytes(part_path, part_label, ReferenceDataError)
    gt = ground_truth_from_bytes(vid, data)
    if gt is None:
        gt = flatten_ground_truth(vid, parse_json(data, part_label, ReferenceDataError), vid_label, part_label)
    return gt


def _frames_by_video(scan: PartFile) -> Optional[Tuple[Dict[str, int], List[Dict[str, int]]]]:
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


def _scan_part_file(data: bytes, pred: bool, reader: Optional[BlockReader] = None
                    ) -> Optional[Tuple[PartFile, Dict[str, int], List[Dict[str, int]]]]:
    """The bytes of a part_result file -> (scan, videos, per_video) (kinetics_json.read_part_file, then
    _frames_by_video), or None where either gives up (the stdlib path then)."""
    scan = read_part_file(data, pred=pred, reader=reader)
    found = None if scan is None else _frames_by_video(scan)
    return None if found is None else (scan,) + tuple(found)


def _classes_ok(vid: object) -> bool:
    return isinstance(vid, dict) and bool(vid) and all(isinstance(c, str) for c in vid.values())


def ground_truth_from_bytes(vid: object, data: bytes) -> Optional[GroundTruth]:
    """GroundTruth from the parsed gt_vid_result and the bytes of gt_part_result, or None for the stdlib path
    (anything flatten_ground_truth would reject, or the pass does not handle)."""
    if not _classes_ok(vid):
        return None
    found = _scan_part_file(data, pred=False)
    if found is None:
        return None
    scan, videos, _ = found
    order = [videos.get(name, -1) for name in vid]
    if -1 in order:
        return None
    return _ground_truth(vid, scan, np.array(order, dtype=np.int64))


def _ground_truth(vid: dict, scan: PartFile, order: np.ndarray) -> GroundTruth:
    """The GroundTruth of the classes and a checked part file (its videos `order` are those of vid, in vid's order):
    the frames with humans of those videos, their humans and parts, names and states coded in order of first
    appearance among them."""
    frame_start = np.searchsorted(scan.frame_video, np.arange(len(scan.video_key) + 1))
    frames = _segments(frame_start[:-1], np.diff(frame_start), order)
    video_of = np.repeat(np.arange(order.size, dtype=np.int64), np.diff(frame_start)[order])
    humans = scan.frame_humans[frames]
    kept = humans > 0
    empty_frames = np.bincount(video_of[~kept], minlength=order.size).astype(np.int64)
    frames, video_of, humans = frames[kept], video_of[kept], humans[kept]
    if frames.size == scan.frame_humans.size and np.array_equal(frames, np.arange(frames.size)):
        human_sel = part_sel = slice(None)  # every frame, in file order (the usual case): no copies
    else:
        human_sel = _segments(_starts(scan.frame_humans), scan.frame_humans, frames)
        part_sel = _segments(_starts(scan.human_parts), scan.human_parts, human_sel)
    nparts = scan.human_parts[human_sel]
    names: Dict[str, int] = {}
    verbs: Dict[str, int] = {}
    return GroundTruth(
        videos=list(vid), classes=list(vid.values()), frame_video=video_of,
        frame_name=list(map(scan.frame_key.__getitem__, frames.tolist())), empty_frames=empty_frames,
        human_frame=np.repeat(np.arange(frames.size, dtype=np.int64), humans), human_box=scan.human_box[human_sel],
        part_human=np.repeat(np.arange(nparts.size, dtype=np.int64), nparts), part_name=_recode(
            scan.part_name, part_sel, names), part_box=scan.part_box[part_sel],
        part_verb=_recode(scan.part_verb, part_sel, verbs), names=names, verbs=verbs)


def _recode(strings: Strings, sel, vocab: Dict[str, int]) -> np.ndarray:
    """Codes of the occurrences sel (an index array, or slice(None): all), dense in order of first appearance
    among them (as _codes), filling vocab."""
    if isinstance(sel, slice):
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


def flatten_ground_truth(vid: object, part: object, vid_label: str = "gt_vid_result.json",
                         part_label: str = "gt_part_result.json") -> GroundTruth:
    """GroundTruth arrays from the parsed gt_vid_result and gt_part_result objects, or ReferenceDataError naming
    the first fault: the videos of gt_vid_result.json and their frames first, then the humans and parts of the
    frames (RULES["gt"], checked level by level as flatten_part_file checks a submission)."""
    if not isinstance(vid, dict) or not vid:
        raise ReferenceDataError(vid_label, expected="a non-empty object {video: action_class}", found=_found(vid))
    if not isinstance(part, dict):
        raise ReferenceDataError(part_label, expected="an object {video: {frame: {humans}}}", found=_found(part))
    videos = list(vid)
    bad = _first(_is_not(list(vid.values()), str))
    if bad >= 0:
        raise ReferenceDataError(vid_label, message="video %r" % videos[bad], expected="a class name",
                                 found=_found(vid[videos[bad]]))
    faults = _FirstFault()
    values = all_values = list(map(part.get, videos, repeat(_MISSING)))
    values = faults.check("video entry", _first(_is_missing(values)), values)
    values = faults.check("video object", _first(_is_not(values, dict)), values)
    _, frame_video, frame_key, frames = _members(values)
    humans_lists = [f.get("humans", _MISSING) if isinstance(f, dict) else _MISSING for f in frames]
    faults.check("frame humans", _first(_is_not(humans_lists, list)))
    places = _Places(videos, frame_video, frame_key, None, None, None, None, repr)
    items = {"video": all_values, "frame": frames}
    if faults.fault is not None:            # every video and frame before any human
        raise places.error(ReferenceDataError, part_label, _GT, faults.fault, items, vid_label)
    frame_humans = _lengths(humans_lists)
    human_frame = np.repeat(np.arange(len(frames), dtype=np.int64), frame_humans)
    humans = items["human"] = list(chain.from_iterable(humans_lists))
    humans = faults.check("human object", _first(_is_not(humans, dict)), humans)
    bad, human_box = check_boxes(_get(humans, "box"), longer=False)
    humans = faults.check("human box", _first(bad), humans)
    parts = _get(humans, "parts")
    parts = faults.check("human parts", _first(_is_not(parts, dict)), parts)
    human_parts, part_human, names, part_values = _members(parts)
    items["part"] = part_values
    part_values = faults.check("part object", _first(_is_not(part_values, dict)), part_values)
    bad, part_box = check_boxes(_get(part_values, "box"), longer=False)
    part_values = faults.check("part box", _first(bad), part_values)
    verbs = _get(part_values, "verb")
    faults.check("part verb", _first(_is_not(verbs, str)))
    if faults.fault is not None:
        places = places._replace(human_frame=human_frame, part_human=part_human, part_name=names)
        raise places.error(ReferenceDataError, part_label, _GT, faults.fault, items)
    scan = PartFile(videos, frame_key, frame_video, frame_humans, human_box.boxes, human_parts, _strings(names),
                    part_box.boxes, _strings(verbs), None, None, None)
    return _ground_truth(vid, scan, np.arange(len(videos), dtype=np.int64))


# ---------------------------------------------------------------- a predicted part file

def read_part_predictions(data: bytes, label: str) -> PredFile:
    """PredFile of the bytes of pred_part_result.json: the byte pass, which reads what it cannot itself a block at
    a time with json.loads and flatten_part_file (BlockReader); json.loads of the whole file only where the pass
    cannot cut it in blocks (a repeated video or frame key, a frame larger than kinetics_json.MAX_BLOCK). The same
    arrays and the same first fault either way."""
    reader = BlockReader(label, lambda doc: flatten_part_file(doc, label), count_fault)
    found = _scan_part_file(data, pred=True, reader=reader)
    if found is not None:
        scan = found[0]
        return PredFile(scan, found[1:], None if scan.cut is None else cut_box_text(*scan.cut))
    return flatten_predictions(parse_json(data, label), label)


def flatten_predictions(pred_part: object, label: str) -> PredFile:
    """PredFile of a parsed pred_part_result, or SubmissionError naming the first fault in file order
    (flatten_part_file)."""
    part = flatten_part_file(pred_part, label)
    return PredFile(part, _frames_by_video(part), None if part.cut is None else cut_box_text(*part.cut))


def flatten_part_file(pred_part: object, label: str) -> PartFile:
    """PartFile (formats.kinetics_json, with .cut) of a parsed pred_part_result, or SubmissionError naming the
    first fault in file order.

    The checks run level by level over flat lists (videos, frames, humans, parts, proposal boxes), each rule of
    RULES["pred"] a vectorized predicate giving the first bad item. A level only looks at the items before the
    first fault of the level above it (the items after it come later in the file), so the deepest fault found is
    the first in file order; only its message is built from the objects (_Places.error).
    """
    if not isinstance(pred_part, dict):
        raise SubmissionError(label, expected="an object {video: {frame: {humans}}}", found=_found(pred_part))
    faults = _FirstFault()
    check = faults.check
    video_key = list(pred_part)
    videos = all_videos = list(pred_part.values())
    videos = check("video object", _first(_is_not(videos, dict)), videos)
    _, frame_video, frame_key, frames = _members(videos)
    all_frames = frames
    frames = check("frame humans", _first(_is_not(frames, dict)), frames)
    humans_lists = _get(frames, "humans")
    humans_lists = check("frame humans", _first(_is_missing(humans_lists)), humans_lists)
    humans_lists = check("frame list", _first(_is_not(humans_lists, list)), humans_lists)
    frame_humans = _lengths(humans_lists)
    humans_lists, frame_humans = check("humans per frame", _first(_PRED["humans per frame"].test(frame_humans)),
                                       humans_lists, frame_humans)
    human_frame = np.repeat(np.arange(len(humans_lists), dtype=np.int64), frame_humans)
    humans = all_humans = list(chain.from_iterable(humans_lists))
    humans = check("human object", _first(_is_not(humans, dict)), humans)
    human_boxes = _get(humans, "box")
    humans, human_boxes = check("human box", _first(_is_missing(human_boxes)), humans, human_boxes)
    bad, human_box = check_boxes(human_boxes, longer=True)
    humans = check("human box value", _first(bad), humans)
    parts = _get(humans, "parts")
    parts = check("human parts", _first(_is_missing(parts)), parts)
    parts = check("human parts object", _first(_is_not(parts, dict)), parts)
    human_parts, part_human, names, values = _members(parts)
    all_values = values
    values = check("part object", _first(_is_not(values, dict)), values)
    verbs, boxes = _get(values, "verb"), _get(values, "box")
    verbs, boxes = check("part object", _first(_is_missing(verbs) | _is_missing(boxes)), verbs, boxes)
    not_list = _is_not(verbs, list)
    nverb = np.zeros(len(verbs), dtype=np.int64)
    nverb[~not_list] = _lengths(list(compress(verbs, ~not_list)))
    flat_verbs = list(chain.from_iterable(compress(verbs, ~not_list)))
    not_text = np.repeat(np.flatnonzero(~not_list), nverb[~not_list])[_is_not(flat_verbs, str)]
    not_list[not_text] = True
    verbs, boxes, nverb = check("part verbs", _first(not_list), verbs, boxes, nverb)
    verbs, boxes, nverb = check("proposals per part", _first(_PRED["proposals per part"].test(nverb)), verbs,
                                boxes, nverb)
    verbs, boxes, nverb = check("part boxes", _first(_is_not(boxes, list)), verbs, boxes, nverb)
    nbox = _lengths(boxes)
    verbs, boxes, nverb, nbox = check("boxes per verb", _first(_PRED["boxes per verb"].test(nbox, nverb)), verbs,
                                      boxes, nverb, nbox)
    flat_boxes = list(chain.from_iterable(boxes))
    bad, proposals = check_boxes(flat_boxes, longer=True)
    check("box value", _first(bad))
    places = _Places(video_key, frame_video, frame_key, human_frame, part_human, names, nbox, shorten)
    if faults.fault is not None:
        items = {"video": all_videos, "frame": all_frames, "human": all_humans, "part": all_values,
                 "box": flat_boxes}
        raise places.error(SubmissionError, label, _PRED, faults.fault, items)
    verbs = list(chain.from_iterable(verbs))
    cut = _first_cut(human_box.cut, proposals.cut, places, all_humans, all_values)
    return PartFile(video_key, frame_key, frame_video, frame_humans, human_box.boxes, human_parts,
                    _strings(names), None, _strings(verbs), nbox, nverb, proposals.boxes, cut)


def _first_cut(human_cut: np.ndarray, prop_cut: np.ndarray, places: _Places, humans: list, values: list
               ) -> Optional[Tuple[int, str, list]]:
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


def cut_box_text(count: int, where: str, box: list) -> str:
    """The one text of that warning (scoring and validate): the count and the first box, as submitted."""
    return ("%d predicted box(es) have more than 4 numbers: only the first 4 (x1, y1, x2, y2) are read, as the "
            "original does; the first: %s = %s" % (count, where, shorten(_dumps_start(box))))


# ---------------------------------------------------------------- the class file

def check_classes(pred_vid: object, label: str) -> None:
    """The rules of pred_vid_result.json alone: an object whose every value (every video of the file, in file
    order) is text."""
    if not isinstance(pred_vid, dict):
        raise SubmissionError(label, expected="an object {video: predicted_class}", found=_found(pred_vid))
    values = list(pred_vid.values())
    k = _first(_is_not(values, str))
    if k >= 0:
        raise SubmissionError(label, message="video %s" % shorten(next(islice(pred_vid, k, None))),
                              expected="a class name (text)", found=_found(values[k]))


def missing_videos_error(label: str, test_videos: Sequence[str], submitted: object, part_file: bool
                         ) -> Optional[SubmissionError]:
    """The error for the test videos (the public list of test videos, in its order) that the submitted file's keys
    (`submitted`, a dict or a set) lack, or None: pred_vid_result.json (part_file False) needs a class for each,
    pred_part_result.json part results. The scorer (test_videos: gt_vid_result.json's keys) and validate (the --ids
    list) give the same line. When the file's keys are the test videos with an extension ('.mp4'), the hint says so,
    with the count of the file's keys like it (formats.hints)."""
    missing = [v for v in test_videos if v not in submitted]
    if not missing:
        return None
    from .hints import Vocabulary, hint_phrase, without_extension
    tests = frozenset(test_videos)
    other = [k for k in islice(submitted, 0, None) if k not in tests]
    hint = Vocabulary(test_videos).hint(other[0]) if other else None
    said = ""
    if hint is not None:
        if hint.reason.startswith("end in "):
            like = sum(1 for k in other if without_extension(k) in tests)
        else:
            like = len(other)
        said = hint_phrase("%d of %d video ids" % (like, len(submitted)), other[0], hint)
    if part_file:
        return SubmissionError(label, message="video %s is missing" % shorten(missing[0]),
                               expected="part results for every test video", found=said or None)
    return SubmissionError(label, message="video %s has no predicted class" % shorten(missing[0]),
                           expected="a class for every test video",
                           found="%s%d missing: %s" % (said + "; " if said else "", len(missing), quote_some(missing)))


def read_pred_classes(pred_vid: object, gt: GroundTruth, label: str) -> Tuple[List[str], int]:
    """Predicted class per ground-truth video, and the number of other videos: check_classes, then every test
    video (a key of gt_vid_result.json: the public list of test videos) must have one."""
    check_classes(pred_vid, label)
    error = missing_videos_error(label, gt.videos, pred_vid, part_file=False)
    if error is not None:
        raise error
    return list(map(pred_vid.__getitem__, gt.videos)), len(pred_vid) - len(gt.videos)


# ---------------------------------------------------------------- both paths, aligned with the ground truth

def read_predictions(pred_vid: object, pred_part: object, gt: GroundTruth, vid_label: str, part_label: str
                     ) -> Predictions:
    """Predictions of a parsed submission (the stdlib path): every rule on the whole part file first
    (flatten_predictions), then the alignment with the ground truth."""
    return _align(flatten_predictions(pred_part, part_label), pred_vid, gt, vid_label, part_label)


def read_predictions_bytes(pred_vid: object, data: bytes, gt: GroundTruth, vid_label: str, part_label: str
                           ) -> Predictions:
    """Predictions from the parsed pred_vid_result and the bytes of pred_part_result (read_part_predictions: the
    byte pass, or the stdlib path for the messages and the boxes of more than 4 numbers)."""
    return _align(read_part_predictions(data, part_label), pred_vid, gt, vid_label, part_label)


def align_predictions(pred: PredFile, pred_vid: object, gt: GroundTruth, vid_label: str, part_label: str
                      ) -> Predictions:
    """Predictions of a checked part file (read_part_predictions) and the parsed pred_vid_result, aligned with the
    ground truth. The PartFile's proposal boxes may be moved in place: read what it says before."""
    return _align(pred, pred_vid, gt, vid_label, part_label)


def _align(pred: PredFile, pred_vid: object, gt: GroundTruth, vid_label: str, part_label: str) -> Predictions:
    """Predictions of a checked part file (every frame of the file) for the ground truth's frames with humans. A
    test video missing from the part file is an error, whether or not it has frames with humans; predicted frames
    the ground truth does not evaluate are only counted (extra_frames)."""
    scan = pred.part
    videos, per_video = pred.keys
    classes, extra_videos = read_pred_classes(pred_vid, gt, vid_label)
    error = missing_videos_error(part_label, gt.videos, videos, part_file=True)
    if error is not None:
        raise error
    n_frames = len(gt.frame_name)
    match = np.full(n_frames, -1, dtype=np.int64)
    bounds = np.searchsorted(gt.frame_video, np.arange(gt.n_videos + 1))
    extra_frames = 0
    for v, name in enumerate(gt.videos):
        a, b = int(bounds[v]), int(bounds[v + 1])
        pv = per_video[videos[name]]
        if a == b:
            continue
        get = pv.get
        got = [get(f, -1) for f in gt.frame_name[a:b]]
        match[a:b] = got
        extra_frames += len(pv) - (b - a) + got.count(-1)
    frame_has_pred = match >= 0
    ev = np.flatnonzero(frame_has_pred)
    frames = match[ev]
    n_h = scan.frame_humans[frames]
    if frames.size == scan.frame_humans.size and np.array_equal(frames, np.arange(frames.size)):
        human_sel = part_sel = slice(None)  # every predicted frame is evaluated, in file order: no copies
    else:
        human_sel = _segments(_starts(scan.frame_humans), scan.frame_humans, frames)
        part_sel = _segments(_starts(scan.human_parts), scan.human_parts, human_sel)
    human_parts = scan.human_parts[human_sel]
    nverb, nbox = scan.part_nverb[part_sel], scan.part_nbox[part_sel]
    names = np.array([gt.names.get(t, -1) for t in _texts(scan.part_name)] or [-1], dtype=np.int64)
    verbs = np.array([gt.verbs.get(t, -1) for t in _texts(scan.part_verb)] or [-1], dtype=np.int64)
    if isinstance(part_sel, slice) and np.array_equal(nbox, nverb):
        prop_box, prop_verb = scan.prop_box, verbs[scan.part_verb.codes]   # a verb for every box: all of them
    else:
        prop_box, prop_verb = _proposals(scan, np.arange(nbox.size) if isinstance(part_sel, slice) else part_sel,
                                         nbox, verbs)
    return Predictions(
        classes=classes, extra_videos=extra_videos, frame_has_pred=frame_has_pred,
        missing_frames=int(n_frames - frame_has_pred.sum()), extra_frames=extra_frames,
        human_frame=np.repeat(ev, n_h), human_box=scan.human_box[human_sel],
        pp_human=np.repeat(np.arange(human_parts.size, dtype=np.int64), human_parts),
        pp_name=names[scan.part_name.codes[part_sel]], pp_nverb=nverb, pp_nbox=nbox,
        pp_box_start=np.cumsum(nbox) - nbox, prop_box=prop_box, prop_verb=prop_verb, cut_warning=pred.cut_warning,
        written=WrittenNames(_texts(scan.part_name), np.bincount(scan.part_name.codes, minlength=len(
            scan.part_name.texts)), _texts(scan.part_verb), np.bincount(scan.part_verb.codes, minlength=len(
                scan.part_verb.texts)), scan.frame_key))


def _proposals(scan: PartFile, part_sel: np.ndarray, nbox: np.ndarray, verb_codes: np.ndarray,
               block: int = 1 << 16) -> Tuple[np.ndarray, np.ndarray]:
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
