"""One scoring run for EvalAI's worker, in a child process of its own (the adapter, evalai_adapter.py, starts it).

    python -m scoring_program.evalai_run SLUG ANNOTATION PART SUBMISSION WORK

ANNOTATION is the phase's annotation file as EvalAI stores it: a zip holding public.zip (the reference data the
Codabench bundle holds for that phase: for a phase with a private part, its public part with WITHHELD) and, once
the host has uploaded the whole annotation through EvalAI's API, whole.zip (the whole test reference with
PRIVATE_PART). PART names the one to score against. SUBMISSION is the participant's upload as the worker saved it.
WORK is a new folder: WORK/input/ref and WORK/input/res are unpacked there (safezip: the limits and the one-line
refusals of the dry run), then score.py's own main runs on WORK/input and WORK/output, so its exit code, stdout and
stderr are the scorer's, plus the notes the report level shows (EvalAI has no detailed report), one `note:` line
each on stdout. An upload that cannot be unpacked is one line on stderr and exit 1, as a submission error.

Everything here runs in the child: the worker's interpreter never imports this package, and the memory of a run
goes back to the system when the child exits.
"""
from __future__ import annotations

import os
import shutil
import sys
import zipfile

from .errors import EXIT_INTERNAL, EXIT_SUBMISSION, clean
from .safezip import UnsafeZip, materialize, safe_extract

PARTS = ("public", "whole")


def unpack_annotation(annotation: str, part: str, dest: str) -> None:
    """The annotation's PART.zip unpacked into dest (the host's file: a problem is the host's, exit 3)."""
    inner = dest.rstrip(os.sep) + ".zip"
    os.makedirs(os.path.dirname(inner), exist_ok=True)
    with zipfile.ZipFile(annotation) as outer, outer.open(part + ".zip") as src, open(inner, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
    try:
        safe_extract(inner, dest, label="the annotation's %s.zip" % part)
    finally:
        os.unlink(inner)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if len(argv) != 5 or argv[2] not in PARTS:
        sys.stderr.write("usage: python -m scoring_program.evalai_run SLUG ANNOTATION public|whole SUBMISSION WORK\n")
        return EXIT_INTERNAL
    slug, annotation, part, submission, work = argv
    inp, out = os.path.join(work, "input"), os.path.join(work, "output")
    try:
        unpack_annotation(annotation, part, os.path.join(inp, "ref"))
    except (OSError, KeyError, zipfile.BadZipFile, UnsafeZip) as e:
        sys.stderr.write("the phase's annotation file cannot be read (the host's set-up, not the submission): %s\n"
                         % clean(e))
        return EXIT_INTERNAL
    try:
        materialize(submission, os.path.join(inp, "res"), label=os.path.basename(submission))
    except UnsafeZip as e:
        sys.stderr.write("submission error: %s\n" % e)
        return EXIT_SUBMISSION
    os.makedirs(out, exist_ok=True)
    from .cli import main as score
    return score(slug, [inp, out], show_notes=True)     # EvalAI shows no report: its notes go to stdout


if __name__ == "__main__":
    sys.exit(main())
