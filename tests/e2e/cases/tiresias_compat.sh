# shellcheck shell=bash
# Tiresias compatibility (issue 27, item 1): scenarios/compat/tiresias.yaml against the
# independent reference of the documented semantics (tests/compat/tiresias_reference.py),
# job by job (first start, end, preemption count), on a generated 5,000-job trace.
# Sourced by run_e2e.sh.

python3 tests/compat/gen_trace.py 5000 7 160 "$TMP/tc5k"
run compare scenarios/compat/tiresias.yaml --set workload.trace="$TMP/tc5k.native.csv" -o "$TMP/tc"
python3 tests/compat/tiresias_reference.py "$TMP/tc5k.native.csv" 128 fifo >"$TMP/tc-ref-fifo.csv"
if [ "$rc" -eq 0 ] && python3 tests/compat/compare_jobs.py "$TMP/tc/fifo/jobs.csv" "$TMP/tc-ref-fifo.csv" >"$TMP/tc-cmp.txt"; then
  pass tiresias_compat_fifo_job_by_job
else
  fail tiresias_compat_fifo_job_by_job "exit code $rc; $(cat "$TMP/tc-cmp.txt" 2>/dev/null)"
fi
