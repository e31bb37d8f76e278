"""kinetics-tps: hand-computed scenarios for every rule of issue 5, scipy as the assignment oracle, and a
loop-by-loop reference (written from the issue's rules) on random data."""
import json
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import linear_sum_assignment as scipy_lsa

from scoring_program.errors import SubmissionError
from scoring_program.formats.kinetics_tps import read_ground_truth, read_predictions
from scoring_program.metrics.assignment import linear_sum_assignment, linear_sum_assignment_batch
from scoring_program.metrics.psc import (area_left_riemann, iou_tps_float32, match_humans, ordered_group_sum,
                                         psc_accuracy_curve)
from scoring_program.tasks.base import Reference, no_progress
from scoring_program.tasks.kinetics_tps import KineticsSubmission, TASK

H = 100  # all human boxes in the matching scenarios are 100 px tall: IoU is the x-interval ratio


def hbox(x1, x2):
    return [x1, 0, x2, H - 1]


def run(tmp_path, gt_vid, gt_part, pred_vid, pred_part):
    (tmp_path / "v.json").write_text(json.dumps(gt_vid))
    (tmp_path / "p.json").write_text(json.dumps(gt_part))
    gt = read_ground_truth(str(tmp_path / "v.json"), str(tmp_path / "p.json"))
    pr = read_predictions(pred_vid, pred_part, gt, "pred_vid_result.json", "pred_part_result.json")
    submitted = KineticsSubmission(pr, "pred_vid_result.json", "pred_part_result.json")
    return TASK.evaluate(Reference(str(tmp_path), [], gt), submitted, no_progress, False)


def gpart(box, verb):
    return {"box": box, "verb": verb}


def ppart(boxes, verbs):
    return {"box": boxes, "verb": verbs}


# ---------------------------------------------------------------- assignment == scipy, ties included

def test_assignment_matches_scipy_on_a_constant_matrix():
    c = np.zeros((4, 4), dtype=np.float32)
    assert linear_sum_assignment(c, maximize=True)[1].tolist() == scipy_lsa(c, maximize=True)[1].tolist()


values = st.sampled_from([-1.0, 0.0, 0.0, 0.25, 0.5, 0.5, 0.6, 1.0, 0.33333334])


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 6), st.integers(0, 6), st.data())
def test_assignment_matches_scipy_with_ties_and_padding(n_gt, n_pred, data):
    """The official padded float32 IoU matrix (-1 disjoint, 0 padding), as `1 - M` and as maximize=True."""
    m = np.array(data.draw(st.lists(values, min_size=n_gt * n_pred, max_size=n_gt * n_pred)),
                 dtype=np.float32).reshape(n_gt, n_pred)
    n = max(n_gt, n_pred)
    pad = np.zeros((n, n), dtype=np.float32)
    pad[:n_gt, :n_pred] = m
    r1, c1 = scipy_lsa(pad, maximize=True)
    r2, c2 = linear_sum_assignment(pad, maximize=True)
    assert r1.tolist() == r2.tolist() and c1.tolist() == c2.tolist()
    cost = (1 - pad) if n_gt == n_pred else (1 - pad.astype(np.float64))
    assert scipy_lsa(cost)[1].tolist() == linear_sum_assignment_batch(cost[None])[0].tolist()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 5), st.integers(0, 5), st.data())
def test_assignment_matches_scipy_on_rectangles(nr, nc, data):
    c = np.array(data.draw(st.lists(st.integers(0, 3), min_size=nr * nc, max_size=nr * nc)),
                 dtype=np.float64).reshape(nr, nc)
    for mx in (False, True):
        a, b = scipy_lsa(c, maximize=mx), linear_sum_assignment(c, maximize=mx)
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


# ---------------------------------------------------------------- IoU conventions

def test_disjoint_boxes_get_minus_one_and_touching_pixels_overlap():
    a = np.array([[0, 0, 9, 9]])
    iou = iou_tps_float32(a, np.array([[10, 0, 19, 9], [9, 0, 18, 9], [0, 20, 9, 29]]))
    # [10..19] shares no pixel with [0..9] (iw = 0): -1; [9..18] shares one column: 10/190
    assert iou.dtype == np.float32
    assert iou[0].tolist() == [-1.0, np.float32(10 / 190), -1.0]


def test_human_match_is_strictly_above_half_in_float32():
    # exact IoU = 16777220/33554439 = 0.500000015 > 0.5, but the float32 arithmetic of the original gives 0.5
    gt = np.array([[0, 0, 16777219, 0]])           # 1 px tall
    pred = np.array([[0, 0, 33554438, 0]])
    inter, union = 16777220, 16777220 + 33554439 - 16777220
    assert inter / union > 0.5
    assert iou_tps_float32(gt, pred)[0, 0] == np.float32(0.5)
    matched, _ = match_humans(gt, [0], pred, [0], 1)
    assert matched.tolist() == [-1]
    matched, _ = match_humans([hbox(0, 99)], [0], [hbox(0, 98)], [0], 1)     # 0.99: a match
    assert matched.tolist() == [0]


def test_hungarian_choice_is_not_greedy():
    # IoU(A,P)=90/110=0.818 is the best pair, but A->Q (0.6) + B->P (0.6) = 1.2 beats A->P + B->Q (0.25)
    gt = [hbox(0, 99), hbox(35, 134)]               # A, B
    pred = [hbox(10, 109), hbox(-25, 74)]           # P, Q
    iou = iou_tps_float32(gt, pred)
    np.testing.assert_allclose(iou, [[90 / 110, 75 / 125], [75 / 125, 40 / 160]], rtol=1e-6)
    matched, _ = match_humans(gt, [0, 0], pred, [0, 0], 1)
    assert matched.tolist() == [1, 0]              # A <- Q, B <- P (greedy would give A <- P and leave B out)


def test_minus_one_for_disjoint_changes_the_assignment():
    # rows A, B; cols P, Q. A-P 0.818, A-Q 0.6, B-P 0.25, B-Q disjoint (-1).
    # with -1: A->P + B->Q = -0.18 < A->Q + B->P = 0.85, so A gets Q (with 0 for disjoint A would get P)
    gt = [hbox(0, 99), hbox(-75, 24)]
    pred = [hbox(-10, 89), hbox(25, 124)]
    iou = iou_tps_float32(gt, pred)
    assert iou[1, 1] == -1.0 and iou[0, 0] > iou[0, 1] > 0.5 and 0 < iou[1, 0] < 0.5
    matched, _ = match_humans(gt, [0, 0], pred, [0, 0], 1)
    assert matched.tolist() == [1, -1]
    m0 = np.where(iou < 0, 0, iou)
    assert scipy_lsa(m0, maximize=True)[1].tolist() == [0, 1]   # what 0 for disjoint would have chosen


