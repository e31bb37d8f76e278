"""The command line of every competition's score.py: resolve input/output, run one task, write the outputs,
map errors to exit codes. The only module (with the other entry points) that prints.

    python score.py INPUT OUTPUT     reads INPUT/ref and INPUT/res, writes OUTPUT/scores.txt, scores.json,
                                     detailed_results.html
    python score.py                  on the worker, the same with Codabench's /app/input and /app/output; in a
                                     local run (a starting kit, a checkout), the usage (exit 2)
    python score.py INPUT OUTPUT --private-report PATH
                                     also writes the per-item tables (facts about single test items, for the
                                     organizer only) to PATH, an HTML file outside OUTPUT
    python score.py INPUT OUTPUT --report full|hidden
                                     the report level (default: the reference data's REPORT_LEVEL file, written by
                                     the bundle builder; without it, hidden): hidden shows the participant only the
                                     scores, facts about their own submission and public facts; full (a released
                                     validation set, a local run) shows every diagnostic
    python score.py -h | --help      the usage and the exit codes on stdout (exit 0)

Exit codes: 0 scored; 1 submission error (one line on stderr, no scores); 2 reference-data error (the
organizer's fault: INPUT exists but INPUT/ref does not, or the reference data is broken), or a bad command line or
an INPUT folder that does not exist (named as such, no one's data blamed); 3 internal error (a bug: please report
it with the traceback, which only the full level prints; the hidden level prints one fixed line), or a scoring image whose numpy or Pillow is missing or too old (one line naming it, see
runtime.py).

The worker runs the bundle's scoring program, which has `metadata` (the worker's command) beside scoring_program/;
a starting kit or a checkout has none: that is a local run (runtime.where), where the user owns the interpreter and
the paths. Locally, a missing or old library is a local set-up problem with the line that installs it, and an INPUT
that does not exist or holds no ref/ is the user's path: one line naming it, then the usage line (exit 2 and 3 as
on the worker).

Nothing that imports numpy or Pillow is imported at module level: runtime.problem checks them first.
"""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from typing import NamedTuple, Optional

from . import runtime
from .errors import (EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, ReferenceDataError, ScoringError, SubmissionError, clean,
                     failure, shorten)
from .formats.files import Submission
from .tasks import registry
from .tasks.base import Progress, no_progress, read_private, read_track, read_withheld, reference_word

USAGE = ("usage: python score.py [INPUT OUTPUT [--report full|hidden] [--private-report PATH]]   (INPUT holds ref/ "
         "and res/; with no argument, on the worker: /app/input /app/output; --report: the report level, by default "
         "the reference data's REPORT_LEVEL file, else hidden; PATH: the organizer's report, an HTML file outside "
         "OUTPUT)")
EXIT_CODES = ("exit status: 0 scored; 1 submission error; 2 reference-data error, bad command line or INPUT not "
              "found; 3 internal error or unusable scoring image")


class InputFolderMissing(ScoringError):
    """INPUT itself does not exist: a wrong path on the command line (or a broken worker), exit 2, blaming neither
    the organizer's reference data nor the participant."""
    exit_code = EXIT_USAGE
    prefix = "error"

    def __init__(self, input_dir):
        super().__init__(message="INPUT folder not found: %s" % input_dir)


class PrivateReportInsideOutput(ScoringError):
    """--private-report PATH inside OUTPUT: the participant would see it (exit 2, nothing written)."""
    exit_code = EXIT_USAGE
    prefix = "error"

    def __init__(self, path):
        super().__init__(message="--private-report %s lies inside OUTPUT, which participants can download; give a "
                                 "path outside it" % path)


def inside(path, folder):
    """True when path is folder or lies under it (symbolic links resolved)."""
    path = os.path.realpath(path)
    folder = os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class BadReportLevel(ScoringError):
    """--report with a value other than full or hidden (exit 2)."""
    exit_code = EXIT_USAGE
    prefix = "error"

    def __init__(self, value):
        super().__init__(message="--report takes full or hidden", found=shorten(value))


def report_level(ref_dir):
    """The report level the reference data asks for: its REPORT_LEVEL file (one word, full or hidden), else hidden.
    Anything else in that file is the organizer's fault (exit 2); the message never quotes it."""
    from .report.result import HIDDEN, LEVEL_FILE, LEVELS
    return reference_word(ref_dir, LEVEL_FILE, lambda w: w in LEVELS, "one word, full or hidden") or HIDDEN


