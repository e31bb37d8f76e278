"""action-tubes: spatio-temporal action detection, frame-AP / video-AP (ACT-detector, MOC-Detector) and AUC
(Gkioxari's get_ROC_curve_JHMDB.m), for UCF Sports / J-HMDB / UCF101-24 style data."""
from __future__ import annotations

import os
from collections import OrderedDict
from typing import AbstractSet, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError
from ..formats import tubes as fmt
from ..formats.hints import (WARNING, Unmatched, Vocabulary, box_hint, first_hint, fixed_files_ignored,
                             ignored_warnings, unmatched, with_hint)
from ..formats.text import decode, line_fields, lookup, parse_csv
from ..metrics import tubes as M
from ..metrics.bootstrap import Decomposition
from ..metrics.ranking import kept_index
from ..metrics.segments import offsets
from ..report.result import (MAX_POINTS, MIN_BLOCK, Bars, HeatMap, Own, Plot, Result, ScoreKey, Series, Table,
                             faithful_pr_plots)
from .base import Reference, Rule, Task, as_text, name_list, no_progress, plural, read_withheld, unmatched_warning
from .voc2011_detection import beyond_table, tide_section

VIDEO_KEYS = (("video_mAP_20", [0.2]), ("video_mAP_50", [0.5]), ("video_mAP_75", [0.75]),
              ("video_mAP_50_95", M.video_thresholds_50_95()))
AUC_KEYS = tuple(("AUC_%d" % k, k / 100.0) for k in (10, 20, 30, 40, 50, 60))

PROTOCOL = [
    Rule("scope", "Scored as the ACT-detector evaluation (frameAP, videoAP; the MOC-Detector port adds video-AP "
                  "0.5:0.95) and Gkioxari's get_ROC_curve_JHMDB.m (AUC). Boxes have inclusive pixel corners: width = "
                  "x2 - x1 + 1, and every IoU is the '+1 pixel' IoU. Rows for videos not in the test list are "
                  "ignored. Means are over the class set (the labels of the test videos); a class without detections "
                  "counts 0."),
    Rule("frame_map", "frame_mAP (threshold 0.5): per class, detections sorted by descending score compared as "
                      "float32 (ACT stores them as float32), ties in file order. Each detection takes the best IoU "
                      "among the still-unmatched ground-truth boxes of its class in its (video, frame): >= 0.5 is a "
                      "true positive and consumes that box; otherwise, or when no box is left, a false positive."),
    Rule("ap", "AP (ACT pr_to_ap): the trapezoid rule on the raw precision/recall points, starting at (recall 0, "
               "precision 1): sum (r_i - r_(i-1)) (p_i + p_(i-1)) / 2. No precision envelope and nothing appended at "
               "recall 1."),
    Rule("video_nms", "video-AP: first, per video and class, 3D non-maximum suppression at ST-IoU 0.3 (part of the "
                      "official evaluation): the highest-scored tube is kept (among equal scores the one later in the "
                      "file), tubes overlapping it by more than 0.3 are dropped and never count as false positives. "
                      "ST-IoU = temporal IoU (tmax - tmin + 1) / (union span) times the mean per-frame IoU over the "
                      "common frames; one shared frame counts, none gives 0."),
    Rule("video_matching", "The kept tubes of a class are listed video by video (test list order), sorted stably by "
                           "descending score; each takes the best ST-IoU among its video's unmatched ground-truth "
                           "tubes of the class: >= threshold is a true positive and consumes it. video_mAP_50_95 "
                           "averages the thresholds 0.5 + 0.05 i (i = 0..9) computed as Python floats, as "
                           "MOC-Detector's videpAP_050_095 (so spelled) does (the 8th comes out one unit in the last "
                           "place above 0.85, so an ST-IoU of exactly 0.85 is a false positive there)."),
    Rule("auc", "AUC (Gkioxari, threshold = key / 100): per video (sorted by id) and every class, the video's 3 "
                "best-scored tubes of that class; a tube's IoU is the mean +1 IoU over frames 1..num_frames with the "
                "video's ground-truth tube (frames where either has no box count 0); in score order a tube is correct "
                "iff IoU >= threshold, the class is the video's and no earlier kept tube of the video and class was "
                "correct. Per class a ROC curve (float32 scores, stable) kept up to false-positive rate 0.6; the mean "
                "ROC curve uses the original's nearest-neighbour rule, and AUC is its area from the smallest to the "
                "largest kept false-positive rate (so a perfect detector scores the largest kept rate, e.g. 0.5, not "
                "0.6). Defined only when every test video has exactly one ground-truth tube."),
    Rule("inverted_boxes", "Boxes with x1 > x2 or y1 > y2 are scored as the original code scores them, with a warning "
                           "giving their count and the first line: the width x2 - x1 + 1 and the height y2 - y1 + 1 "
                           "are taken as they are (ACT's area2d and overlap2d; MATLAB's rectint for AUC). A box "
                           "inverted by a pixel or more overlaps nothing: in frame-AP it is a false positive, in a "
                           "tube its frame counts IoU 0 in the mean over frames. Its area, zero or negative, still "
                           "enters the union, and where it cancels the other box's area the original computes 0 / 0 = "
                           "NaN: in frame-AP it stays a false positive; a tube whose ST-IoU is NaN with a "
                           "ground-truth tube of its video and class that is still unmatched is a false positive and "
                           "consumes nothing (numpy's argmax picks the NaN), even if it matches another ground-truth "
                           "tube; in the 3D NMS a NaN ST-IoU with the kept tube suppresses the tube (only ST-IoU <= "
                           "0.3 survives); for AUC the original adds eps (2^-52) to the union, so such a frame counts "
                           "0. A box inverted by less than a pixel (x1 = 10.5, x2 = 10) has a positive width and "
                           "overlaps as any box. Ground-truth boxes must have x1 <= x2 and y1 <= y2."),
]


