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

# With job accounting (MariaDB + slurmdbd) so that `sacct` answers for the sacct reader's case;
# without it when that cannot start (then only that case is skipped).
accounting_why=""
if ! why=$(SCHEDLAB_SLURM_ACCOUNTING=1 scripts/slurm-local.sh start 2>&1 >/dev/null); then
  accounting_why=${why#slurm-local: }
  scripts/slurm-local.sh stop >/dev/null 2>&1
  if ! why=$(SCHEDLAB_SLURM_ACCOUNTING=0 scripts/slurm-local.sh start 2>&1 >/dev/null); then
    echo "e2e slurm: skipped: ${why#slurm-local: }"
    exit 0
  fi
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

# format: sacct on a site's own history: a few jobs through this Slurm (a 2-CPU job, one
# cancelled while it waited, an array of 3, a failing job) beside the sweeps' jobs, then sacct as
# the format asks for it.
if [ -n "$accounting_why" ]; then
  echo "skip sacct_real_history: no job accounting here ($accounting_why)"
else
  # Submitted from $TMP (their slurm-*.out files land there), in a subshell: the test stays here.
  # The 2-CPU job holds the node's CPUs for 3 s, so the next one waits, and is cancelled waiting.
  ids=$(cd "$TMP" && { sbatch --parsable -n 2 --wrap "sleep 3"; sbatch --parsable --wrap "sleep 1"
    sbatch --parsable --array=0-2 --wrap "sleep 1"; sbatch --parsable --wrap "exit 3"; })
  later=$(echo "$ids" | sed -n 2p)
  scancel "$later"
  for _ in $(seq 300); do  # until the queue is empty (1 minute at most)
    [ -z "$(squeue -h -o %i)" ] && break
    sleep 0.2
  done
  for _ in $(seq 50); do  # slurmdbd stores the last ends a moment later
    sacct -P -a -S now-2hours -o JobIDRaw,User,Account,Partition,Submit,Start,End,Elapsed,State,AllocTRES,ReqTRES,Timelimit \
      >"$TMP/sacct.txt" 2>"$TMP/sacct.err"
    grep -q "^$later|.*CANCELLED" "$TMP/sacct.txt" && ! grep -qE "\|(RUNNING|PENDING)\|" "$TMP/sacct.txt" && break
    sleep 0.2
  done
  cp "$TMP/sacct.txt" "${SCHEDLAB_E2E_OUT:-$TMP}/sacct-local.txt" 2>/dev/null
  "$BIN" trace stats "$TMP/sacct.txt" --format json >"$TMP/stats.json" 2>"$TMP/stats.err"
  if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
drops = d.get("skipped_rows_by_reason", d.get("drops", {}))
assert d["jobs"] >= 6, d["jobs"]                       # the sweep cells, the 2-CPU job, 3 array tasks, the failing one
assert any("cancelled before they started" in k for k in drops), drops
' "$TMP/stats.json"; then pass sacct_real_history_read; else
    fail sacct_real_history_read "$(head -c 300 "$TMP/stats.json") $(head -2 "$TMP/stats.err") $(head -3 "$TMP/sacct.txt")"
  fi
  printf 'name: sacct-replay\ncluster: %s\nworkload: {trace: %s, format: sacct}\n' \
    "$(realpath tests/fixtures/clusters/tiny.yaml)" "$TMP/sacct.txt" >"$TMP/sacct.yaml"
  "$BIN" run "$TMP/sacct.yaml" -o "$TMP/sacct-out" --quiet >"$TMP/out" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ] && head -1 "$TMP/sacct-out/jobs.csv" | grep -q ',recorded_wait_s$' &&
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recorded_wait"]; assert r["compared"] >= 6, r' \
      "$TMP/sacct-out/summary.json"; then pass sacct_real_history_replayed_against_its_record; else
    fail sacct_real_history_replayed_against_its_record "exit code $rc: $(head -2 "$TMP/out")"
  fi
fi

echo "e2e slurm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
