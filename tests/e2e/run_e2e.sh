#!/usr/bin/env bash
# End-to-end tests of the schedlab binary: the commands a user types on good scenarios,
# byte-identical reruns, and bad input (each must exit 2 with `file:line: field: what` on
# stderr and leave no results folder behind).
#   usage: tests/e2e/run_e2e.sh <path to schedlab> <repository root>
set -u

BIN=$(realpath "${1:?usage: run_e2e.sh <schedlab binary> <repo root>}")
ROOT=${2:?usage: run_e2e.sh <schedlab binary> <repo root>}
cd "$ROOT" || exit 1
FIX=tests/e2e/fixtures
TMP=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
  failed=$((failed + 1))
  echo "FAIL $1: $2"
  if [ -s "$TMP/stderr" ]; then sed 's/^/       stderr: /' "$TMP/stderr" | head -5; fi
}

# Runs the binary with stdout and stderr captured; sets $rc.
run() {
  "$BIN" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
}

# bad_input NAME EXPECTED_PREFIX ARGS...: exit code 2, one `schedlab: error: PREFIX...` line
# on stderr (PREFIX = file:line: field: ), no results folder (nor its staging folder). Notices
# the run gave before it met the error (the offered load, said at its start) may precede it;
# nothing else may.
bad_input() {
  local name=$1 prefix=$2
  shift 2
  local out="$TMP/out-$name"
  if [ "$1" = run ]; then run "$@" --out "$out"; else run "$@"; fi
  if [ "$rc" -ne 2 ]; then
    fail "$name" "exit code $rc, expected 2"
  elif ! grep -qF -- "schedlab: error: $prefix" "$TMP/stderr"; then
    fail "$name" "stderr lacks 'schedlab: error: $prefix'"
  elif [ "$(grep -vc '^schedlab: notice: ' "$TMP/stderr")" -ne 1 ]; then
    fail "$name" "expected one line on stderr besides notices, got $(grep -vc '^schedlab: notice: ' "$TMP/stderr")"
  elif [ -e "$out" ] || compgen -G "$TMP/.out-$name.tmp-*" >/dev/null; then
    fail "$name" "a results folder was left behind"
  else
    pass "$name"
  fi
}

# stderr_has NAME TEXT: the last command's stderr contains TEXT.
stderr_has() {
  if grep -qF -- "$2" "$TMP/stderr"; then pass "$1"; else fail "$1" "stderr lacks '$2'"; fi
}

# --- bad input -------------------------------------------------------------------------

bad_input malformed_yaml "$FIX/malformed.yaml:6: " run "$FIX/malformed.yaml"
stderr_has malformed_yaml_says_so "malformed YAML"

bad_input unknown_key "$FIX/unknown_key.yaml:7: scheduler.placment: " run "$FIX/unknown_key.yaml"
stderr_has unknown_key_suggests "unknown key 'placment'; did you mean 'placement'?"
bad_input las_thresholds_not_increasing "tests/fixtures/scenarios/bad_las_args.yaml:10: scheduler.args.las.thresholds: " \
  run tests/fixtures/scenarios/bad_las_args.yaml
stderr_has las_thresholds_names_values "[7200, 3600] must be positive and strictly increasing"

bad_input unknown_part "$FIX/unknown_part.yaml:8: scheduler.placement: " run "$FIX/unknown_part.yaml"

stderr_has unknown_part_lists_valid "valid: first-fit, best-fit, rack-pack, spread"
stderr_has unknown_part_suggests "did you mean 'best-fit'?"

# Pools (docs/pools.md): inconsistent numbers and a job in no pool are refused at their line.
bad_input pools_reserve_too_much "tests/fixtures/scenarios/pools/reserve_too_much.yaml:12: pools.tree.research.reservation: " \
  run tests/fixtures/scenarios/pools/reserve_too_much.yaml
bad_input pools_job_in_unknown_pool "tests/fixtures/native/pool_typo.csv:3: pool: 'reserch'" \
  run tests/fixtures/scenarios/pools/job_in_unknown_pool.yaml
stderr_has pools_job_in_unknown_pool_closest "(closest: 'research')"
bad_input pools_report_without_pools "--pools-report: " run tests/fixtures/scenarios/tiny.yaml --pools-report 10
run run scenarios/pools-day.yaml --pools-report 30600 --out "$TMP/pools-day"
if [ "$rc" -eq 0 ] && grep -q "^pools at 30" "$TMP/stdout" && grep -q "research" "$TMP/stdout"; then
  pass pools_report
else
  fail pools_report "exit code $rc; $(grep -c pools "$TMP/stdout") lines about pools"
fi
# Pools in the results (results/README.md): pools-timeline.csv, one row per timeline interval
# and pool; each job's pool and kind at the end of jobs.csv; per-pool figures in summary.json
# and the printed summary; the same bytes on a rerun.
pt="$TMP/pools-day/pools-timeline.csv"
intervals=$(($(wc -l <"$TMP/pools-day/timeline.csv") - 1))
if [ -f "$pt" ] && [ "$(head -1 "$pt")" = "start_s,end_s,pool,parent,gpus_allocated,gpus_entitled,cpus_allocated,cpus_entitled,mem_gb_allocated,mem_gb_entitled,pending_gpus" ] &&
  [ "$(($(wc -l <"$pt") - 1))" -eq $((3 * intervals)) ] && [ "$intervals" -gt 1 ] &&
  [ "$(cut -d, -f3 "$pt" | sed 1d | sort -u | tr '\n' ' ')" = "production research serving " ]; then
  pass pools_timeline_rows
else
  fail pools_timeline_rows "$(wc -l <"$pt" 2>/dev/null) lines in pools-timeline.csv for $intervals intervals"
fi
if head -1 "$TMP/pools-day/jobs.csv" | grep -q ',cpus_per_task,mem_gb_per_task,pool,kind$' &&
  [ "$(grep -c ',\(production\|research\|serving\),batch$' "$TMP/pools-day/jobs.csv")" -eq 169 ] &&
  grep -q '"pool_fairness_min": 0\.' "$TMP/pools-day/summary.json" &&
  grep -q '^    "research": {$' "$TMP/pools-day/summary.json" && grep -q '"gpus_entitled_mean": ' "$TMP/pools-day/summary.json" &&
  grep -q '^  pool fairness (min) ' "$TMP/stdout"; then
  pass pools_jobs_and_summary
else
  fail pools_jobs_and_summary "jobs.csv pool/kind columns or summary.json pool figures missing"
fi
run run scenarios/pools-day.yaml --out "$TMP/pools-day2"
if [ "$rc" -eq 0 ] && diff -r "$TMP/pools-day" "$TMP/pools-day2" >/dev/null; then pass pools_rerun_is_byte_identical; else
  fail pools_rerun_is_byte_identical "exit code $rc or files differ"; fi
# A nested tree: inner pools carry their parent; a service's kind shows in jobs.csv.
run run tests/fixtures/scenarios/pools/three_pools.yaml --out "$TMP/three-pools"
if [ "$rc" -eq 0 ] && grep -q '^[0-9]*,[0-9]*,team-b,research,' "$TMP/three-pools/pools-timeline.csv" &&
  grep -q ',team-a,service$' "$TMP/three-pools/jobs.csv" && grep -q '"parent": "research",' "$TMP/three-pools/summary.json"
then
  pass pools_nested_tree_results
else
  fail pools_nested_tree_results "exit code $rc, or no team-b rows / team-a service / parent in the results"
fi
# Without pools (compare's one-flat-queue variant drops them): no pools-timeline.csv, no pool
# figures, and jobs.csv's pool column is the trace's pool label.
run compare scenarios/pools-day.yaml --out "$TMP/pools-cmp"
flat="$TMP/pools-cmp/one-flat-queue"
if [ "$rc" -eq 0 ] && [ -f "$TMP/pools-cmp/pools+reclaim/pools-timeline.csv" ] && [ -f "$flat/timeline.csv" ] &&
  [ ! -e "$flat/pools-timeline.csv" ] && ! grep -q '"pools"\|"pool_fairness_min"' "$flat/summary.json" &&
  [ "$(grep -c ',\(production\|research\|serving\),batch$' "$flat/jobs.csv")" -eq 169 ]; then
  pass pools_absent_without_pools
else
  fail pools_absent_without_pools "exit code $rc, or the variant without pools has pool results"
fi

# Services and cron entries (docs/services-cron.md): mistakes at their line, through run and
# validate; a run reports availability and occurrences, the same bytes twice.
LR=tests/fixtures/scenarios/long_running
bad_input cron_parent_typo "$LR/unknown_parent.yaml:9: workload.cron.1.parents: " run "$LR/unknown_parent.yaml"
stderr_has cron_parent_typo_closest "(closest: 'etl')"
bad_input cron_bad_schedule "$LR/bad_schedule.yaml:9: workload.cron.0.schedule: " validate "$LR/bad_schedule.yaml"
bad_input service_without_end "$LR/service_without_end.yaml:6: workload.services.0: " run "$LR/service_without_end.yaml"
run run "$LR/services_cron.yaml" --out "$TMP/lr1"
run_rc=$rc
run run "$LR/services_cron.yaml" --out "$TMP/lr2"
if [ "$run_rc" -eq 0 ] && [ "$rc" -eq 0 ] && grep -q '"name": "inference"' "$TMP/lr1/summary.json" &&
  grep -q '"availability"' "$TMP/lr1/summary.json" && grep -q '"name": "etl"' "$TMP/lr1/summary.json" &&
  grep -q 'inference\.0' "$TMP/lr1/jobs.csv"; then
  if diff -r "$TMP/lr1" "$TMP/lr2" >/dev/null; then pass services_cron_run; else fail services_cron_run "reruns differ"; fi
