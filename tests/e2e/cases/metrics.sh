# shellcheck shell=bash
# One definition per metric (issue 27, item 2; docs/metrics.md): queueing delay beside the first
# wait, JCT = queueing delay + run time per job, linear percentiles named in summary.json, the
# measurement window, Jain's index null without 2 users, jobs.csv's user and per-task columns,
# no sentinel in any file. Sourced by run_e2e.sh.

# A run with preemptions (srtf + reorder on the tiny fixture): jobs pending after a stop.
run run tests/fixtures/scenarios/tiny.yaml --set scheduler.queue=srtf --set scheduler.preemption=reorder \
  --set scheduler.backfill=none -o "$TMP/mx" -q
if [ "$rc" -eq 0 ] && python3 - "$TMP/mx" docs/metrics.md <<'PY'; then
import csv, json, math, sys
folder, doc = sys.argv[1], open(sys.argv[2]).read()
s = json.load(open(f"{folder}/summary.json"))
rows = list(csv.DictReader(open(f"{folder}/jobs.csv")))
assert list(rows[0].keys())[:10] == ["id", "trace_id", "user", "submit_s", "start_s", "end_s", "first_wait_s",
                                     "queueing_delay_s", "run_s", "jct_s"], list(rows[0].keys())
assert "cpus_per_task" in rows[0] and "mem_gb_per_task" in rows[0] and "cpus" not in rows[0]
assert s["percentile_method"] == "linear"
def pct(v, p):  # numpy's / pandas' default
    v = sorted(v); h = (len(v) - 1) * p / 100; lo = math.floor(h)
    return v[lo] + (h - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])
done = [r for r in rows if r["state"] == "finished" and r["kind"] != "service"]
assert len(done) == s["finished"] >= 3
for r in done:  # JCT = queueing delay + run time, job by job; queueing delay >= first wait
    jct, q, run, w = (float(r[k]) for k in ("jct_s", "queueing_delay_s", "run_s", "first_wait_s"))
    assert abs(jct - q - run) < 2e-6 and q >= w - 1e-6, r
jct = [float(r["jct_s"]) for r in done]
q = [float(r["queueing_delay_s"]) for r in done]
w = [float(r["first_wait_s"]) for r in done]
close = lambda a, b: abs(a - b) <= 1e-5 * max(1, abs(b))
assert close(s["jct_p95_s"], pct(jct, 95)) and close(s["jct_p50_s"], pct(jct, 50)), (s["jct_p95_s"], pct(jct, 95))
assert close(s["queueing_delay_mean_s"], sum(q) / len(q)) and close(s["queueing_delay_p99_s"], pct(q, 99))
assert close(s["first_wait_mean_s"], sum(w) / len(w))
assert s["preemptions"] > 0 and sum(q) > sum(w), "no job waited after a preemption"
bsd = [max(1, j / max(j - x, 10)) for j, x in zip(jct, q)]
assert close(s["bounded_slowdown_mean"], sum(bsd) / len(bsd))
# The window: first to last submission.
subs = [float(r["submit_s"]) for r in rows]
assert s["window_start_s"] == min(subs) and s["window_end_s"] == max(subs), (s["window_start_s"], s["window_end_s"])
assert 0 <= s["gpu_utilization"] <= 1 and 0 <= s["gpu_utilization_makespan"] <= 1
# The trace's users, in jobs.csv; Jain's index over them (3 users).
assert [r["user"] for r in rows] == ["alice", "bob", "carol", "alice"], [r["user"] for r in rows]
assert 0 < s["jain_fairness"] <= 1
# Every number at the top of summary.json is defined in docs/metrics.md.
for k, v in s.items():
    if (isinstance(v, (int, float)) or v is None) and not k.startswith("offered_load"):
        assert f"`{k}`" in doc or k in ("total_gpus", "skipped_rows"), k
PY
  pass metrics_definitions_hold_job_by_job
else
  fail metrics_definitions_hold_job_by_job "exit code $rc, or a figure disagrees with jobs.csv (above)"
fi
# The printed summary says a figure without a value with a dash (base.yaml's trace has no users),
# and names the percentile method.
run run "$FIX/base.yaml" -o "$TMP/mx-base"
if [ "$rc" -eq 0 ] && grep -qE '^  Jain fairness \(users\) +-$' "$TMP/stdout" &&
  grep -q '"jain_fairness": null,' "$TMP/mx-base/summary.json" &&
  grep -qE '^  percentiles +linear$' "$TMP/stdout" && grep -qE '^  queueing delay mean \(s\) +[0-9.]+$' "$TMP/stdout"; then
  pass metrics_printed_dash_and_method
else
  fail metrics_printed_dash_and_method "exit code $rc; $(grep -i 'jain\|percentiles' "$TMP/stdout" | tr '\n' '|')"
fi
# No stand-in number for "unknown" in any results file.
run run tests/fixtures/scenarios/tiny.yaml -o "$TMP/mx-print" -q
if [ "$rc" -eq 0 ] && ! grep -rqE '18446744073709551615|(^|,)-1(,|$)' "$TMP/mx" "$TMP/mx-print" "$TMP/mx-base"; then
  pass metrics_no_sentinels_in_files
else
  fail metrics_no_sentinels_in_files "exit code $rc; $(grep -rlE '18446744073709551615|(^|,)-1(,|$)' "$TMP/mx" "$TMP/mx-print")"
fi

# metrics.window and metrics.warmup_s: the window moves, the whole-run figure does not.
run run tests/fixtures/scenarios/tiny.yaml --set 'metrics.window=[0, 7200]' --set metrics.warmup_s=600 -o "$TMP/mx-win" -q
if [ "$rc" -eq 0 ] && python3 - "$TMP/mx-print/summary.json" "$TMP/mx-win/summary.json" <<'PY'; then
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert b["window_start_s"] == 600 and b["window_end_s"] == 7200, (b["window_start_s"], b["window_end_s"])
assert b["gpu_utilization_makespan"] == a["gpu_utilization_makespan"]
assert b["jct_mean_s"] == a["jct_mean_s"]
PY
  pass metrics_window_and_warmup
else
  fail metrics_window_and_warmup "exit code $rc, or the window was not applied"
fi
bad_input metrics_window_empty "tests/fixtures/scenarios/tiny.yaml: metrics.window: " \
  run tests/fixtures/scenarios/tiny.yaml --set 'metrics.window=[100, 100]'
bad_input metrics_window_not_a_pair "tests/fixtures/scenarios/tiny.yaml: metrics.window: " \
  run tests/fixtures/scenarios/tiny.yaml --set 'metrics.window=100'
bad_input metrics_warmup_negative "tests/fixtures/scenarios/tiny.yaml: metrics.warmup_s: " \
  run tests/fixtures/scenarios/tiny.yaml --set metrics.warmup_s=-5
