"""Whitespace- or comma-separated text tables: the one tokenizer and number parser of every text format.

parse_table() splits a file into records of exactly `ncols` fields and keeps each record's 1-based line number,
so that every later check can name the line. It reads the bytes in blocks of whole lines (BLOCK_BYTES), so its
temporary arrays are bounded whatever the file holds (a flood of newlines, one huge token, one huge line), and it
keeps only what a record needs: its line and, per field, where the field starts and its length. The fields
themselves are read from the bytes only when a caller asks (to_float, to_int, Records.keys), in chunks of rows.

The caps of formats.limits are checked here, once, for every format: a field longer than MAX_FIELD_CHARS and a
number longer than MAX_NUMBER_CHARS are one-line errors naming the file and the line, before any fixed-width array
is built. Numbers that do not fit where they go (an integer beyond 64 bits) are errors naming the line too.

Fields read as numpy's 'S' arrays read them: a field's trailing NUL bytes are not part of it.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from ..errors import SubmissionError, quote_some, shorten
from .fastnum import gather_words, parse_decimal, words_to_matrix
from .limits import ECHO_CHARS, MAX_FIELD_CHARS, MAX_NUMBER_CHARS, field_too_long, number_too_long

BLOCK_BYTES = 1 << 20       # bytes per block of the tokenizer (whole lines, unless one line is longer)
CHUNK_ROWS = 1 << 16        # records per chunk when fields are read from the bytes
SMALL_ROWS = 4096           # numbers(): a column of at most this many rows is converted by numpy at once
KEY_WIDTH = 16              # Records.keys: ids longer than this and than every id of the universe get a stand-in
                            # (of 9 bytes: KEY_WIDTH must be at least 9)

_WS = b" \t\r\x0b\x0c"      # what bytes.split() splits on, besides LF
_IS_BLANK = np.zeros(256, dtype=bool)   # byte -> is white space or LF (a table lookup is faster than np.isin)
_IS_BLANK[list(_WS) + [10]] = True
_CONTENT = re.compile(rb"[^ \t\r\x0b\x0c\n]")
_PLAIN_MAX = 17             # the longest plain decimal fastnum reads: sign, 15 digits, point
_ECHO_BYTES = 4 * ECHO_CHARS + 16   # bytes of a line read for a message (UTF-8: at most 4 bytes a character)


def read_bytes(path, file_label, err=SubmissionError) -> bytes:
    """The file's bytes, without a UTF-8 byte-order mark (read past it: the bytes are never copied)."""
    try:
        with open(str(path), "rb") as f:
            head = f.read(3)
            if head == b"\xef\xbb\xbf":
                return f.read()
            f.seek(0)
            return f.read()
    except OSError as e:
        raise err(file_label, message="cannot read the file (%s)" % e.strerror)


def _where(mask):
    """np.flatnonzero of a 1-D mask, without numpy's function dispatch (several times quicker on numpy 1.17, which
    counts for the many small files of some competitions)."""
    return mask.nonzero()[0]


def _as_array(data):
    return np.frombuffer(data, dtype=np.uint8) if len(data) else np.zeros(8, dtype=np.uint8)


def has_content(data: bytes, a: int, b: int) -> bool:
    """Whether data[a:b] holds a byte other than white space (as bytes.strip() sees it), without copying it."""
    return _CONTENT.search(data, a, b) is not None


def line_text(data: bytes, pos: int) -> str:
    """The line holding byte `pos`, stripped, for a message: at most _ECHO_BYTES of it are decoded."""
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    end = len(data) if end < 0 else end
    m = _CONTENT.search(data, start, end)
    if m is None:
        return ""
    first = m.start()
    stop = min(end, first + _ECHO_BYTES)
    text = data[first:stop].decode("utf-8", "replace")
    return text.strip() if stop == end else text.lstrip()


