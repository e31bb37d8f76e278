"""Is the scoring image able to run us? Checked before anything imports numpy or Pillow.

A library that is missing, broken or older than the oldest supported stack (codalab/codalab-legacy:py37:
numpy 1.17.2, Pillow 6.1.0) is the platform's image, not the participant's submission nor the organizer's data:
the CLI prints one line naming the package, the version found and the image to use, and exits 3.
When the scorer runs on the user's own machine (a starting kit, a checkout), the same fault is a local set-up
problem instead, with the line that installs what is missing (where()).
This module imports only the standard library.
"""
from __future__ import annotations

import importlib
import os
import re
import sys
from typing import NamedTuple

OLDEST = {"numpy": (1, 17, 2), "PIL": (6, 1, 0)}
PACKAGE_NAMES = {"numpy": "numpy", "PIL": "Pillow"}
DEFAULT_IMAGE = "codalab/codalab-legacy:py37"
PROGRAM_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # the folder holding scoring_program/


class Where(NamedTuple):
    """Where the scoring program runs, told from the files beside the package (never from the environment)."""
    worker: bool        # `metadata` (the worker's command) or metadata.yaml beside scoring_program/: the program
                        # as the platform unpacks it from scoring_program.zip; a starting kit and a checkout have none
    setup: str          # for a local run: the command that installs the libraries, for a set-up problem's line


def where(root: str = PROGRAM_ROOT) -> Where:
    """The worker (the bundle's scoring program: `metadata` beside the package) or a local run: a starting kit (its
    requirements.txt beside the package) or the project's checkout (its Makefile)."""
    if any(os.path.isfile(os.path.join(root, name)) for name in ("metadata", "metadata.yaml")):
        return Where(True, "")     # Codabench also reads a metadata.yaml that an organizer may write
    requirements = os.path.join(root, "requirements.txt")
    if os.path.isfile(os.path.join(root, "Makefile")):
        setup = "run `make venv` in the project (%s) and use .venv/bin/python" % root
    elif os.path.isfile(requirements):
        setup = "run `pip install -r %s` (in a virtual environment: python3 -m venv venv; . venv/bin/activate)" \
                % requirements
    else:
        setup = "run `pip install numpy Pillow` (in a virtual environment: python3 -m venv venv; . venv/bin/activate)"
    return Where(False, setup)


def parse_version(text):
    """'1.17.2' -> (1, 17, 2); '2.0.0rc1' -> (2, 0, 0); '1.17' -> (1, 17, 0). None if it starts with no number."""
    parts = []
    for piece in str(text).split("+")[0].split("."):
        m = re.match(r"\d+", piece)
        if not m:
            break
        parts.append(int(m.group(0)))
        if m.group(0) != piece:        # '0rc1': a pre-release of this number; nothing after it counts
            break
    return tuple((parts + [0, 0, 0])[:3]) if parts else None


def _version_of(module):
    return getattr(module, "__version__", None) or getattr(module, "PILLOW_VERSION", None)


def problem(module_names=("numpy",), importer=importlib.import_module, local=False):
    """None when every module imports and is recent enough; else the one line to print.

    local: the line for a command run on the user's own machine (validate, dryrun, a kit's score.py), where the
    interpreter is theirs to set up, not the platform's image: it ends with where().setup."""
    for name in module_names:
        package = PACKAGE_NAMES.get(name, name)
        oldest = ".".join(str(v) for v in OLDEST[name])
        try:
            module = importer(name)
        except Exception as e:          # any failure to import a library is the image's, whatever it raises
            found = "cannot be imported (%s: %s)" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            return _line(package, found, oldest, local)
        version = _version_of(module)
        parsed = parse_version(version) if version else None
        if parsed is None:
            return _line(package, "has an unreadable version %r" % (version,), oldest, local)
        if parsed < OLDEST[name]:
            return _line(package, "is version %s, older than %s" % (version, oldest), oldest, local)
    return None


def _line(package, found, oldest, local=False):
    if local:
        return ("local set-up problem (nothing to do with the submission): this Python's (%s) %s %s; the scoring "
                "program needs %s >= %s: %s" % (sys.executable, package, found, package, oldest, where().setup))
    return ("platform error (not your fault, nor the organizer's data): the scoring image's %s %s; the scoring "
            "program needs %s >= %s: use the image %s or newer (see docker/README.md)"
            % (package, found, package, oldest, DEFAULT_IMAGE))
