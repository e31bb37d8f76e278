"""CSV files of the action-tubes competition: a header row, columns found by header name, vectorized parsing.

read_csv() splits the bytes with numpy, block by block of whole lines (no Python loop over lines or fields): the
positions of newlines and commas give every line's field count and the bounds of the required fields; a block
whose every line has the header's field count is one reshape, any other block is checked line by line in numpy
(blank lines, and lines of blanks only, are skipped; the first line with another field count is the error). Only
the separators around the required columns are kept, so extra columns cost nothing after the scan. Numbers are
read as 64-bit words straight from the bytes (formats.fastnum): plain decimals are decoded there exactly
(bit-identical to float()), anything else by numpy's own parser, block by block. Text columns are read as integer
codes (equal texts, equal codes), fields grouped by length so that no fixed-width copy is wider than its fields.
Columns that repeat on consecutive records (a tube's video, id, label, score) are read once per run. Every error
names the file and the 1-based line.

The caps (formats.limits) hold for every field read and every header name: MAX_FIELD_CHARS for text,
MAX_NUMBER_CHARS for numbers, both checked on the field as written, blanks included (the width rule, _over_cap;
the carriage return of a CRLF line is not part of its last field).

read_videos / read_gt_tubes (reference, ReferenceDataError) and read_frame_detections / read_tubes (submission,
SubmissionError) return plain arrays for the metrics. A box with x1 > x2 or y1 > y2 is an error in the reference
data; in a submission it is read as it is (the metrics score it as the originals do) and counted (InvertedBoxes).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, shorten
from . import limits
from .fastnum import gather_words, parse_decimal, words_to_matrix
from .text import lookup, read_bytes

_WS = np.zeros(256, dtype=bool)
_WS[[0, 9, 11, 12, 13, 32]] = True      # blanks around a field (NUL is the gather padding)
_BLANK = np.zeros(256, dtype=bool)
_BLANK[[9, 10, 11, 12, 13, 32]] = True  # what a blank line holds (bytes.strip's set)

BLOCK = 1 << 18                         # records per block of vectorized work
CHUNK = 1 << 20                         # bytes per block of the line scan (whole lines; a longer line is one block)
VIDEO_COLUMNS = ("video", "label", "num_frames")
GT_COLUMNS = ("video", "tube", "label", "frame", "x1", "y1", "x2", "y2")
DET_COLUMNS = ("video", "frame", "label", "score", "x1", "y1", "x2", "y2")
TUBE_COLUMNS = ("video", "tube", "label", "score", "frame", "x1", "y1", "x2", "y2")
NUMBER_COLUMNS = frozenset(("num_frames", "frame", "score", "x1", "y1", "x2", "y2"))


def _over_cap(length, cap):
    """The width rule, in one place: the index of the first field longer than `cap` characters, or -1."""
    if not length.size:
        return -1
    i = int(np.argmax(length > cap))
    return i if length[i] > cap else -1


def _cap_error(err, file, line, name, length):
    """The error for a field of `length` characters over its column's cap (a number's or any field's)."""
    expected, found = (limits.number_too_long if name in NUMBER_COLUMNS else limits.field_too_long)(length)
    return err(file, line, expected=expected, found=found)


def _cap(name):
    return limits.MAX_NUMBER_CHARS if name in NUMBER_COLUMNS else limits.MAX_FIELD_CHARS


def _strip(arr, start, end, blank=_WS):
    """(start, end) of the fields without the blanks around them (int64 arrays are moved in place): a loop over
    character positions (a field is within its cap), each step over the fields that still begin (end) with a
    blank."""
    start = start.astype(np.int64, copy=False)
    end = end.astype(np.int64, copy=False)
    idx = np.flatnonzero(start < end)
    idx = idx[blank[arr[start[idx]]]]
    while idx.size:
        start[idx] += 1
        idx = idx[start[idx] < end[idx]]
        idx = idx[blank[arr[start[idx]]]]
    idx = np.flatnonzero(start < end)
    idx = idx[blank[arr[end[idx] - 1]]]
    while idx.size:
        end[idx] -= 1
        idx = idx[start[idx] < end[idx]]
        idx = idx[blank[arr[end[idx] - 1]]]
    return start, end


