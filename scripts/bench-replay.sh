#!/usr/bin/env bash
# Replay benchmark: a 1,000,000-job synthetic trace on the 10,240-GPU cluster
# (configs/clusters/dc-10240.yaml: 40 racks x 32 hosts x 8 GPUs) under fifo+gang+best-fit
# and fifo+gang+rack-pack, and under las+reorder+best-fit (Tiresias' preemption). Prints wall
# time, events per second and peak RSS of each replay (targets: <= 10 s for fifo, <= 15 s for
# las+reorder, <= 1 GiB each, on one core). Parsing the trace is included.
#   scripts/bench-replay.sh [BUILD_DIR]        (JOBS=1000000 to change the size)
# Old against new: OLD=path/to/old/schedlab [OLD_TREE=its checkout, for its configs]
# [ROUNDS=5] [CORE=1] scripts/bench-replay.sh [BUILD_DIR] times both binaries alternately on
# one core and prints the median CPU and wall times and their ratio new/old (scripts/bench-ab.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/schedlab
jobs=${JOBS:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bin" ] || { echo "bench-replay: build first (scripts/setup.sh)"; exit 1; }

# ~860 jobs/h of mean 6.4 GPUs x 6,500 s asks for ~97% of the GPUs: queues form, so the
# blocked-head paths of the scheduler are exercised, not only the easy ones.
"$bin" trace generate --jobs "$jobs" --seed 42 --rate "${RATE:-860}" -o "$work/trace.csv" 2>/dev/null
echo "trace: $jobs jobs, $(du -h "$work/trace.csv" | cut -f1)"
cat > "$work/bench.yaml" <<YAML
name: bench-replay
seed: 42
cluster: $PWD/configs/clusters/dc-10240.yaml
workload: {trace: $work/trace.csv}
scheduler: {queue: fifo, admission: gang, filters: [gpu-model], placement: best-fit, backfill: none}
metrics: {timeline_interval_s: 3600}
YAML
# label | --set overrides. The las+reorder run preempts (Tiresias): target <= 15 s, <= 1 GiB.
runs=(
  "fifo/best-fit|--set scheduler.placement=best-fit"
  "fifo/rack-pack|--set scheduler.placement=rack-pack"
  "las+reorder/best-fit|--set scheduler.queue=las --set scheduler.preemption=reorder --set scheduler.placement=best-fit"
)
if [ -n "${OLD:-}" ]; then
  source scripts/bench-ab.sh
  sed "s|cluster: .*|cluster: $(cd "${OLD_TREE:-.}" && pwd)/configs/clusters/dc-10240.yaml|" "$work/bench.yaml" >"$work/old.yaml"
  for entry in "${runs[@]}"; do
    read -ra sets <<<"${entry#*|}"
    ab_time "${entry%%|*}" "$bin" run "$work/bench.yaml" "${sets[@]}" --out "$work/new" -- \
      "$OLD" run "$work/old.yaml" "${sets[@]}" --out "$work/old"
  done
  exit 0
fi
for entry in "${runs[@]}"; do
  label=${entry%%|*}
  read -ra sets <<<"${entry#*|}"
  start=$(date +%s.%N)
  # taskset: one core, as the targets say.
  out=$(taskset -c 0 "$bin" run "$work/bench.yaml" "${sets[@]}" --out "$work/out")
  end=$(date +%s.%N)
  line=$(grep '^run:' <<<"$out")
  printf '%-21s total %.2f s (incl. start-up and writing results) | %s\n' "$label" "$(echo "$end - $start" | bc)" "$line"
  grep -E 'finished|utilization|JCT mean|preemptions' <<<"$out" | sed 's/^/                      /'
done
