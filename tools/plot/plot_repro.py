#!/usr/bin/env python3
"""Draws a `latchwork repro` result (its JSON) as a PNG: the model's series as
lines, the values the paper states as hollow markers of the same colour."""
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


def draw(result_path: str, png_path: str) -> None:
    with open(result_path) as f:
        r = json.load(f)
    # One panel per point group ("panel"); one panel when the figure has none.
    panels = list(r.get("panels", []))
    for points in r["series"].values():
        panel = points[0].get("panel", "")
        if panel not in panels:
            panels.append(panel)
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7.5 if cols == 1 else 5.0 * cols, 4.5 if rows == 1 else 3.6 * rows),
                             dpi=120, squeeze=False)
    where = {panel: axes[i // cols][i % cols] for i, panel in enumerate(panels)}
    for i in range(len(panels), rows * cols):
        axes[i // cols][i % cols].set_visible(False)
    colours = {}
    for name, points in r["series"].items():
        panel = points[0].get("panel", "")
        label = name[len(panel):].strip() if panel and name.startswith(panel) else name
        xs = [p["x"] for p in points]
        ys = [p["y"] for p in points]
        (line,) = where[panel].plot(xs, ys, marker="o", markersize=3, label=f"model: {label}")
        colours[name] = (line.get_color(), panel)
    labelled = set()
    for p in r["paper"]:
        if p.get("over_series"):
            continue  # a ratio of two series has no place on their axes
        colour, panel = colours.get(p["series"], ("black", panels[0]))
        where[panel].plot([p["x"]], [p["paper_value"]], marker="D", markersize=8, fillstyle="none",
                          color=colour, linestyle="none",
                          label=None if panel in labelled else "paper (stated in text)")
        labelled.add(panel)
    for panel, ax in where.items():
        if r.get("log_x"):
            ax.set_xscale("log", base=2)
        ax.set_xlabel(r["x_label"], fontsize=8 if len(panels) > 1 else 10)
        ax.set_ylabel(r.get("panel_y_labels", {}).get(panel, r["y_label"]), fontsize=8 if len(panels) > 1 else 10)
        if panel:
            ax.set_title(panel, fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=6 if len(panels) > 1 else 7)
    if len(panels) > 1:
        fig.suptitle(r["title"], fontsize=10)
    else:
        axes[0][0].set_title(r["title"], fontsize=9)
    fig.tight_layout()
    fig.savefig(png_path)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
