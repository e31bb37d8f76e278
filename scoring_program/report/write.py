"""Atomic writers for the Codalab/Codabench output folder. Never writes OUTPUT/metadata."""
from __future__ import annotations

import json
import math
import os
import tempfile

import numpy as np

SCORE_FILES = ("scores.txt", "scores.json", "detailed_results.html")


def format_score(value) -> str:
    """Plain decimal float, shortest round-trip digits, never exponent, NaN or inf."""
    v = float(value)
    if not math.isfinite(v):
        raise ValueError("non-finite score %r" % v)
    return np.format_float_positional(v, unique=True, trim="0")


def atomic_write(path, text):
    """Write to a temp file in the same folder, then rename: a crash never leaves a partial file."""
    path = str(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def scores_txt(scores) -> str:
    return "".join("%s: %s\n" % (k, format_score(v)) for k, v in scores.items())


def scores_json(scores) -> str:
    return json.dumps({k: float(format_score(v)) for k, v in scores.items()}, indent=2) + "\n"


def write_outputs(output_dir, result, html_text):
    """scores.txt is written last: it is what the platforms read."""
    os.makedirs(str(output_dir), exist_ok=True)
    txt = scores_txt(result.scores)   # raises before anything is written if a score is not finite
    js = scores_json(result.scores)
    atomic_write(os.path.join(str(output_dir), "detailed_results.html"), html_text)
    atomic_write(os.path.join(str(output_dir), "scores.json"), js)
    atomic_write(os.path.join(str(output_dir), "scores.txt"), txt)


def remove_stale(output_dir):
    """After a failed run, make sure no earlier scores survive in the output folder."""
    for name in SCORE_FILES:
        p = os.path.join(str(output_dir), name)
        if os.path.isfile(p):
            os.unlink(p)
