# shellcheck shell=bash
# `trace generate --like T --load X` keeps the load (issue 27, item 4): X times T's GPU-hours per
# day as `trace stats` measures them, T's duration quantiles, whole rows of T; `workload.load` in
# a scenario. T is made here (no ../shared). Sourced by run_e2e.sh.

# T: 3000 jobs with a heavy duration tail (sigma 1.8 of ln duration).
"$BIN" trace generate --jobs 3000 --seed 4 --duration-sigma 1.8 --rate 20 -o "$TMP/gl_t.csv" 2>/dev/null
run trace generate --like "$TMP/gl_t.csv" --load 1.5 --jobs 30000 --seed 2 -o "$TMP/gl_x.csv"
if [ "$rc" -eq 0 ] && grep -q "at load 1.5" "$TMP/stderr" && grep -q "(1.500x)" "$TMP/stderr"; then
  pass generate_load_runs
else
  fail generate_load_runs "exit $rc"
fi
"$BIN" trace stats "$TMP/gl_t.csv" --format json >"$TMP/gl_t.json"
"$BIN" trace stats "$TMP/gl_x.csv" --format json >"$TMP/gl_x.json"
check=$(python3 - "$TMP/gl_t.json" "$TMP/gl_x.json" "$TMP/gl_t.csv" "$TMP/gl_x.csv" <<'PY'
import csv, json, sys
t, x = (json.load(open(p)) for p in sys.argv[1:3])
def per_day(s): return s["gpu_hours"] / ((s["last_submit_s"] - s["first_submit_s"]) / 86400)
bad = []
ratio = per_day(x) / per_day(t)
if abs(ratio / 1.5 - 1) > 0.02: bad.append(f"load ratio {ratio:.4f}, not 1.5 within 2%")
for p in ("p50", "p90", "p99"):
    a, b = t["duration_percentiles_s"][p], x["duration_percentiles_s"][p]
    if abs(b / a - 1) > 0.10: bad.append(f"{p} {b} against {a}")
# Every generated row is a row of T (duration, shape, user together).
def rows(path):
    with open(path) as f:
        return {(r["duration_s"], r["tasks"], r["gpus_per_task"], r["user"]) for r in csv.DictReader(f)}
if not rows(sys.argv[4]) <= rows(sys.argv[3]): bad.append("a generated job is no row of T")
print("; ".join(bad) if bad else "ok")
PY
)
if [ "$check" = ok ]; then pass generate_load_ratio_quantiles_rows; else fail generate_load_ratio_quantiles_rows "$check"; fi

# The same seed gives the same file; options that cannot apply beside --like are refused.
"$BIN" trace generate --like "$TMP/gl_t.csv" --load 1.5 --jobs 30000 --seed 2 -o "$TMP/gl_x2.csv" 2>/dev/null
if cmp -s "$TMP/gl_x.csv" "$TMP/gl_x2.csv"; then pass generate_load_deterministic; else
  fail generate_load_deterministic "files differ"; fi
bad_input generate_load_rate_with_like "--rate: has no effect with --like" \
  trace generate --like "$TMP/gl_t.csv" --rate 5 -o "$TMP/gl_bad.csv"
bad_input generate_load_out_of_range "--load: 0 is out of range" trace generate --like "$TMP/gl_t.csv" --load 0
if [ ! -e "$TMP/gl_bad.csv" ]; then pass generate_load_no_file_on_error; else
  fail generate_load_no_file_on_error "an output file was written"; fi

# workload.load: X in a scenario is arrival_scale 1/X; both at once is a located error.
mkdir -p "$TMP/gl"
sed 's#trace: ../native/small.csv#trace: '"$PWD"'/tests/fixtures/native/small.csv#; s#cluster: ../clusters/tiny.yaml#cluster: '"$PWD"'/tests/fixtures/clusters/tiny.yaml#' \
  tests/fixtures/scenarios/tiny.yaml | sed '/^variants:/,$d' >"$TMP/gl/base.yaml"
{ cat "$TMP/gl/base.yaml"; } | sed 's#^  format: native#  format: native\n  load: 2#' >"$TMP/gl/load.yaml"
sed 's#^  format: native#  format: native\n  arrival_scale: 0.5#' "$TMP/gl/base.yaml" >"$TMP/gl/scale.yaml"
sed 's#^  format: native#  format: native\n  arrival_scale: 0.5\n  load: 2#' "$TMP/gl/base.yaml" >"$TMP/gl/both.yaml"
run run "$TMP/gl/load.yaml" --out "$TMP/gl/load-out"
rc_load=$rc
run run "$TMP/gl/scale.yaml" --out "$TMP/gl/scale-out"
if [ "$rc_load" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$TMP/gl/load-out/jobs.csv" "$TMP/gl/scale-out/jobs.csv"; then
  pass generate_load_scenario_key
else
  fail generate_load_scenario_key "exit $rc_load/$rc or jobs.csv differ between load: 2 and arrival_scale: 0.5"
fi
line=$(grep -n "^  load: 2" "$TMP/gl/both.yaml" | cut -d: -f1)
bad_input generate_load_scenario_both "$TMP/gl/both.yaml:$line: workload.load: give either load" run "$TMP/gl/both.yaml"
