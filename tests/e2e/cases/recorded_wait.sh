# shellcheck shell=bash
# Replay against the record (issue 27, item 8; docs/metrics.md): an SWF log's wait field becomes
# jobs.csv's recorded_wait_s (empty where the log says -1), and summary.json and the printed
# summary put the recorded and simulated first waits side by side over the jobs that have both
# (a job dropped at submit is not compared). A trace without a record shows none of it.
# Sourced by run_e2e.sh.

run run "$FIX/recorded_wait.yaml" -o "$TMP/rw"
if [ "$rc" -eq 0 ] && python3 - "$TMP/rw" "$FIX/recorded_wait.swf" <<'PY'; then
import csv, json, math, sys
folder, swf = sys.argv[1], sys.argv[2]
s = json.load(open(f"{folder}/summary.json"))
rows = list(csv.DictReader(open(f"{folder}/jobs.csv")))
assert list(rows[0].keys())[-1] == "recorded_wait_s", list(rows[0].keys())
waits = {l.split()[0]: float(l.split()[2]) for l in open(swf) if not l.startswith(";")}
for r in rows:  # the log's wait field, job by job; -1 is an empty cell, never a number
    w = waits[r["trace_id"]]
    assert (r["recorded_wait_s"] == "") if w < 0 else float(r["recorded_wait_s"]) == w, r
def pct(v, p):  # numpy's / pandas' default
    v = sorted(v); h = (len(v) - 1) * p / 100; lo = math.floor(h)
    return v[lo] + (h - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])
both = [r for r in rows if r["recorded_wait_s"] != "" and r["start_s"] != ""]
rec = [float(r["recorded_wait_s"]) for r in both]
sim = [float(r["first_wait_s"]) for r in both]
w = s["recorded_wait"]
assert w["jobs"] == 5 and w["compared"] == 4 == len(both), w
assert [r["state"] for r in rows if r["trace_id"] == "5"] == ["dropped"]
close = lambda a, b: abs(a - b) <= 1e-6 * max(1, abs(b))
for name, v in (("recorded", rec), ("simulated_first_wait", sim)):
    assert close(w[f"{name}_mean_s"], sum(v) / len(v)), (name, w)
    assert close(w[f"{name}_p50_s"], pct(v, 50)) and close(w[f"{name}_p90_s"], pct(v, 90)), (name, w)
assert w["recorded_mean_s"] == (100 + 500 + 30 + 2000) / 4, w
assert sim != rec  # the replay does not reproduce the record, and says so
PY
  grep -qF "wait vs the trace's record (4 of 5 jobs with a record compared)" "$TMP/stdout" &&
    grep -qE '^    mean +657\.5 +[0-9.]+$' "$TMP/stdout" &&
    pass recorded_wait_beside_simulated || fail recorded_wait_beside_simulated "the printed summary lacks the comparison"
else
  fail recorded_wait_beside_simulated "exit code $rc, or jobs.csv / summary.json disagree with the log (above)"
fi
# A trace without a record (the native format): no column, no summary key, no printed lines.
run run "$FIX/base.yaml" -o "$TMP/rw-none"
if [ "$rc" -eq 0 ] && ! head -1 "$TMP/rw-none/jobs.csv" | grep -q recorded_wait_s &&
  ! grep -q recorded_wait "$TMP/rw-none/summary.json" && ! grep -q "trace's record" "$TMP/stdout"; then
  pass recorded_wait_absent_without_a_record
else
  fail recorded_wait_absent_without_a_record "exit code $rc, or a run without a record mentions one"
fi
# PAI 2020 with `submit: job`: the job table's start_time is the submission, the task's start
# gives the recorded wait (task 1's job: 990 -> 1000; task 3 starts before its job: no record).
run run "$FIX/recorded_wait_pai.yaml" -o "$TMP/rw-pai"
if [ "$rc" -eq 0 ] && python3 - "$TMP/rw-pai" <<'PY'; then
import csv, json, sys
rows = {r["trace_id"]: r for r in csv.DictReader(open(f"{sys.argv[1]}/jobs.csv"))}
assert {k: rows[k]["recorded_wait_s"] for k in rows} == {"1": "10.000000", "2": "10.000000", "3": "", "7": "100.000000"}, rows
assert rows["1"]["submit_s"] == "500.000000" and rows["1"]["run_s"] == "600.000000", rows["1"]
w = json.load(open(f"{sys.argv[1]}/summary.json"))["recorded_wait"]
assert w["jobs"] == 3 and w["compared"] == 3 and w["recorded_mean_s"] == 40.0, w
PY
  grep -qF "wait vs the trace's record (3 of 3 jobs with a record compared)" "$TMP/stdout" &&
    grep -qF "1  tasks whose job has no start_time in job_table (submit: job)" "$TMP/stdout" &&
    pass recorded_wait_pai_submit_job || fail recorded_wait_pai_submit_job "the printed summary lacks the comparison or the drop"
else
  fail recorded_wait_pai_submit_job "exit code $rc, or jobs.csv / summary.json disagree with the job table (above)"
fi
