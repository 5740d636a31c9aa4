#!/usr/bin/env python3
"""Every value the papers state, before and after a model change, as one
Markdown table (docs/nic-model-values.md is made with it).

  python3 tools/plot/fidelity_table.py OLD_DIR NEW_DIR [--title T] > table.md
      [--labels "default scale,paper scale"] [--only-changed]

OLD_DIR and NEW_DIR are `latchwork repro --out` folders; their
<figure>.json files carry each stated value with the model's value and its
verdict. `latchwork repro diff OLD NEW` lists only what changed; this lists
everything, so a reader sees the whole standing in one place.
"""
import argparse
import glob
import json
import os
import sys


def load(folder):
    """{(figure, series, x, over): value row} from a repro output folder."""
    rows = {}
    files = sorted(glob.glob(os.path.join(folder, "*.json")))
    if not files:
        sys.exit(f"fidelity_table: no <figure>.json in {folder}")
    for path in files:
        with open(path) as f:
            fig = json.load(f)
        if "paper" not in fig:
            continue
        for v in fig["paper"]:
            key = (fig["name"], v["series"], v["x"], v.get("over_series", ""))
            rows[key] = v
    return rows


def fmt(v):
    if v is None:
        return "—"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def verdict(row):
    if row is None:
        return "—"
    return "within" if row["within_tolerance"] else "**miss**"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--title", default="")
    ap.add_argument("--labels", default="before,after",
                    help="the two columns' names, comma-separated (e.g. 'default scale,paper scale')")
    ap.add_argument("--only-changed", action="store_true",
                    help="only the values whose model value differs between the folders")
    a = ap.parse_args()
    labels = a.labels.split(",")
    if len(labels) != 2 or not all(labels):
        sys.exit("fidelity_table: --labels takes two names separated by a comma")
    old, new = load(a.old), load(a.new)
    keys = sorted(set(old) | set(new), key=lambda k: (k[0], k[1], k[2], k[3]))
    if a.title:
        print(f"{a.title}\n")
    lo, ln = labels
    print(f"| figure | value | x | paper | model {lo} | model {ln} | verdict {lo} | verdict {ln} | kind |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        o, n = old.get(k), new.get(k)
        if a.only_changed and o and n and o["model_value"] == n["model_value"]:
            continue
        r = n or o
        name = k[1] + (f" / {k[3]}" if k[3] else "")
        bound = "≥ " if r.get("at_least") else "≤ " if r.get("at_most") else ""
        kind = "fitted" if r.get("fitted") else "predicted"
        print(f"| {k[0]} | {name} | {fmt(k[2])} | {bound}{fmt(r['paper_value'])} | "
              f"{fmt(o and o['model_value'])} | {fmt(n and n['model_value'])} | {verdict(o)} | {verdict(n)} | {kind} |")
    for label, rows in ((lo, old), (ln, new)):
        pred = [r for r in rows.values() if not r.get("fitted")]
        within = sum(r["within_tolerance"] for r in pred)
        print(f"\n{label}: {within} of {len(pred)} predicted values within tolerance"
              f" ({100 * within / max(1, len(pred)):.0f}%)", end="")
    print()


if __name__ == "__main__":
    main()
