"""The byte/line tokenizer of every text format (an engine: formats.voc, voc_det, cultural, chalearn, tubes and
voc_xml's lists are schemas on it).

parse_table() splits a file into records of exactly `ncols` fields, white-space separated (MATLAB textscan's
default) or comma-separated (each field stripped of the white space around it), and keeps each record's 1-based line
number, so that every later check can name the line. parse_csv() reads a header row first and keeps the columns it
names. Both read the bytes in blocks of whole lines (BLOCK_BYTES), so that their temporary arrays are bounded
whatever the file holds (a flood of newlines, one huge token, one huge line), and keep only what a record needs: its
line and, per kept field, where the field starts and its length. A block in the common layout (every line a record,
one separator byte between fields: single spaces, or commas) is split by one reshape of its separators' positions;
any other block by the general scan (runs of white space, blank lines, field counts). Both give the same records:
the layout decides the speed, never the result.

The fields themselves are read from the bytes only when asked: as numbers (formats.fastnum, the number engine:
to_float, to_int), as texts (Records.column, keys, find, codes), in bounded chunks.

The bytes are a copy of the file (read_bytes) or a read-only map of it (read_mapped, formats.mapped: a large file
is not held twice); the tokenizer and the number engine let go of a map's pages as they pass over them.

The caps of formats.limits hold here, once, for every format: a kept field longer than MAX_FIELD_CHARS (without the
white space around it) is a one-line error naming the file and the line, and so is a number longer than
MAX_NUMBER_CHARS or an integer beyond 64 bits, before any fixed-width array is built. When a file has several
faults, the first blank line (where blank lines are errors) is named first, then the first line with a wrong number
of fields, then the first field too long; a column's numbers name their first bad field in file order.

Fields read as numpy's 'S' arrays read them: a field's trailing NUL bytes are not part of it.
"""
from __future__ import annotations

import re
from typing import Callable, NamedTuple, Optional

import numpy as np

from ..errors import SubmissionError, quote_some, shorten
from .fastnum import NUMPY_REFUSES, Numbers, by_length, gather_fields, parse_numbers
from ..metrics.segments import offsets
from .hints import id_hint
from .mapped import map_file, release_pages
from .limits import ECHO_CHARS, MAX_FIELD_CHARS, MAX_NUMBER_CHARS, field_too_long, number_too_long

BLOCK_BYTES = 1 << 20       # bytes per block of the tokenizer (whole lines, unless one line is longer)
BLOCK_ROWS = 1 << 18        # records per block of the id and text work (Records.find)
SMALL_ROWS = 4096           # a column of at most this many rows is converted by numpy at once
KEY_WIDTH = 16              # Records.keys: ids longer than this and than every id of the universe get a stand-in
                            # (of 9 bytes: KEY_WIDTH must be at least 9)

_WS = b" \t\r\x0b\x0c"      # what bytes.split() splits on, besides LF
_IS_BLANK = np.zeros(256, dtype=bool)   # byte -> is white space or LF (a table lookup is faster than np.isin)
_IS_BLANK[list(_WS) + [10]] = True
_IS_SPACE = np.zeros(256, dtype=bool)   # byte -> separates white-space fields on a line (CR only ends a CRLF line)
_IS_SPACE[list(b" \t\x0b\x0c")] = True
_CONTENT = re.compile(rb"[^ \t\r\x0b\x0c\n]")
_ECHO_BYTES = 4 * ECHO_CHARS + 16   # bytes of a line read for a message (UTF-8: at most 4 bytes a character)


def read_bytes(path, file_label: str, err=SubmissionError) -> bytes:
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


def read_mapped(path, file_label: str, err=SubmissionError):
    """The file's bytes as read_bytes reads them, mapped read-only rather than copied when it can be (formats.mapped:
    a file of hundreds of MB is not held twice, and the engines let go of its pages as they pass)."""
    data = map_file(path)
    return read_bytes(path, file_label, err) if data is None else data


def _where(mask: np.ndarray) -> np.ndarray:
    """np.flatnonzero of a 1-D mask, without numpy's function dispatch (several times quicker on numpy 1.17, which
    counts for the many small files of some competitions)."""
    return mask.nonzero()[0]


def _as_array(data: bytes) -> np.ndarray:
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


# ---------------------------------------------------------------------------------------------------------------
# Records

class Codes(NamedTuple):
    """A text column read as integers: equal texts, equal codes.

    code: (n,) int64, the code of every record read
    values: per field length, that length's distinct texts ('S' arrays, sorted), in code order
    bases: (len(values),) int64, the first code of each entry of values
    """
    code: np.ndarray
    values: list
    bases: np.ndarray

    def text(self, code: int) -> str:
        """The text of one code (for a message)."""
        b = int(np.searchsorted(self.bases, code, side="right")) - 1
        return self.values[b][code - int(self.bases[b])].decode("utf-8", "replace")