def inverted_boxes_warning(label, inverted):
    """The count and the first of a submitted file's boxes with x1 > x2 or y1 > y2 (the participant's own line)."""
    return ("%s: %d box(es) with x1 > x2 or y1 > y2, first at line %d (x1,y1,x2,y2 = %s); scored as the original "
            "code scores them: width x2 - x1 + 1 and height y2 - y1 + 1 are taken as they are, so a box inverted by "
            "a pixel or more overlaps nothing (see the evaluation rules)."
            % (label, inverted.count, inverted.line, inverted.box))


def auc_exceptions(videos, gt):
    """The number of test videos without exactly one ground-truth tube: AUC (Gkioxari's get_ROC_curve_JHMDB.m)
    is computed only when it is 0. A withheld video (no class, label -1: ActionTubes.withhold) is not counted: its
    tubes were left out."""
    ntubes = np.bincount(gt.tube_video, minlength=videos.ids.size)
    return int(np.count_nonzero((ntubes != 1) & (videos.label >= 0)))


def _cls(videos):
    return decode(videos.classes.tolist())


class TubesTruth(NamedTuple):
    """Reference.data. videos: formats.tubes.Videos of videos.csv (ids (V,) bytes 'S' in file order, label (V,)
    class index into classes, num_frames (V,) int64, classes (C,) bytes 'S' sorted); gt: formats.tubes.Boxes of
    gt_tubes.csv (per row, one box a frame: video, frame, box (n, 4) float64; per tube: tube_video, tube_label,
    tube_first, tube_length, tube_start). In a withheld reference (ActionTubes.withhold) the withheld videos have
    label -1 and no tube, and classes is classes.csv's class set."""
    videos: fmt.Videos
    gt: fmt.Boxes


class Submitted(NamedTuple):
    """The files read: frame detections and tubes (None: no such file) with their labels (the participant's own
    file names), and the warnings about each file (read_warnings), made against every test video before
    Task.restrict: the same whichever videos are withheld."""
    detections: object
    detections_label: object
    tubes: object
    tubes_label: object
    detections_warnings: Sequence[str] = ()
    tubes_warnings: Sequence[str] = ()


class FrameEvaluation(NamedTuple):
    """frame-AP: per class AP, (recall, precision), detections, true positives; match: metrics.tubes.FrameMatch;
    tide: TideResult; errors: TideErrors (kind in match.order); aps75: per class AP at IoU 0.75. Without the
    analyses the curves are empty and tide, errors and aps75 are None."""
    aps: np.ndarray
    curves: list
    ndet: np.ndarray
    ntp: np.ndarray
    match: object
    tide: object
    errors: object
    aps75: object = None


class VideoEvaluation(NamedTuple):
    """video-AP: aps (threshold, class), curves per threshold, kept tube indices (3D NMS)."""
    thresholds: list
    aps: np.ndarray
    curves: list
    kept: np.ndarray


class Evaluation(NamedTuple):
    """classes: the class names; frame / video: None without the file; auc: [(key, threshold, auc_gkioxari
    result)] or None when AUC is undefined (nbad_auc videos without exactly one ground-truth tube)."""
    videos: object
    gt: object
    classes: list
    submitted: Submitted
    frame: object
    video: object
    auc: object
    nbad_auc: int


def auc_results(videos, gt, tb, C):
    """Gkioxari's AUC at every AUC_KEYS threshold: [(key, threshold, auc_gkioxari result)]."""
    V = videos.ids.size
    vrank = np.empty(V, dtype=np.int64)
    vrank[np.argsort(videos.ids, kind="stable")] = np.arange(V)
    gt_of_video = np.empty(V, dtype=np.int64)
    gt_of_video[gt.tube_video] = np.arange(gt.tube_video.size)
    if tb is not None and tb.tube_video.size:
        n = tb.tube_video.size
        iou = np.zeros(n)
        sel = np.flatnonzero(tb.tube_label == videos.label[tb.tube_video])
        a = M.Tubes(tb.tube_first, tb.tube_length, tb.tube_start, tb.box)
        b = M.Tubes(gt.tube_first, gt.tube_length, gt.tube_start, gt.box)
        video = tb.tube_video[sel]
        iou[sel] = M.auc_tube_iou(a, b, sel, gt_of_video[video], videos.num_frames[video])
        tv, tl, ts = tb.tube_video, tb.tube_label, tb.tube_score
    else:
        tv = tl = np.zeros(0, dtype=np.int64)
        ts = iou = np.zeros(0)
    return [(key, th, M.auc_gkioxari(vrank, tv, tl, ts, iou, videos.label, C, th)) for key, th in AUC_KEYS]


def auc_report(res, auc, classes):
    C = len(classes)
    rows = [[classes[c]] for c in range(C)]
    series = []
    for key, th, r in auc:
        res.set(key, r["auc"])
        for c in range(C):
            rows[c].append(float(r["class_auc"][c]))
        series.append(Series("IoU %.1f (AUC %.4f)" % (th, r["auc"]), r["fpr"], r["tpr"]))
        if th == 0.5:
            ngt, nneg = r["num_gt"], r["num_neg"]
    for c in range(C):
        rows[c] += [int(ngt[c]), int(nneg[c])]
    res.tables.append(Table("Per-class ROC area up to false-positive rate 0.6 (for reference; the AUC keys are "
                            "the areas of the mean ROC curve)",
                            ["class"] + ["AUC@%.1f" % th for _, th in AUC_KEYS] + ["GT videos", "negatives@0.5"],
                            rows))
    res.plots.append(Plot("Mean ROC curve (top-3 tubes per class and video)", "false positive rate",
                          "true positive rate", series, xlim=(0.0, 0.6)))


