"""kinetics-tps: ICCV 2021 DeeperAction Kinetics-TPS, scored as the official eval_detection.py (final commit)."""
from __future__ import annotations

import json
import os
import re
from typing import AbstractSet, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..errors import SubmissionError
from ..formats.hints import (Hint, Unmatched, Vocabulary, box_hint, first_hint, fixed_files_ignored, hint_phrase,
                             ignored_warnings, quoted, with_hint)
from ..formats.jsonpass import unescaped_quotes
from ..formats.kinetics_tps import (GroundTruth, Predictions, align_predictions, check_classes, file_bytes,
                                    load_json, missing_videos_error, no_cycle_collection, read_ground_truth,
                                    read_part_predictions, texts)
from ..metrics.psc import (STEPS, area_left_riemann, frame_and_video_psc, match_humans, part_correctness,
                           points_lost, psc_accuracy_curve)
from ..metrics.ranking import kept_index
from ..report.result import LOST, Bars, Histogram, Own, Plot, Result, ScoreKey, Series, Table
from .base import Reference, Rule, Task, name_list, no_progress, plural, write_withheld_copy

VID_FILE = "pred_vid_result.json"
PART_FILE = "pred_part_result.json"
GT_VID_FILE = "gt_vid_result.json"
GT_PART_FILE = "gt_part_result.json"
TEST_LIST_FILE = "test_frames.json"   # the kit's public test list (kit_extras), which its baseline reads
# the 10 body parts Kinetics-TPS annotates (public: the Data page, the dataset's documentation)
PART_NAMES = ("head", "torso", "left_arm", "right_arm", "left_hand", "right_hand", "left_leg", "right_leg",
              "left_foot", "right_foot")
FRAME_EXTENSION = ".json"       # the frame keys of the format: img_00001.json, ...
FRAME_PATTERN = "img_%05d.json"
_PART_SET = frozenset(PART_NAMES)

PROTOCOL = [
    Rule("scope", "Kinetics-TPS (ICCV 2021 DeeperAction), scored as the official evaluator eval_detection.py at its "
                  "final commit (with the 2021-06-12 fix that reads the MATCHED predicted human's parts). Where its "
                  "README says otherwise, the code is followed; the differences are listed here."),
    Rule("frames", "Videos are the keys of gt_vid_result.json; frames are the frame keys of gt_part_result.json for "
                   "that video. Videos and frames that only the prediction has are ignored. A ground-truth frame "
                   "without humans leaves the video's frame count. A frame missing from the prediction counts as PSC "
                   "0 and stays in the count. A predicted frame whose ground-truth humans have no parts at all leaves "
                   "the count (but a MISSING frame without parts still counts as 0: the original checks for the "
                   "missing frame first)."),
    Rule("matching", "Humans: per frame ONE optimal assignment (Hungarian, maximizing total IoU, one-to-one) on the "
                     "float32 IoU matrix of ground-truth x predicted human boxes, where disjoint pairs have IoU -1.0 "
                     "and padding rows/columns (to make it square) 0.0; assigned pairs with IoU > 0.5 (strict, in "
                     "float32) are matched. It is not a greedy 'best box per ground truth' as the README says."),
    Rule("iou", "IoU everywhere: +1 pixel convention, intersection w = min(x2) - max(x1) + 1 (h likewise), -1.0 when "
                "either is <= 0, area = (x2-x1+1)(y2-y1+1). Part IoUs are float64."),
    Rule("parts", "Parts of a matched ground-truth human: if the prediction has a part of the same name, N_p = the "
                  "length of its verb list; the part is correct when some proposal j (over the box list) has IoU >= "
                  "0.3 (inclusive; the README says >) and verb j equals the ground-truth state exactly; its "
                  "correctness is 1/N_p, else 0. Missing parts, parts of unmatched humans, and N_p = 0 give 0; extra "
                  "predicted parts are ignored."),
    Rule("psc", "Frame PSC = (sum of part correctness over ALL ground-truth humans of the frame) / (number of their "
                "parts): pooled over the frame, not a mean of per-human means. Video PSC = mean over its counted "
                "frames; a video without any counted frame has PSC 1.0."),
    Rule("accuracy", "A video is correct at threshold t when PSC >= t (inclusive; the README says >) and its "
                     "predicted class equals the ground-truth class exactly. acc(t) = correct videos / ground-truth "
                     "videos."),
    Rule("score", "score = sum over t = 1..9999 of (1/10000) * acc(t/10000), accumulated in that order: a left "
                  "Riemann sum that skips t = 0 and never reaches t = 1, so a perfect submission scores 9999/10000 = "
                  "0.999900 (less about 1e-13 of float64 rounding in the running sum), not 1. top1 = acc(0) (plain "
                  "top-1 video accuracy); mean_PSC = mean of the video PSCs (1.0 defaults included)."),
    Rule("errors", "Where the original crashes, this scorer stops with a submission error naming the video and frame: "
                   "a test video missing from pred_vid_result.json or from pred_part_result.json, a predicted frame "
                   "without 'humans', more than 10 predicted humans in a frame, a predicted human without 'box' or "
                   "'parts', more than 5 proposals (verbs) for a part, more box proposals than verbs (fewer is legal: "
                   "N_p counts verbs), boxes of fewer than 4 numbers or with anything but finite numbers, and invalid "
                   "JSON (with its line and column). These checks apply to every video, frame, human and part of the "
                   "files, whether or not the ground truth evaluates them (the original only trips over the ones it "
                   "reads: a rule that depends on the ground truth would tell which frames are annotated); the first "
                   "fault in file order is named. Class names and states must be text."),
    Rule("long_boxes", "A predicted box (human or part proposal) of more than 4 finite numbers is scored as the "
                       "original scores it: only its first 4 numbers are read as x1, y1, x2, y2. The report and the "
                       "command line give a warning with the number of such boxes in the file and the first of them."),
    Rule("caps", "Caps (bounded cost): a string (key or value) of at most 256 characters as written, a number of at "
                 "most 64 characters; a file that cannot be read frame by frame (a frame over 1 MiB, a repeated video "
                 "or frame key) is read whole only if its values fit the memory budget."),
]


