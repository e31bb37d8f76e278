"""kinetics-tps: ICCV 2021 DeeperAction Kinetics-TPS, scored as the official eval_detection.py (final commit)."""
from __future__ import annotations

import os

import numpy as np

from ..errors import ReferenceDataError, SubmissionError
from ..formats.files import NearMiss, first_hint, ignored_warnings, with_hint
from ..formats.kinetics_tps import (check_pred_frame, cut_box_text, flatten_ground_truth, load_json,
                                    no_cycle_collection, read_predictions, _found)
from ..metrics.psc import (area_left_riemann, frame_and_video_psc, match_humans, part_correctness,
                           psc_accuracy_curve)
from ..report.result import Plot, Result, ScoreKey, Series, Table
from .base import Reference, Stopwatch, Task, no_progress

VID_FILE = "pred_vid_result.json"
PART_FILE = "pred_part_result.json"
GT_VID_FILE = "gt_vid_result.json"
GT_PART_FILE = "gt_part_result.json"

PROTOCOL = [
    "Kinetics-TPS (ICCV 2021 DeeperAction), scored as the official evaluator eval_detection.py at its final commit "
    "(with the 2021-06-12 fix that reads the MATCHED predicted human's parts). Where its README says otherwise, the "
    "code is followed; the differences are listed here.",
    "Videos are the keys of gt_vid_result.json; frames are the frame keys of gt_part_result.json for that video. "
    "Videos and frames that only the prediction has are ignored. A ground-truth frame without humans leaves the "
    "video's frame count. A frame missing from the prediction counts as PSC 0 and stays in the count. A predicted "
    "frame whose ground-truth humans have no parts at all leaves the count (but a MISSING frame without parts still "
    "counts as 0: the original checks for the missing frame first).",
    "Humans: per frame ONE optimal assignment (Hungarian, maximizing total IoU, one-to-one) on the float32 IoU "
    "matrix of ground-truth x predicted human boxes, where disjoint pairs have IoU -1.0 and padding rows/columns "
    "(to make it square) 0.0; assigned pairs with IoU > 0.5 (strict, in float32) are matched. It is not a greedy "
    "'best box per ground truth' as the README says.",
    "IoU everywhere: +1 pixel convention, intersection w = min(x2) - max(x1) + 1 (h likewise), -1.0 when either "
    "is <= 0, area = (x2-x1+1)(y2-y1+1). Part IoUs are float64.",
    "Parts of a matched ground-truth human: if the prediction has a part of the same name, N_p = the length of its "
    "verb list; the part is correct when some proposal j (over the box list) has IoU >= 0.3 (inclusive; the README "
    "says >) and verb j equals the ground-truth state exactly; its correctness is 1/N_p, else 0. Missing parts, "
    "parts of unmatched humans, and N_p = 0 give 0; extra predicted parts are ignored.",
    "Frame PSC = (sum of part correctness over ALL ground-truth humans of the frame) / (number of their parts): "
    "pooled over the frame, not a mean of per-human means. Video PSC = mean over its counted frames; a video "
    "without any counted frame has PSC 1.0.",
    "A video is correct at threshold t when PSC >= t (inclusive; the README says >) and its predicted class equals "
    "the ground-truth class exactly. acc(t) = correct videos / ground-truth videos.",
    "score = sum over t = 1..9999 of (1/10000) * acc(t/10000), accumulated in that order: a left Riemann sum that "
    "skips t = 0 and never reaches t = 1, so a perfect submission scores 0.9998999999999062, not 1. top1 = acc(0) "
    "(plain top-1 video accuracy); mean_PSC = mean of the video PSCs (1.0 defaults included).",
    "Where the original crashes, this scorer stops with a submission error naming the video and frame: a test video "
    "missing from pred_vid_result.json (or from pred_part_result.json while it has ground-truth humans), a "
    "predicted frame without 'humans', more than 10 predicted humans in an evaluated frame, a predicted human "
    "without 'box' or 'parts', more than 5 proposals for a part, more box proposals than verbs (fewer is legal: N_p "
    "counts verbs), boxes of fewer than 4 numbers or with anything but finite numbers, and invalid JSON (with its "
    "line and column). These checks apply to every predicted human and part of an evaluated frame (the original "
    "only trips over the ones it reads); class names and states must be text.",
    "A predicted box (human or part proposal) of more than 4 finite numbers is scored as the original scores it: "
    "only its first 4 numbers are read as x1, y1, x2, y2. The report and the command line give a warning with the "
    "number of such boxes in the evaluated frames and the first of them.",
]


def _locate(submission, name):
    path = submission.find(name)
    if path is None:
        raise SubmissionError(name, message="the submission has no %s" % name,
                              expected="pred_vid_result.json and pred_part_result.json",
                              found=", ".join(submission.names()[:8]) or "no files")
    return path, submission.label(path)


