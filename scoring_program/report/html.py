"""detailed_results.html: one self-contained page (inline CSS and SVG, no JavaScript, no URL but '#'), readable in
Codabench's ~900 px iframe and in a 1280 px browser window.

    headline (the ranking score, large) | warnings | notes | per-class bars | the task's sections ("Where the
    points were lost", ...) | every score, folded | tables | curves (small multiples) | protocol

Every number is written at one precision, the page's: the leaderboard's (page_precision: the most decimals of its
columns, 4 unless a column says otherwise), in the headline, every table, the bars and the notes of curves not drawn.

render_private writes the organizer's per-item tables (score.py --private-report PATH), never into OUTPUT.
"""
from __future__ import annotations

import html
import os
import re
from typing import List, NamedTuple

from .result import FULL, LEVEL_TEXT, Bars, HeatMap, Histogram, Plot, Table, why_text
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
       "table{border-collapse:collapse;margin:.3em 0 1em;font-size:.92em}td,th{border:1px solid #ccc;padding:2px 6px;"
       "text-align:right;white-space:nowrap}th{background:#eef1f4;white-space:normal;vertical-align:bottom}"
       "td.text{white-space:normal;text-align:left}"
       ".terms{color:#444;font-size:.9em;margin:.2em 0 .8em;padding-left:8px;border-left:3px solid #d5dfeb}"
       "td:first-child,th:first-child{text-align:left}"
       ".warn{color:#9a3b00}.note{color:#555;font-size:.92em}"
       ".multiples{display:flex;flex-wrap:wrap;gap:6px}.multiples svg{border:1px solid #eee;background:#fff}"
       ".fig{margin:.3em 0 1em}details{margin:.8em 0}summary{cursor:pointer;padding:2px 0}")


CELL_PRECISION = 4      # the page's precision without leaderboard columns (ScoreKey's default)


def page_precision(keys) -> int:
    """The one precision of a page's numbers: the leaderboard's, i.e. the most decimals of its columns (keys:
    ScoreKeys), so that no number shows fewer decimals than its leaderboard column; CELL_PRECISION without
    columns. kinetics-tps: 6 (its score's column), for top-1 and mean PSC too."""
    return max([k.precision for k in keys or ()] or [CELL_PRECISION])


LONG_CELL = 24          # a text cell longer than this may break after '/' and '_' (a file path)
FIT_WIDTH = 850         # px: what a table may take in Codabench's ~900 px iframe (body padding and a scroll bar off)
TABLE_FONT = 14.72      # px: the tables' font (.92em of 16 px)
CELL_PAD = 14           # px: a cell's padding (6 + 6) and border, rounded up
# glyph widths (em) of DejaVu Sans, the widest of the common sans-serif fonts (Arial, Helvetica, Segoe UI and Roboto
# are narrower), so that a width estimated with them holds in any of those
_NARROW, _WIDE = frozenset("ijlI.,:;'/|\\()[]!ftr- "), frozenset("mwMW@%")


def _em(text, bold=False) -> float:
    """The width of text in em of the table font (bold: a header's, about 12% wider)."""
    width = sum(0.34 if c in _NARROW else 1.0 if c in _WIDE else 0.5 if c in "_*`\"" else 0.64 if c.isdigit()
                else 0.72 if c.isupper() else 0.62 for c in text)
    return width * (1.12 if bold else 1.0)


def _cell_text(v, precision=CELL_PRECISION):
    """A cell's text: a float at the page's precision ('n/a' for NaN), anything else as it is."""
    return (_fixed(v, precision) if v == v else "n/a") if isinstance(v, float) else str(v)


def _cell(v, breakable=False, precision=CELL_PRECISION):
    """One <td> of _cell_text; in a breakable column (one holding a text longer than LONG_CELL: file paths), a text
    that may break after '/' and '_' so that the table fits 900 px."""
    text = html.escape(_cell_text(v, precision))
    if isinstance(v, float) or not breakable:
        return "<td>%s</td>" % text
    return "<td class='text'>%s</td>" % re.sub(r"([/_])", r"\1<wbr>", text)


def _breakable(table):
    """Per column: does it hold a text longer than LONG_CELL (then every text cell of it may break)."""
    out = [False] * max([len(table.header)] + [len(r) for r in table.rows])
    for row in table.rows:
        for i, v in enumerate(row):
            if not isinstance(v, float) and len(str(v)) > LONG_CELL:
                out[i] = True
    return out


