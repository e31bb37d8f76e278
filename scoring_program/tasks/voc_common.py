"""Helpers shared by the VOC adapters: the evaluated set, result-file names, comp-number mixing, and the
per-name ranked-list AP loop of classification and action classification."""
from __future__ import annotations

import os
import re
from collections import OrderedDict
from typing import Dict, List, NamedTuple, Tuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some
from ..formats.hints import NearMiss, first_hint, ignored_warnings, with_hint, without_extension
from ..formats.text import check_known, parse_table, read_bytes, to_float, to_int
from ..formats.voc import ConfidenceFile, read_confidences, read_gt_labels
from ..metrics.ap import ap_voc2010
from ..metrics.classification import ap_split_at, interpolated_precision_at, voc_cls_ranking
from ..metrics.ranking import rank_of
from ..report.result import LOST, Bars, Own, Result, ScoreKey, Series, Table, precision_recall_plots
from .base import Reference, Task, as_text, no_progress, write_withheld_copy


def complete_sets(list_dir, names, ref_label, suffix=".txt"):
    """The image-set names `<set>` for which `<name>_<set>.txt` exists for every name, sorted (e.g. ['test'])."""
    if not os.path.isdir(list_dir):
        raise ReferenceDataError(ref_label, message="folder is missing")
    sets = {}
    for f in os.listdir(list_dir):
        for n in names:
            if f.startswith(n + "_") and f.endswith(suffix):
                sets.setdefault(f[len(n) + 1:-len(suffix)], set()).add(n)
    return sorted(s for s, have in sets.items() if len(have) == len(names))


def choose_set(sets, set_name, ref_label, expected):
    """The set to read: set_name (which must be one of sets), or the only one. expected: what the folder holds,
    in words ('list files <name>_<set>.txt of exactly one set for each of 20 names')."""
    if set_name is None:
        if len(sets) != 1:
            raise ReferenceDataError(ref_label, expected=expected, found="%s" % (
                "complete sets %s" % ", ".join(sets) if sets else "no complete set"))
        return sets[0]
    if set_name not in sets:
        raise ReferenceDataError(ref_label, message="no image set %r" % set_name,
                                 found="complete sets %s" % (", ".join(sets) or "none"))
    return set_name


def find_set(list_dir, names, ref_label, suffix=".txt", set_name=None):
    """The image-set name `<set>` for which `<name>_<set>.txt` exists for every name (e.g. 'test'): set_name, or
    the only complete set."""
    return choose_set(complete_sets(list_dir, names, ref_label, suffix), set_name, ref_label,
                      "list files <name>_<set>.txt of exactly one set for each of %d names" % len(names))


def plain_sets(list_dir, ref_label):
    """The image sets of a folder such as ImageSets/Main: every `<set>.txt` without '_', sorted."""
    if not os.path.isdir(str(list_dir)):
        raise ReferenceDataError(ref_label, message="folder is missing")
    return sorted(f[:-4] for f in os.listdir(str(list_dir)) if f.endswith(".txt") and "_" not in f)


def find_plain_set(list_dir, ref_label, set_name=None):
    """set_name, or the one image set `<set>.txt` (without '_') of a folder such as ImageSets/Main."""
    return choose_set(plain_sets(list_dir, ref_label), set_name, ref_label, "exactly one image-set list <set>.txt")


def foreign_list_names(list_dir, set_name, known):
    """Files `<name>_<set>.txt` of the chosen set whose <name> is not in known: (file name, name) pairs, sorted."""
    suffix = "_%s.txt" % set_name
    out = []
    for f in sorted(os.listdir(list_dir)):
        if f.endswith(suffix) and len(f) > len(suffix) and f[:-len(suffix)] not in known:
            out.append((f, f[:-len(suffix)]))
    return out


def map_columns(names) -> List[ScoreKey]:
    """The VOC leaderboard: mAP (the ranking column), then AP_<name> for each class, action or part."""
    return [ScoreKey("mAP", "mAP")] + [ScoreKey("AP_" + n, "AP " + n) for n in names]


def distinct_images(keys) -> int:
    """The number of distinct images of '<image id> <object index>' person keys (the participant's figures)."""
    return len(set(k.split()[0] for k in as_text(keys)))


def item_names(keys) -> List[str]:
    """Item ids ('S' keys) as the Decomposition and the WITHHELD file name them (undecodable bytes kept by
    surrogateescape, so that withheld_keys gives the same bytes back)."""
    return [k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else str(k) for k in np.asarray(keys).tolist()]