def _first_filled(arr, start, end):
    """The first byte in start .. end - 1 that is not blank (end if none), block by block."""
    for a in range(start, end, CHUNK):
        filled = ~_BLANK[arr[a:min(a + CHUNK, end)]]
        if filled.any():
            return a + int(np.argmax(filled))
    return end


def _echo(data, arr, start, end):
    """The participant's line start .. end - 1 for a message: stripped, shortened, escaped (a few hundred bytes of
    it are decoded, however long it is)."""
    start = _first_filled(arr, start, end)
    return shorten(data[start:min(end, start + 4 * limits.ECHO_CHARS)].decode("utf-8", "replace").strip())


def _first_failure(tokens, kind):
    """The index of the first of `tokens` ('S' array) that numpy cannot convert to `kind`, given that some cannot:
    a bisection over prefixes, each converted in C (about twice one conversion, no loop over tokens)."""
    lo, hi = 0, tokens.size             # the first failure is in lo .. hi - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            tokens[lo:mid].astype(kind)
            lo = mid
        except (ValueError, OverflowError):
            hi = mid
    return lo


def _find(texts, universe):
    """The index in `universe` (unique 'S' array) of each of `texts` ('S' array of one width, stripped), or -1."""
    same = np.flatnonzero(np.char.str_len(universe) == texts.dtype.itemsize)
    found = lookup(texts, universe[same].astype(texts.dtype))
    hit = found >= 0
    found[hit] = same[found[hit]]
    return found


class Codes(NamedTuple):
    """A text column read as integers: equal texts (blanks around them stripped), equal codes."""
    code: np.ndarray        # (n,) int64: the code of every record read
    values: list            # per field length, that length's distinct texts ('S' arrays, sorted): code order
    bases: np.ndarray       # the first code of each entry of values

    def text(self, code):
        """The text of one code (for a message)."""
        b = int(np.searchsorted(self.bases, code, side="right")) - 1
        return self.values[b][code - int(self.bases[b])].decode("utf-8", "replace")