class Records(object):
    """Fields of a text table, read from the file's bytes on demand.

    data: the file's bytes. lines: (n,) int32 (int64 for a file of 2 GiB or more), the 1-based line of each record,
    ascending. Per kept column k: starts[k], (n,) of the type of lines, and lengths[k], (n,) uint8 (uint16 when a
    field of the column is longer than 255 bytes): field k of
    record i is data[starts[k][i]:starts[k][i] + lengths[k][i]], without the white space around it and its trailing
    NULs, at most MAX_FIELD_CHARS long. names: the columns' names (parse_csv), or None. `cols` gives every field as
    'S' arrays (for small tables: a column is as wide as its longest field); numbers, keys, find and codes read them
    in bounded chunks.
    """

    def __init__(self, cols: list, lines, file: str):
        """Records from 'S' columns (a hand-made table): the fields are copied into one buffer, row by row."""
        lines = np.asarray(lines, dtype=np.int64)
        n = lines.size
        cols = [np.ascontiguousarray(np.asarray(c, dtype="S")) for c in cols]
        offsets = np.cumsum([0] + [c.dtype.itemsize for c in cols])
        if cols:
            mat = np.concatenate([c.view(np.uint8).reshape(n, c.dtype.itemsize) for c in cols], axis=1)
        else:
            mat = np.zeros((n, 0), dtype=np.uint8)
        row = np.arange(n, dtype=np.int64) * int(offsets[-1])
        self._set(mat.tobytes(), [row + int(o) for o in offsets[:-1]],
                  [np.char.str_len(c).astype(np.uint16) for c in cols], lines, file)

    @classmethod
    def from_tokens(cls, data: bytes, starts: list, lengths: list, lines: np.ndarray, file: str,
                    names=None) -> "Records":
        rec = cls.__new__(cls)
        rec._set(data, starts, lengths, lines, file, names)
        return rec

    def _set(self, data: bytes, starts: list, lengths: list, lines: np.ndarray, file: str, names=None):
        self.data = data
        self.starts = list(starts)
        self.lengths = list(lengths)
        self.lines = lines
        self.file = file
        self.names = names
        self.ncols = len(self.starts)
        self._stand_ins = {}
        self._table = None

    def __len__(self) -> int:
        return int(self.lines.size)

    def col(self, name: str) -> int:
        """The index of the column `name` (parse_csv's tables)."""
        return self.names.index(name)

    def take(self, rows: np.ndarray) -> "Records":
        """The records `rows` (an ascending index array) as a table of their own: same file, same line numbers."""
        if rows.size == len(self):
            return self
        return Records.from_tokens(self.data, [s if s is None else s[rows] for s in self.starts],
                                   [s if s is None else s[rows] for s in self.lengths], self.lines[rows], self.file,
                                   self.names)

    def drop(self, *ks: int):
        """Forget where the fields of the columns ks are (memory: a column read once is not needed again)."""
        for k in ks:
            self.starts[k] = self.lengths[k] = None
        self._table = None

    def release(self):
        """Forget the bytes and every field (memory); the lines stay, for messages."""
        self.data = None
        self.drop(*range(self.ncols))

    @property
    def cols(self) -> list:
        """Every column as an 'S' array as wide as its longest field (for small tables such as reference lists)."""
        return [self.column(k) for k in range(self.ncols)]

    def column(self, k: int, width=None) -> np.ndarray:
        """Column k as an 'S' array of `width` bytes (its longest field when None; longer fields are cut)."""
        if width is None and len(self) <= SMALL_ROWS:
            return self._small_table()[:, k]
        length = self.lengths[k].astype(np.int64)
        if width is None:
            width = int(length.max()) if length.size else 0
        return gather_fields(_as_array(self.data), self.starts[k], np.minimum(length, width), width)

    def _small_table(self) -> np.ndarray:
        """Every field of a small table at once (one gather), as an (n, ncols) 'S' array (its columns contiguous)."""
        if self._table is None:
            n = len(self)
            cols = [k for k in range(self.ncols) if self.starts[k] is not None]     # not dropped
            if cols:
                start = np.concatenate([self.starts[k] for k in cols])
                length = np.concatenate([self.lengths[k] for k in cols]).astype(np.int64)
            else:
                start = length = np.zeros(0, dtype=np.int64)
            width = int(length.max()) if length.size else 0
            table = gather_fields(_as_array(self.data), start, length, width).reshape(len(cols), n).T
            if len(cols) < self.ncols:
                full = np.zeros((self.ncols, n), dtype=table.dtype).T
                full[:, cols] = table
                table = full
            self._table = table
        return self._table

    def field(self, i: int, k: int) -> bytes:
        """Field k of record i, as written (without the white space around it)."""
        s = int(self.starts[k][i])
        return self.data[s:s + int(self.lengths[k][i])]

    def text(self, i: int, k: int) -> str:
        """Field k of record i as text (for a message)."""
        return self.field(i, k).decode("utf-8", "replace")

    def table(self) -> np.ndarray:
        """Every field as one (n, ncols) 'S' array, its columns contiguous (for small tables)."""
        return self._small_table()

    def numbers(self, k: int, integer: bool = False, finite: bool = False) -> Numbers:
        """Column k read as numbers (fastnum.parse_numbers); nothing is raised: number_error names the bad one."""
        if len(self) <= SMALL_ROWS:
            quick = numbers_at_once(self.column(k), integer, finite)
            if quick is not None:
                return quick
        return parse_numbers(_as_array(self.data), self.starts[k], self.lengths[k], integer, finite)

    def keys(self, k: int, universe=None) -> np.ndarray:
        """Column k for comparisons with `universe` (an 'S' array, e.g. the evaluated ids), in bounded memory.

        A field longer than KEY_WIDTH and than every id of the universe cannot be among them: it is replaced by a
        stand-in, LF and 8 hex digits (no field holds LF, so a stand-in equals no field and no id), one per
        distinct field, so that equal fields still compare equal. expand() gives the field back for messages.
        """
        width = max(KEY_WIDTH, universe.dtype.itemsize if universe is not None else 0)
        length = self.lengths[k]
        out = self.column(k, min(width, int(length.max())) if length.size else 0)
        long = _where(length > width)
        if long.size:
            codes = self._codes(self.starts[k][long], length[long])
            out[long] = _stand_in(codes.code)
            first = np.empty(int(codes.code.max()) + 1, dtype=np.int64)
            first[codes.code[::-1]] = np.arange(long.size)[::-1]        # each code's first record
            self._stand_ins[k] = long[first]
        return out

    def expand(self, key: bytes, k: int = 0) -> str:
        """A key of keys(k) (or a key joined from it) as text, its stand-ins replaced by the fields they stand for."""
        table = self._stand_ins.get(k)

        def field(m):
            return self.field(int(table[int(m.group(1), 16)]), k)

        text = key if table is None else _STAND_IN.sub(field, key)
        return text.decode("utf-8", "replace")

    def find(self, k: int, universe: np.ndarray) -> np.ndarray:
        """The index in `universe` (unique 'S' array) of every record's field k, -1 if absent; BLOCK_ROWS records
        at a time, fields grouped by length (no copy wider than the fields)."""
        out = np.empty(len(self), dtype=np.int64)
        arr = _as_array(self.data)
        width = np.char.str_len(universe)
        for a in range(0, len(self), BLOCK_ROWS):
            found = out[a:a + BLOCK_ROWS]
            for at, uniq, inv in by_length(arr, self.starts[k][a:a + BLOCK_ROWS], self.lengths[k][a:a + BLOCK_ROWS]):
                same = _where(width == uniq.dtype.itemsize)
                hit = lookup(uniq, universe[same].astype(uniq.dtype))
                hit[hit >= 0] = same[hit[hit >= 0]]
                found[at] = hit[inv]
        return out

    def codes(self, k: int, rows=None) -> Codes:
        """Column k of the records `rows` (all when None) as Codes."""
        if rows is None:
            return self._codes(self.starts[k], self.lengths[k])
        return self._codes(self.starts[k][rows], self.lengths[k][rows])

    def _codes(self, start: np.ndarray, length: np.ndarray) -> Codes:
        code = np.empty(length.size, dtype=np.int64)
        values, bases = [], []
        base = 0
        for at, uniq, inv in by_length(_as_array(self.data), start, length):
            code[at] = base + inv
            values.append(uniq)
            bases.append(base)
            base += uniq.size
        return Codes(code, values, np.array(bases, dtype=np.int64))


