#!/usr/bin/env bash
# Emulator scale benchmark: 64 local agents x 8 virtual GPUs (configs/clusters/emu-64x8.yaml),
# 2,000 jobs, speedup 100 (about five minutes of wall time). Prints the emulation's figures
# (targets: clock lag p99 < 50 ms, mean JCT error against the simulation < 5%) and the peak RSS
# of the controller, of one agent and of one worker (sampled every second).
#   scripts/bench-emulate.sh [BUILD_DIR]     (JOBS=2000 SPEEDUP=100 to change them)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$(realpath "$build/schedlab")
[ -x "$bin" ] || { echo "bench-emulate: build first (scripts/setup.sh)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=${JOBS:-2000}
cat > "$work/bench.yaml" <<YAML
name: bench-emulate
seed: 5
cluster: $PWD/configs/clusters/emu-64x8.yaml
workload:
  generate: {jobs: $jobs, arrival_rate_per_hour: 300, duration_median_s: 900, duration_sigma: 0.8,
             duration_min_s: 120, duration_max_s: 7200, gpu_sizes: [1, 2, 4, 8, 16],
             gpu_size_weights: [0.4, 0.2, 0.2, 0.15, 0.05], gpus_per_host: 8, users: 16}
scheduler: {queue: fifo, admission: gang, filters: [gpu-model], placement: best-fit, backfill: none}
checkpoint: {interval_s: 1800, save_s: 30, restore_s: 15}
metrics: {timeline_interval_s: 600}
YAML
# Peak RSS (KiB) per kind of process, sampled every second by one process (no forks).
sample() {
  exec python3 - "$bin" "$work/peaks" <<'PY'
import os, sys, time
binary, out = sys.argv[1], sys.argv[2]
peak = {"agent": 0, "worker": 0}
while True:
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            if len(cmd) < 2 or cmd[0].decode() != binary or cmd[1].decode() not in peak:
                continue
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmHWM:"):
                    peak[cmd[1].decode()] = max(peak[cmd[1].decode()], int(line.split()[1]))
        except (OSError, UnicodeDecodeError):
            continue
    with open(out, "w") as f:
        f.write(f"{peak['agent']} {peak['worker']}\n")
    time.sleep(1)
PY
}
sample &
sampler=$!
/usr/bin/time -f "%e %M" -o "$work/time" "$bin" emulate "$work/bench.yaml" --speedup "${SPEEDUP:-100}" \
  --out "$work/out" >"$work/stdout" 2>"$work/stderr" || { tail -5 "$work/stderr"; kill "$sampler"; exit 1; }
kill "$sampler" 2>/dev/null || true
read -r wall controller <"$work/time"
read -r agent worker <"$work/peaks"
sed -n '/^fidelity/,/^results/p' "$work/stdout" | grep -v '^results'
python3 - "$work/out/fidelity.json" "$wall" "$controller" "$agent" "$worker" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
wall, controller, agent, worker = sys.argv[2], *(int(x) / 1024 for x in sys.argv[3:])
print(f"bench-emulate: {wall} s wall; clock lag p99 {f['clock_lag_ms']['p99']:.1f} ms (target < 50); "
      f"mean JCT error {f['mean_jct_error'] * 100:+.2f}% (target within 5%); "
      f"scheduling latency p50 {f['scheduling_latency_ms']['p50']:.0f} ms, p99 {f['scheduling_latency_ms']['p99']:.0f} ms")
print(f"peak RSS: controller {controller:.0f} MiB, agent {agent:.0f} MiB, worker {worker:.0f} MiB")
PY