# ---------------------------------------------------------------- parts and frames

def frame(humans):
    return {"humans": humans}


def one_video(tmp_path, gt_humans_by_frame, pred_humans_by_frame, cls="run", pred_cls="run"):
    gt_part = {"v": {f: frame(h) for f, h in gt_humans_by_frame.items()}}
    pred_part = {"v": {f: frame(h) for f, h in pred_humans_by_frame.items()}}
    return run(tmp_path, {"v": cls}, gt_part, {"v": pred_cls}, pred_part)


PBOX = [10, 10, 29, 29]


def test_part_iou_threshold_is_inclusive_at_three_tenths(tmp_path):
    # GT part 20x20 = 400 px; proposal [10,10,29,y2] sharing 20 x k rows: IoU = 20k / (400 + 20*20 - 20k)...
    # choose a proposal of the same width, shifted down: rows 10..29 vs 19..38 -> inter 11 rows = 220,
    # union 800 - 220 = 580 -> 0.379 (correct); a shift giving exactly 0.3: inter/union = 3/10 -> inter = 3/13*800
    # is not an integer, so use widths: GT 10x10 (100), proposal 10x16 (160) overlapping 6 rows (60):
    # 60 / (100 + 160 - 60) = 0.3 exactly
    gt_h = {"box": hbox(0, 99), "parts": {"arm": gpart([0, 0, 9, 9], "bend")}}
    pred = {"box": hbox(0, 99), "parts": {"arm": ppart([[0, 4, 9, 19]], ["bend"])}}
    r = one_video(tmp_path, {"f1": [gt_h]}, {"f1": [pred]})
    assert r.video_psc.tolist() == [1.0]
    pred["parts"]["arm"]["box"] = [[0, 5, 9, 20]]       # 5 rows: 50/210 < 0.3
    r = one_video(tmp_path, {"f1": [gt_h]}, {"f1": [pred]})
    assert r.video_psc.tolist() == [0.0]


def test_n_p_counts_verbs_and_shorter_box_list_is_legal(tmp_path):
    gt_h = {"box": hbox(0, 99), "parts": {"arm": gpart(PBOX, "bend")}}
    # 1 box, 4 verbs: the first proposal is right -> 1/4
    pred = {"box": hbox(0, 99), "parts": {"arm": ppart([PBOX], ["bend", "x", "y", "z"])}}
    assert one_video(tmp_path, {"f": [gt_h]}, {"f": [pred]}).video_psc.tolist() == [0.25]
    # the right state only on verb 2, which has no box -> not correct
    pred["parts"]["arm"] = ppart([PBOX], ["x", "bend"])
    assert one_video(tmp_path, {"f": [gt_h]}, {"f": [pred]}).video_psc.tolist() == [0.0]
    # state comparison is exact and case-sensitive
    pred["parts"]["arm"] = ppart([PBOX], ["Bend"])
    assert one_video(tmp_path, {"f": [gt_h]}, {"f": [pred]}).video_psc.tolist() == [0.0]
    # N_p = 0 (empty lists) gives 0
    pred["parts"]["arm"] = ppart([], [])
    assert one_video(tmp_path, {"f": [gt_h]}, {"f": [pred]}).video_psc.tolist() == [0.0]


def test_frame_psc_is_pooled_over_humans_not_averaged(tmp_path):
    # human 1: 1 part, correct; human 2: 3 parts, none correct -> pooled 1/4 (a mean of human means gives 1/2)
    g1 = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s")}}
    g2 = {"box": hbox(300, 399), "parts": {k: gpart(PBOX, "s") for k in ("a", "b", "c")}}
    p1 = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"]), "extra": ppart([PBOX], ["s"])}}
    p2 = {"box": hbox(300, 399), "parts": {}}
    r = one_video(tmp_path, {"f": [g1, g2]}, {"f": [p1, p2]})
    assert r.frame_psc.tolist() == [0.25] and r.video_psc.tolist() == [0.25]


def test_unmatched_human_scores_zero_but_counts_its_parts(tmp_path):
    g1 = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s")}}
    g2 = {"box": hbox(300, 399), "parts": {"a": gpart(PBOX, "s")}}
    p1 = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"])}}
    r = one_video(tmp_path, {"f": [g1, g2]}, {"f": [p1]})
    assert r.video_psc.tolist() == [0.5]


def test_frame_bookkeeping_quirks(tmp_path):
    g = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s")}}
    p = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"])}}
    nop = {"box": hbox(0, 99), "parts": {}}
    # f1 correct (1), f2 no GT humans (dropped), f3 missing from the prediction (0, counted)
    r = one_video(tmp_path, {"f1": [g], "f2": [], "f3": [g]}, {"f1": [p], "f2": [p]})
    assert r.video_psc.tolist() == [0.5]
    # f3 has humans without parts: predicted -> dropped; missing -> still counted as 0
    r = one_video(tmp_path, {"f1": [g], "f3": [nop]}, {"f1": [p], "f3": [p]})
    assert r.video_psc.tolist() == [1.0]
    r = one_video(tmp_path, {"f1": [g], "f3": [nop]}, {"f1": [p]})
    assert r.video_psc.tolist() == [0.5]


def test_video_without_counted_frame_has_psc_one(tmp_path):
    r = one_video(tmp_path, {"f1": [], "f2": []}, {})
    assert r.video_psc.tolist() == [1.0] and r.score == 0.9998999999999062
    r = one_video(tmp_path, {"f1": [], "f2": []}, {}, pred_cls="jump")
    assert r.score == 0.0 and r.top1 == 0.0 and r.mean_PSC == 1.0


# ---------------------------------------------------------------- thresholds and the area

def test_perfect_score_is_the_left_riemann_sum():
    t, acc = psc_accuracy_curve(np.ones(7), np.ones(7, bool))
    assert area_left_riemann(acc) == 0.9998999999999062


def test_threshold_is_inclusive_and_class_must_match():
    psc = np.array([0.5, 0.5, 0.2, 1.0])
    ok = np.array([True, True, True, False])
    t, acc = psc_accuracy_curve(psc, ok)
    assert acc[5000] == 0.5 and acc[5001] == 0.0 and acc[2000] == 0.75 and acc[0] == 0.75
    # area: 0.75 for t in 1..2000, 0.5 for 2001..5000, 0 after (each term 1e-4 * acc, added in order)
    s = 0
    for k in range(1, 10000):
        s += 1.0 / 10000 * acc[k]
    assert area_left_riemann(acc) == s
    assert abs(s - (2000 * 0.75 + 3000 * 0.5) / 10000) < 1e-12


