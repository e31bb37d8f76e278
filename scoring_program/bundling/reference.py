"""Each phase's ground truth, read with the competition's own reference loader (Task.load_reference, the code that
reads INPUT/ref when scoring) before anything is written; its reference_data zip holds exactly the files that loader
read, and the bundled copy is checked to load alone with the same leaderboard columns.

Unreadable or foreign data is one BundleError (exit 2) naming the organizer's own path, file and line. Class names
outside the competition's classes and classes without positives are warnings; a leaderboard column the reference
can never fill is dropped, with the reason.
"""
from __future__ import annotations

import atexit
import io
import os
import secrets
import shutil
import tempfile
import zipfile
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from ..errors import ScoringError
from ..report.result import HIDDEN, LEVEL_FILE, ScoreKey
from ..tasks import registry
from ..tasks.base import TRACK_FILE, WITHHELD_FILE, PrivatePart, Reference, class_of, id_listing
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
                  withheld: Optional[FrozenSet[str]] = None) -> bytes:
    """reference_data.zip: exactly the files the competition's reference loader read, at the zip root, the
    report level the scorer is to use with it (REPORT_LEVEL: hidden unless the organizer set `report: full`),
    for a VOC track (`track: comp3`) the one comp it ranks (TRACK) and, for a phase with a private part, the
    items whose labels stayed with the organizer (WITHHELD; the reference is then Task.withhold's)."""
    z = ZipBuilder()
    z.add_reference(reference)
    z.add_bytes(LEVEL_FILE, (level + "\n").encode("ascii"))
    if track:
        z.add_bytes(TRACK_FILE, (track + "\n").encode("ascii"))
    if withheld is not None:
        z.add_bytes(WITHHELD_FILE, id_listing(withheld).encode("utf-8", "surrogateescape"))
    return z.close()


def draw_private(slug: str, part: PrivatePart, items: List[str], phases: List[str]) -> Tuple[FrozenSet[str],
                                                                                               Optional[str]]:
    """The private items of a phase's test set: the ids listed ({ids: FILE}, each an item of the test set), or a
    fraction drawn from a fresh 128-bit secret (each item by its own hash with it, PrivatePart.mask). Returns
    (ids, the secret as hex or None). Both parts must hold an item."""
    where = "phase(s) %s: private" % ", ".join(phases)
    known = set(items)
    secret = None
    if part.ids is not None:
        unknown = sorted(i for i in part.ids if i not in known)
        if unknown:
            raise BundleError("%s: ids: %d of the %d ids are not items of the test set (%s ids name %ss: %s), "
                              "e.g. %r" % (where, len(unknown), len(part.ids), slug, _unit(slug), ", ".join(
                                  repr(i) for i in items[:2]) + ", ...", unknown[0]))
        ids = frozenset(part.ids)
    else:
        secret = "%032x" % secrets.randbits(128)
        mask = PrivatePart(fraction=part.fraction, seed=int(secret, 16)).mask(items)
        ids = frozenset(i for i, m in zip(items, mask.tolist()) if m)
    if not ids or len(ids) == len(known):
        raise BundleError("%s: the private part holds %s of the test set's %d items: the public and the private "
                          "part each need at least one (%s)" % (where, "all" if ids else "none", len(known),
                                                                "another fraction" if secret else "another list"))
    return ids, secret


def _unit(slug: str) -> str:
    return {"voc2011-layout": "person ('image object')", "voc2011-action": "person ('image object')",
            "chalearn-lap2014-action": "sequence", "chalearn-lap2014-pose": "panorama", "kinetics-tps": "video",
            "action-tubes": "video"}.get(slug, "image")


