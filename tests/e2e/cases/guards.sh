# shellcheck shell=bash
# Guards that speak up, once each (issue 27, item 3): the offered load at the start of every
# run and in summary.json, a warning above 1; parts without effect named (las without a
# preemption part gives fifo's results); jobs dropped as never fitting counted with their
# reason; validate refuses what run refuses; a sweep whose seeds change nothing says so.
# Inputs are written here. Sourced by run_e2e.sh.

G="$TMP/guards"
mkdir -p "$G"
# 16 GPUs (8 V100, 8 A100). 32 GPU-hours asked over 1 h of submissions: load 2.00; per model:
# job 0 (any model) shares its 8 by GPU counts, so V100 (4 + 8) / 8 = 1.50, A100 (4 + 16) / 8 = 2.50.
cat >"$G/load.csv" <<'CSV'
id,submit_s,duration_s,tasks,gpus_per_task,gpu_model
0,0,3600,1,8,
1,1800,3600,2,4,V100
2,3600,7200,1,8,A100
CSV
scenario() {  # scenario NAME TRACE [scheduler lines...]
  local name=$1 trace=$2
  shift 2
  {
    echo "name: $name"
    echo "cluster: $PWD/tests/fixtures/clusters/tiny.yaml"
    echo "workload: {trace: $trace, format: native}"
    echo "scheduler:"
    echo "  queue: fifo"
    for line in "$@"; do echo "  $line"; done
  } >"$G/$name.yaml"
}
scenario load "$G/load.csv"

run run "$G/load.yaml" --out "$G/out-load"
if [ "$rc" -eq 0 ] && [ "$(grep -c "offered load" "$TMP/stderr")" -eq 1 ]; then pass guards_offered_load_once; else
  fail guards_offered_load_once "exit code $rc, $(grep -c "offered load" "$TMP/stderr") offered-load lines"; fi
stderr_has guards_offered_load_figures \
  "schedlab: notice: offered load 2.00 (32.0 GPU-hours asked over 1.0 h of submissions, on 16 GPUs); per GPU model: V100 1.50, A100 2.50"
stderr_has guards_overload_warning "overloaded: the jobs ask for more GPU time than the cluster has (2.00 overall, V100 1.50, A100 2.50)"
stderr_has guards_overload_names_knobs "raise workload.arrival_scale or lower workload.load"
if python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s["offered_load"] == 2.0 and s["offered_load_by_model"] == {"V100": 1.5, "A100": 2.5} else 1)' \
  "$G/out-load/summary.json"; then pass guards_offered_load_in_summary; else
  fail guards_offered_load_in_summary "summary.json lacks offered_load 2.0 and its per-model object"; fi
# Gaps four times as long: a quarter of the load, no warning.
run run "$G/load.yaml" --set workload.arrival_scale=4 --out "$G/out-light"
if [ "$rc" -eq 0 ] && grep -qF "offered load 0.50 " "$TMP/stderr" && ! grep -q "overloaded" "$TMP/stderr"; then
  pass guards_light_load_no_warning; else fail guards_light_load_no_warning "exit code $rc"; fi
# Durations of one-GPU work (perf.reference: one-gpu): each job asks its duration, whatever its
# GPUs: 1 + 1 + 2 = 4 GPU-hours over 1 h on 16 GPUs, 0.25; V100 (0.5 + 1) / 8, A100 (0.5 + 2) / 8.
run validate "$G/load.yaml" --set perf.model=placement --set perf.reference=one-gpu --set perf.model_mix.resnet50=1
stderr_has guards_offered_load_one_gpu_work \
  "offered load 0.25 (4.0 GPU-hours of one-GPU work, a lower bound at perfect scaling, asked over 1.0 h of submissions, on 16 GPUs); per GPU model: V100 0.19, A100 0.31"
run run "$G/load.yaml" --quiet --out "$G/out-quiet"
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/stderr" ]; then pass guards_quiet_silences; else fail guards_quiet_silences "stderr not empty"; fi

# --- jobs that never fit: dropped, counted on stderr with their reason; validate says it first --
cat >"$G/never.csv" <<'CSV'
id,submit_s,duration_s,tasks,gpus_per_task,gpu_model
0,0,100,1,4,
1,10,100,3,8,
2,20,100,1,1,H100
3,30,100,1,1,H100
CSV
scenario never "$G/never.csv"
run run "$G/never.yaml" --out "$G/out-never"
if [ "$rc" -eq 0 ]; then pass guards_never_fits_exit_0; else fail guards_never_fits_exit_0 "exit code $rc"; fi
stderr_has guards_never_fits_counted "schedlab: notice: 3 job(s) dropped at submit (jobs.csv gives each its reason): 2 x unresolvable: no GPU of the allowed model(s) in the cluster (requested H100); 1 x unresolvable: needs 3 tasks x 8 GPUs"
run validate "$G/never.yaml"
if [ "$rc" -eq 0 ]; then pass guards_validate_never_fits_ok; else fail guards_validate_never_fits_ok "exit code $rc"; fi
stderr_has guards_validate_counts_drops "3 job(s) would be dropped at submit: 2 x unresolvable: no GPU of the allowed model(s)"

