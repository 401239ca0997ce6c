#!/usr/bin/python3
"""Plot schedlab results with matplotlib (Debian's python3-matplotlib).

Each figure as PNG and PDF (plot.png and plot.pdf, or -o's name and the same with .pdf).
`schedlab plot DIR` runs this script for a run or compare folder (and plot-sweep.py for a sweep).

  scripts/plot-results.py results/quickstart [-o quickstart.png]
      timeline.csv: GPU and CPU utilization, running and pending jobs, fragmented GPUs over time.
  scripts/plot-results.py results/hetero-compare-compare [-o compare.png]
      a compare folder: JCT percentiles and waits per variant (from each variant's jobs.csv).

With pools (pools-timeline.csv), a second figure beside the first, as PNG and PDF
(plot-pools.png and plot-pools.pdf for plot.png): GPUs allocated against GPUs entitled over
time, one panel per pool for a run, one panel per variant with pools for a compare folder.
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def plot_timeline(folder, ax_util, ax_jobs, label=None):
    rows = read_csv(os.path.join(folder, "timeline.csv"))
    hours = [float(r["start_s"]) / 3600 for r in rows]
    ax_util.step(hours, [100 * float(r["gpu_utilization"]) for r in rows], where="post", label=label or "utilization")
    if label is None:
        total = float(rows[0]["used_gpus"]) + float(rows[0]["free_gpus"]) if rows else 1
        ax_util.step(hours, [100 * float(r["fragmented_gpus"]) / total for r in rows], where="post",
                     label="fragmented (free, unusable by head job)")
        if rows and "cpu_utilization" in rows[0]:  # results written before CPUs were counted lack it
            ax_util.step(hours, [100 * float(r["cpu_utilization"]) for r in rows], where="post",
                         label="CPU utilization")
        ax_jobs.step(hours, [float(r["running_jobs"]) for r in rows], where="post", label="running jobs")
        ax_jobs.step(hours, [float(r["pending_jobs"]) for r in rows], where="post", label="pending jobs")


def read_pools(folder):
    """pools-timeline.csv as {pool: (parent, rows)} in file order; None without the file."""
    path = os.path.join(folder, "pools-timeline.csv")
    if not os.path.exists(path):
        return None
    pools = {}
    for r in read_csv(path):
        pools.setdefault(r["pool"], (r["parent"], []))[1].append(r)
    return pools


def step_series(rows, key):
    """Hours and values for a step plot (where="post"), closed at the end of the last row."""
    hours = [float(r["start_s"]) / 3600 for r in rows] + [float(rows[-1]["end_s"]) / 3600]
    values = [float(r[key]) for r in rows]
    return hours, values + values[-1:]


def panel_grid(n):
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), sharex=True, squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def plot_pools_run(folder, pools):
    """One panel per pool (inner pools too, titled parent/pool): GPUs allocated and entitled."""
    fig, axes = panel_grid(len(pools))
    for ax, (name, (parent, rows)) in zip(axes, pools.items()):
        hours, allocated = step_series(rows, "gpus_allocated")
        _, entitled = step_series(rows, "gpus_entitled")
        ax.step(hours, allocated, where="post", color="C0", label="allocated")
        ax.step(hours, entitled, where="post", color="C1", linestyle="--", label="entitled")
        ax.set_title(f"{parent}/{name}" if parent else name)
        ax.set_ylabel("GPUs (time-averaged)")
        ax.set_xlabel("hours since trace start")
        ax.set_ylim(bottom=0)
    axes[0].legend(loc="best", fontsize="small")
    fig.suptitle(f"{os.path.basename(folder)}: GPUs allocated and entitled per pool")
    return fig


def plot_pools_compare(folder, variants):
    """One panel per variant with pools: each pool's allocation (solid) and entitlement (dashed)."""
    fig, axes = panel_grid(len(variants))
    for ax, (variant, pools) in zip(axes, variants):
        for i, (name, (_, rows)) in enumerate(pools.items()):
            color = f"C{i % 10}"
            hours, allocated = step_series(rows, "gpus_allocated")
            _, entitled = step_series(rows, "gpus_entitled")
            ax.step(hours, allocated, where="post", color=color, label=name)
            ax.step(hours, entitled, where="post", color=color, linestyle="--")
        ax.set_title(variant)
        ax.set_ylabel("GPUs (time-averaged)")
        ax.set_xlabel("hours since trace start")
        ax.set_ylim(bottom=0)
        ax.legend(loc="best", fontsize="small")
    fig.suptitle(f"{os.path.basename(folder)}: GPUs allocated (solid) and entitled (dashed) per pool")
    return fig


def save_pools_figure(fig, out):
    stem = os.path.splitext(out)[0] + "-pools"
    fig.tight_layout()
    for ext in (".png", ".pdf"):
        fig.savefig(stem + ext, dpi=110)
        print(f"wrote {stem + ext}")


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    k = max(1, min(len(values), int(-(-p * len(values) // 100))))
    return values[k - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("-o", "--out")
    args = ap.parse_args()
    folder = args.folder.rstrip("/")
    out = args.out or os.path.join(folder, "plot.png")
    pools_fig = None
    if os.path.exists(os.path.join(folder, "timeline.csv")):
        fig, (a1, a2) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
        plot_timeline(folder, a1, a2)
        a1.set_ylabel("% of GPUs")
        a1.legend(loc="upper right")
        a2.set_ylabel("jobs")
        a2.set_xlabel("hours since trace start")
        a2.legend(loc="upper right")
        fig.suptitle(os.path.basename(folder))
        pools = read_pools(folder)
        if pools:
            pools_fig = plot_pools_run(folder, pools)
    elif os.path.exists(os.path.join(folder, "compare.csv")):
        variants = [d for d in sorted(os.listdir(folder)) if os.path.exists(os.path.join(folder, d, "jobs.csv"))]
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
        width = 0.8 / max(1, len(variants))
        stats = ["p50", "p95", "p99"]
        for i, v in enumerate(variants):
            jobs = [r for r in read_csv(os.path.join(folder, v, "jobs.csv")) if r["state"] == "finished"]
            jct = [float(r["jct_s"]) / 3600 for r in jobs]
            a1.bar([k + i * width for k in range(len(stats))], [percentile(jct, int(s[1:])) for s in stats], width,
                   label=v)
            plot_timeline(os.path.join(folder, v), a2, None, label=v)
        a1.set_xticks([k + width * (len(variants) - 1) / 2 for k in range(len(stats))], [f"JCT {s}" for s in stats])
        a1.set_ylabel("hours")
        a1.legend()
        a2.set_ylabel("GPU utilization %")
        a2.set_xlabel("hours since trace start")
        fig.suptitle(os.path.basename(folder))
        with_pools = [(v, p) for v, p in ((v, read_pools(os.path.join(folder, v))) for v in variants) if p]
        if with_pools:
            pools_fig = plot_pools_compare(folder, with_pools)
    else:
        sys.exit(f"plot-results: {folder} has neither timeline.csv nor compare.csv")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    fig.savefig(os.path.splitext(out)[0] + ".pdf")  # for papers
    print(f"wrote {out} and {os.path.splitext(out)[0]}.pdf")
    if pools_fig is not None:
        save_pools_figure(pools_fig, out)


if __name__ == "__main__":
    main()
