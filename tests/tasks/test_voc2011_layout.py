"""voc2011-layout: hand-computed VOCevallayout_pr.m scenarios, the results XML parser, the task, and a
pure-Python oracle of the layout rules compared on random data with hypothesis."""
import math
import os
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.synth.voc2011_detection import annotation_xml
from conftest import ROOT
from privacy import no_item_ids, only_numbers_differ
from bench.synth.voc2011_layout import layouts_xml
from scoring_program.errors import SubmissionError
from scoring_program.formats.files import Submission
from scoring_program.formats.voc_xml import parse_layout_results
from scoring_program.metrics.ap import pr_curve
from scoring_program.metrics.layout import PartErrors, layout_errors, select_layouts, voc_layout_ap
from scoring_program.report.result import LOST
from scoring_program.tasks.voc2011_layout import TASK
from test_voc2011_detection import oracle_vocap

PARTS = ("head", "hand", "foot")


# ---- oracle ---------------------------------------------------------------------------------------------------

def _ov(bb, bbgt):
    iw = min(bb[2], bbgt[2]) - max(bb[0], bbgt[0]) + 1
    ih = min(bb[3], bbgt[3]) - max(bb[1], bbgt[1]) + 1
    if iw > 0 and ih > 0:
        ua = (bb[2] - bb[0] + 1) * (bb[3] - bb[1] + 1) + (bbgt[2] - bbgt[0] + 1) * (bbgt[3] - bbgt[1] + 1) - iw * ih
        return iw * ih / ua
    return -math.inf


def oracle_walk(gt, layouts):
    """gt: [[(class, box)] per person]; layouts: [(person or None, confidence, [(class, box)])] in XML order.
    Yields (class, the person has a GT part of the class, best overlap, ok) per evaluated part, one loop per
    layout and part as the devkit walks them."""
    order = sorted(range(len(layouts)), key=lambda i: -layouts[i][1])
    seen = set()
    for k in order:
        p, _, parts = layouts[k]
        if p is None or p in seen:
            continue
        seen.add(p)
        taken = set()
        for c, box in parts:
            best, jbest, has = -math.inf, None, False
            for j, (gc, gb) in enumerate(gt[p]):
                if gc == c:
                    has = True
                    ov = _ov(box, gb)
                    if ov > best:
                        best, jbest = ov, j
            ok = best >= 0.5 and jbest not in taken
            if ok:
                taken.add(jbest)
            yield c, has, best, ok


def oracle_layout(gt, layouts):
    """Per class (tp list, fp list, ap or None) by oracle_walk."""
    flags = {c: ([], []) for c in range(3)}
    for c, _, _, ok in oracle_walk(gt, layouts):
        flags[c][0].append(int(ok))
        flags[c][1].append(int(not ok))
    out = []
    for c in range(3):
        tp, fp = flags[c]
        npos = sum(1 for parts in gt for gc, _ in parts if gc == c)
        if npos == 0:
            out.append((tp, fp, None))
            continue
        ctp, cfp = np.cumsum(tp, dtype=float), np.cumsum(fp, dtype=float)
        out.append((tp, fp, oracle_vocap([t / npos for t in ctp], [t / (t + f) for t, f in zip(ctp, cfp)])))
    return out


def run_metric(gt, layouts):
    person = np.array([-1 if p is None else p for p, _, _ in layouts], dtype=np.int64)
    conf = np.array([c for _, c, _ in layouts], dtype=float)
    pl, pc, pb = [], [], []
    for k, (_, _, parts) in enumerate(layouts):
        for c, b in parts:
            pl.append(k)
            pc.append(c)
            pb.append(b)
    gp, gc, gb = [], [], []
    for p, parts in enumerate(gt):
        for c, b in parts:
            gp.append(p)
            gc.append(c)
            gb.append(b)
    kept, unknown, repeated = select_layouts(person, conf)
    per = voc_layout_ap(kept, person, pl, pc, np.array(pb, float).reshape(-1, 4), gp, gc,
                        np.array(gb, float).reshape(-1, 4), len(gt))
    return [(tp.astype(int).tolist(), fp.astype(int).tolist(), ap) for ap, rec, prec, tp, fp in per], unknown, repeated


HEAD, HAND, FOOT = 0, 1, 2


# ---- hand-computed scenarios ----------------------------------------------------------------------------------

