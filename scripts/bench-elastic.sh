#!/usr/bin/env bash
# Elastic benchmark (issue 30, item 6): 100,000 generated elastic jobs on 2,048 A100s (16 racks x
# 16 hosts x 8 GPUs, uplinks oversubscribed 4:1) under each resizing policy, which re-decides every
# job's size at each arrival and end. The workload is scenarios/elastic.yaml's (ResNet-50,
# BERT-large, VGG-16; ranges [size/2, size x 4]; 30 s a restart) scaled with the cluster: 16x the
# GPUs, 16x the arrival rate. Target: <= 30 s wall each, whole process on one core, results written.
#   scripts/bench-elastic.sh [BUILD_DIR]     (JOBS=100000, POLICIES="optimus ..." to change)
# Old against new: OLD=path/to/old/schedlab [ROUNDS=5] [CORE=1] scripts/bench-elastic.sh [BUILD_DIR]
# prints the median CPU and wall times of both binaries and their ratio (scripts/bench-ab.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/schedlab
jobs=${JOBS:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bin" ] || { echo "bench-elastic: build first (scripts/setup.sh)"; exit 1; }

cat >"$work/cluster.yaml" <<YAML
name: a100-2048
catalog: $PWD/configs/gpus.yaml
racks:
  - name: r
    count: 16
    oversubscription: 4
    hosts:
      - {count: 16, gpus: 8, model: A100, nic_gbps: 25}
YAML
# scenarios/elastic.yaml with this cluster, the job count and 16x its arrival rate; no variants.
sed -e "s|^cluster: .*|cluster: $work/cluster.yaml|" -e "s|^\(    jobs:\).*|\1 $jobs|" \
  -e "s|^\(    arrival_rate_per_hour:\).*|\1 64|" -e '/^variants:/,$d' scenarios/elastic.yaml >"$work/bench.yaml"

policies=${POLICIES:-optimus}
if [ -n "${OLD:-}" ]; then
  source scripts/bench-ab.sh
  for p in $policies; do
    ab_time "$p" "$bin" run "$work/bench.yaml" --set scheduler.policy="$p" --out "$work/new" -- \
      "$OLD" run "$work/bench.yaml" --set scheduler.policy="$p" --out "$work/old"
  done
  exit 0
fi
for p in $policies; do
  start=$(date +%s.%N)
  out=$(taskset -c 0 "$bin" run "$work/bench.yaml" --set scheduler.policy="$p" --out "$work/out")
  end=$(date +%s.%N)
  resizes=$(awk -F, 'NR > 1 {n += $4} END {print n + 0}' "$work/out/elastic.csv")
  printf '%-9s %d jobs: total %.2f s (incl. start-up and writing results), %s resizes | %s\n' "$p" "$jobs" \
    "$(echo "$end - $start" | bc)" "$resizes" "$(grep '^run:' <<<"$out")"
  grep -E 'JCT mean|utilization  ' <<<"$out" | sed 's/^/          /'
done
