"""What a task returns: the leaderboard numbers plus everything the detailed report shows.

Everything in a Result except `private` is shown to the participant (detailed_results.html, scores, logs) and may be
public: it holds aggregates over the evaluated set only (per class, action, part, limb or threshold), never a fact
about one test item (issue 12). Per-item tables go to `private`, written only by score.py --private-report PATH.

The report reads, top to bottom: the headline (ranking score), the scores table, warnings, notes, the per-class
bars, the sections (each task's "Where the points were lost" and the like), the tables, the curves as small
multiples, the protocol.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import NamedTuple, Optional

import numpy as np


HIDDEN = "hidden"
FULL = "full"
LEVELS = (HIDDEN, FULL)
LEVEL_FILE = "REPORT_LEVEL"     # in the reference data: one word, hidden or full (bundle writes it); absent: hidden

LEVEL_TEXT = {
    HIDDEN: "Report level: hidden. The test set is hidden, so this report shows only your scores, facts about your "
            "own submission (files read or ignored, rows, formats, your own ids) and public facts (class names, "
            "the protocol). Diagnostics that depend on the hidden ground truth (curves, error breakdowns, "
            "confusions, coverage counts) go to the organizer only.",
    FULL: "Report level: full. The ground truth of this phase is released (or this is a local run), so this report "
          "shows every diagnostic: curves, error breakdowns, confusions and coverage counts.",
}


class Own(str):
    """A warning or note that states only facts about the submission itself (files read or ignored, rows, formats,
    its own ids) or public facts (class names, the protocol): shown at every report level.

    Every other warning or note is taken to depend on the hidden ground truth (a count over test items, an item
    the reference has or lacks) and is shown only at the full level, and in the organizer's private report. A task
    marks a text Own only when two references that differ in one test item cannot change it."""
    __slots__ = ()


def own(text):
    return Own(text)


class Leveled(Own):
    """An Own text (shown at every level) whose full-level form says more: `full`, with a count over test items
    (formats.hints.Unmatched: the hint alone at the hidden level, the count and the hint at the full level)."""

    def __new__(cls, text, full):
        self = Own.__new__(cls, text)
        self.full = full
        return self


def _at_level(texts, level):
    """The texts shown at `level`: every text at the full level (a Leveled one in its full form), the Own ones
    at the hidden level."""
    if level == FULL:
        return [getattr(t, "full", t) for t in texts]
    return [t for t in texts if isinstance(t, Own)]


class ScoreKey(object):
    """One leaderboard column == one key of scores.txt. Tasks declare them in one table (score_keys)."""

    def __init__(self, key, label=None, precision=4, sorting="desc"):
        self.key = key
        self.label = label or key
        self.precision = precision
        self.sorting = sorting

    def __repr__(self):
        return "ScoreKey(%r)" % self.key


class Series(object):
    """One curve. envelope=True (VOC AP): shade the area under the interpolated precision envelope (precision made
    non-increasing from the right, VOCap.m), whose area is the AP. fill=True: shade the area under the curve itself
    (a step curve whose area is the score)."""

    def __init__(self, label, x, y, step=False, envelope=False, fill=False):
        self.label = label
        self.x = x
        self.y = y
        self.step = step
        self.envelope = envelope
        self.fill = fill


class Plot(object):
    """One small plot. Titles wrap, never cut; the legend (more than one series) is drawn under the plot area.
    A Plot without series is a curve not drawn: the report names it under its note (the rule that left it out),
    each with its own reason, `why`: a NotDrawn (numbers the report writes at the page's precision) or a text."""

    def __init__(self, title, xlabel, ylabel, series, xlim=(0.0, 1.0), ylim=(0.0, 1.0), note=None, why=None):
        self.title = title
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.series = list(series)
        self.xlim = xlim
        self.ylim = ylim
        self.note = note
        self.why = why


def _fixed(v, precision) -> str:
    return "%.*f" % (precision, round(v, precision) + 0.0)


class NotDrawn(NamedTuple):
    """Why one precision/recall curve is not drawn (faithful_pr_plots), in numbers. Curves are shown at the full
    report level only (the ground truth released, or the organizer's report): `area` and `ap` depend on it. At
    ranked == 0 the reason is the submission's alone: it ranks nothing for that curve."""
    ranked: int             # the submission's ranked items for the curve; -1: not known (handed over in blocks)
    points: int             # the points drawn from them: one at every `block`-th rank and the last
    block: int              # k, the privacy resolution (rank_blocks)
    area: float             # the area those points shade, by the rule of the AP (curve_area)
    ap: float               # the exact AP it stands for

    def text(self, precision=4, title="") -> str:
        """The reason in a few words, its numbers at `precision` decimals (the page's): "60 ranked items in 6
        points: they shade 0.3417 for an AP of 0.7632" (the AP left out when the curve's title shows it)."""
        if self.ranked == 0:
            return "your submission ranks nothing for it"
        points = "%d point%s" % (self.points, "" if self.points == 1 else "s")
        if self.ranked > 0:
            lead = "%d ranked item%s in %s" % (self.ranked, "" if self.ranked == 1 else "s", points)
        else:
            lead = "%s of %d or more ranks" % (points, self.block)
        ap = _fixed(self.ap, precision)
        return "%s: %s %s%s" % (lead, "it shades" if self.points == 1 else "they shade", _fixed(self.area, precision),
                                "" if "AP %s" % ap in str(title) else " for an AP of %s" % ap)


def why_text(plot, precision=4) -> Optional[str]:
    """A curve not drawn: its own reason in words (plot.why), None when it gives none."""
    why = getattr(plot, "why", None)
    if why is None:
        return None
    return why.text(precision, plot.title) if isinstance(why, NotDrawn) else str(why)


MIN_BLOCK = 10          # a drawn precision/recall point aggregates at least this many ranked items
MAX_POINTS = 200


def rank_blocks(x, y, min_block=MIN_BLOCK, max_points=MAX_POINTS):
    """The points of a ranked curve (one point per ranked item, in rank order) at every k-th rank and the last,
    k = max(min_block, ceil(n / max_points)). A participant knows their own ranking, so a curve drawn point by
    point would tell, step by step, which item is a positive; drawn this way it tells only how many positives lie
    in each block of k ranked items (an aggregate)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    if n == 0:
        return x, y
    k = max(min_block, -(-n // max_points))
    idx = np.arange(k - 1, n, k)
    if idx.size == 0 or idx[-1] != n - 1:
        idx = np.append(idx, n - 1)
    return x[idx], y[idx]


CURVES_NOTE = ("Each precision/recall curve is drawn from the points at every k-th rank of your ranked list "
               "(k >= %d, at most %d points), so it shows how many positives lie in each block of k ranked items, "
               "never whether one item is a positive. The shaded area is the interpolated precision (made "
               "non-increasing from the right, VOCap.m's all-points envelope) of those points: the AP up to that "
               "resolution; the exact AP is in the scores." % (MIN_BLOCK, MAX_POINTS))

FAITHFUL = 0.01         # a curve is drawn only where its shaded area is within this of the AP it stands for
NOT_DRAWN = ("A curve is drawn only where its shaded area (%s) is within %.2f of the AP it stands for. Drawn from "
             "one point every k ranks (k >= %d: the privacy resolution above), these curves would shade an area "
             "that differs from their AP by more (short ranked lists, or positives bunched inside one block), so "
             "they are not drawn; their AP is in the scores.")
NOTHING_RANKED = "A curve is drawn from the items your submission ranks for it."
AREA_RULE = {True: "the all-points interpolated precision envelope, VOCap.m", False: "the trapezoids under the "
             "points from recall 0 at precision 1, ACT's pr_to_ap"}


def curve_area(recall, precision, envelope) -> float:
    """The area a drawn precision/recall curve shades, by the rule of the AP it stands for: envelope, VOCap.m's
    all-points interpolated precision (metrics.ap.ap_voc2010); otherwise ACT's trapezoids from (0, 1)
    (metrics.ap.ap_trapezoid_raw)."""
    from ..metrics.ap import ap_trapezoid_raw, ap_voc2010
    return ap_voc2010(recall, precision) if envelope else ap_trapezoid_raw(recall, precision)


def faithful_pr_plots(curves, envelope, note):
    """One precision/recall plot per (title, recall, precision) curve (one point per ranked item), or per (title,
    recall, precision, exact AP[, ranked items]) curve already in rank blocks, drawn from rank blocks (rank_blocks)
    only where the area it shades is within FAITHFUL of the curve's own AP under the same rule (curve_area); every
    other curve becomes a Plot without series whose note gives the rule (NOT_DRAWN) and whose `why` its own reason
    (NotDrawn: its ranked items, points, area and AP). A curve without a point (the submission ranks nothing for
    it) is a Plot not drawn too, saying so.
    envelope: VOCap.m's envelope shaded (VOC AP); otherwise ACT's trapezoids, the points joined from (0, 1)."""
    out = []
    rule = NOT_DRAWN % (AREA_RULE[envelope], FAITHFUL, MIN_BLOCK)
    for curve in curves:
        title, recall, precision = curve[:3]
        if len(curve) > 3:      # (title, blocks' recall, blocks' precision, the exact AP[, ranked items]): blocked
            x, y, exact = np.asarray(recall, dtype=np.float64), np.asarray(precision, dtype=np.float64), curve[3]
            ranked = int(curve[4]) if len(curve) > 4 and curve[4] is not None else -1
            block = max(MIN_BLOCK, -(-ranked // MAX_POINTS)) if ranked > 0 else MIN_BLOCK
        else:
            ranked = len(recall)
            block = max(MIN_BLOCK, -(-ranked // MAX_POINTS))
            x, y = rank_blocks(recall, precision)
            exact = curve_area(recall, precision, envelope) if ranked else 0.0
        if x.size == 0:
            out.append(Plot(title, "recall", "precision", [], note=NOTHING_RANKED,
                            why=NotDrawn(0, 0, block, 0.0, float(exact))))
            continue
        area = curve_area(x, y, envelope)
        if abs(area - exact) > FAITHFUL:
            out.append(Plot(title, "recall", "precision", [], note=rule,
                            why=NotDrawn(ranked, int(x.size), block, float(area), float(exact))))
        elif envelope:
            out.append(Plot(title, "recall", "precision", [Series(title, x, y, envelope=True)], note=note))
        else:
            out.append(Plot(title, "recall", "precision", [Series(title, np.concatenate(([0.0], x)),
                                                                  np.concatenate(([1.0], y)), fill=True)],
                            note=note))
    return out


def precision_recall_plots(series, envelope=True, blocked_aps=None, blocked_ranked=None):
    """One precision/recall plot per class (small multiples), titled by the class, drawn from rank blocks
    (rank_blocks: series hold one point per ranked item) where faithful to the class's AP (faithful_pr_plots);
    envelope: shade the VOC interpolated precision. blocked_aps: the series hold rank_blocks' points already (a
    task that keeps only those), and these are their classes' exact APs, in the same order; blocked_ranked: then
    the number of ranked items behind each (the submission's detections of the class), for the reason of a curve
    not drawn."""
    if blocked_aps is not None:
        ranked = list(blocked_ranked) if blocked_ranked is not None else [None] * len(blocked_aps)
        return faithful_pr_plots([(s.label, s.x, s.y, ap, n) for s, ap, n in zip(series, blocked_aps, ranked)],
                                 envelope, CURVES_NOTE)
    return faithful_pr_plots([(s.label, s.x, s.y) for s in series], envelope, CURVES_NOTE)


class Table(object):
    def __init__(self, title, header, rows, note=None):
        self.title = title
        self.header = list(header)
        self.rows = [list(r) for r in rows]
        self.note = note


class Bars(object):
    """A horizontal bar chart, one bar per label, sorted by value (largest first) unless sort=False. value_text:
    optional per-bar text drawn after the bar (default: the value at `precision` decimals); extra: optional second
    value per label drawn as a thin marker (e.g. precision at 50% recall beside AP), named extra_label."""

    def __init__(self, title, labels, values, xlabel="", xlim=(0.0, 1.0), precision=4, sort=True, note=None,
                 value_text=None, extra=None, extra_label=None):
        self.title = title
        self.labels = [str(v) for v in labels]
        self.values = [float(v) for v in values]
        self.xlabel = xlabel
        self.xlim = xlim
        self.precision = precision
        self.sort = sort
        self.note = note
        self.value_text = list(value_text) if value_text is not None else None
        self.extra = [float(v) for v in extra] if extra is not None else None
        self.extra_label = extra_label


class Histogram(object):
    """Counts per bin, drawn as vertical bars. edges: len(counts) + 1 bin edges."""

    def __init__(self, title, edges, counts, xlabel="", ylabel="count", note=None):
        self.title = title
        self.edges = [float(v) for v in edges]
        self.counts = [float(v) for v in counts]
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.note = note


class HeatMap(object):
    """A matrix of values in [0, 1] as coloured cells (rows normalized by the caller), with the percentage in each
    cell of at least 1%."""

    def __init__(self, title, row_labels, col_labels, values, row_title="", col_title="", note=None):
        self.title = title
        self.row_labels = [str(v) for v in row_labels]
        self.col_labels = [str(v) for v in col_labels]
        self.values = np.asarray(values, dtype=np.float64)
        self.row_title = row_title
        self.col_title = col_title
        self.note = note


class Section(object):
    """A titled group of blocks (Table, Plot, Bars, Histogram, HeatMap, or a str paragraph), shown in order."""

    def __init__(self, title, intro=None):
        self.title = title
        self.intro = intro
        self.blocks = []

    def add(self, block):
        self.blocks.append(block)
        return block


class Result(object):
    def __init__(self, title):
        self.title = title
        self.scores = OrderedDict()   # key -> float, in leaderboard order
        self.bars = []                # Bars: the per-class metric (ranking order is the chart's)
        self.sections = []            # Section: "Where the points were lost" and other task-specific views
        self.tables = []
        self.plots = []               # Plot: drawn as small multiples under "Curves"
        self.protocol = []            # paragraphs: the metric in words, with its quirks
        self.notes = []               # facts about this submission (missing files, classes without AP)
        self.warnings = []            # things the participant should fix (duplicates, skipped lines)
        self.timings = []             # (phase, seconds): printed by the command line, kept out of the report
        self.private = []             # Table: per-item diagnostics, written only by --private-report (organizer)
        self.decomposition = None     # metrics.bootstrap.Decomposition on request (rescore --bootstrap); a str: why not
        self.level = HIDDEN           # the report level (cli sets it from the reference data or --report)
        self.columns = []             # ScoreKey: the leaderboard's columns (cli sets them), for their precision
        self.private_scores = OrderedDict()   # the private part's scores (PRIVATE_PART): OUTPUT/private/ only

    def shown_warnings(self):
        """The warnings the participant sees at this report level (on stderr and in the report)."""
        return _at_level(self.warnings, self.level)

    def shown_notes(self):
        return _at_level(self.notes, self.level)

    def withheld(self):
        """(warnings, notes) kept from the participant at this level: the organizer's private report shows them."""
        if self.level == FULL:
            return [], []

        def kept(texts):        # a Leveled text's full form (its count) is withheld too
            return [getattr(t, "full", t) for t in texts if not isinstance(t, Own) or hasattr(t, "full")]
        return kept(self.warnings), kept(self.notes)

    def set(self, key, value):
        self.scores[key] = float(value)

    def section(self, title, intro=None):
        """The section of that title, created (in order) on first use."""
        for s in self.sections:
            if s.title == title:
                return s
        s = Section(title, intro)
        self.sections.append(s)
        return s


LOST = "Where the points were lost"
