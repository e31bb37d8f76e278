"""voc2011-detection: hand-computed VOCevaldet.m scenarios, the parsers, the task, and a pure-Python oracle
(a line-by-line transliteration of VOCevaldet.m's loop + VOCap.m) compared on random data with hypothesis."""
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.synth.voc2011_detection import annotation_xml
from scoring_program.errors import ReferenceDataError, SubmissionError
from scoring_program.formats.files import Submission
from scoring_program.formats.voc_det import parse_detections
from scoring_program.formats.voc_xml import parse_annotation
from scoring_program.metrics.detection import best_candidates, match_ranked, voc_det_ap
from scoring_program.tasks.voc2011_detection import TASK


# ---- the oracle: VOCevaldet.m's loop and VOCap.m, transliterated --------------------------------------------

def _mmax(a, b):
    """MATLAB max(a, b): NaN is ignored."""
    if a != a:
        return b
    if b != b:
        return a
    return max(a, b)


def oracle_vocap(rec, prec):
    mrec = [0.0] + list(rec) + [1.0]
    mpre = [0.0] + list(prec) + [0.0]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = _mmax(mpre[i], mpre[i + 1])
    return sum((mrec[i] - mrec[i - 1]) * mpre[i] for i in range(1, len(mrec)) if mrec[i] != mrec[i - 1])


def oracle_evaldet(gt, dets, minoverlap=0.5):
    """gt: {image: [(box, difficult), ...]} in XML order; dets: [(image, confidence, box)] in file order.
    Returns (tp, fp, ap or None) in rank order."""
    npos = sum(1 for objs in gt.values() for _, diff in objs if not diff)
    det_flags = {img: [False] * len(objs) for img, objs in gt.items()}
    si = sorted(range(len(dets)), key=lambda i: -dets[i][1])       # [sc,si]=sort(-confidence): stable
    tp, fp = [0] * len(dets), [0] * len(dets)
    for d, k in enumerate(si):
        img, _, bb = dets[k]
        ovmax, jmax = -math.inf, None
        for j, (bbgt, _) in enumerate(gt.get(img, [])):
            bi = [max(bb[0], bbgt[0]), max(bb[1], bbgt[1]), min(bb[2], bbgt[2]), min(bb[3], bbgt[3])]
            iw = bi[2] - bi[0] + 1
            ih = bi[3] - bi[1] + 1
            if iw > 0 and ih > 0:
                ua = ((bb[2] - bb[0] + 1) * (bb[3] - bb[1] + 1) + (bbgt[2] - bbgt[0] + 1) * (bbgt[3] - bbgt[1] + 1)
                      - iw * ih)
                ov = iw * ih / ua
                if ov > ovmax:
                    ovmax, jmax = ov, j
        if ovmax >= minoverlap:
            if not gt[img][jmax][1]:
                if not det_flags[img][jmax]:
                    tp[d] = 1
                    det_flags[img][jmax] = True
                else:
                    fp[d] = 1
        else:
            fp[d] = 1
    ctp = np.cumsum(tp, dtype=float)
    cfp = np.cumsum(fp, dtype=float)
    if npos == 0:
        return tp, fp, None
    rec = [t / npos for t in ctp]
    prec = [t / (t + f) if t + f > 0 else float("nan") for t, f in zip(ctp, cfp)]
    return tp, fp, oracle_vocap(rec, prec)


def run_metric(gt, dets, images):
    """The vectorized metric on the same data as oracle_evaldet."""
    gi, gb, gd = [], [], []
    for img in images:
        for box, diff in gt.get(img, []):
            gi.append(images.index(img))
            gb.append(box)
            gd.append(diff)
    di = [images.index(d[0]) for d in dets]
    ap, rec, prec, tp, fp = voc_det_ap([d[1] for d in dets], di, np.array([d[2] for d in dets], float).reshape(-1, 4),
                                       gi, np.array(gb, float).reshape(-1, 4), np.array(gd, bool), len(images))
    return tp.astype(int).tolist(), fp.astype(int).tolist(), ap


# ---- hand-computed scenarios --------------------------------------------------------------------------------

