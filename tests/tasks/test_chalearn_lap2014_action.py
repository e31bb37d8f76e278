"""chalearn-lap2014-action: hand-computed scenarios for every rule of issue 4 (Track 2), plus properties."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from scoring_program.errors import ReferenceDataError, SubmissionError
from scoring_program.formats.chalearn import parse_intervals, read_frame_count
from scoring_program.formats.files import Submission
from scoring_program.metrics.jaccard import (actor_action_keys, frame_errors, frame_masks, interval_jaccard, jaccard_2014,
                                             jaccard_actor, key_masks, mask_runs, matched_offsets)
from scoring_program.report.result import LOST, Bars, Histogram, Table
from scoring_program.tasks.chalearn_lap2014_action import OFFSET_EDGES, TASK

from conftest import ROOT, read_scores, run_score
from privacy import no_item_ids, only_numbers_differ

SLUG = "chalearn-lap2014-action"


def write(path, text):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), "w", newline="\n") as f:
        f.write(text)


def run(tmp_path, gt, pred, nframes=100, **options):
    """gt: {seq: labels text}; pred: {seq: prediction text or None}; nframes an int or {seq: int}; options: Task.score's
    (private, decompose)."""
    ref, res = tmp_path / "ref", tmp_path / "res"
    for seq, text in gt.items():
        n = nframes[seq] if isinstance(nframes, dict) else nframes
        write(ref / ("%s_labels.csv" % seq), text)
        write(ref / ("%s_data.csv" % seq), "%d,20,2000\n" % n)
    os.makedirs(str(res), exist_ok=True)
    for seq, text in pred.items():
        if text is not None:
            write(res / ("%s_prediction.csv" % seq), text)
    return TASK.score(str(ref), Submission(str(res)), **options)


# ---------------------------------------------------------------- the seed's worked example
# The figure's intervals are not in the seed text: these reproduce its numbers over 100 frames.
SEED_GT = "6,1,41\n11,31,61\n11,71,91"      # walk frames 1..40; fight 31..60 and 71..90
SEED_PRED = "6,5,51\n11,31,54"              # walk 5..50 (36 common / 50 union); fight 31..53 (23 / 50)


def test_seed_figure_walk_072_fight_046_mean_059(tmp_path):
    actions, j, flagged, score = jaccard_2014([6, 11, 11], [1, 31, 71], [41, 61, 91], [6, 11], [5, 31], [51, 54], 100)
    assert actions.tolist() == [6, 11]
    assert j.tolist() == pytest.approx([0.72, 0.46], abs=1e-12)
    assert score == pytest.approx(0.59, abs=1e-12)
    assert not flagged.any()
    res = run(tmp_path, {"Seq01": SEED_GT}, {"Seq01": SEED_PRED})
    assert res.scores["mean_jaccard"] == pytest.approx(0.59, abs=1e-12)
    assert res.scores["jaccard_Walk"] == pytest.approx(0.72, abs=1e-12)
    assert res.scores["jaccard_Fight"] == pytest.approx(0.46, abs=1e-12)
    assert "jaccard_Wave" not in res.scores           # no ground truth has it: not written


# ---------------------------------------------------------------- frames
def test_exclusive_end_start_equal_end_marks_nothing():
    m = frame_masks([0, 0], [5, 8], [5, 8], 1, 10)
    assert not m.any()
    m = frame_masks([0], [5], [6], 1, 10)              # marks frame 5 only
    assert np.flatnonzero(m[0]).tolist() == [4]
    m = frame_masks([0], [7], [3], 1, 10)              # end before start: nothing, as the numpy slice
    assert not m.any()


def test_exclusive_end_changes_the_score(tmp_path):
    # GT frames 1..10, prediction 10..19: one frame in common (frame 10), union 19 frames
    res = run(tmp_path, {"Seq01": "1,1,11"}, {"Seq01": "1,10,20"})
    assert res.scores["mean_jaccard"] == pytest.approx(1 / 19)
    # touching intervals share no frame: GT 1..10, prediction 11..20
    res = run(tmp_path / "b", {"Seq01": "1,1,11"}, {"Seq01": "1,11,21"})
    assert res.scores["mean_jaccard"] == 0.0


def test_intervals_clipped_to_sequence_length(tmp_path):
    m = frame_masks([0], [95], [200], 1, 100)
    assert np.flatnonzero(m[0]).tolist() == [94, 95, 96, 97, 98, 99]   # frames 95..100
    # prediction overshooting the end counts only inside the sequence: GT 91..100, pred 96..(250)
    res = run(tmp_path, {"Seq01": "2,91,101"}, {"Seq01": "2,96,250"})
    assert res.scores["mean_jaccard"] == pytest.approx(5 / 10)


def test_same_action_intervals_are_ored():
    m = frame_masks([0, 0, 0], [1, 3, 3], [5, 8, 8], 1, 10)
    assert m[0].sum() == 7                              # frames 1..7 once, overlaps and repeats count once


# ---------------------------------------------------------------- the 2014 rule
def test_false_positive_category_is_ignored_2014_rule(tmp_path):
    # walk predicted perfectly, plus a fight that the ground truth does not have: the code ignores it (1.0),
    # the prose would count fight as J = 0 (0.5)
    res = run(tmp_path, {"Seq01": "6,1,41"}, {"Seq01": "6,1,41\n11,1,100"})
    assert res.scores["mean_jaccard"] == 1.0
    assert "jaccard_Fight" not in res.scores
    assert any("absent from their sequence's ground truth" in n for n in res.notes)


def test_sequence_score_is_mean_over_gt_actions_and_overall_mean_over_sequences(tmp_path):
    # Seq01: walk 1.0, wave 0.0 -> 0.5; Seq02: walk 0.5 -> 0.5 ... overall (0.5 + 0.5) / 2
    res = run(tmp_path, {"Seq01": "6,1,11\n1,20,30", "Seq02": "6,1,11"},
              {"Seq01": "6,1,11", "Seq02": "6,1,6"})
    assert res.scores["mean_jaccard"] == pytest.approx(0.5)
    assert res.scores["jaccard_Walk"] == pytest.approx(0.75)   # mean over the two sequences that have walk
    assert res.scores["jaccard_Wave"] == 0.0


def test_empty_gt_category_with_empty_prediction_is_nan_in_original_zero_here(tmp_path):
    # wave starts after the last frame: its clipped GT is empty; no wave predicted -> 0/0 in the original
    actions, j, flagged, score = jaccard_2014([6, 1], [1, 150], [11, 160], [6], [1], [11], 100)
    assert j.tolist() == [0.0, 1.0] and flagged.tolist() == [True, False] and score == 0.5
    res = run(tmp_path, {"Seq01": "6,1,11\n1,150,160"}, {"Seq01": "6,1,11"})
    assert res.scores["mean_jaccard"] == 0.5
    # counted, not named: which action of which sequence is a fact of the hidden ground truth
    assert [w for w in res.warnings if "NaN" in w] == [
        "1 (sequence, action) case(s): a ground-truth action whose clipped intervals are empty, with an empty "
        "prediction; the original returns NaN there; counted as J = 0 here."]
    assert not any("Wave" in w or "Seq01" in w for w in res.warnings)


# ---------------------------------------------------------------- 3 vs 4 columns
def test_four_column_prediction_against_three_column_gt_drops_actor(tmp_path):
    three = run(tmp_path / "a", {"Seq01": SEED_GT}, {"Seq01": SEED_PRED})
    four = run(tmp_path / "b", {"Seq01": SEED_GT}, {"Seq01": "2,6,5,51\n1,11,31,54"})
    assert four.scores == three.scores
    assert four.scores["mean_jaccard"] == pytest.approx(0.59)


def test_three_column_prediction_against_four_column_gt_drops_the_gt_actors(tmp_path):
    # actor 1 walks 1..50, actor 2 walks 51..100 (4 columns); a 3-column prediction walks 1..100: the GT's actor
    # column is dropped, walk = frames 1..100 on both sides -> J = 1 (actor-aware, a 4-column row "1,6,1,101"
    # would score (50/100 + 0) / 2 = 0.25: test_actor_aware_rule_scores_each_actor_separately)
    res = run(tmp_path / "a", {"Seq01": "1,6,1,51\n2,6,51,101"}, {"Seq01": "6,1,101"})
    assert res.scores == {"mean_jaccard": 1.0, "jaccard_Walk": 1.0}
    # walk 1..50 predicted: 50 common / 100 union; a predicted action absent from the GT (clap) is ignored
    res = run(tmp_path / "b", {"Seq01": "1,6,1,51\n2,6,51,101"}, {"Seq01": "6,1,51\n3,1,100"})
    assert res.scores == {"mean_jaccard": 0.5, "jaccard_Walk": 0.5}
    assert res.warnings == []


def test_mixed_layouts_in_one_file_is_an_error():
    with pytest.raises(SubmissionError) as e:
        parse_intervals(b"6,1,41\n1,11,31,54", "p.csv")
    assert "line 2" in str(e.value) and "expected 3 comma-separated fields" in str(e.value)


# ---------------------------------------------------------------- the actor-aware rule
def test_actor_aware_rule_scores_each_actor_separately(tmp_path):
    # actor 1 walks 1..50, actor 2 walks 51..100; the prediction gives all 100 frames to actor 1:
    # actor 1 J = 50/100, actor 2 J = 0 -> 0.25 (the 2014 rule, actors merged, would give 1.0)
    res = run(tmp_path / "a", {"Seq01": "1,6,1,51\n2,6,51,101"}, {"Seq01": "1,6,1,101"})
    assert res.scores["mean_jaccard"] == pytest.approx(0.25)
    merged = run(tmp_path / "b", {"Seq01": "6,1,51\n6,51,101"}, {"Seq01": "1,6,1,101"})
    assert merged.scores["mean_jaccard"] == 1.0


def test_actor_aware_rule_skips_pairs_with_empty_union():
    # actor 2's kiss lies beyond the 100 frames and nobody predicts it: skipped, not 0
    actors, actions, j, skipped, score = jaccard_actor([1, 2], [6, 10], [1, 150], [41, 160], [1], [6], [1], [21],
                                                       100)
    assert actors.tolist() == [1, 2] and actions.tolist() == [6, 10]
    assert skipped.tolist() == [False, True]
    assert j[0] == 0.5 and np.isnan(j[1])
    assert score == 0.5


def test_actor_aware_rule_ignores_pairs_absent_from_gt():
    # actor 2 walking is not in the ground truth: ignored like a 2014 false-positive category
    _, _, j, _, score = jaccard_actor([1], [6], [1], [41], [1, 2], [6, 6], [1, 1], [41, 100], 100)
    assert j.tolist() == [1.0] and score == 1.0


# ---------------------------------------------------------------- missing and empty files
def test_missing_prediction_file_scores_zero_and_is_listed(tmp_path):
    res = run(tmp_path, {"Seq01": "6,1,41", "Seq02": "6,1,41"}, {"Seq01": "6,1,41", "Seq02": None})
    assert res.scores["mean_jaccard"] == 0.5
    assert any("without a prediction file" in n and "Seq02" in n for n in res.notes)


def test_empty_prediction_file_scores_zero(tmp_path):
    res = run(tmp_path, {"Seq01": "6,1,41", "Seq02": "6,1,41"}, {"Seq01": "6,1,41", "Seq02": ""})
    assert res.scores["mean_jaccard"] == 0.5
    assert any("empty prediction file" in n and "Seq02_prediction.csv" in n for n in res.notes)


# ---------------------------------------------------------------- files for sequences not in the ground truth
# issue 10: evalAction opens <seq>_prediction.csv for each ground-truth sequence only; any other file is never read.
# Seq01: walk 1..40, predicted 1..20 -> J = 20 / 40 = 0.5; Seq02: walk 1..10, predicted exactly -> J = 1.0.
# mean_jaccard = (0.5 + 1.0) / 2 = 0.75; jaccard_Walk = the same two values' mean = 0.75.
TWO_GT = {"Seq01": "6,1,41", "Seq02": "6,1,11"}
TWO_PRED = {"Seq01": "6,1,21", "Seq02": "6,1,11"}
IGNORED_1 = ("1 prediction file(s) for sequences not in the ground truth were ignored (the original never reads "
             "them; sequence names are matched exactly, case included), first: Seq07_prediction.csv")


def test_file_for_sequence_not_in_ground_truth_is_ignored_with_a_warning(tmp_path):
    base = run(tmp_path / "a", TWO_GT, TWO_PRED)
    assert base.scores["mean_jaccard"] == 0.75 and base.scores["jaccard_Walk"] == 0.75
    assert base.warnings == []
    extra = run(tmp_path / "b", TWO_GT, dict(TWO_PRED, Seq07="6,1,41"))
    assert extra.scores == base.scores                     # exactly, every column
    assert extra.warnings == [IGNORED_1]
    assert not any("Seq01" in w or "Seq02" in w for w in extra.warnings)   # nothing about the ground truth


def test_file_for_sequence_not_in_ground_truth_is_ignored_by_score_py(tmp_path):
    # the same through the worker's command line: exit 0, the warning on stderr, the same scores.txt
    for name, pred in (("base", TWO_PRED), ("extra", dict(TWO_PRED, Seq07="6,1,41"))):
        ref, res = tmp_path / name / "ref", tmp_path / name / "res"
        for seq, text in TWO_GT.items():
            write(ref / ("%s_labels.csv" % seq), text)
            write(ref / ("%s_data.csv" % seq), "100,20,2000\n")
        for seq, text in pred.items():
            write(res / ("%s_prediction.csv" % seq), text)
    proc, out = run_score(SLUG, tmp_path / "base" / "ref", tmp_path / "base" / "res", tmp_path, "cli_base")
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr
    proc_x, out_x = run_score(SLUG, tmp_path / "extra" / "ref", tmp_path / "extra" / "res", tmp_path, "cli_extra")
    assert proc_x.returncode == 0, proc_x.stderr
    assert "warning: " + IGNORED_1 in proc_x.stderr.splitlines()
    assert read_scores(out_x) == read_scores(out)
    assert read_scores(out_x)["mean_jaccard"] == 0.75


def test_file_for_sequence_not_in_ground_truth_is_not_even_read(tmp_path):
    # semicolons, a blank line, zero frames, a non-UTF-8 byte: an error in a ground-truth sequence's file
    garbage = b"garbage;;\n\n0,0,0,0,0\n\xff\xfe\x00"
    os.makedirs(str(tmp_path / "res"))
    with open(str(tmp_path / "res" / "Seq07_prediction.csv"), "wb") as f:
        f.write(garbage)
    res = run(tmp_path, TWO_GT, TWO_PRED)
    assert res.scores["mean_jaccard"] == 0.75 and res.scores["jaccard_Walk"] == 0.75
    assert res.warnings == [IGNORED_1]
    with pytest.raises(SubmissionError):                   # the same bytes as Seq01's file: an error
        os.makedirs(str(tmp_path / "b" / "res"))
        with open(str(tmp_path / "b" / "res" / "Seq01_prediction.csv"), "wb") as f:
            f.write(garbage)
        run(tmp_path / "b", TWO_GT, {"Seq02": TWO_PRED["Seq02"]})


def test_two_files_for_sequences_not_in_ground_truth_count_two_first_in_name_order(tmp_path):
    res = run(tmp_path, TWO_GT, dict(TWO_PRED, Seq99="6,1,41", Seq07="not a row"))
    assert res.scores["mean_jaccard"] == 0.75 and res.scores["jaccard_Walk"] == 0.75
    assert len(res.warnings) == 1
    assert res.warnings[0].startswith("2 prediction file(s) for sequences not in the ground truth were ignored")
    assert res.warnings[0].endswith("first: Seq07_prediction.csv")


def test_sequence_names_are_matched_exactly_lowercase_file_is_ignored(tmp_path):
    # seq02_prediction.csv is not Seq02's file (evalAction opens Seq02_prediction.csv): ignored, Seq02 scores 0
    # -> (0.5 + 0) / 2 = 0.25
    res = run(tmp_path, TWO_GT, {"Seq01": "6,1,21", "seq02": "6,1,11"})
    assert res.scores["mean_jaccard"] == 0.25
    assert len(res.warnings) == 2       # issue 23: validate's line first, with its hint
    assert res.warnings[0] == "seq02_prediction.csv will be ignored: no sequence 'seq02' (did you mean 'Seq02'?)"
    assert res.warnings[1].startswith("1 prediction file(s)")
    assert res.warnings[1].endswith("first: seq02_prediction.csv")
    assert any("without a prediction file" in n and "Seq02" in n for n in res.notes)


def test_no_prediction_file_of_a_ground_truth_sequence_is_an_error(tmp_path):
    with pytest.raises(SubmissionError) as e:
        run(tmp_path / "a", TWO_GT, {"Seq07": "6,1,41", "Seq99": "6,1,41"})
    msg = str(e.value)
    assert "Seq07_prediction.csv" in msg and "found 2 prediction file(s), none for a sequence of the ground " \
        "truth" in msg
    assert "Seq01" not in msg and "Seq02" not in msg
    with pytest.raises(SubmissionError) as e:
        run(tmp_path / "b", TWO_GT, {})
    assert "expected files named SeqXX_prediction.csv; found none" in str(e.value)


def test_kit_sample_unknown_sequence_scores_as_seq01_alone(tmp_path, root):
    # the former malformed/unknown_sequence: Seq01 is the seed's example (0.59), the 5 other sequences score 0
    kit = os.path.join(root, "starting_kit", SLUG, "submissions", "unknown_sequence")
    assert sorted(os.listdir(kit)) == ["Seq01_prediction.csv", "Seq99_prediction.csv"]
    ref = os.path.join(root, "reference_data", SLUG)
    proc, out = run_score(SLUG, ref, kit, tmp_path, "with")
    assert proc.returncode == 0, proc.stderr
    assert "warning: 1 prediction file(s) for sequences not in the ground truth were ignored" in proc.stderr
    alone = tmp_path / "alone"
    write(alone / "Seq01_prediction.csv", open(os.path.join(kit, "Seq01_prediction.csv")).read())
    proc_a, out_a = run_score(SLUG, ref, alone, tmp_path, "without")
    assert proc_a.returncode == 0, proc_a.stderr
    assert read_scores(out) == read_scores(out_a)
    assert read_scores(out)["mean_jaccard"] == pytest.approx(0.59 / 6, abs=1e-6)


def test_validate_with_ids_ignores_other_sequences_without_it_checks_them(tmp_path):
    write(tmp_path / "Seq01_prediction.csv", "6,1,41")
    write(tmp_path / "Seq07_prediction.csv", "garbage\n\n")
    notes = TASK.validate(Submission(str(tmp_path)), ids=np.array([b"Seq01", b"Seq02"]))
    assert notes[0] == "1 prediction file(s)"
    assert notes[-1] == "warning: Seq07_prediction.csv will be ignored: no sequence 'Seq07' in the --ids list"
    with pytest.raises(SubmissionError) as e:              # without ids every prediction file is checked
        TASK.validate(Submission(str(tmp_path)))
    assert "Seq07_prediction.csv" in str(e.value)
    with pytest.raises(SubmissionError) as e:
        TASK.validate(Submission(str(tmp_path)), ids=np.array([b"Seq05"]))
    assert "none for a sequence of the --ids list" in str(e.value)


def test_predictions_alias_name_accepted_prediction_wins(tmp_path):
    ref, res = tmp_path / "ref", tmp_path / "res"
    write(ref / "Seq01_labels.csv", "6,1,41")
    write(ref / "Seq01_data.csv", "100,20,2000\n")
    write(res / "Seq01_predictions.csv", "6,1,41")
    assert TASK.score(str(ref), Submission(str(res))).scores["mean_jaccard"] == 1.0
    write(res / "Seq01_prediction.csv", "6,1,21")
    assert TASK.score(str(ref), Submission(str(res))).scores["mean_jaccard"] == 0.5


# ---------------------------------------------------------------- syntax
@pytest.mark.parametrize("data,line,text", [
    (b"6,1,41\n\n11,31,61", 2, "found a blank line"),
    (b"6,1,41\n11,31,61\n\n", 3, "found a blank line"),
    (b"6,1,41\n11,3x,61", 2, "expected an integer for the start frame"),
    (b"6,1,41\n11,31,61.0", 2, "expected an integer for the end frame"),
    (b"0,1,41", 1, "expected an action id 1..11"),
    (b"12,1,41", 1, "expected an action id 1..11"),
    (b"3,6,1,41", 1, "expected an actor id 1 or 2"),
    (b"6,1", 1, "expected 3 or 4 comma-separated fields"),
    (b"6,-4,41", 1, "expected a start frame >= 1"),
    (b"6,4,0", 1, "expected an end frame >= 1"),
])
def test_malformed_rows_name_file_and_line(data, line, text):
    with pytest.raises(SubmissionError) as e:
        parse_intervals(data, "Seq01_prediction.csv")
    msg = str(e.value)
    assert "Seq01_prediction.csv" in msg and ("line %d" % line) in msg and text in msg


def test_frame_count_is_first_column_of_last_row(tmp_path):
    write(tmp_path / "d.csv", "999,1,1\n250,20,2000\n")
    assert read_frame_count(str(tmp_path / "d.csv"), "d.csv") == 250


def test_missing_data_file_is_a_reference_error(tmp_path):
    write(tmp_path / "ref" / "Seq01_labels.csv", "6,1,41")
    write(tmp_path / "res" / "Seq01_prediction.csv", "6,1,41")
    with pytest.raises(ReferenceDataError):
        TASK.score(str(tmp_path / "ref"), Submission(str(tmp_path / "res")))


def test_validate_accepts_kit_sample_and_rejects_blank_line(tmp_path, root):
    notes = TASK.validate(Submission(os.path.join(root, "starting_kit", "chalearn-lap2014-action", "submissions",
                                                  "random")))
    assert notes[0] == "5 prediction file(s)"
    write(tmp_path / "Seq01_prediction.csv", "6,1,41\n\n")
    with pytest.raises(SubmissionError):
        TASK.validate(Submission(str(tmp_path)))


# ---------------------------------------------------------------- properties and oracle
def naive_jaccard_2014(gt, pred, n):
    """The original's loop, literally: binary vectors filled with numpy slices [s-1:e-1]."""
    out = []
    for a in sorted(set(r[0] for r in gt)):
        g = np.zeros(n)
        p = np.zeros(n)
        for r in gt:
            if r[0] == a:
                g[r[1] - 1:r[2] - 1] = 1
        for r in pred:
            if r[0] == a:
                p[r[1] - 1:r[2] - 1] = 1
        u = np.sum((g + p) > 0)
        out.append(np.sum(g * p) / u if u else 0.0)
    return float(np.mean(out)) if out else 0.0


