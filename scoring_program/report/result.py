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
    """One small plot. Titles wrap, never cut; the legend (more than one series) is drawn under the plot area."""

    def __init__(self, title, xlabel, ylabel, series, xlim=(0.0, 1.0), ylim=(0.0, 1.0), note=None):
        self.title = title
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.series = list(series)
        self.xlim = xlim
        self.ylim = ylim
        self.note = note


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
               "non-increasing from the right) of those points: the AP up to that resolution; the exact AP is "
               "in the scores." % (MIN_BLOCK, MAX_POINTS))


def precision_recall_plots(series, envelope=True, blocked=False):
    """One precision/recall plot per class (small multiples), titled by the class, drawn from rank blocks
    (rank_blocks: series hold one point per ranked item, or, blocked, rank_blocks' points already: a task that
    keeps only those); envelope: shade the VOC interpolated precision."""
    out = []
    for s in series:
        x, y = (s.x, s.y) if blocked else rank_blocks(s.x, s.y)
        out.append(Plot(s.label, "recall", "precision", [Series(s.label, x, y, envelope=envelope)],
                        note=CURVES_NOTE))
    return out


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
        self.private_scores = OrderedDict()   # the private part's scores (PRIVATE_PART): OUTPUT/private/ only

    def shown_warnings(self):
        """The warnings the participant sees at this report level (on stderr and in the report)."""
        return list(self.warnings) if self.level == FULL else [w for w in self.warnings if isinstance(w, Own)]

    def shown_notes(self):
        return list(self.notes) if self.level == FULL else [n for n in self.notes if isinstance(n, Own)]

    def withheld(self):
        """(warnings, notes) kept from the participant at this level: the organizer's private report shows them."""
        if self.level == FULL:
            return [], []
        return ([w for w in self.warnings if not isinstance(w, Own)], [n for n in self.notes if not isinstance(n, Own)])

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