def test_tie_keeps_file_order_first_in_file_is_the_true_positive():
    gt = {"a": [((1, 1, 10, 10), False)]}
    dets = [("a", 0.5, (1, 1, 10, 10)), ("a", 0.5, (1, 1, 10, 10)), ("a", 0.9, (50, 50, 60, 60))]
    tp, fp, ap = run_metric(gt, dets, ["a"])
    # ranks: 0.9 (FP), then the two 0.5 in file order: TP then FP
    assert tp == [0, 1, 0] and fp == [1, 0, 1]
    assert ap == pytest.approx(0.5)       # rec 0,1,1 prec 0,.5,1/3 -> envelope 0.5 at recall 1
    assert oracle_evaldet(gt, dets) == (tp, fp, ap)


def test_equal_overlap_candidate_is_first_gt_in_xml_order():
    box = (1, 1, 10, 10)
    cand, ovmax = best_candidates([0], np.array([box], float), [0, 0], np.array([box, box], float), 1)
    assert cand.tolist() == [0] and ovmax.tolist() == [1.0]
    # the first identical GT is claimed; a second detection on it is a FP although the twin is free
    tp, fp = match_ranked([0, 0], np.array([box, box], float), [0, 0], np.array([box, box], float),
                          np.array([False, False]), 1)
    assert tp.tolist() == [True, False] and fp.tolist() == [False, True]


def test_exact_half_overlap_with_plus_one_pixels_matches():
    # GT 10x10 pixels (1..10), detection 10x20 pixels (1..10 x 1..20): inter 100, union 200 -> exactly 0.5
    gt = {"a": [((1, 1, 10, 10), False)]}
    tp, fp, ap = run_metric(gt, [("a", 1.0, (1, 1, 10, 20))], ["a"])
    assert tp == [1] and ap == 1.0
    # one more pixel row: 100 / 210 < 0.5 -> false positive
    tp, fp, ap = run_metric(gt, [("a", 1.0, (1, 1, 10, 21))], ["a"])
    assert fp == [1] and ap == 0.0
    # without the +1 convention (w = 9, h = 9 vs 9 x 19) the first case would be 81/171 < 0.5


def test_touching_boxes_overlap_one_pixel_with_plus_one():
    # xmax of one == xmin of the other: iw = 1 (inclusive pixels), so they do overlap
    ov = best_candidates([0], np.array([(10, 1, 19, 10)], float), [0], np.array([(1, 1, 10, 10)], float), 1)[1]
    assert ov[0] == pytest.approx(10 / 190)


def test_difficult_candidate_is_ignored_not_false_positive():
    # the detection sits exactly on the difficult object; a non-difficult object also overlaps >= 0.5
    gt = {"a": [((1, 1, 10, 10), True), ((1, 1, 10, 12), False)]}
    dets = [("a", 0.9, (1, 1, 10, 10)), ("a", 0.8, (1, 1, 10, 12))]
    tp, fp, ap = run_metric(gt, dets, ["a"])
    assert tp == [0, 1] and fp == [0, 0]          # first: neither (no fallback to the free object)
    assert ap == 1.0                              # npos = 1; the ignored rank has NaN precision, skipped
    assert oracle_evaldet(gt, dets) == (tp, fp, ap)


def test_taken_candidate_is_false_positive_even_when_another_gt_is_free():
    gt = {"a": [((1, 1, 20, 20), False), ((5, 5, 24, 24), False)]}
    # both detections prefer GT 0 (overlap 1.0 and 0.9x), although GT 1 overlaps the second one >= 0.5 too
    dets = [("a", 0.9, (1, 1, 20, 20)), ("a", 0.8, (2, 2, 21, 21))]
    cand, ovmax = best_candidates([0, 0], np.array([d[2] for d in dets], float), [0, 0],
                                  np.array([g[0] for g in gt["a"]], float), 1)
    assert cand.tolist() == [0, 0] and ovmax[1] > 0.5
    tp, fp, ap = run_metric(gt, dets, ["a"])
    assert tp == [1, 0] and fp == [0, 1]
    assert ap == pytest.approx(0.5)


def test_detection_in_image_without_gt_of_class_is_false_positive():
    gt = {"a": [((1, 1, 10, 10), False)], "b": []}
    tp, fp, ap = run_metric(gt, [("b", 0.9, (1, 1, 10, 10)), ("a", 0.1, (1, 1, 10, 10))], ["a", "b"])
    assert tp == [0, 1] and fp == [1, 0] and ap == pytest.approx(0.5)