def test_sums_follow_loop_order():
    vals = [0.2, 0.2, 0.2]
    assert ordered_group_sum(vals, [0, 0, 0], [0, 1, 2], 1)[0] == (0.2 + 0.2) + 0.2
    v = np.array([0.1, 0.7, 0.2, 0.3, 1 / 3, 1 / 3])
    g = np.array([1, 0, 1, 0, 1, 1])
    pos = np.array([0, 0, 1, 1, 2, 3])
    assert ordered_group_sum(v, g, pos, 2).tolist() == [0.7 + 0.3, ((0.1 + 0.2) + 1 / 3) + 1 / 3]


# ---------------------------------------------------------------- the official loops, restated, as an oracle

def oracle(gt_vid, gt_part, pred_vid, pred_part):
    def iou(a, b):
        iw = min(a[2], b[2]) - max(a[0], b[0]) + 1
        ih = min(a[3], b[3]) - max(a[1], b[1]) + 1
        if iw <= 0 or ih <= 0:
            return -1.0
        return iw * ih / float((a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - iw * ih)

    res = []
    for v in gt_vid:
        total, acc_sum = len(gt_part[v]), 0
        for f, fr in gt_part[v].items():
            gh = fr["humans"]
            if not gh:
                total -= 1
                continue
            if f not in pred_part[v]:
                continue
            ph = pred_part[v][f]["humans"]
            g32, p32 = np.float32([h["box"] for h in gh]), np.float32([h["box"] for h in ph])
            m = np.zeros((len(gh), len(ph)), dtype=np.float32)
            for i in range(len(gh)):
                for j in range(len(ph)):
                    m[i, j] = iou_tps_float32(g32[i:i + 1], p32[j:j + 1])[0, 0]
            if len(ph) > len(gh):
                m = np.concatenate([m, np.zeros((len(ph) - len(gh), len(ph)))], 0)
            if len(gh) > len(ph):
                m = np.concatenate([m, np.zeros((len(gh), len(gh) - len(ph)))], 1)
            rows, cols = scipy_lsa(1 - m)
            match = {r: c for r, c in zip(rows, cols) if c < len(ph) and r < len(gh) and m[r, c] > 0.5}
            count, fsum = 0, 0
            for i, h in enumerate(gh):
                count += len(h["parts"])
                hs = 0
                if i in match:
                    pp = ph[match[i]]["parts"]
                    for name, gp in h["parts"].items():
                        ok, n = 0, 0
                        if name in pp:
                            n = len(pp[name]["verb"])
                            for j, b in enumerate(pp[name]["box"]):
                                if iou(gp["box"], b) >= 0.3 and pp[name]["verb"][j] == gp["verb"]:
                                    ok = 1
                                    break
                        hs += 1.0 * ok / n if n > 0 else 0
                fsum += hs
            if count == 0:
                total -= 1
            else:
                acc_sum += 1.0 * fsum / count
        res.append((1.0 if total == 0 else 1.0 * acc_sum / total, gt_vid[v] == pred_vid[v]))
    area = 0
    for t in range(1, 10000):
        area += 1.0 / 10000 * (sum(1 for p, c in res if p >= t / 10000 and c) / len(res))
    return [p for p, _ in res], area


@pytest.mark.parametrize("seed", range(6))
def test_matches_the_loop_reference_on_random_data(tmp_path, seed):
    from bench.synth.kinetics_tps import make_gt, noisy
    gv, gp = make_gt(8, 4, (0, 3), (0, 4), seed=seed, quirks=True)
    pv, pp = noisy(gv, gp, seed=seed + 100, proposals=1 + seed % 3, p_missing=0.2, jitter=40)
    r = run(tmp_path, gv, gp, pv, pp)
    psc, area = oracle(gv, gp, pv, pp)
    assert r.video_psc.tolist() == psc
    assert r.score == area


# ---------------------------------------------------------------- crash-turned-errors

def test_structural_errors_name_video_and_frame(tmp_path):
    g = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s")}}
    bad = [({"box": hbox(0, 99)}, "'parts'"),
           ({"parts": {}}, "'box'"),
           ({"box": [0, 0, 9], "parts": {}}, "4 finite numbers"),
           ({"box": hbox(0, 99), "parts": {"a": ppart([PBOX] * 2, ["s"])}}, "no more boxes than verbs"),
           ({"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"] * 6)}}, "at most 5 proposals")]
    for human, text in bad:
        with pytest.raises(SubmissionError) as e:
            one_video(tmp_path, {"img_00001.json": [g]}, {"img_00001.json": [human]})
        assert text in str(e.value) and "'v'" in str(e.value) and "img_00001.json" in str(e.value)
    with pytest.raises(SubmissionError, match="at most 10 predicted humans"):
        one_video(tmp_path, {"f": [g]}, {"f": [{"box": hbox(0, 99), "parts": {}}] * 11})
    with pytest.raises(SubmissionError, match="'humans' list"):
        run(tmp_path, {"v": "c"}, {"v": {"f": frame([g])}}, {"v": "c"}, {"v": {"f": {}}})
    with pytest.raises(SubmissionError, match="video 'v' is missing"):
        run(tmp_path, {"v": "c"}, {"v": {"f": frame([g])}}, {"v": "c"}, {})
    with pytest.raises(SubmissionError, match="no predicted class"):
        run(tmp_path, {"v": "c"}, {"v": {"f": frame([g])}}, {}, {"v": {}})
    # every test video, even one whose frames have no humans (issue 20: the rule may not depend on the ground truth)
    with pytest.raises(SubmissionError, match="video 'v' is missing"):
        run(tmp_path, {"v": "c"}, {"v": {"f": frame([])}}, {"v": "c"}, {})
    assert run(tmp_path, {"v": "c"}, {"v": {"f": frame([])}}, {"v": "c"}, {"v": {}}).video_psc.tolist() == [1.0]


def test_invalid_json_names_line_and_column(tmp_path):
    from scoring_program.formats.kinetics_tps import load_json
    p = tmp_path / "x.json"
    p.write_text('{\n "a": 1\n "b": 2\n}\n')
    with pytest.raises(SubmissionError) as e:
        load_json(str(p), "pred_vid_result.json")
    assert "line 3" in str(e.value) and "column 2" in str(e.value)


def test_baseline_writes_a_valid_submission(tmp_path):
    import subprocess
    import sys
    from conftest import ROOT as root
    ref = os.path.join(root, "reference_data", "kinetics-tps")
    out = tmp_path / "res"
    subprocess.run([sys.executable, os.path.join(root, "starting_kit", "kinetics-tps", "baseline.py"),
                    os.path.join(ref, "gt_part_result.json"), str(out), "--class", "clapping"], check=True)
    from scoring_program.formats.files import Submission
    assert TASK.validate(Submission(str(out)))
    res = TASK.score(ref, Submission(str(out)))
    assert 0 <= res.scores["score"] < 1


