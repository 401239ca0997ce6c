#!/usr/bin/env bash
# Replays the full Microsoft Philly trace (111,549 jobs, ../shared/traces/philly) on the
# Philly-like cluster under fifo+gang+best-fit, under las+reorder (Tiresias) and in 14
# elastic pools, end to end including parsing and writing results (targets: <= 2 s, 3 s with
# pools). Skips cleanly when ../shared is absent.
#   scripts/bench-philly.sh [BUILD_DIR]
# Old against new: OLD=path/to/old/schedlab [OLD_TREE=its checkout, for its scenarios]
# [ROUNDS=5] [CORE=1] scripts/bench-philly.sh [BUILD_DIR] (scripts/bench-ab.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/schedlab
trace=../shared/traces/philly/philly_trace.csv
[ -f "$trace" ] || { echo "bench-philly: $trace not found; skipped"; exit 0; }
[ -x "$bin" ] || { echo "bench-philly: build first (scripts/setup.sh)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# pools: scenarios/philly-pools.yaml, its jobs spread over 14 pools under pools + pool-reclaim
# (target: <= 3 s).
[ -n "${OLD:-}" ] && source scripts/bench-ab.sh
old_tree=$(cd "${OLD_TREE:-.}" && pwd)
for policy in fifo las pools; do
  sets=()
  scenario=scenarios/philly.yaml
  [ "$policy" = las ] && sets=(--set scheduler.queue=las --set scheduler.preemption=reorder)
  [ "$policy" = pools ] && scenario=scenarios/philly-pools.yaml
  if [ -n "${OLD:-}" ]; then
    ab_time "$policy" "$bin" run "$scenario" "${sets[@]}" --out "$out/new" -- \
      "$OLD" run "$old_tree/$scenario" "${sets[@]}" --out "$out/old"
    continue
  fi
  for i in 1 2 3; do
    start=$(date +%s.%N)
    result=$("$bin" run "$scenario" "${sets[@]}" --out "$out/r")
    end=$(date +%s.%N)
    printf '%-4s run %d: %.2f s end to end | %s | %s\n' "$policy" "$i" "$(echo "$end - $start" | bc)" \
      "$(grep '^run:' <<<"$result")" "$(grep -E '^ +preemptions' <<<"$result" | xargs)"
  done
done
