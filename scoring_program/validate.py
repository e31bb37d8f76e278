"""Check a submission's file names and syntax without the reference data (before spending a daily submission).

    python -m scoring_program.validate SLUG SUBMISSION(.zip|dir) [--ids FILE]

--ids FILE: a text file with one id per line (first whitespace-separated field), e.g. the public test-image list;
ids in the submission that are not in it are reported. Exit 0 when the submission looks valid, 1 otherwise.

The file rules are the scorer's: a file the scorer would reject is an error (exit 1, one line naming the file, the
line, what was expected and what was found); a file the scorer would not read is a warning ('warning: X will be
ignored: ...'), with a hint when its name is a near miss of a name the scorer looks for (letter case, extension,
a typo). Warnings alone still exit 0. Without --ids, the names the scorer looks for are the competition's fixed
ones (VOC class names, comp numbers, kinetics-tps and action-tubes file names) and its naming patterns (SeqXX,
XX_YYYY_W).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile

from . import runtime
from .tasks import registry


def read_ids(path):
    import numpy as np
    with open(path, "rb") as f:
        ids = [line.split()[0] for line in f if line.strip()]
    return np.array(ids, dtype="S") if ids else np.zeros(0, dtype="S1")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m scoring_program.validate", description=__doc__.split("\n\n")[0])
    ap.add_argument("slug", choices=registry.available())
    ap.add_argument("submission")
    ap.add_argument("--ids", help="file listing the ids that will be evaluated (one per line)")
    a = ap.parse_args(argv)
    local = runtime.problem(registry.libraries(a.slug), local=True)
    if local:
        sys.stderr.write(local + "\n")
        return 3
    from .errors import ScoringError
    from .formats.files import WARNING, Submission
    from .safezip import UnsafeZip, materialize

    work = tempfile.mkdtemp(prefix="validate-")
    try:
        try:
            res = materialize(a.submission, work + "/res")
            notes = registry.get(a.slug).validate(Submission(res), read_ids(a.ids) if a.ids else None)
        except UnsafeZip as e:
            sys.stderr.write("submission error: %s\n" % e)
            return 1
        except ScoringError as e:
            sys.stderr.write(e.render() + "\n")
            return e.exit_code
        warnings = [n for n in notes if n.startswith(WARNING)]
        for n in [n for n in notes if not n.startswith(WARNING)] + warnings:     # the warnings last, near the verdict
            print(n)
        print("OK: %s looks like a valid %s submission (names and syntax; scores need the reference data)%s"
              % (a.submission, a.slug, "; %d warning(s) above" % len(warnings) if warnings else ""))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
