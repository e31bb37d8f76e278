"""DIR/ranking.html and DIR/bootstrap.csv of rescore --bootstrap (issue 13): how sure the ranking is.

For the organizer: every submission's official score with its 95% bootstrap interval, the bootstrap rank
distribution as a blob plot (as challengeR draws it: a circle per submission and rank, its area the share of
resamples at that rank, with the median rank and the 95% rank interval), the significance heat map (the share of
resamples in which the row's submission beats the column's) and Kendall's tau between the official ranking and each
resampled one. The statistics are metrics.bootstrap.ranking_statistics; this module draws them.
"""
from __future__ import annotations

import csv
import html
import io

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..metrics.bootstrap import RankingStatistics
from .leaderboard import page_head
from .result import HeatMap, Histogram
from .svg import _e, heatmap_svg, histogram_svg

BLUE = "#1d4f85"


def bootstrap_csv(names: List[str], stats: RankingStatistics, label: Optional[str] = None) -> str:
    """One row per resample (1..B), one column per submission (names: in official order): its ranking score.
    label: the part of the test set resampled ("private part: 120 images"), said in the first column's header."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["resample (%s)" % label if label else "resample"] + names)
    for r, row in enumerate(stats.boot):
        w.writerow([r + 1] + [repr(float(v)) for v in row])
    return buf.getvalue()


def blob_svg(names: List[str], stats: RankingStatistics, col: int = 34, row: int = 26) -> str:
    """x: the submissions in official order; y: rank 1 (top) .. S; circle area: the share of resamples at that rank;
    black line: the 95% rank interval; cross: the median rank."""
    s = len(names)
    fs = 10
    label_h = int(max([len(n) for n in names] or [4]) * (fs + 1) * 0.6) + 12
    ml, mt, mr = 46, 12, 12
    width, height = ml + s * col + mr, mt + s * row + label_h + 8
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="%d" role="img">' % (width, height, width, height, fs)]
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="white" stroke="#888"/>'
               % (ml, mt, s * col, s * row))
    b = max(stats.ranks.shape[0], 1)
    for k in range(s):
        y = mt + k * row + row / 2.0
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (ml, y, ml + s * col, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end" fill="#444">%d</text>' % (ml - 4, y + 3, k + 1))
    out.append('<text x="10" y="%.1f" text-anchor="middle" transform="rotate(-90 10 %.1f)">bootstrap rank</text>'
               % (mt + s * row / 2.0, mt + s * row / 2.0))
    rmax = min(col, row) / 2.0 - 1
    for j in range(s):
        x = ml + j * col + col / 2.0
        share = np.bincount(np.clip(stats.ranks[:, j], 1, s) - 1, minlength=s) / float(b)
        # the official rank, as a grey square behind the circles
        y0 = mt + (stats.official_rank[j] - 1) * row
        out.append('<rect x="%.1f" y="%d" width="%d" height="%d" fill="none" stroke="#bbb"/>'
                   % (x - col / 2.0 + 1, y0 + 1, col - 2, row - 2))
        for k in np.flatnonzero(share):
            out.append('<circle cx="%.1f" cy="%.1f" r="%.2f" fill="%s" fill-opacity="0.75"><title>%s: rank %d in '
                       '%.1f%% of resamples</title></circle>'
                       % (x, mt + k * row + row / 2.0, max(rmax * np.sqrt(share[k]), 0.8), BLUE,
                          _e(names[j]), k + 1, 100 * share[k]))
        ya = mt + (stats.rank_low[j] - 1) * row + row / 2.0
        yb = mt + (stats.rank_high[j] - 1) * row + row / 2.0
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="1.5"/>'
                   % (x + col / 2.0 - 4, ya, x + col / 2.0 - 4, yb))
        ym = mt + (stats.rank_median[j] - 1) * row + row / 2.0
        out.append('<path d="M%.1f %.1fl6 6M%.1f %.1fl-6 6" stroke="#c0392b" stroke-width="1.6"/>'
                   % (x - 3, ym - 3, x + 3, ym - 3))
        ty = mt + s * row + 6
        out.append('<text x="%.1f" y="%d" font-size="%d" transform="rotate(-90 %.1f %d)" text-anchor="end">%s</text>'
                   % (x + 4, ty, fs + 1, x + 4, ty, _e(names[j])))
    out.append("</svg>")
    return "".join(out)


def interval_svg(names: List[str], stats: RankingStatistics, precision: int, width: int = 640,
                 row: int = 18) -> str:
    """One line per submission (official order): the official score as a dot on its 95% bootstrap interval."""
    s = len(names)
    fs = 10
    label_w = int(max([len(n) for n in names] or [4]) * (fs + 1) * 0.6) + 14
    ml, mr, mt, mb = label_w, 16, 8, 30
    pw = width - ml - mr
    height = mt + s * row + mb
    vals = np.concatenate([stats.official, stats.low, stats.high])
    vals = vals[np.isfinite(vals)]
    lo, hi = (float(vals.min()), float(vals.max())) if vals.size else (0.0, 1.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad

    def sx(v):
        return ml + (v - lo) / (hi - lo) * pw

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="%d" role="img">' % (width, height, width, height, fs)]
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="white" stroke="#888"/>' % (ml, mt, pw, s * row))
    step = _nice_step((hi - lo) / 6.0)
    digits = max(0, int(-np.floor(np.log10(step))))
    for v in np.arange(np.ceil(lo / step) * step, hi, step):
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (sx(v), mt, sx(v), mt + s * row))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%.*f</text>'
                   % (sx(v), mt + s * row + 12, digits, round(v, digits) + 0.0))     # + 0.0: never "-0.0"
    out.append('<text x="%.1f" y="%d" text-anchor="middle">score (dot: official; line: 95%% bootstrap interval)'
               '</text>' % (ml + pw / 2.0, height - 4))
    for j in range(s):
        y = mt + j * row + row / 2.0
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (ml - 4, y + 3, _e(names[j])))
        if np.isfinite(stats.low[j]) and np.isfinite(stats.high[j]):
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>'
                       % (sx(stats.low[j]), y, sx(stats.high[j]), y, BLUE))
        if np.isfinite(stats.official[j]):
            out.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="#c0392b"/>' % (sx(stats.official[j]), y))
    out.append("</svg>")
    return "".join(out)


def _nice_step(raw):
    """1, 2 or 5 times a power of ten, the first at least raw."""
    power = 10.0 ** np.floor(np.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def _fig(title, svg, note=None):
    e = html.escape
    return ("<div class='fig'><h2>%s</h2>%s<div class='scroll'>%s</div></div>"
            % (e(title), "<p class='note'>%s</p>" % e(note) if note else "", svg))


def render_ranking(title: str, names: List[str], stats: RankingStatistics, key, unit: str, n_items: int,
                   resamples: int, seed: int, failed: Sequence[str] = (),
                   missing: Sequence[Tuple[str, str]] = (), part: Optional[str] = None) -> str:
    """ranking.html. names: the submissions in official order, stats their RankingStatistics; key: the ranking
    column (report.result.ScoreKey); failed: names not scored; missing: names scored without a bootstrap (and
    why); part: the part of the test set the scores and resamples are of ("private part", "public part", "whole
    test set"; n_items: its items), or None for the test set as scored."""
    e = html.escape
    p = key.precision
    s = len(names)
    out = page_head(title)
    if part is None:
        drawn = "of the %d test %ss, drawn with replacement" % (n_items, e(unit))
    else:
        drawn = ("of the %s: its %d %ss drawn with replacement among themselves (every other test item weighs 0)"
                 % (e(part), n_items, e(unit)))
    out.append("<p>%d submission(s) ranked by %s%s (%s is better). %d bootstrap resamples (seed %d) %s, the same "
               "resamples for every submission; each submission's %s is recomputed on each resample from its "
               "per-%s records.</p>"
               % (s, e(key.label), " on the %s" % e(part) if part else "", "higher" if stats.descending else "lower",
                  resamples, seed, drawn, e(key.label), e(unit)))
    tau = stats.tau
    if s > 1 and tau.size:
        out.append("<div class='headline'><span class='value'>%.3f</span><span class='label'>Kendall's tau "
                   "between the official ranking and the resampled ones: median (5th percentile %.3f)</span>"
                   "</div>" % (np.median(tau), np.percentile(tau, 5)))
    out.append("<h2>Scores and ranks%s</h2><div class='scroll'><table><tr><th>submission</th><th>rank</th>"
               % (": %s" % e(part) if part else "") +
               "<th>%s</th><th>95%% interval</th><th>median rank</th><th>95%% rank interval</th>"
               "<th>beats the next</th></tr>" % e(key.label))
    for j in range(s):
        nxt = "%.3f" % stats.beats[j, j + 1] if j + 1 < s else ""
        out.append("<tr><td>%s</td><td>%d</td><td>%.*f</td><td>[%.*f, %.*f]</td><td>%g</td><td>[%g, %g]</td>"
                   "<td>%s</td></tr>"
                   % (e(names[j]), stats.official_rank[j], p, stats.official[j], p, stats.low[j], p,
                      stats.high[j], stats.rank_median[j], stats.rank_low[j], stats.rank_high[j], nxt))
    out.append("</table></div><p class='note'>95%% interval: the 2.5th and 97.5th percentiles of the submission's "
               "%s over the resamples. Ranks: 1 is best; ties share the best rank of their group. Beats the next: "
               "the share of resamples in which the submission scores strictly better than the one ranked below it."
               "</p>" % e(key.label))
    if s:
        out.append(_fig("Scores with their 95% bootstrap intervals", interval_svg(names, stats, p)))
        out.append(_fig("Bootstrap ranks (blob plot)", blob_svg(names, stats),
                        "One column per submission, in official order. A circle's area is the share of resamples in "
                        "which the submission took that rank (ties take the best rank of the group); the grey "
                        "square marks the official rank, the red cross the median bootstrap rank and the black line "
                        "the 95% rank interval."))
    if s > 1:
        heat = HeatMap("", names, names, stats.beats, row_title="row", col_title="column")
        out.append(_fig("Significance map", heatmap_svg(heat, cell=max(14, min(30, 600 // s))),
                        "Cell (row, column): the percentage of resamples in which the row's submission scores "
                        "strictly better than the column's. A pair is told apart with confidence when the cell is "
                        "at least 95; near 50 the order between the two is a coin toss."))
        if tau.size:
            start = max(-1.0, min(0.95, float(np.floor(tau.min() * 20) / 20)))
            edges = np.linspace(start, 1.0, int(round((1.0 - start) * 20)) + 1)    # bins 0.05 wide
            counts, _ = np.histogram(tau, bins=edges)
            out.append(_fig("Kendall's tau of each resampled ranking against the official one",
                            histogram_svg(Histogram("", edges, counts, xlabel="Kendall's tau (1: the same order)",
                                                    ylabel="resamples")),
                            "tau-b (ties allowed). median %.3f, 5th percentile %.3f, minimum %.3f."
                            % (np.median(tau), np.percentile(tau, 5), tau.min())))
    if missing:
        out.append("<h2 class='warn'>Scored, not in the bootstrap</h2><ul>%s</ul>"
                   % "".join("<li>%s: %s</li>" % (e(n), e(why)) for n, why in missing))
    if failed:
        out.append("<h2 class='warn'>Not scored</h2><p>%s (see leaderboard.html)</p>" % e(", ".join(failed)))
    out.append("</body></html>\n")
    return "\n".join(out)
