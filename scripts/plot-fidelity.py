#!/usr/bin/python3
"""Plot how far emulations were from their simulations, against the speedup they ran at.

  scripts/plot-fidelity.py RESULTS_DIR... [-o fidelity.png]
      each RESULTS_DIR is an emulation's results folder (fidelity.json, emulation.json);
      draws the mean JCT error, the per-job p95 error and the makespan error per speedup.
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("-o", "--output", default="fidelity.png")
    args = ap.parse_args()
    rows = []
    for folder in args.folders:
        with open(os.path.join(folder, "fidelity.json")) as f:
            fid = json.load(f)
        with open(os.path.join(folder, "emulation.json")) as f:
            emu = json.load(f)
        rows.append((emu["speedup"], fid))
    rows.sort(key=lambda r: r[0])
    x = [r[0] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(x, [100 * r[1]["mean_jct_error"] for r in rows], "o-", label="mean JCT error")
    ax.plot(x, [100 * r[1]["job_jct_error_p95"] for r in rows], "s--", label="per-job |JCT error|, p95")
    ax.plot(x, [100 * r[1]["makespan_error"] for r in rows], "^:", label="makespan error")
    ax.axhline(0, color="grey", linewidth=0.5)
    ax.set_xscale("log")
    ax.set_xlabel("speedup (trace seconds per wall second)")
    ax.set_ylabel("emulated vs simulated (%)")
    ax.set_title("schedlab emulate: fidelity against the simulation")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
