"""chalearn-lap2015-cultural-event: hand-computed AP scenarios for every rule of issue 4, plus properties."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from scoring_program.errors import ReferenceDataError, SubmissionError
from scoring_program.formats.cultural import CATEGORIES, reference_categories
from scoring_program.formats.files import Submission
from scoring_program.metrics.event_recognition import category_ap
from scoring_program.tasks.chalearn_lap2015_cultural_event import TASK


def write(path, text):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), "w", newline="\n") as f:
        f.write(text)


def run(tmp_path, gt, sub, set_name="val", private=False):
    """gt: {category: [(id, label)]}; sub: {file name: text}."""
    ref, res = tmp_path / "ref", tmp_path / "res"
    for cat, rows in gt.items():
        write(ref / ("%s_%s.txt" % (cat, set_name) if set_name else "%s.txt" % cat),
              "".join("%s %d\n" % r for r in rows))
    os.makedirs(str(res), exist_ok=True)
    for name, text in sub.items():
        write(res / name, text)
    return TASK.score(str(ref), Submission(str(res)), private=private)


GT = [("a.jpg", 1), ("b.jpg", -1), ("c.jpg", 1), ("d.jpg", -1)]


def test_categories_are_the_seeds_fifty_events():
    assert len(CATEGORIES) == 50 and len(set(CATEGORIES)) == 50
    assert CATEGORIES[:3] == ("Annual_Buffalo_Roundup", "Ati-atihan", "Ballon_Fiesta")
    assert "La_Tomatina" in CATEGORIES and "Notting_hill_carnival" in CATEGORIES and "Gion_matsuri" in CATEGORIES
    assert CATEGORIES[-1] == "Viking_Festival"
    assert [k.key for k in TASK.score_keys(None)] == ["mAP"] + ["AP_" + c for c in CATEGORIES]


def test_score_keys_come_from_the_reference_categories(tmp_path):
    for cat in ("San_Fermin", "Zzz_Second_Edition_Event", "La_Tomatina"):
        write(tmp_path / ("%s_test.txt" % cat), "a.jpg 1\n")
    write(tmp_path / "test.txt", "a.jpg\n")           # an id list, not a category
    keys = [k.key for k in TASK.score_keys(str(tmp_path))]
    assert keys == ["mAP", "AP_La_Tomatina", "AP_San_Fermin", "AP_Zzz_Second_Edition_Event"]


def test_reference_files_of_two_sets_are_a_reference_error(tmp_path):
    write(tmp_path / "San_Fermin_val.txt", "a.jpg 1\n")
    write(tmp_path / "La_Tomatina_test.txt", "a.jpg 1\n")
    with pytest.raises(ReferenceDataError):
        reference_categories(str(tmp_path))


def test_perfect_ranking_scores_one(tmp_path):
    res = run(tmp_path, {"Falles": GT}, {"Falles.txt": "a.jpg 0.9\nc.jpg 0.8\nb.jpg 0.1\nd.jpg 0.0\n"})
    assert res.scores["AP_Falles"] == 1.0 and res.scores["mAP"] == 1.0


def test_hand_computed_ap_with_envelope(tmp_path):
    # ranking b(-) a(+) d(-) c(+): rec .0 .5 .5 1, prec 0 .5 .33 .5; envelope at rec .5 -> .5, at rec 1 -> .5
    # AP = 0.5 * 0.5 + 0.5 * 0.5 = 0.5
    res = run(tmp_path, {"Falles": GT}, {"Falles.txt": "b.jpg 4\na.jpg 3\nd.jpg 2\nc.jpg 1\n"})
    assert res.scores["AP_Falles"] == pytest.approx(0.5)
    # ranking a(+) b(-) c(+) d(-): prec at rec 1 is 2/3 -> AP = .5 * 1 + .5 * 2/3
    res = run(tmp_path / "b", {"Falles": GT}, {"Falles.txt": "a.jpg 4\nb.jpg 3\nc.jpg 2\nd.jpg 1\n"})
    assert res.scores["AP_Falles"] == pytest.approx(0.5 + 1 / 3)


def test_ties_are_ranked_stably_in_file_order(tmp_path):
    gt = [("a.jpg", 1), ("b.jpg", -1)]
    neg_first = run(tmp_path / "x", {"Obon": gt}, {"Obon.txt": "b.jpg 0.5\na.jpg 0.5\n"})
    pos_first = run(tmp_path / "y", {"Obon": gt}, {"Obon.txt": "a.jpg 0.5\nb.jpg 0.5\n"})
    assert neg_first.scores["AP_Obon"] == 0.5       # b then a: the positive at precision 1/2
    assert pos_first.scores["AP_Obon"] == 1.0


def test_images_missing_from_the_file_are_unranked_but_count_as_positives(tmp_path):
    # c.jpg (a positive) is not in the file: recall stops at 0.5 -> AP = 0.5 * 1
    res = run(tmp_path, {"Falles": GT}, {"Falles.txt": "a.jpg 0.9\nb.jpg 0.1\n"})
    assert res.scores["AP_Falles"] == pytest.approx(0.5)
    # leaving out a NEGATIVE is harmless: a, c ranked first -> 1.0 even without b and d
    res = run(tmp_path / "b", {"Falles": GT}, {"Falles.txt": "c.jpg 0.2\na.jpg 0.3\n"})
    assert res.scores["AP_Falles"] == 1.0
    row = [r for r in res.tables[0].rows if r[0] == "Falles"][0]
    assert row[5] == 2 and row[6] == 0                # 2 unranked images, no unranked positive


def test_duplicate_id_is_an_error_naming_the_second_line(tmp_path):
    with pytest.raises(SubmissionError) as e:
        run(tmp_path, {"Falles": GT}, {"Falles.txt": "a.jpg 0.9\nb.jpg 0.1\nc.jpg 0.3\nb.jpg 0.2\n"})
    msg = str(e.value)
    assert "Falles.txt" in msg and "line 4" in msg and "'b.jpg' a second time" in msg


def test_unknown_id_is_an_error_without_revealing_the_reference(tmp_path):
    with pytest.raises(SubmissionError) as e:
        run(tmp_path, {"Falles": GT}, {"Falles.txt": "a.jpg 0.9\nzz.jpg 0.1\n"})
    msg = str(e.value)
    assert "line 2" in msg and "'zz.jpg'" in msg and "b.jpg" not in msg


def test_missing_category_file_is_ap_zero_and_noted(tmp_path):
    res = run(tmp_path, {"Falles": GT, "Obon": GT}, {"Falles.txt": "a.jpg 1\nc.jpg 1\n"})
    assert res.scores["AP_Obon"] == 0.0 and res.scores["AP_Falles"] == 1.0
    assert res.scores["mAP"] == 0.5
    assert any("missing, AP 0" in n and "Obon" in n for n in res.notes)


def test_empty_category_file_is_ap_zero(tmp_path):
    res = run(tmp_path, {"Falles": GT, "Obon": GT}, {"Falles.txt": "a.jpg 1\nc.jpg 1\n", "Obon.txt": ""})
    assert res.scores["AP_Obon"] == 0.0


def test_category_without_positives_is_omitted_from_keys_and_mean(tmp_path):
    res = run(tmp_path, {"Falles": GT, "Obon": [("a.jpg", -1), ("b.jpg", -1)]},
              {"Falles.txt": "b.jpg 0.9\na.jpg 0.5\nc.jpg 0.4\n", "Obon.txt": "a.jpg 1\n"})
    assert "AP_Obon" not in res.scores
    # b(-) a(+) c(+): precision .5 at recall .5 is lifted to 2/3 by the envelope -> AP = 2/3
    assert res.scores["mAP"] == res.scores["AP_Falles"] == pytest.approx(2 / 3)
    assert any(n.startswith("n/a: no positive image for Obon") for n in res.notes)


@pytest.mark.parametrize("name,right", [("la_tomatina.txt", "La_Tomatina.txt"), ("La Tomatina.txt", "La_Tomatina.txt"),
                                        ("La_Tomatina_test.txt", "La_Tomatina.txt"), ("ati_atihan.txt", "Ati-atihan.txt")])
def test_near_miss_file_names_are_errors(tmp_path, name, right):
    with pytest.raises(SubmissionError) as e:
        run(tmp_path, {"La_Tomatina": GT, "Ati-atihan": GT}, {name: "a.jpg 1\n"})
    assert name in str(e.value) and right in str(e.value)


def test_reference_without_set_suffix_and_tabs_in_submission(tmp_path):
    res = run(tmp_path, {"Heiva": GT}, {"Heiva.txt": "a.jpg\t0.9\nc.jpg \t 0.8\n"}, set_name=None)
    assert res.scores["AP_Heiva"] == 1.0


def test_non_finite_confidence_is_an_error(tmp_path):
    with pytest.raises(SubmissionError) as e:
        run(tmp_path, {"Heiva": GT}, {"Heiva.txt": "a.jpg 0.9\nc.jpg inf\n"})
    assert "line 2" in str(e.value) and "finite" in str(e.value)


def test_validate_sample_and_ids(tmp_path, root):
    sub = Submission(os.path.join(root, "starting_kit", "chalearn-lap2015-cultural-event", "submissions", "random"))
    notes = TASK.validate(sub)
    assert notes[0] == "50 category file(s)"
    write(tmp_path / "Obon.txt", "a.jpg 1\nq.jpg 2\n")
    with pytest.raises(SubmissionError) as e:
        TASK.validate(Submission(str(tmp_path)), ids=np.array([b"a.jpg"]))
    assert "line 2" in str(e.value) and "'q.jpg'" in str(e.value)


# ---------------------------------------------------------------- properties and oracle
def documented_ap(conf, labels_in_file_order, npos):
    """The documented rule, literally: rank (stable), precision at recall r = max precision at recall >= r,
    AP = area under that step curve (sum over recall increments)."""
    order = sorted(range(len(conf)), key=lambda i: -conf[i])          # Python's sort is stable
    tp = fp = 0
    points = []
    for i in order:
        if labels_in_file_order[i] > 0:
            tp += 1
        else:
            fp += 1
        points.append((tp / npos, tp / (tp + fp)))
    ap, prev = 0.0, 0.0
    for r, _ in points:
        if r > prev:
            ap += (r - prev) * max(p for rr, p in points if rr >= r)
            prev = r
    return ap


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.booleans(), st.booleans()), min_size=1, max_size=25))
def test_matches_the_documented_rule(items):
    # (confidence level with many ties, positive?, listed in the file?)
    labels = np.array([1 if p else -1 for _, p, _ in items], dtype=np.int8)
    npos = int((labels > 0).sum())
    listed = [i for i, (_, _, keep) in enumerate(items) if keep]
    conf = np.array([float(items[i][0]) for i in listed])
    idx = np.array(listed, dtype=np.int64)
    ap, _, _ = category_ap(idx, conf, labels)
    if npos == 0:
        assert ap is None
        return
    assert 0.0 <= ap <= 1.0
    assert ap == pytest.approx(documented_ap(conf.tolist(), labels[idx].tolist(), npos), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.permutations(list(range(8))), st.lists(st.booleans(), min_size=8, max_size=8))
def test_file_order_does_not_matter_without_ties(perm, pos):
    labels = np.array([1 if p else -1 for p in pos], dtype=np.int8)
    conf = np.arange(8, dtype=np.float64)
    a, _, _ = category_ap(np.arange(8), conf, labels)
    perm = np.array(perm)
    b, _, _ = category_ap(perm, conf[perm], labels)
    assert a == b


# ---------------------------------------------------------------- where the points were lost (issue 12)
def test_top_scored_event_ties_go_to_the_first_category_and_unlisted_images_have_none():
    from scoring_program.metrics.event_recognition import NO_EVENT, top_scored_events
    # image 0: 0.9 in files 0 and 1 (tie -> category 0); image 1: 0.5 vs 0.7 -> 1; image 2: only file 1 lists it
    # (0.1 beats "not ranked" in file 0); image 3: no file lists it; file 2 is missing (no lines)
    top = top_scored_events(4, [np.array([0, 1]), np.array([0, 1, 2]), np.zeros(0, dtype=np.int64)],
                            [np.array([0.9, 0.5]), np.array([0.9, 0.7, 0.1]), np.zeros(0)])
    assert top.tolist() == [0, 1, 1, NO_EVENT]
    # a negative confidence still beats an unlisted image
    assert top_scored_events(1, [np.array([0]), np.zeros(0, dtype=np.int64)],
                             [np.array([-5.0]), np.zeros(0)]).tolist() == [0]


def test_true_event_needs_exactly_one_positive_category():
    from scoring_program.metrics.event_recognition import NOT_SINGLE, true_events
    # image 2 is positive in categories 1 and 2, image 3 in none
    assert true_events(4, [np.array([0]), np.array([1, 2]), np.array([2])]).tolist() == [0, 1, NOT_SINGLE,
                                                                                          NOT_SINGLE]


def test_confusion_counts_and_most_frequent_first():
    from scoring_program.metrics.event_recognition import event_confusion, top_confusions
    true = np.array([0, 1, 1, 2, 2, 2, -1])
    top = np.array([1, 1, -1, 0, 0, 1, 0])           # the last image has no single true event: left out
    counts = event_confusion(true, top, 3)
    assert counts.tolist() == [[0, 1, 0, 0], [0, 1, 0, 1], [2, 1, 0, 0]]
    # 2 -> 0 twice first; then the count-1 confusions by share: 0 -> 1 (1/1), 1 -> unlisted (1/2), 2 -> 1 (1/3)
    assert top_confusions(counts) == [(2, 0, 2, 2 / 3), (0, 1, 1, 1.0), (1, 3, 1, 0.5), (2, 1, 1, 1 / 3)]
    assert top_confusions(counts, limit=2) == [(2, 0, 2, 2 / 3), (0, 1, 1, 1.0)]
    assert top_confusions(np.diag([3, 4])) == []
    # only top-scored events gathering at least 3 images: columns 0 (3 images) and 3 (1) -> 2 -> 0 stays alone
    assert top_confusions(counts, column_size=np.array([3, 4, 0, 1]), min_column=3) == [(2, 0, 2, 2 / 3),
                                                                                        (0, 1, 1, 1.0),
                                                                                        (2, 1, 1, 1 / 3)]
    assert top_confusions(counts, column_size=np.array([3, 2, 0, 1]), min_column=3) == [(2, 0, 2, 2 / 3)]


GT_TWO = {"Falles": [("a.jpg", 1), ("b.jpg", 1), ("c.jpg", -1), ("d.jpg", -1)],
          "Obon": [("a.jpg", -1), ("b.jpg", -1), ("c.jpg", 1), ("d.jpg", 1)]}


def lost(res):
    from scoring_program.report.result import LOST
    return res.section(LOST).blocks


@pytest.fixture
def small_groups(monkeypatch):
    """The hand-made sets are tiny: list confusions into top-scored events of any size."""
    import scoring_program.tasks.chalearn_lap2015_cultural_event as task
    monkeypatch.setattr(task, "MIN_TOP_SCORED", 1)


def test_confusion_table_of_a_hand_made_submission(tmp_path, small_groups):
    # a: Falles .9 > Obon .1 (right); b: only Falles lists it (right); c: Falles .8 > Obon .5 (Obon -> Falles);
    # d: only Obon lists it (right)
    res = run(tmp_path, GT_TWO, {"Falles.txt": "a.jpg 0.9\nc.jpg 0.8\nb.jpg 0.2\n",
                                 "Obon.txt": "a.jpg 0.1\nc.jpg 0.5\nd.jpg 0.3\n"}, private=True)
    text, table = lost(res)
    assert "Counted: the 4 image(s)" in text and "(0 other image(s)" in text
    assert "true event for 3 of them (75.0%)" in text
    assert table.rows == [["Obon -> Falles", 1, "50.0%"]]
    assert res.private[0].rows == [["a.jpg", "Falles", "Falles", "yes"], ["b.jpg", "Falles", "Falles", "yes"],
                                   ["c.jpg", "Obon", "Falles", "no"], ["d.jpg", "Obon", "Obon", "yes"]]
    # d tied at 0.3 in both files: the first category (Falles) is its top-scored event -> Obon -> Falles twice
    res = run(tmp_path / "tie", GT_TWO, {"Falles.txt": "a.jpg 0.9\nc.jpg 0.8\nb.jpg 0.2\nd.jpg 0.3\n",
                                         "Obon.txt": "a.jpg 0.1\nc.jpg 0.5\nd.jpg 0.3\n"})
    assert lost(res)[1].rows == [["Obon -> Falles", 2, "100.0%"]]
    assert res.private == []


def test_confusion_with_a_missing_file_and_an_image_without_one_true_event(tmp_path, small_groups):
    gt = {"Falles": GT_TWO["Falles"], "Obon": [("a.jpg", -1), ("b.jpg", 1), ("c.jpg", 1), ("d.jpg", 1)]}
    # b is positive in both categories: left out; Obon.txt is missing, so c and d are listed by Falles only
    # (c) or by no file (d)
    res = run(tmp_path, gt, {"Falles.txt": "a.jpg 0.9\nc.jpg 0.8\nb.jpg 0.2\n"}, private=True)
    text, table = lost(res)
    assert "Counted: the 3 image(s)" in text and "(1 other image(s)" in text and "for 1 of them (33.3%)" in text
    assert table.rows == [["Obon -> Falles", 1, "50.0%"], ["Obon -> (listed by no file)", 1, "50.0%"]]
    assert [r[1:] for r in res.private[0].rows] == [["Falles", "Falles", "yes"], ["(not exactly one)", "Falles", "no"],
                                                    ["Obon", "Falles", "no"], ["Obon", "(listed by no file)", "no"]]


def test_small_top_scored_groups_are_not_listed(tmp_path):
    # the first hand-made case with the report's own minimum: Falles gathers 3 top-scored images (< 10)
    res = run(tmp_path, GT_TWO, {"Falles.txt": "a.jpg 0.9\nc.jpg 0.8\nb.jpg 0.2\n",
                                 "Obon.txt": "a.jpg 0.1\nc.jpg 0.5\nd.jpg 0.3\n"})
    text, listed = lost(res)
    assert "true event for 3 of them (75.0%)" in text
    assert listed.startswith("No confusion to list. Only top-scored events that gather at least 10 images")


def test_perfect_submission_has_no_confusion_and_bars_per_event(tmp_path):
    res = run(tmp_path, GT_TWO, {"Falles.txt": "a.jpg 1\nb.jpg 1\nc.jpg 0\nd.jpg 0\n",
                                 "Obon.txt": "a.jpg 0\nb.jpg 0\nc.jpg 1\nd.jpg 1\n"})
    assert lost(res)[1] == "No confusion: every counted image's top-scored event is its true event."
    assert res.bars[0].labels == ["Falles", "Obon"] and res.bars[0].values == [1.0, 1.0]
    assert [p.title for p in res.plots] == ["Falles (AP 1.0000)", "Obon (AP 1.0000)"]
    assert not res.plots[0].series    # AP 1 from 4 ranks: drawn from one block of 10 it would shade 0.5


# ---------------------------------------------------------------- privacy (issue 12)
SLUG = "chalearn-lap2015-cultural-event"


def test_private_report_lists_every_image_only_when_asked(root):
    ref = os.path.join(root, "reference_data", SLUG)
    sub = Submission(os.path.join(root, "starting_kit", SLUG, "submissions", "random"))
    assert TASK.score(ref, sub).private == []
    tables = TASK.score(ref, sub, private=True).private
    assert len(tables) == 1 and len(tables[0].rows) == 80
    assert tables[0].header == ["image", "true event", "top-scored event", "right"]


def test_report_shows_no_image_label(tmp_path, root):
    from privacy import only_numbers_differ
    ref = os.path.join(root, "reference_data", SLUG)
    rows = TASK.score(ref, Submission(os.path.join(root, "starting_kit", SLUG, "submissions", "random")),
                      private=True).private[0].rows
    positives = {}
    for image, true, _, _ in rows:
        positives[true] = positives.get(true, 0) + 1
    # an image whose top-scored event is right, of an event with another positive: dropping its label changes
    # the APs and the counts, never which confusions there are
    image, event = [(r[0], r[1]) for r in rows if r[3] == "yes" and positives[r[1]] > 1][0]

    def drop_one_label(ref_copy):
        path = os.path.join(ref_copy, event + "_val.txt")
        with open(path) as f:
            text = f.read()
        assert "%s 1\n" % image in text
        with open(path, "w") as f:
            f.write(text.replace("%s 1\n" % image, "%s -1\n" % image))
    only_numbers_differ(SLUG, drop_one_label, tmp_path)


def test_report_names_no_test_image(tmp_path, root):
    from privacy import no_item_ids
    ref = os.path.join(root, "reference_data", SLUG)
    ids = sorted(set(line.split()[0] for n in os.listdir(ref) for line in open(os.path.join(ref, n))))
    assert len(ids) == 80
    no_item_ids(SLUG, ids, tmp_path)


def test_category_files_listing_different_images(tmp_path, small_groups):
    # Falles lists a, b; Obon lists c, a. a: Obon .7 beats Falles .2 (Falles -> Obon); b: labelled 1 nowhere (left
    # out); c: only Obon lists it (right)
    gt = {"Falles": [("a.jpg", 1), ("b.jpg", -1)], "Obon": [("c.jpg", 1), ("a.jpg", -1)]}
    res = run(tmp_path, gt, {"Falles.txt": "a.jpg 0.2\nb.jpg 0.9\n", "Obon.txt": "c.jpg 0.5\na.jpg 0.7\n"},
              private=True)
    text, table = lost(res)
    assert "Counted: the 2 image(s)" in text and "(1 other image(s)" in text and "for 1 of them (50.0%)" in text
    assert table.rows == [["Falles -> Obon", 1, "100.0%"]]
    assert res.private[0].rows == [["a.jpg", "Falles", "Obon", "no"], ["b.jpg", "(not exactly one)", "Falles", "no"],
                                   ["c.jpg", "Obon", "Obon", "yes"]]


# ---------------------------------------------------------------- the bootstrap's decomposition (issue 13)

def decomposed(tmp_path, gt, sub):
    """TASK.score with decompose=True on the reference gt and the submission sub (as run)."""
    ref, res = tmp_path / "ref", tmp_path / "res"
    for cat, rows in gt.items():
        write(ref / ("%s_val.txt" % cat), "".join("%s %d\n" % r for r in rows))
    os.makedirs(str(res), exist_ok=True)
    for name, text in sub.items():
        write(res / name, text)
    return TASK.score(str(ref), Submission(str(res)), decompose=True)


def test_weighted_map_by_hand(tmp_path):
    # Falles: a+ b- c+ d-, ranked a b c d by the file; Obon: only b positive, and no Obon.txt (AP 0 while it has a
    # positive). Items: a b c d (the reference's order).
    #   weights 1 1 1 1: Falles a+ b- c+ d-: AP .5 * 1 + .5 * 2/3 = 5/6; Obon 0 -> mAP 5/12 (the official score)
    #   weights 2 1 0 1: Falles a+ a+ b- d-: both positives at precision 1, AP 1; Obon (b once) 0 -> mAP 1/2
    #   weights 1 0 1 1: Falles a+ c+ d-: AP 1; Obon without positives: no AP, left out -> mAP 1
    #   weights 1 2 1 0: Falles a+ b- b- c+: AP .5 * 1 + .5 * 2/4 = 3/4; Obon 0 -> mAP 3/8
    #   weights 0 3 0 1: Falles b- b- b- d-: no positive, no AP; Obon 0 -> mAP 0
    #   weights 0 0 0 1: no category has a positive: 0, as the official mean of no AP
    gt = {"Falles": GT, "Obon": [("a.jpg", -1), ("b.jpg", 1), ("c.jpg", -1), ("d.jpg", -1)]}
    res = decomposed(tmp_path, gt, {"Falles.txt": "a.jpg 4\nb.jpg 3\nc.jpg 2\nd.jpg 1\n"})
    d = res.decomposition
    assert d.unit == "image" and d.items == ["a.jpg", "b.jpg", "c.jpg", "d.jpg"]
    assert res.scores["mAP"] == pytest.approx(5 / 12., abs=1e-15)
    got = d.score(np.array([[1., 1, 1, 1], [2, 1, 0, 1], [1, 0, 1, 1], [1, 2, 1, 0], [0, 3, 0, 1], [0, 0, 0, 1]]))
    assert got == pytest.approx([5 / 12., 1 / 2., 1., 3 / 8., 0., 0.], abs=1e-15)


def copies(rows, weights):
    """Each (id, value) row k times (weight k), the copies right after the original under new ids."""
    return [(i if k == 0 else "%s_copy%d.jpg" % (i[:-4], k), v) for i, v in rows for k in range(int(weights[i]))]


@pytest.mark.parametrize("seed", range(4))
def test_weight_k_is_the_image_k_times_and_0_removes_it(tmp_path, seed):
    """Against the official scorer on the set with copies: an image of weight k is listed k times in every
    reference file and in every submitted file that lists it (the copies next to each other, with the same
    confidence: the stable sort keeps them adjacent), weight 0 removes it. Ties, unlisted images, a missing file
    and a category that loses its positives are all in play."""
    rng = np.random.RandomState(seed)
    cats = ["Falles", "Obon", "Holi", "La_Tomatina"]
    ids = ["%03d.jpg" % i for i in range(12)]
    event = rng.randint(0, 3, size=len(ids))                 # La_Tomatina: no positive; Holi: no file
    gt = {c: [(i, 1 if event[k] == n else -1) for k, i in enumerate(ids)] for n, c in enumerate(cats)}
    sub = {c: [(i, "%.1f" % rng.rand()) for i in ids if rng.rand() > 0.2] for c in cats if c != "Holi"}
    text = {c: "".join("%s %s\n" % r for r in rows) for c, rows in sub.items()}
    d = decomposed(tmp_path / "ones", gt, {c + ".txt": t for c, t in text.items()}).decomposition
    assert d.items == ids
    weights = rng.randint(0, 4, size=(5, len(ids))).astype(float)
    weights[0, event == 0] = 0                              # Falles loses every positive
    weights[:, 0] = np.maximum(weights[:, 0], 1)
    got = d.score(weights)
    for r, w in enumerate(weights):
        wi = dict(zip(ids, w))
        res = decomposed(tmp_path / str(r), {c: copies(rows, wi) for c, rows in gt.items()},
                         {c + ".txt": "".join("%s %s\n" % x for x in copies(rows, wi)) for c, rows in sub.items()})
        assert abs(got[r] - res.scores["mAP"]) <= 1e-12, (r, w)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_weighted_mean_ap_is_the_mean_of_weighted_ap_voc2010(seed):
    """The segment form against bootstrap.weighted_ap_voc2010 category by category (missing files, a category
    without positives, lines labelled 0, unlisted images, weights from 0 to large)."""
    from scoring_program.metrics.bootstrap import weighted_ap_voc2010
    from scoring_program.metrics.event_recognition import weighted_mean_ap
    rng = np.random.RandomState(seed)
    n, n_cat = rng.randint(1, 12), rng.randint(1, 5)
    labels = rng.choice([1, -1, -1, 0], size=(n_cat, n))
    labels[rng.randint(n_cat)] = -1
    positives = [np.flatnonzero(labels[c] > 0) for c in range(n_cat)]
    rankings = []
    for c in range(n_cat):
        listed = rng.permutation(n)[:rng.randint(0, n + 1)]
        rankings.append(None if rng.rand() < 0.2 else (listed, labels[c, listed]))
    weights = rng.randint(0, 4, size=(6, n)).astype(float)
    weights[0] = 1
    weights[1] *= rng.choice([1, 70000, 2 ** 33])
    aps = np.full((6, n_cat), np.nan)
    for c in range(n_cat):
        npos = np.bincount(positives[c], minlength=n)
        if rankings[c] is None:
            aps[:, c] = np.where(weights @ npos > 0, 0.0, np.nan)
        else:
            item, label = rankings[c]
            aps[:, c] = weighted_ap_voc2010(weights, item, label > 0, label < 0, npos)
    counted = ~np.isnan(aps)
    want = np.where(counted, aps, 0).sum(axis=1) / np.maximum(counted.sum(axis=1), 1)
    got = weighted_mean_ap(rankings, positives, n)(weights)
    assert np.allclose(got, want, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- a withheld image (issue 29)
def withheld_run(tmp_path, gt, sub, private):
    """run()'s reference as the whole one, Task.withhold of the `private` images plus WITHHELD (what the bundle
    uploads), and the submission scored against it: (Result, the withheld reference's folder)."""
    run(tmp_path, gt, sub)
    out = tmp_path / "public"
    out.mkdir()
    TASK.withhold(TASK.load_reference(str(tmp_path / "ref")), set(private), str(out))
    (out / "WITHHELD").write_text("".join(i + "\n" for i in sorted(private)))
    return TASK.score(str(out), Submission(str(tmp_path / "res"))), out


def test_a_withheld_image_is_listed_at_the_end_with_minus_one_and_scores_as_if_never_there(tmp_path):
    # b.jpg is withheld, La_Tomatina's only positive: it has none in the public part (no AP, out of the mean)
    # Falles without b: ranking a(+) d(-) c(+): prec 1, 1/2, 2/3; envelope 1 at rec .5, 2/3 at rec 1
    # AP = .5 * 1 + .5 * 2/3 = 5/6 = mAP (on the whole: b(-) first, AP 0.5 * 0.5 + 0.5 * 0.5 = 0.5)
    gt = {"Falles": GT, "La_Tomatina": [("a.jpg", -1), ("b.jpg", 1), ("c.jpg", -1), ("d.jpg", -1)]}
    sub = {"Falles.txt": "b.jpg 4\na.jpg 3\nd.jpg 2\nc.jpg 1\n", "La_Tomatina.txt": "b.jpg 9\na.jpg 1\n"}
    result, out = withheld_run(tmp_path, gt, sub, {"b.jpg"})
    assert result.scores == {"mAP": pytest.approx(5 / 6), "AP_Falles": pytest.approx(5 / 6)}
    # every image still listed in every file, b.jpg at the end with -1 in both (one value and place for any
    # withheld image)
    assert (out / "Falles_val.txt").read_bytes() == b"a.jpg 1\nc.jpg 1\nd.jpg -1\nb.jpg -1\n"
    assert (out / "La_Tomatina_val.txt").read_bytes() == b"a.jpg -1\nc.jpg -1\nd.jpg -1\nb.jpg -1\n"
    assert [k.key for k in TASK.score_keys(str(out))] == ["mAP", "AP_Falles"]     # loads; La_Tomatina: no column
    # the same as the cut reference, and a submission without b.jpg's lines
    cut = run(tmp_path / "cut", {c: [r for r in rows if r[0] != "b.jpg"] for c, rows in gt.items()},
              {"Falles.txt": "a.jpg 3\nd.jpg 2\nc.jpg 1\n", "La_Tomatina.txt": "a.jpg 1\n"})
    assert cut.scores == result.scores and cut.notes == result.notes
    # a submission naming an image outside the test set: the same error as on the whole reference
    with pytest.raises(SubmissionError, match="Falles.txt, line 2: .*1 unknown"):
        withheld_run(tmp_path / "unknown", gt, {"Falles.txt": "b.jpg 4\ne.jpg 3\n"}, {"b.jpg"})


def test_a_withheld_line_keeps_only_its_id_and_goes_to_the_end_in_id_order():
    from scoring_program.tasks.chalearn_lap2015_cultural_event import as_keys, withheld_lines
    data = b"  c.jpg\t 1 \r\nb.jpg -1\n\na.jpg   1"
    assert withheld_lines(data, "x", as_keys(["a.jpg", "c.jpg"])) == b"b.jpg -1\n\na.jpg -1\nc.jpg -1\n"
    # a file sorted by label (positives first): the withheld lines' places tell nothing
    pos_first = b"d.jpg 1\na.jpg 1\nb.jpg -1\nc.jpg -1\n"
    assert withheld_lines(pos_first, "x", as_keys(["a.jpg", "c.jpg"])) == b"d.jpg 1\nb.jpg -1\na.jpg -1\nc.jpg -1\n"
    assert withheld_lines(data, "x", as_keys([])) == data
