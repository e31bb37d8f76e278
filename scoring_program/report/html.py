"""detailed_results.html: summary, warnings, per-class tables, inline SVG curves, the protocol."""
from __future__ import annotations

import html

from .svg import plot_svg
from .write import format_score


def _cell(v):
    if isinstance(v, float):
        return format_score(round(v, 6)) if v == v else "n/a"
    return html.escape(str(v))


def render(result) -> str:
    e = html.escape
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>" % e(result.title),
           "<style>body{font-family:sans-serif;margin:1.5em;max-width:1100px}"
           "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:2px 8px;"
           "text-align:right}th{background:#eee}td:first-child{text-align:left}.warn{color:#a40}"
           ".plots svg{margin:4px;border:1px solid #eee}</style></head><body>"]
    out.append("<h1>%s</h1>" % e(result.title))
    out.append("<h2>Scores</h2><table><tr><th>key</th><th>value</th></tr>")
    for k, v in result.scores.items():
        out.append("<tr><td>%s</td><td>%s</td></tr>" % (e(k), format_score(v)))
    out.append("</table>")
    if result.warnings:
        out.append("<h2 class='warn'>Warnings</h2><ul>")
        out.extend("<li class='warn'>%s</li>" % e(w) for w in result.warnings)
        out.append("</ul>")
    if result.notes:
        out.append("<h2>Notes</h2><ul>")
        out.extend("<li>%s</li>" % e(n) for n in result.notes)
        out.append("</ul>")
    for t in result.tables:
        out.append("<h2>%s</h2>" % e(t.title))
        if t.note:
            out.append("<p>%s</p>" % e(t.note))
        out.append("<table><tr>%s</tr>" % "".join("<th>%s</th>" % e(str(h)) for h in t.header))
        for r in t.rows:
            out.append("<tr>%s</tr>" % "".join("<td>%s</td>" % _cell(c) for c in r))
        out.append("</table>")
    if result.plots:
        out.append("<h2>Curves</h2><div class='plots'>")
        out.extend(plot_svg(p) for p in result.plots)
        out.append("</div>")
    if result.protocol:
        out.append("<h2>Protocol</h2>")
        out.extend("<p>%s</p>" % e(p) for p in result.protocol)
    out.append("</body></html>\n")
    return "\n".join(out)