def split_private_part(result, rank, part):
    """The ranking score on the public part (the only score the leaderboard gets) and on the private part
    (result.private_scores, written to OUTPUT/private/ only), from the task's decomposition: the metric on the
    items of weight 1 (exact for 0/1 weights, tested for every competition). The other columns are of the whole
    test set, private part included, so they are not written, nor the bars drawn from them."""
    from collections import OrderedDict

    import numpy as np

    d = result.decomposition
    if isinstance(d, str) or d is None:
        raise RuntimeError("no decomposition to split the private part: %s" % d)
    mask = part.mask(d.items)
    if mask.all() or not mask.any():
        raise ReferenceDataError("ref/PRIVATE_PART", public=True, message="the private part holds %s of the "
                                 "test set's items: the public and the private part each need at least one"
                                 % ("all" if mask.all() else "none"))
    public, private = d.score(np.stack([~mask, mask]).astype(np.float64))
    if not (np.isfinite(public) and np.isfinite(private)):
        raise ReferenceDataError("ref/PRIVATE_PART", public=True, message="the %s part has no %s (no positive "
                                 "item of any class?): choose another split" % ("public" if not np.isfinite(public)
                                                                                else "private", rank))
    result.scores = OrderedDict([(rank, float(public))])
    result.private_scores = OrderedDict([(rank, float(private))])
    result.bars = []
    result.notes.insert(0, public_part_note(rank))


def public_part_note(rank):
    """The note of a phase with a private part (its scores are the public part's), the same whether the reference
    holds the private labels (PRIVATE_PART, the organizer's folder) or not (WITHHELD, the bundle's)."""
    from .report.result import Own
    return Own("The leaderboard score is %s on the public part of the test set; the private part is scored apart, "
               "for the organizer, and shown to no one until they reveal it." % rank)


class Prepared(NamedTuple):
    """What cli.run settles before it reads anything of the submission: the task, the folders, the report level
    (the participant's level: forced to hidden by a private part or withheld labels) and the reference's part files."""
    task: object
    ref_dir: str
    res_dir: str
    level: str
    part: object            # tasks.base.PrivatePart or None
    withheld: object        # frozenset of item ids or None


def prepare(slug, input_dir, output_dir, private_report=None, level=None) -> Prepared:
    """The checks of INPUT, OUTPUT and --private-report, and the report level (see run). Raises ScoringError
    subclasses, in the order run always gave them."""
    from .report.result import HIDDEN

    task = registry.get(slug)
    ref_dir = os.path.join(input_dir, "ref")
    res_dir = os.path.join(input_dir, "res")
    if not os.path.isdir(input_dir):
        raise InputFolderMissing(input_dir)
    if not os.path.isdir(ref_dir):
        raise ReferenceDataError("ref", message="the reference data folder INPUT/ref is missing", public=True)
    if not os.path.isdir(res_dir):
        raise SubmissionError("res", message="no submission was found (INPUT/res is missing)")
    if private_report and inside(private_report, output_dir):
        raise PrivateReportInsideOutput(private_report)
    level = level or report_level(ref_dir)
    part = read_private(ref_dir)
    withheld = read_withheld(ref_dir)
    if part is not None or withheld is not None:
        level = HIDDEN          # every diagnostic of the whole test set would tell about its private part
    return Prepared(task, ref_dir, res_dir, level, part, withheld)


def run(slug, input_dir, output_dir, progress=None, private_report=None, decompose=False, level=None,
        prepared=None):
    """Score one submission; returns the Result. Raises ScoringError subclasses for bad input. private_report: a
    path outside output_dir for the organizer's report (what the participant's level withheld, and the per-item
    tables). decompose: also Result.decomposition (the bootstrap's per-item view of the same evaluation; the files
    written are the same). level: the report level (full or hidden); None: the reference data's (report_level).
    prepared: prepare()'s answer for the same arguments, when the caller needed the level first (main)."""
    from .report.html import render, render_private
    from .report.result import FULL, Own
    from .report.write import atomic_write, write_outputs

    task, ref_dir, res_dir, level, part, withheld = prepared or prepare(slug, input_dir, output_dir,
                                                                        private_report, level)
    # the diagnostics are computed only for a report that shows them: the full level, or the organizer's report
    result = task.score(ref_dir, Submission(res_dir), progress or no_progress, private=bool(private_report),
                        decompose=decompose or part is not None,      # the task's pipeline (tasks/base.py)
                        analyses=level == FULL or bool(private_report))
    keys = task.score_keys(ref_dir)     # the reference is cached: read once for both
    if part is not None:
        split_private_part(result, keys[0].key, part)
    elif withheld is not None:    # the bundle's public part: every column is the public items' (Task.restrict)
        result.notes.insert(0, public_part_note(keys[0].key))
    result.level = level
    result.columns = keys
    track = read_track(ref_dir)
    if track is not None:       # a public fact: the competition's own track
        result.notes.insert(0, Own("This entry ranks in the comp%d track: the leaderboard of this competition holds "
                                   "comp%d entries only." % (track, track)))
    if private_report:
        atomic_write(private_report, render_private(result, keys))
    write_outputs(output_dir, result, render(result, keys))
    return result


