#!/usr/bin/env bash
# `mpirun -np R talus run SCENE` end to end (issue 15 item 5), run by ctest: the README's scene for 0.05 s with
# plain sweeps and four sweep blocks, once on one process and once on 1, 2 and 3 ranks. The restart archives must
# hold the same bits (h5 datasets compared one by one), rank 0 alone writes the outputs and prints the ranks'
# time split, and no rank leaves its scratch folder behind.
#   tests/distributed/talus_mpirun.sh TALUS MPIRUN PYTHON SOURCE_DIR
set -euo pipefail
talus=$1; mpirun=$2; python=$3; src=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR="$work"
args=(run "$src/examples/bead_stack.yaml" --set t_end=0.05 --set partitions=4 --set solver=matrix_free --no-plot --overwrite)
"$talus" "${args[@]}" --out "$work/one" 2> "$work/one.log"
for r in 1 2 3; do
  "$mpirun" --oversubscribe --bind-to none -np "$r" "$talus" "${args[@]}" --out "$work/ranks$r" 2> "$work/ranks$r.log"
  grep -q "distributed solve over $r ranks" "$work/ranks$r.log" || { echo "ranks $r: no time split in the log"; cat "$work/ranks$r.log"; exit 1; }
  n=$(grep -c "^talus: bead_stack" "$work/ranks$r.log")
  [ "$n" = 1 ] || { echo "ranks $r: $n ranks printed the run's header (expected rank 0 only)"; exit 1; }
  left=$(find "$work" -maxdepth 1 -name 'talus-rank*' | wc -l)
  [ "$left" = 0 ] || { echo "ranks $r: $left scratch folders left behind"; exit 1; }
  "$python" - "$work/one/restart.h5" "$work/ranks$r/restart.h5" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
bad = [n for n in names if n not in b or not np.array_equal(a[n][()], b[n][()])]
if not names or bad:
    sys.exit(f"{sys.argv[2]}: datasets differ from the one-process run: {bad[:6]}")
print(f"{sys.argv[2]}: {len(names)} datasets, the same bits as the one-process run")
PY
done
