"""JSON number tokens read with numpy, bit-identical to json.loads followed by a conversion to float64.

Tokens are given as byte offsets and lengths into one uint8 buffer. json_numbers() accepts exactly the JSON grammar
-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? and returns what the stdlib path gives: json.loads makes an int of a
token without fraction or exponent (so "-0" is 0, not -0.0) and a float of the others (correctly rounded); numpy
turns an int into the nearest float64. Every way splits in three:

- [-]?digits of at most 8 digits (box coordinates in pixels: nearly every token): one 64-bit word per token, the
  digits checked and combined in that word (SWAR: 8 digits -> 4 pairs -> 2 quads -> 1 value), exact.
- other tokens are checked against the grammar by a small automaton, one step per character position (a loop over
  positions, not tokens); those of at most 15 digits without exponent are read by fastnum.parse_decimal (exact),
- the rest (exponents, more digits) by numpy's string conversion, which rounds correctly like float().

ok[i] is False for anything else (literals true/false/null/NaN/Infinity, garbage) and for values that are not
finite: the caller then leaves the document to the stdlib path, which names the fault.
"""
from __future__ import annotations

from typing import NamedTuple, Tuple

import numpy as np

from .fastnum import MAX_DIGITS, gather_words, parse_decimal, words_to_matrix

_U = np.uint64
MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_ZEROS = _U(0x3030303030303030)
_HIGH = _U(0x8080808080808080)
_NOT_DIGIT = _U(0x7676767676767676)      # + byte: the high bit is set from 10 (0x80 - 10 = 0x76)

# the automaton: character classes and states
_END, _ZERO, _DIGIT, _MINUS, _PLUS, _DOT, _EXP, _OTHER = range(8)
_CLASS = np.full(256, _OTHER, dtype=np.uint8)
_CLASS[0] = _END                          # the zero padding past a token's end
_CLASS[ord("0")] = _ZERO
_CLASS[ord("1"):ord("9") + 1] = _DIGIT
_CLASS[ord("-")] = _MINUS
_CLASS[ord("+")] = _PLUS
_CLASS[ord(".")] = _DOT
_CLASS[[ord("e"), ord("E")]] = _EXP
_ACCEPT, _ERROR = 9, 10
_STEP = np.full((11, 8), _ERROR, dtype=np.uint8)
_STEP[0, [_MINUS, _ZERO, _DIGIT]] = [1, 2, 3]         # start
_STEP[1, [_ZERO, _DIGIT]] = [2, 3]                    # after the minus
_STEP[2, [_DOT, _EXP, _END]] = [4, 6, _ACCEPT]        # a leading zero: no digit may follow
_STEP[3, [_ZERO, _DIGIT, _DOT, _EXP, _END]] = [3, 3, 4, 6, _ACCEPT]
_STEP[4, [_ZERO, _DIGIT]] = [5, 5]                    # after the dot: a digit is required
_STEP[5, [_ZERO, _DIGIT, _EXP, _END]] = [5, 5, 6, _ACCEPT]
_STEP[6, [_PLUS, _MINUS, _ZERO, _DIGIT]] = [7, 7, 8, 8]
_STEP[7, [_ZERO, _DIGIT]] = [8, 8]
_STEP[8, [_ZERO, _DIGIT, _END]] = [8, 8, _ACCEPT]
_STEP[_ACCEPT, _END] = _ACCEPT
_STEP = _STEP.ravel()
LONGEST = 64                              # longer tokens are left to the stdlib path (ok False)

LITERALS = (b"true", b"false", b"null", b"NaN", b"Infinity", b"-Infinity")


