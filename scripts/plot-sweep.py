#!/usr/bin/python3
"""Plot a schedlab sweep (sweep-summary.csv) with matplotlib (Debian's python3-matplotlib).

  scripts/plot-sweep.py results/study [--metric jct_mean_s] [--x workload.arrival_scale]
                        [--by scheduler.placement] [-o study.png]

One panel per metric (default: mean JCT, mean wait, GPU utilization): the metric against a
grid key (default: the last one), one line per value of another grid key (default: the first
other one) with its 95% confidence band over seeds. Writes PNG and PDF (study.png and
study.pdf; default: DIR/sweep.png and DIR/sweep.pdf). Run `schedlab sweep collect DIR` first
if the sweep has no sweep-summary.csv yet.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "jct_mean_s": ("mean JCT", "hours", 1 / 3600),
    "jct_p95_s": ("p95 JCT", "hours", 1 / 3600),
    "wait_mean_s": ("mean wait", "hours", 1 / 3600),
    "wait_p95_s": ("p95 wait", "hours", 1 / 3600),
    "makespan_s": ("makespan", "hours", 1 / 3600),
    "gpu_utilization": ("GPU utilization", "%", 100),
    "goodput": ("goodput", "%", 100),
    "fragmentation": ("fragmentation", "%", 100),
}


def as_number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder")
    p.add_argument("--metric", action="append", help="a metric of summary.json (repeatable)")
    p.add_argument("--x", help="the grid key on the x axis (default: the last)")
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
    x = a.x or keys[-1]
    if x not in keys:
        sys.exit(f"plot-sweep: --x {x} is not a grid key ({', '.join(keys)})")
    others = [k for k in keys if k != x]
    by = a.by or (others[0] if others else None)
    if by is not None and by not in others:
        sys.exit(f"plot-sweep: --by {by} is not another grid key ({', '.join(others)})")
    metrics = a.metric or [m for m in ("jct_mean_s", "wait_mean_s", "gpu_utilization")
                           if any(r["metric"] == m for r in rows)]
    fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 4), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        name, unit, factor = LABELS.get(metric, (metric, "", 1))
        lines = {}
        for r in rows:
            if r["metric"] != metric:
                continue
            # Other grid keys than x and by: each combination is its own line.
            label = " ".join([r[by]] if by else []) + "".join(
                f" {k}={r[k]}" for k in others if k != by)
            lines.setdefault(label.strip() or metric, []).append(r)
        for label, pts in lines.items():
            numeric = all(as_number(r[x]) is not None for r in pts)
            pts.sort(key=lambda r: as_number(r[x]) if numeric else r[x])
            xs = [as_number(r[x]) if numeric else r[x] for r in pts]
            mean = [float(r["mean"]) * factor for r in pts]
            lo = [float(r["ci95_low"]) * factor for r in pts]
            hi = [float(r["ci95_high"]) * factor for r in pts]
            ax.plot(xs, mean, marker="o", label=label)
            ax.fill_between(xs, lo, hi, alpha=0.2)
        ax.set_xlabel(x)
        ax.set_ylabel(f"{name} ({unit})" if unit else name)
        ax.set_title(f"{name}, mean and 95% CI over seeds")
        ax.grid(alpha=0.3)
        ax.legend(title=by, fontsize="small")
    out = a.out or os.path.join(a.folder, "sweep.png")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    fig.savefig(os.path.splitext(out)[0] + ".pdf")
    print(f"wrote {out} and {os.path.splitext(out)[0]}.pdf")


if __name__ == "__main__":
    main()
