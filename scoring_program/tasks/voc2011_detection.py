"""voc2011-detection: PASCAL VOC2011 comp3/comp4, VOCevaldet.m + VOCap.m exactly (order-free vectorized form)."""
from __future__ import annotations

import os
from collections import OrderedDict
from typing import Dict, List, NamedTuple, Tuple

import numpy as np

from ..errors import ReferenceDataError
from ..formats.voc import VOC_CLASSES
from ..formats.hints import WARNING, box_hint
from ..formats.voc_det import IMAGE_INDEX, Detections, check_boxes, id_index, read_detections
from ..formats.voc_xml import read_annotation, read_id_list
from ..metrics.ap import ap_voc2010, pr_curve
from ..metrics.bootstrap import Decomposition
from ..metrics.detection import voc_ap_of_flags, voc_det_map_on_weighted_images, voc_det_match, voc_flags
from ..metrics.ranking import kept_index
from ..metrics.tide import (ERROR_TYPES, TideErrors, TideResult, false_positive_errors_plus1, missed_objects,
                            tide_delta_ap)
from ..report.result import (LOST, Bars, Own, Result, ScoreKey, Series, Table, precision_recall_plots,
                             rank_blocks)
from .base import Reference, Rule, Task, class_figures, no_progress, plural, return_freed_memory, write_withheld_copy
from .voc_common import (find_plain_set, infer_set, map_columns, plain_sets, result_files, track_comps,
                         validate_result_files)

PROTOCOL = [
    Rule("scope", "PASCAL VOC2011 detection (comp3: VOC training data only; comp4: any training data), scored as the "
                  "official devkit's VOCevaldet.m and VOCap.m do (the VOC2012 devkit's evaluation is identical)."),
    Rule("ground_truth", "Ground truth: every object of the class in the annotations of the images of "
                         "ImageSets/Main/<set>.txt; the number of positives is the number of those objects that are "
                         "not marked difficult."),
    Rule("ranking", "Detections '<id> <confidence> <xmin> <ymin> <xmax> <ymax>' are ranked by descending confidence "
                    "with a STABLE sort: ties keep result-file order."),
    Rule("overlap", "Overlap uses the +1 pixel convention: iw = min(xmax) - max(xmin) + 1, ih likewise, counted only "
                    "when both are > 0; union = (w_d+1)(h_d+1) + (w_g+1)(h_g+1) - iw*ih with w = xmax - xmin; overlap "
                    "= iw*ih / union."),
    Rule("candidate", "Each detection's candidate is the ground-truth object of the class in its image with the "
                      "largest overlap, over ALL of them (difficult ones included); on equal overlap the first in the "
                      "annotation's XML order wins."),
    Rule("matching", "If that overlap is >= 0.5 (exactly 0.5 matches): a difficult candidate makes the detection "
                     "ignored (neither true nor false positive, it still takes its rank position); a candidate not "
                     "yet matched makes it a true positive; a candidate already matched by a higher-ranked detection "
                     "makes it a false positive, even when another object in the image is still free (no fallback to "
                     "the second best). Overlap < 0.5, or no object of the class in the image: false positive."),
    Rule("ap", "AP (VOC2010+ 'all points', VOCap.m): precision made non-increasing from the right, summed over every "
               "recall change. An empty result file gives AP 0. mAP is the mean over classes with an AP. A submission "
               "without any result file of this task is an error."),
    Rule("departures", "Departures from the devkit: a missing result file gives AP 0 for that class, noted "
                       "(participants may tackle a subset; the devkit stops with an error). A class without "
                       "non-difficult objects has no AP: not written, left out of the mean (the devkit divides 0 by 0 "
                       "when the class has detections, and gives AP 0, counted in a mean over all classes, when it "
                       "has none)."),
]