def withheld_keys(items) -> np.ndarray:
    """The ids of a set of item names (item_names, a WITHHELD file's lines) as an 'S' array, for np.isin."""
    return np.array([i.encode("utf-8", "surrogateescape") for i in sorted(items)], dtype="S")


def replace_spans(data: bytes, starts, ends, replacement: bytes) -> bytes:
    """data with each byte range [starts[i], ends[i]) (ascending and disjoint) replaced by `replacement`: the
    other bytes unchanged, in one pass (a mask of the bytes kept, then every replacement inserted at once)."""
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    if starts.size == 0:
        return data
    n = len(data)
    inside = np.cumsum(np.bincount(starts, minlength=n + 1) - np.bincount(ends, minlength=n + 1))[:n] > 0
    kept = np.frombuffer(data, dtype=np.uint8)[~inside]
    removed_before = np.concatenate([[0], np.cumsum(ends - starts)[:-1]])
    at = starts - removed_before                           # where each range began, among the bytes kept
    rep = np.frombuffer(replacement, dtype=np.uint8)
    return np.insert(kept, np.repeat(at, rep.size), np.tile(rep, starts.size)).tobytes()


def result_name_rx(kind):
    """comp<N>_<kind>_<rest>.txt: a file the scorer reads as a result (and rejects if <rest> is not <set>_<name>)."""
    return re.compile(r"comp(\d+)_%s_(.+)\.txt" % kind)


def track_comps(reference, comps):
    """The comps a reference ranks: its track's alone (a TRACK file: odd and even comps rank in separate
    competitions), else all of the task's."""
    track = getattr(reference, "track", None)
    if track is None:
        return tuple(comps)
    if track not in comps:
        from ..errors import ReferenceDataError
        raise ReferenceDataError("ref/TRACK", line=1, expected="one of %s" % ", ".join("comp%d" % c for c in comps),
                                 public=False)
    return (track,)


def comp_expected(comps, comp, prefixes):
    """What a file of a comp outside comps should have been: prefixes(c) is the name's start for comp c."""
    if len(comps) == 1:
        return ("a file name starting with %s (this competition ranks the comp%d track only; a comp%d entry ranks "
                "in its own track's competition)" % (prefixes(comps[0]), comps[0], comp))
    return "a file name starting with %s" % " or ".join(prefixes(c) for c in comps)


def devkit_comp(label, digits, comps, prefixes, devkit_name):
    """The comp number of a result name's comp<digits>, which must be one of comps and written as the devkit
    writes it: VOCinit.m's ids are 'comp1' ... 'comp10' and a result file's name is sprintf'ed from the id
    (VOCopts.detrespath '%s_det_<set>_%s.txt'), so 'comp03_det_...' is no file the devkit reads; it is refused
    with the devkit's name (devkit_name(comp)). prefixes(c): the name's start for comp c (comp_expected)."""
    comp = int(digits)
    if comp not in comps:
        raise SubmissionError(label, expected=comp_expected(comps, comp, prefixes), found="comp" + digits)
    if digits != str(comp):
        raise SubmissionError(label, expected="the devkit's name %s (comp numbers have no leading zero)"
                              % devkit_name(comp), found="comp" + digits)
    return comp


def result_files(submission, prefix_rx, comps, set_name, names, kind):
    """Map name -> path for files `comp<N>_<kind>_<set>_<name>.txt`; N in comps, one N per submission.

    Files that look like results of this task but name another set, another comp or an unknown name are
    errors (a typo would otherwise silently score 0). Returns (comp, {name: path}, ignored file names).
    """
    rx = result_name_rx(prefix_rx)
    found, ignored, comp_seen = {}, [], {}
    for fname in submission.names():
        m = rx.fullmatch(fname)
        if not m:
            ignored.append(fname)
            continue
        path = submission.find(fname)
        label = submission.label(path)
        rest = m.group(2)
        comp = devkit_comp(label, m.group(1), comps, lambda c: "comp%d_%s_" % (c, kind),
                           lambda c: "comp%d_%s_%s.txt" % (c, kind, rest))
        if not rest.startswith(set_name + "_"):
            raise SubmissionError(label, expected="results for the '%s' set: comp%d_%s_%s_<name>.txt"
                                  % (set_name, comp, kind, set_name), found=repr(fname))
        name = rest[len(set_name) + 1:]
        if name not in names:
            raise SubmissionError(label, expected="one of the names %s" % ", ".join(names),
                                  found=repr(name))
        comp_seen.setdefault(comp, label)
        if len(comp_seen) > 1:
            a, b = sorted(comp_seen)
            raise SubmissionError(label, message="one submission may not mix comp%d and comp%d results "
                                  "(also %s)" % (a, b, comp_seen[a if comp == b else b]))
        found[name] = path
    if not found:
        raise SubmissionError(expected="result files named comp%d_%s_%s_<name>.txt (e.g. comp%d_%s_%s_%s.txt)"
                              % (comps[0], kind, set_name, comps[0], kind, set_name, names[0]),
                              found=("no such file; files present: %s" % quote_some(ignored)) if ignored
                              else "an empty submission")
    comp = next(iter(comp_seen))
    return comp, found, ignored


