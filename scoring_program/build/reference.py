"""Each phase's ground truth, read with the competition's own reference loader (Task.load_reference, the code that
reads INPUT/ref when scoring) before anything is written; its reference_data zip holds exactly the files that loader
read, and the bundled copy is checked to load alone with the same leaderboard columns.

Unreadable or foreign data is one BundleError (exit 2) naming the organizer's own path, file and line. Class names
outside the competition's classes and classes without positives are warnings; a leaderboard column the reference
can never fill is dropped, with the reason.
"""
from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile
from typing import Dict, List, NamedTuple, Optional, Tuple

from ..errors import ScoringError
from ..report.result import HIDDEN, LEVEL_FILE, ScoreKey
from ..tasks import registry
from ..tasks.base import PRIVATE_FILE, TRACK_FILE, PrivatePart, Reference
from . import BundleError
from .zips import ZipBuilder


class ReferenceRead(NamedTuple):
    """A ground-truth folder as the scorer reads it."""
    reference: Reference
    warnings: List[str]             # one line each: names outside the competition's, classes without positives
    dropped: Dict[str, str]         # {leaderboard column no submission can fill: why}
    columns: List[ScoreKey]         # the leaderboard columns it fills, in the competition's order


def _organizer_view(err: ScoringError, ref_dir: str) -> str:
    """A ReferenceDataError as the organizer reads it: paths in their folder, not the worker's INPUT/ref."""
    where = err.file
    if where == "ref":
        where = ref_dir
    elif where is not None and where.startswith("ref/"):
        where = os.path.join(ref_dir, *where[4:].split("/"))
    view = ScoringError(where, err.line, err.expected, err.found, err.message)
    view.prefix = "reference data error"
    return view.render()


def read_reference(slug: str, ref_dir: str, set_name: Optional[str] = None) -> ReferenceRead:
    """The competition's reference loader on ref_dir. Raises BundleError (one line) when the folder is not this
    competition's readable ground truth, or holds several image sets and set_name chooses none."""
    task = registry.get(slug)
    if not os.path.isdir(ref_dir):
        raise BundleError("reference data folder not found: %s" % ref_dir)
    if set_name is not None and not task.has_sets:
        raise BundleError("--set: %s has no image sets (--set is for the VOC competitions)" % slug)
    try:
        if task.has_sets and set_name is None:
            sets = task.reference_sets(ref_dir)
            if len(sets) > 1:
                raise BundleError("%s holds %d image sets for %s: %s; choose one with --set NAME"
                                  % (ref_dir, len(sets), slug, ", ".join(sets)))
        reference = task.load_reference(ref_dir, set_name)
        warnings = task.reference_warnings(reference)
        dropped = task.empty_columns(reference)
    except ScoringError as e:
        raise BundleError(_organizer_view(e, ref_dir))
    columns = [k for k in task.column_table(reference) if k.key not in dropped]
    return ReferenceRead(reference, warnings, dropped, columns)


def reference_zip(reference: Reference, level: str = HIDDEN, track: Optional[str] = None,
                  private: Optional[PrivatePart] = None) -> bytes:
    """reference_data.zip: exactly the files the competition's reference loader read, at the zip root, the
    report level the scorer is to use with it (REPORT_LEVEL: hidden unless the organizer set `report: full`),
    for a VOC track (`track: comp3`) the one comp it ranks (TRACK) and a phase's private part (PRIVATE_PART)."""
    z = ZipBuilder()
    z.add_reference(reference)
    z.add_bytes(LEVEL_FILE, (level + "\n").encode("ascii"))
    if track:
        z.add_bytes(TRACK_FILE, (track + "\n").encode("ascii"))
    if private is not None:
        z.add_bytes(PRIVATE_FILE, private.text().encode("utf-8"))
    return z.close()


def check_bundled_reference(slug: str, data: bytes, columns: List[ScoreKey]) -> None:
    """The scorer's view: the bundled reference_data.zip, unzipped, loads alone (one set) with the same columns.
    A difference is a bug of the builder (RuntimeError), never the organizer's fault."""
    task = registry.get(slug)
    work = tempfile.mkdtemp(prefix="bundle-ref-")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            z.extractall(work)
        seen = [k.key for k in task.columns(task.load_reference(work))]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if seen != [k.key for k in columns]:
        raise RuntimeError("the bundled reference gives the scorer other columns: %s, not %s"
                           % (seen, [k.key for k in columns]))


