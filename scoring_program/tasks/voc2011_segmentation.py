"""voc2011-segmentation: PASCAL VOC2011 comp5/comp6, VOCevalseg.m (intersection over union per class)."""
from __future__ import annotations

import os
import re
import struct
import zlib
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some
from ..formats.hints import NearMiss, first_hint, ignored_warnings, with_hint, without_extension
from ..formats.images import PNG_SIGNATURE, DecodeBuffer, LabelImage, first_pixel_where, png_chunk
from ..formats.text import parse_table, read_bytes
from ..formats.voc import VOC_CLASSES
from ..metrics.confusion import (iou_per_class, joint_histogram, mean_iou, per_image_iou_counts,
                                 row_normalized_percent, weighted_mean_iou)
from ..report.result import LOST, Bars, HeatMap, Own, Result, ScoreKey, Table
from .base import Reference, Rule, Task, class_figures, no_progress, plural, write_withheld_copy
from .voc_common import choose_set, comp_expected, devkit_comp, track_comps

TITLE = "PASCAL VOC2011 segmentation (comp5/comp6)"
SEG_CLASSES = ("background",) + VOC_CLASSES
NCLS = len(SEG_CLASSES)   # 21
VOID = 255

PROTOCOL = [
    Rule("scope", "PASCAL VOC2011 segmentation (comp5: VOC segmentation training data; comp6: any training data), "
                  "scored as the official devkit's VOCevalseg.m does (the VOC2012 devkit's evaluation is identical)."),
    Rule("result_files", "Each result is an indexed (palette) PNG, or an 8-bit greyscale PNG, per test image, named "
                         "<id>.png inside a folder comp5_<set>_cls (or comp6_<set>_cls). The class of a pixel is its "
                         "palette INDEX (the colour map does not matter) or its grey value: 0 = background, 1..20 = "
                         "the VOC classes in alphabetical order."),
    Rule("errors", "A missing result image, an image whose size differs from the ground truth's, or any pixel value "
                   "above 20 (255 included: 'void' is not a prediction) is an error."),
    Rule("outside_set", "A PNG named for an image outside the evaluated set is ignored without being opened, as "
                        "VOCevalseg.m (which reads only <id>.png for each id of the set) ignores it: the score is "
                        "what it would be without that file, and the report warns with the number of such files and "
                        "the first name. Files not named *.png are not read either (listed in the report)."),
    Rule("accumulation", "Ground-truth pixels labelled 255 ('void': object borders and ambiguous regions) are "
                         "excluded. Every other pixel adds one count to a 21 x 21 confusion matrix (rows: ground "
                         "truth, columns: your label), accumulated over the whole set: large images weigh more than "
                         "small ones."),
    Rule("iou", "IoU of class j = C[j,j] / (sum of row j + sum of column j - C[j,j]) = TP / (TP + FP + FN). mIoU is "
                "the mean over the 21 classes (background included), reported as a fraction in 0..1 (the devkit "
                "prints percent)."),
    Rule("absent_class", "A class absent from both the ground truth (non-void) and your predictions has no IoU: its "
                         "key is not written and it is left out of the mean (the devkit would print NaN). A class "
                         "present in only one of them has IoU 0."),
]


def read_id_list(path, label):
    """ImageSets/Segmentation/<set>.txt: one image id per line (first field)."""
    rec = parse_table(read_bytes(path, label, ReferenceDataError), label, 1, ReferenceDataError, what="field")
    ids = rec.cols[0]
    uniq, first = np.unique(ids, return_index=True)
    if uniq.size != ids.size:
        dup = np.setdiff1d(np.arange(ids.size), first)
        raise ReferenceDataError(label, int(rec.lines[dup[0]]), message="an id is listed twice")
    return [i.decode("utf-8", "replace") for i in ids.tolist()]


