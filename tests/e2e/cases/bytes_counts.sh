# shellcheck shell=bash
# Bounds on what input may cost (issue 25): gzip read to its trailer (R27, R27b), one bound on a
# line (R31), on JSON nesting (R26) and on a run's jobs (R29, R31b). Sourced by run_e2e.sh.

# --- gzip: a truncated member and one cut at a flush point are errors naming the file ---------
python3 - "$TMP" <<'PY'
import gzip, sys, zlib
tmp = sys.argv[1]
rows = "id,submit_s,duration_s,tasks,gpus_per_task\n" + "".join(
    f"{i},{i * 3},{60 + i % 50},1,1\n" for i in range(2000))
whole = gzip.compress(rows.encode())
open(f"{tmp}/whole.csv.gz", "wb").write(whole)
open(f"{tmp}/cut.csv.gz", "wb").write(whole[: len(whole) * 9 // 10])
# Full flushes every 4 KB of text: a cut right after one ends on a byte boundary that gzread
# took for the end of a whole stream.
z = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
out, cuts, data = b"", [], rows.encode()
for at in range(0, len(data), 4096):
    out += z.compress(data[at : at + 4096]) + z.flush(zlib.Z_FULL_FLUSH)
    cuts.append(len(out))
open(f"{tmp}/flush.csv.gz", "wb").write(out[: cuts[len(cuts) // 2]])
# One line of 17 MiB (a 4 GB line compresses to 4 MB: the bound, not the size, is what counts).
open(f"{tmp}/long.csv.gz", "wb").write(
    gzip.compress(b"id,submit_s,duration_s,tasks,gpus_per_task\n" + b"x" * (17 << 20) + b"\n", 9))
PY
run trace stats "$TMP/whole.csv.gz"
if [ "$rc" -eq 0 ] && grep -q "2000" "$TMP/stdout"; then pass bytes_gzip_whole; else fail bytes_gzip_whole "exit $rc"; fi
bad_input bytes_gzip_truncated "$TMP/cut.csv.gz:" trace stats "$TMP/cut.csv.gz"
stderr_has bytes_gzip_truncated_says "read error: the gzip data ends inside member 1 (unexpected end of file): the file is truncated"
bad_input bytes_gzip_cut_at_flush "$TMP/flush.csv.gz:" run tests/fixtures/scenarios/tiny.yaml \
  --set "workload.trace=$TMP/flush.csv.gz"
stderr_has bytes_gzip_cut_at_flush_says "the file is truncated"

# --- one bound on a line: refused at the bound, not after holding the line ---------------------
bad_input bytes_long_line "$TMP/long.csv.gz:2: line 2 is longer than 16 MiB (16777216 bytes)" \
  run tests/fixtures/scenarios/tiny.yaml --set "workload.trace=$TMP/long.csv.gz"
bad_input bytes_policy_long_line "tests/fixtures/external/scenario.yaml: scheduler.external: " \
  run tests/fixtures/external/scenario.yaml --scheduler-cmd "python3 tests/fixtures/external/bounds_policy.py long"
stderr_has bytes_policy_long_line_says "wrote a line that is longer than 16 MiB"

# --- one bound on JSON nesting: a policy's reply a million deep (R26 crashed, left a staging folder)
bad_input bytes_policy_deep_json "tests/fixtures/external/scenario.yaml: scheduler.external: " \
  run tests/fixtures/external/scenario.yaml --scheduler-cmd "python3 tests/fixtures/external/bounds_policy.py deep"
stderr_has bytes_policy_deep_json_says "nested deeper than 64 levels"

# --- one bound on a run's jobs, refused by validate as by run ----------------------------------
B=tests/fixtures/scenarios/bounds
for cmd in run validate; do
  bad_input "bytes_cron_repeats_$cmd" \
    "tests/fixtures/native/cron_unbounded_repeats.csv:2: schedule: 4000000000 occurrences is more than the 10000000 jobs a run may have" \
    "$cmd" "$B/cron_unbounded_repeats.yaml"
  bad_input "bytes_generate_4e9_$cmd" \
    "$B/generate_4e9_jobs.yaml:6: workload.generate.jobs: 4000000000 jobs is more than the 10000000 jobs a run may have" \
    "$cmd" "$B/generate_4e9_jobs.yaml"
done
