#!/usr/bin/env python3
"""Converts a workload of the Pollux artifact's simulator (petuum/adaptdl, branch osdi21-artifact,
folder simulator/; Qiao et al., OSDI'21) into a schedlab scenario, so that schedlab runs the same
jobs on the same cluster (docs/elastic.md, "Reproducing Pollux"). The artifact is read at run time
from the folder given; nothing of it is copied into the project.

  /usr/bin/python3 scripts/peer-pollux.py SIMDIR WORKLOAD.csv OUTDIR

SIMDIR is the artifact's simulator/ folder (it holds traces/<application>/); WORKLOAD.csv one of
its workloads (name,time,application,num_replicas,batch_size). OUTDIR (created) gets:

  rigid.csv      native trace: each job at its tuned GPU count, run time = the peer's run time of
                 that configuration (the Tiresias baseline's jobs)
  elastic.csv    native trace: each job's work as run time on one GPU at its tuned batch size,
                 GPU range [1, batch_size // smallest local batch] (the Optimus jobs)
  elastic-pollux.csv, models-pollux.yaml, profile-pollux.yaml, fit-pollux.csv
                 the Pollux jobs: work = statistical progress at the initial batch on one GPU,
                 range [1, min(64, largest batch // smallest local batch)]; per application a
                 model whose step time and statistical efficiency the goodput model can vary
  models.yaml    one training model per (application, batch), its scaling curve fitted to the
                 peer's speedups at that batch
  profile.yaml   the calibration profile that goes with it (a fitted allreduce alpha/beta per tier)
  scenario.yaml  cluster configs/clusters/pollux-16x4.yaml; variants tiresias, optimus and pollux
  fit.csv        per model and GPU count: the peer's speedup and the fitted model's

Semantics (read from the artifact's simulator.py and applications.py; /work/notes/pollux-semantics.md):
a job trains for `max_epochs` epochs; epoch e needs progress p(e+1) - p(e) (the smallest progress
logged at that epoch over the validation runs), made at goodput gain(e) / t_step, where
gain = (var + sqr) / (var / s + sqr), s = batch / initial batch, var and sqr the gradient
statistics logged at epoch e (interpolated linearly in the batch between logged batches), and
t_step the step time measured for the placement and per-GPU batch (placements.csv, linear in the
batch between measured ones; other placements interpolated over nodes, replicas and batch with
scalability.csv), accumulation steps adding step - sync each.
"""
import csv
import glob
import math
import os
import sys

import numpy as np
import pandas as pd
from scipy.interpolate import LinearNDInterpolator, interp1d
from scipy.optimize import least_squares, minimize_scalar

GPUS_PER_NODE = 4
NODES = 16
RESTART_S = 30  # the peer's rescale_time at every allocation
# Per application, as the artifact's APPLICATIONS table sets them (max epochs; yolov3's largest
# per-GPU batch). Everything else comes from its trace files.
APPS = {
    "bert": {"max_epochs": 2},
    "cifar10": {"max_epochs": 100},
    "ncf": {"max_epochs": 10},
    "imagenet": {"max_epochs": 90},
    "deepspeech2": {"max_epochs": 80},
    "yolov3": {"max_epochs": 50, "max_local_bsz": 8},
}


def die(msg):
    """Bad input: one line on stderr, exit 2 (as schedlab answers bad input)."""
    print(f"peer-pollux: error: {msg}", file=sys.stderr)
    sys.exit(2)


class NoStepTime(Exception):
    """A placement and batch outside the artifact's measurements."""


