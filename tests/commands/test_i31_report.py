"""Issue 31, Deliver 5 (reports): one number format per page (the leaderboard's precision), titles clear of their
axes, rescore's leaderboard within 900 px with its names left-aligned, a reason for every curve not drawn."""
import os
import shutil
import re
from collections import Counter, namedtuple

import numpy as np
import pytest

from conftest import ROOT, run_score
from scoring_program.report import html as H
from scoring_program.report import result as R
from scoring_program.report.leaderboard import _leaderboard_widths, render_leaderboard
from scoring_program.report.result import FULL, HIDDEN, Bars, Plot, Result, ScoreKey, Series, Table
from scoring_program.report.svg import plot_svg
from scoring_program.tasks import registry


def _visible_numbers(page):
    """The decimals of every number of 3 or more decimals the reader sees before the protocol (tags removed)."""
    text = re.sub(r"<[^>]+>", " ", page.split("<h2>Protocol</h2>")[0])
    return Counter(len(m) for m in re.findall(r"(?<![\d.])\d+\.(\d{3,})(?![\d.])", text))


# ---------------------------------------------------------------- one number format per page
@pytest.mark.parametrize("slug,decimals", [("kinetics-tps", 6), ("chalearn-lap2015-cultural-event", 4)])
def test_sample_page_writes_every_score_at_the_leaderboard_precision(slug, decimals, tmp_path):
    """kinetics-tps: its score's column has 6 decimals; the tables (accuracy per threshold, per class), the bars
    and 'All scores' wrote 4 beside the task's 6 before. Every number of 3+ decimals is now at 6."""
    ref = os.path.join(ROOT, "reference_data", slug)
    proc, out = run_score(slug, ref, os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (out / "detailed_results.html").read_text(encoding="utf-8")
    keys = registry.get(slug).score_keys(ref)
    assert H.page_precision(keys) == decimals
    found = _visible_numbers(page)
    assert set(found) == {decimals} and sum(found.values()) > 20, found
    if slug == "kinetics-tps":
        scores = dict(line.split(": ") for line in (out / "scores.txt").read_text().splitlines())
        assert "<td>top1</td><td>%.6f</td>" % float(scores["top1"]) in page
        assert "top-1 accuracy 1.000000" in page        # the bars' value labels


def test_every_block_at_the_page_precision():
    """Columns of 6 and 4 decimals: the page's precision is 6, in the headline, a table, the bars, 'All scores'
    and the reason of a curve not drawn (8 ranked items, 5 positives first: one point at rank 8, recall 1,
    precision 5/8, which shades 0.625 for an AP of 1)."""
    r = Result("t")
    r.set("score", 0.25)
    r.set("top1", 0.5)
    r.bars.append(Bars("b", ["x", "y"], [1 / 3.0, 0.125]))
    r.tables.append(Table("t", ["what", "value"], [["third", 1 / 3.0]]))
    tp = np.array([1, 1, 1, 1, 1, 0, 0, 0], dtype=np.float64)
    ctp = np.cumsum(tp)
    r.plots.extend(R.precision_recall_plots([Series("bus", ctp / 5, ctp / np.arange(1, 9))]))
    r.level = FULL
    page = H.render(r, [ScoreKey("score", precision=6), ScoreKey("top1")])
    assert "<span class='value'>0.250000</span>" in page
    assert "<td>top1</td><td>0.500000</td>" in page and "<td>third</td><td>0.333333</td>" in page
    assert ">0.333333<" in page and ">0.125000<" in page
    assert "<br>bus: 8 ranked items in 1 point: it shades 0.625000 for an AP of 1.000000</p>" in page
    assert _visible_numbers(page) == Counter({6: 8})     # headline, 2 scores, 1 cell, 2 bars, 2 in the reason


# ---------------------------------------------------------------- titles clear of their axes
def _title_and_top_tick(svg):
    titles = [float(y) for y in re.findall(r'<text x="2.0" y="([\d.]+)" font-size="11"[^>]*font-weight="bold"',
                                           svg)]
    ticks = [float(y) for y in re.findall(r'<text x="\d+" y="([\d.]+)" text-anchor="end" fill="#444">', svg)]
    return titles, min(ticks)


@pytest.mark.parametrize("width,height,lines", [(204, 190, 3), (320, 240, 2)])
def test_pose_curve_title_stays_clear_of_the_top_tick(width, height, lines):
    """The pose report's curve: its title's last line (baseline + 0.25 em of descenders, 11 px) ends at least
    4 px above the top y tick's label (baseline - 0.75 em of its 10 px glyphs), which sat 1.5 px into it before.
    Drawn alone it is 320 px wide: two title lines, not three (the last 't)' alone)."""
    plot = Plot("Hit rate as a function of the Jaccard threshold (hit iff J > t)", "threshold t", "hit rate",
                [Series("hit rate", [0.0, 0.5, 1.0], [0.9, 0.6, 0.0])])
    titles, top_tick = _title_and_top_tick(plot_svg(plot, width=width, height=height))
    assert len(titles) == lines
    assert titles[-1] + 0.25 * 11 + 4 <= top_tick - 0.75 * 10


def test_pose_report_draws_its_one_curve_alone(tmp_path):
    slug = "chalearn-lap2014-pose"
    ref = os.path.join(ROOT, "reference_data", slug)
    proc, out = run_score(slug, ref, os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (out / "detailed_results.html").read_text(encoding="utf-8")
    curves = page.split("<h2>Curves</h2>")[1].split("<h2>")[0]
    assert curves.count("<svg") == 1 and '<svg xmlns="http://www.w3.org/2000/svg" width="320"' in curves
    titles, top_tick = _title_and_top_tick(curves)
    assert len(titles) == 2 and titles[-1] + 0.25 * 11 + 4 <= top_tick - 0.75 * 10


# ---------------------------------------------------------------- rescore's leaderboard within 900 px
Key = namedtuple("Key", "key label precision")
VOC = ["aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow", "diningtable", "dog",
       "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor"]


def test_leaderboard_of_21_columns_fits_900_px_in_parts_with_left_aligned_names():
    """mAP and 20 AP columns (about 1,800 px in one table): parts that each fit html.FIT_WIDTH (850 px), each led
    by the rank and the name, which is left-aligned and wraps after '_' ('td.name', white-space normal); every
    score shown once; the parts say which columns they hold."""
    keys = [Key("mAP", "mAP", 4)] + [Key("AP_" + c, "AP " + c, 4) for c in VOC]
    names = ["team_alpha_faster_rcnn_resnet101_final", "my-baseline", "perfect"]
    recs = [{"name": n, "scores": dict((k.key, 0.5 + 0.1 * i) for k in keys)} for i, n in enumerate(names)]
    page = render_leaderboard("t", keys, recs, [])
    widths = _leaderboard_widths(keys, recs, False)
    assert sum(widths) > 1500
    groups = H.column_groups(widths, fixed=2)
    assert len(groups) == 3 and all(sum(widths[c] for c in g) <= H.FIT_WIDTH for g in groups)
    assert sorted(c for g in groups for c in g[2:]) == list(range(2, 23)) and all(g[:2] == [0, 1] for g in groups)
    assert page.count("<table>") == 3 and page.count("<th class='name'>submission</th>") == 3
    captions = re.findall(r"<caption>([^<]*)</caption>", page)
    assert captions[0].startswith("Scores, part 1 of 3: mAP to AP ") and captions[2].endswith(" to AP tvmonitor")
    assert page.count("<td>0.5000</td>") == 21 and page.count("<td>0.7000</td>") == 21
    assert ("<td class='name' title='team_alpha_faster_rcnn_resnet101_final'>team_<wbr>alpha_<wbr>faster_<wbr>"
            "rcnn_<wbr>resnet101_<wbr>final</td>") in page
    assert "td.name,th.name{text-align:left;white-space:normal;overflow-wrap:anywhere}" in page


def test_a_narrow_leaderboard_stays_one_table():
    keys = [Key("mAP", "mAP", 4)]
    page = render_leaderboard("t", keys, [{"name": "a", "scores": {"mAP": 0.5}}], [])
    assert page.count("<table>") == 1 and "<caption>" not in page


# ---------------------------------------------------------------- a reason for every curve not drawn
def test_every_curve_not_drawn_says_why():
    """A short list (8 ranked items, 5 positives first: one point, 0.625 against the AP 1), a class the
    submission ranks nothing for, and a faithful curve (drawn): each curve not drawn named with its reason."""
    tp = np.array([1, 1, 1, 1, 1, 0, 0, 0], dtype=np.float64)
    ctp = np.cumsum(tp)
    long_tp = np.tile([1.0] * 10 + [0.0] * 10, 10)           # 200 items: blocks of 10 alternate all TP / all FP
    lctp = np.cumsum(long_tp)
    plots = R.precision_recall_plots([Series("bus", ctp / 5, ctp / np.arange(1, 9)),
                                      Series("car", np.zeros(0), np.zeros(0)),
                                      Series("cat", lctp / 100, lctp / np.arange(1, 201))])
    bus, car, cat = plots
    assert bus.series == [] and bus.why == R.NotDrawn(8, 1, 10, 0.625, 1.0)
    assert car.series == [] and car.why.ranked == 0 and car.note == R.NOTHING_RANKED
    assert cat.series and cat.why is None
    r = Result("t")
    r.plots.extend(plots)
    r.level = FULL
    page = H.render(r, [ScoreKey("mAP")])
    assert "<p class='note'>Not drawn (1 curve). A curve is drawn from the items your submission ranks for it." \
           "<br>car: your submission ranks nothing for it</p>" in page
    assert "<p class='note'>Not drawn (1 curve). A curve is drawn only where its shaded area" in page
    assert "<br>bus: 8 ranked items in 1 point: it shades 0.6250 for an AP of 1.0000</p>" in page
    # at the hidden level no curve is shown, and so no reason
    r.level = HIDDEN
    assert "Not drawn" not in H.render(r, [ScoreKey("mAP")])


def test_blocked_curves_say_their_ranked_count_when_the_task_gives_it():
    """voc2011-detection hands its curves over in blocks already; with blocked_ranked (its detections per class)
    the reason gives the ranked items, without it the points alone."""
    s = Series("bus", [1.0], [0.625])
    (with_count,) = R.precision_recall_plots([s], blocked_aps=[1.0], blocked_ranked=[8])
    (without,) = R.precision_recall_plots([s], blocked_aps=[1.0])
    assert with_count.why == R.NotDrawn(8, 1, 10, 0.625, 1.0)
    assert R.why_text(without) == "1 point of 10 or more ranks: it shades 0.6250 for an AP of 1.0000"
    titled = Plot("bus (AP 1.0000)", "recall", "precision", [], why=with_count.why)
    assert R.why_text(titled) == "8 ranked items in 1 point: it shades 0.6250"


@pytest.mark.parametrize("slug", ["voc2011-detection", "voc2011-classification", "chalearn-lap2015-cultural-event",
                                  "action-tubes", "voc2011-layout", "voc2011-action"])
def test_sample_curves_not_drawn_each_carry_a_reason(slug, tmp_path):
    ref = os.path.join(ROOT, "reference_data", slug)
    proc, out = run_score(slug, ref, os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (out / "detailed_results.html").read_text(encoding="utf-8")
    paragraphs = re.findall(r"<p class='note'>Not drawn \((\d+) curves?\)\. A curve is drawn [^<]*<br>(.*?)</p>",
                            page)
    assert paragraphs
    for count, named in paragraphs:
        entries = named.split("<br>")
        assert len(entries) == int(count)
        assert all(re.search(r": ((\d+ ranked items? in )?\d+ points?( of 10 or more ranks)?: (it|they) shades? "
                             r"\d\.\d{4}( for an AP of \d\.\d{4})?|your submission ranks nothing for it)$", e)
                   for e in entries), entries


def test_a_detection_class_the_submission_ranks_nothing_for_has_its_curve_reason(tmp_path):
    """voc2011-detection hands its curves over in blocks; a class whose result file is missing (AP 0) still gets
    its plot, not drawn, saying why, among the others drawn from the perfect sample."""
    res = tmp_path / "res"
    shutil.copytree(os.path.join(ROOT, "starting_kit", "voc2011-detection", "submissions", "perfect"), str(res))
    (res / "results" / "VOC2011" / "Main" / "comp3_det_test_bus.txt").unlink()
    proc, out = run_score("voc2011-detection", os.path.join(ROOT, "reference_data", "voc2011-detection"), str(res),
                          tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (out / "detailed_results.html").read_text(encoding="utf-8")
    assert ("<p class='note'>Not drawn (1 curve). A curve is drawn from the items your submission ranks for it."
            "<br>bus: your submission ranks nothing for it</p>") in page
