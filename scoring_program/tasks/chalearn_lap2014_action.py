"""chalearn-lap2014-action: ChaLearn LAP 2014 Track 2, action/interaction spotting, mean Jaccard.

Scored as the starting kit's ChalearnLAPEvaluation.py (evalAction) computes it, which differs from the seed's
prose: predicted actions absent from the ground truth are ignored, the end frame is exclusive. evalAction loops over
the ground truth's SeqXX_labels.csv and opens <seq>_prediction.csv for each, so a submitted file for any other
sequence is never read: here it is not opened either, only counted in a warning (issue 10).
"""
from __future__ import annotations

import os
import re
from collections import OrderedDict
from typing import Dict, List, NamedTuple

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some
from ..formats.chalearn import ACTIONS, Intervals, read_frame_count, read_intervals
from ..formats.hints import NearMiss, first_hint, ignored_warnings, with_hint, without_extension
from ..metrics.jaccard import (actor_action_keys, frame_errors, matched_offsets, rule_2014, rule_actor,
                               sequence_masks, weighted_mean_jaccard)
from ..report.result import LOST, Bars, Histogram, Result, ScoreKey, Table
from .base import Reference, Rule, Task, class_figures, no_progress, plural, write_withheld_copy

LABELS = "_labels.csv"
DATA = "_data.csv"
PRED = "_prediction.csv"
PRED_ALIAS = "_predictions.csv"   # the seed's evaluation section spells it so
PREDICTION_RX = re.compile(r"(.+)_predictions?\.csv")   # the names prediction_files reads: <seq>_prediction.csv
SEQ_RX = re.compile(r"Seq\d{2,}")   # how the dataset names its sequences (validate without --ids)

PROTOCOL = [
    Rule("scope", "ChaLearn LAP 2014 Track 2 (action/interaction spotting), scored as the starting kit's "
                  "ChalearnLAPEvaluation.py (evalAction) computes it: the code is the contract where it differs from "
                  "the challenge page's prose."),
    Rule("sequences", "Only the sequences of the ground truth are scored, as the original does: a prediction file "
                      "(SeqXX_prediction.csv) for any other sequence is ignored, not even read (malformed content in "
                      "it is no error), and a warning gives the number of such files and the first one. Sequence "
                      "names are matched exactly, case included. A submission with no prediction file for any "
                      "sequence of the ground truth is an error."),
    Rule("rows", "Each row is an action instance: 'ActionID,StartFrame,EndFrame' (3 columns, 2014 kit) or "
                 "'ActorID,ActionID,StartFrame,EndFrame' (4 columns). Frames are 1-based and the END FRAME IS "
                 "EXCLUSIVE: a row marks frames StartFrame .. EndFrame-1 (StartFrame == EndFrame marks nothing). "
                 "Intervals are clipped to the sequence length (the first column of the last row of SeqXX_data.csv); "
                 "intervals of one action are OR-ed."),
    Rule("frame_below_one", "A start or end frame below 1 is an error here. The original accepts them: for a start "
                            "frame of 0 its slice [StartFrame-1 : EndFrame-1] starts at -1, i.e. at the last frame, "
                            "so the row silently marks nothing (or only the last frame, when EndFrame runs past the "
                            "sequence); for an end frame of 0 it wraps around and marks StartFrame .. the last but "
                            "one."),
    Rule("three_column", "3-column ground truth (the 2014 rule): only the actions present in the sequence's ground "
                         "truth are scored; a predicted action absent from the ground truth is IGNORED (the prose "
                         "says it would count as 0; the code never looks at it). J = |GT and P| / |GT or P| over "
                         "frames, per action; the sequence score is the mean J. A 4-column prediction against "
                         "3-column ground truth: the actor column is dropped. A 3-column prediction is accepted for "
                         "every sequence, whatever its ground truth: where the ground truth has actor ids, its actor "
                         "column is dropped "
                         "(the two actors' intervals of an action OR-ed) and this rule scores the sequence."),
    Rule("four_column", "4-column ground truth (actor-aware rule): frames are indexed per (actor, action); every "
                        "(actor, action) pair of the ground truth is scored as above, a pair whose union is empty is "
                        "skipped, the sequence score is the mean over the scored pairs. A 3-column prediction against "
                        "4-column ground truth is scored by the 2014 rule (above): it cannot say which actor it means, "
                        "and the original's actor-aware reader could not read it (it crashed), so the rule that reads "
                        "actions alone applies; whether a sequence's ground truth has actor ids is never an error."),
    Rule("empty_action", "A ground-truth action whose clipped intervals are empty, with an empty prediction, makes "
                         "the original divide 0 by 0 (NaN): here J = 0 and the report warns. A sequence with nothing "
                         "to score counts 0."),
    Rule("overall", "mean_jaccard = mean of the sequence scores over ALL reference sequences. A missing prediction "
                    "file (the original crashed) and an empty file score 0 for that sequence. jaccard_<Action> = mean "
                    "J of that action over the sequences (and actors) whose ground truth has it; not written when no "
                    "ground truth has it."),
]