class App:
    """One application's measurements: validation runs per batch size, step times per placement."""

    def __init__(self, trace_dir, max_epochs, max_local_bsz=None):
        self.name = os.path.basename(trace_dir)
        self.validation = {}
        for path in glob.glob(os.path.join(trace_dir, "validation-*.csv")):
            self.validation[int(path.rsplit("-", 1)[1].split(".")[0])] = pd.read_csv(path)
        if not self.validation:
            die(f"{trace_dir}: no validation-*.csv")
        self.batches = sorted(self.validation)
        self.placements = pd.read_csv(os.path.join(trace_dir, "placements.csv"))
        self.placements["num_nodes"] = self.placements.placement.apply(lambda p: len(str(p)))
        self.placements["num_replicas"] = self.placements.placement.apply(lambda p: sum(map(int, str(p))))
        self.scalability = pd.read_csv(os.path.join(trace_dir, "scalability.csv"))
        self.init_batch = self.batches[0]
        self.max_batch = self.batches[-1]
        self.min_local = int(self.placements.local_bsz.min())
        self.max_local = max_local_bsz or int(self.placements.local_bsz.max())
        self.max_epochs = max_epochs
        xs, ys = ["num_nodes", "num_replicas", "local_bsz"], ["step_time", "sync_time"]
        grid = pd.concat([self.placements.groupby(xs)[xs + ys].mean(), self.scalability], ignore_index=True)
        self._nd = LinearNDInterpolator(grid[xs].values, grid[ys].values)
        self._memo = {}

    def progress(self, epoch):
        """Progress at the end of `epoch` epochs (0 at 0)."""
        if epoch == 0:
            return 0.0
        return min(df.progress[epoch - 1] for df in self.validation.values())

    def _bracket(self, batch):
        lo = max(b for b in self.batches if b <= batch)
        hi = min(b for b in self.batches if b >= batch)
        return lo, hi

    def grad_stats(self, batch, epoch):
        lo, hi = self._bracket(batch)
        a, b = self.validation[lo], self.validation[hi]
        if lo == hi:
            return a.grad_sqr[epoch], a.grad_var[epoch]
        w = (batch - lo) / (hi - lo)
        return ((1 - w) * a.grad_sqr[epoch] + w * b.grad_sqr[epoch],
                (1 - w) * a.grad_var[epoch] + w * b.grad_var[epoch])

    def step_time(self, placement, local_bsz):
        """(step, sync) seconds for a placement (GPUs per node) at a per-GPU batch."""
        placement = tuple(p for p in placement if p)
        placement = min(placement[i:] + placement[:i] for i in range(len(placement)))
        key = (placement, local_bsz)
        if key not in self._memo:
            pid = int("".join(map(str, placement)))
            df = self.placements[self.placements.placement == pid]
            if len(df):
                ret = interp1d(df.local_bsz.values, df[["step_time", "sync_time"]].values, axis=0)(local_bsz)
            else:
                ret = self._nd([min(len(placement), NODES), sum(placement), local_bsz])[0]
            if not np.all(np.isfinite(ret)):
                raise NoStepTime(f"{self.name}: no step time for placement {placement} at batch {local_bsz}")
            self._memo[key] = (float(ret[0]), float(ret[1]))
        return self._memo[key]

    def config(self, replicas, batch):
        """(atomic batch, accumulation steps, total batch) at a fixed total batch, as the peer sizes it."""
        local = math.ceil(batch / replicas - 1e-8)
        accum = math.ceil(local / self.max_local - 1e-8) - 1
        if replicas == 1 and batch > self.init_batch:
            accum = max(1, accum)
        atomic = math.ceil(local / (accum + 1) - 1e-8)
        atomic = min(atomic, int(self.max_batch / (replicas * (accum + 1))))
        return atomic, accum, replicas * atomic * (accum + 1)

    def run_time(self, replicas, batch):
        """Seconds to train to the end on `replicas` GPUs packed 4 to a node, at a fixed batch."""
        atomic, accum, total = self.config(replicas, batch)
        placement = packed(replicas)
        try:
            step, sync = self.step_time(placement, atomic)
        except NoStepTime as e:
            die(str(e))
        t_step = step + (step - sync) * accum
        scale = total / self.init_batch
        seconds = 0.0
        for e in range(self.max_epochs):
            sqr, var = self.grad_stats(total, e)
            gain = (var + sqr) / (var / scale + sqr)
            seconds += (self.progress(e + 1) - self.progress(e)) * t_step / gain
        return seconds


def packed(replicas):
    return tuple(min(GPUS_PER_NODE, replicas - i) for i in range(0, replicas, GPUS_PER_NODE))


