#!/usr/bin/env bash
# End-to-end test of `schedlab sweep --slurm` against a real Slurm: scripts/slurm-local.sh
# installs Debian's Slurm and starts a one-node cluster on this machine; a 12-cell sweep goes
# through it as a job array (2 at a time) plus the dependent collect job, and its tables must
# equal those of the same sweep run locally. The daemons are stopped at the end. Where Slurm
# cannot start (not root, no apt-get), the test says so in one line and passes.
#   usage: tests/e2e/run_slurm_e2e.sh <path to schedlab> <repository root>
set -u
BIN=$(realpath "${1:?usage: run_slurm_e2e.sh <schedlab binary> <repo root>}")
ROOT=${2:?usage: run_slurm_e2e.sh <schedlab binary> <repo root>}
cd "$ROOT" || exit 1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-slurm-e2e.XXXXXX")
export SCHEDLAB_SLURM_DIR=$TMP/slurm
cleanup() {
  scripts/slurm-local.sh stop >/dev/null 2>&1
  rm -rf "$TMP"
}
trap cleanup EXIT

if ! why=$(scripts/slurm-local.sh start 2>&1 >/dev/null); then
  echo "e2e slurm: skipped: ${why#slurm-local: }"
  exit 0
fi
eval "$(scripts/slurm-local.sh env)"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }

SW=tests/fixtures/sweeps/small.yaml
"$BIN" sweep "$SW" -o "$TMP/dry" --slurm --max-running 2 --dry-run >"$TMP/out" 2>&1
if [ $? -eq 0 ] && grep -q '^#SBATCH --array=0-11%2$' "$TMP/dry/sweep.sbatch" && [ ! -e "$TMP/dry/slurm.json" ]; then
  pass slurm_dry_run_writes_the_array
else
  fail slurm_dry_run_writes_the_array "$(head -3 "$TMP/out")"
fi

"$BIN" sweep "$SW" -o "$TMP/local" -j 2 >/dev/null 2>&1
"$BIN" sweep "$SW" -o "$TMP/slurm-sweep" --slurm --max-running 2 >"$TMP/out" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
  fail slurm_sweep "exit code $rc: $(head -3 "$TMP/out")"
else
  for _ in $(seq 600); do  # up to 2 minutes
    [ -s "$TMP/slurm-sweep/sweep-summary.csv" ] && break
    sleep 0.2
  done
  "$BIN" sweep status "$TMP/slurm-sweep" >"$TMP/status" 2>&1
  if grep -q "12 cells: 12 done, 0 running, 0 failed, 0 missing" "$TMP/status" &&
    cmp -s "$TMP/local/sweep.csv" "$TMP/slurm-sweep/sweep.csv" &&
    cmp -s "$TMP/local/sweep-summary.csv" "$TMP/slurm-sweep/sweep-summary.csv"; then
    pass slurm_sweep_equals_the_local_one
  else
    fail slurm_sweep_equals_the_local_one "$(head -2 "$TMP/status"); $(ls "$TMP/slurm-sweep" | tr '\n' ' ')"
  fi
fi
# Resubmitting a finished sweep submits nothing.
"$BIN" sweep "$SW" -o "$TMP/slurm-sweep" --slurm >"$TMP/out" 2>&1
if grep -q "12 cells (2 x 2 x 3 seed(s)), 0 not done" "$TMP/out" && ! grep -q submitted "$TMP/out"; then
  pass slurm_resubmit_done_sweep_submits_nothing
else
  fail slurm_resubmit_done_sweep_submits_nothing "$(head -2 "$TMP/out")"
fi

echo "e2e slurm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
