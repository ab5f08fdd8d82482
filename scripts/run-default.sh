#!/usr/bin/env bash
# The README's first command: installs dependencies, builds Talus (Release) and runs the default scene.
# Usage: scripts/run-default.sh [SCENE [talus run options...]]
#   default: examples/bead_stack.yaml, 3000 glass beads falling into a box and settling (about a minute on
#            2 cores): out/bead_stack/ gets the ParaView series (beads.pvd, contacts.pvd), snapshot.png,
#            profile.txt (time per phase) and trace.json (Chrome trace, open in Perfetto)
#   scripts/run-default.sh examples/bouncing_ball.yaml   the bouncing ball (timeseries and PNG plots)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scene=${1:-$root/examples/bead_stack.yaml}
shift $(( $# > 0 ? 1 : 0 ))
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
name=$(basename "$scene" .yaml)
out="$root/out/$name"
extra=()
if grep -q '^granular:' "$scene"; then extra=(--profile "$out/trace.json"); fi
"$root/build/talus" run "$scene" --out "$out" "${extra[@]}" "$@"
echo
echo "Outputs of $name in $out:"
ls "$out" | grep -v '_[0-9]*\.vtp$' || true
if ls "$out"/beads_*.vtp > /dev/null 2>&1; then
  echo "($(ls "$out"/beads_*.vtp | wc -l) frames beads_NNNNN.vtp and contacts_NNNNN.vtp; open beads.pvd in ParaView)"
fi
