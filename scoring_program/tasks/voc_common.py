"""Helpers shared by the VOC adapters: the evaluated set, result-file names, comp-number mixing, and the
per-name ranked-list AP loop of classification and action classification."""
from __future__ import annotations

import os
import re
from collections import OrderedDict

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some
from ..formats.files import NearMiss, first_hint, ignored_warnings, with_hint, without_extension
from ..metrics.classification import voc_cls_ap
from ..report.result import Series, Table, precision_recall_plots
from .base import Reference


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


def no_positive_columns(names, labels_of, key_prefix, what, where):
    """{key_prefix + name: reason} for the names whose ground truth has no positive (label > 0).

    labels_of(k): the labels of names[k]; what: what a positive is ('image', 'person'); where(name): the file."""
    out = OrderedDict()
    for k, name in enumerate(names):
        if not np.any(labels_of(k) > 0):
            out[key_prefix + name] = "%s: no positive %s in %s" % (name, what, where(name))
    return out


def result_name_rx(kind):
    """comp<N>_<kind>_<rest>.txt: a file the scorer reads as a result (and rejects if <rest> is not <set>_<name>)."""
    return re.compile(r"comp(\d+)_%s_(.+)\.txt" % kind)


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
        comp = int(m.group(1))
        if comp not in comps:
            raise SubmissionError(label, expected="a file name starting with %s" % " or ".join(
                "comp%d_%s_" % (c, kind) for c in comps), found="comp%d" % comp)
        rest = m.group(2)
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


def load_ranked_lists(ref_dir, folder, names, read, set_name=None):
    """The ground-truth lists ImageSets/<folder>/<name>_<set>.txt of every name, all VOCevalcls.m and
    VOCevalaction.m read: a Reference whose data is [(keys, labels)] in names order. read(path, label) ->
    (keys, labels)."""
    set_name = find_set(os.path.join(str(ref_dir), "ImageSets", folder), names, "ref/ImageSets/" + folder,
                        set_name=set_name)
    files = ["ImageSets/%s/%s_%s.txt" % (folder, name, set_name) for name in names]
    gts = [read(os.path.join(str(ref_dir), f), "ref/" + f) for f in files]
    return Reference(ref_dir, files, gts, set_name)


def ranked_list_empty_columns(reference, names, item):
    """{AP_<name>: reason} for the names whose list has no positive (label 1): their AP is never written."""
    return no_positive_columns(names, lambda k: reference.data[k][1], "AP_", item,
                               lambda name: reference.files[names.index(name)])


def ranked_list_warnings(reference, folder, names, words, also_known=()):
    """Lists of the chosen set for a name outside the competition's names (never read), and names whose list has
    no positive: one line each."""
    out = []
    for f, name in foreign_list_names(os.path.join(reference.root, "ImageSets", folder), reference.set_name,
                                      set(names) | set(also_known)):
        out.append("ImageSets/%s/%s: %r is not one of the competition's %d %s: the file is not bundled and never "
                   "scored" % (folder, f, name, len(names), words.names))
    out.extend(ranked_list_empty_columns(reference, names, words.item).values())
    return out


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
    ('difficult' / 'ignored (0)').
    """

    def __init__(self, kind, name, names, item, line_id, zero_column):
        self.kind = kind
        self.name = name
        self.names = names
        self.item = item
        self.line_id = line_id
        self.zero_column = zero_column


def score_ranked_lists(res, submission, names, gts, files, read, comp, set_name, words, progress):
    """The per-name loop of VOCevalcls.m / VOCevalaction.m: AP of each name's result file against its GT list.

    gts[k] is (keys, labels) of names[k]'s ground-truth list; files maps name -> result path (a missing one
    scores AP 0, or n/a without positives); read(path, label, keys) -> formats.voc.ConfidenceFile. Fills res:
    AP_<name> scores and mAP first (the mean over the names that have an AP), notes, duplicate warnings, the
    per-name table and the precision/recall plots, five curves each.
    """
    rows, aps, series = [], [], []
    for k, name in enumerate(names):
        progress(k, len(names), words.names)
        keys, labels = gts[k]
        npos = int(np.count_nonzero(labels > 0))
        path = files.get(name)
        nlines = ndup = 0
        rec = prec = np.zeros(0)
        if path is None:
            ap = 0.0 if npos else None
            res.notes.append("%s: no result file (comp%d_%s_%s_%s.txt): AP 0."
                             % (name, comp, words.kind, set_name, name) if npos
                             else "%s: no result file, and no positives in the ground truth." % name)
        else:
            label = submission.label(path)
            cf = read(path, label, keys)
            nlines, ndup = cf.nlines, cf.nduplicates
            if ndup:
                res.warnings.append("%s: %d duplicate %s line(s), first at line %d; the LAST line of each %s was "
                                    "used (as the devkit does)." % (label, ndup, words.line_id,
                                                                    cf.first_duplicate_line, words.line_id))
            if nlines == 0:
                res.notes.append("%s: empty result file: every %s ranked at -inf in ground-truth order."
                                 % (label, words.item))
            ap, rec, prec = voc_cls_ap(cf.confidence, labels)
        if ap is None:
            res.notes.append("n/a: no positive %s for %s in the ground truth; AP_%s is not written and the %s is "
                             "left out of the mean." % (words.item, name, name, words.name))
        else:
            res.set("AP_" + name, ap)
            aps.append(ap)
            if rec.size:
                series.append(Series(name, rec, prec))
        rows.append([name, float("nan") if ap is None else ap, npos, int(np.count_nonzero(labels < 0)),
                     int(np.count_nonzero(labels == 0)), nlines, ndup,
                     "missing" if path is None else submission.label(path)])
    progress(len(names), len(names), words.names)
    res.scores["mAP"] = float(np.mean(aps)) if aps else 0.0
    res.scores.move_to_end("mAP", last=False)
    res.tables.append(Table("Per-%s average precision (comp%d, set '%s')" % (words.name, comp, set_name),
                            [words.name, "AP", "positives", "negatives", words.zero_column, "result lines",
                             "duplicate lines", "file"], rows))
    res.plots.extend(precision_recall_plots(series))
