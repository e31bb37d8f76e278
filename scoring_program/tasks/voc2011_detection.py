"""voc2011-detection: PASCAL VOC2011 comp3/comp4, VOCevaldet.m + VOCap.m exactly (order-free vectorized form)."""
from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from ..errors import ReferenceDataError
from ..formats.voc import VOC_CLASSES
from ..formats.voc_det import check_syntax, id_index, read_detections
from ..formats.voc_xml import read_annotation, read_id_list
from ..metrics.detection import voc_det_ap
from ..report.result import Result, ScoreKey, Series, Table, precision_recall_plots
from .base import Reference, Task, no_progress
from .voc_common import find_plain_set, infer_set, plain_sets, result_files, validate_result_files

PROTOCOL = [
    "PASCAL VOC2011 detection (comp3: VOC training data only; comp4: any training data), scored as the official "
    "devkit's VOCevaldet.m and VOCap.m do (the VOC2012 devkit's evaluation is identical).",
    "Ground truth: every object of the class in the annotations of the images of ImageSets/Main/<set>.txt; "
    "the number of positives is the number of those objects that are not marked difficult.",
    "Detections '<id> <confidence> <xmin> <ymin> <xmax> <ymax>' are ranked by descending confidence with a STABLE "
    "sort: ties keep result-file order.",
    "Overlap uses the +1 pixel convention: iw = min(xmax) - max(xmin) + 1, ih likewise, counted only when both "
    "are > 0; union = (w_d+1)(h_d+1) + (w_g+1)(h_g+1) - iw*ih with w = xmax - xmin; overlap = iw*ih / union.",
    "Each detection's candidate is the ground-truth object of the class in its image with the largest overlap, "
    "over ALL of them (difficult ones included); on equal overlap the first in the annotation's XML order wins.",
    "If that overlap is >= 0.5 (exactly 0.5 matches): a difficult candidate makes the detection ignored (neither "
    "true nor false positive, it still takes its rank position); a candidate not yet matched makes it a true "
    "positive; a candidate already matched by a higher-ranked detection makes it a false positive, even when "
    "another object in the image is still free (no fallback to the second best). Overlap < 0.5, or no object "
    "of the class in the image: false positive.",
    "AP (VOC2010+ 'all points', VOCap.m): precision made non-increasing from the right, summed over every "
    "recall change. An empty result file gives AP 0. mAP is the mean over classes with an AP. A submission "
    "without any result file of this task is an error.",
    "Departures from the devkit: a missing result file gives AP 0 for that class, noted (participants may tackle "
    "a subset; the devkit stops with an error). A class without non-difficult objects has no AP: not written, "
    "left out of the mean (the devkit divides 0 by 0 when the class has detections, and gives AP 0, counted in a "
    "mean over all classes, when it has none).",
]


class GroundTruth(object):
    def __init__(self, ids, img, cls, boxes, difficult, foreign_names):
        self.ids = ids              # 'S' array of image ids
        self.img = img              # per object: image index
        self.cls = cls              # per object: class index (-1 for a name that is not a VOC class)
        self.boxes = boxes
        self.difficult = difficult
        self.foreign_names = foreign_names   # {name that is not a VOC class: (objects, first image id)}


def load_reference(ref_dir, set_name=None, progress=no_progress):
    """ImageSets/Main/<set>.txt and the annotations of its images (all VOCevaldet.m reads): a Reference whose data
    is the GroundTruth. set_name: the set to read when ImageSets/Main holds several."""
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
    gt = GroundTruth(ids, np.array(img, dtype=np.int64), np.array(cls, dtype=np.int64),
                     np.array(boxes, dtype=np.float64).reshape(-1, 4), np.array(diff, dtype=bool), foreign)
    return Reference(ref_dir, files, gt, set_name)


def empty_columns(reference):
    """{AP_<class>: reason} for the classes without a non-difficult object: VOCevaldet.m's AP is undefined."""
    gt = reference.data
    out = OrderedDict()
    counts = np.bincount(gt.cls[(gt.cls >= 0) & ~gt.difficult], minlength=len(VOC_CLASSES))
    for k, c in enumerate(VOC_CLASSES):
        if counts[k] == 0:
            out["AP_" + c] = "%s: no object that is not difficult in the annotations of %s" % (c, reference.files[0])
    return out


