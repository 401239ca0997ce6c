#!/usr/bin/env bash
# Set up, build, and run the default scenario (scenarios/quickstart.yaml); prints its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
./build/schedlab run scenarios/quickstart.yaml
