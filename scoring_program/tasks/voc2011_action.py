"""voc2011-action: PASCAL VOC2011 action classification comp9/comp10, VOCevalaction.m + VOCap.m exactly.

The rules are those of classification (VOCevalcls.m) with a person -- (image id, object index) -- in place of an
image. VOCevalaction.m keys persons by sprintf('%s/%d', id, obj) after reading the object index with %d, so the
index is compared as a NUMBER ('01' is person 1): we canonicalize the index column before matching.
"""
from __future__ import annotations

import os

import numpy as np

from ..formats.text import check_known, parse_table, read_bytes, to_float, to_int
from ..formats.voc import ConfidenceFile, read_confidences, read_gt_labels
from ..report.result import Own, ScoreKey
from .base import Task, no_progress
from .voc_common import (RankedListWords, complete_sets, evaluate_ranked_lists, infer_set, load_ranked_lists,
                         ranked_list_decomposition, ranked_list_empty_columns, ranked_list_warnings,
                         read_ranked_lists, report_ranked_lists, result_files, track_comps,
                         validate_result_files)

ACTIONS = ("jumping", "phoning", "playinginstrument", "reading", "ridingbike", "ridinghorse", "running",
           "takingphoto", "usingcomputer", "walking")
WHAT = "person"
WORDS = RankedListWords(kind="action", name="action", names="actions", item="person", line_id="person",
                        zero_column="ignored (0)", item_header="person (image id, object index)")

PROTOCOL = [
    "PASCAL VOC2011 action classification taster (comp9: VOC training data only; comp10: any training data), "
    "scored as the official devkit's VOCevalaction.m and VOCap.m do (the VOC2012 devkit's evaluation is "
    "identical). The action 'other' is never scored.",
    "A person is an (image id, object index) pair of the action's ground-truth list ImageSets/Action/"
    "<action>_<set>.txt. Every person starts at confidence -inf; each line '<id> <object index> <confidence>' "
    "of the result file sets its person's confidence. The object index is compared as a number ('01' is 1). "
    "When a person appears twice, the LAST line wins. A person that is not in the list is an error.",
    "Persons are ranked by descending confidence with a STABLE sort over the ground-truth list order: ties, and "
    "every person the file does not mention (still at -inf), keep ground-truth list order. Missing persons are "
    "therefore ranked last, not dropped.",
    "Label 1 is a true positive, -1 a false positive, 0 neither (still ranked). rec = tp/#positives, "
    "prec = tp/(tp+fp), cumulated down the ranking.",
    "AP (VOC2010+ 'all points'): recall 0 / precision 0 prepended, recall 1 / precision 0 appended, precision "
    "made non-increasing from the right, and the sum of (r_i - r_{i-1}) * p_i over every index where recall "
    "changes.",
    "An empty result file ranks every person at -inf (AP of the ground-truth list order, as the original). mAP is "
    "the mean over the actions that have an AP. A submission without any result file of this task is an error.",
    "Departures from the devkit: a missing result file gives AP 0 for that action (participants may tackle a "
    "subset; the devkit stops with an error); an action without positives has no AP, its key is not written and "
    "it is left out of the mean (the devkit divides 0 by 0).",
]


def read_gt_persons(path, label):
    """ImageSets/Action/<action>_<set>.txt: (keys, labels int8) in list order; the index is a number."""
    keys, labels, _ = read_gt_labels(path, label, nkey=2, int_keys=(1,))
    return keys, labels


def read_person_confidences(path, label, gt_keys) -> ConfidenceFile:
    """A comp9/comp10 result file mapped onto the GT list (last line of a person wins; unknown persons are an
    error), with the object index matched as a number as VOCevalaction.m's sprintf('%s/%d') does."""
    return read_confidences(path, label, gt_keys, nkey=2, what=WHAT, int_keys=(1,))


class _WithoutOther(object):
    """The submission seen without comp<N>_action_<set>_other.txt files ('other' is never scored)."""

    def __init__(self, submission, skip):
        self._sub = submission
        self._skip = set(skip)

    def names(self):
        return [n for n in self._sub.names() if n not in self._skip]

    def find(self, name):
        return self._sub.find(name)

    def label(self, path):
        return self._sub.label(path)