# --- validate makes the run's checks of each job: an unknown GPU model at line 5 -------------
cat >"$G/badmodel.csv" <<'CSV'
id,submit_s,duration_s,tasks,gpus_per_task,gpu_model
0,0,100,1,4,
1,10,100,1,4,V100
2,20,100,1,1,A100
3,30,100,1,1,V1OO
CSV
scenario badmodel "$G/badmodel.csv"
bad_input guards_run_refuses_unknown_model "$G/badmodel.csv:5: gpu_model: " run "$G/badmodel.yaml"
bad_input guards_validate_refuses_unknown_model "$G/badmodel.csv:5: gpu_model: " validate "$G/badmodel.yaml"

# --- a run-time key order without preemption: named, and its results are fifo's to the digit --
"$BIN" trace generate --jobs 300 --seed 11 --rate 40 -o "$G/gen.csv" 2>/dev/null
scenario fifo "$G/gen.csv" "preemption: none"
scenario las "$G/gen.csv" "preemption: none" "args: {las: {thresholds: [600, 3600], promote_after: 4}}"
sed -i 's/^  queue: fifo/  queue: las/; s/^name: las/name: fifo/' "$G/las.yaml"  # same name: same summary.json
run run "$G/fifo.yaml" --out "$G/out-fifo"
if grep -q "scheduler.queue" "$TMP/stderr"; then fail guards_fifo_not_named "fifo was named"; else pass guards_fifo_not_named; fi
run run "$G/las.yaml" --out "$G/out-las"
stderr_has guards_las_without_preemption_named \
  "schedlab: notice: scheduler.queue: las with preemption: none orders waiting jobs as fifo"
stderr_has guards_promote_after_named "scheduler.args.las.promote_after lifts waiting jobs that have run before"
if [ "$(grep -c "scheduler.queue: las" "$TMP/stderr")" -eq 1 ]; then pass guards_las_named_once; else
  fail guards_las_named_once "$(grep -c "scheduler.queue: las" "$TMP/stderr") lines"; fi
if cmp -s "$G/out-fifo/jobs.csv" "$G/out-las/jobs.csv" && cmp -s "$G/out-fifo/summary.json" "$G/out-las/summary.json"
then pass guards_las_without_preemption_is_fifo; else
  fail guards_las_without_preemption_is_fifo "jobs.csv or summary.json differ"; fi
run run "$G/las.yaml" --set scheduler.preemption=reorder --out "$G/out-las-reorder"
if [ "$rc" -eq 0 ] && ! grep -q "scheduler.queue: las" "$TMP/stderr"; then pass guards_las_reorder_not_named; else
  fail guards_las_reorder_not_named "exit code $rc, or named"; fi

# --- a sweep whose seeds cannot change its results says so at expansion ----------------------
cat >"$G/sweep.yaml" <<YAML
scenario: $G/load.yaml
grid:
  workload.arrival_scale: [2, 4]
seeds: [1, 2, 3]
YAML
run sweep "$G/sweep.yaml" --out "$G/sweep-out" --jobs 2
if [ "$rc" -eq 0 ] && [ "$(grep -c "seeds cannot change" "$TMP/stderr")" -eq 1 ]; then pass guards_sweep_fixed_seeds; else
  fail guards_sweep_fixed_seeds "exit code $rc, $(grep -c "seeds cannot change" "$TMP/stderr") notices"; fi
stderr_has guards_sweep_fixed_seeds_text "its seeds cannot change its results: a fixed trace and no random draws"
cat >"$G/sweep-gen.yaml" <<YAML
scenario: $PWD/tests/fixtures/scenarios/generated.yaml
grid:
  scheduler.placement: [first-fit]
seeds: [1, 2]
YAML
run sweep "$G/sweep-gen.yaml" --out "$G/sweep-gen-out" --jobs 2
if [ "$rc" -eq 0 ] && ! grep -q "seeds cannot change" "$TMP/stderr"; then pass guards_sweep_generated_seeds_matter; else
  fail guards_sweep_generated_seeds_matter "exit code $rc, or said"; fi
