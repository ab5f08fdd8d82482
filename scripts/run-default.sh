#!/usr/bin/env bash
# The README's first command: installs the Debian packages, builds the `talus` program and the Python module only
# (Release; not the tests nor the benches) and runs the default scene; then `python3 examples/python/hopper.py`
# runs (docs/python.md).
# Usage: scripts/run-default.sh [SCENE [talus run options...]]
#   default: examples/bead_stack.yaml, 1500 glass beads falling into a box and settling (about 20 s of one
#            core): out/bead_stack/ gets the ParaView series (beads.pvd, contacts.pvd), snapshot.png,
#            profile.txt (time per phase), trace.json (Chrome trace, open in Perfetto), run.json (the run summary) and
#            restart.h5
#   scripts/run-default.sh examples/bouncing_ball.yaml   the bouncing ball (timeseries.csv/h5, run.json, PNG plots)
# The run replaces the outputs of an earlier run of the same scene (talus run --overwrite).
# Environment: TALUS_BUILD_DIR (default build/), TALUS_BUILD_TYPE (Release), TALUS_JOBS (all cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scene=${1:-$root/examples/bead_stack.yaml}
shift $(( $# > 0 ? 1 : 0 ))
build=${TALUS_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
gen=()
command -v ninja >/dev/null && [ ! -f "$build/Makefile" ] && gen=(-G Ninja)
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE="${TALUS_BUILD_TYPE:-Release}" >/dev/null
# The talus command and, where pybind11 is installed, the Python module (build/python: docs/python.md).
targets=(talus)
# (grep reads the whole list: with -q it would stop early, and pipefail would take cmake's SIGPIPE for "absent".)
if cmake --build "$build" --target help 2>/dev/null | grep '^_talus:' >/dev/null; then targets+=(_talus); fi
cmake --build "$build" --target "${targets[@]}" -j "${TALUS_JOBS:-$(nproc)}"
name=$(basename "$scene" .yaml)
out="$root/out/$name"
extra=()
if grep -q '^granular:' "$scene"; then extra=(--profile "$out/trace.json"); fi
"$build/talus" run "$scene" --out "$out" --overwrite "${extra[@]}" "$@"
echo
echo "Outputs of $name in $out:"
ls "$out" | grep -v '_[0-9]*\.vtp$' || true
if ls "$out"/beads_*.vtp > /dev/null 2>&1; then
  echo "($(ls "$out"/beads_*.vtp | wc -l) frames beads_NNNNN.vtp and contacts_NNNNN.vtp; open beads.pvd in ParaView)"
fi