# ---------------------------------------------------------------- the fast checks of the flattening pass

def test_box_values_are_checked_without_the_per_object_walk(tmp_path):
    g = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s")}}
    ok = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"])}}
    assert one_video(tmp_path, {"f": [g]}, {"f": [ok]}).video_psc.tolist() == [1.0]
    # true counts as 1 (Python arithmetic in the original): [10, 10, 29, 29] -> [1, 10, 29, 29], still IoU 0.5
    odd = {"box": hbox(0, 99), "parts": {"a": ppart([[True, 10, 29, 29]], ["s"])}}
    assert one_video(tmp_path, {"f": [g]}, {"f": [odd]}).video_psc.tolist() == [1.0]
    # finite numbers whose sum overflows a float are still numbers (an earlier version called this malformed)
    huge = {"box": hbox(0, 99), "parts": {"a": ppart([[1e308, 1e308, 1.5e308, 1.5e308]], ["s"])}}
    assert one_video(tmp_path, {"f": [g]}, {"f": [huge]}).video_psc.tolist() == [0.0]
    for box, text in [([["10", 10, 29, 29]], "box[0]"), ([[10, 10, 29, None]], "box[0]"),
                      ([PBOX, [1, 2, 3, 1e400]], "box[1]"), ([{"a": 1, "b": 2, "c": 3, "d": 4}], "box[0]"),
                      ("abcd", "box")]:
        bad = {"box": hbox(0, 99), "parts": {"a": ppart(box, ["s", "s"])}}
        with pytest.raises(SubmissionError, match="4 finite numbers|a list of boxes") as e:
            one_video(tmp_path, {"f": [g]}, {"f": [ok, bad]})
        assert "humans[1] > parts 'a' > " + text in str(e.value)


# ---------------------------------------------------------------- boxes of more than 4 numbers (issue 11)

def score_task(tmp_path, gt_humans_by_frame, pred_humans_by_frame):
    """TASK.score on files (the Result, with its warnings), for one video 'v' of class 'run'."""
    from scoring_program.formats.files import Submission
    ref, res = tmp_path / "ref", tmp_path / "res"
    for d in (ref, res):
        d.mkdir(parents=True, exist_ok=True)
    (ref / "gt_vid_result.json").write_text(json.dumps({"v": "run"}))
    (ref / "gt_part_result.json").write_text(json.dumps({"v": {f: frame(h) for f, h in gt_humans_by_frame.items()}}))
    (res / "pred_vid_result.json").write_text(json.dumps({"v": "run"}))
    (res / "pred_part_result.json").write_text(json.dumps({"v": {f: frame(h)
                                                                 for f, h in pred_humans_by_frame.items()}}))
    return TASK.score(str(ref), Submission(str(res)))


def test_box_of_five_numbers_scores_as_its_first_four(tmp_path):
    """eval_detection.py reads box[0] .. box[3] and never looks further: a fifth number (a confidence, say) is
    ignored. GT part [0,0,9,9] (100 px); proposal [0,4,9,19] (160 px) shares 60 px: IoU 60/200 = 0.3, correct
    (>= 0.3), so PSC 1 and the perfect score; with the fifth number read as y2 (or the last four read as the box)
    it would not be."""
    g = {"box": hbox(0, 99), "parts": {"a": gpart([0, 0, 9, 9], "s")}}
    four = {"box": hbox(0, 99), "parts": {"a": ppart([[0, 4, 9, 19]], ["s"])}}
    five = {"box": hbox(0, 99) + [0.97], "parts": {"a": ppart([[0, 4, 9, 19, 0.8]], ["s"])}}
    r4 = score_task(tmp_path / "four", {"f": [g]}, {"f": [four]})
    r5 = score_task(tmp_path / "five", {"f": [g]}, {"f": [five]})
    assert r4.scores == r5.scores
    assert r5.scores["score"] == 0.9998999999999062 and r5.scores["mean_PSC"] == 1.0
    assert r4.warnings == []
    assert r5.warnings == ["2 predicted box(es) have more than 4 numbers: only the first 4 (x1, y1, x2, y2) are "
                           "read, as the original does; the first: video 'v' > frame 'f' > humans[0] > box = "
                           "'[0, 0, 99, 99, 0.97]'"]
    # the same shift by one more row: 50/210 < 0.3 with or without the fifth number
    five["parts"]["a"]["box"] = [[0, 5, 9, 20, 0.8]]
    assert score_task(tmp_path / "five2", {"f": [g]}, {"f": [five]}).scores["mean_PSC"] == 0.0


def test_cut_box_warning_names_the_first_in_file_order(tmp_path):
    """The first long box is found from the flat arrays: past a frame without any, a part without boxes, and a
    4-number box of the same part; the count covers the whole file, evaluated or not (issue 20: a fact about the
    submission alone)."""
    g = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s")}}
    g2 = {"box": hbox(300, 399), "parts": {"a": gpart(PBOX, "s")}}
    ok = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"])}}
    first = {"box": hbox(0, 99), "parts": {"z": ppart([], []), "a": ppart([PBOX, PBOX + [5, 6]], ["x", "s"])}}
    later = {"box": hbox(300, 399) + [1], "parts": {"a": ppart([PBOX + [2]], ["s"])}}
    not_evaluated = {"box": hbox(0, 99) + [9], "parts": {}}
    r = score_task(tmp_path, {"f1": [g, g2], "f2": [g, g2]},
                   {"f1": [ok], "f2": [first, later], "extra": [not_evaluated]})
    assert len([w for w in r.warnings if "body part" not in w]) == 1    # issue 23: "z" is no part name
    assert r.warnings[0].startswith("4 predicted box(es) have more than 4 numbers")
    assert r.warnings[0].endswith("the first: video 'v' > frame 'f2' > humans[0] > parts 'a' > box[1] = "
                                  "'[10, 10, 29, 29, 5, 6]'")
    # f1: human 1 unmatched (1/2); f2: human 0 right on proposal 2 of 2 (1/2), human 1 right (1): 3/4
    assert r.scores["mean_PSC"] == (0.5 + 0.75) / 2


def test_box_rules_other_than_length_are_unchanged(tmp_path):
    g = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s")}}
    for box in ([0, 0, 9], [0, 0, 99, 99, "x"], [0, 0, 99, 99, None], [0, 0, 99, 99, 1e400], []):
        with pytest.raises(SubmissionError, match="4 finite numbers") as e:
            one_video(tmp_path, {"f": [g]}, {"f": [{"box": box, "parts": {}}]})
        assert "humans[0] > box" in str(e.value)
    # the ground truth stays strict: a reference box of 5 numbers is the organizer's error
    from scoring_program.errors import ReferenceDataError
    with pytest.raises(ReferenceDataError, match="4 finite numbers"):
        one_video(tmp_path, {"f": [{"box": hbox(0, 99) + [1], "parts": {}}]}, {"f": []})