def first_words(arr: np.ndarray, u64: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The first 8 bytes of each token as a little-endian uint64, zeroed past its length (length <= 8 assumed
    by the caller where it matters). u64: the unaligned '<u8' view of arr (see word_view)."""
    start = np.asarray(start, dtype=np.int64)
    nfull = u64.size
    if start.size and int(start.max()) >= nfull:
        w = gather_words(arr, start, np.minimum(length, 8), 1)[0]
    else:
        w = u64[start]
    return w & MASKS.take(np.minimum(length, 8))


def word_view(arr: np.ndarray) -> np.ndarray:
    """The '<u8' words starting at every byte offset of arr that has 8 bytes after it (no copy)."""
    nfull = max(arr.size - 7, 0)
    if nfull == 0:
        return np.zeros(0, dtype="<u8")
    return np.ndarray((nfull,), dtype="<u8", buffer=arr, strides=(1,))


def json_numbers(arr: np.ndarray, u64: np.ndarray, start: np.ndarray, length: np.ndarray
                 ) -> Tuple[np.ndarray, np.ndarray]:
    """(values float64, ok bool) of JSON number tokens; see the module's docstring."""
    start = np.asarray(start, dtype=np.int64)
    length = np.asarray(length, dtype=np.int64)
    n = start.size
    vals = np.zeros(n, dtype=np.float64)
    ok = np.zeros(n, dtype=bool)
    if n == 0:
        return vals, ok
    if int(length.max()) <= 4 and int(length.min()) >= 1 and int(start.max()) + 4 <= arr.size:
        vals, ok = _four(arr, start, length)
    else:
        vals, ok = _eight(arr, u64, start, length)
    if ok.all():
        return vals, ok
    rest = np.flatnonzero(~ok & (length <= LONGEST) & (length >= 1))
    if rest.size:
        vals[rest], ok[rest] = _general(arr, start[rest], length[rest])
    return vals, ok


_MASKS32 = np.array([(1 << (8 * k)) - 1 for k in range(5)], dtype=np.uint32)


def _four(arr: np.ndarray, start: np.ndarray, length: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """[-]?digits tokens of at most 4 bytes (the usual pixel coordinate) in 32-bit words."""
    u32 = np.ndarray((arr.size - 3,), dtype="<u4", buffer=arr, strides=(1,))
    w = u32[start]
    neg = (w & np.uint32(0xFF)) == np.uint32(45)
    digits = length
    if neg.any():
        w = np.where(neg, w >> np.uint32(8), w)
        digits = length - neg
    x = w ^ np.uint32(0x30303030)
    x &= _MASKS32.take(digits)
    bad = x + np.uint32(0x76767676)
    bad |= x
    bad &= np.uint32(0x80808080)
    ok = bad == 0
    ok &= digits >= 1
    ok &= ((x & np.uint32(0xFF)) != 0) | (digits == 1)          # no leading zero
    y = x << ((np.uint32(4) - digits.astype(np.uint32)) * np.uint32(8))
    y = (y * np.uint32(10) + (y >> np.uint32(8))) & np.uint32(0x00FF00FF)
    y = (y * np.uint32(100) + (y >> np.uint32(16))) & np.uint32(0xFFFF)
    vals = y.astype(np.float64)
    if neg.any():
        np.negative(vals, out=vals, where=neg)
        vals += 0.0                             # an int token: "-0" is 0 (+0.0)
    return vals, ok


def _eight(arr: np.ndarray, u64: np.ndarray, start: np.ndarray, length: np.ndarray
           ) -> Tuple[np.ndarray, np.ndarray]:
    """[-]?digits tokens of at most 8 bytes in 64-bit words (ok False for the others)."""
    w = first_words(arr, u64, start, length)
    neg = (w & _U(0xFF)) == _U(45)
    digits = length - neg
    x = np.where(neg, w >> _U(8), w)
    x ^= _ZEROS
    x &= MASKS[np.clip(digits, 0, 8)]
    bad = (x + _NOT_DIGIT) | x
    bad &= _HIGH
    plain = (bad == 0) & (digits >= 1) & (length <= 8)
    plain &= ((x & _U(0xFF)) != 0) | (digits == 1)          # no leading zero
    shift = (_U(8) - np.clip(digits, 1, 8).astype(np.uint64)) * _U(8)
    y = x << shift
    y = (y * _U(10) + (y >> _U(8))) & _U(0x00FF00FF00FF00FF)
    y = (y * _U(100) + (y >> _U(16))) & _U(0x0000FFFF0000FFFF)
    y = (y * _U(10000) + (y >> _U(32))) & _U(0xFFFFFFFF)
    vals = y.astype(np.float64)
    np.negative(vals, out=vals, where=neg)
    vals += 0.0                                 # an int token: "-0" is 0 (+0.0)
    return vals, plain


class _Scan(NamedTuple):
    """What the automaton finds in each token (n tokens)."""
    ok: np.ndarray              # (n,) bool: the token is a JSON number
    is_float: np.ndarray        # (n,) bool: it has a fraction or an exponent (json.loads makes a float of it)
    has_exp: np.ndarray         # (n,) bool: it has an exponent
    ndig: np.ndarray            # (n,) int64 digits


def _scan(words: np.ndarray, length: np.ndarray) -> _Scan:
    """The automaton over tokens given as gather_words() output (words) and their lengths: one step per character
    position, a loop over positions, not tokens."""
    n = length.size
    width = int(length.max())
    state = np.zeros(n, dtype=np.uint8)
    is_float = np.zeros(n, dtype=bool)
    has_exp = np.zeros(n, dtype=bool)
    ndig = np.zeros(n, dtype=np.int64)
    for j in range(width + 1):          # one position past the longest token: its end
        if j < width:
            c = (words[j // 8] >> _U(8 * (j % 8))).astype(np.uint8)
        else:
            c = np.zeros(n, dtype=np.uint8)
        cls = _CLASS[c]
        exp = cls == _EXP
        has_exp |= exp
        is_float |= (cls == _DOT) | exp
        ndig += (cls == _ZERO) | (cls == _DIGIT)
        state = _STEP[state.astype(np.intp) * 8 + cls]
    return _Scan(state == _ACCEPT, is_float, has_exp, ndig)


def _general(arr: np.ndarray, start: np.ndarray, length: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The automaton, then exact reading, for the tokens the one-word path left."""
    n = start.size
    width = int(length.max())
    words = gather_words(arr, start, length, (width + 7) // 8)
    ok, is_float, has_exp, ndig = _scan(words, length)
    vals = np.zeros(n, dtype=np.float64)
    simple = ok & ~has_exp & (ndig <= MAX_DIGITS)
    idx = np.flatnonzero(simple)
    if idx.size:
        v, good = parse_decimal(words[:, idx], length[idx], False)
        vals[idx] = v
        ok[idx[~good]] = False
    idx = np.flatnonzero(ok & ~simple)
    if idx.size:
        mat = words_to_matrix(words[:, idx], width)
        vals[idx] = mat.view("S%d" % width).ravel().astype(np.float64)
    vals[~is_float] += 0.0
    ok &= np.isfinite(vals)
    return vals, ok


def literal_or_number(arr: np.ndarray, u64: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """True where a token is a JSON number or one of the literals json.loads accepts (true, false, null, NaN,
    Infinity, -Infinity): any scalar value the scorer ignores must still be valid JSON."""
    vals, ok = json_numbers(arr, u64, start, length)
    rest = np.flatnonzero(~ok)
    if rest.size == 0:
        return ok
    # numbers that are not finite are still valid JSON (1e400 is inf for json.loads)
    st, ln = start[rest], length[rest]
    w = first_words(arr, u64, st, ln)
    lit = np.zeros(rest.size, dtype=bool)
    for name in LITERALS:
        if len(name) <= 8:
            lit |= (ln == len(name)) & (w == _U(int.from_bytes(name, "little")))
        else:
            w2 = first_words(arr, u64, st + 8, np.maximum(ln - 8, 0))
            lit |= ((ln == len(name)) & (w == _U(int.from_bytes(name[:8], "little")))
                    & (w2 == _U(int.from_bytes(name[8:], "little"))))
    ok[rest] = lit | _grammar_only(arr, st, ln)
    return ok


def _grammar_only(arr: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The automaton alone (a number too large for a float is still a valid token)."""
    out = np.zeros(start.size, dtype=bool)
    idx = np.flatnonzero((length >= 1) & (length <= LONGEST))
    if idx.size == 0:
        return out
    start, length = start[idx], length[idx]
    out[idx] = _scan(gather_words(arr, start, length, (int(length.max()) + 7) // 8), length).ok
    return out