def public_part(slug: str, whole: ReferenceRead, ids: FrozenSet[str], set_name: Optional[str]) -> ReferenceRead:
    """The reference the bundle holds for a phase with a private part: Task.withhold of the whole reference (the
    labels of the private items left out) with its WITHHELD file, read back with the scorer's loader. The folder
    lives until the build ends."""
    task = registry.get(slug)
    work = tempfile.mkdtemp(prefix="bundle-public-")
    atexit.register(shutil.rmtree, work, True)
    task.withhold(whole.reference, ids, work)
    with open(os.path.join(work, WITHHELD_FILE), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(id_listing(ids))
    try:
        return read_reference(slug, work, set_name)
    except BundleError as e:     # the builder's own output: a bug, never the organizer's fault
        raise RuntimeError("the public part's reference does not load: %s" % e)


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


def _part_key(private: Optional[PrivatePart]):
    """What makes two phases' private parts one: the ids listed, or the fraction (one draw serves both)."""
    if private is None:
        return None
    return ("ids", tuple(sorted(private.ids))) if private.ids is not None else ("fraction", private.fraction)


class GroundTruth(NamedTuple):
    """One distinct ground truth of the bundle (a Codabench task): the folder, set and report level some phases
    score against, read by the scorer's loader. With a private part, `read` is the public part's reference (the
    bundle's: Task.withhold's, with WITHHELD), `whole` the organizer's whole reference, `private_ids` the
    private items, `secret` the hex secret they were drawn from (None for listed ids) and `n_items` the number of
    test items."""
    index: int                      # its task's index, in order of first use by the phases
    ref_dir: str
    set_name: Optional[str]
    level: str                      # the report level (hidden with a private part)
    private: Optional[PrivatePart]
    read: ReferenceRead
    phases: List[str]               # the names of the phases scored against it, in order
    whole: Optional[ReferenceRead] = None
    private_ids: Optional[FrozenSet[str]] = None
    secret: Optional[str] = None
    n_items: Optional[int] = None

    @property
    def columns(self) -> List[ScoreKey]:
        """The columns its phases write (with a private part, the public part's: every column)."""
        return self.read.columns


def check_shared_truths(phases: List[dict], config_phases: Optional[List[dict]], ref_dir: str,
                        set_name: Optional[str], level: str) -> None:
    """Two set-ups that reopen a test set are refused, one line naming the phases: one ground truth reported
    `full` in one phase and `hidden` in another (the full phase shows every diagnostic the hidden one withholds),
    and one ground truth with a private part in one phase and without it (or with another) in another (the whole
    set's score and the public part's give the private part's exactly)."""
    groups = {}
    for i, phase in enumerate(phases):
        own = config_phases[i] if config_phases and i < len(config_phases) else {}
        folder = own.get("_reference_data", ref_dir)
        chosen = own.get("_set", set_name if "_reference_data" not in own else None)
        private = own.get("_private")
        groups.setdefault((os.path.realpath(folder), chosen), []).append(
            (phase["name"], HIDDEN if private else own.get("_report", level), _part_key(private)))
    for (folder, chosen), uses in groups.items():
        where = "%s%s" % (folder, " (set %s)" % chosen if chosen else "")
        levels = sorted(set(u[1] for u in uses))
        if len(levels) > 1:
            raise BundleError("phases %s score against one ground truth (%s) at report levels %s: the full phase "
                              "shows every diagnostic the hidden one withholds; give the full phase a ground truth "
                              "of its own (a released validation set)"
                              % (" and ".join(u[0] for u in uses), where, " and ".join(
                                  "%s (%s)" % (lv, ", ".join(u[0] for u in uses if u[1] == lv)) for lv in levels)))
        parts = set(u[2] for u in uses)
        if len(parts) > 1:
            with_part = [u[0] for u in uses if u[2] is not None]
            without = [u[0] for u in uses if u[2] is None]
            raise BundleError("phases %s score against one ground truth (%s) with different private parts (%s): "
                              "the scores of one phase and the public part's of another give the private part's "
                              "exactly; give them the same private part, or each a ground truth of its own"
                              % (" and ".join(u[0] for u in uses), where,
                                 "a private part in %s, none in %s" % (", ".join(with_part), ", ".join(without))
                                 if without else "not the same items"))


def phase_ground_truths(slug: str, phases: List[dict], config_phases: Optional[List[dict]], ref_dir: str,
                        set_name: Optional[str], level: str) -> Tuple[List[GroundTruth], List[int]]:
    """[GroundTruth], one per distinct (folder, set) in phase order (check_shared_truths: the phases sharing one
    share its report level and private part), and [its index] per phase. A phase without reference_data scores
    against ref_dir (--reference-data, or the sample) with set_name, unless it names its own set of that folder; a
    phase with reference_data uses its own set (or the folder's only one). A private part is drawn (or its ids
    checked) and the public part's reference made (Task.withhold) here."""
    check_shared_truths(phases, config_phases, ref_dir, set_name, level)
    own = [config_phases[i] if config_phases and i < len(config_phases) else {} for i in range(len(phases))]
    folders = [o.get("_reference_data", ref_dir) for o in own]
    sets = [o.get("_set", set_name if "_reference_data" not in o else None) for o in own]
    identities = [(os.path.realpath(f), c) for f, c in zip(folders, sets)]
    truths, of_phase = [], []
    for i, phase in enumerate(phases):
        private = own[i].get("_private")
        phase_level = HIDDEN if private else own[i].get("_report", level)
        found = [t for t in truths if (os.path.realpath(t.ref_dir), t.set_name) == identities[i]]
        if not found:
            try:
                read = read_reference(slug, folders[i], sets[i])
            except BundleError as e:
                raise BundleError("phase %r: %s" % (phase["name"], e)) if len(phases) > 1 else e
            whole = ids = secret = n_items = None
            if private is not None:
                whole = read
                sharing = [p["name"] for p, ident in zip(phases, identities) if ident == identities[i]]
                items = registry.get(slug).item_ids(read.reference)
                ids, secret = draw_private(slug, private, items, sharing)
                n_items = len(items)
                read = public_part(slug, whole, ids, sets[i])
            found = [GroundTruth(len(truths), folders[i], sets[i], phase_level, private, read, [], whole, ids,
                                 secret, n_items)]
            truths.extend(found)
        found[0].phases.append(phase["name"])
        of_phase.append(found[0].index)
    return truths, of_phase


def check_hidden_classes(slug: str, truths: List[GroundTruth], drop_classes: List[str]) -> None:
    """A hidden phase's leaderboard columns are the competition's declared classes (minus organizer.yaml's
    drop_classes), never what its labels happen to hold: a declared class without a positive in a hidden phase's
    reference (its public part, with a private part) is an error naming the class and the two ways out. A
    drop_classes name that is no class of the competition is an error too."""
    task = registry.get(slug)
    declared = [c for c in (class_of(k.key) for k in task.column_table(truths[0].read.reference)) if c]
    unknown = [c for c in drop_classes if c not in declared]
    if unknown:
        raise BundleError("drop_classes: %s %s not a class of %s (its classes: %s)"
                          % (", ".join(unknown), "is" if len(unknown) == 1 else "are", slug, ", ".join(declared)))
    for t in truths:
        if t.level != HIDDEN:
            continue
        empty = [c for c in task.classes_without_positives(t.read.reference) if c not in drop_classes]
        if empty:
            raise BundleError("phase(s) %s (hidden): class%s %s %s no positive in %s: a leaderboard column made "
                              "from hidden labels would tell it; add positives of %s (more data%s), or drop %s in "
                              "organizer.yaml (drop_classes: [%s]: %s column%s left off the leaderboard)"
                              % (", ".join(t.phases), "es" if len(empty) > 1 else "", ", ".join(empty),
                                 "have" if len(empty) > 1 else "has", "the public part of its reference data" if
                                 t.private is not None else "its reference data", "them" if len(empty) > 1 else
                                 "it", ", or another private split" if t.private is not None else "",
                                 "them" if len(empty) > 1 else "it", ", ".join(empty),
                                 "their" if len(empty) > 1 else "its", "s" if len(empty) > 1 else ""))


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
        data = reference_zip(t.read.reference, t.level, track, t.private_ids)
        check_bundled_reference(slug, data, t.read.columns)
        zips.append(data)
        where = "phase(s) %s: " % ", ".join(t.phases) if len(truths) > 1 else ""
        warnings += [where + w for w in t.read.warnings]
        notes += ["%sleaderboard column %s dropped (no submission can fill it): %s" % (where, k, why)
                  for k, why in t.read.dropped.items()]
    return zips, warnings, notes