def test_two_predicted_hands_on_one_true_hand_give_one_tp_one_fp():
    gt = [[(HAND, (1, 1, 10, 10)), (HAND, (100, 100, 110, 110))]]
    # both predictions sit on the first hand; the second true hand is free but there is no fallback
    layouts = [(0, 1.0, [(HAND, (1, 1, 10, 10)), (HAND, (1, 1, 10, 11))])]
    per, _, _ = run_metric(gt, layouts)
    assert per[HAND][:2] == ([1, 0], [0, 1])
    assert per[HAND][2] == pytest.approx(0.5 * 1.0)       # rec .5 at prec 1, then a FP: AP 0.5
    assert per == [tuple(x) for x in oracle_layout(gt, layouts)]


def test_duplicate_layout_for_a_person_is_skipped_not_a_false_positive():
    gt = [[(HEAD, (1, 1, 10, 10))]]
    layouts = [(0, 0.2, [(HEAD, (50, 50, 60, 60))]), (0, 0.9, [(HEAD, (1, 1, 10, 10))]), (None, 0.5, [(HEAD, (1, 1, 10, 10))])]
    per, unknown, repeated = run_metric(gt, layouts)
    # the higher-ranked layout (second in XML) is evaluated; the first in XML is skipped, as is the unknown person
    assert per[HEAD][:2] == ([1], [0]) and per[HEAD][2] == 1.0
    assert repeated.tolist() == [0] and unknown.tolist() == [2]


def test_equal_confidence_layouts_keep_xml_order():
    gt = [[(HEAD, (1, 1, 10, 10))]]
    layouts = [(0, 0.5, [(HEAD, (50, 50, 60, 60))]), (0, 0.5, [(HEAD, (1, 1, 10, 10))])]
    per, _, repeated = run_metric(gt, layouts)
    assert per[HEAD][:2] == ([0], [1]) and repeated.tolist() == [1]     # the first in XML order wins the tie


def test_part_class_absent_from_person_is_false_positive_and_np_zero_gives_no_ap():
    gt = [[(HEAD, (1, 1, 10, 10))]]
    per, _, _ = run_metric(gt, [(0, 1.0, [(HEAD, (1, 1, 10, 10)), (FOOT, (1, 1, 10, 10))])])
    assert per[HEAD][2] == 1.0
    assert per[FOOT][:2] == ([0], [1]) and per[FOOT][2] is None      # predictions but np = 0: no AP
    assert per[HAND] == ([], [], None)


def test_class_with_gt_but_no_prediction_scores_zero():
    gt = [[(HEAD, (1, 1, 10, 10)), (HAND, (1, 1, 10, 10))]]
    per, _, _ = run_metric(gt, [(0, 1.0, [(HEAD, (1, 1, 10, 10))])])
    assert per[HAND] == ([], [], 0.0)


def test_exact_half_overlap_matches_a_part():
    gt = [[(HEAD, (1, 1, 10, 10))]]
    assert run_metric(gt, [(0, 1.0, [(HEAD, (1, 1, 10, 20))])])[0][HEAD][2] == 1.0
    assert run_metric(gt, [(0, 1.0, [(HEAD, (1, 1, 10, 21))])])[0][HEAD][2] == 0.0


def test_parts_of_one_layout_rank_in_xml_order():
    # same confidence for all parts of a layout: XML order decides who claims the hand
    gt = [[(HAND, (1, 1, 10, 10))]]
    per, _, _ = run_metric(gt, [(0, 1.0, [(HAND, (1, 1, 10, 11)), (HAND, (1, 1, 10, 10))])])
    assert per[HAND][:2] == ([1, 0], [0, 1])


# ---- oracle on random data --------------------------------------------------------------------------------------

coord = st.integers(0, 10)


@st.composite
def boxes(draw):
    x1, y1 = draw(coord), draw(coord)
    return (x1, y1, x1 + draw(st.integers(0, 6)), y1 + draw(st.integers(0, 6)))


@st.composite
def scenes(draw):
    n = draw(st.integers(1, 4))
    gt = [draw(st.lists(st.tuples(st.integers(0, 2), boxes()), max_size=4)) for _ in range(n)]
    layouts = draw(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, n - 1)), st.sampled_from([0.1, 0.5, 0.9]),
                                      st.lists(st.tuples(st.integers(0, 2), boxes()), max_size=4)), max_size=8))
    return gt, layouts