def test_validate_and_score_py_print_the_cut_box_warning(tmp_path):
    from conftest import run_score
    from scoring_program.formats.files import Submission
    from conftest import ROOT as root
    sub = tmp_path / "sub"
    sub.mkdir()
    perfect = os.path.join(root, "starting_kit", "kinetics-tps", "submissions", "perfect")
    with open(os.path.join(perfect, "pred_part_result.json")) as f:
        part = json.load(f)
    n = 0
    for frames in part.values():
        for fr in frames.values():
            for h in fr["humans"]:
                h["box"].append(0.5)
                n += 1
    (sub / "pred_part_result.json").write_text(json.dumps(part))
    with open(os.path.join(perfect, "pred_vid_result.json")) as f:
        (sub / "pred_vid_result.json").write_text(f.read())
    notes = TASK.validate(Submission(str(sub)))
    assert "warning: %d predicted box(es) have more than 4 numbers" % n in notes[-1]
    proc, out = run_score("kinetics-tps", os.path.join(root, "reference_data", "kinetics-tps"), str(sub), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("kinetics-tps  score: 0.999900  top1: 1.0000  mean_PSC: 1.0000")
    warning = [x for x in proc.stderr.splitlines() if x.startswith("warning: ")]
    assert len(warning) == 1 and "have more than 4 numbers" in warning[0]
    with open(os.path.join(str(out), "detailed_results.html")) as f:
        assert "have more than 4 numbers" in f.read()


def test_states_are_checked_when_many_are_unknown(tmp_path):
    """Up to 1,000 unknown states are looked at one by one, beyond that all at once: both paths reject a number."""
    g = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s")}}
    for n in (3, 1500):
        humans = {"f%d" % k: [{"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s", "x%d" % k])}}]
                  for k in range(n)}
        gts = {f: [g] for f in humans}
        r = one_video(tmp_path, gts, humans)
        assert r.video_psc.tolist() == [0.5]
        humans["f%d" % (n - 1)][0]["parts"]["a"]["verb"] = ["s", 7]
        with pytest.raises(SubmissionError, match="list of state names") as e:
            one_video(tmp_path, gts, humans)
        assert "'f%d'" % (n - 1) in str(e.value)


def test_name_and_state_codes_are_dense_in_order_of_appearance(tmp_path):
    gp = {"v": {"f": frame([{"box": hbox(0, 99), "parts": {"b": gpart(PBOX, "y"), "a": gpart(PBOX, "x")}},
                            {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "y"), "c": gpart(PBOX, "y")}}])}}
    (tmp_path / "v.json").write_text(json.dumps({"v": "run"}))
    (tmp_path / "p.json").write_text(json.dumps(gp))
    gt = read_ground_truth(str(tmp_path / "v.json"), str(tmp_path / "p.json"))
    assert gt.names == {"b": 0, "a": 1, "c": 2} and gt.verbs == {"y": 0, "x": 1}
    assert gt.part_name.tolist() == [0, 1, 1, 2] and gt.part_verb.tolist() == [0, 1, 0, 0]


def test_json_loading_pauses_the_collector_and_restores_it(tmp_path):
    import gc
    from scoring_program.formats.kinetics_tps import load_json
    p = tmp_path / "x.json"
    p.write_text('{"a": [1, 2]}')
    assert gc.isenabled()
    assert load_json(str(p), "x.json") == {"a": [1, 2]}
    assert gc.isenabled()
    p.write_text('{"a": [1, 2}')
    with pytest.raises(SubmissionError):
        load_json(str(p), "x.json")
    assert gc.isenabled()
    gc.disable()
    try:
        p.write_text("[]")
        assert load_json(str(p), "x.json") == []
        assert not gc.isenabled()       # a caller that paused it keeps it paused
    finally:
        gc.enable()


def test_phase_timings_are_printed_and_kept_out_of_the_report(tmp_path):
    from conftest import ROOT, run_score
    proc, out = run_score("kinetics-tps", os.path.join(ROOT, "reference_data", "kinetics-tps"),
                          os.path.join(ROOT, "starting_kit", "kinetics-tps", "submissions", "perfect"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = [x for x in proc.stdout.splitlines() if x.startswith("time: ")]
    assert len(line) == 1
    phases = [p.rsplit(" ", 2)[0] for p in line[0][len("time: "):].split(", ")]
    assert phases == ["JSON to arrays", "metric", "report tables"]
    with open(os.path.join(str(out), "detailed_results.html")) as f:
        assert "JSON to arrays" not in f.read()


number = st.one_of(st.integers(-2 ** 70, 2 ** 70), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                   st.sampled_from([0, 1, -1, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 10 ** 400, 1e308]))
anything = st.one_of(number, st.none(), st.text(max_size=3), st.lists(st.integers(0, 3), max_size=4))


def _is_box(b, longer=False):
    """The box rule for one box, written plainly: a list of 4 finite numbers (bool is an int, as in the original's
    arithmetic); with longer=True also more than 4."""
    def number(x):
        try:
            return isinstance(x, (int, float)) and math.isfinite(x)
        except OverflowError:
            return False
    return isinstance(b, list) and (len(b) == 4 or longer and len(b) > 4) and all(number(x) for x in b)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.one_of(number, number, number, anything), min_size=3, max_size=5), max_size=6))
def test_fast_box_conversion_agrees_with_the_per_box_rule(boxes):
    """as_boxes and check_boxes (C passes over the flat numbers) == the box rule written per box (_is_box,
    float())."""
    from scoring_program.formats.kinetics_tps import as_boxes, as_predicted_boxes, check_boxes
    for longer in (False, True):
        assert check_boxes(boxes, longer)[0].tolist() == [not _is_box(b, longer) for b in boxes]
    got = as_boxes(boxes)
    if all(_is_box(b) for b in boxes):
        want = np.array([[float(x) for x in b] for b in boxes], dtype=np.float64).reshape(-1, 4)
        assert got is not None and got.tobytes() == want.tobytes()
    else:
        assert got is None
    # predicted boxes: more than 4 numbers are legal and read as their first 4
    got = as_predicted_boxes(boxes)
    if all(_is_box(b, longer=True) for b in boxes):
        want = np.array([[float(x) for x in b[:4]] for b in boxes], dtype=np.float64).reshape(-1, 4)
        assert got is not None and got.boxes.tobytes() == want.tobytes()
        assert got.cut.tolist() == [k for k, b in enumerate(boxes) if len(b) > 4]
    else:
        assert got is None


