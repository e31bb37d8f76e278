"""Helpers shared by the VOC adapters: the evaluated set, result-file names, comp-number mixing, and the
per-name ranked-list AP loop of classification and action classification."""
from __future__ import annotations

import os
import re

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some
from ..metrics.classification import voc_cls_ap
from ..report.result import Series, Table, precision_recall_plots


def find_set(list_dir, names, ref_label, suffix=".txt"):
    """The one image-set name `<set>` for which `<name>_<set>.txt` exists for every name (e.g. 'test')."""
    if not os.path.isdir(list_dir):
        raise ReferenceDataError(ref_label, message="folder is missing")
    sets = {}
    for f in os.listdir(list_dir):
        for n in names:
            if f.startswith(n + "_") and f.endswith(suffix):
                sets.setdefault(f[len(n) + 1:-len(suffix)], set()).add(n)
    complete = sorted(s for s, have in sets.items() if len(have) == len(names))
    if len(complete) != 1:
        raise ReferenceDataError(ref_label, expected="list files <name>_<set>.txt of exactly one set for each of "
                                 "%d names" % len(names), found="complete sets %s" % (complete or "none"))
    return complete[0]


def result_files(submission, prefix_rx, comps, set_name, names, kind):
    """Map name -> path for files `comp<N>_<kind>_<set>_<name>.txt`; N in comps, one N per submission.

    Files that look like results of this task but name another set, another comp or an unknown name are
    errors (a typo would otherwise silently score 0). Returns (comp, {name: path}, ignored file names).
    """
    rx = re.compile(r"comp(\d+)_%s_(.+)\.txt" % prefix_rx)
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


def infer_set(submission, kind, names, comps):
    """For validation without the reference: the one set name `<set>` used by files comp<N>_<kind>_<set>_<name>.txt."""
    sets = set()
    for fname in submission.names():
        if fname.startswith("comp") and "_%s_" % kind in fname:
            rest = fname.split("_%s_" % kind, 1)[1]
            for name in names:
                if rest.endswith("_%s.txt" % name):
                    sets.add(rest[:-len(name) - 5])
    if len(sets) != 1:
        raise SubmissionError(expected="result files comp%d_%s_<set>_<name>.txt of one set" % (comps[0], kind),
                              found="sets %s" % (sorted(sets) or "none"))
    return sets.pop()


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