class Records(object):
    """Fields of a text table, read from the file's bytes on demand.

    lines[i]: the 1-based line of record i. Field k of record i is data[start[i, k]:start[i, k] + length[i, k]]
    (surrounding white space and trailing NULs left out). `cols` gives every field as 'S' arrays (for small tables:
    a column is as wide as its longest field); to_float, to_int and keys() read them in bounded chunks.
    """

    def __init__(self, cols, lines, file):
        """Records from 'S' columns (a hand-made table): the fields are copied into one buffer, row by row."""
        lines = np.asarray(lines, dtype=np.int64)
        n = lines.size
        cols = [np.ascontiguousarray(np.asarray(c, dtype="S")) for c in cols]
        offsets = np.cumsum([0] + [c.dtype.itemsize for c in cols])
        if cols:
            mat = np.concatenate([c.view(np.uint8).reshape(n, c.dtype.itemsize) for c in cols], axis=1)
            length = np.stack([np.char.str_len(c) for c in cols], axis=1)
        else:
            mat, length = np.zeros((n, 0), dtype=np.uint8), np.zeros((n, 0), dtype=np.int64)
        start = np.arange(n, dtype=np.int64)[:, None] * int(offsets[-1]) + offsets[:-1][None, :]
        self._set(mat.tobytes(), start.astype(np.int64), length, lines, file)

    @classmethod
    def from_tokens(cls, data, start, length, lines, file):
        rec = cls.__new__(cls)
        rec._set(data, start, length, lines, file)
        return rec

    def _set(self, data, start, length, lines, file):
        self.data = data
        self.start = start                      # int32 (int64 for a file of 2 GiB or more), as lines
        self.length = length.astype(np.uint16, copy=False)
        self.lines = lines
        self.file = file
        self.ncols = int(start.shape[1])
        self._stand_ins = {}
        self._table = None

    def __len__(self):
        return int(self.lines.size)

    @property
    def cols(self):
        """Every column as an 'S' array as wide as its longest field (for small tables such as reference lists)."""
        return [self.column(k) for k in range(self.ncols)]

    def column(self, k, width=None):
        """Column k as an 'S' array of `width` bytes (its longest field when None; longer fields are cut)."""
        if width is None and len(self) <= SMALL_ROWS:
            return self._small_table()[:, k]
        length = self.length[:, k]
        if width is None:
            width = int(length.max()) if length.size else 0
        return _gather(_as_array(self.data), self.start[:, k], np.minimum(length, width), width)

    def _small_table(self):
        """Every field of a small table at once (one gather), as an (n, ncols) 'S' array."""
        if self._table is None:
            length = self.length.astype(np.int64).ravel()
            width = int(length.max()) if length.size else 0
            self._table = _gather(_as_array(self.data), self.start.ravel(), length, width).reshape(
                self.start.shape)
        return self._table

    def field(self, i, k) -> bytes:
        s = int(self.start[i, k])
        return self.data[s:s + int(self.length[i, k])]

    def keys(self, k, universe=None):
        """Column k for comparisons with `universe` (an 'S' array, e.g. the evaluated ids), in bounded memory.

        A field longer than KEY_WIDTH and than every id of the universe cannot be among them: it is replaced by a
        stand-in, LF and 8 hex digits (no field holds LF, so a stand-in equals no field and no id), one per
        distinct field, so that equal fields still compare equal. expand() gives the field back for messages.
        """
        width = max(KEY_WIDTH, universe.dtype.itemsize if universe is not None else 0)
        length = self.length[:, k]
        out = self.column(k, min(width, int(length.max())) if length.size else 0)
        long = _where(length > width)
        if long.size:
            codes, first = _distinct(_as_array(self.data), self.start[long, k], length[long].astype(np.int64))
            out[long] = _stand_in(codes)
            self._stand_ins[k] = long[first]
        return out

    def expand(self, key, k=0) -> str:
        """A key of keys(k) (or a key joined from it) as text, its stand-ins replaced by the fields they stand for."""
        table = self._stand_ins.get(k)

        def field(m):
            return self.field(int(table[int(m.group(1), 16)]), k)

        text = key if table is None else _STAND_IN.sub(field, key)
        return text.decode("utf-8", "replace")


_STAND_IN = re.compile(rb"\n([0-9a-f]{8})")
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def _stand_in(codes):
    """b'\\n' + 8 hex digits per code, as an 'S9' array."""
    mat = np.empty((codes.size, 9), dtype=np.uint8)
    mat[:, 0] = 10
    for j in range(8):
        mat[:, 8 - j] = _HEX[(codes >> (4 * j)) & 15]
    return mat.view("S9").ravel()