@settings(max_examples=300, deadline=None)
@given(scenes())
def test_matches_the_layout_oracle(scene):
    gt, layouts = scene
    per, _, _ = run_metric(gt, layouts)
    for (tp, fp, ap), (otp, ofp, oap) in zip(per, oracle_layout(gt, layouts)):
        assert tp == otp and fp == ofp
        assert (ap is None) == (oap is None)
        if ap is not None:
            assert ap == pytest.approx(oap, rel=1e-12, abs=1e-15)


# ---- parser ---------------------------------------------------------------------------------------------------

ONE = layouts_xml([("2011_000001", 1, 0.5, [("head", (1, 2, 30, 40)), ("hand", (5, 6, 7, 8))])])


def test_parse_layout_results_fields_in_xml_order():
    lr = parse_layout_results(('<?xml version="1.0"?>\n<!-- x -->\n' + ONE.replace("<layout>", '<layout id="a">'))
                              .encode(), "f.xml")
    assert lr.image == ["2011_000001"] and lr.object.tolist() == [1] and lr.confidence.tolist() == [0.5]
    assert lr.part_class.tolist() == [0, 1] and lr.part_box.tolist() == [[1, 2, 30, 40], [5, 6, 7, 8]]


@pytest.mark.parametrize("doc,line,text", [
    (ONE.replace("<class>head</class>", "<class>torso</class>"), 7, "expected a part class head, hand or foot"),
    (ONE.replace("<confidence>0.5</confidence>", "<confidence>inf</confidence>"), 5, "a finite number"),
    (ONE.replace("        <ymax>40</ymax>\n", ""), 8, "expected exactly one <ymax> in <bndbox>"),
    (ONE.replace("<image>2011_000001</image>", ""), 2, "expected exactly one <image>"),
    (ONE.replace("</results>", ""), 26, "not well-formed"),
    ('<!DOCTYPE r [<!ENTITY a "aaaa">]>\n' + ONE, 1, "without a DTD"),
    (ONE.replace("<results>", "<layouts>").replace("</results>", "</layouts>"), 1, "the root element <results>"),
])
def test_parse_layout_results_errors_name_the_line(doc, line, text):
    with pytest.raises(SubmissionError) as e:
        parse_layout_results(doc.encode(), "comp7_layout_test.xml")
    msg = str(e.value)
    assert "comp7_layout_test.xml" in msg and "line %d" % line in msg and text in msg, msg


def test_empty_results_file_is_an_error_but_empty_results_element_scores_zero(tmp_path):
    with pytest.raises(SubmissionError) as e:
        parse_layout_results(b"", "comp7_layout_test.xml")
    assert "an empty file" in str(e.value)
    assert len(parse_layout_results(b"<results/>", "f")) == 0


# ---- the task end to end ----------------------------------------------------------------------------------------

@pytest.fixture
def ref(tmp_path):
    root = str(tmp_path / "ref")
    objs = {"2011_000001": [{"name": "chair", "box": (1, 1, 5, 5)},
                            {"name": "person", "box": (1, 1, 100, 100),
                             "parts": [("head", (1, 1, 10, 10)), ("hand", (20, 20, 30, 30))]}]}
    os.makedirs(os.path.join(root, "ImageSets", "Layout"))
    os.makedirs(os.path.join(root, "Annotations"))
    with open(os.path.join(root, "ImageSets", "Layout", "test.txt"), "w") as f:
        f.write("2011_000001 2\n")          # the person is the SECOND object: indices count all objects
    with open(os.path.join(root, "Annotations", "2011_000001.xml"), "w") as f:
        f.write(annotation_xml("2011_000001", objs["2011_000001"]))
    return root


def sub_with(tmp_path, files):
    res = tmp_path / "res"
    for name, text in files.items():
        (res / name).parent.mkdir(parents=True, exist_ok=True)
        (res / name).write_text(text)
    return Submission(str(res))