# A withheld sequence's SeqXX_labels.csv (Task.withhold), by the layout of its ground truth: 3 columns, no row; 4
# columns (actor ids), one row marking no frame (start = end), the layout choosing the rule that scores it
WITHHELD_LABELS = {3: b"", 4: b"1,1,1,1\n"}

# validate's note on 3-column prediction files: a fact of the submission, the same whatever the
# ground truth holds (issue 31: the rule once depended on it)
THREE_COLUMN_NOTE = ("3-column rows (ActionID,StartFrame,EndFrame) are scored on the actions alone: where a "
                     "sequence's ground truth identifies the actors, its actor column is dropped; 4-column rows "
                     "(ActorID,ActionID,StartFrame,EndFrame) are scored per actor there.")


def reference_sequences(ref_dir):
    """{seq: (labels path, data path)} for every ref file ending in _labels.csv (its _data.csv must exist)."""
    ref_dir = str(ref_dir)
    out = {}
    for name in sorted(os.listdir(ref_dir)):
        if name.endswith(LABELS) and os.path.isfile(os.path.join(ref_dir, name)):
            seq = name[:-len(LABELS)]
            data = os.path.join(ref_dir, seq + DATA)
            if not os.path.isfile(data):
                raise ReferenceDataError("ref/" + seq + DATA, message="the data file of sequence %s is missing" % seq)
            out[seq] = (os.path.join(ref_dir, name), data)
    if not out:
        raise ReferenceDataError("ref", expected="files SeqXX_labels.csv and SeqXX_data.csv", found="none")
    return out


class Sequence(NamedTuple):
    """One ground-truth sequence: gt, its intervals (SeqXX_labels.csv: formats.chalearn.Intervals, (r,) int64
    columns actor (4-column layout only), action 1..11, start, end exclusive); nframes, its frame count
    (SeqXX_data.csv); labels_file, the labels file's name."""
    gt: Intervals
    nframes: int
    labels_file: str


class ActionTruth(NamedTuple):
    """Reference.data: {sequence name: Sequence}, every SeqXX_labels.csv of the reference, in name order."""
    sequences: Dict[str, Sequence]


def prediction_files(submission, known=None):
    """SeqXX_prediction.csv (also SeqXX_predictions.csv; _prediction wins) -> ({seq: path}, notes, ignored);
    notes: [(seq, text)], the SeqXX_predictions.csv files not read.

    known: the sequences to evaluate (the ground truth's, or validate --ids), or None for all. A file for any other
    sequence is not returned, only listed in `ignored` (labels, sorted): evalAction opens <seq>_prediction.csv for
    each ground-truth sequence and never sees the rest. Names are compared exactly, as that lookup does.
    """
    found = submission.matching(PREDICTION_RX.pattern)
    files, notes, ignored = {}, [], []
    for suffix in (PRED, PRED_ALIAS):              # every _prediction.csv first: it wins over _predictions.csv
        for name in sorted(found):
            if not name.endswith(suffix):
                continue
            seq = name[:-len(suffix)]
            if known is not None and seq not in known:
                ignored.append(submission.label(found[name]))
            elif seq in files:
                notes.append((seq, "%s: ignored, %s%s is used." % (submission.label(found[name]), seq, PRED)))
            else:
                files[seq] = found[name]
    return files, notes, sorted(ignored)


