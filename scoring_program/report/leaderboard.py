"""rescore's tables for the organizer (issues 13 and 29): DIR/leaderboard.csv and DIR/leaderboard.html, one row
per submission; and for a phase with a private part DIR/final/<part>.csv and final.html, the final ranking.

A record is rescore's per-submission dict: name, status ("scored" or "failed"), exit (the exit code score.py
would give), error (its one error line, "" when scored), scores ({score key: value}), and what its file name says
(rescore.Entry): owner, submission_id, phase ("" for a plain entry or a name that does not say).
"""
from __future__ import annotations

import csv
import html
import io
import re
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from .html import CELL_PAD, CSS, TABLE_FONT, _em, column_groups
from .write import format_score

ENTRY_COLUMNS = ("owner", "submission_id", "phase")     # what a platform's bulk-download name says of an entry


# a name cell wraps after '_', '-', '.' and '/' (and anywhere in a longer run), left-aligned, so that a long file
# name never widens the table past FIT_WIDTH
PAGE_CSS = ("td.name,th.name{text-align:left;white-space:normal;overflow-wrap:anywhere}"
            "td.name{min-width:6em}caption{text-align:left;font-size:.92em;color:#555;padding:2px 0}")
NAME_MAX = 200          # px: the most the name column claims in the width estimate (longer runs wrap anywhere)


def page_head(title: str) -> List[str]:
    """The start of an organizer's page (leaderboard.html, ranking.html), up to its <h1> title."""
    e = html.escape
    return ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width,initial-scale=1'><title>%s</title>" % e(title),
            "<style>%s%s</style></head><body><h1>%s</h1>" % (CSS, PAGE_CSS, e(title))]


_NAME_BREAK = re.compile(r"(?<=[_\-./])")


def _shown_name(r: dict) -> str:
    """The name a page shows: for a Codabench bulk-download name, the uploaded file's own name (its id, owner,
    phase and date have their columns)."""
    name = r["name"]
    m = re.match(r"%s_%s_PhaseId%s_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}_(.+)$" % tuple(
        re.escape(str(r.get(c, ""))) for c in ("submission_id", "owner", "phase")), name)
    return m.group(1) if m and r.get("owner") else name


def _name_cell(r: dict) -> str:
    """The entry's name as a left-aligned cell that wraps (after '_', '-', '.' and '/'): _shown_name, the whole
    name in the cell's title."""
    shown = _shown_name(r)
    return "<td class='name' title='%s'>%s</td>" % (html.escape(r["name"], True), "<wbr>".join(
        html.escape(p) for p in _NAME_BREAK.split(shown)))


def _entry_fields(r: dict) -> List[str]:
    return [str(r.get(c, "")) for c in ENTRY_COLUMNS]


