#!/usr/bin/python3
"""Plot a schedlab sweep (sweep-summary.csv) with matplotlib (Debian's python3-matplotlib).

  scripts/plot-sweep.py results/study [--metric jct_mean_s] [--x workload.arrival_scale]
                        [--by scheduler.placement] [-o study.png]

One panel per metric (default: mean JCT, mean queueing delay, or the mean wait before the first
start where the results lack it, and GPU utilization): the metric against a grid key, one line
per value of another grid key (default: the first other one) with its 95% confidence band over
seeds, clipped at 0 (and at 100% for shares); a grid point whose seeds all gave the same number
(n = 1, or a sweep whose seeds cannot change its results) has no band.

The x axis (default: the load key, workload.load or workload.arrival_scale, where the grid has
one; else the last key) is the offered load where the key sets the load:
  - the results' `offered_load` (summary.json; its mean over the seeds), where they have it;
  - else 1 / workload.arrival_scale, the load relative to the trace's (arrival_scale stretches
    the gaps between submissions: 2 is half the load), labelled as such;
  - else workload.load itself (the demand relative to the trace's).
Other keys go on the axis as they are.

Titled with the scenario's name (a cell's summary.json). Writes PNG and PDF (study.png and
study.pdf; default: DIR/sweep.png and DIR/sweep.pdf). Run `schedlab sweep collect DIR` first
if the sweep has no sweep-summary.csv yet. Titles, axis labels and legend entries are kept in
cp1252 and drawn with Type 3 fonts, so that their text can be read back from the PDF
(tests/e2e/pdf_text.py).
"""
import argparse
import csv
import glob
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["pdf.fonttype"] = 3  # text as cp1252 strings in the PDF (tests read it)
matplotlib.rcParams["axes.unicode_minus"] = False  # "-", which cp1252 has, not U+2212
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "jct_mean_s": ("mean JCT", "hours", 1 / 3600),
    "jct_p50_s": ("p50 JCT", "hours", 1 / 3600),
    "jct_p95_s": ("p95 JCT", "hours", 1 / 3600),
    "jct_p99_s": ("p99 JCT", "hours", 1 / 3600),
    "queueing_delay_mean_s": ("mean queueing delay", "hours", 1 / 3600),
    "queueing_delay_p95_s": ("p95 queueing delay", "hours", 1 / 3600),
    "wait_mean_s": ("mean wait before first start", "hours", 1 / 3600),
    "wait_p95_s": ("p95 wait before first start", "hours", 1 / 3600),
    "makespan_s": ("makespan", "hours", 1 / 3600),
    "gpu_utilization": ("GPU utilization", "% of GPUs", 100),
    "cpu_utilization": ("CPU utilization", "% of CPUs", 100),
    "goodput": ("goodput", "%", 100),
    "fragmentation": ("fragmentation", "% of GPUs", 100),
}
LOAD_KEYS = ("workload.load", "workload.arrival_scale")