def test_task_duplicate_and_unknown_layouts_warned_and_skipped(ref, tmp_path):
    doc = layouts_xml([("2011_000001", 2, 0.9, [("head", (1, 1, 10, 10)), ("hand", (20, 20, 30, 30))]),
                       ("2011_000001", 2, 0.1, [("head", (50, 50, 60, 60))]),
                       ("2011_000001", 1, 0.5, [("head", (1, 1, 10, 10))])])
    res = TASK.score(ref, sub_with(tmp_path, {"comp7_layout_test.xml": doc}))
    assert res.scores["AP_head"] == 1.0 and res.scores["AP_hand"] == 1.0
    assert "AP_foot" not in res.scores and res.scores["mAP"] == 1.0
    assert len(res.warnings) == 2
    assert any("later layout" in w and "line 25" in w for w in res.warnings)
    assert any("not in the test list" in w for w in res.warnings)
    assert any("n/a: no GT foot part" in n for n in res.notes)


def test_task_missing_results_file_is_an_error(ref, tmp_path):
    with pytest.raises(SubmissionError) as e:
        TASK.score(ref, sub_with(tmp_path, {"readme.txt": "x"}))
    assert "comp7_layout_test.xml" in str(e.value)


def test_task_unknown_part_class_is_an_error(ref, tmp_path):
    doc = layouts_xml([("2011_000001", 2, 0.9, [("elbow", (1, 1, 10, 10))])])
    with pytest.raises(SubmissionError) as e:
        TASK.score(ref, sub_with(tmp_path, {"comp8_layout_test.xml": doc}))
    assert "line 7" in str(e.value) and "'elbow'" in str(e.value)


def test_task_validate_reports_counts(tmp_path):
    notes = TASK.validate(sub_with(tmp_path, {"comp7_layout_val.xml": ONE}))
    assert notes == ["comp7, set 'val': 1 layouts, 2 parts"]


def test_fast_parser_and_line_keeping_parser_agree_on_the_sample(root):
    path = os.path.join(root, "starting_kit", "voc2011-layout", "submissions", "random", "comp7_layout_test.xml")
    with open(path, "rb") as f:
        data = f.read()
    a = parse_layout_results(data, "f")
    b = parse_layout_results(data, "f", with_lines=True)
    assert a.image == b.image and len(a) > 30
    for k in ("object", "confidence", "part_layout", "part_class", "part_box"):
        assert np.array_equal(getattr(a, k), getattr(b, k)), k
    assert b.line[0] == 2 and (b.part_line > 0).all()


# ---- where the points were lost (metrics.layout.layout_errors) ----------------------------------------------------

def run_errors(gt, layouts):
    person = np.array([-1 if p is None else p for p, _, _ in layouts], dtype=np.int64)
    conf = np.array([c for _, c, _ in layouts], dtype=float)
    pl = [k for k, (_, _, parts) in enumerate(layouts) for _ in parts]
    pc = [c for _, _, parts in layouts for c, _ in parts]
    pb = np.array([b for _, _, parts in layouts for _, b in parts], float).reshape(-1, 4)
    gp = [p for p, parts in enumerate(gt) for _ in parts]
    gc = [c for parts in gt for c, _ in parts]
    gb = np.array([b for parts in gt for _, b in parts], float).reshape(-1, 4)
    kept, _, _ = select_layouts(person, conf)
    return layout_errors(kept, person, pl, pc, pb, gp, gc, gb, len(gt))


