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
from .text import SMALL_ROWS, Records, Rule, check_rules, has_content, header_row, line_text, number_error
from .text import numbers_at_once, parse_table, read_bytes, separator_hint

_WORD_START = re.compile(rb"[A-Za-z_]")
ACTIONS = ("Wave", "Point", "Clap", "Crouch", "Jump", "Walk", "Run", "ShakeHands", "Hug", "Kiss", "Fight")


@dataclass
class Intervals:
    """Parsed action rows, in file order (N,): actor int64 (None for 3 columns), action int64 (1..11), start and
    end int64 (frames, 1-based), lines int (the 1-based line of each row); ncols: 3 or 4; file: its label."""
    ncols: int
    actor: Optional[np.ndarray]
    action: np.ndarray
    start: np.ndarray
    end: np.ndarray
    lines: np.ndarray
    file: str

    def __len__(self):
        return int(self.lines.size)


def _to_ints(rec: Records, names: tuple, err) -> np.ndarray:
    """All columns as one (ncols, nrows) int64 array; on failure, the first bad field in file order."""
    if len(rec) <= SMALL_ROWS:
        quick = numbers_at_once(rec.table(), integer=True)      # a few rows (every file of the competition)
        if quick is not None:
            return np.ascontiguousarray(quick.values.T)
    columns = [rec.numbers(k, integer=True) for k in range(len(names))]
    bad = [(c.bad, k) for k, c in enumerate(columns) if c.bad >= 0]
    if bad:
        i, k = min(bad)
        raise number_error(rec, k, names[k], columns[k], err, integer=True)
    return np.stack([c.values for c in columns])


def parse_intervals(data: bytes, file: str, err=SubmissionError) -> Intervals:
    """Rows of 3 or 4 comma-separated integers; action ids 1..11, actor ids 1..2, start and end frames >= 1.

    An end frame <= start frame is accepted and marks nothing (as the original's numpy slice).
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
    names = (("actor id",) if n == 4 else ()) + ("action id", "start frame", "end frame")
    vals = _to_ints(rec, names, err)
    actor = vals[0] if n == 4 else None
    action, start, end = vals[-3], vals[-2], vals[-1]
    # the rule table: one combined check, the first bad row explained by the first rule it breaks
    rules = [Rule((action >= 1) & (action <= len(ACTIONS)), "an action id 1..%d" % len(ACTIONS),
                  lambda i: str(int(action[i]))),
             Rule(start >= 1, "a start frame >= 1 (frames are 1-based)", lambda i: str(int(start[i]))),
             # the original's slice [start-1:end-1] would wrap around for end 0 (frames up to the last but one)
             Rule(end >= 1, "an end frame >= 1 (frames are 1-based)", lambda i: str(int(end[i])))]
    if actor is not None:
        rules.insert(0, Rule((actor == 1) | (actor == 2), "an actor id 1 or 2", lambda i: str(int(actor[i]))))
    check_rules(rules, rec.lines, file, err)
    return Intervals(n, actor, action, start, end, rec.lines, file)


def read_intervals(path, file: str, err=SubmissionError) -> Intervals:
    return parse_intervals(read_bytes(path, file, err), file, err)


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
