"""ChaLearn LAP 2014 Track 2 CSV files: SeqXX_labels.csv, SeqXX_data.csv, SeqXX_prediction.csv.

Rows are comma-separated integers, one action instance per line, in one of two layouts:
    3 columns  ActionID,StartFrame,EndFrame             (the 2014 starting kit)
    4 columns  ActorID,ActionID,StartFrame,EndFrame     (the later kit, as the seed's submission text)
Every row of a file has the same layout. Blank lines are errors (the original's csv reader crashed on them).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, shorten
from .text import SMALL_ROWS, Records, has_content, header_row, line_text, number_error
from .text import numbers_at_once, parse_table, read_bytes, read_mapped, separator_hint

_WORD_START = re.compile(rb"[A-Za-z_]")
ACTIONS = ("Wave", "Point", "Clap", "Crouch", "Jump", "Walk", "Run", "ShakeHands", "Hug", "Kiss", "Fight")


@dataclass
class Intervals:
    """Parsed action rows, in file order (N,): actor int8 (None for 3 columns), action int8 (1..11), start and
    end int32 (frames, 1-based, saturated at FRAME_MAX; int64 in an empty file), lines int (the 1-based line of
    each row); ncols: 3 or 4; file: its label."""
    ncols: int
    actor: Optional[np.ndarray]
    action: np.ndarray
    start: np.ndarray
    end: np.ndarray
    lines: np.ndarray
    file: str

    def __len__(self):
        return int(self.lines.size)


FRAME_MAX = int(np.iinfo(np.int32).max)     # frames are kept as int32, larger ones saturated (clipped later anyway)
# the compact type of each column: actor and action ids as int8, frames as int32; each saturates at its type's
# bounds, which keeps every rule's verdict (1..2, 1..11, >= 1) and every clipped interval (to a sequence's length)
_COMPACT = {"actor id": np.int8, "action id": np.int8, "start frame": np.int32, "end frame": np.int32}


def _compact(values: np.ndarray, name: str) -> np.ndarray:
    """values (int64, overwritten) saturated into the compact type of the column `name`."""
    info = np.iinfo(_COMPACT[name])
    np.maximum(values, info.min, out=values)
    np.minimum(values, info.max, out=values)
    return values.astype(_COMPACT[name])


# the rule table, one rule per column: (the column's name, what a value must be, what the message says was expected)
RULES = (("actor id", lambda v: (v == 1) | (v == 2), "an actor id 1 or 2"),
         ("action id", lambda v: (v >= 1) & (v <= len(ACTIONS)), "an action id 1..%d" % len(ACTIONS)),
         ("start frame", lambda v: v >= 1, "a start frame >= 1 (frames are 1-based)"),
         # the original's slice [start-1:end-1] would wrap around for end 0 (frames up to the last but one)
         ("end frame", lambda v: v >= 1, "an end frame >= 1 (frames are 1-based)"))


def _columns(rec: Records, n: int, file: str, err) -> list:
    """The columns of the n-column layout as compact arrays (_COMPACT), read one at a time: a column's int64
    numbers are held only while it is checked and converted, and the positions of its fields are then dropped
    (memory: 10 bytes a row are kept of the 30 a row the fields and their numbers take).

    Errors as the checks of the whole table would give them: the first field that is no integer, in file order;
    then the first row that breaks a rule, explained by the first rule it breaks (actor, action, start, end). Each
    rule's first failing row is found while its column is at hand, with the value as written there."""
    rules = RULES[4 - n:]
    small = numbers_at_once(rec.table(), integer=True) if len(rec) <= SMALL_ROWS else None
    out, bad_number, broken = [], None, []
    for k, (name, ok, expected) in enumerate(rules):
        if small is not None:
            values = small.values[:, k]
        else:
            column = rec.numbers(k, integer=True)
            if column.bad >= 0:
                if bad_number is None or column.bad < bad_number[0]:
                    bad_number = (column.bad, k, column)
                continue
            values = column.values
            del column
        wrong = np.flatnonzero(~ok(values))
        broken.append((int(wrong[0]), str(int(values[wrong[0]])), expected) if wrong.size else None)
        out.append(_compact(values, name))
        del values
        if small is None:
            rec.drop(k)         # a column read: the positions of its fields are not needed again
    if bad_number is not None:
        i, k, column = bad_number
        raise number_error(rec, k, rules[k][0], column, err, integer=True)
    first = [b for b in broken if b is not None]
    if first:
        i = min(b[0] for b in first)
        _, found, expected = next(b for b in first if b[0] == i)
        raise err(file, int(rec.lines[i]), expected=expected, found=found)
    return out


def parse_intervals(data: bytes, file: str, err=SubmissionError) -> Intervals:
    """Rows of 3 or 4 comma-separated integers; action ids 1..11, actor ids 1..2, start and end frames >= 1.

    An end frame <= start frame is accepted and marks nothing (as the original's numpy slice). The columns are kept
    compact (_COMPACT): 10 bytes a row, whatever the file's length.
    """
    head_end = data.find(b"\n")
    head_end = len(data) if head_end < 0 else head_end
    nsep = data.count(b",", 0, head_end)
    layouts = "ActionID,StartFrame,EndFrame or ActorID,ActionID,StartFrame,EndFrame"
    if has_content(data, 0, head_end):
        if _WORD_START.search(data, 0, head_end):      # a header row's words start with a letter (header_row)
            first = line_text(data, 0)
            second = line_text(data, head_end + 1) if head_end + 1 < len(data) else ""
            if header_row(first) and second and not header_row(second):     # words above rows of numbers
                raise err(file, 1, expected="no header row: every line is a prediction, %s" % layouts,
                          found="a header row: %s" % shorten(first))
        if nsep + 1 not in (3, 4):
            first = line_text(data, 0)
            raise err(file, 1, expected="3 or 4 comma-separated fields (%s)" % layouts,
                      found="%d%s: %s" % (nsep + 1, separator_hint(first, b",") if nsep == 0 else "", shorten(first)))
    rec = parse_table(data, file, (3, 4), err, allow_blank=False, sep=b",", what="comma-separated fields")
    n = rec.ncols
    if len(rec) == 0:
        z = np.zeros(0, dtype=np.int64)
        return Intervals(n, z if n == 4 else None, z, z, z, rec.lines, file)
    vals = _columns(rec, n, file, err)
    actor = vals[0] if n == 4 else None
    action, start, end = vals[-3], vals[-2], vals[-1]
    return Intervals(n, actor, action, start, end, rec.lines, file)


def read_intervals(path, file: str, err=SubmissionError) -> Intervals:
    """A file's Intervals, its bytes mapped rather than copied (formats.text.read_mapped: a large prediction file is
    not held twice)."""
    return parse_intervals(read_mapped(path, file, err), file, err)


def read_frame_count(path, file: str) -> int:
    """SeqXX_data.csv: the number of frames is the first column of the LAST non-blank row (as the original)."""
    raw = read_bytes(path, file, ReferenceDataError)
    data = raw.rstrip()
    if not data:
        raise ReferenceDataError(file, expected="a row whose first column is the number of frames",
                                 found="an empty file")
    last = data[data.rfind(b"\n") + 1:]
    first = last.split(b",", 1)[0].strip()
    number = numbers_at_once(np.array([first]), integer=True)      # the number engine (None: not a number)
    n = -1 if number is None else int(number.values[0])
    if n < 0:
        raise ReferenceDataError(file, raw.rstrip(b"\n").count(b"\n") + 1,
                                 expected="a number of frames (a non-negative integer) in the first column",
                                 found=shorten(first.decode("utf-8", "replace")))
    return n
