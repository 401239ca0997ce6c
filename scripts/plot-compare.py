#!/usr/bin/python3
"""Plot a schedlab compare folder with matplotlib (Debian's python3-matplotlib).

  scripts/plot-compare.py results/hetero-compare-compare [-o compare.png]

The variants in compare.csv's order, the first (the baseline, against which compare prints its
ratios) first in every legend and bar group. Figures, each as PNG and PDF (plot.png and
plot.pdf, or -o's name and the same with .pdf), titled with the scenario's name:

  plot.png              three panels over each variant's finished jobs (jobs.csv):
                        - JCT, CDF per variant, on a log axis;
                        - queueing delay, CDF per variant: jobs.csv's queueing_delay_s (all time
                          pending between submit and end) where the results have it, else its
                          wait_s (the wait before the first start only), labelled as such; on a
                          symmetric log axis (linear below 1 s, so that no wait shows at 0);
                        - JCT mean, p50, p95 and p99 per variant, as summary.json has them (the
                          numbers compare prints), on a log axis when they span a decade or more.
  plot-utilization.png  one small panel per variant over time: GPU utilization (% of GPUs, left
                        axis) and CPU utilization (% of CPUs, its own axis on the right).
  plot-pools.png        with pools: one panel per variant with pools, each pool's GPUs allocated
                        (solid) and entitled (dashed).

Legends sit outside the axes. Titles, axis labels and legend entries are kept in cp1252 and
drawn with Type 3 fonts, so that their text can be read back from the PDF
(tests/e2e/pdf_text.py).
"""
import argparse
import csv
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["pdf.fonttype"] = 3  # text as cp1252 strings in the PDF (tests read it)
matplotlib.rcParams["axes.unicode_minus"] = False  # "-", which cp1252 has, not U+2212
import matplotlib.pyplot as plt  # noqa: E402

TIME_UNITS = [("h", 3600.0), ("min", 60.0), ("s", 1.0)]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def variants(folder):
    """The variant names in compare.csv's order: its value columns (ratio columns hold a '/')."""
    with open(os.path.join(folder, "compare.csv"), newline="") as f:
        header = next(csv.reader(f))
    return [n for n in header[1:] if "/" not in n and os.path.exists(os.path.join(folder, n, "jobs.csv"))]


def scenario_name(folder, first_variant):
    """The scenario's name, from a variant's run.yaml (`resolved:` `name:`); else the folder's."""
    try:
        with open(os.path.join(folder, first_variant, "run.yaml")) as f:
            m = re.search(r"^resolved:\n(?:  .*\n)*?  name: (.+)$", f.read(), re.M)
        if m:
            return m.group(1).strip().strip("'\"")
    except OSError:
        pass
    return os.path.basename(os.path.normpath(folder))


def save(fig, png, title):
    """PNG and PDF, with everything drawn (legends outside the axes included) inside the page."""
    pdf = os.path.splitext(png)[0] + ".pdf"
    fig.savefig(png, dpi=110, bbox_inches="tight")
    fig.savefig(pdf, bbox_inches="tight", metadata={"Title": title, "CreationDate": None})
    plt.close(fig)
    print(f"wrote {png} and {pdf}")