rows = st.lists(st.tuples(st.integers(1, 4), st.integers(1, 70), st.integers(1, 80)), min_size=0, max_size=8)


@settings(max_examples=150, deadline=None)
@given(gt=rows, pred=rows, n=st.integers(1, 60))
def test_matches_the_original_slice_loop(gt, pred, n):
    g = np.array(gt, dtype=np.int64).reshape(-1, 3)
    p = np.array(pred, dtype=np.int64).reshape(-1, 3)
    _, j, _, score = jaccard_2014(g[:, 0], g[:, 1], g[:, 2], p[:, 0], p[:, 1], p[:, 2], n)
    assert score == pytest.approx(naive_jaccard_2014(gt, pred, n), abs=1e-12)
    assert ((j >= 0) & (j <= 1)).all()


@settings(max_examples=60, deadline=None)
@given(gt=rows, n=st.integers(1, 60))
def test_perfect_prediction_scores_one_unless_gt_empty(gt, n):
    g = np.array(gt, dtype=np.int64).reshape(-1, 3)
    _, j, flagged, _ = jaccard_2014(g[:, 0], g[:, 1], g[:, 2], g[:, 0], g[:, 1], g[:, 2], n)
    assert (j[~flagged] == 1.0).all() and (j[flagged] == 0.0).all()