def _locate(submission, name):
    path = submission.find(name)
    if path is None:
        raise SubmissionError(name, message="the submission has no %s" % name,
                              expected="pred_vid_result.json and pred_part_result.json",
                              found=", ".join(submission.names()[:8]) or "no files")
    return path, submission.label(path)


class KineticsSubmission(NamedTuple):
    """The two prediction files, checked and aligned with the ground truth (formats.kinetics_tps.Predictions), and
    the warnings about the names they write (name_warnings), made by read_submission against every test video:
    before Task.restrict, so that they are the same whichever videos are withheld."""
    predictions: object
    vid_label: str
    part_label: str
    warnings: Sequence[str] = ()


class Evaluation(NamedTuple):
    """Every number of the report: per GT human, part, frame and video (the organizer's per-item tables), the
    accuracy curve and the three scores. gt and pr: the flattened ground truth and predictions (bookkeeping)."""
    gt: object
    pr: object
    matched: np.ndarray         # per GT human: index of the matched predicted human, or -1
    found: np.ndarray           # per GT part: the matched prediction has a part of that name
    correct: np.ndarray         # per GT part: IoU >= 0.3 and the same state
    frame_psc: np.ndarray
    counted: np.ndarray         # per frame: counted in its video's PSC
    frame_parts: np.ndarray
    video_psc: np.ndarray
    video_frames: np.ndarray    # per video: counted frames
    class_ok: np.ndarray        # per video: predicted class == GT class
    t: np.ndarray               # thresholds k/10000, k = 0..9999
    acc: np.ndarray             # acc(t)
    score: float
    top1: float
    mean_PSC: float
    name_warnings: Sequence[str] = ()   # KineticsSubmission.warnings


SCORE_PRECISION = 6     # the leaderboard's precision of `score`: the report writes score-sized numbers with it


def _score_text(v) -> str:
    return "%.*f" % (SCORE_PRECISION, round(v, SCORE_PRECISION) + 0.0)


def _where_lost(section, r):
    """The accuracy-vs-threshold curve (its area is the score), the points lost to a wrong class and to a low PSC,
    and the histogram of the video PSCs; score-sized numbers at the leaderboard's precision of the score."""
    n = r.video_psc.size
    lost_class, lost_psc = points_lost(r.video_psc, r.class_ok)
    n_right = int(np.count_nonzero(r.class_ok))
    section.add(Table("Points lost, against a perfect submission's %s" % _score_text((STEPS - 1) / STEPS),
                      ["why", "videos", "points lost"],
                      [["wrong class (the video counts at no threshold)", n - n_right, _score_text(lost_class)],
                       ["right class, PSC below the threshold t (counts only for t <= its PSC)", n_right,
                        _score_text(lost_psc)]],
                      note="Each video is worth 1/%d of the area: a wrong class loses it all, a right class with PSC "
                           "p loses the thresholds t > p." % n))
    section.add(Plot("acc(t): share of videos with PSC >= t and the right class (shaded area = score %s)"
                     % _score_text(r.score), "PSC threshold t", "acc(t)",
                     [Series("acc(t)", np.append(r.t[::10], 1.0), np.append(r.acc[::10], r.acc[-1]), step=True,
                             fill=True)]))
    edges = np.arange(11) / 10.0
    counts, _ = np.histogram(r.video_psc, bins=edges)
    section.add(Histogram("Video PSC (all %d test videos)" % n, edges, counts, xlabel="video PSC",
                          ylabel="videos", note="Bins of 0.1, the last one holding PSC 1.0; %d video(s) have the "
                          "right class. A video without any counted frame has PSC 1.0." % n_right))


