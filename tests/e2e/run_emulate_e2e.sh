#!/usr/bin/env bash
# End-to-end tests of `schedlab emulate`: a small emulation with real agent and worker
# processes, checked against its own simulation; an agent and a worker killed mid-run (no job
# lost); the controller killed and resumed from its journal; the API used while it runs (a job submitted, one stopped);
# the live view (/healthz, /metrics read by a strict parser, the page in headless Chromium); garbage sent to the
# controller (it keeps serving, the results are intact); refusals. Every process an emulation
# starts is stopped by it; the script checks that none is left.
#   usage: tests/e2e/run_emulate_e2e.sh <path to schedlab> <repository root>
set -u

BIN=$(realpath "${1:?usage: run_emulate_e2e.sh <schedlab binary> <repo root>}")
ROOT=${2:?usage: run_emulate_e2e.sh <schedlab binary> <repo root>}
cd "$ROOT" || exit 1
FIX=tests/e2e/fixtures
SC=$FIX/emulate_tiny.yaml
TMP=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-emu-e2e.XXXXXX")
export TMPDIR=$TMP  # the emulations' work folders land here and go with it
cleanup() {
  pkill -KILL -f "$TMP" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
  failed=$((failed + 1))
  echo "FAIL $1: $2"
  [ -s "$TMP/stderr" ] && grep -v "registered from" "$TMP/stderr" | tail -9 | sed 's/^/       stderr: /'
}
run() {
  "$BIN" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
}
# json FILE EXPR: a value from a JSON file (python3 is part of the set-up).
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# No agent or worker of ours may outlive the emulation that started it.
no_leftovers() {
  sleep 0.5
  if pgrep -f "$TMP" >/dev/null; then
    fail "$1_no_leftover_processes" "$(pgrep -af "$TMP" | head -3)"
  else
    pass "$1_no_leftover_processes"
  fi
}

# --- a small emulation against its simulation -------------------------------------------
# Generous: a loaded 2-core CI machine at speedup 1000 (docs/emulation.md has the figures at
# 10, 100 and 1000). Sanitized builds (run by hand: `ctest --test-dir build-asan -R
# e2e-emulate`, ASAN_OPTIONS set) start every agent and worker several times slower, which
# multiplies the fixed costs in trace time: there the bound only catches a run wildly off.
bound=0.15
[ -n "${ASAN_OPTIONS:-}" ] && bound=1000000
run emulate "$SC" --speedup 1000 --out "$TMP/tiny"
if [ "$rc" -ne 0 ]; then
  fail emulate_tiny "exit code $rc"
else
  missing=""
  for f in jobs.csv timeline.csv summary.json run.yaml fidelity.json fidelity.csv emulation.json; do
    [ -s "$TMP/tiny/$f" ] || missing="$missing $f"
  done
  finished=$(json "$TMP/tiny/summary.json" "d['finished']")
  err=$(json "$TMP/tiny/fidelity.json" "abs(d['mean_jct_error'])")
  if [ -n "$missing" ]; then
    fail emulate_tiny "missing:$missing"
  elif [ "$finished" != 24 ]; then
    fail emulate_tiny "$finished of 24 jobs finished"
  elif ! python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$err" "$bound"; then
    fail emulate_tiny "mean JCT error $err against the simulation (bound $bound)"
  else
    pass emulate_tiny
  fi
fi
no_leftovers emulate_tiny

# The same emulation under an external policy (docs/external-scheduler.md): the Python FIFO +
# best-fit example drives real processes unchanged.
run emulate "$SC" --speedup 1000 --out "$TMP/tiny-external" \
  --scheduler-cmd "python3 scripts/python/examples/fifo_best_fit.py"
finished=$([ "$rc" -eq 0 ] && json "$TMP/tiny-external/summary.json" "d['finished']")
if [ "$rc" -eq 0 ] && [ "$finished" = 24 ]; then pass emulate_external_policy; else
  fail emulate_external_policy "exit code $rc, $finished of 24 jobs finished"; fi
no_leftovers emulate_external_policy