VIDEO_LOST = "Where the video-AP points were lost"
VIDEO_LOST_INTRO = ("Per ST-IoU threshold and class, from the tubes kept by the 3D NMS and ranked as video-AP ranks "
                    "them. Every class's AP lost (1 - AP) splits in two exact parts: the ground-truth tubes no kept "
                    "tube found at the threshold (1 - max recall: the curve stops there), and false tubes ranked "
                    "above the true ones (max recall - AP). A false tube matches no still-free ground-truth tube of "
                    "its class and video at the threshold (a second tube on a found one is false too).")


class VideoLost(NamedTuple):
    """Per (threshold, class), from video_ap's curves: max recall, found and missed ground-truth tubes, false
    (kept, unmatched) tubes; thresholds ascending, each once."""
    thresholds: np.ndarray      # (T,)
    ap: np.ndarray              # (T, C)
    max_recall: np.ndarray      # (T, C)
    found: np.ndarray           # (T, C) ground-truth tubes matched
    missed: np.ndarray          # (T, C) ground-truth tubes not matched
    false: np.ndarray           # (T, C) kept tubes matching nothing


def video_lost(thresholds, vaps, vcurves, ntubes_gt) -> VideoLost:
    """Where video-AP was lost, from what video_ap already returns (its AP and ACT curve per threshold and class:
    the curve's last point is the class's final recall, its length the class's kept tubes)."""
    unique = sorted(set(thresholds))
    at = [thresholds.index(th) for th in unique]
    C = ntubes_gt.size
    last_recall = np.array([[c[0][-1] if c[0].size else 0.0 for c in vcurves[i]] for i in at]).reshape(len(at), C)
    ntubes = np.array([[c[0].size for c in vcurves[i]] for i in at], dtype=np.int64).reshape(len(at), C)
    found = np.rint(last_recall * ntubes_gt[None, :]).astype(np.int64)
    return VideoLost(np.array(unique), vaps[at], last_recall, found, ntubes_gt[None, :] - found, ntubes - found)


def video_lost_section(res, lost: VideoLost, classes):
    """The "Where the video-AP points were lost" section: per threshold (mean over classes), a heat map of the
    per-class video-AP over the thresholds, and per class at ST-IoU 0.5 against the mean."""
    section = res.section(VIDEO_LOST, VIDEO_LOST_INTRO)
    never = 1.0 - lost.max_recall
    ranked = lost.max_recall - lost.ap
    section.add(Table("video-AP lost per ST-IoU threshold (mean over the %d classes; tubes summed)" % len(classes),
                      ["ST-IoU threshold", "video-mAP", "lost: never found", "lost: false tubes ranked above",
                       "GT tubes found", "GT tubes missed", "false tubes"],
                      [["%.2f" % th, float(lost.ap[t].mean()), float(never[t].mean()), float(ranked[t].mean()),
                        int(lost.found[t].sum()), int(lost.missed[t].sum()), int(lost.false[t].sum())]
                       for t, th in enumerate(lost.thresholds)]))
    section.add(HeatMap("video-AP per class and ST-IoU threshold (%)", classes,
                        ["%.2f" % th for th in lost.thresholds], lost.ap.T, row_title="class",
                        col_title="ST-IoU threshold"))
    t = int(np.flatnonzero(lost.thresholds == 0.5)[0])
    mean = float(lost.ap[t].mean())
    section.add(Table("Per class at ST-IoU 0.5 (video-mAP %.4f)" % mean,
                      ["class", "video-AP", "against the mean", "lost: never found", "lost: false tubes ranked above",
                       "GT tubes found", "GT tubes missed", "false tubes"],
                      [[classes[c], float(lost.ap[t, c]), "%+.4f" % (round(lost.ap[t, c] - mean, 4) + 0.0),
                        float(never[t, c]), float(ranked[t, c]), int(lost.found[t, c]), int(lost.missed[t, c]),
                        int(lost.false[t, c])] for c in np.argsort(lost.ap[t], kind="stable")]))


TUBE_CURVES_NOTE = ("Each precision/recall curve is drawn from the points at every k-th rank of your ranked "
                    "detections (k >= %d, at most %d points), so it shows how many true positives lie in each block of "
                    "k ranks, never whether one detection is one. The shaded area under the straight segments is the "
                    "AP (ACT's trapezoid rule, from recall 0 at precision 1) up to that resolution; the exact AP is in "
                    "the scores." % (MIN_BLOCK, MAX_POINTS))


def act_pr_plots(what, classes, curves):
    """One plot per class with detections: ACT's precision/recall points from (0, 1) at every k-th rank
    (rank_blocks), the area under the straight segments shaded (the trapezoid AP up to that resolution), where that
    area is faithful to the class's AP (faithful_pr_plots)."""
    return faithful_pr_plots([("%s: %s" % (what, classes[c]), r, p) for c, (r, p) in enumerate(curves)], False,
                             TUBE_CURVES_NOTE)