_NOT_SNAKE = re.compile(r"[A-Z \-]")                 # what a name in the format's lower snake_case never holds
_CAMEL_SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATOR = re.compile(r"[ \-]")
# frame keys the format would name img_NNNNN.json: the file name without its extension, or the frame number alone
_FRAME_LIKE = re.compile(r"^(?:img_\d+|\d+)$", re.M)


def _snake(name: str) -> str:
    """The format's lower snake_case of a name: 'Shooting Basketball', 'leftArm', 'Bend' -> 'shooting_basketball',
    'left_arm', 'bend'."""
    return _SEPARATOR.sub("_", _CAMEL_SPLIT.sub("_", name)).lower()


def convention_hint(name: str, vocabulary: Optional[Vocabulary] = None) -> Optional[Hint]:
    """The hint for a name that the format writes in lower snake_case (class, part and state names), from the name
    alone: the public vocabulary's name meant (vocabulary: the 10 body parts), else the name in snake_case."""
    if vocabulary is not None:
        hint = vocabulary.hint(name)
        if hint is not None:
            return hint
    meant = _snake(name)
    if meant == name:
        return None
    return Vocabulary([meant]).hint(name) or Hint("are not written in lower case with underscores", meant)


def _flagged(names: Sequence[str]) -> np.ndarray:
    """Per name: True where it holds a capital letter, a space or a hyphen (one C-level search a name)."""
    return np.fromiter(map(bool, map(_NOT_SNAKE.search, names)), dtype=bool, count=len(names))


def _part_names_hint(label: str, names: Sequence[str], counts: np.ndarray) -> Optional[str]:
    """'<label>: <k> of <total> part names <reason> (first: ...; the format expects ...)' for the distinct part names
    `names` of a file (counts: the rows of each), when one of the first 64 that are none of the 10 body parts is a
    near miss of one (formats.hints.Vocabulary) or is not in snake_case; k counts the rows of the names like it
    (not in snake_case, or else not a body part)."""
    vocabulary = Vocabulary(PART_NAMES)
    unknown = ~np.fromiter(map(_PART_SET.__contains__, names), dtype=bool, count=len(names))
    for k in np.flatnonzero(unknown)[:64].tolist():
        hint = convention_hint(names[k], vocabulary)
        if hint is not None:
            like = unknown & _flagged(names) if _NOT_SNAKE.search(names[k]) else unknown
            return "%s: %s" % (label, hint_phrase("%d of %d part names" % (int(counts[like].sum()), int(counts.sum())),
                                                  names[k], hint))
    return None


def submission_hints(pred_vid: dict, part, vid_label: str, part_label: str) -> List[str]:
    """The near-miss hints (formats.hints) about how a submission writes its names and boxes, from the submission
    alone and the format's public rules, the same in the scorer (every report level) and in validate: each gives
    the count of the submission's own rows it concerns and the first of them.

    - class names not in the format's lower snake_case ('Shooting Basketball' for 'shooting_basketball'): they
      match no class;
    - part names that are near misses of the 10 body parts ('leftArm' for 'left_arm') and states not in snake_case
      ('Bend' for 'bend'): ignored or wrong, so PSC drops;
    - frame keys written as the frame file name without '.json' ('img_00001') or as the frame number ('1'): the
      format's keys are img_00001.json, ...; none is evaluated;
    - boxes that look normalised or written as x, y, w, h (formats.hints.box_hint, on every human and proposal box).

    pred_vid: the parsed pred_vid_result.json; part: the PartFile of pred_part_result.json, before the alignment
    (which may move the proposal boxes)."""
    out = []
    classes = list(pred_vid.values())
    if classes:
        flagged = _flagged(classes)
        if flagged.any():
            first = classes[int(np.argmax(flagged))]
            out.append("%s: %s" % (vid_label, hint_phrase("%d of %d predicted classes" % (
                int(np.count_nonzero(flagged)), len(classes)), first, convention_hint(first))))
    names, states = part.part_name, part.part_verb
    name_counts = np.bincount(names.codes, minlength=len(names.texts))
    text = _part_names_hint(part_label, texts(names), name_counts)
    if text:
        out.append(text)
    state_texts = texts(states)
    flagged = _flagged(state_texts)
    if flagged.any():
        counts = np.bincount(states.codes, minlength=len(states.texts))
        first = state_texts[int(np.argmax(flagged))]
        out.append("%s: %s" % (part_label, hint_phrase("%d of %d part states" % (
            int(counts[flagged].sum()), int(states.codes.size)), first, convention_hint(first))))
    keys = part.frame_key
    frame_like = _FRAME_LIKE.findall("\n".join(keys)) if keys else []
    if frame_like:
        first = frame_like[0]
        meant = first + FRAME_EXTENSION if first.startswith("img_") else FRAME_PATTERN % int(first)
        reason = 'have no "%s" extension' % FRAME_EXTENSION if first.startswith("img_") else "are frame numbers"
        out.append("%s: %s" % (part_label, hint_phrase("%d of %d frame keys" % (len(frame_like), len(keys)), first,
                                                       Hint(reason, meant))))
    boxes = box_hint([part.human_box, part.prop_box], "predicted boxes")
    if boxes:
        out.append("%s: %s" % (part_label, boxes))
    return out


