"""The pipeline every competition runs, and the hooks each competition's task implements.

Task.score runs the pipeline, the same for every competition; a task never composes it by hand:

    reference = self.reference(ref_dir)                 load_reference, cached while its files are unchanged
    submitted = self.read_submission(submission, reference, progress)      formats/ only: the task's record
    evaluation = self.evaluate(reference, submitted, progress, per_item, analyses)   metrics/ only: per-item
                                                                           records and aggregates
    result = self.report(evaluation, private)           report.Result: aggregates; per-item tables when private
    result.decomposition = self.decompose(evaluation)   on request: the bootstrap's view of the same evaluation

and around it the stopwatch (Result.timings, for the tasks that name their phases), the pause of the cyclic
garbage collector (for the tasks that ask for it), the progress callback, and the check that every score key the
report wrote is a leaderboard column, in column order.

A competition's module (tasks/<module>.py, listed in registry.MODULES) defines its records (the Reference's data,
the submission read, the evaluation: NamedTuples or dataclasses whose docstrings give the arrays' shapes and
dtypes), its Task subclass with the hooks below, and TASK, its instance. Everything about a competition is
reachable from that module: its columns, reference, scoring, report, protocol (the report's and the Evaluation
page's), validation, the participant's figures and the starting kit's extra files.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Callable, Dict, List, NamedTuple, Optional, Sequence

if TYPE_CHECKING:       # annotations only: the scoring path imports numpy and the report lazily
    from ..formats.files import Submission
    from ..metrics.bootstrap import Decomposition
    from ..report.result import Result, ScoreKey

ProgressCallback = Callable[..., None]     # progress(done, total, what="")


class Rule(NamedTuple):
    """One paragraph of a competition's protocol (Task.protocol). name: how the Evaluation page's template places
    it ({{rule:NAME}}, participant.py); text: the paragraph, plain text, the same words in the report's Protocol
    section and on the page."""
    name: str
    text: str


def no_progress(done, total, what=""):
    return None


class Progress(object):
    """A progress callback that writes a line to `stream` every few seconds (the command line gives stderr, which
    Codalab shows to the participant, at the full report level only: cli.main). A stream that is None (closed
    before the run started) or fails is skipped: progress never fails a run."""

    def __init__(self, stream, every=3.0):
        self.stream = stream
        self.every = every
        self.start = time.time()
        self.last = self.start

    def __call__(self, done, total, what=""):
        now = time.time()
        if now - self.last >= self.every and self.stream is not None:
            self.last = now
            try:
                self.stream.write("progress: %d/%d %s (%.0f s)\n" % (done, total, what, now - self.start))
                self.stream.flush()
            except (OSError, ValueError):
                self.stream = None


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
    task's parsed ground truth, a record the task module declares (a NamedTuple or dataclass whose docstring gives
    the arrays' shapes and dtypes: voc_common.RankedListTruth, voc2011_detection.DetectionTruth, ...); track: the
    TRACK file's comp number (VOC), else None.
    """

    __slots__ = ("root", "files", "set_name", "data", "track", "withheld")

    def __init__(self, root, files, data, set_name=None):
        self.root = str(root)
        self.files = list(files)
        self.data = data
        self.set_name = set_name
        self.track = read_track(root)    # VOC: the one comp this reference ranks (its TRACK file), else None
        # a bundle's public part: the items whose labels the build left out (WITHHELD), else None
        self.withheld = read_withheld(root)

    def replaced(self, data) -> "Reference":
        """A copy of this Reference with other data (Task.restrict: never change the cached one)."""
        other = Reference.__new__(Reference)
        for name in Reference.__slots__:
            setattr(other, name, getattr(self, name))
        other.data = data
        return other


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


WITHHELD_FILE = "WITHHELD"  # in a bundle's reference data: the items whose labels stay with the organizer


def id_listing(ids) -> str:
    """A list of item ids as the WITHHELD file and the build's private_ids.txt write it: sorted, one a line."""
    return "".join(i + "\n" for i in sorted(ids))


