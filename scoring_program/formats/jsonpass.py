"""The JSON byte pass: a block of a JSON file straight from its bytes to tokens, with numpy and no Python object per
token, number or string. The engine under every JSON format read from bytes (the Kinetics-TPS part files:
formats.kinetics_json is their schema on it); formats.jsonnum reads the numbers, formats.jsoncaps holds the caps and
the stdlib path (json.loads).

1. White space (compact_block, block_tokens). Outside strings it carries no meaning: a block is read without it,
   in the first of three ways that fits. A block written compactly has none: it is only copied. A block written
   with json.dump's separators (", " and ": ") keeps its spaces: the one after each comma and colon is read as part
   of that token (checked: every space of the block is one of them). Any other block keeps its bytes above 32 (a
   copy without its white space, and the offset of every byte kept); a string that held white space (its length
   changed) makes the block be kept exactly, every byte inside a string staying. Control characters other than
   white space, and any below 32 inside a string, are invalid JSON.
2. Tokens (tokenize): the offsets of the bytes " , : [ ] { } of the compact block. A quote preceded by an odd run
   of backslashes is escaped (escaped_quotes); the parity of the quotes before a token tells whether it lies inside
   a string (then it is dropped); a string is one token from its opening to its closing quote. A scalar (number,
   true, ...) is what lies between two tokens (its length: Tokens.gap), and white space never lies inside one
   (check_scalars).
3. Grammar (check_grammar): a table of allowed neighbours (a key is a string followed by a colon; after a colon a
   value; ...). Depth: a cumulative sum of +1 ({ [) and -1 (} ]). Keys are classed by their bytes against a
   schema's words (key_classes).
4. Strings (StringTable): distinct texts coded in order of first appearance, by 64-bit words and a hash, verified
   byte for byte against one representative of each code.

Anything the pass does not read exactly as json.loads would (invalid JSON, an encoding other than UTF-8, a string
or scalar over the caps of formats.limits, a hash collision) raises Unexpected: the schema then leaves the block or
the file to json.loads, which names the fault.
"""
from __future__ import annotations

import json
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .fastnum import gather_words
from .jsonnum import first_words, word_view
from .limits import MAX_FIELD_CHARS, MAX_NUMBER_CHARS

# token codes
START, OBJ_OPEN, OBJ_CLOSE, ARR_OPEN, ARR_CLOSE, COLON, COMMA, STR, KEY = range(9)
NCODES = 9
_CODE = np.zeros(256, dtype=np.uint8)
for _b, _c in ((b"{", OBJ_OPEN), (b"}", OBJ_CLOSE), (b"[", ARR_OPEN), (b"]", ARR_CLOSE), (b":", COLON),
               (b",", COMMA), (b'"', STR)):
    _CODE[ord(_b)] = _c
DELTA = np.zeros(NCODES, dtype=np.int32)        # depth step of each token
DELTA[[OBJ_OPEN, ARR_OPEN]] = 1
DELTA[[OBJ_CLOSE, ARR_CLOSE]] = -1
QUOTE, BACKSLASH = 34, 92
_WHITE = (9, 13)                                # white space below the space (32) besides LF

# which token may follow which: _ALLOW[previous, a scalar between them, next]
_ALLOW = np.zeros((NCODES, 2, NCODES), dtype=bool)
_VALUE = [STR, OBJ_OPEN, ARR_OPEN]
_AFTER_VALUE = [COMMA, OBJ_CLOSE, ARR_CLOSE]
_ALLOW[START, 0, OBJ_OPEN] = True                       # the document is an object
_ALLOW[OBJ_OPEN, 0, [KEY, OBJ_CLOSE]] = True
_ALLOW[ARR_OPEN, 0, _VALUE + [ARR_CLOSE]] = True
_ALLOW[ARR_OPEN, 1, [COMMA, ARR_CLOSE]] = True
_ALLOW[COLON, 0, _VALUE] = True
_ALLOW[COLON, 1, [COMMA, OBJ_CLOSE]] = True
_ALLOW[COMMA, 0, _VALUE + [KEY]] = True
_ALLOW[COMMA, 1, [COMMA, ARR_CLOSE]] = True
_ALLOW[KEY, 0, COLON] = True
for _p in (STR, OBJ_CLOSE, ARR_CLOSE):
    _ALLOW[_p, 0, _AFTER_VALUE] = True