def name_warnings(gt, pr, vid_label: str, part_label: str, withheld: Optional[AbstractSet[str]] = None,
                  hints: Sequence[str] = ()) -> List[str]:
    """The warnings about the names a submission writes: its hints (submission_hints, Own: shown at every level),
    then, only when they say nothing about that file and only at the full level (a count over the test videos, or
    against the names the ground truth uses), the names that match nothing:

    - no predicted class is a class of the test set (withheld: the videos whose class the reference left out,
      KineticsTps.withhold, which give the class names no word);
    - part names that are neither the 10 body parts nor a part of the ground truth: ignored, so PSC drops."""
    out = [Own(h) for h in hints]
    said = set(h.split(": ", 1)[0] for h in hints)
    labelled = gt.classes if not withheld else [c for v, c in zip(gt.videos, gt.classes) if v not in withheld]
    classes = set(labelled)
    if vid_label not in said and pr.classes and not any(c in classes for c in pr.classes):
        out.append(Unmatched(vid_label, "class names", len(pr.classes), len(pr.classes), "predicted classes",
                             "name an action class", pr.classes[0], None).full())
    written = pr.written
    if written is None or any(h.startswith(part_label + ": ") and "part names" in h for h in hints):
        return out
    parts = set(PART_NAMES) | set(gt.names)    # an organizer's own part names count too
    known = np.array([n in parts for n in written.part_names], dtype=bool)
    if not known.all():
        first = written.part_names[int(np.flatnonzero(~known)[0])]
        out.append(Unmatched(part_label, "part names", int(written.part_counts[~known].sum()),
                             int(written.part_counts.sum()), "parts", "name a body part", first, None).full())
    return out