# --- an agent killed mid-run: its host is lost, its jobs restart elsewhere ----------------
run emulate "$SC" --speedup 1000 --heartbeat-timeout-ms 1000 --out "$TMP/agent-kill" \
  --set 'emulation.failures=[{at_s: 2500, kill: agent, host: h1}]'
if [ "$rc" -ne 0 ]; then
  fail emulate_agent_killed "exit code $rc"
else
  done_or_failed=$(json "$TMP/agent-kill/summary.json" "d['finished'] + d['failed']")
  kills=$(json "$TMP/agent-kill/emulation.json" "d['planned_kills']")
  restarts=$(json "$TMP/agent-kill/emulation.json" "d['agent_restarts']")
  if [ "$done_or_failed" = 24 ] && [ "$kills" = 1 ] && [ "$restarts" -ge 1 ]; then
    pass emulate_agent_killed
  else
    fail emulate_agent_killed "finished+failed $done_or_failed of 24, kills $kills, agent restarts $restarts"
  fi
fi
no_leftovers emulate_agent_killed

# --- a worker killed mid-run: its gang fails and restarts from its checkpoint --------------
run emulate "$SC" --speedup 1000 --out "$TMP/worker-kill" --set 'emulation.failures=[{at_s: 3000, kill: worker}]'
if [ "$rc" -ne 0 ]; then
  fail emulate_worker_killed "exit code $rc"
else
  finished=$(json "$TMP/worker-kill/summary.json" "d['finished']")
  failures=$(json "$TMP/worker-kill/summary.json" "d['failures']")
  if [ "$finished" = 24 ] && [ "$failures" -ge 1 ]; then
    pass emulate_worker_killed
  else
    fail emulate_worker_killed "finished $finished of 24, failures $failures"
  fi
fi
no_leftovers emulate_worker_killed

# --- the controller killed (SIGKILL) and resumed from its journal --------------------------
# Its agents keep their tasks running and come back to the resumed controller, which replays
# the journal, adopts them and finishes with every result file; nothing is written before.
"$BIN" emulate "$SC" --speedup 1000 --work-dir "$TMP/resume-work" --out "$TMP/resumed" >/dev/null 2>"$TMP/stderr" &
emu_pid=$!
for _ in $(seq 300); do
  [ "$(wc -l 2>/dev/null <"$TMP/resume-work/journal.jsonl" || echo 0)" -ge 15 ] && break
  sleep 0.05
done
kill -KILL "$emu_pid"
wait "$emu_pid" 2>/dev/null
if [ -e "$TMP/resumed" ]; then
  fail emulate_controller_killed_resumed "results written before the run ended"
else
  run emulate --resume "$TMP/resume-work"
  if [ "$rc" -ne 0 ]; then
    fail emulate_controller_killed_resumed "exit code $rc"
  else
    finished=$(json "$TMP/resumed/summary.json" "d['finished']")
    err=$(json "$TMP/resumed/fidelity.json" "abs(d['mean_jct_error'])")
    came_back=$(sed -n 's/.* \([0-9]*\) of 4 agents came back.*/\1/p' "$TMP/stderr")
    if [ "$finished" != 24 ]; then
      fail emulate_controller_killed_resumed "$finished of 24 jobs finished"
    elif [ "${came_back:-0}" -lt 1 ]; then
      fail emulate_controller_killed_resumed "no agent of the killed controller was adopted"
    elif ! python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$err" "$bound"; then
      fail emulate_controller_killed_resumed "mean JCT error $err against the simulation (bound $bound)"
    else
      pass emulate_controller_killed_resumed
    fi
  fi
fi
no_leftovers emulate_controller_killed_resumed
run emulate --resume "$TMP/nowhere"
if [ "$rc" -eq 2 ]; then pass emulate_resume_without_journal; else fail emulate_resume_without_journal "exit code $rc"; fi

