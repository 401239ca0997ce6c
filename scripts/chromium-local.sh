#!/usr/bin/env bash
# Debian's headless Chromium, for the emulator's live-page test (tests/e2e/run_emulate_e2e.sh)
# and for looking at the page without a desktop: installs the `chromium` package with apt-get
# when it is missing, checks that it starts headless, and prints the path of its binary.
#   scripts/chromium-local.sh      install what is missing; print the binary's path
# Exits 1 with one line saying why when Chromium cannot run here (no apt-get, not root and no
# sudo, an install that failed, a browser that will not start).
set -uo pipefail
why() { echo "chromium-local: $*" >&2; exit 1; }

find_chromium() { command -v chromium || command -v chromium-browser; }

if ! bin=$(find_chromium); then
  command -v apt-get >/dev/null || why "no apt-get to install chromium"
  if [ "$(id -u)" = 0 ]; then
    sudo_cmd=()
  elif sudo -n true 2>/dev/null; then
    sudo_cmd=(sudo -n)
  else
    why "needs root or passwordless sudo to install chromium"
  fi
  log=${TMPDIR:-/tmp}/schedlab-chromium-apt.log
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends chromium >"$log" 2>&1 ||
    { "${sudo_cmd[@]}" apt-get update -q >>"$log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends chromium \
        >>"$log" 2>&1; } || why "apt-get install chromium failed (see $log)"
  bin=$(find_chromium) || why "chromium installed but not on the PATH"
fi
# It must start: a headless dump of an empty page (no network, no profile left behind).
profile=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-chromium-check.XXXXXX")
trap 'rm -rf "$profile"' EXIT
if ! timeout 60 "$bin" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" --dump-dom \
  'data:text/html,<p>ok</p>' 2>/dev/null | grep -q '<p>ok</p>'; then
  why "$bin does not start headless"
fi
echo "$bin"
