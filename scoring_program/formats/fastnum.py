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
    u64 = np.ndarray((nfull,), dtype="<u8", buffer=arr, strides=(1,)) if nfull else None
    for k in range(nwords):
        rem = np.clip(length - 8 * k, 0, 8)
        pos = start + 8 * k
        inside = pos < nfull
        if u64 is not None:
            w = u64[np.where(inside, pos, 0)]
        else:
            w = np.zeros(n, dtype="<u8")
        tail = np.flatnonzero(~inside & (rem > 0))
        for i in tail.tolist():       # fields ending in the buffer's last 7 bytes: at most a few
            p = int(pos[i])
            chunk = arr[p:p + 8].tobytes() + b"\x00" * 8
            w[i] = np.frombuffer(chunk[:8], dtype="<u8")[0]
        w &= _MASKS[rem]
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
    bad = length < 1
    ndig = np.zeros(n, dtype=np.int64)
    ndot = np.zeros(n, dtype=np.int64)
    fdig = np.zeros(n, dtype=np.int64)
    neg = np.zeros(n, dtype=bool)
    for j in range(width):
        c = _byte(words, j)
        inlen = j < length
        d = c - np.uint8(48)
        isd = d < 10
        isdot = c == 46
        allowed = isd | isdot
        if j == 0:
            neg = c == 45
            allowed |= neg | (c == 43)
        bad |= inlen & ~allowed
        ndig += isd
        if not integer:
            ndot += isdot
            fdig += isd & (ndot > 0)
        else:
            bad |= isdot
        M = np.where(isd, M * 10.0 + d, M)
    ok = ~bad & (ndig >= 1) & (ndig <= MAX_DIGITS) & (ndot <= 1)
    vals = M / _POW10[np.minimum(fdig, MAX_DIGITS)]
    np.negative(vals, out=vals, where=neg)
    return vals, ok
