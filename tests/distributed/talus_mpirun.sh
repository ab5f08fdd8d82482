#!/usr/bin/env bash
# `mpirun -np R talus run SCENE` end to end (issue 15 item 5), run by ctest: the README's scene for 0.05 s with
# plain sweeps and four sweep blocks, once on one process and once on 1, 2 and 3 ranks. The restart archives must
# hold the same bits (h5 datasets compared one by one), the frames written in pieces by the ranks put together
# are the one-process frames, rank 0 alone writes the other outputs and prints the ranks' time split, and no rank
# leaves its scratch folder behind. A run stopped at T/2 on two ranks and restarted on
# three ends in the one-process run's bits too.
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
  # Frames: each rank wrote its piece of the beads and contacts (a .pvtp index beside them when r > 1); put
  # together, the pieces are the one-process frame, array by array, and the folder checks as one run's.
  "$python" "$src/scripts/check_granular_outputs.py" "$work/ranks$r" > /dev/null
  "$python" - "$work/one" "$work/ranks$r" <<'PY'
import os, re, sys, glob
def arrays(path):
    if path.endswith(".pvtp"):
        pieces = re.findall(r'<Piece\s+Source="([^"]+)"', open(path).read())
        parts = [arrays(os.path.join(os.path.dirname(path), p)) for p in pieces]
        return {k: sum((p[k] for p in parts), []) for k in parts[0]}
    text = open(path).read()
    return {m.group(1): m.group(2).split() for m in re.finditer(r'<DataArray[^>]*Name="([^"]+)"[^>]*>(.*?)</DataArray>', text, re.S)
            if m.group(1) not in ("connectivity", "offsets")}
one, ranks = sys.argv[1], sys.argv[2]
frames = sorted(glob.glob(os.path.join(one, "*_[0-9][0-9][0-9][0-9][0-9].vtp")))
assert frames, "no frames in the one-process run"
for f in frames:
    stem = os.path.basename(f)[:-4]
    other = os.path.join(ranks, stem + ".pvtp")
    if not os.path.isfile(other):
        other = os.path.join(ranks, stem + ".vtp")
    if arrays(f) != arrays(other):
        sys.exit(f"{other}: differs from the one-process frame {f}")
print(f"{ranks}: {len(frames)} frames, the one-process frames once their pieces are put together")
PY
done
# Restartable on another rank count: to 0.025 s on two ranks, then on to 0.05 s on three: the one-process run's bits.
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${args[@]}" --set t_end=0.025 --out "$work/half" 2> "$work/half.log"
"$mpirun" --oversubscribe --bind-to none -np 3 "$talus" "${args[@]}" --set restart="$work/half/restart.h5" \
  --out "$work/rest" 2> "$work/rest.log" || { cat "$work/rest.log"; exit 1; }
"$python" - "$work/one/restart.h5" "$work/rest/restart.h5" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for n in ("beads/x", "beads/v", "beads/w", "contacts/cache/keys", "contacts/cache/impulses"):
    if not np.array_equal(a[n][()], b[n][()]):
        sys.exit(f"restarted on 3 ranks from 2: {n} differs from the one-process run")
print("2 ranks to T/2, then 3 ranks to T: the one-process run's bits")
PY