def per_video_table(ev):
    """Organizer only: per test video, its class, ground truth and how the submission fared there."""
    videos, gt, sub = ev.videos, ev.gt, ev.submitted
    V = videos.ids.size

    def per_video(index, mask=None):
        return np.bincount(index if mask is None else index[mask], minlength=V)

    zero = np.zeros(V, dtype=np.int64)
    gt_matched = np.zeros(gt.box.shape[0], dtype=bool)
    cols = [per_video(gt.tube_video), per_video(gt.video)]
    if ev.frame is not None:
        m, d = ev.frame.match, sub.detections
        gt_matched[m.gt[m.gt >= 0]] = True
        cols += [per_video(d.video), per_video(d.video, m.tp), per_video(gt.video, ~gt_matched)]
    else:
        cols += [zero, zero, per_video(gt.video)]
    if ev.video is not None:
        cols += [per_video(sub.tubes.tube_video), per_video(sub.tubes.tube_video[ev.video.kept])]
    else:
        cols += [zero, zero]
    classes = ev.classes
    rows = [[v.decode("utf-8", "replace"), classes[int(videos.label[k])], int(videos.num_frames[k])]
            + [int(c[k]) for c in cols] for k, v in enumerate(videos.ids.tolist())]
    return Table("Per video: ground truth and detections",
                 ["video", "class", "frames", "GT tubes", "GT boxes", "frame detections", "frame TP",
                  "GT boxes not matched", "tubes", "tubes kept (3D NMS)"], rows)