def require_prediction_files(submission, files, ignored, evaluated):
    """The one rule for both score and validate: at least one prediction file of an evaluated sequence.

    evaluated: how the evaluated sequences are named in the message ("the ground truth", "the --ids list").
    """
    if files:
        return
    if ignored:
        raise SubmissionError(ignored[0], expected="a file SeqXX_prediction.csv for a sequence of %s" % evaluated,
                              found="%d prediction file(s), none for a sequence of %s (names are matched exactly, "
                              "case included)" % (len(ignored), evaluated))
    raise SubmissionError(expected="files named SeqXX_prediction.csv",
                          found="none (files present: %s)" % (quote_some(submission.names()) or "none"))


def ignored_files_warning(ignored, evaluated="the ground truth"):
    """The count and the first name of the ignored files: only what the participant submitted, no reference id."""
    return ("%d prediction file(s) for sequences not in %s were ignored (the original never reads them; sequence "
            "names are matched exactly, case included), first: %s" % (len(ignored), evaluated, ignored[0]))


class ActionSubmission(NamedTuple):
    """What read_submission read: {seq: (file label, Intervals)} for the ground-truth sequences with a file, the
    sequences without one, the notes [(seq, text)] (alias files) and the ignored files (sequences not in the ground
    truth)."""
    predictions: dict
    missing: list
    notes: list
    ignored_files: list


class SequenceResult(NamedTuple):
    """One sequence: its score and, per scored row (an action, or an (actor, action) pair: actors is None under
    the 2014 rule), J, flagged (2014 rule: 0/0, counted as 0; actor-aware: empty union, skipped) and the frame
    counts of frame_errors. file: the prediction's label, or None when the sequence has no prediction file."""
    seq: str
    file: object
    rule: str
    nframes: int
    gt_rows: int
    pred_rows: int
    ignored: int
    score: float
    actors: object
    actions: np.ndarray
    j: np.ndarray
    flagged: np.ndarray
    gt_frames: np.ndarray
    pr_frames: np.ndarray
    common: np.ndarray


class ActionEvaluation(NamedTuple):
    """Per-sequence records and the aggregates: per action, the J values that enter jaccard_<Action>, the frame
    counts summed over the scored rows (gt_frames, pr_frames, common: (11,) int64) and the matched intervals'
    offsets (offset_action: 1-based action of each matched pair)."""
    sequences: list
    mean: float
    per_action: list
    gt_frames: np.ndarray
    pr_frames: np.ndarray
    common: np.ndarray
    offset_action: np.ndarray
    start_offset: np.ndarray
    end_offset: np.ndarray
    submission: ActionSubmission