@settings(max_examples=60, deadline=None)
@given(gt=rows, pred=rows, n=st.integers(1, 60))
def test_frame_errors_add_up_to_the_metric_union_and_pairs_share_frames(gt, pred, n):
    g = np.array(gt, dtype=np.int64).reshape(-1, 3)
    p = np.array(pred, dtype=np.int64).reshape(-1, 3)
    args = (g[:, 0], g[:, 1], g[:, 2], p[:, 0], p[:, 1], p[:, 2], n)
    keys, inter, union = interval_jaccard(*args)
    _, gm, pm = key_masks(*args)
    gt_frames, pr_frames, common = frame_errors(gm, pm)
    assert (common == inter).all() and (gt_frames + pr_frames - common == union).all()
    # every matched pair shares a frame of one row, and every GT/prediction run overlap is a pair
    row, start, end = matched_offsets(gm, pm)
    gs, ge = mask_runs(gm)
    ps, pe = mask_runs(pm)
    brute = sorted((int(a), int(c) - int(a), int(d) - int(b)) for a, b in zip(gs, ge) for c, d in zip(ps, pe)
                   if c < b and d > a)
    width = n + 2
    assert len(brute) == row.size
    assert sorted((int(r), int(s_), int(e)) for r, s_, e in zip(row, start, end)) == sorted(
        (a // width, so, eo) for a, so, eo in brute)


def test_ground_truth_facts_in_warnings_are_counts_not_names(tmp_path):
    """A sequence with nothing to score, and actor-aware pairs with an empty union, are facts of the hidden ground
    truth: the participant sees how many, never which (issue 12)."""
    res = run(tmp_path, {"Seq01": "6,1,11", "Seq02": "", "Seq03": "1,6,1,11\n2,6,150,160"},
              {"Seq01": "6,1,11", "Seq02": "6,1,11", "Seq03": "1,6,1,11"})
    assert res.scores["mean_jaccard"] == pytest.approx((1.0 + 0.0 + 1.0) / 3)
    assert "1 sequence(s) with nothing to score (no ground-truth frame), counted 0." in res.warnings
    assert ("1 (actor, action) pair(s) of actor-aware sequences have an empty union and were skipped, as the "
            "original skips them.") in res.notes
    seen = " ".join(res.warnings + res.notes)
    assert "Seq02" not in seen and "Seq03" not in seen


# ---------------------------------------------------------------- where the points were lost (issue 12)
def lost_blocks(res):
    blocks = [s for s in res.sections if s.title == LOST][0].blocks
    return ([b for b in blocks if isinstance(b, Bars)], [b for b in blocks if isinstance(b, Table)][0],
            [b for b in blocks if isinstance(b, Histogram)])


def test_seed_figure_frames_missed_and_outside():
    # walk: GT 1..40 (40 frames), pred 5..50 (46): 36 common, 4 missed (1..4), 10 outside (41..50); J = 36/50
    # fight: GT 31..60 and 71..90 (50), pred 31..53 (23): 23 common, 27 missed, 0 outside; J = 23/50
    keys, gt, pr = key_masks([6, 11, 11], [1, 31, 71], [41, 61, 91], [6, 11], [5, 31], [51, 54], 100)
    gt_frames, pr_frames, common = frame_errors(gt, pr)
    assert keys.tolist() == [6, 11]
    assert gt_frames.tolist() == [40, 50] and pr_frames.tolist() == [46, 23] and common.tolist() == [36, 23]
    union = gt_frames + pr_frames - common                      # the metric's union: 50 and 50
    assert (common / union).tolist() == pytest.approx([0.72, 0.46], abs=1e-12)


def test_seed_figure_offsets_of_matched_intervals():
    # walk: GT [1, 41) and pred [5, 51): start +4, end +10. fight: GT [31, 61) and pred [31, 54) share frames 31..53:
    # start 0, end -7; GT [71, 91) overlaps no prediction: not matched
    _, gt, pr = key_masks([6, 11, 11], [1, 31, 71], [41, 61, 91], [6, 11], [5, 31], [51, 54], 100)
    row, start, end = matched_offsets(gt, pr)
    assert row.tolist() == [0, 1] and start.tolist() == [4, 0] and end.tolist() == [10, -7]


def test_seed_figure_in_the_report(tmp_path):
    res = run(tmp_path, {"Seq01": SEED_GT}, {"Seq01": SEED_PRED})
    (missed, outside), table, (hstart, hend) = lost_blocks(res)
    assert dict(zip(missed.labels, missed.values)) == {"Walk": 4 / 40, "Fight": 27 / 50}
    assert dict(zip(outside.labels, outside.values)) == {"Walk": 10 / 46, "Fight": 0.0}
    assert table.rows == [["Walk", 40, 4, 0.1, 46, 10, 10 / 46, 1], ["Fight", 50, 27, 0.54, 23, 0, 0.0, 1]]
    # start offsets 4 and 0 both fall in the bin [0, 5); end offsets 10 in [10, 15), -7 in [-10, -5)
    assert hstart.edges == OFFSET_EDGES.tolist() and hstart.edges[12:14] == [0, 5]
    assert hstart.counts == [0] * 12 + [2] + [0] * 11
    assert hend.counts == [0] * 10 + [1, 0, 0, 0, 1] + [0] * 9
    assert [b.title for b in res.bars] == ["Mean Jaccard per action (jaccard_<Action>)"]
    assert dict(zip(res.bars[0].labels, res.bars[0].values)) == pytest.approx({"Walk": 0.72, "Fight": 0.46})


def test_touching_rows_are_one_interval_and_one_gt_interval_can_match_two_predictions():
    # GT rows [10, 20) and [20, 30) of one action touch: one interval, frames 10..29. Prediction [5, 12) and
    # [15, 40), the latter clipped to the 35 frames of the sequence: [15, 36). Two pairs: start 5-10 = -5, end
    # 12-30 = -18; start 15-10 = +5, end 36-30 = +6. The other action's prediction [10, 30) matches nothing: its
    # GT is elsewhere ([1, 5)); its missed frames are 4 and outside frames 20
    _, gt, pr = key_masks([1, 1, 2], [10, 20, 1], [20, 30, 5], [1, 1, 2], [5, 15, 10], [12, 40, 30], 35)
    starts, ends = mask_runs(gt)
    assert (ends - starts).tolist() == [20, 4]                  # 2 GT intervals, not 3
    row, start, end = matched_offsets(gt, pr)
    assert row.tolist() == [0, 0] and start.tolist() == [-5, 5] and end.tolist() == [-18, 6]
    gt_frames, pr_frames, common = frame_errors(gt, pr)
    assert gt_frames.tolist() == [20, 4] and pr_frames.tolist() == [7 + 21, 20] and common.tolist() == [2 + 15, 0]


def test_no_interval_no_pair():
    _, gt, pr = key_masks([1], [5], [5], [1], [1], [3], 10)       # GT marks nothing
    assert [v.tolist() for v in matched_offsets(gt, pr)] == [[], [], []]
    _, gt, pr = key_masks([], [], [], [1], [1], [3], 10)          # no GT row at all
    assert gt.shape == (0, 10) and [v.size for v in matched_offsets(gt, pr)] == [0, 0, 0]


def test_actor_aware_intervals_match_only_within_one_actor(tmp_path):
    # Point (2): actor 1 GT frames 10..19, actor 2 GT 30..39; the prediction puts actor 2 at 10..19. No pair
    # matches (actor 2's prediction overlaps actor 1's GT only); Point pooled: 20 GT frames, all missed, 10
    # predicted frames, all outside
    gk = actor_action_keys([1, 2], [2, 2], 11)
    _, gt, pr = key_masks(gk, [10, 30], [20, 40], actor_action_keys([2], [2], 11), [10], [20], 100)
    assert matched_offsets(gt, pr)[0].size == 0
    res = run(tmp_path, {"Seq01": "1,2,10,20\n2,2,30,40"}, {"Seq01": "2,2,10,20"})
    (missed, outside), table, (hstart, _) = lost_blocks(res)
    assert table.rows == [["Point", 20, 20, 1.0, 10, 10, 1.0, 0]]
    assert sum(hstart.counts) == 0


def test_missing_prediction_file_misses_every_frame_and_predictions_for_other_actions_are_ignored(tmp_path):
    # Seq01: Walk 1..40 predicted exactly, plus Wave 1..50 (not in Seq01's GT: ignored, as by the metric).
    # Seq02: no file, Walk 1..10 all missed
    res = run(tmp_path, {"Seq01": "6,1,41", "Seq02": "6,1,11"}, {"Seq01": "6,1,41\n1,1,51", "Seq02": None})
    _, table, (hstart, hend) = lost_blocks(res)
    assert table.rows == [["Walk", 50, 10, 0.2, 40, 0, 0.0, 1]]
    assert hstart.counts[12] == 1 and hend.counts[12] == 1 and sum(hstart.counts) == 1


def test_offsets_beyond_the_bins_count_in_the_outer_bins(tmp_path):
    # GT 100..199 of 300 frames, prediction 20..279: start -80, end +80
    res = run(tmp_path, {"Seq01": "6,100,200"}, {"Seq01": "6,20,280"}, nframes=300)
    _, _, (hstart, hend) = lost_blocks(res)
    assert hstart.counts[0] == 1 and hend.counts[-1] == 1


def test_private_tables_only_when_private(tmp_path):
    gt = {"Seq01": SEED_GT, "Seq02": "1,2,10,20\n2,2,30,40"}
    pred = {"Seq01": SEED_PRED, "Seq02": None}
    assert run(tmp_path, gt, pred).private == []
    res = run(tmp_path / "b", gt, pred, private=True)
    per_seq, per_row = res.private
    assert per_seq.title == "Per sequence"
    assert per_seq.rows == [["Seq01", pytest.approx(0.59), "2014 (3 columns)", 100, 3, 2, 0, "Seq01_prediction.csv"],
                            ["Seq02", 0.0, "actor-aware (4 columns)", 100, 2, 0, 0, "missing"]]
    assert per_row.rows == [["Seq01", "-", "Walk", 40, 46, 36, 4, 10, pytest.approx(0.72)],
                            ["Seq01", "-", "Fight", 50, 23, 23, 27, 0, pytest.approx(0.46)],
                            ["Seq02", 1, "Point", 10, 0, 0, 10, 0, 0.0],
                            ["Seq02", 2, "Point", 10, 0, 0, 10, 0, 0.0]]


def test_private_rows_say_skipped_and_nan_cases(tmp_path):
    # Seq01 (2014 rule): Walk's only row marks nothing and nothing is predicted: 0/0, NaN in the original.
    # Seq02 (actor-aware): actor 2's Walk row marks nothing, no prediction: empty union, skipped
    res = run(tmp_path, {"Seq01": "6,5,5\n1,1,11", "Seq02": "1,6,1,11\n2,6,50,50"},
              {"Seq01": "1,1,11", "Seq02": "1,6,1,11"}, private=True)
    js = [r[-1] for r in res.private[1].rows]
    assert js == [1.0, "0 (NaN in the original)", 1.0, "skipped (empty union)"]


def test_report_shows_no_per_sequence_fact_when_one_sequence_gains_an_action(tmp_path):
    # Seq03 gains a Kiss instance (Kiss is already in Seq04, so the set's actions stay the same): the old
    # per-sequence table showed 'Kiss' in Seq03's row; the organizer's private table still does
    def add_kiss(ref):
        with open(os.path.join(ref, "Seq03_labels.csv"), "a") as f:
            f.write("10,300,350\n")
    only_numbers_differ(SLUG, add_kiss, tmp_path)


def test_random_report_names_no_present_test_sequence(tmp_path):
    # the random submission has no Seq04 file: the notes may name it (the participant's own input lacks it)
    ids = sorted(n.split("_")[0] for n in os.listdir(os.path.join(ROOT, "reference_data", SLUG))
                 if n.endswith("_labels.csv") and not n.startswith("Seq04"))
    no_item_ids(SLUG, ids, tmp_path)


# ---------------------------------------------------------------- the ranking score on weighted sequences (issue 13)
def decomposed(tmp_path, gt, pred, nframes=100):
    """run() with decompose: (Result, Decomposition)."""
    result = run(tmp_path, gt, pred, nframes, decompose=True)
    return result, result.decomposition


def test_weighted_sequences_by_hand(tmp_path):
    # Seq01: walk GT 1..10, predicted 1..5: J = 5/10                                  -> sequence score 1/2
    # Seq02: GT actions 1, 2, 3 on frames 1..10; predicted 1 and 2 exactly: J 1, 1, 0 -> sequence score 2/3
    # Seq03: no prediction file                                                        -> 0
    # all weights 1: (1/2 + 2/3 + 0) / 3 = 7/18 (the official mean over sequences; pooling the 5 actions would
    # give (1/2 + 1 + 1 + 0 + 0) / 5 = 1/2 instead: evalAction weighs sequences, not actions)
    # weights (2, 1, 0): (2 * 1/2 + 2/3) / 3 = 5/9; (0, 3, 1): (3 * 2/3 + 0) / 4 = 1/2; (0, 0, 0): no sequence, NaN
    gt = {"Seq01": "1,1,11", "Seq02": "1,1,11\n2,1,11\n3,1,11", "Seq03": "4,1,11"}
    pred = {"Seq01": "1,1,6", "Seq02": "1,1,11\n2,1,11", "Seq03": None}
    result, d = decomposed(tmp_path, gt, pred)
    assert d.unit == "sequence" and d.items == ["Seq01", "Seq02", "Seq03"]
    assert result.scores["mean_jaccard"] == pytest.approx(7 / 18., abs=1e-15)
    got = d.score(np.array([[1., 1, 1], [2, 1, 0], [0, 3, 1], [0, 0, 0]]))
    assert got[:3] == pytest.approx([7 / 18., 5 / 9., 1 / 2.], abs=1e-15)
    assert np.isnan(got[3])


def test_weighted_actor_aware_sequence_pools_both_actors(tmp_path):
    # Seq01 (4 columns): actor 1 walk J 1, actor 2 walk J 0, actor 2 fight J 1/2: the sequence score is the mean
    # over the three pairs, 1/2 (not the mean of the actors' means, (1 + 1/4) / 2 = 5/8); Seq02 (3 columns)
    # scores 0. All weights 1: (1/2 + 0) / 2 = 1/4; weights (3, 1): (3 * 1/2 + 0) / 4 = 3/8
    gt = {"Seq01": "1,6,1,11\n2,6,1,11\n2,11,1,11", "Seq02": "1,1,11"}
    pred = {"Seq01": "1,6,1,11\n2,11,1,6", "Seq02": "2,1,11"}
    result, d = decomposed(tmp_path, gt, pred)
    assert result.scores["mean_jaccard"] == pytest.approx(1 / 4., abs=1e-15)
    assert d.score(np.array([[3., 1]]))[0] == pytest.approx(3 / 8., abs=1e-15)


def random_intervals(rng, nframes, actor_aware):
    rows = []
    for _ in range(rng.randint(0, 5)):
        s = rng.randint(1, nframes + 10)
        row = [rng.randint(1, 12), s, s + rng.randint(0, 40)]
        rows.append(([rng.randint(1, 3)] if actor_aware else []) + row)
    return "\n".join(",".join(map(str, r)) for r in rows)


@pytest.mark.parametrize("seed", range(4))
def test_weight_zero_is_the_sequence_removed_and_weight_two_its_copy(tmp_path, seed):
    """Against the scorer itself on edited references: weight 0 == the sequence (and its prediction) removed,
    weight 2 == the sequence scored twice (a copy under another name); 2014 and actor-aware sequences mixed."""
    rng = np.random.RandomState(seed)
    gt, pred, nframes = {}, {}, {}
    for k in range(6):
        seq = "Seq%02d" % (k + 1)
        nframes[seq] = int(rng.randint(20, 120))
        actor_aware = k % 3 == 2
        gt[seq] = random_intervals(rng, nframes[seq], actor_aware) or ("1,1,1,11" if actor_aware else "1,1,11")
        pred[seq] = None if rng.rand() < 0.2 else random_intervals(rng, nframes[seq], True)
    if all(p is None for p in pred.values()):
        pred["Seq01"] = "1,1,1,5"
    full, d = decomposed(tmp_path / "full", gt, pred, nframes)
    weights = np.ones((1, 6))
    drop, double = rng.choice(6, 2, replace=False)
    weights[0, drop] = 0
    weights[0, double] = 2
    edited_gt, edited_pred, edited_frames = dict(gt), dict(pred), dict(nframes)
    seq_drop, seq_double = d.items[drop], d.items[double]
    for m in (edited_gt, edited_pred, edited_frames):
        del m[seq_drop]
        m["Seq99"] = m[seq_double]
    if all(p is None for p in edited_pred.values()):
        pytest.skip("the edited submission has no prediction file (a submission error)")
    edited, _ = decomposed(tmp_path / "edited", edited_gt, edited_pred, edited_frames)
    assert abs(d.score(weights)[0] - edited.scores["mean_jaccard"]) <= 1e-12
    assert abs(d.score(np.ones((1, 6)))[0] - full.scores["mean_jaccard"]) <= 1e-12


# ---------------------------------------------------------------- a withheld sequence (issue 29)
def withheld_run(tmp_path, gt, pred, private, nframes=100):
    """run()'s reference as the whole one, Task.withhold of the `private` sequences plus WITHHELD (what the bundle
    uploads), and the submission scored against it: (Result, the withheld reference's folder)."""
    run(tmp_path, gt, pred, nframes)
    out = tmp_path / "public"
    out.mkdir()
    TASK.withhold(TASK.load_reference(str(tmp_path / "ref")), set(private), str(out))
    (out / "WITHHELD").write_text("".join(s + "\n" for s in sorted(private)))
    return TASK.score(str(out), Submission(str(tmp_path / "res"))), out


WITHHELD_GT = {"Seq01": SEED_GT,                     # walk 1..40, fight 31..60 and 71..90 (3 columns)
               "Seq02": "1,2,1,11\n2,2,5,15\n",      # point, by both actors (4 columns): withheld
               "Seq03": "3,1,11\n"}                  # clap 1..10


def test_a_withheld_sequence_keeps_its_frames_and_layout_and_scores_as_if_never_there(tmp_path):
    # Seq01: the seed's figure, walk 0.72, fight 0.46 -> 0.59; Seq03: clap 1..10 against 1..5 -> 5 / 10 = 0.5
    # Seq02 withheld (perfectly predicted: on the whole reference its 1 would count)
    # mean_jaccard = (0.59 + 0.5) / 2 = 0.545; jaccard_Walk 0.72, Fight 0.46, Clap 0.5; Point (Seq02's only) and
    # Wave (the placeholder row's) are no columns of the withheld reference
    pred = {"Seq01": SEED_PRED, "Seq02": "1,2,1,11\n2,2,5,15\n", "Seq03": "3,1,6\n"}
    result, out = withheld_run(tmp_path, WITHHELD_GT, pred, {"Seq02"}, nframes={"Seq01": 100, "Seq02": 80,
                                                                                 "Seq03": 100})
    assert result.scores == pytest.approx({"mean_jaccard": 0.545, "jaccard_Clap": 0.5, "jaccard_Walk": 0.72,
                                           "jaccard_Fight": 0.46}, abs=1e-12)
    assert (out / "Seq02_labels.csv").read_bytes() == b"1,1,1,1\n"      # 4 columns, no frame, no action of its own
    assert (out / "Seq02_data.csv").read_bytes() == b"80,20,2000\n"     # its frame count, byte for byte
    assert [k.key for k in TASK.score_keys(str(out))] == ["mean_jaccard", "jaccard_Clap", "jaccard_Walk",
                                                          "jaccard_Fight"]
    # the same as the cut reference, and a submission without the withheld sequence's file
    cut = run(tmp_path / "cut", {s: WITHHELD_GT[s] for s in ("Seq01", "Seq03")},
              {s: pred[s] for s in ("Seq01", "Seq03")})
    assert cut.scores == result.scores and cut.notes == result.notes and cut.warnings == result.warnings


def test_a_withheld_sequence_checks_a_prediction_as_the_whole_reference(tmp_path):
    # Seq02's ground truth has actor ids: 3-column rows are scored there on the actions alone (point: actor 1's
    # frames 1..10 OR actor 2's 5..14 = 14 frames; predicted 1..10: J = 10/14), withheld or not; an empty 3-column
    # withheld sequence (Seq03) accepts 3 or 4 columns, as its ground truth does
    pred = {"Seq01": SEED_PRED, "Seq02": "2,1,11\n"}
    result, _ = withheld_run(tmp_path / "a", WITHHELD_GT, pred, {"Seq02", "Seq03"})
    assert result.scores["mean_jaccard"] == pytest.approx(0.59, abs=1e-12)        # Seq01 alone
    whole = run(tmp_path / "whole", WITHHELD_GT, pred)
    assert whole.scores["mean_jaccard"] == pytest.approx((0.59 + 10 / 14 + 0) / 3, abs=1e-12)
    result, out = withheld_run(tmp_path / "b", WITHHELD_GT, {"Seq01": SEED_PRED, "Seq03": "1,3,1,6\n"},
                               {"Seq02", "Seq03"})
    assert (out / "Seq03_labels.csv").read_bytes() == b""
    assert result.scores["mean_jaccard"] == pytest.approx(0.59, abs=1e-12)        # Seq01 alone
