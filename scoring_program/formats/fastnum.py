"""The number engine of every text format (numpy only): fields read as numbers, bit-identical to Python's float() /
int(), within the caps of formats.limits.

Fields are given as byte offsets into one uint8 buffer. gather_words() reads each field as little-endian 64-bit
words (a field of length L is ceil(L / 8) words, bytes past its end zeroed): one fancy index per word, no copy of
the buffer. parse_decimal() then decodes plain decimal tokens, [+-]?digits[.digits] with at most 15 digits in
all: the digits form an integer mantissa M < 10**15 < 2**53 (exact in float64), and M / 10.0**f (f = digits after
the dot, 10**f exact) is one correctly rounded division (Clinger's fast path), so the value equals float(token)
bit for bit. Every other token (exponent, more digits, blanks, nan/inf, garbage) is reported as not handled.

parse_numbers() is what the formats call: plain decimals by parse_decimal, every other field of at most
MAX_NUMBER_CHARS by numpy's own conversion (float() / int(), in C), and the first field that is not a number (in
file order, whatever the fault) with the reason, so that the caller names its line. One predicate decides: a field
is good when it is a number of at most MAX_NUMBER_CHARS characters (and finite, when asked); only the message about
the first bad field is built apart (formats.text.number_error).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .limits import MAX_NUMBER_CHARS
from .mapped import SPAN, releasable_map

MAX_DIGITS = 15
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_POW10 = np.array([10.0 ** k for k in range(MAX_DIGITS + 1)], dtype=np.float64)
PLAIN_MAX = MAX_DIGITS + 2      # the longest plain decimal parse_decimal reads: sign, 15 digits, point
CHUNK_ROWS = 1 << 16            # fields per chunk (gather_fields, parse_numbers): temporaries that stay in cache
SMALL_BYTES = 1 << 16           # gather_fields of at most this many bytes: one fancy index


def gather_words(arr: np.ndarray, start, length, nwords: int) -> np.ndarray:
    """(nwords, n) '<u8': word k of field i holds bytes start[i] + 8k .. + 8k + 7, zeroed past length[i].

    Over a mapped file whose pages can be let go (formats.mapped), the fields are read in file order, a span of
    mapped.SPAN bytes at a time, and the pages read are let go after each span."""
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    start = np.asarray(start, dtype=np.int64)
    length = np.asarray(length, dtype=np.int64)
    n = start.size
    out = np.zeros((nwords, n), dtype="<u8")
    if n == 0 or nwords == 0:
        return out
    nfull = max(arr.size - 7, 0)
    u64 = np.ndarray((nfull,), dtype="<u8", buffer=arr, strides=(1,)) if nfull else np.zeros(1, dtype="<u8")
    mapped = releasable_map(arr)
    if mapped is None:
        _words_into(out, arr, u64, nfull, start, length)
        return out
    if n > 1 and np.any(start[1:] < start[:-1]):
        order = np.argsort(start, kind="stable")        # file order
        out[:, order] = gather_words(arr, start[order], length[order], nwords)
        return out
    cuts = np.searchsorted(start, np.arange(int(start[0]) + SPAN, int(start[-1]) + 1, SPAN)).tolist()
    for a, b in zip([0] + cuts, cuts + [n]):
        if b > a:
            _words_into(out[:, a:b], arr, u64, nfull, start[a:b], length[a:b])
            mapped.release()
    return out


def _words_into(out: np.ndarray, arr: np.ndarray, u64: np.ndarray, nfull: int, start: np.ndarray,
                length: np.ndarray) -> None:
    """gather_words into out (nwords, n); u64: the words at every byte offset of arr below nfull."""
    shortest = int(length.min())
    for k in range(out.shape[0]):
        pos = start + 8 * k
        if nfull and int(pos.max()) < nfull:
            w = u64[pos]
        else:
            inside = pos < nfull
            w = u64[np.where(inside, pos, 0)]
            for i in np.flatnonzero(~inside & (length > 8 * k)).tolist():   # the buffer's last 7 bytes
                p = int(pos[i])
                w[i] = np.frombuffer((arr[p:p + 8].tobytes() + b"\x00" * 8)[:8], dtype="<u8")[0]
        if 8 * k + 8 > shortest:        # some field ends inside this word: zero the bytes past its end
            w &= _MASKS[np.minimum(np.maximum(length - 8 * k, 0), 8)]     # (np.clip is slow on numpy 1.17)
        out[k] = w


def words_to_matrix(words: np.ndarray, width: int) -> np.ndarray:
    """(n, width) uint8 bytes of the fields (zero padded), from gather_words()."""
    nw, n = words.shape
    mat = np.ascontiguousarray(words.T).view(np.uint8).reshape(n, 8 * nw)
    return np.ascontiguousarray(mat[:, :width])


def gather_fields(arr: np.ndarray, start, length, width: int) -> np.ndarray:
    """The fields (start, length) of the byte array as an 'S<width>' array (longer fields cut), CHUNK_ROWS at a
    time; a few fields (at most SMALL_BYTES bytes in all) by one fancy index, the same bytes with fewer calls (not
    over a mapped file: gather_words lets its pages go)."""
    n = start.size
    if 0 < n * width <= SMALL_BYTES and arr.size and releasable_map(arr) is None:
        index = np.asarray(start, dtype=np.int64)[:, None] + np.arange(width)
        np.minimum(index, arr.size - 1, out=index)
        mat = np.asarray(arr, dtype=np.uint8)[index]
        mat[np.arange(width) >= np.asarray(length, dtype=np.int64)[:, None]] = 0
        return mat.view("S%d" % width).ravel()
    out = np.zeros(n, dtype="S%d" % max(width, 1))
    if width == 0:
        return out
    nwords = (width + 7) // 8
    for a in range(0, n, CHUNK_ROWS):
        b = min(n, a + CHUNK_ROWS)
        out[a:b] = words_to_matrix(gather_words(arr, start[a:b], length[a:b], nwords), width).view(
            "S%d" % width).ravel()
    return out


def by_length(arr: np.ndarray, start, length):
    """The fields grouped by length, a group at a time (a loop over distinct lengths): (the fields of the group,
    indices; their distinct texts, a sorted 'S' array exactly as wide as they are; the index of each field's text
    among them). No copy is wider than its fields, whatever one field's length."""
    length = np.asarray(length, dtype=np.int64)
    if not length.size:
        return
    order = np.argsort(length, kind="stable")
    cuts = (np.diff(length[order]).nonzero()[0] + 1).tolist()
    for lo, hi in zip([0] + cuts, cuts + [length.size]):
        members = order[lo:hi]
        fields = gather_fields(arr, start[members], length[members], int(length[members[0]]))
        uniq, inverse = np.unique(fields, return_inverse=True)
        yield members, uniq, inverse.reshape(-1)