def leaderboard_csv(keys: Sequence, records: Sequence[dict]) -> str:
    """One row per record in the order given: name, owner, submission id, phase, status, exit code, error and
    every score key (keys: the competition's ScoreKeys; a score the record lacks is empty)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["name"] + list(ENTRY_COLUMNS) + ["status", "exit_code", "error"] + [k.key for k in keys])
    for r in records:
        w.writerow([r["name"]] + _entry_fields(r) + [r["status"], r["exit"], r["error"]]
                   + [format_score(r["scores"][k.key]) if k.key in r["scores"] else "" for k in keys])
    return buf.getvalue()


def _has_entry_fields(records: Sequence[dict]) -> bool:
    return any(r.get(c) for r in records for c in ENTRY_COLUMNS)


def _entry_heads(shown: bool) -> str:
    return "<th style='text-align:left'>owner</th><th>submission id</th><th>phase</th>" if shown else ""


def _entry_cells(r: dict, shown: bool) -> str:
    if not shown:
        return ""
    owner, sid, phase = _entry_fields(r)
    return "<td style='text-align:left'>%s</td><td>%s</td><td>%s</td>" % tuple(html.escape(v)
                                                                           for v in (owner, sid, phase))


def _left_out_section(left_out: Sequence[Tuple[dict, str]]) -> List[str]:
    """The entries of a bulk download not scored for the table (one per owner), each with the reason."""
    if not left_out:
        return []
    e = html.escape
    out = ["<h2>Left out: one submission per owner</h2><p>%d submission(s) not in the table: a platform's "
           "leaderboard keeps one per owner, the latest that scored (rescore --all scores every one, --pick ID "
           "chooses one).</p><div class='scroll'><table><tr><th style='text-align:left'>submission</th>%s"
           "<th style='text-align:left'>why</th></tr>"
           % (len(left_out), _entry_heads(True))]
    out.extend("<tr>%s%s<td style='text-align:left;white-space:normal'>%s</td></tr>"
               % (_name_cell(r), _entry_cells(r, True), e(why)) for r, why in left_out)
    out.append("</table></div>")
    return out


def _failed_section(failed: Sequence[dict], shown: bool) -> List[str]:
    if not failed:
        return []
    e = html.escape
    out = ["<h2 class='warn'>Failed</h2><div class='scroll'><table><tr><th style='text-align:left'>submission</th>%s<th>exit</th>"
           "<th style='text-align:left'>error</th></tr>" % _entry_heads(shown)]
    out.extend("<tr>%s%s<td>%d</td><td style='text-align:left;white-space:normal'>%s</td></tr>"
               % (_name_cell(r), _entry_cells(r, shown), r["exit"], e(r["error"])) for r in failed)
    out.append("</table></div>")
    return out


def render_leaderboard(title: str, keys: Sequence, scored: Sequence[dict], failed: Sequence[dict],
                       left_out: Sequence[Tuple[dict, str]] = ()) -> str:
    """leaderboard.html: the scored records ranked as given (best first) with every score column, then the failed
    ones with their exit code and error line, then the entries left out (left_out: [(record, why)]). The owner,
    submission id and phase columns are shown when a record has one."""
    e = html.escape
    shown = _has_entry_fields(list(scored) + list(failed))
    out = page_head(title)
    out.append("<p>%d submission(s): %d scored, %d failed. Ranked by %s.</p>"
               % (len(scored) + len(failed), len(scored), len(failed), e(keys[0].label if keys else "-")))
    first = [r["scores"].get(keys[0].key) if keys else None for r in scored]
    # the table's cells, column by column: rank, submission, [owner, submission id, phase], the scores
    heads = ["<th>rank</th>", "<th class='name'>submission</th>"]
    if shown:
        heads += ["<th style='text-align:left'>owner</th>", "<th>submission id</th>", "<th>phase</th>"]
    heads += ["<th>%s</th>" % e(k.label) for k in keys]
    rows = []
    for i, r in enumerate(scored):
        # ties share the best rank of their group, as in ranking.html (the records come best first)
        rank = first.index(first[i]) + 1 if first[i] is not None else i + 1
        cells = ["<td>%d</td>" % rank, _name_cell(r)]
        if shown:
            cells += ["<td style='text-align:left'>%s</td>" % e(v) if c == 0 else "<td>%s</td>" % e(v)
                      for c, v in enumerate(_entry_fields(r))]
        cells += ["<td>%s</td>" % _score_text(r, k) for k in keys]
        rows.append(cells)
    # every part is led by the rank and the name; the owner, id and phase follow them in the first part only
    fixed = 5 if shown else 2
    groups = column_groups(_leaderboard_widths(keys, scored, shown), fixed=2)
    for g, cols in enumerate(groups):
        caption = ""
        if len(groups) > 1:
            cut = [keys[c - fixed].label for c in cols if c >= fixed]
            caption = "<caption>Scores, part %d of %d: %s%s</caption>" % (
                g + 1, len(groups), e(cut[0]), " to %s" % e(cut[-1]) if len(cut) > 1 else "")
        out.append("<div class='scroll'><table>%s<tr>%s</tr>" % (caption, "".join(heads[c] for c in cols)))
        out.extend("<tr>%s</tr>" % "".join(row[c] for c in cols) for row in rows)
        out.append("</table></div>")
    out.extend(_failed_section(failed, shown))
    out.extend(_left_out_section(left_out))
    out.append("</body></html>\n")
    return "\n".join(out)


def _score_text(r: dict, k) -> str:
    return "%.*f" % (k.precision, r["scores"][k.key]) if k.key in r["scores"] else "n/a"


def _leaderboard_widths(keys: Sequence, scored: Sequence[dict], shown: bool) -> List[float]:
    """The narrowest width (px) of each column of leaderboard.html's table (html._column_widths' estimate):
    rank; the name, wrapping after '_', '-', '.' and '/' (at most NAME_MAX: it wraps anywhere beyond); the entry's
    owner, id and phase; each score column (its header wraps at spaces)."""
    def width(texts, bold=False):
        return max([_em(t, bold) for t in texts] or [0.0]) * TABLE_FONT + CELL_PAD

    def words(text):
        return text.split() or [""]
    out = [width(["rank"], True) if not scored else max(width(["rank"], True),
                                                         width([str(len(scored))]))]
    chunks = [c for r in scored for c in _NAME_BREAK.split(_shown_name(r))]
    out.append(min(max(width(["submission"], True), width(chunks)), NAME_MAX + CELL_PAD))
    if shown:
        for c, head in enumerate(("owner", "submission id", "phase")):
            out.append(max(width(words(head), True), width([_entry_fields(r)[c] for r in scored])))
    for k in keys:
        out.append(max(width(words(k.label), True), width([_score_text(r, k) for r in scored])))
    return out


# ------------------------------------------------------------------ the final ranking (DIR/final/)
class PartCell(NamedTuple):
    """One entry's place in one part's ranking."""
    rank: int                   # 1 is best; ties share the best rank of their group
    score: float                # the part's ranking score
    low: Optional[float]        # its 95% bootstrap interval (None: no bootstrap)
    high: Optional[float]


def part_csv(key, label: str, ranked: Sequence[dict], failed: Sequence[dict], cells: Sequence[PartCell]) -> str:
    """<part>.csv: the entries ranked by one part's score (ranked, best first, with their cells), then the failed
    ones without rank or score. The score column's header names the part ("mAP (private part: 120 images)"), and
    so do the interval's."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rank (%s)" % label, "name"] + list(ENTRY_COLUMNS)
               + ["%s (%s)" % (key.key, label), "95% interval low (" + label + ")",
                  "95% interval high (" + label + ")", "status", "error"])
    for r, c in zip(ranked, cells):
        w.writerow([c.rank, r["name"]] + _entry_fields(r) + [format_score(c.score)]
                   + ["" if v is None else format_score(v) for v in (c.low, c.high)] + [r["status"], r["error"]])
    for r in failed:
        w.writerow(["", r["name"]] + _entry_fields(r) + ["", "", "", r["status"], r["error"]])
    return buf.getvalue()


