#!/usr/bin/env bash
# The GPU check in one command (docs/calibration.md, "The GPU check"): on a machine with NVIDIA
# GPUs, with a schedlab binary built elsewhere, it
#   1. inventory  prints the driver, the GPUs, and the CUDA, cuBLAS and NCCL libraries it finds;
#   2. calibrate  measures GEMM TFLOP/s per dtype, copies and NCCL allreduce (schedlab calibrate);
#   3. worker     runs `schedlab worker --gpu` at a few GEMM sizes against the calibrated rate;
#   4. emulate    emulates a small scenario on the real GPUs (`schedlab emulate --gpus`) and keeps
#                 its fidelity report;
#   5. summary    writes summary.md: one row per step and the figures that matter.
# Each step has its own timeout (the whole check stays within 8 minutes), so one that fails or
# hangs leaves the others' results. Everything lands in OUT_DIR.
#
#   scripts/gpu-check.sh [--dry-run] [OUT_DIR]      (default OUT_DIR: results/gpu-check)
#
# SCHEDLAB=path/to/schedlab (default: build/schedlab, else schedlab on PATH).
# --dry-run: no GPU is looked for; each step runs against a simulated device (calibrate imports a
# fixture nccl-tests log, the worker and the emulation run `--gpu` on a pretend GPU of the
# calibrated rate), so that the flow, the timeouts and the layout are tested without a GPU.
# Exit: 0 every step passed; 3 no GPU (one line per step says so); 4 a step failed or timed out
# (summary.md says which); 2 bad arguments.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dry=0
out=""
for a in "$@"; do
  case "$a" in
    --dry-run) dry=1 ;;
    -h|--help) sed -n 2,21p "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-check: unknown option '$a' (see --help)" >&2; exit 2 ;;
    *) [[ -n "$out" ]] && { echo "gpu-check: one OUT_DIR only, got '$out' and '$a'" >&2; exit 2; }; out=$a ;;
  esac
done
out=${out:-results/gpu-check}
if [[ -z "${SCHEDLAB:-}" ]]; then
  if [[ -x "$here/build/schedlab" ]]; then SCHEDLAB=$here/build/schedlab; else SCHEDLAB=$(command -v schedlab || true); fi
fi
[[ -n "$SCHEDLAB" && -x "$SCHEDLAB" ]] || { echo "gpu-check: no schedlab binary (build it, or set SCHEDLAB=path)" >&2; exit 2; }
SCHEDLAB=$(cd "$(dirname "$SCHEDLAB")" && pwd)/$(basename "$SCHEDLAB")
if [[ -e "$out" && -n "$(ls -A "$out" 2>/dev/null)" && ! -f "$out/summary.md" ]]; then
  echo "gpu-check: $out: exists and is not an earlier check's folder (no summary.md); choose another OUT_DIR" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out/work" || exit 2
out=$(cd "$out" && pwd)

# Step timeouts, seconds (GPU_CHECK_T_*, for tests): 30 + 150 + 90 + 180 = 450 s, within 8 minutes.
T_INVENTORY=${GPU_CHECK_T_INVENTORY:-30}
T_CALIBRATE=${GPU_CHECK_T_CALIBRATE:-150}
T_WORKER=${GPU_CHECK_T_WORKER:-90}
T_EMULATE=${GPU_CHECK_T_EMULATE:-180}
SIM_TFLOPS=${GPU_CHECK_SIM_TFLOPS:-1000}  # the dry run's pretend GPU
# The emulation's speedup: 30 on GPUs (about 95 s on one H200); the dry run's pretend GPU keeps up
# with 300 (about 8 s), short enough for CI.
SPEEDUP=${GPU_CHECK_SPEEDUP:-$([[ $dry == 1 ]] && echo 300 || echo 30)}

