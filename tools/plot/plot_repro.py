#!/usr/bin/env python3
"""Draws a `latchwork repro` result (its JSON) as a PNG: the model's series as
lines, the values the paper states as hollow markers of the same colour."""
import json
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write files only
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: plot_repro.py RESULT.json OUT.png", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        r = json.load(f)
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=120)
    colours = {}
    for name, points in r["series"].items():
        xs = [p["x"] for p in points]
        ys = [p["mops"] for p in points]
        (line,) = ax.plot(xs, ys, marker="o", markersize=3, label=f"model: {name}")
        colours[name] = line.get_color()
    labelled = False
    for p in r["paper"]:
        ax.plot([p["x"]], [p["paper_mops"]], marker="D", markersize=8, fillstyle="none",
                color=colours.get(p["series"], "black"), linestyle="none",
                label=None if labelled else "paper (stated in text)")
        labelled = True
    if r.get("log_x"):
        ax.set_xscale("log", base=2)
    ax.set_xlabel(r["x_label"])
    ax.set_ylabel("throughput (Mops)")
    ax.set_title(r["title"], fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