def ids_sha256(ids) -> str:
    """sha256 hex of id_listing(ids) (bundle.json's withheld_sha256)."""
    return hashlib.sha256(id_listing(ids).encode("utf-8", "surrogateescape")).hexdigest()


def parse_ids(data: bytes) -> frozenset:
    """The ids of an id listing's bytes (one a line; blank lines and the spaces around an id ignored)."""
    return frozenset(line.strip() for line in data.decode("utf-8", "surrogateescape").splitlines() if line.strip())


def write_withheld_copy(reference: "Reference", out_dir: str, replaced: Callable[[str, str], Optional[bytes]]) -> None:
    """Task.withhold's writing: every file of reference.files into out_dir at the same relative path, as
    replaced(rel, path) gives it (path: the file in reference.root), or byte for byte when that gives None."""
    for rel in reference.files:
        src = os.path.join(reference.root, *rel.split("/"))
        dst = os.path.join(str(out_dir), *rel.split("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        data = replaced(rel, src)
        if data is None:
            shutil.copyfile(src, dst)
        else:
            with open(dst, "wb") as f:
                f.write(data)


def read_withheld(ref_dir):
    """The reference folder's WITHHELD file (one item id a line: the test items whose labels the build left out,
    the private part kept by the organizer), as a frozenset, or None without the file. The scorer accepts
    predictions for these items as for any other and scores the others (Task.restrict)."""
    path = os.path.join(str(ref_dir), WITHHELD_FILE)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return parse_ids(f.read())


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


# ------------------------------------------------------------------ the participant's figures (Task.figures)
# the per-class leaderboard columns: their key prefix names the class
CLASS_PREFIXES = ("AP_", "IoU_", "hit_rate_", "jaccard_")
LISTED_SETS = ("train", "val", "trainval", "test")     # the VOC devkit's image sets, as its list files name them


def return_freed_memory() -> None:
    """Give the heap pages that freed arrays left back to the system (glibc's malloc_trim; nothing elsewhere). glibc
    keeps the pages of the small and middle-sized blocks it frees (a result file's arrays) and maps every new large
    block afresh: a task that releases its read arrays before building larger ones calls this in between, so that
    the process's peak memory is the larger of the two phases, not their sum. Changes no result."""
    if os.name != "posix":
        return
    import ctypes
    try:
        own = ctypes.CDLL(None)                                 # the process's own symbols: glibc's, if it is there
    except OSError:                                             # a platform that cannot open them: nothing to give
        return
    trim = getattr(own, "malloc_trim", None)
    if trim is not None:
        trim(0)


def plural(n, word, words=None) -> str:
    """'1 image', '3 images' (words: the plural when it is not word + 's')."""
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def name_list(names, limit=20) -> str:
    """'a, b and c', or the first few and a count of the rest."""
    names = list(names)
    if not names:
        return "none"
    if len(names) > limit:
        return "%s, ... (%d in all)" % (", ".join(names[:limit]), len(names))
    if len(names) == 1:
        return names[0]
    return "%s and %s" % (", ".join(names[:-1]), names[-1])


def as_text(values) -> List[str]:
    """Ids as text: bytes decoded as UTF-8 (undecodable bytes replaced), anything else by str."""
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values]


def class_of(key: str) -> Optional[str]:
    """The class a per-class leaderboard column names (AP_dog -> dog), else None."""
    for prefix in CLASS_PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix):]
    return None


def class_figures(columns, word, words=None) -> Dict[str, str]:
    """{classes, num_classes} of the per-class leaderboard columns (the classes the reference can score)."""
    classes = [c for c in (class_of(k.key) for k in columns) if c is not None]
    return {"classes": name_list(classes), "num_classes": plural(len(classes), word, words)}


# ------------------------------------------------------------------ the pipeline
def unmatched_warning(unmatched, public: bool) -> str:
    """The warning about a formats.hints.Unmatched: with a hint from a public vocabulary (public), the hint alone at
    every report level and the count too at the full level (report.result.Leveled); otherwise the count at the full
    level only (a count over test items, or a name meant that only the ground truth has)."""
    from ..report.result import Leveled
    if public and unmatched.hint is not None:
        return Leveled(unmatched.own(), unmatched.full())
    return unmatched.full()


