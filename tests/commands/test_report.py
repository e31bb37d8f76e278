"""The detailed report's constraints (issue 12), on every competition's sample submission: one self-contained file
of at most 2 MB, no JavaScript, no URL but data: and '#', the headline and the scores at the leaderboard's
precision; and the renderer's building blocks (envelope area == AP, wrapping that never cuts a title)."""
import os
import re

import numpy as np
import pytest

from conftest import ROOT, competition_slugs, run_score
from scoring_program.report.html import render
from scoring_program.report.result import Bars, HeatMap, Histogram, Plot, Result, ScoreKey, Series, Table
from scoring_program.report.svg import envelope_steps, wrap
from scoring_program.metrics.ap import ap_voc2010

URL_ATTR = re.compile(r"""(?:href|src|action|formaction|poster|data|background)\s*=\s*["']?([^"'\s>]*)""", re.I)
CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]*)", re.I)


def check_self_contained(text):
    assert len(text.encode("utf-8")) <= 2 * 1024 * 1024
    assert "<script" not in text.lower() and "javascript:" not in text.lower()
    assert not re.search(r"\son[a-z]+\s*=", text, re.I), "event handler attribute"
    for url in URL_ATTR.findall(text) + CSS_URL.findall(text):
        assert url.startswith("data:") or url.startswith("#"), url
    assert "<iframe" not in text.lower() and "<link" not in text.lower() and "@import" not in text.lower()


@pytest.mark.parametrize("slug", competition_slugs())
def test_sample_report_is_self_contained_with_headline(slug, tmp_path):
    from scoring_program.tasks import registry
    ref = os.path.join(ROOT, "reference_data", slug)
    proc, out = run_score(slug, ref, os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (out / "detailed_results.html").read_text(encoding="utf-8")
    check_self_contained(text)
    keys = registry.get(slug).score_keys(ref)
    scores = dict(line.split(": ") for line in (out / "scores.txt").read_text().splitlines())
    first = keys[0]
    headline = re.search(r"<div class='headline'><span class='value'>([^<]*)</span><span class='label'>([^<]*)",
                         text)
    assert headline, "no headline"
    assert headline.group(1) == "%.*f" % (first.precision, float(scores[first.key]))
    assert headline.group(2).strip() == first.label
    page_precision = max(k.precision for k in keys)         # one number format per page (issue 31)
    for k in keys:
        if k.key in scores:
            assert "<td>%s</td><td>%s</td>" % (k.key, "%.*f" % (page_precision, float(scores[k.key]))) in text
    assert "<h2>Per class</h2>" in text or len(keys) < 4, "no per-class bars"


def test_envelope_area_is_the_voc_ap():
    rng = np.random.RandomState(3)
    tp = rng.rand(200) < 0.4
    rec = np.cumsum(tp) / 100.0
    prec = np.cumsum(tp) / np.arange(1, 201)
    x, y = envelope_steps(rec, prec, columns=2000)
    area = float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0))        # trapezoids of a step outline: exact
    assert area == pytest.approx(ap_voc2010(rec, prec), abs=2e-3)
    assert y.max() <= prec.max() + 1e-12 and x[0] == 0.0 and y[0] == 0.0 and y[-1] == 0.0


def test_wrap_never_cuts():
    title = "Precision/recall of a_very_long_cultural_event_name_without_spaces and more words"
    lines = wrap(title, 10, 120)
    assert "".join(lines).replace(" ", "") == title.replace(" ", "")
    assert all(len(line) <= 120 // 6 for line in lines)


def test_render_every_block_and_precision():
    r = Result("t")
    r.set("mAP", 0.8500000000000001)
    r.set("AP_a", 0.5)
    r.bars.append(Bars("b", ["a", "bb", "c"], [0.1, 0.9, 0.5], extra=[0.2, 0.3, 0.4], extra_label="P@50"))
    s = r.section("Where the points were lost")
    s.add(Histogram("h", [0, 1, 2], [3, 4]))
    s.add(HeatMap("m", ["x", "y"], ["x", "y"], [[1.0, 0.0], [0.25, 0.75]]))
    s.add("a paragraph")
    s.add(Table("t", ["a"], [[1.5]]))
    r.plots.append(Plot("p", "x", "y", [Series("s1", [0, 1], [1, 0]), Series("s2", [0, 1], [0, 1], fill=True)]))
    r.level = "full"
    text = render(r, [ScoreKey("mAP", "mean AP", precision=3), ScoreKey("AP_a", "AP a")])
    check_self_contained(text)
    # one number format per page: the most decimals of the leaderboard's columns (3 and 4), the headline too
    assert "<span class='value'>0.8500</span>" in text and "0.8500000000000001" not in text
    assert "<td>1.5000</td>" in text and "<td>mAP</td><td>0.8500</td>" in text
    assert text.index("<h3>b</h3>") < text.index("Where the points were lost") < text.index("<h2>Curves</h2>")
    # sorted bars: bb (0.9) before c (0.5) before a (0.1)
    bars = text[text.index("<h3>b</h3>"):text.index("Where the points")]
    assert bars.index(">bb<") < bars.index(">c<") < bars.index(">a<")
    assert ">75<" in text and ">25<" in text        # heat map cells in percent


def test_curves_show_blocks_of_ranks_not_single_items():
    from scoring_program.metrics.ap import pr_curve
    from scoring_program.report.result import MIN_BLOCK, precision_recall_plots
    rng = np.random.RandomState(0)
    tp = (rng.rand(95) < 0.3).astype(float)
    swapped = tp.copy()
    a, b = 21, 27                               # two items in one block of 10 ranks (ranks 21..30), one positive
    swapped[a], swapped[b] = 1.0, 0.0
    tp[a], tp[b] = 0.0, 1.0
    curves = []
    for t in (tp, swapped):
        rec, prec = pr_curve(t, 1.0 - t, int(t.sum()))[:2]
        plot = precision_recall_plots([Series("c", rec, prec)])[0]
        curves.append((list(plot.series[0].x), list(plot.series[0].y)))
    assert curves[0] == curves[1]               # which of the two items is the positive is not drawn
    assert len(curves[0][0]) == 10 and MIN_BLOCK == 10      # ranks 10, 20, ..., 90 and the last (95)
