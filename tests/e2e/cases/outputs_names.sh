# Sourced by run_e2e.sh. Names that become paths, output flags that could destroy input,
# numbers on the command line, and validate checking what run checks (issue 25: R33, R34,
# R36, CLI seeds).

ON=$TMP/outputs-names
mkdir -p "$ON"
here=$PWD
# scenario_with NAME_LINE [EXTRA]: a scenario file on the quickstart trace whose first line is NAME_LINE.
scenario_with() {
  printf '%s\nseed: 1\ncluster: %s/configs/clusters/small-v100.yaml\nworkload: {trace: %s}\n%s' \
    "$1" "$here" "${3:-$here/traces/quickstart.csv}" "${2:-}"
}

# --- a name that becomes a path passes one check -----------------------------------------
scenario_with 'name: "../../../x_escaped"' >"$ON/traversal.yaml"
(cd "$ON" && "$BIN" run traversal.yaml -q >"$TMP/stdout" 2>"$TMP/stderr")
rc=$?
if [ "$rc" -eq 2 ] && grep -qF 'traversal.yaml:1: name: '../../../x_escaped' holds a path separator' "$TMP/stderr" &&
  [ ! -e "$ON/../../x_escaped" ] && [ ! -e "$ON/results" ]; then
  pass name_traversal_refused
else
  fail name_traversal_refused "exit $rc"
fi
scenario_with 'name: "a\0b"' >"$ON/nul.yaml"
bad_input name_control_byte_refused "$ON/nul.yaml:1: name: " run "$ON/nul.yaml"
stderr_has name_control_byte_says_so "holds a control character"
scenario_with 'name: ok' 'variants:
  - {name: fine, set: {scheduler.placement: first-fit}}
  - {name: ../up, set: {scheduler.placement: spread}}
' >"$ON/variant_name.yaml"
bad_input variant_name_traversal_refused "$ON/variant_name.yaml:7: variants.1.name: '../up' holds a path separator" \
  compare "$ON/variant_name.yaml" --out "$ON/vn-out"
bad_input variant_flag_name_refused "--variant: 'a/b' holds a path separator" \
  compare tests/fixtures/scenarios/tiny.yaml --variant 'a/b:scheduler.placement=spread' --out "$ON/vf-out"

# --- a variant's set: is checked where it is written, and validate checks every variant ---
scenario_with 'name: ok' 'variants:
  - {name: fine, set: {scheduler.placement: first-fit}}
  - name: broken
    set: {scheduler.placement: bestfit}
' >"$ON/variant_set.yaml"
bad_input compare_variant_set_located "$ON/variant_set.yaml:8: scheduler.placement: " \
  compare "$ON/variant_set.yaml" --out "$ON/vs-out"
bad_input validate_checks_variants "$ON/variant_set.yaml:8: scheduler.placement: " validate "$ON/variant_set.yaml"
run validate tests/fixtures/scenarios/tiny.yaml
if [ "$rc" -eq 0 ] && grep -q "variant ff: ok" "$TMP/stdout" && grep -q "variant inc: ok" "$TMP/stdout"; then
  pass validate_lists_variants
else
  fail validate_lists_variants "exit $rc: $(head -c 300 "$TMP/stdout")"
fi

# validate reads the trace to its end, as run does: a bad row far down is found.
{ echo "id,submit_s,duration_s,tasks,gpus_per_task"
  for i in $(seq 0 199); do echo "$i,$i,100,1,1"; done
  echo "200,200,abc,1,1"; } >"$ON/bad_late_row.csv"
scenario_with 'name: late' '' "$ON/bad_late_row.csv" >"$ON/late.yaml"
bad_input validate_reads_every_row "$ON/bad_late_row.csv:202: duration_s: " validate "$ON/late.yaml"

# --- numbers on the command line: the same checked conversion as YAML --------------------
bad_input seed_negative_refused "--seed: expected a whole number from 0 to 18446744073709551615, got '-1'" \
  run scenarios/quickstart.yaml --seed -1
bad_input seed_23_digits_refused "--seed: 99999999999999999999999 is out of range [0, 18446744073709551615]" \
  run scenarios/quickstart.yaml --seed 99999999999999999999999
bad_input generate_seed_negative_refused "--seed: expected a whole number" trace generate --seed -5 -o "$ON/g.csv"
bad_input generate_jobs_negative_named "--jobs: expected a whole number from 0 to 18446744073709551615, got '-1'" \
  trace generate --jobs -1 -o "$ON/g.csv"
bad_input explain_beyond_32_bits "--explain: 5000000000 is out of range [0, 4294967295]" \
  run scenarios/quickstart.yaml --explain 5000000000
