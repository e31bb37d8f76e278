"""Errors with exit codes, and the one mapping from an exception to a command's exit code and stderr text.

SubmissionError  -> exit 1, the participant's fault: names the file, the line, what was expected, what was found.
ReferenceDataError -> exit 2, the organizer's fault.
CommandError -> a command (validate, dryrun, rescore, bundle) that cannot go on as asked: one line, its exit code.
Anything else is a bug of ours: exit 3 with the traceback (failure() says which, for every command alike), or
at the scorer's hidden level one fixed line without it.
Messages never reveal ground truth: callers pass only what the participant submitted (or counts). A
ReferenceDataError shown to a participant (render) names the file and the line only, never the reference's content;
detail() has everything, for the organizer's tools and for runs at the full report level.

Every text in a message is escaped and shortened (clean): no newline or other control character, at most
ECHO_CHARS characters of any one participant text, so a crafted name can neither flood a log nor forge a line.
"""
from __future__ import annotations

import re
import traceback
from typing import NamedTuple

ECHO_CHARS = 200        # participant text quoted in a message: characters at most (formats.limits re-exports it)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")   # and lone surrogates (non-UTF-8 names)

EXIT_OK = 0
EXIT_SUBMISSION = 1
EXIT_REFERENCE = 2
EXIT_INTERNAL = 3
EXIT_USAGE = EXIT_REFERENCE         # a command that cannot run as asked (a bad command line, an input that does not
                                    # exist): 2, as score.py's bad command line always was


class ScoringError(Exception):
    exit_code = EXIT_INTERNAL
    prefix = "error"

    def __init__(self, file=None, line=None, expected=None, found=None, message=None):
        self.file = None if file is None else str(file)
        self.line = line
        self.expected = expected
        self.found = found
        self.message = message
        super().__init__(self.detail())

    def render(self) -> str:
        """The one line printed for this error (what the participant sees)."""
        return self.detail()

    def detail(self) -> str:
        """The one line with every detail."""
        parts = []
        if self.message:
            parts.append(clean(self.message, 3 * ECHO_CHARS))
        if self.expected is not None:
            parts.append("expected %s" % clean(self.expected, 3 * ECHO_CHARS))
        if self.found is not None:
            parts.append("found %s" % clean(self.found))
        return self._head() + ("; ".join(parts) if parts else "invalid")

    def _head(self):
        where = []
        if self.file is not None:
            where.append(clean(self.file))
        if self.line is not None:
            where.append("line %d" % self.line)
        return "%s: " % self.prefix + (", ".join(where) + ": " if where else "")


class SubmissionError(ScoringError):
    """The submission is malformed (exit 1). One line, starts with 'submission error:'."""
    exit_code = EXIT_SUBMISSION
    prefix = "submission error"


class ReferenceDataError(ScoringError):
    """The reference data (ground truth) is broken: the organizer's fault (exit 2)."""
    exit_code = EXIT_REFERENCE
    prefix = "reference data error (the organizer's fault, not yours)"

    def __init__(self, file=None, line=None, expected=None, found=None, message=None, public=False):
        self.public = public        # True: the message is our own fixed text (a folder is missing), never content
        super().__init__(file, line, expected, found, message)

    def render(self) -> str:
        """File and line only: the reference's content (a label, an id, a value) is the hidden test set."""
        if self.public:
            return self.detail()
        return self._head() + ("the reference data does not follow the competition's format; the organizer sees "
                               "what is wrong by building the bundle from it (python -m scoring_program.bundle SLUG "
                               "--reference-data DIR) or by scoring with --report full")


class CommandError(Exception):
    """A command cannot go on as asked, for a reason it states in one line, '<prefix>: <message>', with no
    traceback; by default a bad command line or a missing input (exit 2). Subclasses name other faults (safezip's
    UnsafeZip: the submission's zip, exit 1)."""
    exit_code = EXIT_USAGE
    prefix = "error"


class Failure(NamedTuple):
    """What a command reports for the exception it stops on."""
    code: int       # the exit code
    line: str       # the one line naming the fault (no newline); for a bug, the line announcing the traceback
    trace: str      # a bug's traceback (ends with a newline), for the report; "" for a fault of the input

    def text(self) -> str:
        """The stderr text: the line, then a bug's traceback."""
        return self.line + "\n" + self.trace


HIDDEN_BUG = ("internal error in %s (not %s fault); the details are withheld, as they could tell about the hidden "
              "test set: the organizer sees them by scoring this submission with --report full")


def failure(error: Exception, program: str, detail: bool = False, whose: str = "your", trace: bool = True) -> Failure:
    """The one mapping of the commands (score.py, validate, dryrun, rescore, bundle) from the exception they stop on
    to their exit code and stderr text:

        ScoringError      its exit_code; its render() (what a participant may see), or with detail its detail()
                          (the organizer's own tools, the full report level)
        CommandError      its exit_code; '<prefix>: <message>'
        anything else     a bug of ours: EXIT_INTERNAL, 'internal error in <program> (not <whose> fault); please
                          report this:' and the traceback

    program: what failed, as the bug's line names it ("the scoring program", "the validator", ...). trace=False (the
    scorer at the hidden level): a bug is one fixed line (HIDDEN_BUG), without the traceback or the exception's
    text: a MemoryError's "Unable to allocate 1.2 GiB for an array with shape (...)" counts objects of the test set,
    and where the program stopped tells what the ground truth holds."""
    if isinstance(error, ScoringError):
        return Failure(error.exit_code, error.detail() if detail else error.render(), "")
    if isinstance(error, CommandError):
        return Failure(error.exit_code, "%s: %s" % (error.prefix, error), "")
    if not trace:
        return Failure(EXIT_INTERNAL, HIDDEN_BUG % (program, whose), "")
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return Failure(EXIT_INTERNAL, "internal error in %s (not %s fault); please report this:" % (program, whose), trace)


def quote_some(items, limit=5) -> str:
    """'a', 'b', 'c', 'd', 'e' and 12 more -- for unknown ids: the first five and a count of the rest."""
    items = list(items)
    shown = ", ".join(repr(str(x)) for x in items[:limit])
    rest = len(items) - limit
    if rest > 0:
        shown += " and %d more" % rest
    return shown


def clean(text, limit=ECHO_CHARS) -> str:
    """Text for a one-line message: control characters (newlines, carriage returns, escapes, the Unicode line
    separators) escaped, at most `limit` characters (then '...')."""
    text = _CONTROL.sub(lambda m: repr(m.group(0))[1:-1], str(text))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def shorten(text, limit=60) -> str:
    """A participant's own text, quoted, escaped and shortened for a one-line message (at most ECHO_CHARS)."""
    text = str(text)
    limit = min(limit, ECHO_CHARS)
    return repr(text if len(text) <= limit else text[:limit] + "...")