class CsvTable(object):
    """Records of a CSV file: the positions of the separators around each record's required fields, and the
    1-based line of every record.

    seps[j] is (n,) int32 (int64 for a file of 2 GiB or more): one separator of every record, a comma or the
    newline, or the byte before the line for its first field; fields[name] = (j, k): the field is seps[j] + 1 ..
    seps[k] - 1. lines is (n,), of the same type."""

    def __init__(self, data, arr, file, err, lines, seps, fields):
        self.data = data
        self.arr = arr
        self.file = file
        self.err = err
        self.lines = lines
        self.seps = seps
        self.fields = fields

    def __len__(self):
        return int(self.lines.size)

    def release(self):
        """Drop the file's bytes and separators (memory) once every column is read; lines stay for errors."""
        self.data = self.arr = self.seps = None

    def forget(self, *names):
        """Drop the separators that only the columns `names` need (memory: each column is read once)."""
        self.fields = dict((name, jk) for name, jk in self.fields.items() if name not in names)
        used = set(j for jk in self.fields.values() for j in jk)
        self.seps = [sep if j in used else None for j, sep in enumerate(self.seps)]

    def take(self, idx):
        """The records idx (ascending int array) as a table of their own (same file, same line numbers)."""
        if idx.size == len(self):
            return self
        return CsvTable(self.data, self.arr, self.file, self.err, self.lines[idx],
                        [None if sep is None else sep[idx] for sep in self.seps], self.fields)

    def bounds(self, name, rows=slice(None)):
        """(start, end) int64 byte offsets of the field `name` of the records `rows` (a slice or an index array),
        end exclusive."""
        j, k = self.fields[name]
        start = self.seps[j][rows].astype(np.int64)
        start += 1
        return start, self.seps[k][rows].astype(np.int64)

    def blocks(self):
        """The records, BLOCK by BLOCK: slices (small temporaries)."""
        n = len(self)
        return [slice(a, min(a + BLOCK, n)) for a in range(0, n, BLOCK)]

    def spans(self, name):
        """(rows, start, end) for the records rows = slice(a, a + len(start)), block by block."""
        for rows in self.blocks():
            start, end = self.bounds(name, rows)
            yield rows, start, end

    def line(self, rows, i):
        """The 1-based line of the i-th of the records `rows` (a slice or an index array)."""
        return int(self.lines[rows.start + i if isinstance(rows, slice) else rows[i]])

    def widest(self, name, start, end, rows=slice(0, None)):
        """The longest of these fields of the column (of the records `rows`); one over the column's cap is an error
        naming its line."""
        length = end - start
        i = _over_cap(length, _cap(name))
        if i >= 0:
            raise _cap_error(self.err, self.file, self.line(rows, i), name, int(length[i]))
        return int(length.max()) if length.size else 0

    def _stripped(self, name, rows=slice(0, None)):
        """(start, end) of the fields of the records `rows`, blanks around them stripped; a field over the cap or
        empty is an error naming its line."""
        start, end = self.bounds(name, rows)
        self.widest(name, start, end, rows)
        start, end = _strip(self.arr, start, end)
        empty = np.flatnonzero(end <= start)
        if empty.size:
            raise self.err(self.file, self.line(rows, int(empty[0])), expected="a %s" % name, found="an empty field")
        return start, end

    def _by_length(self, start, length):
        """For each field length (a loop over lengths, at most the cap): the fields of that length (indices), their
        distinct texts ('S' array of that width, sorted) and the index of each field's text among them. No copy
        is wider than its fields."""
        if not length.size:
            return
        order = np.argsort(length, kind="stable")
        cuts = np.flatnonzero(np.diff(length[order])) + 1
        for lo, hi in zip([0] + cuts.tolist(), cuts.tolist() + [length.size]):
            at = order[lo:hi]
            width = int(length[at[0]])
            texts = words_to_matrix(gather_words(self.arr, start[at], length[at], (width + 7) // 8), width)
            uniq, inv = np.unique(texts.view("S%d" % width).ravel(), return_inverse=True)
            yield at, uniq, inv.ravel()

    def text(self, name):
        """Column `name` as a stripped 'S' array (the reference's ids; a submission's columns are read by find and
        codes, which make no copy wider than the fields)."""
        start, end = self._stripped(name)
        width = max(int((end - start).max()) if start.size else 0, 1)
        return words_to_matrix(gather_words(self.arr, start, end - start, (width + 7) // 8), width).view(
            "S%d" % width).ravel()

    def find(self, name, universe):
        """The index of every record's field `name` (stripped) in universe (unique 'S' array), -1 if absent;
        block by block."""
        out = np.empty(len(self), dtype=np.int64)
        for rows in self.blocks():
            start, end = self._stripped(name, rows)
            found = out[rows]
            for at, uniq, inv in self._by_length(start, end - start):
                found[at] = _find(uniq, universe)[inv]
        return out

    def codes(self, name, rows=slice(0, None)):
        """The column `name` of the records `rows` as Codes."""
        start, end = self._stripped(name, rows)
        length = end - start
        del end
        code = np.empty(length.size, dtype=np.int64)
        values, bases = [], []
        base = 0
        for at, uniq, inv in self._by_length(start, length):
            code[at] = base + inv
            values.append(uniq)
            bases.append(base)
            base += uniq.size
        return Codes(code, values, np.array(bases, dtype=np.int64))

    def raw(self, name, i):
        """The field `name` of record i as written, stripped (within its cap: read after the width rule)."""
        start, end = self.bounds(name, slice(i, i + 1))
        return self.data[int(start[0]):int(end[0])].decode("utf-8", "replace").strip()

    def number(self, name):
        """Column `name` as finite float64; a token that is not a number, or not finite, names its line."""
        return self._numbers(name, False)

    def integer(self, name):
        """Column `name` as int64; a token that is not an integer (or beyond int64) names its line."""
        return self._numbers(name, True)

    def _numbers(self, name, integer):
        """fastnum.parse_decimal, block by block; the fields it leaves go to numpy's parser in the same block, so the
        first bad token of the column is the first named, whatever its kind."""
        out = np.empty(len(self), dtype=np.int64 if integer else np.float64)
        for rows, start, end in self.spans(name):
            a = rows.start
            width = self.widest(name, start, end, rows)
            length = end - start
            words = gather_words(self.arr, start, length, max((width + 7) // 8, 1))
            vals, ok = parse_decimal(words, length, integer)
            if ok.all():
                out[a:a + start.size] = vals
                continue
            slow = np.flatnonzero(~ok)
            vals[slow] = 0
            out[a:a + start.size] = vals
            out[a + slow] = self._numbers_slow(name, a + slow, words[:, slow], width, integer)
        return out

    def _numbers_slow(self, name, rows, words, width, integer):
        """numpy's parser (in C: float() / int(), correctly rounded) for the records `rows`."""
        tokens = words_to_matrix(words, max(width, 1)).view("S%d" % max(width, 1)).ravel()
        kind = np.int64 if integer else np.float64
        try:
            vals, bad = tokens.astype(kind), -1
        except (ValueError, OverflowError):
            bad = _first_failure(tokens, kind)
            vals = tokens[:bad].astype(kind)
        nonfinite = np.flatnonzero(~np.isfinite(vals)) if not integer else []
        if len(nonfinite):              # before the first token numpy cannot read, if any: the first bad token
            i = int(rows[nonfinite[0]])
            raise self.err(self.file, int(self.lines[i]), expected="a finite number for the %s" % name,
                           found=shorten(self.raw(name, i)))
        if bad >= 0:
            i = int(rows[bad])
            raise self.err(self.file, int(self.lines[i]), expected="%s for the %s" % (
                "an integer" if integer else "a number", name), found=shorten(self.raw(name, i)))
        return vals


def _header(data, arr, label, columns, err):
    """(ncols, column of each required name, the first byte after the header, the header's line): the header is
    the first line that is not blank; its names are matched stripped and in lower case, every name within the
    field cap."""
    first = _first_filled(arr, 0, arr.size)
    if first == arr.size:
        raise err(label, expected="a header row naming the columns %s" % ",".join(columns), found="an empty file")
    start = data.rfind(b"\n", 0, first) + 1
    end = data.find(b"\n", first)
    end = arr.size if end < 0 else end
    line = data.count(b"\n", 0, start) + 1
    hits = dict((name, (0, None)) for name in columns)     # name -> (how many columns have it, the first)
    lengths = sorted(set(len(name) for name in columns))
    ncols, field_start, a = 0, start, start
    while True:                         # blocks of the header (a header of a million names is fine)
        b = min(a + CHUNK, end)
        commas = np.flatnonzero(arr[a:b] == 44) + a
        fs = np.concatenate(([field_start], commas + 1))
        fe = np.concatenate((commas, [end]))
        if b < end:                     # the last field goes on in the next block
            field_start = int(fs[-1])
            fs, fe = fs[:-1], fe[:-1]
        i = _over_cap(fe - fs, limits.MAX_FIELD_CHARS)
        if i >= 0:
            raise _cap_error(err, label, line, None, int(fe[i] - fs[i]))
        fs, fe = _strip(arr, fs, fe, _BLANK)
        for width in lengths:           # a loop over the names' lengths
            at = np.flatnonzero(fe - fs == width)
            if not at.size:
                continue
            text = words_to_matrix(gather_words(arr, fs[at], fe[at] - fs[at], (width + 7) // 8), width)
            text = np.where((text >= 65) & (text <= 90), text | 32, text).view("S%d" % width).ravel()
            for name in columns:
                same = at[text == name.encode()] if len(name) == width else at[:0]
                if same.size:
                    count, col = hits[name]
                    hits[name] = (count + same.size, ncols + int(same[0]) if col is None else col)
        ncols += fs.size
        if b == end:
            break
        a = b
    missing = [c for c in columns if not hits[c][0]]
    dup = sorted(c for c in columns if hits[c][0] > 1)
    if missing or dup:
        raise err(label, line, expected="a header row naming the columns %s" % ",".join(columns),
                  found=(("missing %s" % ", ".join(missing)) if missing else "the column %s twice" % dup[0])
                  + ": " + _echo(data, arr, start, end))
    return ncols, dict((c, hits[c][1]) for c in columns), end + 1, line


def read_csv(path, label, columns, err=SubmissionError):
    """Parse a headed CSV; `columns` are the required header names (extra columns are ignored)."""
    return _read_csv(read_bytes(path, label, err), label, columns, err)


def _read_csv(data, label, columns, err, fast=True):
    """The table of `data`; fast=False checks every block line by line (the reshape shortcut off, for tests)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    ncols, where, body, line = _header(data, arr, label, columns, err)
    keep = sorted(set([where[c] - 1 for c in columns] + [where[c] for c in columns]))
    fields = dict((c, (keep.index(where[c] - 1), keep.index(where[c]))) for c in columns)
    seps, lines = _records(data, arr, body, line + 1, ncols, keep, label, err, fast)
    return CsvTable(data, arr, label, err, lines, seps, fields)


def _records(data, arr, a, line, ncols, keep, label, err, fast=True):
    """The records from byte a (line `line`) on: (seps, lines), seps[j] the positions of the separator keep[j] of
    every record (the comma ending field k, its newline ending the last; -1: the byte before the line), lines the
    1-based lines. Blank lines are skipped; a line of another field count is an error naming it."""
    size = arr.size
    dtype = np.int32 if size < 2 ** 31 - 1 else np.int64
    # a record has ncols - 1 commas and a blank line none: at most this many records, so no array grows
    most = _count(arr, a, 10) + 1
    if ncols > 1:
        most = min(most, _count(arr, a, 44) // (ncols - 1))
    seps = [np.empty(most, dtype=dtype) for _ in keep]
    lines = np.empty(most, dtype=dtype)
    n = 0
    while a < size:
        b = size if a + CHUNK >= size else data.rfind(b"\n", a, a + CHUNK) + 1
        if b <= a:                      # a line longer than a chunk: a block of its own, counted before a scan
            end = data.find(b"\n", a + CHUNK)
            b = size if end < 0 else end + 1
            end = b - 1 if end >= 0 else size
            ncomma = data.count(b",", a, end)
            if ncomma == 0 and _first_filled(arr, a, end) == end:
                a, line = b, line + 1
                continue
            if ncomma != ncols - 1:
                raise _count_error(err, label, line, ncols, ncomma, data, arr, a, end)
        blk = arr[a:b]
        is_sep = blk == 10
        is_sep |= blk == 44
        pos = np.flatnonzero(is_sep)
        del is_sep
        nreal = pos.size
        if b == size and arr[-1] != 10:
            pos = np.append(pos, b - a)    # the last line, without its newline
        is_nl = np.empty(pos.size, dtype=bool)
        is_nl[:nreal] = blk[pos[:nreal]] == 10
        is_nl[nreal:] = True
        rows = pos.size // ncols
        nlines = int(np.count_nonzero(is_nl))
        if fast and ncols > 1 and rows == nlines and rows * ncols == pos.size and is_nl[ncols - 1::ncols].all():
            table = pos.reshape(rows, ncols)      # every line has the header's field count
            before = np.empty(rows, dtype=np.int64)
            before[:1] = -1
            before[1:] = table[:-1, -1]
            rec = np.arange(rows)
        else:
            ends = np.flatnonzero(is_nl)           # each line's newline, as an index into pos
            ncomma = np.diff(ends, prepend=-1) - 1
            starts = np.empty(ends.size, dtype=np.int64)
            starts[:1] = 0
            starts[1:] = pos[ends[:-1]] + 1
            fit = ncomma == ncols - 1
            if ncols == 1 or not fit.all():
                filled = np.logical_or.reduceat(~_BLANK[blk], starts)     # some byte of the line is not blank
                bad = np.flatnonzero(~fit & filled)
                if bad.size:
                    i = int(bad[0])
                    raise _count_error(err, label, line + i, ncols, int(ncomma[i]), data, arr, a + int(starts[i]),
                                       a + int(pos[ends[i]]))
                fit &= filled
            line_of = np.cumsum(is_nl) - is_nl
            table = pos[fit[line_of]].reshape(-1, ncols)
            rec = np.flatnonzero(fit)
            before = starts[rec] - 1
        table[:, -1] -= blk[table[:, -1] - 1] == 13     # a CRLF line's last field ends before its carriage return
        for j, k in enumerate(keep):        # a loop over the kept separators (two per required column at most)
            seps[j][n:n + rec.size] = (before if k < 0 else table[:, k]) + a
        lines[n:n + rec.size] = rec + line
        n += rec.size
        a, line = b, line + nlines
    return [sep[:n] for sep in seps], lines[:n]


def _count(arr, a, byte):
    """How many of the bytes from a on are `byte` (block by block: no temporary the size of the file)."""
    return sum(int(np.count_nonzero(arr[b:b + CHUNK] == byte)) for b in range(a, arr.size, CHUNK))


def _count_error(err, label, line, ncols, ncomma, data, arr, start, end):
    return err(label, line, expected="%d comma-separated fields (as the header)" % ncols,
               found="%d: %s" % (ncomma + 1, _echo(data, arr, start, end)))


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


def _group_tubes(t, vid, tube_id, frame, labels, scores, err, what, tube_name):
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
    first_row = run_start[tube_of_row]
    badl = np.flatnonzero(labels != labels[first_row])
    if badl.size:
        i = first(badl)
        raise err(t.file, int(lines[i]), message="the label of the %s %s changes" % (what, tube_txt(i)),
                  expected="the same label on every row of a tube")
    if scores is not None:
        bads = np.flatnonzero(scores != scores[first_row])
        if bads.size:
            i = first(bads)
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
    vid = t.find("video", videos.ids)
    if np.any(vid < 0):
        i = int(np.argmax(vid < 0))
        raise err(label, int(t.lines[i]), message="a video that is not in videos.csv")
    lab = t.find("label", videos.classes)
    if np.any(lab < 0):
        i = int(np.argmax(lab < 0))
        raise err(label, int(t.lines[i]), message="a label that no video of videos.csv has")
    frame = t.integer("frame")
    _check_frames(t, frame, videos.num_frames[vid], err)
    boxes = _reference_boxes(t)
    tube = t.codes("tube")
    order, start, length, first_line = _group_tubes(t, vid, tube.code, frame, lab, None, err, "ground-truth tube",
                                                    tube.text)
    vid, frame, lab, boxes = _reorder(order, vid, frame, lab, boxes)
    fo = np.argsort(first_line, kind="stable")    # tubes in file order (ACT lists a video's GT tubes in order)
    return Boxes(video=vid, frame=frame, box=boxes, tube_video=vid[start][fo], tube_label=lab[start][fo],
                 tube_start=start[fo], tube_first=frame[start][fo], tube_length=length[fo], tube_line=first_line[fo])


# ----------------------------------------------------------------------------------------------- submission

def _runs(t, names):
    """Runs of consecutive records whose raw bytes are identical in every column of `names`: (the table of
    each run's first record, run lengths, or None when every run is one record). Reading those columns per run
    gives the per-record values by np.repeat, and the first faulty record of a column is always the first record
    of its run, so errors name the same line as a record-by-record read. A field over its column's cap is an error
    here."""
    n = len(t)
    new = np.zeros(n, dtype=bool)
    new[:1] = True
    for name in names:
        prev = None                     # the last field of the previous block
        for rows, s, e in t.spans(name):
            length = e - s
            nw = (t.widest(name, s, e, rows) + 7) // 8
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
            new[rows] |= diff
    r = np.flatnonzero(new)
    if r.size == n:
        return t, None                  # every record a run of its own
    return t.take(r), np.diff(np.append(r, n))


def _per_record(cnt, *values):
    """Values per run -> per record (np.repeat; as they are when every run is one record, cnt None)."""
    return values if cnt is None else tuple(np.repeat(v, cnt) for v in values)


def _check_labels(t, classes):
    """The class index of every record's label; an unknown label is an error naming the first such line, the first
    five distinct unknown labels and their count. Every row is checked, also those of videos outside the test list
    (which the original ignores): a rule applied only where the ground truth has the video would tell which videos
    it has (issue 20); the class set is public, it is the leaderboard's columns."""
    lab = t.find("label", classes)
    bad = np.flatnonzero(lab < 0)
    if bad.size:
        label = t.codes("label", bad)
        _, at = np.unique(label.code, return_index=True)
        at.sort()                       # the distinct unknown labels in order of their first line
        shown = ", ".join(shorten(label.text(int(label.code[i])), 30) for i in at[:5].tolist())
        raise SubmissionError(t.file, int(t.lines[bad[0]]), expected="labels of the class set (the labels of "
                              "videos.csv)", found="%d unknown: %s%s" % (at.size, shown, " and %d more" % (
                                  at.size - 5) if at.size > 5 else ""))
    return lab


class FrameDetections(object):
    def __init__(self, **kw):
        self.__dict__.update(kw)


def read_frame_detections(path, label, videos):
    """frame_detections.csv -> arrays for the known videos (rows of other videos are dropped and counted)."""
    t = read_csv(path, label, DET_COLUMNS)
    u, cnt = _runs(t, ("video", "label"))
    vid_u = u.find("video", videos.ids)
    known_u = vid_u >= 0
    lab_u = _check_labels(u, videos.classes)
    vid, known, lab = _per_record(cnt, vid_u, known_u, lab_u)
    del u, vid_u, known_u, lab_u
    t.forget("video", "label")          # each column's separators go once it is read (memory)
    frame = t.integer("frame")
    t.forget("frame")
    score = t.number("score")
    t.forget("score")
    boxes = _boxes(t)
    inverted = _inverted(t, boxes, known)
    t.release()
    _check_frames(t, frame, _frame_limits(videos, vid), SubmissionError)
    keep = np.flatnonzero(known)
    if keep.size < len(t):
        vid, frame, lab, score, boxes, lines = (x[keep] for x in (vid, frame, lab, score, boxes, t.lines))
    else:
        lines = t.lines
    return FrameDetections(video=vid, frame=frame, label=lab, score=score, box=boxes, line=lines, nrows=len(t),
                           ignored=int(len(t) - keep.size), inverted=inverted)


def _frame_limits(videos, vid):
    """Each row's num_frames: its video's, the largest int64 for a video outside the test list (vid < 0)."""
    limit = np.take(videos.num_frames, vid, mode="clip")
    limit[vid < 0] = np.iinfo(np.int64).max
    return limit


def _check_tubes_per_video_class(file, video, label, line):
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


def read_tubes(path, label, videos):
    """tubes.csv -> Boxes of the known videos, tubes in file order of their first row."""
    t = read_csv(path, label, TUBE_COLUMNS)
    # video, tube, label and score repeat on every row of a tube: read them once per run of identical cells
    u, cnt = _runs(t, ("video", "tube", "label", "score"))
    vid_u = u.find("video", videos.ids)
    known_u = vid_u >= 0
    outside = np.flatnonzero(~known_u)
    if outside.size:            # a video outside the test list: its own negative id (tube ids are per video)
        vid_u[outside] = -1 - u.codes("video", outside).code
    lab_u = _check_labels(u, videos.classes)
    tube = u.codes("tube")
    label_u = u.codes("label").code             # the label as written: the cap counts every video's tubes
    vid, known, lab, tid, score = _per_record(cnt, vid_u, known_u, lab_u, tube.code, u.number("score"))
    tube = tube._replace(code=None)     # its texts stay, for messages
    del u, vid_u, known_u, lab_u
    t.forget("video", "tube", "label", "score")
    frame = t.integer("frame")
    t.forget("frame")
    boxes = _boxes(t)
    inverted = _inverted(t, boxes, known)
    t.release()
    _check_frames(t, frame, _frame_limits(videos, vid), SubmissionError)
    order, start, length, tube_lines = _group_tubes(t, vid, tid, frame, lab, score, SubmissionError, "tube",
                                                    tube.text)
    first_record = start if order is None else order[start]
    run = first_record if cnt is None else np.searchsorted(np.cumsum(cnt), first_record, side="right")
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
