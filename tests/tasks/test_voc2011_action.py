"""voc2011-action: hand-computed VOCevalaction.m scenarios and an oracle of the devkit's loops."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from privacy import no_item_ids, only_numbers_differ
from scoring_program.errors import ReferenceDataError, SubmissionError
from scoring_program.formats.files import Submission
from scoring_program.report.result import LOST
from scoring_program.tasks.voc2011_action import ACTIONS, TASK

# four persons, in ground-truth list order
PERSONS = [("2011_000001", 1), ("2011_000001", 3), ("2011_000002", 1), ("2011_000003", 2)]


def make_ref(tmp_path, labels=None, set_name="test"):
    """labels: {action: [label per person]}; other actions get [1, -1, -1, -1]."""
    ref = tmp_path / "ref" / "ImageSets" / "Action"
    ref.mkdir(parents=True)
    for act in ACTIONS:
        lab = (labels or {}).get(act, [1, -1, -1, -1])
        (ref / ("%s_%s.txt" % (act, set_name))).write_text(
            "".join("%s %d %d\n" % (i, o, l) for (i, o), l in zip(PERSONS, lab)))
    (ref / ("other_%s.txt" % set_name)).write_text("".join("%s %d -1\n" % p for p in PERSONS))
    return tmp_path / "ref"


def make_res(tmp_path, files, comp=9, set_name="test"):
    res = tmp_path / "res"
    res.mkdir(exist_ok=True)
    for act, text in files.items():
        (res / ("comp%d_action_%s_%s.txt" % (comp, set_name, act))).write_text(text)
    return res


def run(tmp_path, labels, files, **kw):
    ref = make_ref(tmp_path, labels)
    res = make_res(tmp_path, files, **kw)
    return TASK.score(str(ref), Submission(str(res)))


def lines(*rows):
    return "".join("%s %s %s\n" % r for r in rows)


def test_ties_keep_ground_truth_list_order(tmp_path):
    # persons 1 (negative) and 2 (positive) tie: the negative is ranked first -> AP 0.5, not 1
    r = run(tmp_path, {"phoning": [-1, 1, -1, -1]},
            {"phoning": lines(("2011_000001", 3, 0.5), ("2011_000001", 1, 0.5), ("2011_000002", 1, 0.1),
                              ("2011_000003", 2, 0.1))})
    assert r.scores["AP_phoning"] == pytest.approx(0.5)


def test_duplicate_person_last_line_wins(tmp_path):
    r = run(tmp_path, {"phoning": [-1, 1, -1, -1]},
            {"phoning": lines(("2011_000001", 3, 0.1), ("2011_000001", 1, 0.5), ("2011_000001", 3, 0.9))})
    assert r.scores["AP_phoning"] == 1.0                 # with the first line (0.1) it would be 0.5
    assert any("1 duplicate person line(s), first at line 3" in w for w in r.warnings)


def test_missing_persons_ranked_last_in_list_order(tmp_path):
    # only person 4 is mentioned; 1, 2, 3 follow at -inf in list order: TP, FP, TP, FP
    r = run(tmp_path, {"phoning": [-1, 1, -1, 1]}, {"phoning": lines(("2011_000003", 2, 0.9))})
    # rec .5 .5 1 1, prec 1 .5 .667 .5 -> AP = .5 * 1 + .5 * 2/3
    assert r.scores["AP_phoning"] == pytest.approx(0.5 + 0.5 * 2 / 3)


def test_unknown_person_is_an_error_naming_the_line(tmp_path):
    with pytest.raises(SubmissionError) as e:
        run(tmp_path, None, {"phoning": lines(("2011_000001", 1, 0.5), ("2011_000001", 2, 0.4))})
    msg = str(e.value)
    assert "comp9_action_test_phoning.txt, line 2" in msg and "1 unknown: '2011_000001 2'" in msg


def test_object_index_is_compared_as_a_number(tmp_path):
    r = run(tmp_path, {"phoning": [-1, 1, -1, -1]}, {"phoning": lines(("2011_000001", "03", 0.9))})
    assert r.scores["AP_phoning"] == 1.0


def test_object_index_must_be_an_integer(tmp_path):
    with pytest.raises(SubmissionError, match="line 1: expected an integer for the object index"):
        run(tmp_path, None, {"phoning": lines(("2011_000001", "1.0", 0.9))})


def test_empty_file_ranks_everyone_at_minus_inf_in_list_order(tmp_path):
    r = run(tmp_path, {"phoning": [-1, 1, -1, -1]}, {"phoning": ""})
    assert r.scores["AP_phoning"] == pytest.approx(0.5)  # FP then TP
    assert any("empty result file" in n for n in r.notes)


def test_missing_file_scores_zero_and_is_noted(tmp_path):
    r = run(tmp_path, None, {"phoning": lines(("2011_000001", 1, 0.9))})
    assert r.scores["AP_walking"] == 0.0
    assert r.scores["AP_phoning"] == 1.0
    assert r.scores["mAP"] == pytest.approx(1.0 / 10)
    assert any(n.startswith("walking: no result file") for n in r.notes)


def test_action_without_positives_has_no_ap_and_is_left_out_of_the_mean(tmp_path):
    r = run(tmp_path, {"jumping": [-1, -1, -1, -1]}, {"phoning": lines(("2011_000001", 1, 0.9)),
                                                      "jumping": lines(("2011_000001", 1, 0.9))})
    assert "AP_jumping" not in r.scores
    assert r.scores["mAP"] == pytest.approx(1.0 / 9)     # phoning 1, seven missing files 0, jumping omitted
    assert any(n.startswith("n/a: no positive person for jumping") for n in r.notes)


def test_label_zero_is_neither_tp_nor_fp_but_keeps_its_rank(tmp_path):
    r = run(tmp_path, {"phoning": [0, 1, -1, -1]},
            {"phoning": lines(("2011_000001", 1, 0.9), ("2011_000001", 3, 0.8), ("2011_000002", 1, 0.7))})
    assert r.scores["AP_phoning"] == 1.0


def test_other_is_never_scored(tmp_path):
    r = run(tmp_path, None, {"phoning": lines(("2011_000001", 1, 0.9)), "other": "garbage line\n"})
    assert "AP_other" not in r.scores
    assert any("comp9_action_test_other.txt" in n and "never evaluated" in n for n in r.notes)


def test_comp9_and_comp10_cannot_be_mixed(tmp_path):
    ref = make_ref(tmp_path)
    make_res(tmp_path, {"phoning": ""}, comp=9)
    res = make_res(tmp_path, {"walking": ""}, comp=10)
    with pytest.raises(SubmissionError, match="may not mix comp9 and comp10"):
        TASK.score(str(ref), Submission(str(res)))


def test_reference_person_listed_twice_is_a_reference_error(tmp_path):
    ref = make_ref(tmp_path)
    f = ref / "ImageSets" / "Action" / "phoning_test.txt"
    f.write_text(f.read_text() + "2011_000003 02 1\n")
    res = make_res(tmp_path, {"phoning": ""})
    with pytest.raises(ReferenceDataError, match="listed twice"):
        TASK.score(str(ref), Submission(str(res)))


def test_validate_without_reference(tmp_path):
    res = make_res(tmp_path, {"phoning": lines(("2011_000001", 1, 0.9)), "other": ""})
    notes = TASK.validate(Submission(str(res)))
    assert notes[0] == "comp9, set 'test', 1 of 10 actions"
    (res / "comp9_action_test_walking.txt").write_text("2011_000001 x 0.5\n")
    with pytest.raises(SubmissionError, match="expected an integer for the object index"):
        TASK.validate(Submission(str(res)))


# ---- oracle: VOCevalaction.m and VOCap.m, loop for loop ------------------------------------------------------

def devkit_action_ap(gt_keys, gt, res_keys, conf):
    out = [-np.inf] * len(gt_keys)
    pos = {k: j for j, k in enumerate(gt_keys)}
    for k, c in zip(res_keys, conf):
        out[pos[k]] = c                                   # last line wins
    si = sorted(range(len(out)), key=lambda j: -out[j])   # Python's sort is stable, as MATLAB's
    tp = np.cumsum([1 if gt[j] > 0 else 0 for j in si])
    fp = np.cumsum([1 if gt[j] < 0 else 0 for j in si])
    npos = sum(1 for g in gt if g > 0)
    rec = tp / npos
    with np.errstate(invalid="ignore"):
        prec = tp / (tp + fp)
    mrec = [0.0] + list(rec) + [1.0]
    mpre = [0.0] + list(prec) + [0.0]
    for i in range(len(mpre) - 2, -1, -1):
        a, b = mpre[i], mpre[i + 1]
        mpre[i] = b if a != a else (a if b != b else max(a, b))   # MATLAB max ignores NaN
    return sum((mrec[i] - mrec[i - 1]) * mpre[i] for i in range(1, len(mrec)) if mrec[i] != mrec[i - 1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([1, -1, 0]), min_size=4, max_size=4).filter(lambda l: 1 in l),
       st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0.1, 0.5, 0.9, -2.0])), max_size=8))
def test_matches_the_devkit_loops(tmp_path_factory, gt, rows):
    tmp_path = tmp_path_factory.mktemp("oracle")
    text = lines(*[(PERSONS[j][0], PERSONS[j][1], c) for j, c in rows])
    r = run(tmp_path, {"reading": gt}, {"reading": text})
    keys = ["%s/%d" % p for p in PERSONS]
    expected = devkit_action_ap(keys, gt, [keys[j] for j, _ in rows], [c for _, c in rows])
    assert r.scores["AP_reading"] == pytest.approx(expected, abs=1e-12)


def test_read_result_maps_persons(tmp_path):
    f = tmp_path / "r.txt"
    f.write_text("b 2 0.3\na 1 0.7\n")
    keys = np.array([b"a 1", b"b 2", b"c 1"])
    cf = TASK.read_result(str(f), "r.txt", keys)
    assert cf.confidence.tolist() == [0.7, 0.3, -np.inf] and cf.nlines == 2 and cf.nduplicates == 0
    assert os.path.exists(str(f))


# ---------------------------------------------------------------- the report: bars, "where the points were lost", privacy
PHONING_TIES = {"phoning": lines(("2011_000002", 1, 0.9), ("2011_000003", 2, 0.5), ("2011_000001", 3, 0.5))}


def test_precision_at_half_recall_from_the_same_ranking_as_the_ap(tmp_path):
    # GT [0, 1, -1, 1]; person 3 (n) .9, persons 2 and 4 (p) tie at .5 and keep list order, person 1 (label 0)
    # absent, at -inf: n p p 0 -> rec 0 .5 1 1, prec 0 .5 2/3 2/3 -> AP 2/3; P@50 = max(.5, 2/3, 2/3) = 2/3;
    # lost over recall 0-.5: .5 - .5 * 2/3 = 1/6, over .5-1: 1/6
    r = run(tmp_path, {"phoning": [0, 1, -1, 1]}, PHONING_TIES)
    assert r.scores["AP_phoning"] == pytest.approx(2 / 3)
    bars = r.bars[0]
    k = bars.labels.index("phoning")
    assert bars.extra[k] == pytest.approx(2 / 3)
    assert bars.value_text[k] == "0.6667 (P@50%R 0.6667)"
    table = [b for b in r.section(LOST).blocks if not isinstance(b, str)][0]
    assert [row for row in table.rows if row[0] == "phoning"] == [["phoning", "0.6667", "0.6667", "0.1667",
                                                                    "0.1667"]]
    assert [row for row in table.rows if row[0] == "walking"] == [["walking", "0.0000", "n/a", "n/a", "n/a"]]


def test_private_report_lists_persons_only_when_asked(tmp_path):
    ref = make_ref(tmp_path, {"phoning": [0, 1, -1, 1]})
    res = make_res(tmp_path, PHONING_TIES)
    assert TASK.score(str(ref), Submission(str(res))).private == []
    positives, negatives = TASK.score(str(ref), Submission(str(res)), private=True).private
    assert positives.rows == [["phoning", "2011_000001 3", 2, "0.5", 1], ["phoning", "2011_000003 2", 3, "0.5", 1]]
    assert negatives.rows == [["phoning", "2011_000002 1", 1, "0.9", 2]]
    assert positives.header[1] == "person (image id, object index)"


def test_report_shows_no_person_label(tmp_path):
    def flip_one_person(ref):
        path = os.path.join(ref, "ImageSets", "Action", "jumping_test.txt")
        with open(path) as f:
            first, rest = f.read().split("\n", 1)
        image, index, label = first.split()
        assert label != "0"
        with open(path, "w") as f:
            f.write("%s %s %d\n%s" % (image, index, -int(label), rest))       # one person's label negated
    only_numbers_differ("voc2011-action", flip_one_person, tmp_path)


def test_report_names_no_test_image(tmp_path):
    with open(os.path.join(ROOT, "reference_data", "voc2011-action", "ImageSets", "Action", "jumping_test.txt")) as f:
        ids = sorted({line.split()[0] for line in f if line.strip()})
    assert len(ids) >= 20
    no_item_ids("voc2011-action", ids, tmp_path)


# ---------------------------------------------------------------- a private part withheld from the bundle (issue 29)
def test_withheld_person_is_blanked_and_scored_as_if_never_listed(tmp_path):
    # persons P1 (2011_000001 1), P2 (2011_000001 3), P3 (2011_000002 1), P4 (2011_000003 2); P2 withheld.
    # phoning: P1 +, P2 +, P3 -, P4 0; every other action: P2 + alone.
    # Public part: phoning ranks P3 (.8, n), P1 (.7, p), P4 (.6, neither) -> rec 0 1 1, prec 0 1/2 1/2 -> AP 1/2;
    # the nine other actions have no public positive: n/a, left out. mAP = 1/2.
    # (Whole list: P2 (.9, p) first -> rec 1/2 1/2 1 1, prec 1 1/2 2/3 2/3 -> AP 5/6; nine APs 0 -> mAP 1/12.)
    labels = {a: [-1, 1, -1, -1] for a in ACTIONS}
    labels["phoning"] = [1, 1, -1, 0]
    ref = make_ref(tmp_path, labels)
    res = make_res(tmp_path, {"phoning": "2011_000001 03 0.9\n2011_000002 1 0.8\n2011_000001 1 0.7\n"
                                         "2011_000003 2 0.6\n"})     # '03': the object index is a number
    public = tmp_path / "public_ref"
    public.mkdir()
    reference = TASK.load_reference(str(ref))
    assert TASK.item_ids(reference) == ["%s %d" % p for p in PERSONS]
    TASK.withhold(reference, {"2011_000001 3"}, str(public))
    (public / "WITHHELD").write_text("2011_000001 3\n")
    action = public / "ImageSets" / "Action"
    assert (action / "phoning_test.txt").read_bytes() == b"2011_000001 1 1\n2011_000001 3 0\n2011_000002 1 -1\n" \
                                                          b"2011_000003 2 0\n"
    assert (action / "jumping_test.txt").read_bytes() == b"2011_000001 1 -1\n2011_000001 3 0\n2011_000002 1 -1\n" \
                                                          b"2011_000003 2 -1\n"
    assert sorted(os.listdir(str(action))) == sorted("%s_test.txt" % a for a in ACTIONS)   # 'other' is never read
    whole = TASK.score(str(ref), Submission(str(res)))
    r = TASK.score(str(public), Submission(str(res)))
    assert whole.scores["AP_phoning"] == pytest.approx(5 / 6) and whole.scores["mAP"] == pytest.approx(1 / 12)
    assert r.scores == {"mAP": 0.5, "AP_phoning": 0.5}
    # the same as a reference that never listed P2, and a submission without its line
    cut = tmp_path / "cut" / "ImageSets" / "Action"
    cut.mkdir(parents=True)
    for a in ACTIONS:
        rows = (ref / "ImageSets" / "Action" / ("%s_test.txt" % a)).read_bytes().split(b"\n")
        (cut / ("%s_test.txt" % a)).write_bytes(b"\n".join(rows[:1] + rows[2:]))
    cut_res = tmp_path / "cut_res"
    cut_res.mkdir()
    (cut_res / "comp9_action_test_phoning.txt").write_text("2011_000002 1 0.8\n2011_000001 1 0.7\n2011_000003 2 0.6\n")
    assert TASK.score(str(tmp_path / "cut"), Submission(str(cut_res))).scores == r.scores
