"""voc2011-action: PASCAL VOC2011 action classification comp9/comp10, VOCevalaction.m + VOCap.m exactly.

The rules are those of classification (VOCevalcls.m) with a person -- (image id, object index) -- in place of an
image. VOCevalaction.m keys persons by sprintf('%s/%d', id, obj) after reading the object index with %d, so the
index is compared as a NUMBER ('01' is person 1): we canonicalize the index column before matching.
"""
from __future__ import annotations

from typing import Dict

from .base import Reference, Rule, class_figures, plural
from .voc_common import RankedListTask, RankedListWords, distinct_images

ACTIONS = ("jumping", "phoning", "playinginstrument", "reading", "ridingbike", "ridinghorse", "running",
           "takingphoto", "usingcomputer", "walking")
WORDS = RankedListWords(kind="action", name="action", names="actions", item="person", line_id="person",
                        zero_column="ignored (0)", item_header="person (image id, object index)")

PROTOCOL = [
    Rule("scope", "PASCAL VOC2011 action classification taster (comp9: VOC training data only; comp10: any training "
                  "data), scored as the official devkit's VOCevalaction.m and VOCap.m do (the VOC2012 devkit's "
                  "evaluation is identical). The action 'other' is never scored."),
    Rule("person", "A person is an (image id, object index) pair of the action's ground-truth list "
                   "ImageSets/Action/<action>_<set>.txt. Every person starts at confidence -inf; each line '<id> "
                   "<object index> <confidence>' of the result file sets its person's confidence. The object index is "
                   "compared as a number ('01' is 1). When a person appears twice, the LAST line wins. A person that "
                   "is not in the list is an error."),
    Rule("ranking", "Persons are ranked by descending confidence with a STABLE sort over the ground-truth list order: "
                    "ties, and every person the file does not mention (still at -inf), keep ground-truth list order. "
                    "Missing persons are therefore ranked last, not dropped."),
    Rule("labels", "Label 1 is a true positive, -1 a false positive, 0 neither (still ranked). rec = tp/#positives, "
                   "prec = tp/(tp+fp), cumulated down the ranking."),
    Rule("ap", "AP (VOC2010+ 'all points'): recall 0 / precision 0 prepended, recall 1 / precision 0 appended, "
               "precision made non-increasing from the right, and the sum of (r_i - r_{i-1}) * p_i over every index "
               "where recall changes."),
    Rule("empty_file", "An empty result file ranks every person at -inf (AP of the ground-truth list order, as the "
                       "original). mAP is the mean over the actions that have an AP. A submission without any result "
                       "file of this task is an error."),
    Rule("departures", "Departures from the devkit: a missing result file gives AP 0 for that action (participants "
                       "may tackle a subset; the devkit stops with an error); an action without positives has no AP, "
                       "its key is not written and it is left out of the mean (the devkit divides 0 by 0)."),
]


class Voc2011Action(RankedListTask):
    """Reference.data: voc_common.RankedListTruth, the lists ImageSets/Action/<action>_<set>.txt of the 10 actions
    (keys: 'image id' + ' ' + object index as a number; labels 1, -1, 0). 'other' and the set's plain list are
    never read, and a result file for 'other' is never scored."""
    slug = "voc2011-action"
    title = "PASCAL VOC2011 action classification (comp9/comp10)"
    comps = (9, 10)
    folder = "Action"
    names = ACTIONS
    unscored_names = ("other",)
    words = WORDS
    protocol = PROTOCOL
    key_fields = 2              # image id, object index
    numeric_fields = (1,)       # VOCevalaction.m reads the object index with %d: '01' is person 1
    result_item = "person"
    unscored_note = "Not scored ('other' is a distractor, never evaluated): %s."
    unscored_hint = "not scored ('other' is never evaluated): %s"

    def figures(self, reference: Reference, columns) -> Dict[str, str]:
        keys = reference.data.lists[0].keys
        out = {"images": plural(distinct_images(keys), "image"), "persons": plural(len(keys), "person")}
        out.update(class_figures(columns, "action"))
        return out


TASK = Voc2011Action()