def test_layout_errors_hand_computed():
    gt = [[(HEAD, (1, 1, 10, 10)), (HAND, (20, 20, 30, 30)), (HAND, (40, 40, 50, 50))],       # person 0
          [(HEAD, (1, 1, 10, 10)), (FOOT, (60, 60, 70, 70)), (FOOT, (80, 80, 90, 90))],       # person 1
          [(HEAD, (1, 1, 10, 10))]]                                                           # person 2: no layout
    layouts = [(0, 0.9, [(HEAD, (1, 1, 10, 10)),        # TP
                         (HAND, (20, 20, 30, 30)),      # TP (the first hand)
                         (HAND, (20, 20, 30, 31)),      # overlap >= 0.5 with the first hand, already taken: FP
                         (FOOT, (1, 1, 5, 5))]),        # person 0 has no foot: FP
               (1, 0.8, [(HEAD, (100, 100, 110, 110)),  # disjoint from the head: FP (overlap)
                         (HAND, (1, 1, 10, 10)),        # person 1 has no hand: FP
                         (FOOT, (60, 60, 70, 75))]),    # 121 / 176 = 0.69 with the first foot: TP
               (None, 0.7, [(HEAD, (1, 1, 10, 10))]),   # not a listed person: skipped
               (0, 0.5, [(HEAD, (1, 1, 10, 10))])]      # person 0's second layout: skipped
    errors, persons = run_errors(gt, layouts)
    assert errors[HEAD] == PartErrors(predicted=2, tp=1, fp_no_gt_part=0, fp_overlap=1, fp_taken=0, gt=3,
                                      missed_no_layout=1, missed_in_layout=1, persons_with_layout=2,
                                      too_many=0, too_few=0)
    # hands: person 0 has 2 predicted and 2 GT (same count, yet one FP); person 1 has 1 predicted, 0 GT
    assert errors[HAND] == PartErrors(predicted=3, tp=1, fp_no_gt_part=1, fp_overlap=0, fp_taken=1, gt=2,
                                      missed_no_layout=0, missed_in_layout=1, persons_with_layout=2,
                                      too_many=1, too_few=0)
    # feet: person 0 has 1 predicted, 0 GT (too many); person 1 has 1 predicted, 2 GT (too few)
    assert errors[FOOT] == PartErrors(predicted=2, tp=1, fp_no_gt_part=1, fp_overlap=0, fp_taken=0, gt=2,
                                      missed_no_layout=0, missed_in_layout=1, persons_with_layout=2,
                                      too_many=1, too_few=1)
    assert persons.gt.tolist() == [[1, 2, 0], [1, 0, 2], [1, 0, 0]]
    assert persons.predicted.tolist() == [[1, 2, 1], [1, 1, 1], [0, 0, 0]]
    assert persons.tp.tolist() == [[1, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert persons.layout.tolist() == [0, 1, -1]
    per, _, _ = run_metric(gt, layouts)                 # the same matching as the AP
    assert [sum(tp) for tp, _, _ in per] == [e.tp for e in errors]


def oracle_errors(gt, layouts):
    """Per class [no GT part, overlap < 0.5, taken] FP counts, by oracle_walk."""
    out = [[0, 0, 0] for _ in range(3)]
    for c, has, best, ok in oracle_walk(gt, layouts):
        if not ok:
            out[c][0 if not has else 1 if best < 0.5 else 2] += 1
    return out


@settings(max_examples=200, deadline=None)
@given(scenes())
def test_layout_errors_add_up_and_match_the_oracle(scene):
    gt, layouts = scene
    errors, persons = run_errors(gt, layouts)
    per, _, _ = run_metric(gt, layouts)
    for c, (e, (tp, fp, _), fps) in enumerate(zip(errors, per, oracle_errors(gt, layouts))):
        assert e.tp == sum(tp) and e.predicted == len(tp)
        assert [e.fp_no_gt_part, e.fp_overlap, e.fp_taken] == fps and sum(fps) == sum(fp)
        assert e.gt == e.tp + e.missed_no_layout + e.missed_in_layout
        assert int(persons.tp[:, c].sum()) == e.tp and int(persons.predicted[:, c].sum()) == e.predicted


# ---- the report -------------------------------------------------------------------------------------------------

def test_report_bars_curves_lost_tables_and_private_person_table(ref, tmp_path):
    doc = layouts_xml([("2011_000001", 2, 0.9, [("head", (1, 1, 10, 10)), ("hand", (20, 20, 30, 30)),
                                                ("hand", (20, 20, 30, 31)), ("foot", (1, 1, 10, 10))])])
    sub = sub_with(tmp_path, {"comp7_layout_test.xml": doc})
    res = TASK.score(ref, sub)
    assert res.private == []
    assert res.scores["AP_head"] == 1.0 and res.scores["AP_hand"] == 1.0
    (bars,) = res.bars
    assert bars.labels == ["head", "hand"] and bars.values == [1.0, 1.0]          # no foot GT: no AP, no bar
    assert [p.title for p in res.plots] == ["head", "hand"] and not res.plots[1].series
    assert "within 0.01 of the AP" in res.plots[1].note    # TP then FP: one block would shade 0.5 for AP 1
    gt_parts, predicted, persons = res.section(LOST).blocks
    assert gt_parts.rows == [["head", 1, 1, 0, 0], ["hand", 1, 1, 0, 0], ["foot", 0, 0, 0, 0]]
    assert predicted.rows == [["head", 1, 1, 0, 0, 0], ["hand", 2, 1, 0, 0, 1], ["foot", 1, 0, 1, 0, 0]]
    assert persons.rows == [["head", 1, 0, 0], ["hand", 1, 1, 0], ["foot", 1, 1, 0]]
    (table,) = TASK.score(ref, sub, private=True).private
    assert table.header[:3] == ["image", "object", "layout confidence"]
    assert table.rows == [["2011_000001", 2, 0.9, "1/1/0", "1/2/1", "1/1/0"]]


def test_private_person_table_says_none_without_a_layout(ref, tmp_path):
    res = TASK.score(ref, sub_with(tmp_path, {"comp7_layout_test.xml": "<results/>"}), private=True)
    assert res.private[0].rows == [["2011_000001", 2, "none", "1/1/0", "0/0/0", "0/0/0"]]
    assert res.section(LOST).blocks[0].rows[0] == ["head", 1, 0, 1, 0]         # missed: no layout for the person


# ---- privacy (issue 12) -------------------------------------------------------------------------------------------

SLUG = "voc2011-layout"


def test_participant_sees_no_per_person_parts(tmp_path):
    """The last foot of one person becomes a hand (both classes stay in the set): only numbers may change. A
    per-person listing of part names would show it; per-person counts are caught by the id test below."""
    def one_foot_becomes_a_hand(ref):
        path = os.path.join(ref, "Annotations", "2011_000002.xml")
        with open(path) as f:
            text = f.read()
        at = text.rindex("<name>foot</name>")
        with open(path, "w") as f:
            f.write(text[:at] + "<name>hand</name>" + text[at + len("<name>foot</name>"):])
    only_numbers_differ(SLUG, one_foot_becomes_a_hand, tmp_path)


def test_participant_sees_no_test_person_id(tmp_path):
    with open(os.path.join(ROOT, "reference_data", SLUG, "ImageSets", "Layout", "test.txt")) as f:
        ids = sorted(set(line.split()[0] for line in f if line.strip()))
    assert len(ids) >= 20
    no_item_ids(SLUG, ids, tmp_path, submission="perfect")


# ---- the bootstrap's weighted persons (issue 13) --------------------------------------------------------------

def test_weighted_layout_ap_by_hand():
    """Hand class. Person A: 1 GT hand, a layout (rank 1) with 2 hands on it: TP then FP (taken). Person B: 1 GT
    hand, a layout (rank 2) with 1 right hand: TP. Ranked list A+ A- B+.
    weights (1, 1): A+ A- B+, npos 2: precision at the TPs 1, 2/3 -> AP (1 + 2/3) / 2 = 5/6.
    weights (2, 1): A's layout twice, the copy right after it: A+ A- A+ A- B+, npos 3: precision at the TPs 1, 2/3,
    3/5, envelope the same -> AP (1 + 2/3 + 3/5) / 3 = 34/45. (Part by part copies A+ A+ A- A- B+ would give
    (1 + 1 + 3/5) / 3 = 13/15: the block is copied whole.)
    weights (0, 1): B+ alone -> 1. weights (1, 0): A+ A-, npos 1 -> 1. weights (0, 0): no GT hand -> NaN.
    weights (3, 0): (A+ A-) x 3, npos 3: precision 1, 2/3, 3/5 -> 34/45 as well."""
    from scoring_program.metrics.layout import WeightedLayoutAP
    ap = WeightedLayoutAP([0, 0, 1], [True, False, True], [False, True, False], [1, 1])
    got = ap(np.array([[1., 1], [2, 1], [0, 1], [1, 0], [0, 0], [3, 0]]))
    assert np.allclose(got[[0, 1, 2, 3, 5]], [5 / 6., 34 / 45., 1.0, 1.0, 34 / 45.], rtol=0, atol=1e-15)
    assert np.isnan(got[4])


def _block_repeat_vocap(person, lab, weights):
    """VOCap on the list where each person's block (its consecutive parts) is written weights[person] times in a
    row: the oracle of WeightedLayoutAP."""
    expanded, k = [], 0
    while k < len(person):
        end = k
        while end < len(person) and person[end] == person[k]:
            end += 1
        expanded += list(lab[k:end]) * int(weights[person[k]])
        k = end
    return expanded


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.lists(st.sampled_from([1, -1]), min_size=1, max_size=4)),
                min_size=1, max_size=6),
       st.lists(st.integers(0, 4), min_size=6, max_size=6), st.lists(st.integers(0, 2), min_size=6, max_size=6))
