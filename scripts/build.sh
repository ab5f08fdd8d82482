#!/usr/bin/env bash
# Configures and builds Talus (Release by default) into build/ (or $TALUS_BUILD_DIR).
# Extra arguments go to CMake's configure step, e.g. scripts/build.sh -DTALUS_SANITIZE=ON.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TALUS_BUILD_DIR:-$root/build}
type=${TALUS_BUILD_TYPE:-Release}
jobs=${TALUS_JOBS:-$(nproc)}
gen=()
command -v ninja >/dev/null && [ ! -f "$build/Makefile" ] && gen=(-G Ninja)
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
cmake --build "$build" -j "$jobs"