else
  fail services_cron_run "exit codes $run_rc/$rc, or summary.json lacks services and cron"
fi

bad_input perf_setting "$FIX/bad_perf.yaml:10: perf.overlap: " run "$FIX/bad_perf.yaml"
stderr_has perf_setting_says "must be in [0, 1], got 1.5"
bad_input perf_setting_validate "$FIX/bad_perf.yaml:10: perf.overlap: " validate "$FIX/bad_perf.yaml"
bad_input perf_unknown_model "$FIX/base.yaml: perf.model: " run "$FIX/base.yaml" --set perf.model=fast
stderr_has perf_unknown_model_lists "valid: trace, none, placement"

bad_input unknown_part_in_set "$FIX/base.yaml: scheduler.placement: " run "$FIX/base.yaml" --set scheduler.placement=rackpack
stderr_has unknown_part_in_set_lists_valid "valid: first-fit, best-fit, rack-pack, spread"
bad_input arrival_scale_zero "$FIX/base.yaml: workload.arrival_scale: " run "$FIX/base.yaml" --set workload.arrival_scale=0

# A short row names the first column it lacks, and the count.
bad_input trace_missing_field "$FIX/missing_field.csv:3: gpus_per_task: " run "$FIX/base.yaml" --set workload.trace=missing_field.csv
stderr_has trace_missing_field_counts "expected 5 fields, found 4"

bad_input trace_negative_gpus "$FIX/negative_gpus.csv:3: gpus_per_task: " \
  run "$FIX/base.yaml" --set workload.trace=negative_gpus.csv
stderr_has trace_negative_gpus_says "-4 is less than 0"

bad_input trace_not_a_number "$FIX/not_number.csv:3: duration_s: " run "$FIX/base.yaml" --set workload.trace=not_number.csv
stderr_has trace_not_a_number_says "'fifty' is not a number"

# Found only when the job arrives, mid-run: the half-written results must vanish.
bad_input trace_unknown_model "$FIX/unknown_model.csv:4: gpu_model: " \
  run "$FIX/base.yaml" --set workload.trace=unknown_model.csv
stderr_has trace_unknown_model_suggests "unknown GPU model 'H10O'; did you mean 'H100'?"

bad_input cluster_unknown_model "$FIX/unknown_model_cluster.yaml:8: racks[0].hosts[1].model: " \
  run "$FIX/cluster_bad_model.yaml"
stderr_has cluster_unknown_model_suggests "unknown GPU model 'H10O'; did you mean 'H100'?"

# CPUs and memory: trace columns, cluster host groups, scenario defaults.
bad_input trace_cpus_negative "$FIX/cpus_negative.csv:3: cpus: " run "$FIX/base.yaml" --set workload.trace=cpus_negative.csv
stderr_has trace_cpus_negative_says "-2 is out of range [0, 100000]"
bad_input trace_mem_not_number "$FIX/mem_not_number.csv:3: mem_gb: " run "$FIX/base.yaml" --set workload.trace=mem_not_number.csv
stderr_has trace_mem_not_number_says "'lots' is not a number"
bad_input trace_no_gpus_no_cpus "$FIX/no_gpus_no_cpus.csv:3: gpus_per_task: " \
  run "$FIX/base.yaml" --set workload.trace=no_gpus_no_cpus.csv
bad_input cluster_zero_cpus "$FIX/zero_cpus_cluster.yaml:8: racks[0].hosts[1].cpus: " \
  run "$FIX/base.yaml" --set cluster=zero_cpus_cluster.yaml
stderr_has cluster_zero_cpus_says "0 is out of range (0, 100000]"
bad_input cluster_cpu_host_without_memory "$FIX/cpu_host_no_mem_cluster.yaml:8: racks[0].hosts[1].mem_gb: " \
  run "$FIX/base.yaml" --set cluster=cpu_host_no_mem_cluster.yaml
bad_input resources_negative_cpus "$FIX/base.yaml: resources.cpus_per_gpu: " run "$FIX/base.yaml" --set resources.cpus_per_gpu=-1
bad_input resources_mem_not_number "$FIX/base.yaml: resources.mem_gb_per_gpu: " \
  run "$FIX/base.yaml" --set resources.mem_gb_per_gpu=abc
# A job without GPUs runs on a host's CPUs; one needing more CPUs per task than any host has
# is dropped with its reason, like one needing too many GPUs.
run run "$FIX/base.yaml" --set workload.trace=cpu_jobs.csv --out "$TMP/cpu"
if [ "$rc" -eq 0 ] && grep -q '^1,1,,5.000000,5.000000,65.000000,0.000000,0.000000,60.000000,60.000000,2,0,1000,0,1,1,,h0:0+h0:0,finished,,0,0,0,0.000000,0.000000,8,32.5,,batch$' "$TMP/cpu/jobs.csv" &&
  grep -q '^2,2,.*,dropped,unresolvable: a task needs 500 CPUs on one host; the largest allowed host has 96,0,0,0,0.000000,0.000000,500,16,,batch$' "$TMP/cpu/jobs.csv" &&
  grep -q '^3,3,.*,finished,,0,0,0,30.000000,0.000000,4,16,,batch$' "$TMP/cpu/jobs.csv" &&
  grep -q '"finished_without_gpu": 1,' "$TMP/cpu/summary.json"; then
  pass cpu_jobs_run_and_too_big_dropped
else
  fail cpu_jobs_run_and_too_big_dropped "exit code $rc, or jobs.csv / summary.json lack the CPU job rows"
fi

bad_input empty_trace "$FIX/empty.csv:1: " run "$FIX/base.yaml" --set workload.trace=empty.csv
stderr_has empty_trace_says "empty trace"

bad_input missing_scenario "$FIX/no_such.yaml: " run "$FIX/no_such.yaml"
stderr_has missing_scenario_says "cannot open file"

bad_input missing_trace "$FIX/missing_trace.yaml:6: workload.trace: " run "$FIX/missing_trace.yaml"
stderr_has missing_trace_names_it "$FIX/no_such.csv"
# A value given with --set has no line in the file: the message must not invent one.
bad_input missing_trace_in_set "$FIX/base.yaml: workload.trace: " run "$FIX/base.yaml" --set workload.trace=no_such.csv

bad_input validate_unknown_part "$FIX/unknown_part.yaml:8: scheduler.placement: " validate "$FIX/unknown_part.yaml"

# Lifecycle sections (docs/lifecycle.md): checkpoint:, preemption:, failures:.
bad_input failures_negative_rate "$FIX/bad_failures.yaml:10: failures.gpu_failures_per_gpu_h: " run "$FIX/bad_failures.yaml"
stderr_has failures_negative_rate_says "-1e-05 is out of range [0"
bad_input failures_negative_rate_validate "$FIX/bad_failures.yaml:10: failures.gpu_failures_per_gpu_h: " \
  validate "$FIX/bad_failures.yaml"
bad_input failures_zero_mtbf "$FIX/base.yaml: failures.host_mtbf_h: " run "$FIX/base.yaml" \
  --set failures.host_mtbf_h=0 --set failures.repair_h=1
bad_input checkpoint_negative "$FIX/base.yaml: checkpoint.interval_s: " run "$FIX/base.yaml" --set checkpoint.interval_s=-60
stderr_has checkpoint_negative_says "-60 s is out of range"
bad_input failures_unknown_key "$FIX/base.yaml: failures.host_mtbf: " run "$FIX/base.yaml" --set failures.host_mtbf=100
stderr_has failures_unknown_key_suggests "unknown key 'host_mtbf'; did you mean 'host_mtbf_h'?"
bad_input failures_trace_unknown_host "$FIX/failures_unknown_host.csv:3: host: " \
  run "$FIX/base.yaml" --set failures.trace=failures_unknown_host.csv
stderr_has failures_trace_unknown_host_suggests "unknown host 'r-4/0'; did you mean 'r-0/0'?"
bad_input failures_trace_unknown_host_validate "$FIX/failures_unknown_host.csv:3: host: " \
  validate "$FIX/base.yaml" --set failures.trace=failures_unknown_host.csv
bad_input failures_trace_unsorted "$FIX/failures_unsorted.csv:3: time_s: " \
  run "$FIX/base.yaml" --set failures.trace=failures_unsorted.csv
stderr_has failures_trace_unsorted_says "failure times must not decrease"
run run "$FIX/base.yaml" --set failures.trace=failures_good.csv --set failures.max_retries=1 --out "$TMP/failing"
if [ "$rc" -eq 0 ]; then pass run_with_failure_trace; else fail run_with_failure_trace "exit code $rc"; fi

run trace stats "$FIX/not_number.csv"
if [ "$rc" -eq 2 ] && grep -qF "$FIX/not_number.csv:3: duration_s: " "$TMP/stderr"; then
  pass trace_stats_bad_row
else
  fail trace_stats_bad_row "exit code $rc"
fi

# --- bad configuration: numbers in range, limits, and yaml-cpp / filesystem errors located ---
CFX=tests/fixtures

# R09: a host count of 2^32 wrapped to 0.
bad_input cluster_count_2p32 "$CFX/clusters/count_2p32.yaml:7: racks[0].hosts[0].count: " \
  run "$FIX/base.yaml" --set cluster=../../fixtures/clusters/count_2p32.yaml
stderr_has cluster_count_2p32_says "4294967296 is out of range [1, 4294967295]"
# R10: no size limit (memory grew until killed).
bad_input cluster_too_big "$CFX/clusters/too_big.yaml:7: racks[0].count: " \
  run "$FIX/base.yaml" --set cluster=../../fixtures/clusters/too_big.yaml