def load_reference(ref_dir, clock=None):
    """gt_vid_result.json and gt_part_result.json (all eval_detection.py reads), checked and flattened: a Reference
    whose data is the flattened ground truth. clock: a Stopwatch to time the JSON parsing and the checks with."""
    clock = clock or Stopwatch()
    ref = str(ref_dir)
    with no_cycle_collection():
        with clock("JSON parsing (json.loads)"):
            gt_vid = load_json(os.path.join(ref, GT_VID_FILE), "ref/" + GT_VID_FILE, ReferenceDataError)
            gt_part = load_json(os.path.join(ref, GT_PART_FILE), "ref/" + GT_PART_FILE, ReferenceDataError)
        with clock("checks and arrays"):
            gt = flatten_ground_truth(gt_vid, gt_part, "ref/" + GT_VID_FILE, "ref/" + GT_PART_FILE)
            del gt_part
    return Reference(ref_dir, [GT_VID_FILE, GT_PART_FILE], gt)


def evaluate(gt, pr):
    """Arrays in, every number of the report out (the functional core, testable without files)."""
    n_frames = len(gt.frame_name)
    matched, miou = match_humans(gt.human_box, gt.human_frame, pr.human_box, pr.human_frame, n_frames)
    value, found, correct = part_correctness(gt.part_human, gt.part_name, gt.part_box, gt.part_verb, matched,
                                             pr.pp_human, pr.pp_name, pr.pp_nverb, pr.pp_nbox, pr.pp_box_start,
                                             pr.prop_box, pr.prop_verb)
    frame_psc, counted, nparts, video_psc, video_frames = frame_and_video_psc(
        value, gt.part_human, gt.human_frame, gt.frame_video, pr.frame_has_pred, gt.n_videos)
    class_ok = np.array([a == b for a, b in zip(pr.classes, gt.classes)], dtype=bool)
    t, acc = psc_accuracy_curve(video_psc, class_ok)
    return {"matched": matched, "found": found, "correct": correct, "frame_psc": frame_psc, "counted": counted,
            "frame_parts": nparts, "video_psc": video_psc, "video_frames": video_frames, "class_ok": class_ok,
            "t": t, "acc": acc, "score": area_left_riemann(acc), "top1": float(acc[0]),
            "mean_PSC": float(np.mean(video_psc))}


