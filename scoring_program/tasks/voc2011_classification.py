"""voc2011-classification: PASCAL VOC2011 comp1/comp2, VOCevalcls.m + VOCap.m exactly."""
from __future__ import annotations

import os

import numpy as np

from ..formats.text import check_known, parse_table, read_bytes, to_float
from ..formats.voc import VOC_CLASSES, read_confidences, read_gt_labels
from ..report.result import Own, ScoreKey
from .base import Task, no_progress
from .voc_common import (RankedListWords, complete_sets, evaluate_ranked_lists, infer_set, load_ranked_lists,
                         ranked_list_decomposition, ranked_list_empty_columns, ranked_list_warnings,
                         read_ranked_lists, report_ranked_lists, result_files, track_comps,
                         validate_result_files)

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
    "An empty result file ranks every image at -inf (AP of the ground-truth list order, as the original). mAP is "
    "the mean over the classes that have an AP. A submission without any result file of this task is an error.",
    "Departures from the devkit: a missing result file gives AP 0 for that class (participants may tackle a "
    "subset; the devkit stops with an error); a class without positives has no AP, its key is not written and it "
    "is left out of the mean (the devkit divides 0 by 0).",
]
WORDS = RankedListWords(kind="cls", name="class", names="classes", item="image", line_id="id",
                        zero_column="difficult")


def read_class_list(path, label):
    """ImageSets/Main/<class>_<set>.txt: (keys, labels) in list order."""
    keys, labels, _ = read_gt_labels(path, label)
    return keys, labels


def read_submission(submission, reference, progress=no_progress):
    """The comp1/comp2 result files of the reference's set, each mapped onto its class's GT list."""
    found = result_files(submission, "cls", track_comps(reference, Voc2011Classification.comps), reference.set_name,
                         VOC_CLASSES, "cls")
    return read_ranked_lists(submission, reference, VOC_CLASSES, found, read_confidences, WORDS, progress)


def report(evaluation, private=False):
    res = report_ranked_lists(Voc2011Classification.title, PROTOCOL, evaluation, WORDS, private)
    if evaluation.ignored:
        res.notes.append(Own("Files not read: %s." % ", ".join(evaluation.ignored[:10])))
    return res


class Voc2011Classification(Task):
    slug = "voc2011-classification"
    title = "PASCAL VOC2011 classification (comp1/comp2)"
    comps = (1, 2)
    has_sets = True

    def column_table(self, reference=None):
        keys = [ScoreKey("mAP", "mAP")]
        keys += [ScoreKey("AP_" + c, "AP " + c) for c in VOC_CLASSES]
        return keys

    def reference_sets(self, ref_dir):
        return complete_sets(os.path.join(str(ref_dir), "ImageSets", "Main"), VOC_CLASSES, "ref/ImageSets/Main")

    def load_reference(self, ref_dir, set_name=None, progress=no_progress):
        """ImageSets/Main/<class>_<set>.txt of the 20 classes (all VOCevalcls.m reads); data: [(keys, labels)]."""
        return load_ranked_lists(ref_dir, "Main", VOC_CLASSES, read_class_list, set_name)

    def empty_columns(self, reference):
        return ranked_list_empty_columns(reference, VOC_CLASSES, WORDS.item)

    def reference_warnings(self, reference):
        return ranked_list_warnings(reference, "Main", VOC_CLASSES, WORDS)

    def evaluate(self, ref_dir, submission, progress=no_progress, per_item=False):
        reference = self.reference(ref_dir)
        return evaluate_ranked_lists(reference, VOC_CLASSES, read_submission(submission, reference, progress))

    def report(self, evaluation, private=False):
        return report(evaluation, private)

    def decompose(self, evaluation):
        return ranked_list_decomposition(evaluation, "image")

    def validate(self, submission, ids=None):
        notes = []
        set_name = infer_set(submission, "cls", VOC_CLASSES, self.comps)
        comp, files, warnings = validate_result_files(submission, "cls", self.comps, set_name, VOC_CLASSES,
                                                      "<class>")
        for cls, path in files.items():
            label = submission.label(path)
            rec = parse_table(read_bytes(path, label), label, 2)
            to_float(rec, 1, "confidence")
            if ids is not None:
                keys = rec.keys(0, ids)
                check_known(keys, np.isin(keys, ids), rec, "image id")
            notes.append("%s: %d lines" % (label, len(rec)))
        missing = [c for c in VOC_CLASSES if c not in files]
        notes.insert(0, "comp%d, set '%s', %d of 20 classes" % (comp, set_name, len(files)))
        if missing:
            notes.append("no file for: %s (those classes will score AP 0)" % ", ".join(missing))
        return notes + warnings


TASK = Voc2011Classification()
