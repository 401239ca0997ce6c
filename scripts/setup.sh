#!/usr/bin/env bash
# Installs what schedlab needs on Debian 12 (only what is missing) and builds it.
#   scripts/setup.sh [BUILD_DIR]      (default: build)
# Environment: SCHEDLAB_BUILD_TYPE (Release), SCHEDLAB_JOBS (nproc), SCHEDLAB_CMAKE_ARGS,
# SCHEDLAB_TARGETS (what to build, space-separated; default: everything), SCHEDLAB_PREFIX (where
# `cmake --install` puts schedlab and its man page: /usr/local when writable, else ~/.local;
# SCHEDLAB_INSTALL=0 installs nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}

packages=(cmake g++ make libboost-graph-dev libyaml-cpp-dev libfmt-dev libcli11-dev doctest-dev
          libbenchmark-dev nlohmann-json3-dev zlib1g-dev ccache python3 python3-matplotlib bc
          python3-pandas python3-nbconvert python3-ipykernel help2man libglpk-dev libltdl-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${SCHEDLAB_BUILD_TYPE:-Release}" ${SCHEDLAB_CMAKE_ARGS:-} >/dev/null
targets=()
for t in ${SCHEDLAB_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j"${SCHEDLAB_JOBS:-$(nproc)}" "${targets[@]}"

# `import schedlab` from any folder (scripts/python: the Python API and schedlab.policy): a .pth
# naming that folder in the user's site-packages of Debian's python3 (which has pandas) and of
# the python3 on the PATH when that is another one. No network, no pip, nothing copied: the
# package stays the repository's.
for py in /usr/bin/python3 "$(command -v python3 || true)"; do
  [ -x "$py" ] || continue
  site=$("$py" -c 'import site; print(site.getusersitepackages())' 2>/dev/null) || continue
  mkdir -p "$site" && printf '%s\n' "$PWD/scripts/python" >"$site/schedlab.pth"
done

# schedlab on the PATH, so that every command of the README works as printed.
if [ "${SCHEDLAB_INSTALL:-1}" != 0 ] && [ -x "$build_dir/schedlab" ]; then
  prefix=${SCHEDLAB_PREFIX:-}
  if [ -z "$prefix" ]; then
    if [ -w /usr/local/bin ] && [ -w /usr/local/share ]; then prefix=/usr/local; else prefix=$HOME/.local; fi
  fi
  cmake --install "$build_dir" --prefix "$prefix" >/dev/null
  if [ "$(command -v schedlab || true)" = "$prefix/bin/schedlab" ]; then
    echo "setup: schedlab and its man page installed under $prefix (cmake --install $build_dir --prefix $prefix)"
  else
    echo "setup: schedlab installed in $prefix/bin (cmake --install $build_dir --prefix $prefix); put it on your PATH: export PATH=\"$prefix/bin:\$PATH\""
  fi
fi