def _identity(ref_dir: str, set_name: Optional[str], level: str, private: Optional[PrivatePart]) -> tuple:
    """What makes two phases' ground truths one: the folder (links resolved), the set, the level, the private
    part."""
    return (os.path.realpath(ref_dir), set_name, level, private.text() if private is not None else None)


class GroundTruth(NamedTuple):
    """One distinct ground truth of the bundle (a Codabench task): the folder, set and report level some phases
    score against, read by the scorer's loader."""
    index: int                      # its task's index, in order of first use by the phases
    ref_dir: str
    set_name: Optional[str]
    level: str                      # the report level (hidden with a private part)
    private: Optional[PrivatePart]
    read: ReferenceRead
    phases: List[str]               # the names of the phases scored against it, in order

    @property
    def columns(self) -> List[ScoreKey]:
        """The columns its phases write: with a private part, the ranking score of the public part alone."""
        return self.read.columns[:1] if self.private is not None else self.read.columns


def phase_ground_truths(slug: str, phases: List[dict], config_phases: Optional[List[dict]], ref_dir: str,
                        set_name: Optional[str], level: str) -> Tuple[List[GroundTruth], List[int]]:
    """[GroundTruth], one per distinct (folder, set, report level, private part) in phase order, and [its index]
    per phase. A phase without reference_data scores against ref_dir (--reference-data, or the sample) with
    set_name, unless it names its own set of that folder; a phase with reference_data uses its own set (or the
    folder's only one)."""
    truths, of_phase = [], []
    for i, phase in enumerate(phases):
        own = config_phases[i] if config_phases and i < len(config_phases) else {}
        folder = own.get("_reference_data", ref_dir)
        chosen = own.get("_set", set_name if "_reference_data" not in own else None)
        private = own.get("_private")
        phase_level = HIDDEN if private else own.get("_report", level)
        identity = _identity(folder, chosen, phase_level, private)
        found = [t for t in truths if _identity(t.ref_dir, t.set_name, t.level, t.private) == identity]
        if not found:
            try:
                read = read_reference(slug, folder, chosen)
            except BundleError as e:
                raise BundleError("phase %r: %s" % (phase["name"], e)) if len(phases) > 1 else e
            found = [GroundTruth(len(truths), folder, chosen, phase_level, private, read, [])]
            truths.extend(found)
        found[0].phases.append(phase["name"])
        of_phase.append(found[0].index)
    return truths, of_phase


def common_columns(truths: List[GroundTruth]) -> Tuple[List[ScoreKey], List[str]]:
    """The leaderboard columns: those every phase's ground truth can fill, in the competition's order, and a note
    for each left out. Codabench keeps one leaderboard for all phases and stores a score only under a column of it
    (a scores.json key without a column is dropped on upload); a column only some phases could fill would stay
    empty in the others, so it is left out, and the scorer of a phase that can fill it still writes it in
    scores.json."""
    keys = [set(k.key for k in t.columns) for t in truths]
    columns = [k for k in truths[0].columns if all(k.key in ks for ks in keys)]
    notes = []
    if len(truths) > 1:
        for t in truths:
            for k in t.columns:
                if k.key not in [c.key for c in columns]:
                    notes.append("leaderboard column %s left out: only phase(s) %s can fill it (the phase's scorer "
                                 "still writes it in scores.json, where Codabench ignores a key without a column)"
                                 % (k.key, ", ".join(t.phases)))
    return columns, sorted(set(notes), key=notes.index)


def reference_zips(slug: str, truths: List[GroundTruth], track: Optional[str]) -> Tuple[List[bytes], List[str],
                                                                                           List[str]]:
    """Each ground truth's reference data zip (checked: it loads alone with the same columns), and the warnings and
    notes of its reading (named by their phases when there are several)."""
    zips, warnings, notes = [], [], []
    for t in truths:
        data = reference_zip(t.read.reference, t.level, track, t.private)
        check_bundled_reference(slug, data, t.read.columns)
        zips.append(data)
        where = "phase(s) %s: " % ", ".join(t.phases) if len(truths) > 1 else ""
        warnings += [where + w for w in t.read.warnings]
        notes += ["%sleaderboard column %s dropped (no submission can fill it): %s" % (where, k, why)
                  for k, why in t.read.dropped.items()]
    return zips, warnings, notes