def read_ground_truth(ref_dir, image_id, buffer=None):
    """SegmentationClass/<id>.png of the reference, decoded (class indices, 255 void); buffer: a DecodeBuffer
    reused from image to image."""
    with LabelImage(os.path.join(str(ref_dir), "SegmentationClass", image_id + ".png"),
                    "ref/SegmentationClass/%s.png" % image_id, ReferenceDataError) as g:
        return g.decode(buffer=buffer)


def check_ground_truth_labels(counts, image_id):
    """counts: pixels per ground-truth value (256 bins); values 21..254 are an error naming the first."""
    if counts[NCLS:VOID].any():
        bad = int(np.flatnonzero(counts[NCLS:VOID])[0]) + NCLS
        raise ReferenceDataError("ref/SegmentationClass/%s.png" % image_id,
                                 expected="labels 0..%d or 255 (void)" % (NCLS - 1), found="value %d" % bad)


def check_prediction(pred, label):
    """Any value above 20 (255 included) is an error naming the first such pixel. (A comparison, not pred.max():
    on numpy 1.17, the legacy-py37 stack's, a uint8 max takes 5x as long.)"""
    bad = pred >= NCLS
    if bad.any():
        x, y = first_pixel_where(bad)
        raise SubmissionError(label, expected="class indices 0..%d (0 = background; 255 'void' is only for the "
                              "ground truth)" % (NCLS - 1), found="value %d at pixel x=%d, y=%d (0-based)"
                              % (int(pred[y, x]), x, y))


def ground_truth_size(ref_dir, image_id):
    """(width, height) of SegmentationClass/<id>.png of the reference, from its header (no pixel decoded)."""
    with LabelImage(os.path.join(str(ref_dir), "SegmentationClass", image_id + ".png"),
                    "ref/SegmentationClass/%s.png" % image_id, ReferenceDataError) as g:
        return g.size


def voc_palette() -> np.ndarray:
    """(256, 3) uint8: the devkit's colour map (VOClabelcolormap.m): entry i spreads the bits of i over the three
    channels, bit 3j + c of i setting bit 7 - j of channel c (255, void, is (224, 224, 192))."""
    index = np.arange(256)
    palette = np.zeros((256, 3), dtype=np.int64)
    for j in range(8):
        for c in range(3):
            palette[:, c] |= ((index >> (3 * j + c)) & 1) << (7 - j)
    return palette.astype(np.uint8)


def void_png(width, height) -> bytes:
    """An indexed 8-bit PNG of the devkit's palette, every pixel 255 (void): a withheld image's label image
    (Task.withhold), of its size and nothing else; laid out as MATLAB's imwrite does (rows unfiltered)."""
    rows = np.full((height, width + 1), VOID, dtype=np.uint8)
    rows[:, 0] = 0                                           # each row's filter type: none
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join([PNG_SIGNATURE, png_chunk(b"IHDR", header), png_chunk(b"PLTE", voc_palette().tobytes()),
                     png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)), png_chunk(b"IEND", b"")])


def image_confusion(ref_dir, submitted, image_id, gt_buffer=None, pred_buffer=None) -> np.ndarray:
    """One image scored as VOCevalseg.m scores it: its ground truth and its result PNG decoded (the result
    checked: its size the ground truth's, no value above 20; the ground truth: labels 0..20 or 255) -> the
    (256, 21) joint histogram of ground-truth values (255: void) and labels."""
    gt = read_ground_truth(ref_dir, image_id, gt_buffer)
    pred = read_prediction(submitted, image_id, (gt.shape[1], gt.shape[0]), pred_buffer)
    h = joint_histogram(gt, pred, NCLS)
    check_ground_truth_labels(h.sum(axis=1), image_id)
    return h


def read_prediction(submitted, image_id, size, buffer=None) -> np.ndarray:
    """The result PNG of one image decoded and checked: its size (w, h) the ground truth's, no value above 20."""
    label = "%s/%s.png" % (submitted.folder_label, image_id)   # == submission.label(pngs[img]), no relpath
    with LabelImage(submitted.pngs[image_id], label) as r:    # a size error quotes the ground truth's size: the size
        # of the test image, which is public (participants get the test images)
        pred = r.decode(expected_size=size, buffer=buffer)
    check_prediction(pred, label)
    return pred


