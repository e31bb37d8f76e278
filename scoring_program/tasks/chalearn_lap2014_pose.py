"""chalearn-lap2014-pose: ChaLearn LAP 2014 Track 1, multi-limb pose recovery, mean hit rate.

The platform's number is what the starting kit's ChalearnLAPEvaluation.evalPose computes; see
metrics/hit_rate.py for the per-limb rule and PROTOCOL below for the file-level rules.
"""
from __future__ import annotations

import os
import re
import struct
import zlib
from collections import OrderedDict
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some
from ..formats.hints import NearMiss, first_hint, ignored_warnings, with_hint, without_extension
from ..formats.chalearn_pose import (BOMB_FACTOR, LIMB_LABELS, LIMBS, NAME_RX, PANORAMA_WIDTH, STANDARD_HEIGHT,
                                     PanoramaHeader, read_panorama, read_reference_size, split_name)
from ..formats.images import PNG_SIGNATURE, DecodeBuffer, png_chunk
from ..metrics.hit_rate import (N_LIMBS, OverlapScratch, evaluated_limbs, hit_rate, is_hit, limb_overlaps,
                               weighted_hit_rate)
from ..report.result import LOST, Bars, Plot, Result, ScoreKey, Series, Table
from .base import Reference, Rule, Task, class_figures, no_progress, plural, write_withheld_copy

PROTOCOL = [
    Rule("scope", "ChaLearn Looking At People 2014, Track 1 (multi-limb pose recovery), scored as evalPose of the "
                  "later, panoramic version of ChalearnLAPEvaluation.py computes it (one PNG per frame and actor "
                  "holding the 14 limb masks, cut out by getLimbPanoramic); the 2014 starting kit's evalPose, which "
                  "the challenge page credits, read one PNG per limb instead. Where that code differs from the "
                  "challenge page's prose, the code is followed and the difference is stated here."),
    Rule("files", "Ground truth: one PNG per frame and actor, XX_YYYY_W.png (sequence XX, frame YYYY, actor W: 1 "
                  "leftmost, 2 rightmost), a panorama of the 14 limb masks side by side, 480 columns each (head, "
                  "torso, left/right hand, left/right forearm, left/right upper arm, left/right foot, left/right "
                  "lower leg, left/right thigh). The prediction for it is XX_YYYY_W_prediction.png; XX_YYYY_W.png is "
                  "accepted too, and when both are submitted the _prediction one is used."),
    Rule("luminance", "Both images are converted to 8-bit luminance as Pillow's convert('L') does, with Pillow 6.1's "
                      "integer formula on every stack, which truncates (newer Pillow rounds), so colour PNGs work: "
                      "RGB and RGBA L = (R*19595 + G*38470 + B*7471) >> 16, alpha ignored; palette L = (R*299 + G*587 "
                      "+ B*114) // 1000 of the entry; (177, 175, 175) is 175, (128, 128, 127) is 127, i.e. OFF, pure "
                      "red is 76, OFF. A prediction must have exactly the size of its ground truth."),
    Rule("columns", "Columns numbered from 0: limb n (1..14) uses the columns (n-1)*480 .. (n-1)*480+478, 479 "
                    "columns. The last column of each 480-px block (479, 959, ..., 6719) is IGNORED "
                    "(getLimbPanoramic's quirk, kept)."),
    Rule("limb_hit", "A limb is evaluated iff its ground-truth slice has any non-zero pixel, BEFORE binarization (so "
                     "a slice holding only grey values 1..127 is evaluated but can never be hit). Both slices are "
                     "binarized with value > 127; J = |A and B| / |A or B| (0 if the union is empty). A hit iff J > "
                     "0.5, STRICTLY (the prose says >= 0.5; J exactly 0.5 is a miss)."),
    Rule("false_positives", "Predictions for limbs that are empty in the ground truth never count (false positives do "
                            "not affect the rate)."),
    Rule("missing_file", "A ground-truth panorama without a prediction file counts as ONE evaluation with no hit (not "
                         "14, and even if all its limbs are empty), as the original does. mean_hit_rate = hits / "
                         "evaluations, pooled over all frames, actors and limbs."),
    Rule("limb_rates", "hit_rate_<limb> (not in the original) = hits / evaluations of that limb, pooled over all "
                       "panoramas; for a panorama without a prediction, each limb that is non-empty in its ground "
                       "truth counts as an evaluated miss of that limb. A limb never evaluated has no rate: its key "
                       "is not written."),
    Rule("errors", "Prediction files that match no ground-truth panorama are ignored and listed in the report. "
                   "Unreadable or truncated PNGs, PNGs declaring more than 4x the ground truth's pixel count "
                   "(decompression bombs, refused before decoding) and size mismatches are submission errors."),
]

