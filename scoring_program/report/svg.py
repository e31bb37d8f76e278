"""Inline SVG figures (no matplotlib, no JavaScript): small line plots, horizontal bars, histograms, heat maps.

Every figure is self-contained SVG text. Titles wrap onto as many lines as they need (never cut) and legends are
drawn below the plot area (never over the data).
"""
from __future__ import annotations

import html

import numpy as np

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf"]
CHAR_WIDTH = 0.6            # average glyph width of sans-serif text, in font sizes (a safe over-estimate)


def _e(text):
    return html.escape(str(text), quote=True)


def wrap(text, font_size, width):
    """Split text at spaces (or, for a word longer than a line, anywhere) into lines that fit width pixels."""
    per_line = max(4, int(width / (font_size * CHAR_WIDTH)))
    lines, line = [], ""
    for word in str(text).split():
        while len(word) > per_line:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:per_line])
            word = word[per_line:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= per_line:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines or [""]


def _text_lines(lines, x, y, font_size, anchor="start", weight=None):
    w = ' font-weight="%s"' % weight if weight else ""
    return "".join('<text x="%.1f" y="%.1f" font-size="%g" text-anchor="%s"%s>%s</text>'
                   % (x, y + i * font_size * 1.2, font_size, anchor, w, _e(t)) for i, t in enumerate(lines))


def _decimate(x, y, limit=300):
    """Keep at most ~limit points, always including the first and last (enough for a picture)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size > limit:
        idx = np.unique(np.linspace(0, x.size - 1, limit).round().astype(np.int64))
        x, y = x[idx], y[idx]
    return x, y


def envelope_steps(recall, precision, columns=200):
    """The VOCap.m interpolated precision as a step outline on a grid of recall columns: for recall r, the largest
    precision at any recall >= r (0 beyond the last recall). Returns (x, y) of the outline, starting and ending on
    the axis; the polygon's area is the AP up to the grid's resolution."""
    r = np.asarray(recall, dtype=np.float64)
    p = np.asarray(precision, dtype=np.float64)
    ok = np.isfinite(r) & np.isfinite(p)
    r, p = r[ok], p[ok]
    if r.size == 0:
        return np.zeros(0), np.zeros(0)
    order = np.argsort(r, kind="stable")
    r, p = r[order], p[order]
    best_right = np.maximum.accumulate(p[::-1])[::-1]          # max precision at this recall or beyond
    grid = np.linspace(0.0, 1.0, columns + 1)
    # the envelope on (grid[i], grid[i+1]] is the best precision at a recall > grid[i]
    pos = np.searchsorted(r, grid[:-1], side="right")
    height = np.where(pos < r.size, best_right[np.minimum(pos, r.size - 1)], 0.0)
    x = np.repeat(grid, 2)[1:-1]
    y = np.repeat(height, 2)
    return np.concatenate([[0.0], x, [1.0]]), np.concatenate([[0.0], y, [0.0]])


TITLE_GAP = 10          # px from the title block to the plot area: 4 px clear above the top y tick's label


def plot_svg(plot, width=204, height=190):
    """One small plot (a small multiple): wrapped title above, axes, the series, a legend below when >1 series."""
    fs = 10
    ml, mr = 34, 8
    pw = width - ml - mr
    title = wrap(plot.title, fs + 1, width - 4)
    # below the title's last line (its descenders reach 0.2 px under the lines' 1.2 spacing), TITLE_GAP px, then
    # the top y tick's label, whose glyphs rise about 4.5 px above the plot area
    mt = 6 + len(title) * (fs + 1) * 1.2 + TITLE_GAP
    ph = height - 44
    legend = plot.series if len(plot.series) > 1 else []
    lfs = fs + 2                # the legend: readable beside the 10 px ticks
    legend_lines = [wrap(s.label, lfs, width - 20) for s in legend]
    mb = 30 + sum(len(ls) for ls in legend_lines) * lfs * 1.25 + (6 if legend else 0)
    total_h = mt + ph + mb
    x0, x1 = plot.xlim
    y0, y1 = plot.ylim
    sx = pw / float(x1 - x0 or 1)
    sy = ph / float(y1 - y0 or 1)

    def px(v):
        return ml + (np.clip(v, x0, x1) - x0) * sx

    def py(v):
        return mt + ph - (np.clip(v, y0, y1) - y0) * sy

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="%d" role="img">' % (width, total_h, width, total_h, fs)]
    out.append(_text_lines(title, 2, 6 + fs + 1, fs + 1, weight="bold"))
    out.append('<rect x="%d" y="%.1f" width="%d" height="%d" fill="white" stroke="#888"/>' % (ml, mt, pw, ph))
    for i in range(5):
        fx = x0 + (x1 - x0) * i / 4.0
        fy = y0 + (y1 - y0) * i / 4.0
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e4e4e4"/>' % (px(fx), mt, px(fx), mt + ph))
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>' % (ml, py(fy), ml + pw, py(fy)))
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle" fill="#444">%g</text>'
                   % (px(fx), mt + ph + 11, round(fx, 3)))
        out.append('<text x="%d" y="%.1f" text-anchor="end" fill="#444">%g</text>' % (ml - 3, py(fy) + 3, round(fy, 3)))
    out.append('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>' % (ml + pw / 2.0, mt + ph + 23, _e(plot.xlabel)))
    out.append('<text x="9" y="%.1f" text-anchor="middle" transform="rotate(-90 9 %.1f)">%s</text>'
               % (mt + ph / 2.0, mt + ph / 2.0, _e(plot.ylabel)))
    for k, s in enumerate(plot.series):
        color = COLORS[k % len(COLORS)]
        if s.envelope:
            ex, ey = envelope_steps(s.x, s.y)
            if ex.size:
                pts = " ".join("%.1f,%.1f" % (a, b) for a, b in zip(px(ex), py(ey)))
                out.append('<polygon fill="%s" fill-opacity="0.22" stroke="none" points="%s"/>' % (color, pts))
        x, y = _decimate(s.x, s.y)
        if x.size == 0:
            continue
        if s.step and x.size > 1:
            x = np.repeat(x, 2)[1:]
            y = np.repeat(y, 2)[:-1]
        pts = " ".join("%.1f,%.1f" % (a, b) for a, b in zip(px(x), py(y)))
        if s.fill:
            base = py(max(y0, 0.0))
            out.append('<polygon fill="%s" fill-opacity="0.22" stroke="none" points="%.1f,%.1f %s %.1f,%.1f"/>'
                       % (color, px(x[0]), base, pts, px(x[-1]), base))
        if x.size == 1:
            out.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (px(x)[0], py(y)[0], color))
        else:
            out.append('<polyline fill="none" stroke="%s" stroke-width="1.4" points="%s"/>' % (color, pts))
    yy = mt + ph + 30 + lfs
    for k, lines in enumerate(legend_lines):
        color = COLORS[k % len(COLORS)]
        out.append('<rect x="4" y="%.1f" width="12" height="4" fill="%s"/>' % (yy - 5, color))
        out.append(_text_lines(lines, 20, yy, lfs))
        yy += len(lines) * lfs * 1.25
    out.append("</svg>")
    return "".join(out)


def _fmt(v, precision):
    return "%.*f" % (precision, v) if v == v else "n/a"


def _marker_crosses(bars, i, text, px, fs) -> bool:
    """Does bar i's marker (bars.extra) fall on its value label, drawn from the bar's end?"""
    if bars.extra is None or bars.extra[i] != bars.extra[i]:
        return False
    v = bars.values[i]
    end = px(v) if v == v else px(bars.xlim[0])
    return end - 2 <= px(bars.extra[i]) <= end + 6 + len(text) * fs * CHAR_WIDTH


def bars_svg(bars, width=840, precision=None):
    """Horizontal bars, one row per label, sorted (largest first) unless bars.sort is False. precision: the
    page's, for the value labels (default: bars.precision)."""
    precision = bars.precision if precision is None else precision
    fs = 11
    row = 18
    idx = list(range(len(bars.labels)))
    if bars.sort:
        idx.sort(key=lambda i: (-(bars.values[i] if bars.values[i] == bars.values[i] else -np.inf), i))
    label_w = min(260, max(40, int(max([len(bars.labels[i]) for i in idx] or [4]) * fs * CHAR_WIDTH) + 8))
    texts = [bars.value_text[i] if bars.value_text else _fmt(bars.values[i], precision) for i in idx]
    if bars.extra is not None and not bars.value_text:
        # beside a marker a bare number could read as the marker's value: with markers, every value label names
        # its bar ("top-1 accuracy 0.0000"); the same words for every value, so the text shows nothing but numbers
        texts = ["%s %s" % (bars.xlabel or "value", t) for t in texts]
    x0, x1 = bars.xlim
    top = 6
    legend = bars.extra is not None and bars.extra_label
    total_h = top + row * len(idx) + 34 + (16 if legend else 0)
    ml = label_w
    value_w = int(max([len(t) for t in texts] or [4]) * fs * CHAR_WIDTH) + 10
    pw = width - ml - value_w
    sx = pw / float(x1 - x0 or 1)

    def px(v):
        return ml + (min(max(v, x0), x1) - x0) * sx

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="100%%" style="max-width:%dpx" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="%d" role="img">' % (width, width, total_h, fs)]
    for i in range(5):
        fx = x0 + (x1 - x0) * i / 4.0
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e4e4e4"/>'
                   % (px(fx), top, px(fx), top + row * len(idx)))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%g</text>'
                   % (px(fx), top + row * len(idx) + 13, round(fx, 3)))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
               % (ml + pw / 2.0, top + row * len(idx) + 28, _e(bars.xlabel)))
    for r, i in enumerate(idx):
        y = top + r * row
        v = bars.values[i]
        name = bars.labels[i]
        shown = name if len(name) * fs * CHAR_WIDTH <= label_w - 6 else name[:max(3, int((label_w - 6) / (fs * CHAR_WIDTH)) - 1)] + "\u2026"
        out.append('<text x="%d" y="%d" text-anchor="end"><title>%s</title>%s</text>'
                   % (ml - 5, y + 13, _e(name), _e(shown)))
        if v == v:
            out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="#4a7fb5"/>' % (ml, y + 3, px(v) - ml, row - 6))
        if bars.extra is not None and bars.extra[i] == bars.extra[i]:
            ex = px(bars.extra[i])
            out.append('<rect x="%.1f" y="%d" width="3" height="%d" fill="#d62728"/>' % (ex - 1.5, y + 1, row - 2))
        end = px(v) if v == v else ml
        if _marker_crosses(bars, i, texts[r], px, fs):
            # the value label goes at the bar's end, beside the bar it belongs to; past the marker only where
            # the marker would cross it, naming its bar there
            end = max(end, px(bars.extra[i]) + 2)
        out.append('<text x="%.1f" y="%d" fill="#222">%s</text>' % (end + 4, y + 13, _e(texts[r])))
    if legend:
        y = top + row * len(idx) + 40
        out.append('<rect x="%d" y="%d" width="12" height="8" fill="#4a7fb5"/>' % (ml, y - 8))
        out.append('<text x="%d" y="%d">%s</text>' % (ml + 16, y, _e(bars.xlabel or "value")))
        off = ml + 30 + int(len(bars.xlabel or "value") * fs * CHAR_WIDTH)
        out.append('<rect x="%d" y="%d" width="3" height="12" fill="#d62728"/>' % (off, y - 10))
        out.append('<text x="%d" y="%d">%s</text>' % (off + 8, y, _e(bars.extra_label)))
    out.append("</svg>")
    return "".join(out)