class ActionTubes(Task):
    slug = "action-tubes"
    title = "Spatio-temporal action detection: frame-AP, video-AP, AUC"
    protocol = PROTOCOL

    def column_table(self, reference=None) -> List[ScoreKey]:
        keys = [ScoreKey("frame_mAP", "frame-mAP@0.5")]
        keys += [ScoreKey(k, k.replace("video_mAP_", "video-mAP@").replace("50_95", "0.5:0.95")) for k, _ in VIDEO_KEYS]
        keys += [ScoreKey(k, "AUC@%.1f" % th) for k, th in AUC_KEYS]
        return keys

    # ------------------------------------------------------------------------------------------- reference
    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """videos.csv and gt_tubes.csv: a Reference whose data is a TubesTruth. A withheld reference (its WITHHELD
        file: ActionTubes.withhold) also has classes.csv, the class set, and the videos WITHHELD names have no
        class (their label in videos.csv, WITHHELD_LABEL, is no class: label -1)."""
        withheld = read_withheld(ref_dir)
        files = ["videos.csv", "gt_tubes.csv"] + ([CLASSES_FILE] if withheld is not None else [])
        paths = [os.path.join(str(ref_dir), name) for name in files]
        for p, name in zip(paths, files):
            if not os.path.isfile(p):
                raise ReferenceDataError("ref/" + name, message="missing from the reference data")
        videos = fmt.read_videos(paths[0])
        if withheld is not None:
            videos = unlabelled(videos, withheld, read_classes(paths[2]))
        gt = fmt.read_gt_tubes(paths[1], videos)
        return Reference(ref_dir, files, TubesTruth(videos, gt))

    def empty_columns(self, reference) -> Dict[str, str]:
        """The AUC columns when a test video has no or several ground-truth tubes (auc_applies); in a withheld
        reference, a video of the public part (the withheld ones' tubes were left out)."""
        videos, gt = reference.data
        nbad = auc_exceptions(videos, gt)
        if not nbad:
            return {}
        return OrderedDict((key, "AUC is defined only when every test video has exactly one ground-truth tube "
                                 "(J-HMDB, UCF Sports); %d of the %d videos have none or several"
                            % (nbad, int(np.count_nonzero(videos.label >= 0)))) for key, _ in AUC_KEYS)

    def reference_warnings(self, reference) -> List[str]:
        """The classes of the videos without any ground-truth tube (a withheld reference: of the other videos)."""
        videos, gt = reference.data
        classes = _cls(videos)
        ntubes = np.bincount(gt.tube_label, minlength=len(classes))
        labelled = np.bincount(videos.label[videos.label >= 0], minlength=len(classes))
        return ["class %s: no ground-truth tube in gt_tubes.csv (its frame-AP and video-AP are 0 for every "
                "submission)" % classes[c] for c in range(len(classes)) if ntubes[c] == 0 and labelled[c]]

    # ------------------------------------------------------------------------------------------- scoring
    def read_submission(self, submission, reference, progress) -> Submitted:
        """frame_detections.csv and/or tubes.csv (at least one), rows of videos outside the test list dropped."""
        videos = reference.data.videos
        det_path = submission.find("frame_detections.csv")
        tube_path = submission.find("tubes.csv")
        if det_path is None and tube_path is None:
            raise SubmissionError(expected="frame_detections.csv and/or tubes.csv in the submission",
                                  found="%s" % (", ".join(submission.names()[:5]) or "no file"))
        d = dl = tb = tl = None
        d_warnings = tb_warnings = ()
        if det_path is not None:
            dl = submission.label(det_path)
            d = fmt.read_frame_detections(det_path, dl, videos)
            d_warnings = read_warnings(dl, d, d.ignored, d.nrows, "rows", videos)
        if tube_path is not None:
            tl = submission.label(tube_path)
            tb = fmt.read_tubes(tube_path, tl, videos)
            tb_warnings = read_warnings(tl, tb, tb.ignored_tubes, tb.ignored_tubes + tb.tube_video.size, "tubes",
                                        videos)
        return Submitted(d, dl, tb, tl, d_warnings, tb_warnings)

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> Evaluation:
        """frame-AP with TIDE's error analysis, video-AP, AUC (metrics.tubes)."""
        videos, gt = reference.data
        classes = _cls(videos)
        C = len(classes)
        progress(0, 3, "measures")
        frame = None
        d = submitted.detections
        if d is not None:
            span = int(videos.num_frames.max()) + 1
            det_key, gt_key = d.video * span + d.frame, gt.video * span + gt.frame
            gt_class = gt.tube_label[np.repeat(np.arange(gt.tube_label.size), gt.tube_length)]
            m = M.frame_match(d.label, det_key, d.score, d.box, gt_class, gt_key, gt.box,
                              also=(0.75,) if analyses else ())
            npos = np.bincount(gt_class, minlength=C)
            ranked_label = d.label[m.order]
            aps, curves = M.class_aps(m.tp[m.order], ranked_label, npos, C)
            tide = errors = aps75 = None
            if analyses:
                aps75 = M.class_aps(m.tp_at[0][m.order], ranked_label, npos, C)[0]
                del ranked_label
                tide, errors = M.frame_tide(d.label, det_key, d.box, gt_class, gt_key, gt.box, m, C)
            else:
                curves = [(np.zeros(0), np.zeros(0))] * C      # drawn only at the full level
            frame = FrameEvaluation(aps, curves, np.bincount(d.label, minlength=C),
                                    np.bincount(d.label[m.tp], minlength=C), m, tide, errors, aps75)
        progress(1, 3, "measures")
        thresholds = []
        for _, ths in VIDEO_KEYS:
            thresholds += ths
        video = None
        tb = submitted.tubes
        if tb is not None:
            gts = M.Tubes(gt.tube_first, gt.tube_length, gt.tube_start, gt.box, gt.tube_video, gt.tube_label)
            tubes = M.Tubes(tb.tube_first, tb.tube_length, tb.tube_start, tb.box, tb.tube_video, tb.tube_label,
                            tb.tube_score)
            video = VideoEvaluation(thresholds, *M.video_ap(tubes, gts, videos.ids.size, C, thresholds))
        progress(2, 3, "measures")
        nbad = auc_exceptions(videos, gt)
        auc = None if nbad else auc_results(videos, gt, tb, C)
        progress(3, 3, "measures")
        return Evaluation(videos, gt, classes, submitted, frame, video, auc, nbad)

    def report(self, evaluation, private) -> Result:
        """The participant's Result (aggregates per class and threshold) and, when private, the per-video table."""
        ev = evaluation
        res = Result(self.title)
        classes, gt, sub = ev.classes, ev.gt, ev.submitted
        C = len(classes)
        npos_frames = np.bincount(gt.tube_label, weights=gt.tube_length, minlength=C).astype(np.int64)
        ntubes_gt = np.bincount(gt.tube_label, minlength=C)
        # Own (shown at every report level): only which files were submitted. The other notes and warnings count
        # rows of the test list's videos (read, ignored, inverted, kept) or ground-truth tubes: withheld at the
        # hidden level
        # ---- frame-AP
        if ev.frame is not None:
            d, label = sub.detections, sub.detections_label
            aps, curves, ndet, ntp = ev.frame.aps, ev.frame.curves, ev.frame.ndet, ev.frame.ntp
            if d.ignored:
                res.notes.append("%s: %d row(s) of videos not in the test list were ignored." % (label, d.ignored))
            res.warnings.extend(sub.detections_warnings)
            res.notes.append("%s: %d detections read." % (label, d.score.size))
        else:
            aps, curves = np.zeros(C), [(np.zeros(0), np.zeros(0))] * C
            ndet = ntp = np.zeros(C, dtype=np.int64)
            res.notes.append(Own("No frame_detections.csv: frame-AP is 0 for every class."))
        res.set("frame_mAP", float(np.mean(aps)))
        res.bars.append(Bars("frame-AP per class (IoU 0.5)", classes, aps, xlabel="frame-AP (ACT frameAP)"))
        res.tables.append(Table("frame-AP per class (IoU 0.5)", ["class", "AP", "GT boxes", "detections", "TP"],
                                [[classes[c], aps[c], int(npos_frames[c]), int(ndet[c]), int(ntp[c])]
                                 for c in range(C)]))
        if ev.frame is not None and ev.frame.tide is not None:
            tide_section(res, ev.frame.tide, classes, "ACT frameAP's matching (+1 pixel IoU >= 0.5 with a free box "
                         "of the class in the same video frame, frames as the images)", what="ground-truth boxes")
            # ACT's recall of a class without ground truth is 0 (act_pr)
            beyond_table(res, classes, ev.frame.aps75, np.where(npos_frames > 0, ntp / np.maximum(npos_frames, 1),
                                                                0.0),
                         ev.frame.tide, "ACT frameAP's matching at IoU >= 0.75 instead of 0.5, pr_to_ap")
        res.plots.extend(act_pr_plots("frame-AP", classes, curves))
        # ---- video-AP
        tb, label = sub.tubes, sub.tubes_label
        if ev.video is not None:
            thresholds, vaps, vcurves, kept = ev.video
            res.notes.append("%s: %d tubes read, %d kept by the 3D NMS at 0.3 (%d suppressed; they are not counted)."
                             % (label, tb.tube_video.size, kept.size, tb.tube_video.size - kept.size))
            if tb.ignored_tubes:
                res.notes.append("%s: %d tube(s) of videos not in the test list were ignored."
                                 % (label, tb.ignored_tubes))
            res.warnings.extend(sub.tubes_warnings)
            nkept = np.bincount(tb.tube_label[kept], minlength=C)
        else:
            thresholds = []
            for _, ths in VIDEO_KEYS:
                thresholds += ths
            vaps = np.zeros((len(thresholds), C))
            vcurves = [[(np.zeros(0), np.zeros(0))] * C for _ in thresholds]
            nkept = np.zeros(C, dtype=np.int64)
            res.notes.append(Own("No tubes.csv: video-AP and AUC are 0 for every class."))
        i = 0
        per_key = []
        for key, ths in VIDEO_KEYS:
            block = vaps[i:i + len(ths)]
            per_key.append(block.mean(axis=0))
            res.set(key, float(np.mean(block.mean(axis=0))))
            i += len(ths)
        res.bars.append(Bars("video-AP@0.5 per class (after 3D NMS at 0.3)", classes, per_key[1],
                             xlabel="video-AP at ST-IoU 0.5 (ACT videoAP)"))
        res.tables.append(Table("video-AP per class (after 3D NMS at 0.3)",
                                ["class", "AP@0.2", "AP@0.5", "AP@0.75", "AP@0.5:0.95", "GT tubes", "kept tubes"],
                                [[classes[c]] + [float(p[c]) for p in per_key] + [int(ntubes_gt[c]), int(nkept[c])]
                                 for c in range(C)]))
        res.plots.extend(act_pr_plots("video-AP@0.5", classes, vcurves[thresholds.index(0.5)]))
        if ev.video is not None:
            video_lost_section(res, video_lost(thresholds, vaps, vcurves, ntubes_gt), classes)
        # ---- AUC
        if ev.auc is not None:
            auc_report(res, ev.auc, classes)
        else:
            res.notes.append("AUC is not computed: it is defined only when every test video has exactly one "
                             "ground-truth tube (J-HMDB / UCF Sports); %d video(s) here have %s." % (
                                 ev.nbad_auc, "none or several"))
        if private:
            res.private.append(per_video_table(ev))
        return res

    def decompose(self, evaluation) -> Decomposition:
        """The ranking score (frame_mAP, the first column) on weighted test videos
        (metrics.tubes.frame_map_on_weighted_videos), from the evaluation's frame matching: nothing is matched again."""
        videos, gt = evaluation.videos, evaluation.gt
        gt_class = gt.tube_label[np.repeat(np.arange(gt.tube_label.size), gt.tube_length)]
        C = len(evaluation.classes)
        if evaluation.frame is None:
            score = M.frame_map_on_weighted_videos(videos.label, C, gt.video, gt_class)
        else:
            d = evaluation.submitted.detections
            score = M.frame_map_on_weighted_videos(videos.label, C, gt.video, gt_class, d.video, d.label,
                                                   evaluation.frame.match)
        return Decomposition("video", [v.decode("utf-8", "surrogateescape") for v in videos.ids.tolist()], score)

    def item_ids(self, reference) -> List[str]:
        """The test videos, videos.csv's order (decompose's items)."""
        return [v.decode("utf-8", "surrogateescape") for v in reference.data.videos.ids.tolist()]

    def withhold(self, reference, items, out_dir) -> None:
        """videos.csv with each withheld video's label replaced by WITHHELD_LABEL (and any column the scorer does
        not read left empty), its id and num_frames as written (the scorer checks a submission's frames against
        them); gt_tubes.csv without the withheld videos' lines; every other line byte for byte. classes.csv keeps
        the class set, the labels a submission may use, which the withheld labels no longer show."""
        videos = reference.data.videos
        hidden = np.isin(videos.ids, id_array(items))
        root, out = reference.root, str(out_dir)
        mark, data = _read_with_mark(os.path.join(root, "videos.csv"))
        _write(out, "videos.csv", mark + unlabelled_rows(data, hidden))
        mark, data = _read_with_mark(os.path.join(root, "gt_tubes.csv"))
        _write(out, "gt_tubes.csv", mark + without_lines(data, tube_rows_of(data, videos.ids[hidden])))
        _write(out, CLASSES_FILE, b"label\n" + b"".join(c + b"\n" for c in videos.classes.tolist()))

    def restrict(self, reference, submitted, withheld) -> Tuple[Reference, Submitted]:
        """The other videos alone, as a reference without the withheld ones would hold them: their class set is
        the labels of those videos (as the decomposition's), the ground-truth tubes, frame detections and tubes of
        withheld videos or of classes outside that set are dropped (a class outside the set leaves the mean, and
        each class's AP, tubes and ROC curve depend on its own detections alone), videos and classes renumbered.
        The warnings about the files were made before (read_submission); the counts of rows read, ignored and
        inverted stay those of the file."""
        videos, gt = reference.data
        keep = ~np.isin(videos.ids, id_array(withheld))
        used = np.unique(videos.label[keep])
        class_of = kept_index(np.isin(np.arange(videos.classes.size), used))
        video_of = kept_index(keep)
        kept = fmt.Videos(videos.ids[keep], class_of[videos.label[keep]], videos.num_frames[keep],
                          videos.classes[used])
        d = submitted.detections
        if d is not None:
            rows = np.flatnonzero((video_of[d.video] >= 0) & (class_of[d.label] >= 0))
            d = d._replace(video=video_of[d.video[rows]], frame=d.frame[rows], label=class_of[d.label[rows]],
                           score=d.score[rows], box=d.box[rows], line=d.line[rows])
        tubes = None if submitted.tubes is None else restrict_tubes(submitted.tubes, video_of, class_of)
        return (reference.replaced(TubesTruth(kept, restrict_tubes(gt, video_of, class_of))),
                submitted._replace(detections=d, tubes=tubes))

    def figures(self, reference, columns) -> Dict[str, str]:
        videos, gt = reference.data
        classes = as_text(videos.classes.tolist())
        return {"videos": plural(int(videos.ids.size), "video"),
                "tubes": plural(int(gt.tube_video.size), "ground-truth tube"), "classes": name_list(classes),
                "num_classes": plural(len(classes), "class", "classes")}

    def kit_extras(self, reference) -> Dict[str, bytes]:
        """TEST_LIST, the public test list the kit's baseline reads (what a participant has for the test: each test
        video's id and its number of frames, in videos.csv's order), never the ground truth: the sample has no
        videos to count frames in, so the list stands in for them."""
        return {TEST_LIST: test_list(reference.data.videos)}

    # ------------------------------------------------------------------------------------------- validate
    def ignored_files(self, submission, reference=None) -> List[str]:
        return ignored_warnings(*fixed_files_ignored(submission, FILES))

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        det_path = submission.find(FILES[0])
        tube_path = submission.find(FILES[1])
        ignored, why = fixed_files_ignored(submission, FILES)
        if det_path is None and tube_path is None:
            error = SubmissionError(expected="frame_detections.csv and/or tubes.csv in the submission",
                                    found="%s" % (", ".join(submission.names()[:5]) or "no file"))
            raise with_hint(error, first_hint(ignored, why))
        notes = []
        classes = folder_classes(ids)
        for path, cols in ((det_path, fmt.DET_COLUMNS), (tube_path, fmt.TUBE_COLUMNS)):
            if path is None:
                continue
            label = submission.label(path)
            t = fmt.read_csv(path, label, cols)         # tokenized once, read as the scorer reads it
            fmt.check_header_rows(t)
            if classes is not None:
                error = fmt.label_error(t, classes)
                if fmt.label_hint(error):
                    raise error
            vids = np.unique(fmt.text_column(t, "video"))
            labs = np.unique(fmt.text_column(t, "label"))
            fake = fmt.Videos(vids, np.zeros(vids.size, dtype=np.int64), np.full(vids.size, fmt.UNKNOWN_LENGTH), labs)
            if path is det_path:
                d = fmt.read_frame_detections(path, label, fake, records=t)
                notes.append("%s: %d detections, %d videos, %d labels" % (label, d.score.size, vids.size, labs.size))
            else:
                d = fmt.read_tubes(path, label, fake, records=t)
                notes.append("%s: %d tubes (%d rows), %d videos, %d labels" % (label, d.tube_video.size, d.nrows,
                                                                              vids.size, labs.size))
            del t
            if d.inverted:
                notes.append("warning: " + inverted_boxes_warning(label, d.inverted))
            hint = box_warning(label, d.box)
            if hint:
                notes.append(WARNING + hint)
            if ids is not None:
                known = np.isin(vids, ids)
                unknown = int(np.count_nonzero(~known))
                if unknown:
                    notes.append("%s: %d video(s) not in the given ids: their rows will be ignored" % (label, unknown))
                    u = unmatched(label, "video ids", as_text(vids.tolist()), known, Vocabulary(as_text(ids.tolist())),
                                  "videos", "are in the given ids")
                    if u.hint is not None:
                        notes.append("warning: " + u.own())
        if det_path is None:
            notes.append("no frame_detections.csv: frame-AP will be 0")
        if tube_path is None:
            notes.append("no tubes.csv: video-AP and AUC will be 0")
        return notes + ignored_warnings(ignored, why)


