"""Atomic writers for the Codalab/Codabench output folder. Never writes OUTPUT/metadata. (Runs into one OUTPUT take
turns: cli.queued_output, which needs the standard library only.)"""
from __future__ import annotations

import json
import math
import os
import signal
import tempfile
from contextlib import contextmanager

import numpy as np

SCORE_FILES = ("scores.txt", "scores.json", "detailed_results.html")
PRIVATE_DIR = "private"         # OUTPUT/private/: the private part's scores (legacy Codalab: the creator-only zip)
PRIVATE_FILES = (PRIVATE_DIR + "/scores.json", PRIVATE_DIR + "/scores.txt")


def format_score(value) -> str:
    """Plain decimal float, shortest round-trip digits, never exponent, NaN or inf."""
    v = float(value)
    if not math.isfinite(v):
        raise ValueError("non-finite score %r" % v)
    return np.format_float_positional(v, unique=True, trim="0")


def atomic_write(path, text):
    """Write to a temp file in the same folder, then rename: a crash never leaves a partial file."""
    atomic_write_all([(str(path), text)])


def scores_txt(scores) -> str:
    return "".join("%s: %s\n" % (k, format_score(v)) for k, v in scores.items())


def scores_json(scores) -> str:
    return json.dumps({k: float(format_score(v)) for k, v in scores.items()}, indent=2) + "\n"


def _temp_for(path):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    return fd, tmp


_STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, n))


@contextmanager
def signals_deferred():
    """SIGTERM, SIGINT and SIGHUP wait until the block ends (a handler then runs as usual): the renames that
    publish the score files happen all together or not at all. Only SIGKILL can still cut them, a window of three
    rename calls; the next run into the same folder removes what such a kill left (remove_stale)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    old = mask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)


def atomic_write_all(files):
    """[(path, text)], all written or none: each to a temporary file beside it, then renamed into place in order
    with the stop signals deferred. A failure or a signal before the renames removes every temporary file."""
    temps = []
    try:
        for path, text in files:
            fd, tmp = _temp_for(path)
            temps.append(tmp)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
        with signals_deferred():
            for (path, _text), tmp in zip(files, temps):
                os.replace(tmp, path)
    except BaseException:
        for tmp in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise


def write_outputs(output_dir, result, html_text):
    """All three score files or none: each is written to a temporary file in OUTPUT first, then the three are
    renamed into place with the stop signals deferred, scores.txt last (it is what the platforms read)."""
    os.makedirs(str(output_dir), exist_ok=True)
    texts = [("detailed_results.html", html_text), ("scores.json", scores_json(result.scores)),
             ("scores.txt", scores_txt(result.scores))]    # raises before anything is written if a score is not finite
    private = result.private_scores
    if private:
        os.makedirs(os.path.join(str(output_dir), PRIVATE_DIR), exist_ok=True)
        texts = list(zip(PRIVATE_FILES, (scores_json(private), scores_txt(private)))) + texts
    atomic_write_all([(os.path.join(str(output_dir), name), text) for name, text in texts])


def remove_temps(output_dir):
    """The temporary files (.scores.txt.XXXX.tmp, ...) a run killed by SIGKILL left in OUTPUT."""
    try:
        names = os.listdir(str(output_dir))
    except OSError:
        return
    for name in names:
        if name.endswith(".tmp") and any(name.startswith("." + f + ".") for f in SCORE_FILES):
            try:
                os.unlink(os.path.join(str(output_dir), name))
            except OSError:
                pass


def remove_stale(output_dir):
    """After a failed run (or before a run), make sure no earlier scores survive in the output folder, nor a
    temporary file a killed run left."""
    output_dir = str(output_dir)
    with signals_deferred():
        for name in SCORE_FILES + PRIVATE_FILES:
            p = os.path.join(output_dir, name)
            if os.path.isfile(p):
                os.unlink(p)
        remove_temps(output_dir)
        remove_temps(os.path.join(output_dir, PRIVATE_DIR))


def remove_temps_of_killed_runs(output_dir):
    """Before a run writes into OUTPUT (its turn, cli.queued_output): the temporary files a run killed by SIGKILL
    left, in OUTPUT and OUTPUT/private."""
    remove_temps(output_dir)
    remove_temps(os.path.join(str(output_dir), PRIVATE_DIR))
