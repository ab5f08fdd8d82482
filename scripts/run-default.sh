#!/usr/bin/env bash
# The README's first command: installs dependencies, builds Talus (Release), runs the default scene and plots it.
# Usage: scripts/run-default.sh [SCENE]   (default: examples/bouncing_ball.yaml)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scene=${1:-$root/examples/bouncing_ball.yaml}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
name=$(basename "$scene" .yaml)
out="$root/out/$name"
"$root/build/talus" run "$scene" --out "$out"
echo
echo "Outputs of $name in $out:"
ls -1 "$out"
