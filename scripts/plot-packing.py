#!/usr/bin/python3
"""Plot a schedlab packing experiment (workload.mode: packing) with matplotlib.

  scripts/plot-packing.py DIR [-o packing.png]

DIR is a run folder (packing.csv) or a compare folder (one packing.csv per variant). Draws
the share of the cluster's GPUs allocated against the GPU demand that has arrived, one line
per variant, as in Figure 9(a) of Weng et al., USENIX ATC'23 ("Beware of Fragmentation"),
with the ideal (every arrived GPU allocated) dashed. Writes PNG and PDF (default:
DIR/packing.png and DIR/packing.pdf).
"""
import argparse
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["pdf.fonttype"] = 3  # text as cp1252 strings in the PDF (tests read it)
matplotlib.rcParams["axes.unicode_minus"] = False
import matplotlib.pyplot as plt  # noqa: E402


def read_curve(path):
    xs, ys = [], []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            xs.append(float(row["arrived_pct"]))
            ys.append(float(row["allocated_pct"]))
    return xs, ys


def curves(folder):
    """(label, csv path) per variant: the folder itself, or its variant folders in compare.csv order."""
    own = os.path.join(folder, "packing.csv")
    if os.path.exists(own):
        return [(os.path.basename(os.path.normpath(folder)), own)]
    names = []
    compare = os.path.join(folder, "compare.csv")
    if os.path.exists(compare):
        with open(compare, newline="") as f:
            header = next(csv.reader(f))
        names = [n for n in header[1:] if "/" not in n]
    found = [(n, os.path.join(folder, n, "packing.csv")) for n in names]
    return [(n, p) for n, p in found if os.path.exists(p)]


def scenario_name(folder, found):
    """The scenario's name from run.yaml (`resolved:` `name:`) of the folder or its first variant."""
    for where in (folder, os.path.dirname(found[0][1])):
        try:
            with open(os.path.join(where, "run.yaml")) as f:
                m = re.search(r"^resolved:\n(?:  .*\n)*?  name: (.+)$", f.read(), re.M)
            if m:
                return m.group(1).strip().strip("'\"")
        except OSError:
            pass
    return os.path.basename(os.path.normpath(folder))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("-o", "--out", help="PNG file (a PDF is written beside it)")
    args = ap.parse_args()
    found = curves(args.dir)
    if not found:
        sys.exit(f"{args.dir}: no packing.csv (is this a packing run or compare folder?)")
    fig, ax = plt.subplots(figsize=(6, 4))
    top = 0
    for label, path in found:
        xs, ys = read_curve(path)
        top = max(top, xs[-1] if xs else 0)
        ax.plot(xs, ys, label=label, linewidth=1.6)
    ax.plot([0, 100, top], [0, 100, 100], "k--", linewidth=0.8, label="ideal")
    ax.set_xlabel("GPU demand arrived (% of the cluster's GPUs)")
    ax.set_ylabel("GPUs allocated (% of the cluster's GPUs)")
    title = scenario_name(args.dir, found)
    ax.set_title(f"{title}: GPU allocation as pods arrive")
    ax.set_xlim(0, max(top, 1))
    ax.set_ylim(0, 105)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    png = args.out or os.path.join(args.dir, "packing.png")
    fig.tight_layout()
    fig.savefig(png, dpi=150)
    fig.savefig(os.path.splitext(png)[0] + ".pdf", metadata={"Title": title, "CreationDate": None})
    print(f"wrote {png} and {os.path.splitext(png)[0]}.pdf")


if __name__ == "__main__":
    main()
