"""detailed_results.html: one self-contained page (inline CSS and SVG, no JavaScript, no URL but '#'), readable in
Codabench's ~900 px iframe and in a 1280 px browser window.

    headline (the ranking score, large) | warnings | notes | per-class bars | the task's sections ("Where the
    points were lost", ...) | every score, folded | tables | curves (small multiples) | protocol

Every number is written at the leaderboard's precision (4 decimals unless a column says otherwise).

render_private writes the organizer's per-item tables (score.py --private-report PATH), never into OUTPUT.
"""
from __future__ import annotations

import html

from .result import FULL, LEVEL_TEXT, Bars, HeatMap, Histogram, Plot, Table
from .svg import bars_svg, heatmap_svg, histogram_svg, plot_svg
from .write import format_score

CSS = ("body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;padding:12px 16px;"
       "max-width:1100px;color:#222;line-height:1.35}"
       "h1{font-size:1.35em;margin:.2em 0 .6em}h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid #ddd;"
       "padding-bottom:2px}h3{font-size:1em;margin:1em 0 .3em}"
       ".headline{display:flex;align-items:baseline;gap:14px;flex-wrap:wrap;background:#f3f6fa;border:1px solid #d5dfeb;"
       "border-radius:6px;padding:10px 16px;margin-bottom:10px}.headline .value{font-size:2.6em;font-weight:600;"
       "color:#1d4f85}.headline .label{font-size:1.1em;color:#444}"
       ".scroll{overflow-x:auto;max-width:100%}"
       "table{border-collapse:collapse;margin:.3em 0 1em;font-size:.92em}td,th{border:1px solid #ccc;padding:2px 8px;"
       "text-align:right;white-space:nowrap}th{background:#eef1f4}td:first-child,th:first-child{text-align:left}"
       ".warn{color:#9a3b00}.note{color:#555;font-size:.92em}"
       ".multiples{display:flex;flex-wrap:wrap;gap:6px}.multiples svg{border:1px solid #eee;background:#fff}"
       ".fig{margin:.3em 0 1em}details{margin:.8em 0}summary{cursor:pointer;padding:2px 0}")


CELL_PRECISION = 4      # the leaderboard's precision: one number format in every table


def _cell(v):
    if isinstance(v, float):
        return _fixed(v, CELL_PRECISION) if v == v else "n/a"
    return html.escape(str(v))


def _fixed(v, precision):
    return "%.*f" % (precision, v)


def _table(t, level="h3"):
    e = html.escape
    out = ["<%s>%s</%s>" % (level, e(t.title), level)]
    if t.note:
        out.append("<p class='note'>%s</p>" % e(t.note))
    out.append("<div class='scroll'><table><tr>%s</tr>" % "".join("<th>%s</th>" % e(str(h)) for h in t.header))
    for r in t.rows:
        out.append("<tr>%s</tr>" % "".join("<td>%s</td>" % _cell(c) for c in r))
    out.append("</table></div>")
    return "\n".join(out)


def _figure(title, svg, note=None):
    e = html.escape
    out = "<div class='fig'>"
    if title:
        out += "<h3>%s</h3>" % e(title)
    if note:
        out += "<p class='note'>%s</p>" % e(note)
    return out + "<div class='scroll'>%s</div></div>" % svg


def _block(b):
    if isinstance(b, str):
        return "<p>%s</p>" % html.escape(b)
    if isinstance(b, Table):
        return _table(b)
    if isinstance(b, Bars):
        return _figure(b.title, bars_svg(b), b.note)
    if isinstance(b, Histogram):
        return _figure(b.title, histogram_svg(b), b.note)
    if isinstance(b, HeatMap):
        return _figure(b.title, heatmap_svg(b), b.note)
    if isinstance(b, Plot):
        return _figure(None, plot_svg(b, width=320, height=240), b.note)
    if isinstance(b, list) and all(isinstance(p, Plot) for p in b):
        return _multiples(b)
    raise TypeError("not a report block: %r" % (b,))


def _multiples(plots):
    return "<div class='multiples'>%s</div>" % "".join(plot_svg(p) for p in plots)


def auto_bars(result, keys):
    """The per-class bar chart a task did not draw itself: the leaderboard columns after the first that share a
    prefix ('AP_', 'IoU_', ...), when there are at least 3 of them."""
    groups = {}
    for k in keys[1:]:
        if k.key in result.scores and "_" in k.key:
            groups.setdefault(k.key.split("_", 1)[0], []).append(k)
    out = []
    for prefix, members in groups.items():
        if len(members) >= 3:
            out.append(Bars("%s per class" % prefix, [m.label.split(" ", 1)[-1] if " " in m.label else m.key
                                                     for m in members],
                            [result.scores[m.key] for m in members], xlabel=prefix,
                            precision=members[0].precision))
    return out


def _keys(result, keys):
    if keys is None:
        from .result import ScoreKey
        keys = [ScoreKey(k) for k in result.scores]
    return [k for k in keys if k.key in result.scores]


def _head(title):
    e = html.escape
    return ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width,initial-scale=1'><title>%s</title>" % e(title),
            "<style>%s</style></head><body>" % CSS]


def _headline(result, keys):
    if not keys:
        return []
    first = keys[0]
    return ["<div class='headline'><span class='value'>%s</span><span class='label'>%s "
            "<span class='note'>(leaderboard ranking score)</span></span></div>"
            % (_fixed(result.scores[first.key], first.precision), html.escape(first.label))]