def _header(h):
    """One header's text: it wraps at spaces, and after '@' and '/' (AUC@<wbr>0.1), so that the table fits 900 px."""
    return re.sub(r"([@/])", r"\1<wbr>", html.escape(str(h)))


def _unbreakable(text, breaks, bold=False) -> float:
    """The width (px) of the longest run of text that cannot wrap: a header's (bold) between spaces, '@' and '/'
    (breaks False); a long text cell's between spaces, '/' and '_' (breaks True)."""
    parts = re.split(r"(?<=[/_])|(?= )" if breaks else r"(?<=[@/])|(?= )", text)
    return max(_em(p.strip(), bold) for p in parts) * TABLE_FONT


def _column_widths(table, precision=CELL_PRECISION) -> List[float]:
    """Per column, the narrowest width (px) the browser can give it: its longest unbreakable header word or cell
    (headers wrap at spaces, '@' and '/', long text cells after '/' and '_', numbers never), with padding."""
    breakable = _breakable(table)
    widths = [0.0] * len(breakable)
    for i, h in enumerate(table.header):
        widths[i] = _unbreakable(str(h), False, bold=True)
    for row in table.rows:
        for i, v in enumerate(row):
            text = _cell_text(v, precision)
            widths[i] = max(widths[i], _unbreakable(text, True) if breakable[i] and not isinstance(v, float)
                            else _em(text) * TABLE_FONT)
    return [w + CELL_PAD for w in widths]


def table_min_width(table, precision=CELL_PRECISION) -> float:
    """The narrowest width (px) the browser can give the table (its columns' _column_widths, the paths of a folder
    shown as file names). The report shows a table wider than FIT_WIDTH in parts (split_to_fit)."""
    return sum(_column_widths(common_folder(table), precision))


def column_groups(widths, fixed=1, fit=FIT_WIDTH) -> List[List[int]]:
    """The columns (indices) of each part of a table too wide for `fit` px (widths: its columns' narrowest, px):
    the first `fixed` columns (the row's name) lead every part, the others follow in order, as many per part as
    fit (at least one); one part, every column, when the whole fits."""
    lead = list(range(fixed))
    if sum(widths) <= fit or len(widths) <= fixed + 1:
        return [list(range(len(widths)))]
    parts, start, base = [], fixed, sum(widths[:fixed])
    while start < len(widths):
        end, used = start + 1, base + widths[start]
        while end < len(widths) and used + widths[end] <= fit:
            used += widths[end]
            end += 1
        parts.append(lead + list(range(start, end)))
        start = end
    return parts


def split_to_fit(table, precision=CELL_PRECISION) -> List[Table]:
    """The table as the report shows it (common_folder): whole when it fits FIT_WIDTH; otherwise in parts, each
    with the first column (the row's name) and as many of the next columns as fit, the later parts titled
    '(continued)'."""
    table = common_folder(table)
    groups = column_groups(_column_widths(table, precision))
    if len(groups) == 1:
        return [table]
    return [Table(table.title if not k else "%s (continued)" % table.title, [table.header[i] for i in cols],
                  [[r[i] for i in cols] for r in table.rows], note=table.note if not k else None)
            for k, cols in enumerate(groups)]


def _fixed(v, precision):
    return "%.*f" % (precision, v)


def common_folder(table):
    """The table with each column whose text cells are paths in one folder (2 or more; other cells such as
    'missing' kept) shown as file names, the folder named once in the column's header: 'file (in results/.../)'."""
    header, rows = list(table.header), [list(r) for r in table.rows]
    for col in range(len(header)):
        paths = [r[col] for r in rows if col < len(r) and isinstance(r[col], str) and "/" in r[col]]
        if len(paths) < 2:
            continue
        folder = os.path.commonprefix(paths)
        folder = folder[:folder.rfind("/") + 1]
        if not folder:
            continue
        header[col] = "%s (in %s)" % (header[col], folder)
        for r in rows:
            if col < len(r) and isinstance(r[col], str) and r[col].startswith(folder):
                r[col] = r[col][len(folder):]
    return Table(table.title, header, rows, note=table.note)