class DetectionTruth(NamedTuple):
    """Reference.data: the objects of the annotations of the set's images, in list order then XML order. ids: (n,)
    bytes 'S' image ids of ImageSets/Main/<set>.txt; per object (m of them): img (m,) int64 index into ids, cls (m,)
    int64 class index into VOC_CLASSES (-1: a name that is not a VOC class), boxes (m, 4) float64 xmin, ymin, xmax,
    ymax, difficult (m,) bool; foreign_names: {name that is not a VOC class: (objects, first image id)}."""
    ids: np.ndarray
    img: np.ndarray
    cls: np.ndarray
    boxes: np.ndarray
    difficult: np.ndarray
    foreign_names: Dict[str, Tuple[int, str]]


class Submitted(NamedTuple):
    """The result files read: comp, set name, {class: file label}, {class: Detections} (result-file order; the
    evaluation may release them class by class), the names of the files not read, boxes_warning on every file's
    boxes as read ('' when they look like pixel corners), empty: the classes whose result file holds no detection
    as read (the report's note: a fact of the file, the same after Task.restrict)."""
    comp: int
    set_name: str
    labels: dict
    detections: dict
    ignored: list
    box_warning: str = ""
    empty: frozenset = frozenset()


class ClassRecord(NamedTuple):
    """One class: AP (None without non-difficult objects), objects, difficult objects, detections, TP, FP, the
    precision/recall curve's rank blocks (report.result.rank_blocks: recall, precision; empty without the
    analyses), the result file's label (None: missing), the AP at overlap 0.75 (None without an AP or without the
    analyses)."""
    name: str
    ap: object
    npos: int
    ndifficult: int
    ndetections: int
    ntp: int
    nfp: int
    recall: np.ndarray
    precision: np.ndarray
    file: object
    ap75: object = None


class RankedDetections(NamedTuple):
    """Every detection of every class, class-major in VOCevaldet.m's rank order (n of them): cls (n,) int8 index
    into VOC_CLASSES, image (n,) int32 index into DetectionTruth.ids (empty unless per_item: the organizer's table
    and the bootstrap), confidence (n,) float64, tp, fp (n,) bool (neither: the candidate is difficult)."""
    cls: np.ndarray
    image: np.ndarray
    confidence: np.ndarray
    tp: np.ndarray
    fp: np.ndarray


class Evaluation(NamedTuple):
    """classes: ClassRecord per VOC class; ranked: RankedDetections; gt_matched: per object, matched by a true
    positive; tide: TideResult over the counted (not difficult) objects; tide_errors: TideErrors. Without the
    analyses tide and tide_errors are None, and so are ranked and gt_matched unless per_item."""
    submitted: Submitted
    gt: DetectionTruth
    classes: list
    ranked: RankedDetections
    gt_matched: np.ndarray
    tide: TideResult
    tide_errors: TideErrors


def counted_objects(gt) -> np.ndarray:
    """The objects TIDE takes as the ground truth: a VOC class, not difficult (indices into DetectionTruth)."""
    return np.flatnonzero((gt.cls >= 0) & ~gt.difficult)


class CountedBoxes(NamedTuple):
    """The counted objects (m of them, counted_objects) as TIDE reads them: index (m,) their indices into
    DetectionTruth, img (m,) int64 image index, cls (m,) int64 class, columns: four (m,) float64 arrays xmin, ymin,
    xmax, ymax (contiguous: faster to gather than the rows of DetectionTruth.boxes)."""
    index: np.ndarray
    img: np.ndarray
    cls: np.ndarray
    columns: list


def counted_boxes(gt) -> CountedBoxes:
    """CountedBoxes of DetectionTruth gt, made once for every class's class_errors."""
    counted = counted_objects(gt)
    return CountedBoxes(counted, gt.img[counted], gt.cls[counted], [gt.boxes[counted, k] for k in range(4)])