def _distinct(arr, start, length):
    """(code of each field, position of each code's first field): equal fields share a code. The fields are
    grouped by length and compared in 'S' arrays exactly as wide as the group's fields (bounded memory)."""
    order = np.argsort(length, kind="stable")
    sorted_len = length[order]
    bounds = np.concatenate([[0], _where(np.diff(sorted_len)) + 1, [order.size]])
    codes = np.empty(order.size, dtype=np.int64)
    firsts = []
    offset = 0
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):     # a loop over distinct lengths
        members = order[a:b]
        width = int(sorted_len[a])
        fields = _gather(arr, start[members], length[members], width)
        uniq, first, inverse = np.unique(fields, return_index=True, return_inverse=True)
        codes[members] = offset + inverse.reshape(-1)
        firsts.append(members[first])
        offset += uniq.size
    return codes, np.concatenate(firsts)


def _gather(arr, start, length, width):
    """The fields (start, length) of the byte array as an 'S<width>' array, read in chunks of rows."""
    n = start.size
    out = np.zeros(n, dtype="S%d" % max(width, 1))
    if width == 0:
        return out
    nwords = (width + 7) // 8
    for a in range(0, n, CHUNK_ROWS):
        b = min(n, a + CHUNK_ROWS)
        out[a:b] = words_to_matrix(gather_words(arr, start[a:b], length[a:b], nwords), width).view(
            "S%d" % width).ravel()
    return out


# ---------------------------------------------------------------------------------------------------------------
# The tokenizer

class _Scan(object):
    """One pass over a file's blocks: the records, and the first fault of each kind (reported in the order
    blank line, wrong number of fields, field too long, whatever their lines)."""

    def __init__(self, data, sep, allowed, allow_blank):
        self.data = data
        self.sep = sep
        self.allowed = allowed
        self.allow_blank = allow_blank
        self.n = None               # fields per record, from the first record
        self.line_base = 0          # 0-based index of the block's first line
        self.blank = None           # 1-based line of the first blank line (when blank lines are errors)
        self.bad_count = None       # (line, fields found, a byte of that line)
        self.too_long = None        # (line, length of the field)
        self.lines, self.starts, self.lengths = [], [], []      # per block
        self.offset_type = np.int32 if len(data) < (1 << 31) else np.int64     # field starts, lines

    def faulty(self):
        return self.blank is not None or self.bad_count is not None or self.too_long is not None

    def done(self):
        """Nothing later in the file can change the error."""
        if self.blank is not None:
            return True
        return self.bad_count is not None and self.allow_blank

    def _fields(self, counts):
        if self.n is None:
            nonzero = _where(counts)
            if nonzero.size:
                first = int(counts[nonzero[0]])
                self.n = first if first in self.allowed else self.allowed[0]

    def block(self, b0, b1):
        """A block of whole lines: count, check and keep its records."""
        arr = np.frombuffer(self.data, dtype=np.uint8, count=b1 - b0, offset=b0)
        blank = _IS_BLANK[arr]
        newline = arr == 10
        nl = _where(newline)
        nlines = nl.size + int(not newline[-1])
        if self.sep is None:
            content = ~blank
        else:
            is_sep = arr == self.sep
            content = ~(blank | is_sep)
        st = _run_starts(content)
        en = _run_ends(content)
        tok_line = nl.searchsorted(st)
        if self.sep is None:
            counts = np.bincount(tok_line, minlength=nlines)
            nonblank = counts > 0
        else:
            sep_pos = _where(is_sep)
            nsep = np.bincount(nl.searchsorted(sep_pos), minlength=nlines)
            nonblank = (np.bincount(tok_line, minlength=nlines) > 0) | (nsep > 0)
            counts = np.where(nonblank, nsep + 1, 0)
        self._fields(counts)
        fault = self._check(counts, nonblank, nl, b0)
        if self.sep is None:
            fst, fen, fline = st, en, tok_line
        else:
            fst, fen, fline = _csv_fields(content, is_sep | newline, st, en, nl, nonblank, bool(newline[-1]))
        too_long = _where(fen - fst > MAX_FIELD_CHARS)
        if too_long.size and self.too_long is None:
            i = int(too_long[0])
            self.too_long = (self.line_base + int(fline[i]) + 1, int(fen[i] - fst[i]))
        if not (fault or self.faulty()) and self.n is not None:
            if self.data.find(b"\x00", b0, b1) >= 0:
                _trim_nuls(arr, fst, fen)
            recs = _where(nonblank)
            self.lines.append((self.line_base + recs + 1).astype(self.offset_type))
            self.starts.append((fst + b0).astype(self.offset_type).reshape(-1, self.n))
            self.lengths.append((fen - fst).astype(np.uint16).reshape(-1, self.n))
        self.line_base += nl.size

    def _check(self, counts, nonblank, nl, b0):
        fault = False
        if not self.allow_blank:
            blank = _where(~nonblank)
            if blank.size:
                self.blank = self.line_base + int(blank[0]) + 1
                fault = True
        if self.n is not None:
            bad = _where(nonblank & (counts != self.n))
            if bad.size:
                fault = True
                if self.bad_count is None:
                    i = int(bad[0])
                    at = b0 + (int(nl[i - 1]) + 1 if i else 0)
                    self.bad_count = (self.line_base + i + 1, int(counts[i]), at)
        return fault

    def long_line(self, a, b):
        """One line longer than a block: counted in sub-blocks; its fields are found only when their number is
        right (then there are at most max(allowed) of them)."""
        end = b - 1 if self.data[b - 1:b] == b"\n" else b
        lineno = self.line_base + 1
        if self.sep is None:
            count = _count_runs(self.data, a, end)
        else:
            nsep = self.data.count(bytes([self.sep]), a, end)
            count = nsep + 1 if nsep or _CONTENT.search(self.data, a, end) else 0
        counts = np.array([count])
        self._fields(counts)
        fault = self._check(counts, counts > 0, np.zeros(0, dtype=np.int64), a)
        if count and not fault and count == self.n:
            fst, fen = (_ws_fields if self.sep is None else _csv_long_fields)(self.data, a, end, self.sep)
            lengths = fen - fst
            if lengths.max() > MAX_FIELD_CHARS and self.too_long is None:
                self.too_long = (lineno, int(lengths.max()))
            if not self.faulty():
                self.lines.append(np.array([lineno], dtype=self.offset_type))
                self.starts.append(fst.astype(self.offset_type).reshape(1, -1))
                self.lengths.append(lengths.astype(np.uint16).reshape(1, -1))
        self.line_base += 1