class KineticsTps(Task):
    slug = "kinetics-tps"
    title = "Kinetics-TPS: part-state correctness and PSC-conditioned action accuracy"
    protocol = PROTOCOL

    columns_need_reference = False
    pauses_collector = True     # json builds millions of small containers (formats.kinetics_tps.no_cycle_collection)
    phase_names = {"reference": "JSON to arrays", "read": "JSON to arrays", "evaluate": "metric",
                   "report": "report tables", "decompose": "decomposition"}       # the "time: ..." line

    def column_table(self, reference=None) -> List[ScoreKey]:
        return [ScoreKey("score", "Score (PSC-conditioned accuracy)", precision=SCORE_PRECISION),
                ScoreKey("top1", "Top-1 accuracy"), ScoreKey("mean_PSC", "Mean PSC")]

    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """gt_vid_result.json and gt_part_result.json (all eval_detection.py reads), checked and flattened straight
        from the bytes (formats.kinetics_json), else by json.loads: a Reference whose data is the
        formats.kinetics_tps.GroundTruth (its docstring gives the arrays)."""
        ref = str(ref_dir)
        with no_cycle_collection():         # also when the bundle builder reads it, outside score
            gt = read_ground_truth(os.path.join(ref, GT_VID_FILE), os.path.join(ref, GT_PART_FILE),
                                   "ref/" + GT_VID_FILE, "ref/" + GT_PART_FILE)
        return Reference(ref_dir, [GT_VID_FILE, GT_PART_FILE], gt)

    def reference_warnings(self, reference) -> List[str]:
        """The organizer's notice (bundle builder) when the reference's class or state names are not in the format's
        lower snake_case: the scorer's and validate's letter-case hints (submission_hints) judge names on it, from
        the submission alone, so a participant who writes the reference's own names would be told the format
        expects snake_case (the scores are not affected)."""
        gt = reference.data
        out = []
        for what, names in (("class names", sorted(set(gt.classes))), ("part states", sorted(gt.verbs))):
            flagged = [n for n in names if _NOT_SNAKE.search(n)]
            if flagged:
                out.append("the reference's %s are not all in lower snake_case (%d of %d, first: %r): the scorer and "
                           "validate would tell a participant who writes them so that the format expects %r "
                           "(scores unaffected); rename them in snake_case to keep the hint right"
                           % (what, len(flagged), len(names), flagged[0], _snake(flagged[0])))
        return out + super().reference_warnings(reference)

    def read_submission(self, submission, reference, progress) -> KineticsSubmission:
        """pred_vid_result.json and pred_part_result.json, parsed and aligned with the ground truth; a missing one
        is named with the near miss that validate gives ('pred_vid_results.json: did you mean ...?')."""
        pred_vid, pred, vlabel, plabel, _ = _read_files(submission, progress)
        gt = reference.data
        hints = submission_hints(pred_vid, pred.part, VID_FILE, PART_FILE)       # before the alignment
        pr = align_predictions(pred, pred_vid, gt, vlabel, plabel)
        return KineticsSubmission(pr, vlabel, plabel, name_warnings(gt, pr, VID_FILE, PART_FILE, reference.withheld,
                                                                    hints))

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> Evaluation:
        """Arrays in, every number of the report out (testable without files). The per-video records (video_psc,
        class_ok) are always kept: the report is made from them."""
        with np.errstate(all="ignore"):     # boxes of 1e30 or 1.7e308 overflow to inf: no warning, whatever the
            return self._evaluate(reference, submitted, progress)     # ground truth holds (the scores are as before)

    def _evaluate(self, reference, submitted, progress) -> Evaluation:
        gt, pr = reference.data, submitted.predictions
        n_frames = len(gt.frame_name)
        matched, miou = match_humans(gt.human_box, gt.human_frame, pr.human_box, pr.human_frame, n_frames)
        value, found, correct = part_correctness(gt.part_human, gt.part_name, gt.part_box, gt.part_verb, matched,
                                                 pr.pp_human, pr.pp_name, pr.pp_nverb, pr.pp_nbox, pr.pp_box_start,
                                                 pr.prop_box, pr.prop_verb)
        frame_psc, counted, nparts, video_psc, video_frames = frame_and_video_psc(
            value, gt.part_human, gt.human_frame, gt.frame_video, pr.frame_has_pred, gt.n_videos)
        class_ok = np.array([a == b for a, b in zip(pr.classes, gt.classes)], dtype=bool)
        t, acc = psc_accuracy_curve(video_psc, class_ok)
        progress(2, 2, "steps")
        return Evaluation(gt, pr, matched, found, correct, frame_psc, counted, nparts, video_psc, video_frames,
                          class_ok, t, acc, area_left_riemann(acc), float(acc[0]), float(np.mean(video_psc)),
                          submitted.warnings)

    def report(self, evaluation, private) -> Result:
        """The Result of an Evaluation: the scores, top-1 per class, where the points were lost (the accuracy
        curve whose area is the score, the PSC histogram), the tables; with private, the per-video table."""
        r = evaluation
        gt, pr = r.gt, r.pr
        res = Result(self.title)
        for k, v in (("score", r.score), ("top1", r.top1), ("mean_PSC", r.mean_PSC)):
            res.set(k, v)
        nv = gt.n_videos
        classes, cls = np.unique(np.array(gt.classes, dtype=str), return_inverse=True)
        cls = cls.reshape(-1)
        n_cls = np.bincount(cls, minlength=classes.size)
        top1_cls = np.bincount(cls, weights=r.class_ok, minlength=classes.size) / np.maximum(n_cls, 1)
        psc_cls = np.bincount(cls, weights=r.video_psc, minlength=classes.size) / np.maximum(n_cls, 1)
        res.bars.append(Bars("Top-1 accuracy per action class", classes, top1_cls, xlabel="top-1 accuracy",
                             extra=psc_cls, extra_label="mean PSC", note="Bar: the share of the class's videos "
                             "given the right class; red mark: the mean PSC of the class's videos."))
        _where_lost(res.section(LOST), r)
        rows = [["%.1f" % x, float(r.acc[int(round(x * 10000))])] for x in np.arange(10) / 10.0]
        res.tables.append(Table("PSC-conditioned accuracy at some thresholds (PSC >= t and right class)",
                                ["t", "accuracy"], rows))
        res.tables.append(Table("Per action class", ["class", "videos", "top-1", "mean PSC"],
                                [[str(c), int(n), float(a), float(m)]
                                 for c, n, a, m in zip(classes, n_cls, top1_cls, psc_cls)]))
        res.tables.append(Table("Bookkeeping", ["what", "count"], [
            ["ground-truth videos", nv],
            ["frames with ground-truth humans", len(gt.frame_name)],
            ["frames without ground-truth humans (not counted)", int(gt.empty_frames.sum())],
            ["frames missing from the prediction (PSC 0, counted)", pr.missing_frames],
            ["predicted frames whose humans have no parts (not counted)",
             int((pr.frame_has_pred & (r.frame_parts == 0)).sum())],
            ["frames counted", int(r.counted.sum())],
            ["videos without a counted frame (PSC 1.0)", int((r.video_frames == 0).sum())],
            ["ground-truth humans", gt.human_frame.size],
            ["ground-truth humans matched (IoU > 0.5)", int((r.matched >= 0).sum())],
            ["ground-truth parts", gt.part_human.size],
            ["parts present in the matched prediction", int(r.found.sum())],
            ["parts correct (IoU >= 0.3 and same state)", int(r.correct.sum())],
        ]))
        if pr.cut_warning:      # counts and names boxes of the whole file: a fact about the submission alone
            res.warnings.append(Own(pr.cut_warning))
        res.warnings.extend(r.name_warnings)
        # none of these is Own (all withheld at the hidden level): they count over the test videos and the frames
        # with ground-truth humans, so one frame more or less in the ground truth changes them
        if pr.extra_videos:
            res.notes.append("%d predicted video(s) are not test videos: ignored." % pr.extra_videos)
        if pr.extra_frames:
            res.notes.append("%d predicted frame(s) are not evaluated frames (not in the ground truth, or without "
                             "ground-truth humans): ignored." % pr.extra_frames)
        if pr.missing_frames:
            first = int(np.flatnonzero(~pr.frame_has_pred)[0])
            res.warnings.append("%d evaluated frame(s) are missing from %s: each counts as PSC 0 (first: video %s, "
                                "frame %s)" % (pr.missing_frames, PART_FILE, quoted(gt.videos[gt.frame_video[first]]),
                                               quoted(gt.frame_name[first])))
        if private:
            res.private.append(Table("Per video", ["video", "class", "predicted class", "right class", "PSC",
                                                   "counted frames"],
                                     [[v, c, p, "yes" if ok else "no", psc, n] for v, c, p, ok, psc, n in zip(
                                         gt.videos, gt.classes, pr.classes, r.class_ok.tolist(),
                                         r.video_psc.tolist(), r.video_frames.tolist())]))
        return res

    def decompose(self, evaluation):
        """The score on weighted videos (metrics.psc.weighted_area_left_riemann): the items are the ground truth's
        videos (gt_vid_result.json's order, the same for every submission); each keeps its class correctness and
        its PSC, so a video of weight k adds k to the counts of acc(t) and to the number of videos."""
        from ..metrics.bootstrap import Decomposition
        from ..metrics.psc import weighted_area_left_riemann
        r = evaluation
        return Decomposition("video", [v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v)
                                       for v in r.gt.videos], weighted_area_left_riemann(r.video_psc, r.class_ok))

    def item_ids(self, reference) -> List[str]:
        """The test videos, gt_vid_result.json's keys in its order (decompose's items)."""
        return [v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v)
                for v in reference.data.videos]

    def withhold(self, reference, items, out_dir) -> None:
        """The two files with each withheld video's entry blanked in place, every other byte as it is: its class in
        gt_vid_result.json becomes "" (WITHHELD_CLASS) and its frames in gt_part_result.json {} (WITHHELD_FRAMES).
        The video keeps its key, which is all a submission is checked against (a class and part results for every
        test video; the rules of a predicted frame hold whatever the ground truth has there): its frame keys, which
        frames have humans, its humans, parts and states are left out."""
        blanks = {GT_VID_FILE: WITHHELD_CLASS, GT_PART_FILE: WITHHELD_FRAMES}

        def blanked(rel, path):
            with open(path, "rb") as f:
                return blank_members(f.read(), items, blanks[rel])
        write_withheld_copy(reference, out_dir, blanked)

    def restrict(self, reference, submitted, withheld) -> Tuple[Reference, KineticsSubmission]:
        """The ground truth and the aligned predictions of the other videos, as if neither had the withheld ones:
        their frames, humans, parts and proposals are dropped and the indices renumbered (the name and state codes
        stay, so a prediction's codes still name the same texts). The name warnings were made before, in
        read_submission. The predictions' extra_videos and extra_frames stay as read (notes at the full level
        only): the predicted frames of a withheld video count as not evaluated."""
        gt, pr = reference.data, submitted.predictions
        keep = np.array([v not in withheld for v in self.item_ids(reference)], dtype=bool)
        cut_gt, frame_keep = _restrict_truth(gt, keep)
        return (reference.replaced(cut_gt),
                submitted._replace(predictions=_restrict_predictions(pr, keep, frame_keep)))

    def figures(self, reference, columns) -> Dict[str, str]:
        gt = reference.data
        classes = sorted(set(gt.classes))
        return {"videos": plural(len(gt.videos), "video"), "frames": plural(len(gt.frame_name), "frame"),
                "humans": plural(len(gt.human_frame), "human"), "classes": name_list(classes),
                "num_classes": plural(len(classes), "action class", "action classes")}

    def kit_extras(self, reference) -> Dict[str, bytes]:
        """test_frames.json, the sample's public test list, which the kit's baseline reads (never the ground truth):
        {video: [frame key, ...]}, the test videos and the frames to predict (every frame key of gt_part_result.json,
        with or without humans), in its order; no class, human, part or state. On the real data the test videos'
        frame folders give the same."""
        with open(os.path.join(str(reference.root), GT_PART_FILE), "rb") as f:
            frames = json.loads(f.read().decode("utf-8"))
        return {TEST_LIST_FILE: json.dumps({video: list(keys) for video, keys in frames.items()}, indent=1
                                           ).encode("utf-8") + b"\n"}

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        with no_cycle_collection():
            return self._validate(submission, ids)

    def ignored_files(self, submission, reference=None) -> List[str]:
        return ignored_warnings(*fixed_files_ignored(submission, (VID_FILE, PART_FILE)))

    def _validate(self, submission, ids):
        pred_vid, pred, vlabel, plabel, (ignored, why) = _read_files(submission)    # every rule, on every frame
        part = pred.part
        notes = ["%s: %d videos" % (vlabel, len(pred_vid)),
                 "%s: %d videos, %d frames, %d humans" % (plabel, len(part.video_key), len(part.frame_key),
                                                          int(part.frame_humans.sum()))]
        if pred.cut_warning:
            notes.append("warning: " + pred.cut_warning)
        if ids is not None:         # the scorer's errors, on the public test list in its order
            want = list(dict.fromkeys(x.decode() if isinstance(x, bytes) else str(x) for x in ids))
            for error in (missing_videos_error(vlabel, want, pred_vid, part_file=False),
                          missing_videos_error(plabel, want, pred.keys[0], part_file=True)):
                if error is not None:
                    raise error
        only = sorted(set(part.video_key) - set(pred_vid))
        if only:
            notes.append("%d video(s) have part results but no class (ignored unless they are test videos)" % len(only))
        notes += ["warning: " + h for h in submission_hints(pred_vid, part, VID_FILE, PART_FILE)]
        return notes + ignored_warnings(ignored, why)


