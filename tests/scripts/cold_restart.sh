#!/usr/bin/env bash
# scripts/cold_restart.py (the README's cold-start line): a settled pile's archive made cold restarts with zero
# impulses and beads at rest, so its next step needs more sweeps than the same step from the archive as written;
# a file that is not a granular archive is refused with its name.
#   cold_restart.sh TALUS PYTHON SOURCE_DIR
set -euo pipefail
talus=$1 python=$2 src=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
scene=$src/examples/bead_stack.yaml
"$talus" run "$scene" --set n=125 --set t_end=0.1 --no-plot --quiet --out "$d/pile"
"$python" "$src/scripts/cold_restart.py" "$d/pile/restart.h5" "$d/cold.h5"
"$python" - "$d/pile/restart.h5" "$d/cold.h5" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as warm, h5py.File(sys.argv[2], "r") as cold:
    assert np.abs(warm["contacts/cache/impulses"][...]).max() > 0, "the settled pile holds no impulse"
    assert not cold["contacts/cache/impulses"][...].any(), "impulses not zeroed"
    assert not cold["beads/v"][...].any() and not cold["beads/w"][...].any(), "beads not at rest"
    assert np.array_equal(warm["beads/x"][...], cold["beads/x"][...]), "positions changed"
PY
for kind in pile cold; do
  archive=$d/pile/restart.h5
  [ $kind = cold ] && archive=$d/cold.h5
  "$talus" run "$scene" --set n=125 --restart "$archive" --t-end 0.101 --no-plot --quiet --out "$d/step_$kind"
done
"$python" - "$d/step_pile/run.json" "$d/step_cold/run.json" <<'PY'
import json, sys
warm, cold = (json.load(open(f))["results"] for f in sys.argv[1:])
assert warm["worst_residual"] <= 1e-4 and cold["worst_residual"] <= 1e-4, (warm, cold)
assert cold["mean_sweeps"] > warm["mean_sweeps"], (warm["mean_sweeps"], cold["mean_sweeps"])
print(f"cold restart: {cold['mean_sweeps']:.0f} sweeps from zero impulses, {warm['mean_sweeps']:.0f} from the archive")
PY
echo "not an archive" > "$d/bad.h5"
if "$python" "$src/scripts/cold_restart.py" "$d/bad.h5" "$d/out.h5" 2> "$d/err"; then
  echo "a file that is not an archive was accepted"; exit 1
fi
grep -q "bad.h5" "$d/err" || { echo "the refusal does not name the file:"; cat "$d/err"; exit 1; }
[ ! -e "$d/out.h5" ] || { echo "a refused archive was still copied"; exit 1; }
echo "cold_restart: passed"