FILES = ("frame_detections.csv", "tubes.csv")


TEST_LIST = "test_list.csv"      # the kit's public test list (kit_extras), beside ref/ in sample_input/


def test_list(videos: fmt.Videos) -> bytes:
    """The public test list as the kit's baseline reads it: the header video,num_frames and one row per test video
    (videos.csv's order); no label."""
    rows = ("%s,%d\n" % (v, n) for v, n in zip(as_text(videos.ids.tolist()), videos.num_frames.tolist()))
    return ("video,num_frames\n" + "".join(rows)).encode("utf-8")


def folder_classes(ids) -> Optional[np.ndarray]:
    """The class set a public test list shows, or None: when every id of the list (validate --ids) has a class
    folder, as J-HMDB, UCF101-24 and UCF Sports name their videos (`brush_hair/v_brush_hair_g01_c01`), the folders
    ('S' array, sorted). validate refuses a label the scorer refuses only when it is a near miss of one of them
    (letter case, separators: the same line as the scorer's); a list without folders shows no class set."""
    if ids is None or not np.asarray(ids).size:
        return None
    names = as_text(np.asarray(ids).tolist())
    if not all("/" in name for name in names):
        return None
    return np.unique(np.array([name.rsplit("/", 1)[0].encode("utf-8", "surrogateescape") for name in names],
                              dtype="S"))