# ---------------------------------------------------------------- where the points were lost (issue 12)

def test_points_lost_split_wrong_class_and_low_psc():
    from scoring_program.metrics.psc import points_lost
    # 10 steps: t = 0.1 .. 0.9. The wrong-class video loses its 9 terms; PSC 0.35 keeps t = .1 .. .3 (loses 6),
    # PSC 1.0 loses none, PSC 0.5 keeps t = .1 .. .5 (>= is inclusive; loses 4)
    psc, ok = np.array([0.35, 1.0, 0.0, 0.5]), np.array([True, True, False, True])
    lost_class, lost_psc = points_lost(psc, ok, steps=10)
    assert lost_class == 0.225 and lost_psc == 0.25
    t, acc = psc_accuracy_curve(psc, ok, steps=10)
    assert area_left_riemann(acc, steps=10) == pytest.approx(0.9 - 0.225 - 0.25)      # 17 / 40


def four_videos(tmp_path):
    """v1 run->run PSC 1/2; v2 run->jump (wrong class) PSC 1; v3 jump->jump PSC 1; v4 jump->jump, frame missing
    (PSC 0)."""
    g = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s"), "b": gpart(PBOX, "s")}}
    right = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"]), "b": ppart([PBOX], ["s"])}}
    half = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"]), "b": ppart([PBOX], ["x"])}}
    gt_part = {v: {"f": frame([g])} for v in ("v1", "v2", "v3", "v4")}
    pred_part = {"v1": {"f": frame([half])}, "v2": {"f": frame([right])}, "v3": {"f": frame([right])}, "v4": {}}
    return run(tmp_path, {"v1": "run", "v2": "run", "v3": "jump", "v4": "jump"}, gt_part,
               {"v1": "run", "v2": "jump", "v3": "jump", "v4": "jump"}, pred_part)


def test_report_of_four_hand_made_videos(tmp_path):
    from scoring_program.report.result import LOST, Histogram, Plot, Table
    ev = four_videos(tmp_path)
    assert ev.video_psc.tolist() == [0.5, 1.0, 1.0, 0.0] and ev.class_ok.tolist() == [True, False, True, True]
    # acc = 2/4 for t in (0, .5], 1/4 above: (5000 * .5 + 4999 * .25) / 10000
    assert ev.score == pytest.approx(0.374975, abs=1e-12) and ev.top1 == 0.75
    res = TASK.report(ev, False)
    bars = res.bars[0]
    assert bars.labels == ["jump", "run"] and bars.values == [1.0, 0.5] and bars.extra == [0.5, 0.75]
    lost, curve, hist = res.section(LOST).blocks
    assert isinstance(lost, Table) and isinstance(curve, Plot) and isinstance(hist, Histogram)
    # wrong class: 1 video x 0.9999 / 4; low PSC: v1 loses t > .5 (4999 terms), v4 all 9999: 14998 / 10000 / 4
    assert lost.rows[0][1:] == [1, "0.249975"]        # at the score's leaderboard precision (6)
    assert lost.rows[1][1:] == [3, "0.374950"]
    assert lost.title.endswith("0.999900") and curve.title.endswith("(shaded area = score 0.374975)")
    s = curve.series[0]
    assert s.step and s.fill and s.x[-1] == 1.0 and s.y[0] == 0.75 and s.y[-1] == 0.25
    assert hist.counts == [1, 0, 0, 0, 0, 1, 0, 0, 0, 2] and hist.edges[0] == 0 and hist.edges[-1] == 1
    assert res.warnings == ["1 evaluated frame(s) are missing from pred_part_result.json: each counts as PSC 0 "
                            '(first: video "v4", frame "f")']
    assert res.private == []
    table = TASK.report(ev, True).private[0]
    assert table.header == ["video", "class", "predicted class", "right class", "PSC", "counted frames"]
    assert table.rows == [["v1", "run", "run", "yes", 0.5, 1], ["v2", "run", "jump", "no", 1.0, 1],
                          ["v3", "jump", "jump", "yes", 1.0, 1], ["v4", "jump", "jump", "yes", 0.0, 1]]


# ---------------------------------------------------------------- privacy (issue 12)
KIN = "kinetics-tps"


def sample_rows(root, sub="random"):
    from scoring_program.formats.files import Submission
    res = TASK.score(os.path.join(root, "reference_data", KIN),
                     Submission(os.path.join(root, "starting_kit", KIN, "submissions", sub)), private=True)
    return res.private[0].rows


def test_private_report_lists_every_video_only_when_asked(root):
    from scoring_program.formats.files import Submission
    assert len(sample_rows(root)) == 12
    res = TASK.score(os.path.join(root, "reference_data", KIN),
                     Submission(os.path.join(root, "starting_kit", KIN, "submissions", "random")))
    assert res.private == []


def test_report_shows_no_video_class(tmp_path, root):
    from privacy import only_numbers_differ
    rows = sample_rows(root)
    per_class = {}
    for r in rows:
        per_class[r[1]] = per_class.get(r[1], 0) + 1
    # a video given its right class, of a class with another video, becomes a video of another sample class
    video, cls = [(r[0], r[1]) for r in rows if r[3] == "yes" and per_class[r[1]] > 1][0]
    other = sorted(c for c in per_class if c != cls)[0]

    def relabel_one_video(ref):
        path = os.path.join(ref, "gt_vid_result.json")
        with open(path) as f:
            gt = json.load(f)
        gt[video] = other
        with open(path, "w") as f:
            json.dump(gt, f)
    only_numbers_differ(KIN, relabel_one_video, tmp_path)


def test_report_shows_no_part_state(tmp_path, root):
    from privacy import only_numbers_differ

    def restate_one_part(ref):
        path = os.path.join(ref, "gt_part_result.json")
        with open(path) as f:
            gt = json.load(f)
        video = sorted(gt)[0]
        frame_ = sorted(gt[video])[0]
        part = gt[video][frame_]["humans"][0]["parts"]
        name = sorted(part)[0]
        part[name]["verb"] = "a_state_no_prediction_has"
        with open(path, "w") as f:
            json.dump(gt, f)
    only_numbers_differ(KIN, restate_one_part, tmp_path, submission="perfect")


def test_report_names_no_test_video(tmp_path, root):
    from privacy import no_item_ids
    with open(os.path.join(root, "reference_data", KIN, "gt_vid_result.json")) as f:
        ids = sorted(json.load(f))
    assert len(ids) == 12
    no_item_ids(KIN, ids, tmp_path, submission="perfect")


# ---------------------------------------------------------------- the bootstrap's decomposition (issue 13)

