#!/usr/bin/env bash
# Fuzzes Talus's readers (docs/fuzzing.md): builds the libFuzzer harnesses of tests/fuzz with clang, ASan and
# UBSan in build-fuzz/ (or $TALUS_FUZZ_BUILD_DIR) and runs each in turn, seeded from tests/fuzz/corpus/<harness>.
#   scripts/fuzz.sh [--seconds S] [--runs N] [--jobs J] [--timeout T] [HARNESS ...]  harnesses: fclib restart scene
# Each harness runs until N inputs (default 1000000) or S seconds (default: no limit), in libFuzzer's fork mode
# with J worker processes (default 1): a crash, a timeout (one input over T seconds, default 10) or running out
# of memory (2 GB) is recorded in build-fuzz/fuzz-artifacts/<harness>/ and fuzzing goes on. At the end, one line
# per harness: inputs executed, crashes, timeouts, out-of-memory. Exit status 1 when any was found.
# At nice 19 on a busy machine a worker can be starved for seconds: raise T (--timeout 120) so that a timeout
# means a hang, not a wait for the CPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TALUS_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=0
runs=1000000
jobs=1
timeout=10
harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    fclib|restart|scene) harnesses+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fclib restart scene)
for n in "$seconds" "$runs" "$jobs" "$timeout"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: '$n' is not a whole number" >&2; exit 2; }
done

"$root/scripts/install-deps.sh"
if ! command -v clang++ >/dev/null; then
  # clang (with libFuzzer's runtime) only for fuzzing: not among the packages every build needs.
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "fuzz.sh: installing clang"
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTALUS_FUZZ=ON \
    -DTALUS_BUILD_TESTS=OFF -DTALUS_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j "${TALUS_JOBS:-$(nproc)}" --target "${targets[@]}"

# The harnesses write their HDF5 and YAML files here (tmpfs when there is one).
scratch=$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/talus-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TALUS_FUZZ_SCRATCH=$scratch
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE

summary=()
found=0
for h in "${harnesses[@]}"; do
  corpus=$build/fuzz-corpus/$h
  artifacts=$build/fuzz-artifacts/$h
  log=$build/fuzz-logs/$h.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  limit=(-runs="$runs")
  [ "$seconds" -gt 0 ] && limit+=(-max_total_time="$seconds")
  echo "== fuzz_$h: ${limit[*]}, $jobs job(s), timeout ${timeout} s; log $log"
  start=$(date +%s)
  # Fork mode keeps going after a crash, timeout or OOM (each saved to $artifacts); -max_len bounds the inputs
  # (the seeds are under 4 KiB but for two real FCLIB files).
  "$build/fuzz/fuzz_$h" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 "${limit[@]}" \
    -max_len=16384 -timeout="$timeout" -rss_limit_mb=2048 -dict="$root/tests/fuzz/dict/$h.dict" \
    -artifact_prefix="$artifacts/" "$corpus" "$root/tests/fuzz/corpus/$h" >"$log" 2>&1 || true
  elapsed=$(( $(date +%s) - start ))
  last=$(grep -E '^#[0-9]+:' "$log" | tail -1 || true)
  inputs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  counts=$(sed -nE 's/.*oom\/timeout\/crash: ([0-9]+)\/([0-9]+)\/([0-9]+).*/\1 \2 \3/p' <<<"$last")
  read -r ooms timeouts crashes <<<"${counts:-0 0 0}"
  [ -n "$inputs" ] || { inputs=0; echo "fuzz.sh: fuzz_$h printed no progress; see $log" >&2; crashes=1; }
  [ $((ooms + timeouts + crashes)) -eq 0 ] || found=1
  line=$(printf '%-8s %10s inputs in %5ss  crashes %s  timeouts %s  out-of-memory %s' "$h" "$inputs" "$elapsed" \
         "$crashes" "$timeouts" "$ooms")
  summary+=("$line")
  echo "$line"
  ls "$artifacts" 2>/dev/null | sed "s|^|    $artifacts/|" | head -20
done
echo
echo "== fuzzing summary (artifacts in $build/fuzz-artifacts/; replay one: $build/fuzz/fuzz_HARNESS FILE)"
printf '%s\n' "${summary[@]}"
exit $found