def _run_starts(mask):
    start = mask.copy()
    start[1:] &= ~mask[:-1]
    return _where(start)


def _run_ends(mask):
    end = mask.copy()
    end[:-1] &= ~mask[1:]
    return _where(end) + 1


def _trim_nuls(arr, start, end):
    """end -= the field's trailing NUL bytes (numpy's 'S' arrays drop them), in place, for fields within
    MAX_FIELD_CHARS: a loop over at most that many positions."""
    i = np.flatnonzero((end > start) & (arr[np.maximum(end - 1, 0)] == 0))
    while i.size:
        end[i] -= 1
        i = i[(end[i] > start[i]) & (arr[np.maximum(end[i] - 1, 0)] == 0)]


def _csv_fields(content, boundary, st, en, nl, nonblank, ends_with_newline):
    """The fields of the block's non-blank lines, in order: (start, end, line) of each field's content (white
    space stripped; an empty field is empty). Fields lie between boundaries (separators and newlines)."""
    bnd = _where(boundary)
    seg_start = np.concatenate([[0], bnd + 1])
    if ends_with_newline:
        seg_start = seg_start[:-1]      # nothing after the block's final newline
    seg_line = nl.searchsorted(seg_start)
    keep = nonblank[seg_line]
    fst = seg_start.copy()
    fen = seg_start.copy()
    if st.size:
        seg_of_tok = bnd.searchsorted(st)
        first = np.concatenate([[True], seg_of_tok[1:] != seg_of_tok[:-1]])
        last = np.concatenate([first[1:], [True]])
        fst[seg_of_tok[first]] = st[first]
        fen[seg_of_tok[last]] = en[last]
    return fst[keep], fen[keep], seg_line[keep]