_ALLOW = _ALLOW.ravel()


class Unexpected(Exception):
    """Something the byte pass does not read exactly as json.loads would: the schema leaves the block or the file to
    json.loads."""


class Strings(NamedTuple):
    """Distinct strings of a kind (part names, states) in order of first appearance, and a code per occurrence."""
    texts: List[bytes]          # canonical UTF-8 bytes (escapes resolved)
    codes: np.ndarray           # (n,) int64, one per occurrence: an index into texts


def escaped_quotes(c: np.ndarray, quotes: np.ndarray) -> np.ndarray:
    """bool per quote (offsets into the bytes c): preceded by an odd run of backslashes, i.e. escaped."""
    out = np.zeros(quotes.size, dtype=bool)
    cand = np.flatnonzero(quotes > 0)
    cand = cand[c[quotes[cand] - 1] == BACKSLASH]
    if cand.size == 0:
        return out
    bs = np.flatnonzero(c == BACKSLASH)
    run_first = np.ones(bs.size, dtype=bool)
    run_first[1:] = bs[1:] != bs[:-1] + 1
    first_of = np.maximum.accumulate(np.where(run_first, np.arange(bs.size), 0))
    j = np.searchsorted(bs, quotes[cand] - 1)
    out[cand[((j - first_of[j]) & 1) == 0]] = True          # a run of j - first + 1 backslashes: odd
    return out


def unescaped_quotes(data: bytes, c: np.ndarray, a: int) -> np.ndarray:
    """Offsets (int64) of the quotes of c (the bytes of data at offset a) that no odd run of backslashes precedes."""
    q = np.flatnonzero(c == QUOTE)
    if q.size == 0 or data.find(b"\\", a, a + c.size) < 0:
        return q + a
    return q[~escaped_quotes(c, q)] + a


class CompactBlock(NamedTuple):
    """A block of a JSON file as the pass reads it: its bytes without the white space outside strings, after the
    token carried from the block before (local offset 0: the closing brace just before the block, or a NUL byte
    that stands for the start of the file)."""
    data: bytes                 # the carried token's byte and the block's bytes, white space outside strings removed
    arr: np.ndarray             # (n,) uint8 view of data
    u64: np.ndarray             # formats.jsonnum.word_view(arr)
    start: int                  # file offset of local offset 0 (-1 for the file's start)
    origin: Optional[np.ndarray]    # (n,) int64 offset of each byte from start; None: data is the file's from start
    escapes: bool               # a backslash in the block (strings to decode)
    ascii: bool                 # no byte over 127 (no UTF-8 to check; a string's bytes are its characters)
    spaces: int = 0             # spaces left in data, one after each "," and ":" (json.dump's separators)

    def file_offset(self, i: int) -> int:
        """The file offset of local offset i."""
        return self.start + (i if self.origin is None else int(self.origin[i]))


