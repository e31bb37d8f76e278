"""The interface every competition adapter implements."""
from __future__ import annotations

import hashlib
import os
import time
from contextlib import contextmanager


def no_progress(done, total, what=""):
    return None


class Stopwatch(object):
    """Seconds per named phase, summed over its visits, in order of first visit (for Result.timings).

        clock = Stopwatch()
        with clock("metric"):
            ...
        res.timings = clock.phases()
    """

    def __init__(self):
        self._seconds = {}

    @contextmanager
    def __call__(self, phase):
        start = time.perf_counter()
        try:
            yield
        finally:
            self._seconds[phase] = self._seconds.get(phase, 0.0) + time.perf_counter() - start

    def phases(self):
        return list(self._seconds.items())


class Reference(object):
    """What a task's load_reference read from a reference folder (INPUT/ref when scoring, the organizer's folder
    when bundling).

    root: the folder; files: every file the scorer reads, relative to root with '/' separators, in reading order:
    exactly what the bundle's reference_data.zip holds; set_name: the image set (VOC tasks), else None; data: the
    task's parsed ground truth.
    """

    __slots__ = ("root", "files", "set_name", "data", "track")

    def __init__(self, root, files, data, set_name=None):
        self.root = str(root)
        self.files = list(files)
        self.data = data
        self.set_name = set_name
        self.track = read_track(root)    # VOC: the one comp this reference ranks (its TRACK file), else None


PRIVATE_FILE = "PRIVATE_PART"   # in the reference data: the private part of the test set (bundle's private:)


class PrivatePart(object):
    """Which evaluated items are private: `ids` (a set of item ids as the task names them: image, person
    'image object', sequence, panorama, video) or a `fraction` of them chosen by `seed` (each item's own hash, so
    the choice of one item never depends on the others)."""

    def __init__(self, ids=None, fraction=None, seed=0):
        self.ids = ids
        self.fraction = fraction
        self.seed = seed

    def mask(self, items):
        import numpy as np
        if self.ids is not None:
            return np.array([str(i) in self.ids for i in items], dtype=bool)
        draws = [int.from_bytes(hashlib.sha256(("%d\0%s" % (self.seed, i)).encode("utf-8", "surrogateescape"))
                                .digest()[:8], "big") / 2.0 ** 64 for i in items]
        return np.array(draws, dtype=np.float64) < self.fraction

    def text(self):
        if self.ids is not None:
            return "ids\n" + "".join(i + "\n" for i in sorted(self.ids))
        return "fraction %r seed %d\n" % (self.fraction, self.seed)


def read_private(ref_dir):
    """The reference folder's PRIVATE_PART (first line 'ids' then one item id a line, or 'fraction F seed S'), or
    None. A malformed file is the organizer's fault; the message names the line, never the content."""
    from ..errors import ReferenceDataError
    path = os.path.join(str(ref_dir), PRIVATE_FILE)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "surrogateescape").splitlines()
    head = lines[0].split() if lines else []
    if head == ["ids"]:
        return PrivatePart(ids=set(l.strip() for l in lines[1:] if l.strip()))
    try:
        if len(head) == 4 and head[0] == "fraction" and head[2] == "seed" and 0 < float(head[1]) < 1:
            return PrivatePart(fraction=float(head[1]), seed=int(head[3]))
    except ValueError:
        pass
    raise ReferenceDataError("ref/" + PRIVATE_FILE, line=1, expected="'ids' then one item id a line, or "
                             "'fraction F seed S' with 0 < F < 1")


TRACK_FILE = "TRACK"        # in the reference data: 'comp3' (bundle's organizer.yaml track:), absent: every comp


def reference_word(ref_dir, name, valid, expected):
    """The one word of the reference folder's setting file `name` (REPORT_LEVEL, TRACK), or None without the file.
    A word that valid(word) refuses is the organizer's fault: a ReferenceDataError naming the file and line 1 and
    `expected`, never quoting the file."""
    from ..errors import ReferenceDataError
    path = os.path.join(str(ref_dir), name)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        word = f.read(64).strip().decode("ascii", "replace")
    if not valid(word):
        raise ReferenceDataError("ref/" + name, line=1, expected=expected)
    return word


def read_track(ref_dir):
    """The comp number a reference folder's TRACK file names (one word, compN), or None without the file."""
    word = reference_word(ref_dir, TRACK_FILE, lambda w: w.startswith("comp") and w[4:].isdigit() and len(w) <= 6,
                          "one word, compN (the track's comp number)")
    return None if word is None else int(word[4:])


def reference_fingerprint(reference):
    """The names in the folders the reference was read from, and the inode, size and modification time of every
    file read: while they are unchanged, load_reference would read the same ground truth (a cached Reference may be
    reused). Stats, not bytes: a second pass over every file read would cost a quarter of the loading itself."""
    h = hashlib.sha1()
    folders = sorted(set(os.path.dirname(f) for f in reference.files) | {""})
    for folder in folders:
        h.update(("\0dir %s\0" % folder).encode("utf-8", "surrogateescape"))
        for name in sorted(os.listdir(os.path.join(reference.root, folder))):
            h.update(name.encode("utf-8", "surrogateescape") + b"\0")
    for rel in reference.files:
        st = os.stat(os.path.join(reference.root, rel))
        h.update(("\0file %s %d %d %d" % (rel, st.st_ino, st.st_size, st.st_mtime_ns)).encode("utf-8",
                                                                                          "surrogateescape"))
    return h.digest()