def evaluate_sequence(seq, sequence, prediction, offsets=True):
    """One sequence -> (SequenceResult, (action, start offset, end offset) of its matched intervals; empty without
    offsets: only the full report's histograms show them)."""
    gt, nframes = sequence.gt, sequence.nframes
    label, pr = prediction if prediction is not None else (None, None)
    if pr is None or len(pr) == 0:
        pa = ps = pe = np.zeros(0, dtype=np.int64)
        pact = None
    else:
        pa, ps, pe, pact = pr.action, pr.start, pr.end, pr.actor
    nactions = len(ACTIONS)
    # actor-aware where the ground truth has actor ids, unless the prediction has none (3 columns): then the
    # ground truth's actor column is dropped and the 2014 rule scores the actions, as for the other mismatch
    actor_aware = gt.ncols == 4 and len(gt) > 0 and not (pr is not None and len(pr) and pr.ncols == 3)
    if actor_aware:
        gt_keys = actor_action_keys(gt.actor, gt.action, nactions)
        if pact is None:
            pr_keys = pa
        else:       # the compact columns (int8) as int16 keys: (actor - 1) * nactions + (action - 1) <= 21
            pr_keys = (pact.astype(np.int16) - 1) * nactions + (pa.astype(np.int16) - 1)
    else:
        gt_keys, pr_keys = gt.action, pa
    # the masks jaccard_2014 / jaccard_actor compare, built once: the metric and the report's frame counts and
    # matched intervals all come from them (union = gt_frames + pr_frames - common, the metric's |GT or P|)
    keys, gt_masks, pr_masks, dropped = sequence_masks(gt_keys, gt.start, gt.end, pr_keys, ps, pe, nframes)
    gt_frames, pr_frames, common = frame_errors(gt_masks, pr_masks)
    union = gt_frames + pr_frames - common
    if actor_aware:
        actors, actions, j, flagged, score = rule_actor(keys, common, union, nactions)
        rule = "actor-aware (4 columns)"
    else:
        actions, j, flagged, score = rule_2014(keys, common, union)
        actors = None
        rule = "2014 (3 columns)" if gt.ncols == 3 or not len(gt) else "2014 (3-column prediction)"
    if offsets:
        row, start_offset, end_offset = matched_offsets(gt_masks, pr_masks)
    else:
        row = start_offset = end_offset = np.zeros(0, dtype=np.int64)
    result = SequenceResult(seq, label, rule, nframes, len(gt), 0 if pr is None else len(pr),
                            dropped, score, actors, actions, j, flagged, gt_frames, pr_frames,
                            common)
    return result, (actions[row], start_offset, end_offset)


OFFSET_EDGES = np.arange(-60, 61, 5)     # frames; offsets beyond are counted in the outer bins


def _lost(res, ev):
    """Per action: the share of GT frames missed, of predicted frames outside every GT interval, and the offsets
    of the matched intervals; pooled over the scored rows of all sequences (and actors)."""
    lost = res.section(LOST, "Pooled over every sequence (and actor) whose ground truth has the action, with the "
                             "metric's frames: clipped to the sequence, end frame exclusive, one action's intervals "
                             "OR-ed. A row's J = common / (common + missed + outside). Predicted actions absent "
                             "from a sequence's ground truth are ignored, as by the metric.")
    listed = np.flatnonzero(ev.gt_frames > 0)
    missed = ev.gt_frames - ev.common
    outside = ev.pr_frames - ev.common
    missed_share = missed / np.maximum(ev.gt_frames, 1).astype(np.float64)
    outside_share = outside / np.maximum(ev.pr_frames, 1).astype(np.float64)   # 0 when nothing is predicted
    names = [ACTIONS[a] for a in listed]
    pairs = np.bincount(ev.offset_action - 1, minlength=len(ACTIONS))
    lost.add(Bars("Share of ground-truth frames missed (no prediction of the action covers them)", names,
                  missed_share[listed], xlabel="missed GT frames / GT frames"))
    lost.add(Bars("Share of predicted frames outside every ground-truth interval of the action", names,
                  outside_share[listed], xlabel="predicted frames outside GT / predicted frames",
                  note="0 for an action never predicted in a sequence whose ground truth has it."))
    lost.add(Table("Frames and matched intervals per action",
                   ["action", "GT frames", "missed", "missed share", "predicted", "outside GT", "outside share",
                    "matched"],
                   [[ACTIONS[a], int(ev.gt_frames[a]), int(missed[a]), float(missed_share[a]), int(ev.pr_frames[a]),
                     int(outside[a]), float(outside_share[a]), int(pairs[a])] for a in listed],
                   note="Actions with ground-truth frames; frame counts, and matched interval pairs. An interval "
                        "is a maximal run of marked frames of one action (and actor) in one sequence. A "
                        "ground-truth and a predicted interval are matched iff they share at least one frame (one "
                        "GT interval overlapping two predicted ones gives two pairs)."))
    edges = OFFSET_EDGES
    start, end = (np.clip(v, edges[0], edges[-1] - 1) for v in (ev.start_offset, ev.end_offset))
    note = ("%d matched pairs, all actions. Offsets in frames, negative = earlier than the ground truth (end "
            "frames exclusive on both sides). Bins of 5 frames [a, a+5); offsets beyond +-%d frames are counted in "
            "the outer bins." % (ev.start_offset.size, edges[-1]))
    lost.add(Histogram("Start offsets of matched intervals (predicted start - GT start)", edges,
                       np.histogram(start, edges)[0], xlabel="start offset (frames)",
                       ylabel="matched pairs", note=note))
    lost.add(Histogram("End offsets of matched intervals (predicted end - GT end)", edges,
                       np.histogram(end, edges)[0], xlabel="end offset (frames)",
                       ylabel="matched pairs"))


