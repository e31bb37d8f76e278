"""The command line of every competition's score.py: resolve input/output, run one task, write the outputs,
map errors to exit codes. The only module (with the other entry points) that prints.

    python score.py INPUT OUTPUT     reads INPUT/ref and INPUT/res, writes OUTPUT/scores.txt, scores.json,
                                     detailed_results.html
    python score.py                  the same with Codabench's /app/input and /app/output
    python score.py INPUT OUTPUT --private-report PATH
                                     also writes the per-item tables (facts about single test items, for the
                                     organizer only) to PATH, an HTML file outside OUTPUT
    python score.py -h | --help      the usage and the exit codes on stdout (exit 0)

Exit codes: 0 scored; 1 submission error (one line on stderr, no scores); 2 reference-data error (the
organizer's fault: INPUT exists but INPUT/ref does not, or the reference data is broken), or a bad command line or
an INPUT folder that does not exist (named as such, no one's data blamed); 3 internal error (a bug: please report
it with the traceback), or a scoring image whose numpy or Pillow is missing or too old (one line naming it, see
runtime.py).

Nothing that imports numpy or Pillow is imported at module level: runtime.problem checks them first.
"""
from __future__ import annotations

import os
import sys
import time
import traceback

from . import runtime
from .errors import EXIT_INTERNAL, EXIT_OK, EXIT_REFERENCE, ReferenceDataError, ScoringError, SubmissionError
from .formats.files import Submission
from .tasks import registry

EXIT_USAGE = EXIT_REFERENCE         # a bad command line or a missing INPUT folder: 2, as the usage error always was

USAGE = ("usage: python score.py [INPUT OUTPUT [--private-report PATH]]   (INPUT holds ref/ and res/; default "
         "/app/input /app/output; PATH: the organizer's per-item tables, an HTML file outside OUTPUT)")
EXIT_CODES = ("exit status: 0 scored; 1 submission error; 2 reference-data error, bad command line or INPUT not "
              "found; 3 internal error or unusable scoring image")


class InputFolderMissing(ScoringError):
    """INPUT itself does not exist: a wrong path on the command line (or a broken worker), exit 2, blaming neither
    the organizer's reference data nor the participant."""
    exit_code = EXIT_USAGE
    prefix = "error"

    def __init__(self, input_dir):
        super().__init__(message="INPUT folder not found: %s" % input_dir)


class Progress(object):
    """A line on stderr every few seconds (Codalab shows stderr to the participant)."""

    def __init__(self, stream, every=3.0):
        self.stream = stream
        self.every = every
        self.start = time.time()
        self.last = self.start

    def __call__(self, done, total, what=""):
        now = time.time()
        if now - self.last >= self.every:
            self.last = now
            self.stream.write("progress: %d/%d %s (%.0f s)\n" % (done, total, what, now - self.start))
            self.stream.flush()


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


def run(slug, input_dir, output_dir, progress=None, private_report=None, decompose=False):
    """Score one submission; returns the Result. Raises ScoringError subclasses for bad input. private_report: a
    path outside output_dir for the organizer's per-item tables. decompose: also Result.decomposition (the
    bootstrap's per-item view of the same evaluation; the files written are the same)."""
    from .report.html import render, render_private
    from .report.write import atomic_write, write_outputs

    task = registry.get(slug)
    ref_dir = os.path.join(input_dir, "ref")
    res_dir = os.path.join(input_dir, "res")
    if not os.path.isdir(input_dir):
        raise InputFolderMissing(input_dir)
    if not os.path.isdir(ref_dir):
        raise ReferenceDataError("ref", message="the reference data folder INPUT/ref is missing")
    if not os.path.isdir(res_dir):
        raise SubmissionError("res", message="no submission was found (INPUT/res is missing)")
    if private_report and inside(private_report, output_dir):
        raise PrivateReportInsideOutput(private_report)
    result = task.score(ref_dir, Submission(res_dir), progress or (lambda *a: None), private=bool(private_report),
                        decompose=decompose)
    keys = task.score_keys(ref_dir)
    columns = [k.key for k in keys]
    extra = [k for k in result.scores if k not in columns]
    if extra:
        raise RuntimeError("task wrote score keys that are not leaderboard columns: %s" % extra)
    ordered = [(k, result.scores[k]) for k in columns if k in result.scores]
    result.scores.clear()
    result.scores.update(ordered)
    write_outputs(output_dir, result, render(result, keys))
    if private_report:
        atomic_write(private_report, render_private(result))
    return result


def main(slug, argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if "-h" in argv or "--help" in argv:
        sys.stdout.write(USAGE + "\n" + EXIT_CODES + "\n")
        return EXIT_OK
    private_report = None
    if "--private-report" in argv:
        at = argv.index("--private-report")
        if at + 1 >= len(argv):
            sys.stderr.write(USAGE + "\n")
            return EXIT_USAGE
        private_report = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    if len(argv) == 0:
        input_dir, output_dir = "/app/input", "/app/output"
    elif len(argv) == 2:
        input_dir, output_dir = argv
    else:
        sys.stderr.write(USAGE + "\n")
        return EXIT_USAGE
    t0 = time.time()
    platform = runtime.problem(registry.libraries(slug))
    if platform:
        sys.stderr.write(platform + "\n")
        return EXIT_INTERNAL
    from .report.write import format_score, remove_stale

    try:
        os.makedirs(output_dir, exist_ok=True)
        result = run(slug, input_dir, output_dir, Progress(sys.stderr), private_report)
    except ScoringError as e:
        sys.stderr.write(e.render() + "\n")
        remove_stale(output_dir)
        return e.exit_code
    except Exception:
        sys.stderr.write("internal error in the scoring program (not your fault); please report this:\n")
        traceback.print_exc()
        remove_stale(output_dir)
        return EXIT_INTERNAL
    row = "  ".join("%s: %s" % (k, format_score(round(v, 6))) for k, v in list(result.scores.items())[:6])
    more = len(result.scores) - 6
    sys.stdout.write("%s  %s%s\n" % (slug, row, "  (+%d more)" % more if more > 0 else ""))
    sys.stdout.write("scores written to %s (%.2f s)\n" % (os.path.join(output_dir, "scores.txt"), time.time() - t0))
    if private_report:
        sys.stdout.write("per-item tables (organizer only) written to %s\n" % private_report)
    if result.timings:
        sys.stdout.write("time: %s\n" % ", ".join("%s %.2f s" % p for p in result.timings))
    for w in result.warnings:
        sys.stderr.write("warning: %s\n" % w)
    return EXIT_OK
