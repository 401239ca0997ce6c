#!/usr/bin/env bash
# Proof that a refactoring changed no behaviour: runs the same commands with two schedlab
# binaries and compares everything they write.
#   usage: scripts/check-same-results.sh OLD_BIN NEW_BIN
# Prints nothing and exits 0 when every output is the same; otherwise names each differing
# file (or exit code, standard output, standard error) and exits 1. Exit 2: bad usage.
#
# What runs, with both binaries, from the repository root (same command line, so paths in
# messages and run.yaml agree; results go to two temporary trees):
#   - `run` and `validate` of every scenarios/*.yaml whose data is present (scenarios naming a
#     ../shared trace or node list that this clone lacks are skipped: users' clones have none);
#   - `run` of every fixture scenario, tests/e2e/fixtures/*.yaml and
#     tests/fixtures/scenarios/**/*.yaml: one both binaries refuse counts as the same when the
#     exit code and the message are the same;
#   - `compare` of every scenarios/*.yaml that has `variants:` (and its data);
#   - `list`;
#   - the emulator's simulated comparison on tests/e2e/fixtures/emulate_tiny.yaml: `schedlab
#     emulate` runs against the wall clock, so its emulated figures (jobs.csv, timeline.csv,
#     summary.json, emulation.json, the emu_* columns of fidelity.csv, what it prints) differ
#     from one run to the next and are not compared; the simulated twin it is measured against is deterministic: the sim_*
#     columns of fidelity.csv, fidelity.json's `simulated` summary and run.yaml are compared.
#     Skipped with SCHEDLAB_CHECK_EMULATE=0 (about 10 s of wall time).
# Each `run` also writes its event log (--events), which is compared too. run.yaml records
# the version: compare binaries of the same version. Standard output is compared without
# the line saying how fast the run went (wall time, events/s, peak RSS).
# Skipped for time unless SCHEDLAB_CHECK_SLOW=1: `compare scenarios/philly-policies.yaml` (11
# variants of Philly's 111,549 jobs: a minute of CPU per binary, given 600 s; its `run` is
# compared). The whole check takes about 30 s on two cores (most
# of it the emulation's 10 s of wall time). A command that does not end within
# SCHEDLAB_CHECK_TIMEOUT seconds (default 120) is a difference (its rc file says "timed out").
# SCHEDLAB_CHECK_VERBOSE=1 also lists what was skipped and why (on standard error).
# Not part of scripts/test.sh (CI time); meant for a refactoring's branch: the commit before
# it against the last commit of it.
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/check-same-results.sh OLD_BIN NEW_BIN" >&2
  exit 2
fi
OLD=$(realpath "$1") || exit 2
NEW=$(realpath "$2") || exit 2
for b in "$OLD" "$NEW"; do
  [ -x "$b" ] || { echo "check-same-results: $b is not an executable" >&2; exit 2; }
