"""Whitespace- or comma-separated text tables, parsed with numpy (no Python loop over lines on the good path).

parse_table() splits a file into records of exactly `ncols` fields and keeps each record's 1-based line number,
so that every later check can name the line. Only when something is wrong do we walk lines in Python to find
the first bad one and say what it holds.
"""
from __future__ import annotations

import numpy as np

from ..errors import SubmissionError, quote_some, shorten
from .fastnum import column_words, parse_decimal

_WS = (32, 9, 13, 11, 12)  # space, tab, CR, VT, FF: what bytes.split() splits on, besides LF
_IS_BLANK = np.zeros(256, dtype=bool)   # byte -> is white space or LF (a table lookup is faster than np.isin)
_IS_BLANK[list(_WS) + [10]] = True


class Records(object):
    """Fields of a text table: cols[k] is an 'S' (bytes) array, lines[i] the 1-based line of record i."""

    def __init__(self, cols, lines, file):
        self.cols = cols
        self.lines = lines
        self.file = file

    def __len__(self):
        return int(self.lines.size)


def read_bytes(path, file_label, err=SubmissionError) -> bytes:
    try:
        with open(str(path), "rb") as f:
            data = f.read()
    except OSError as e:
        raise err(file_label, message="cannot read the file (%s)" % e.strerror)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data


def _fields_per_line(data: bytes, sep: int = None):
    """Number of fields on each line (0 for blank lines), vectorized over the bytes."""
    arr = np.frombuffer(data, dtype=np.uint8)
    nl = arr == 10
    nlines = int(nl.sum()) + (0 if (arr.size and arr[-1] == 10) else 1)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    line_of = np.cumsum(nl) - nl
    if sep is None:
        ws = _IS_BLANK[arr]
        tok = ~ws
        start = tok.copy()
        start[1:] &= ws[:-1]
        return np.bincount(line_of[start], minlength=nlines)[:nlines]
    # separated fields: a non-blank line has (number of separators + 1) fields
    blank_mask = _IS_BLANK[arr]
    nonblank = np.bincount(line_of[~blank_mask], minlength=nlines)[:nlines] > 0
    nsep = np.bincount(line_of[arr == sep], minlength=nlines)[:nlines]
    return np.where(nonblank | (nsep > 0), nsep + 1, 0)


def _line_text(data: bytes, lineno: int) -> str:
    lines = data.split(b"\n")
    text = lines[lineno - 1] if 0 < lineno <= len(lines) else b""
    return text.decode("utf-8", "replace").strip()


def parse_table(data: bytes, file_label, ncols, err=SubmissionError, allow_blank=True, sep=None,
                what="fields") -> Records:
    """Split `data` into records of exactly `ncols` fields.

    sep=None: fields separated by runs of spaces/tabs (MATLAB textscan's default); sep=b',': CSV-like,
    each field stripped of surrounding whitespace. `ncols` may be an int or a tuple of allowed counts
    (the result then uses the count of the first record, and every record must have that same count).
    Blank lines are skipped when allow_blank, else they are an error naming the line.
    """
    allowed = (ncols,) if isinstance(ncols, int) else tuple(ncols)
    sepb = None if sep is None else (sep if isinstance(sep, int) else ord(sep))
    counts = _fields_per_line(data, sepb)
    nonblank = counts > 0
    if not allow_blank:
        blank = np.flatnonzero(~nonblank)
        # a final empty line after the last newline is not a blank line
        if blank.size:
            first = int(blank[0]) + 1
            raise err(file_label, first, expected="%s on every line" % _describe(allowed, what), found="a blank line")
    recs = np.flatnonzero(nonblank)
    if recs.size == 0:
        return Records([np.zeros(0, dtype="S1") for _ in range(allowed[0])], np.zeros(0, dtype=np.int64),
                       file_label)
    n = int(counts[recs[0]])
    if n not in allowed:
        n = allowed[0]
    bad = np.flatnonzero(counts[recs] != n)
    if bad.size:
        ln = int(recs[bad[0]]) + 1
        raise err(file_label, ln, expected=_describe((n,) if len(allowed) > 1 else allowed, what),
                  found="%d: %s" % (int(counts[ln - 1]), shorten(_line_text(data, ln))))
    if sepb is None:
        tokens = data.split()
    else:
        tokens = [t.strip() for ln in data.split(b"\n") if ln.strip() for t in ln.split(bytes([sepb]))]
    flat = np.array(tokens, dtype="S") if tokens else np.zeros(0, dtype="S1")
    flat = flat.reshape(-1, n)
    cols = [flat[:, k] for k in range(n)]
    return Records(cols, recs.astype(np.int64) + 1, file_label)


