#!/usr/bin/env python3
"""Converts one of Gavel's continuous-single-GPU simulations (stanford-futuredata/gavel, folder
scheduler/; Narayanan et al., OSDI'20, Figure 8) into a schedlab scenario, so that schedlab runs
the same jobs, arriving at the same instants, on the same cluster (docs/elastic.md, "Reproducing
Gavel"). Gavel's folder is read at run time; nothing of it is copied into the project.

  /usr/bin/python3 scripts/peer-gavel.py GAVEL_SCHEDULER_DIR OUTDIR [--rate JOBS_PER_H] [--seed N]
      [--jobs N] [--window FIRST LAST]
  /usr/bin/python3 scripts/peer-gavel.py --mean-jct RESULTS_DIR FIRST LAST

GAVEL_SCHEDULER_DIR is Gavel's scheduler/ folder (it holds utils.py, job_table.py and
simulation_throughputs.json). OUTDIR (created) gets:

  trace.csv      native trace: one single-GPU job per row, its `model` the Gavel job type, its
                 duration Gavel's run time on one V100 (the generator's num_steps / V100 steps/s)
  models.yaml    one training model per Gavel job type: batch 1, samples_per_s per GPU type = the
                 job type's measured steps/s in simulation_throughputs.json (so the perf model's
                 speed of a job on a type is Gavel's throughput ratio to its V100 throughput)
  scenario.yaml  cluster configs/clusters/gavel-36x3.yaml; variants gavel-max-min (Gavel's
                 max_min_fairness_perf), gavel-ftf (finish_time_fairness_perf), las and fifo
  peer.csv       Gavel's own mean JCT (hours) for this rate, per policy, as its notebook
                 notebooks/figures/evaluation/continuous_jobs.ipynb printed them (when present)

The jobs are Gavel's: its simulator draws them with `utils.generate_job` from a random.Random
seeded seed + 2 and Poisson arrivals from one seeded seed + 3, the first at 0, each next after
-ln(1 - U) x 3600 / rate seconds (scheduler.py: _initialize_seeds, simulate,
_sample_arrival_time_delta). This script calls Gavel's own generate_job with those generators.
Gavel's utils.py imports its policy modules (they need cvxpy) at its top; the generator never
uses them, so they are registered as empty modules before the import.

`--mean-jct` prints the mean JCT in hours of the jobs FIRST..LAST-1 (Gavel's jobs_to_complete
window, by trace id) of every variant under RESULTS_DIR (the output of `schedlab compare`).
"""
import argparse
import csv
import json
import math
import os
import random
import sys
import types

# Gavel's figure: the continuous-single trace on 36:36:36, seed 0, jobs 4000-4999 measured.
WORKER_TYPES = {"v100": "V100", "p100": "P100", "k80": "K80"}
DEFAULT_WINDOW = (4000, 5000)
VARIANTS = {  # schedlab variant -> the notebook's policy name
    "gavel-max-min": "max_min_fairness_perf",
    "gavel-ftf": "finish_time_fairness_perf",
    "las": "max_min_fairness",
    "fifo": "fifo",
}


def die(msg):
    """Bad input: one line on stderr, exit 2 (as schedlab answers bad input)."""
    print(f"peer-gavel: error: {msg}", file=sys.stderr)
    sys.exit(2)


def import_gavel(root):
    """Gavel's generate_job and JobTable, imported from its folder with its policy modules empty."""
    for f in ("utils.py", "job_table.py", "job.py", "simulation_throughputs.json"):
        if not os.path.isfile(os.path.join(root, f)):
            die(f"{root}: no {f} (give Gavel's scheduler/ folder)")
    sys.path.insert(0, root)
    sys.dont_write_bytecode = True  # nothing written into Gavel's folder
    policies = types.ModuleType("policies")
    for name in ("allox", "fifo", "finish_time_fairness", "gandiva", "isolated", "max_min_fairness",
                 "max_min_fairness_water_filling", "max_sum_throughput", "min_total_duration"):
        setattr(policies, name, types.ModuleType(name))
    sys.modules.setdefault("policies", policies)
    try:
        import utils  # noqa: E402  (Gavel's)
        from job_table import JobTable  # noqa: E402
    except ImportError as e:
        die(f"{root}: Gavel's utils.py does not import here ({e}); it needs psutil")
    return utils.generate_job, JobTable