_DIR_RX = re.compile(r"comp(\d+)_(.+)_cls")
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".ppm", ".pgm")   # hints only


def _result_dirs(submission):
    """{folder name: first path} for folders that look like comp<N>_<set>_cls anywhere in the submission."""
    out = {}
    top = os.path.basename(os.path.normpath(submission.root))
    if _DIR_RX.fullmatch(top):   # the zip held only the folder, which Submission opened for us
        out[top] = submission.root
    for dirpath, dirnames, _ in os.walk(submission.root):
        for d in sorted(dirnames):
            if _DIR_RX.fullmatch(d):
                out.setdefault(d, os.path.join(dirpath, d))
    return out


def find_result_dir(submission, comps, set_name):
    """(comp, folder path) of the comp<N>_<set>_cls folder; one comp only; other sets / comps are errors."""
    dirs = _result_dirs(submission)
    for name in sorted(dirs):
        m = _DIR_RX.fullmatch(name)
        comp = int(m.group(1))
        if comp not in comps:
            raise SubmissionError(submission.label(dirs[name]), expected=comp_expected(
                comps, comp, lambda c: "comp%d_%s_cls" % (c, set_name if set_name else "<set>")).replace(
                "a file name starting with", "a folder named"), found="comp%d" % comp)
        devkit_comp(submission.label(dirs[name]), m.group(1), comps, None,
                    lambda c: "comp%d_%s_cls" % (c, m.group(2)))
        if set_name is not None and m.group(2) != set_name:
            raise SubmissionError(submission.label(dirs[name]), expected="results for the '%s' set in a folder "
                                  "comp%d_%s_cls" % (set_name, comp, set_name), found=repr(name))
    if set_name is None:
        sets = sorted({_DIR_RX.fullmatch(d).group(2) for d in dirs})
        if len(sets) > 1:
            raise SubmissionError(expected="result folders of one image set", found="sets %s" % ", ".join(sets))
        set_name = sets[0] if sets else "<set>"
    present = [(c, submission.find_dir("comp%d_%s_cls" % (c, set_name)) or dirs["comp%d_%s_cls" % (c, set_name)])
               for c in comps if "comp%d_%s_cls" % (c, set_name) in dirs]
    if len(present) > 1:
        raise SubmissionError(submission.label(present[1][1]), message="one submission may not mix %s results "
                              "(also %s)" % (" and ".join("comp%d" % c for c, _ in present),
                                             submission.label(present[0][1])))
    if not present:
        pngs = [n for n in submission.names() if n.lower().endswith(".png")]
        raise SubmissionError(expected="a folder comp%d_%s_cls holding one <id>.png per test image"
                              % (comps[0], set_name),
                              found=("%d PNG file(s) outside such a folder" % len(pngs)) if pngs else
                              ("no such folder; files present: %s" % quote_some(submission.names()))
                              if submission.names() else "an empty submission")
    return present[0]


def list_results(folder, label_of):
    """{id: path} of the <id>.png files in the folder, and the other entries (not read). An <id>.png that is not
    a regular file (a symbolic link: never followed; a FIFO: never opened) is refused in one line (NotRegular), as
    formats.files.Submission.find refuses one; a folder named <id>.png is another entry."""
    from ..formats.files import NotRegular, entry_kind
    pngs, other = {}, []
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        name, path = entry.name, os.path.join(folder, entry.name)
        kind = entry_kind(entry)
        if name.endswith(".png") and kind != "folder":
            if kind != "file":
                raise NotRegular(label_of(path), kind)
            pngs[name[:-4]] = path
        elif not name.startswith("._") and name not in (".DS_Store", "Thumbs.db", "desktop.ini"):
            other.append(label_of(path))
    return pngs, other