def test_weighted_score_by_hand():
    from scoring_program.metrics.psc import weighted_area_left_riemann
    # 10 steps (t = 0.1 .. 0.9) to work by hand. Videos: PSC 1.0 right class, 0.5 right, 0.25 WRONG class, 0.8 right.
    # Weights 1, 2, 0, 1: n = 4 copies; acc(t) = (weight of right-class videos with PSC >= t) / 4:
    #   t = .1 .. .5 (5 steps): 1 + 2 + 1 = 4 -> 1;  t = .6, .7, .8 (3 steps): 1 + 1 -> 1/2;  t = .9: 1 -> 1/4
    #   score = (5 * 1 + 3 * 1/2 + 1/4) / 10 = 0.675
    # Weights 0, 0, 3, 0: the wrong-class video thrice: 0.  Weights all 0: no video, NaN.
    # Weights 1, 1, 1, 1: (5 * 3/4 + 3 * 2/4 + 1/4) / 10 = 0.55
    score = weighted_area_left_riemann([1.0, 0.5, 0.25, 0.8], [True, True, False, True], steps=10)
    got = score(np.array([[1., 2, 0, 1], [0, 0, 3, 0], [0, 0, 0, 0], [1, 1, 1, 1]]))
    assert got[:2] == pytest.approx([0.675, 0.0], abs=1e-15) and np.isnan(got[2])
    assert got[3] == pytest.approx(0.55, abs=1e-15)


def test_decomposition_is_the_official_score_with_every_weight_one(tmp_path):
    ev = four_videos(tmp_path)
    d = TASK.decompose(ev)
    assert d.unit == "video" and d.items == ["v1", "v2", "v3", "v4"]
    assert d.score(np.ones((2, 4))).tolist() == [ev.score, ev.score]       # bit for bit, not only to 1e-12


@pytest.mark.parametrize("seed", range(3))
def test_weight_k_is_the_video_k_times_and_0_removes_it(tmp_path, seed):
    """Against the official scorer on the set with copies: a video of weight k is written k times (under new
    names, with its frames and predictions), weight 0 leaves it out. Equal bit for bit: the counts are whole."""
    from bench.synth.kinetics_tps import make_gt, noisy
    gv, gp = make_gt(8, 3, (0, 3), (0, 4), seed=seed, quirks=True)
    pv, pp = noisy(gv, gp, seed=seed + 100, proposals=2, p_missing=0.2, jitter=40)
    d = TASK.decompose(run(tmp_path, gv, gp, pv, pp))
    assert d.items == list(gv)
    weights = np.random.RandomState(seed).randint(0, 4, size=(4, len(gv))).astype(float)
    weights[0] = 1
    got = d.score(weights)
    for w, value in zip(weights, got):
        names = [(v, "%s_copy%d" % (v, k)) for v, n in zip(gv, w.astype(int)) for k in range(n)]
        sub = tmp_path / ("w%s" % "".join(str(int(x)) for x in w))
        sub.mkdir()
        expanded = run(sub, {c: gv[v] for v, c in names}, {c: gp[v] for v, c in names},
                       {c: pv[v] for v, c in names}, {c: pp[v] for v, c in names if v in pp})
        assert value == expanded.score


def test_score_with_decompose_sets_the_decomposition(root):
    from scoring_program.formats.files import Submission
    ref = os.path.join(root, "reference_data", KIN)
    sub = Submission(os.path.join(root, "starting_kit", KIN, "submissions", "random"))
    assert TASK.score(ref, sub).decomposition is None
    res = TASK.score(ref, sub, decompose=True)
    assert len(res.decomposition.items) == 12
    assert res.decomposition.score(np.ones((1, 12)))[0] == res.scores["score"]


def test_part_correctness_in_blocks_equals_one_block(monkeypatch):
    """part_correctness works through blocks of proposal pairs (memory bounded): tiny blocks give the same scores."""
    from conftest import ROOT
    from scoring_program.formats.files import Submission
    from scoring_program.metrics import psc
    from scoring_program.tasks.registry import get
    TASK = get("kinetics-tps")
    ref = os.path.join(ROOT, "reference_data", "kinetics-tps")
    sub = Submission(os.path.join(ROOT, "starting_kit", "kinetics-tps", "submissions", "random"))
    whole = TASK.score(ref, sub).scores
    calls = []
    original = psc.part_correctness

    def small_blocks(*args, **kw):
        calls.append(1)
        return original(*args, **dict(kw, block=3))
    import scoring_program.tasks.kinetics_tps as task_module
    monkeypatch.setattr(task_module, "part_correctness", small_blocks)
    assert TASK.score(ref, sub).scores == whole and calls


# ---------------------------------------------------------------- integers of any length, as on Python 3.7.3

# 5000 digits: more than limits.MAX_NUMBER_CHARS (issue 20: a number literal's cap, checked before json.loads
# converts it, so the message is the same on every Python, whatever the 4300-digit limit of the stack)
BIG = "1" + "0" * 4999


def test_parse_json_refuses_a_long_number_before_converting_it():
    from scoring_program.formats.kinetics_tps import parse_json
    assert parse_json(("[%s, -%s]" % (BIG[:64], BIG[:63])).encode(), "x.json") == [10 ** 63, -10 ** 62]
    for text, line in (("[%s, 1]" % BIG, 1), ('{"a": 1,\n "b": [-%s]}' % BIG, 2)):
        with pytest.raises(SubmissionError) as e:
            parse_json(text.encode(), "x.json")
        assert str(e.value) == ("submission error: x.json, line %d: expected a number of at most 64 characters; "
                                "found a number of %d characters" % (line, len(BIG) + text.count("-")))


def big_integer_case(tmp_path, root, part_edit=None, vid_edit=None):
    """score.py on the perfect sample with one text replacement (old, new) in pred_part / pred_vid."""
    from conftest import run_score
    perfect = os.path.join(root, "starting_kit", KIN, "submissions", "perfect")
    sub = tmp_path / "sub"
    sub.mkdir()
    for name, edit in (("pred_part_result.json", part_edit), ("pred_vid_result.json", vid_edit)):
        with open(os.path.join(perfect, name)) as f:
            text = f.read()
        if edit:
            assert edit[0] in text
            text = text.replace(edit[0], edit[1], 1)
        (sub / name).write_text(text)
    return run_score(KIN, os.path.join(root, "reference_data", KIN), str(sub), tmp_path)


