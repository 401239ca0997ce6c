#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (one per parser) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz/, runs each for a while, and keeps what it finds.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]    (default: 60 s, every target in
#                                                         tests/fuzz/targets.txt)
# Environment: SCHEDLAB_JOBS (build jobs, nproc), FUZZ_TIMEOUT (seconds one input may take
# before it counts as a hang, 10), FUZZ_RSS_MB (memory limit, 2048), FUZZ_MAX_FINDINGS (after a
# finding the target restarts with its grown corpus until the time is up or it has found this
# many, 3), FUZZ_BUILD_DIR (build-fuzz), FUZZ_KEEP_FINDS (1: after a target's run without
# findings, the corpus inputs that reach code its committed seeds do not are merged into
# tests/fuzz/seeds/TARGET/ (libFuzzer -merge=1, inputs of at most 4 KiB), to be committed: what a
# change that touches a parser does after its 10 minutes; the unit tests replay them).
# Results, kept between runs:
#   build-fuzz/corpus/TARGET/     the inputs that reached new code (grows; fuzzing resumes from it)
#   build-fuzz/findings/TARGET/   crash-*, leak-*, timeout-*, oom-* (reproduce: build-fuzz/fuzz_TARGET FILE)
#   build-fuzz/logs/TARGET.log    libFuzzer's output, with the sanitizer report of each finding
#   build-fuzz/ledger.tsv         one line per target and run: date, commit, target, wall
#                                 seconds, CPU seconds of the fuzzer, inputs executed, findings;
#                                 sum it for the README's CPU-hours per target
# Exit status: 0 when no target found anything in this run, 1 otherwise, 2 for a setup error.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=${FUZZ_BUILD_DIR:-build-fuzz}
timeout_s=${FUZZ_TIMEOUT:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
max_findings=${FUZZ_MAX_FINDINGS:-3}

# --- tools: clang and its sanitizer/fuzzer runtime (Debian 12: clang 14) -----------------
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
install() {
  echo "fuzz: installing $*"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$@"
}
command -v clang++ >/dev/null || install clang
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" 2>/dev/null; then
  install "libclang-rt-$(clang++ -dumpversion | cut -d. -f1)-dev"
  clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" ||
    { echo "fuzz: clang cannot link a libFuzzer program" >&2; exit 2; }
fi

# --- targets and build ------------------------------------------------------------------
mapfile -t all_targets < <(grep -E '^[a-z]' tests/fuzz/targets.txt | awk '{print $1}')
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  printf '%s\n' "${all_targets[@]}" | grep -qx "$t" ||
    { echo "fuzz: unknown target '$t'; valid: ${all_targets[*]}" >&2; exit 2; }
done

# One configure and build at a time in the folder: instances started side by side would
# relink the same library under each other.
mkdir -p "$build"
exec 9>"$build/.build-lock"
flock 9
# -O1 -g with assertions on (an assert is a finding too); CUDA and benchmarks are not fuzzed.
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DSCHEDLAB_FUZZ=ON -DSCHEDLAB_SANITIZE=address,undefined -DSCHEDLAB_CUDA=OFF -DSCHEDLAB_BENCH=OFF >/dev/null
build_targets=("${targets[@]/#/fuzz_}")
((${#targets[@]} == ${#all_targets[@]})) && build_targets=(fuzz_all)
cmake --build "$build" -j"${SCHEDLAB_JOBS:-$(nproc)}" --target "${build_targets[@]}"
flock -u 9

# --- run --------------------------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The targets' sandboxes (a crash leaves its sandbox behind), one folder per instance of this
# script: two instances may fuzz different targets side by side (one per core).
export TMPDIR="$PWD/$build/tmp/$$"
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR" "$build/logs"
trap 'rm -rf "$probe" "$TMPDIR"' EXIT

# Seeds: the files named in targets.txt (absent ones left out), the target's kept seeds and the
# regression inputs.
gather_seeds() {
  local t=$1 dir=$2 seed
  rm -rf "$dir"
  mkdir -p "$dir"
  for seed in $(grep -E "^$t[[:space:]]" tests/fuzz/targets.txt | cut -d' ' -f2-) tests/fuzz/seeds/"$t" tests/fuzz/regressions/"$t"; do
    if [ -d "$seed" ]; then
      find "$seed" -maxdepth 1 -type f -exec cp -L -t "$dir" {} +
    elif [ -f "$seed" ]; then
      cp -L "$seed" "$dir/"
    fi
  done
}

count_files() { find "$1" -maxdepth 1 -type f 2>/dev/null | wc -l; }
# CPU seconds (user + system) used so far by this script's finished children. `times` runs in
# this shell (a command substitution would ask a subshell, whose children are none).
cpu_of_times() { awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] } } END { printf "%d", s }' "$1"; }

total_findings=0
summary=()
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t findings=$build/findings/$t seeds=$TMPDIR/seeds/$t log=$build/logs/$t.log
  mkdir -p "$corpus" "$findings"
  gather_seeds "$t" "$seeds"
  stamp=$(mktemp "$TMPDIR/stamp.XXXXXX")
  corpus_before=$(count_files "$corpus")
  : >"$log"
  runs=0 start=$SECONDS found=0
  times >"$TMPDIR/times"
  cpu_before=$(cpu_of_times "$TMPDIR/times")
  while :; do
    left=$((seconds - (SECONDS - start)))
    ((left > 0)) || break
    part=$TMPDIR/part.log
    began=$SECONDS
    # The first corpus folder receives new inputs; the seeds are only read.
    "$build/fuzz_$t" -max_total_time="$left" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
      -report_slow_units=100000 -print_final_stats=1 -artifact_prefix="$findings/" \
      "$corpus" "$seeds" >"$part" 2>&1 || true
    cat "$part" >>"$log"
    runs=$((runs + $(grep -o 'stat::number_of_executed_units: [0-9]*' "$part" | awk '{s += $2} END {print s + 0}')))
    found=$(find "$findings" -maxdepth 1 -type f -newer "$stamp" | wc -l)
    # Done when enough was found, when the run ended without a finding (its time is up), or
    # when it died within seconds (a seed that fails at once would fail on every restart).
    ((found < max_findings)) || break
    grep -qE '^(==[0-9]+==ERROR|SUMMARY: |fuzz finding:)|deadly signal|ALARM: working on the last Unit' "$part" || break
    ((SECONDS - began >= 5)) || break
  done
  elapsed=$((SECONDS - start))
  times >"$TMPDIR/times"
  cpu=$(($(cpu_of_times "$TMPDIR/times") - cpu_before))
  corpus_after=$(count_files "$corpus")
  total_findings=$((total_findings + found))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$(git rev-parse --short HEAD 2>/dev/null || echo -)" \
    "$t" "$elapsed" "$cpu" "$runs" "$found" >>"$build/ledger.tsv"
  summary+=("$(printf '%-20s %10s %6ss %6ss %8s %+6d %9s' "$t" "$runs" "$elapsed" "$cpu" "$corpus_after" \
    $((corpus_after - corpus_before)) "$found")")
  if ((found)); then
    find "$findings" -maxdepth 1 -type f -newer "$stamp" | sed 's/^/    finding: /'
  elif [ "${FUZZ_KEEP_FINDS:-0}" = 1 ]; then
    keep=tests/fuzz/seeds/$t
    mkdir -p "$keep"
    kept_before=$(count_files "$keep")
    # Into the committed seeds, only what adds coverage to them and to the other seed files.
    "$build/fuzz_$t" -merge=1 -max_len=4096 -timeout="$timeout_s" -rss_limit_mb="$rss_mb" "$keep" "$seeds" "$corpus" \
      >>"$log" 2>&1 || echo "    merge into $keep failed (see $log)"
    echo "    kept $(($(count_files "$keep") - kept_before)) new seeds in $keep"
  fi
done

printf '\n%-20s %10s %7s %7s %8s %6s %9s\n' target runs time cpu corpus new findings
printf '%s\n' "${summary[@]}"
echo "findings under $build/findings/, logs under $build/logs/"
((total_findings == 0))