def compact_block(data: bytes, arr: np.ndarray, a: int, b: int, drop: int = 1) -> CompactBlock:
    """The bytes [a, b) of a file (arr: its uint8 view) without white space outside strings, after the carried token
    (a is 0, or the offset just after a closing brace). drop=0 keeps a block whose only white space is spaces
    (block.spaces: tokenize checks that each follows a "," or ":", as json.dump writes them; a block with other
    white space is compacted as with drop=1); drop=1 drops every byte up to 32 (tokenize checks that no string lost
    one); drop=2 keeps the bytes inside strings."""
    first = a == 0                          # the file's start: a NUL byte stands for it
    if not first:
        a -= 1                              # the closing brace
    c = arr[a:b]
    escapes = data.find(b"\\", a, b) >= 0

    def as_it_is(spaces: int = 0) -> CompactBlock:
        return _block(b"\x00" + data[a:b] if first else data[a:b], a - first, None, escapes)._replace(spaces=spaces)

    if not (c <= 32).any():                 # nothing to drop (a compact file); (not c.min(): slow on numpy 1.17)
        return as_it_is()
    n_ctrl = int(np.count_nonzero(c < 32))
    if n_ctrl:                              # only tab, LF and CR (an indented file: LF only, counted first)
        n_white = int(np.count_nonzero(c == 10))
        if n_white != n_ctrl and n_white + sum(int(np.count_nonzero(c == w)) for w in _WHITE) != n_ctrl:
            raise Unexpected("a control character")
    elif drop == 0:
        return as_it_is(spaces=int(np.count_nonzero(c == 32)))
    keep = c > 32
    if drop == 2:
        quotes = unescaped_quotes(data, c, a) - a
        step = np.zeros(c.size + 1, dtype=np.int8)          # +1 at an opening quote, -1 at its closing quote
        step[quotes[0::2]] = 1
        step[quotes[1::2]] -= 1
        inside = np.cumsum(step[:-1], dtype=np.int8).view(bool)
        if (inside & (c < 32)).any():
            raise Unexpected("a control character in a string")    # tab, CR, LF: json.loads's strict mode
        keep |= inside
    kept = np.flatnonzero(keep)
    local = c.take(kept).tobytes()
    if first:
        return _block(b"\x00" + local, -1, np.concatenate(([0], kept + 1)), escapes)
    return _block(local, a, kept, escapes)


def _block(local: bytes, start: int, origin: Optional[np.ndarray], escapes: bool) -> CompactBlock:
    arr = np.frombuffer(local, dtype=np.uint8)
    return CompactBlock(local, arr, word_view(arr), start, origin, escapes, not (arr >= 0x80).any())


class Tokens(NamedTuple):
    """The tokens of a compact block, the carried one first (index 0, local offset 0: START or OBJ_CLOSE): strings
    are one token (pos: the opening quote, end: the closing one)."""
    pos: np.ndarray             # (T,) int32 local offset of each token
    code: np.ndarray            # (T,) uint8 token code (STR; KEY after key_classes)
    end: np.ndarray             # (T,) int32 local offset of its last byte
    gap: np.ndarray             # (T - 1,) int32 bytes of the scalar between token i and token i + 1 (0: none)


def tokenize(block: CompactBlock, at_end: bool) -> Tokens:
    """Tokens of a compact block (see the module's docstring), or Unexpected. at_end: the block ends the file."""
    c = block.arr
    n = c.size
    m = c == QUOTE
    quotes = np.flatnonzero(m)
    if block.escapes and quotes.size:
        esc = escaped_quotes(c, quotes)
        m[quotes[esc]] = False
        quotes = quotes[~esc]
    opens, closes = quotes[0::2], quotes[1::2]
    if quotes.size & 1 and at_end:
        raise Unexpected("unterminated string")
    if block.origin is not None:            # white space dropped inside a string: keep the block exactly
        origin = block.origin
        if (origin[closes] - origin[opens[:closes.size]] != closes - opens[:closes.size]).any():
            raise Spaced()
    m[closes] = False                       # a string is one token, at its opening quote
    for ch in (44, 58, 91, 93, 123, 125):
        m |= c == ch
    m[0] = True                             # the carried token
    pos = np.flatnonzero(m)                 # (int64 offsets index faster: int32 once they are only data)
    if quotes.size & 1:                     # the block ends inside a string: only the tokens before it count
        pos = pos[:np.searchsorted(pos, quotes[-1])]
    code = _CODE.take(c.take(pos))
    strings = np.flatnonzero(code == STR)
    after = strings + 1
    if after.size and after[-1] == pos.size:
        after = after[:-1]
    if strings.size != closes.size or (pos[after] < closes[:after.size]).any():
        pos, code, strings = _outside_strings(c, quotes, closes.size)   # a string holds a token's byte
    # the caps (formats.jsoncaps names the fault): checked before any array is sized by a string, and before a
    # block grows to hold a long string or scalar
    if closes.size and int((closes - opens[:closes.size]).max()) > MAX_FIELD_CHARS + 1:
        raise Unexpected("a string over its cap")
    if quotes.size & 1:
        if n - int(quotes[-1]) - 1 > MAX_FIELD_CHARS:
            raise Unexpected("a string over its cap")
    elif n - 1 - (int(closes[-1]) if strings.size and strings[-1] == pos.size - 1 else int(pos[-1])) \
            > MAX_NUMBER_CHARS:
        raise Unexpected("a scalar over the number cap")
    if block.spaces:                        # the space after each separator is part of its token
        separator = (code == COMMA) | (code == COLON)
        end = pos + separator
        end[strings] = closes
        spaced = c.take(end, mode="clip") == 32
        held = bool(end[-1] == n and separator[-1])     # a separator that ends the block: its space is next
        spaced[-1] |= held
        if int(np.count_nonzero(separator)) - held != block.spaces or not np.array_equal(spaced, separator):
            raise Spaced()
    else:
        end = pos.copy()
        end[strings] = closes
    pos, end = pos.astype(np.int32), end.astype(np.int32)
    if not block.ascii:
        _check_utf8(block, pos, code, end)
    gap = pos[1:] - end[:-1]
    gap -= 1
    if gap.size and int(gap.max()) > MAX_NUMBER_CHARS:
        raise Unexpected("a scalar over the number cap")
    return Tokens(pos, code, end, gap)


