"""chalearn-lap2015-cultural-event: ChaLearn LAP 2015 cultural event recognition, mean average precision.

The original evaluate.py is lost; the documented rule (precision made non-increasing, AP = area under it) is the
VOC2010+ all-points AP (metrics.ap.ap_voc2010).
"""
from __future__ import annotations

import numpy as np

from ..errors import SubmissionError, quote_some
from ..formats.cultural import CATEGORIES, parse_confidences, read_confidences, read_labels, reference_categories
from ..formats.cultural import submitted_files
from ..formats.text import check_known, read_bytes
from ..metrics.ap import ap_voc2010, pr_curve
from ..metrics.ranking import stable_descending_order
from ..report.result import Result, ScoreKey, Series, Table, precision_recall_plots
from .base import Task, no_progress

PROTOCOL = [
    "ChaLearn LAP 2015 cultural event recognition. The original evaluate.py is lost; its documented rule is "
    "followed: precision made non-increasing (precision at recall r = the maximum precision at any recall >= r), "
    "AP = the area under that curve. This is the VOC2010+ 'all points' AP (VOCap.m): recall 0 / precision 0 "
    "prepended, recall 1 / precision 0 appended, sum of (r_i - r_{i-1}) * p_i where recall changes.",
    "For each category, the lines '<image id> <confidence>' of <Category>.txt are ranked by descending "
    "confidence, with a STABLE sort: ties keep the order of the lines in the file.",
    "An image of the reference that the file does not mention is not ranked, but it still counts in the number "
    "of positives (so leaving out a positive image lowers the recall the ranking can reach). An id that is not in "
    "the category's reference list, or an id listed twice, is an error.",
    "Reference label 1 is a true positive, -1 a false positive. rec = tp / #positives, prec = tp / (tp + fp), "
    "cumulated down the ranking.",
    "A missing category file gives AP 0 for that category. A category without a positive image in the reference "
    "has no AP: its key is not written and it is left out of the mean. mAP = mean over the categories that have "
    "an AP. The categories are those of the reference data (one file per category).",
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


class ChalearnLap2015CulturalEvent(Task):
    slug = "chalearn-lap2015-cultural-event"
    title = "ChaLearn LAP 2015 cultural event recognition (mAP)"

    def categories(self, ref_dir=None):
        if ref_dir is None:
            return list(CATEGORIES)
        return [c for c, _ in reference_categories(ref_dir)]

    def score_keys(self, ref_dir=None):
        keys = [ScoreKey("mAP", "mAP")]
        keys += [ScoreKey("AP_" + c, "AP " + c.replace("_", " ")) for c in self.categories(ref_dir)]
        return keys

    def score(self, ref_dir, submission, progress=no_progress):
        cats = reference_categories(ref_dir)
        gts = [read_labels(path, "ref/" + path.replace("\\", "/").rsplit("/", 1)[-1]) for _, path in cats]
        names = [c for c, _ in cats]
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
        extra = [n for n in ignored if n.endswith(".txt")]
        notes = []
        if not files and not extra:
            raise SubmissionError(expected="one file <Category>.txt per category (e.g. La_Tomatina.txt)",
                                  found="none (files present: %s)" % (quote_some(ignored) or "none"))
        for name in extra:      # categories beyond the first edition's 50: syntax only
            files[name[:-4]] = submission.find(name)
        for cat in sorted(files):
            label = submission.label(files[cat])
            sub_ids, _, rec = parse_confidences(read_bytes(files[cat], label), label)
            if ids is not None:
                check_known(sub_ids, np.isin(sub_ids, ids), rec, "image id")
            notes.append("%s: %d lines" % (label, len(rec)))
        missing = [c for c in CATEGORIES if c not in files]
        notes.insert(0, "%d category file(s)" % len(files))
        if extra:
            notes.append("not one of the 50 first-edition categories (checked for syntax only): %s"
                         % quote_some(extra, 10))
        if missing:
            notes.append("no file for: %s (those categories score AP 0)" % quote_some(missing, 50))
        return notes


TASK = ChalearnLap2015CulturalEvent()