def _byte(words: np.ndarray, j: int) -> np.ndarray:
    return (words[j // 8] >> np.uint64(8 * (j % 8))).astype(np.uint8)


def parse_decimal(words: np.ndarray, length, integer: bool = False) -> tuple:
    """(values float64, ok bool) for fields given as gather_words() output and their lengths.

    ok[i]: the token is [+-]?digits[.digits] (or [+-]?digits when integer) with 1..15 digits, and values[i] is
    then float(token) exactly (an integral float when integer). Elsewhere values[i] is meaningless."""
    length = np.asarray(length, dtype=np.int64)
    n = length.size
    width = int(length.max()) if n else 0
    M = np.zeros(n, dtype=np.float64)
    nallowed = np.zeros(n, dtype=np.int64)     # bytes that may appear in a plain decimal
    ndig = np.zeros(n, dtype=np.uint8)
    ndot = np.zeros(n, dtype=np.uint8)
    fdig = np.zeros(n, dtype=np.uint8)
    neg = np.zeros(n, dtype=bool)
    ten = np.float64(10.0)
    for j in range(width):              # a loop over character positions, not over fields
        c = _byte(words, j)             # zero past the end of the field
        d = c - np.uint8(48)
        isd = d < 10
        isdot = c == 46
        if j == 0:
            neg = c == 45
            nallowed += isd | isdot | neg | (c == 43)
        else:
            nallowed += isd | isdot
        ndig += isd
        ndot += isdot
        if not integer:
            fdig += isd & (ndot > 0)
        Md = M * ten
        Md += d
        np.copyto(M, Md, where=isd)
    ok = (nallowed == length) & (ndig >= 1) & (ndig <= MAX_DIGITS) & (ndot <= (0 if integer else 1))
    vals = M / _POW10[np.minimum(fdig, MAX_DIGITS)]
    np.negative(vals, out=vals, where=neg)
    return vals, ok


def format_integers(values) -> np.ndarray:
    """int64 values -> 'S' array of their plain decimals, the bytes of str(int(v)) (as values.astype("S"), which
    is several times slower on numpy 1.17). A loop over digit positions, not over values."""
    v = np.asarray(values, dtype=np.int64).ravel()
    n = v.size
    if n == 0:
        return np.zeros(0, dtype="S1")
    neg = v < 0
    mag = np.abs(v).astype(np.uint64)      # abs(-2**63) wraps to -2**63, which is 2**63 as uint64
    ndig = np.ones(n, dtype=np.int64)
    for k in range(1, 20):
        ndig += mag >= np.uint64(10 ** k)
    last = ndig + neg - 1                   # column of the last digit
    width = int(last.max()) + 1
    out = np.zeros((n, width), dtype=np.uint8)
    out[neg, 0] = 45
    rows = np.arange(n)
    rest = mag.copy()
    ten = np.uint64(10)
    for j in range(int(ndig.max())):        # the j-th digit from the right
        has = ndig > j
        out[rows[has], (last - j)[has]] = (rest[has] % ten).astype(np.uint8) + np.uint8(48)
        rest //= ten
    return out.view("S%d" % width).ravel()


# ---------------------------------------------------------------------------------------------------------------
# Fields read as numbers

class Numbers(NamedTuple):
    """Fields read as numbers.

    values: (n,) float64 (int64 for integers); values[i] is field i's number for every i < bad (all when bad < 0)
    bad: the first field, in file order, that is not a number within the caps (or not finite, when asked), -1 if none
    reason: why bad is bad: 'syntax' (not a number), 'long' (over MAX_NUMBER_CHARS), 'range' (an integer beyond 64
        bits), 'finite' (nan or inf where a finite number is asked); '' when bad < 0
    """
    values: np.ndarray
    bad: int
    reason: str


NUMPY_REFUSES = (ValueError, OverflowError)     # what numpy's string conversion raises for text that is no number


def parse_numbers(arr: np.ndarray, start, length, integer: bool = False, finite: bool = False) -> Numbers:
    """The fields (start, length: int arrays) of the byte array arr as numbers, CHUNK_ROWS at a time (stopping at
    the chunk of the first bad field): plain decimals by parse_decimal, every other field of at most
    MAX_NUMBER_CHARS by numpy's conversion, a group of one length at a time. Nothing is raised."""
    n = start.size
    dtype = np.int64 if integer else np.float64
    values = np.empty(n, dtype=dtype)
    for a in range(0, n, CHUNK_ROWS):
        b = min(n, a + CHUNK_ROWS)
        ln = length[a:b].astype(np.int64)
        longest = int(ln.max())
        short = np.minimum(ln, PLAIN_MAX) if longest > PLAIN_MAX else ln
        nwords = (min(longest, PLAIN_MAX) + 7) // 8
        vals, ok = parse_decimal(gather_words(arr, start[a:b], short, max(nwords, 1)), short, integer)
        out = values[a:b]
        out[...] = vals
        if longest > PLAIN_MAX:
            ok &= ln <= PLAIN_MAX
        if ok.all():
            continue
        out[~ok] = 0
        faults = [_first_long(ln)]
        other = (~ok & (ln <= MAX_NUMBER_CHARS)).nonzero()[0]
        if other.size:
            faults.append(_convert_others(arr, start[a:b], ln, other, out, dtype))
            if finite and not integer:
                nonfinite = (~np.isfinite(out[other])).nonzero()[0]
                if nonfinite.size:                  # fields past a chunk's first failure hold 0: finite
                    faults.append((int(other[nonfinite[0]]), "finite"))
        bad, reason = min(faults)
        if bad < b - a:
            return Numbers(values, a + bad, reason)
    return Numbers(values, -1, "")


def _first_long(length: np.ndarray) -> tuple:
    """(the first field over MAX_NUMBER_CHARS, 'long'), or (len(length), '') when there is none."""
    long = (length > MAX_NUMBER_CHARS).nonzero()[0]
    return (int(long[0]), "long") if long.size else (length.size, "")


def _convert_others(arr: np.ndarray, start, length: np.ndarray, rows: np.ndarray, out: np.ndarray, dtype) -> tuple:
    """numpy's conversion of the fields `rows` into out, grouped by length; (the first that fails, why) or
    (len(length), ''). In a group that fails, the fields before its first failure are converted."""
    first_bad, reason = length.size, ""
    lens = length[rows]
    for width in np.unique(lens).tolist():          # a loop over distinct lengths (at most MAX_NUMBER_CHARS)
        members = rows[lens == width]
        fields = gather_fields(arr, start[members], length[members], width)
        try:
            out[members] = fields.astype(dtype)
            continue
        except NUMPY_REFUSES:
            pass
        i = _first_failure(fields, dtype)
        out[members[:i]] = fields[:i].astype(dtype)
        if members[i] < first_bad:
            first_bad = int(members[i])
            reason = _failure_reason(fields[i:i + 1], dtype)
    return first_bad, reason


def _first_failure(fields: np.ndarray, dtype) -> int:
    """Index of the first field numpy cannot convert (there is one): halving, about twice the conversions."""
    lo, hi = 0, fields.size
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            fields[lo:mid].astype(dtype)
            lo = mid
        except NUMPY_REFUSES:
            hi = mid
    return lo


def _failure_reason(field: np.ndarray, dtype) -> str:
    """'range' for an integer beyond 64 bits, else 'syntax' (field: the one failing field, an 'S' array)."""
    try:
        field.astype(dtype)
    except OverflowError:
        return "range"
    except ValueError:
        pass
    return "syntax"
