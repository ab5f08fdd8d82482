#!/usr/bin/env bash
# The README's second command: installs dependencies, builds, and runs the whole test suite with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$@"
build=${TALUS_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j "${TALUS_JOBS:-$(nproc)}" --timeout 900