def _outside_strings(c: np.ndarray, quotes: np.ndarray, n_strings: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pos, code, string tokens) of the bytes of c, for a block whose strings hold bytes of tokens: the parity of the
    (unescaped) quotes before a token tells whether it lies inside a string; the tokens of a string still open at
    the block's end are dropped."""
    m = np.zeros(c.size, dtype=bool)
    for ch in (44, 58, 91, 93, 123, 125):
        m |= c == ch
    m[quotes] = True
    m[0] = True                             # the carried token
    pos = np.flatnonzero(m)
    code = _CODE.take(c.take(pos))
    quote = np.zeros(pos.size, dtype=bool)
    quote[np.searchsorted(pos, quotes)] = True
    parity = np.cumsum(quote, dtype=np.uint8) & np.uint8(1)     # 1 from an opening quote to its closing one
    keep = (quote.view(np.uint8) ^ parity) == 0                 # opening quotes and tokens outside strings
    pos, code = pos[keep], code[keep]
    strings = np.flatnonzero(code == STR)
    if strings.size > n_strings:            # the string still open
        pos, code, strings = pos[:strings[-1]], code[:strings[-1]], strings[:-1]
    return pos, code, strings


class Spaced(Unexpected):
    """The white space of the block is not what compact_block left it for: block_tokens drops more of it."""


def block_tokens(data: bytes, arr: np.ndarray, a: int, b: int) -> Tuple[CompactBlock, Tokens]:
    """The compact block [a, b) of a file and its tokens: compact_block, first with the spaces of json.dump's
    separators left in, else without white space, exactly where a string holds some."""
    at_end = b == arr.size
    block = compact_block(data, arr, a, b, 0)
    if block.origin is None:                # as it was written, or with json.dump's separators
        try:
            return block, tokenize(block, at_end)
        except Spaced:                      # other spaces: drop the white space
            block = compact_block(data, arr, a, b, 1)
    try:
        return block, tokenize(block, at_end)
    except Spaced:                          # a string held white space: keep the strings' bytes exactly
        block = compact_block(data, arr, a, b, 2)
        return block, tokenize(block, at_end)


def check_scalars(block: CompactBlock, start: np.ndarray, length: np.ndarray) -> None:
    """Unexpected when a scalar (local start, length) had white space inside it in the file ("1 2", "tr ue"): its
    last byte must lie length - 1 bytes after its first, as in the block."""
    if block.origin is not None and start.size:
        first = start.astype(np.intp)
        last = first + length
        last -= 1
        # origin increases: each span is at least its length - 1, so equal sums mean equal spans
        if int(block.origin.take(last).sum()) - int(block.origin.take(first).sum()) != int((last - first).sum()):
            raise Unexpected("white space inside a scalar")