def split_results(pngs, ids):
    """(ids of the set without a result, names of the PNGs for images outside the set), both in folder order.

    VOCevalseg.m loops over the set's ids and imreads <id>.png for each; it never lists the folder, so a PNG for
    any other image is never opened. We do the same: those PNGs are not decoded, only counted for a warning."""
    idset = set(ids)
    outside = [i + ".png" for i in pngs if i not in idset]
    missing = [i for i in ids if i not in pngs]
    return missing, outside


def check_none_missing(missing, nids, outside, folder_label):
    """A set image without a result is an error (the devkit skipped it, which flattered incomplete submissions)."""
    if missing:
        found = "no %s" % quote_some(m + ".png" for m in missing)
        if outside:
            found += "; the folder's %d other PNG file(s) name no image of the set (first: %s)" % (len(outside),
                                                                                                  outside[0])
        raise SubmissionError(folder_label, message="result image missing for %d of %d images"
                              % (len(missing), nids), expected="one <id>.png per image of the evaluated set",
                              found=found)


def outside_warning(outside):
    """The warning for PNGs outside the set: their count and the first name, nothing about the set itself. Own
    (shown at every report level): the set's image list is the public test list (participants get the test
    images), so which of the submission's PNGs name no test image is a fact about the submission."""
    return Own("%d PNG file(s) for images outside the evaluated set were ignored (VOCevalseg.m reads only the "
               "set's images), first: %s" % (len(outside), outside[0]))


class SegmentationTruth(NamedTuple):
    """Reference.data: the image ids of ImageSets/Segmentation/<set>.txt, in list order (str). The label images
    SegmentationClass/<id>.png ((H, W) uint8 class indices, 255 void) are decoded one at a time while scoring."""
    ids: List[str]


class SegSubmission(NamedTuple):
    """The result folder: pngs {image id: path} for every image of the set (checked: none missing); other: the
    entries not named *.png (not read); outside: the PNGs of images outside the set (ignored, not opened)."""
    comp: int
    folder_label: str
    pngs: Dict[str, str]
    other: List[str]
    outside: List[str]


class ImageRecord(NamedTuple):
    """One test image (the organizer's per-image table): labelled (non-void) and void pixels, the labelled pixels
    given their ground-truth class, the image's own mean IoU over the classes in its ground truth or in your
    labels (None when it has no labelled pixel), the classes of its ground truth and of your labels on its
    labelled pixels."""
    image_id: str
    labelled: int
    void: int
    correct: int
    miou: Optional[float]
    gt_classes: Tuple[int, ...]
    predicted_classes: Tuple[int, ...]


def image_record(image_id, conf, nvoid):
    gt_px, pred_px = conf.sum(axis=1), conf.sum(axis=0)
    return ImageRecord(image_id, int(gt_px.sum()), nvoid, int(np.trace(conf)), mean_iou(iou_per_class(conf)),
                       tuple(np.flatnonzero(gt_px).tolist()), tuple(np.flatnonzero(pred_px).tolist()))


class SegEvaluation(NamedTuple):
    """conf: the 21 x 21 confusion counts over the set (rows: ground truth, columns: your label; void excluded);
    image_ids: the set's image ids, in order (the bootstrap's items); images: an ImageRecord per image, and
    image_conf: the (n, 21, 21) confusion counts of each image (their sum is conf), in set order, when evaluate ran
    with per_item; else empty and None."""
    conf: np.ndarray
    nvoid: int
    nimages: int
    set_name: str
    submission: SegSubmission
    images: List[ImageRecord]
    image_ids: List[str]
    image_conf: Optional[np.ndarray]