@pytest.mark.parametrize("part_edit, vid_edit, file", [
    (('"humans":[{"box":[20,', '"humans":[{"number":%s,"box":[20,' % BIG), None, "pred_part_result.json"),
    (('"humans":[{"box":[20,', '"humans":[{"number":-%s,"box":[20,' % BIG), None, "pred_part_result.json"),
    (('{"img_00001.json":{"humans"', '{"img_00001.json":{"n":%s,"humans"' % BIG), None, "pred_part_result.json"),
    (None, ('{', '{"not_a_test_video":%s,' % BIG), "pred_vid_result.json"),
    (('"humans":[{"box":[20,', '"humans":[{"box":[%s,' % BIG), None, "pred_part_result.json"),
    (('"verb":["lift"]', '"verb":[%s]' % BIG), None, "pred_part_result.json"),
    (None, ('"shooting_basketball"', BIG), "pred_vid_result.json"),
])
def test_5000_digit_integer_anywhere_is_the_number_cap(tmp_path, root, part_edit, vid_edit, file):
    """Read or ignored, a number over the cap is refused with its line and length. Exit 1, no scores: the same on
    every stack."""
    proc, out = big_integer_case(tmp_path, root, part_edit, vid_edit)
    assert proc.returncode == 1, proc.stderr
    length = len(BIG) + ("-%s" % BIG in (part_edit or vid_edit)[1])
    assert proc.stderr.splitlines() == ["submission error: %s, line 1: expected a number of at most 64 characters; "
                                        "found a number of %d characters" % (file, length)]
    assert not os.path.exists(os.path.join(str(out), "scores.txt"))


# ---------------------------------------------------------------- the withheld reference (issue 29)

def three_videos(tmp_path):
    """v1 run, v2 jump, v3 run; one frame of one human with parts a and b in state s. Predicted: v1 right class,
    both parts right (PSC 1); v2 class run, wrong, both parts right (PSC 1); v3 right class, part b's state wrong
    (PSC 1/2)."""
    g = {"box": hbox(0, 99), "parts": {"a": gpart(PBOX, "s"), "b": gpart(PBOX, "s")}}
    right = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"]), "b": ppart([PBOX], ["s"])}}
    half = {"box": hbox(0, 99), "parts": {"a": ppart([PBOX], ["s"]), "b": ppart([PBOX], ["x"])}}
    gt_vid = {"v1": "run", "v2": "jump", "v3": "run"}
    gt_part = {v: {"img_00001.json": frame([g])} for v in gt_vid}
    pred_part = {"v1": {"img_00001.json": frame([right])}, "v2": {"img_00001.json": frame([right])},
                 "v3": {"img_00001.json": frame([half])}}
    ref, res = tmp_path / "ref", tmp_path / "res"
    ref.mkdir()
    res.mkdir()
    (ref / "gt_vid_result.json").write_text(json.dumps(gt_vid, indent=1))
    (ref / "gt_part_result.json").write_text(json.dumps(gt_part, indent=1))
    (res / "pred_vid_result.json").write_text(json.dumps({"v1": "run", "v2": "run", "v3": "run"}))
    (res / "pred_part_result.json").write_text(json.dumps(pred_part))
    return ref, res, gt_vid, gt_part


def scored(ref, res):
    from scoring_program.formats.files import Submission
    TASK._cached = None
    return TASK.score(str(ref), Submission(str(res)), decompose=True).scores


# the whole reference: acc(t) = 2/3 for t <= 1/2 (v1, v3), 1/3 above (v1): (5000 * 2/3 + 4999 * 1/3) / 10000.
# v2 withheld: v1 (PSC 1) and v3 (PSC 1/2), both right: acc = 1 for t <= 1/2 (5000 thresholds), 1/2 above (4999):
#   (5000 + 4999 / 2) / 10000 = 0.74995; top1 1; mean_PSC (1 + 1/2) / 2 = 0.75.
# v3 withheld: v1 right (PSC 1), v2 wrong: acc = 1/2 at every t: 9999 / 2 / 10000 = 0.49995; top1 1/2; mean_PSC 1.
@pytest.mark.parametrize("withheld, want", [
    (None, (14999 / 30000, 2 / 3, 5 / 6)),
    ("v2", (0.74995, 1.0, 0.75)),
    ("v3", (0.49995, 0.5, 1.0)),
])
def test_a_withheld_video_leaves_every_score(tmp_path, withheld, want):
    from scoring_program.tasks.base import WITHHELD_FILE
    ref, res, gt_vid, gt_part = three_videos(tmp_path)
    if withheld is not None:
        pub = tmp_path / "public"
        pub.mkdir()
        whole = TASK.load_reference(str(ref))
        TASK.withhold(whole, {withheld}, str(pub))
        (pub / WITHHELD_FILE).write_text(withheld + "\n")
        # the video keeps its key, nothing else; every other video's bytes are as they were
        assert json.loads((pub / "gt_vid_result.json").read_text()) == dict(gt_vid, **{withheld: ""})
        assert json.loads((pub / "gt_part_result.json").read_text()) == dict(gt_part, **{withheld: {}})
        for name in ("gt_vid_result.json", "gt_part_result.json"):
            for v in set(gt_vid) - {withheld}:
                entry = json.dumps({v: json.loads((ref / name).read_text())[v]}, indent=1)[2:-2]
                assert entry in (ref / name).read_text() and entry in (pub / name).read_text()
        got = scored(pub, res)
        assert whole.data.videos == ["v1", "v2", "v3"] and whole.data.part_name.size == 6   # never changed
        # the official run without that video: the cut reference (the prediction's entry is then ignored)
        cut = tmp_path / "cut"
        cut.mkdir()
        (cut / "gt_vid_result.json").write_text(json.dumps({v: c for v, c in gt_vid.items() if v != withheld}))
        (cut / "gt_part_result.json").write_text(json.dumps({v: p for v, p in gt_part.items() if v != withheld}))
        assert scored(cut, res) == got
    else:
        got = scored(ref, res)
    assert [got["score"], got["top1"], got["mean_PSC"]] == pytest.approx(list(want), abs=1e-12)


def test_a_withheld_reference_gives_the_same_name_warning(tmp_path):
    """'Run' for 'run' on a withheld video: the hint is made against every test video (read_submission), before
    restrict, and the withheld one's class is no name."""
    from scoring_program.formats.files import Submission
    from scoring_program.tasks.base import WITHHELD_FILE
    ref, res, _, _ = three_videos(tmp_path)
    (res / "pred_vid_result.json").write_text(json.dumps({"v1": "run", "v2": "Run", "v3": "run"}))
    pub = tmp_path / "public"
    pub.mkdir()
    TASK.withhold(TASK.load_reference(str(ref)), {"v2"}, str(pub))
    (pub / WITHHELD_FILE).write_text("v2\n")
    shown = []
    for folder in (ref, pub):
        TASK._cached = None
        shown.append([w for w in TASK.score(str(folder), Submission(str(res))).warnings if "predicted classes" in w])
    assert shown[0] == shown[1] and "differ in letter case" in shown[0][0]
