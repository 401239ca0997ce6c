#!/usr/bin/python3
"""Plot schedlab results with matplotlib (Debian's python3-matplotlib).

  scripts/plot-results.py results/quickstart [-o quickstart.png]
      timeline.csv: GPU and CPU utilization, running and pending jobs, fragmented GPUs over time.
  scripts/plot-results.py results/hetero-compare-compare [-o compare.png]
      a compare folder: JCT percentiles and waits per variant (from each variant's jobs.csv).
"""
import argparse
import csv
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
    if os.path.exists(os.path.join(folder, "timeline.csv")):
        fig, (a1, a2) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
        plot_timeline(folder, a1, a2)
        a1.set_ylabel("% of GPUs")
        a1.legend(loc="upper right")
        a2.set_ylabel("jobs")
        a2.set_xlabel("hours since trace start")
        a2.legend(loc="upper right")
        fig.suptitle(os.path.basename(folder))
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
    else:
        sys.exit(f"plot-results: {folder} has neither timeline.csv nor compare.csv")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