def image_table(evaluation):
    """Organizer only: one row per test image, in set order."""
    def names(classes):
        return ", ".join(SEG_CLASSES[j] for j in classes) or "-"
    rows = [[r.image_id, r.labelled, r.void, float("nan") if r.labelled == 0 else r.correct / float(r.labelled),
             float("nan") if r.miou is None else r.miou, names(r.gt_classes), names(r.predicted_classes)]
            for r in evaluation.images]
    return Table("Per image (set '%s')" % evaluation.set_name,
                 ["image", "labelled pixels", "void pixels", "pixel accuracy", "image mIoU", "ground-truth classes",
                  "your classes (on labelled pixels)"], rows,
                 note="Pixel accuracy: labelled pixels given their ground-truth class. Image mIoU: the mean IoU of "
                      "the image alone, over the classes of its ground truth or of your labels (the leaderboard's "
                      "mIoU pools the pixels of all images instead).")


class Voc2011Segmentation(Task):
    slug = "voc2011-segmentation"
    title = TITLE
    protocol = PROTOCOL
    comps = (5, 6)

    has_sets = True
    columns_need_reference = False     # a class absent from the ground truth still has IoU 0 when predicted

    def column_table(self, reference=None) -> List[ScoreKey]:
        keys = [ScoreKey("mIoU", "mIoU")]
        keys += [ScoreKey("IoU_" + c, "IoU " + c) for c in SEG_CLASSES]
        return keys

    def reference_sets(self, ref_dir) -> List[str]:
        seg = os.path.join(str(ref_dir), "ImageSets", "Segmentation")
        if not os.path.isdir(seg):
            raise ReferenceDataError("ref/ImageSets/Segmentation", message="folder is missing")
        return sorted(f[:-4] for f in os.listdir(seg) if f.endswith(".txt"))

    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """ImageSets/Segmentation/<set>.txt (every .txt there is a set); data: a SegmentationTruth. The label images
        SegmentationClass/<id>.png are read one at a time while scoring (read_ground_truth)."""
        sets = self.reference_sets(ref_dir)
        if set_name is None and len(sets) != 1:
            raise ReferenceDataError("ref/ImageSets/Segmentation", expected="exactly one image list <set>.txt",
                                     found=", ".join(s + ".txt" for s in sets) or "none")
        set_name = choose_set(sets, set_name, "ref/ImageSets/Segmentation", "exactly one image list <set>.txt")
        list_file = "ImageSets/Segmentation/%s.txt" % set_name
        ids = read_id_list(os.path.join(str(ref_dir), list_file), "ref/" + list_file)
        return Reference(ref_dir, [list_file] + ["SegmentationClass/%s.png" % i for i in ids], SegmentationTruth(ids),
                         set_name)

    def _class_pixels(self, reference) -> np.ndarray:
        """(NCLS,) pixels of each class over the set's label images, read and checked as scoring does."""
        pixels = np.zeros(NCLS, dtype=np.int64)
        for img in reference.data.ids:
            counts = np.bincount(read_ground_truth(reference.root, img).ravel(), minlength=VOID + 1)
            check_ground_truth_labels(counts, img)
            pixels += counts[:NCLS]
        return pixels

    def reference_warnings(self, reference) -> List[str]:
        """Reads every label image as scoring does; warns about the classes no pixel of the set has."""
        pixels = self._class_pixels(reference)
        return ["%s (label %d): no pixel of the %d label images of %s; IoU_%s can only be 0 (predicted) or not "
                "written" % (cls, j, len(reference.data.ids), reference.files[0], cls)
                for j, cls in enumerate(SEG_CLASSES) if pixels[j] == 0]

    def classes_without_positives(self, reference) -> List[str]:
        """The classes no pixel of the set has (background included): IoU_<class> is then written or not as the
        submission predicts it, which would tell a hidden set's labels."""
        pixels = self._class_pixels(reference)
        return [cls for j, cls in enumerate(SEG_CLASSES) if pixels[j] == 0]

    def read_submission(self, submission, reference, progress) -> SegSubmission:
        """Find comp<N>_<set>_cls (N of the reference's track) and list its PNGs; a set image without one is an
        error. The PNGs are decoded one at a time by evaluate."""
        comp, folder = find_result_dir(submission, track_comps(reference, self.comps), reference.set_name)
        folder_label = submission.label(folder)
        pngs, other = list_results(folder, submission.label)
        ids = reference.data.ids
        missing, outside = split_results(pngs, ids)
        try:
            check_none_missing(missing, len(ids), outside, folder_label)
        except SubmissionError as e:    # the near miss among the test list's ids (public): validate --ids's hint
            raise with_hint(e, _not_read(submission, folder, folder_label, list(ids))[4]) from None
        return SegSubmission(comp, folder_label, pngs, other, outside)

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> SegEvaluation:
        """Accumulate the confusion matrix image by image (one ground truth and one result in memory at a time);
        per_item: also keep a small ImageRecord and the confusion counts of each image (the organizer's table and
        the bootstrap's per-image records)."""
        ids = reference.data.ids
        conf = np.zeros((NCLS, NCLS), dtype=np.int64)
        nvoid = 0
        images = []
        image_conf = np.zeros((len(ids) if per_item else 0, NCLS, NCLS), dtype=np.int64)
        n = len(ids)
        gt_buffer, pred_buffer = DecodeBuffer(), DecodeBuffer()     # no allocation per image of a common size
        for k, img in enumerate(ids):
            progress(k, n, "images")
            h = image_confusion(reference.root, submitted, img, gt_buffer, pred_buffer)
            conf += h[:NCLS]
            nvoid += int(h[VOID].sum())
            if per_item:
                images.append(image_record(img, h[:NCLS], int(h[VOID].sum())))
                image_conf[k] = h[:NCLS]
        progress(n, n, "images")
        return SegEvaluation(conf, nvoid, n, reference.set_name, submitted, images, ids,
                             image_conf if per_item else None)

    def report(self, evaluation, private) -> Result:
        """mIoU and IoU per class, the notes, the bars, the confusion heat map and the per-class table; with
        private, the organizer's per-image table."""
        conf, sub = evaluation.conf, evaluation.submission
        where = "comp%d, set '%s'" % (sub.comp, evaluation.set_name)
        res = Result(TITLE)
        ious = iou_per_class(conf)
        m = mean_iou(ious)
        res.set("mIoU", 0.0 if m is None else m)
        gt_px, pred_px = conf.sum(axis=1), conf.sum(axis=0)
        rows = []
        for j, cls in enumerate(SEG_CLASSES):
            if ious[j] is None:
                res.notes.append("n/a: %s is absent from both the ground truth and your predictions; IoU_%s is "
                                 "not written and the class is left out of the mean." % (cls, cls))
            else:
                res.set("IoU_" + cls, ious[j])
            rows.append([cls, float("nan") if ious[j] is None else ious[j], int(conf[j, j]), int(gt_px[j]),
                         int(pred_px[j]), int(pred_px[j] - conf[j, j]), int(gt_px[j] - conf[j, j])])
        if m is None:
            res.notes.append("No class has an IoU (no labelled pixel at all): mIoU is written as 0.")
        # the pixel counts are the ground truth's: withheld at hidden
        res.notes.append("comp%d, set '%s': %d images from %s; %d labelled pixels, %d void pixels excluded."
                         % (sub.comp, evaluation.set_name, evaluation.nimages, sub.folder_label, int(conf.sum()),
                            evaluation.nvoid))
        if sub.other:
            res.notes.append(Own("Not read (not <id>.png): %s." % quote_some(sub.other, 10)))
        if sub.outside:
            res.warnings.append(outside_warning(sub.outside))
        scored = [j for j in range(NCLS) if ious[j] is not None]
        if scored:
            res.bars.append(Bars("IoU per class (%s)" % where, [SEG_CLASSES[j] for j in scored],
                                 [ious[j] for j in scored],
                                 xlabel="intersection over union: TP / (TP + FP + FN) pixels"))
        res.section(LOST).add(HeatMap(
            "Confusion matrix, rows normalized (%s)" % where, SEG_CLASSES, SEG_CLASSES,
            row_normalized_percent(conf) / 100.0, row_title="ground truth", col_title="your label",
            note="Row: a ground-truth class; column: the label you gave its pixels; each cell is the percent of "
                 "the row's pixels, summed over the set (void pixels excluded, as the metric); the diagonal is what "
                 "you got right. A row without ground-truth pixels is blank. Pixel counts: the per-class table."))
        res.tables.append(Table("Per-class intersection over union (%s)" % where,
                                ["class", "IoU", "true positive pixels", "ground-truth pixels",
                                 "predicted pixels", "false positives", "false negatives"], rows))
        if private:
            res.private.append(image_table(evaluation))
        return res

    def decompose(self, evaluation):
        """The mIoU on weighted images: an image of weight k adds its confusion counts k times (exactly the set
        with k copies of the image; weight 0 is the set without it). Per class IoU = TP / (TP + FP + FN) of the
        weighted sums; a class with no weighted pixel in the ground truth or your labels has no IoU and leaves the
        mean, as in report; no class at all: 0, as report writes (metrics.confusion.weighted_mean_iou)."""
        from ..metrics.bootstrap import Decomposition
        if evaluation.image_conf is None:
            raise ValueError("decompose needs the per-image confusion counts: evaluate with per_item=True")
        counts = per_image_iou_counts(evaluation.image_conf)      # (n, 63): once, not per resample

        def score(weights):
            miou = weighted_mean_iou(weights, counts)
            miou[np.isnan(miou)] = 0.0
            return miou

        return Decomposition("image", evaluation.image_ids, score)

    def item_ids(self, reference) -> List[str]:
        """The images of ImageSets/Segmentation/<set>.txt, in list order (decompose's items)."""
        return list(reference.data.ids)

    def withhold(self, reference, items, out_dir) -> None:
        """The image list and every label image byte for byte, except a withheld image's SegmentationClass/<id>.png:
        void_png of its size (the scorer checks a result's size against it), every pixel void, the same palette for
        every withheld image."""
        withheld = set(items)
        blank = {"SegmentationClass/%s.png" % i: i for i in reference.data.ids if i in withheld}
        write_withheld_copy(reference, out_dir, lambda rel, path: void_png(*ground_truth_size(
            reference.root, blank[rel])) if rel in blank else None)

    def restrict(self, reference, submitted, withheld):
        """The set without the withheld images, and the result folder without their PNGs. Those PNGs are still
        checked as evaluate checks every image (size, values) and the first error in set order is raised, as on the
        whole reference: the error of a withheld image's PNG, unless an image before it in the set has one (those
        are then checked here, in order, as evaluate would)."""
        ids = reference.data.ids
        pred_buffer = DecodeBuffer()
        for k, img in enumerate(ids):
            if img not in withheld:
                continue
            try:
                read_prediction(submitted, img, ground_truth_size(reference.root, img), pred_buffer)
            except SubmissionError:
                gt_buffer = DecodeBuffer()
                for before in ids[:k]:
                    if before not in withheld:
                        image_confusion(reference.root, submitted, before, gt_buffer, pred_buffer)
                raise
        kept = [i for i in ids if i not in withheld]
        pngs = {i: submitted.pngs[i] for i in kept}
        return reference.replaced(SegmentationTruth(kept)), submitted._replace(pngs=pngs)

    def figures(self, reference, columns) -> Dict[str, str]:
        out = {"images": plural(len(reference.data.ids), "image")}
        out.update(class_figures([k for k in columns if k.key != "IoU_background"], "class", "classes"))
        return out

    def ignored_files(self, submission, reference) -> List[str]:
        comp, folder = find_result_dir(submission, track_comps(reference, self.comps), reference.set_name)
        # the names alone, as validate without --ids (the PNGs outside the test list: the full level's warning)
        return _not_read(submission, folder, submission.label(folder), None)[3]

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        folder_hint = None if _result_dirs(submission) else _folder_hint(submission, self.comps)
        try:
            comp, folder = find_result_dir(submission, self.comps, set_name)
        except SubmissionError as e:
            raise with_hint(e, folder_hint) from None
        name = os.path.basename(folder)
        set_name = _DIR_RX.fullmatch(name).group(2)
        folder_label = submission.label(folder)
        if ids is not None:
            ids = [i.decode("utf-8", "replace") if isinstance(i, bytes) else str(i) for i in np.asarray(ids).tolist()]
        pngs, missing, outside, warnings, hint = _not_read(submission, folder, folder_label, ids)
        try:
            if ids is not None:
                check_none_missing(missing, len(ids), outside, folder_label)
            if not pngs:
                raise SubmissionError(folder_label, expected="one <id>.png per test image", found="no PNG file")
        except SubmissionError as e:
            raise with_hint(e, hint) from None
        for png_name in outside:      # not decoded, as when scoring
            del pngs[png_name[:-4]]
        for img, path in sorted(pngs.items()):
            label = submission.label(path)
            with LabelImage(path, label) as r:
                pred = r.decode()
            check_prediction(pred, label)
        notes = ["comp%d, set '%s': %d result images in %s, all indexed/greyscale PNGs with values 0..20"
                 % (comp, set_name, len(pngs), folder_label)]
        notes.append("image sizes are checked against the ground truth when scoring")
        return notes + warnings