def model_name(job_type):
    """A catalog name from Gavel's job type: 'ResNet-18 (batch size 16)' -> 'gavel-resnet-18-bs16'."""
    name = job_type.lower().replace(" (batch size ", "-bs").replace(")", "")
    return "gavel-" + "".join(c if c.isalnum() or c == "-" else "-" for c in name)


def read_throughputs(root):
    """{job type: {schedlab GPU: steps/s}} of single-GPU jobs (Gavel's key "('type', 1)", 'null')."""
    with open(os.path.join(root, "simulation_throughputs.json")) as f:
        raw = json.load(f)
    out = {}
    for gavel_type, gpu in WORKER_TYPES.items():
        if gavel_type not in raw:
            die(f"{root}/simulation_throughputs.json: no worker type '{gavel_type}'")
        for key, entry in raw[gavel_type].items():
            job_type, scale = key.strip("()").rsplit(", ", 1)
            if scale == "1":
                out.setdefault(job_type.strip("'"), {})[gpu] = entry["null"]
    return raw, out


def generate(root, rate, seed, jobs):
    """(arrival s, job type, run time s on one V100) for Gavel's first `jobs` jobs."""
    generate_job, _ = import_gavel(root)
    raw, _ = read_throughputs(root)
    # Gavel keys its throughputs by (job type, scale factor) tuples after reading the JSON
    # (scheduler.py's read_all_throughputs_json_v2); generate_job asserts the key is there.
    throughputs = {}
    for worker, table in raw.items():
        throughputs[worker] = {}
        for key, entry in table.items():
            job_type, scale = key.strip("()").rsplit(", ", 1)
            throughputs[worker][(job_type.strip("'"), int(scale))] = entry
    job_rng = random.Random()
    job_rng.seed(seed + 2)
    arrival_rng = random.Random()
    arrival_rng.seed(seed + 3)
    lam = 3600.0 / rate
    t = 0.0
    out = []
    for _ in range(jobs):
        job = generate_job(throughputs=throughputs, reference_worker_type="v100", rng=job_rng, job_id=None,
                           fixed_job_duration=None, generate_multi_gpu_jobs=False,
                           generate_multi_priority_jobs=False, SLO_rng=None)
        out.append((t, job.job_type, job.duration))
        t += -math.log(1.0 - arrival_rng.random()) * lam
    return out


def write_models(path, per_type):
    with open(path, "w") as f:
        f.write("# Gavel's job types as training models (written by scripts/peer-gavel.py): batch 1, so that\n"
                "# samples_per_s is Gavel's measured steps/s on each GPU type (simulation_throughputs.json,\n"
                "# single-GPU, no co-location). params are nominal: single-GPU jobs allreduce nothing.\n"
                "models:\n")
        for job_type in sorted(per_type):
            thr = per_type[job_type]
            f.write(f"  - name: {model_name(job_type)}\n"
                    f"    description: \"Gavel job type {job_type}\"\n"
                    f"    params: 1.0e6\n    batch: 1\n    dtype: fp32\n    grad_dtype: fp32\n"
                    f"    samples_per_s: {{{', '.join(f'{g}: {thr[g]!r}' for g in ('V100', 'P100', 'K80'))}}}\n")


def write_trace(path, jobs):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "submit_s", "duration_s", "tasks", "gpus_per_task", "model"])
        for i, (t, job_type, run_time) in enumerate(jobs):
            w.writerow([i, f"{t:.6f}", f"{run_time:.6f}", 1, 1, model_name(job_type)])


def write_scenario(path, root, rate, seed, jobs, window):
    cluster = os.path.relpath(os.path.join(root, "configs", "clusters", "gavel-36x3.yaml"), os.path.dirname(path))
    with open(path, "w") as f:
        f.write(f"""# Gavel's continuous-single-GPU simulation, {rate} jobs/h, seed {seed}, its first {jobs} jobs
# (written by scripts/peer-gavel.py; Gavel measures the mean JCT of jobs {window[0]}-{window[1] - 1}:
# `peer-gavel.py --mean-jct RESULTS {window[0]} {window[1]}`).
name: gavel-continuous-single
seed: 1
cluster: {cluster}
workload:
  trace: trace.csv
scheduler:
  queue: fifo
  placement: best-fit
  args:
    gavel-max-min-fairness: {{round_s: 360}}
    gavel-finish-time-fairness: {{round_s: 360}}
perf:
  model: placement
  models: models.yaml
  reference: traced
  reference_gpu: V100
variants:
  - {{name: gavel-max-min, set: {{scheduler.policy: gavel-max-min-fairness}}}}
  - {{name: gavel-ftf, set: {{scheduler.policy: gavel-finish-time-fairness}}}}
  - {{name: las, set: {{scheduler.queue: las, scheduler.preemption: priority}}}}
  - {{name: fifo, set: {{scheduler.queue: fifo}}}}
""")


