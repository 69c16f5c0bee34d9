"""The fairness plot as inline SVG, drawn server-side (no plotting library, no script).

One panel per test: six bars of observed face counts, a dashed line at the count a fair die
would give, and the chi-square p-value in the title; a biased die's panel is drawn red. A
report over several dice sets draws one row of panels per set, headed by the set's label.
"""

from __future__ import annotations

from html import escape

PANEL_W, PANEL_H = 220, 170
_PAD_L, _PAD_B, _PAD_T = 30, 22, 34
_HEAD_H = 22  # a set's title above its row of panels


def _panel(test: dict, x0: int, alpha: float) -> list[str]:
    counts, n = test["counts"], test["n"]
    top = max([*counts, n / 6 if n else 0, 1])
    plot_h = PANEL_H - _PAD_B - _PAD_T
    bar_w = (PANEL_W - _PAD_L - 10) / 6
    colour = "#c0392b" if test["biased"] else "#2e6da4"
    if test["p_value"] is None:
        title = f"{test['label']}: n={n}, too few to test"
    else:
        title = f"{test['label']}: n={n}, p={test['p_value']:.3g}"
    out = [f'<g transform="translate({x0},0)">',
           f'<text x="{PANEL_W / 2}" y="14" text-anchor="middle" font-size="12" '
           f'fill="{colour}">{escape(title)}</text>']
    if test["biased"]:
        out.append(f'<text x="{PANEL_W / 2}" y="28" text-anchor="middle" font-size="11" '
                   f'fill="{colour}">biased at alpha {alpha:g}</text>')
    base = PANEL_H - _PAD_B
    for i, c in enumerate(counts):
        h = plot_h * c / top
        x = _PAD_L + i * bar_w
        out.append(f'<rect x="{x + 2:.1f}" y="{base - h:.1f}" width="{bar_w - 4:.1f}" '
                   f'height="{h:.1f}" fill="{colour}"><title>face {i + 1}: {c}</title></rect>')
        out.append(f'<text x="{x + bar_w / 2:.1f}" y="{base + 14}" text-anchor="middle" '
                   f'font-size="11">{i + 1}</text>')
    if n:
        y = base - plot_h * (n / 6) / top
        out.append(f'<line x1="{_PAD_L}" x2="{PANEL_W - 8}" y1="{y:.1f}" y2="{y:.1f}" '
                   'stroke="#333" stroke-dasharray="4 3"><title>fair: '
                   f'{n / 6:.1f}</title></line>')
    out.append(f'<text x="{_PAD_L - 4}" y="{base - plot_h + 4:.1f}" text-anchor="end" '
               f'font-size="10">{top:g}</text>')
    out.append(f'<line x1="{_PAD_L}" x2="{PANEL_W - 8}" y1="{base}" y2="{base}" '
               'stroke="#333"/>')
    out.append("</g>")
    return out



def _set_title(group: dict) -> str:
    ds = group["dice_set"]
    name = f"Dice set {ds['label']}" if ds else "No dice set recorded"
    state = " (in service)" if ds and ds["in_service"] else ""
    verdict = ": BIASED" if group["alert"] else ""
    return f"{name}{state}, {group['rolls']} rolls{verdict}"


def report_svg(report: dict) -> str:
    """An SVG document with one row per dice set of a fairness report, one panel per test."""
    groups = report["sets"]
    width = PANEL_W * max([len(g["tests"]) for g in groups] + [1])
    height = (_HEAD_H + PANEL_H) * max(len(groups), 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" role="img">',
             f"<title>Face frequencies per die and dice set, chi-square test against a "
             f"fair die ({escape(report['section'])})</title>"]
    for row, group in enumerate(groups):
        y = row * (_HEAD_H + PANEL_H)
        colour = "#c0392b" if group["alert"] else "#222"
        parts.append(f'<g class="dice-set" transform="translate(0,{y})">'
                     f'<text x="6" y="15" font-size="13" font-weight="bold" '
                     f'fill="{colour}">{escape(_set_title(group))}</text>'
                     f'<g transform="translate(0,{_HEAD_H})">')
        for i, test in enumerate(group["tests"]):
            parts.extend(_panel(test, i * PANEL_W, report["alpha"]))
        parts.append("</g></g>")
    parts.append("</svg>")
    return "".join(parts)