def _table(table, level="h3", precision=CELL_PRECISION):
    return "\n".join(_table_part(t, level, precision) for t in split_to_fit(table, precision))


def _table_part(t, level, precision=CELL_PRECISION):
    e = html.escape
    breakable = _breakable(t)
    out = ["<%s>%s</%s>" % (level, e(t.title), level)]
    if t.note:
        out.append("<p class='note'>%s</p>" % e(t.note))
    out.append("<div class='scroll'><table><tr>%s</tr>" % "".join("<th>%s</th>" % _header(h) for h in t.header))
    for r in t.rows:
        out.append("<tr>%s</tr>" % "".join(_cell(c, b, precision) for c, b in zip(r, breakable)))
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


def _block(b, precision=CELL_PRECISION):
    if isinstance(b, str):
        return "<p>%s</p>" % html.escape(b)
    if isinstance(b, Table):
        return _table(b, precision=precision)
    if isinstance(b, Bars):
        return _figure(b.title, bars_svg(b, precision=precision), b.note)
    if isinstance(b, Histogram):
        return _figure(b.title, histogram_svg(b), b.note)
    if isinstance(b, HeatMap):
        return _figure(b.title, heatmap_svg(b), b.note)
    if isinstance(b, Plot):
        return _figure(None, plot_svg(b, width=LONE_WIDTH, height=LONE_HEIGHT), b.note)
    if isinstance(b, list) and all(isinstance(p, Plot) for p in b):
        return _multiples(b)
    raise TypeError("not a report block: %r" % (b,))


LONE_WIDTH, LONE_HEIGHT = 320, 240      # px: a plot drawn alone (small multiples: svg.plot_svg's default size)


def _multiples(plots):
    """Small multiples; a single plot is drawn at the size of a plot alone, its title on fewer lines."""
    if len(plots) == 1:
        return "<div class='multiples'>%s</div>" % plot_svg(plots[0], width=LONE_WIDTH, height=LONE_HEIGHT)
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


def _headline(result, keys, precision):
    if not keys:
        return []
    first = keys[0]
    return ["<div class='headline'><span class='value'>%s</span><span class='label'>%s "
            "<span class='note'>(leaderboard ranking score)</span></span></div>"
            % (_fixed(result.scores[first.key], precision), html.escape(first.label))]


def _scores(result, keys, precision):
    """Every leaderboard column, folded (the headline and the chart come first)."""
    e = html.escape
    out = ["<details><summary><b>All scores</b> (%d leaderboard column%s)</summary>"
           % (len(keys), "" if len(keys) == 1 else "s"),
           "<div class='scroll'><table><tr><th>leaderboard column</th><th>key</th><th>value</th></tr>"]
    for k in keys:
        out.append("<tr><td>%s</td><td>%s</td><td>%s</td></tr>"
                   % (e(k.label), e(k.key), _fixed(result.scores[k.key], precision)))
    out.append("</table></div><p class='note'>Shown at the leaderboard's precision (%d decimals, as every number "
               "of this page); scores.json holds every digit.</p></details>" % precision)
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


def _per_class(bars, precision=CELL_PRECISION):
    if not bars:
        return []
    return ["<h2>Per class</h2>"] + [_block(b, precision) for b in bars]


def _sections(result, precision=CELL_PRECISION):
    """The task's sections ("Where the points were lost", ...)."""
    e = html.escape
    out = []
    for s in result.sections:
        out.append("<h2>%s</h2>" % e(s.title))
        if s.intro:
            out.append("<p>%s</p>" % e(s.intro))
        out.extend(_block(b, precision) for b in s.blocks)
    return out


def _tables_and_curves(result, precision=CELL_PRECISION):
    e = html.escape
    out = []
    if result.tables:
        out.append("<h2>Tables</h2>")
        out.extend(_table(t, precision=precision) for t in result.tables)
    drawn = [p for p in result.plots if p.series]
    if result.plots:
        out.append("<h2>Curves</h2>")
        for note in sorted(set(p.note for p in drawn if p.note)):
            out.append("<p class='note'>%s</p>" % e(note))
        out.extend(_not_drawn(result.plots, precision))
        if drawn:
            out.append(_multiples(drawn))
    return out