stderr_has cluster_too_big_names_limit "more than the limit of 10000000"
# R11: a list as a key was "internal error: bad conversion".
bad_input nonscalar_key "$CFX/scenarios/nonscalar_key.yaml:3: " validate "$CFX/scenarios/nonscalar_key.yaml"
stderr_has nonscalar_key_says "a key must be a plain name"
# R12: a rack without hosts was "internal error: invalid node".
bad_input rack_without_hosts "$CFX/clusters/rack_without_hosts.yaml:5: racks[0].hosts: " \
  run "$FIX/base.yaml" --set cluster=../../fixtures/clusters/rack_without_hosts.yaml
# R13: a 1e-7 s interval rounded to 0 us (SIGFPE); 1e300 s overflowed.
bad_input timeline_interval_tiny "$FIX/base.yaml: metrics.timeline_interval_s: " \
  run "$FIX/base.yaml" --set metrics.timeline_interval_s=0.0000001
bad_input timeline_interval_huge "$FIX/base.yaml: metrics.timeline_interval_s: " \
  run "$FIX/base.yaml" --set metrics.timeline_interval_s=1e300
# R20: a folder where a file is expected (internal error, and a leak in yaml-cpp).
bad_input catalog_is_folder "$CFX/clusters/catalog_is_folder.yaml:3: catalog: " \
  run "$FIX/base.yaml" --set cluster=../../fixtures/clusters/catalog_is_folder.yaml
stderr_has catalog_is_folder_says "is a folder, expected a file"
bad_input cluster_is_folder "$FIX/base.yaml: cluster: " validate "$FIX/base.yaml" --set cluster=.
bad_input profile_is_folder "$FIX/base.yaml: perf.profile: '$FIX/': is a folder" run "$FIX/base.yaml" --set perf.model=placement --set perf.profile=.
# R21: a name too long made std::filesystem::exists throw.
bad_input path_too_long "$CFX/scenarios/long_path.yaml:3: cluster: " validate "$CFX/scenarios/long_path.yaml"
stderr_has path_too_long_says "File name too long"
# R22: validate passed what run refused mid-run, without the scenario's line.
bad_input generator_unknown_model "$CFX/scenarios/generator_unknown_model.yaml:10: workload.generate.models: " \
  validate "$CFX/scenarios/generator_unknown_model.yaml"
stderr_has generator_unknown_model_suggests "did you mean 'H100'?"
# R18: an absurdly slow profile made 32-GPU jobs finish in 0 s.
bad_input profile_absurd "$FIX/profile_absurd_slow.yaml:2: tiers.nvlink.alpha_us: " \
  run "$FIX/base.yaml" --set perf.model=placement --set perf.profile=profile_absurd_slow.yaml
# R19: batch 2^32 became 0 (speed 0, assert).
bad_input models_batch_2p32 "$FIX/models_batch_2p32.yaml:5: models[0].batch: " \
  run "$FIX/base.yaml" --set perf.model=placement --set perf.models=models_batch_2p32.yaml
# R08: rank INT_MAX overflowed an int.
bad_input nccl_rank_intmax "$FIX/nccl_rank_intmax.log:1: rank: " \
  calibrate --from-nccl-tests "$FIX/nccl_rank_intmax.log" --tier nvlink --out "$TMP/p08.yaml"
# R17: a fit error named no file.
bad_input nccl_fit_names_log "$FIX/nccl_times_fall.log: " \
  calibrate --from-nccl-tests "$FIX/nccl_times_fall.log" --tier nvlink --out "$TMP/p17.yaml"
if [ -e "$TMP/p08.yaml" ] || [ -e "$TMP/p17.yaml" ]; then fail calibrate_writes_nothing "a profile was written"; else
  pass calibrate_writes_nothing; fi

# R13's other half: the finest interval over a long run is coarsened, with one notice.
run run "$FIX/base.yaml" --set metrics.timeline_interval_s=0.000001 --out "$TMP/fine"
if [ "$rc" -eq 0 ] && [ "$(grep -c "timeline interval coarsened" "$TMP/stderr")" -eq 1 ]; then pass timeline_coarsened; else
  fail timeline_coarsened "exit code $rc, $(grep -c "timeline interval coarsened" "$TMP/stderr") coarsening notices"; fi
stderr_has timeline_coarsened_notice "schedlab: notice: timeline interval coarsened from 1e-06 s"
rows=$(wc -l <"$TMP/fine/timeline.csv" 2>/dev/null || echo 0)
if [ "$rows" -gt 1 ] && [ "$rows" -le 100001 ]; then pass timeline_rows_bounded; else
  fail timeline_rows_bounded "timeline.csv has $rows lines"; fi

run run "$FIX/base.yaml" --sett x=1
if [ "$rc" -eq 2 ]; then pass unknown_option_exits_2; else fail unknown_option_exits_2 "exit code $rc"; fi

# --- good input ------------------------------------------------------------------------

files_ok() {  # files_ok NAME DIR FILE...
  local name=$1 dir=$2
  shift 2
  local f
  for f in "$@"; do
    if [ ! -s "$dir/$f" ]; then
      fail "$name" "$dir/$f missing or empty"
      return
    fi
  done
  pass "$name"
}

run run scenarios/quickstart.yaml --out "$TMP/quick"
if [ "$rc" -eq 0 ]; then pass run_quickstart; else fail run_quickstart "exit code $rc"; fi
files_ok run_quickstart_files "$TMP/quick" jobs.csv timeline.csv summary.json run.yaml
if grep -q '"finished": 1000' "$TMP/quick/summary.json"; then pass run_quickstart_all_finished; else
  fail run_quickstart_all_finished "summary.json lacks \"finished\": 1000"; fi
if [ "$(wc -l <"$TMP/quick/jobs.csv")" -eq 1001 ]; then pass run_quickstart_job_rows; else
  fail run_quickstart_job_rows "jobs.csv has $(wc -l <"$TMP/quick/jobs.csv") lines, expected 1001"; fi

# Byte-identical reruns, also across --out folders.
run run scenarios/quickstart.yaml --out "$TMP/quick2"
same=1
for f in jobs.csv timeline.csv summary.json run.yaml; do
  cmp -s "$TMP/quick/$f" "$TMP/quick2/$f" || { same=0; echo "       differs: $f"; }
done
if [ "$rc" -eq 0 ] && [ "$same" -eq 1 ]; then pass rerun_is_byte_identical; else fail rerun_is_byte_identical "files differ"; fi

run run scenarios/hetero-compare.yaml --set scheduler.admission=incremental --seed 7 --out "$TMP/h1"
run run scenarios/hetero-compare.yaml --set scheduler.admission=incremental --seed 7 --out "$TMP/h2"
if [ "$rc" -eq 0 ] && diff -r "$TMP/h1" "$TMP/h2" >/dev/null; then pass rerun_with_set_is_byte_identical; else
  fail rerun_with_set_is_byte_identical "exit code $rc or files differ"; fi

run compare scenarios/hetero-compare.yaml --out "$TMP/cmp" -j 2
if [ "$rc" -eq 0 ]; then pass compare_runs; else fail compare_runs "exit code $rc"; fi
files_ok compare_writes_csv "$TMP/cmp" compare.csv first-fit/summary.json spread/jobs.csv
if head -1 "$TMP/cmp/compare.csv" | grep -q '^metric,first-fit,best-fit,rack-pack,spread,'; then
  pass compare_csv_header
else
  fail compare_csv_header "unexpected header: $(head -1 "$TMP/cmp/compare.csv" 2>/dev/null)"
fi

run validate scenarios/quickstart.yaml
if [ "$rc" -eq 0 ] && grep -q 'scenarios/quickstart.yaml: ok' "$TMP/stdout"; then pass validate_ok; else
  fail validate_ok "exit code $rc"; fi

run list
if [ "$rc" -eq 0 ] && grep -q 'best-fit' "$TMP/stdout" && grep -q 'fifo' "$TMP/stdout" &&
  grep -q 'native' "$TMP/stdout" && grep -q 'H100' "$TMP/stdout"; then
  pass list_prints_parts
else
  fail list_prints_parts "exit code $rc or a part missing"
fi

run --version
if [ "$rc" -eq 0 ] && grep -qE '^schedlab [0-9]+\.[0-9]+\.[0-9]+' "$TMP/stdout"; then pass version; else
  fail version "exit code $rc: $(cat "$TMP/stdout")"; fi

run trace generate --jobs 50 --seed 3 -o "$TMP/gen.csv"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/gen.csv")" -eq 51 ]; then pass trace_generate; else
  fail trace_generate "exit code $rc"; fi
run trace stats "$TMP/gen.csv"
if [ "$rc" -eq 0 ] && grep -qE '^  jobs +50$' "$TMP/stdout"; then pass trace_stats; else fail trace_stats "exit code $rc"; fi

# generate | stats through a pipe (the format named: a pipe cannot be read twice to detect it).
if "$BIN" trace generate --jobs 20 --seed 3 2>/dev/null | "$BIN" trace stats --format native /dev/stdin \
  >"$TMP/stdout" 2>"$TMP/stderr" && grep -qE '^  jobs +20$' "$TMP/stdout"; then
  pass trace_generate_pipe_stats
else
  fail trace_generate_pipe_stats "pipe failed"
fi
# The same seed generates the same trace.
"$BIN" trace generate --jobs 50 --seed 3 -o "$TMP/gen2.csv" 2>/dev/null
if cmp -s "$TMP/gen.csv" "$TMP/gen2.csv"; then pass trace_generate_deterministic; else
  fail trace_generate_deterministic "traces differ"; fi

# convert: native to native is the identity.
run trace convert "$TMP/gen.csv" -o "$TMP/conv.csv"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/gen.csv" "$TMP/conv.csv"; then pass trace_convert_roundtrip; else
  fail trace_convert_roundtrip "exit code $rc or the converted trace differs"; fi