# --- the API and garbage while it runs ---------------------------------------------------
# http METHOD PATH [BODY]: one request over bash's /dev/tcp; prints the status line's code and
# the body (last line).
http() {
  local body=${3:-}
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf '%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "$1" "$2" "${#body}" "$body" >&3
  local answer
  answer=$(timeout 10 cat <&3)
  exec 3<&-
  echo "$answer" | head -1 | cut -d' ' -f2
  echo "$answer" | tail -1
}
# The live view is looked at during the same emulation (below): Chromium, headless, when
# scripts/chromium-local.sh can install and start it here; its screenshot is kept in OUT_DIR.
OUT_DIR=${SCHEDLAB_E2E_OUT:-$(dirname "$BIN")/e2e-emulate}
chromium=$(scripts/chromium-local.sh 2>"$TMP/chromium.why") || chromium=""
# The ids of the jobs running now, one a line (from GET /v1/jobs).
running_ids() {
  http GET /v1/jobs | tail -1 | python3 -c "import json,sys
print('\n'.join(str(j['id']) for j in json.load(sys.stdin)['jobs'] if j['state'] == 'running'))" 2>/dev/null
}
# /healthz, /metrics read by a strict parser of the text format, and the page in a headless
# browser: its DOM after it rendered (the hosts, a job that runs) and a screenshot.
live_checks() {
  local health metrics before after dom hosts shown
  health=$(http GET /healthz)
  if [ "$(echo "$health" | head -1)" = 200 ] && echo "$health" | tail -1 | grep -q '"status":"ok"'; then
    pass emulate_live_healthz
  else
    fail emulate_live_healthz "$(echo "$health" | tr '\n' ' ')"
  fi
  metrics=$(python3 tests/e2e/prometheus_check.py "http://127.0.0.1:$port/metrics" schedlab_jobs schedlab_gpus \
    schedlab_queue_length schedlab_preemptions_total schedlab_failures_total schedlab_clock_lag_seconds \
    schedlab_scheduling_latency_seconds schedlab_agents_registered=4 schedlab_hosts=4 2>&1)
  if [ "${metrics%% *}" = ok ]; then pass emulate_live_metrics; else fail emulate_live_metrics "$metrics"; fi
  if [ -z "$chromium" ]; then
    pass "emulate_live_page (skipped: $(head -1 "$TMP/chromium.why" | sed 's/^chromium-local: //'))"
    return
  fi
  before=$(running_ids)
  # --virtual-time-budget: the DOM is dumped once the page has had 3 s of its own time (three
  # refreshes); the profile lives in $TMP and goes with it.
  dom=$(timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-crash-reporter --no-first-run \
    --user-data-dir="$TMP/chromium" --virtual-time-budget=3000 --dump-dom "http://127.0.0.1:$port/" 2>/dev/null)
  after=$(running_ids)
  mkdir -p "$OUT_DIR"
  timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-crash-reporter --no-first-run \
    --user-data-dir="$TMP/chromium" --virtual-time-budget=3000 --window-size=1280,1000 \
    --screenshot="$OUT_DIR/live-page.png" "http://127.0.0.1:$port/" >/dev/null 2>&1
  hosts=$(echo "$dom" | grep -o '<div class="host [a-z]*" data-host="h[0-9]*"' | sort -u | wc -l)
  shown=$(echo "$dom" | grep -o '<tr class="job" data-job="[0-9]*"' | grep -o '[0-9]*' | sort -u)
  # A job the page shows running was running by the API just before or just after.
  common=$(comm -12 <(echo "$shown") <(printf '%s\n%s\n' "$before" "$after" | grep . | sort -u))
  if [ "$hosts" != 4 ]; then
    fail emulate_live_page "$hosts hosts in the rendered page, expected 4: $(echo "$dom" | head -c 300)"
  elif [ -z "$common" ]; then
    fail emulate_live_page "no running job of the API in the page (page: $(echo $shown), API: $(echo $before $after))"
  elif [ "$(head -c 8 "$OUT_DIR/live-page.png" 2>/dev/null | od -An -tx1 | tr -d ' ')" != 89504e470d0a1a0a ]; then
    fail emulate_live_page "no screenshot at $OUT_DIR/live-page.png"
  else
    pass "emulate_live_page (4 hosts, job $(echo "$common" | head -1) running; screenshot $OUT_DIR/live-page.png)"
  fi
}
# With a service (docs/services-cron.md), scaled up and stopped over the API as Marathon's are.
"$BIN" emulate "$SC" --speedup 200 --out "$TMP/api" --set 'workload.services=[{name: web, instances: 1, gpus: 1}]' \
  >"$TMP/api.stdout" 2>"$TMP/stderr" &
