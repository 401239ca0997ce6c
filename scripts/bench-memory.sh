#!/usr/bin/env bash
# Memory benchmark: what one run holds per job, per GPU and per waiting job, measured from the
# peak RSS of whole runs (results written), so that the README can say how big a trace and a
# cluster fit in a given memory. Three pairs of runs, each changing one thing:
#   jobs     the bench-replay trace (fifo + best-fit on dc-10240) at N/2, N and 2N jobs: bytes per
#            job from N/2 and N, and whether the peak grows linearly (2N's peak predicted from
#            N/2 and N against the one measured)
#   GPUs     2,000 jobs on 40 and 160 racks of 32 x 8 GPUs (10,240 and 40,960): bytes per GPU
#   waiting  N jobs arriving 20x faster than the cluster drains them against the loaded run: bytes
#            per job waiting at the peak (queue entries, keys and events in flight)
#   scripts/bench-memory.sh [BUILD_DIR]     (JOBS=1000000 to change N)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/schedlab
jobs=${JOBS:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bin" ] || { echo "bench-memory: build first (scripts/setup.sh)"; exit 1; }

cluster() {  # cluster NAME RACKS -> a dc-10240-like cluster file of RACKS racks
  cat >"$work/$1.yaml" <<YAML
name: $1
catalog: $PWD/configs/gpus.yaml
racks:
  - name: r
    count: $2
    oversubscription: 4
    hosts:
      - {count: 32, gpus: 8, model: H100, nic_gbps: 400}
YAML
}
cluster c40 40
cluster c160 160
# peak RSS in KiB of one run: run TRACE CLUSTER [--set ...]
peak() {
  local trace=$1 cl=$2
  shift 2
  cat >"$work/s.yaml" <<YAML
name: bench-memory
seed: 42
cluster: $work/$cl.yaml
workload: {trace: $trace}
scheduler: {queue: fifo, admission: gang, filters: [gpu-model], placement: best-fit, backfill: none}
metrics: {timeline_interval_s: 3600}
YAML
  rm -rf "$work/out"
  /usr/bin/time -f %M -o "$work/rss" taskset -c 0 "$bin" run "$work/s.yaml" "$@" --out "$work/out" >/dev/null 2>&1
  cat "$work/rss"
}
gen() {  # gen JOBS RATE FILE
  "$bin" trace generate --jobs "$1" --seed 42 --rate "$2" -o "$3" 2>/dev/null
}
# The most jobs waiting at one instant, from jobs.csv (submitted, not yet first started).
peak_waiting() {
  python3 - "$work/out/jobs.csv" <<'PY'
import csv, sys
ev = []
for r in csv.DictReader(open(sys.argv[1])):
    ev.append((float(r["submit_s"]), 1))
    if r["start_s"]: ev.append((float(r["start_s"]), -1))
ev.sort(key=lambda e: (e[0], e[1]))
n = best = 0
for _, d in ev:
    n += d; best = max(best, n)
print(best)
PY
}

gen $((jobs / 2)) 860 "$work/half.csv"
gen "$jobs" 860 "$work/n.csv"
gen $((2 * jobs)) 860 "$work/2n.csv"
gen 2000 860 "$work/small.csv"
gen "$jobs" 17200 "$work/over.csv"

rh=$(peak "$work/half.csv" c40)
r1=$(peak "$work/n.csv" c40); w1=$(peak_waiting)
r2=$(peak "$work/2n.csv" c40)
g1=$(peak "$work/small.csv" c40)
g2=$(peak "$work/small.csv" c160)
ro=$(peak "$work/over.csv" c40); wo=$(peak_waiting)
rl1=$(peak "$work/n.csv" c40 --set scheduler.queue=las --set scheduler.preemption=reorder)
rl2=$(peak "$work/2n.csv" c40 --set scheduler.queue=las --set scheduler.preemption=reorder)

python3 - "$jobs" "$rh" "$r1" "$r2" "$g1" "$g2" "$ro" "$w1" "$wo" "$rl1" "$rl2" <<'PY'
import sys
n, rh, r1, r2, g1, g2, ro, w1, wo, rl1, rl2 = (int(x) for x in sys.argv[1:])
kib = 1024
per_job = (r1 - rh) * kib / (n - n // 2)
per_gpu = (g2 - g1) * kib / (40960 - 10240)
per_wait = (ro - r1) * kib / max(1, wo - w1)
per_job_las = (rl2 - rl1) * kib / n
fixed = r1 * kib - per_job * n
predicted = fixed + 2 * n * per_job
print(f"jobs: {n//2:,} / {n:,} / {2*n:,} (fifo + best-fit, dc-10240): peak RSS {rh/kib:.0f} / {r1/kib:.0f} / "
      f"{r2/kib:.0f} MiB; {per_job:.0f} bytes per job, {fixed/2**20:.0f} MiB besides; {2*n:,} jobs predicted "
      f"{predicted/2**20:.0f} MiB, measured {r2/kib:.0f} (x{r2*kib/predicted:.3f}: linear when near 1)")
print(f"las + reorder: {rl1/kib:.0f} -> {rl2/kib:.0f} MiB, x{rl2/rl1:.2f}; {per_job_las:.0f} bytes per job")
print(f"GPUs: 10,240 -> 40,960 (2,000 jobs): {g1/kib:.0f} -> {g2/kib:.0f} MiB; {per_gpu:.0f} bytes per GPU")
print(f"waiting: peak {w1:,} -> {wo:,} jobs waiting (arrivals 20x faster): {r1/kib:.0f} -> {ro/kib:.0f} MiB; "
      f"{per_wait:.0f} bytes per waiting job")
budget = 24 * 2**30
print(f"24 GiB holds about {(budget - fixed) / (per_job + per_wait) / 1e6:.0f} M jobs if all wait at once, "
      f"{(budget - fixed) / per_job / 1e6:.0f} M on a cluster that keeps up "
      f"({(budget - fixed) / per_job_las / 1e6:.0f} M under las + reorder), and {budget / per_gpu / 1e6:.0f} M GPUs")
PY
