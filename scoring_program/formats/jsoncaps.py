"""What a JSON document may cost: its caps, read from its bytes before any parser sees it (issue 20: bounded cost),
and json.loads within them (parse_json: the stdlib path).

Two caps of formats.limits hold for every JSON file a participant sends, whatever the ground truth holds:

- a string (a key or a value) of at most MAX_FIELD_CHARS bytes between its quotes, as written (an escape counts as
  written): a longer one would make fixed-width arrays of many GiB in the byte pass (formats.kinetics_json);
- a number literal of at most MAX_NUMBER_CHARS characters: json.loads converts an integer literal to a Python int
  as it parses, in time quadratic in its digits (800,000 digits: seconds each), even under a key nobody reads.

first_cap_fault finds the first string or number over its cap, in file order, with numpy over blocks of the bytes:
the unescaped quotes pair up into strings (a quote after an odd run of backslashes is escaped); a number literal is
a run of the bytes 0-9 + - . e E that starts with a digit or a minus, outside strings. Nothing here converts a
number or decodes a string, so a crafted file costs one pass over its bytes. check_caps turns the fault into the
one-line message: the file, the line, the cap, the length found.

parse_json reads a whole document with json.loads: the caps first, then (for a participant's file) what json.loads
would take in memory (check_json_cost), then json.loads with the cyclic garbage collector paused; its faults are
one-line messages (json_error).
"""
from __future__ import annotations

import gc
import json
import mmap
import re
from contextlib import contextmanager
from typing import Iterator, Optional, Tuple, Type, Union

import numpy as np

from ..errors import ScoringError, SubmissionError
from .jsonpass import unescaped_quotes
from .limits import MAX_FIELD_CHARS, MAX_NUMBER_CHARS, field_too_long, number_too_long
from .mapped import release_pages
from .text import read_bytes, read_mapped

BLOCK = 1 << 20                 # bytes per block of vectorized work (a block never ends inside a run of number
                                # bytes or of backslashes: it is extended to the run's end)
STRING, NUMBER = "string", "number"
_NUMBER_BYTE = np.zeros(256, dtype=bool)
_NUMBER_BYTE[[ord(c) for c in "0123456789+-.eE"]] = True
_NUMBER_START = np.zeros(256, dtype=bool)
_NUMBER_START[[ord(c) for c in "0123456789-"]] = True
_ENDS_A_BLOCK = re.compile(rb"[^0-9+\-.eE\\]")
_WINDOW = 32                    # a run of 2 * _WINDOW - 1 bytes holds a whole aligned window of _WINDOW bytes
assert MAX_NUMBER_CHARS + 1 >= 2 * _WINDOW - 1


def check_caps(data: Union[bytes, mmap.mmap], label: str, err: Type[ScoringError] = SubmissionError) -> None:
    """Raise err (SubmissionError) naming the file and the line of the first string or number over its cap."""
    fault = first_cap_fault(data)
    if fault is not None:
        kind, offset, length = fault
        expected, found = field_too_long(length) if kind == STRING else number_too_long(length)
        raise err(label, line=line_of(data, offset), expected=expected, found=found)


