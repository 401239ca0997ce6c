#!/usr/bin/env bash
# The external-scheduler protocol's cost: the full Microsoft Philly trace (111,549 jobs,
# ../shared/traces/philly) under the built-in fifo + gang + best-fit and under the same policy
# written in Python (scripts/python/examples/fifo_best_fit.py), end to end; the two jobs.csv
# must be byte-identical (target: <= 30 s for the Python policy). Then las.py against the
# built-in las + reorder: byte-identical too. Skips cleanly when ../shared is absent.
#   scripts/bench-external.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/schedlab
trace=../shared/traces/philly/philly_trace.csv
[ -f "$trace" ] || { echo "bench-external: $trace not found; skipped"; exit 0; }
[ -x "$bin" ] || { echo "bench-external: build first (scripts/setup.sh)"; exit 1; }
python=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
timed() {  # NAME ARGS...: one run, its wall time and the run: line
  local name=$1
  shift
  local start end result
  start=$(date +%s.%N)
  result=$("$bin" run scenarios/philly.yaml -q "$@")
  end=$(date +%s.%N)
  printf '%-22s %6.2f s end to end | %s\n' "$name" "$(echo "$end - $start" | bc)" "$(grep '^run:' <<<"$result")"
}
timed "built-in fifo" --out "$out/builtin"
timed "python fifo_best_fit" --out "$out/python" \
  --scheduler-cmd "$python scripts/python/examples/fifo_best_fit.py"
if cmp -s "$out/builtin/jobs.csv" "$out/python/jobs.csv"; then
  echo "jobs.csv: byte-identical"
else
  echo "jobs.csv: DIFFERENT"
  exit 1
fi
timed "built-in las+reorder" --out "$out/las" --set scheduler.queue=las --set scheduler.preemption=reorder
timed "python las" --out "$out/pylas" --scheduler-cmd "$python scripts/python/examples/las.py"
if cmp -s "$out/las/jobs.csv" "$out/pylas/jobs.csv"; then echo "las jobs.csv: byte-identical"; else
  echo "las jobs.csv: DIFFERS from the built-in las + reorder" >&2
  exit 1
fi