class Voc2011Detection(Task):
    slug = "voc2011-detection"
    title = "PASCAL VOC2011 detection (comp3/comp4)"
    comps = (3, 4)

    has_sets = True

    def column_table(self, reference=None):
        return [ScoreKey("mAP", "mAP")] + [ScoreKey("AP_" + c, "AP " + c) for c in VOC_CLASSES]

    def reference_sets(self, ref_dir):
        return plain_sets(os.path.join(str(ref_dir), "ImageSets", "Main"), "ref/ImageSets/Main")

    def load_reference(self, ref_dir, set_name=None, progress=no_progress):
        return load_reference(ref_dir, set_name, progress)

    def empty_columns(self, reference):
        return empty_columns(reference)

    def reference_warnings(self, reference):
        out = []
        for name, (count, image_id) in reference.data.foreign_names.items():
            out.append("Annotations: %d object(s) named %r (first in Annotations/%s.xml): not one of the 20 VOC "
                       "classes, never scored" % (count, name, image_id))
        return out + super().reference_warnings(reference)       # the classes without positives

    def score(self, ref_dir, submission, progress=no_progress, private=False):
        reference = self.reference(ref_dir, progress)
        set_name, gt = reference.set_name, reference.data
        comp, files, ignored = result_files(submission, "det", self.comps, set_name, VOC_CLASSES, "det")
        res = Result(self.title)
        res.protocol = list(PROTOCOL)
        nimg = int(gt.ids.size)
        index = id_index(gt.ids)
        rows, aps, series = [], [], []
        for k, cls in enumerate(VOC_CLASSES):
            progress(k, len(VOC_CLASSES), "classes")
            g = gt.cls == k
            npos = int(np.count_nonzero(g & ~gt.difficult))
            ndiff = int(np.count_nonzero(g & gt.difficult))
            path = files.get(cls)
            ndet = ntp = nfp = 0
            rec = prec = np.zeros(0)
            if path is None:
                ap = 0.0 if npos else None
                if npos:
                    res.notes.append("%s: no result file (comp%d_det_%s_%s.txt): AP 0." % (cls, comp, set_name, cls))
            else:
                label = submission.label(path)
                det = read_detections(path, label, gt.ids, index)
                ndet = len(det)
                if ndet == 0:
                    res.notes.append("%s: empty result file: AP 0." % label)
                ap, rec, prec, tp, fp = voc_det_ap(det.confidence, det.image, det.boxes, gt.img[g], gt.boxes[g],
                                                   gt.difficult[g], nimg)
                ntp, nfp = int(tp.sum()), int(fp.sum())
            if ap is None:
                res.notes.append("n/a: no non-difficult %s object in the ground truth; AP_%s is not written and the "
                                 "class is left out of the mean." % (cls, cls))
            else:
                res.set("AP_" + cls, ap)
                aps.append(ap)
                if rec.size:
                    series.append(Series(cls, rec, prec))
            rows.append([cls, float("nan") if ap is None else ap, npos, ndiff, ndet, ntp, nfp, ndet - ntp - nfp,
                         "missing" if path is None else submission.label(path)])
        progress(len(VOC_CLASSES), len(VOC_CLASSES), "classes")
        res.scores["mAP"] = float(np.mean(aps)) if aps else 0.0
        res.scores.move_to_end("mAP", last=False)
        res.tables.append(Table("Per-class average precision (comp%d, set '%s', %d images)" % (comp, set_name, nimg),
                                ["class", "AP", "objects (not difficult)", "difficult objects", "detections",
                                 "true positives", "false positives", "ignored (difficult)", "file"], rows))
        res.plots.extend(precision_recall_plots(series))
        if ignored:
            res.notes.append("Files not read: %s." % ", ".join(ignored[:10]))
        return res

    def validate(self, submission, ids=None):
        set_name = infer_set(submission, "det", VOC_CLASSES, self.comps)
        comp, files, warnings = validate_result_files(submission, "det", self.comps, set_name, VOC_CLASSES,
                                                      "<class>")
        notes = ["comp%d, set '%s', %d of 20 classes" % (comp, set_name, len(files))]
        for cls, path in files.items():
            label = submission.label(path)
            notes.append("%s: %d lines" % (label, check_syntax(path, label, ids)))
        missing = [c for c in VOC_CLASSES if c not in files]
        if missing:
            notes.append("no file for: %s (those classes will score AP 0)" % ", ".join(missing))
        return notes + warnings


TASK = Voc2011Detection()
