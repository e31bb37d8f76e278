"""What a task returns: the leaderboard numbers plus everything the detailed report shows."""
from __future__ import annotations

from collections import OrderedDict


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
    def __init__(self, label, x, y, step=False):
        self.label = label
        self.x = x
        self.y = y
        self.step = step


class Plot(object):
    def __init__(self, title, xlabel, ylabel, series, xlim=(0.0, 1.0), ylim=(0.0, 1.0)):
        self.title = title
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.series = list(series)
        self.xlim = xlim
        self.ylim = ylim


def precision_recall_plots(series, per_plot=5):
    """Precision/recall curves, per_plot to a plot, titled by the names they show."""
    return [Plot("Precision/recall (%s)" % ", ".join(s.label for s in series[i:i + per_plot]), "recall", "precision",
                 series[i:i + per_plot]) for i in range(0, len(series), per_plot)]


class Table(object):
    def __init__(self, title, header, rows, note=None):
        self.title = title
        self.header = list(header)
        self.rows = [list(r) for r in rows]
        self.note = note


class Result(object):
    def __init__(self, title):
        self.title = title
        self.scores = OrderedDict()   # key -> float, in leaderboard order
        self.tables = []
        self.plots = []
        self.protocol = []            # paragraphs: the metric in words, with its quirks
        self.notes = []               # facts about this submission (missing files, classes without AP)
        self.warnings = []            # things the participant should fix (duplicates, skipped lines)
        self.timings = []             # (phase, seconds): printed by the command line, kept out of the report

    def set(self, key, value):
        self.scores[key] = float(value)