def class_errors(objects: CountedBoxes, det, match, cls, gt_matched) -> tuple:
    """metrics.tide.false_positive_errors of one class's ranked detections (det: its Detections, match: its DetMatch,
    cls: their class array), once the class is matched (gt_matched: per object of DetectionTruth): (kind, target),
    target indexing the counted objects. Each false positive meets the counted objects of its image through
    false_positive_errors_plus1 (the devkit's +1 IoU, no pair arrays: its memory stays bounded whatever an image
    holds)."""
    return false_positive_errors_plus1(cls, match.fp, match.order, det.image, det.boxes, objects.img, objects.columns,
                                       objects.cls, gt_matched[objects.index])


def tide_analysis(gt, ranked, gt_matched, kind, target):
    """TIDE on VOCevaldet.m's matching: the counted objects (VOC class, not difficult) are the ground truth; a
    detection whose candidate is difficult is neither TP nor FP and stays where it is. kind, target: every ranked
    detection's error type and target (class_errors, class after class): metrics.tide.classify_errors' values."""
    counted = counted_objects(gt)
    errors = TideErrors(kind, target, missed_objects(target, gt_matched[counted]))
    npos = np.bincount(gt.cls[counted], minlength=len(VOC_CLASSES))
    result = tide_delta_ap(ranked.cls, ranked.confidence, ranked.tp, ranked.fp, errors, gt.cls[counted],
                           gt_matched[counted], npos, len(VOC_CLASSES), voc_ap_of_flags)
    return result, errors


TIDE_LABELS = ("localization", "wrong class", "both (class and loc.)", "duplicate", "background", "missed GT")
TIDE_SHORT = ("Loc", "Cls", "Both", "Dupe", "Bkg", "Miss")        # TIDE's short names
TIDE_KEY = ("Loc: localization, Cls: wrong class, Both: class and localization, Dupe: duplicate, Bkg: background, "
            "Miss: missed ground truth (GT).")
TIDE_INTRO = (
    "Where the AP was lost, in the style of TIDE (Bolya et al., ECCV 2020): each false positive gets one error type, "
    "tested in this order: localization (best IoU with a ground truth (GT) of its class in [0.1, 0.5)), wrong class "
    "(IoU >= 0.5 with a GT of another class), duplicate (IoU >= 0.5 with a GT of its class already matched by a "
    "higher-ranked detection), background (IoU < 0.1 with every GT), both (none of these). A missed GT is one that "
    "no detection matched or came near (no localization or wrong-class error aims at it). dAP: the AP a class would "
    "gain if ONE error type were fixed by TIDE's oracle, every other result unchanged: a localization error takes "
    "its GT's box and becomes a true positive (only the best-scored error aiming at a free GT is fixed, the others "
    "are removed); a wrong-class detection moves to the GT's class as a true positive (same rule); duplicates, "
    "background and 'both' errors are removed; missed GTs leave the number of positives. Computed with %s.")


def tide_section(res, tide, names, matching, what="objects"):
    """The "Where the points were lost" section from a TideResult: the mean dAP per error type (bars), dAP and
    error counts per class (tables); only the classes with an AP."""
    scored = np.flatnonzero(~np.isnan(tide.ap))
    section = res.section(LOST, TIDE_INTRO % matching)
    if not scored.size:
        section.add("No class has an AP: nothing to analyse.")
        return
    mean = tide.dap[:, scored].mean(axis=1)
    top = max(0.04, float(np.ceil(mean.max() / 0.04 - 1e-9)) * 0.04)        # ticks at multiples of 0.01
    section.add(Bars("Mean AP gained over the %d classes if one error type were fixed (TIDE oracles)" % scored.size,
                     TIDE_LABELS, mean, xlabel="mean dAP over classes", xlim=(0.0, top)))
    mean_ap = float(tide.ap[scored].mean())
    if not mean.any() and mean_ap < 1.0:    # all 0 is not "nothing lost": say where the points went
        missed = int(tide.count[ERROR_TYPES.index("missed"), scored].sum())
        section.add("All 0 does not mean nothing was lost: the mean AP is %.4f, and no single oracle recovers any "
                    "of it, because the %d missed %s are not reached by fixing any one kind of false positive. "
                    "When most detections are background errors, check the box format (pixel corners, not "
                    "normalised to 0..1, not x, y, width, height)." % (mean_ap, missed, what))
    section.add(Table("AP gained per class if each error type were fixed (dAP)", ["class", "AP"] + list(TIDE_SHORT),
                      [[names[c], "%.4f" % tide.ap[c]] + ["%.4f" % v for v in tide.dap[:, c]] for c in scored],
                      note=TIDE_KEY))
    section.add(Table("Errors per class (false positives of each type; missed: %s)" % what,
                      ["class"] + list(TIDE_SHORT), [[names[c]] + [int(v) for v in tide.count[:, c]]
                                                     for c in scored], note=TIDE_KEY))


