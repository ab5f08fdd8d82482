#!/usr/bin/env bash
# The README's second command: installs dependencies, builds, and runs the whole test suite with ctest.
#   scripts/test.sh [--sanitize] [CMAKE_ARGS...]
# --sanitize (or TALUS_SANITIZE=1) then builds the suite again with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DTALUS_SANITIZE=ON, without the benches) in build-asan/ ($TALUS_ASAN_BUILD_DIR) and runs ctest there too:
# what CI runs (.ci/run). Any sanitizer report fails its test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sanitize=${TALUS_SANITIZE:-0}
args=()
for a in "$@"; do
  if [ "$a" = "--sanitize" ]; then sanitize=1; else args+=("$a"); fi
done
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "${args[@]}"
build=${TALUS_BUILD_DIR:-$root/build}
jobs=${TALUS_JOBS:-$(nproc)}
(cd "$build" && ctest --output-on-failure -j "$jobs" --timeout 900)

if [ "$sanitize" = 1 ]; then
  asan=${TALUS_ASAN_BUILD_DIR:-$root/build-asan}
  echo "== the suite again under ASan + UBSan ($asan)"
  start=$(date +%s)
  TALUS_BUILD_DIR=$asan "$root/scripts/build.sh" -DTALUS_SANITIZE=ON -DTALUS_BUILD_BENCH=OFF "${args[@]}"
  built=$(date +%s)
  # Leaks are reported too; a UBSan report aborts (-fno-sanitize-recover) with its stack.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  # Five tests take 2–8 min each under the sanitizers (a third of the stage's 29 min on 2 cores, measured
  # 2026-11-28): they run in the first stage only, so that both stages fit CI's 90 minutes. Their code runs under
  # the sanitizers in smaller tests (the generalized-α box: the scheme's and the dual active set's tests; the silo, the paddle,
  # the measures and the detection: the apps and granular tests on the same paths). TALUS_ASAN_ALL=1 runs them too.
  heavy='^(detection:a four-layer box of spheres settles|detection:a box of 64 spheres settles|granular:Beverloo: the discharge rate|granular:a driven paddle in a bead bed|apps:a settled stack.s measures)'
  [ "${TALUS_ASAN_ALL:-0}" = 1 ] && heavy='^$'
  echo "== left out under the sanitizers (run above): $(cd "$asan" && ctest -N -R "$heavy" | grep -c 'Test *#') tests"
  (cd "$asan" && ctest --output-on-failure -j "$jobs" --timeout 1800 -E "$heavy")
  echo "== ASan + UBSan: build $((built - start)) s, tests $(( $(date +%s) - built )) s"
fi