class WrongInput(ScoringError):
    """A local run's INPUT that exists but holds no ref/ (say the submission folder itself): the user's path, exit
    2, blaming neither the organizer's reference data nor the participant."""
    exit_code = EXIT_USAGE
    prefix = "error"

    def __init__(self, input_dir):
        super().__init__(message="INPUT %s holds no ref/ folder: INPUT is the folder that holds ref/ (the ground "
                                 "truth) and res/ (the submission); in the starting kit, sample_input" % input_dir)


def local_input_problem(input_dir: str) -> Optional[ScoringError]:
    """A local run's INPUT that cannot be one (the user's path, not the organizer's data), else None."""
    if not os.path.isdir(input_dir):
        return InputFolderMissing(input_dir)
    if not os.path.isdir(os.path.join(input_dir, "ref")):
        return WrongInput(input_dir)
    return None


def _option(argv, name):
    """(value, argv without the option) for `name VALUE`; value None when absent; raises IndexError without VALUE."""
    if name not in argv:
        return None, argv
    at = argv.index(name)
    if at + 1 >= len(argv):
        raise IndexError(name)
    return argv[at + 1], argv[:at] + argv[at + 2:]


class Interrupted(BaseException):
    """SIGTERM, SIGINT or SIGHUP while scoring: the run stops, leaves no score file and no temporary file behind."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _interrupted(signum, frame):
    raise Interrupted(signum)


def _catch_signals(handler=None):
    """Stop on SIGTERM, SIGINT and SIGHUP by raising Interrupted (handler None), or give them back their default
    action (handler: signal.SIG_DFL, once the scores are written: nothing is left to clean up)."""
    import signal
    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            try:
                signal.signal(getattr(signal, name), handler if handler is not None else _interrupted)
            except (ValueError, OSError):       # not the main thread: the default actions stay
                pass


def _say(stream, text):
    """Write to stdout or stderr; False when the stream fails (a closed pipe, a full disk, a stream closed before the
    run started, which Python gives as None): the scores already written stand, and the failing stream is pointed at
    /dev/null so that the interpreter's own flush at exit cannot turn the run into a failure."""
    if stream is None:          # `score.py IN OUT >&-`: nothing to say it on
        return False
    try:
        stream.write(text)
        stream.flush()
        return True
    except (OSError, ValueError):
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, stream.fileno())
            os.close(fd)
        except (OSError, ValueError):
            pass
        return False


@contextmanager
def queued_output(output_dir):
    """Runs into one OUTPUT folder one at a time: an exclusive flock on the folder itself (made first if it does not
    exist; nothing is written into it for the lock), held until the run's outcome is written. main queues here
    first of all, before numpy is imported or anything checked (this needs the standard library only), so the run
    that queued last finishes last: the folder holds the outcome of the run that finished last, all of its score
    files or none, and a run never removes files that a run which queued after it wrote. Not POSIX, or a folder
    that cannot be made or opened (a read-only place, a file named OUTPUT): no lock, the run reports the fault where
    it writes."""
    try:
        import fcntl
    except ImportError:
        fcntl = None
    fd = None
    if fcntl is not None:
        try:
            os.makedirs(output_dir, exist_ok=True)
            fd = os.open(output_dir, os.O_RDONLY)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            if fd is not None:
                os.close(fd)
            fd = None
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)


