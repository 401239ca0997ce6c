#!/usr/bin/env bash
# Set up, build, and run every test (unit tests and end-to-end tests of the binary).
set -euo pipefail
cd "$(dirname "$0")/.."
SCHEDLAB_CMAKE_ARGS="-DSCHEDLAB_WERROR=ON ${SCHEDLAB_CMAKE_ARGS:-}" scripts/setup.sh build
ctest --test-dir build --output-on-failure
