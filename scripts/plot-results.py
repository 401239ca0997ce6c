#!/usr/bin/python3
"""Plot a schedlab run with matplotlib (Debian's python3-matplotlib).

Each figure as PNG and PDF (plot.png and plot.pdf, or -o's name and the same with .pdf).
`schedlab plot DIR` runs this script for a run folder (plot-compare.py for a compare folder,
plot-sweep.py for a sweep).

  scripts/plot-results.py results/quickstart [-o quickstart.png]
      timeline.csv over time, one panel each: GPU utilization and fragmented GPUs (% of the
      cluster's GPUs), CPU utilization (% of the cluster's CPUs), running and pending jobs.
      Titled with the scenario's name (run.yaml's `name`, else summary.json's `scenario`).

With pools (pools-timeline.csv), a second figure beside the first, as PNG and PDF
(plot-pools.png and plot-pools.pdf for plot.png): GPUs allocated against GPUs entitled over
time, one panel per pool.

Given a compare folder, this script hands it to plot-compare.py beside it (the repository's
scripts/ folder), as it did before that script existed.

Titles, axis labels and legend entries are kept in cp1252 and drawn with Type 3 fonts, so that
their text can be read back from the PDF (tests/e2e/pdf_text.py).
"""
import argparse
import csv
import json
import math
import os
import re
import runpy
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["pdf.fonttype"] = 3  # text as cp1252 strings in the PDF (tests read it)
matplotlib.rcParams["axes.unicode_minus"] = False  # "-", which cp1252 has, not U+2212
import matplotlib.pyplot as plt  # noqa: E402


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def scenario_name(folder):
    """The scenario's name: run.yaml's resolved `name:`, else summary.json's `scenario`, else the folder's."""
    try:
        with open(os.path.join(folder, "run.yaml")) as f:
            m = re.search(r"^resolved:\n(?:  .*\n)*?  name: (.+)$", f.read(), re.M)
        if m:
            return m.group(1).strip().strip("'\"")
    except OSError:
        pass
    try:
        with open(os.path.join(folder, "summary.json")) as f:
            return str(json.load(f)["scenario"])
    except (OSError, ValueError, KeyError):
        return os.path.basename(os.path.normpath(folder))


def save(fig, png, title):
    """PNG and PDF, with everything drawn (legends outside the axes included) inside the page."""
    pdf = os.path.splitext(png)[0] + ".pdf"
    fig.savefig(png, dpi=110, bbox_inches="tight")
    fig.savefig(pdf, bbox_inches="tight", metadata={"Title": title, "CreationDate": None})
    plt.close(fig)
    print(f"wrote {png} and {pdf}")


def legend_outside(ax):
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0)


def step_series(rows, key, scale=1.0):
    """Hours and values for a step plot (where="post"), closed at the end of the last row."""
    hours = [float(r["start_s"]) / 3600 for r in rows] + [float(rows[-1]["end_s"]) / 3600]
    values = [scale * float(r[key]) for r in rows]
    return hours, values + values[-1:]


def plot_run(folder, title):
    rows = read_csv(os.path.join(folder, "timeline.csv"))
    if not rows:
        sys.exit(f"plot-results: {folder}/timeline.csv has no rows")
    has_cpu = "cpu_utilization" in rows[0]  # results written before CPUs were counted lack it
    n = 3 if has_cpu else 2
    fig, axes = plt.subplots(n, 1, figsize=(10, 2.4 * n), sharex=True)
    gpu_ax, jobs_ax = axes[0], axes[-1]
    total = float(rows[0]["used_gpus"]) + float(rows[0]["free_gpus"]) + float(rows[0].get("down_gpus") or 0)
    hours, util = step_series(rows, "gpu_utilization", 100)
    gpu_ax.step(hours, util, where="post", label="GPU utilization")
    _, frag = step_series(rows, "fragmented_gpus", 100 / total if total else 0)
    gpu_ax.step(hours, frag, where="post", label="fragmented GPUs\n(free, unusable by the head job)")
    gpu_ax.set_ylabel("% of GPUs")
    gpu_ax.set_ylim(0, 105)
    gpu_ax.set_title("GPUs")
    legend_outside(gpu_ax)
    if has_cpu:
        cpu_ax = axes[1]
        _, cpu = step_series(rows, "cpu_utilization", 100)
        cpu_ax.step(hours, cpu, where="post", color="C2", label="CPU utilization")
        cpu_ax.set_ylabel("% of CPUs")
        cpu_ax.set_ylim(0, 105)
        cpu_ax.set_title("CPUs")
        legend_outside(cpu_ax)
    _, running = step_series(rows, "running_jobs")
    _, pending = step_series(rows, "pending_jobs")
    jobs_ax.step(hours, running, where="post", label="running jobs")
    jobs_ax.step(hours, pending, where="post", label="pending jobs")
    jobs_ax.set_ylabel("jobs (time-averaged)")
    jobs_ax.set_xlabel("hours since trace start")
    jobs_ax.set_title("Jobs")
    legend_outside(jobs_ax)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def read_pools(folder):
    """pools-timeline.csv as {pool: (parent, rows)} in file order; None without the file."""
    path = os.path.join(folder, "pools-timeline.csv")
    if not os.path.exists(path):
        return None
    pools = {}
    for r in read_csv(path):
        pools.setdefault(r["pool"], (r["parent"], []))[1].append(r)
    return pools


def panel_grid(n):
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), sharex=True, squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def plot_pools_run(pools, title):
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
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, bbox_to_anchor=(0.5, -0.02), fontsize="small")
    fig.suptitle(f"{title}: GPUs allocated and entitled per pool")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("-o", "--out")
    args = ap.parse_args()
    folder = args.folder.rstrip("/") or "/"
    if not os.path.exists(os.path.join(folder, "timeline.csv")) and os.path.exists(os.path.join(folder, "compare.csv")):
        compare = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot-compare.py")
        if not os.path.exists(compare):
            sys.exit(f"plot-results: {folder} is a compare folder: run `schedlab plot {folder}`")
        sys.argv = [compare] + sys.argv[1:]
        runpy.run_path(compare, run_name="__main__")
        return
    if not os.path.exists(os.path.join(folder, "timeline.csv")):
        sys.exit(f"plot-results: {folder} has neither timeline.csv nor compare.csv")
    out = args.out or os.path.join(folder, "plot.png")
    title = scenario_name(folder)
    save(plot_run(folder, title), out, title)
    pools = read_pools(folder)
    if pools:
        save(plot_pools_run(pools, title), os.path.splitext(out)[0] + "-pools.png", f"{title}: pools")


if __name__ == "__main__":
    main()
