"""chalearn-lap2015-cultural-event: ChaLearn LAP 2015 cultural event recognition, mean average precision.

The original evaluate.py is lost; the documented rule (precision made non-increasing, AP = area under it) is the
VOC2010+ all-points AP (metrics.ap.ap_voc2010).
"""
from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from ..errors import SubmissionError, quote_some
from ..formats.cultural import CATEGORIES, parse_confidences, read_confidences, read_labels, reference_categories
from ..formats.cultural import submitted_files
from ..formats.files import WARNING, NearMiss, first_hint, ignored_warnings, with_hint
from ..formats.text import check_known, read_bytes
from ..metrics.ap import ap_voc2010, pr_curve
from ..metrics.ranking import stable_descending_order
from ..report.result import Result, ScoreKey, Series, Table, precision_recall_plots
from .base import Reference, Task, no_progress

PROTOCOL = [
    "ChaLearn LAP 2015 cultural event recognition. The original evaluate.py is lost; the challenge page documents "
    "precision made non-increasing (precision at recall r = the maximum precision at any recall >= r) and AP = the "
    "area under that curve by numerical integration, which the second edition's page calls the trapezoidal rule. "
    "This scorer computes the VOC2010+ 'all points' AP (VOCap.m): recall 0 / precision 0 prepended, recall 1 / "
    "precision 0 appended, sum of (r_i - r_{i-1}) * p_i where recall changes. The trapezoidal rule over the "
    "non-increasing curve at the ranked points gives the same number only when that curve starts at (recall 0, "
    "precision of the first ranked point) and ends at the last ranked point: started at (0, 0) it gives r_1 * p_1 / "
    "2 less, closed at (1, 0) it gives (1 - r_n) * p_n / 2 more when the ranking stops below recall 1.",
    "For each category, the lines '<image id> <confidence>' of <Category>.txt are ranked by descending "
    "confidence, with a STABLE sort: ties keep the order of the lines in the file.",
    "An image of the reference that the file does not mention is not ranked, but it still counts in the number "
    "of positives (so leaving out a positive image lowers the recall the ranking can reach). An id that is not in "
    "the category's reference list, or an id listed twice, is an error.",
    "Reference label 1 is a true positive, -1 a false positive. rec = tp / #positives, prec = tp / (tp + fp), "
    "cumulated down the ranking.",
    "A missing category file gives AP 0 for that category. A category without a positive image in the reference "
    "has no AP: its key is not written and it is left out of the mean. mAP = mean over the categories that have "
    "an AP. The categories are those of the reference data (one file per category). A submission without any "
    "category file is an error.",
]


def category_ap(idx, conf, labels):
    """AP of one category: submitted lines (reference index idx, confidence conf) ranked stably by descending
    confidence; unranked reference images count only in #positives. Returns (ap or None, rec, prec)."""
    npos = int(np.count_nonzero(labels > 0))
    order = stable_descending_order(conf)
    ranked = labels[idx[order]]
    rec, prec = pr_curve(ranked > 0, ranked < 0, npos)
    if npos == 0:
        return None, rec, prec
    return ap_voc2010(rec, prec), rec, prec


def load_reference(ref_dir):
    """The category files of ref (reference_categories) and their labels: a Reference whose data is
    [(category, ids, labels)] in the seed's order."""
    cats = reference_categories(ref_dir)
    files = [os.path.basename(path) for _, path in cats]
    return Reference(ref_dir, files, [(c,) + tuple(read_labels(path, "ref/" + f))
                                      for (c, path), f in zip(cats, files)])


def empty_columns(reference):
    """{AP_<category>: reason} for the categories without a positive image: their AP is never written."""
    return OrderedDict(("AP_" + cat, "%s: no positive image in %s" % (cat, f))
                       for (cat, _, labels), f in zip(reference.data, reference.files) if not np.any(labels > 0))