def _check_utf8(block: CompactBlock, pos: np.ndarray, code: np.ndarray, end: np.ndarray) -> None:
    """Bytes >= 0x80 are allowed only inside strings, as valid UTF-8 (surrogates pass, as json.loads)."""
    high = np.flatnonzero(block.arr >= 0x80)
    if high.size == 0:
        return
    s = np.flatnonzero(code == STR)
    k = np.searchsorted(pos[s], high, side="right") - 1
    if (k < 0).any():
        raise Unexpected("non-ASCII outside strings")
    inside = end[s[k]] > high
    # a byte past the block's last complete token belongs to the next block
    last = end[-1] if end.size else 0
    if not inside[high < last].all():
        raise Unexpected("non-ASCII outside strings")
    data = block.data
    for i in np.unique(s[k[inside]]).tolist():
        try:
            data[int(pos[i]) + 1:int(end[i])].decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise Unexpected("not UTF-8")


def check_grammar(code: np.ndarray, scalar: np.ndarray) -> None:
    """Unexpected unless every token may follow the one before (scalar: bool per pair, a scalar between them)."""
    pair = code[:-1] * np.uint8(2 * NCODES)
    pair += code[1:]
    pair += scalar.view(np.uint8) * np.uint8(NCODES)
    if not _ALLOW.take(pair).all():
        raise Unexpected("grammar")


def depth(code: np.ndarray, carried_depth: int) -> np.ndarray:
    """(T,) int32 depth after each token ({ and [ open a level, } and ] close one), the carried token at its
    own."""
    level = DELTA.take(code)
    level[0] = carried_depth
    return np.cumsum(level, out=level)      # (in place, in int32: several times quicker than into int16)


def key_classes(block: CompactBlock, tokens: Tokens, words: Sequence[Tuple[bytes, int]], other: int
                ) -> Tuple[np.ndarray, np.ndarray]:
    """(indices, classes) of the keys (strings followed by a colon, whose code becomes KEY): the class of a key is
    that of its word in `words` ((bytes, class) pairs, each shorter than 8 bytes: a key's first 8 bytes, zero past
    its end, equal a word's only when they are the same text, as no string holds a NUL byte), else `other`."""
    code, pos, end = tokens.code, tokens.pos, tokens.end
    kidx = np.flatnonzero(code == COLON) - 1
    kidx = kidx[code[kidx] == STR]
    code[kidx] = KEY
    klen = end[kidx] - pos[kidx] - 1
    kword = first_words(block.arr, block.u64, pos[kidx] + 1, klen)
    kcls = np.full(kidx.size, other, dtype=np.uint8)
    for text, cls in words:
        kcls[kword == np.uint64(int.from_bytes(text, "little"))] = cls
    if block.escapes:               # keys written with escapes: decoded one by one
        data, by_text = block.data, dict(words)
        for j, i in enumerate(kidx.tolist()):
            s, e = int(pos[i]), int(end[i])
            if data.find(b"\\", s + 1, e) >= 0:
                kcls[j] = by_text.get(decode(data[s:e + 1]).encode("utf-8", "surrogatepass"), other)
    return kidx, kcls


def check_escapes(block: CompactBlock, tokens: Tokens) -> None:
    """Unexpected unless every string holding a backslash is one json.loads reads (an escape it knows)."""
    code, pos, end, data = tokens.code, tokens.pos, tokens.end, block.data
    strings = np.flatnonzero((code == STR) | (code == KEY))
    bs = np.flatnonzero(block.arr == BACKSLASH)
    k = np.searchsorted(pos[strings], bs, side="right") - 1
    for i in np.unique(k[k >= 0]).tolist():
        s, e = int(pos[strings[i]]), int(end[strings[i]])
        if data.find(b"\\", s, e) >= 0:
            decode(data[s:e + 1])


def decode(token: bytes) -> str:
    """A quoted JSON string token (bytes) -> str, as json.loads reads it; Unexpected when it is not valid."""
    try:
        s = json.loads(token)
    except (ValueError, UnicodeDecodeError):
        raise Unexpected("string")
    if not isinstance(s, str):
        raise Unexpected("string")
    return s


def texts(block: CompactBlock, start: np.ndarray, end: np.ndarray) -> List[str]:
    """The str of the string tokens (local opening and closing quotes), escapes resolved (object keys)."""
    data = block.data
    if block.ascii and not block.escapes:   # one decode, then slices of the text
        text = data.decode("ascii")
        return [text[s + 1:e] for s, e in zip(start.tolist(), end.tolist())]
    out = []
    for s, e in zip(start.tolist(), end.tolist()):
        raw = data[s + 1:e]
        if block.escapes and b"\\" in raw:
            out.append(decode(data[s:e + 1]))
        else:
            try:
                out.append(raw.decode("utf-8", "surrogatepass"))
            except UnicodeDecodeError:
                raise Unexpected("not UTF-8")
    return out