def _interval(key, cell: PartCell) -> str:
    if cell.low is None or cell.high is None:
        return "n/a"
    return "[%.*f, %.*f]" % (key.precision, cell.low, key.precision, cell.high)


def render_final(title: str, key, labels: Dict[str, str], rows: Sequence[dict], cells: Sequence[Dict[str, PartCell]],
                 failed: Sequence[dict], left_out: Sequence[Tuple[dict, str]], resamples: int, seed: int) -> str:
    """final.html: the entries ranked by the private part (rows, with cells: {part: PartCell}), its score and
    interval first, the public part's and the whole test set's rank, score and interval beside them; labels:
    {part: 'private part: 120 images', ...} in that order; then the failed entries and those left out."""
    e = html.escape
    parts = list(labels)
    out = page_head(title)
    boot = ("95%% intervals: %d bootstrap resamples (seed %d), each part resampled among its own items (the "
            "others weigh 0), the same resamples for every entry; the pages <a href='ranking_private.html'>"
            "ranking_private.html</a>, <a href='ranking_public.html'>ranking_public.html</a> and <a "
            "href='ranking_whole.html'>ranking_whole.html</a> show each ranking's robustness." % (resamples, seed)
            if resamples else "No bootstrap (--bootstrap 0): no intervals.")
    out.append("<p>%d entries: %d scored, %d failed. Ranked by %s on the <b>%s</b>; beside it the %s (what the "
               "leaderboard showed) and the %s (the official score of the whole). %s</p>"
               % (len(rows) + len(failed), len(rows), len(failed), e(key.label), e(labels[parts[0]]),
                  e(labels[parts[1]]), e(labels[parts[2]]), boot))
    shown = _has_entry_fields(list(rows) + list(failed))
    heads = ["<tr><th rowspan='2'>rank</th><th rowspan='2' style='text-align:left'>submission</th>%s<th colspan='2'>%s</th>%s</tr>"
             % ("<th rowspan='2' style='text-align:left'>owner</th><th rowspan='2'>submission id</th><th rowspan='2'>phase</th>" if shown else "",
                e(labels[parts[0]]), "".join("<th colspan='3'>%s</th>" % e(labels[p]) for p in parts[1:])),
             "<tr><th>%s</th><th>95%% interval</th>%s</tr>"
             % (e(key.label), ("<th>rank</th><th>%s</th><th>95%% interval</th>" % e(key.label)) * (len(parts) - 1))]
    out.append("<div class='scroll'><table><caption>Ranked by the %s</caption>%s" % (e(labels[parts[0]]),
                                                                                     "".join(heads)))
    for r, cell in zip(rows, cells):
        first = cell[parts[0]]
        out.append("<tr><td>%d</td>%s%s<td>%.*f</td><td>%s</td>%s</tr>" % (
            first.rank, _name_cell(r), _entry_cells(r, shown), key.precision, first.score, _interval(key, first),
            "".join("<td>%d</td><td>%.*f</td><td>%s</td>" % (cell[p].rank, key.precision, cell[p].score,
                                                            _interval(key, cell[p])) for p in parts[1:])))
    out.append("</table></div><p class='note'>Ranks: 1 is best; ties share the best rank of their group. Each part "
               "is ranked by its own %s: <code>private.csv</code>, <code>public.csv</code> and "
               "<code>whole.csv</code> hold the three rankings.</p>" % e(key.label))
    out.extend(_failed_section(failed, shown))
    out.extend(_left_out_section(left_out))
    out.append("</body></html>\n")
    return "\n".join(out)