def numbers_at_once(fields: np.ndarray, integer: bool = False, finite: bool = False):
    """Numbers of a few short fields ('S' array, any shape) by one numpy conversion (quickest for small tables), or
    None when one of them is not a number within MAX_NUMBER_CHARS: parse_numbers then finds and names it."""
    if fields.dtype.itemsize > MAX_NUMBER_CHARS:
        return None
    try:
        values = fields.astype(np.int64 if integer else np.float64)
    except NUMPY_REFUSES:
        return None
    bad = _where(~np.isfinite(values).ravel()) if finite and not integer else ()
    return Numbers(values, int(bad[0]), "finite") if len(bad) else Numbers(values, -1, "")


_STAND_IN = re.compile(rb"\n([0-9a-f]{8})")
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def _stand_in(codes: np.ndarray) -> np.ndarray:
    """b'\\n' + 8 hex digits per code, as an 'S9' array."""
    mat = np.empty((codes.size, 9), dtype=np.uint8)
    mat[:, 0] = 10
    for j in range(8):
        mat[:, 8 - j] = _HEX[(codes >> (4 * j)) & 15]
    return mat.view("S9").ravel()


# ---------------------------------------------------------------------------------------------------------------
# The tokenizer

_SHORT_LINE = 12   # a block whose lines are this many bytes long on average or less may be mostly blank lines


class _Remap(NamedTuple):
    """What is read in a block with some lines left out, mapped back to the block. Either idx: each kept byte's offset
    in the block (and one past its end), with line: each kept line's 0-based line in the block (the lines that are
    not blank, _Scan._drop_blank_lines); or drops: the bytes of the empty lines left out (LF or CRLF right after a
    newline), and their newlines, each as the offset in the kept bytes where it was (_Scan._drop_empty_lines). b0:
    the block's first byte; nnl: the block's newlines."""
    idx: Optional[np.ndarray]
    line: Optional[np.ndarray]
    drops: Optional[tuple]
    b0: int
    nnl: int

    def rows(self, start: np.ndarray) -> np.ndarray:
        """start (rows, columns): offsets in the kept bytes of fields, a row's on one line -> in the block."""
        if self.idx is not None:
            return self.idx[start]
        return start + self.drops[0].searchsorted(start[:, :1], side="right")      # none inside a line

    def lines(self, j: np.ndarray, first: np.ndarray) -> np.ndarray:
        """The block's 0-based lines of the kept lines j, whose first bytes are at `first` in the kept bytes."""
        if self.line is not None:
            return self.line[j]
        return j + self.drops[1].searchsorted(first, side="right")


