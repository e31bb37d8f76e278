"""voc2011-classification: VOCevalcls.m + VOCap.m, hand-computed cases and properties."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT, read_scores, run_score
from privacy import no_item_ids, only_numbers_differ
from scoring_program.errors import SubmissionError
from scoring_program.formats.files import Submission
from scoring_program.formats.voc import VOC_CLASSES
from scoring_program.metrics.ap import ap_voc2010
from scoring_program.metrics.classification import ap_split_at, interpolated_precision_at, voc_cls_ap
from scoring_program.report.result import LOST
from scoring_program.tasks.voc2011_classification import TASK

SLUG = "voc2011-classification"


# ---------------------------------------------------------------- metric level, worked by hand
def test_ap_simple_ranking():
    # p n p: rec .5 .5 1, prec 1 .5 2/3 -> .5*1 + .5*2/3
    assert voc_cls_ap([0.9, 0.8, 0.7], [1, -1, 1])[0] == pytest.approx(0.5 + 0.5 * 2 / 3, abs=1e-15)


def test_tie_keeps_gt_order():
    # equal confidences: the ranking is the GT-list order n p p -> prec 0 .5 2/3 -> envelope 2/3 everywhere
    assert voc_cls_ap([0.5, 0.5, 0.5], [-1, 1, 1])[0] == pytest.approx(2 / 3, abs=1e-15)
    assert voc_cls_ap([0.5, 0.5, 0.5], [1, 1, -1])[0] == 1.0


def test_difficult_is_neither_tp_nor_fp_at_any_rank():
    # difficult first: precision 0/0 there (NaN, ignored by MATLAB's max), then p n -> AP 1
    assert voc_cls_ap([0.9, 0.8, 0.7], [0, 1, -1])[0] == 1.0
    # difficult between two positives changes nothing
    assert voc_cls_ap([0.9, 0.8, 0.7, 0.6], [1, 0, 1, -1])[0] == 1.0


def test_missing_images_are_ranked_last_in_gt_order():
    # only B has a result: B(-1) first, then A, C at -inf in GT order -> n p p -> 2/3
    conf = np.array([-np.inf, 0.5, -np.inf])
    assert voc_cls_ap(conf, [1, -1, 1])[0] == pytest.approx(2 / 3, abs=1e-15)


def test_no_positive_has_no_ap():
    assert voc_cls_ap([0.1, 0.2], [-1, 0])[0] is None


# ---------------------------------------------------------------- where the points were lost, worked by hand
def curve(conf, labels):
    return voc_cls_ap(conf, labels)[1:]


def test_precision_at_half_recall_is_the_envelope_at_recall_half():
    # p n n p p n (npos 3): rec 1/3 1/3 1/3 2/3 1 1, prec 1 .5 1/3 .5 .6 .5; ranks with rec >= .5: .5 .6 .5 -> .6
    # (not .5, the raw precision where recall first reaches .5)
    rec, prec = curve([6, 5, 4, 3, 2, 1], [1, -1, -1, 1, 1, -1])
    assert interpolated_precision_at(rec, prec, 0.5) == pytest.approx(0.6, abs=1e-15)
    # AP = 1/3 * 1 + 2/3 * .6 = 11/15; over recall [0, .5]: 1/3 * 1 + 1/6 * .6 = 13/30; over [.5, 1]: 1/2 * .6 = 3/10
    head, tail = ap_split_at(rec, prec, 0.5)
    assert head == pytest.approx(13 / 30, abs=1e-15) and tail == pytest.approx(3 / 10, abs=1e-15)
    assert head + tail == pytest.approx(voc_cls_ap([6, 5, 4, 3, 2, 1], [1, -1, -1, 1, 1, -1])[0], abs=1e-15)


def test_precision_at_half_recall_ties_keep_gt_order():
    # all tied: GT order n p p n -> rec 0 .5 1 1, prec 0 .5 2/3 .5 -> P@50 = 2/3; AP 2/3 = 1/3 + 1/3
    rec, prec = curve([0.5] * 4, [-1, 1, 1, -1])
    assert interpolated_precision_at(rec, prec) == pytest.approx(2 / 3, abs=1e-15)
    assert ap_split_at(rec, prec) == pytest.approx((1 / 3, 1 / 3), abs=1e-15)


def test_precision_at_half_recall_with_missing_images_ranked_last():
    # only images 2 (n, .9) and 4 (p, .1) scored; 1 and 3 (p) at -inf in GT order -> n p p p:
    # rec 0 1/3 2/3 1, prec 0 .5 2/3 .75 -> P@50 = max(2/3, .75) = .75; AP = .75, .375 over each half
    rec, prec = curve([-np.inf, 0.9, -np.inf, 0.1], [1, -1, 1, 1])
    assert interpolated_precision_at(rec, prec) == pytest.approx(0.75, abs=1e-15)
    assert ap_split_at(rec, prec) == pytest.approx((0.375, 0.375), abs=1e-15)


def test_precision_at_half_recall_ignores_difficult_and_its_nan():
    # d p n p: prec NaN 1 .5 2/3, rec 0 .5 .5 1 -> P@50 = 1; AP = .5 * 1 + .5 * 2/3; head .5, tail 1/3
    rec, prec = curve([4, 3, 2, 1], [0, 1, -1, 1])
    assert np.isnan(prec[0])
    assert interpolated_precision_at(rec, prec) == 1.0
    assert ap_split_at(rec, prec) == pytest.approx((0.5, 1 / 3), abs=1e-15)


def test_recall_never_reaching_half_gives_precision_zero():
    # VOCap's sentinel recall 1 / precision 0: nothing beyond the last recall
    assert interpolated_precision_at([0.25], [1.0], 0.5) == 0.0
    assert ap_split_at([0.25], [1.0], 0.5) == (0.25, 0.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([1, -1, 0]), min_size=1, max_size=40), st.randoms(use_true_random=False))
def test_the_two_halves_add_up_to_the_ap(labels, rnd):
    conf = [rnd.choice([0.1, 0.5, -np.inf, rnd.random()]) for _ in labels]
    ap, rec, prec = voc_cls_ap(conf, labels)
    if ap is None:
        return
    head, tail = ap_split_at(rec, prec)
    assert head + tail == pytest.approx(ap, abs=1e-12)
    assert -1e-12 <= head <= 0.5 + 1e-12 and -1e-12 <= tail <= 0.5 + 1e-12
    # the envelope is non-increasing: the precision at recall .5 bounds the second half's area
    assert tail <= 0.5 * interpolated_precision_at(rec, prec) + 1e-12


# ---------------------------------------------------------------- properties
labels_st = st.lists(st.sampled_from([1, -1, 0]), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(labels_st, st.randoms(use_true_random=False))
def test_ap_in_unit_interval(labels, rnd):
    conf = [rnd.choice([0.1, 0.2, 0.5, -np.inf, rnd.random()]) for _ in labels]
    ap = voc_cls_ap(conf, labels)[0]
    assert ap is None or 0.0 <= ap <= 1.0 + 1e-12


@settings(max_examples=200, deadline=None)
@given(labels_st, st.randoms(use_true_random=False))
def test_permuting_gt_lines_with_distinct_scores_changes_nothing(labels, rnd):
    conf = np.array(rnd.sample(range(1000), len(labels)), dtype=float)
    perm = np.array(rnd.sample(range(len(labels)), len(labels)))
    lab = np.array(labels)
    assert voc_cls_ap(conf, lab)[0] == voc_cls_ap(conf[perm], lab[perm])[0]


@settings(max_examples=200, deadline=None)
@given(labels_st, st.randoms(use_true_random=False))
def test_a_false_positive_below_all_others_never_raises_ap(labels, rnd):
    lab = np.array(labels)
    conf = np.array([rnd.random() for _ in labels])
    before = voc_cls_ap(conf, lab)[0]
    after = voc_cls_ap(np.append(conf, conf.min() - 1.0), np.append(lab, -1))[0]
    if before is not None:
        assert after <= before + 1e-12


@settings(max_examples=200, deadline=None)
@given(labels_st, st.randoms(use_true_random=False))
def test_scoring_a_missing_negative_below_all_others_never_raises_ap(labels, rnd):
    lab = np.array(labels + [-1])
    conf = np.array([rnd.random() if rnd.random() < 0.6 else -np.inf for _ in labels] + [-np.inf])
    before = voc_cls_ap(conf, lab)[0]
    finite = conf[np.isfinite(conf)]
    conf2 = conf.copy()
    conf2[-1] = (finite.min() if finite.size else 0.0) - 1.0
    after = voc_cls_ap(conf2, lab)[0]
    if before is not None:
        assert after <= before + 1e-12


# ---------------------------------------------------------------- end to end through files
IDS = ["im1", "im2", "im3"]
LABELS = {"car": [1, -1, 1], "dog": [-1, 1, 0]}


def make_ref(tmp_path, labels=None, set_name="test"):
    labels = labels or LABELS
    main = tmp_path / "ref" / "ImageSets" / "Main"
    main.mkdir(parents=True)
    for cls in VOC_CLASSES:
        lab = labels.get(cls, [1, -1, -1])
        (main / ("%s_%s.txt" % (cls, set_name))).write_text("".join("%s %2d\n" % (i, l) for i, l in zip(IDS, lab)))
    return tmp_path / "ref"


def make_res(tmp_path, files, name="res"):
    res = tmp_path / name
    for rel, text in files.items():
        p = res / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    res.mkdir(exist_ok=True)
    return res


def score(tmp_path, files, labels=None):
    ref = make_ref(tmp_path, labels)
    res = make_res(tmp_path, files)
    return TASK.score(str(ref), Submission(str(res)))


def test_duplicate_line_last_wins_and_is_warned(tmp_path):
    # car: im1(+) .9 then .1 -> im1=.1; im2(-) .5; im3(+) absent -> ranking im2, im1, im3 -> n p p -> 2/3
    r = score(tmp_path, {"comp1_cls_test_car.txt": "im1 0.9\nim2 0.5\nim1 0.1\n"})
    assert r.scores["AP_car"] == pytest.approx(2 / 3, abs=1e-15)
    assert any("duplicate" in w and "line 3" in w for w in r.warnings)


def test_empty_file_ranks_in_gt_order_and_missing_file_scores_zero(tmp_path):
    r = score(tmp_path, {"comp1_cls_test_car.txt": "", "comp1_cls_test_dog.txt": "im2 1\n"})
    assert r.scores["AP_car"] == pytest.approx(0.5 + 0.5 * 2 / 3, abs=1e-15)   # GT order p n p
    assert r.scores["AP_dog"] == 1.0
    assert r.scores["AP_cat"] == 0.0                                           # no file
    assert any("cat: no result file" in n for n in r.notes)
    expected = (0.5 + 0.5 * 2 / 3 + 1.0) / 20
    assert r.scores["mAP"] == pytest.approx(expected, abs=1e-15)


def test_class_without_positives_is_left_out_of_the_mean(tmp_path):
    labels = dict(LABELS, cow=[-1, -1, 0])
    r = score(tmp_path, {"comp1_cls_test_car.txt": "im1 3\nim3 2\nim2 1\n",
                         "comp1_cls_test_cow.txt": "im1 3\n"}, labels)
    assert "AP_cow" not in r.scores
    assert r.scores["AP_car"] == 1.0
    assert r.scores["mAP"] == pytest.approx(1.0 / 19, abs=1e-15)
    assert any("n/a" in n and "cow" in n for n in r.notes)


def test_numbers_in_any_notation_tabs_crlf(tmp_path):
    r = score(tmp_path, {"comp2_cls_test_car.txt": "im1\t1e-3\r\nim2  -2\r\n im3 +0.5\r\n\r\n"})
    assert r.scores["AP_car"] == 1.0   # im3 .5 > im1 .001 > im2 -2 -> p p n


@pytest.mark.parametrize("files,needle", [
    ({"comp1_cls_test_car.txt": "im1 0.5\nim9 0.1\n"}, "line 2"),
    ({"comp1_cls_test_car.txt": "im1 inf\n"}, "finite"),
    ({"comp1_cls_test_car.txt": "im1 0.5 7\n"}, "expected 2 fields"),
    ({"comp1_cls_test_car.txt": "im1 0.5\n", "comp2_cls_test_dog.txt": "im1 0.5\n"}, "may not mix"),
    ({"comp1_cls_test_kangaroo.txt": "im1 0.5\n"}, "one of the names"),
    ({"comp3_cls_test_car.txt": "im1 0.5\n"}, "comp1_cls_ or comp2_cls_"),
])
def test_submission_errors(tmp_path, files, needle):
    with pytest.raises(SubmissionError) as e:
        score(tmp_path, files)
    assert needle in str(e.value)


def test_unknown_ids_message_lists_five_and_counts_the_rest(tmp_path):
    lines = "".join("x%d 0.1\n" % i for i in range(8))
    with pytest.raises(SubmissionError) as e:
        score(tmp_path, {"comp1_cls_test_car.txt": "im1 1\n" + lines})
    msg = str(e.value)
    assert "line 2" in msg and "8 unknown" in msg and "'x4'" in msg and "and 3 more" in msg and "'x5'" not in msg
    assert "im2" not in msg and "im3" not in msg     # never reveals the ground truth


def test_sample_perfect_scores_one_and_random_matches_recorded_value(tmp_path, root):
    ref = os.path.join(root, "reference_data", SLUG)
    proc, out = run_score(SLUG, ref, os.path.join(root, "starting_kit", SLUG, "submissions", "perfect"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    s = read_scores(out)
    assert s["mAP"] == 1.0 and len(s) == 21
    proc, out = run_score(SLUG, ref, os.path.join(root, "starting_kit", SLUG, "submissions", "random"), tmp_path,
                          "random")
    # independent recomputation from the files with the metric (the ranking is a plain sort of 60 images)
    s = read_scores(out)
    aps = []
    for cls in VOC_CLASSES:
        gt = [l.split() for l in open(os.path.join(ref, "ImageSets", "Main", "%s_test.txt" % cls))]
        res = dict(l.split() for l in open(os.path.join(root, "starting_kit", SLUG, "submissions", "random",
                                                        "results", "VOC2011", "Main", "comp1_cls_test_%s.txt" % cls)))
        order = sorted(range(len(gt)), key=lambda i: -float(res[gt[i][0]]))
        lab = [int(gt[i][1]) for i in order]
        tp = fp = 0
        rec, prec = [], []
        npos = sum(1 for g in gt if int(g[1]) > 0)
        for l in lab:
            tp += l > 0
            fp += l < 0
            rec.append(tp / npos)
            prec.append(tp / (tp + fp) if tp + fp else float("nan"))
        aps.append(ap_voc2010(rec, prec))
        assert s["AP_" + cls] == pytest.approx(aps[-1], abs=1e-12)
    assert s["mAP"] == pytest.approx(sum(aps) / 20, abs=1e-12)
    assert 0.5 < s["mAP"] < 0.95


# ---------------------------------------------------------------- the report: bars, "where the points were lost", privacy
def test_report_shows_precision_at_half_recall_beside_the_ap(tmp_path):
    # car GT p n p; im1 .9, im2 .5, im3 absent -> p n p: rec .5 .5 1, prec 1 .5 2/3 -> AP 5/6, P@50 1,
    # lost over recall 0-.5: 0, over .5-1: .5 - .5 * 2/3 = 1/6
    r = score(tmp_path, {"comp1_cls_test_car.txt": "im1 0.9\nim2 0.5\n"})
    bars = r.bars[0]
    k = bars.labels.index("car")
    assert bars.values[k] == pytest.approx(5 / 6) and bars.extra[k] == 1.0
    assert np.isnan(bars.extra[bars.labels.index("cat")])          # no file: AP 0, no ranking
    table = [b for b in r.section(LOST).blocks if not isinstance(b, str)][0]
    row = [row for row in table.rows if row[0] == "car"][0]
    assert row == ["car", "0.8333", "1.0000", "0.0000", "0.1667"]
    assert [row for row in table.rows if row[0] == "cat"][0] == ["cat", "0.0000", "n/a", "n/a", "n/a"]
    assert [p.title for p in r.plots] == ["car (AP 0.8333)"]


def test_private_report_lists_ranked_positives_and_top_negatives(tmp_path):
    ref = make_ref(tmp_path)
    res = make_res(tmp_path, {"comp1_cls_test_car.txt": "im1 0.9\nim2 0.5\n"})
    assert TASK.score(str(ref), Submission(str(res))).private == []
    r = TASK.score(str(ref), Submission(str(res)), private=True)
    positives, negatives = r.private
    assert [row for row in positives.rows if row[0] == "car"] == [["car", "im1", 1, "0.9", 0],
                                                                   ["car", "im3", 3, "not in the file", 1]]
    assert [row for row in negatives.rows if row[0] == "car"] == [["car", "im2", 2, "0.5", 1]]
    assert not [row for row in positives.rows if row[0] == "cat"]      # no file, no ranking


def test_report_shows_no_image_label(tmp_path):
    def flip_one_image(ref):
        path = os.path.join(ref, "ImageSets", "Main", "car_test.txt")
        with open(path) as f:
            rows = [line.split() for line in f]
        rows[0][1] = "1" if rows[0][1] == "-1" else "-1"
        with open(path, "w") as f:
            f.write("".join("%s %s\n" % tuple(r) for r in rows))
    only_numbers_differ(SLUG, flip_one_image, tmp_path)


def test_report_names_no_test_image(tmp_path):
    with open(os.path.join(ROOT, "reference_data", SLUG, "ImageSets", "Main", "car_test.txt")) as f:
        ids = [line.split()[0] for line in f if line.strip()]
    assert len(ids) >= 50
    no_item_ids(SLUG, ids, tmp_path)


# ---------------------------------------------------------------- a private part withheld from the bundle (issue 29)
def withheld_copy(tmp_path, ref, items):
    """What the bundle uploads: TASK.withhold of ref, plus the WITHHELD file."""
    out = tmp_path / "public_ref"
    out.mkdir()
    TASK.withhold(TASK.load_reference(str(ref)), set(items), str(out))
    (out / "WITHHELD").write_text("".join(i + "\n" for i in sorted(items)))
    return out


def test_withheld_image_is_blanked_and_scored_as_if_never_listed(tmp_path):
    # LABELS: car im1 +, im2 -, im3 +; dog im1 -, im2 +, im3 0 (difficult); every other class im1 +, im2 -, im3 -.
    # im1 withheld. Public part: car im2 -, im3 +: ranking im2 (.5), im3 (.1) -> n p -> AP 1/2.
    # dog im3 0, im2 +: ranking im3 (.8, neither), im2 (.1) -> p -> AP 1. The 18 other classes: im2 -, im3 - -> no
    # positive, n/a. mAP = (1/2 + 1) / 2 = 3/4. (The whole list: im1's last line .2 wins, car n p p -> 2/3.)
    ref = make_ref(tmp_path)
    files = {"comp1_cls_test_car.txt": "im1 0.9\nim2 0.5\nim3 0.1\nim1 0.2\n",     # im1 repeated: a warning
             "comp1_cls_test_dog.txt": "im1 0.9\nim3 0.8\nim2 0.1\n"}
    res = make_res(tmp_path, files)
    public = withheld_copy(tmp_path, ref, {"im1"})
    car = (public / "ImageSets" / "Main" / "car_test.txt").read_bytes()
    assert car == b"im1 0\nim2 -1\nim3  1\n"          # the label blanked (0 for every withheld image), the rest kept
    assert (public / "ImageSets" / "Main" / "dog_test.txt").read_bytes() == b"im1 0\nim2  1\nim3  0\n"
    whole = TASK.score(str(ref), Submission(str(res)))
    r = TASK.score(str(public), Submission(str(res)))
    assert whole.scores["AP_car"] == pytest.approx(2 / 3, abs=1e-15)
    assert r.scores == {"mAP": 0.75, "AP_car": 0.5, "AP_dog": 1.0}
    assert [str(w) for w in r.warnings] == [str(w) for w in whole.warnings]     # the duplicate im1 line: line 4
    assert any("line 4" in w for w in r.warnings)
    # the same as a reference that never listed im1, and a submission without its lines
    cut = tmp_path / "cut"
    main = cut / "ImageSets" / "Main"
    main.mkdir(parents=True)
    for cls in VOC_CLASSES:
        (main / ("%s_test.txt" % cls)).write_bytes((ref / "ImageSets" / "Main" / ("%s_test.txt" % cls))
                                                   .read_bytes().split(b"\n", 1)[1])
    cut_res = make_res(tmp_path, {"comp1_cls_test_car.txt": "im2 0.5\nim3 0.1\n",
                                  "comp1_cls_test_dog.txt": "im3 0.8\nim2 0.1\n"}, name="cut_res")
    assert TASK.score(str(cut), Submission(str(cut_res))).scores == r.scores
    assert len(TASK.reference(str(public)).data.lists[0].keys) == 3      # the cached reference is not cut
    assert TASK.item_ids(TASK.reference(str(public))) == IDS