def time_unit(values):
    """One unit for a whole axis: hours, minutes or seconds, by the values' median."""
    positive = sorted(v for v in values if v > 0)
    mid = positive[len(positive) // 2] if positive else 0
    return next((u for u in TIME_UNITS if mid >= 2 * u[1]), TIME_UNITS[-1])


def cdf(ax, values, label, color):
    values = sorted(values)
    n = len(values)
    if n == 0:
        return
    # From 0 at the smallest value, a step up of 1/n at each job.
    ax.step(values[:1] + values, [0.0] + [(i + 1) / n for i in range(n)], where="post", label=label, color=color)


def finished_jobs(folder, variant):
    """The finished jobs that summary.json counts in its JCT figures: not service instances
    (a service runs until stopped; its rows have no JCT)."""
    return [r for r in read_csv(os.path.join(folder, variant, "jobs.csv"))
            if r["state"] == "finished" and r.get("kind", "batch") != "service" and r["jct_s"] != ""]


def summary(folder, variant):
    with open(os.path.join(folder, variant, "summary.json")) as f:
        return json.load(f)


def plot_main(folder, names, title):
    jobs = {v: finished_jobs(folder, v) for v in names}
    colors = {v: f"C{i % 10}" for i, v in enumerate(names)}
    labels = {v: f"{v} (baseline)" if i == 0 else v for i, v in enumerate(names)}
    fig, (jct_ax, wait_ax, bar_ax) = plt.subplots(1, 3, figsize=(15, 4.2))

    # One time unit for the whole figure, chosen by the JCTs.
    jct = {v: [float(r["jct_s"]) for r in jobs[v]] for v in names}
    name, scale = time_unit([x for v in names for x in jct[v]])
    for v in names:
        cdf(jct_ax, [x / scale for x in jct[v] if x > 0], labels[v], colors[v])
    jct_ax.set_xscale("log")
    jct_ax.set_xlabel(f"job completion time ({name}, log scale)")
    jct_ax.set_ylabel("fraction of finished jobs")
    jct_ax.set_ylim(0, 1.02)
    jct_ax.set_title("JCT, CDF per variant")
    jct_ax.grid(alpha=0.3, which="both")

    # One definition per metric (docs/metrics.md): queueing_delay_s where the results have it;
    # older results have only wait_s, the wait before the first start, and say so.
    queueing = all(jobs[v] and "queueing_delay_s" in jobs[v][0] for v in names)
    column = "queueing_delay_s" if queueing else "wait_s"
    what = "queueing delay" if queueing else "wait before first start"
    delay = {v: [float(r[column]) for r in jobs[v]] for v in names}
    for v in names:
        cdf(wait_ax, [x / scale for x in delay[v]], labels[v], colors[v])
    wait_ax.set_xscale("symlog", linthresh=1.0 / scale)  # linear below 1 s: jobs that never waited show at 0
    wait_ax.set_xlim(left=0)
    wait_ax.set_xlabel(f"{what} ({name}, log scale; linear below 1 s)")
    wait_ax.set_ylabel("fraction of finished jobs")
    wait_ax.set_ylim(0, 1.02)
    wait_ax.set_title(("Queueing delay" if queueing else "Wait before first start (jobs.csv wait_s)") +
                      ", CDF per variant")
    wait_ax.grid(alpha=0.3, which="both")

    # The JCT statistics as summary.json has them, grouped by statistic, the baseline first.
    stats = [("mean", "jct_mean_s"), ("p50", "jct_p50_s"), ("p95", "jct_p95_s"), ("p99", "jct_p99_s")]
    values = {v: [float(summary(folder, v).get(key, 0) or 0) for _, key in stats] for v in names}
    flat = [x for v in names for x in values[v]]
    width = 0.8 / len(names)
    for i, v in enumerate(names):
        bar_ax.bar([k + i * width for k in range(len(stats))], [x / scale for x in values[v]], width,
                   color=colors[v], label=labels[v], hatch="//" if i == 0 else None, edgecolor="black", linewidth=0.4)
    bar_ax.set_xticks([k + width * (len(names) - 1) / 2 for k in range(len(stats))], [f"JCT {s}" for s, _ in stats])
    positive = [x for x in flat if x > 0]
    spans_decades = positive and max(positive) >= 10 * min(positive)
    if spans_decades:
        bar_ax.set_yscale("log")
    bar_ax.set_ylabel(f"job completion time ({name}{', log scale' if spans_decades else ''})")
    bar_ax.set_title("JCT mean and percentiles (summary.json)")
    bar_ax.grid(alpha=0.3, axis="y", which="both")

    handles, legend_labels = jct_ax.get_legend_handles_labels()
    fig.legend(handles, legend_labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(names), 6),
               fontsize="small", frameon=False)
    fig.suptitle(f"{title}: {len(names)} variants")
    fig.tight_layout()
    return fig