def test_npos_zero_gives_no_ap():
    gt = {"a": [((1, 1, 10, 10), True)]}
    tp, fp, ap = run_metric(gt, [("a", 0.9, (1, 1, 10, 10))], ["a"])
    assert ap is None and tp == [0] and fp == [0]


def test_no_detections_ap_zero():
    tp, fp, ap = run_metric({"a": [((1, 1, 10, 10), False)]}, [], ["a"])
    assert ap == 0.0 and tp == [] and fp == []


def test_negative_size_detection_behaves_as_devkit():
    # xmax < xmin: the devkit still computes iw/ih and ua; the oracle and the metric agree
    gt = {"a": [((1, 1, 10, 10), False)]}
    dets = [("a", 0.9, (8, 1, 5, 10))]
    assert run_metric(gt, dets, ["a"]) == oracle_evaldet(gt, dets)


# ---- the oracle on random data ------------------------------------------------------------------------------

coord = st.integers(0, 12)


@st.composite
def boxes(draw):
    x1, y1 = draw(coord), draw(coord)
    return (x1, y1, x1 + draw(st.integers(0, 8)), y1 + draw(st.integers(0, 8)))


@st.composite
def scenes(draw):
    images = ["i%d" % k for k in range(draw(st.integers(1, 4)))]
    gt = {img: draw(st.lists(st.tuples(boxes(), st.booleans()), max_size=4)) for img in images}
    dets = draw(st.lists(st.tuples(st.sampled_from(images), st.sampled_from([0.1, 0.5, 0.9, 2.0]), boxes()),
                         max_size=14))
    return images, gt, dets


@settings(max_examples=300, deadline=None)
@given(scenes())
def test_matches_the_devkit_loop_oracle(scene):
    images, gt, dets = scene
    tp, fp, ap = run_metric(gt, dets, images)
    otp, ofp, oap = oracle_evaldet(gt, dets)
    assert tp == otp and fp == ofp
    if oap is None:
        assert ap is None
    else:
        assert ap == pytest.approx(oap, rel=1e-12, abs=1e-15)
        assert 0.0 <= ap <= 1.0


@settings(max_examples=100, deadline=None)
@given(scenes(), st.randoms(use_true_random=False))
def test_permuting_images_changes_nothing(scene, rnd):
    images, gt, dets = scene
    perm = list(images)
    rnd.shuffle(perm)
    assert run_metric(gt, dets, images) == run_metric(gt, dets, perm)


# ---- parsers ------------------------------------------------------------------------------------------------

IDS = np.array([b"2011_000001", b"2011_000002"])


def test_parse_detections_fast_path_values_and_order():
    data = b"2011_000002 0.5 1 2 3 4\n\n2011_000001\t1e-3 1.5 2.5 3.5 4.5\r\n"
    d = parse_detections(data, "f.txt", IDS)
    assert d.image.tolist() == [1, 0]
    assert d.confidence.tolist() == [0.5, 0.001]
    assert d.boxes.tolist() == [[1, 2, 3, 4], [1.5, 2.5, 3.5, 4.5]]


@pytest.mark.parametrize("data,line,text", [
    (b"2011_000001 0.5 1 2 3 4\n2011_000009 0.5 1 2 3 4\n", 2, "1 unknown: '2011_000009'"),
    (b"2011_000001 0.5 1 2 3 4\n2011_000001 nan 1 2 3 4\n", 2, "expected a finite number for the confidence"),
    (b"2011_000001 0.5 1 2 3 4\n2011_000001 0.5 1 2 3\n", 2, "expected 6 fields"),
    (b"2011_000001 0.5 1 2 3 4 5\n", 1, "expected 6 fields"),
    (b"2011_000001 0.5 1 2 x 4\n", 1, "expected a number for the xmax"),
    (b"2011_000001_and_a_much_longer_suffix 0.5 1 2 3 4\n", 1, "unknown"),
    (b"2011_00000 0.5 1 2 3 4\n", 1, "unknown"),
])
def test_parse_detections_errors_name_the_line(data, line, text):
    with pytest.raises(SubmissionError) as e:
        parse_detections(data, "comp3_det_test_car.txt", IDS)
    msg = str(e.value)
    assert "comp3_det_test_car.txt" in msg and "line %d" % line in msg and text in msg