def test_weighted_layout_ap_is_vocap_on_the_list_with_copied_blocks(blocks, weights, extra_gt):
    from scoring_program.metrics.layout import WeightedLayoutAP
    person, lab = [], []
    for p, (_, labels) in enumerate(blocks):
        person += [p] * len(labels)
        lab += labels
    n = 6
    npos = np.array([sum(1 for x in b[1] if x > 0) for b in blocks] + [0] * (n - len(blocks))) + extra_gt
    w = np.array(weights, dtype=float)
    got = WeightedLayoutAP(person, np.array(lab) > 0, np.array(lab) < 0, npos)(np.vstack([w, np.ones(n)]))
    for row, wr in zip(got, (w, np.ones(n))):
        expanded = np.array(_block_repeat_vocap(person, lab, wr))
        total = float(wr @ npos)
        if total == 0:
            assert np.isnan(row)
        else:
            rec, prec = pr_curve(expanded > 0, expanded < 0, total)
            assert abs(row - oracle_vocap(rec.tolist(), prec.tolist())) <= 1e-12


def _write_layout_case(root, objs, listed, layouts):
    """ref/ (ImageSets/Layout/test.txt listing `listed` [(image, object)], Annotations of every image in objs) and
    res/comp7_layout_test.xml of `layouts`."""
    ref = os.path.join(root, "ref")
    os.makedirs(os.path.join(ref, "ImageSets", "Layout"))
    os.makedirs(os.path.join(ref, "Annotations"))
    with open(os.path.join(ref, "ImageSets", "Layout", "test.txt"), "w") as f:
        f.write("".join("%s %d\n" % p for p in listed))
    for image_id, lst in objs.items():
        with open(os.path.join(ref, "Annotations", image_id + ".xml"), "w") as f:
            f.write(annotation_xml(image_id, lst))
    res = os.path.join(root, "res")
    os.makedirs(res)
    with open(os.path.join(res, "comp7_layout_test.xml"), "w") as f:
        f.write(layouts_xml(layouts))
    return ref, Submission(res)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2 ** 31 - 1))