def _scored_rows(r):
    """The rows whose J enters the sequence score: all under the 2014 rule, the non-skipped pairs otherwise."""
    return r.actions.size if r.actors is None else int(np.count_nonzero(~r.flagged))


def _notes(res, ev):
    """Every note and warning here, like report's alias notes and ignored-file warning (files of sequences outside
    the ground truth), depends on the ground truth's sequences (their files, rows, actions), so none is Own: all
    are withheld at the hidden level. The count of rows naming an action absent from the ground truth is an
    oracle: action a repeated 2^(a-1) times as empty intervals in one sequence would decode its action set."""
    sub = ev.submission
    empty = [r.file for r in ev.sequences if r.file is not None and r.pred_rows == 0]
    nan_cases = sum(int(np.count_nonzero(r.flagged)) for r in ev.sequences if r.actors is None)
    empty_pairs = sum(int(np.count_nonzero(r.flagged)) for r in ev.sequences if r.actors is not None)
    ignored_total = sum(r.ignored for r in ev.sequences)
    nothing = sum(1 for r in ev.sequences if r.gt_rows == 0 or _scored_rows(r) == 0)
    if sub.missing:
        res.notes.append("%d sequence(s) without a prediction file, scored 0: %s." % (
            len(sub.missing), quote_some(sub.missing, 20)))
    if empty:
        res.notes.append("%d empty prediction file(s), scored 0: %s." % (len(empty), quote_some(empty, 20)))
    if ignored_total:
        res.notes.append("%d predicted row(s) name an action (or actor/action pair) absent from their "
                         "sequence's ground truth: ignored, as the original code does." % ignored_total)
    # counts only: which sequence or action these are is a fact about the hidden ground truth (issue 12)
    if empty_pairs:
        res.notes.append("%d (actor, action) pair(s) of actor-aware sequences have an empty union and were "
                         "skipped, as the original skips them." % empty_pairs)
    if nan_cases:
        res.warnings.append("%d (sequence, action) case(s): a ground-truth action whose clipped intervals are "
                            "empty, with an empty prediction; the original returns NaN there; counted as J = 0 "
                            "here." % nan_cases)
    if nothing:
        res.warnings.append("%d sequence(s) with nothing to score (no ground-truth frame), counted 0." % nothing)


def _private_tables(res, ev):
    """Organizer-only: each sequence's score, and each scored (sequence, actor, action) row with its frames."""
    res.private.append(Table("Per sequence", ["sequence", "score", "rule", "frames", "GT rows", "predicted rows",
                                              "ignored rows", "file"],
                             [[r.seq, r.score, r.rule, r.nframes, r.gt_rows, r.pred_rows, r.ignored,
                               "missing" if r.file is None else r.file] for r in ev.sequences]))
    rows = []
    for r in ev.sequences:
        actors = r.actors.tolist() if r.actors is not None else ["-"] * r.actions.size
        for i, (actor, a) in enumerate(zip(actors, r.actions.tolist())):
            gt, pr, common = int(r.gt_frames[i]), int(r.pr_frames[i]), int(r.common[i])
            j = float(r.j[i])
            if r.flagged[i]:
                j = "skipped (empty union)" if r.actors is not None else "0 (NaN in the original)"
            rows.append([r.seq, actor, ACTIONS[a - 1], gt, pr, common, gt - common, pr - common, j])
    res.private.append(Table("Per sequence, actor and action (the rows the metric scores)",
                             ["sequence", "actor", "action", "GT frames", "predicted frames", "common", "missed",
                              "outside GT", "J"], rows,
                             note="actor '-': 2014 rule (3-column ground truth), one row per action."))