emu_pid=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*controller listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$TMP/stderr" | head -1)
  [ -n "$port" ] && grep -q "registered from" "$TMP/stderr" && break
  sleep 0.1
done
if [ -z "$port" ]; then
  fail emulate_api "no 'controller listening' line"
  kill "$emu_pid"
else
  sleep 1
  cluster=$(http GET /v1/cluster)
  services=$(http GET /v1/services)
  scaled=$(http POST /v1/services/web/scale '{"version":1,"instances":3}')
  unknown_service=$(http POST /v1/services/nope/scale '{"version":1,"instances":1}')
  bad_scale=$(http POST /v1/services/web/scale '{"version":1,"instances":-1}')
  scaled_up=$(http GET /v1/services)
  # Stopped before the jobs below: the job as large as the cluster needs web's GPU too.
  service_stopped=$(http POST /v1/services/web/scale '{"version":1,"instances":0}')
  # A job as large as the cluster, then a small one: both wait (behind the running jobs).
  whole=$(http POST /v1/jobs '{"version":1,"tasks":4,"gpus_per_task":4,"duration_s":600,"name":"whole"}')
  submitted=$(http POST /v1/jobs '{"version":1,"tasks":1,"gpus_per_task":2,"duration_s":600,"name":"from-api"}')
  queue=$(http GET /v1/queue)
  running=""
  for _ in $(seq 50); do  # the trace job running now with the most work left (it must not end first)
    running=$(http GET /v1/jobs | tail -1 | python3 -c "import json,sys
jobs = [j for j in json.load(sys.stdin)['jobs'] if j['state'] == 'running' and j['name'] == '']
jobs.sort(key=lambda j: j['work_total_s'] - j['work_done_s'])
print(jobs[-1]['id'] if jobs and jobs[-1]['work_total_s'] - jobs[-1]['work_done_s'] > 300 else '')")
    [ -n "$running" ] && break
    sleep 0.2
  done
  stopped=$(http POST "/v1/jobs/$running/stop")
  bad_job=$(http POST /v1/jobs '{"version":1,"tasks":"two","duration_s":600}')
  unknown=$(http POST /v1/jobs/99999/stop)
  # Garbage: raw bytes, a truncated request, an oversized body, a wrong version, a bad poll.
  { printf 'GARBAGE\x00\xff\r\n\r\n' >"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null
  { printf 'POST /v1/agents/poll HTTP/1.1\r\nContent-Length: 100\r\n\r\n{"vers' >"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null
  big=$(head -c 2000000 /dev/zero | tr '\0' 'x')
  oversized=$(http POST /v1/jobs "$big")
  version=$(http POST /v1/agents/poll '{"version":2,"agent_id":"x","host":"h0","reports":[],"wait_ms":0}')
  stale=$(http POST /v1/agents/poll '{"version":1,"agent_id":"nobody","host":"h0","reports":[],"wait_ms":0}')
  still=$(http GET /v1/cluster)
  live_checks
  wait "$emu_pid"
  rc=$?
  code() { echo "$1" | head -1; }
  checks=(
    "cluster 200:$(code "$cluster")" "queue 200:$(code "$queue")" "submit 201:$(code "$submitted")"
    "submit whole 201:$(code "$whole")"
    "stop 200:$(code "$stopped")" "bad job 400:$(code "$bad_job")" "unknown job 404:$(code "$unknown")"
    "oversized 413:$(code "$oversized")" "version 426:$(code "$version")" "stale agent 409:$(code "$stale")"
    "after garbage 200:$(code "$still")" "services 200:$(code "$services")" "scale 200:$(code "$scaled")"
    "unknown service 404:$(code "$unknown_service")" "bad scale 400:$(code "$bad_scale")"
    "service stop 200:$(code "$service_stopped")")
  bad=""
  for c in "${checks[@]}"; do
    want=${c%%:*}
    got=${c##*:}
    [ "${want##* }" = "$got" ] || bad="$bad [$want: got $got]"
  done
  if [ "$rc" -ne 0 ]; then
    fail emulate_api "exit code $rc"
  elif [ -n "$bad" ]; then
    fail emulate_api "$bad (stopped job: '$running')"
  else
    rows=$(($(wc -l <"$TMP/api/jobs.csv") - 1))
    state_col=$(head -n 1 "$TMP/api/jobs.csv" | tr , '\n' | grep -nx state | cut -d: -f1)
    api_state=$(grep ',from-api,' "$TMP/api/jobs.csv" | cut -d, -f"$state_col")
    stopped_state=$(awk -F, -v id="$running" -v c="$state_col" '$1 == id { print $c }' "$TMP/api/jobs.csv")
    if [ "$rows" = 29 ] && [ "$api_state" = finished ] && [ "$stopped_state" = failed ]; then
      pass emulate_api
    else
      fail emulate_api "jobs.csv: $rows rows, API job $api_state, stopped job $running $stopped_state"
    fi
    # web.0 from the scenario, web.1 and web.2 from the scale; all three retired by the stop.
    instances=$(grep -c ',service$' "$TMP/api/jobs.csv")
    web_max=$(json "$TMP/api/summary.json" "d['services'][0]['instances_max']")
    if [ "$instances" = 3 ] && [ "$web_max" = 3 ] && echo "$scaled_up" | tail -1 | grep -q '"instances":3' &&
      echo "$service_stopped" | tail -1 | grep -q '"instances":0'; then
      pass emulate_api_service_scale
    else
      fail emulate_api_service_scale "$instances service rows, instances_max $web_max; $(echo "$scaled_up" | tail -1)"
    fi
  fi
  if echo "$queue" | tail -1 | grep -q '"waiting"'; then pass emulate_api_queue_reasons; else
    fail emulate_api_queue_reasons "no waiting reason in $(echo "$queue" | tail -1 | head -c 200)"; fi
fi
no_leftovers emulate_api

# --- two emulations side by side (R35): their own ports, their own gangs ------------------
# The same scenario and seed at once: both make the same decisions at the same instants, so
# gangs with the same job, run and plan start together in both (ports once collided, and a rank
# could join the other emulation's rank 0). Every job of more than one GPU is a gang here. No
# failure is injected, so jobs.csv must count none. The first also has a token on loopback,
# in a file every user may read: a notice; a request without it is refused; it is in no log line,
# file or command line.
sbs_token=sbs-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$sbs_token" >"$TMP/sbs-token"
chmod 644 "$TMP/sbs-token"
"$BIN" emulate "$SC" --speedup 1000 --out "$TMP/sbs-a" --work-dir "$TMP/sbs-work-a" --token-file "$TMP/sbs-token" \
  --set workload.generate.gpus_per_host=1 >"$TMP/sbs-a.stdout" 2>"$TMP/sbs-a.stderr" &
sbs_a=$!
"$BIN" emulate "$SC" --speedup 1000 --out "$TMP/sbs-b" --work-dir "$TMP/sbs-work-b" \
  --set workload.generate.gpus_per_host=1 >"$TMP/sbs-b.stdout" 2>"$TMP/sbs-b.stderr" &
sbs_b=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*controller listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$TMP/sbs-a.stderr" | head -1)
  [ -n "$port" ] && grep -q "registered from" "$TMP/sbs-a.stderr" && break
  sleep 0.1
done
no_token=$([ -n "$port" ] && http GET /v1/cluster | head -1)
# Every command line of ours while it runs (/proc/PID/cmdline is world-readable).
cmdlines=$(pgrep -af "$TMP" 2>/dev/null)
wait "$sbs_a"
rc_a=$?
wait "$sbs_b"
rc_b=$?
# "failures restarts" summed over jobs.csv, or "missing".
uninjected() {
  python3 -c "import csv,sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(len(rows), sum(int(r['failures']) for r in rows), sum(int(r['restarts']) for r in rows))" "$1" 2>/dev/null ||
    echo missing
}
counts_a=$(uninjected "$TMP/sbs-a/jobs.csv")
counts_b=$(uninjected "$TMP/sbs-b/jobs.csv")
if [ "$rc_a" -ne 0 ] || [ "$rc_b" -ne 0 ]; then
  cp "$TMP/sbs-a.stderr" "$TMP/stderr"
  fail emulate_side_by_side "exit codes $rc_a and $rc_b"
elif [ "$counts_a" != "24 0 0" ] || [ "$counts_b" != "24 0 0" ]; then
  fail emulate_side_by_side "jobs, failures, restarts: $counts_a and $counts_b; $(grep -h "gang broken\|refused this rank" \
    "$TMP"/sbs-work-?/agents/*/task-*.log 2>/dev/null | head -2)"
else
  pass emulate_side_by_side
fi
if [ "$no_token" = 401 ]; then pass emulate_token_on_loopback; else
  fail emulate_token_on_loopback "a request without the token got '$no_token', not 401"; fi
notices=$(grep -c "schedlab: notice: $TMP/sbs-token: --token-file: the token file is readable by every user" "$TMP/sbs-a.stderr")
if [ "$notices" = 1 ]; then pass emulate_token_file_readable_notice; else
  fail emulate_token_file_readable_notice "$notices notice lines"; fi
leaks=$( (grep -rl -- "$sbs_token" "$TMP/sbs-a" "$TMP/sbs-work-a" "$TMP/sbs-a.stdout" "$TMP/sbs-a.stderr"
  echo "$cmdlines" | grep -c -- "$sbs_token" | grep -v '^0$') 2>/dev/null)
if [ -z "$leaks" ] && [ -n "$cmdlines" ]; then pass emulate_token_in_no_log; else
  fail emulate_token_in_no_log "the token is in: ${leaks:-(no command line seen)}"; fi
no_leftovers emulate_side_by_side

# --- refusals ----------------------------------------------------------------------------
run emulate "$SC" --listen 0.0.0.0:0 --out "$TMP/open"
if [ "$rc" -eq 2 ] && grep -qF -- "--listen: 0.0.0.0 is not a loopback address: give --token-file" "$TMP/stderr" &&
  [ ! -e "$TMP/open" ]; then
  pass emulate_open_listen_needs_token
else
  fail emulate_open_listen_needs_token "exit code $rc"
fi
run emulate "$SC" --speedup 0 --out "$TMP/zero"
if [ "$rc" -eq 2 ] && [ ! -e "$TMP/zero" ]; then pass emulate_bad_speedup; else fail emulate_bad_speedup "exit code $rc"; fi
run emulate "$SC" --out "$TMP/badplan" --set 'emulation.failures=[{at_s: 10, kill: agent, host: h9}]'
if [ "$rc" -eq 2 ] && grep -qF "emulation.failures.0.host: 'h9' is not a host of the cluster (h0 to h3)" "$TMP/stderr"; then
  pass emulate_bad_plan
else
  fail emulate_bad_plan "exit code $rc"
fi

# A token file that is a folder, empty or missing: named, exit 2, nothing written (R36).
: >"$TMP/empty-token"
for t in "folder:$TMP:is a folder, expected a file" "empty:$TMP/empty-token:the token file is empty" \
  "missing:$TMP/no-token:no such file"; do
  IFS=: read -r name file says <<<"$t"
  run emulate "$SC" --token-file "$file" --out "$TMP/tok-$name"
  if [ "$rc" -eq 2 ] && grep -qF -- "schedlab: error: $file: --token-file: $says" "$TMP/stderr" &&
    [ "$(wc -l <"$TMP/stderr")" = 1 ] && [ ! -e "$TMP/tok-$name" ]; then
    pass "emulate_token_file_$name"
  else
    fail "emulate_token_file_$name" "exit code $rc"
  fi
done
run agent --controller 127.0.0.1:1 --host h0 --token-file "$TMP"
if [ "$rc" -eq 2 ] && grep -qF -- "schedlab: error: $TMP: --token-file: is a folder, expected a file" "$TMP/stderr"; then
  pass agent_token_file_folder
else
  fail agent_token_file_folder "exit code $rc"
fi

# --- the GPU check (scripts/gpu-check.sh, docs/calibration.md) without a GPU ----------------
# --dry-run: every step against a simulated device, the layout of OUT_DIR and the summary.
SCHEDLAB=$BIN bash scripts/gpu-check.sh --dry-run "$TMP/gc" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
missing=""
for f in summary.md inventory.log calibrate.log worker.log emulate.log profile.yaml worker.csv fidelity.json; do
  [ -s "$TMP/gc/$f" ] || missing="$missing $f"
done
if [ "$rc" -eq 0 ] && [ -z "$missing" ] && [ "$(grep -c '| passed |' "$TMP/gc/summary.md")" = 4 ] &&
  [ "$(tail -n +2 "$TMP/gc/worker.csv" | wc -l)" = 4 ] &&
  [ "$(json "$TMP/gc/fidelity.json" 'd["emulated"]["finished"]')" = 10 ]; then
  pass gpu_check_dry_run
else
  fail gpu_check_dry_run "exit $rc, missing:$missing; $(tail -3 "$TMP/stdout")"
fi
# The pretend GPU runs each step's GEMM at its rate: the worker's steps take what the model says.
ratio_ok=$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(all(0.95 <= float(x['median_over_model']) <= 1.5 for x in r))" "$TMP/gc/worker.csv" 2>/dev/null)
if [ "$ratio_ok" = True ]; then pass gpu_check_dry_run_worker_model; else fail gpu_check_dry_run_worker_model "$(cat "$TMP/gc/worker.csv")"; fi
no_leftovers gpu_check_dry_run
# One step past its timeout fails alone: the others' results stay, exit 4, nothing left running.
SCHEDLAB=$BIN GPU_CHECK_T_EMULATE=2 bash scripts/gpu-check.sh --dry-run "$TMP/gc-slow" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
if [ "$rc" -eq 4 ] && grep -q '| emulate | timed out after 2 s |' "$TMP/gc-slow/summary.md" &&
  [ "$(grep -c '| passed |' "$TMP/gc-slow/summary.md")" = 3 ] && [ -s "$TMP/gc-slow/profile.yaml" ]; then
  pass gpu_check_step_timeout
else
  fail gpu_check_step_timeout "exit $rc; $(tail -3 "$TMP/stdout")"
fi
sleep 1
no_leftovers gpu_check_step_timeout
# Without a GPU: one line per step says so, exit 3 (a machine with a driver skips this case).
if command -v nvidia-smi >/dev/null; then
  pass "gpu_check_no_gpu (skipped: nvidia-smi present)"
else
  SCHEDLAB=$BIN bash scripts/gpu-check.sh "$TMP/gc-none" >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
  if [ "$rc" -eq 3 ] && [ "$(grep -c ': no GPU' "$TMP/stdout")" = 4 ]; then
    pass gpu_check_no_gpu
  else
    fail gpu_check_no_gpu "exit $rc; $(cat "$TMP/stdout")"
  fi
fi
# An OUT_DIR that holds something else is not emptied.
mkdir -p "$TMP/precious" && echo keep >"$TMP/precious/notes.txt"
SCHEDLAB=$BIN bash scripts/gpu-check.sh --dry-run "$TMP/precious" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
if [ "$rc" -eq 2 ] && [ -f "$TMP/precious/notes.txt" ] && grep -q "is not an earlier check's folder" "$TMP/stderr"; then
  pass gpu_check_keeps_other_folders
else
  fail gpu_check_keeps_other_folders "exit $rc"
fi

echo "e2e emulate: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