def line_of(data: Union[bytes, mmap.mmap], offset: int) -> int:
    """The line (1-based) of byte `offset` of a file's bytes (bytes or a memory map)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    line = 1
    for a in range(0, offset, BLOCK):
        line += int(np.count_nonzero(arr[a:min(a + BLOCK, offset)] == 10))
        release_pages(data)
    return line


def file_bytes(path, label: str, err: Type[ScoringError] = SubmissionError) -> Union[bytes, mmap.mmap]:
    """A JSON file's bytes as text.read_bytes reads them (the same errors; a UTF-8 byte-order mark left out), but
    mapped read-only rather than copied (formats.mapped): a file of a GB is not read twice, and the passes over it
    let go of its pages as they go. An empty file, or one that starts with the mark, is read_bytes's copy. The byte
    pass and the caps read either; json.loads gets a copy (parse_json)."""
    return read_mapped(path, label, err)


def first_cap_fault(data: Union[bytes, mmap.mmap], block: Optional[int] = None
                    ) -> Optional[Tuple[str, int, int]]:
    """(STRING or NUMBER, the byte offset where it starts, its length) of the first string or number literal over
    its cap in file order, or None."""
    arr = np.frombuffer(data, dtype=np.uint8)
    n = arr.size
    block = block or BLOCK
    open_quote = -1             # a string open at the block's start: the offset of its opening quote
    a = 0
    while a < n:
        b = _block_end(data, a, block)
        c = arr[a:b]
        quotes = unescaped_quotes(data, c, a)
        if open_quote >= 0:
            quotes = np.concatenate((np.array([open_quote], dtype=np.int64), quotes))
        opens, closes = quotes[0::2], quotes[1::2]
        faults = []
        length = closes - opens[:closes.size] - 1
        long_string = np.flatnonzero(length > MAX_FIELD_CHARS)
        if long_string.size:
            i = int(long_string[0])
            faults.append((STRING, int(opens[i]), int(length[i])))
        open_quote = int(opens[-1]) if opens.size > closes.size else -1
        if open_quote >= 0 and b - open_quote - 1 > MAX_FIELD_CHARS:
            faults.append((STRING, open_quote, None))           # its length: where it closes
        number = _NUMBER_BYTE.take(c)
        w = _WINDOW
        if (c.size < 4 * w or number[:c.size // w * w].reshape(-1, w).all(axis=1).any()
                or number[c.size % w:].reshape(-1, w).all(axis=1).any()):
            fault = _long_number(arr, number, a, quotes)
            if fault is not None:
                faults.append(fault)
        if faults:
            kind, at, length = min(faults, key=lambda f: f[1])
            if length is None:
                length = _string_length(data, arr, at, b, block)
            return kind, at, length
        release_pages(data)
        a = b
    return None


def _block_end(data: Union[bytes, mmap.mmap], a: int, block: int) -> int:
    """The end of the block that starts at a: about `block` bytes, extended to the end of a run of number bytes or
    backslashes."""
    n = len(data)
    if a + block >= n:
        return n
    m = _ENDS_A_BLOCK.search(data, a + block - 1)
    return n if m is None else m.start() + 1


def _long_number(arr: np.ndarray, number: np.ndarray, a: int, quotes: np.ndarray
                 ) -> Optional[Tuple[str, int, int]]:
    """The first NUMBER fault among the runs of number bytes of the block at a (none spans two blocks), or None.
    quotes: every unescaped quote of the block, after the opening quote of a string still open before it."""
    edges = np.diff(number.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    start = np.flatnonzero(edges == 1)
    length = np.flatnonzero(edges == -1) - start
    start += a
    # outside strings: an even number of quotes before it (a run holds no quote)
    long_run = (length > MAX_NUMBER_CHARS) & ((np.searchsorted(quotes, start) & 1) == 0)
    hit = np.flatnonzero(long_run)
    hit = hit[_NUMBER_START.take(arr[start[hit]])]
    return (NUMBER, int(start[hit[0]]), int(length[hit[0]])) if hit.size else None


def _string_length(data: Union[bytes, mmap.mmap], arr: np.ndarray, open_quote: int, b: int, block: int) -> int:
    """Length of the string opened at open_quote and still open at b: up to its closing quote, or the end."""
    n = arr.size
    a = b
    while a < n:
        b = _block_end(data, a, block)
        quotes = unescaped_quotes(data, arr[a:b], a)
        if quotes.size:
            return int(quotes[0]) - open_quote - 1
        release_pages(data)
        a = b
    return n - open_quote - 1


# What json.loads builds, in bytes at most per byte that opens a value, measured on Python 3.7 and 3.11 and
# rounded up (3.7 at most: "{}," 267 bytes, "[0]," 122, '"ab",' 73, "1234," 41, '"k0000001":0,' in one object 240
# with json's memo of keys), and the budget of a file read whole: the bound on peak memory, 256 MiB + 8x the
# input, less what the scorer holds besides (the interpreter and numpy, the file's bytes, the arrays it is
# flattened to).
COST_PER_BYTE = {ord("{"): 256, ord("["): 96, ord(":"): 176, ord(","): 48, ord('"'): 24}
COST_BUDGET_BASE = 128 << 20
COST_BUDGET_PER_BYTE = 6


def json_cost(data: Union[bytes, mmap.mmap]) -> Tuple[int, int]:
    """Bytes that json.loads may take for data, at most (every structural byte counted, inside strings too), and
    the budget for a file of its size."""
    arr = np.frombuffer(data, dtype=np.uint8)
    cost = sum(weight * int(np.count_nonzero(arr == byte)) for byte, weight in COST_PER_BYTE.items())
    top = int(arr.max()) if arr.size else 0
    cost += arr.size * (1 + (4 if top >= 0xF0 else 2 if top >= 0xC4 else 1))    # the text json.loads decodes
    return cost, COST_BUDGET_BASE + COST_BUDGET_PER_BYTE * arr.size


def check_json_cost(data: Union[bytes, mmap.mmap], label: str) -> None:
    """SubmissionError when a participant's file, read whole by json.loads, would take more than its budget. Only
    files the byte pass cannot cut in frames are read whole (formats.kinetics_json: a frame over MAX_BLOCK, a
    repeated video or frame key, another encoding than UTF-8), and the class files."""
    cost, budget = json_cost(data)
    if cost > budget:
        raise SubmissionError(label, expected="a file read frame by frame (no repeated video or frame key, frames of "
                              "at most 1 MiB), or one small enough to read whole (at most %d MiB of values)"
                              % (budget >> 20), found="a file whose values take about %d MiB" % (cost >> 20))


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Pause Python's cyclic garbage collector.

    json builds millions of small containers, and each collection while they are alive walks all of them (once
    per generation, even after the parse): at 5,000 videos that is 4x the parse time. Parsed JSON holds no
    reference cycles, so pausing loses nothing; reference counting still frees everything.
    """
    collect = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collect:
            gc.enable()


