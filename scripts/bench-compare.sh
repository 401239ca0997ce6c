#!/usr/bin/env bash
# Old against new, in one run: the 1,000,000-job replay of scripts/bench-replay.sh
# (fifo+gang+best-fit on the 10,240-GPU cluster) with two schedlab binaries, alternating round
# by round on one core, so that both see the same machine at the same time. Prints each
# binary's best and median wall time and peak RSS, and new/old as ratios ("no slower" means
# a best-time ratio at or below 1 within the spread of the rounds).
#   scripts/bench-compare.sh OLD_BINARY NEW_BINARY [ROUNDS]   (ROUNDS 5; JOBS, RATE as bench-replay.sh)
# An old binary is built from an earlier commit, e.g.:
#   git worktree add /tmp/old <commit> && cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=Release &&
#   cmake --build /tmp/old/build --target schedlab
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: scripts/bench-compare.sh OLD_BINARY NEW_BINARY [ROUNDS]" >&2; exit 2; }
old=$1 new=$2 rounds=${3:-5}
for b in "$old" "$new"; do [ -x "$b" ] || { echo "bench-compare: $b is not an executable" >&2; exit 2; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The trace comes from the old binary: a newer reader accepts older native files.
"$old" trace generate --jobs "${JOBS:-1000000}" --seed 42 --rate "${RATE:-860}" -o "$work/trace.csv" 2>/dev/null
cat > "$work/bench.yaml" <<YAML
name: bench-compare
seed: 42
cluster: $PWD/configs/clusters/dc-10240.yaml
workload: {trace: $work/trace.csv}
scheduler: {queue: fifo, admission: gang, filters: [gpu-model], placement: best-fit, backfill: none}
metrics: {timeline_interval_s: 3600}
YAML
for ((i = 1; i <= rounds; i++)); do
  for which in old new; do
    bin=$old
    [ "$which" = new ] && bin=$new
    rm -rf "$work/out"
    /usr/bin/time -f "$which %e %M" -a -o "$work/times" taskset -c 0 "$bin" run "$work/bench.yaml" --out "$work/out" >/dev/null
  done
done
python3 - "$work/times" <<'PY'
import statistics, sys
t = {"old": [], "new": []}
for line in open(sys.argv[1]):
    which, wall, rss = line.split()
    t[which].append((float(wall), int(rss)))
row = {}
for which in ("old", "new"):
    walls = sorted(w for w, _ in t[which])
    rss = max(r for _, r in t[which]) / 1024
    row[which] = (walls[0], statistics.median(walls), rss)
    print(f"{which}: best {walls[0]:.2f} s, median {statistics.median(walls):.2f} s, "
          f"range {walls[0]:.2f}-{walls[-1]:.2f} s, peak RSS {rss:.0f} MiB ({len(walls)} rounds)")
o, n = row["old"], row["new"]
print(f"new/old: best {n[0] / o[0]:.2f}x, median {n[1] / o[1]:.2f}x, peak RSS {n[2] / o[2]:.2f}x")
PY
