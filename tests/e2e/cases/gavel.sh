# shellcheck shell=bash
# Gavel's policies as scheduler parts (issue 30, items 3, 5 and 7; docs/elastic.md "Gavel's
# policies as scheduler parts"). Sourced by run_e2e.sh.
bad_input gavel_no_matrix "$FIX/gavel_no_matrix.yaml:8: scheduler.policy: " run "$FIX/gavel_no_matrix.yaml"
stderr_has gavel_no_matrix_says_why "needs a throughput matrix"
bad_input gavel_no_matrix_validate "$FIX/gavel_no_matrix.yaml:8: scheduler.policy: " validate "$FIX/gavel_no_matrix.yaml"
bad_input gavel_round_zero "$FIX/gavel_round_zero.yaml:10: scheduler.args.gavel-finish-time-fairness.round_s: " \
  run "$FIX/gavel_round_zero.yaml"
bad_input gavel_unknown_policy "$FIX/base.yaml: scheduler.policy: " run "$FIX/base.yaml" --set scheduler.policy=gavel-mmf
bad_input gavel_unknown_arg "$FIX/gavel_round_zero.yaml: scheduler.args.gavel-finish-time-fairness.round: " \
  run "$FIX/gavel_round_zero.yaml" --set scheduler.args.gavel-finish-time-fairness.round=60

# The scenario: fifo and both Gavel policies side by side, 150 of its jobs; Gavel moves jobs
# between GPU types (preemptions), FIFO never does; a rerun gives the same bytes.
run compare scenarios/hetero-gavel.yaml --out "$TMP/gavel-cmp" -j 2 --set workload.generate.jobs=150
if [ "$rc" -eq 0 ] && python3 - "$TMP/gavel-cmp/compare.csv" <<'PY'; then
import csv, sys
rows = {r["metric"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert list(rows["finished"].keys())[1:4] == ["fifo", "gavel-max-min", "gavel-ftf"], rows["finished"].keys()
assert all(float(rows["finished"][v]) == 150 for v in ("fifo", "gavel-max-min", "gavel-ftf"))
assert float(rows["preemptions"]["fifo"]) == 0
assert float(rows["preemptions"]["gavel-max-min"]) > 0 and float(rows["preemptions"]["gavel-ftf"]) > 0
PY
  pass gavel_scenario_compare
else
  fail gavel_scenario_compare "exit $rc, or compare.csv lacks three variants that all finish 150 jobs"
fi
run run scenarios/hetero-gavel.yaml --set scheduler.policy=gavel-finish-time-fairness --out "$TMP/gavel-a" \
  --set workload.generate.jobs=150
run run scenarios/hetero-gavel.yaml --set scheduler.policy=gavel-finish-time-fairness --out "$TMP/gavel-b" \
  --set workload.generate.jobs=150
if [ "$rc" -eq 0 ] && cmp -s "$TMP/gavel-a/jobs.csv" "$TMP/gavel-b/jobs.csv" &&
  cmp -s "$TMP/gavel-a/summary.json" "$TMP/gavel-b/summary.json"; then
  pass gavel_rerun_identical
else
  fail gavel_rerun_identical "exit $rc, or two runs of the same scenario differ"
fi
run sweep "$FIX/gavel_sweep.yaml" -o "$TMP/gavel-sweep" -j 2
if [ "$rc" -eq 0 ] && [ "$(ls -d "$TMP"/gavel-sweep/cells/cell-?????? | wc -l)" -eq 3 ] &&
  grep -q "gavel-finish-time-fairness" "$TMP/gavel-sweep/sweep-summary.csv"; then
  pass gavel_sweep_grid
else
  fail gavel_sweep_grid "exit $rc, or not three cells with the policies"
fi