def test_parse_detections_empty_file():
    assert len(parse_detections(b"", "f", IDS)) == 0
    assert len(parse_detections(b"\n  \n", "f", IDS)) == 0


def test_annotation_accepts_attributes_comments_declaration_and_keeps_xml_order():
    xml = (b'<?xml version="1.0" encoding="utf-8"?>\n<!-- made by hand -->\n<annotation verified="yes">'
           b'<object><name>dog</name><bndbox><ymin>2</ymin><xmin>1.5</xmin><xmax>30</xmax><ymax>40</ymax></bndbox>'
           b'</object><object id="2"><name> cat </name><difficult>1</difficult>'
           b'<bndbox><xmin>1</xmin><ymin>1</ymin><xmax>9</xmax><ymax>9</ymax></bndbox></object>'
           b'<object><name>cat</name><difficult>true</difficult>'
           b'<bndbox><xmin>1</xmin><ymin>1</ymin><xmax>9</xmax><ymax>9</ymax></bndbox></object></annotation>')
    objs = parse_annotation(xml, "a.xml")
    assert [o.name for o in objs] == ["dog", "cat", "cat"]
    assert objs[0].bbox == [1.5, 2.0, 30.0, 40.0]
    assert [o.difficult for o in objs] == [False, True, False]   # only the text '1' is difficult


@pytest.mark.parametrize("doc", [
    b'<?xml version="1.0"?>\n<!DOCTYPE annotation [<!ENTITY x "y">]>\n<annotation/>',
    b'<!DOCTYPE annotation SYSTEM "http://example.invalid/a.dtd"><annotation/>',
])
def test_annotation_with_dtd_is_refused(doc):
    with pytest.raises(ReferenceDataError) as e:
        parse_annotation(doc, "ref/Annotations/x.xml")
    assert "without a DTD" in str(e.value)


def test_annotation_missing_coordinate_is_reference_error():
    xml = b"<annotation><object><name>dog</name><bndbox><xmin>1</xmin></bndbox></object></annotation>"
    with pytest.raises(ReferenceDataError) as e:
        parse_annotation(xml, "ref/Annotations/x.xml")
    assert "ymin" in str(e.value)


# ---- the task end to end ------------------------------------------------------------------------------------

def make_ref(root, objs):
    ids = sorted(objs)
    os.makedirs(os.path.join(root, "ImageSets", "Main"))
    os.makedirs(os.path.join(root, "Annotations"))
    with open(os.path.join(root, "ImageSets", "Main", "test.txt"), "w") as f:
        f.write("".join(i + "\n" for i in ids))
    for i in ids:
        with open(os.path.join(root, "Annotations", i + ".xml"), "w") as f:
            f.write(annotation_xml(i, objs[i]))
    return root


