"""voc2011-classification: PASCAL VOC2011 comp1/comp2, VOCevalcls.m + VOCap.m exactly."""
from __future__ import annotations

import os

import numpy as np

from ..formats.text import check_known, parse_table, read_bytes, to_float
from ..formats.voc import VOC_CLASSES, read_confidences, read_gt_labels
from ..report.result import Result, ScoreKey
from .base import Task, no_progress
from .voc_common import RankedListWords, find_set, infer_set, result_files, score_ranked_lists

PROTOCOL = [
    "PASCAL VOC2011 classification (comp1: VOC training data only; comp2: any training data), scored as the "
    "official devkit's VOCevalcls.m and VOCap.m do (the VOC2012 devkit's evaluation is identical).",
    "Every image of the class's ground-truth list starts at confidence -inf; each line '<id> <confidence>' of "
    "the result file sets its image's confidence. When an id appears twice, the LAST line wins. An id that is "
    "not in the list is an error.",
    "Images are ranked by descending confidence with a STABLE sort over the ground-truth list order: ties, and "
    "every image the file does not mention (still at -inf), keep ground-truth list order. Missing images are "
    "therefore ranked last, not dropped.",
    "Label 1 is a true positive, -1 a false positive, 0 (difficult) neither, at any rank. rec = tp/#positives, "
    "prec = tp/(tp+fp), cumulated down the ranking.",
    "AP (VOC2010+ 'all points'): recall 0 / precision 0 prepended, recall 1 / precision 0 appended, precision "
    "made non-increasing from the right, and the sum of (r_i - r_{i-1}) * p_i over every index where recall "
    "changes.",
    "An empty result file ranks every image at -inf (AP of the ground-truth list order, as the original). A "
    "missing result file gives AP 0 for that class (participants may tackle a subset). A class without "
    "positives has no AP: its key is not written and it is left out of the mean. mAP is the mean over the "
    "classes that have an AP.",
]
WORDS = RankedListWords(kind="cls", name="class", names="classes", item="image", line_id="id",
                        zero_column="difficult")


class Voc2011Classification(Task):
    slug = "voc2011-classification"
    title = "PASCAL VOC2011 classification (comp1/comp2)"
    comps = (1, 2)

    def score_keys(self, ref_dir=None):
        keys = [ScoreKey("mAP", "mAP")]
        keys += [ScoreKey("AP_" + c, "AP " + c) for c in VOC_CLASSES]
        return keys

    def _set(self, ref_dir):
        main = os.path.join(str(ref_dir), "ImageSets", "Main")
        return main, find_set(main, VOC_CLASSES, "ref/ImageSets/Main")

    def score(self, ref_dir, submission, progress=no_progress):
        main, set_name = self._set(ref_dir)
        # reference first: a broken reference is reported as such, whatever the submission
        gts = []
        for cls in VOC_CLASSES:
            gts.append(read_gt_labels(os.path.join(main, "%s_%s.txt" % (cls, set_name)),
                                      "ref/ImageSets/Main/%s_%s.txt" % (cls, set_name)))
        comp, files, ignored = result_files(submission, "cls", self.comps, set_name, VOC_CLASSES, "cls")
        res = Result(self.title)
        res.protocol = list(PROTOCOL)
        score_ranked_lists(res, submission, VOC_CLASSES, [(keys, labels) for keys, labels, _ in gts], files,
                           read_confidences, comp, set_name, WORDS, progress)
        if ignored:
            res.notes.append("Files not read: %s." % ", ".join(ignored[:10]))
        return res

    def validate(self, submission, ids=None):
        notes = []
        set_name = infer_set(submission, "cls", VOC_CLASSES, self.comps)
        comp, files, ignored = result_files(submission, "cls", self.comps, set_name, VOC_CLASSES, "cls")
        for cls, path in files.items():
            label = submission.label(path)
            rec = parse_table(read_bytes(path, label), label, 2)
            to_float(rec, 1, "confidence")
            if ids is not None:
                check_known(rec.cols[0], np.isin(rec.cols[0], ids), rec, "image id")
            notes.append("%s: %d lines" % (label, len(rec)))
        missing = [c for c in VOC_CLASSES if c not in files]
        notes.insert(0, "comp%d, set '%s', %d of 20 classes" % (comp, set_name, len(files)))
        if missing:
            notes.append("no file for: %s (those classes will score AP 0)" % ", ".join(missing))
        return notes


TASK = Voc2011Classification()