# generate --like: resampled from a trace, N jobs, deterministic (more in cases/generate_load.sh).
run trace generate --like "$TMP/gen.csv" --load 2 --jobs 30 --seed 5 -o "$TMP/like.csv"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/like.csv")" -eq 31 ] && grep -q "resampling 50 jobs" "$TMP/stderr"; then
  pass trace_generate_like
else
  fail trace_generate_like "exit code $rc"
fi
"$BIN" trace generate --like "$TMP/gen.csv" --load 2 --jobs 30 --seed 5 -o "$TMP/like2.csv" 2>/dev/null
if cmp -s "$TMP/like.csv" "$TMP/like2.csv"; then pass trace_generate_like_deterministic; else
  fail trace_generate_like_deterministic "traces differ"; fi
bad_input trace_load_without_like "--load: " trace generate --jobs 5 --load 2
# Numbers out of range are located errors naming the limit, through every trace command:
# no wrapped time (R01), no 0-GPU wrap (R05), no "internal error" from JSON (R24), no clock
# overflow in the generator (R14); messages name the option typed (--format).
TRF=tests/fixtures/traces
bad_input trace_stats_duration_overflow "tests/fixtures/native/duration_overflow.csv:3: duration_s: " \
  trace stats tests/fixtures/native/duration_overflow.csv --format native
stderr_has trace_stats_duration_overflow_limit "is out of range [0, 3153600000] (100 years)"
bad_input trace_convert_duration_overflow "tests/fixtures/native/duration_overflow.csv:3: duration_s: " \
  trace convert tests/fixtures/native/duration_overflow.csv -o -
bad_input trace_run_tasks_2p32 "$PWD/tests/fixtures/native/tasks_2p32.csv:3: tasks: " \
  run "$FIX/base.yaml" --set workload.trace="$PWD/tests/fixtures/native/tasks_2p32.csv"
stderr_has trace_run_tasks_2p32_limit "4294967296 is out of range [1, 4294967295]"
bad_input trace_openb_num_gpu_2p32 "$TRF/openb/range_num_gpu.csv:3: num_gpu: " \
  trace stats "$TRF/openb/range_num_gpu.csv" --format openb
bad_input trace_philly_number_overflow "$TRF/philly/number_overflow.json:3: " \
  trace stats "$TRF/philly/number_overflow.json" --format philly
stderr_has trace_philly_number_overflow_says "number overflow"
bad_input trace_generate_rate_tiny "generate.arrival_rate_per_hour: " trace generate --jobs 5 --rate 1e-300
bad_input trace_stats_names_format_option "tests/fixtures/native/unknown_format.txt:1: --trace-format: " \
  trace stats tests/fixtures/native/unknown_format.txt
bad_input trace_stats_bad_output_format "--format: yaml: expected text or json" \
  trace stats tests/fixtures/native/comment_first.csv --format yaml
# --format json: the figures as one JSON document; -t names the trace's format.
run trace stats tests/fixtures/native/comment_first.csv -t native --format json
if [ "$rc" -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['jobs'] == 2 and 'p50' in d['duration_percentiles_s']" \
  "$TMP/stdout" 2>/dev/null; then
  pass trace_stats_format_json
else
  fail trace_stats_format_json "exit code $rc, or stdout is not the figures as JSON"
fi
run trace stats tests/fixtures/native/comment_first.csv
if [ "$rc" -eq 0 ] && grep -q "jobs                 2" "$TMP/stdout"; then pass trace_detects_native_after_comment; else
  fail trace_detects_native_after_comment "exit code $rc"; fi
# A public trace, where ../shared is present: SWF (gzip) converts to the native format.
if [ -f ../shared/traces/swf/KTH-SP2-1996-2.1-cln.swf.gz ]; then
  run trace convert ../shared/traces/swf/KTH-SP2-1996-2.1-cln.swf.gz -o "$TMP/kth.csv"
  if [ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/kth.csv")" -eq 27993 ]; then pass trace_convert_swf; else
    fail trace_convert_swf "exit code $rc"; fi
else
  echo "skip trace_convert_swf (../shared absent)"
fi

# No GPU on the test machines: calibrate must say so in one line and exit 3. Where a GPU
# is present (nvidia-smi finds one), the check does not apply.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "skip calibrate_without_gpu (a GPU is present)"
else
  run calibrate --out "$TMP/profile.yaml"
  if [ "$rc" -ne 3 ]; then
    fail calibrate_without_gpu "exit code $rc, expected 3"
  elif [ "$(wc -l <"$TMP/stderr")" -ne 1 ]; then
    fail calibrate_without_gpu "expected one line on stderr, got $(wc -l <"$TMP/stderr")"
  else
    pass calibrate_without_gpu
  fi
fi

# --- output safety: nothing schedlab did not write is replaced ---------------------------

ABS=$(pwd)
# A folder holding a user's file is refused, with or without --force, and the file kept.
mkdir -p "$TMP/precious" && echo important >"$TMP/precious/thesis.tex"
for force in "" --force; do
  run run "$FIX/base.yaml" --out "$TMP/precious" $force
  if [ "$rc" -eq 2 ] && grep -qF "schedlab: error: $TMP/precious: --out: holds files that schedlab did not write" \
    "$TMP/stderr" && [ "$(cat "$TMP/precious/thesis.tex")" = important ] &&
    [ "$(ls -A "$TMP/precious")" = thesis.tex ] && ! compgen -G "$TMP/.precious.*" >/dev/null; then
    pass "out_user_folder_kept${force:+_force}"
  else
    fail "out_user_folder_kept${force:+_force}" "exit code $rc or the folder changed"
  fi
done
run compare scenarios/hetero-compare.yaml --out "$TMP/precious" -j 2
if [ "$rc" -eq 2 ] && [ "$(ls -A "$TMP/precious")" = thesis.tex ]; then pass compare_out_user_folder_kept; else
  fail compare_out_user_folder_kept "exit code $rc or the folder changed"; fi
# An empty folder needs --force.
mkdir -p "$TMP/empty"
run run "$FIX/base.yaml" --out "$TMP/empty"
if [ "$rc" -eq 2 ] && grep -qF -- "use --force" "$TMP/stderr"; then pass out_empty_folder_needs_force; else
  fail out_empty_folder_needs_force "exit code $rc"; fi
run run "$FIX/base.yaml" --out "$TMP/empty" --force
files_ok out_empty_folder_with_force "$TMP/empty" jobs.csv .schedlab-results

# `--out .` and folders above the current one, run from a scratch folder so that a
# regression could only empty that folder. The refusals come before the simulation.
mkdir -p "$TMP/cwd/sub" && echo keep >"$TMP/cwd/sub/mine.txt"
for target in . .. "$TMP/cwd"; do
  (cd "$TMP/cwd/sub" && "$BIN" run "$ABS/$FIX/base.yaml" --out "$target" --force >"$TMP/stdout" 2>"$TMP/stderr")
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "--out: is the current folder or a folder above it" "$TMP/stderr" &&
    [ "$(ls -A "$TMP/cwd/sub")" = mine.txt ]; then
    pass "out_refused_$target"
  else
    fail "out_refused_$target" "exit code $rc or the folder changed"
  fi
done
# `--out /` and the home folder: with a trace that fails mid-run, so that even a
# regression could not reach the point of replacing anything.
run run "$FIX/base.yaml" --set workload.trace=unknown_model.csv --out / --force
if [ "$rc" -eq 2 ] && grep -qF "schedlab: error: /: --out: is the root folder" "$TMP/stderr"; then
  pass out_refused_root
else
  fail out_refused_root "exit code $rc"
fi
mkdir -p "$TMP/home"
HOME="$TMP/home" "$BIN" run "$FIX/base.yaml" --set workload.trace=unknown_model.csv --out "$TMP/home" --force \
  >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
if [ "$rc" -eq 2 ] && grep -qF -- "--out: is the home folder" "$TMP/stderr"; then pass out_refused_home; else
  fail out_refused_home "exit code $rc"; fi

# A results folder is replaced whole; a run that fails leaves the old results as they were.
run run "$FIX/base.yaml" --out "$TMP/res"
cp "$TMP/res/jobs.csv" "$TMP/res-jobs.csv"
echo stale >"$TMP/res/extra.txt"
run run "$FIX/base.yaml" --set workload.trace=unknown_model.csv --out "$TMP/res"
if [ "$rc" -eq 2 ] && cmp -s "$TMP/res/jobs.csv" "$TMP/res-jobs.csv" && [ -f "$TMP/res/extra.txt" ] &&
  ! compgen -G "$TMP/.res.*" >/dev/null; then
  pass out_failed_run_keeps_old_results
else
  fail out_failed_run_keeps_old_results "exit code $rc or the old results changed"
fi
run run "$FIX/base.yaml" --set scheduler.placement=first-fit --out "$TMP/res"
if [ "$rc" -eq 0 ] && [ ! -e "$TMP/res/extra.txt" ] && [ -s "$TMP/res/jobs.csv" ] &&
  grep -q '^schedlab [0-9.]* results folder$' "$TMP/res/.schedlab-results" && ! compgen -G "$TMP/.res.*" >/dev/null
then
  pass out_results_folder_replaced
else
  fail out_results_folder_replaced "exit code $rc or leftovers"
fi

# kill -9 while the results are being written, then a rerun: the staging folder of the
# dead run is removed and the results are the same as an uninterrupted run's.
"$BIN" run "$FIX/big.yaml" --out "$TMP/big" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 3000); do
  compgen -G "$TMP/.big.tmp-$pid/jobs.csv" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