STEM_RX = re.compile(r"\d+_\d+_\d+")   # XX_YYYY_W, how the dataset names panoramas (validate without --ids)
THRESHOLDS = np.arange(21)   # J > k/20, k = 0..20, for the hit-rate-vs-threshold curve


def _more(count, shown):
    return " and %d more" % (count - shown) if count > shown else ""


def reference_panoramas(ref_dir):
    """[(stem, name)] of the ground-truth panoramas: every *.png directly in ref (evalPose lists truth_dir)."""
    try:
        names = sorted(n for n in os.listdir(str(ref_dir)) if n.lower().endswith(".png"))
    except OSError:
        names = []
    if not names:
        raise ReferenceDataError("ref", expected="ground-truth panoramas XX_YYYY_W.png", found="none")
    return [(n[:-4], n) for n in names]


class PanoramaTruth(object):
    """Reference.data: the ground-truth panoramas, in name order. names: [(stem XX_YYYY_W, file name)]; sizes:
    [(width 6720, height)] as each PNG header declares them; limbs_present: once known, (14,) bool, limb k is
    non-empty in at least one panorama (limbs_present(); the pixels, (height, 6720) uint8, are decoded one panorama
    at a time while scoring, which sets it). Not a NamedTuple: scoring fills limbs_present in (and not a
    dataclass, whose import costs the legacy stack 7 ms). cut_from: the PanoramaTruth that Task.restrict cut this
    one from, and cut_limbs, (14,) bool, the limbs non-empty in the panoramas it cut out: scoring this one also
    fills the other's limbs_present in (so score_keys decodes nothing again); both None otherwise."""

    __slots__ = ("names", "sizes", "limbs_present", "cut_from", "cut_limbs")

    def __init__(self, names: List[Tuple[str, str]], sizes: List[Tuple[int, int]], cut_from=None, cut_limbs=None):
        self.names = names
        self.sizes = sizes
        self.limbs_present: Optional[np.ndarray] = None
        self.cut_from: Optional["PanoramaTruth"] = cut_from
        self.cut_limbs: Optional[np.ndarray] = cut_limbs