def infer_set(submission, kind, names, comps):
    """For validation without the reference: the set name `<set>` of the files comp<N>_<kind>_<set>_<name>.txt.

    Files of a known name give it (two sets is an error: the scorer rejects the files of any set but its own);
    else a file that looks like a result of an unknown name gives the part before its last '_', so that
    result_files names that fault as the scorer would; else a near-miss name ('comp3_det_val_person.csv' -> 'val',
    for the hint); else 'test'.
    """
    rx = result_name_rx(kind)
    sets, guesses = set(), []
    for fname in submission.names():
        m = rx.fullmatch(fname)
        if m is None:
            continue
        rest = m.group(2)
        ends = [rest[:-len(n) - 1] for n in names if rest.endswith("_" + n) and len(rest) > len(n) + 1]
        if ends:
            sets.add(ends[0])
        elif "_" in rest:
            guesses.append(rest.rsplit("_", 1)[0])
    if len(sets) > 1:
        raise SubmissionError(expected="result files comp%d_%s_<set>_<name>.txt of one set" % (comps[0], kind),
                              found="sets %s" % sorted(sets))
    if sets:
        return sets.pop()
    if guesses:
        return sorted(guesses)[0]
    near = sorted(s for s in (_near_miss_set(f) for f in submission.names()) if s)
    return near[0] if near else "test"


def _near_miss_set(fname):
    """The set a near-miss result name seems to use: 'Comp3-det-VAL-person.csv' -> 'val'; None if it has no
    comp<N>_<kind>_<set>_<name> shape."""
    tokens = re.split(r"[_\-\s]+", without_extension(fname).lower())
    if len(tokens) >= 4 and re.fullmatch(r"comp\d+", tokens[0]):
        return "_".join(tokens[2:-1])
    return None


def validate_result_files(submission, kind, comps, set_name, names, word, view=None):
    """validate's side of result_files (the same rules, the same errors) plus the files the scorer will not read:
    (comp, {name: path}, warning lines, one per ignored file with a near-miss hint).

    word: how a name is written in the pattern ('<class>'); view: the submission as result_files sees it
    (voc2011-action leaves out its 'other' files), by default the submission itself. When no file at all looks
    like a result, the error says which file was probably meant.
    """
    view = submission if view is None else view
    rx = result_name_rx(kind)
    matched = {n: rx.fullmatch(n) for n in view.names()}
    seen = sorted({int(m.group(1)) for m in matched.values() if m and int(m.group(1)) in comps})
    use = seen or list(comps)
    present = set(submission.names())
    hint = NearMiss(c for c in ("comp%d_%s_%s_%s.txt" % (k, kind, set_name, n) for k in use for n in names)
                    if c not in present)
    pattern = "%s_%s_%s_%s.txt" % ("comp%d" % use[0] if len(use) == 1 else "comp<N>", kind, set_name, word)

    def why(name):
        return "only files named %s are read" % pattern, hint(name)

    ignored = [(submission.label(path), n) for n, path in submission.files() if n in matched and not matched[n]]
    try:
        comp, files, _ = result_files(view, kind, comps, set_name, names, kind)
    except SubmissionError as e:
        if any(matched.values()):
            raise
        raise with_hint(e, first_hint(ignored, why)) from None
    return comp, files, ignored_warnings(ignored, why)