def _scores(result, keys):
    """Every leaderboard column, folded (the headline and the chart come first)."""
    e = html.escape
    out = ["<details><summary><b>All scores</b> (%d leaderboard column%s)</summary>"
           % (len(keys), "" if len(keys) == 1 else "s"),
           "<div class='scroll'><table><tr><th>leaderboard column</th><th>key</th><th>value</th></tr>"]
    for k in keys:
        out.append("<tr><td>%s</td><td>%s</td><td>%s</td></tr>"
                   % (e(k.label), e(k.key), _fixed(result.scores[k.key], k.precision)))
    out.append("</table></div><p class='note'>Shown at the leaderboard's precision; scores.json holds every "
               "digit.</p></details>")
    return out


def _lists(warnings, notes):
    e = html.escape
    out = []
    if warnings:
        out.append("<h2 class='warn'>Warnings</h2><ul>")
        out.extend("<li class='warn'>%s</li>" % e(w) for w in warnings)
        out.append("</ul>")
    if notes:
        out.append("<h2>Notes</h2><ul>")
        out.extend("<li>%s</li>" % e(n) for n in notes)
        out.append("</ul>")
    return out


def _per_class(bars):
    if not bars:
        return []
    return ["<h2>Per class</h2>"] + [_block(b) for b in bars]


def _sections(result):
    """The task's sections ("Where the points were lost", ...)."""
    e = html.escape
    out = []
    for s in result.sections:
        out.append("<h2>%s</h2>" % e(s.title))
        if s.intro:
            out.append("<p>%s</p>" % e(s.intro))
        out.extend(_block(b) for b in s.blocks)
    return out


def _tables_and_curves(result):
    e = html.escape
    out = []
    if result.tables:
        out.append("<h2>Tables</h2>")
        out.extend(_table(t) for t in result.tables)
    if result.plots:
        out.append("<h2>Curves</h2>")
        for note in sorted(set(p.note for p in result.plots if p.note)):
            out.append("<p class='note'>%s</p>" % e(note))
        out.append(_multiples(result.plots))
    return out


def _diagnostics(result, keys):
    """The per-class bars, sections, tables and curves: the full level's diagnostics."""
    return (_per_class(result.bars or auto_bars(result, keys)) + _sections(result)
            + _tables_and_curves(result))


def _protocol(result):
    e = html.escape
    if not result.protocol:
        return []
    return ["<h2>Protocol</h2>"] + ["<p>%s</p>" % e(p) for p in result.protocol]


WITHHELD = ("Curves, error breakdowns, confusions and coverage counts depend on the hidden test set and are not "
            "shown in this phase.")
FROM_SCORES = " The bars above are drawn from your scores alone."


def render(result, keys=None) -> str:
    """keys: the leaderboard columns (ScoreKey, ranking column first); without them, every score at 4 decimals.

    The first line names the report level (result.level). At the hidden level the page is a function of the score
    values, the submission's own facts (Own warnings and notes) and public text (titles, class names, the
    protocol) alone: per-class bars are drawn from the scores, and nothing else the task computed is shown."""
    e = html.escape
    keys = _keys(result, keys)
    out = _head(result.title)
    out.append("<p class='note level'>%s</p>" % e(LEVEL_TEXT[result.level]))
    out.append("<h1>%s</h1>" % e(result.title))
    out.extend(_headline(result, keys))
    out.extend(_lists(result.shown_warnings(), result.shown_notes()))
    if result.level == FULL:
        out.extend(_per_class(result.bars or auto_bars(result, keys)) + _sections(result))
        out.extend(_scores(result, keys))
        out.extend(_tables_and_curves(result))
    else:
        bars = auto_bars(result, keys)
        out.extend(_per_class(bars))
        out.extend(_scores(result, keys))
        out.append("<p class='note'>%s</p>" % e(WITHHELD + (FROM_SCORES if bars else "")))
    out.extend(_protocol(result))
    out.append("</body></html>\n")
    return "\n".join(out)


def render_private(result, keys=None) -> str:
    """The organizer's report (never shown to participants): what the participant's report withheld at its level
    (warnings and notes about the ground truth, and at the hidden level every diagnostic), then the per-item
    tables."""
    e = html.escape
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>%s: per-item diagnostics</title>"
           % e(result.title), "<style>%s</style></head><body>" % CSS,
           "<h1>%s: per-item diagnostics</h1>" % e(result.title),
           "<p class='warn'>For the organizer only: these tables hold facts about single test items (the hidden "
           "ground truth). Do not publish them or put them in a participant-visible folder.</p>"]
    out.append("<h2>Scores</h2><div class='scroll'><table>%s</table></div>"
               % "".join("<tr><td>%s</td><td>%s</td></tr>" % (e(k), format_score(v)) for k, v in result.scores.items()))
    warnings, notes = result.withheld()
    if warnings or notes:
        out.append("<p class='note'>Withheld from the participant at the %s report level:</p>" % e(result.level))
        out.extend(_lists(warnings, notes))
    if result.level != FULL:
        out.extend(_diagnostics(result, _keys(result, keys)))
    if not result.private:
        out.append("<p>This competition has no per-item table.</p>")
    out.extend(_table(t, "h2") for t in result.private)
    out.append("</body></html>\n")
    return "\n".join(out)