class ChalearnLap2014Action(Task):
    slug = "chalearn-lap2014-action"
    title = "ChaLearn LAP 2014 Track 2: action/interaction spotting (mean Jaccard)"
    protocol = PROTOCOL

    def column_table(self, reference=None) -> List[ScoreKey]:
        keys = [ScoreKey("mean_jaccard", "Mean Jaccard")]
        keys += [ScoreKey("jaccard_" + a, "J " + a) for a in ACTIONS]
        return keys

    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """Every SeqXX_labels.csv of ref and its SeqXX_data.csv (all evalAction reads): a Reference whose data is
        an ActionTruth."""
        seqs = OrderedDict()
        files = []
        for seq, (lab_path, dat_path) in reference_sequences(ref_dir).items():
            lab, dat = os.path.basename(lab_path), os.path.basename(dat_path)
            seqs[seq] = Sequence(read_intervals(lab_path, "ref/" + lab, ReferenceDataError),
                                 read_frame_count(dat_path, "ref/" + dat), lab)
            files += [lab, dat]
        return Reference(ref_dir, files, ActionTruth(seqs))

    def empty_columns(self, reference) -> Dict[str, str]:
        """{jaccard_<Action>: reason} for the actions no ground-truth sequence has: their mean J is never
        written. The sequences of a WITHHELD file are left out (their labels file is a placeholder, withhold)."""
        withheld = reference.withheld or frozenset()
        seqs = OrderedDict((seq, s) for seq, s in reference.data.sequences.items() if seq not in withheld)
        present = set()
        for s in seqs.values():
            present.update(s.gt.action.tolist())
        return OrderedDict(("jaccard_" + name, "%s: no row of the %d ground-truth sequence(s) has action %d"
                            % (name, len(seqs), a + 1))
                           for a, name in enumerate(ACTIONS) if a + 1 not in present)

    def read_submission(self, submission, reference, progress) -> ActionSubmission:
        """Every prediction file of a ground-truth sequence, read and checked in sequence order (the first fault
        in that order is the error); files of other sequences are not opened."""
        seqs = reference.data.sequences
        files, alias_notes, ignored_files = prediction_files(submission, seqs)
        try:
            require_prediction_files(submission, files, ignored_files, "the ground truth")
        except SubmissionError as e:
            raise with_hint(e, submission_hint(submission)) from None
        predictions, missing = OrderedDict(), []
        for seq, sequence in seqs.items():
            path = files.get(seq)
            if path is None:
                missing.append(seq)
                continue
            label = submission.label(path)
            predictions[seq] = (label, read_intervals(path, label))
        return ActionSubmission(predictions, missing, alias_notes, ignored_files)

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> ActionEvaluation:
        """Every ground-truth sequence scored (evalAction), plus the aggregates of the report. The per-sequence
        records are always kept: the report's notes count from them. The matched intervals' offsets only with
        analyses (the full report's histograms)."""
        seqs = reference.data.sequences
        records, offsets = [], []
        per_action = [[] for _ in ACTIONS]
        sums = np.zeros((3, len(ACTIONS)), dtype=np.int64)
        for k, (seq, sequence) in enumerate(seqs.items()):
            progress(k, len(seqs), "sequences")
            r, matched = evaluate_sequence(seq, sequence, submitted.predictions.get(seq), analyses)
            counted = ~r.flagged if r.actors is not None else np.ones(r.j.shape, dtype=bool)
            for a, v in zip(r.actions[counted].tolist(), r.j[counted].tolist()):
                per_action[a - 1].append(v)
            for i, counts in enumerate((r.gt_frames, r.pr_frames, r.common)):
                sums[i] += np.bincount(r.actions - 1, weights=counts, minlength=len(ACTIONS)).astype(np.int64)
            records.append(r)
            offsets.append(matched)
        progress(len(seqs), len(seqs), "sequences")
        mean = float(np.mean([r.score for r in records])) if records else 0.0
        action, start, end = (np.concatenate(v) for v in zip(*offsets))     # the reference has >= 1 sequence
        return ActionEvaluation(records, mean, per_action, sums[0], sums[1], sums[2], action, start, end,
                                submitted)

    def report(self, evaluation, private) -> Result:
        """The Result: scores, per-action bars and tables, where the points were lost; per-sequence tables only
        when private (they hold each test sequence's labels)."""
        ev = evaluation
        res = Result(self.title)
        sub = ev.submission
        res.notes.extend(text for _, text in sub.notes)
        if sub.ignored_files:
            res.warnings.append(ignored_files_warning(sub.ignored_files))
        res.set("mean_jaccard", ev.mean)
        arows, names, means = [], [], []
        for a, name in enumerate(ACTIONS):
            vals = ev.per_action[a]
            if vals:
                res.set("jaccard_" + name, float(np.mean(vals)))
                names.append(name)
                means.append(float(np.mean(vals)))
            arows.append([a + 1, name, float(np.mean(vals)) if vals else float("nan"), len(vals)])
        res.bars.append(Bars("Mean Jaccard per action (jaccard_<Action>)", names, means, xlabel="mean Jaccard",
                             note="Actions no ground-truth sequence has are not drawn (their column is not "
                                  "written)."))
        res.tables.append(Table("Per-action Jaccard (mean over the sequences and actors whose ground truth has "
                                "the action)", ["id", "action", "mean J", "scored"], arows,
                                note="n/a: no ground truth has the action; its column is not written."))
        _lost(res, ev)
        _notes(res, ev)
        if private:
            _private_tables(res, ev)
        return res

    def decompose(self, evaluation):
        """mean_jaccard on weighted sequences (metrics.jaccard.weighted_mean_jaccard): evalAction sums one score
        per ground-truth sequence and divides by their number, so a sequence of weight k counts k times in both."""
        from ..metrics.bootstrap import Decomposition
        sequences = evaluation.sequences
        scores = np.array([r.score for r in sequences], dtype=np.float64)
        return Decomposition("sequence", [r.seq for r in sequences],
                             lambda weights: weighted_mean_jaccard(weights, scores))

    def item_ids(self, reference) -> List[str]:
        """The ground-truth sequences SeqXX, in name order: decompose's items."""
        return list(reference.data.sequences)

    def withhold(self, reference, items, out_dir) -> None:
        """Every SeqXX_data.csv byte for byte (the frame count the scorer clips to, which the video tells), and
        every SeqXX_labels.csv but those of `items`: each is written as WITHHELD_LABELS of its layout, the same
        bytes for every withheld sequence of that layout. The layout stays because it chooses the rule that scores a
        prediction (actor-aware where the ground truth has actor ids)."""
        blank = dict((sequence.labels_file, WITHHELD_LABELS[sequence.gt.ncols])
                     for seq, sequence in reference.data.sequences.items() if seq in items)
        write_withheld_copy(reference, out_dir, lambda rel, path: blank.get(rel))

    def restrict(self, reference, submitted, withheld):
        """The sequences not withheld, and the submission's prediction files (and alias notes) for them only."""
        seqs = OrderedDict((seq, s) for seq, s in reference.data.sequences.items() if seq not in withheld)
        return reference.replaced(ActionTruth(seqs)), submitted._replace(
            predictions=OrderedDict((seq, p) for seq, p in submitted.predictions.items() if seq not in withheld),
            missing=[seq for seq in submitted.missing if seq not in withheld],
            notes=[(seq, text) for seq, text in submitted.notes if seq not in withheld])

    def figures(self, reference, columns) -> Dict[str, str]:
        out = {"sequences": plural(len(reference.data.sequences), "sequence")}
        out.update(class_figures(columns, "action"))
        return out

    def ignored_files(self, submission, reference=None) -> List[str]:
        # as validate without --ids: the names alone (a sequence not named SeqXX), never the test list
        _, _, outside, odd, why_outside, why_odd = _sorted_files(submission, None)
        return ignored_warnings(outside, why_outside) + ignored_warnings(odd, why_odd)

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        names = submission.names()
        evaluated, files, outside, odd, why_outside, why_odd = _sorted_files(submission, ids)
        try:
            require_prediction_files(submission, files, [label for label, _ in outside], evaluated)
        except SubmissionError as e:
            raise with_hint(e, first_hint(outside, why_outside) or first_hint(odd, why_odd)) from None
        notes = []
        layouts = set()
        for seq in sorted(files):
            label = submission.label(files[seq])
            pr = read_intervals(files[seq], label)
            if len(pr):
                layouts.add(pr.ncols)
            notes.append("%s: %d rows%s" % (label, len(pr), "" if not len(pr) else ", %d columns" % pr.ncols))
        notes.insert(0, "%d prediction file(s)" % len(files))
        if 3 in layouts:
            notes.append(THREE_COLUMN_NOTE)
        shadowed = [(submission.label(submission.find(seq + PRED_ALIAS)), seq + PRED) for seq in sorted(files)
                    if files[seq].endswith(PRED) and seq + PRED_ALIAS in names]
        notes += ignored_warnings(shadowed, lambda read: ("%s is read instead" % read, None))
        notes += ignored_warnings(outside, why_outside)
        notes += ignored_warnings(odd, why_odd)
        return notes