BEYOND_NOTE = (
    "AP@0.75: the same AP when a match needs an overlap (IoU) of at least 0.75 instead of 0.5. Max recall: the share "
    "of the ground truth that some detection matched, the recall at the end of the ranked list. FP and FN (TIDE's "
    "special errors): the AP gained if every false positive were ranked below every true positive (perfect "
    "precision, same recall), and if every missed ground truth were left out of the positives (perfect recall, same "
    "precision). The first row is the mean over the classes below.")


def beyond_table(res, names, ap75, max_recall, tide, matching) -> None:
    """The "Beyond AP at IoU 0.5" table of the "Where the points were lost" section (the full level's analyses):
    per class with an AP (tide.ap not NaN) its AP at IoU 0.75 (ap75[c], computed with `matching`), its maximum
    recall (max_recall[c]) and TIDE's special dAP (tide.special), under a first row of their means."""
    scored = np.flatnonzero(~np.isnan(tide.ap))
    if not scored.size:
        return
    columns = np.array([[ap75[c], max_recall[c], tide.special[0, c], tide.special[1, c]] for c in scored],
                       dtype=np.float64)
    rows = [["mean over %s" % plural(scored.size, "class", "classes")] + [float(v) for v in columns.mean(axis=0)]]
    rows += [[names[c]] + [float(v) for v in columns[i]] for i, c in enumerate(scored)]
    res.section(LOST).add(Table("Beyond AP at IoU 0.5: AP@0.75, max recall, false positives against false "
                                "negatives (%s)" % matching,
                                ["class", "AP@0.75", "max recall", "dAP: FP", "dAP: FN"], rows, note=BEYOND_NOTE))


def per_image_table(evaluation):
    """Organizer only: per test image, its objects and how the submission's detections fared there."""
    gt, ranked, errors = evaluation.gt, evaluation.ranked, evaluation.tide_errors
    n = int(gt.ids.size)
    counted = (gt.cls >= 0) & ~gt.difficult

    def per_image(index, mask=None):
        return np.bincount(index if mask is None else index[mask], minlength=n)

    cols = [per_image(gt.img, counted), per_image(gt.img, (gt.cls >= 0) & gt.difficult),
            per_image(gt.img, counted & ~evaluation.gt_matched), per_image(ranked.image),
            per_image(ranked.image, ranked.tp), per_image(ranked.image, ranked.fp)]
    cols += [per_image(ranked.image, errors.kind == t) for t in range(len(ERROR_TYPES) - 1)]
    rows = [[i.decode("utf-8", "replace")] + [int(c[k]) for c in cols] for k, i in enumerate(gt.ids.tolist())]
    return Table("Per image: objects and detections (all classes)",
                 ["image", "objects (not difficult)", "difficult objects", "objects not matched", "detections",
                  "true positives", "false positives"] + ["FP: %s" % t for t in ERROR_TYPES[:-1]], rows)


def boxes_warning(labels: Dict[str, str], boxes: List[np.ndarray]) -> str:
    """formats.hints.box_hint on the boxes of every result file ('' when they look like pixel corners), named by
    the file when there is one: the scorer's warning and validate's are this one text."""
    if not boxes:
        return ""
    hint = box_hint(list(boxes), "detection boxes")
    if not hint:
        return ""
    where = next(iter(labels.values())) if len(labels) == 1 else "the %d result files" % len(labels)
    return "%s: %s (xmin ymin xmax ymax)" % (where, hint)