def test_weight_k_is_the_person_copied_k_times_by_the_scorer(tmp_path_factory, seed):
    """A person of weight k == the same person listed k times (copies of its image, and of each of its layouts
    written right after the original); weight 0 == the person left out of the list. Checked against the official
    score of the rewritten reference and submission."""
    from bench.synth.voc2011_layout import make_persons, predictions
    rng = np.random.RandomState(seed)
    ids, objs, persons = make_persons(6, seed)
    layouts = predictions(objs, persons, rng, jitter=1.0)
    layouts = [(i, o, float(rng.choice([0.25, 0.5, 0.75])), parts) for i, o, _, parts in layouts]   # ties
    layouts.append(layouts[0][:2] + (0.1, layouts[-1][3]))                                          # a later one
    root = str(tmp_path_factory.mktemp("layout"))
    task = TASK.__class__()
    ref, sub = _write_layout_case(os.path.join(root, "orig"), objs, persons, layouts)
    d = task.score(ref, sub, decompose=True).decomposition
    assert d.items == ["%s %d" % p for p in persons]
    weights = rng.randint(0, 4, size=len(persons))
    weights[rng.randint(1, len(persons))] = 0          # one person left out
    weights[0] = max(weights[0], 2)                    # one person copied (and the list never empty)
    # the copies: image <id>c<r> holds the same objects; person (id, o) of weight k is listed as itself and k-1
    # copies, each of its layouts followed by the layouts of its copies
    objs2, listed, layouts2 = dict(objs), [], []
    for (image_id, o), k in zip(persons, weights):
        listed += [(image_id if r == 0 else "%sc%d" % (image_id, r), o) for r in range(k)]
        for r in range(1, k):
            objs2["%sc%d" % (image_id, r)] = objs[image_id]
    weight_of = dict(zip(persons, weights))
    for image_id, o, conf, parts in layouts:
        k = weight_of[(image_id, o)]
        layouts2 += [(image_id if r == 0 else "%sc%d" % (image_id, r), o, conf, parts) for r in range(max(k, 1))]
    ref2, sub2 = _write_layout_case(os.path.join(root, "copied"), objs2, listed, layouts2)
    official = task.score(ref2, sub2).scores["mAP"]
    assert abs(d.score(weights[None, :].astype(float))[0] - official) <= 1e-12


# ---- a private part withheld from the bundle (issue 29) -----------------------------------------------------------