class RankedListWords(object):
    """The words that differ between the reports of the ranked-list VOC tasks (VOCevalcls.m, VOCevalaction.m).

    kind: the file-name part of comp<N>_<kind>_<set>_<name>.txt ('cls' / 'action'); name, names: what gets an
    AP, singular and plural ('class', 'classes' / 'action', 'actions'); item: what is ranked ('image' / 'person');
    line_id: what a duplicate line repeats ('id' / 'person'); zero_column: the table header for the label-0 items
    ('difficult' / 'ignored (0)'); item_header: the column header of an item's id in the organizer's per-item
    tables (default: item).
    """

    def __init__(self, kind, name, names, item, line_id, zero_column, item_header=None):
        self.item_header = item_header or item
        self.kind = kind
        self.name = name
        self.names = names
        self.item = item
        self.line_id = line_id
        self.zero_column = zero_column


# ------------------------------------------------------------ the ranked-list tasks (VOCevalcls.m, VOCevalaction.m)
# the label a withheld item's line gets in a bundle's GT lists (RankedListTask.withhold): 0, neither a true nor a
# false positive, after one space, for every withheld item whatever its labels (restrict removes those items anyway)
BLANK_LABEL = b" 0"


class LabelList(NamedTuple):
    """One name's ground-truth list ImageSets/<folder>/<name>_<set>.txt, in file order. keys: (n,) bytes 'S' array,
    the item ids (classification: the image id; action: image id, a space and the object index as a number,
    formats.voc.join_keys); labels: (n,) int8, 1 positive, -1 negative, 0 difficult (classification) or neither
    (action)."""
    keys: np.ndarray
    labels: np.ndarray


class RankedListTruth(NamedTuple):
    """Reference.data of a ranked-list task: one LabelList per scored name, in the task's names order."""
    lists: List[LabelList]


class RankedListSubmission(NamedTuple):
    """A submission read for the ranked-list tasks: comp and set of its files, for each name that has a file
    (file label, formats.voc.ConfidenceFile mapped onto that name's GT list), the file names not read, and the
    result files of names that are never scored (voc2011-action's 'other')."""
    comp: int
    set_name: str
    files: OrderedDict
    ignored: list
    unscored: list


class RankedListRecord(NamedTuple):
    """One name's result. file: the result file's label (None: no file, AP 0 or n/a); ap: None without positives;
    order, rec, prec: the ranking (GT-list indices) and its curve, empty without a file; precision_at_half_recall
    and ap_half (area of the envelope over recall [0, 0.5], [0.5, 1]): NaN without a file or without positives."""
    name: str
    file: object
    nlines: int
    nduplicates: int
    first_duplicate_line: object
    keys: np.ndarray
    labels: np.ndarray
    confidence: np.ndarray
    ap: object
    order: np.ndarray
    rec: np.ndarray
    prec: np.ndarray
    precision_at_half_recall: float
    ap_half: tuple


class RankedListEvaluation(NamedTuple):
    """RankedListTask.evaluate's result: one RankedListRecord per name (in names order), the mAP, and the
    submission's files not read and not scored."""
    comp: int
    set_name: str
    records: list
    mean_ap: float
    ignored: list
    unscored: list


class _Without(object):
    """The submission seen without some of its files (voc2011-action's 'other' results, never scored)."""

    def __init__(self, submission, skip):
        self._sub = submission
        self._skip = set(skip)

    def names(self):
        return [n for n in self._sub.names() if n not in self._skip]

    def find(self, name):
        return self._sub.find(name)

    def label(self, path):
        return self._sub.label(path)