def read_workload(path):
    try:
        jobs = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        die(f"{path}: {e}")
    need = {"name", "time", "application", "num_replicas", "batch_size"}
    if not need <= set(jobs.columns):
        die(f"{path}: columns {sorted(need - set(jobs.columns))} missing")
    for col in ("time", "num_replicas", "batch_size"):
        bad = jobs[pd.to_numeric(jobs[col], errors="coerce").isna() | (pd.to_numeric(jobs[col], errors="coerce") < 0)]
        if len(bad):
            die(f"{path}:{bad.index[0] + 2}: {col}: '{bad[col].iloc[0]}' is not a number >= 0")
    if ((jobs.num_replicas < 1) | (jobs.batch_size < 1)).any():
        row = jobs[(jobs.num_replicas < 1) | (jobs.batch_size < 1)].index[0]
        die(f"{path}:{row + 2}: num_replicas and batch_size must be at least 1")
    return jobs


# --- the scaling curve: schedlab's ring allreduce fitted to the peer's speedups ---------------
#
# schedlab's placement model with reference: one-gpu runs a job on n GPUs at
#   speed(n) = n t(1) / t(n),  t(n) = c + 2 (n-1) alpha_tier + 2 (n-1)/n S / beta_tier
# (compute c per iteration, one allreduce call of S bytes, tier pcie inside a host, nic across).
# The peer's job at a fixed total batch runs at t_step(1) / t_step(n). Per application c and S
# are free (the one-GPU figure sets the unit); the tiers' alpha and beta are shared by all
# applications, so they are fitted together: least squares on log speed over 1..its largest size,
# the error at n GPUs weighted 1/n, because Optimus grows a job one GPU at a time from 1 and stops
# at the first GPU that gains nothing, so the small sizes decide where it stops (the peer's jobs
# run on 1 to 4 GPUs most of the time; imagenet on about 18). The peer's curve can fall with size
# (cifar10 past 16 GPUs, yolov3 past 4), which a ring cannot: the fit errs most there.

BETA_NIC_GBPS = 5.0   # fixed: S absorbs the scale of beta (below the 6.25 GB/s host line)
ALPHA_NIC_US = 20.0   # fixed: c absorbs the scale of alpha
MAX_NOISE_SCALE = 1e12  # the largest noise scale configs/models.yaml accepts
REF_WEIGHT = 20.0  # the pollux fit's weight on the reference run's step time (one GPU at M0)
FIT_BATCHES = 12  # total batches per GPU count the pollux fit compares, geometric over the job's range


def ring_time(n, c, s_bytes, a_pcie_us, b_pcie_gbps):
    h = math.ceil(n / GPUS_PER_NODE)
    if n == 1:
        return c
    a, b = (ALPHA_NIC_US, BETA_NIC_GBPS) if h > 1 else (a_pcie_us, b_pcie_gbps)
    return c + 2 * (n - 1) * a * 1e-6 + 2 * (n - 1) / n * s_bytes / (b * 1e9)