def _not_read(submission, folder: str, folder_label: str, ids: Optional[List[str]]):
    """The result folder's PNGs ({id: path}), the ids without one and the PNGs of no listed id (ids: the test
    list, or None), the warning lines about the files the scorer will not read (each with its near-miss hint) and
    the first hint (for an error): validate's and the scorer's, the same."""
    pngs, other = list_results(folder, submission.label)
    outside, missing = [], []
    if ids is not None:
        missing, outside = split_results(pngs, ids)
    # what the scorer will not read: other entries of the folder, PNGs of images outside the list, everything else
    hint_id, hint_file = NearMiss(missing), NearMiss(m + ".png" for m in missing)
    only = "only <id>.png files directly inside %s are read" % folder_label

    def why_in_folder(entry):
        if ids is not None:
            return only, hint_file(entry)
        image = entry.lower().endswith(IMAGE_EXTENSIONS) and without_extension(entry) not in pngs
        return only, without_extension(entry) + ".png" if image else None

    def why_outside(png):
        meant = hint_id(png[:-4])
        return "no image %r in the --ids list" % png[:-4], meant and repr(meant)

    in_folder = [(label, label.rsplit("/", 1)[-1]) for label in other]
    not_listed = [(folder_label + "/" + png, png) for png in outside]
    elsewhere = [(submission.label(path), n) for n, path in submission.files() if os.path.dirname(path) != folder]
    warnings = (ignored_warnings(in_folder, why_in_folder) + ignored_warnings(not_listed, why_outside)
                + ignored_warnings(elsewhere, lambda n: (only, None)))
    return pngs, missing, outside, warnings, first_hint(in_folder, why_in_folder) or first_hint(not_listed,
                                                                                                why_outside)


def _folder_hint(submission, comps):
    """'folder 'comp5_test': did you mean comp5_test_cls?' for the first folder whose name is a near miss of
    comp<N>_<set>_cls (validate's error when no result folder is found), or None."""
    for d in submission.dir_names():
        tokens = re.split(r"[_\-\s]+", d.lower())
        near_set = len(tokens) >= 2 and re.fullmatch(r"comp\d+", tokens[0]) and tokens[1] != "cls"
        meant = NearMiss("comp%d_%s_cls" % (c, tokens[1] if near_set else "test") for c in comps)(d)
        if meant:
            return "folder %r: did you mean %s?" % (d, meant)
    return None


TASK = Voc2011Segmentation()