def blank_panorama(width, height) -> bytes:
    """A PNG of width x height 8-bit grey pixels, all 0: a panorama without any limb (a withheld panorama keeps
    only its size). Every row filter byte 0, the image data compressed at level 9, no ancillary chunk: the same
    bytes for every panorama of that size."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)    # 8 bits, greyscale, no interlace
    rows = bytes((width + 1) * height)          # each row: filter byte 0, then width pixels 0
    return (PNG_SIGNATURE + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", zlib.compress(rows, 9))
            + png_chunk(b"IEND", b""))


def read_ground_truth(ref_dir, name, size, buffer=None):
    """One ground-truth panorama decoded to luminance; it must have the size its header declared. buffer: a
    DecodeBuffer reused from panorama to panorama."""
    gt = read_panorama(os.path.join(str(ref_dir), name), "ref/" + name, ReferenceDataError, buffer=buffer)
    if gt.shape != (size[1], size[0]) or gt.shape[1] != PANORAMA_WIDTH:
        raise ReferenceDataError("ref/" + name, expected="a %dx%d panorama" % size,
                                 found="%dx%d decoded" % (gt.shape[1], gt.shape[0]))
    return gt


def read_prediction(path, file, size, buffer=None):
    """One prediction panorama decoded to luminance, after the declared-size checks against its ground truth's
    size: a size mismatch, a decompression bomb, an unreadable or truncated PNG is a SubmissionError."""
    return read_panorama(path, file, SubmissionError, expected_size=size, max_pixels=BOMB_FACTOR * size[0] * size[1],
                         buffer=buffer)


def check_withheld_predictions(reference, submitted, withheld):
    """Read the predictions of the withheld panoramas as evaluate reads every prediction, so that a submission
    gets the error it gets on the whole reference: the first fault in reference order. When a withheld panorama's
    prediction is faulty, the panoramas before it are read first (ground truth, then prediction, as evaluate
    does), and the first of their faults, if any, is the error."""
    names, sizes = reference.data.names, reference.data.sizes
    buffer = DecodeBuffer()
    for i, ((stem, _), size, path, file) in enumerate(zip(names, sizes, submitted.paths, submitted.files)):
        if path is None or stem not in withheld:
            continue
        try:
            read_prediction(path, file, size, buffer)
        except SubmissionError:
            for (earlier, name), size_before, path_before, file_before in zip(names[:i], sizes[:i],
                                                                              submitted.paths[:i],
                                                                              submitted.files[:i]):
                if earlier not in withheld:
                    read_ground_truth(reference.root, name, size_before, buffer)
                    if path_before is not None:
                        read_prediction(path_before, file_before, size_before, buffer)
            raise


def limbs_present(reference):
    """(14,) bool: limb k is non-empty in some ground-truth panorama, i.e. hit_rate_<limb> can be written. Known
    after scoring (the panoramas were decoded then); otherwise every panorama is decoded here."""
    panoramas = reference.data
    if panoramas.limbs_present is None:
        present = np.zeros(N_LIMBS, dtype=bool)
        buffer = DecodeBuffer()
        for (_, name), size in zip(panoramas.names, panoramas.sizes):
            present |= evaluated_limbs(read_ground_truth(reference.root, name, size, buffer))
        panoramas.limbs_present = present
    return panoramas.limbs_present


def find_prediction(submission, stem):
    """(path or None, shadowed path or None): XX_YYYY_W_prediction.png wins over XX_YYYY_W.png."""
    pred = submission.find(stem + "_prediction.png")
    plain = submission.find(stem + ".png")
    if pred is not None:
        return pred, plain
    return plain, None


class PoseSubmission(NamedTuple):
    """Per ground-truth panorama (reference order) the prediction file's path and its label (its name in
    messages), or None; the stems without one, the labels of the XX_YYYY_W.png files shadowed by an
    XX_YYYY_W_prediction.png and their stems (shadowed_stems, in the same order), and the submitted names that
    match no panorama (ignored)."""
    paths: list
    files: list
    missing: list
    shadowed: list
    ignored: list
    shadowed_stems: list


class PanoramaResult(NamedTuple):
    """One ground-truth panorama: its prediction's label (None: missing), the limbs non-empty in its ground truth,
    its evaluations and hits under mean_hit_rate's rule (a missing prediction: 1 and 0) and the sum of J over its
    evaluated limbs."""
    stem: str
    file: object
    limbs: int
    evaluations: int
    hits: int
    jaccard_sum: float


class PoseEvaluation(NamedTuple):
    """Per-panorama records and the pooled counts: per limb (14,) evaluations (a missing prediction's non-empty
    limbs included, as misses), hits, evaluations from missing predictions, sum of J over the predicted ones;
    curve (21, 14): hits at J > k/20 per limb, k = 0..20 (THRESHOLDS); evaluations and hits: mean_hit_rate's."""
    panoramas: list
    limb_eval: np.ndarray
    limb_hit: np.ndarray
    limb_missing: np.ndarray
    limb_jsum: np.ndarray
    curve: np.ndarray
    evaluations: int
    hits: int
    submission: PoseSubmission


LIMB_GROUPS = [(title, (2 * g, 2 * g + 1)) for g, title in enumerate(
    ("Head and torso", "Hands", "Forearms", "Upper arms", "Feet", "Lower legs", "Thighs"))]   # LIMBS' order