def _count_runs(data, a, b):
    """Number of maximal runs of non-blank bytes (white-space separated fields) in data[a:b], read in blocks."""
    count, prev = 0, False
    for c0 in range(a, b, BLOCK_BYTES):
        c1 = min(b, c0 + BLOCK_BYTES)
        content = ~_IS_BLANK[np.frombuffer(data, dtype=np.uint8, count=c1 - c0, offset=c0)]
        count += int(np.count_nonzero(content[1:] & ~content[:-1])) + int(bool(content[0]) and not prev)
        prev = bool(content[-1])
    return count


_TOKEN = re.compile(rb"[^ \t\r\x0b\x0c\n]+")


def _ws_fields(data, a, b, sep):
    """(start, end) of the white-space separated fields of one line data[a:b] (few: they were counted)."""
    spans = [m.span() for m in _TOKEN.finditer(data, a, b)]
    fst = np.array([s for s, _ in spans], dtype=np.int64)
    fen = np.array([_end_without_nuls(data, s, e) for s, e in spans], dtype=np.int64)
    return fst, fen


def _csv_long_fields(data, a, b, sep):
    """(start, end) of the stripped comma-separated fields of one line data[a:b] (few: they were counted)."""
    bounds = [a - 1]
    sepb = bytes([sep])
    while True:
        p = data.find(sepb, bounds[-1] + 1, b)
        if p < 0:
            break
        bounds.append(p)
    bounds.append(b)
    fst, fen = [], []
    for s, e in zip(bounds[:-1], bounds[1:]):
        m = _CONTENT.search(data, s + 1, e)
        if m is None:
            fst.append(s + 1)
            fen.append(s + 1)
            continue
        first = m.start()
        if _CONTENT.search(data, first + MAX_FIELD_CHARS + 1, e):
            last = _last_content(data, first, e)        # too long: its exact length, for the message
        else:
            last = first + len(data[first:min(e, first + MAX_FIELD_CHARS + 1)].rstrip(_WS))
        fst.append(first)
        fen.append(_end_without_nuls(data, first, last))
    return np.array(fst, dtype=np.int64), np.array(fen, dtype=np.int64)


def _end_without_nuls(data, start, end):
    if end - start > MAX_FIELD_CHARS:
        return end
    return start + len(data[start:end].rstrip(b"\x00"))


def _last_content(data, a, b):
    """1 + the position of the last non-blank byte of data[a:b] (there is one), read backwards in blocks."""
    c1 = b
    while c1 > a:
        c0 = max(a, c1 - BLOCK_BYTES)
        nz = _where(~_IS_BLANK[np.frombuffer(data, dtype=np.uint8, count=c1 - c0, offset=c0)])
        if nz.size:
            return c0 + int(nz[-1]) + 1
        c1 = c0
    return a


def blocks(data):
    """(start, end, one_line) blocks of whole lines, at most BLOCK_BYTES unless one line is longer (one_line)."""
    n = len(data)
    b0 = 0
    while b0 < n:
        if n - b0 <= BLOCK_BYTES:
            yield b0, n, False
            return
        cut = data.rfind(b"\n", b0, b0 + BLOCK_BYTES)
        if cut >= 0:
            yield b0, cut + 1, False
            b0 = cut + 1
        else:
            end = data.find(b"\n", b0)
            end = n if end < 0 else end + 1
            yield b0, end, True
            b0 = end