def peer_figures(root, rate):
    """{policy: mean JCT h} the notebook printed for this rate (cell 10), or {} without it."""
    nb = os.path.join(root, "notebooks", "figures", "evaluation", "continuous_jobs.ipynb")
    if not os.path.isfile(nb):
        return {}
    with open(nb) as f:
        cells = json.load(f)["cells"]
    text = "".join("".join(o.get("text", "")) for o in cells[10].get("outputs", []))
    out, current = {}, None
    for line in text.splitlines():
        if line.startswith("Input job rate:"):
            current = abs(float(line.split(":")[1]) - rate) < 1e-9
        elif current and ": " in line and not line.startswith("/"):
            name, value = line.split(": ", 1)
            try:
                out.setdefault(name.strip(), float(value))
            except ValueError:
                pass
    return out


def mean_jct(results, first, last):
    for variant in sorted(os.listdir(results)):
        jobs = os.path.join(results, variant, "jobs.csv")
        if not os.path.isfile(jobs):
            continue
        total, n, missing, window_end, last_arrival = 0.0, 0, 0, 0.0, 0.0
        with open(jobs) as f:
            for row in csv.DictReader(f):
                last_arrival = max(last_arrival, float(row["submit_s"]))
                if first <= int(row["trace_id"]) < last:
                    if row["state"] == "finished":
                        total += float(row["jct_s"])
                        window_end = max(window_end, float(row["end_s"]))
                        n += 1
                    else:
                        missing += 1
        # Gavel keeps generating jobs until the window has finished: a window that outlasts the
        # trace's arrivals ran on an emptier cluster than Gavel's (generate more with --jobs).
        late = f"; the window ends at {window_end / 3600:.0f} h, after the last arrival ({last_arrival / 3600:.0f} h)"
        print(f"{variant}: {total / n / 3600:.2f} h over {n} jobs" + (f" ({missing} unfinished)" if missing else "") +
              (late if window_end > last_arrival else "") if n else f"{variant}: no finished job in the window")


def main(argv):
    if argv[1:2] == ["--mean-jct"]:
        if len(argv) != 5:
            die("usage: peer-gavel.py --mean-jct RESULTS_DIR FIRST LAST")
        mean_jct(argv[2], int(argv[3]), int(argv[4]))
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("gavel")
    p.add_argument("outdir")
    p.add_argument("--rate", type=float, default=2.0, help="jobs per hour (Gavel's -a/-b range; default 2.0)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--window", type=int, nargs=2, default=list(DEFAULT_WINDOW))
    p.add_argument("--jobs", type=int, default=0,
                   help="jobs to generate (default: the window's last x 1.8, so that arrivals go on until "
                        "the window has finished, as in Gavel, up to 6 jobs/h)")
    a = p.parse_args(argv[1:])
    if not a.rate > 0:
        die(f"--rate: {a.rate} must be above 0")
    if not 0 <= a.window[0] < a.window[1]:
        die(f"--window: {a.window[0]} {a.window[1]} must be FIRST < LAST")
    jobs = a.jobs or a.window[1] * 9 // 5
    root = os.path.abspath(a.gavel)
    project = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    generated = generate(root, a.rate, a.seed, jobs)
    _, per_type = read_throughputs(root)
    os.makedirs(a.outdir, exist_ok=True)
    write_models(os.path.join(a.outdir, "models.yaml"), per_type)
    write_trace(os.path.join(a.outdir, "trace.csv"), generated)
    write_scenario(os.path.join(a.outdir, "scenario.yaml"), project, a.rate, a.seed, jobs, a.window)
    peer = peer_figures(root, a.rate)
    with open(os.path.join(a.outdir, "peer.csv"), "w") as f:
        f.write("variant,gavel_policy,gavel_mean_jct_h\n")
        for variant, policy in VARIANTS.items():
            f.write(f"{variant},{policy},{peer.get(policy, '')}\n")
    print(f"{len(generated)} jobs, last arrival {generated[-1][0] / 3600:.1f} h; "
          f"{len(per_type)} job types; wrote {a.outdir}/")


if __name__ == "__main__":
    main(sys.argv)
