#!/usr/bin/env bash
# Set up, build and run every test, in two builds:
#   build/       Release, the binary users run: the end-to-end tests of the binary, among them
#                the emulator's, which time real processes and want an optimized build;
#   build-asan/  AddressSanitizer and UndefinedBehaviorSanitizer: the unit tests and the
#                end-to-end tests again; a sanitizer report (overflow, out-of-bounds,
#                use-after-free, leak, bad float cast) stops the program, so it fails the test.
# The unit tests are built once, in build-asan/: building them in both builds cost CI three of
# its 15 minutes. `cmake --build build && ctest --test-dir build` runs them in Release too,
# with the whole conformance suite (the sanitized build runs every 7th combination of parts).
#   scripts/test.sh                              both stages (what CI runs)
#   SCHEDLAB_SANITIZE_TESTS=0 scripts/test.sh    the Release stage only, unit tests included
set -euo pipefail
cd "$(dirname "$0")/.."
# Includes point down only (docs/architecture.md, "Layers"): first, it takes well under 1 s.
scripts/check-layers.sh
sanitize=${SCHEDLAB_SANITIZE_TESTS:-1}
targets="schedlab"
[ "$sanitize" = 0 ] && targets="schedlab schedlab_tests"
# Only what the tests run is built: the benchmarks are not tests (`scripts/setup.sh` builds
# them), and CI's 15 minutes go to tests.
SCHEDLAB_TARGETS="$targets" SCHEDLAB_CMAKE_ARGS="-DSCHEDLAB_WERROR=ON ${SCHEDLAB_CMAKE_ARGS:-}" \
  scripts/setup.sh build
# Side by side (-j), but the emulator's tests run alone (RUN_SERIAL in tests/CMakeLists.txt):
# they compare the emulation with wall-clock time.
if [ "$sanitize" = 0 ]; then
  ctest --test-dir build --output-on-failure -j"${SCHEDLAB_JOBS:-$(nproc)}"
  exit 0
fi
# -Og -g1: the sanitizers' instrumentation at -O1 -g made each file compile 2.4 times slower
# (48 s against 20 s for one unity batch); -Og runs the tests nearly as fast, and -g1 keeps
# file:line in the reports. Assertions stay on (Debug: no NDEBUG). CUDA and benchmarks are
# left out: they test nothing a parser reads. Shared libfmt: compiling fmt into every file
# tripled this build's time.
# shellcheck disable=SC2086
cmake -S . -B build-asan ${SCHEDLAB_CMAKE_ARGS:-} -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-Og -g1" \
  -DSCHEDLAB_SANITIZE=address,undefined -DSCHEDLAB_WERROR=ON -DSCHEDLAB_CUDA=OFF -DSCHEDLAB_BENCH=OFF \
  -DSCHEDLAB_FMT_SHARED=ON >/dev/null
# The emulator's end-to-end tests spend 100 s mostly waiting on wall-clock time (20 s of CPU):
# the sanitized build is compiled meanwhile, at the lowest priority, so that the emulator's
# agents and workers still get a core the moment they wake (mean JCT error 0.045 with the
# compile beside it, bound 0.15). The other Release-stage tests come after the build.
asan_log=build-asan/build.log
set -m  # the build in a process group of its own: an interrupted test stops all of it
nice -n 19 cmake --build build-asan -j"${SCHEDLAB_JOBS:-$(nproc)}" >"$asan_log" 2>&1 &
asan_build=$!
set +m
trap 'kill -- -"$asan_build" 2>/dev/null || true' EXIT
emulate_rc=0
ctest --test-dir build --output-on-failure -R '^e2e-emulate$' || emulate_rc=$?
asan_rc=0
wait "$asan_build" || asan_rc=$?
trap - EXIT
if [ "$asan_rc" -ne 0 ]; then
  tail -n 60 "$asan_log"
  echo "test: the sanitized build failed (all of it in $asan_log)"
  exit "$asan_rc"
fi
ctest --test-dir build --output-on-failure -j"${SCHEDLAB_JOBS:-$(nproc)}" -E '^(unit|e2e-emulate)$'
[ "$emulate_rc" -eq 0 ] || { echo "test: e2e-emulate failed (above)"; exit "$emulate_rc"; }
# Reports are fatal (also built in: -fno-sanitize-recover=all) and carry a stack trace.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# The unit and end-to-end tests side by side (both CPU-bound, no timing in them). The
# emulator's end-to-end tests run only in the Release stage: under the sanitizers they can
# check little but completion (agents and workers start several times slower), which costs
# 100 s of CI's 15 minutes; its loop, executor, journal and protocol are in the unit tests.
# So does the Slurm test: it checks the sbatch script and the array, which the e2e tests'
# sanitized sweeps (run-cell, collect) already cover here. The Python package's tests (policy,
# API, notebook) run no sanitized code of their own: once, in the Release stage.
ctest --test-dir build-asan --output-on-failure -j2 -E 'e2e-emulate|e2e-slurm|python-'