class _Scan(object):
    """One pass over a file's blocks: the records (their lines and kept fields), and the first fault of each kind
    (reported in the order blank line, wrong number of fields, field too long, whatever their lines).

    sep: None (white space) or the separator byte; allowed: the field counts a record may have (the first record
    decides, for the whole file); keep: the columns kept (None: all); start: the first byte read, which begins the
    1-based line `line`.

    The records are written in place into arrays as long as the file has lines (they stay virtual memory where
    nothing is written: a flood of blank lines costs nothing), so that no part is joined and nothing is copied."""

    def __init__(self, data: bytes, sep, allowed: tuple, allow_blank: bool, keep, start: int, line: int):
        self.data = data
        self.sep = sep
        self.allowed = allowed
        self.allow_blank = allow_blank
        self.keep = keep
        self.n = allowed[0] if len(allowed) == 1 else None     # fields per record (else from the first record)
        self.line_base = line - 1   # 0-based index of the block's first line
        self.blank = None           # 1-based line of the first blank line (when blank lines are errors)
        self.bad_count = None       # (line, fields found, a byte of that line)
        self.too_long = None        # (line, length of the field)
        self.regular = True         # the blocks so far were in the common layout (_regular): try it on the next
        self.most = _count_byte(data, 10, start) + 1    # records at most
        self.count = 0              # records kept
        self.lines = self.starts = self.lengths = None
        self.in_place = False       # the records are written into arrays of `most` rows (from the second block on)
        self.offset_type = np.int32 if len(data) < (1 << 31) else np.int64     # field starts, lines
        self.remap = None           # a _Remap while the lines of a block that are not blank are read alone

    def faulty(self) -> bool:
        return self.blank is not None or self.bad_count is not None or self.too_long is not None

    def done(self) -> bool:
        """Nothing later in the file can change the error."""
        if self.blank is not None:
            return True
        return self.bad_count is not None and self.allow_blank

    def _fields(self, counts: np.ndarray):
        if self.n is None:
            nonzero = _where(counts)
            if nonzero.size:
                first = int(counts[nonzero[0]])
                self.n = first if first in self.allowed else self.allowed[0]

    def _columns(self):
        return range(self.n) if self.keep is None else self.keep

    def _keep(self, start: np.ndarray, length: np.ndarray, lines: np.ndarray, nuls: bool, b0: int):
        """Keep the records of the block (general scan): start, length (rows, kept columns) int64, the fields' byte
        offsets in the block at b0 and their lengths; lines: the records' 0-based lines in the block; nuls: whether
        the block holds a NUL byte. A kept field over the cap (its trailing NULs included) is a fault, and then
        nothing is kept."""
        longest = int(length.max()) if length.size else 0
        if self.too_long is None and longest > MAX_FIELD_CHARS:
            i = int(_where((length > MAX_FIELD_CHARS).any(axis=1))[0])
            self.too_long = (self.line_base + int(lines[i]) + 1, int(length[i].max()))
        if self.faulty():
            return
        if nuls:                        # within the cap: a loop over at most MAX_FIELD_CHARS positions
            st = start.ravel() + b0
            en = st + length.ravel()
            _trim_nuls(_as_array(self.data), st, en)
            length = (en - st).reshape(length.shape)
        self._store(start, length, lines, b0, longest)

    def _store(self, start: np.ndarray, length: np.ndarray, lines: np.ndarray, b0: int, longest: int):
        """Keep the records (fields within the cap): start, length (rows, kept columns) integers, the fields' offsets in
        the block at b0 and their lengths (at most `longest`); lines: 0-based in the block. Lengths are kept as uint8
        while every field of the column is shorter than 256 bytes (memory), else uint16. The first block's arrays
        are kept as they are (a file of one block is not copied); from the second block on, every block is written
        in place into arrays as long as the file has lines."""
        if self.remap is not None:      # offsets in the block's lines that are not blank: in the block
            start = self.remap.rows(start + (b0 - self.remap.b0))
            b0 = self.remap.b0
        start_t = start.T.astype(self.offset_type)      # per column, contiguous
        start_t += b0
        length_t = length.T.astype(np.uint8 if longest <= 255 else np.uint16)
        lines = lines.astype(self.offset_type)
        lines += self.line_base + 1
        if self.lines is None:          # the first block
            self.lines, self.starts, self.lengths = lines, list(start_t), list(length_t)
            self.count = lines.size
            return
        if not self.in_place:           # the second block: the outputs, the first block written in
            self.in_place = True
            first = self.lines, self.starts, self.lengths
            self.lines = np.empty(self.most, dtype=self.offset_type)
            self.starts = [np.empty(self.most, dtype=self.offset_type) for _ in first[1]]
            self.lengths = [np.empty(self.most, dtype=x.dtype) for x in first[2]]
            for out, part in zip([self.lines] + self.starts + self.lengths, [first[0]] + first[1] + first[2]):
                out[:part.size] = part
            del first
        a, b = self.count, self.count + lines.size
        self.lines[a:b] = lines
        for k in range(start_t.shape[0]):
            self.starts[k][a:b] = start_t[k]
            if length_t.dtype != self.lengths[k].dtype and int(length_t[k].max()) > 255:
                wide = np.empty(self.most, dtype=np.uint16)     # a field of 256 bytes: the column gets wider
                wide[:a] = self.lengths[k][:a]
                self.lengths[k] = wide
            self.lengths[k][a:b] = length_t[k]
        self.count = b

    def records(self, file_label: str) -> Records:
        """The Records kept."""
        if self.lines is None:
            n = self.n if self.n is not None else self.allowed[0]
            k = n if self.keep is None else len(self.keep)
            return Records.from_tokens(self.data, [np.zeros(0, dtype=self.offset_type) for _ in range(k)],
                                       [np.zeros(0, dtype=np.uint8) for _ in range(k)],
                                       np.zeros(0, dtype=self.offset_type), file_label)
        c = self.count
        return Records.from_tokens(self.data, [x[:c] for x in self.starts], [x[:c] for x in self.lengths],
                                   self.lines[:c], file_label)

    def block(self, b0: int, b1: int):
        """A block of whole lines: count, check and keep its records."""
        arr = np.frombuffer(self.data, dtype=np.uint8, count=b1 - b0, offset=b0)
        if self.regular and self.n is None and not self.faulty():
            self._fields(np.array([self._line_count(b0, b1)]))      # the first line decides (a record, not blank)
        if self.regular and self.n is not None and not self.faulty():
            empty_lines = self.allow_blank and (arr[0] == 10 or self.data.find(b"\n\n", b0, b1) >= 0)
            if not empty_lines and self._regular(arr, b0, b1):
                return
            empty = self._drop_empty_lines(arr, b0, b1)
            if empty:
                return
            self.regular = empty is None    # mostly empty lines: the general scan's way, for this block only
        self._general(arr, b0)

    def _drop_empty_lines(self, arr: np.ndarray, b0: int, b1: int) -> Optional[bool]:
        """The common layouts with empty lines between the records (LF or CRLF right after a newline, or first in
        the block), when blank lines are allowed: the records read by _regular in the block without those lines'
        bytes (a boolean selection), their offsets and lines mapped back. True when read so; None when they are
        most of the block's bytes (the general scan reads the other lines alone at less cost: _drop_blank_lines)."""
        data = self.data
        if not self.allow_blank or not (arr[0] == 10 or data.find(b"\n\n", b0, b1) >= 0 or
                                        data.find(b"\r\n", b0, b0 + 2) == b0 or data.find(b"\n\r\n", b0, b1) >= 0):
            return False
        newline = arr == 10
        empty = newline.copy()          # LF right after LF (or first)
        empty[1:] &= newline[:-1]
        dropped = empty
        if data.find(b"\r", b0, b1) >= 0:             # CR LF right after LF (or first)
            dropped = empty.copy()
            crlf = newline.copy()
            crlf[:2] = False
            crlf[2:] &= (arr[1:-1] == 13) & newline[:-2]
            crlf[1] = arr[0] == 13 and arr.size > 1 and arr[1] == 10
            empty |= crlf
            dropped |= crlf
            dropped[:-1] |= crlf[1:]    # and its CR
        if int(np.count_nonzero(dropped)) * 2 > arr.size:
            return None
        kept = arr[~dropped]
        nnl = int(np.count_nonzero(newline))
        at = _where(dropped)
        shift = at - np.arange(at.size, dtype=at.dtype)     # where each dropped byte was, in the kept bytes
        lines = shift if dropped is empty else shift[empty[at]]     # and each empty line's newline
        self.remap = _Remap(None, None, (shift, lines), b0, nnl)
        try:
            return self._regular(kept, b0, b1)
        finally:
            self.remap = None

    def _regular(self, arr: np.ndarray, b0: int, b1: int) -> bool:
        """The common layouts, fastest: every line a record of n fields with one separator byte between them (one
        space, or the separator; in a CSV, white space around a field), CR only before LF, no NUL, every field
        within the cap. Keeps the block's records and returns True, or returns False: the general scan then reads the
        block (it gives the same records)."""
        data, n = self.data, self.n
        if data.find(b"\x00", b0, b1) >= 0:
            return False                # NULs: the general scan trims them from the ends of fields
        crlf = data.find(b"\r", b0, b1) >= 0
        if crlf and data.count(b"\r", b0, b1) != data.count(b"\r\n", b0, b1):
            return False
        if self.sep is not None:
            if n == 1:
                return False            # one field a line: a blank line would pass for a record
            is_sep = arr == self.sep
        elif self.keep is None:
            if any(data.find(c, b0, b1) >= 0 for c in (b"\t", b"\x0b", b"\x0c")):
                is_sep = _IS_SPACE[arr]     # one white-space byte between fields: tabs as spaces
            else:
                is_sep = arr == 32
        else:
            return False
        newline = arr == 10
        nnl = int(np.count_nonzero(newline))
        is_sep |= newline
        del newline
        ends_nl = arr[-1] == 10
        size = int(np.count_nonzero(is_sep)) + (not ends_nl)
        rows = size // n
        if rows == 0 or size != rows * n or nnl != rows - (not ends_nl):
            return False
        bounds = np.empty(size + 1, dtype=np.int32)     # -1, then every separator (and the end of a last line)
        bounds[0] = -1
        bounds[1:size + ends_nl] = _where(is_sep)
        del is_sep
        if not ends_nl:
            bounds[-1] = arr.size
        before = bounds[:-1].reshape(rows, n)     # the separator before each field
        after = bounds[1:].reshape(rows, n)       # and after it
        row_first = before[:, 0] + 1              # each row's first byte
        if not (arr[after[:, -1] if ends_nl else after[:-1, -1]] == 10).all():
            return False                # a line of another field count
        length = after - before
        length -= 1
        if crlf:                        # CRLF: the last field ends before the CR
            length[:, -1] -= arr[np.maximum(after[:, -1] - 1, 0)] == 13
        longest = int(length.max())
        if longest > MAX_FIELD_CHARS:
            return False                # a field maybe over the cap: the general scan measures it
        if self.keep is not None:
            before, length = before[:, self.keep], length[:, self.keep]
        shift = b0 + 1                  # a field starts after its separator
        if self.sep is None:
            if int(length.min()) <= 0:
                return False            # two spaces in a row, or one before or after the fields
        elif any(data.find(c, b0, b1) >= 0 for c in (b" ", b"\t", b"\x0b", b"\x0c")):
            start = before + 1
            filled = length > 0
            first = arr[np.where(filled, start, 0)]
            last = arr[np.where(filled, start + length - 1, 0)]
            edges = _where((filled & (_IS_BLANK[first] | _IS_BLANK[last])).any(axis=0))
            if edges.size:              # white space around the fields of these columns
                for j in edges.tolist():
                    st, en = _strip(arr, start[:, j], start[:, j] + length[:, j])
                    start[:, j] = st
                    length[:, j] = en - st
                before, shift = start, b0
        if self.remap is None:
            self._store(before, length, np.arange(rows), shift, longest)
            self.line_base += rows - (not ends_nl)
        else:
            self._store(before, length, self.remap.lines(np.arange(rows), row_first), shift, longest)
            self.line_base += self.remap.nnl
        return True

    def _general(self, arr: np.ndarray, b0: int):
        """Any block of whole lines: white-space runs, blank lines, every field count. A byte's line is the count of
        newlines before it (one cumulative sum, not a search per token). Blank lines cost a few passes over their
        bytes: a block of blank lines alone is only counted, and where most lines of a block are blank (and blank
        lines are allowed) the others are read alone (_drop_blank_lines), by the common layouts' scan if they
        are in one."""
        blank = _IS_BLANK[arr]
        newline = arr == 10
        if blank.all():                 # blank lines only (a separator is no blank byte)
            self._blank_lines(int(np.count_nonzero(newline)), b0)
            return
        if self.remap is None and self.allow_blank and int(np.count_nonzero(newline)) * _SHORT_LINE > arr.size:
            sub = self._drop_blank_lines(arr, b0, blank, newline)
            if sub is not None:
                try:
                    if self.n is not None and not self.faulty() and self._regular(sub, b0, b0 + arr.size):
                        return
                    self._general(sub, b0)
                    return
                finally:
                    self.remap = None
        line_of = np.cumsum(newline, dtype=self.offset_type)     # a byte's line, newlines counted with the next
        line_of -= newline
        nl = _where(newline)
        nlines = nl.size + int(not newline[-1])
        if self.sep is None:
            content = ~blank
        else:
            is_sep = arr == self.sep
            content = ~(blank | is_sep)
        st = _run_starts(content)
        en = _run_ends(content)
        tok_line = line_of[st]
        if self.sep is None:
            counts = np.bincount(tok_line, minlength=nlines)
            nonblank = counts > 0
        else:
            sep_pos = _where(is_sep)
            nsep = np.bincount(line_of[sep_pos], minlength=nlines)
            nonblank = (np.bincount(tok_line, minlength=nlines) > 0) | (nsep > 0)
            counts = np.where(nonblank, nsep + 1, 0)
        self._fields(counts)
        if not (self._check(counts, nonblank, nl, b0) or self.faulty()) and self.n is not None:
            if self.sep is None:
                fst, fen = st, en
            else:
                fst, fen = _csv_fields(content, is_sep | newline, st, en, line_of, nonblank, bool(newline[-1]))
            fst = fst.reshape(-1, self.n)
            length = fen.reshape(-1, self.n) - fst
            if self.keep is not None:
                fst, length = fst[:, self.keep], length[:, self.keep]
            lines = _where(nonblank)
            if self.remap is not None:
                lines = self.remap.line[lines]
            self._keep(fst, length, lines, self.remap is None and self.data.find(b"\x00", b0, b0 + arr.size) >= 0,
                       b0)
        self.line_base += nl.size if self.remap is None else self.remap.nnl

    def _drop_blank_lines(self, arr: np.ndarray, b0: int, blank: np.ndarray, newline: np.ndarray):
        """The block's lines that are not blank, when they are fewer than half its lines and it holds no NUL: their
        bytes (newlines included) as one array, and self.remap set to map what is read in it back to the block;
        else None. A pass over the block's bytes for its newlines and one for its runs of content; the rest is
        over the lines kept."""
        nl = _where(newline)
        nlines = nl.size + int(not newline[-1])
        run_line = nl.searchsorted(_run_starts(~blank))     # sorted: each run of content's line
        first = np.empty(run_line.size, dtype=bool)
        first[:1] = True
        np.not_equal(run_line[1:], run_line[:-1], out=first[1:])
        kept = run_line[first]
        if kept.size * 2 > nlines or self.data.find(b"\x00", b0, b0 + arr.size) >= 0:
            return None
        start = np.where(kept > 0, nl[np.maximum(kept - 1, 0)] + 1, 0)
        end = nl[np.minimum(kept, nl.size - 1)] + 1 if nl.size else np.full(kept.size, arr.size)
        if kept[-1] == nl.size:         # the last line, with no newline
            end[-1] = arr.size
        length = end - start
        total = int(length.sum())
        idx = np.empty(total + 1, dtype=np.int64)
        idx[:total] = offsets(length)           # each kept byte: its line's start + its place in the line
        idx[:total] += np.repeat(start, length)
        idx[total] = arr.size                   # the end of the last line (a field may end there)
        self.remap = _Remap(idx, kept.astype(self.offset_type), None, b0, nl.size)
        return arr[idx[:total]]

    def _blank_lines(self, nnl: int, b0: int):
        """A block of blank lines only (nnl newlines): an error at its first line when blank lines are,
        else only counted."""
        if not self.allow_blank:
            self._check(np.zeros(1, dtype=np.int64), np.zeros(1, dtype=bool), _NO_NEWLINE, b0)
        self.line_base += nnl

    def _check(self, counts: np.ndarray, nonblank: np.ndarray, nl: np.ndarray, b0: int) -> bool:
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
                    at = int(nl[i - 1]) + 1 if i else 0
                    line = i
                    if self.remap is not None:
                        at, line = int(self.remap.idx[at]), int(self.remap.line[i])
                    self.bad_count = (self.line_base + line + 1, int(counts[i]), b0 + at)
        return fault

    def _line_count(self, a: int, b: int) -> int:
        """The number of fields of the line that starts at a (0 for a blank line), as the general scan counts them;
        b: the end of the block."""
        end = self.data.find(b"\n", a, b)
        end = b if end < 0 else end
        if self.sep is None:
            return _count_runs(self.data, a, end)
        nsep = self.data.count(bytes([self.sep]), a, end)
        return nsep + 1 if nsep or _CONTENT.search(self.data, a, end) else 0

    def long_line(self, a: int, b: int):
        """One line longer than a block: its fields counted in sub-blocks, found only when their number is right."""
        end = b - 1 if self.data[b - 1:b] == b"\n" else b
        count = self._line_count(a, end)
        counts = np.array([count])
        self._fields(counts)
        fault = self._check(counts, counts > 0, np.zeros(0, dtype=np.int64), a)
        if count and not fault and count == self.n and not self.faulty():
            fst, fen = line_fields(self.data, a, end, self.sep)
            cols = list(self._columns())
            self._keep(fst[cols].reshape(1, -1), (fen - fst)[cols].reshape(1, -1), np.zeros(1, dtype=np.int64),
                       self.data.find(b"\x00", a, end) >= 0, 0)
        self.line_base += 1


