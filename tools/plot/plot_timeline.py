#!/usr/bin/env python3
"""Draws a `latchwork ... --timeline` trace (Chrome trace-event JSON) as a PNG:
one lane per coroutine and per queue pair, verbs as bars coloured by opcode,
the NIC model's waits as hatched bars on their queue pair's lane, memory
accesses as ticks and the relaxations the simulator applied as red markers.
Only the first MAX_VERBS verbs (by post time) are drawn; the title says so.
Optional FROM_US TO_US draw only the verbs posted in that window."""
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write files only
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

MAX_VERBS = 300
MAX_LANES = 80
COLOURS = {"READ": "#4c72b0", "WRITE": "#55a868", "CAS": "#c44e52", "FAA": "#8172b2",
           "MASKED_CAS": "#ccb974", "MASKED_FAA": "#64b5cd"}
HATCHES = ["////", "\\\\\\\\", "xxxx", "....", "++++", "oo"]


def lane_of(thread_name: str) -> str:
    """The lane a track's tid belongs to: its overflow lanes (" #2") and its
    queue pair's NIC waits share it."""
    name = re.sub(r" #\d+$", "", thread_name)
    return name[: -len(": NIC waits")] if name.endswith(": NIC waits") else name


def main() -> int:
    if len(sys.argv) not in (3, 5):
        print("usage: plot_timeline.py TIMELINE.json OUT.png [FROM_US TO_US]", file=sys.stderr)
        return 2
    window = (float(sys.argv[3]), float(sys.argv[4])) if len(sys.argv) == 5 else (float("-inf"), float("inf"))
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    procs, threads = {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]

    def lane(e):
        return (e["pid"], lane_of(threads.get((e["pid"], e["tid"]), str(e["tid"]))))

    # Each verb has a slice on its coroutine's lane and one on its QP's: count once.
    verbs = sorted((e for e in events if e.get("cat") == "verb" and window[0] <= e["ts"] <= window[1]),
                   key=lambda e: e["ts"])
    total_verbs = sum(1 for e in verbs if not lane(e)[1].startswith("QP"))
    shown = [e for e in verbs if not lane(e)[1].startswith("QP")][:MAX_VERBS]
    end = max((e["ts"] + e["dur"] for e in shown), default=0.0)
    start = min((e["ts"] for e in shown), default=0.0)
    keys = {(e["args"]["coroutine"], e["args"]["posted_ns"], e["args"]["address"]) for e in shown}
    shown = [e for e in verbs if (e["args"]["coroutine"], e["args"]["posted_ns"], e["args"]["address"]) in keys]
    def within(e):
        return start <= e["ts"] <= end

    waits = [e for e in events if e.get("cat") == "nic_wait" and within(e)]
    relax = [e for e in events if e.get("cat") == "relaxation" and within(e)]
    access = [e for e in events if e.get("cat") == "memory" and within(e)]

    lanes = sorted({lane(e) for e in shown + waits + relax}, key=lambda k: (k[0], k[1].startswith("QP"), k[1]))
    dropped_lanes = max(0, len(lanes) - MAX_LANES)
    lanes = lanes[:MAX_LANES]
    row = {k: i for i, k in enumerate(lanes)}
    height = min(30.0, 1.6 + 0.32 * max(1, len(lanes)))
    fig, ax = plt.subplots(figsize=(12, height), dpi=100)
    opcodes = set()
    for e in shown:
        if lane(e) not in row:
            continue
        opcodes.add(e["name"])
        ax.barh(row[lane(e)], max(e["dur"], 1e-3), left=e["ts"], height=0.7,
                color=COLOURS.get(e["name"], "#999999"), alpha=0.55, edgecolor="black", linewidth=0.3)
    resources = sorted({e["name"] for e in waits})
    hatch = {r: HATCHES[i % len(HATCHES)] for i, r in enumerate(resources)}
    for e in waits:
        if lane(e) in row:
            ax.barh(row[lane(e)], max(e["dur"], 1e-3), left=e["ts"], height=0.35, fill=False,
                    hatch=hatch[e["name"]], edgecolor="#555555", linewidth=0.4)
    xs = [e["ts"] for e in access if lane(e) in row]
    ax.scatter(xs, [row[lane(e)] + 0.3 for e in access if lane(e) in row], marker="|", s=18, color="black",
               linewidths=0.6, zorder=3)
    ax.scatter([e["ts"] for e in relax if lane(e) in row], [row[lane(e)] for e in relax if lane(e) in row],
               marker="v", s=50, color="red", zorder=4)

    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([f"{procs.get(p, p)}: {name}" for p, name in lanes], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(start - (end - start) * 0.01, end + (end - start) * 0.01 + 1e-3)
    ax.set_xlabel("virtual time (us)")
    ax.grid(axis="x", alpha=0.3)
    title = "timeline: %d verbs" % total_verbs
    if len(sys.argv) == 5:
        title += " posted in [%s, %s] us" % (sys.argv[3], sys.argv[4])
    if total_verbs > len(keys):
        title = "timeline: the first %d of %d verbs" % (len(keys), total_verbs)
    title += ", %d relaxations, %d NIC waits shown" % (len(relax), len(waits))
    if dropped_lanes:
        title += " (%d more lanes not drawn)" % dropped_lanes
    dropped = trace.get("otherData", {}).get("dropped_events", 0)
    if dropped:
        title += "\n(%d events beyond --timeline-limit are not in the file)" % dropped
    ax.set_title(title, fontsize=9)
    handles = [Patch(facecolor=COLOURS.get(o, "#999999"), alpha=0.55, label=o) for o in sorted(opcodes)]
    handles += [Patch(fill=False, hatch=hatch[r], edgecolor="#555555", label="wait: " + r) for r in resources]
    handles.append(Line2D([], [], marker="|", color="black", linestyle="", label="memory access"))
    handles.append(Line2D([], [], marker="v", color="red", linestyle="", label="relaxation"))
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
