#!/usr/bin/env python3
"""Draws a `latchwork repro` result (its JSON) as a PNG in the chart type the
figure declares ("chart"): lines for sweeps (paper values as hollow markers),
grouped bars for breakdowns and figures of one x (a hatched paper bar beside
each model bar the paper states), quantile curves drawn as CDFs for latency
distributions. A paper value stated as a ratio of two series is drawn where
it puts the first series: the ratio times the model's value of the second."""
import json
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write files only
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    # Pairs, so that `latchwork repro all` starts Python and matplotlib once.
    args = sys.argv[1:]
    if not args or len(args) % 2 != 0:
        print("usage: plot_repro.py RESULT.json OUT.png [RESULT.json OUT.png ...]", file=sys.stderr)
        return 2
    for i in range(0, len(args), 2):
        draw(args[i], args[i + 1])
    return 0


def series_order(r):
    order = [s for s in r.get("series_order", []) if s in r["series"]]
    return order + sorted(s for s in r["series"] if s not in order)


def point_y(r, series, x):
    """The model's y of a series at a nominal x, or None."""
    for p in r["series"].get(series, []):
        if p.get("nominal_x", p["x"]) == x:
            return p["y"]
    return None


def paper_y(r, p):
    """Where a paper value goes on the plot (a ratio: on its series' axis)."""
    if not p.get("over_series"):
        return p["paper_value"]
    if p.get("over_peak"):  # a ratio to the other series' highest point
        ys = [q["y"] for q in r["series"].get(p["over_series"], [])]
        base = max(ys) if ys else None
    else:
        base = point_y(r, p["over_series"], p["x"])
    return None if base is None else p["paper_value"] * base


def paper_label(p):
    bound = ">" if p.get("at_least") else "<" if p.get("at_most") else ""
    unit = "x" if p.get("over_series") else ""
    return f"{bound}{p['paper_value']:.3g}{unit}"


def short(name, panel):
    return name[len(panel):].strip() if panel and name.startswith(panel) else name