if compgen -G "$TMP/.big.tmp-$pid/jobs.csv" >/dev/null && kill -9 "$pid" 2>/dev/null; then
  wait "$pid" 2>/dev/null
  # A staged folder of a live process (this shell) is left alone.
  mkdir -p "$TMP/.big.tmp-$$" && echo "schedlab 0 results folder" >"$TMP/.big.tmp-$$/.schedlab-results"
  if [ -d "$TMP/.big.tmp-$pid" ] && [ ! -e "$TMP/big" ]; then
    run run "$FIX/big.yaml" --out "$TMP/big"
    run run "$FIX/big.yaml" --out "$TMP/big-ref"
    if [ "$rc" -eq 0 ] && [ ! -e "$TMP/.big.tmp-$pid" ] && [ -d "$TMP/.big.tmp-$$" ] &&
      diff -r "$TMP/big" "$TMP/big-ref" >/dev/null; then
      pass out_killed_run_cleaned_and_rerun_identical
    else
      fail out_killed_run_cleaned_and_rerun_identical "exit code $rc, a stale folder or different results"
    fi
  else
    fail out_killed_run_cleaned_and_rerun_identical "the killed run left no staging folder, or a results folder"
  fi
  rm -rf "$TMP/.big.tmp-$$" "$TMP/big" "$TMP/big-ref"
else
  wait "$pid" 2>/dev/null
  fail out_killed_run_cleaned_and_rerun_identical "the run ended before it could be killed while writing"
fi

# trace convert/generate -o: a failure leaves no file, and an old OUT untouched.
echo keep >"$TMP/keep.csv"
run trace convert "$FIX/not_number.csv" --format native -o "$TMP/keep.csv"
if [ "$rc" -eq 2 ] && [ "$(cat "$TMP/keep.csv")" = keep ] && ! compgen -G "$TMP/.keep.csv.*" >/dev/null &&
  ! compgen -G "$TMP/keep.csv?*" >/dev/null; then
  pass trace_convert_failure_keeps_out
else
  fail trace_convert_failure_keeps_out "exit code $rc or a file changed or was left"
fi
run trace convert "$FIX/not_number.csv" --format native -o "$TMP/conv_bad.csv"
if [ "$rc" -eq 2 ] && ! compgen -G "$TMP/conv_bad.csv*" >/dev/null && ! compgen -G "$TMP/.conv_bad.csv*" >/dev/null
then
  pass trace_convert_failure_leaves_nothing
else
  fail trace_convert_failure_leaves_nothing "exit code $rc or a file was left"
fi
run trace generate --like "$FIX/not_number.csv" --like-format native --jobs 5 -o "$TMP/gen_bad.csv"
if [ "$rc" -eq 2 ] && ! compgen -G "$TMP/gen_bad.csv*" >/dev/null && ! compgen -G "$TMP/.gen_bad.csv*" >/dev/null
then
  pass trace_generate_failure_leaves_nothing
else
  fail trace_generate_failure_leaves_nothing "exit code $rc or a file was left"
fi
run trace generate --jobs 5 -o "$TMP"
if [ "$rc" -eq 2 ] && grep -qF -- "--out: is a folder" "$TMP/stderr"; then pass trace_generate_out_folder_refused; else
  fail trace_generate_out_folder_refused "exit code $rc"; fi

# compare: a variant name is one folder name inside the results.
run compare "$FIX/base.yaml" --variant '..:scheduler.placement=spread' --out "$TMP/cmpbad"
if [ "$rc" -eq 2 ] && grep -qF -- "--variant: '..' starts with '.'" "$TMP/stderr" && [ ! -e "$TMP/cmpbad" ]
then
  pass compare_variant_name_checked
else
  fail compare_variant_name_checked "exit code $rc"
fi

# Results of runs with stops: the new columns and figures, and the --events log.
if head -1 "$TMP/quick/jobs.csv" | grep -q ',state,drop_reason,preemptions,failures,restarts,attained_gpu_s,lost_gpu_s,cpus_per_task,mem_gb_per_task,pool,kind$' &&
  head -1 "$TMP/quick/timeline.csv" | grep -q ',fragmented_gpus,down_gpus,cpu_utilization,used_cpus$' &&
  grep -q '"goodput": 1.0,' "$TMP/quick/summary.json" && grep -q '"preemptions": 0,' "$TMP/quick/summary.json"; then
  pass results_life_columns_and_figures
else
  fail results_life_columns_and_figures "jobs.csv/timeline.csv header or summary.json figures missing"
fi
run run "$FIX/base.yaml" --out "$TMP/ev" --events "$TMP/ev.csv"
finished=$(sed -n 's/^  "finished": \([0-9]*\),$/\1/p' "$TMP/ev/summary.json")
if [ "$rc" -eq 0 ] && [ "$(head -1 "$TMP/ev.csv")" = "time_s,job,event,reason,gpus,placement,work_done_s,lost_work_s" ] &&
  [ "$(grep -c ',finish,' "$TMP/ev.csv")" = "$finished" ] && [ "$(grep -c ',start,' "$TMP/ev.csv")" = "$finished" ] &&
  ! compgen -G "$TMP/.ev.csv.*" >/dev/null; then
  pass events_log_written
else
  fail events_log_written "exit code $rc, header, or not one start and one finish per finished job"
fi
# Named inside the results folder it is written with them; the same run gives the same bytes.
run run "$FIX/base.yaml" --out "$TMP/ev2" --events "$TMP/ev2/events.csv"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/ev.csv" "$TMP/ev2/events.csv" && cmp -s "$TMP/ev/jobs.csv" "$TMP/ev2/jobs.csv"; then
  pass events_log_inside_results_identical
else
  fail events_log_inside_results_identical "exit code $rc or files differ"
fi
bad_input events_folder "$TMP: --events: is a folder" run "$FIX/base.yaml" --events "$TMP"
bad_input events_no_folder "$TMP/nodir/e.csv: --events: cannot write" run "$FIX/base.yaml" --events "$TMP/nodir/e.csv"
bad_input events_replaces_results "$TMP/out-events_replaces_results/jobs.csv: --events: would replace" \
  run "$FIX/base.yaml" --events "$TMP/out-events_replaces_results/jobs.csv"

# --- schedlab worker: the emulator's task process ------------------------------------------

# wait_for_files FILE...: until every file exists (a worker writes its progress file once its
# gang has formed), for at most 10 s.
wait_for_files() {
  for _ in $(seq 1 1000); do
    local all=yes f
    for f in "$@"; do [ -e "$f" ] || all=""; done
    [ -n "$all" ] && return 0
    sleep 0.01
  done
  return 1
}

# Bad arguments and environment: exit 2, one line naming the option or variable.
bad_input worker_work_not_number "--work-us: 'ten' is not a number" worker --work-us ten --speed 1 --speedup 10
bad_input worker_work_required "--work-us: required" worker --speed 1 --speedup 10
bad_input worker_speed_range "--speed: 0 is out of range" worker --work-us 5 --speed 0 --speedup 10
bad_input worker_unknown_option "worker: unexpected argument '--bogus'" worker --work-us 5 --speed 1 --speedup 10 --bogus
bad_input worker_gpu_options_alone "--gemm-flops: only with --gpu" worker --work-us 5 --speed 1 --speedup 10 --gemm-flops 1e9
bad_input worker_no_checkpoint_folder "$TMP/nowhere: --checkpoint-dir: is not a folder" \
  worker --work-us 5 --speed 1 --speedup 10 --checkpoint-dir "$TMP/nowhere"
RANK=3 WORLD_SIZE=2 bad_input worker_rank_beyond_gang "env RANK: 3 is not a rank of a gang of 2" \
  worker --work-us 5 --speed 1 --speedup 10
RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=99999 bad_input worker_bad_port "env MASTER_PORT: 99999 is out of range" \
  worker --work-us 5 --speed 1 --speedup 10
mkdir -p "$TMP/wbad" && printf 'schedlab checkpoint 1\nwork lots\n' >"$TMP/wbad/checkpoint"
bad_input worker_bad_checkpoint "$TMP/wbad/checkpoint:2: work: 'lots' is not a number" \
  worker --work-us 5 --speed 1 --speedup 10 --checkpoint-dir "$TMP/wbad"

# A worker alone does its work (2e6 units at 0.8 x 20 = 125 ms) and leaves its progress.
mkdir -p "$TMP/w1"
run worker --work-us 2000000 --speed 0.8 --speedup 20 --progress-file "$TMP/w1/progress"
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/w1/progress")" = 2000000 ] && [ ! -s "$TMP/stderr" ]; then pass worker_runs_to_completion; else
  fail worker_runs_to_completion "exit code $rc, progress '$(cat "$TMP/w1/progress" 2>/dev/null)'"; fi

# SIGTERM: a graceful save of everything done, exit 143; then a restart resumes from it.
mkdir -p "$TMP/w2"
"$BIN" worker --work-us 100000000 --speed 1 --speedup 10 --checkpoint-dir "$TMP/w2" --checkpoint-interval-us 1000000 \
  --save-us 1000000 --progress-file "$TMP/w2/progress" 2>"$TMP/stderr" &
pid=$!
wait_for_files "$TMP/w2/progress"
sleep 0.3
kill -TERM "$pid"
wait "$pid"
rc=$?
saved=$(sed -n 's/^work \([0-9]*\)$/\1/p' "$TMP/w2/checkpoint" 2>/dev/null)
if [ "$rc" -eq 143 ] && [ -n "$saved" ] && [ "$saved" -gt 1000000 ] && [ "$(cat "$TMP/w2/progress")" = "$saved" ] &&
  [ "$(ls -A "$TMP/w2" | sort | tr '\n' ' ')" = "checkpoint progress " ]; then
  pass worker_sigterm_saves_and_exits_143