# NCCL and cuBLAS from the pip wheels beside the Python that has them (nvidia-nccl-cu13,
# nvidia-cublas) come first, through LD_LIBRARY_PATH, so that calibrate, the worker and the
# emulation's workers (agents pass the environment on) load the libraries of the CUDA the wheels
# were made for rather than whatever the loader's cache holds: a machine's /lib may carry an
# older or stub libnccl.so.2 (one lent H200's did, and calling it crashed).
if [[ $dry == 0 ]] && command -v python3 >/dev/null; then
  wheel_dirs=$(python3 -c 'import site,sys,glob
dirs=[]
for s in site.getsitepackages()+[site.getusersitepackages()]+sys.path:
    for sub in ("nvidia/nccl/lib","nvidia/cu13/lib","nvidia/cublas/lib","nvidia/cu12/lib"):
        for d in glob.glob(s+"/"+sub):
            if d not in dirs: dirs.append(d)
print(":".join(dirs))' 2>/dev/null)
  [[ -n "$wheel_dirs" ]] && export LD_LIBRARY_PATH=$wheel_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

declare -A status wall
steps=(inventory calibrate worker emulate)
failed=0
nogpu=0

# run_step NAME TIMEOUT FUNCTION: runs it under `timeout`, logs to NAME.log, records its status.
run_step() {
  local name=$1 limit=$2 fn=$3 t0 rc
  t0=$(date +%s.%N)
  timeout --kill-after=10 "$limit" bash -c "$(declare -f "$fn" bf16_tflops); $(declare -p SCHEDLAB out dry here SIM_TFLOPS SPEEDUP); $fn" \
    >"$out/$name.log" 2>&1
  rc=$?
  wall[$name]=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  case $rc in
    0) status[$name]=passed ;;
    3) status[$name]="no GPU"; nogpu=$((nogpu + 1)) ;;
    124|137) status[$name]="timed out after ${limit} s"; failed=1 ;;
    *) status[$name]="failed (exit $rc)"; failed=1 ;;
  esac
  # What a step started and left behind (an emulation's agents outlive a controller ended by the
  # timeout, by design: `emulate --resume` adopts them) names OUT_DIR/work on its command line.
  if [[ $rc != 0 ]] && pgrep -f "$out/work/" >/dev/null; then
    pkill -TERM -f "$out/work/"; sleep 2; pkill -KILL -f "$out/work/"
  fi
  local last
  last=$(grep -v '^$' "$out/$name.log" | tail -n 1)
  echo "gpu-check: $name: ${status[$name]} (${wall[$name]} s)${last:+: $last}"
}

# ---- steps (each runs in its own bash; exit 3 = no GPU) ---------------------------------------