done
cd "$(dirname "$0")/.." || exit 2
[ -d scenarios ] && [ -d tests/e2e/fixtures ] || { echo "check-same-results: run it from a schedlab checkout's scripts/" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-same.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
limit=${SCHEDLAB_CHECK_TIMEOUT:-120}
# Each command's address space (KiB): a binary from before a bound was added (say 4e9
# generated jobs) fails alone instead of taking the machine's memory.
memory_kib=${SCHEDLAB_CHECK_MEMORY_KIB:-$((4 << 20))}
verbose=${SCHEDLAB_CHECK_VERBOSE:-0}
skip() { [ "$verbose" = 1 ] && echo "skipped $1: $2" >&2; return 0; }

# one CASE SUBCOMMAND ARGS...: runs `BIN SUBCOMMAND ARGS...` with each binary, in
# $TMP/{old,new}/CASE/: exit code, standard output and error, results folder `out` (where the
# arguments say @OUT@) and event log (@EVENTS@). Both binaries run at once.
one() {
  local case=$1
  shift
  local side bin dir pids=()
  for side in old new; do
    [ $side = old ] && bin=$OLD || bin=$NEW
    dir=$TMP/$side/$case
    mkdir -p "$dir"
    local args=() a
    for a in "$@"; do
      a=${a//@OUT@/$dir/out}
      args+=("${a//@EVENTS@/$dir/events.csv}")
    done
    (
      ulimit -v "$memory_kib"
      timeout "${case_limit:-$limit}" "$bin" "${args[@]}" >"$dir/stdout" 2>"$dir/stderr" </dev/null
      rc=$?
      [ $rc -eq 124 ] && rc="timed out after ${case_limit:-$limit} s"
      echo "$rc" >"$dir/rc"
      # The two results trees differ in name only: messages name them alike.
      sed -i "s|$TMP/$side/|@TMP@/|g" "$dir/stdout" "$dir/stderr"
      # How fast it ran: "run: N events, M instants in S s wall (R events/s), peak RSS X MiB".
      sed -i -E '/ s wall|peak RSS/d' "$dir/stdout" "$dir/stderr"
    ) &
    pids+=($!)
  done
  wait "${pids[@]}"
}

# A scenario's data: every ../shared path it names outside comments must exist (relative to
# the scenario's folder). Prints the first missing one.
missing_shared() {
  local f=$1 p
  for p in $(sed 's/#.*//' "$f" | grep -oE '(\.\./)+shared/[^ ,"'"'"'}\]]+'); do
    [ -e "$(dirname "$f")/$p" ] || { echo "$p"; return 0; }
  done
  return 1
}

name_of() { local n=${1//\//__}; echo "${n%.yaml}"; }

one list list
for f in scenarios/*.yaml; do
  if m=$(missing_shared "$f"); then
    skip "$f" "its data $m is not here"
    continue
  fi
  one "run__$(name_of "$f")" run -q "$f" -o @OUT@ --events @EVENTS@
  one "validate__$(name_of "$f")" validate "$f"
  if [ "$f" = scenarios/philly-policies.yaml ] && [ "${SCHEDLAB_CHECK_SLOW:-0}" != 1 ]; then
    skip "compare $f" "11 variants of 111,549 jobs: a minute of CPU per binary (SCHEDLAB_CHECK_SLOW=1 runs it)"
  elif [ "$f" = scenarios/philly-policies.yaml ]; then
    case_limit=600 one "compare__$(name_of "$f")" compare -q "$f" -o @OUT@
  elif grep -q '^variants:' "$f"; then
    one "compare__$(name_of "$f")" compare -q "$f" -o @OUT@
  fi
done
while IFS= read -r f; do
  one "run__$(name_of "$f")" run -q "$f" -o @OUT@ --events @EVENTS@
done < <(find tests/e2e/fixtures tests/fixtures/scenarios -name '*.yaml' | sort)

if [ "${SCHEDLAB_CHECK_EMULATE:-1}" = 1 ]; then
  emu=emulate__emulate_tiny
  one "$emu" emulate tests/e2e/fixtures/emulate_tiny.yaml --speedup 1000 -o @OUT@
  for side in old new; do
    d=$TMP/$side/$emu
    # Wall-clock figures: kept aside, out of the comparison.
    mkdir -p "$TMP/wall-$side"
    mv "$d/stdout" "$d/stderr" "$TMP/wall-$side/" 2>/dev/null
    if [ -d "$d/out" ]; then
      for w in jobs.csv timeline.csv summary.json emulation.json; do mv "$d/out/$w" "$TMP/wall-$side/" 2>/dev/null; done
      if [ -f "$d/out/fidelity.csv" ]; then
        awk -F, -v OFS=, '{print $1, $5, $6, $7}' "$d/out/fidelity.csv" >"$d/out/fidelity-simulated.csv"
        rm "$d/out/fidelity.csv"
      fi
      if [ -f "$d/out/fidelity.json" ]; then
        python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["simulated"], indent=1, sort_keys=True))' \
          "$d/out/fidelity.json" >"$d/out/fidelity-simulated.json" 2>&1
        rm "$d/out/fidelity.json"
      fi
    fi
  done
else
  skip emulate "SCHEDLAB_CHECK_EMULATE=0"
fi

# Every file of either tree, compared byte for byte. A command that timed out proves nothing,
# even when both did.
status=0
timed_out=()
for rc_file in "$TMP"/old/*/rc "$TMP"/new/*/rc; do
  if grep -q 'timed out' "$rc_file"; then
    echo "differs: ${rc_file#"$TMP"/} ($(cat "$rc_file"))"
    status=1
    c=${rc_file%/rc}
    timed_out+=("${c##*/}")
  fi
done
while IFS= read -r rel; do
  for c in "${timed_out[@]}"; do [ "${rel%%/*}" = "$c" ] && continue 2; done  # named above
  a=$TMP/old/$rel
  b=$TMP/new/$rel
  if [ ! -e "$a" ]; then
    echo "differs: $rel (only the new binary wrote it)"
    status=1
  elif [ ! -e "$b" ]; then
    echo "differs: $rel (only the old binary wrote it)"
    status=1
  elif ! cmp -s "$a" "$b"; then
    echo "differs: $rel"
    status=1
  fi
done < <({ (cd "$TMP/old" && find . -type f); (cd "$TMP/new" && find . -type f); } | sed 's|^\./||' | sort -u)
exit $status