class RankedListTask(Task):
    """VOCevalcls.m and VOCevalaction.m: per name (class, action), a ground-truth list of items labelled 1, -1 or 0,
    and a result file that gives some of them a confidence; AP of the ranking, mAP over the names.

    A subclass declares: folder (ImageSets/<folder>), names (the scored names), unscored_names (names whose lists
    and result files exist but are never scored), words (RankedListWords), protocol (the report's text),
    key_fields (the fields of an item's id: 1, or 2 for image id and object index), numeric_fields (those compared
    as numbers), result_item (what a result line names, in messages), and with unscored_names, unscored_note and
    unscored_hint (the report's and validate's words for those files)."""
    has_sets = True
    comps = ()
    folder = ""
    names: Tuple[str, ...] = ()
    unscored_names: Tuple[str, ...] = ()
    words: RankedListWords = None
    key_fields = 1
    numeric_fields: Tuple[int, ...] = ()
    result_item = "image id"
    unscored_note = ""          # the report's note naming the unscored files submitted (%s: their names)
    unscored_hint = ""          # validate's note naming them (%s: their names)

    def column_table(self, reference=None) -> List[ScoreKey]:
        return map_columns(self.names)

    def reference_sets(self, ref_dir) -> List[str]:
        return complete_sets(os.path.join(str(ref_dir), "ImageSets", self.folder), self.names,
                             "ref/ImageSets/" + self.folder)

    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """The ground-truth lists ImageSets/<folder>/<name>_<set>.txt of every name, all VOCevalcls.m and
        VOCevalaction.m read (the set's plain list and the unscored names' lists are never read): a Reference
        whose data is a RankedListTruth."""
        folder = self.folder
        set_name = find_set(os.path.join(str(ref_dir), "ImageSets", folder), self.names, "ref/ImageSets/" + folder,
                            set_name=set_name)
        files = ["ImageSets/%s/%s_%s.txt" % (folder, name, set_name) for name in self.names]
        return Reference(ref_dir, files, RankedListTruth([self.read_gt_list(os.path.join(str(ref_dir), f), "ref/" + f)
                                                          for f in files]), set_name)

    def read_gt_list(self, path, label) -> LabelList:
        """One ground-truth list `<id> [<object index>] <label>`."""
        keys, labels, _ = read_gt_labels(path, label, nkey=self.key_fields, int_keys=self.numeric_fields)
        return LabelList(keys, labels)

    def read_result(self, path, label, gt_keys) -> ConfidenceFile:
        """One result file `<id> [<object index>] <confidence>` mapped onto its GT list (the last line of an item
        wins; an item that is not in the list is an error)."""
        return read_confidences(path, label, gt_keys, nkey=self.key_fields, what=self.result_item,
                                int_keys=self.numeric_fields)

    def empty_columns(self, reference) -> Dict[str, str]:
        """{AP_<name>: reason} for the names whose list has no positive (label 1): their AP is never written."""
        out = OrderedDict()
        for name, gt, where in zip(self.names, reference.data.lists, reference.files):
            if not np.any(gt.labels > 0):
                out["AP_" + name] = "%s: no positive %s in %s" % (name, self.words.item, where)
        return out

    def reference_warnings(self, reference) -> List[str]:
        """Lists of the chosen set for a name outside the competition's names (never read), and names whose list
        has no positive: one line each."""
        out = []
        for f, name in foreign_list_names(os.path.join(reference.root, "ImageSets", self.folder),
                                          reference.set_name, set(self.names) | set(self.unscored_names)):
            out.append("ImageSets/%s/%s: %r is not one of the competition's %d %s: the file is not bundled and "
                       "never scored" % (self.folder, f, name, len(self.names), self.words.names))
        out.extend(self.empty_columns(reference).values())
        return out

    def _unscored_files(self, submission, set_name):
        return [n for n in submission.names() for c in self.comps for u in self.unscored_names
                if n == "comp%d_%s_%s_%s.txt" % (c, self.words.kind, set_name, u)]

    def read_submission(self, submission, reference, progress) -> RankedListSubmission:
        """The result files comp<N>_<kind>_<set>_<name>.txt of the reference's set (N of the reference's track),
        each mapped onto its name's GT list, read in names order (the first faulty one is the one reported)."""
        kind, names = self.words.kind, self.names
        unscored = self._unscored_files(submission, reference.set_name)
        comp, paths, ignored = result_files(_Without(submission, unscored) if unscored else submission, kind,
                                            track_comps(reference, self.comps), reference.set_name, names, kind)
        files = OrderedDict()
        for k, (name, gt) in enumerate(zip(names, reference.data.lists)):
            progress(k, len(names), self.words.names)
            path = paths.get(name)
            if path is not None:
                label = submission.label(path)
                files[name] = (label, self.read_result(path, label, gt.keys))
        progress(len(names), len(names), self.words.names)
        return RankedListSubmission(comp, reference.set_name, files, list(ignored), unscored)

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> RankedListEvaluation:
        """VOCevalcls.m / VOCevalaction.m per name: the AP of the result file's ranking of the GT list (a missing
        file scores AP 0, or n/a without positives), its precision at 50% recall and the AP's two halves; mAP is
        the mean over the names that have an AP."""
        records, aps = [], []
        nan = float("nan")
        for name, (keys, labels) in zip(self.names, reference.data.lists):
            npos = int(np.count_nonzero(labels > 0))
            label, cf = submitted.files.get(name, (None, None))
            if cf is None:
                ap = 0.0 if npos else None
                records.append(RankedListRecord(name, None, 0, 0, None, keys, labels, np.zeros(0), ap,
                                                np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), nan,
                                                (nan, nan)))
            else:
                order, rec, prec, _ = voc_cls_ranking(cf.confidence, labels)
                ap = ap_voc2010(rec, prec) if npos else None          # voc_cls_ap, keeping the ranking
                half = interpolated_precision_at(rec, prec, 0.5) if npos else nan
                split = ap_split_at(rec, prec, 0.5) if npos else (nan, nan)
                records.append(RankedListRecord(name, label, cf.nlines, cf.nduplicates, cf.first_duplicate_line,
                                                keys, labels, cf.confidence, ap, order, rec, prec, half, split))
            if ap is not None:
                aps.append(ap)
        return RankedListEvaluation(submitted.comp, submitted.set_name, records,
                                    float(np.mean(aps)) if aps else 0.0, submitted.ignored, submitted.unscored)

    def ignored_files(self, submission, reference) -> List[str]:
        unscored = self._unscored_files(submission, reference.set_name)
        return validate_result_files(submission, self.words.kind, track_comps(reference, self.comps),
                                     reference.set_name, self.names, "<%s>" % self.words.name,
                                     view=_Without(submission, unscored) if unscored else None)[2]

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        kind, names, words = self.words.kind, self.names, self.words
        set_name = set_name or infer_set(submission, kind, names + self.unscored_names, self.comps)
        unscored = self._unscored_files(submission, set_name)
        comp, files, warnings = validate_result_files(submission, kind, self.comps, set_name, names,
                                                      "<%s>" % words.name,
                                                      view=_Without(submission, unscored) if unscored else None)
        notes = ["comp%d, set '%s', %d of %d %s" % (comp, set_name, len(files), len(names), words.names)]
        for path in files.values():
            label = submission.label(path)
            rec = parse_table(read_bytes(path, label), label, self.key_fields + 1)
            for k in self.numeric_fields:
                to_int(rec, k, "object index")
            to_float(rec, self.key_fields, "confidence")
            if ids is not None:
                keys = rec.keys(0, ids)
                check_known(keys, np.isin(keys, ids), rec, "image id", universe=ids)
            notes.append("%s: %d lines" % (label, len(rec)))
        missing = [n for n in names if n not in files]
        if missing:
            notes.append("no file for: %s (those %s will score AP 0)" % (", ".join(missing), words.names))
        if unscored:
            notes.append(self.unscored_hint % ", ".join(unscored))
        return notes + warnings

    def decompose(self, evaluation):
        """The mAP of the ranked lists on weighted items (the items are the union of the GT lists' ids): per name,
        VOCap.m on the weighted ranking (metrics.bootstrap.weighted_ap_voc2010); a name without a file scores 0, or
        n/a when its weighted positives are 0; the mean is over the names with an AP (0 when none has)."""
        from ..metrics.bootstrap import Decomposition, weighted_ap_voc2010
        items, index = item_index([r.keys for r in evaluation.records])
        n = len(items)

        def score(weights):
            aps = np.full((weights.shape[0], len(evaluation.records)), np.nan)
            for k, (r, idx) in enumerate(zip(evaluation.records, index)):
                pos = r.labels > 0
                npos = np.bincount(idx[pos], minlength=n)
                if r.file is None:
                    aps[:, k] = np.where(weights @ npos > 0, 0.0, np.nan)
                else:
                    lab = r.labels[r.order]
                    aps[:, k] = weighted_ap_voc2010(weights, idx[r.order], lab > 0, lab < 0, npos)
            counted = ~np.isnan(aps)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(counted, aps, 0.0).sum(axis=1) / counted.sum(axis=1)
            mean[counted.sum(axis=1) == 0] = 0.0
            return mean

        return Decomposition(self.words.item, item_names(items), score)

    # ------------------------------------------------------------ a private part whose labels are never uploaded
    def item_ids(self, reference) -> List[str]:
        """The items of the GT lists (images, or 'image object' persons), in order of first appearance: decompose's
        items."""
        return item_names(item_index([gt.keys for gt in reference.data.lists])[0])

    def withhold(self, reference, items, out_dir) -> None:
        """Every GT list with the label of each withheld item blanked: the line keeps the item's id as written (the
        submission is checked against it: an id not in the list is an error) and its label becomes BLANK_LABEL,
        the same for every withheld item whatever its labels. Every other line is kept byte for byte (the ranges
        replaced are located by the list's own parser, read_gt_labels)."""
        gone = withheld_keys(items)
        last_key, label_field = self.key_fields - 1, self.key_fields
        def blanked(rel, src):
            keys, _, rec = read_gt_labels(src, "ref/" + rel, nkey=self.key_fields, int_keys=self.numeric_fields)
            rows = np.flatnonzero(np.isin(keys, gone))
            if not rows.size:
                return None
            with open(src, "rb") as f:
                raw = f.read()
            # from the end of the item's id to the end of its label: ' -1' becomes BLANK_LABEL
            starts = rec.starts[last_key][rows].astype(np.int64) + rec.lengths[last_key][rows]
            ends = rec.starts[label_field][rows].astype(np.int64) + rec.lengths[label_field][rows]
            bom = raw[:len(raw) - len(rec.data)]               # read_bytes reads past a byte-order mark
            return bom + replace_spans(rec.data, starts, ends, BLANK_LABEL)
        write_withheld_copy(reference, out_dir, blanked)

    def restrict(self, reference, submitted, withheld):
        """Each GT list without the withheld items, and each result file's confidences (one per GT item) without
        theirs: the rankings, APs and mAP of the other items alone, as if neither list had held them. A result
        file's counts (lines, duplicate lines and the first of them) stay those of the whole file: the report's
        warnings and notes about them are facts of the submission, the same whichever items are withheld."""
        gone = withheld_keys(withheld)
        lists, files = [], OrderedDict()
        for name, gt in zip(self.names, reference.data.lists):
            keep = ~np.isin(gt.keys, gone)
            lists.append(LabelList(gt.keys[keep], gt.labels[keep]))
            if name in submitted.files:
                label, cf = submitted.files[name]
                files[name] = (label, cf._replace(confidence=cf.confidence[keep]))
        return reference.replaced(RankedListTruth(lists)), submitted._replace(files=files)

    def report(self, evaluation, private) -> Result:
        """The Result of a ranked-list task: AP_<name> scores and mAP first, notes and duplicate warnings, AP bars
        with the precision at 50% recall as a marker, "Where the points were lost", the per-name table and one
        precision/recall plot per name, the files not scored and not read; with private, the organizer's per-item
        tables."""
        words = self.words
        res = Result(self.title)
        comp, set_name = evaluation.comp, evaluation.set_name
        rows, lost, series = [], [], []
        for r in evaluation.records:
            name = r.name
            if r.file is None:      # which text depends on the ground truth (positives or none): withheld at hidden
                res.notes.append("%s: no result file (comp%d_%s_%s_%s.txt): AP 0."
                                 % (name, comp, words.kind, set_name, name) if r.ap is not None
                                 else "%s: no result file, and no positives in the ground truth." % name)
            else:
                # Own: the file's own lines. Every id it names is in the ground-truth list (an unknown one is an
                # error), and that list is the public test list (participants get the test images, and the persons'
                # boxes for actions), the same in every class's or action's file: a count of repeated ids is a fact
                # about the submission.
                if r.nduplicates:
                    res.warnings.append(Own("%s: %d duplicate %s line(s), first at line %d; the LAST line of each %s "
                                            "was used (as the devkit does)." % (r.file, r.nduplicates, words.line_id,
                                                                                r.first_duplicate_line, words.line_id)))
                if r.nlines == 0:
                    res.notes.append(Own("%s: empty result file: every %s ranked at -inf in ground-truth order."
                                         % (r.file, words.item)))
            if r.ap is None:
                res.notes.append("n/a: no positive %s for %s in the ground truth; AP_%s is not written and the %s is "
                                 "left out of the mean." % (words.item, name, name, words.name))
            else:
                res.set("AP_" + name, r.ap)
                lost.append([name, r.ap, r.precision_at_half_recall, 0.5 - r.ap_half[0], 0.5 - r.ap_half[1]])
                if r.rec.size:
                    series.append(Series("%s (AP %.4f)" % (name, r.ap), r.rec, r.prec))
            rows.append([name, _fixed4(r.ap), int(np.count_nonzero(r.labels > 0)),
                         int(np.count_nonzero(r.labels < 0)), int(np.count_nonzero(r.labels == 0)), r.nlines,
                         r.nduplicates, "missing" if r.file is None else "read"])
        res.scores["mAP"] = evaluation.mean_ap
        res.scores.move_to_end("mAP", last=False)
        if lost:
            res.bars.append(Bars("AP per %s (comp%d, set '%s')" % (words.name, comp, set_name), [l[0] for l in lost],
                                 [l[1] for l in lost], xlabel="AP", extra=[l[2] for l in lost],
                                 extra_label="precision at 50% recall",
                                 value_text=["%.4f (P@50%%R %s)" % (l[1], _fixed4(l[2])) for l in lost]))
            section = res.section(LOST)
            section.add(ranked_list_lost_intro(words))
            section.add(Table("AP and precision at 50%% recall per %s" % words.name,
                              [words.name, "AP", "precision at 50% recall", "AP lost over recall 0-0.5",
                               "AP lost over recall 0.5-1"], [[l[0]] + [_fixed4(v) for v in l[1:]] for l in lost],
                              note="n/a: no result file (AP 0, no ranking)." if any(l[2] != l[2] for l in lost)
                              else None))
        res.tables.append(Table("Per-%s average precision (comp%d, set '%s')" % (words.name, comp, set_name),
                                [words.name, "AP", "positives", "negatives", words.zero_column, "result lines",
                                 "duplicate lines", "result file"], rows,
                                note="Result files: comp%d_%s_%s_<%s>.txt." % (comp, words.kind, set_name, words.name)))
        res.plots.extend(precision_recall_plots(series))
        if evaluation.unscored:
            res.notes.append(Own(self.unscored_note % ", ".join(evaluation.unscored)))
        if evaluation.ignored:
            res.notes.append(Own("Files not read: %s." % ", ".join(evaluation.ignored[:10])))
        if private:
            res.private.extend(ranked_list_private_tables(evaluation, words))
        return res


