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
# A site with a small MaxArraySize: 12 one-cell tasks need 3 arrays (5 + 5 + 2).
export SCHEDLAB_SLURM_MAX_ARRAY_SIZE=5
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
"$BIN" sweep "$SW" -o "$TMP/dry" --slurm --max-running 2 --cells-per-task 1 --dry-run >"$TMP/out" 2>&1
if [ $? -eq 0 ] && grep -q '^#SBATCH --array=0-4%2$' "$TMP/dry/sweep.sbatch" && [ ! -e "$TMP/dry/slurm.json" ] &&
  grep -q "12 task(s) in 3 array job(s) (MaxArraySize 5)" "$TMP/out"; then
  pass slurm_dry_run_splits_at_max_array_size
else
  fail slurm_dry_run_splits_at_max_array_size "$(head -3 "$TMP/out")"
fi

wait_collected() {  # wait_collected DIR: until the collect job wrote the summary (2 minutes at most)
  for _ in $(seq 600); do
    [ -s "$1/sweep-summary.csv" ] && return 0
    sleep 0.2
  done
  return 1
}
same_as_local() {  # same_as_local NAME DIR
  "$BIN" sweep status "$2" >"$TMP/status" 2>&1
  if grep -q "12 cells: 12 done, 0 running, 0 failed, 0 missing" "$TMP/status" &&
    cmp -s "$TMP/local/sweep.csv" "$2/sweep.csv" && cmp -s "$TMP/local/sweep-summary.csv" "$2/sweep-summary.csv"; then
    pass "$1"
  else
    fail "$1" "$(head -2 "$TMP/status"); $(ls "$2" | tr '\n' ' ')"
  fi
}

"$BIN" sweep "$SW" -o "$TMP/local" -j 2 >/dev/null 2>&1
# One cell per task: three array jobs, the collect job after all of them.
"$BIN" sweep "$SW" -o "$TMP/slurm-sweep" --slurm --max-running 2 --cells-per-task 1 >"$TMP/out" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
  fail slurm_sweep "exit code $rc: $(head -3 "$TMP/out")"
else
  if grep -qE "^submitted: array job\(s\) [0-9]+, [0-9]+, [0-9]+ \(at most 2 tasks running each\), collect job" "$TMP/out"
  then pass slurm_three_arrays_submitted; else fail slurm_three_arrays_submitted "$(grep submitted "$TMP/out")"; fi
  wait_collected "$TMP/slurm-sweep"
  same_as_local slurm_sweep_equals_the_local_one "$TMP/slurm-sweep"
fi
# The default: one cell timed here, the rest dealt several to a task; a site option passed on.
"$BIN" sweep "$SW" -o "$TMP/slurm-grouped" --slurm --sbatch-arg=--comment=schedlab-e2e >"$TMP/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "11 cell(s) per array task (cell cell-000000 took" "$TMP/out" &&
  grep -q "1 task(s) in 1 array job(s)" "$TMP/out" && grep -q '^#SBATCH --comment=schedlab-e2e$' "$TMP/slurm-grouped/sweep.sbatch"
then pass slurm_cells_per_task_chosen; else fail slurm_cells_per_task_chosen "exit code $rc: $(head -3 "$TMP/out")"; fi
wait_collected "$TMP/slurm-grouped"
same_as_local slurm_grouped_sweep_equals_the_local_one "$TMP/slurm-grouped"
# An option sbatch refuses: its own message, exit 3, nothing submitted.
"$BIN" sweep "$SW" -o "$TMP/slurm-refused" --slurm --cells-per-task 4 --sbatch-arg=--no-such-sbatch-option >"$TMP/out" 2>&1
rc=$?
if [ "$rc" -eq 3 ] && grep -q "sbatch refused the array" "$TMP/out" && [ ! -e "$TMP/slurm-refused/slurm.json" ]; then
  pass slurm_refused_option_exit_3; else fail slurm_refused_option_exit_3 "exit code $rc: $(head -2 "$TMP/out")"; fi
# Resubmitting a finished sweep submits nothing.
"$BIN" sweep "$SW" -o "$TMP/slurm-sweep" --slurm >"$TMP/out" 2>&1
if grep -q "12 cells (2 x 2 x 3 seed(s)), 0 not done" "$TMP/out" && ! grep -q submitted "$TMP/out"; then
  pass slurm_resubmit_done_sweep_submits_nothing
else
  fail slurm_resubmit_done_sweep_submits_nothing "$(head -2 "$TMP/out")"
fi

echo "e2e slurm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