class KineticsTps(Task):
    slug = "kinetics-tps"
    title = "Kinetics-TPS: part-state correctness and PSC-conditioned action accuracy"

    columns_need_reference = False

    def column_table(self, reference=None):
        return [ScoreKey("score", "Score (PSC-conditioned accuracy)", precision=6),
                ScoreKey("top1", "Top-1 accuracy"), ScoreKey("mean_PSC", "Mean PSC")]

    def load_reference(self, ref_dir, set_name=None, progress=no_progress):
        return load_reference(ref_dir)

    def score(self, ref_dir, submission, progress=no_progress, private=False):
        with no_cycle_collection():
            return self._score(str(ref_dir), submission, progress)

    def _score(self, ref, submission, progress):
        clock = Stopwatch()
        gt = load_reference(ref, clock).data
        vpath, vlabel = _locate(submission, VID_FILE)
        ppath, plabel = _locate(submission, PART_FILE)
        with clock("JSON parsing (json.loads)"):
            pred_vid = load_json(vpath, vlabel)
            pred_part = load_json(ppath, plabel)
        progress(0, 2, "steps")
        with clock("checks and arrays"):
            pr = read_predictions(pred_vid, pred_part, gt, vlabel, plabel)
            del pred_part
        with clock("metric"):
            r = evaluate(gt, pr)
        progress(2, 2, "steps")
        res = Result(self.title)
        res.protocol = list(PROTOCOL)
        for k in ("score", "top1", "mean_PSC"):
            res.set(k, r[k])
        with clock("report tables"):
            self._report(res, gt, pr, r)
        res.timings = clock.phases()
        return res

    def _report(self, res, gt, pr, r):
        nv = gt.n_videos
        t, acc = r["t"], r["acc"]
        rows = [["%.1f" % x, float(acc[int(round(x * 10000))])] for x in np.arange(10) / 10.0]
        res.tables.append(Table("PSC-conditioned accuracy at some thresholds (PSC >= t and right class)",
                                ["t", "accuracy"], rows))
        classes = sorted(set(gt.classes))
        cls = np.array([classes.index(c) for c in gt.classes]) if nv < 200000 else None
        if cls is not None:
            crow = []
            for k, c in enumerate(classes):
                sel = cls == k
                crow.append([c, int(sel.sum()), float(r["class_ok"][sel].mean()), float(r["video_psc"][sel].mean())])
            res.tables.append(Table("Per action class", ["class", "videos", "top-1", "mean PSC"], crow))
        n_counted = int(r["counted"].sum())
        nparts = gt.part_human.size
        res.tables.append(Table("Bookkeeping", ["what", "count"], [
            ["ground-truth videos", nv],
            ["frames with ground-truth humans", len(gt.frame_name)],
            ["frames without ground-truth humans (not counted)", int(gt.empty_frames.sum())],
            ["frames missing from the prediction (PSC 0, counted)", pr.missing_frames],
            ["predicted frames whose humans have no parts (not counted)",
             int((pr.frame_has_pred & (r["frame_parts"] == 0)).sum())],
            ["frames counted", n_counted],
            ["videos without a counted frame (PSC 1.0)", int((r["video_frames"] == 0).sum())],
            ["ground-truth humans", gt.human_frame.size],
            ["ground-truth humans matched (IoU > 0.5)", int((r["matched"] >= 0).sum())],
            ["ground-truth parts", nparts],
            ["parts present in the matched prediction", int(r["found"].sum())],
            ["parts correct (IoU >= 0.3 and same state)", int(r["correct"].sum())],
        ]))
        res.plots.append(Plot("PSC-conditioned accuracy", "PSC threshold t", "accuracy",
                              [Series("acc(t)", t[::10], acc[::10], step=True)]))
        vp = np.sort(r["video_psc"])
        res.plots.append(Plot("Video PSC (cumulative share of videos)", "PSC", "share of videos <= PSC",
                              [Series("videos", vp, np.arange(1, nv + 1) / nv, step=True)]))
        if pr.extra_videos:
            res.notes.append("%d predicted video(s) are not test videos: ignored." % pr.extra_videos)
        if pr.extra_frames:
            res.notes.append("%d predicted frame(s) are not evaluated frames (not in the ground truth, or without "
                             "ground-truth humans): ignored." % pr.extra_frames)
        if pr.cut_warning:
            res.warnings.append(pr.cut_warning)
        if pr.missing_frames:
            res.warnings.append("%d evaluated frame(s) are missing from %s: each counts as PSC 0."
                                % (pr.missing_frames, PART_FILE))

    def validate(self, submission, ids=None):
        with no_cycle_collection():
            return self._validate(submission, ids)

    def _validate(self, submission, ids):
        fixed = (VID_FILE, PART_FILE)
        hint = NearMiss(f for f in fixed if submission.find(f) is None)
        ignored = [(submission.label(path), n) for n, path in submission.files() if n not in fixed]

        def why(name):
            return "only %s and %s are read" % fixed, hint(name)

        try:
            vpath, vlabel = _locate(submission, VID_FILE)
            ppath, plabel = _locate(submission, PART_FILE)
        except SubmissionError as e:
            raise with_hint(e, first_hint(ignored, why)) from None
        pred_vid = load_json(vpath, vlabel)
        if not isinstance(pred_vid, dict):
            raise SubmissionError(vlabel, expected="an object {video: predicted_class}", found=_found(pred_vid))
        for v, c in pred_vid.items():
            if not isinstance(c, str):
                raise SubmissionError(vlabel, message="video %r" % v, expected="a class name (text)", found=_found(c))
        pred_part = load_json(ppath, plabel)
        if not isinstance(pred_part, dict):
            raise SubmissionError(plabel, expected="an object {video: {frame: {humans}}}", found=_found(pred_part))
        nframes = nhumans = n_cut = 0
        first_cut = None
        for v, frames in pred_part.items():
            if not isinstance(frames, dict):
                raise SubmissionError(plabel, message="video %r" % v, expected="an object {frame: {humans}}",
                                      found=_found(frames))
            for f, fr in frames.items():
                cut = check_pred_frame(plabel, v, f, fr)
                if cut:
                    n_cut += len(cut)
                    first_cut = first_cut or cut[0]
                nframes += 1
                nhumans += len(fr["humans"])
        notes = ["%s: %d videos" % (vlabel, len(pred_vid)),
                 "%s: %d videos, %d frames, %d humans" % (plabel, len(pred_part), nframes, nhumans)]
        if n_cut:
            notes.append("warning: " + cut_box_text(n_cut, *first_cut))
        if ids is not None:
            want = set(x.decode() if isinstance(x, bytes) else str(x) for x in ids)
            missing = sorted(want - set(pred_vid))
            if missing:
                raise SubmissionError(vlabel, expected="a class for every test video",
                                      found="%d missing: %s" % (len(missing), ", ".join(missing[:5])))
        only = sorted(set(pred_part) - set(pred_vid))
        if only:
            notes.append("%d video(s) have part results but no class (ignored unless they are test videos)" % len(only))
        return notes + ignored_warnings(ignored, why)


TASK = KineticsTps()