def _count_byte(data: bytes, byte: int, start: int = 0) -> int:
    """How many bytes of data[start:] are `byte`, BLOCK_BYTES at a time (numpy counts faster than bytes.count)."""
    if len(data) - start <= BLOCK_BYTES:
        return data.count(bytes([byte]), start)
    arr = _as_array(data)
    count = 0
    for a in range(start, len(data), BLOCK_BYTES):
        count += int(np.count_nonzero(arr[a:a + BLOCK_BYTES] == byte))
        release_pages(data)
    return count


def _run_starts(mask: np.ndarray) -> np.ndarray:
    start = mask.copy()
    start[1:] &= ~mask[:-1]
    return _where(start)


def _run_ends(mask: np.ndarray) -> np.ndarray:
    end = mask.copy()
    end[:-1] &= ~mask[1:]
    return _where(end) + 1


def _strip(arr: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple:
    """(start, end) int64 of the fields without the white space around them: a loop over character positions (the
    caller bounds the fields' length), each step over the fields that still begin (end) with white space."""
    start = start.astype(np.int64)
    end = end.astype(np.int64)
    idx = _where(start < end)
    idx = idx[_IS_BLANK[arr[start[idx]]]]
    while idx.size:
        start[idx] += 1
        idx = idx[start[idx] < end[idx]]
        idx = idx[_IS_BLANK[arr[start[idx]]]]
    idx = _where(start < end)
    idx = idx[_IS_BLANK[arr[end[idx] - 1]]]
    while idx.size:
        end[idx] -= 1
        idx = idx[start[idx] < end[idx]]
        idx = idx[_IS_BLANK[arr[end[idx] - 1]]]
    return start, end


def _trim_nuls(arr: np.ndarray, start: np.ndarray, end: np.ndarray):
    """end -= the field's trailing NUL bytes (numpy's 'S' arrays drop them), in place (int64 arrays), for fields
    within MAX_FIELD_CHARS: a loop over at most that many positions."""
    i = _where((end > start) & (arr[np.maximum(end - 1, 0)] == 0))
    while i.size:
        end[i] -= 1
        i = i[(end[i] > start[i]) & (arr[np.maximum(end[i] - 1, 0)] == 0)]


def _csv_fields(content: np.ndarray, boundary: np.ndarray, st: np.ndarray, en: np.ndarray, line_of: np.ndarray,
                nonblank: np.ndarray, ends_with_boundary: bool) -> tuple:
    """The fields of the block's non-blank lines, in order: (start, end) of each field's content (white space
    stripped; an empty field is empty). Fields lie between boundaries (separators and newlines); nothing follows
    the block's last boundary when ends_with_boundary. line_of: each byte's 0-based line in the block (None: one
    line)."""
    bnd = _where(boundary)
    seg_start = np.concatenate([[0], bnd + 1])
    if ends_with_boundary:
        seg_start = seg_start[:-1]
    if line_of is None:
        seg_line = np.zeros(seg_start.size, dtype=np.int64)
    else:                               # the block's end (after a separator that ends it) is on its last line
        seg_line = line_of[np.minimum(seg_start, line_of.size - 1)]
    keep = nonblank[seg_line]
    fst = seg_start.copy()
    fen = seg_start.copy()
    if st.size:
        seg_of_tok = bnd.searchsorted(st)
        first = np.concatenate([[True], seg_of_tok[1:] != seg_of_tok[:-1]])
        last = np.concatenate([first[1:], [True]])
        fst[seg_of_tok[first]] = st[first]
        fen[seg_of_tok[last]] = en[last]
    return fst[keep], fen[keep]


def _count_runs(data: bytes, a: int, b: int) -> int:
    """Number of maximal runs of non-blank bytes (white-space separated fields) in data[a:b], read in blocks."""
    count, prev = 0, False
    for c0 in range(a, b, BLOCK_BYTES):
        c1 = min(b, c0 + BLOCK_BYTES)
        content = ~_IS_BLANK[np.frombuffer(data, dtype=np.uint8, count=c1 - c0, offset=c0)]
        count += int(np.count_nonzero(content[1:] & ~content[:-1])) + int(bool(content[0]) and not prev)
        prev = bool(content[-1])
    return count


_BLANK_BYTE = re.compile(rb"[ \t\r\x0b\x0c]")
_ONE_LINE = np.ones(1, dtype=bool)
_NO_NEWLINE = np.zeros(0, dtype=np.int64)


def line_fields(data: bytes, a: int, b: int, sep) -> tuple:
    """(start, end) int64 of the fields of the one line data[a:b] (no LF in it), the white space around them left
    out: runs of non-blank bytes (sep None), or the text between separators (sep a byte). Read in sub-blocks of at
    most BLOCK_BYTES cut between fields (a field longer than a sub-block is found by searching), so that the work is
    vectorized and its temporaries bounded whatever the line holds."""
    arr = _as_array(data)
    starts, ends = [], []
    pos, last_found = a, sep is None    # last_found: the field after the line's last separator was found
    while pos < b:
        stop = min(b, pos + BLOCK_BYTES)
        cut = stop if stop == b else _last_cut(data, pos, stop, sep)
        if cut < 0:                     # no field ends in a whole sub-block: one goes on past it
            s, e, pos, last = _long_field(data, pos, b, sep)
            starts.append(np.array([s], dtype=np.int64))
            ends.append(np.array([e], dtype=np.int64))
            last_found = last_found or last
            continue
        chunk = arr[pos:cut]
        content = ~_IS_BLANK[chunk]
        if sep is None:
            fst, fen = _run_starts(content), _run_ends(content)
        else:
            is_sep = chunk == sep
            content &= ~is_sep
            fst, fen = _csv_fields(content, is_sep, _run_starts(content), _run_ends(content), None, _ONE_LINE,
                                   cut < b)
            last_found = last_found or cut == b
        starts.append(fst.astype(np.int64) + pos)
        ends.append(fen.astype(np.int64) + pos)
        pos = cut
    if not last_found:                  # the line ends with a separator: an empty last field
        starts.append(np.array([b], dtype=np.int64))
        ends.append(np.array([b], dtype=np.int64))
    if not starts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(starts), np.concatenate(ends)


def _last_cut(data: bytes, a: int, b: int, sep) -> int:
    """1 + the position of the last byte of data[a:b] that ends a field (the separator, or white space when sep is
    None), or -1 when there is none."""
    if sep is not None:
        p = data.rfind(bytes([sep]), a, b)
        return p + 1 if p >= 0 else -1
    blank = _where(_IS_BLANK[np.frombuffer(data, dtype=np.uint8, count=b - a, offset=a)])
    return a + int(blank[-1]) + 1 if blank.size else -1


def _long_field(data: bytes, a: int, b: int, sep) -> tuple:
    """(start, end, where the next field starts, whether it is the line's last) of the field that starts at byte a of
    the line data[..:b] and goes on past a whole sub-block, found by searching, not by arrays over its bytes."""
    if sep is None:                     # a begins a run of non-blank bytes
        m = _BLANK_BYTE.search(data, a, b)
        end = m.start() if m else b
        return a, end, end, True
    p = data.find(bytes([sep]), a, b)
    stop, after = (b, b) if p < 0 else (p, p + 1)
    m = _CONTENT.search(data, a, stop)
    if m is None:                       # white space only: an empty field
        return a, a, after, p < 0
    return m.start(), _last_content(data, m.start(), stop), after, p < 0


def _last_content(data: bytes, a: int, b: int) -> int:
    """1 + the position of the last non-blank byte of data[a:b] (there is one), read backwards in blocks."""
    c1 = b
    while c1 > a:
        c0 = max(a, c1 - BLOCK_BYTES)
        nz = _where(~_IS_BLANK[np.frombuffer(data, dtype=np.uint8, count=c1 - c0, offset=c0)])
        if nz.size:
            return c0 + int(nz[-1]) + 1
        c1 = c0
    return a


def blocks(data: bytes, start: int = 0):
    """(start, end, one_line) blocks of whole lines from byte `start` on, at most BLOCK_BYTES unless one line is
    longer (one_line)."""
    n = len(data)
    b0 = start
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


_SEPARATORS = ((";", "';'"), ("\t", "tabs"), ("|", "'|'"), (",", "commas"), (" ", "spaces"))


def other_separator(text: str, sep: Optional[bytes]) -> Optional[str]:
    """For a line read as one field: the separator it seems to use instead of `sep` (b',' or None, white space),
    named for a message ("';'", "tabs", "commas", ...), else None. Only on the error path (one line)."""
    inner = text.strip()
    for char, name in _SEPARATORS:
        if char in inner and (sep is not None or char not in " \t"):
            return name
    return None


def separator_hint(text: str, sep: Optional[bytes]) -> str:
    """' (the fields are separated by ';', not commas)' for a line of one field that uses another separator."""
    other = other_separator(text, sep)
    if other is None:
        return ""
    return " (the fields are separated by %s, not %s)" % (other, "commas" if sep is not None else "spaces or tabs")


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_ ()#.-]*")


def header_row(text: str) -> bool:
    """True for a line whose fields (split on commas, semicolons, tabs or spaces) are all words, none a number:
    a header row such as 'ActorID,ActionID,StartFrame,EndFrame' over a table of numbers. Error path only."""
    fields = [f for f in re.split(r"[,;\t ]+", text.strip()) if f]
    return bool(fields) and all(_WORD.fullmatch(f) for f in fields)


def parse_table(data: bytes, file_label: str, ncols, err=SubmissionError, allow_blank: bool = True, sep=None,
                what: str = "fields", keep=None, start: int = 0, line: int = 1) -> Records:
    """Split `data` (from byte `start`, which begins line `line`) into records of exactly `ncols` fields.

    sep=None: fields separated by runs of spaces/tabs (MATLAB textscan's default); sep=b',': CSV-like,
    each field stripped of surrounding whitespace. `ncols` may be an int or a tuple of allowed counts
    (the result then uses the count of the first record, and every record must have that same count).
    Blank lines are skipped when allow_blank, else they are an error naming the line. keep: the columns kept
    (indices; all when None). A kept field longer than MAX_FIELD_CHARS is an error naming the line. When a file has
    several faults, the first blank line is reported first, then the first line with a wrong number of fields, then
    the first field too long.
    """
    allowed = (ncols,) if isinstance(ncols, int) else tuple(ncols)
    sepb = None if sep is None else (sep if isinstance(sep, int) else ord(sep))
    scan = _Scan(data, sepb, allowed, allow_blank, keep, start, line)
    for b0, b1, one_line in blocks(data, start):
        (scan.long_line if one_line else scan.block)(b0, b1)
        release_pages(data)
        if scan.done():
            break
    if scan.blank is not None:
        raise err(file_label, scan.blank, expected="%s on every line" % _describe(allowed, what), found="a blank line")
    if scan.bad_count is not None:
        line, count, at = scan.bad_count
        text = line_text(data, at)
        raise err(file_label, line, expected=_describe((scan.n,) if len(allowed) > 1 else allowed, what),
                  found="%d%s: %s" % (count, separator_hint(text, sep) if count == 1 else "", shorten(text)))
    if scan.too_long is not None:
        line, length = scan.too_long
        expected, found = field_too_long(length)
        raise err(file_label, line, expected=expected, found=found)
    return scan.records(file_label)


def _describe(allowed: tuple, what: str) -> str:
    if len(allowed) == 1:
        return "%d %s" % (allowed[0], what)
    return " or ".join(str(a) for a in allowed) + " " + what


def parse_csv(data: bytes, file_label: str, columns: tuple, err=SubmissionError) -> Records:
    """A headed CSV: the header is the first line that is not blank, its names matched stripped and in lower case;
    `columns` are the names required (extra columns are allowed, and not read). Returns the Records of the required
    columns, in the order of `columns` (Records.col gives a name's index). Blank lines are skipped; a line with
    another number of fields than the header is an error naming it."""
    ncols, where, body, line = _header(data, file_label, columns, err)
    rec = parse_table(data, file_label, ncols, err, sep=b",", what="comma-separated fields (as the header)",
                      keep=[where[c] for c in columns], start=body, line=line + 1)
    rec.names = tuple(columns)
    return rec


def _header(data: bytes, label: str, columns: tuple, err) -> tuple:
    """(ncols, column of each required name, the first byte after the header, the header's line)."""
    m = _CONTENT.search(data)
    if m is None:
        raise err(label, expected="a header row naming the columns %s" % ",".join(columns), found="an empty file")
    start = data.rfind(b"\n", 0, m.start()) + 1
    end = data.find(b"\n", start)
    end = len(data) if end < 0 else end
    line = data.count(b"\n", 0, start) + 1
    fst, fen = line_fields(data, start, end, 44)
    length = fen - fst
    over = _where(length > MAX_FIELD_CHARS)
    if over.size:
        raise err(label, line, *field_too_long(int(length[over[0]])))
    arr = _as_array(data)
    hits = dict((name, []) for name in columns)
    for width in sorted(set(len(name) for name in columns)):    # a loop over the names' lengths
        at = _where(length == width)
        if not at.size:
            continue
        text = gather_fields(arr, fst[at], length[at], width).view(np.uint8).reshape(-1, width)
        text = np.where((text >= 65) & (text <= 90), text | 32, text).view("S%d" % width).ravel()
        for name in columns:
            if len(name) == width:
                hits[name] += at[text == name.encode()].tolist()[:2]
    missing = [c for c in columns if not hits[c]]
    dup = sorted(c for c in columns if len(hits[c]) > 1)
    if missing or dup:
        text = line_text(data, start)
        other = other_separator(text, b",") if fst.size == 1 else None
        if other is not None:
            found = "fields separated by %s, not commas" % other
        else:
            found = ("missing %s" % ", ".join(missing)) if missing else "the column %s twice" % dup[0]
        raise err(label, line, expected="a header row naming the columns %s" % ",".join(columns),
                  found=found + ": " + shorten(text))
    return fst.size, dict((c, hits[c][0]) for c in columns), end + 1, line


# ---------------------------------------------------------------------------------------------------------------
# Numbers and rules

def number_error(rec: Records, k: int, name: str, nums: Numbers, err=SubmissionError, integer: bool = False):
    """The SubmissionError for nums.bad: the file, the line, what was expected and the field (shortened); a first
    record whose fields are all words, above one that is not, is named as a header row."""
    i = nums.bad
    field = rec.field(i, k)
    if i == 0 and len(rec) > 1 and nums.reason not in ("long", "range", "finite"):
        line = line_text(rec.data, int(rec.starts[k][0]))
        below = line_text(rec.data, int(rec.starts[k][1]))
        if header_row(line) and not header_row(below):      # 'image confidence' above rows of data
            return err(rec.file, int(rec.lines[0]), expected="data from the first line on (no header row)",
                       found="a header row: %s" % shorten(line))
    if nums.reason == "long":
        expected, found = number_too_long(len(field))
    else:
        found = shorten(field.decode("utf-8", "replace"))
        if nums.reason == "range":
            expected = "an integer for the %s within 64 bits (-2**63 to 2**63-1)" % name
        elif nums.reason == "finite":
            expected = "a finite number for the %s" % name
        else:
            expected = ("an integer for the %s" if integer else "a number for the %s") % name
    return err(rec.file, int(rec.lines[i]), expected=expected, found=found)


def to_float(rec: Records, k: int, name: str, err=SubmissionError, finite: bool = True) -> np.ndarray:
    """Column k as float64; the first field that is not a number (or not finite) is an error naming its line."""
    nums = rec.numbers(k, integer=False, finite=finite)
    if nums.bad >= 0:
        raise number_error(rec, k, name, nums, err)
    return nums.values


def to_int(rec: Records, k: int, name: str, err=SubmissionError) -> np.ndarray:
    """Column k as int64; only plain integers ('12', '-1', '+3') are accepted."""
    nums = rec.numbers(k, integer=True)
    if nums.bad >= 0:
        raise number_error(rec, k, name, nums, err, integer=True)
    return nums.values


class Rule(NamedTuple):
    """One row of a format's rule table: ok (n,) bool, whether each record keeps the rule; expected, what the
    message says was expected (a text, or expected(i) for record i); found(i), what record i holds instead. Only
    the message about the record named is built."""
    ok: np.ndarray
    expected: object
    found: Callable


def check_rules(rules: list, lines: np.ndarray, file: str, err=SubmissionError):
    """Raise for the first record (in file order) that breaks a rule, naming the first rule it breaks: one combined
    predicate over every record, the message built for that one record."""
    if not rules:
        return
    ok = rules[0].ok
    for rule in rules[1:]:
        ok = ok & rule.ok
    if not ok.all():
        i = int(_where(~ok)[0])
        rule = next(r for r in rules if not r.ok[i])
        expected = rule.expected(i) if callable(rule.expected) else rule.expected
        raise err(file, int(lines[i]), expected=expected, found=rule.found(i))


# ---------------------------------------------------------------------------------------------------------------
# Ids

def lookup(values: np.ndarray, universe: np.ndarray) -> np.ndarray:
    """Index of each value in `universe` (unique 'S' array) or -1, vectorized with a sorted search (in chunks)."""
    out = np.full(values.shape, -1, dtype=np.int64)
    if universe.size == 0:
        return out
    order = np.argsort(universe, kind="stable")
    su = universe[order]
    for a in range(0, values.size, BLOCK_ROWS):
        v = values[a:a + BLOCK_ROWS]
        pos = np.minimum(su.searchsorted(v), su.size - 1)
        out[a:a + BLOCK_ROWS] = np.where(su[pos] == v, order[pos], -1)
    return out


def decode(values) -> list:
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values]


def check_known(keys: np.ndarray, known_mask: np.ndarray, rec: Records, what: str, err=SubmissionError,
                k: int = 0, universe: Optional[np.ndarray] = None):
    """Raise for ids not in the evaluated set: the first line, the first five distinct ids, a count of the rest.

    The message shows only what the participant wrote, never the reference's ids, except, with universe (the
    evaluated ids, 'S' array, given only where they are the public test list), the near-miss id the first unknown
    one most likely meant (formats.hints.id_hint: '2008_000001.jpg' for '2008_000001').
    """
    unknown = _where(~np.asarray(known_mask, dtype=bool))
    if not unknown.size:
        return
    uniq, first = np.unique(keys[unknown], return_index=True)
    shown = [rec.expand(key, k) for key in uniq[np.argsort(first, kind="stable")[:5]].tolist()]
    hidden = [""] * (uniq.size - len(shown))        # quote_some counts them: "and N more"
    hint = "" if universe is None else id_hint(shown[0], universe, "%ss" % what)
    raise err(rec.file, int(rec.lines[unknown[0]]), expected="%ss of the evaluated set" % what,
              found="%d unknown%s: %s" % (uniq.size, hint, quote_some(shown + hidden)))
