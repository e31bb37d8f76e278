"""Vectorized numeric parsing of text fields (numpy only), bit-identical to Python's float() / int().

Fields are given as byte offsets into one uint8 buffer. gather_words() reads each field as little-endian 64-bit
words (a field of length L is ceil(L / 8) words, bytes past its end zeroed): one fancy index per word, no copy of
the buffer. parse_decimal() then decodes plain decimal tokens, [+-]?digits[.digits] with at most 15 digits in
all: the digits form an integer mantissa M < 10**15 < 2**53 (exact in float64), and M / 10.0**f (f = digits after
the dot, 10**f exact) is one correctly rounded division (Clinger's fast path), so the value equals float(token)
bit for bit. Every other token (exponent, more digits, blanks, nan/inf, garbage) is reported as not handled, for
the caller's own parser.
"""
from __future__ import annotations

import numpy as np

MAX_DIGITS = 15
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_POW10 = np.array([10.0 ** k for k in range(MAX_DIGITS + 1)], dtype=np.float64)


def gather_words(arr, start, length, nwords):
    """(nwords, n) '<u8': word k of field i holds bytes start[i] + 8k .. + 8k + 7, zeroed past length[i]."""
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    start = np.asarray(start, dtype=np.int64)
    length = np.asarray(length, dtype=np.int64)
    n = start.size
    out = np.zeros((nwords, n), dtype="<u8")
    if n == 0 or nwords == 0:
        return out
    nfull = max(arr.size - 7, 0)
    u64 = np.ndarray((nfull,), dtype="<u8", buffer=arr, strides=(1,)) if nfull else np.zeros(1, dtype="<u8")
    shortest = int(length.min())
    for k in range(nwords):
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
    return out


def words_to_matrix(words, width):
    """(n, width) uint8 bytes of the fields (zero padded), from gather_words()."""
    nw, n = words.shape
    mat = np.ascontiguousarray(words.T).view(np.uint8).reshape(n, 8 * nw)
    return np.ascontiguousarray(mat[:, :width])


def _byte(words, j):
    return (words[j // 8] >> np.uint64(8 * (j % 8))).astype(np.uint8)


def parse_decimal(words, length, integer=False):
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


def column_words(col):
    """An 'S' column (tokens left-aligned, NUL-padded) as parse_decimal() input: (words, lengths)."""
    n = col.shape[0]
    width = max(col.dtype.itemsize, 1)
    nwords = (width + 7) // 8
    mat = np.zeros((n, 8 * nwords), dtype=np.uint8)
    mat[:, :col.dtype.itemsize] = np.ascontiguousarray(col).view(np.uint8).reshape(n, col.dtype.itemsize)
    nonzero = mat != 0
    length = np.where(nonzero.any(axis=1), 8 * nwords - np.argmax(nonzero[:, ::-1], axis=1), 0)
    return np.ascontiguousarray(mat.view("<u8").T), length


def format_integers(values):
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
