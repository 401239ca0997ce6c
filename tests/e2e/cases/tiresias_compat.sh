# shellcheck shell=bash
# Tiresias compatibility (issue 27, item 1): scenarios/compat/tiresias.yaml against the
# independent reference of the documented semantics (tests/compat/tiresias_reference.py),
# job by job (first start, end, preemption count), on a generated 5,000-job trace whose median
# duration (6,000 s) is past the first LAS threshold (3,250 s): most jobs are demoted at least
# once (a job demoted is one that runs past 3,250 s). Offered load about 0.8 on 128 GPUs.
# Sourced by run_e2e.sh.

python3 tests/compat/gen_trace.py 5000 7 560 "$TMP/tc5k" 6000
demoted=$(awk -F, 'NR > 1 { n++; if ($3 > 3250) d++ } END { print (2 * d > n) ? "most" : d "/" n }' "$TMP/tc5k.native.csv")
run compare scenarios/compat/tiresias.yaml --set workload.trace="$TMP/tc5k.native.csv" -o "$TMP/tc"
for v in fifo dlas dlas-gpu dlas-gpu-gittins; do
  # dlas-gpu-gittins ranks by the preset's sample file with the simulator's quantum (3,250 GPU-s).
  ranks=()
  [ "$v" = dlas-gpu-gittins ] && ranks=(scenarios/compat/tiresias-gput1000.csv 3250)
  python3 tests/compat/tiresias_reference.py "$TMP/tc5k.native.csv" 128 "$v" "${ranks[@]}" >"$TMP/tc-ref-$v.csv"
  if [ "$rc" -eq 0 ] && [ "$demoted" = most ] &&
    python3 tests/compat/compare_jobs.py "$TMP/tc/$v/jobs.csv" "$TMP/tc-ref-$v.csv" >"$TMP/tc-cmp-$v.txt"; then
    pass "tiresias_compat_${v}_job_by_job"
  else
    fail "tiresias_compat_${v}_job_by_job" "exit code $rc; jobs demoted: $demoted; $(cat "$TMP/tc-cmp-$v.txt" 2>/dev/null)"
  fi
done