def parse_table(data: bytes, file_label, ncols, err=SubmissionError, allow_blank=True, sep=None,
                what="fields") -> Records:
    """Split `data` into records of exactly `ncols` fields.

    sep=None: fields separated by runs of spaces/tabs (MATLAB textscan's default); sep=b',': CSV-like,
    each field stripped of surrounding whitespace. `ncols` may be an int or a tuple of allowed counts
    (the result then uses the count of the first record, and every record must have that same count).
    Blank lines are skipped when allow_blank, else they are an error naming the line. A field longer than
    MAX_FIELD_CHARS is an error naming the line. When a file has several faults, the first blank line is reported
    first, then the first line with a wrong number of fields, then the first field too long.
    """
    allowed = (ncols,) if isinstance(ncols, int) else tuple(ncols)
    sepb = None if sep is None else (sep if isinstance(sep, int) else ord(sep))
    scan = _Scan(data, sepb, allowed, allow_blank)
    for b0, b1, one_line in blocks(data):
        (scan.long_line if one_line else scan.block)(b0, b1)
        if scan.done():
            break
    if scan.blank is not None:
        raise err(file_label, scan.blank, expected="%s on every line" % _describe(allowed, what), found="a blank line")
    if scan.bad_count is not None:
        line, count, at = scan.bad_count
        raise err(file_label, line, expected=_describe((scan.n,) if len(allowed) > 1 else allowed, what),
                  found="%d: %s" % (count, shorten(line_text(data, at))))
    if scan.too_long is not None:
        line, length = scan.too_long
        expected, found = field_too_long(length)
        raise err(file_label, line, expected=expected, found=found)
    n = scan.n if scan.n is not None else allowed[0]
    if not scan.lines:
        return Records.from_tokens(data, np.zeros((0, n), dtype=np.int64), np.zeros((0, n), dtype=np.int64),
                                   np.zeros(0, dtype=np.int64), file_label)
    return Records.from_tokens(data, _join(scan.starts), _join(scan.lengths), _join(scan.lines), file_label)


def _join(parts):
    """np.concatenate(parts), emptying the list as it goes: the memory of the parts is freed while the whole is
    filled, so joining costs no more than the result and one part."""
    total = sum(p.shape[0] for p in parts)
    out = np.empty((total,) + parts[0].shape[1:], dtype=parts[0].dtype)
    end = total
    while parts:
        part = parts.pop()
        out[end - part.shape[0]:end] = part
        end -= part.shape[0]
    return out


def _describe(allowed, what):
    if len(allowed) == 1:
        return "%d %s" % (allowed[0], what)
    return " or ".join(str(a) for a in allowed) + " " + what


# ---------------------------------------------------------------------------------------------------------------
# Numbers

class Numbers(NamedTuple):
    """A column read as numbers: values, and the first record whose field is not one (-1 if none) and why:
    'syntax' (not a number), 'long' (over MAX_NUMBER_CHARS), 'range' (an integer beyond 64 bits)."""
    values: np.ndarray
    bad: int
    reason: str