def _other_files(submission, comps, set_name):
    return [n for n in submission.names() for c in comps if n == "comp%d_action_%s_other.txt" % (c, set_name)]


def read_submission(submission, reference, progress=no_progress):
    """The comp9/comp10 result files of the reference's set, each mapped onto its action's GT list, and the
    'other' files (never scored)."""
    other = _other_files(submission, Voc2011Action.comps, reference.set_name)
    found = result_files(_WithoutOther(submission, other), "action", track_comps(reference, Voc2011Action.comps),
                         reference.set_name, ACTIONS, "action")
    return read_ranked_lists(submission, reference, ACTIONS, found, read_person_confidences, WORDS, progress), other


def report(evaluation, other=(), private=False):
    res = report_ranked_lists(Voc2011Action.title, PROTOCOL, evaluation, WORDS, private)
    if other:
        res.notes.append(Own("Not scored ('other' is a distractor, never evaluated): %s." % ", ".join(other)))
    if evaluation.ignored:
        res.notes.append(Own("Files not read: %s." % ", ".join(evaluation.ignored[:10])))
    return res


class Voc2011Action(Task):
    slug = "voc2011-action"
    title = "PASCAL VOC2011 action classification (comp9/comp10)"
    comps = (9, 10)

    has_sets = True

    def column_table(self, reference=None):
        return [ScoreKey("mAP", "mAP")] + [ScoreKey("AP_" + a, "AP " + a) for a in ACTIONS]

    def reference_sets(self, ref_dir):
        return complete_sets(os.path.join(str(ref_dir), "ImageSets", "Action"), ACTIONS, "ref/ImageSets/Action")

    def load_reference(self, ref_dir, set_name=None, progress=no_progress):
        """ImageSets/Action/<action>_<set>.txt of the 10 actions (all VOCevalaction.m reads; 'other' and the set's
        plain list are never read); data: [(keys, labels)]."""
        return load_ranked_lists(ref_dir, "Action", ACTIONS, read_gt_persons, set_name)

    def empty_columns(self, reference):
        return ranked_list_empty_columns(reference, ACTIONS, WORDS.item)

    def reference_warnings(self, reference):
        return ranked_list_warnings(reference, "Action", ACTIONS, WORDS, also_known=("other",))

    def evaluate(self, ref_dir, submission, progress=no_progress, per_item=False):
        reference = self.reference(ref_dir)
        sub, other = read_submission(submission, reference, progress)
        return evaluate_ranked_lists(reference, ACTIONS, sub), other

    def report(self, evaluation, private=False):
        return report(evaluation[0], evaluation[1], private)

    def decompose(self, evaluation):
        return ranked_list_decomposition(evaluation[0], "person")

    def validate(self, submission, ids=None):
        set_name = infer_set(submission, "action", ACTIONS + ("other",), self.comps)
        other = _other_files(submission, self.comps, set_name)
        comp, files, warnings = validate_result_files(submission, "action", self.comps, set_name, ACTIONS,
                                                      "<action>", view=_WithoutOther(submission, other))
        notes = ["comp%d, set '%s', %d of %d actions" % (comp, set_name, len(files), len(ACTIONS))]
        for act, path in files.items():
            label = submission.label(path)
            rec = parse_table(read_bytes(path, label), label, 3)
            to_int(rec, 1, "object index")
            to_float(rec, 2, "confidence")
            if ids is not None:
                keys = rec.keys(0, ids)
                check_known(keys, np.isin(keys, ids), rec, "image id")
            notes.append("%s: %d lines" % (label, len(rec)))
        missing = [a for a in ACTIONS if a not in files]
        if missing:
            notes.append("no file for: %s (those actions will score AP 0)" % ", ".join(missing))
        if other:
            notes.append("not scored ('other' is never evaluated): %s" % ", ".join(other))
        return notes + warnings


TASK = Voc2011Action()
