#!/usr/bin/env bash
# Sweep benchmark (issue: a 120-cell sweep within 1.2x of 120 runs / 2 on a 2-core machine):
# the quickstart scenario over 4 placements x 3 loads x 10 seeds, as `schedlab sweep -j 2`
# and as the same 120 `schedlab run`s one after another. Each is timed REPS times (default
# 7), alternating, and the medians are printed with their ratio (target <= 0.60 = 1.2 / 2),
# then `sweep collect` over the sweep's folder.
#   scripts/bench-sweep.sh [BUILD_DIR]        (REPS=N to change the repetitions)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$PWD/$build/schedlab
reps=${REPS:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bin" ] || { echo "bench-sweep: build first (scripts/setup.sh)"; exit 1; }

placements=(best-fit first-fit rack-pack spread)
loads=(0.8 1.0 1.2)
cat > "$work/sweep.yaml" <<YAML
scenario: $PWD/scenarios/quickstart.yaml
grid:
  scheduler.placement: [$(IFS=,; echo "${placements[*]}")]
  workload.arrival_scale: [$(IFS=,; echo "${loads[*]}")]
seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
YAML

now() { date +%s.%N; }
sweep_once() {
  rm -rf "$work/sweep"
  "$bin" sweep "$work/sweep.yaml" -o "$work/sweep" -j 2 --quiet >/dev/null 2>&1
}
loop_once() {
  rm -rf "$work/loop" && mkdir -p "$work/loop"
  local i=0 p a s
  for p in "${placements[@]}"; do for a in "${loads[@]}"; do for s in 1 2 3 4 5 6 7 8 9 10; do
    "$bin" run scenarios/quickstart.yaml --set scheduler.placement="$p" --set workload.arrival_scale="$a" \
      --seed "$s" -o "$work/loop/r$i" --quiet >/dev/null
    i=$((i + 1))
  done; done; done
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

sweep_s=() loop_s=()
for ((r = 0; r < reps; r++)); do
  t0=$(now); sweep_once; t1=$(now); loop_once; t2=$(now)
  sweep_s+=("$(echo "$t1 - $t0" | bc -l)") loop_s+=("$(echo "$t2 - $t1" | bc -l)")
done
sm=$(printf '%s\n' "${sweep_s[@]}" | median)
lm=$(printf '%s\n' "${loop_s[@]}" | median)
cells=$(find "$work/sweep/cells" -maxdepth 1 -name 'cell-*' -type d | wc -l)
printf 'sweep of %d cells, -j 2:   median %.3f s over %d runs\n' "$cells" "$sm" "$reps"
printf '120 runs one after another: median %.3f s (%.1f ms a run)\n' "$lm" "$(echo "$lm * 1000 / 120" | bc -l)"
printf 'sweep / loop: %.3f (target <= 0.60: 1.2 x 120 runs / 2)\n' "$(echo "$sm / $lm" | bc -l)"
t0=$(now); "$bin" sweep collect "$work/sweep" >/dev/null; t1=$(now)
printf 'sweep collect over %d cells: %.3f s\n' "$cells" "$(echo "$t1 - $t0" | bc -l)"