def _lost(res, ev):
    """Per limb: the hit rate against the Jaccard threshold t (hit iff J > t), one small plot per limb group."""
    x = THRESHOLDS / 20.0
    plots = []
    for title, limbs in LIMB_GROUPS:
        series = [Series(LIMB_LABELS[k], x, ev.curve[:, k] / float(ev.limb_eval[k]))
                  for k in limbs if ev.limb_eval[k]]
        if series:
            plots.append(Plot(title, "Jaccard threshold t", "hit rate (J > t)", series))
    if plots:
        res.section(LOST, "Hit rate of each limb against the Jaccard threshold t (hit iff J > t, as the metric "
                          "with t = 0.5), from the same per-limb J the metric computes, t = 0, 0.05, ..., 1. At "
                          "t = 0.5 the curve is hit_rate_<limb>; a limb of a panorama without a prediction is a "
                          "miss at every t. A curve that drops just before 0.5 means near misses (boundaries); "
                          "a low curve from t = 0 means limbs not found at all.").add(plots)


def _notes(res, ev, n, predicted):
    """Every note here counts over the ground-truth panoramas (which ones exist, their annotated limbs), so none is
    Own: all are withheld at the hidden level."""
    sub = ev.submission
    nmissing, nshadowed = len(sub.missing), len(sub.shadowed)
    nno_eval = sum(1 for p in ev.panoramas if p.file is not None and p.evaluations == 0)
    if nmissing:
        res.notes.append("%d of %d ground-truth panoramas have no prediction (each counts as one evaluation "
                         "with no hit): %s%s." % (nmissing, n, quote_some(sub.missing[:5]), _more(nmissing, 5)))
    if nshadowed:
        res.notes.append("Both XX_YYYY_W_prediction.png and XX_YYYY_W.png were submitted for %d panorama(s); "
                         "the _prediction file was used, these were ignored: %s%s."
                         % (nshadowed, quote_some(sub.shadowed[:5]), _more(nshadowed, 5)))
    if nno_eval:
        res.notes.append("%d predicted panorama(s) add no evaluation: their ground truth has no non-empty limb "
                         "(which ones is not said: it is a fact of the hidden ground truth)." % nno_eval)
    if sub.ignored:
        res.notes.append("%d submitted file(s) match no ground-truth panorama and were ignored: %s."
                         % (len(sub.ignored), quote_some(sub.ignored)))
    res.notes.append("%d ground-truth panoramas, %d with a prediction, %d evaluations, %d hits."
                     % (n, predicted, ev.evaluations, ev.hits))


def _private_tables(res, ev):
    """Organizer-only: per sequence and actor (mean_hit_rate's rule), and per panorama."""
    groups = OrderedDict()
    for p in ev.panoramas:
        seq, _, actor = split_name(p.stem)
        g = groups.setdefault((seq, actor), [0, 0, 0, 0])
        g[0] += 1
        g[1] += p.file is not None
        g[2] += p.evaluations
        g[3] += p.hits
    res.private.append(Table("Per sequence and actor",
                             ["sequence", "actor", "panoramas", "with prediction", "evaluations", "hits",
                              "hit rate"],
                             [[seq, actor] + g + [g[3] / float(g[2]) if g[2] else float("nan")]
                              for (seq, actor), g in groups.items()],
                             note="Evaluations follow mean_hit_rate's rule (one per missing prediction)."))
    res.private.append(Table("Per panorama", ["panorama", "prediction file", "limbs annotated", "evaluations",
                                              "hits", "mean J"],
                             [[p.stem, "missing" if p.file is None else p.file, p.limbs, p.evaluations, p.hits,
                               p.jaccard_sum / p.limbs if p.file is not None and p.limbs else float("nan")]
                              for p in ev.panoramas],
                             note="limbs annotated: limbs non-empty in the ground truth; mean J over them (n/a: "
                                  "no prediction, or no annotated limb)."))