def write_res(root, files):
    for name, text in files.items():
        p = os.path.join(root, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    return Submission(root)


@pytest.fixture
def ref(tmp_path):
    return make_ref(str(tmp_path / "ref"), {
        "2011_000001": [{"name": "car", "box": (1, 1, 10, 10)}, {"name": "dog", "box": (5, 5, 50, 50)}],
        "2011_000002": [{"name": "car", "box": (1, 1, 10, 10), "difficult": 1},
                        {"name": "bus", "box": (1, 1, 10, 10), "difficult": 1}],
    })


def test_task_missing_file_ap_zero_empty_file_ap_zero_and_npos_zero_omitted(ref, tmp_path):
    sub = write_res(str(tmp_path / "res"), {
        "comp3_det_test_car.txt": "2011_000001 0.9 1 1 10 10\n2011_000002 0.8 1 1 10 10\n",
        "comp3_det_test_dog.txt": "",
        "comp3_det_test_bus.txt": "2011_000002 0.8 1 1 10 10\n",
    })
    res = TASK.score(ref, sub)
    assert res.scores["AP_car"] == 1.0          # the difficult car is ignored
    assert res.scores["AP_dog"] == 0.0          # empty file
    assert "AP_bus" not in res.scores           # npos = 0: no AP
    assert "AP_cat" not in res.scores           # no cat at all: no AP
    assert res.scores["mAP"] == pytest.approx(0.5)   # mean over car and dog only
    assert any("empty result file" in n for n in res.notes)
    assert any("no non-difficult bus" in n for n in res.notes)


def test_task_missing_class_file_scores_zero_and_is_noted(ref, tmp_path):
    sub = write_res(str(tmp_path / "res"), {"comp4_det_test_car.txt": "2011_000001 0.9 1 1 10 10\n"})
    res = TASK.score(ref, sub)
    assert res.scores["AP_car"] == 1.0 and res.scores["AP_dog"] == 0.0
    assert any("dog: no result file (comp4_det_test_dog.txt)" in n for n in res.notes)


def test_task_unknown_id_is_a_submission_error(ref, tmp_path):
    sub = write_res(str(tmp_path / "res"), {"x/comp3_det_test_car.txt": "2011_000001 0.9 1 1 10 10\nnope 1 1 1 2 2\n"})
    with pytest.raises(SubmissionError) as e:
        TASK.score(ref, sub)
    assert "x/comp3_det_test_car.txt" in str(e.value) and "line 2" in str(e.value)


def test_task_validate_without_reference(tmp_path):
    sub = write_res(str(tmp_path / "res"), {"comp3_det_val_car.txt": "2011_000001 0.9 1 1 10 10\n"})
    notes = TASK.validate(sub)
    assert notes[0] == "comp3, set 'val', 1 of 20 classes"
    with pytest.raises(SubmissionError):
        TASK.validate(sub, ids=np.array([b"2011_000009"]))


def test_fast_reader_and_line_checking_reader_agree_on_the_sample(root, monkeypatch):
    """The tokenizer's fast path for the common layout and its general scan read the sample's file alike (and as
    Python's split and float do)."""
    from scoring_program.formats import text
    path = os.path.join(root, "starting_kit", "voc2011-detection", "submissions", "random", "results", "VOC2011",
                        "Main", "comp3_det_test_person.txt")
    with open(path, "rb") as f:
        data = f.read()
    ids = np.array(sorted(os.path.splitext(n)[0].encode() for n in os.listdir(
        os.path.join(root, "reference_data", "voc2011-detection", "Annotations"))))
    d = parse_detections(data, "f", ids)
    monkeypatch.setattr(text._Scan, "_regular", lambda self, arr, b0, b1: False)
    general = parse_detections(data, "f", ids)
    rows = [line.split() for line in data.splitlines() if line.strip()]
    assert len(d) > 5 and d.image.tolist() == general.image.tolist() == [
        int(np.searchsorted(ids, r[0])) for r in rows]
    assert d.confidence.tolist() == general.confidence.tolist() == [float(r[1]) for r in rows]
    assert d.boxes.tolist() == general.boxes.tolist() == [[float(x) for x in r[2:]] for r in rows]


def test_seven_fields_on_every_line_is_an_error_on_every_numpy():
    """numpy < 1.23's loadtxt dropped a 7th field on every line (caught by make compat on numpy 1.17.2); loadtxt is
    no longer used (issue 20: it loops over lines in Python there), and the tokenizer counts fields the same way on
    every numpy."""
    data = b"2011_000001\t0.5 1 2 3 4 5\n2011_000001\t0.5 1 2 3 4 5\n"     # a tab: not the strict layout
    with pytest.raises(SubmissionError) as e:
        parse_detections(data, "comp3_det_test_car.txt", IDS)
    assert "line 1" in str(e.value) and "expected 6 fields" in str(e.value)


# ---- what the participant sees (issue 12) ---------------------------------------------------------------------

def test_report_shows_no_per_image_facts(tmp_path):
    from privacy import only_numbers_differ

    def relabel_one_object(ref):
        # 2011_000001's first motorbike becomes a chair: both classes keep objects elsewhere, only that image changes
        path = os.path.join(ref, "Annotations", "2011_000001.xml")
        with open(path) as f:
            text = f.read()
        assert text.count("<name>motorbike</name>") == 2
        with open(path, "w") as f:
            f.write(text.replace("<name>motorbike</name>", "<name>chair</name>", 1))
    only_numbers_differ("voc2011-detection", relabel_one_object, tmp_path)


def test_report_names_no_test_image(root, tmp_path):
    from privacy import no_item_ids
    with open(os.path.join(root, "reference_data", "voc2011-detection", "ImageSets", "Main", "test.txt")) as f:
        ids = f.read().split()
    assert len(ids) >= 10
    no_item_ids("voc2011-detection", ids, tmp_path)


def test_private_per_image_table_only_when_asked(root):
    ref = os.path.join(root, "reference_data", "voc2011-detection")
    sub = Submission(os.path.join(root, "starting_kit", "voc2011-detection", "submissions", "random"))
    assert TASK.score(ref, sub).private == []
    res = TASK.score(ref, sub, private=True)
    (table,) = res.private
    with open(os.path.join(ref, "ImageSets", "Main", "test.txt")) as f:
        ids = f.read().split()
    assert [r[0] for r in table.rows] == ids
    col = table.header.index
    rows = np.array([r[1:] for r in table.rows])
    per_class = res.tables[0].rows                      # class, AP, objects, difficult, detections, TP, FP, ...
    assert rows[:, col("objects (not difficult)") - 1].sum() == sum(r[2] for r in per_class)
    assert rows[:, col("detections") - 1].sum() == sum(r[4] for r in per_class)
    assert rows[:, col("true positives") - 1].sum() == sum(r[5] for r in per_class)
    assert rows[:, col("false positives") - 1].sum() == sum(r[6] for r in per_class)
    # every false positive has one TIDE type
    fp_types = [h for h in table.header if h.startswith("FP: ")]
    assert rows[:, [col(h) - 1 for h in fp_types]].sum() == rows[:, col("false positives") - 1].sum()


def test_report_bars_and_where_the_points_were_lost(root):
    from scoring_program.report.result import LOST
    res = TASK.score(os.path.join(root, "reference_data", "voc2011-detection"),
                     Submission(os.path.join(root, "starting_kit", "voc2011-detection", "submissions", "random")))
    (bars,) = res.bars
    assert sorted(bars.labels) == sorted(k[3:] for k in res.scores if k.startswith("AP_"))
    assert bars.values == [res.scores["AP_" + c] for c in bars.labels]
    (section,) = res.sections
    assert section.title == LOST
    mean_bars, dap_table, count_table, _beyond = section.blocks     # _beyond: tests/metrics/test_detection_extras.py
    # the TIDE table's AP is the metric's AP, class by class
    assert [(r[0], r[1]) for r in dap_table.rows] == [(c, "%.4f" % res.scores["AP_" + c]) for c in bars.labels]
    assert len(mean_bars.labels) == 6 and min(mean_bars.values) >= 0
    assert len(res.plots) == len(bars.labels) and all(p.series[0].envelope for p in res.plots if p.series)


# ---- the bootstrap's decomposition: mAP on weighted images (issue 13) ---------------------------------------

def test_weighted_map_by_hand():
    """Images A, B, C. Class 0: one object in each; ranked detections A (TP), B (FP), C (TP). Class 1: one object
    in C; ranked detections A (FP), C (TP).
    weights 1,1,1: class 0 precisions at the TPs 1, 2/3 -> AP (1 + 2/3) / 3 = 5/9; class 1: 1/2 -> mAP 19/36.
    weights 2,1,0 (A twice, C removed): class 0 is A+ A+ B-, npos 3 -> AP 2/3; class 1 has no positive left and
    leaves the mean -> mAP 2/3.
    weights 0,1,1: class 0 is B- C+, npos 2 -> AP (1/2) / 2 = 1/4; class 1 is C+ -> 1 -> mAP 5/8.
    weights 0,1,0: class 0 is B-, npos 1 -> AP 0; class 1 leaves -> mAP 0. weights 0,0,0: no class has an AP -> 0,
    as report() writes it."""
    from scoring_program.metrics.detection import voc_det_map_on_weighted_images
    score = voc_det_map_on_weighted_images(3, 2, det_class=[0, 0, 0, 1, 1], det_image=[0, 1, 2, 0, 2],
                                           tp=[1, 0, 1, 0, 1], fp=[0, 1, 0, 1, 0], gt_image=[0, 1, 2, 2],
                                           gt_class=[0, 0, 0, 1])
    got = score(np.array([[1., 1, 1], [2, 1, 0], [0, 1, 1], [0, 1, 0], [0, 0, 0]]))
    assert np.allclose(got, [19 / 36., 2 / 3., 5 / 8., 0.0, 0.0], rtol=0, atol=1e-15)


def _multiset(ref_dir, sub_dir, weights, out):
    """The reference and the submission with image i repeated weights[i] times (copies named <id>_copy<k>, their
    detection lines right after the original's, so the stable ranking keeps the copies adjacent)."""
    with open(os.path.join(ref_dir, "ImageSets", "Main", "test.txt")) as f:
        ids = f.read().split()
    weight = dict(zip(ids, weights))
    names = {i: [i if k == 0 else "%s_copy%d" % (i, k) for k in range(int(weight[i]))] for i in ids}
    os.makedirs(os.path.join(out, "ref", "ImageSets", "Main"))
    os.makedirs(os.path.join(out, "ref", "Annotations"))
    with open(os.path.join(out, "ref", "ImageSets", "Main", "test.txt"), "w") as f:
        f.write("".join(n + "\n" for i in ids for n in names[i]))
    for i in ids:
        with open(os.path.join(ref_dir, "Annotations", i + ".xml")) as f:
            xml = f.read()
        for n in names[i]:
            with open(os.path.join(out, "ref", "Annotations", n + ".xml"), "w") as f:
                f.write(xml)
    for base, _, files in os.walk(sub_dir):
        for name in files:
            rel = os.path.relpath(os.path.join(base, name), sub_dir)
            os.makedirs(os.path.dirname(os.path.join(out, "res", rel)), exist_ok=True)
            with open(os.path.join(base, name)) as f:
                lines = f.read().splitlines()
            with open(os.path.join(out, "res", rel), "w") as f:
                for line in lines:
                    image, rest = line.split(" ", 1)
                    f.write("".join("%s %s\n" % (n, rest) for n in names[image]))
    return os.path.join(out, "ref"), Submission(os.path.join(out, "res"))


@pytest.mark.parametrize("kit", ["random", "perfect"])
def test_weighted_map_is_the_official_map_with_images_removed_or_repeated(root, tmp_path, kit):
    """Weight 0 == the image removed, weight k == the image k times (exact for VOCap.m: the decomposition is the
    official scorer on the multiset), on the kit's reference and submissions."""
    ref_dir = os.path.join(root, "reference_data", "voc2011-detection")
    sub_dir = os.path.join(root, "starting_kit", "voc2011-detection", "submissions", kit)
    d = TASK.score(ref_dir, Submission(sub_dir), decompose=True).decomposition
    rng = np.random.RandomState(13)
    for trial in range(4):
        weights = rng.randint(0, 4, len(d.items)).astype(float)
        if trial == 0:
            weights[:] = 1
            weights[:5] = 0
        mref, msub = _multiset(ref_dir, sub_dir, weights, str(tmp_path / ("m%d" % trial)))
        official = TASK.score(mref, msub).scores["mAP"]
        assert abs(d.score(weights[None, :])[0] - official) <= 1e-12, (trial, official)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31 - 1), st.sampled_from(["whole", "heavy", "fractional"]))