class Grow(object):
    """An array filled block by block, without a final concatenation: when full it is reallocated to what the
    share of the file read so far predicts for the whole (np.empty: pages are touched only as they are written)."""

    def __init__(self, dtype: type, width: Optional[int] = None) -> None:
        self.shape = () if width is None else (width,)
        self.buf = np.empty((0,) + self.shape, dtype=dtype)
        self.n = 0

    def append(self, x: np.ndarray, fraction: float) -> None:
        k = len(x)
        if self.n + k > len(self.buf):
            want = max(2 * len(self.buf), int((self.n + k) / fraction * 1.05) + 16)
            new = np.empty((want,) + self.shape, dtype=self.buf.dtype)
            new[:self.n] = self.buf[:self.n]
            self.buf = new
        self.buf[self.n:self.n + k] = x
        self.n += k

    def values(self) -> np.ndarray:
        return self.buf[:self.n]


class StringTable(object):
    """Collects strings block by block, codes them by first appearance.

    Each string is read as 64-bit words and hashed; a hash already seen gives its code (a table of 2**16 slots by
    the hash's top bits; a binary search over the known hashes once two of them share a slot), a new one is added
    in order of first appearance. Every string is then compared word for word with the first string of its code,
    so a hash collision is found (and left to the stdlib path), never trusted."""

    SLOT_BITS = 16

    def __init__(self) -> None:
        self.vocab: Dict[bytes, int] = {}               # canonical bytes -> code
        self.known = np.zeros(0, dtype=np.uint64)       # sorted hashes
        self.known_code = np.zeros(0, dtype=np.int64)
        self.slot_hash = np.zeros(1 << self.SLOT_BITS, dtype=np.uint64)   # the known hash in each slot
        self.slot_code = np.full(1 << self.SLOT_BITS, -1, dtype=np.int64)  # its code (-1: an empty slot)
        self.crowded = False                            # two known hashes share a slot: the binary search
        self.rep_words = np.zeros((1, 0), dtype=np.uint64)  # (words, code) of each code's first string
        self.rep_length = np.zeros(0, dtype=np.int64)
        self.codes = Grow(np.int64)
        self.last = np.zeros(0, dtype=np.int64)         # the codes of the last add

    def add_tokens(self, block: CompactBlock, start: np.ndarray, end: np.ndarray, fraction: float) -> None:
        """Add the string tokens of a block (local opening and closing quotes), in order."""
        escaped = np.zeros(start.size, dtype=bool)
        if block.escapes and start.size:
            data = block.data
            for i in range(start.size):
                if data.find(b"\\", int(start[i]) + 1, int(end[i])) >= 0:
                    escaped[i] = True
        self.add(block.arr, block.data, start + 1, end - start - 1, escaped, fraction)

    def add(self, arr: np.ndarray, data: bytes, start: np.ndarray, length: np.ndarray, escaped: np.ndarray,
            fraction: float) -> None:
        """start, length: the strings' contents (inside the quotes); escaped: bool, contents to decode."""
        n = start.size
        if n == 0:
            self.last = np.zeros(0, dtype=np.int64)
            return
        length = length.astype(np.int64)
        canon = {}
        if escaped.any():
            for i in np.flatnonzero(escaped).tolist():
                s, ln = int(start[i]), int(length[i])
                canon[i] = decode(data[s - 1:s + ln + 1]).encode("utf-8", "surrogatepass")
                length[i] = len(canon[i])
        nw = max((int(length.max()) + 7) // 8, 1)
        words = gather_words(arr, start, np.where(escaped, 0, length), nw)
        for i, b in canon.items():
            words[:, i] = np.frombuffer(b + b"\x00" * (8 * nw - len(b)), dtype="<u8")
        h = _hash(words, length)
        codes, hit = self._lookup(h)
        if not hit.all():
            miss = np.flatnonzero(~hit)
            _, first = np.unique(h[miss], return_index=True)
            for i in miss[np.sort(first)].tolist():             # new strings in order of first appearance
                text = canon[i] if i in canon else data[int(start[i]):int(start[i]) + int(length[i])]
                if text in self.vocab:
                    raise Unexpected("hash collision")
                self._learn(text, h[i], words[:, i], length[i])
            codes, hit = self._lookup(h)
        if self.rep_words.shape[0] < nw:
            pad = np.zeros((nw - self.rep_words.shape[0], self.rep_words.shape[1]), dtype=np.uint64)
            self.rep_words = np.concatenate((self.rep_words, pad))
        same = self.rep_length[codes] == length
        for k in range(self.rep_words.shape[0]):
            same &= self.rep_words[k, codes] == (words[k] if k < nw else 0)
        if not same.all():
            raise Unexpected("hash collision")
        self.codes.append(codes, fraction)
        self.last = codes

    def add_strings(self, strings: Strings, fraction: float) -> None:
        """Add the occurrences of a Strings (distinct UTF-8 texts and a code per occurrence, from json.loads: a block
        the schema read with it), coded as add codes them."""
        mapping = np.zeros(len(strings.texts), dtype=np.int64)
        new = [i for i, t in enumerate(strings.texts) if t not in self.vocab]
        if new:
            length = np.array([len(strings.texts[i]) for i in new], dtype=np.int64)
            nw = max((int(length.max()) + 7) // 8, 1)
            words = np.zeros((nw, len(new)), dtype="<u8")
            for j, i in enumerate(new):
                t = strings.texts[i]
                words[:, j] = np.frombuffer(t + b"\x00" * (8 * nw - len(t)), dtype="<u8")
            h = _hash(words, length)
            for j, i in enumerate(new):
                if np.any(self.known == h[j]):
                    raise Unexpected("hash collision")
                self._learn(strings.texts[i], h[j], words[:, j], length[j])
        for i, t in enumerate(strings.texts):
            mapping[i] = self.vocab[t]
        self.last = mapping[strings.codes]
        self.codes.append(self.last, fraction)

    def _lookup(self, h: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(code, known) per hash: the code of a known hash (known True), anything where known is False."""
        if self.crowded:
            at = np.minimum(np.searchsorted(self.known, h), self.known.size - 1)
            return self.known_code[at], self.known[at] == h
        slot = (h >> np.uint64(64 - self.SLOT_BITS)).astype(np.intp)
        code = self.slot_code[slot]
        known = self.slot_hash[slot] == h
        known &= code >= 0
        return code, known

    def _learn(self, text: bytes, h: np.uint64, words: np.ndarray, length: int) -> None:
        code = len(self.vocab)
        self.vocab[text] = code
        at = int(np.searchsorted(self.known, h))
        self.known = np.insert(self.known, at, h)
        self.known_code = np.insert(self.known_code, at, code)
        slot = int(h >> np.uint64(64 - self.SLOT_BITS))
        self.crowded |= bool(self.slot_code[slot] >= 0)
        self.slot_hash[slot], self.slot_code[slot] = h, code
        rows = max(self.rep_words.shape[0], words.size)
        rep = np.zeros((rows, code + 1), dtype=np.uint64)
        rep[:self.rep_words.shape[0], :code] = self.rep_words
        rep[:words.size, code] = words
        self.rep_words = rep
        self.rep_length = np.append(self.rep_length, length)

    def result(self) -> Strings:
        texts = [b""] * len(self.vocab)
        for t, c in self.vocab.items():
            texts[c] = t
        return Strings(texts, self.codes.values())


def _hash(words: np.ndarray, length: np.ndarray) -> np.ndarray:
    """A 64-bit hash per string from its words (nw, n) and lengths: it mixes the string's own words only, so it does
    not depend on the longest string of the block."""
    h = length.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    for k in range(words.shape[0]):
        g = h ^ words[k]
        g *= np.uint64(0xBF58476D1CE4E5B9)
        g ^= g >> np.uint64(29)
        h = g if k == 0 else np.where(length > 8 * k, g, h)
    return h