def draw(result_path: str, png_path: str) -> None:
    with open(result_path) as f:
        r = json.load(f)
    # One panel per point group ("panel"); one panel when the figure has none.
    panels = list(r.get("panels", []))
    for points in r["series"].values():
        panel = points[0].get("panel", "")
        if panel not in panels:
            panels.append(panel)
    chart = r.get("chart", "lines")
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7.5 if cols == 1 else 5.0 * cols, 4.5 if rows == 1 else 3.6 * rows),
                             dpi=120, squeeze=False)
    where = {panel: axes[i // cols][i % cols] for i, panel in enumerate(panels)}
    for i in range(len(panels), rows * cols):
        axes[i // cols][i % cols].set_visible(False)
    small = len(panels) > 1
    by_panel = {panel: [] for panel in panels}
    for name in series_order(r):
        by_panel[r["series"][name][0].get("panel", "")].append(name)
    for panel, ax in where.items():
        stated = [p for p in r["paper"] if r["series"].get(p["series"], [{}])[0].get("panel", "") == panel
                  and p["series"] in r["series"]]
        y_label = r.get("panel_y_labels", {}).get(panel, r["y_label"])
        if chart == "bars":
            draw_bars(ax, r, panel, by_panel[panel], stated, small)
            ax.set_ylabel(y_label, fontsize=8 if small else 10)
        elif chart == "cdf":
            draw_cdf(ax, r, panel, by_panel[panel], stated)
            ax.set_xlabel(y_label, fontsize=8 if small else 10)
            ax.set_ylabel(r["x_label"], fontsize=8 if small else 10)
        else:
            draw_lines(ax, r, panel, by_panel[panel], stated)
            ax.set_xlabel(r["x_label"], fontsize=8 if small else 10)
            ax.set_ylabel(y_label, fontsize=8 if small else 10)
        if panel:
            ax.set_title(panel, fontsize=9)
        ax.grid(True, alpha=0.3, axis="y" if chart == "bars" else "both")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6 if small else 7)
    if small:
        fig.suptitle(r["title"], fontsize=10)
    else:
        axes[0][0].set_title(r["title"], fontsize=9, wrap=True)
    fig.tight_layout()
    fig.savefig(png_path)
    plt.close(fig)


def draw_lines(ax, r, panel, names, stated):
    colours = {}
    for name in names:
        points = r["series"][name]
        (line,) = ax.plot([p["x"] for p in points], [p["y"] for p in points], marker="o", markersize=3,
                          label=f"model: {short(name, panel)}")
        colours[name] = line.get_color()
    draw_paper_markers(ax, r, stated, colours, lambda p, y: (plot_x(r, p), y))
    if r.get("log_x"):
        ax.set_xscale("log", base=2)
    ax.set_ylim(bottom=0)


def plot_x(r, p):
    """A paper value's x on the plot: the model point's plotted x (x_metric)."""
    for q in r["series"].get(p["series"], []):
        if q.get("nominal_x", q["x"]) == p["x"]:
            return q["x"]
    return p["x"]


def draw_paper_markers(ax, r, stated, colours, where):
    labelled = set()
    for p in stated:
        y = paper_y(r, p)
        if y is None:
            continue
        ratio = bool(p.get("over_series"))
        kind = "paper ratio x model base" if ratio else "paper (stated in text)"
        x, y = where(p, y)
        ax.plot([x], [y], marker="s" if ratio else "D", markersize=8, fillstyle="none",
                color=colours.get(p["series"], "black"), linestyle="none",
                label=None if kind in labelled else kind)
        ax.annotate(paper_label(p), (x, y), textcoords="offset points", xytext=(6, 4), fontsize=6)
        labelled.add(kind)


def draw_cdf(ax, r, panel, names, stated):
    # The points are quantiles (x the percentile, y the latency): a CDF is
    # the same curve with its axes swapped.
    colours = {}
    for name in names:
        points = sorted(r["series"][name], key=lambda p: p["x"])
        (line,) = ax.plot([p["y"] for p in points], [p["x"] for p in points], marker=".", markersize=4,
                          label=f"model: {short(name, panel)}")
        colours[name] = line.get_color()
    draw_paper_markers(ax, r, stated, colours, lambda p, y: (y, p["x"]))
    ax.set_xscale("log")


def common_prefix(names):
    """The words every name of a panel starts with ("p50 "), to leave out of labels."""
    if len(names) < 2:
        return ""
    words = [n.split(" ") for n in names]
    k = 0
    while all(len(w) > k + 1 and w[k] == words[0][k] for w in words):
        k += 1
    return " ".join(words[0][:k]) + " " if k else ""


def draw_bars(ax, r, panel, names, stated, small):
    xs = sorted({p.get("nominal_x", p["x"]) for n in names for p in r["series"][n]})
    paper_at = {(p["series"], p["x"]): p for p in stated}
    with_paper = {n for n in names if any((n, x) in paper_at for x in xs)}
    one_x = len(xs) == 1
    prefix = common_prefix([short(n, panel) for n in names])
    label_of = {n: short(n, panel)[len(prefix):] for n in names}
    # Groups: the series when the figure has one x, else the x values with a
    # bar per series. A series the paper states has a paper bar beside.
    groups = [[(n, xs[0])] for n in names] if one_x else [[(n, x) for n in names] for x in xs]
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = {n: cycle[i % len(cycle)] for i, n in enumerate(names)}
    for gi, group in enumerate(groups):
        units = sum(2 if n in with_paper else 1 for n, _ in group)
        unit = 0.8 / units
        left = gi - 0.4
        for n, x in group:
            y = point_y(r, n, x)
            p = paper_at.get((n, x))
            if y is not None:
                ax.bar(left + unit / 2, y, unit, color=colours[n],
                       label=None if one_x or gi else f"model: {label_of[n]}")
                text = f"{y:.3g}"
                if p is not None and p.get("over_series") and isinstance(p.get("model_value"), (int, float)):
                    text += f"\n({p['model_value']:.3g}x)"
                ax.annotate(text, (left + unit / 2, y), ha="center", va="bottom", fontsize=6)
            if n in with_paper:
                py = None if p is None else paper_y(r, p)
                if py is not None:
                    ax.bar(left + 1.5 * unit, py, unit, color="white", edgecolor=colours[n], hatch="///")
                    ax.annotate(paper_label(p), (left + 1.5 * unit, py), ha="center", va="bottom", fontsize=6,
                                fontweight="bold")
                left += unit
            left += unit
    if with_paper:
        ax.bar([0], [0], 0, color="white", edgecolor="grey", hatch="///",
               label="paper (hatched; a ratio A/B drawn at ratio x model B)")
    ax.set_xticks(range(len(groups)))
    if one_x:
        ax.set_xticklabels([label_of[n] for n in names], fontsize=7 if small else 9,
                           rotation=20 if len(names) > 4 else 0)
        ax.set_xlabel(f"{r['x_label']} = {xs[0]:g}" + (f" ({prefix.strip()})" if prefix else ""),
                      fontsize=8 if small else 10)
    else:
        ax.set_xticklabels([f"{x:g}" for x in xs])
        ax.set_xlabel(r["x_label"], fontsize=8 if small else 10)
    ax.set_ylim(bottom=0)
    ax.margins(y=0.15)


if __name__ == "__main__":
    sys.exit(main())
