"""Errors with exit codes.

SubmissionError  -> exit 1, the participant's fault: names the file, the line, what was expected, what was found.
ReferenceDataError -> exit 2, the organizer's fault.
Messages never reveal ground truth: callers pass only what the participant submitted (or counts).
"""
from __future__ import annotations

EXIT_OK = 0
EXIT_SUBMISSION = 1
EXIT_REFERENCE = 2
EXIT_INTERNAL = 3


class ScoringError(Exception):
    exit_code = EXIT_INTERNAL
    prefix = "error"

    def __init__(self, file=None, line=None, expected=None, found=None, message=None):
        self.file = None if file is None else str(file)
        self.line = line
        self.expected = expected
        self.found = found
        self.message = message
        super().__init__(self.render())

    def render(self) -> str:
        where = []
        if self.file is not None:
            where.append(self.file)
        if self.line is not None:
            where.append("line %d" % self.line)
        parts = []
        if self.message:
            parts.append(self.message)
        if self.expected is not None:
            parts.append("expected %s" % self.expected)
        if self.found is not None:
            parts.append("found %s" % self.found)
        body = "; ".join(parts) if parts else "invalid"
        head = "%s: " % self.prefix
        if where:
            head += ", ".join(where) + ": "
        return (head + body).replace("\n", " ")


class SubmissionError(ScoringError):
    """The submission is malformed (exit 1). One line, starts with 'submission error:'."""
    exit_code = EXIT_SUBMISSION
    prefix = "submission error"


class ReferenceDataError(ScoringError):
    """The reference data (ground truth) is broken: the organizer's fault (exit 2)."""
    exit_code = EXIT_REFERENCE
    prefix = "reference data error (the organizer's fault, not yours)"


def quote_some(items, limit=5) -> str:
    """'a', 'b', 'c', 'd', 'e' and 12 more -- for unknown ids: the first five and a count of the rest."""
    items = list(items)
    shown = ", ".join(repr(str(x)) for x in items[:limit])
    rest = len(items) - limit
    if rest > 0:
        shown += " and %d more" % rest
    return shown


def shorten(text, limit=60) -> str:
    """A participant's own text, shortened for a one-line message."""
    text = str(text)
    return repr(text if len(text) <= limit else text[:limit] + "...")