def read_warnings(label: str, read, ignored: int, total: int, unit: str, videos: fmt.Videos) -> List[str]:
    """The warnings about a submitted file (FrameDetections or Boxes `read`), against the whole test list: its
    rows or tubes of videos outside the test list (the hint at every level: the list is public; `ignored` of the
    `total` units), its inverted boxes (counted over the rows of test videos) and how its boxes look written."""
    out = []
    if ignored:
        out.append(_outside_warning(label, read.first_outside, ignored, total, unit, videos))
    if read.inverted:
        out.append(inverted_boxes_warning(label, read.inverted))
    hint = box_warning(label, read.box)
    if hint:
        out.append(Own(hint))
    return out


def box_warning(label: str, boxes: np.ndarray) -> Optional[str]:
    """'<file>: <formats.hints.box_hint>' when the file's boxes look normalised or written as x, y, w, h, else None:
    the scorer's warning and validate's are this one text."""
    hint = box_hint(boxes)
    return None if hint is None else "%s: %s" % (label, hint)


def _outside_warning(label: str, first: str, count: int, total: int, unit: str, videos: fmt.Videos) -> str:
    """'<file>: 0 of 408 rows name a test video; video ids have no class folder (first: ...; the format expects
    ...)' (formats.hints). The test list's video ids are public (the participant predicts on those videos): the hint
    is shown at every level, the count at the full level only."""
    u = Unmatched(label, "video ids", count, total, unit, "name a test video", first,
                  Vocabulary(as_text(videos.ids.tolist())).hint(first))
    return unmatched_warning(u, public=True)


