"""DIR/leaderboard.csv and DIR/leaderboard.html of rescore (issue 13): one row per submission, for the organizer.

A record is rescore's per-submission dict: name, status ("scored" or "failed"), exit (the exit code score.py
would give), error (its one error line, "" when scored) and scores ({score key: value}).
"""
from __future__ import annotations

import csv
import html
import io
from typing import List, Sequence

from .html import CSS
from .write import format_score


def page_head(title: str) -> List[str]:
    """The start of an organizer's page (leaderboard.html, ranking.html), up to its <h1> title."""
    e = html.escape
    return ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width,initial-scale=1'><title>%s</title>" % e(title),
            "<style>%s</style></head><body><h1>%s</h1>" % (CSS, e(title))]


def leaderboard_csv(keys: Sequence, records: Sequence[dict]) -> str:
    """One row per record in the order given: name, status, exit code, error and every score key (keys: the
    competition's ScoreKeys; a score the record lacks is empty)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["name", "status", "exit_code", "error"] + [k.key for k in keys])
    for r in records:
        w.writerow([r["name"], r["status"], r["exit"], r["error"]]
                   + [format_score(r["scores"][k.key]) if k.key in r["scores"] else "" for k in keys])
    return buf.getvalue()


def render_leaderboard(title: str, keys: Sequence, scored: Sequence[dict], failed: Sequence[dict]) -> str:
    """leaderboard.html: the scored records ranked as given (best first) with every score column, then the failed
    ones with their exit code and error line."""
    e = html.escape
    out = page_head(title)
    out.append("<p>%d submission(s): %d scored, %d failed. Ranked by %s.</p>"
               % (len(scored) + len(failed), len(scored), len(failed), e(keys[0].label if keys else "-")))
    out.append("<div class='scroll'><table><tr><th>rank</th><th>submission</th>%s</tr>"
               % "".join("<th>%s</th>" % e(k.label) for k in keys))
    first = [r["scores"].get(keys[0].key) if keys else None for r in scored]
    for i, r in enumerate(scored):
        # ties share the best rank of their group, as in ranking.html (the records come best first)
        rank = first.index(first[i]) + 1 if first[i] is not None else i + 1
        out.append("<tr><td>%d</td><td>%s</td>%s</tr>" % (rank, e(r["name"]), "".join(
            "<td>%s</td>" % ("%.*f" % (k.precision, r["scores"][k.key]) if k.key in r["scores"] else "n/a")
            for k in keys)))
    out.append("</table></div>")
    if failed:
        out.append("<h2 class='warn'>Failed</h2><div class='scroll'><table><tr><th>submission</th><th>exit</th>"
                   "<th>error</th></tr>")
        out.extend("<tr><td>%s</td><td>%d</td><td style='text-align:left;white-space:normal'>%s</td></tr>"
                   % (e(r["name"]), r["exit"], e(r["error"])) for r in failed)
        out.append("</table></div>")
    out.append("</body></html>\n")
    return "\n".join(out)