def _plain_decimals(col, integer):
    """The column's values when every token is a plain decimal of at most 15 digits (fastnum: float(token) bit
    for bit), else None for numpy's own conversion. numpy 1.17's string-to-number astype is several times slower."""
    if col.dtype.kind != "S" or col.size == 0:
        return None
    words, length = column_words(col)
    vals, ok = parse_decimal(words, length, integer=integer)
    return vals if bool(ok.all()) else None


def _describe(allowed, what):
    if len(allowed) == 1:
        return "%d %s" % (allowed[0], what)
    return " or ".join(str(a) for a in allowed) + " " + what


def to_float(rec: Records, k: int, name: str, err=SubmissionError, finite=True) -> np.ndarray:
    """Column k as float64; a token that is not a number, or not finite, is an error naming the line."""
    col = rec.cols[k]
    vals = _plain_decimals(col, integer=False)
    if vals is None:
        try:
            vals = col.astype(np.float64)
        except (ValueError, TypeError):
            vals = None
    if vals is None:
        for i, tok in enumerate(col.tolist()):
            try:
                float(tok)
            except ValueError:
                raise err(rec.file, int(rec.lines[i]), expected="a number for the %s" % name,
                          found=shorten(tok.decode("utf-8", "replace")))
        raise err(rec.file, message="cannot read the %s column as numbers" % name)
    if finite:
        bad = np.flatnonzero(~np.isfinite(vals))
        if bad.size:
            i = int(bad[0])
            raise err(rec.file, int(rec.lines[i]), expected="a finite number for the %s" % name,
                      found=shorten(col[i].decode("utf-8", "replace")))
    return vals


def to_int(rec: Records, k: int, name: str, err=SubmissionError) -> np.ndarray:
    """Column k as int64; only plain integers ('12', '-1', '+3') are accepted."""
    col = rec.cols[k]
    vals = _plain_decimals(col, integer=True)
    if vals is not None:
        return vals.astype(np.int64)
    try:
        vals = col.astype(np.int64)
        ok = True
    except (ValueError, TypeError, OverflowError):
        ok = False
    if ok:
        return vals
    for i, tok in enumerate(col.tolist()):
        try:
            int(tok)
        except ValueError:
            raise err(rec.file, int(rec.lines[i]), expected="an integer for the %s" % name,
                      found=shorten(tok.decode("utf-8", "replace")))
    raise err(rec.file, message="cannot read the %s column as integers" % name)


def lookup(values: np.ndarray, universe: np.ndarray):
    """Index of each value in `universe` (unique 'S' array) or -1, vectorized with a sorted search."""
    if universe.size == 0:
        return np.full(values.shape, -1, dtype=np.int64)
    order = np.argsort(universe, kind="stable")
    su = universe[order]
    pos = np.searchsorted(su, values)
    pos_c = np.minimum(pos, su.size - 1)
    found = su[pos_c] == values
    return np.where(found, order[pos_c], -1).astype(np.int64)


def decode(values) -> list:
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values]


def check_known(keys: np.ndarray, known_mask: np.ndarray, rec: Records, what: str, err=SubmissionError):
    """Raise for ids not in the evaluated set: the first line, the first five distinct ids, a count of the rest.

    The message shows only what the participant wrote, never the reference's ids.
    """
    unknown = np.flatnonzero(~np.asarray(known_mask, dtype=bool))
    if not unknown.size:
        return
    seen, uniq = set(), []
    for k in keys[unknown].tolist():
        s = k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    raise err(rec.file, int(rec.lines[unknown[0]]), expected="%ss of the evaluated set" % what,
              found="%d unknown: %s" % (len(uniq), quote_some(uniq)))
