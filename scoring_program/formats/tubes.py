"""CSV files of the action-tubes competition: a header row, columns found by header name, vectorized parsing.

read_csv() splits the bytes with numpy (no Python loop over lines on the good path): newline and comma positions
give each record's field boundaries (a regular file, every line with the header's field count, is split in blocks
into one separator table); fields are read as 64-bit words straight from the bytes (formats.fastnum), plain
decimals are decoded there exactly (bit-identical to float()), anything else by numpy's own parser. Columns that
repeat on consecutive records (a tube's video, id, label, score) are read once per run. Every error names the
file and the 1-based line.

read_videos / read_gt_tubes (reference, ReferenceDataError) and read_frame_detections / read_tubes (submission,
SubmissionError) return plain arrays for the metrics. A box with x1 > x2 or y1 > y2 is an error in the reference
data; in a submission it is read as it is (the metrics score it as the originals do) and counted (InvertedBoxes).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some, shorten
from .fastnum import gather_words, parse_decimal, words_to_matrix
from .text import lookup, read_bytes

_WS = np.zeros(256, dtype=bool)
_WS[[0, 9, 11, 12, 13, 32]] = True      # NUL is the gather padding
_WS_REAL = _WS.copy()
_WS_REAL[0] = False

BLOCK = 1 << 18                         # records per block of vectorized work
VIDEO_COLUMNS = ("video", "label", "num_frames")
GT_COLUMNS = ("video", "tube", "label", "frame", "x1", "y1", "x2", "y2")
DET_COLUMNS = ("video", "frame", "label", "score", "x1", "y1", "x2", "y2")
TUBE_COLUMNS = ("video", "tube", "label", "score", "frame", "x1", "y1", "x2", "y2")


def _line_text(data, start, end):
    return data[start:end].decode("utf-8", "replace").strip()


class CsvTable(object):
    """Records of a CSV file: field bounds per required column, the 1-based line of every record."""

    def __init__(self, data, arr, file, err, lines, bounds):
        self.data = data
        self.arr = arr
        self.file = file
        self.err = err
        self.lines = lines          # (n,) int64, 1-based
        self.bounds = bounds        # name -> (start, end) byte offsets, end exclusive

    def __len__(self):
        return int(self.lines.size)

    def release(self):
        """Drop the file's bytes and field bounds (memory) once every column is read; lines stay for errors."""
        self.data = self.arr = self.bounds = None

    def take(self, idx):
        """The records idx (int array) as a table of their own (same file, same line numbers)."""
        if isinstance(self.bounds, _RegularBounds):
            bounds = self.bounds.take(idx)
        else:
            bounds = dict((name, (s[idx], e[idx])) for name, (s, e) in self.bounds.items())
        return CsvTable(self.data, self.arr, self.file, self.err, self.lines[idx], bounds)

    def spans(self, name, block=None):
        """(a, start, end) for the records a .. a + len(start) - 1, block by block (small temporaries)."""
        block = block or BLOCK
        n = len(self)
        regular = isinstance(self.bounds, _RegularBounds)
        if not regular:
            s_all, e_all = self.bounds[name]
        for a in range(0, n, block):
            b = min(a + block, n)
            if regular:
                s, e = self.bounds.span(name, a, b)
            else:
                s, e = s_all[a:b], e_all[a:b]
            yield a, s, e

    def _column_width(self, name, limit):
        """Longest field of the column; a field longer than `limit` is an error naming the first such line."""
        w = 0
        for a, s, e in self.spans(name):
            length = e - s
            m = int(length.max())
            if m > limit:
                i = a + int(np.argmax(length > limit))
                raise self.err(self.file, int(self.lines[i]),
                               expected="a %s of at most %d characters" % (name, limit),
                               found="%d characters" % int(length[i - a]))
            w = max(w, m)
        return w

    def _parse(self, name, limit, integer):
        """(values, ok, width) of the column with fastnum.parse_decimal, block by block (one pass: the width
        check raises at the first too long field before any value is looked at)."""
        n = len(self)
        vals = np.empty(n, dtype=np.float64)
        ok = np.empty(n, dtype=bool)
        w = 0
        for a, s, e in self.spans(name):
            b = a + s.size
            length = e - s
            m = int(length.max())
            if m > limit:
                self._column_width(name, limit)     # raises, naming the first such line
            w = max(w, m)
            vals[a:b], ok[a:b] = parse_decimal(gather_words(self.arr, s, length, max((m + 7) // 8, 1)), length,
                                               integer)
        return vals, ok, max(w, 1)

    def _slow_words(self, name, rows, w):
        start, end = self.bounds[name]
        start, end = start[rows], end[rows]
        return gather_words(self.arr, start, end - start, (w + 7) // 8)

    def _check_width(self, length, limit, name):
        w = int(length.max())
        if w > limit:
            i = int(np.argmax(length > limit))
            raise self.err(self.file, int(self.lines[i]), expected="a %s of at most %d characters" % (name, limit),
                           found="%d characters" % int(length[i]))
        return w

    def _words(self, start, end, limit, name):
        length = end - start
        w = self._check_width(length, limit, name)
        return gather_words(self.arr, start, length, max((w + 7) // 8, 1)), length, max(w, 1)

    def _matrix(self, start, end, limit, name):
        if start.size == 0:
            return np.zeros((0, 1), dtype=np.uint8)
        words, _, w = self._words(start, end, limit, name)
        return words_to_matrix(words, w)

    def text(self, name, limit=256):
        """Column `name` as a stripped 'S' array; an empty field is an error naming the line."""
        start, end = self.bounds[name]
        mat = self._matrix(start, end, limit, name)
        if _WS_REAL[mat].any():       # blanks around some field (the zero padding is not one)
            nonws = ~_WS[mat]
            anyc = nonws.any(axis=1)
            w = mat.shape[1]
            new_start = start + np.argmax(nonws, axis=1)
            new_end = start + w - np.argmax(nonws[:, ::-1], axis=1)
            new_end = np.where(anyc, new_end, new_start)
            mat = self._matrix(new_start, new_end, limit, name)
            start, end = new_start, new_end
        empty = np.flatnonzero(end <= start)
        if empty.size:
            raise self.err(self.file, int(self.lines[empty[0]]), expected="a %s" % name, found="an empty field")
        return mat.view("S%d" % mat.shape[1]).ravel()

    def raw(self, name, i):
        start, end = self.bounds[name]
        return self.data[int(start[i]):int(end[i])].decode("utf-8", "replace").strip()

    def number(self, name):
        """Column `name` as finite float64; a token that is not a number, or not finite, names its line."""
        if len(self) == 0:
            return self._number_slow(name, np.arange(0), 1)
        vals, ok, w = self._parse(name, 64, False)     # plain decimals, exactly float(token)
        if ok.all():
            return vals
        slow = np.flatnonzero(~ok)
        vals[slow] = self._number_slow(name, slow, w, self._slow_words(name, slow, w))
        return vals

    def _number_slow(self, name, rows, w, words=None):
        """numpy's parser (in C, correctly rounded like float()) for the records `rows`."""
        mat = words_to_matrix(words, w) if words is not None else np.zeros((0, 1), dtype=np.uint8)
        sub = mat.view("S%d" % mat.shape[1]).ravel()
        try:
            vals = sub.astype(np.float64)
        except (ValueError, TypeError):
            for j, tok in enumerate(sub.tolist()):
                try:
                    float(tok)
                except ValueError:
                    i = int(rows[j])
                    raise self.err(self.file, int(self.lines[i]), expected="a number for the %s" % name,
                                   found=shorten(self.raw(name, i)))
            raise self.err(self.file, message="cannot read the %s column as numbers" % name)
        bad = np.flatnonzero(~np.isfinite(vals))
        if bad.size:
            i = int(rows[bad[0]])
            raise self.err(self.file, int(self.lines[i]), expected="a finite number for the %s" % name,
                           found=shorten(self.raw(name, i)))
        return vals

    def integer(self, name):
        if len(self) == 0:
            return np.zeros(0, dtype=np.int64)
        vals, ok, w = self._parse(name, 32, True)
        out = vals.astype(np.int64)
        if ok.all():
            return out
        slow = np.flatnonzero(~ok)
        sub = words_to_matrix(self._slow_words(name, slow, w), w).view("S%d" % w).ravel()
        try:
            out[slow] = sub.astype(np.int64)
            return out
        except (ValueError, TypeError, OverflowError):
            pass
        for j, tok in enumerate(sub.tolist()):
            try:
                int(tok)
            except ValueError:
                i = int(slow[j])
                raise self.err(self.file, int(self.lines[i]), expected="an integer for the %s" % name,
                               found=shorten(self.raw(name, i)))
        raise self.err(self.file, message="cannot read the %s column as integers" % name)


class _RegularBounds(object):
    """Field bounds of a CSV body whose every line has exactly ncols fields: seps is (rows, ncols), the byte
    offsets of each line's commas and its newline; bounds are computed on demand."""

    def __init__(self, seps, body_start, index):
        self.seps = seps
        self.body_start = body_start
        self.index = index          # name -> column position

    def span(self, name, a, b):
        """(start, end) of the records a .. b - 1."""
        k = self.index[name]
        S = self.seps
        if k == 0:
            s = np.empty(b - a, dtype=np.int64)
            s[:1] = self.body_start - 1 if a == 0 else S[a - 1, -1]
            s[1:] = S[a:b - 1, -1]
        else:
            s = S[a:b, k - 1].astype(np.int64)
        s += 1
        return s, S[a:b, k].astype(np.int64)

    def take(self, idx):
        out = {}
        S = self.seps
        for name, k in self.index.items():
            if k == 0:
                s = np.where(idx == 0, self.body_start, S[np.maximum(idx - 1, 0), -1].astype(np.int64) + 1)
            else:
                s = S[idx, k - 1].astype(np.int64) + 1
            out[name] = (s, S[idx, k].astype(np.int64))
        return out

    def __getitem__(self, name):
        k = self.index[name]
        S = self.seps
        if k == 0:
            s = np.empty(S.shape[0], dtype=np.int64)
            s[:1] = self.body_start
            s[1:] = S[:-1, -1]
        else:
            s = S[:, k - 1].astype(np.int64)
        if s.size:
            s[int(k == 0):] += 1
        return s, S[:, k].astype(np.int64)


def _read_csv_regular(data, label, columns, err, chunk=1 << 22):
    """The common case, fast: a header, then lines of exactly as many comma-separated fields as the header.
    Returns None for anything else (the general reader then parses the file and names what is wrong)."""
    pos, h = 0, 0
    while True:
        nl = data.find(b"\n", pos)
        end = len(data) if nl < 0 else nl
        if data[pos:end].strip():
            break
        if nl < 0:
            return None
        pos, h = nl + 1, h + 1
    if nl < 0:
        return None
    names = [x.strip().decode("utf-8", "replace").lower() for x in data[pos:end].split(b",")]
    if any(c not in names or names.count(c) > 1 for c in columns):
        return None
    ncols = len(names)
    arr = np.frombuffer(data, dtype=np.uint8)
    body_start = nl + 1
    if body_start >= arr.size:
        return None
    nrows = data.count(b"\n", body_start) + (arr[-1] != 10)
    seps = np.empty((nrows, ncols), dtype=np.int32 if arr.size < 2 ** 31 - 1 else np.int64)
    r = 0
    a = body_start
    while a < arr.size:             # blocks of whole lines: small temporaries
        b = data.rfind(b"\n", a, a + chunk) + 1
        if b <= a:
            b = data.find(b"\n", a + chunk)
            b = arr.size if b < 0 else b + 1
        c = arr[a:b]
        m = c == 10
        m |= c == 44
        pos = np.flatnonzero(m)
        pos += a
        if b == arr.size and arr[-1] != 10:
            pos = np.append(pos, arr.size)        # the last line has no newline
        k = pos.size // ncols
        if pos.size != k * ncols or r + k > nrows:
            return None
        block = pos.reshape(k, ncols)
        last = block[:, -1]
        last = last[last < arr.size]
        if not (arr[last] == 10).all():     # some line has another count of fields (or is blank)
            return None
        seps[r:r + k] = block
        r += k
        a = b
    if r != nrows:
        return None
    nnl = nrows
    lines = np.arange(h + 2, h + 2 + nnl, dtype=np.int64)
    bounds = _RegularBounds(seps, body_start, dict((c, names.index(c)) for c in columns))
    return CsvTable(data, arr, label, err, lines, bounds)


def read_csv(path, label, columns, err=SubmissionError):
    """Parse a headed CSV; `columns` are the required header names (extra columns are ignored)."""
    data = read_bytes(path, label, err)
    t = _read_csv_regular(data, label, columns, err)
    return t if t is not None else _read_csv_general(data, label, columns, err)


def _read_csv_general(data, label, columns, err):
    arr = np.frombuffer(data, dtype=np.uint8)
    nl = np.flatnonzero(arr == 10)
    starts = np.concatenate(([0], nl + 1)).astype(np.int64)
    ends = np.concatenate((nl, [arr.size])).astype(np.int64)
    if starts.size and starts[-1] >= arr.size:      # nothing after the last newline
        starts, ends = starts[:-1], ends[:-1]
    # header: the first non-blank line
    h = 0
    while h < starts.size and not data[starts[h]:ends[h]].strip():
        h += 1
    if h >= starts.size:
        raise err(label, expected="a header row naming the columns %s" % ",".join(columns), found="an empty file")
    names = [x.strip().decode("utf-8", "replace").lower() for x in data[starts[h]:ends[h]].split(b",")]
    missing = [c for c in columns if c not in names]
    dup = sorted(set(c for c in names if names.count(c) > 1 and c in columns))
    if missing or dup:
        raise err(label, h + 1, expected="a header row naming the columns %s" % ",".join(columns),
                  found=(("missing %s" % ", ".join(missing)) if missing else "the column %s twice" % dup[0])
                  + ": " + shorten(_line_text(data, starts[h], ends[h])))
    ncols = len(names)
    lineno = np.arange(h + 2, starts.size + 1, dtype=np.int64)
    starts, ends = starts[h + 1:], ends[h + 1:]
    commas = np.flatnonzero(arr == 44)
    c0 = np.searchsorted(commas, starts)
    ncomma = np.searchsorted(commas, ends) - c0
    good = ncomma == ncols - 1
    if not good.all():
        cand = np.flatnonzero(~good)
        blank = np.array([not data[starts[i]:ends[i]].strip() for i in cand.tolist()], dtype=bool) \
            if cand.size else np.zeros(0, dtype=bool)
        bad = cand[~blank]
        if bad.size:
            i = int(bad[0])
            raise err(label, int(lineno[i]), expected="%d comma-separated fields (as the header)" % ncols,
                      found="%d: %s" % (int(ncomma[i]) + 1, shorten(_line_text(data, starts[i], ends[i]))))
        keep = np.ones(starts.size, dtype=bool)
        keep[cand] = False
        starts, ends, c0, lineno = starts[keep], ends[keep], c0[keep], lineno[keep]
    bounds = {}
    for name in columns:
        k = names.index(name)
        s = starts if k == 0 else commas[c0 + k - 1] + 1 if c0.size else starts
        e = ends if k == ncols - 1 else commas[c0 + k] if c0.size else ends
        bounds[name] = (np.asarray(s, dtype=np.int64), np.asarray(e, dtype=np.int64))
    return CsvTable(data, arr, label, err, lineno, bounds)


# ----------------------------------------------------------------------------------------------- reference data

class Videos(object):
    def __init__(self, ids, labels, num_frames, classes):
        self.ids = ids                  # 'S' array in file order
        self.label = labels             # class index per video
        self.num_frames = num_frames
        self.classes = classes          # 'S' array, sorted


def read_videos(path, label="ref/videos.csv"):
    t = read_csv(path, label, VIDEO_COLUMNS, ReferenceDataError)
    ids = t.text("video")
    labs = t.text("label")
    nf = t.integer("num_frames")
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


class Boxes(object):
    """Rows of tubes (one row per frame), grouped: rows of tube j are start[j]..start[j]+length[j]-1, frames
    consecutive ascending. Per row: video, frame, box; per tube: video, label, score, first, length, line."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def _group_tubes(t, vid, tube_id, frame, labels, scores, err, what):
    """Sort rows by tube (stable), check consecutive frames and constant label/score per tube."""
    n = vid.size
    same = np.zeros(n, dtype=bool)
    if n:
        same[1:] = (vid[1:] == vid[:-1]) & (tube_id[1:] == tube_id[:-1])
    run_start = np.flatnonzero(~same)
    # a tube may be split over non-adjacent rows: then sort rows by (video, tube), stable
    keys = np.empty(run_start.size, dtype=[("v", np.int64), ("t", tube_id.dtype)])
    keys["v"] = vid[run_start]
    keys["t"] = tube_id[run_start]
    if run_start.size != np.unique(keys).size:
        _, inv = np.unique(tube_id, return_inverse=True)
        order = np.lexsort((inv, vid))   # stable: within a tube, file order
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
    tube_of_row = np.cumsum(~same) - 1
    # frames ascending within a tube (sort within tubes when they are not)
    if n and np.any(same[1:] & (frame[1:] < frame[:-1])):
        o2 = np.lexsort((frame, tube_of_row))
        order = order[o2]
        perm = True
        vid, tube_id, frame, labels, lines = vid[o2], tube_id[o2], frame[o2], labels[o2], lines[o2]
        scores = None if scores is None else scores[o2]
    step = np.diff(frame)
    rep = np.flatnonzero(same[1:] & (step == 0))
    gap = np.flatnonzero(same[1:] & (step > 1))
    tube_txt = lambda i: shorten(tube_id[i].decode("utf-8", "replace"), 40)  # noqa: E731
    if rep.size:
        i = int(rep[0]) + 1
        raise err(t.file, int(lines[i]), message="the %s %s repeats frame %d" % (what, tube_txt(i), int(frame[i])),
                  expected="one row per frame of a tube")
    if gap.size:
        i = int(gap[0]) + 1
        raise err(t.file, int(lines[i]), message="the %s %s jumps from frame %d to %d" % (
            what, tube_txt(i), int(frame[i - 1]), int(frame[i])), expected="consecutive frames (no gaps)")
    first_row = run_start[tube_of_row]
    badl = np.flatnonzero(labels != labels[first_row])
    if badl.size:
        i = int(badl[0])
        raise err(t.file, int(lines[i]), message="the label of the %s %s changes" % (what, tube_txt(i)),
                  expected="the same label on every row of a tube")
    if scores is not None:
        bads = np.flatnonzero(scores != scores[first_row])
        if bads.size:
            i = int(bads[0])
            raise err(t.file, int(lines[i]), message="the score of the %s %s changes" % (what, tube_txt(i)),
                      expected="the same score on every row of a tube")
    length = np.diff(np.concatenate((run_start, [n])))
    first_line = np.minimum.reduceat(lines, run_start) if n else lines[:0]
    return (order if perm else None), run_start, length, first_line


def _reorder(order, *arrays):
    """The arrays in `order` (None: as they are, no copy)."""
    return arrays if order is None else tuple(x[order] for x in arrays)


def _check_frames(t, frame, nf_row, err):
    bad = np.flatnonzero((frame < 1) | (frame > nf_row))
    if bad.size:
        i = int(bad[0])
        raise err(t.file, int(t.lines[i]), expected="a frame in 1..%d (the video's num_frames)" % int(nf_row[i]),
                  found=int(frame[i]))


BOX_COLUMNS = ("x1", "y1", "x2", "y2")


class InvertedBoxes(NamedTuple):
    """The submitted boxes with x1 > x2 or y1 > y2 (scored as the originals score them, with a warning)."""
    count: int
    line: int           # 1-based line of the first one in the file
    box: str            # its x1,y1,x2,y2 as written


def inverted_rows(box):
    """The rule, in one place: x1 > x2 or y1 > y2 (an error in the reference data, a warning in a submission)."""
    return (box[:, 2] < box[:, 0]) | (box[:, 3] < box[:, 1])


def _boxes(t):
    b = np.empty((len(t), 4))
    for k, c in enumerate(BOX_COLUMNS):
        b[:, k] = t.number(c)
    return b


def _reference_boxes(t):
    b = _boxes(t)
    bad = np.flatnonzero(inverted_rows(b))
    if bad.size:
        i = int(bad[0])
        raise ReferenceDataError(t.file, int(t.lines[i]), expected="x1 <= x2 and y1 <= y2 (inclusive corners)",
                                 found="%s" % ",".join("%g" % v for v in b[i]))
    return b


def _inverted(t, b, scored):
    """InvertedBoxes of the rows `scored` (bool: rows of test videos), None when there is none."""
    bad = np.flatnonzero(inverted_rows(b))
    if bad.size:
        bad = bad[scored[bad]]
    if not bad.size:
        return None
    first = t.take(bad[:1])             # lines ascend in file order: the first index is the first line
    text = ",".join(first.raw(c, 0) for c in BOX_COLUMNS)     # four fields that parsed as finite numbers
    return InvertedBoxes(int(bad.size), int(first.lines[0]), text if len(text) <= 80 else text[:80] + "...")


def read_gt_tubes(path, videos, label="ref/gt_tubes.csv"):
    err = ReferenceDataError
    t = read_csv(path, label, GT_COLUMNS, err)
    vid = lookup(t.text("video"), videos.ids)
    if np.any(vid < 0):
        i = int(np.argmax(vid < 0))
        raise err(label, int(t.lines[i]), message="a video that is not in videos.csv")
    lab = lookup(t.text("label"), videos.classes)
    if np.any(lab < 0):
        i = int(np.argmax(lab < 0))
        raise err(label, int(t.lines[i]), message="a label that no video of videos.csv has")
    frame = t.integer("frame")
    _check_frames(t, frame, videos.num_frames[vid], err)
    boxes = _reference_boxes(t)
    tid = t.text("tube")
    order, start, length, first_line = _group_tubes(t, vid, tid, frame, lab, None, err, "ground-truth tube")
    vid, frame, lab, boxes = _reorder(order, vid, frame, lab, boxes)
    fo = np.argsort(first_line, kind="stable")    # tubes in file order (ACT lists a video's GT tubes in order)
    return Boxes(video=vid, frame=frame, box=boxes, tube_video=vid[start][fo], tube_label=lab[start][fo],
                 tube_start=start[fo], tube_first=frame[start][fo], tube_length=length[fo], tube_line=first_line[fo])


# ----------------------------------------------------------------------------------------------- submission

def _runs(t, names, limit=256):
    """Runs of consecutive records whose raw bytes are identical in every column of `names`: (the table of
    each run's first record, run lengths). Reading those columns per run gives the per-record values by
    np.repeat, and the first faulty record of a column is always the first record of its run, so errors name
    the same line as a record-by-record read."""
    n = len(t)
    new = np.zeros(n, dtype=bool)
    new[:1] = True
    for name in names:
        prev = None                     # the last field of the previous block
        too_long = False
        for a, s, e in t.spans(name):
            length = e - s
            w = int(length.max())
            if w > limit:               # a too long field: read record by record (and fail there)
                too_long = True
                break
            nw = (w + 7) // 8
            words = gather_words(t.arr, s, length, nw)
            diff = np.empty(s.size, dtype=bool)
            diff[1:] = length[1:] != length[:-1]
            for k in range(nw):
                diff[1:] |= words[k, 1:] != words[k, :-1]
            if prev is None:
                diff[0] = True
            else:
                pl, pw = prev               # words past a field's end are zero: compare zero-padded
                cw = np.zeros(max(nw, pw.size), dtype=pw.dtype)
                cw[:nw] = words[:, 0]
                cw[:pw.size] ^= pw
                diff[0] = bool(length[0] != pl or cw.any())
            prev = (length[-1], words[:, -1].copy())
            new[a:a + s.size] |= diff
        if too_long:
            new[:] = True
            break
    r = np.flatnonzero(new)
    cnt = np.diff(np.append(r, n))
    return t.take(r), cnt


def _known_rows(t, videos, err):
    vid = lookup(t.text("video"), videos.ids)
    known = vid >= 0
    return vid, known


def _check_labels(t, labs_txt, classes, err, rows):
    lab = lookup(labs_txt, classes)
    bad = np.flatnonzero((lab < 0) & rows)
    if bad.size:
        uniq = []
        for x in labs_txt[bad].tolist():
            s = x.decode("utf-8", "replace")
            if s not in uniq:
                uniq.append(s)
        raise err(t.file, int(t.lines[bad[0]]), expected="labels of the class set (the labels of videos.csv)",
                  found="%d unknown: %s" % (len(uniq), quote_some(uniq)))
    return lab


class FrameDetections(object):
    def __init__(self, **kw):
        self.__dict__.update(kw)


def read_frame_detections(path, label, videos):
    """frame_detections.csv -> arrays for the known videos (rows of other videos are dropped and counted)."""
    t = read_csv(path, label, DET_COLUMNS)
    u, cnt = _runs(t, ("video", "label"))
    vid_u, known_u = _known_rows(u, videos, SubmissionError)
    lab_u = _check_labels(u, u.text("label"), videos.classes, SubmissionError, known_u)
    vid, known, lab = np.repeat(vid_u, cnt), np.repeat(known_u, cnt), np.repeat(lab_u, cnt)
    frame = t.integer("frame")
    score = t.number("score")
    boxes = _boxes(t)
    nf = np.where(known, videos.num_frames[np.maximum(vid, 0)], np.iinfo(np.int64).max)
    _check_frames(t, frame, nf, SubmissionError)
    keep = np.flatnonzero(known)
    return FrameDetections(video=vid[keep], frame=frame[keep], label=lab[keep], score=score[keep],
                           box=boxes[keep], line=t.lines[keep], nrows=len(t), ignored=int(len(t) - keep.size),
                           inverted=_inverted(t, boxes, known))


def read_tubes(path, label, videos):
    """tubes.csv -> Boxes of the known videos, tubes in file order of their first row."""
    t = read_csv(path, label, TUBE_COLUMNS)
    # video, tube, label and score repeat on every row of a tube: read them once per run of identical cells
    u, cnt = _runs(t, ("video", "tube", "label", "score"))
    vid_u, known_u = _known_rows(u, videos, SubmissionError)
    if not known_u.all():       # each video outside the test list its own negative id: tube ids are per video
        _, inv = np.unique(u.text("video")[~known_u], return_inverse=True)
        vid_u[~known_u] = -1 - inv
    lab_u = _check_labels(u, u.text("label"), videos.classes, SubmissionError, known_u)
    vid, known, lab = np.repeat(vid_u, cnt), np.repeat(known_u, cnt), np.repeat(lab_u, cnt)
    frame = t.integer("frame")
    score = np.repeat(u.number("score"), cnt)
    boxes = _boxes(t)
    nf = np.where(known, videos.num_frames[np.maximum(vid, 0)], np.iinfo(np.int64).max)
    _check_frames(t, frame, nf, SubmissionError)
    inverted = _inverted(t, boxes, known)
    tid = np.repeat(u.text("tube"), cnt)
    t.release()
    u.release()
    order, start, length, tube_lines = _group_tubes(t, vid, tid, frame, lab, score, SubmissionError, "tube")
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
        new_start = np.cumsum(row_keep) - row_keep
        start_k = new_start[start[keep_t]]
        rv, rf, rb = vid[row_keep], frame[row_keep], boxes[row_keep]
    first_line = tube_lines[keep_t]
    fo = np.argsort(first_line, kind="stable")
    b = Boxes(video=rv, frame=rf, box=rb,
              tube_video=tv[keep_t][fo], tube_label=lab[start][keep_t][fo], tube_score=score[start][keep_t][fo],
              tube_start=start_k[fo], tube_first=frame[start][keep_t][fo], tube_length=length[keep_t][fo],
              tube_line=first_line[fo])
    b.nrows = len(t)
    b.ignored_tubes = int(ntubes_all - int(keep_t.sum()))
    b.inverted = inverted
    return b