class ChalearnLap2014Pose(Task):
    slug = "chalearn-lap2014-pose"
    title = "ChaLearn LAP 2014 Track 1: multi-limb pose recovery (mean hit rate)"
    protocol = PROTOCOL

    def column_table(self, reference=None) -> List[ScoreKey]:
        keys = [ScoreKey("mean_hit_rate", "Mean hit rate")]
        keys += [ScoreKey("hit_rate_" + limb, label) for limb, label in zip(LIMBS, LIMB_LABELS)]
        return keys

    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """Every *.png directly in ref (evalPose lists truth_dir) with its declared size: a Reference whose data is
        a PanoramaTruth. The pixels are decoded one panorama at a time while scoring (read_ground_truth)."""
        refs = reference_panoramas(ref_dir)
        sizes = [read_reference_size(os.path.join(str(ref_dir), name), "ref/" + name) for _, name in refs]
        return Reference(ref_dir, [name for _, name in refs], PanoramaTruth(refs, sizes))

    def empty_columns(self, reference) -> Dict[str, str]:
        """{hit_rate_<limb>: reason} for the limbs empty in every ground-truth panorama (never evaluated)."""
        present = limbs_present(reference)
        return OrderedDict(("hit_rate_" + limb, "%s: empty in all %d ground-truth panoramas"
                            % (lab, len(reference.files)))
                           for k, (limb, lab) in enumerate(zip(LIMBS, LIMB_LABELS)) if not present[k])

    def read_submission(self, submission, reference, progress) -> PoseSubmission:
        """Which file predicts each ground-truth panorama (the PNGs are decoded one at a time by evaluate)."""
        paths, files, missing, shadowed, shadowed_stems, used = [], [], [], [], [], set()
        for stem, _ in reference.data.names:
            path, shadow = find_prediction(submission, stem)
            paths.append(path)
            files.append(None if path is None else submission.label(path))
            if path is None:
                missing.append(stem)
                continue
            used.add(os.path.basename(path))
            if shadow is not None:
                used.add(os.path.basename(shadow))
                shadowed.append(submission.label(shadow))
                shadowed_stems.append(stem)
        return PoseSubmission(paths, files, missing, shadowed, [nm for nm in submission.names() if nm not in used],
                              shadowed_stems)

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> PoseEvaluation:
        """evalPose over every ground-truth panorama, decoded one at a time into the same two buffers (flat
        memory, no allocation per panorama). The per-panorama records are always kept: the report's notes count
        from them."""
        names, sizes = reference.data.names, reference.data.sizes
        gt_buffer, pred_buffer, scratch = DecodeBuffer(), DecodeBuffer(), OverlapScratch()
        limb_eval = np.zeros(N_LIMBS, dtype=np.int64)
        limb_hit = np.zeros(N_LIMBS, dtype=np.int64)
        limb_missing = np.zeros(N_LIMBS, dtype=np.int64)     # limb evaluations from missing predictions
        limb_jsum = np.zeros(N_LIMBS, dtype=np.float64)      # sum of J over evaluated limbs with a prediction
        curve = np.zeros((THRESHOLDS.size, N_LIMBS), dtype=np.int64)
        evaluations = hits_total = 0
        records = []
        n = len(names)
        for i, ((stem, name), size, path, file) in enumerate(zip(names, sizes, submitted.paths, submitted.files)):
            progress(i, n, "panoramas")
            gt = read_ground_truth(reference.root, name, size, gt_buffer)
            if path is None:
                # evalPose: score += 0; nevals += 1 -- ONE evaluation for the whole panorama
                evaluations += 1
                ev = evaluated_limbs(gt)
                limb_eval += ev
                limb_missing += ev
                records.append(PanoramaResult(stem, None, int(ev.sum()), 1, 0, 0.0))
                continue
            pred = read_prediction(path, file, size, pred_buffer)
            ev, inter, union = limb_overlaps(gt, pred, scratch)
            del gt, pred
            hits = ev & is_hit(inter, union)
            ne, nh = int(ev.sum()), int(hits.sum())
            evaluations += ne
            hits_total += nh
            limb_eval += ev
            limb_hit += hits
            jaccard = np.where(ev, inter / np.maximum(union, 1), 0.0)
            limb_jsum += jaccard
            # J > k/20 <=> 20 * inter > k * union (exact), per threshold and limb
            curve += ev[None, :] & is_hit(inter[None, :], union[None, :], THRESHOLDS[:, None], 20)
            records.append(PanoramaResult(stem, file, ne, ne, nh, float(jaccard.sum())))
        progress(n, n, "panoramas")
        present = limb_eval > 0
        reference.data.limbs_present = present      # every panorama was decoded: score_keys needs no 2nd pass
        whole = reference.data.cut_from
        if whole is not None and whole.limbs_present is None:     # nor on the reference restrict cut this one from
            whole.limbs_present = present | reference.data.cut_limbs
        return PoseEvaluation(records, limb_eval, limb_hit, limb_missing, limb_jsum, curve, evaluations,
                              hits_total, submitted)

    def report(self, evaluation, private) -> Result:
        """The Result: scores, per-limb bars and table, the hit rate against the Jaccard threshold per limb; the
        per-sequence-and-actor and per-panorama tables only when private (they hold each panorama's annotation)."""
        ev = evaluation
        res = Result(self.title)
        sub = ev.submission
        n = len(ev.panoramas)
        predicted = n - len(sub.missing)
        rate = hit_rate(ev.hits, ev.evaluations)
        if rate is None:
            res.notes.append("n/a: no limb was evaluated (every ground-truth limb is empty and every panorama "
                             "has a prediction); the original divides by zero. mean_hit_rate is written as 0.")
            rate = 0.0
        res.set("mean_hit_rate", rate)
        rows, labels, rates = [], [], []
        for k, (limb, lab) in enumerate(zip(LIMBS, LIMB_LABELS)):
            r = hit_rate(ev.limb_hit[k], ev.limb_eval[k])
            if r is None:
                res.notes.append("n/a: %s is empty in every ground-truth panorama; hit_rate_%s is not written."
                                 % (lab, limb))
            else:
                res.set("hit_rate_" + limb, r)
                labels.append(lab)
                rates.append(r)
            with_pred = int(ev.limb_eval[k] - ev.limb_missing[k])
            rows.append([lab, int(ev.limb_eval[k]), int(ev.limb_missing[k]), int(ev.limb_hit[k]),
                         float("nan") if r is None else r,
                         float(ev.limb_jsum[k] / with_pred) if with_pred else float("nan")])
        res.bars.append(Bars("Hit rate per limb (hit_rate_<limb>: J > 0.5)", labels, rates, xlabel="hit rate",
                             note="Limbs empty in every ground-truth panorama are not drawn (never evaluated)."))
        res.tables.append(Table("Per-limb hit rate", ["limb", "evaluations", "missing predictions", "hits", "hit rate",
                                                      "mean J (predicted)"], rows,
                                note="A limb is evaluated where its ground-truth slice is non-empty. For a "
                                     "panorama without a prediction, its non-empty limbs count as misses here "
                                     "(missing predictions: how many); mean_hit_rate counts that panorama as ONE "
                                     "evaluation instead. mean J: over the evaluations of panoramas with a "
                                     "prediction."))
        _lost(res, ev)
        _notes(res, ev, n, predicted)
        if predicted and ev.evaluations:
            y = ev.curve.sum(axis=1) / float(ev.evaluations)
            res.plots.append(Plot("Hit rate as a function of the Jaccard threshold (hit iff J > t)",
                                  "threshold t", "hit rate", [Series("all limbs", THRESHOLDS / 20.0, y)]))
        if private:
            _private_tables(res, ev)
        return res

    def decompose(self, evaluation):
        """mean_hit_rate on weighted panoramas (metrics.hit_rate.weighted_hit_rate): evalPose pools hits and
        evaluations over the ground-truth panoramas (a panorama without a prediction: 1 evaluation, 0 hits), so a
        panorama of weight k adds k times its hits and its evaluations."""
        from ..metrics.bootstrap import Decomposition
        panoramas = evaluation.panoramas
        hits = np.array([p.hits for p in panoramas], dtype=np.float64)
        evaluations = np.array([p.evaluations for p in panoramas], dtype=np.float64)
        return Decomposition("panorama", [p.stem for p in panoramas],
                             lambda weights: weighted_hit_rate(weights, hits, evaluations))

    def item_ids(self, reference) -> List[str]:
        """The panoramas' stems XX_YYYY_W, in the reference's (name) order: decompose's items."""
        return [stem for stem, _ in reference.data.names]

    def withhold(self, reference, items, out_dir) -> None:
        """Every ground-truth panorama copied byte for byte, except those of `items`: each is written as a blank
        panorama of its size (blank_panorama: every pixel 0, no limb), so that the scorer still checks a
        prediction's size against it and its file name keeps it a ground-truth panorama."""
        blank = dict((name, size) for (stem, name), size in zip(reference.data.names, reference.data.sizes)
                     if stem in items)
        write_withheld_copy(reference, out_dir, lambda rel, path: blank_panorama(*blank[rel]) if rel in blank
                            else None)

    def restrict(self, reference, submitted, withheld):
        """The panoramas not withheld, and the submission's prediction files for them only (a prediction of a
        withheld panorama is dropped, with the XX_YYYY_W.png it shadowed, as if never submitted). The predictions
        are decoded while scoring, not while reading: those of the withheld panoramas are decoded here first, for
        the same errors as on the whole reference (check_withheld_predictions)."""
        check_withheld_predictions(reference, submitted, withheld)
        data = reference.data
        keep = [i for i, (stem, _) in enumerate(data.names) if stem not in withheld]
        cut_limbs = None
        if data.limbs_present is None:       # the limbs of the panoramas cut out (blank ones decode fast)
            cut_limbs = np.zeros(N_LIMBS, dtype=bool)
            buffer = DecodeBuffer()
            for (stem, name), size in zip(data.names, data.sizes):
                if stem in withheld:
                    cut_limbs |= evaluated_limbs(read_ground_truth(reference.root, name, size, buffer))
        cut = PanoramaTruth([data.names[i] for i in keep], [data.sizes[i] for i in keep],
                            None if cut_limbs is None else data, cut_limbs)
        shadowed = [(label, stem) for label, stem in zip(submitted.shadowed, submitted.shadowed_stems)
                    if stem not in withheld]
        return reference.replaced(cut), submitted._replace(
            paths=[submitted.paths[i] for i in keep], files=[submitted.files[i] for i in keep],
            missing=[stem for stem in submitted.missing if stem not in withheld],
            shadowed=[label for label, _ in shadowed], shadowed_stems=[stem for _, stem in shadowed])

    def figures(self, reference, columns) -> Dict[str, str]:
        names = [n for n, _ in reference.data.names]
        heights = sorted(set(h for _, h in reference.data.sizes))
        out = {"panoramas": plural(len(names), "panorama"),
               "sequences": plural(len(set(n.split("_")[0] for n in names)), "sequence"),
               "frames": plural(len(set(n.rsplit("_", 1)[0] for n in names)), "frame"),
               "height": " or ".join(str(h) for h in heights)}
        out.update(class_figures(columns, "limb"))
        return out

    def ignored_files(self, submission, reference=None) -> List[str]:
        # as validate without --ids: the names alone (a panorama not named XX_YYYY_W), never the test list
        _, odd, outside, why_odd, why_outside = _sorted_files(submission, None)
        return ignored_warnings(outside, why_outside) + ignored_warnings(odd, why_odd)

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        notes = []
        known = None
        if ids is not None:
            known = set(x.decode() if isinstance(x, bytes) else str(x) for x in np.asarray(ids).ravel())
        stems, odd, outside, why_odd, why_outside = _sorted_files(submission, known)
        if not stems:
            error = SubmissionError(expected="prediction panoramas named XX_YYYY_W_prediction.png%s"
                                    % ("" if known is None else " for the panoramas of the --ids list"),
                                    found="%s" % (quote_some(submission.names()) if submission.names() else "no file"))
            raise with_hint(error, first_hint(outside, why_outside) or first_hint(odd, why_odd))
        cap = BOMB_FACTOR * PANORAMA_WIDTH * STANDARD_HEIGHT
        heights = set()
        shadowed = []
        for stem, names in stems.items():
            name = stem + "_prediction.png" if stem + "_prediction.png" in names else names[0]
            path = submission.find(name)
            label = submission.label(path)
            with PanoramaHeader(path, label, SubmissionError) as hdr:
                hdr.check(max_pixels=cap)
                if hdr.size[0] != PANORAMA_WIDTH:
                    raise SubmissionError(label, expected="a panorama %d pixels wide (14 limbs x 480)"
                                          % PANORAMA_WIDTH, found="%d pixels wide" % hdr.size[0])
                hdr.luminance()
                heights.add(hdr.size[1])
            shadowed += [(submission.label(submission.find(n)), name) for n in names if n != name]
        notes.insert(0, "%d prediction panoramas, heights %s" % (len(stems), sorted(heights)))
        if known is not None:
            absent = [s for s in sorted(known) if s not in stems]
            if absent:
                notes.append("%d expected panorama(s) have no prediction (each scores one evaluation with no "
                             "hit): %s" % (len(absent), quote_some(absent)))
        notes += ignored_warnings(shadowed, lambda read: ("%s is read instead" % read, None))
        notes += ignored_warnings(outside, why_outside)
        notes += ignored_warnings(odd, why_odd)
        return notes