# ------------------------------------------------------------------ the withheld reference (issue 29)
CLASSES_FILE = "classes.csv"    # a withheld reference's class set: the labels of the whole test list
WITHHELD_LABEL = b"-"           # a withheld video's label in videos.csv: the same for every one, no class


def id_array(ids) -> np.ndarray:
    """Item ids (text, as item_ids gives them) as the 'S' array of their bytes, as videos.csv's ids are read."""
    return np.array([i.encode("utf-8", "surrogateescape") for i in ids] or [b""], dtype="S")[:len(ids)]


def read_classes(path: str) -> np.ndarray:
    """classes.csv (a header 'label', one class a line): the class set, sorted 'S' array."""
    t = fmt.read_csv(path, "ref/" + CLASSES_FILE, ("label",), ReferenceDataError)
    return np.unique(fmt.text_column(t, "label", ReferenceDataError))


def unlabelled(videos: fmt.Videos, withheld: AbstractSet[str], classes: np.ndarray) -> fmt.Videos:
    """The Videos of a withheld reference: the class set `classes`, the other videos' labels among them (else the
    organizer's error), the withheld videos without a class (label -1, whatever videos.csv writes)."""
    label = lookup(videos.classes[videos.label], classes)
    hidden = np.isin(videos.ids, id_array(withheld))
    bad = np.flatnonzero((label < 0) & ~hidden)
    if bad.size:
        raise ReferenceDataError("ref/videos.csv", message="the label of the video %s is not in %s"
                                 % (as_text([videos.ids[bad[0]]])[0], CLASSES_FILE))
    label[hidden] = -1
    return videos._replace(label=label, classes=classes)


def _read_with_mark(path: str) -> Tuple[bytes, bytes]:
    """(a UTF-8 byte-order mark or b"", the bytes after it): the bytes the loader reads (text.read_bytes), and the
    mark to write back."""
    with open(path, "rb") as f:
        data = f.read()
    mark = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    return mark, data[len(mark):]


def _write(out_dir: str, name: str, data: bytes) -> None:
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)


def unlabelled_rows(data: bytes, hidden: np.ndarray) -> bytes:
    """videos.csv's bytes with the rows `hidden` (bool per record) unlabelled: the label field WITHHELD_LABEL,
    the fields of columns the scorer does not read empty, the id and num_frames, the separators and every other
    line as written."""
    t = parse_csv(data, "ref/videos.csv", fmt.VIDEO_COLUMNS, ReferenceDataError)
    kept = {t.col("video"), t.col("num_frames")}
    out, at = [], 0
    for i in np.flatnonzero(hidden).tolist():
        starts = {int(t.starts[k][i]): k for k in range(len(fmt.VIDEO_COLUMNS))}
        first = min(starts)
        a = data.rfind(b"\n", 0, first) + 1
        b = data.find(b"\n", first)
        b = len(data) if b < 0 else b
        for s, e in zip(*(x.tolist() for x in line_fields(data, a, b, 44))):
            k = starts.get(s)
            if k in kept:
                continue
            out += [data[at:s], WITHHELD_LABEL if k == t.col("label") else b""]
            at = e
    out.append(data[at:])
    return b"".join(out)


def tube_rows_of(data: bytes, ids: np.ndarray) -> np.ndarray:
    """The 1-based lines of gt_tubes.csv's records whose video is one of `ids` ('S')."""
    t = parse_csv(data, "ref/gt_tubes.csv", fmt.GT_COLUMNS, ReferenceDataError)
    if ids.size == 0:
        return np.zeros(0, dtype=np.int64)
    return t.lines[t.find(t.col("video"), np.unique(ids)) >= 0].astype(np.int64)


def without_lines(data: bytes, lines: np.ndarray) -> bytes:
    """The bytes without the given 1-based lines (each with its line feed), every other byte as it was."""
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.append(np.flatnonzero(arr == 10) + 1, arr.size)      # line L spans ends[L - 2] .. ends[L - 1]
    starts = np.append(0, ends[:-1])
    cut = np.bincount(starts[lines - 1], minlength=arr.size + 1) - np.bincount(ends[lines - 1],
                                                                               minlength=arr.size + 1)
    return arr[np.cumsum(cut[:-1]) == 0].tobytes()


def restrict_tubes(boxes: fmt.Boxes, video_of: np.ndarray, class_of: np.ndarray) -> fmt.Boxes:
    """The tubes of kept videos and classes (video_of, class_of: the new index, -1 for a dropped one) with their
    rows, renumbered; the file's counts (rows read, tubes ignored, inverted boxes) as they were."""
    tubes = np.flatnonzero((video_of[boxes.tube_video] >= 0) & (class_of[boxes.tube_label] >= 0))
    length = boxes.tube_length[tubes]
    rows = np.zeros(boxes.video.size, dtype=bool)
    rows[np.repeat(boxes.tube_start[tubes], length) + offsets(length)] = True
    start = (np.cumsum(rows) - rows)[boxes.tube_start[tubes]]
    return boxes._replace(
        video=video_of[boxes.video[rows]], frame=boxes.frame[rows], box=boxes.box[rows],
        tube_video=video_of[boxes.tube_video[tubes]], tube_label=class_of[boxes.tube_label[tubes]],
        tube_score=None if boxes.tube_score is None else boxes.tube_score[tubes], tube_start=start,
        tube_first=boxes.tube_first[tubes], tube_length=length, tube_line=boxes.tube_line[tubes])


TASK = ActionTubes()