def histogram_svg(hist, width=420, height=220):
    fs = 10
    ml, mr, mt, mb = 44, 10, 8, 32
    pw, ph = width - ml - mr, height - mt - mb
    edges = np.asarray(hist.edges, dtype=np.float64)
    counts = np.asarray(hist.counts, dtype=np.float64)
    step = max(1, int(np.ceil((float(counts.max()) if counts.size else 0.0) / 4.0)))   # whole counts per tick
    top = 4.0 * step
    x0, x1 = float(edges[0]), float(edges[-1])
    sx = pw / float(x1 - x0 or 1)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="%d" role="img">' % (width, height, width, height, fs)]
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="white" stroke="#888"/>' % (ml, mt, pw, ph))
    for i in range(5):
        y = mt + ph - ph * i / 4.0
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>' % (ml, y, ml + pw, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end" fill="#444">%d</text>' % (ml - 3, y + 3, i * step))
    for k in range(counts.size):
        xa = ml + (edges[k] - x0) * sx
        xb = ml + (edges[k + 1] - x0) * sx
        h = ph * counts[k] / top
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#4a7fb5" stroke="white" '
                   'stroke-width="0.5"/>' % (xa, mt + ph - h, max(xb - xa, 0.5), h))
    for i in range(5):
        fx = x0 + (x1 - x0) * i / 4.0
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%g</text>'
                   % (ml + (fx - x0) * sx, mt + ph + 11, round(fx, 3)))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (ml + pw / 2.0, height - 6, _e(hist.xlabel)))
    out.append('<text x="9" y="%.1f" text-anchor="middle" transform="rotate(-90 9 %.1f)">%s</text>'
               % (mt + ph / 2.0, mt + ph / 2.0, _e(hist.ylabel)))
    out.append("</svg>")
    return "".join(out)


