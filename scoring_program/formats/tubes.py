"""CSV files of the action-tubes competition: a schema on the text engines (formats.text, formats.fastnum).

Each file has a header row; the columns are found by header name (extra columns are allowed and not read). The
tokenizer (text.parse_csv) splits the lines, block by block of whole lines, skips blank lines, names the first line
with another field count than the header, and holds the caps (formats.limits) for every field read; the number
engine reads the number columns (plain decimals exactly, the rest by numpy's parser). Text columns are read as
integer codes (equal texts, equal codes) or looked up in the reference's ids, fields grouped by length so that no
fixed-width copy is wider than its fields. Columns that repeat on consecutive records (a tube's video, id, label,
score) are read once per run. Every error names the file and the 1-based line. The files are mapped, not copied
(text.read_mapped), and a tubes.csv's fields and bytes are let go before its per-tube values are spread over its
rows (memory at full scale).

read_videos / read_gt_tubes (reference, ReferenceDataError) and read_frame_detections / read_tubes (submission,
SubmissionError) return plain arrays for the metrics. A box with x1 > x2 or y1 > y2 is an error in the reference
data; in a submission it is read as it is (the metrics score it as the originals do) and counted (InvertedBoxes).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, shorten
from ..metrics.segments import segment_starts
from . import limits, text
from .fastnum import gather_words
from .hints import Vocabulary, frame_hint, hint_phrase
from .text import (Records, Rule, check_rules, header_row, line_text, lookup, parse_csv, read_mapped, to_float,
                   to_int)

VIDEO_COLUMNS = ("video", "label", "num_frames")
GT_COLUMNS = ("video", "tube", "label", "frame", "x1", "y1", "x2", "y2")
DET_COLUMNS = ("video", "frame", "label", "score", "x1", "y1", "x2", "y2")
TUBE_COLUMNS = ("video", "tube", "label", "score", "frame", "x1", "y1", "x2", "y2")
BOX_COLUMNS = ("x1", "y1", "x2", "y2")


def read_csv(path, label: str, columns: tuple, err=SubmissionError) -> Records:
    """A headed CSV file: the Records of the required `columns` (text.parse_csv)."""
    return parse_csv(read_mapped(path, label, err), label, columns, err)


def _text(t: Records, name: str, err) -> int:
    """The index of the text column `name`; an empty field in it is an error naming its line."""
    k = t.col(name)
    empty = (t.lengths[k] == 0).nonzero()[0]
    if empty.size:
        raise err(t.file, int(t.lines[empty[0]]), expected="a %s" % name, found="an empty field")
    return k


def number_column(t: Records, name: str, err=SubmissionError, integer: bool = False, drop: bool = True) -> np.ndarray:
    """Column `name` as finite float64 (int64 when integer); the first bad field names its line. drop: forget
    where its fields are once read (memory)."""
    k = t.col(name)
    values = to_int(t, k, name, err) if integer else to_float(t, k, name, err)
    if drop:
        t.drop(k)
    return values


def text_column(t: Records, name: str, err=SubmissionError) -> np.ndarray:
    """The text column `name` as an 'S' array as wide as its longest field (the reference's ids and labels)."""
    k = _text(t, name, err)
    return t.column(k, max(int(t.lengths[k].max()) if len(t) else 0, 1))


# ----------------------------------------------------------------------------------------------- reference data

class Videos(NamedTuple):
    """videos.csv: ids (V,) 'S' array in file order; label (V,) int64, the class of each video (index into
    classes); num_frames (V,) int64; classes (C,) 'S' array, sorted: the labels of the videos."""
    ids: np.ndarray
    label: np.ndarray
    num_frames: np.ndarray
    classes: np.ndarray


def read_videos(path, label: str = "ref/videos.csv") -> Videos:
    err = ReferenceDataError
    t = read_csv(path, label, VIDEO_COLUMNS, err)
    ids = text_column(t, "video", err)
    labs = text_column(t, "label", err)
    nf = number_column(t, "num_frames", err, integer=True)
    if ids.size == 0:
        raise ReferenceDataError(label, message="no video")
    order = np.argsort(ids, kind="stable")
    dup = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    if dup.size:
        i = int(order[dup[0] + 1])
        raise ReferenceDataError(label, int(t.lines[i]), message="the video %s is listed twice" % shorten(
            ids[i].decode("utf-8", "replace")))
    bad = np.flatnonzero(nf < 1)
    if bad.size:
        raise ReferenceDataError(label, int(t.lines[bad[0]]), expected="num_frames >= 1", found=int(nf[bad[0]]))
    classes = np.unique(labs)
    return Videos(ids, lookup(labs, classes), nf, classes)


class InvertedBoxes(NamedTuple):
    """The submitted boxes with x1 > x2 or y1 > y2 (scored as the originals score them, with a warning)."""
    count: int
    line: int           # 1-based line of the first one in the file
    box: str            # its x1,y1,x2,y2 as written


class Boxes(NamedTuple):
    """Rows of tubes (one row per frame), grouped by tube: the rows of tube j are tube_start[j] ..
    tube_start[j] + tube_length[j] - 1, frames consecutive ascending.

    Per row (R,): video int64 (index into Videos.ids), frame int64, box (R, 4) float64 x1 y1 x2 y2.
    Per tube (T,), in file order of their first rows: tube_video, tube_label (int64, index into Videos.classes),
    tube_score (float64; None for ground truth), tube_start, tube_first (its first frame), tube_length, tube_line
    (int, the 1-based line of its first row).
    A submission's also: nrows, the rows read; ignored_tubes, the tubes of videos outside the test list (dropped);
    inverted, InvertedBoxes or None; first_outside, the first video id outside the test list (for the hint)."""
    video: np.ndarray
    frame: np.ndarray
    box: np.ndarray
    tube_video: np.ndarray
    tube_label: np.ndarray
    tube_score: Optional[np.ndarray]
    tube_start: np.ndarray
    tube_first: np.ndarray
    tube_length: np.ndarray
    tube_line: np.ndarray
    nrows: int = 0
    ignored_tubes: int = 0
    inverted: Optional[InvertedBoxes] = None
    first_outside: str = ""     # the first video id outside the test list, as written ("" when none)


def _group_tubes(t: Records, vid: np.ndarray, tube_id: np.ndarray, frame: np.ndarray, labels: np.ndarray, scores,
                 err, what: str, tube_name) -> tuple:
    """Sort rows by tube (stable), check consecutive frames and constant label/score per tube. tube_id: int64
    codes (Codes.code), tube_name(code) their text for messages. Of several faults of a kind, the one on the
    first line is named."""
    n = vid.size
    same = np.zeros(n, dtype=bool)
    if n:
        same[1:] = (vid[1:] == vid[:-1]) & (tube_id[1:] == tube_id[:-1])
    run_start = np.flatnonzero(~same)
    # a tube may be split over non-adjacent rows: then sort rows by (video, tube), stable. The pair as one int64
    # (codes and video indices are below the number of rows, their product below 2**62)
    v = vid[run_start]
    key = np.sort((v - (int(v.min()) if v.size else 0)) * (int(tube_id.max()) + 1 if n else 1) + tube_id[run_start])
    if np.any(key[1:] == key[:-1]):
        order = np.lexsort((tube_id, vid))   # stable: within a tube, file order
        perm = True
    else:
        order = np.arange(n)
        perm = False
    if perm:
        vid, tube_id, frame, labels = vid[order], tube_id[order], frame[order], labels[order]
        scores = None if scores is None else scores[order]
        same[1:] = (vid[1:] == vid[:-1]) & (tube_id[1:] == tube_id[:-1])
        same[:1] = False
        run_start = np.flatnonzero(~same)
    lines = t.lines[order] if perm else t.lines
    # frames ascending within a tube (sort within tubes when they are not)
    if n and np.any(same[1:] & (frame[1:] < frame[:-1])):
        o2 = np.lexsort((frame, _tube_of_row(same)))
        order = order[o2]
        perm = True
        vid, tube_id, frame, labels, lines = vid[o2], tube_id[o2], frame[o2], labels[o2], lines[o2]
        scores = None if scores is None else scores[o2]
    step = np.diff(frame)
    rep = np.flatnonzero(same[1:] & (step == 0))
    gap = np.flatnonzero(same[1:] & (step > 1))
    del step
    tube_txt = lambda i: shorten(tube_name(int(tube_id[i])), 40)  # noqa: E731
    first = lambda rows: int(rows[np.argmin(lines[rows])])      # noqa: E731
    if rep.size:
        i = first(rep + 1)
        raise err(t.file, int(lines[i]), message="the %s %s repeats frame %d" % (what, tube_txt(i), int(frame[i])),
                  expected="one row per frame of a tube")
    if gap.size:
        i = first(gap + 1)
        raise err(t.file, int(lines[i]), message="the %s %s jumps from frame %d to %d" % (
            what, tube_txt(i), int(frame[i - 1]), int(frame[i])), expected="consecutive frames (no gaps)")
    badl = _off_first_row(labels, same, run_start)
    if badl.size:
        i = first(badl)
        raise err(t.file, int(lines[i]), message="the label of the %s %s changes" % (what, tube_txt(i)),
                  expected="the same label on every row of a tube")
    if scores is not None:
        bads = _off_first_row(scores, same, run_start)
        if bads.size:
            i = first(bads)
            raise err(t.file, int(lines[i]), message="the score of the %s %s changes" % (what, tube_txt(i)),
                      expected="the same score on every row of a tube")
    length = np.diff(np.concatenate((run_start, [n])))
    first_line = np.minimum.reduceat(lines, run_start) if n else lines[:0]
    return (order if perm else None), run_start, length, first_line


def _tube_of_row(same: np.ndarray) -> np.ndarray:
    """The tube (run) of every row: same[i] tells that row i continues the tube of row i - 1."""
    return np.cumsum(~same) - 1


def _off_first_row(values: np.ndarray, same: np.ndarray, run_start: np.ndarray) -> np.ndarray:
    """The rows whose value differs from (or is NaN, unlike) their tube's first row's. Only looked for when a value
    differs from the row's before it in its tube, or a NaN is there: otherwise there is none, and no index of every
    row's tube is built (memory)."""
    stepped = values.size > 1 and bool(np.any(same[1:] & (values[1:] != values[:-1])))
    if not stepped and not (values.dtype.kind == "f" and bool(np.isnan(values).any())):
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(values != values[run_start[_tube_of_row(same)]])


def _reorder(order, *arrays) -> tuple:
    """The arrays in `order` (None: as they are, no copy)."""
    return arrays if order is None else tuple(x[order] for x in arrays)


UNKNOWN_LENGTH = np.iinfo(np.int64).max // 4    # num_frames at or above this: a length no one knows (validate has
                                                # no videos.csv; a video outside the test list)


def _frame_expected(num_frames: int) -> str:
    """What a frame must be, for the message: the range when the video's length is known, else in words."""
    if num_frames >= UNKNOWN_LENGTH:
        return "a positive frame number (1-based, at most the video's num_frames)"
    return "a frame in 1..%d (the video's num_frames)" % num_frames


def _check_frames(t: Records, frame: np.ndarray, nf_row: np.ndarray, err):
    """The frame rule: 1 <= frame <= the video's num_frames."""
    check_rules([Rule((frame >= 1) & (frame <= nf_row), lambda i: _frame_expected(int(nf_row[i])),
                      lambda i: "%d%s" % (int(frame[i]), frame_hint(int(frame[i]))))], t.lines, t.file, err)


def inverted_rows(box: np.ndarray) -> np.ndarray:
    """The rule, in one place: x1 > x2 or y1 > y2 (an error in the reference data, a warning in a submission)."""
    return (box[:, 2] < box[:, 0]) | (box[:, 3] < box[:, 1])


def _boxes(t: Records, err) -> np.ndarray:
    b = np.empty((len(t), 4))
    for k, c in enumerate(BOX_COLUMNS):
        b[:, k] = number_column(t, c, err, drop=False)    # kept for the warning about inverted boxes
    return b


def _reference_boxes(t: Records) -> np.ndarray:
    b = _boxes(t, ReferenceDataError)
    check_rules([Rule(~inverted_rows(b), "x1 <= x2 and y1 <= y2 (inclusive corners)",
                      lambda i: ",".join("%g" % v for v in b[i]))], t.lines, t.file, ReferenceDataError)
    return b


def _inverted(t: Records, b: np.ndarray, scored: np.ndarray) -> Optional[InvertedBoxes]:
    """InvertedBoxes of the rows `scored` (bool: rows of test videos), None when there is none (read before the
    box columns are dropped)."""
    bad = np.flatnonzero(inverted_rows(b))
    if bad.size:
        bad = bad[scored[bad]]
    if not bad.size:
        return None
    i = int(bad[0])                     # lines ascend in file order: the first index is the first line
    text = ",".join(t.text(i, t.col(c)) for c in BOX_COLUMNS)     # four fields that parsed as finite numbers
    return InvertedBoxes(int(bad.size), int(t.lines[i]), text if len(text) <= 80 else text[:80] + "...")


def read_gt_tubes(path, videos: Videos, label: str = "ref/gt_tubes.csv") -> Boxes:
    err = ReferenceDataError
    t = read_csv(path, label, GT_COLUMNS, err)
    vid = t.find(_text(t, "video", err), videos.ids)
    if np.any(vid < 0):
        i = int(np.argmax(vid < 0))
        raise err(label, int(t.lines[i]), message="a video that is not in videos.csv")
    lab = t.find(_text(t, "label", err), videos.classes)
    if np.any(lab < 0):
        i = int(np.argmax(lab < 0))
        raise err(label, int(t.lines[i]), message="a label that no video of videos.csv has")
    frame = number_column(t, "frame", err, integer=True)
    _check_frames(t, frame, videos.num_frames[vid], err)
    boxes = _reference_boxes(t)
    tube = t.codes(_text(t, "tube", err))
    order, start, length, first_line = _group_tubes(t, vid, tube.code, frame, lab, None, err, "ground-truth tube",
                                                    tube.text)
    vid, frame, lab, boxes = _reorder(order, vid, frame, lab, boxes)
    fo = np.argsort(first_line, kind="stable")    # tubes in file order (ACT lists a video's GT tubes in order)
    return Boxes(video=vid, frame=frame, box=boxes, tube_video=vid[start][fo], tube_label=lab[start][fo],
                 tube_score=None, tube_start=start[fo], tube_first=frame[start][fo], tube_length=length[fo],
                 tube_line=first_line[fo])


# ----------------------------------------------------------------------------------------------- submission

def _runs(t: Records, names: tuple) -> tuple:
    """Runs of consecutive records whose fields are identical in every column of `names`: (the table of each run's
    first record, run lengths, or None when every run is one record). Reading those columns per run gives the
    per-record values by np.repeat, and the first faulty record of a column is always the first record of its run,
    so errors name the same line as a record-by-record read."""
    n = len(t)
    new = np.zeros(n, dtype=bool)
    new[:1] = True
    arr = np.frombuffer(t.data, dtype=np.uint8) if len(t.data) else np.zeros(8, dtype=np.uint8)
    for k in (t.col(name) for name in names):
        prev = None                     # the last field of the previous block
        for a in range(0, n, text.BLOCK_ROWS):
            b = min(n, a + text.BLOCK_ROWS)
            length = t.lengths[k][a:b].astype(np.int64)
            nw = (int(length.max()) + 7) // 8
            words = gather_words(arr, t.starts[k][a:b], length, nw)
            diff = np.empty(length.size, dtype=bool)
            diff[1:] = length[1:] != length[:-1]
            for j in range(nw):
                diff[1:] |= words[j, 1:] != words[j, :-1]
            if prev is None:
                diff[0] = True
            else:
                pl, pw = prev               # words past a field's end are zero: compare zero-padded
                cw = np.zeros(max(nw, pw.size), dtype=pw.dtype)
                cw[:nw] = words[:, 0]
                cw[:pw.size] ^= pw
                diff[0] = bool(length[0] != pl or cw.any())
            prev = (length[-1], words[:, -1].copy())
            new[a:b] |= diff
    r = np.flatnonzero(new)
    if r.size == n:
        return t, None                  # every record a run of its own
    return t.take(r), np.diff(np.append(r, n))


def _per_record(cnt, *values) -> tuple:
    """Values per run -> per record (np.repeat; as they are when every run is one record, cnt None)."""
    return values if cnt is None else tuple(np.repeat(v, cnt) for v in values)


def label_error(t: Records, classes) -> Optional[SubmissionError]:
    """_labels' error alone (validate)."""
    return _labels(t, classes)[1]


def _labels(t: Records, classes) -> tuple:
    """(the class index of every record's label, -1 when unknown; the error about the labels of `t` that are not in
    `classes` (the class set: public, the competition's classes), or None): the error names the first such line,
    the first five distinct unknown labels and their count, and when the first is a near miss of a class (letter
    case, spaces for underscores, camelCase: formats.hints), says so. A row that is a header row (a second header,
    or the header of a file pasted below another) is named as one. Only the message is slow code. The class set is
    named as the competition's (the participant has no videos.csv)."""
    k = _text(t, "label", SubmissionError)
    lab = t.find(k, classes)
    bad = np.flatnonzero(lab < 0)
    if not bad.size:
        return lab, None
    header = _header_row_error(t, int(bad[0]))
    if header is not None:
        return lab, header
    label = t.codes(k, bad)
    _, at = np.unique(label.code, return_index=True)
    at.sort()                       # the distinct unknown labels in order of their first line
    names = [label.text(int(label.code[i])) for i in at[:5].tolist()]
    shown = ", ".join(shorten(name, 30) for name in names)
    found = "%d unknown: %s%s" % (at.size, shown, " and %d more" % (at.size - 5) if at.size > 5 else "")
    hint = Vocabulary(v.decode("utf-8", "replace") for v in np.asarray(classes).tolist()).hint(names[0])
    if hint is not None:
        found += "; " + hint_phrase("labels", names[0], hint)
    return lab, SubmissionError(t.file, int(t.lines[bad[0]]), expected="labels of the competition's class set",
                                found=found)


def label_hint(error: Optional[SubmissionError]) -> bool:
    """Whether label_error's error says which class was meant (a near miss) or names a header row."""
    return error is not None and ("the format expects" in (error.found or "") or "header row" in (error.found or ""))


def _check_labels(t: Records, classes: np.ndarray) -> np.ndarray:
    """The class index of every record's label; an unknown label is label_error's error. Every row is checked,
    also those of videos outside the test list (which the original ignores): a rule applied only where the ground
    truth has the video would tell which videos it has (issue 20); the class set is public, it is the leaderboard's
    columns."""
    lab, error = _labels(t, classes)
    if error is not None:
        raise error
    return lab


def _header_row_error(t: Records, i: int) -> Optional[SubmissionError]:
    """The error naming record i as a header row when its fields are all words and the record after it (or before
    it, for the last) is not: a second header row, or the header of a file pasted below another. None otherwise.
    Error path only (two lines decoded)."""
    if len(t) < 2:
        return None
    k = 0
    line = line_text(t.data, int(t.starts[k][i]))
    other = line_text(t.data, int(t.starts[k][i + 1 if i + 1 < len(t) else i - 1]))
    if not header_row(line) or header_row(other):
        return None
    return SubmissionError(t.file, int(t.lines[i]), expected="one header row, then rows of data",
                           found="another header row: %s" % shorten(line))


def check_header_rows(t: Records):
    """A first record that is a header row (the header written twice) is an error naming it, before any column
    is read (every command says "header row" the same way)."""
    error = _header_row_error(t, 0) if len(t) else None
    if error is not None:
        raise error


class FrameDetections(NamedTuple):
    """frame_detections.csv, the rows of test videos in file order (R,): video, frame, label (int64: indices into
    Videos.ids and Videos.classes), score float64, box (R, 4) float64, line (the 1-based line of each row). nrows:
    the rows read; ignored: the rows of videos outside the test list (dropped); inverted: InvertedBoxes or None;
    first_outside: the first video id outside the test list, as written ("" when none: for the hint)."""
    video: np.ndarray
    frame: np.ndarray
    label: np.ndarray
    score: np.ndarray
    box: np.ndarray
    line: np.ndarray
    nrows: int
    ignored: int
    inverted: Optional[InvertedBoxes]
    first_outside: str = ""


def read_frame_detections(path, label: str, videos: Videos, records: Optional[Records] = None) -> FrameDetections:
    """frame_detections.csv -> arrays for the known videos (rows of other videos are dropped and counted).
    records: the file's Records when the caller has read them (validate: the file is tokenized once)."""
    err = SubmissionError
    t = read_csv(path, label, DET_COLUMNS) if records is None else records
    check_header_rows(t)
    u, cnt = _runs(t, ("video", "label"))
    vid_u = u.find(_text(u, "video", err), videos.ids)
    known_u = vid_u >= 0
    first_outside = _first_outside(u, known_u)
    lab_u = _check_labels(u, videos.classes)
    vid, known, lab = _per_record(cnt, vid_u, known_u, lab_u)
    del u, vid_u, known_u, lab_u
    t.drop(t.col("video"), t.col("label"))      # each column's fields go once it is read (memory)
    frame = number_column(t, "frame", err, integer=True)
    score = number_column(t, "score", err)
    boxes = _boxes(t, err)
    inverted = _inverted(t, boxes, known)
    t.release()
    _check_frames(t, frame, _frame_limits(videos, vid), err)
    keep = np.flatnonzero(known)
    if keep.size < len(t):
        vid, frame, lab, score, boxes, lines = (x[keep] for x in (vid, frame, lab, score, boxes, t.lines))
    else:
        lines = t.lines
    return FrameDetections(video=vid, frame=frame, label=lab, score=score, box=boxes, line=lines, nrows=len(t),
                           ignored=int(len(t) - keep.size), inverted=inverted, first_outside=first_outside)


def _first_outside(u: Records, known: np.ndarray) -> str:
    """The video id of the first record outside the test list, as written ("" when none)."""
    outside = np.flatnonzero(~known)
    return u.text(int(outside[0]), u.col("video")) if outside.size else ""


def _frame_limits(videos: Videos, vid: np.ndarray) -> np.ndarray:
    """Each row's num_frames: its video's, the largest int64 for a video outside the test list (vid < 0)."""
    limit = np.take(videos.num_frames, vid, mode="clip")
    limit[vid < 0] = np.iinfo(np.int64).max
    return limit


def _check_tubes_per_video_class(file: str, video: np.ndarray, label: np.ndarray, line: np.ndarray):
    """At most limits.MAX_TUBES_PER_VIDEO_CLASS tubes of one (video, label) as written, for every video of the file
    (the 3D NMS compares the tubes of a video and class pairwise): the error names the first line of the first tube,
    in file order, past the cap. video, label: integer keys per tube; line: the first line of each tube."""
    cap = limits.MAX_TUBES_PER_VIDEO_CLASS
    if video.size <= cap:
        return
    by_line = np.argsort(line, kind="stable")
    video, label = video[by_line], label[by_line]
    order = np.lexsort((label, video))          # stable: file order within a (video, label)
    key_v, key_l = video[order], label[order]
    new = np.ones(order.size, dtype=bool)
    new[1:] = (key_v[1:] != key_v[:-1]) | (key_l[1:] != key_l[:-1])
    first = np.maximum.accumulate(np.where(new, np.arange(order.size), 0))
    over = order[np.arange(order.size) - first >= cap]
    if over.size:
        at = int(line[by_line][int(over.min())])
        raise SubmissionError(file, at, expected="at most %d tubes per video and class" % cap,
                              found="tube %d of its video and class" % (cap + 1))


def read_tubes(path, label: str, videos: Videos, records: Optional[Records] = None) -> Boxes:
    """tubes.csv -> Boxes of the known videos, tubes in file order of their first row. records: as
    read_frame_detections'."""
    err = SubmissionError
    t = read_csv(path, label, TUBE_COLUMNS) if records is None else records
    check_header_rows(t)
    # video, tube, label and score repeat on every row of a tube: read them once per run of identical cells
    u, cnt = _runs(t, ("video", "tube", "label", "score"))
    video_u = _text(u, "video", err)
    vid_u = u.find(video_u, videos.ids)
    known_u = vid_u >= 0
    first_outside = _first_outside(u, known_u)
    outside = np.flatnonzero(~known_u)
    if outside.size:            # a video outside the test list: its own negative id (tube ids are per video)
        vid_u[outside] = -1 - u.codes(video_u, outside).code
    lab_u = _check_labels(u, videos.classes)
    tube = u.codes(_text(u, "tube", err))
    label_u = u.codes(u.col("label")).code     # the label as written: the cap counts every video's tubes
    score_u = number_column(u, "score", err)
    del u
    t.drop(*(t.col(name) for name in ("video", "tube", "label", "score")))
    frame = number_column(t, "frame", err, integer=True)
    boxes = _boxes(t, err)
    known, = _per_record(cnt, known_u)
    inverted = _inverted(t, boxes, known)
    t.release()                 # the fields and the file go before the per-run values are spread over the records
    vid, lab, tid, score = _per_record(cnt, vid_u, lab_u, tube.code, score_u)
    tube = tube._replace(code=None)     # its texts stay, for messages
    del vid_u, known_u, lab_u, score_u
    _check_frames(t, frame, _frame_limits(videos, vid), err)
    order, start, length, tube_lines = _group_tubes(t, vid, tid, frame, lab, score, SubmissionError, "tube",
                                                    tube.text)
    first_record = start if order is None else order[start]
    run = first_record if cnt is None else np.searchsorted(segment_starts(cnt), first_record, side="right") - 1
    _check_tubes_per_video_class(t.file, vid[first_record], label_u[run], tube_lines)
    del label_u, first_record, run
    vid, frame, lab, score, boxes = _reorder(order, vid, frame, lab, score, boxes)
    ntubes_all = start.size
    tv = vid[start]
    keep_t = tv >= 0
    # drop the rows of ignored videos; keep the tubes in order of their first line (file order)
    row_keep = vid >= 0
    if row_keep.all():
        start_k = start[keep_t]
        rv, rf, rb = vid, frame, boxes
    else:
        new_start = segment_starts(row_keep)      # the kept rows before each row
        start_k = new_start[start[keep_t]]
        rv, rf, rb = vid[row_keep], frame[row_keep], boxes[row_keep]
    first_line = tube_lines[keep_t]
    fo = np.argsort(first_line, kind="stable")
    return Boxes(video=rv, frame=rf, box=rb, tube_video=tv[keep_t][fo], tube_label=lab[start][keep_t][fo],
                 tube_score=score[start][keep_t][fo], tube_start=start_k[fo], tube_first=frame[start][keep_t][fo],
                 tube_length=length[keep_t][fo], tube_line=first_line[fo], nrows=len(t),
                 ignored_tubes=int(ntubes_all - int(keep_t.sum())), inverted=inverted, first_outside=first_outside)