def numbers(rec: Records, k: int, integer: bool) -> Numbers:
    """Column k as float64 (or int64), in chunks of rows: plain decimals by formats.fastnum (float(token) bit for
    bit), every other field of at most MAX_NUMBER_CHARS by numpy's own conversion, a group of one length at a
    time. Nothing is raised: the caller names the first bad record (by column, or in file order)."""
    dtype = np.int64 if integer else np.float64
    n = len(rec)
    if n <= SMALL_ROWS and rec.column(k).dtype.itemsize <= MAX_NUMBER_CHARS:
        try:                                    # a few short rows: numpy's conversion at once is quickest
            return Numbers(rec.column(k).astype(dtype), -1, "")
        except (ValueError, TypeError, OverflowError):
            pass
    values = np.zeros(n, dtype=dtype)
    length = rec.length[:, k]
    start = rec.start[:, k]
    long = _where(length > MAX_NUMBER_CHARS)
    first_long = int(long[0]) if long.size else n
    arr = _as_array(rec.data)
    for a in range(0, min(n, first_long), CHUNK_ROWS):
        b = min(n, a + CHUNK_ROWS)
        ln = length[a:b].astype(np.int64)
        short = np.minimum(ln, _PLAIN_MAX)
        vals, ok = parse_decimal(gather_words(arr, start[a:b], short, (_PLAIN_MAX + 7) // 8), short,
                                 integer=integer)
        ok &= ln <= _PLAIN_MAX
        values[a:b] = np.where(ok, vals, 0)
        other = _where(~ok & (ln <= MAX_NUMBER_CHARS))
        bad, reason = _convert_others(arr, start[a:b], ln, other, values[a:b], dtype)
        if bad >= 0 and a + bad < first_long:
            return Numbers(values, a + bad, reason)
    if first_long < n:
        return Numbers(values, first_long, "long")
    return Numbers(values, -1, "")


def _convert_others(arr, start, length, rows, out, dtype):
    """numpy's conversion of the fields `rows`, grouped by length, into out; returns (first bad row, reason)."""
    if not rows.size:
        return -1, ""
    first_bad, reason = -1, ""
    lens = length[rows]
    for width in np.unique(lens).tolist():          # a loop over distinct lengths (at most MAX_NUMBER_CHARS)
        members = rows[lens == width]
        fields = _gather(arr, start[members], length[members], width)
        try:
            out[members] = fields.astype(dtype)
            continue
        except (ValueError, TypeError, OverflowError):
            pass
        i = _first_failure(fields, dtype)
        if first_bad < 0 or members[i] < first_bad:
            first_bad = int(members[i])
            reason = _failure_reason(fields[i:i + 1], dtype)
    return first_bad, reason


def _first_failure(fields, dtype):
    """Index of the first field numpy cannot convert (there is one): halving, about twice the conversions."""
    lo, hi = 0, fields.size
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            fields[lo:mid].astype(dtype)
            lo = mid
        except (ValueError, TypeError, OverflowError):
            hi = mid
    return lo


def _failure_reason(field, dtype):
    try:
        field.astype(dtype)
    except OverflowError:
        return "range"
    except (ValueError, TypeError):
        pass
    return "syntax"


def number_error(rec: Records, k: int, name: str, nums: Numbers, err=SubmissionError, integer=False):
    """The SubmissionError for nums.bad: the file, the line, what was expected and the field (shortened)."""
    i = nums.bad
    field = rec.field(i, k)
    if nums.reason == "long":
        expected, found = number_too_long(len(field))
    else:
        found = shorten(field.decode("utf-8", "replace"))
        if nums.reason == "range":
            expected = "an integer for the %s within 64 bits (-2**63 to 2**63-1)" % name
        else:
            expected = ("an integer for the %s" if integer else "a number for the %s") % name
    return err(rec.file, int(rec.lines[i]), expected=expected, found=found)


def to_float(rec: Records, k: int, name: str, err=SubmissionError, finite=True) -> np.ndarray:
    """Column k as float64; a field that is not a number, or not finite, is an error naming the line."""
    nums = numbers(rec, k, integer=False)
    if nums.bad >= 0:
        raise number_error(rec, k, name, nums, err)
    vals = nums.values
    if finite:
        bad = _where(~np.isfinite(vals))
        if bad.size:
            i = int(bad[0])
            raise err(rec.file, int(rec.lines[i]), expected="a finite number for the %s" % name,
                      found=shorten(rec.field(i, k).decode("utf-8", "replace")))
    return vals


def to_int(rec: Records, k: int, name: str, err=SubmissionError) -> np.ndarray:
    """Column k as int64; only plain integers ('12', '-1', '+3') are accepted."""
    nums = numbers(rec, k, integer=True)
    if nums.bad >= 0:
        raise number_error(rec, k, name, nums, err, integer=True)
    return nums.values


# ---------------------------------------------------------------------------------------------------------------
# Ids

def lookup(values: np.ndarray, universe: np.ndarray):
    """Index of each value in `universe` (unique 'S' array) or -1, vectorized with a sorted search (in chunks)."""
    out = np.full(values.shape, -1, dtype=np.int64)
    if universe.size == 0:
        return out
    order = np.argsort(universe, kind="stable")
    su = universe[order]
    for a in range(0, values.size, CHUNK_ROWS):
        v = values[a:a + CHUNK_ROWS]
        pos = np.minimum(su.searchsorted(v), su.size - 1)
        out[a:a + CHUNK_ROWS] = np.where(su[pos] == v, order[pos], -1)
    return out


def decode(values) -> list:
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values]


def check_known(keys: np.ndarray, known_mask: np.ndarray, rec: Records, what: str, err=SubmissionError, k=0):
    """Raise for ids not in the evaluated set: the first line, the first five distinct ids, a count of the rest.

    The message shows only what the participant wrote, never the reference's ids.
    """
    unknown = _where(~np.asarray(known_mask, dtype=bool))
    if not unknown.size:
        return
    uniq, first = np.unique(keys[unknown], return_index=True)
    shown = [rec.expand(key, k) for key in uniq[np.argsort(first, kind="stable")[:5]].tolist()]
    hidden = [""] * (uniq.size - len(shown))        # quote_some counts them: "and N more"
    raise err(rec.file, int(rec.lines[unknown[0]]), expected="%ss of the evaluated set" % what,
              found="%d unknown: %s" % (uniq.size, quote_some(shown + hidden)))