def fit_curves(curves):
    """curves: {app: {n: peer speedup}} -> ({app: (c, S)}, (alpha_pcie_us, beta_pcie_gbps))."""
    apps = sorted(curves)

    def unpack(x):
        per = {a: (math.exp(x[2 * i]), math.exp(x[2 * i + 1])) for i, a in enumerate(apps)}
        return per, (math.exp(x[-2]), math.exp(x[-1]))

    def residuals(x):
        per, (ap, bp) = unpack(x)
        out = []
        for a in apps:
            c, s = per[a]
            for n, r in curves[a].items():
                out.append((math.log(n * c / ring_time(n, c, s, ap, bp)) - math.log(r)) / n)
        return out

    x0 = []
    for a in apps:
        x0 += [math.log(0.1), math.log(1e8)]
    x0 += [math.log(10.0), math.log(10.0)]
    # The pcie tier within what schedlab accepts and applies as given: alpha 0.01 to 1,000 us, beta
    # from the nic tier's (schedlab caps a cross-host beta by the intra-host one) to T4's PCIe
    # cap (catalog intra_gbps 32 / 2 per direction).
    # Per model: compute 1 ns to 1000 s an iteration (samples/s in the catalog's range at batch 1),
    # gradients of at least 4 bytes (one fp32 parameter, the catalog's least).
    lo = [math.log(1e-9), math.log(4.0)] * (len(x0) // 2 - 1) + [math.log(0.01), math.log(BETA_NIC_GBPS)]
    hi = [math.log(1e3), math.log(4e15)] * (len(x0) // 2 - 1) + [math.log(1000.0), math.log(16.0)]
    x0 = [min(max(v, l), h) for v, l, h in zip(x0, lo, hi)]
    res = least_squares(residuals, x0, bounds=(lo, hi))
    return unpack(res.x)


# --- the pollux variant: models whose batch the goodput model can vary --------------------
#
# schedlab's pollux runs each job at the batch of highest goodput and charges the goodput ratio
# (docs/elastic.md, "Charged goodput"), so its models need a step time as a function of the batch:
#   t(n, a) = a / rate x (1 + h (g - 1)) + ring(n, S) - overlap   (a samples per GPU, g of them
#   on the fullest host; ring as above)
# fitted per application (rate, S, h = its host_gpu_slowdown) with the tiers and the overlap shared
# (pcie alpha/beta; nic alpha, beta fixed) to the step times the artifact's simulator charges on
# packed placements over the job's batch range, accumulation steps included (least squares on
# log t). The peer's per-GPU compute grows with the GPUs of a node in use (imagenet at batch 200:
# 0.92 s alone, 1.01 s with 4 GPUs of the node), which h models. The reference run is one GPU at the initial batch M0 (efficiency 1), so a job's work
# is its statistical progress: the peer's progress p(E) in M0-steps x its measured step time at
# (1 GPU, M0). Statistical efficiency: M0, the largest logged batch, and per epoch (at its start,
# progress p(e) / p(E)) the noise scale that best fits the gains logged at every batch.


def packed_points(app, top):
    """(n, per-GPU batch, step time) on packed placements of the sizes 1..top, at total batches on
    a geometric grid over the job's range, as the artifact's simulator charges them: the per-GPU
    batch split into accumulation steps of at most its largest local batch, each further step
    costing the step's compute (step - sync), the placement's step time the measured one or its
    interpolation over nodes, replicas and batch where the placement was not measured."""
    sizes = [n for n in list(range(1, 17)) + [20, 24, 28, 32, 40, 48, 56, 64] if n <= top]
    out = []
    for n in sizes:
        lo = max(app.init_batch, n * app.min_local)
        if lo > app.max_batch:
            continue
        for batch in sorted(set(np.geomspace(lo, app.max_batch, FIT_BATCHES).round().astype(int))):
            local = math.ceil(batch / n - 1e-8)
            accum = math.ceil(local / app.max_local - 1e-8) - 1
            atomic = min(math.ceil(local / (accum + 1) - 1e-8), int(app.max_batch / (n * (accum + 1))))
            if atomic < app.min_local:
                continue
            try:
                step, sync = app.step_time(packed(n), atomic)
            except NoStepTime:  # outside what the artifact measured: not a point
                continue
            point = (n, float(atomic * (accum + 1)), step + (step - sync) * accum)
            if point not in out:  # batches that round to the same per-GPU batch: one point
                out.append(point)
    return out


def fit_physical(points, refs):
    """points: {app: [(n, a, t)]}, refs: {app: (M0, step time on one GPU at M0)} -> ({app: (rate, S, h)}, (alpha_pcie_us, beta_pcie_gbps, alpha_nic_us, overlap)),
    h: the model's host_gpu_slowdown (compute x (1 + h (g - 1)), g GPUs of the gang on a host),
    overlap: the share of compute that hides communication (schedlab's perf.overlap)."""
    apps = sorted(points)

    def unpack(x):
        per = {a: (math.exp(x[3 * i]), math.exp(x[3 * i + 1]), x[3 * i + 2]) for i, a in enumerate(apps)}
        return per, (math.exp(x[-4]), math.exp(x[-3]), math.exp(x[-2]), x[-1])

    def model_t(n, a, rate, s_bytes, h, ap, bp, an, overlap):
        compute = a / rate * (1 + h * (min(n, GPUS_PER_NODE) - 1))  # packed: the first host is the fullest
        if n == 1:
            return compute
        if math.ceil(n / GPUS_PER_NODE) > 1:
            comm = 2 * (n - 1) * an * 1e-6 + 2 * (n - 1) / n * s_bytes / (BETA_NIC_GBPS * 1e9)
        else:
            comm = 2 * (n - 1) * ap * 1e-6 + 2 * (n - 1) / n * s_bytes / (bp * 1e9)
        return compute + comm - min(comm, overlap * compute)

    def residuals(x):
        per, tiers = unpack(x)
        out = [math.log(model_t(n, a, *per[app], *tiers)) - math.log(t) for app in apps for n, a, t in points[app]]
        # The simulator's speeds are relative to the reference run (one GPU at M0), whose time is
        # the peer's exactly (the work): weighted so that the fit all but passes through it.
        for app in apps:
            m0, t_ref = refs[app]
            out.append(REF_WEIGHT * (math.log(model_t(1, m0, *per[app], *tiers)) - math.log(t_ref)))
        return out

    # host_gpu_slowdown within what models.yaml accepts, [0, 1], started inside the range: started
    # at its bound 0 the search stops in a poor minimum (bert at 0.54, its 4-GPU steps fitted 2x).
    x0 = [math.log(100.0), math.log(1e8), 0.05] * len(apps) + [math.log(10.0), math.log(10.0), math.log(ALPHA_NIC_US), 0.5]
    lo = [math.log(1e-3), math.log(4.0), 0.0] * len(apps) + [math.log(0.01), math.log(BETA_NIC_GBPS), math.log(0.01), 0.0]
    hi = [math.log(1e9), math.log(4e15), 1.0] * len(apps) + [math.log(1000.0), math.log(16.0), math.log(1e5), 1.0]
    res = least_squares(residuals, x0, bounds=(lo, hi))
    return unpack(res.x), model_t


def noise_curve(app):
    """[(progress fraction, phi)] at each epoch's start. The peer's gain at batch M uses the
    gradient statistics logged at M (between logged batches, linear), and they differ by batch;
    schedlab's efficiency has one noise scale per progress, so phi is fitted per epoch to the
    gains at every logged batch: least squares on log gain, gain = s (phi + M0) / (phi + M)."""
    total = app.progress(app.max_epochs)
    out = []
    for e in range(app.max_epochs):
        pts = []
        for m in app.batches:
            sqr, var = app.grad_stats(m, e)
            if not (sqr >= 0 and var >= 0):
                die(f"{app.name}: validation-{m}.csv epoch {e}: grad_sqr {sqr}, grad_var {var} give no noise scale")
            s = m / app.init_batch
            # grad_sqr 0 (logged late in deepspeech2): every batch fully efficient, gain = s.
            pts.append((m, s if sqr == 0 else (var + sqr) / (var / s + sqr)))

        def err(log_phi):
            phi = math.exp(log_phi)
            return sum((math.log(m / app.init_batch * (phi + app.init_batch) / (phi + m)) - math.log(g)) ** 2
                       for m, g in pts)

        best = minimize_scalar(err, bounds=(0.0, math.log(MAX_NOISE_SCALE)), method="bounded",
                               options={"xatol": 1e-10})
        out.append((app.progress(e) / total, min(math.exp(best.x), MAX_NOISE_SCALE)))
    return out


def pollux_name(app):
    return f"{app}-pollux"


def write_pollux_models(path, apps, per_app, per_model, tuned):
    """The physical models (one per application with a goodput model) and the tuned models of
    the applications without one (ncf: its batch is fixed, as in the artifact)."""
    with open(path, "w") as f:
        f.write("# Generated by scripts/peer-pollux.py from the Pollux artifact's traces (not committed):\n"
                "# the pollux variant's models: step time a / rate x host slowdown + ring fitted to the\n"
                "# step times the artifact charges"
                "; statistical efficiency from its validation logs.\nmodels:\n")
        for name in sorted(per_app):
            app = apps[name]
            # The slowdown to 4 decimals, left out where the fit leaves it at its bound 0.
            rate, s_bytes, slowdown = per_app[name]
            noise = ", ".join(f"[{x:.6g}, {phi:.6g}]" for x, phi in noise_curve(app))
            f.write(f"  - name: {pollux_name(name)}\n    params: {s_bytes / 4:.6g}\n    batch: {app.init_batch}\n"
                    f"    dtype: fp32\n    grad_dtype: fp32\n    samples_per_s: {{T4: {rate:.6g}}}\n"
                    + (f"    host_gpu_slowdown: {slowdown:.4f}\n" if slowdown >= 5e-5 else "")
                    + f"    statistical_efficiency:\n      init_batch: {app.init_batch}\n"
                    f"      max_batch: {app.max_batch}\n      noise_scale: [{noise}]\n"
                    f"      source: \"Pollux artifact traces/{name}/validation-*.csv: per epoch, phi fitted to "
                    f"the gains logged at every batch\"\n")
        for m in sorted(tuned):
            c, s_bytes = per_model.get(m, (1.0, 1e6))
            f.write(f"  - name: {m}\n    params: {s_bytes / 4:.6g}\n    batch: 1\n"
                    f"    dtype: fp32\n    grad_dtype: fp32\n    samples_per_s: {{T4: {1 / c:.6g}}}\n")


def write_pollux_profile(path, ap, bp, an, _overlap):
    with open(path, "w") as f:
        f.write("# Generated by scripts/peer-pollux.py: the pollux variant's allreduce alpha/beta, fitted with\n"
                "# each application's compute rate and gradient size to the Pollux artifact's step times.\n"
                "provenance:\n  source: measured\n  command: \"scripts/peer-pollux.py\"\n"
                f"tiers:\n  pcie: {{alpha_us: {ap:.6g}, beta_gbps: {bp:.6g}}}\n"
                f"  nic: {{alpha_us: {an:.6g}, beta_gbps: {BETA_NIC_GBPS}}}\ncompute: {{}}\n")


def model_name(app, batch):
    return f"{app}-b{batch}"


def write_models(path, per_model, curves):
    """One catalog entry per (application, batch): compute c as batch 1 at 1/c samples/s on T4,
    gradients of S bytes (fp32), so that schedlab's ring gives the fitted curve."""
    with open(path, "w") as f:
        f.write("# Generated by scripts/peer-pollux.py from the Pollux artifact's traces (not committed):\n"
                "# each model's scaling curve fitted to the artifact's measured step times at its batch.\n"
                "models:\n")
        for name in sorted(curves):
            c, s_bytes = per_model.get(name, (1.0, 1e6))
            f.write(f"  - name: {name}\n    params: {s_bytes / 4:.6g}\n    batch: 1\n"
                    f"    dtype: fp32\n    grad_dtype: fp32\n    samples_per_s: {{T4: {1 / c:.6g}}}\n")


def write_profile(path, a_pcie, b_pcie):
    with open(path, "w") as f:
        f.write("# Generated by scripts/peer-pollux.py: allreduce alpha/beta fitted to the Pollux artifact's\n"
                "# step times (with each model's compute and gradient size), not a network measurement.\n"
                "provenance:\n  source: measured\n  command: \"scripts/peer-pollux.py\"\n"
                f"tiers:\n  pcie: {{alpha_us: {a_pcie:.6g}, beta_gbps: {b_pcie:.6g}}}\n"
                f"  nic: {{alpha_us: {ALPHA_NIC_US}, beta_gbps: {BETA_NIC_GBPS}}}\ncompute: {{}}\n")


def write_scenario(path, root, tags, workload, overlap):
    mix = "\n".join(f"        \"{t}\": {{{name}: 1}}" if t < len(tags) else f"        \"{t}+\": {{{name}: 1}}"
                    for name, t in sorted(tags.items(), key=lambda kv: kv[1]))
    cluster = os.path.join(root, "configs", "clusters", "pollux-16x4.yaml")
    # The elastic variants' shared keys: the elastic trace, its restart cost and the perf model
    # over the fitted curves (one-GPU work, no contention: the peer has no interference).
    elastic = f"""      workload.trace: elastic.csv
      elastic.restart_s: {RESTART_S}
      perf.model: placement
      perf.reference: one-gpu
      perf.reference_gpu: T4
      perf.models: models.yaml
      perf.profile: profile.yaml
      perf.algorithm: ring
      perf.fusion_mb: 0
      perf.contention: false
      perf.model_mix:
{mix}"""
    with open(path, "w") as f:
        f.write(f"""# Generated by scripts/peer-pollux.py from {workload}
# (docs/elastic.md, "Reproducing Pollux"). schedlab compare THIS_FILE
name: pollux-{os.path.splitext(os.path.basename(workload))[0]}
seed: 1
cluster: {cluster}
workload:
  trace: rigid.csv
perf: {{model: trace}}
scheduler:
  queue: fifo
  admission: gang
  # A job's GPUs on the fewest hosts, as the peer's placement (node with the most free GPUs
  # first) gives each job it places; with perf.model trace (tiresias) it changes nothing.
  placement: best-fit
  preemption: none
  backfill: none
variants:
  # The peer's Tiresias: two queues, the limit at 16 GPU-hours, each queue a list in arrival
  # order (a waiting job keeps its place ahead of younger running ones) walked at every
  # decision with every GPU counted (fits: runs; else waits or is preempted).
  - name: tiresias
    set: {{scheduler.queue: las, scheduler.preemption: reorder,
          scheduler.args.las.thresholds: [57600], scheduler.args.las.service: gpu-time,
          scheduler.args.las.order: arrival, scheduler.args.reorder.pass: redecide}}
  # The peer's Optimus+Oracle: elastic jobs (one-GPU work, range 1..batch / smallest local
  # batch) sized by marginal gain on the fitted scaling curves; a resize costs 30 s.
  - name: optimus
    set:
      scheduler.policy: optimus
{elastic}
  # schedlab's pollux: sizes by the power mean (p = -1) of goodput speedups with the restart
  # discount (30 s), each job at its batch of highest goodput, its progress charged at that
  # goodput; as the artifact, a job grows to at most twice the largest count it has run at, and
  # the plan is also redone every 60 s. Its own jobs and models: each job's work is its statistical progress (one GPU at
  # the initial batch), the models' step time and efficiency fitted to the artifact's traces.
  - name: pollux
    set:
      scheduler.policy: pollux
      scheduler.args.pollux.p: -1
      scheduler.args.pollux.restart_penalty_s: {RESTART_S}
      scheduler.args.pollux.growth: 2
      scheduler.args.pollux.interval_s: 60
      workload.trace: elastic-pollux.csv
      elastic.restart_s: {RESTART_S}
      perf.model: placement
      perf.reference: one-gpu
      perf.reference_gpu: T4
      perf.models: models-pollux.yaml
      perf.profile: profile-pollux.yaml
      perf.algorithm: ring
      perf.fusion_mb: 0
      perf.overlap: {overlap:.6g}
      perf.contention: false
""")


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    simdir, workload, outdir = argv[1:]
    if not os.path.isdir(os.path.join(simdir, "traces")):
        die(f"{simdir}: not the artifact's simulator/ folder (no traces/)")
    jobs = read_workload(workload)
    apps = {}
    for name in sorted(set(jobs.application)):
        if name not in APPS:
            die(f"{workload}: unknown application '{name}'; known: {', '.join(sorted(APPS))}")
        apps[name] = App(os.path.join(simdir, "traces", name), **APPS[name])
    os.makedirs(outdir, exist_ok=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    # The peer's speedup of each (application, batch) at each size up to Optimus' largest.
    curves, tops = {}, {}
    for (name, batch), _ in jobs.groupby(["application", "batch_size"]):
        app = apps[name]
        top = 1 if name == "ncf" else min(batch // app.min_local, NODES * GPUS_PER_NODE)
        t1 = app.run_time(1, batch)
        m = model_name(name, batch)
        tops[m] = top
        curves[m] = {n: t1 / app.run_time(n, batch) for n in range(1, top + 1)}
    per_model, (a_pcie, b_pcie) = fit_curves({m: c for m, c in curves.items() if len(c) > 1})
    # The traced size tags the model for perf.model_mix (one GPU-count class per model, native
    # traces carry no model column): 1 for the models Optimus never grows (ncf), then by name.
    order = sorted(curves, key=lambda m: (tops[m] > 1, m))
    tags = {m: i + 1 for i, m in enumerate(order)}
    for m in order:
        if tags[m] > tops[m] and tops[m] > 1:
            die(f"model {m}: its tag {tags[m]} is above its largest size {tops[m]}")

    with open(os.path.join(outdir, "fit.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "gpus", "peer_speedup", "fitted_speedup"])
        for m, c in sorted(curves.items()):
            for n, r in sorted(c.items()):
                fitted = 1.0
                if m in per_model:
                    cc, sb = per_model[m]
                    fitted = n * cc / ring_time(n, cc, sb, a_pcie, b_pcie)
                w.writerow([m, n, f"{r:.4f}", f"{fitted:.4f}"])

    # The pollux variant's models: the applications with a goodput model (all but ncf, whose
    # batch the artifact fixes) fitted on packed placements up to their largest size.
    stat_apps = sorted(a for a in apps if a != "ncf")
    pollux_top = {a: min(NODES * GPUS_PER_NODE, apps[a].max_batch // apps[a].min_local) for a in stat_apps}
    per_app, tiers = {}, (10.0, 10.0, ALPHA_NIC_US, 0.0)
    if stat_apps:
        refs = {a: (apps[a].init_batch, apps[a].step_time(packed(1), apps[a].init_batch)[0]) for a in stat_apps}
        (per_app, tiers), model_t = fit_physical({a: packed_points(apps[a], pollux_top[a]) for a in stat_apps}, refs)
        with open(os.path.join(outdir, "fit-pollux.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["application", "gpus", "local_bsz", "peer_step_s", "fitted_step_s"])
            for a in stat_apps:
                for n, lb, t in packed_points(apps[a], pollux_top[a]):
                    w.writerow([a, n, int(lb), f"{t:.5f}", f"{model_t(n, lb, *per_app[a], *tiers):.5f}"])

    rigid, elastic, elastic_pollux = [], [], []
    for i, job in enumerate(jobs.sort_values("time", kind="stable").itertuples()):
        app = apps[job.application]
        m = model_name(job.application, job.batch_size)
        run = app.run_time(int(job.num_replicas), int(job.batch_size))
        # The peer charges 30 s at every allocation, the first included: the first is in the run
        # time, later ones are the restore after a preemption.
        rigid.append([i, int(job.time), round(run) + RESTART_S, int(job.num_replicas), 1, "", "", RESTART_S, job.name])
        work = app.run_time(1, int(job.batch_size))
        tag = tags[m]
        elastic.append([i, int(job.time), round(work) + RESTART_S, tag, 1, 1, max(tops[m], tag), RESTART_S, job.name])
        if job.application in per_app:
            # Statistical progress: one GPU at the initial batch (no accumulation: M0 fits a GPU).
            work_p = app.run_time(1, app.init_batch)
            elastic_pollux.append([i, int(job.time), round(work_p) + RESTART_S, 1, 1, 1,
                                   pollux_top[job.application], RESTART_S, job.name, pollux_name(job.application)])
        else:
            elastic_pollux.append([i, int(job.time), round(work) + RESTART_S, 1, 1, 1, 1, RESTART_S, job.name, m])
    header = ["id", "submit_s", "duration_s", "tasks", "gpus_per_task", "min_gpus", "max_gpus", "ckpt_restore_s", "user"]
    for fname, rows, cols in (("rigid.csv", rigid, header), ("elastic.csv", elastic, header),
                              ("elastic-pollux.csv", elastic_pollux, header + ["model"])):
        with open(os.path.join(outdir, fname), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            w.writerows(rows)
    write_pollux_models(os.path.join(outdir, "models-pollux.yaml"), apps, per_app, per_model,
                        sorted({model_name(j.application, j.batch_size) for j in jobs.itertuples()
                                if j.application not in per_app}))
    write_pollux_profile(os.path.join(outdir, "profile-pollux.yaml"), *tiers)
    write_models(os.path.join(outdir, "models.yaml"), per_model, curves)
    write_profile(os.path.join(outdir, "profile.yaml"), a_pcie, b_pcie)
    write_scenario(os.path.join(outdir, "scenario.yaml"), root, tags, workload, tiers[3])
    print(f"{len(jobs)} jobs, {len(apps)} applications, {len(curves)} models -> {outdir}")


if __name__ == "__main__":
    main(sys.argv)