class Task(object):
    slug = ""
    title = ""
    has_sets = False            # the reference folder may hold several image sets (VOC): load_reference(set_name=)
    columns_need_reference = True   # False: the columns are the same for every reference (no reference read)
    _cached = None              # (real path, fingerprint, Reference) of the last reference(ref_dir)

    def column_table(self, reference=None):
        """Every leaderboard column the competition can have, in order (first is the ranking column); with a
        reference, those of its classes when the classes come from the reference data (cultural events)."""
        raise NotImplementedError

    def score_keys(self, ref_dir=None):
        """The one table of leaderboard columns == scores.txt keys (first is the ranking column).

        ref_dir is given when the columns depend on the reference data (fixed when the bundle is built): a column
        the reference leaves empty whatever the submission (empty_columns) is not a column, and the scorer never
        writes it.
        """
        if ref_dir is None or not self.columns_need_reference:
            return self.column_table()
        return self.columns(self.reference(ref_dir))

    def columns(self, reference):
        """The leaderboard columns of this reference: column_table minus empty_columns."""
        empty = self.empty_columns(reference)
        return [k for k in self.column_table(reference) if k.key not in empty]

    def empty_columns(self, reference):
        """{key: reason} for the columns no submission can fill with this reference (a class without positives)."""
        return {}

    def reference_warnings(self, reference):
        """One-line warnings for the organizer about the reference (names outside the competition's classes,
        classes without positives). Reads whatever the scorer reads that load_reference left for later (label
        images), so a broken file raises ReferenceDataError here. By default: why each empty column is empty."""
        return list(self.empty_columns(reference).values())

    def reference_sets(self, ref_dir):
        """The image sets the reference folder holds, sorted (tasks with has_sets)."""
        return []

    def load_reference(self, ref_dir, set_name=None, progress=no_progress):
        """Read and check the reference folder (ReferenceDataError on the first fault) -> Reference.

        set_name: the image set to read when the folder holds several (has_sets); without it the folder must hold
        exactly one."""
        raise NotImplementedError

    def reference(self, ref_dir, progress=no_progress):
        """load_reference(ref_dir), parsed once for score and score_keys (cli.run calls both on INPUT/ref). The
        cached Reference is reused only while reference_fingerprint is unchanged (same names in the folders it was
        read from, same inode, size and modification time of every file it read)."""
        key = os.path.realpath(str(ref_dir))
        cached = self._cached
        if cached is not None and cached[0] == key:
            try:
                if reference_fingerprint(cached[2]) == cached[1]:
                    return cached[2]
            except OSError:           # a file it read is gone: read again, and report what load_reference says
                pass
        self._cached = None
        reference = self.load_reference(ref_dir, progress=progress)
        self._cached = (key, reference_fingerprint(reference), reference)
        return reference

    def score(self, ref_dir, submission, progress=no_progress, private=False, decompose=False):
        """ref_dir: INPUT/ref; submission: formats.files.Submission. Returns report.Result: aggregates only in what
        the participant sees; with private, also Result.private, the per-item tables for the organizer
        (score.py --private-report); with decompose, also Result.decomposition (metrics.bootstrap.Decomposition:
        the ranking score as a function of item weights, for rescore --bootstrap).

        The task pipeline: evaluate (the reference, then the submission read against it, then the per-item records
        and aggregates), report, and, on request, decompose the same evaluation: nothing is parsed or scored twice.
        """
        evaluation = self.evaluate(ref_dir, submission, progress, per_item=private or decompose)
        result = self.report(evaluation, private)
        if decompose:
            try:
                result.decomposition = self.decompose(evaluation)
            except Exception:   # the scores stand; rescore lists the submission as scored without a bootstrap
                import traceback
                result.decomposition = traceback.format_exc().strip().splitlines()[-1]
        return result

    def evaluate(self, ref_dir, submission, progress=no_progress, per_item=False):
        """The reference (first: a broken reference is reported as such, whatever the submission), the submission
        read against it, and the evaluation (per-item records plus aggregates). per_item: keep the per-item records
        that only the private report and the bootstrap need."""
        raise NotImplementedError

    def report(self, evaluation, private=False):
        """The evaluation -> report.Result."""
        raise NotImplementedError

    def decompose(self, evaluation):
        """The evaluation -> metrics.bootstrap.Decomposition: the ranking score (the first column) on weighted test
        items; with every weight 1 it equals the official score to 1e-12."""
        raise NotImplementedError

    def validate(self, submission, ids=None):
        """Check names and syntax without the reference data, by the scorer's file rules: raise SubmissionError on
        the first fault the scorer would reject; a file the scorer would not read is a warning.

        ids: optional numpy "S" array of the ids the participant expects to be evaluated on (validate --ids).
        Returns a list of notes (one line each) for the participant; warnings start with formats.files.WARNING
        ('warning: <file> will be ignored: <reason> (did you mean <name>?)', formats.files.ignored_warnings).
        """
        raise NotImplementedError
