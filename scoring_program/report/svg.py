"""Inline SVG line plots (no matplotlib)."""
from __future__ import annotations

import html

import numpy as np

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf"]


def _decimate(x, y, limit=400):
    """Keep at most ~limit points, always including the first and last (enough for a picture)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size > limit:
        idx = np.unique(np.linspace(0, x.size - 1, limit).round().astype(np.int64))
        x, y = x[idx], y[idx]
    return x, y


def plot_svg(plot, width=360, height=300) -> str:
    ml, mr, mt, mb = 46, 10, 24, 40
    pw, ph = width - ml - mr, height - mt - mb
    x0, x1 = plot.xlim
    y0, y1 = plot.ylim
    sx = pw / float(x1 - x0 or 1)
    sy = ph / float(y1 - y0 or 1)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="10">' % (width, height, width, height)]
    out.append('<text x="%d" y="14" font-size="12" font-weight="bold">%s</text>' % (ml, html.escape(plot.title)))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="white" stroke="#444"/>' % (ml, mt, pw, ph))
    for i in range(6):
        fx = x0 + (x1 - x0) * i / 5.0
        fy = y0 + (y1 - y0) * i / 5.0
        px = ml + (fx - x0) * sx
        py = mt + ph - (fy - y0) * sy
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (px, mt, px, mt + ph))
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (ml, py, ml + pw, py))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (px, mt + ph + 12, round(fx, 3)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (ml - 3, py + 3, round(fy, 3)))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
               % (ml + pw / 2.0, height - 6, html.escape(plot.xlabel)))
    out.append('<text x="10" y="%.1f" text-anchor="middle" transform="rotate(-90 10 %.1f)">%s</text>'
               % (mt + ph / 2.0, mt + ph / 2.0, html.escape(plot.ylabel)))
    for k, s in enumerate(plot.series):
        x, y = _decimate(s.x, s.y)
        if x.size == 0:
            continue
        px = ml + (np.clip(x, x0, x1) - x0) * sx
        py = mt + ph - (np.clip(y, y0, y1) - y0) * sy
        pts = " ".join("%.1f,%.1f" % (a, b) for a, b in zip(px, py))
        color = COLORS[k % len(COLORS)]
        out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>'
                   % (color, pts, html.escape(s.label)))
    if len(plot.series) > 1:
        for k, s in enumerate(plot.series[:10]):
            out.append('<text x="%d" y="%d" fill="%s">%s</text>'
                       % (ml + pw - 110, mt + 12 + 11 * k, COLORS[k % len(COLORS)], html.escape(s.label)))
    out.append("</svg>")
    return "".join(out)