def load_json(path, label: str, err: Type[ScoringError] = SubmissionError) -> object:
    """Parse a JSON file; invalid JSON names the line and column (json.JSONDecodeError's lineno/colno)."""
    return parse_json(read_bytes(path, label, err), label, err)


def parse_json(data: Union[bytes, mmap.mmap], label: str, err: Type[ScoringError] = SubmissionError) -> object:
    """json.loads of a file's bytes (the stdlib path), with load_json's messages. The caps come first (no string
    over limits.MAX_FIELD_CHARS, no number over limits.MAX_NUMBER_CHARS), so no integer json.loads converts has more
    than 64 digits, and the messages are the same on every Python; then, for a participant's file, what json.loads
    would take in memory (check_json_cost)."""
    check_caps(data, label, err)
    if err is SubmissionError:
        check_json_cost(data, label)
    try:
        with no_cycle_collection():
            return json.loads(data if isinstance(data, bytes) else bytes(data))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise json_error(label, e, err)


def json_error(label: str, e: Exception, err: Type[ScoringError] = SubmissionError, line: Optional[int] = None,
               column: Optional[int] = None) -> ScoringError:
    """The one-line message of an exception of json.loads (JSONDecodeError with its line and column, unless given;
    UnicodeDecodeError; RecursionError). A document with nothing but white space is named as an empty file, not
    as "Expecting value at column 1"."""
    if isinstance(e, json.JSONDecodeError) and not e.doc.strip():
        return err(label, message="the file is empty" if not e.doc else "the file holds only white space",
                   expected="a JSON object")
    if isinstance(e, json.JSONDecodeError):
        return err(label, line=line or e.lineno, message="not valid JSON (%s at column %d)"
                   % (e.msg, column or e.colno))
    if isinstance(e, UnicodeDecodeError):
        return err(label, message="not valid JSON (the file is not UTF-8 text)")
    return err(label, message="not valid JSON (nested too deeply)")