def _not_drawn(plots, precision=CELL_PRECISION):
    """The curves not drawn (a Plot without series): per rule (the note that left them out), one paragraph: the
    rule, then each curve on its line with its own reason (Plot.why, its numbers at the page's precision); curves
    without one are named together. One paragraph, which the privacy tests leave out with the curves
    (tests/privacy.py CURVES): which curves are drawn is an aggregate that one test item may change."""
    e = html.escape
    out = []
    for rule in sorted(set(p.note or "" for p in plots if not p.series)):
        group = [p for p in plots if not p.series and (p.note or "") == rule]
        whys = [why_text(p, precision) for p in group]
        head = "Not drawn (%d curve%s)" % (len(group), "" if len(group) == 1 else "s")
        if not any(whys):
            out.append("<p class='note'>%s: %s.%s</p>" % (head, e(", ".join(p.title for p in group)),
                                                          " " + e(rule) if rule else ""))
            continue
        lines = ["%s: %s" % (e(p.title), e(why or "no reason given")) for p, why in zip(group, whys)]
        out.append("<p class='note'>%s. %s<br>%s</p>" % (head, e(rule), "<br>".join(lines)))
    return out


def _diagnostics(result, keys, precision=CELL_PRECISION):
    """The per-class bars, sections, tables and curves: the full level's diagnostics."""
    return (_per_class(result.bars or auto_bars(result, keys), precision) + _sections(result, precision)
            + _tables_and_curves(result, precision))


def _protocol(result):
    e = html.escape
    if not result.protocol:
        return []
    return ["<h2>Protocol</h2>"] + ["<p>%s</p>" % e(p) for p in result.protocol]


WITHHELD = ("Curves, error breakdowns, confusions and coverage counts depend on the hidden test set and are not "
            "shown in this phase.")
FROM_SCORES = " The bars above are drawn from your scores alone."


class Term(NamedTuple):
    """A technical term of the reports: how it is found in a block's text (a regular expression matched as a whole
    word), and its one-line explanation."""
    name: str
    pattern: str
    explanation: str


_W = r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])"
TERMS = [
    Term("AP", _W % r"AP", "AP (average precision): the area under the precision/recall curve of a ranked list, "
         "from 0 to 1; the protocol says how precision is interpolated."),
    Term("mAP", _W % r"mAP", "mAP: the mean of the per-class APs."),
    Term("frame-AP", _W % r"frame-AP", "frame-AP: AP over single-frame boxes; a box is correct when its IoU with a "
         "still-unmatched ground-truth box of its class in the same frame is at least 0.5."),
    Term("video-AP", _W % r"video-AP", "video-AP: AP over whole tubes (one box per frame); a tube is correct when "
         "its ST-IoU with a still-unmatched ground-truth tube of its class in the same video reaches the threshold."),
    Term("ST-IoU", _W % r"ST-IoU", "ST-IoU (spatio-temporal IoU): the temporal IoU of two tubes' frame spans times "
         "the mean box IoU over the frames they share."),
    Term("3D NMS", _W % r"3D NMS", "3D NMS (non-maximum suppression of tubes): of two tubes of one class and video "
         "that overlap by more than the threshold (ST-IoU), only the higher-scored one is kept."),
    Term("IoU", _W % r"IoU", "IoU (intersection over union): the area two regions share divided by the area they "
         "cover together; 1 for identical regions, 0 for disjoint ones."),
    Term("ROC", _W % r"ROC", "ROC curve: the true-positive rate against the false-positive rate as the score "
         "threshold is lowered."),
    Term("AUC", _W % r"AUC", "AUC: the area under a ROC curve."),
    Term("TIDE", _W % r"TIDE", "TIDE (Bolya et al., ECCV 2020): a way to split the AP a detector lost into error "
         "types (localization, wrong class, duplicate, background, missed ground truth)."),
    Term("TIDE's oracle", _W % r"oracles?", "TIDE's oracle: every error of one type is corrected (as a perfect "
         "helper would), everything else is kept, and the AP is computed again; the AP gained is that type's dAP."),
    Term("dAP", _W % r"dAP", "dAP: the AP gained when TIDE's oracle fixes one error type."),
    Term("P@50%R", r"P@50%R", "P@50%R (precision at 50% recall): the largest precision at any rank of your ranking "
         "where at least half of the positives have been ranked (VOCap's envelope at recall 0.5)."),
    Term("ACT pr_to_ap", _W % r"pr_to_ap", "ACT pr_to_ap: the AP function of the ACT detector's evaluation code: "
         "the trapezoids under the raw precision/recall points, joined by straight lines from recall 0 at "
         "precision 1, with no interpolation."),
    Term("VOCap", _W % r"VOCap(?:\.m)?", "VOCap.m: the PASCAL VOC devkit's AP function (all points: the area "
         "under the precision envelope)."),
    Term("precision envelope", _W % r"envelope", "precision envelope (interpolated precision): at each recall, "
         "the best precision reached at that recall or beyond; its area is the VOC AP."),
    Term("PSC", _W % r"PSC", "PSC (Part State Correctness): per frame, how many of the ground-truth people's body "
         "parts you located (box IoU >= 0.3) and gave the right state, as a share from 0 to 1; a video's PSC is "
         "the mean over its evaluated frames."),
    Term("Jaccard", _W % r"Jaccard", "Jaccard index: the overlap of two sets (the frames of an action, the pixels "
         "of a limb) divided by their union, from 0 to 1."),
    Term("hit rate", _W % r"(?i:hit rate)", "hit rate: the share of evaluated limbs whose Jaccard index with the "
         "ground truth exceeds the threshold (0.5 for the score)."),
    Term("difficult", _W % r"difficult", "difficult: VOC's 'hard to recognize' flag; a difficult object or image "
         "is left out: neither a positive to find nor an error when ranked or detected."),
]
_TERM_RES = [(t, re.compile(t.pattern)) for t in TERMS]