def _read_files(submission, progress=no_progress):
    """The scorer's and validate's one reading of the two result files, every rule in the scorer's order:
    (pred_vid, part predictions, the two files' labels, (ignored, why) of fixed_files_ignored). A missing file is
    named with the near miss among the submitted files ('pred_vid_results.json: did you mean ...?')."""
    ignored, why = fixed_files_ignored(submission, (VID_FILE, PART_FILE))
    try:
        vpath, vlabel = _locate(submission, VID_FILE)
        ppath, plabel = _locate(submission, PART_FILE)
    except SubmissionError as e:
        raise with_hint(e, first_hint(ignored, why)) from None
    progress(0, 2, "steps")
    pred_vid = load_json(vpath, vlabel)
    pred = read_part_predictions(file_bytes(ppath, plabel), plabel)
    check_classes(pred_vid, vlabel)
    return pred_vid, pred, vlabel, plabel, (ignored, why)


# ------------------------------------------------------------------ the withheld reference (issue 29)
WITHHELD_CLASS = b'""'      # a withheld video's class in gt_vid_result.json: the same empty text for every one
WITHHELD_FRAMES = b"{}"     # its frames in gt_part_result.json: none

_STRUCTURAL = np.zeros(256, dtype=bool)         # the bytes that may be JSON structure, outside strings
_STRUCTURAL[list(b"{}[],:")] = True
_DEPTH_STEP = np.zeros(256, dtype=np.int64)
_DEPTH_STEP[list(b"{[")] = 1
_DEPTH_STEP[list(b"}]")] = -1
_JSON_SPACE = b" \t\r\n"