def _heat_color(v):
    """White (0) to dark blue (1)."""
    v = min(max(float(v), 0.0), 1.0) if v == v else 0.0
    r = int(round(255 - v * (255 - 8)))
    g = int(round(255 - v * (255 - 48)))
    b = int(round(255 - v * (255 - 107)))
    return "#%02x%02x%02x" % (r, g, b)


def heatmap_svg(heat, cell=24):
    fs = 9
    values = heat.values
    nr, nc = values.shape
    label_w = int(max([len(s) for s in heat.row_labels] or [4]) * (fs + 1) * CHAR_WIDTH) + 20
    col_h = int(max([len(s) for s in heat.col_labels] or [4]) * (fs + 1) * CHAR_WIDTH) + 22
    ml, mt = label_w, col_h
    width = ml + nc * cell + 10
    height = mt + nr * cell + 10
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="%d" role="img">' % (width, height, width, height, fs)]
    out.append('<text x="%.1f" y="10" text-anchor="middle" font-size="10">%s</text>'
               % (ml + nc * cell / 2.0, _e(heat.col_title)))
    out.append('<text x="10" y="%.1f" text-anchor="middle" font-size="10" transform="rotate(-90 10 %.1f)">%s</text>'
               % (mt + nr * cell / 2.0, mt + nr * cell / 2.0, _e(heat.row_title)))
    for j, name in enumerate(heat.col_labels):
        x = ml + j * cell + cell / 2.0 + 3
        out.append('<text x="%.1f" y="%d" font-size="%d" transform="rotate(-90 %.1f %d)">%s</text>'
                   % (x, mt - 4, fs + 1, x, mt - 4, _e(name)))
    for i, name in enumerate(heat.row_labels):
        y = mt + i * cell
        out.append('<text x="%d" y="%.1f" text-anchor="end" font-size="%d">%s</text>'
                   % (ml - 4, y + cell / 2.0 + 4, fs + 1, _e(name)))
        for j in range(nc):
            v = values[i, j]
            out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#fff" stroke-width="0.5"/>'
                       % (ml + j * cell, y, cell, cell, _heat_color(v)))
            if v == v and v >= 0.01:
                out.append('<text x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%d</text>'
                           % (ml + j * cell + cell / 2.0, y + cell / 2.0 + 3, "#fff" if v > 0.5 else "#222",
                              int(round(v * 100))))
    out.append("</svg>")
    return "".join(out)
