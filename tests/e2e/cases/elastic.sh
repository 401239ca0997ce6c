# shellcheck shell=bash
# Elastic jobs (issue 30, items 1, 3 and 7; docs/elastic.md): bad ranges refused with
# file:line: field:, exit 2; a rigid policy runs them at their traced size and says so once;
# optimus resizes them, writes elastic.csv, and reruns byte-identically. Sourced by run_e2e.sh.
EL=tests/fixtures/scenarios/elastic.yaml
bad_input elastic_upside_down "tests/fixtures/native/bad/elastic_upside_down.csv:3: min_gpus: 4 is above max_gpus 2" \
  run "$EL" --set workload.trace=../native/bad/elastic_upside_down.csv
bad_input elastic_min_zero "tests/fixtures/native/bad/elastic_min_zero.csv:3: min_gpus: 0" \
  run "$EL" --set workload.trace=../native/bad/elastic_min_zero.csv
bad_input elastic_above_cluster "tests/fixtures/native/bad/elastic_above_cluster.csv:3: max_gpus: 32 is above the cluster's 16 GPUs" \
  run "$EL" --set workload.trace=../native/bad/elastic_above_cluster.csv --set scheduler.policy=optimus
bad_input elastic_needs_sizing_model "tests/fixtures/native/elastic.csv:3: max_gpus: an elastic job needs a perf model that sizes it" \
  run "$EL" --set scheduler.policy=optimus --set perf.reference=traced
bad_input elastic_scale_out_of_range "$EL: elastic.min_scale: 2 is out of range" run "$EL" --set elastic.min_scale=2
run run "$EL" --out "$TMP/el-rigid"
if [ "$rc" -eq 0 ] && [ "$(grep -c 'elastic jobs run at their traced size' "$TMP/stderr")" -eq 1 ] &&
  awk -F, 'NR > 1 && $4 != 0 { bad = 1 } END { exit bad }' "$TMP/el-rigid/elastic.csv"; then
  pass elastic_rigid_runs_traced_size
else
  fail elastic_rigid_runs_traced_size "exit $rc, no notice, or a resize without a resizing policy"
fi
run run "$EL" --set scheduler.policy=optimus --out "$TMP/el-opt" --events "$TMP/el-opt.csv"
run2_rc=$rc
run run "$EL" --set scheduler.policy=optimus --out "$TMP/el-opt2" --events "$TMP/el-opt2.csv"
if [ "$run2_rc" -eq 0 ] && [ "$rc" -eq 0 ] && head -1 "$TMP/el-opt/elastic.csv" | grep -qx 'id,min_gpus,max_gpus,resizes,resize_lost_s,gpu_s_by_size' &&
  awk -F, 'NR > 1 { r += $4 } END { exit !(r > 0) }' "$TMP/el-opt/elastic.csv" &&
  grep -q 'resized: restarts at once at another size' "$TMP/el-opt.csv" &&
  diff -q "$TMP/el-opt/elastic.csv" "$TMP/el-opt2/elastic.csv" >/dev/null &&
  diff -q "$TMP/el-opt/jobs.csv" "$TMP/el-opt2/jobs.csv" >/dev/null && diff -q "$TMP/el-opt.csv" "$TMP/el-opt2.csv" >/dev/null; then
  pass elastic_optimus_resizes_deterministically
else
  fail elastic_optimus_resizes_deterministically "exit $run2_rc/$rc, no resize, or a rerun differs"
fi