class Members(NamedTuple):
    """The members of a JSON document that is one object: each key (decoded), where its text starts (the key's
    opening quote) and the span [value_start, value_end) of its value, the white space around it left out."""
    keys: List[str]
    key_start: np.ndarray
    value_start: np.ndarray
    value_end: np.ndarray


def top_level_members(data: bytes) -> Members:
    """The Members of a valid JSON object document (a reference file its loader read), in one vectorized pass: the
    structural bytes outside strings (after an even number of unescaped quotes: the parity of a running count),
    their depth, and at depth 1 the colons (a member's value starts after one) and the commas and closing brace (it
    ends before one)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    quotes = unescaped_quotes(data, arr, 0)
    parity = np.zeros(arr.size, dtype=np.uint8)
    parity[quotes] = 1
    np.cumsum(parity, dtype=np.uint8, out=parity)       # modulo 256: the parity stays
    parity &= 1
    at = np.flatnonzero(_STRUCTURAL[arr] & (parity == 0))
    del parity
    token = arr[at]
    step = _DEPTH_STEP[token]
    top = np.cumsum(step) - step == 1               # depth before the token: 1 inside the document's object
    colon = at[top & (token == ord(":"))]
    stop = at[top & ((token == ord(",")) | (token == ord("}")))]
    end = stop[np.searchsorted(stop, colon)]
    key_close = np.searchsorted(quotes, colon) - 1  # the key is the string just before its colon
    key_open = quotes[key_close - 1]
    keys = [json.loads(data[a:b + 1]) for a, b in zip(key_open.tolist(), quotes[key_close].tolist())]
    value_start = np.array([_past_space(data, a + 1, 1) for a in colon.tolist()], dtype=np.int64)
    value_end = np.array([_past_space(data, b - 1, -1) + 1 for b in end.tolist()], dtype=np.int64)
    return Members(keys, key_open.astype(np.int64), value_start, value_end)


def _past_space(data: bytes, at: int, step: int) -> int:
    """The first offset from `at` on, going by `step` (1 or -1), that is not JSON white space."""
    while data[at] in _JSON_SPACE:
        at += step
    return at


def blank_members(data: bytes, keys: AbstractSet[str], blank: bytes) -> bytes:
    """The JSON object document `data` with the value of every member whose key is in `keys` replaced by `blank`,
    every other byte as it was."""
    members = top_level_members(data)
    out, at = [], 0
    for key, a, b in zip(members.keys, members.value_start.tolist(), members.value_end.tolist()):
        if key in keys:
            out += [data[at:a], blank]
            at = b
    out.append(data[at:])
    return b"".join(out)


def _restrict_truth(gt: GroundTruth, keep: np.ndarray) -> Tuple[GroundTruth, np.ndarray]:
    """The GroundTruth of the videos `keep` (bool per video), and which frames it kept: each level (frame, human,
    part) keeps the items of kept parents, renumbered."""
    frame_keep = keep[gt.frame_video]
    human_keep = frame_keep[gt.human_frame]
    part_keep = human_keep[gt.part_human]
    videos = [v for v, k in zip(gt.videos, keep.tolist()) if k]
    cut = gt._replace(
        videos=videos, classes=[c for c, k in zip(gt.classes, keep.tolist()) if k],
        frame_video=kept_index(keep)[gt.frame_video[frame_keep]],
        frame_name=[f for f, k in zip(gt.frame_name, frame_keep.tolist()) if k],
        empty_frames=gt.empty_frames[keep], human_frame=kept_index(frame_keep)[gt.human_frame[human_keep]],
        human_box=gt.human_box[human_keep], part_human=kept_index(human_keep)[gt.part_human[part_keep]],
        part_name=gt.part_name[part_keep], part_box=gt.part_box[part_keep], part_verb=gt.part_verb[part_keep])
    return cut, frame_keep


def _restrict_predictions(pr: Predictions, keep: np.ndarray, frame_keep: np.ndarray) -> Predictions:
    """The Predictions aligned with the restricted ground truth: the classes of the kept videos, the predicted
    humans of the kept frames, their parts and the parts' proposals (laid out part by part), renumbered."""
    human_keep = frame_keep[pr.human_frame]
    part_keep = human_keep[pr.pp_human]
    nbox = pr.pp_nbox[part_keep]
    frame_has_pred = pr.frame_has_pred[frame_keep]
    prop_keep = np.repeat(part_keep, pr.pp_nbox)
    return pr._replace(
        classes=[c for c, k in zip(pr.classes, keep.tolist()) if k], frame_has_pred=frame_has_pred,
        missing_frames=int(frame_has_pred.size - np.count_nonzero(frame_has_pred)),
        human_frame=kept_index(frame_keep)[pr.human_frame[human_keep]], human_box=pr.human_box[human_keep],
        pp_human=kept_index(human_keep)[pr.pp_human[part_keep]], pp_name=pr.pp_name[part_keep],
        pp_nverb=pr.pp_nverb[part_keep], pp_nbox=nbox, pp_box_start=np.cumsum(nbox) - nbox,
        prop_box=pr.prop_box[prop_keep], prop_verb=pr.prop_verb[prop_keep])


TASK = KineticsTps()