def submission_hint(submission):
    """The near-miss hint of the error raised when no file of an evaluated sequence is read, judged on the
    submission's names alone, as validate without --ids judges them ('Seq' and a name's first number): the same
    words in the scorer's message and validate's, whatever the ground truth holds."""
    _, _, outside, odd, why_outside, why_odd = _sorted_files(submission, None)
    return first_hint(outside, why_outside) or first_hint(odd, why_odd)


def _sorted_files(submission, ids):
    """The submitted files sorted as the scorer sorts them, against ids (validate --ids; None: the sequences named
    SeqXX, case included): (what is evaluated, {seq: path} read, [(label, name)] of the prediction files of other
    sequences, [(label, name)] of the files not named SeqXX_prediction.csv, why_outside, why_odd)."""
    if ids is not None:
        known = set(x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x) for x in ids.tolist())
        evaluated = "the --ids list"
    else:
        seqs = (m.group(1) for m in map(PREDICTION_RX.fullmatch, submission.names()) if m)
        known = set(s for s in seqs if SEQ_RX.fullmatch(s))
        evaluated = "the test set"
    files, _, ignored = prediction_files(submission, known)
    why_outside, why_odd = _ignored_reasons(ids is not None, known, files)
    outside = [(label, label.rsplit("/", 1)[-1]) for label in ignored]
    odd = [(submission.label(path), n) for n, path in submission.files() if not PREDICTION_RX.fullmatch(n)]
    return evaluated, files, outside, odd, why_outside, why_odd