else
  fail worker_sigterm_saves_and_exits_143 "exit code $rc, checkpoint work '$saved'"
fi
run worker --work-us $((saved + 500000)) --speed 1 --speedup 10 --restore-us 500000 --checkpoint-dir "$TMP/w2" \
  --progress-file "$TMP/w2/progress"
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/w2/progress")" = $((saved + 500000)) ]; then pass worker_resumes_from_checkpoint; else
  fail worker_resumes_from_checkpoint "exit code $rc"; fi

# A gang of three processes; kill -9 of one: the others stall, then exit 4 saying why.
gang_ok=""
for attempt in 1 2 3; do
  port=$((20000 + (RANDOM % 30000)))
  pids=()
  for r in 0 1 2; do
    RANK=$r WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port SCHEDLAB_JOB_ID=e2e \
      "$BIN" worker --work-us 100000000 --speed 1 --speedup 10 --peer-timeout-s 0.5 \
      --progress-file "$TMP/gang-$r" 2>"$TMP/gang-$r.err" &
    pids+=($!)
  done
  wait_for_files "$TMP/gang-0" "$TMP/gang-1" "$TMP/gang-2"  # the gang has formed and runs
  sleep 0.2
  kill -9 "${pids[1]}"
  codes=""
  for r in 0 1 2; do
    wait "${pids[$r]}" 2>/dev/null
    codes="$codes$? "
  done
  if grep -q "cannot listen" "$TMP/gang-0.err"; then continue; fi  # the port was taken: another try
  if [ "$codes" = "4 137 4 " ] && [ "$(wc -l <"$TMP/gang-0.err")" -eq 1 ] &&
    grep -q "gang broken: rank 1 disconnected" "$TMP/gang-0.err" && grep -q "gang broken: rank 0 reports: rank 1 disconnected" "$TMP/gang-2.err" &&
    [ "$(cat "$TMP/gang-0")" = "$(cat "$TMP/gang-2")" ] && [ "$(cat "$TMP/gang-0")" -gt 0 ]; then
    gang_ok=yes
  fi
  break
done
if [ -n "$gang_ok" ]; then pass worker_gang_killed_rank_fails_the_gang; else
  fail worker_gang_killed_rank_fails_the_gang "exit codes '$codes'"; sed 's/^/       /' "$TMP"/gang-*.err | head -6; fi

# A graceful stop is the gang's: SIGTERM to rank 1 alone (saving in no time) stops both ranks
# with 143, and rank 0 saves what the gang finished.
stop_ok=""
for attempt in 1 2 3; do
  port=$((20000 + (RANDOM % 30000)))
  mkdir -p "$TMP/gs-$attempt"
  pids=()
  for r in 0 1; do
    RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port SCHEDLAB_JOB_ID=e2e-stop \
      SCHEDLAB_CHECKPOINT_DIR="$TMP/gs-$attempt" SCHEDLAB_PROGRESS_FILE="$TMP/gs-$attempt/progress-$r" \
      "$BIN" worker --work-us 100000000 --speed 1 --speedup 10 2>"$TMP/gs-$r.err" &
    pids+=($!)
  done
  wait_for_files "$TMP/gs-$attempt/progress-0" "$TMP/gs-$attempt/progress-1"
  sleep 0.2
  kill -TERM "${pids[1]}"
  codes=""
  for r in 0 1; do
    wait "${pids[$r]}"
    codes="$codes$? "
  done
  if grep -q "cannot listen" "$TMP/gs-0.err"; then continue; fi
  saved=$(sed -n 's/^work \([0-9]*\)$/\1/p' "$TMP/gs-$attempt/checkpoint" 2>/dev/null)
  if [ "$codes" = "143 143 " ] && [ -n "$saved" ] && [ "$saved" -gt 0 ] &&
    [ "$(cat "$TMP/gs-$attempt/progress-0")" = "$saved" ] && [ ! -s "$TMP/gs-0.err" ]; then
    stop_ok=yes
  fi
  break
done
if [ -n "$stop_ok" ]; then pass worker_gang_stops_gracefully_together; else
  fail worker_gang_stops_gracefully_together "exit codes '$codes', checkpoint work '$saved'"; fi

# --gpu without a GPU (or without CUDA): one line, exit 3. Where a GPU is present it does not apply.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "skip worker_gpu_without_gpu (a GPU is present)"
else
  run worker --work-us 5 --speed 1 --speedup 10 --gpu --gemm-flops 1e9 --allreduce-bytes 1048576
  if [ "$rc" -eq 3 ] && [ "$(wc -l <"$TMP/stderr")" -eq 1 ] && grep -q "^schedlab: worker --gpu: .*no CUDA" "$TMP/stderr"; then
    pass worker_gpu_without_gpu
  else
    fail worker_gpu_without_gpu "exit code $rc, expected 3 and one line"
  fi
fi

# --- schedlab agent: its command line, a controller that never answers, signals --------

bad_input agent_no_port "--controller: '127.0.0.1': no port" agent --controller 127.0.0.1 --host h1
bad_input agent_port_range "--controller: '127.0.0.1:70000': the port is out of range [1, 65535]" \
  agent --controller 127.0.0.1:70000 --host h1
bad_input agent_ipv6_brackets "--controller: '::1:7070': an IPv6 address goes in brackets" agent --controller ::1:7070 --host h1
bad_input agent_gpus_twice "--gpus: GPU 1 is listed twice in '0,1,1'" agent --controller 127.0.0.1:7070 --host h1 --gpus 0,1,1
bad_input agent_gpus_garbage "--gpus: 'x' is not a GPU index" agent --controller 127.0.0.1:7070 --host h1 --gpus 0,x
bad_input agent_virtual_negative "--virtual-gpus: -2 is out of range [0, 4096]" \
  agent --controller 127.0.0.1:7070 --host h1 --virtual-gpus -2
bad_input agent_lost_timeout "--lost-timeout: 0 s is out of range" agent --controller 127.0.0.1:7070 --host h1 --lost-timeout 0
bad_input agent_token_missing "$TMP/no-token: --token-file: no such file" \
  agent --controller 127.0.0.1:7070 --host h1 --token-file "$TMP/no-token"
echo short >"$TMP/short-token"
bad_input agent_token_short "$TMP/short-token: --token-file: the token has 5 characters; at least 16 are needed" \
  agent --controller 127.0.0.1:7070 --host h1 --token-file "$TMP/short-token"
run agent --controller 127.0.0.1:7070 --host h1 --gpus 0 --virtual-gpus 2
if [ "$rc" -eq 2 ]; then pass agent_gpus_excludes_virtual; else fail agent_gpus_excludes_virtual "exit code $rc"; fi

# Nobody listens on port 1: the agent retries, then gives up after --lost-timeout with exit 1.
start=$(date +%s%N)
run agent --controller 127.0.0.1:1 --host h1 --lost-timeout 0.5 --work-dir "$TMP/agent-lost"
took_ms=$((($(date +%s%N) - start) / 1000000))
if [ "$rc" -eq 1 ] && [ "$took_ms" -lt 5000 ] && grep -qF "(--lost-timeout): killing 0 task(s), exiting 1" "$TMP/stderr" &&
  grep -qF "schedlab agent h1: controller 127.0.0.1:1 lost (connection refused" "$TMP/stderr"; then
  pass agent_lost_controller_exits_1
else
  fail agent_lost_controller_exits_1 "exit code $rc after $took_ms ms"
fi
# SIGTERM: the agent stops (no task to end here) and exits 0.
"$BIN" agent --controller 127.0.0.1:1 --host h1 --lost-timeout 60 --work-dir "$TMP/agent-term" 2>"$TMP/stderr" &
agent_pid=$!
sleep 0.5
kill -TERM "$agent_pid"
wait "$agent_pid"
rc=$?
if [ "$rc" -eq 0 ] && grep -qF "SIGTERM received, stopping" "$TMP/stderr"; then
  pass agent_sigterm_exits_0
else
  fail agent_sigterm_exits_0 "exit code $rc"
fi

# run --explain JOB, worked by hand in tests/e2e/fixtures/explain/explain.yaml.
run run tests/e2e/fixtures/explain/explain.yaml -o "$TMP/explain" --explain 2
cat >"$TMP/story-want" <<'STORY'
job 2 (trace id 12): 1 task(s) x 4 GPU(s)
     20.000000 s  submitted
     20.000000 s  waits behind job 1 (position 2 in the queue)
    100.000000 s  first in the queue: needs 1 more task(s) of 4 GPU(s) on one host; 0 free GPUs are on hosts with room for one such task, 0 free in all
    150.000000 s  started on h0:4
    180.000000 s  finished (JCT 160.000000 s)
STORY
sed -n '/^job 2 /,/finished/p' "$TMP/stdout" >"$TMP/story-got"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/story-want" "$TMP/story-got"; then pass run_explain_story; else
  fail run_explain_story "exit code $rc; $(diff "$TMP/story-want" "$TMP/story-got" | head -4)"; fi
# The part that refused it: backfill easy's reservation, worked by hand in backfill.yaml.
run run tests/e2e/fixtures/explain/backfill.yaml -o "$TMP/explain-bf" --explain 2
cat >"$TMP/story-want" <<'STORY'
job 2 (trace id 12): 1 task(s) x 4 GPU(s)
     20.000000 s  submitted
     20.000000 s  backfill easy: would delay the reservation of job 1 at t=100 s: ends after it and needs 4 GPUs, 0 spare (position 2 in the queue)
    100.000000 s  first in the queue: needs 1 more task(s) of 4 GPU(s) on one host; 0 free GPUs are on hosts with room for one such task, 0 free in all
    150.000000 s  started on h0:4
    350.000000 s  finished (JCT 330.000000 s)