scenario_with 'name: seeded' | sed 's/^seed: 1$/seed: -1/' >"$ON/seed.yaml"
bad_input yaml_seed_same_words "$ON/seed.yaml:2: seed: expected a whole number from 0 to 18446744073709551615, got '-1'" \
  validate "$ON/seed.yaml"

# --- output flags never destroy input, and fail before the results are replaced ---------
cp traces/quickstart.csv "$ON/mytrace.csv"
scenario_with 'name: q' '' "$ON/mytrace.csv" >"$ON/q.yaml"
bad_input events_onto_own_trace_refused "$ON/mytrace.csv: --events: is an input of this run" \
  run "$ON/q.yaml" --events "$ON/mytrace.csv"
if cmp -s traces/quickstart.csv "$ON/mytrace.csv"; then pass events_onto_trace_keeps_it; else
  fail events_onto_trace_keeps_it "the trace changed"; fi
cp "$ON/q.yaml" "$ON/q.copy"
bad_input skipped_onto_own_scenario_refused "$ON/q.yaml: --skipped: is an input of this run" \
  run "$ON/q.yaml" --skipped "$ON/q.yaml"
if cmp -s "$ON/q.yaml" "$ON/q.copy"; then pass skipped_onto_scenario_keeps_it; else
  fail skipped_onto_scenario_keeps_it "the scenario changed"; fi
echo "my notes, not schedlab's" >"$ON/notes.txt"
bad_input events_onto_user_file_refused "$ON/notes.txt: --events: exists and is not a file schedlab wrote" \
  run "$ON/q.yaml" --events "$ON/notes.txt"
run run "$ON/q.yaml" -q --out "$ON/r-ev" --events "$ON/events.csv"
run run "$ON/q.yaml" -q --out "$ON/r-ev" --events "$ON/events.csv"
if [ "$rc" -eq 0 ] && head -1 "$ON/events.csv" | grep -q '^time_s,job,event'; then
  pass events_replaces_its_own_log
else
  fail events_replaces_its_own_log "exit $rc"
fi
bad_input convert_onto_its_input_refused "$ON/mytrace.csv: --out: is an input of this run" \
  trace convert "$ON/mytrace.csv" -o "$ON/mytrace.csv"
run run scenarios/quickstart.yaml -q --seed 1 --out "$ON/r-full"
before=$(grep -m1 'seed:' "$ON/r-full/run.yaml")
run run scenarios/quickstart.yaml -q --seed 5 --out "$ON/r-full" --events /dev/full
after=$(grep -m1 'seed:' "$ON/r-full/run.yaml")
if [ "$rc" -eq 2 ] && grep -qF -- "--events: write failed" "$TMP/stderr" && [ "$before" = "$after" ] &&
  [ -z "$(find "$ON" -maxdepth 1 -name '.r-full.tmp-*')" ]; then
  pass events_write_failure_keeps_previous_results
else
  fail events_write_failure_keeps_previous_results "exit $rc; seed before '$before', after '$after'"
fi

# --- files a scenario names are reported at its line ------------------------------------
scenario_with 'name: prof' 'perf: {model: placement, profile: /etc}
' >"$ON/profile_folder.yaml"
bad_input profile_folder_located "$ON/profile_folder.yaml:5: perf.profile: '/etc': is a folder, expected a file" \
  validate "$ON/profile_folder.yaml"

# --- plot -o: a PNG name; never over a file that is not a figure; drawn aside, then moved ---
run run tests/fixtures/scenarios/tiny.yaml -q --out "$ON/plotted"
echo "not a figure" >"$ON/mine.png"
bad_input plot_out_not_over_user_file "$ON/mine.png: --out: exists and is not a PNG figure" plot "$ON/plotted" -o "$ON/mine.png"
bad_input plot_out_png_only "$ON/plotted/jobs.csv: --out: the figure is a PNG file" plot "$ON/plotted" -o "$ON/plotted/jobs.csv"
if python3 -c 'import matplotlib' 2>/dev/null; then
  run plot "$ON/plotted" -o "$ON/fig.png"
  if [ "$rc" -eq 0 ] && [ "$(head -c 4 "$ON/fig.png" | tail -c 3)" = PNG ] && [ -s "$ON/fig.pdf" ] &&
    [ -z "$(find "$ON" -maxdepth 1 -name '.fig.png*')" ] && [ "$(cat "$ON/mine.png")" = "not a figure" ]; then
    pass plot_out_staged
  else
    fail plot_out_staged "exit $rc"
  fi
fi