step_inventory() {
  if [[ $dry == 1 ]]; then
    echo "dry run: a simulated device of ${SIM_TFLOPS} TFLOP/s; no GPU looked for"
    echo "schedlab: $SCHEDLAB"
    exit 0
  fi
  echo "schedlab: $SCHEDLAB"
  if ! command -v nvidia-smi >/dev/null; then echo "no GPU: nvidia-smi not found (no NVIDIA driver)"; exit 3; fi
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,clocks.max.sm --format=csv || { echo "no GPU: nvidia-smi found none"; exit 3; }
  [[ $(nvidia-smi -L 2>/dev/null | grep -c '^GPU') -gt 0 ]] || { echo "no GPU: nvidia-smi lists none"; exit 3; }
  nvidia-smi topo -m 2>/dev/null || true
  echo "libcuda: $(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')"
  # Where calibrate finds cuBLAS and NCCL: LD_LIBRARY_PATH, then Python's site-packages (pip wheels).
  local sites
  sites=$(python3 -c 'import site,sys; print("\n".join(site.getsitepackages()+[site.getusersitepackages()]+sys.path))' 2>/dev/null)
  for lib in libcublas.so libcublasLt.so libnccl.so.2; do
    local found=""
    for d in ${LD_LIBRARY_PATH//:/ } $(for s in $sites; do echo "$s"/nvidia/*/lib; done); do
      for f in "$d"/$lib*; do [[ -e "$f" ]] && { found=$f; break 2; }; done
    done
    echo "$lib: ${found:-not found on LD_LIBRARY_PATH or in pip wheels}"
  done
  echo "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-}"
  echo "every libnccl.so.2 the loader's cache knows: $(ldconfig -p 2>/dev/null | awk '/libnccl\.so/{printf "%s ", $NF}')"
  for f in $(ldconfig -p 2>/dev/null | awk '/libnccl\.so/{print $NF}'); do ls -laL "$f"; done
  python3 -c 'import importlib.metadata as m
for p in ("nvidia-nccl-cu13","nvidia-nccl-cu12","nvidia-cublas","nvidia-cublas-cu12"):
    try: print(p, m.version(p))
    except Exception: pass' 2>/dev/null || true
}

step_calibrate() {
  if [[ $dry == 1 ]]; then
    "$SCHEDLAB" calibrate --from-nccl-tests "$here/tests/fuzz/seeds/nccl_tests_log/new_format_mpi_prefix.log" \
      --tier nvlink --gpu "simulated device" --out "$out/profile.yaml"
    exit $?
  fi
  "$SCHEDLAB" calibrate --out "$out/profile.yaml" --max-bytes 256M --iters 20 --warmup 5
}

# The calibrated bf16 TFLOP/s of the GPU (the profile's compute section; the dry run's pretend rate).
bf16_tflops() {
  if [[ $dry == 1 ]]; then echo "$SIM_TFLOPS"; return; fi
  awk '/^compute:/{c=1; next} c && /bf16:/{match($0, /bf16: *[0-9.e+]+/); v=substr($0, RSTART, RLENGTH); sub(/bf16: */, "", v); print v; exit}' "$out/profile.yaml" 2>/dev/null
}

step_worker() {
  [[ $dry == 1 ]] && export SCHEDLAB_SIMULATED_GPU_TFLOPS=$SIM_TFLOPS
  local rate
  rate=$(bf16_tflops)
  [[ -n "$rate" ]] || { echo "no calibrated bf16 rate in $out/profile.yaml (did calibrate pass?)"; exit 4; }
  echo "gemm_flops,allreduce_bytes,steps,first_ms,median_ms,model_ms,median_over_model" >"$out/worker.csv"
  local rc=0
  for case in 1e12:0 1e13:0 4e13:0 1e13:268435456; do
    local f=${case%%:*} b=${case##*:}
    # 30 steps of 1 work unit each; the GPU paces them (--speed and --speedup do not).
    local line
    line=$(cd "$out/work" && RANK=0 WORLD_SIZE=1 "$SCHEDLAB" worker --gpu --gemm-flops "$f" --allreduce-bytes "$b" \
             --work-us 30 --step-us 1 --speed 1 --speedup 1 2>&1)
    local code=$?
    echo "gemm $f flops, allreduce $b bytes: exit $code: $line"
    [[ $code == 3 ]] && exit 3
    [[ $code != 0 ]] && { rc=4; continue; }
    python3 - "$f" "$b" "$rate" "$line" >>"$out/worker.csv" <<'PY'
import re, sys
f, b, rate, line = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
m = re.search(r"gpu steps: (\d+); first ([\d.]+) ms; then median ([\d.]+) ms", line)
ran = re.search(r"GEMM ([\d.e+]+) flops per step", line)
f = float(ran.group(1)) if ran else f  # the size as run (rounded to a multiple of 64)
model = f / (rate * 1e12) * 1e3
print(f"{f:g},{b},{m.group(1)},{m.group(2)},{m.group(3)},{model:.3f},{float(m.group(3)) / model:.3f}")
PY
  done
  cat "$out/worker.csv"
  exit $rc
}

step_emulate() {
  [[ $dry == 1 ]] && export SCHEDLAB_SIMULATED_GPU_TFLOPS=$SIM_TFLOPS
  local gpus model list
  if [[ $dry == 1 ]]; then
    gpus=1; model=H100
  else
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    [[ $gpus -gt 0 ]] || { echo "no GPU: nvidia-smi lists none"; exit 3; }
    # The catalog's name for the GPU (configs/gpus.yaml): H100, H200, A100, ...
    model=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | grep -oE '(GH|[HABLVT])[0-9]+' | head -n 1)
  fi
  list=$(seq -s, 0 $((gpus - 1)))
  local profile=()
  [[ -f "$out/profile.yaml" && $dry == 0 ]] && profile=(--gpu-profile "$out/profile.yaml")
  cat >"$out/work/cluster.yaml" <<EOF
# The GPU check's cluster: this machine, one host of $gpus $model GPU(s).
name: gpu-check-${gpus}x${model}
catalog: $here/configs/gpus.yaml
racks:
  - name: r
    count: 1
    hosts:
      - {count: 1, gpus: $gpus, model: $model, nic_gbps: 50}
EOF
  cat >"$out/work/scenario.yaml" <<EOF
# The GPU check's emulation: 10 one-GPU jobs of 2 to 6 trace minutes on this machine's GPUs,
# queued (they arrive faster than one GPU serves them), emulated at speedup $SPEEDUP.
name: gpu-check
seed: 7
cluster: cluster.yaml
workload:
  generate:
    jobs: 10
    arrival_rate_per_hour: 40
    duration_median_s: 200
    duration_sigma: 0.4
    duration_min_s: 120
    duration_max_s: 360
    gpu_sizes: [1]
    gpu_size_weights: [1]
    gpus_per_host: $gpus
    users: 2
scheduler:
  queue: fifo
  admission: gang
  placement: best-fit
  backfill: none
EOF
  "$SCHEDLAB" emulate "$out/work/scenario.yaml" --gpus "$list" "${profile[@]}" --speedup "$SPEEDUP" -o "$out/emulate" --force \
    --work-dir "$out/work/emulation"
  local rc=$?
  [[ -f "$out/emulate/fidelity.json" ]] || exit $((rc == 0 ? 4 : rc))
  cp "$out/emulate/fidelity.json" "$out/fidelity.json"
  [[ $rc == 0 ]] || exit $rc
  # An emulation whose tasks all crashed still ends; the check does not pass then.
  python3 -c 'import json,sys
e=json.load(open(sys.argv[1]))["emulated"]
print("emulated: %d jobs finished, %d failed" % (e["finished"], e["failed"]))
sys.exit(4 if e["failed"] or not e["finished"] else 0)' "$out/fidelity.json"
}

# ---- run ---------------------------------------------------------------------------------------

echo "gpu-check: $([[ $dry == 1 ]] && echo 'dry run, simulated device' || echo 'real GPUs'); results in $out"
run_step inventory "$T_INVENTORY" step_inventory
if [[ ${status[inventory]} == "no GPU" ]]; then
  # Nothing else can run: say so once per step, as calibrate does.
  for s in calibrate worker emulate; do status[$s]="no GPU"; wall[$s]=0; echo "gpu-check: $s: no GPU (skipped)"; done
else
  run_step calibrate "$T_CALIBRATE" step_calibrate
  run_step worker "$T_WORKER" step_worker
  run_step emulate "$T_EMULATE" step_emulate
fi

python3 - "$out" "$dry" <<PY >"$out/summary.md"
import json, os, sys, csv, re
out, dry = sys.argv[1], sys.argv[2] == "1"
status = {$(for s in "${steps[@]}"; do printf '"%s": ("%s", "%s"), ' "$s" "${status[$s]}" "${wall[$s]}"; done)}
print("# GPU check" + (" (dry run: simulated device)" if dry else ""))
print()
print("| step | status | wall s |")
print("|---|---|---|")
for s, (st, w) in status.items():
    print(f"| {s} | {st} | {w} |")
print()
prof = os.path.join(out, "profile.yaml")
if os.path.exists(prof):
    text = open(prof).read()
    m = re.search(r"^compute:\n((?:  .*\n)+)", text, re.M)
    if m:
        print("GEMM throughput (TFLOP/s, calibrate):")
        print()
        for line in m.group(1).splitlines():
            print("    " + line.strip())
        print()
wc = os.path.join(out, "worker.csv")
if os.path.exists(wc):
    rows = list(csv.DictReader(open(wc)))
    if rows:
        print("Worker --gpu step time against the calibrated model (GEMM flops / bf16 rate):")
        print()
        print("| GEMM flops | allreduce bytes | steps | first ms | median ms | model ms | median / model |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['gemm_flops']} | {r['allreduce_bytes']} | {r['steps']} | {r['first_ms']} | {r['median_ms']} | {r['model_ms']} | {r['median_over_model']} |")
        print()
fj = os.path.join(out, "fidelity.json")
if os.path.exists(fj):
    f = json.load(open(fj))
    keys = ["mean_jct_error", "job_jct_error_p50", "job_jct_error_p95", "makespan_error", "utilization_error"]
    print("Emulation on the GPUs against its simulated twin (fidelity.json):")
    print()
    for k in keys:
        if k in f:
            v = f[k]
            print(f"- {k}: {v:+.4f}" if isinstance(v, (int, float)) else f"- {k}: {v}")
    for k in ("scheduling_latency_ms", "clock_lag_ms"):
        if k in f:
            print(f"- {k}: {json.dumps(f[k])}")
PY
echo "gpu-check: summary in $out/summary.md"
[[ $failed == 1 ]] && exit 4
[[ $nogpu -gt 0 ]] && exit 3
exit 0