def item_index(key_lists):
    """The union of several id arrays in order of first appearance, and each array's indices into it."""
    allkeys = np.concatenate([np.asarray(k) for k in key_lists]) if key_lists else np.zeros(0, dtype="S1")
    uniq, first, inverse = np.unique(allkeys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    inverse = rank_of(order)[inverse]
    out, start = [], 0
    for k in key_lists:
        out.append(inverse[start:start + len(k)])
        start += len(k)
    return uniq[order], out


def ranked_list_lost_intro(words):
    return ("Per %s, from the ranking the AP is computed on (stable order, %ss missing from the file at -inf in "
            "list order, label 0 neither a true nor a false positive). Precision at 50%% recall: the precision of "
            "VOCap's interpolated envelope at recall 0.5, that is the largest precision at any rank of the ranking "
            "where at least half of the positives have been ranked. The AP is the area under that envelope; the "
            "AP lost (1 - AP) is split at recall 0.5: over recall 0-0.5, negatives ranked among the first half "
            "of the positives; over recall 0.5-1, the second half of the positives ranked late."
            % (words.name, words.item))


def _fixed4(v):
    return "n/a" if v is None or v != v else "%.4f" % (round(v, 4) + 0.0)     # never "-0.0000"


def _confidence_text(c):
    return "%.6g" % c if np.isfinite(c) else "not in the file"


def _item_texts(keys):
    return np.char.decode(np.asarray(keys), "utf-8", "replace")


def ranked_list_private_tables(evaluation, words, top_negatives=10):
    """For the organizer: every positive with its rank and the negatives ranked above it (what cost AP), and each
    name's highest-ranked negatives with the positives ranked below them."""
    positives, negatives = [], []
    for r in evaluation.records:
        if r.file is None:
            continue
        ranked = r.labels[r.order]
        items = _item_texts(r.keys[r.order])
        conf = r.confidence[r.order]
        fp_above = np.cumsum(ranked < 0) - (ranked < 0)
        tp_below = np.count_nonzero(ranked > 0) - np.cumsum(ranked > 0)
        for i in np.flatnonzero(ranked > 0):
            positives.append([r.name, items[i], int(i) + 1, _confidence_text(conf[i]), int(fp_above[i])])
        for i in np.flatnonzero(ranked < 0)[:top_negatives]:
            negatives.append([r.name, items[i], int(i) + 1, _confidence_text(conf[i]), int(tp_below[i])])
    return [Table("Positives per %s in rank order (organizer only)" % words.name,
                  [words.name, words.item_header, "rank", "confidence", "negatives ranked above"], positives),
            Table("The %d highest-ranked negatives per %s (organizer only)" % (top_negatives, words.name),
                  [words.name, words.item_header, "rank", "confidence", "positives ranked below"], negatives)]
