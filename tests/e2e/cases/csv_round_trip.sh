# shellcheck shell=bash
# CSV round trip (issue 28, item 6): what RFC 4180 allows and what schedlab writes is read back
# by every comma-separated reader: quoted fields with commas, doubled quotes and line breaks,
# CRLF line ends. Sourced by run_e2e.sh.

R="$TMP/csv"
mkdir -p "$R"
# A Helios cluster_log with a quoted user (comma inside), a quoted vc with doubled quotes, a
# quoted state with a line break, CRLF line ends.
printf '%s\r\n' 'job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue' \
  '1,"doe, jane","v""c",1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-09 19:41:01,3600,0' \
  '2,smith,"vc2",2,8,1,"COMPLETED",2020-06-09 18:42:01,2020-06-09 18:42:01,2020-06-09 20:42:01,7200,0' >"$R/helios.csv"
run trace convert "$R/helios.csv" --trace-format helios -o "$R/native.csv"
if [ "$rc" -eq 0 ] && grep -qF '"doe, jane"' "$R/native.csv"; then pass csv_quoted_public_reader; else
  fail csv_quoted_public_reader "exit code $rc; native.csv: $(head -2 "$R/native.csv" 2>/dev/null | tail -1)"; fi
# What schedlab wrote reads back, users intact, through the native reader and a run.
run trace convert "$R/native.csv" -o "$R/native2.csv"
if [ "$rc" -eq 0 ] && cmp -s "$R/native.csv" "$R/native2.csv"; then pass csv_native_round_trip; else
  fail csv_native_round_trip "exit code $rc, or the second conversion differs"; fi
cat >"$R/s.yaml" <<YAML
name: csv-round-trip
cluster: $PWD/tests/fixtures/clusters/tiny.yaml
workload: {trace: $R/native.csv, format: native}
YAML
run run "$R/s.yaml" --out "$R/out" --quiet
if [ "$rc" -eq 0 ] && python3 -c '
import csv, sys
users = sorted(r["user"] for r in csv.DictReader(open(sys.argv[1], newline="")))
sys.exit(0 if users == ["doe, jane", "smith"] else 1)' "$R/out/jobs.csv"; then pass csv_users_survive_the_run; else
  fail csv_users_survive_the_run "exit code $rc"; fi
# A quoted field that holds a line break: one record over two lines, errors at its first line.
printf 'id,submit_s,duration_s,tasks,gpus_per_task,user\n0,0,100,1,1,"two\nlines"\n1,5,x,1,1,b\n' >"$R/multi.csv"
bad_input csv_multiline_record_error_line "$R/multi.csv:4: duration_s: " trace stats "$R/multi.csv"
printf 'id,submit_s,duration_s,tasks,gpus_per_task,user\n0,0,100,1,1,"open\n' >"$R/open.csv"
bad_input csv_open_quote "$R/open.csv:2: a quoted field is left open at the end of the file" trace stats "$R/open.csv"