def _visible_text(block):
    """The text a reader sees in one HTML block (SVG labels included), tags and entities removed."""
    return html.unescape(re.sub(r"<[^>]+>", " ", block))


def explain_terms(blocks):
    """The blocks (each a complete HTML element, in page order) with, after the first block where a technical term
    (TERMS) appears, one line that explains it: each term once, where it first appears."""
    e = html.escape
    seen = set()
    out = []
    for block in blocks:
        out.append(block)
        text = _visible_text(block)
        found = [t for t, pattern in _TERM_RES if t.name not in seen and pattern.search(text)]
        if found:
            seen.update(t.name for t in found)
            out.append("<p class='terms'>%s</p>" % "<br>".join(
                "<b>%s</b>%s" % (e(t.explanation.split(":", 1)[0]), e(":" + t.explanation.split(":", 1)[1]))
                for t in found))
    return out


def render(result, keys=None) -> str:
    """keys: the leaderboard columns (ScoreKey, ranking column first); without them, every score at 4 decimals.

    The first line names the report level (result.level). At the hidden level the page is a function of the score
    values, the submission's own facts (Own warnings and notes) and public text (titles, class names, the
    protocol) alone: per-class bars are drawn from the scores, and nothing else the task computed is shown."""
    e = html.escape
    keys = _keys(result, keys)
    precision = page_precision(keys)
    blocks = ["<p class='note level'>%s</p>" % e(LEVEL_TEXT[result.level]), "<h1>%s</h1>" % e(result.title)]
    blocks.extend(_headline(result, keys, precision))
    lists = _lists(result.shown_warnings(), result.shown_notes())
    if lists:
        blocks.append("\n".join(lists))
    if result.level == FULL:
        blocks.extend(_per_class(result.bars or auto_bars(result, keys), precision) + _sections(result, precision))
        blocks.append("\n".join(_scores(result, keys, precision)))
        blocks.extend(_tables_and_curves(result, precision))
    else:
        bars = auto_bars(result, keys)
        blocks.extend(_per_class(bars, precision))
        blocks.append("\n".join(_scores(result, keys, precision)))
        blocks.append("<p class='note'>%s</p>" % e(WITHHELD + (FROM_SCORES if bars else "")))
    blocks.extend(_protocol(result))
    return "\n".join(_head(result.title) + explain_terms(blocks) + ["</body></html>\n"])


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
    keys = _keys(result, keys)
    precision = page_precision(keys)
    if result.level != FULL:
        out.extend(_diagnostics(result, keys, precision))
    if not result.private:
        out.append("<p>This competition has no per-item table.</p>")
    out.extend(_table(t, "h2", precision) for t in result.private)
    out.append("</body></html>\n")
    return "\n".join(out)
