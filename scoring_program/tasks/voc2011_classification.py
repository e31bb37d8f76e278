"""voc2011-classification: PASCAL VOC2011 comp1/comp2, VOCevalcls.m + VOCap.m exactly (voc_common.RankedListTask
with an image in each ranked list)."""
from __future__ import annotations

from typing import Dict

from ..formats.voc import VOC_CLASSES
from .base import Reference, Rule, as_text, class_figures, plural
from .voc_common import RankedListTask, RankedListWords

PROTOCOL = [
    Rule("scope", "PASCAL VOC2011 classification (comp1: VOC training data only; comp2: any training data), scored as "
                  "the official devkit's VOCevalcls.m and VOCap.m do (the VOC2012 devkit's evaluation is identical)."),
    Rule("confidence", "Every image of the class's ground-truth list starts at confidence -inf; each line '<id> "
                       "<confidence>' of the result file sets its image's confidence. When an id appears twice, the "
                       "LAST line wins. An id that is not in the list is an error."),
    Rule("ranking", "Images are ranked by descending confidence with a STABLE sort over the ground-truth list order: "
                    "ties, and every image the file does not mention (still at -inf), keep ground-truth list order. "
                    "Missing images are therefore ranked last, not dropped."),
    Rule("labels", "Label 1 is a true positive, -1 a false positive, 0 (difficult) neither, at any rank. rec = "
                   "tp/#positives, prec = tp/(tp+fp), cumulated down the ranking."),
    Rule("ap", "AP (VOC2010+ 'all points'): recall 0 / precision 0 prepended, recall 1 / precision 0 appended, "
               "precision made non-increasing from the right, and the sum of (r_i - r_{i-1}) * p_i over every index "
               "where recall changes."),
    Rule("empty_file", "An empty result file ranks every image at -inf (AP of the ground-truth list order, as the "
                       "original). mAP is the mean over the classes that have an AP. A submission without any result "
                       "file of this task is an error."),
    Rule("departures", "Departures from the devkit: a missing result file gives AP 0 for that class (participants may "
                       "tackle a subset; the devkit stops with an error); a class without positives has no AP, its "
                       "key is not written and it is left out of the mean (the devkit divides 0 by 0)."),
]
WORDS = RankedListWords(kind="cls", name="class", names="classes", item="image", line_id="id",
                        zero_column="difficult")


class Voc2011Classification(RankedListTask):
    """Reference.data: voc_common.RankedListTruth, the lists ImageSets/Main/<class>_<set>.txt of the 20 classes
    (keys: image ids; labels 1, -1, 0 difficult)."""
    slug = "voc2011-classification"
    title = "PASCAL VOC2011 classification (comp1/comp2)"
    comps = (1, 2)
    folder = "Main"
    names = VOC_CLASSES
    words = WORDS
    protocol = PROTOCOL

    def figures(self, reference: Reference, columns) -> Dict[str, str]:
        ids = set()
        for gt in reference.data.lists:
            ids.update(as_text(gt.keys))
        out = {"images": plural(len(ids), "image")}
        out.update(class_figures(columns, "class", "classes"))
        return out

    def kit_extras(self, reference: Reference) -> Dict[str, bytes]:
        """The set's plain image list ImageSets/Main/<set>.txt, which the kit's baseline reads and scoring never
        does (so the reference does not hold it): <set>.txt, the ids of the first class's list."""
        ids = as_text(reference.data.lists[0].keys)
        return {"%s.txt" % reference.set_name: "".join(i + "\n" for i in ids).encode("utf-8")}


TASK = Voc2011Classification()