def file_warnings(lines) -> List[str]:
    """Task.ignored_files' lines as the report's warnings (without validate's 'warning: ' prefix): facts about the
    submission's own file names and the format's fixed names, shown at every report level (Own)."""
    from ..formats.hints import WARNING
    from ..report.result import Own
    return [Own(line[len(WARNING):] if line.startswith(WARNING) else line) for line in lines]


def in_column_order(result, keys) -> None:
    """Result.scores in the order of the leaderboard columns `keys`. A score key that is not a column is a bug in
    the task (RuntimeError, exit 3): the platform would refuse the scores, or show them in no column."""
    columns = [k.key for k in keys]
    extra = [k for k in result.scores if k not in columns]
    if extra:
        raise RuntimeError("task wrote score keys that are not leaderboard columns: %s" % extra)
    ordered = [(k, result.scores[k]) for k in columns if k in result.scores]
    result.scores.clear()
    result.scores.update(ordered)


class Task(object):
    """A competition. score runs the pipeline; a task implements the hooks, each with the one signature below,
    and never overrides score or reference."""
    slug = ""
    title = ""
    # the protocol in words, one Rule a paragraph: the report's Protocol section, and the paragraphs the evaluation
    # page shows where its template writes {{rule:NAME}} (participant.py; the page's other words, which spell a
    # rule out without restating it, are the competition's templates/evaluation.md)
    protocol: Sequence["Rule"] = ()
    has_sets = False            # the reference folder may hold several image sets (VOC): load_reference(set_name=)
    columns_need_reference = True   # False: the columns are the same for every reference (no reference read)
    # the pipeline's steps (reference, read, evaluate, report, decompose) as Result.timings names them, for the
    # command line's "time: ..." line (steps of one name are summed); empty: the task's timings are not kept
    phase_names: Dict[str, str] = {}
    pauses_collector = False    # pause the cyclic garbage collector while scoring (millions of parsed JSON objects)
    _cached = None              # (real path, fingerprint, Reference) of the last reference(ref_dir)

    # ---------------------------------------------------------------------------------------- the pipeline
    def score(self, ref_dir, submission: "Submission", progress: ProgressCallback = no_progress, private=False,
              decompose=False, analyses=True) -> "Result":
        """ref_dir: INPUT/ref; submission: formats.files.Submission. Returns report.Result, its scores in column
        order: aggregates only in what the participant sees; with private, also Result.private, the per-item
        tables for the organizer (score.py --private-report); with decompose, also Result.decomposition
        (metrics.bootstrap.Decomposition: the ranking score as a function of item weights, for rescore
        --bootstrap). analyses=False: the report's diagnostics (error analyses, curves, per-class tables) are not
        computed; cli asks for them only when a report shows them (the full level, or the organizer's private
        report): the scores, warnings and notes are the same either way.

        The reference first (a broken reference is reported as such, whatever the submission), then the
        submission read against it, the evaluation (per-item records and aggregates; per_item: also the records
        only the private report and the bootstrap need), the report and, on request, the decomposition of the same
        evaluation: nothing is parsed or scored twice.
        """
        clock = Stopwatch()
        names = self.phase_names
        with self._collector_paused():
            with clock(names.get("reference", "reference")):
                reference = self.reference(ref_dir, progress)
            with clock(names.get("read", "read")):
                submitted = self.read_submission(submission, reference, progress)
            if reference.withheld is not None:
                # the submission was read against every test item (the same checks and messages whichever items
                # are withheld); only the items with labels are scored
                with clock(names.get("read", "read")):
                    reference, submitted = self.restrict(reference, submitted, reference.withheld)
            with clock(names.get("evaluate", "evaluate")):
                # the private report shows every diagnostic: it needs the analyses whatever the level
                evaluation = self.evaluate(reference, submitted, progress, private or decompose, analyses or private)
            with clock(names.get("report", "report")):
                result = self.report(evaluation, private)
                result.protocol = [r.text for r in self.protocol]
                result.warnings[:0] = file_warnings(self.ignored_files(submission, reference))
            if decompose:
                with clock(names.get("decompose", "decompose")):
                    result.decomposition = self._decomposition(evaluation)
        in_column_order(result, self.reference_keys(reference))
        if names:
            result.timings = clock.phases()
        return result

    def _decomposition(self, evaluation):
        try:
            return self.decompose(evaluation)
        except Exception:   # the scores stand; rescore lists the submission as scored without a bootstrap
            import traceback
            return traceback.format_exc().strip().splitlines()[-1]

    def _collector_paused(self):
        if not self.pauses_collector:
            return nullcontext()
        from ..formats.jsoncaps import no_cycle_collection
        return no_cycle_collection()

    def reference(self, ref_dir, progress: ProgressCallback = no_progress) -> Reference:
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

    def score_keys(self, ref_dir=None) -> List["ScoreKey"]:
        """The one table of leaderboard columns == scores.txt keys (first is the ranking column).

        ref_dir is given when the columns depend on the reference data (fixed when the bundle is built): a column
        the reference leaves empty whatever the submission (empty_columns) is not a column, and the scorer never
        writes it.
        """
        if ref_dir is None or not self.columns_need_reference:
            return self.column_table()
        return self.reference_keys(self.reference(ref_dir))

    def reference_keys(self, reference: Reference) -> List["ScoreKey"]:
        """score_keys of a reference already read."""
        return self.columns(reference) if self.columns_need_reference else self.column_table()

    def columns(self, reference: Reference) -> List["ScoreKey"]:
        """The leaderboard columns of this reference: column_table minus empty_columns."""
        empty = self.empty_columns(reference)
        return [k for k in self.column_table(reference) if k.key not in empty]

    # ---------------------------------------------------------------------------------------- hooks
    def column_table(self, reference: Optional[Reference] = None) -> List["ScoreKey"]:
        """Every leaderboard column the competition can have, in order (first is the ranking column); with a
        reference, those of its classes when the classes come from the reference data (cultural events)."""
        raise NotImplementedError

    def load_reference(self, ref_dir, set_name=None, progress: ProgressCallback = no_progress) -> Reference:
        """Read and check the reference folder (ReferenceDataError on the first fault) -> Reference, whose data is
        the task's ground-truth record.

        set_name: the image set to read when the folder holds several (has_sets); without it the folder must hold
        exactly one."""
        raise NotImplementedError

    def read_submission(self, submission: "Submission", reference: Reference, progress: ProgressCallback):
        """The submission's files read against the reference (formats/ only; SubmissionError on the first fault)
        -> the task's submission record."""
        raise NotImplementedError

    def evaluate(self, reference: Reference, submitted, progress: ProgressCallback, per_item: bool,
                 analyses: bool = True):
        """The reference and the submission record -> the task's evaluation record (per-item records plus
        aggregates; metrics/ only). per_item: keep the per-item records that only the private report and the
        bootstrap need. analyses: also the diagnostics only the full report shows (error analyses, curves); without
        them report must write the same scores, warnings and notes."""
        raise NotImplementedError

    def report(self, evaluation, private: bool) -> "Result":
        """The evaluation -> report.Result; with private, also the organizer's per-item tables (Result.private)."""
        raise NotImplementedError

    def decompose(self, evaluation) -> "Decomposition":
        """The evaluation -> metrics.bootstrap.Decomposition: the ranking score (the first column) on weighted test
        items; with every weight 1 it equals the official score to 1e-12."""
        raise NotImplementedError

    def item_ids(self, reference: Reference) -> List[str]:
        """The test items of the reference, as the Decomposition names them (image ids, 'image object' persons,
        sequences, panoramas, videos) and in its order: what a private part is drawn from."""
        raise NotImplementedError

    def withhold(self, reference: Reference, items, out_dir: str) -> None:
        """Write into out_dir (an empty folder) the reference folder with the labels of `items` (a set of
        item_ids) left out: the same layout and file names, every other item's data byte for byte, and for each
        withheld item only what a participant already holds (its id, and where the scorer checks a submission
        against it, its image size or frame count), never a fact of its labels (classes, boxes, limbs, actions,
        states, counts of objects). The caller adds WITHHELD, REPORT_LEVEL and TRACK. load_reference reads
        out_dir; read_submission gives every submission the same errors, warnings and notes as on the whole
        reference; after restrict the scores are those of the other items alone (the ranking score equals the
        0/1 decomposition, every column equals scoring those items' cut lists)."""
        raise NotImplementedError

    def restrict(self, reference: Reference, submitted, withheld):
        """(reference, submitted) -> (reference, submitted) without the withheld items (a frozenset of item_ids)
        and without the submission's predictions for them, as if neither list had held them. Called between
        read_submission and evaluate when the reference has a WITHHELD file. Returns new records (reference
        .replaced(data)): the cached Reference is never changed."""
        raise NotImplementedError

    def empty_columns(self, reference: Reference) -> Dict[str, str]:
        """{key: reason} for the columns no submission can fill with this reference (a class without positives)."""
        return {}

    def classes_without_positives(self, reference: Reference) -> List[str]:
        """The declared classes this reference has no positive of (the build refuses them in a hidden phase: a
        column made from hidden labels would tell it). By default the classes of empty_columns."""
        return [c for c in (class_of(k) for k in self.empty_columns(reference)) if c is not None]

    def reference_warnings(self, reference: Reference) -> List[str]:
        """One-line warnings for the organizer about the reference (names outside the competition's classes,
        classes without positives). Reads whatever the scorer reads that load_reference left for later (label
        images), so a broken file raises ReferenceDataError here. By default: why each empty column is empty."""
        return list(self.empty_columns(reference).values())

    def reference_sets(self, ref_dir) -> List[str]:
        """The image sets the reference folder holds, sorted (tasks with has_sets)."""
        return []

    def validate(self, submission: "Submission", ids=None, set_name: Optional[str] = None) -> List[str]:
        """Check names and syntax without the reference data, by the scorer's file rules: raise SubmissionError on
        the first fault the scorer would reject; a file the scorer would not read is a warning.

        ids: optional numpy "S" array of the ids the participant expects to be evaluated on (validate --ids).
        set_name: the image set that list names (listed_set), for the tasks with sets (has_sets; the others ignore
        it): result files of another set are then the error the scorer gives; None: the set is inferred from the
        submission's file names.
        Returns a list of notes (one line each) for the participant; warnings start with formats.hints.WARNING
        ('warning: <file> will be ignored: <reason> (did you mean <name>?)', formats.hints.ignored_warnings).
        """
        raise NotImplementedError

    def ignored_files(self, submission: "Submission", reference: Reference) -> List[str]:
        """The warnings about the submitted files the scorer does not read, one line each with its near-miss hint
        ('warning: <file> will be ignored: <reason> (did you mean <name>?)', formats.hints.ignored_warnings): the
        very lines validate prints, so that the scorer and validate say the same. By default none."""
        return []

    def listed_set(self, ids_path: str) -> Optional[str]:
        """The image set that validate's --ids FILE names by its file name, for a task whose reference holds sets
        (has_sets): VOC's lists are <set>.txt and <name>_<set>.txt (ImageSets/Main/test.txt, jumping_test.txt),
        and the scorer rejects result files of any other set. None when the name tells no set. validate then
        passes it to validate(..., set_name=)."""
        if not self.has_sets:
            return None
        stem = os.path.basename(ids_path)
        stem = stem[:-4] if stem.lower().endswith(".txt") else stem
        last = stem.rsplit("_", 1)[-1]
        return last if last in LISTED_SETS else None

    def figures(self, reference: Reference, columns: Sequence["ScoreKey"]) -> Dict[str, str]:
        """{name: text} for the participant's Data page and kit README (participant.py's templates): how much
        there is to predict (images, persons, sequences, videos, ...) and which classes are scored. columns: the
        bundle's leaderboard columns (the per-class ones name the classes the reference has positives for)."""
        raise NotImplementedError

    def kit_extras(self, reference: Reference) -> Dict[str, bytes]:
        """Files the sample starting kit's README commands need beside the sample's reference: {file name relative
        to the kit's sample_input/ folder: bytes}. By default none."""
        return {}