# a withheld image's annotation (Task.withhold): no object, the same bytes for every withheld image
WITHHELD_ANNOTATION = b"<annotation>\n</annotation>\n"


class Voc2011Detection(Task):
    slug = "voc2011-detection"
    title = "PASCAL VOC2011 detection (comp3/comp4)"
    protocol = PROTOCOL
    comps = (3, 4)

    has_sets = True

    def column_table(self, reference=None) -> List[ScoreKey]:
        return map_columns(VOC_CLASSES)

    def reference_sets(self, ref_dir) -> List[str]:
        return plain_sets(os.path.join(str(ref_dir), "ImageSets", "Main"), "ref/ImageSets/Main")

    def reference_warnings(self, reference) -> List[str]:
        out = []
        for name, (count, image_id) in reference.data.foreign_names.items():
            out.append("Annotations: %d object(s) named %r (first in Annotations/%s.xml): not one of the 20 VOC "
                       "classes, never scored" % (count, name, image_id))
        return out + super().reference_warnings(reference)       # the classes without positives

    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """ImageSets/Main/<set>.txt and the annotations of its images (all VOCevaldet.m reads): a Reference whose
        data is a DetectionTruth. set_name: the set to read when ImageSets/Main holds several."""
        main = os.path.join(str(ref_dir), "ImageSets", "Main")
        set_name = find_plain_set(main, "ref/ImageSets/Main", set_name)
        list_file = "ImageSets/Main/%s.txt" % set_name
        label = "ref/" + list_file
        rec = read_id_list(os.path.join(main, set_name + ".txt"), label)
        ids = rec.cols[0]
        uniq, first = np.unique(ids, return_index=True)
        if uniq.size != ids.size:
            dup = np.setdiff1d(np.arange(ids.size), first)
            raise ReferenceDataError(label, int(rec.lines[dup[0]]), message="an image id is listed twice")
        anno = os.path.join(str(ref_dir), "Annotations")
        cls_index = {c: k for k, c in enumerate(VOC_CLASSES)}
        img, cls, boxes, diff = [], [], [], []
        files = [list_file]
        foreign = OrderedDict()
        for i, image_id in enumerate(ids.tolist()):
            if i % 1000 == 0:
                progress(i, ids.size, "annotations")
            image_id = image_id.decode("utf-8", "replace")
            files.append("Annotations/%s.xml" % image_id)
            for o in read_annotation(anno, image_id):
                k = cls_index.get(o.name, -1)
                if k < 0:
                    count, first_image = foreign.get(o.name, (0, image_id))
                    foreign[o.name] = (count + 1, first_image)
                img.append(i)
                cls.append(k)
                boxes.append(o.bbox)
                diff.append(o.difficult)
        gt = DetectionTruth(ids, np.array(img, dtype=np.int64), np.array(cls, dtype=np.int64),
                            np.array(boxes, dtype=np.float64).reshape(-1, 4), np.array(diff, dtype=bool), foreign)
        return Reference(ref_dir, files, gt, set_name)

    def empty_columns(self, reference) -> Dict[str, str]:
        """{AP_<class>: reason} for the classes without a non-difficult object: VOCevaldet.m's AP is undefined."""
        gt = reference.data
        out = OrderedDict()
        counts = np.bincount(gt.cls[(gt.cls >= 0) & ~gt.difficult], minlength=len(VOC_CLASSES))
        for k, c in enumerate(VOC_CLASSES):
            if counts[k] == 0:
                out["AP_" + c] = "%s: no object that is not difficult in the annotations of %s" % (c,
                                                                                                   reference.files[0])
        return out

    def read_submission(self, submission, reference, progress) -> Submitted:
        """Every comp<N>_det_<set>_<class>.txt of the submission (N of the reference's track), read in class order
        (the first bad line stops)."""
        gt = reference.data
        comp, files, ignored = result_files(submission, "det", track_comps(reference, self.comps),
                                            reference.set_name, VOC_CLASSES, "det")
        index = id_index(gt.ids)
        labels, detections = OrderedDict(), OrderedDict()
        for k, cls in enumerate(VOC_CLASSES):
            progress(k, len(VOC_CLASSES), "result files")
            if cls in files:
                labels[cls] = submission.label(files[cls])
                detections[cls] = read_detections(files[cls], labels[cls], gt.ids, index)
        return Submitted(comp, reference.set_name, labels, detections, ignored,
                         boxes_warning(labels, [d.boxes for d in detections.values()]),
                         frozenset(c for c, d in detections.items() if not len(d)))

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> Evaluation:
        """VOCevaldet.m + VOCap.m per class; with analyses, also the curves, the AP at overlap 0.75 and TIDE's
        error analysis on the same matching (metrics.tide). The detections ranked class-major (RankedDetections)
        are kept only for the analyses and per_item (the organizer's table, the bootstrap); then each class's
        Detections leave submitted.detections once matched (what the evaluation needs of them is kept), so that
        the read arrays and the ranked ones are not held at once."""
        gt = reference.data
        nimg = int(gt.ids.size)
        records = []
        gt_matched = np.zeros(gt.cls.size, dtype=bool)
        keep = analyses or per_item
        pieces = []             # per class, its RankedDetections fields (concatenated once every class is done)
        objects = counted_boxes(gt) if analyses else None
        errors = []             # per class, its detections' error (kind, target), concatenated like pieces
        for k, cls in enumerate(VOC_CLASSES):
            progress(k, len(VOC_CLASSES), "classes")
            g = gt.cls == k
            npos = int(np.count_nonzero(g & ~gt.difficult))
            ndiff = int(np.count_nonzero(g & gt.difficult))
            # with the ranked arrays kept, each class's detections are released once matched (peak memory)
            det = submitted.detections.pop(cls, None) if keep else submitted.detections.get(cls)
            if det is None:
                records.append(ClassRecord(cls, 0.0 if npos else None, npos, ndiff, 0, 0, 0, np.zeros(0),
                                           np.zeros(0), None, 0.0 if npos and analyses else None))
                continue
            m = voc_det_match(det.confidence, det.image, det.boxes, gt.img[g], gt.boxes[g], gt.difficult[g],
                              nimg)
            rec, prec = pr_curve(m.tp, m.fp, npos)
            ap = ap_voc2010(rec, prec) if npos else None
            ap75 = None
            if analyses:
                rec, prec = rank_blocks(rec, prec)      # the curve as the report draws it (the AP is above)
                if npos:
                    ap75 = voc_ap_of_flags(*voc_flags(m.candidate, m.overlap, gt.difficult[g], 0.75), npos)
            else:
                rec = prec = np.zeros(0)
            if keep:
                # the pieces are allocated while earlier classes' detections are released: they reuse that memory
                pieces.append(RankedDetections(np.full(len(det), k, dtype=np.int8),
                                               det.image[m.order] if per_item else np.zeros(0, dtype=np.int32),
                                               det.confidence[m.order], m.tp, m.fp))
                gt_matched[np.flatnonzero(g)[m.candidate[m.tp]]] = True
                if analyses:
                    errors.append(class_errors(objects, det, m, pieces[-1].cls, gt_matched))
            records.append(ClassRecord(cls, ap, npos, ndiff, len(det), int(m.tp.sum()), int(m.fp.sum()), rec, prec,
                                       submitted.labels[cls], ap75))
            del det, m
        progress(len(VOC_CLASSES), len(VOC_CLASSES), "classes")
        if not keep:
            return Evaluation(submitted, gt, records, None, None, None, None)
        return_freed_memory()       # the read arrays' pages, before the ranked arrays are joined
        ranked = RankedDetections(*[np.concatenate([p[f] for p in pieces]) if pieces else
                                    np.zeros(0, dtype=(np.int8, np.int32, np.float64, bool, bool)[f])
                                    for f in range(len(RankedDetections._fields))])
        del pieces
        tide = tide_errors = None
        if analyses:
            kind, target = [np.concatenate([e[f] for e in errors]) if errors else
                            np.zeros(0, dtype=(np.int8, np.int32)[f]) for f in range(2)]
            del errors
            tide, tide_errors = tide_analysis(gt, ranked, gt_matched, kind, target)
        return Evaluation(submitted, gt, records, ranked, gt_matched, tide, tide_errors)

    def report(self, evaluation, private) -> Result:
        """The participant's Result (aggregates per class) and, when private, the per-image table."""
        sub, gt = evaluation.submitted, evaluation.gt
        res = Result(self.title)
        nimg = int(gt.ids.size)
        rows, aps, series, series_aps, series_ranked = [], [], [], [], []
        for r in evaluation.classes:
            if r.file is None:
                if r.npos:          # only for a class with objects in the ground truth: withheld at hidden
                    res.notes.append("%s: no result file (comp%d_det_%s_%s.txt): AP 0."
                                     % (r.name, sub.comp, sub.set_name, r.name))
            elif r.name in sub.empty:     # the file as read (a withheld image's lines are not counted out)
                res.notes.append(Own("%s: empty result file: AP 0." % r.file))
            if r.ap is None:
                res.notes.append("n/a: no non-difficult %s object in the ground truth; AP_%s is not written and "
                                 "the class is left out of the mean." % (r.name, r.name))
            else:
                res.set("AP_" + r.name, r.ap)
                aps.append(r.ap)
                if evaluation.tide is not None:     # the curves are the full level's analyses
                    series.append(Series(r.name, r.recall, r.precision))   # none ranked: a plot that says so
                    series_aps.append(r.ap)
                    series_ranked.append(r.ndetections)
            rows.append([r.name, float("nan") if r.ap is None else r.ap, r.npos, r.ndifficult, r.ndetections,
                         r.ntp, r.nfp, r.ndetections - r.ntp - r.nfp, "missing" if r.file is None else r.file])
        res.scores["mAP"] = float(np.mean(aps)) if aps else 0.0
        res.scores.move_to_end("mAP", last=False)
        scored = [r for r in evaluation.classes if r.ap is not None]
        res.bars.append(Bars("AP per class (comp%d, set '%s')" % (sub.comp, sub.set_name),
                             [r.name for r in scored], [r.ap for r in scored],
                             xlabel="average precision (VOCevaldet.m + VOCap.m)"))
        if evaluation.tide is not None:
            tide_section(res, evaluation.tide, VOC_CLASSES, "VOCevaldet.m's matching (+1 pixel IoU >= 0.5, "
                         "difficult objects ignored, first claimant by rank)")
            beyond_table(res, VOC_CLASSES, [r.ap75 for r in evaluation.classes],
                         [r.ntp / float(r.npos) if r.npos else None for r in evaluation.classes], evaluation.tide,
                         "VOCevaldet.m's matching at overlap >= 0.75 instead of 0.5, VOCap.m")
        res.tables.append(Table("Per-class average precision (comp%d, set '%s', %d images)"
                                % (sub.comp, sub.set_name, nimg),
                                ["class", "AP", "objects (not difficult)", "difficult objects", "detections",
                                 "true positives", "false positives", "ignored (difficult)", "file"], rows))
        res.plots.extend(precision_recall_plots(series, blocked_aps=series_aps, blocked_ranked=series_ranked))
        if sub.ignored:
            res.notes.append(Own("Files not read: %s." % ", ".join(sub.ignored[:10])))
        if sub.box_warning:
            res.warnings.insert(0, Own(sub.box_warning))
        if private:
            res.private.append(per_image_table(evaluation))
        return res

    def decompose(self, evaluation) -> Decomposition:
        """The ranking score (mAP) on weighted test images (metrics.detection.voc_det_map_on_weighted_images), from
        the evaluation's ranked detections: nothing is matched again."""
        gt, ranked = evaluation.gt, evaluation.ranked
        counted = (gt.cls >= 0) & ~gt.difficult
        score = voc_det_map_on_weighted_images(gt.ids.size, len(VOC_CLASSES), ranked.cls, ranked.image,
                                               ranked.tp, ranked.fp, gt.img[counted], gt.cls[counted])
        return Decomposition("image", [i.decode("utf-8", "surrogateescape") for i in gt.ids.tolist()], score)

    def item_ids(self, reference) -> List[str]:
        """The images of ImageSets/Main/<set>.txt, in list order (decompose's items)."""
        return [i.decode("utf-8", "surrogateescape") for i in reference.data.ids.tolist()]

    def withhold(self, reference, items, out_dir) -> None:
        """The image list and every annotation byte for byte, except a withheld image's Annotations/<id>.xml:
        WITHHELD_ANNOTATION, the same bytes for every withheld image (no object, no size, no flag: its id is the
        file's name and its line of the list, and the scorer checks nothing else of a detection's image)."""
        withheld = set(items)
        blank = set("Annotations/%s.xml" % i.decode("utf-8", "replace")
                    for i, item in zip(reference.data.ids.tolist(), self.item_ids(reference)) if item in withheld)
        write_withheld_copy(reference, out_dir, lambda rel, path: WITHHELD_ANNOTATION if rel in blank else None)

    def restrict(self, reference, submitted, withheld):
        """The reference without the withheld images (their objects gone, the others' image indices renumbered)
        and every result file without its lines for them (result-file order kept: ties rank as before).
        foreign_names (the organizer's reference warnings only) is kept as loaded."""
        gt = reference.data
        held = np.array([i.encode("utf-8", "surrogateescape") for i in withheld], dtype=bytes)
        keep = ~np.isin(gt.ids, held) if held.size else np.ones(gt.ids.size, dtype=bool)
        renumber = kept_index(keep)
        kept_objects = keep[gt.img]
        truth = gt._replace(ids=gt.ids[keep], img=renumber[gt.img[kept_objects]], cls=gt.cls[kept_objects],
                            boxes=gt.boxes[kept_objects], difficult=gt.difficult[kept_objects])
        detections = OrderedDict()
        for cls, det in submitted.detections.items():
            lines = keep[det.image]
            detections[cls] = Detections(renumber[det.image[lines]].astype(IMAGE_INDEX), det.confidence[lines],
                                         det.boxes[lines])
        return reference.replaced(truth), submitted._replace(detections=detections)

    def figures(self, reference, columns) -> Dict[str, str]:
        gt = reference.data
        out = {"images": plural(len(gt.ids), "image"), "objects": plural(int(np.count_nonzero(gt.cls >= 0)), "object")}
        out.update(class_figures(columns, "class", "classes"))
        return out

    def ignored_files(self, submission, reference) -> List[str]:
        return validate_result_files(submission, "det", track_comps(reference, self.comps), reference.set_name,
                                     VOC_CLASSES, "<class>")[2]

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        set_name = set_name or infer_set(submission, "det", VOC_CLASSES, self.comps)
        comp, files, warnings = validate_result_files(submission, "det", self.comps, set_name, VOC_CLASSES,
                                                      "<class>")
        notes = ["comp%d, set '%s', %d of 20 classes" % (comp, set_name, len(files))]
        labels, boxes = {}, []
        for cls, path in files.items():
            labels[cls] = submission.label(path)
            boxes.append(check_boxes(path, labels[cls], ids))
            notes.append("%s: %d lines" % (labels[cls], len(boxes[-1])))
        hint = boxes_warning(labels, boxes)
        if hint:
            notes.append(WARNING + hint)
        missing = [c for c in VOC_CLASSES if c not in files]
        if missing:
            notes.append("no file for: %s (those classes will score AP 0)" % ", ".join(missing))
        return notes + warnings


TASK = Voc2011Detection()