class ChalearnLap2015CulturalEvent(Task):
    slug = "chalearn-lap2015-cultural-event"
    title = "ChaLearn LAP 2015 cultural event recognition (mAP)"

    def column_table(self, reference=None):
        cats = list(CATEGORIES) if reference is None else [c for c, _, _ in reference.data]
        keys = [ScoreKey("mAP", "mAP")]
        keys += [ScoreKey("AP_" + c, "AP " + c.replace("_", " ")) for c in cats]
        return keys

    def load_reference(self, ref_dir, set_name=None, progress=no_progress):
        return load_reference(ref_dir)

    def empty_columns(self, reference):
        return empty_columns(reference)

    def reference_warnings(self, reference):
        out = ["%s: %r is not one of the %d categories of the 2015 challenge: scored as a category of its own"
               % (f, cat, len(CATEGORIES)) for (cat, _, _), f in zip(reference.data, reference.files)
               if cat not in CATEGORIES]
        return out + list(empty_columns(reference).values())

    def score(self, ref_dir, submission, progress=no_progress, private=False):
        reference = self.reference(ref_dir)
        gts = [(ids, labels) for _, ids, labels in reference.data]
        names = [c for c, _, _ in reference.data]
        files, ignored = submitted_files(submission, names)
        if not files:
            raise SubmissionError(expected="one file <Category>.txt per category (e.g. %s.txt)" % names[0],
                                  found=("no such file; files present: %s" % quote_some(ignored)) if ignored
                                  else "an empty submission")
        res = Result(self.title)
        res.protocol = list(PROTOCOL)
        rows, aps, series, missing, nopos = [], [], [], [], []
        for k, (cat, (ids, labels)) in enumerate(zip(names, gts)):
            progress(k, len(names), "categories")
            npos = int(np.count_nonzero(labels > 0))
            path = files.get(cat)
            if path is None:
                ap, nlines, unranked_pos = (0.0 if npos else None), 0, npos
                missing.append(cat)
            else:
                idx, conf, nlines = read_confidences(path, submission.label(path), ids)
                ap, rec, prec = category_ap(idx, conf, labels)
                ranked = np.zeros(ids.size, dtype=bool)
                ranked[idx] = True
                unranked_pos = int(np.count_nonzero((labels > 0) & ~ranked))
                if ap is not None and rec.size:
                    series.append(Series(cat.replace("_", " "), rec, prec))
            if ap is None:
                nopos.append(cat)
            else:
                res.set("AP_" + cat, ap)
                aps.append(ap)
            rows.append([cat, float("nan") if ap is None else ap, npos, int(np.count_nonzero(labels < 0)), nlines,
                         ids.size - (0 if path is None else nlines), unranked_pos,
                         "missing" if path is None else submission.label(path)])
        progress(len(names), len(names), "categories")
        res.scores["mAP"] = float(np.mean(aps)) if aps else 0.0
        res.scores.move_to_end("mAP", last=False)
        res.tables.append(Table("Per-category average precision", ["category", "AP", "positives", "negatives",
                                                                   "ranked lines", "unranked images",
                                                                   "unranked positives", "file"], rows,
                                note="n/a: no positive image in the reference; left out of the mean."))
        res.plots.extend(precision_recall_plots(series))
        if missing:
            res.notes.append("%d category file(s) missing, AP 0: %s." % (len(missing), quote_some(missing, 50)))
        for cat in nopos:
            res.notes.append("n/a: no positive image for %s in the reference; AP_%s is not written and the category "
                             "is left out of the mean." % (cat, cat))
        unranked = [r for r in rows if r[7] != "missing" and r[6] > 0]
        if unranked:
            res.notes.append("%d category file(s) leave out positive images (not ranked, still counted in the "
                             "positives): %s." % (len(unranked), quote_some([r[0] for r in unranked], 10)))
        if ignored:
            res.notes.append("Files not read: %s." % quote_some(ignored, 10))
        return res

    def validate(self, submission, ids=None):
        files, ignored = submitted_files(submission, list(CATEGORIES))
        hint = NearMiss(c + ".txt" for c in CATEGORIES if c not in files)
        # the competition's categories are the first edition's 50; another .txt name is read only if the reference
        # data has such a category (a later edition's), unless it is a near miss of one of the 50 (a typo)
        extra = [n for n in ignored if n.endswith(".txt") and not hint(n)]
        paths = [(submission.label(path), n) for n, path in submission.files()]
        near = [(label, n) for label, n in paths if n in ignored and n not in extra]
        unsure = [(label, n) for label, n in paths if n in extra]

        def why(name):
            reason = "no category %r" % name[:-4] if name.endswith(".txt") else "only <Category>.txt files are read"
            return reason, hint(name)

        if not files:
            error = SubmissionError(expected="one file <Category>.txt per category (e.g. La_Tomatina.txt)",
                                    found="none (files present: %s)" % (quote_some(submission.names()) or "none"))
            raise with_hint(error, first_hint(near, why))
        notes = []
        for cat in sorted(files):
            label = submission.label(files[cat])
            notes.append("%s: %d lines" % (label, self._check_file(files[cat], label, ids)))
        missing = [c for c in CATEGORIES if c not in files]
        notes.insert(0, "%d category file(s)" % len(files))
        if missing:
            notes.append("no file for: %s (those categories score AP 0)" % quote_some(missing, 50))
        if unsure:
            notes.append("%s%d file(s) name no category of the 50: each is read only if the reference data has such "
                         "a category (a later edition's): %s" % (WARNING, len(unsure),
                                                                  quote_some([label for label, _ in unsure], 10)))
        for label, name in unsure:
            if sum(n == name for _, n in unsure) > 1:
                continue                # two files of one name: an error only if the scorer looks for that name
            try:
                self._check_file(submission.find(name), label, ids)
            except SubmissionError as e:
                notes.append("%s%s would be an error if the reference data had a category %r: %s"
                             % (WARNING, label, name[:-4], e.render().split(": ", 1)[1]))
        notes += ignored_warnings(near, why)
        return notes

    @staticmethod
    def _check_file(path, label, ids):
        """validate's checks of one category file (syntax; with --ids, unknown image ids): its number of lines."""
        sub_ids, _, rec = parse_confidences(read_bytes(path, label), label)
        if ids is not None:
            check_known(sub_ids, np.isin(sub_ids, ids), rec, "image id")
        return len(rec)


TASK = ChalearnLap2015CulturalEvent()