STORY
sed -n '/^job 2 /,/finished/p' "$TMP/stdout" >"$TMP/story-got"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/story-want" "$TMP/story-got"; then pass run_explain_backfill_reservation; else
  fail run_explain_backfill_reservation "exit code $rc; $(diff "$TMP/story-want" "$TMP/story-got" | head -4)"; fi
# ... and admission pools: the pool over its entitlement, by name (pools.yaml).
run run tests/e2e/fixtures/explain/pools.yaml -o "$TMP/explain-pools" --explain 1
if [ "$rc" -eq 0 ] && grep -qF "10.000000 s  admission pools: pool 'small' would go above its entitlement of 4 GPUs (position 1 in the queue)" "$TMP/stdout"; then
  pass run_explain_pool_entitlement
else
  fail run_explain_pool_entitlement "exit code $rc; $(grep -A3 '^job 1 ' "$TMP/stdout")"
fi
run run tests/e2e/fixtures/explain/explain.yaml -o "$TMP/explain" --explain 7
if [ "$rc" -eq 0 ] && grep -q "^--explain: no job 7 in this run" "$TMP/stdout"; then pass run_explain_unknown_job; else
  fail run_explain_unknown_job "exit code $rc"; fi

# --format json: standard output is one JSON document (the summary), for scripts.
run run tests/fixtures/scenarios/tiny.yaml -o "$TMP/json-run" --format json
if [ "$rc" -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['jobs'] > 0 and 'jct_mean_s' in d" \
  "$TMP/stdout" 2>/dev/null && grep -q "^results: " "$TMP/stderr"; then
  pass run_format_json
else
  fail run_format_json "exit code $rc, or stdout is not the summary as JSON"
fi
run compare tests/fixtures/scenarios/tiny.yaml -o "$TMP/json-cmp" --format json
if [ "$rc" -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [v['name'] for v in d['variants']] == ['ff', 'inc']" \
  "$TMP/stdout" 2>/dev/null; then
  pass compare_format_json
else
  fail compare_format_json "exit code $rc, or stdout is not the variants as JSON"
fi

# --- every row accounted for (traces/README.md) -------------------------------------------
# SWF's -1 ("unknown") drops a row under a counted reason; trace stats lists the reasons and
# what the header declares; --skipped writes each row left out; nothing left is an error.
run trace stats tests/fixtures/traces/swf/unknown_fields.swf -t swf --skipped "$TMP/skipped.csv"
if [ "$rc" -eq 0 ] && grep -qE "^ +2  jobs with unknown run time \(-1\)$" "$TMP/stdout" &&
  grep -qF "header               no header block" "$TMP/stdout" &&
  [ "$(cat "$TMP/skipped.csv")" = "$(printf 'line,reason\n1,jobs with unknown submit time (-1)\n2,jobs with unknown run time (-1)\n3,jobs with no processor count (0 or -1)\n4,jobs with unknown run time (-1)')" ]; then
  pass trace_stats_drops_by_reason
else
  fail trace_stats_drops_by_reason "exit code $rc; $(head -c 300 "$TMP/skipped.csv" 2>/dev/null)"
fi
run trace stats tests/fixtures/traces/swf/unknown_fields.swf -t swf --format json
if [ "$rc" -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['skipped_rows_by_reason']; assert d['jobs'] == 2 and sum(r.values()) == d['skipped_rows'] == 4" \
  "$TMP/stdout" 2>/dev/null; then pass trace_stats_json_drops; else fail trace_stats_json_drops "exit code $rc"; fi
run run "$FIX/base.yaml" --set workload.trace="$PWD/tests/fixtures/traces/swf/unknown_fields.swf" \
  --set workload.format=swf -o "$TMP/swf-drops"
if [ "$rc" -eq 0 ] && grep -qE "^ +1  jobs with unknown submit time \(-1\)$" "$TMP/stdout" &&
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['skipped_rows_by_reason']['jobs with unknown run time (-1)'] == 2" \
  "$TMP/swf-drops/summary.json" 2>/dev/null; then
  pass run_summary_drops_by_reason
else
  fail run_summary_drops_by_reason "exit code $rc"
fi
bad_input trace_all_dropped "$PWD/tests/fixtures/traces/swf/all_dropped.swf: no job remains: all 2 rows were left out" \
  run "$FIX/base.yaml" --set workload.trace="$PWD/tests/fixtures/traces/swf/all_dropped.swf" --set workload.format=swf

# Acme (NSDI'24): detected from its header; trace stats summarises the LLM job types.
run trace stats tests/fixtures/traces/acme/seren.csv
if [ "$rc" -eq 0 ] && grep -qE "^ +Pretrain +2 jobs \(33.3%\) +70.0 GPU-hours" "$TMP/stdout" &&
  grep -qE "^ +1  jobs that never started \(no start_time\)$" "$TMP/stdout"; then
  pass trace_stats_acme_job_types
else
  fail trace_stats_acme_job_types "exit code $rc"
fi

# --- external schedulers (docs/external-scheduler.md) ------------------------------------
# Each misbehaviour of tests/fixtures/external/policy.py is one check schedlab makes: exit 2,
# one line naming the decision and what is wrong, no results folder.
EXT="tests/fixtures/external"
ext_bad() {
  local mode=$1 says=$2
  shift 2
  bad_input "external_$mode" "$EXT/scenario.yaml: scheduler.external: " \
    run "$EXT/scenario.yaml" --scheduler-cmd "python3 $EXT/policy.py $mode" "$@"
  stderr_has "external_${mode}_says" "$says"
}
ext_bad double "decision 1 {\"hosts\":[\"h0\",\"h0\"],\"start\":0}: host h0 has 0 free GPUs, task 2 needs 4"
ext_bad unknown "no job 999 is known"
ext_bad split "job 0 is a gang: its 2 waiting tasks start together, not 1"
ext_bad model "host h2 has A100 GPUs, a model job 0 may not use"
ext_bad extra "3 hosts for 2 waiting task(s)"
ext_bad nohost 'no host "h9" in this cluster'
ext_bad preempt "job 0 is not running"
ext_bad timer "a timer must be a time after now"
ext_bad shape 'a decision is {"start":...}'
ext_bad crash "the policy closed its output; it exited with status 3"
ext_bad garbage "it wrote a line that is not a JSON object: hello world"
ext_bad protocol2 "its hello says protocol 2, schedlab speaks 1"
# The hung policy by its absolute path: pgrep must not see another checkout's test run.
bad_input external_hang "$EXT/scenario.yaml: scheduler.external: " \
  run "$EXT/scenario.yaml" --scheduler-cmd "python3 $PWD/$EXT/policy.py hang" --set scheduler.external.timeout_s=1
stderr_has external_hang_says "did not answer within 1 s"
if pgrep -f "$PWD/$EXT/policy.py hang" >/dev/null; then fail external_hang_killed "the hung policy still runs"; else
  pass external_hang_killed; fi
bad_input external_on_invalid_value "$EXT/scenario.yaml: scheduler.external.on_invalid: 'maybe': expected stop or skip" \
  run "$EXT/scenario.yaml" --scheduler-cmd "python3 $EXT/policy.py fifo" --set scheduler.external.on_invalid=maybe
bad_input external_timeout_range "$EXT/scenario.yaml: scheduler.external.timeout_s: 0 is out of range" \
  run "$EXT/scenario.yaml" --scheduler-cmd "python3 $EXT/policy.py fifo" --set scheduler.external.timeout_s=0
bad_input external_needs_command "$EXT/scenario.yaml: scheduler.external: needs command" \
  run "$EXT/scenario.yaml" --set scheduler.external.timeout_s=5
# A correct policy: the run completes; its jobs.csv is the same twice (determinism).
run run "$EXT/scenario.yaml" --scheduler-cmd "python3 $EXT/policy.py fifo" -o "$TMP/ext-a"
run run "$EXT/scenario.yaml" --scheduler-cmd "python3 $EXT/policy.py fifo" -o "$TMP/ext-b"
if [ "$rc" -eq 0 ] && grep -q "^2,3,[^,]*,20.000000,60.000000,90.000000," "$TMP/ext-a/jobs.csv" &&
  cmp -s "$TMP/ext-a/jobs.csv" "$TMP/ext-b/jobs.csv"; then
  pass external_fifo_runs_deterministic
else
  fail external_fifo_runs_deterministic "exit code $rc, or jobs.csv differs between two runs"
fi
# The Python package's FIFO + best-fit example makes the built-in's decisions: the same jobs.csv.
run run scenarios/quickstart.yaml -o "$TMP/qs-builtin"
run run scenarios/quickstart.yaml --scheduler-cmd "python3 scripts/python/examples/fifo_best_fit.py" -o "$TMP/qs-python"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/qs-builtin/jobs.csv" "$TMP/qs-python/jobs.csv"; then
  pass external_python_fifo_best_fit_equals_builtin
else
  fail external_python_fifo_best_fit_equals_builtin "exit code $rc, or jobs.csv differs from the built-in fifo + gang + best-fit"
fi
# The Tiresias example makes the built-in las + reorder's decisions, preemptions included.
run run scenarios/quickstart.yaml --set scheduler.queue=las --set scheduler.preemption=reorder -o "$TMP/qs-las-builtin"
run run scenarios/quickstart.yaml --scheduler-cmd "python3 scripts/python/examples/las.py" -o "$TMP/qs-las-python"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/qs-las-builtin/jobs.csv" "$TMP/qs-las-python/jobs.csv"; then
  pass external_python_las_equals_builtin
else
  fail external_python_las_equals_builtin "exit code $rc, or jobs.csv differs from the built-in las + reorder"
fi
# on_invalid: skip: the bad decision is reported and ignored; the run goes on.
run run "$EXT/scenario.yaml" --scheduler-cmd "python3 $EXT/policy.py double" \
  --set scheduler.external.on_invalid=skip -o "$TMP/ext-skip"
if [ "$rc" -eq 0 ] && grep -qF "schedlab: warning: scheduler.external: " "$TMP/stderr" &&
  grep -qF "(skipped)" "$TMP/stderr" && [ "$(grep -c '^[0-9]' "$TMP/ext-skip/jobs.csv")" -eq 3 ]; then
  pass external_skip_invalid
else
  fail external_skip_invalid "exit code $rc"
fi

# --- sweeps (docs/sweeps.md) ---------------------------------------------------------------
bad_input sweep_bad_value "tests/fixtures/sweeps/bad_value.yaml:5: grid.scheduler.placement: " \
  sweep tests/fixtures/sweeps/bad_value.yaml -o "$TMP/sweep-bad"
[ -e "$TMP/sweep-bad" ] && fail sweep_bad_value_no_folder "a sweep folder was made" || pass sweep_bad_value_no_folder
mkdir -p "$TMP/not-a-sweep" && echo mine >"$TMP/not-a-sweep/notes.txt"
bad_input sweep_refuses_other_folder "$TMP/not-a-sweep: --out: is not empty and not a sweep folder" \
  sweep tests/fixtures/sweeps/small.yaml -o "$TMP/not-a-sweep"
# A whole sweep: 12 cells, the tidy table (a header and 12 cells x the summary's numbers) and
# one summary row per grid point and metric.
run sweep tests/fixtures/sweeps/small.yaml -o "$TMP/sweep" -j 2
if [ "$rc" -eq 0 ] && [ "$(ls -d "$TMP"/sweep/cells/cell-* | grep -vc '\.log$')" = 12 ] &&
  [ "$(grep -c ',jct_mean_s,' "$TMP/sweep/sweep.csv")" = 12 ] &&
  [ "$(grep -c ',jct_mean_s,3,' "$TMP/sweep/sweep-summary.csv")" = 4 ] && grep -q '^rack-pack  *1.0 ' "$TMP/stdout"; then
  pass sweep_runs_and_collects
else
  fail sweep_runs_and_collects "exit code $rc; $(head -3 "$TMP/stdout")"
fi
# Figures (Debian's matplotlib, installed by the set-up), through `schedlab plot` and its
# embedded scripts: a sweep's and a run's, each PNG and PDF, not empty.
run plot "$TMP/sweep" -o "$TMP/sweep-fig.png"
if [ "$rc" -eq 0 ] && [ -s "$TMP/sweep-fig.png" ] && head -c 4 "$TMP/sweep-fig.pdf" | grep -q '%PDF'; then
  pass plot_sweep_png_pdf
else
  fail plot_sweep_png_pdf "exit code $rc, or empty files"
fi
run plot "$TMP/sweep/cells/cell-000000"
if [ "$rc" -eq 0 ] && [ -s "$TMP/sweep/cells/cell-000000/plot.png" ] &&
  head -c 4 "$TMP/sweep/cells/cell-000000/plot.pdf" | grep -q '%PDF'; then
  pass plot_run_png_pdf
else
  fail plot_run_png_pdf "exit code $rc, or empty files"
fi
bad_input plot_not_a_results_folder "tests/fixtures: is not a run, compare or sweep folder" plot tests/fixtures
run sweep tests/fixtures/sweeps/small.yaml -o "$TMP/sweep"
if [ "$rc" -eq 0 ] && grep -q "12 cells: 0 run now, 12 done before, 0 failed" "$TMP/stdout"; then
  pass sweep_rerun_skips_done_cells
else
  fail sweep_rerun_skips_done_cells "exit code $rc; $(sed -n 2p "$TMP/stdout")"
fi
# A failing cell does not stop the other; the sweep exits 2 and names it with its error.
run sweep tests/e2e/fixtures/sweep_one_fails.yaml -o "$TMP/sweep-fail"
if [ "$rc" -eq 2 ] && grep -qF "not_number.csv:3: duration_s: 'fifty' is not a number" "$TMP/stdout" &&
  [ -f "$TMP/sweep-fail/cells/cell-000000/summary.json" ]; then
  pass sweep_failing_cell
else
  fail sweep_failing_cell "exit code $rc; $(grep failed "$TMP/stdout" | head -2)"
fi
run sweep status "$TMP/sweep-fail"
if grep -q "2 cells: 1 done, 0 running, 1 failed, 0 missing" "$TMP/stdout"; then pass sweep_status; else
  fail sweep_status "$(head -1 "$TMP/stdout")"; fi
# kill -9 in the middle of a sweep; the rerun finishes it, and every cell's files are those
# of a sweep that was never interrupted. Sanitized builds run 10 times slower: a tenth of the
# jobs keeps a cell as long.
mkdir -p "$TMP/slow-sweep"
slow_jobs=20000
[ -n "${ASAN_OPTIONS:-}" ] && slow_jobs=2000
sed "s#jobs: 20000#jobs: $slow_jobs#; s#\.\./\.\./\.\./configs#$PWD/configs#" "$FIX/sweep_slow_scenario.yaml" \
  >"$TMP/slow-sweep/sweep_slow_scenario.yaml"
cp "$FIX/sweep_slow.yaml" "$TMP/slow-sweep/"
# --- the packing experiment (docs/packing.md) ---------------------------------------------
# The hand-worked case of tests/fixtures/scenarios/packing_hand_worked.yaml: best-fit strands
# two of the 12 GPUs, fgd allocates all; compare lines them up; plot draws the curves.
PACK=tests/fixtures/scenarios/packing_hand_worked.yaml
run compare "$PACK" -o "$TMP/pack" -q
if [ "$rc" -eq 0 ] && grep -qE "^  gpu_alloc_ratio +83\.3% +100\.0% \(x1\.20\)$" "$TMP/stdout" &&
  grep -qE "^  pods_failed +1 +0 \(x0\)$" "$TMP/stdout" &&
  grep -q "^100,100.00,6,6,12,12$" "$TMP/pack/fgd/packing.csv" &&
  grep -q "^5,5,1,2,1000,1000,no,,no room$" "$TMP/pack/best-fit/pods.csv"; then
  pass packing_compare_hand_worked
else
  fail packing_compare_hand_worked "exit code $rc"
fi
run run "$PACK" --set scheduler.placement=fgd -o "$TMP/pack-run"
if [ "$rc" -eq 0 ] && grep -qF "GPUs allocated      100.00% when the demand reached 100%" "$TMP/stdout" &&
  [ -f "$TMP/pack-run/summary.json" ] && [ -f "$TMP/pack-run/run.yaml" ] && [ ! -e "$TMP/pack-run/jobs.csv" ]; then
  pass packing_run_table
else
  fail packing_run_table "exit code $rc"
fi
run plot "$TMP/pack"
if [ "$rc" -eq 0 ] && [ -s "$TMP/pack/packing.png" ] && [ -s "$TMP/pack/packing.pdf" ]; then
  pass plot_packing_compare
else
  fail plot_packing_compare "exit code $rc"
fi
bad_input packing_timeless_replay "$PWD/tests/fixtures/traces/openb/timeless.csv:1: creation_time: this pod list has no" \
  run "$FIX/base.yaml" --set workload.trace="$PWD/tests/fixtures/traces/openb/timeless.csv" --set workload.format=openb
bad_input packing_with_preemption "$PACK:" run "$PACK" --set scheduler.preemption=reorder
stderr_has packing_with_preemption_says "preemption must be none"
bad_input packing_explain "$PACK:14: workload.mode: " run "$PACK" --explain 3
bad_input packing_emulate "$PACK:14: workload.mode: " emulate "$PACK" -o "$TMP/out-packing_emulate"

SLOW=$TMP/slow-sweep/sweep_slow.yaml
run sweep "$SLOW" -o "$TMP/slow-whole" -j 1
"$BIN" sweep "$SLOW" -o "$TMP/slow-killed" -j 1 >/dev/null 2>&1 &
sweep_pid=$!
for _ in $(seq 400); do
  [ "$(ls -d "$TMP"/slow-killed/cells/cell-?????? 2>/dev/null | wc -l)" -ge 1 ] && break
  sleep 0.01
done
exec 3>&2 2>/dev/null  # not bash's "Killed" notice
kill -9 "$sweep_pid"
wait "$sweep_pid"
exec 2>&3 3>&-
sleep 0.2
done_before=$(ls -d "$TMP"/slow-killed/cells/cell-?????? 2>/dev/null | wc -l)
run sweep "$SLOW" -o "$TMP/slow-killed" -j 1
same=yes
for c in 0 1 2 3; do
  for f in jobs.csv timeline.csv summary.json; do
    cmp -s "$TMP/slow-whole/cells/cell-00000$c/$f" "$TMP/slow-killed/cells/cell-00000$c/$f" || same=no
  done
done
leftovers=$(find "$TMP/slow-killed/cells" -name '.cell-*' | wc -l)
if [ "$rc" -eq 0 ] && [ "$done_before" -lt 4 ] && [ "$same" = yes ] && [ "$leftovers" = 0 ]; then
  pass sweep_killed_and_resumed
else
  fail sweep_killed_and_resumed "exit $rc, $done_before cells done at the kill, identical: $same, $leftovers staging folders"
fi

# More cases, a file per theme (tests/e2e/cases/*.sh), run in this shell with the helpers above.
for cases in tests/e2e/cases/*.sh; do
  [ -e "$cases" ] || continue
  # shellcheck disable=SC1090
  source "$cases"
done

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