def step_series(rows, key, scale=1.0):
    hours = [float(r["start_s"]) / 3600 for r in rows] + [float(rows[-1]["end_s"]) / 3600]
    values = [scale * float(r[key]) for r in rows]
    return hours, values + values[-1:]


def panel_grid(n, width=4.2, height=2.6):
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), sharex=True, sharey=True,
                             squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def plot_utilization(folder, names, title):
    """Small multiples: GPU utilization on the left axis, CPU utilization on its own right axis."""
    fig, axes = panel_grid(len(names))
    cols = min(3, len(names))
    handles = []
    for i, (ax, v) in enumerate(zip(axes, names)):
        # Axis labels on the outer panels only: the left column, the right column, the bottom row.
        left, right, bottom = i % cols == 0, i % cols == cols - 1 or i == len(names) - 1, i + cols >= len(names)
        rows = read_csv(os.path.join(folder, v, "timeline.csv"))
        if not rows:
            continue
        hours, gpu = step_series(rows, "gpu_utilization", 100)
        line = ax.step(hours, gpu, where="post", color="C0", label="GPU utilization (% of GPUs)")
        ax.set_ylim(0, 105)
        ax.set_title(f"{v} (baseline)" if v == names[0] else v)
        if left:
            ax.set_ylabel("GPU utilization (% of GPUs)")
        if bottom:
            ax.set_xlabel("hours since trace start")
            ax.xaxis.set_tick_params(labelbottom=True)
        ax.grid(alpha=0.3)
        if "cpu_utilization" in rows[0]:  # results written before CPUs were counted lack it
            cpu_ax = ax.twinx()
            _, cpu = step_series(rows, "cpu_utilization", 100)
            line += cpu_ax.step(hours, cpu, where="post", color="C2", label="CPU utilization (% of CPUs)")
            cpu_ax.set_ylim(0, 105)
            if right:
                cpu_ax.set_ylabel("CPU utilization (% of CPUs)")
            else:
                cpu_ax.yaxis.set_tick_params(labelright=False)
        if not handles:
            handles = line
    fig.legend(handles, [h.get_label() for h in handles], loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2,
               fontsize="small", frameon=False)
    fig.suptitle(f"{title}: utilization per variant")
    fig.tight_layout()
    return fig


def read_pools(folder):
    path = os.path.join(folder, "pools-timeline.csv")
    if not os.path.exists(path):
        return None
    pools = {}
    for r in read_csv(path):
        pools.setdefault(r["pool"], (r["parent"], []))[1].append(r)
    return pools


def plot_pools(variants_with_pools, title):
    """One panel per variant with pools: each pool's allocation (solid) and entitlement (dashed)."""
    fig, axes = panel_grid(len(variants_with_pools), height=3.0)
    for ax, (variant, pools) in zip(axes, variants_with_pools):
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
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0)
    fig.suptitle(f"{title}: GPUs allocated (solid) and entitled (dashed) per pool")
    fig.tight_layout()
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("-o", "--out")
    args = ap.parse_args()
    folder = args.folder.rstrip("/") or "/"
    if not os.path.exists(os.path.join(folder, "compare.csv")):
        sys.exit(f"plot-compare: {folder} has no compare.csv")
    names = variants(folder)
    if not names:
        sys.exit(f"plot-compare: {folder}: no variant folder with jobs.csv")
    out = args.out or os.path.join(folder, "plot.png")
    stem = os.path.splitext(out)[0]
    title = scenario_name(folder, names[0])
    save(plot_main(folder, names, title), out, title)
    save(plot_utilization(folder, names, title), stem + "-utilization.png", f"{title}: utilization")
    with_pools = [(v, p) for v, p in ((v, read_pools(os.path.join(folder, v))) for v in names) if p]
    if with_pools:
        save(plot_pools(with_pools, title), stem + "-pools.png", f"{title}: pools")


if __name__ == "__main__":
    main()
