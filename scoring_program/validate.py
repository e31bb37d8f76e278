"""Check a submission's file names and syntax without the reference data (before spending a daily submission).

    python -m scoring_program.validate SLUG SUBMISSION(.zip|dir) [--ids FILE] [--track compN]

--ids FILE: a text file with one id per line (first whitespace-separated field), e.g. the public test-image list;
ids in the submission that are not in it are reported. For VOC, a list named as the devkit names them
(ImageSets/Main/test.txt, jumping_test.txt) also names the set: result files of another set are an error, as in
the scorer (Task.listed_set).

--track compN (VOC): the competition ranks that comp's entries only (a `track:` build, whose kit README's validate
commands carry the option): the other comp's result files are the error the scorer gives with the build's hidden
TRACK file. Without it, either comp of the competition is accepted (never both in one submission).

The file rules are the scorer's: a file the scorer would reject is an error (exit 1, one line naming the file, the
line, what was expected and what was found); a file the scorer would not read is a warning ('warning: X will be
ignored: ...'), with a hint when its name is a near miss of a name the scorer looks for (letter case, extension,
a typo). Warnings alone still exit 0. Without --ids, the names the scorer looks for are the competition's fixed
ones (VOC class names, comp numbers, kinetics-tps and action-tubes file names) and its naming patterns (SeqXX,
XX_YYYY_W). A zip that is damaged, encrypted or unsupported is one line too (exit 1). Every line printed is one
line: a file name in it is escaped and shortened as in the scorer's messages (errors.clean).

Exit codes, as score.py's: 0 the submission looks valid; 1 a submission error; 2 a bad command line (a
SUBMISSION or --ids FILE that does not exist); 3 an internal error, or this Python lacks numpy or Pillow.
"""
from __future__ import annotations

import argparse
import copy
import os
import shutil
import sys
import tempfile
from typing import List, Optional

from . import runtime
from .errors import EXIT_INTERNAL, EXIT_OK, CommandError, clean, failure
from .safezip import encodable, materialize
from .tasks import registry


def read_ids(path):
    import numpy as np
    with open(path, "rb") as f:
        ids = [line.split()[0] for line in f if line.strip()]
    return np.array(ids, dtype="S") if ids else np.zeros(0, dtype="S1")


def echoing(submission_class):
    """A formats.files.Submission whose labels (a file's path, as every note and error names it) are escaped and
    shortened (errors.clean: at most ECHO_CHARS characters, no control character; an honest name is unchanged)."""
    class Echoing(submission_class):
        def label(self, path):
            return clean(encodable(submission_class.label(self, path)))
    return Echoing


def one_line(text):
    """A line of ours with the participant's texts in it (already shortened): control characters and what UTF-8
    cannot encode escaped, not cut."""
    return clean(encodable(text), sys.maxsize)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scoring_program.validate", description=__doc__.split("\n\n")[0])
    ap.add_argument("slug", choices=registry.available())
    ap.add_argument("submission")
    ap.add_argument("--ids", help="file listing the ids that will be evaluated (one per line)")
    ap.add_argument("--track", metavar="compN", help="VOC: the one comp this competition ranks (a track build's "
                    "kit README names it); the other comp's files are an error, as in the scorer")
    a = ap.parse_args(argv)
    local = runtime.problem(registry.libraries(a.slug), local=True)
    if local:
        sys.stderr.write(local + "\n")
        return EXIT_INTERNAL
    work = tempfile.mkdtemp(prefix="validate-")
    try:
        return _validate(a.slug, a.submission, a.ids, work, a.track)
    except Exception as e:
        stop = failure(e, "the validator")
        sys.stderr.write(stop.text())
        return stop.code
    finally:
        shutil.rmtree(work, ignore_errors=True)


def track_problem(slug: str, track: str) -> Optional[str]:
    """What is wrong with --track for slug (a competition without comps, or a comp not its own), or None."""
    comps = getattr(registry.get(slug), "comps", None)
    if not comps:
        return "--track: %s has no tracks (--track is for the VOC competitions' comps)" % slug
    if track not in ["comp%d" % c for c in comps]:
        return "--track: expected %s, found %s" % (" or ".join("comp%d" % c for c in comps), clean(track))
    return None


def on_track(task, track: Optional[str]):
    """The task as the scorer runs it with a TRACK file naming track: a copy whose comps are that comp alone
    (every VOC task's validate reads self.comps), or the task itself without a track."""
    if track is None:
        return task
    narrowed = copy.copy(task)
    narrowed.comps = (int(track[4:]),)
    return narrowed


def _validate(slug: str, submission: str, ids_path: str, work: str, track: Optional[str] = None) -> int:
    """Print the notes and the verdict; returns EXIT_OK. Raises CommandError (a SUBMISSION or --ids FILE that does
    not exist or cannot be read), UnsafeZip and ScoringError (the submission's fault, one line each)."""
    from .formats.files import WARNING, Submission

    if track is not None and track_problem(slug, track):
        raise CommandError(track_problem(slug, track))
    for what, path in (("SUBMISSION", submission), ("--ids FILE", ids_path)):
        if path is not None and not os.path.exists(path):
            raise CommandError("%s not found: %s" % (what, path))
    try:
        ids = read_ids(ids_path) if ids_path else None
    except OSError as e:
        raise CommandError("cannot read --ids FILE %s: %s" % (ids_path, clean(e)))
    res = materialize(submission, os.path.join(work, "res"))
    task = on_track(registry.get(slug), track)
    listed = task.listed_set(ids_path) if ids_path else None     # VOC: the set the list names (test.txt)
    notes = task.validate(echoing(Submission)(res), ids, set_name=listed)
    warnings = [n for n in notes if n.startswith(WARNING)]
    for n in [n for n in notes if not n.startswith(WARNING)] + warnings:     # the warnings last, near the verdict
        print(one_line(n))
    print("OK: %s looks like a valid %s submission (names and syntax; scores need the reference data)%s"
          % (one_line(submission), slug, "; %d warning(s) above" % len(warnings) if warnings else ""))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