def _hold_standard_descriptors():
    """A descriptor 0, 1 or 2 closed when the run started (`>&-`) is opened on /dev/null: otherwise the next file
    the run opens (a score file) would take that number, and whatever writes to it would write into that file."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                pass


def main(slug, argv=None, show_notes=False):
    """score.py's command. show_notes: also print the notes the report level shows (`note: ...` on stdout), for a
    platform that shows no detailed report (EvalAI: evalai_run).

    What the participant sees does not depend on the ground truth but through the scores: at the hidden level (the
    participant's, see run) no time is printed (neither the run's seconds nor the "time:" line of the phases), no
    progress line at all (the reference's size and the evaluation's pace would show through their count and
    timing), no Python or numpy warning (numpy's floating-point errors are ignored for the whole run; a Python
    warning is dropped), and an internal error is one fixed line without the traceback (a MemoryError's array
    shape counts objects of the test set). The full level (a researcher's run, a released ground truth) keeps the
    progress lines, the times, the traceback, and gives the Python warnings as one line without a source path.

    Runs into one OUTPUT take turns: a run queues for OUTPUT (queued_output) first of all, before
    anything is imported or checked, and holds it until its outcome is written (all the score files, or none): the
    run that queued last finishes last and its outcome stands; a run never removes files that a run which queued
    after it wrote."""
    argv = sys.argv[1:] if argv is None else list(argv)
    _hold_standard_descriptors()
    if "-h" in argv or "--help" in argv:
        _say(sys.stdout, USAGE + "\n" + EXIT_CODES + "\n")
        return EXIT_OK
    try:
        private_report, argv = _option(argv, "--private-report")
        level, argv = _option(argv, "--report")
    except IndexError:
        _say(sys.stderr, USAGE + "\n")
        return EXIT_USAGE
    place = runtime.where()
    if len(argv) == 0 and place.worker:
        input_dir, output_dir = "/app/input", "/app/output"
    elif len(argv) == 2:
        input_dir, output_dir = argv
    else:                       # locally, no argument at all is a request for the usage too
        _say(sys.stderr, USAGE + "\n")
        return EXIT_USAGE
    with queued_output(output_dir):
        return _score(slug, place, input_dir, output_dir, private_report, level, show_notes)


def _score(slug, place, input_dir, output_dir, private_report, level, show_notes):
    """main's run, its turn at OUTPUT (queued_output)."""
    t0 = time.time()
    platform = runtime.problem(registry.libraries(slug), local=not place.worker)
    if platform:
        _say(sys.stderr, platform + "\n")
        return EXIT_INTERNAL
    wrong = None if place.worker else local_input_problem(input_dir)
    if wrong is not None:
        _say(sys.stderr, wrong.render() + "\n" + USAGE + "\n")
        return wrong.exit_code
    import warnings

    import numpy as np

    from .report.result import FULL, HIDDEN, LEVELS
    from .report.write import format_score, remove_stale, remove_temps_of_killed_runs

    shown = level if level in LEVELS else HIDDEN    # the level of what is printed, until the reference settles it
    try:
        _catch_signals()        # inside the try: a signal that lands at once is caught like any other
        if level is not None and level not in LEVELS:
            raise BadReportLevel(level)
        os.makedirs(output_dir, exist_ok=True)
        remove_temps_of_killed_runs(output_dir)
        # no numpy floating-point warning, no Python warning printed: they are caught (see main)
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
            try:
                prepared = prepare(slug, input_dir, output_dir, private_report, level)
                shown = prepared.level
                progress = Progress(sys.stderr) if shown == FULL else no_progress
                result = run(slug, input_dir, output_dir, progress, private_report, prepared=prepared)
            except BaseException:
                remove_stale(output_dir)
                raise
    except Interrupted as e:
        _say(sys.stderr, "interrupted (signal %d): no scores written\n" % e.signum)
        return 128 + e.signum
    except Exception as e:
        stop = failure(e, "the scoring program", detail=shown == FULL, trace=shown == FULL)
        _say(sys.stderr, stop.text())
        return stop.code
    # the scores are written: nothing below can fail the run (a failing stdout or stderr is ignored), and a signal
    # now takes its default action (raised here, Interrupted would end in a traceback)
    import signal
    _catch_signals(signal.SIG_DFL)
    full = result.level == FULL
    # each score at its leaderboard column's precision, as the leaderboard and the report show it
    precision = {c.key: c.precision for c in result.columns}
    row = "  ".join("%s: %s" % (k, "%.*f" % (precision[k], v + 0.0) if k in precision
                                else format_score(round(v, 6))) for k, v in list(result.scores.items())[:6])
    more = len(result.scores) - 6
    lines = ["%s  %s%s" % (slug, row, "  (+%d more)" % more if more > 0 else ""),
             "scores written to %s%s" % (os.path.join(output_dir, "scores.txt"),
                                         " (%.2f s)" % (time.time() - t0) if full else "")]
    if private_report:
        lines.append("the organizer's report (withheld diagnostics, per-item tables) written to %s" % private_report)
    if result.timings and full:
        lines.append("time: %s" % ", ".join("%s %.2f s" % p for p in result.timings))
    _say(sys.stdout, "".join(l + "\n" for l in lines))
    warned = ["warning: %s\n" % w for w in result.shown_warnings()]
    if caught and full:
        warned.append(python_warnings_line(caught))
    _say(sys.stderr, "".join(warned))
    if show_notes:
        _say(sys.stdout, "".join("note: %s\n" % n for n in result.shown_notes()))
    return EXIT_OK


def python_warnings_line(caught) -> str:
    """The full level's one line for the Python warnings a run raised (a bug of ours to report): their count and the
    first one's category and text, never its source path."""
    first = caught[0]
    text = str(first.message).splitlines()[0] if str(first.message) else ""
    return "warning: the scoring program raised %d Python warning(s) (please report it), the first: %s: %s\n" % (
        len(caught), first.category.__name__, clean(text))