def _sorted_files(submission, known):
    """The submitted files sorted as the scorer sorts them: ({stem: [names]} of the panoramas it reads, [(label,
    name)] of the files it never opens (not XX_YYYY_W[_prediction].png; panoramas outside `known`, the --ids
    list, or without it not XX_YYYY_W in digits), why_odd, why_outside (_ignored_reasons))."""
    stems = OrderedDict()
    odd, outside = [], []
    for name in submission.names():
        m = NAME_RX.fullmatch(name)
        if m is None:
            odd.append(name)
            continue
        stem = name[:-len("_prediction.png")] if m.group(4) else name[:-4]
        evaluated = stem in known if known is not None else STEM_RX.fullmatch(stem) is not None
        if evaluated:
            stems.setdefault(stem, []).append(name)
        else:
            outside.append(name)
    why_odd, why_outside = _ignored_reasons(known, stems)
    paths = {}
    for name, path in submission.files():
        paths.setdefault(name, []).append(submission.label(path))
    return (stems, [(label, name) for name in odd for label in paths[name]],
            [(label, name) for name in outside for label in paths[name]], why_odd, why_outside)


def _ignored_reasons(known, stems):
    """why(name) -> (reason, hint) for validate's two kinds of files the scorer never opens: names that are not
    XX_YYYY_W_prediction.png (or XX_YYYY_W.png), and panoramas outside --ids (without it: not XX_YYYY_W in digits).
    Hints are the --ids panoramas without a prediction, or the name's own first three numbers as XX_YYYY_W."""
    if known is not None:
        free = [k for k in sorted(known) if k not in stems]
        hint_stem = NearMiss(free)
        hint_name = NearMiss([k + "_prediction.png" for k in free] + [k + ".png" for k in free])
    else:
        def as_panorama(name):
            runs = re.findall(r"\d+", without_extension(name))
            return "_".join(runs[:3]) if len(runs) >= 3 else None

        def hint_stem(s):
            meant = as_panorama(s)
            return NearMiss([meant])(s) if meant and meant not in stems else None

        def hint_name(name):
            meant = as_panorama(name)
            if not meant or meant in stems:
                return None
            return NearMiss([meant + "_prediction.png", meant + ".png"])(name)

    def why_odd(name):
        return "not named XX_YYYY_W_prediction.png", hint_name(name)

    def why_outside(name):
        s = name[:-len("_prediction.png")] if name.endswith("_prediction.png") else name[:-4]
        meant = hint_stem(s)
        reason = ("no panorama %r in the --ids list" % s if known is not None
                  else "no panorama %r: panoramas are named XX_YYYY_W (numbers)" % s)
        return reason, meant and repr(meant)

    return why_odd, why_outside


TASK = ChalearnLap2014Pose()