def as_number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def scenario_name(folder):
    """The scenario's name as the cells' summary.json has it; else the folder's."""
    for path in sorted(glob.glob(os.path.join(folder, "cells", "cell-*", "summary.json"))):
        try:
            with open(path) as f:
                return str(json.load(f)["scenario"])
        except (OSError, ValueError, KeyError):
            continue
    return os.path.basename(os.path.normpath(folder))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder")
    p.add_argument("--metric", action="append", help="a metric of summary.json (repeatable)")
    p.add_argument("--x", help="the grid key on the x axis (default: the load key, else the last)")
    p.add_argument("--by", help="the grid key with one line per value (default: the first other one)")
    p.add_argument("-o", "--out", help="PNG file (a PDF is written beside it)")
    a = p.parse_args()
    path = os.path.join(a.folder, "sweep-summary.csv")
    if not os.path.isfile(path):
        sys.exit(f"plot-sweep: {path} not found: run `schedlab sweep collect {a.folder}` first")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        keys = reader.fieldnames[: reader.fieldnames.index("metric")]
        rows = list(reader)
    if not keys:
        sys.exit("plot-sweep: the sweep has no grid keys: nothing to put on an axis")
    x = a.x or next((k for k in LOAD_KEYS if k in keys), keys[-1])
    if x not in keys:
        sys.exit(f"plot-sweep: --x {x} is not a grid key ({', '.join(keys)})")
    others = [k for k in keys if k != x]
    by = a.by or (others[0] if others else None)
    if by is not None and by not in others:
        sys.exit(f"plot-sweep: --by {by} is not another grid key ({', '.join(others)})")
    present = {r["metric"] for r in rows}
    delay = "queueing_delay_mean_s" if "queueing_delay_mean_s" in present else "wait_mean_s"
    metrics = a.metric or [m for m in ("jct_mean_s", delay, "gpu_utilization") if m in present]
    if not metrics:
        sys.exit("plot-sweep: none of the metrics is in sweep-summary.csv")

    # The x position of a grid point: the offered load where the key sets the load.
    point = lambda r: tuple(r[k] for k in keys)  # noqa: E731
    offered = {point(r): as_number(r["mean"]) for r in rows if r["metric"] == "offered_load"}
    if x in LOAD_KEYS and offered and all(v is not None for v in offered.values()):
        position = lambda r: offered.get(point(r))  # noqa: E731
        xlabel = "offered load (GPU-hours asked per GPU-hour of the cluster)"
    elif x == "workload.arrival_scale":
        position = lambda r: 1 / as_number(r[x])  # noqa: E731
        xlabel = "relative offered load (1 / workload.arrival_scale)"
    elif x == "workload.load":
        position = lambda r: as_number(r[x])  # noqa: E731
        xlabel = "relative offered load (workload.load)"
    else:
        position = None
        xlabel = x

    fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 4), squeeze=False)
    handles = {}
    for ax, metric in zip(axes[0], metrics):
        name, unit, factor = LABELS.get(metric, (metric, "", 1))
        share = unit.startswith("%")
        lines = {}
        for r in rows:
            if r["metric"] != metric:
                continue
            # Other grid keys than x and by: each combination is its own line.
            label = " ".join([r[by]] if by else []) + "".join(f" {k}={r[k]}" for k in others if k != by)
            lines.setdefault(label.strip() or metric, []).append(r)
        banded = False
        for i, (label, pts) in enumerate(lines.items()):
            if position is not None:
                xs = [position(r) for r in pts]
            elif all(as_number(r[x]) is not None for r in pts):
                xs = [as_number(r[x]) for r in pts]
            else:
                xs = [r[x] for r in pts]
            order = sorted(range(len(pts)), key=lambda j: xs[j])
            xs = [xs[j] for j in order]
            pts = [pts[j] for j in order]
            mean = [float(r["mean"]) * factor for r in pts]
            (line,) = ax.plot(xs, mean, marker="o", color=f"C{i % 10}", label=label)
            handles.setdefault(label, line)
            # A band only where the seeds differ; never below 0, nor a share above 100%.
            lo = [as_number(r["ci95_low"]) for r in pts]
            hi = [as_number(r["ci95_high"]) for r in pts]
            if any(int(r["n"]) > 1 and l is not None and h is not None and h > l for r, l, h in zip(pts, lo, hi)):
                top = 100 if share else math.inf
                low = [max(0.0, (l if l is not None else float(r["mean"])) * factor) for r, l in zip(pts, lo)]
                high = [min(top, (h if h is not None else float(r["mean"])) * factor) for r, h in zip(pts, hi)]
                ax.fill_between(xs, low, high, alpha=0.2, color=f"C{i % 10}", linewidth=0)
                banded = True
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"{name} ({unit})" if unit else name)
        ax.set_ylim(bottom=0)
        if share:
            ax.set_ylim(top=105)
        ax.set_title(f"{name}, mean and 95% CI over seeds" if banded else f"{name} (seeds gave one value: no CI)")
        ax.grid(alpha=0.3)
    fig.legend(list(handles.values()), list(handles.keys()), title=by, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(len(handles), 5), fontsize="small", frameon=False)
    title = scenario_name(a.folder)
    fig.suptitle(title)
    fig.tight_layout()
    out = a.out or os.path.join(a.folder, "sweep.png")
    pdf = os.path.splitext(out)[0] + ".pdf"
    fig.savefig(out, dpi=120, bbox_inches="tight")
    fig.savefig(pdf, bbox_inches="tight", metadata={"Title": title, "CreationDate": None})
    print(f"wrote {out} and {pdf}")


if __name__ == "__main__":
    main()
