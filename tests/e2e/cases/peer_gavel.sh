# shellcheck shell=bash
# Jobs that name their training model (native column `model`), and Gavel's continuous-single-GPU
# simulation run through schedlab (issue 30, item 4; docs/elastic.md, "Reproducing Gavel"):
# scripts/peer-gavel.py reads Gavel's scheduler/ folder from $GAVEL_SCHEDULER (default
# ../shared/peers/gavel/scheduler) and writes a scenario; schedlab runs its variants. Skipped when
# the folder is absent; a made-up miniature (tests/fixtures/gavel-mini) always runs. Sourced by
# run_e2e.sh.
EL=tests/fixtures/scenarios/elastic.yaml
bad_input model_unknown \
  "tests/fixtures/native/bad/model_unknown.csv:4: model: unknown training model 'resnet5'; did you mean 'resnet50'?" \
  run "$EL" --set workload.trace=../native/bad/model_unknown.csv
bad_input model_unknown_validate "tests/fixtures/native/bad/model_unknown.csv:4: model: unknown training model" \
  validate "$EL" --set workload.trace=../native/bad/model_unknown.csv
# A trace that names models (one row leaves it to the mix) runs; the speeds a named model gives
# are the unit tests' (Perf.PlacementModel.a_job_naming_its_model). trace convert keeps the column.
run run "$EL" --set workload.trace=../native/models.csv --out "$TMP/model-named"
if [ "$rc" -eq 0 ] && [ "$(grep -c ',finished,' "$TMP/model-named/jobs.csv")" = 3 ]; then
  pass model_named_runs
else
  fail model_named_runs "exit $rc, or not three finished jobs"
fi
run trace convert tests/fixtures/native/models.csv -o "$TMP/models-rt.csv"
if [ "$rc" -eq 0 ] && [ "$(tail -n +2 "$TMP/models-rt.csv" | awk -F, '{ print $NF }' | tr '\n' ' ')" = "resnet50  bert-large " ]; then
  pass model_trace_convert_keeps_it
else
  fail model_trace_convert_keeps_it "exit $rc; $(tail -3 "$TMP/models-rt.csv" 2>/dev/null | tr '\n' ' ')"
fi

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# The miniature (tests/fixtures/gavel-mini/README.md): six jobs of two made-up types; the
# converter's models carry the types' throughputs, every variant finishes every job, and Gavel's
# max-min fairness puts each `Rec` job (twice as fast on P100 and K80) on an older GPU.
MINI=tests/fixtures/gavel-mini
"$PY" scripts/peer-gavel.py "$MINI" "$TMP/gmini" --rate 3600 --jobs 6 --window 0 6 >"$TMP/gmini.log" 2>&1
conv_rc=$?
run compare "$TMP/gmini/scenario.yaml" -o "$TMP/gmini-out"
if [ "$conv_rc" -eq 0 ] && [ "$rc" -eq 0 ] &&
  [ "$(tail -n +2 "$TMP/gmini/trace.csv" | cut -d, -f1,3,6 | tr '\n' ' ')" = \
    "0,10800.000000,gavel-rec 1,3600.000000,gavel-fast 2,10800.000000,gavel-rec 3,3600.000000,gavel-rec 4,7200.000000,gavel-rec 5,3600.000000,gavel-rec " ] &&
  grep -q "samples_per_s: {V100: 4.0, P100: 2.0, K80: 1.0}" "$TMP/gmini/models.yaml" &&
  grep -q "samples_per_s: {V100: 1.0, P100: 2.0, K80: 2.0}" "$TMP/gmini/models.yaml" &&
  [ "$(for v in gavel-max-min gavel-ftf las fifo; do grep -c ',finished,' "$TMP/gmini-out/$v/jobs.csv"; done | tr '\n' ' ')" = "6 6 6 6 " ]; then
  pass peer_gavel_mini
else
  fail peer_gavel_mini "converter exit $conv_rc, schedlab exit $rc; $(tail -2 "$TMP/gmini.log")"
fi

GS=${GAVEL_SCHEDULER:-../shared/peers/gavel/scheduler}
if [ ! -f "$GS/utils.py" ] || [ ! -f "$GS/simulation_throughputs.json" ]; then
  echo "skip peer_gavel_continuous_single (no Gavel scheduler/ folder at $GS; set GAVEL_SCHEDULER)"
else
  "$PY" scripts/peer-gavel.py "$GS" "$TMP/gavel" --rate 2.0 >"$TMP/gavel.log" 2>&1
  conv_rc=$?
  mkdir -p "$TMP/gavel-out"
  run run "$TMP/gavel/scenario.yaml" --set scheduler.policy=gavel-max-min-fairness --out "$TMP/gavel-out/gavel-max-min"
  mm_rc=$rc
  run run "$TMP/gavel/scenario.yaml" --set scheduler.policy=gavel-finish-time-fairness --out "$TMP/gavel-out/gavel-ftf"
  [ "$mm_rc" -eq 0 ] || rc=$mm_rc
  figures=$("$PY" scripts/peer-gavel.py --mean-jct "$TMP/gavel-out" 4000 5000 2>&1 | tr '\n' ' ')
  if [ "$conv_rc" -eq 0 ] && [ "$rc" -eq 0 ] && "$PY" - "$figures" <<'PY'; then
import re, sys
got = dict(re.findall(r"([\w-]+): ([\d.]+) h over 1000 jobs", sys.argv[1]))
assert set(got) == {"gavel-max-min", "gavel-ftf"}, sys.argv[1]
# docs/elastic.md's table at 2.0 jobs/h, pinned to 1% (Gavel's own: 16.95 and 17.07 h)
assert float(got["gavel-max-min"]) < float(got["gavel-ftf"]), got  # Gavel's ranking
for v, want in (("gavel-max-min", 16.81), ("gavel-ftf", 17.46)):
    assert abs(float(got[v]) / want - 1) < 0.01, (v, got[v], want)
PY
    pass peer_gavel_continuous_single
  else
    fail peer_gavel_continuous_single "converter exit $conv_rc, schedlab exit $rc; $figures $(tail -2 "$TMP/gavel.log")"
  fi
fi