def test_ranked_lists_ap_is_weighted_ap_voc2010_list_by_list(seed, kind):
    """metrics.bootstrap.RankedLists.ap_voc2010 (packed 16-bit lanes with wrapping block sums; float64 for weights
    over 255 or not whole) == weighted_ap_voc2010 on each list alone, on lists long enough to wrap a lane."""
    from scoring_program.metrics.bootstrap import RankedLists, weighted_ap_voc2010
    rng = np.random.RandomState(seed)
    n, lists, m = rng.randint(1, 12), rng.randint(1, 4), rng.randint(0, 1500)
    group = np.sort(rng.randint(0, lists, m))
    item = rng.randint(0, n, m)
    label = rng.choice([1, -1, 0], m, p=[0.2, 0.7, 0.1])
    npos = np.stack([np.bincount(item[(group == g) & (label > 0)], minlength=n) + rng.randint(0, 2, n)
                     for g in range(lists)], axis=1)
    top = {"whole": 256, "heavy": 600, "fractional": 4}[kind]
    weights = rng.randint(0, top, (5, n)).astype(float)
    weights[0] = 1
    weights[1, : n // 2] = 0
    if kind == "fractional":
        weights[2] *= 0.25
    got = RankedLists(group, item, label > 0, label < 0, lists).ap_voc2010(weights, weights @ npos)
    for g in range(lists):
        at = group == g
        want = weighted_ap_voc2010(weights, item[at], label[at] > 0, label[at] < 0, npos[:, g])
        assert np.allclose(got[:, g], want, rtol=0, atol=1e-12, equal_nan=True)


# ---- a private part withheld (issue 29): Task.withhold, then Task.restrict before evaluate ---------------------

def _withheld_copy(ref_dir, items, out):
    reference = TASK.load_reference(ref_dir)
    os.makedirs(out)
    TASK.withhold(reference, set(items), out)
    with open(os.path.join(out, "WITHHELD"), "w") as f:
        f.write("".join(i + "\n" for i in sorted(items)))
    return out


def test_withheld_image_is_scored_as_if_neither_list_held_it(tmp_path):
    """Images A, B, C; B withheld.
    car: A car, B car; detections B 0.9 (TP on the whole set), C 0.8 (FP: no car in C), A 0.7 (TP).
      whole: rec .5 .5 1, prec 1 .5 2/3 -> AP = .5 * 1 + .5 * 2/3 = 5/6.
      public (A, C): C FP, A TP: rec 0 1, prec 0 .5 -> AP = 1 * .5 = 1/2.
    dog: B dog, C dog; one detection, on B: whole rec .5 prec 1 -> AP 1/2; public: npos 1 (C), no detection left
      -> AP 0 (the file is not empty as read: no 'empty result file' note).
    public mAP = (1/2 + 0) / 2 = 1/4: the score of the cut reference (A, C) and the lists without B's lines."""
    objs = {"2011_000001": [{"name": "car", "box": (1, 1, 10, 10)}],
            "2011_000002": [{"name": "car", "box": (1, 1, 10, 10)}, {"name": "dog", "box": (5, 5, 50, 50)}],
            "2011_000003": [{"name": "dog", "box": (1, 1, 20, 20)}]}
    whole = make_ref(str(tmp_path / "whole"), objs)
    public = _withheld_copy(whole, ["2011_000002"], str(tmp_path / "public"))
    cut = make_ref(str(tmp_path / "cut"), {k: v for k, v in objs.items() if k != "2011_000002"})
    lines = {"comp3_det_test_car.txt": "2011_000002 0.9 1 1 10 10\n2011_000003 0.8 1 1 10 10\n"
                                       "2011_000001 0.7 1 1 10 10\n",
             "comp3_det_test_dog.txt": "2011_000002 0.9 5 5 50 50\n"}
    sub = write_res(str(tmp_path / "res"), lines)
    cut_sub = write_res(str(tmp_path / "cut_res"), {n: "".join(l for l in t.splitlines(True) if "_000002" not in l)
                                                    for n, t in lines.items()})
    with open(os.path.join(public, "Annotations", "2011_000002.xml"), "rb") as f:
        assert b"<object>" not in f.read()
    got = TASK.score(public, sub)
    assert TASK.score(whole, sub).scores == pytest.approx({"mAP": (5 / 6 + 1 / 2) / 2, "AP_car": 5 / 6,
                                                           "AP_dog": 1 / 2})
    assert got.scores == pytest.approx({"mAP": 1 / 4, "AP_car": 1 / 2, "AP_dog": 0.0}, abs=1e-15)
    want = TASK.score(cut, cut_sub)
    assert got.scores == want.scores
    assert not any("empty result file" in n for n in got.notes)       # as on the whole reference
    assert any("empty result file" in n for n in want.notes)          # the cut list is empty: not the same file


def test_restrict_leaves_the_cached_reference_as_loaded(ref, tmp_path):
    sub = write_res(str(tmp_path / "res"), {"comp3_det_test_car.txt": "2011_000001 0.9 1 1 10 10\n"
                                                                      "2011_000002 0.8 1 1 10 10\n"})
    reference = TASK.load_reference(ref)
    submitted = TASK.read_submission(sub, reference, lambda *a: None)
    before = [a.copy() for a in (reference.data.ids, reference.data.img, reference.data.boxes)]
    restricted, cut = TASK.restrict(reference, submitted, frozenset(["2011_000001"]))
    assert restricted.data.ids.tolist() == [b"2011_000002"] and restricted.data.img.tolist() == [0, 0]
    assert cut.detections["car"].image.tolist() == [0] and submitted.detections["car"].image.tolist() == [0, 1]
    assert all(np.array_equal(a, b) for a, b in zip(before, (reference.data.ids, reference.data.img,
                                                            reference.data.boxes)))