def _ignored_reasons(with_ids, known, files):
    """why(name) -> (reason, hint) for validate's two kinds of files the scorer never opens: prediction files of
    a sequence it does not evaluate (outside --ids; without it, not named SeqXX), and files not named
    SeqXX_prediction.csv. Hints: the --ids sequences without a file, or 'Seq' and the name's first number."""
    free = sorted(set(known) - set(files))
    hint_seq = NearMiss(free)
    hint_name = NearMiss(s + PRED for s in free)

    def as_sequence(name):
        runs = re.findall(r"\d+", name)
        meant = "Seq%02d" % int(runs[0]) if runs else None
        return meant if meant not in files else None

    def why_outside(name):
        seq = PREDICTION_RX.fullmatch(name).group(1)
        if with_ids:
            meant = hint_seq(seq)
            return "no sequence %r in the --ids list" % seq, meant and repr(meant)
        meant = as_sequence(seq)
        meant = meant and NearMiss([meant])(seq)
        naming = "" if meant else " (sequences are named SeqXX, case included)"
        return "no sequence %r%s" % (seq, naming), meant and repr(meant)

    def why_odd(name):
        if with_ids:
            return "only files named SeqXX_prediction.csv are read", hint_name(name)
        meant = as_sequence(without_extension(name))
        return "only files named SeqXX_prediction.csv are read", meant and NearMiss([meant + PRED])(name)

    return why_outside, why_odd


TASK = ChalearnLap2014Action()