def test_withheld_person_is_blanked_and_scored_as_if_never_listed(tmp_path):
    # 2011_000001: person A (object 1: head, hand), a chair (2), person B (3: head), a dog (4); 2011_000002: person C
    # (1: head, foot). Listed: A, B, C; B withheld.
    # Layouts: B .9 (head misses), A .8 (head exact, hand misses), C .7 (head exact), B .5 (a repeat: skipped).
    # Public part (A, C): head A TP, C TP of 2 -> AP 1; hand FP of 1 -> AP 0; foot none of 1 -> AP 0; mAP 1/3.
    # (Whole: head FP, TP, TP of 3 -> rec 0 1/3 2/3, prec 0 1/2 2/3 -> AP 2/3 * 2/3 = 4/9; mAP 4/27.)
    a = {"name": "person", "box": (1, 1, 100, 100), "parts": [("head", (10, 10, 29, 29)), ("hand", (40, 40, 49, 49))]}
    b = {"name": "person", "box": (100, 100, 200, 200), "parts": [("head", (100, 100, 119, 119))]}
    c = {"name": "person", "box": (0, 0, 100, 100), "parts": [("head", (0, 0, 19, 19)), ("foot", (50, 50, 59, 59))]}
    objs = {"2011_000001": [a, {"name": "chair", "box": (1, 1, 5, 5)}, b, {"name": "dog", "box": (7, 7, 9, 9)}],
            "2011_000002": [c]}
    listed = [("2011_000001", 1), ("2011_000001", 3), ("2011_000002", 1)]
    layouts = [("2011_000001", 3, 0.9, [("head", (0, 0, 5, 5))]),
               ("2011_000001", 1, 0.8, [("head", (10, 10, 29, 29)), ("hand", (0, 0, 5, 5))]),
               ("2011_000002", 1, 0.7, [("head", (0, 0, 19, 19))]),
               ("2011_000001", 3, 0.5, [("head", (100, 100, 119, 119))])]
    ref, sub = _write_layout_case(str(tmp_path / "whole"), objs, listed, layouts)
    task = TASK.__class__()
    reference = task.load_reference(ref)
    assert task.item_ids(reference) == ["2011_000001 1", "2011_000001 3", "2011_000002 1"]
    public = tmp_path / "public_ref"
    public.mkdir()
    task.withhold(reference, {"2011_000001 3"}, str(public))
    (public / "WITHHELD").write_text("2011_000001 3\n")
    # A's block byte for byte; the chair and B blanked alike (the indices still count); the dog, after the last
    # listed person, left out; 2011_000002 and the list copied
    whole_doc = annotation_xml("2011_000001", objs["2011_000001"]).encode()
    blocks = [whole_doc[m.start():m.end()] for m in re.finditer(rb"\t<object>.*?</object>", whole_doc, re.S)]
    from scoring_program.tasks.voc2011_layout import BLANK_OBJECT
    assert (public / "Annotations" / "2011_000001.xml").read_bytes() == (
        whole_doc[:whole_doc.index(blocks[0])] + blocks[0] + b"\n\t" + BLANK_OBJECT + b"\n\t" + BLANK_OBJECT + b"\n\t\n"
        + b"</annotation>\n")
    for rel in ("Annotations/2011_000002.xml", "ImageSets/Layout/test.txt"):
        with open(os.path.join(ref, rel), "rb") as f:
            assert (public / rel).read_bytes() == f.read()
    whole = task.score(ref, sub)
    r = task.score(str(public), sub)
    assert whole.scores["AP_head"] == pytest.approx(4 / 9, abs=1e-15)
    assert whole.scores["mAP"] == pytest.approx(4 / 27, abs=1e-15)
    assert r.scores == {"mAP": pytest.approx(1 / 3, abs=1e-15), "AP_head": 1.0, "AP_hand": 0.0, "AP_foot": 0.0}
    assert [str(w) for w in r.warnings] == [str(w) for w in whole.warnings]     # B's repeated layout, whole file
    assert any("later layout" in w for w in r.warnings)
    # the same as a list without B and a results file without B's layouts
    cut, cut_sub = _write_layout_case(str(tmp_path / "cut"), objs, [listed[0], listed[2]], layouts[1:3])
    assert task.score(cut, cut_sub).scores == r.scores
    assert task.reference(str(public)).data.npersons == 3          # the cached reference is not cut
