#!/usr/bin/env bash
# `mpirun -np R talus run SCENE` end to end (issue 15 items 1, 4 and 5), run by ctest.
# Replicated (--replicated: every rank holds the whole model): the README's scene for 0.05 s with plain sweeps and
# four sweep blocks, once on one process and once on 1, 2 and 3 ranks. The restart archives must hold the same
# bits (h5 datasets compared one by one), the frames written in pieces by the ranks put together are the
# one-process frames, rank 0 alone writes the other outputs and prints the ranks' time split, and no rank leaves
# its scratch folder behind. A run stopped at T/2 on two ranks and restarted on three ends in the one-process
# run's bits too.
# Partitioned (the default): the same scene with its own settings on 2 and 3 ranks, each rank building only its share
# of the beads. The folder checks as one run's;
# the frames' pieces hold every bead exactly once; the archive, written in pieces (one per rank, indexed by
# restart.h5), holds the one-process run's beads (same ids) and contacts, with positions within 1e-6 m and
# velocities within 1e-3 m/s (the solver's tolerance, as the sweep order differs), and is bit for bit the archive
# rank 0 gathers whole with --whole-restart; a run stopped at T/2 on two ranks continues on one process and on
# three to the same state, from the pieces as from the whole archive (on three ranks, each reading only its share of
# the archive: the same bits from both); a piece alone or a missing piece is refused;
# beads of two materials keep them through the pieces; with rolling resistance the rolling warm start goes into the
# pieces too, and a run continued from them is the one continued from the whole archive; so does generalized-α's
# position warm start, and its run continues on three ranks from the pieces and from the whole archive alike; the periodic chute agrees
# with one process's and continues from its pieces; a rain (pour at a rate) and a dropped ball give one process's
# beads, and a rain stopped halfway continues on one process. The silo's outflow on two ranks: the beads left and removed add up to the scene's, in run.json, discharge.csv and the archive.
# --dump-fclib on two ranks keeps the whole model on both and writes the problem. A single scene (trough.yaml:
# lattices, a ball, planes) on two ranks: each builds its share, agrees with one process, and continues on three ranks
# from its pieces and from its whole archive to the same bits. A rotating drum (drum.yaml, its bead–drum contacts
# each solved by the bead's owner) partitioned on two ranks agrees with one process's beads and contacts, and the
# load on the drum (obstacle_loads.csv), summed over the ranks, is one process's.
#   tests/distributed/talus_mpirun.sh TALUS MPIRUN PYTHON SOURCE_DIR
set -euo pipefail
talus=$1; mpirun=$2; python=$3; src=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR="$work"
args=(run "$src/examples/bead_stack.yaml" --set t_end=0.05 --set partitions=4 --set solver=matrix_free --no-plot --overwrite)
"$talus" "${args[@]}" --out "$work/one" 2> "$work/one.log"
for r in 1 2 3; do
  "$mpirun" --oversubscribe --bind-to none -np "$r" "$talus" "${args[@]}" --replicated --out "$work/ranks$r" 2> "$work/ranks$r.log"
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
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${args[@]}" --replicated --set t_end=0.025 --out "$work/half" 2> "$work/half.log"
"$mpirun" --oversubscribe --bind-to none -np 3 "$talus" "${args[@]}" --replicated --set restart="$work/half/restart.h5" \
  --out "$work/rest" 2> "$work/rest.log" || { cat "$work/rest.log"; exit 1; }
"$python" - "$work/one/restart.h5" "$work/rest/restart.h5" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for n in ("beads/x", "beads/v", "beads/w", "contacts/cache/keys", "contacts/cache/impulses"):
    if not np.array_equal(a[n][()], b[n][()]):
        sys.exit(f"restarted on 3 ranks from 2: {n} differs from the one-process run")
print("2 ranks to T/2, then 3 ranks to T: the one-process run's bits")
PY

# The partitioned model.
pargs=(run "$src/examples/bead_stack.yaml" --set t_end=0.05 --no-plot --overwrite)
"$talus" "${pargs[@]}" --out "$work/pone" 2> "$work/pone.log"
compare_archive() {  # ARCHIVE WHAT [REFERENCE]: the one-process run's beads and contacts, to the solver's tolerance
  "$python" - "${3:-$work/pone/restart.h5}" "$1" "$2" <<'PY'
import sys, h5py, numpy as np
def load(path):
    f = h5py.File(path, "r")
    ids = f["beads/id"][()]
    o = np.argsort(ids)
    return ids[o], f["beads/x"][()][o], f["beads/v"][()][o], f["beads/w"][()][o] * f["beads/radius"][()][o, None], \
        set(f["contacts/cache/keys"][()].tolist())
a, b = load(sys.argv[1]), load(sys.argv[2])
what = sys.argv[3]
if len(a[0]) != len(b[0]) or (a[0] != b[0]).any():
    sys.exit(f"{what}: the archive holds other beads than the one-process run's ({len(b[0])} against {len(a[0])})")
dx, dv, dw = (float(np.abs(a[k] - b[k]).max()) for k in (1, 2, 3))
if not (dx <= 1e-6 and dv <= 1e-3 and dw <= 1e-3):
    sys.exit(f"{what}: positions differ by {dx:.3g} m, velocities by {dv:.3g} m/s, surface speeds by {dw:.3g} m/s")
if len(a[4] ^ b[4]) > 0.01 * len(a[4]):
    sys.exit(f"{what}: {len(a[4] ^ b[4])} of {len(a[4])} contacts differ from the one-process run's")
print(f"{what}: {len(b[0])} beads, {len(b[4])} contacts; positions within {dx:.2g} m, velocities {dv:.2g} m/s")
PY
}
for r in 2 3; do
  "$mpirun" --oversubscribe --bind-to none -np "$r" "$talus" "${pargs[@]}" --out "$work/part$r" 2> "$work/part$r.log" \
    || { cat "$work/part$r.log"; exit 1; }
  grep -q "the model is partitioned" "$work/part$r.log" || { echo "partitioned, $r ranks: not partitioned"; cat "$work/part$r.log"; exit 1; }
  grep -q "built only its share of the scene's beads" "$work/part$r.log" \
    || { echo "partitioned, $r ranks: every rank built the whole scene"; cat "$work/part$r.log"; exit 1; }
  grep -q "partitioned over $r ranks" "$work/part$r.log" || { echo "partitioned, $r ranks: no time split"; exit 1; }
  left=$(find "$work" -maxdepth 1 -name 'talus-rank*' | wc -l)
  [ "$left" = 0 ] || { echo "partitioned, $r ranks: $left scratch folders left behind"; exit 1; }
  "$python" "$src/scripts/check_granular_outputs.py" "$work/part$r" > /dev/null
  compare_archive "$work/part$r/restart.h5" "partitioned, $r ranks"
  "$python" - "$work/part$r" <<'PY'
import os, re, sys, glob
# Every frame's bead pieces hold each bead once: the ids of the pieces put together are those of the first frame.
folder = sys.argv[1]
def ids(path):
    text = open(path).read()
    m = re.search(r'<DataArray[^>]*Name="id"[^>]*>(.*?)</DataArray>', text, re.S)
    return [int(float(v)) for v in m.group(1).split()]
frames = sorted(glob.glob(os.path.join(folder, "beads_[0-9][0-9][0-9][0-9][0-9].pvtp")))
if not frames:
    sys.exit(f"{folder}: no frame written in pieces")
first = None
for f in frames:
    pieces = re.findall(r'<Piece\s+Source="([^"]+)"', open(f).read())
    got = sum((ids(os.path.join(folder, p)) for p in pieces), [])
    if len(got) != len(set(got)) or (first is not None and sorted(got) != first):
        sys.exit(f"{f}: {len(got)} beads in the pieces, {len(set(got))} distinct, {len(first or got)} expected")
    first = first or sorted(got)
print(f"{folder}: {len(frames)} frames, every bead in one piece")
PY
done
# The archive in pieces (the partitioned default): each rank's restart_sSTEP_pK.h5 beside rank 0's index restart.h5.
# Read through the index, the pieces are the archive rank 0 gathers whole with --whole-restart, bit for bit once in
# id and key order.
"$mpirun" --oversubscribe --bind-to none -np 3 "$talus" "${pargs[@]}" --whole-restart --out "$work/part3w" 2> "$work/part3w.log" \
  || { cat "$work/part3w.log"; exit 1; }
same_state() {  # ARCHIVE ARCHIVE WHAT: the same beads and warm start, bit for bit, whatever their order in the files
  "$python" - "$1" "$2" "$3" <<'PY'
import sys, h5py, numpy as np
def load(path):
    f = h5py.File(path, "r")
    i, k = np.argsort(f["beads/id"][()]), f["contacts/cache/keys"][()]
    o = np.argsort(k)
    out = {n: f["beads/" + n][()][i] for n in ("id", "x", "v", "w", "radius", "mass", "inv_mass", "inv_inertia")}
    out.update(keys=k[o], impulses=f["contacts/cache/impulses"][()][o], clock=f["clock"][()])
    for group in ("rolling_cache", "position_cache"):
        if f"contacts/{group}" in f:
            gk = f[f"contacts/{group}/keys"][()]
            go = np.argsort(gk)
            out.update({f"{group}_keys": gk[go], f"{group}_impulses": f[f"contacts/{group}/impulses"][()][go]})
    return out, ("pieces" in f)
(a, pa), (b, pb) = load(sys.argv[1]), load(sys.argv[2])
bad = [n for n in set(a) | set(b) if n not in a or n not in b or not np.array_equal(a[n], b[n])]
if bad:
    sys.exit(f"{sys.argv[3]}: {', '.join(bad)} differ")
print(f"{sys.argv[3]}: the same {len(a['id'])} beads and {len(a['keys'])} contacts, bit for bit"
      f" ({'pieces' if pa else 'whole'} against {'pieces' if pb else 'whole'})")
PY
}
"$python" - "$work/part3" <<'PY'
import os, sys, h5py
folder = sys.argv[1]
f = h5py.File(f"{folder}/restart.h5", "r")
files = [x.decode() if isinstance(x, bytes) else x for x in f["pieces/files"][()]]
on_disk = sorted(n for n in os.listdir(folder) if n.startswith("restart_s"))
if len(files) != 3 or sorted(files) != on_disk or f["beads/id"].shape[0] != sum(f["pieces/beads"][()]):
    sys.exit(f"{folder}: the index names {files}, the folder holds {on_disk}")
print(f"{folder}: restart.h5 indexes {len(files)} pieces, the only ones in the folder")
PY
same_state "$work/part3/restart.h5" "$work/part3w/restart.h5" "partitioned on 3 ranks: pieces and --whole-restart"
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${pargs[@]}" --set t_end=0.025 --out "$work/phalf" 2> "$work/phalf.log"
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${pargs[@]}" --set t_end=0.025 --whole-restart --out "$work/phalfw" \
  2> "$work/phalfw.log"
"$talus" "${pargs[@]}" --set restart="$work/phalf/restart.h5" --out "$work/prest1" 2> "$work/prest1.log"
"$talus" "${pargs[@]}" --set restart="$work/phalfw/restart.h5" --out "$work/prest1w" 2> "$work/prest1w.log"
compare_archive "$work/prest1/restart.h5" "partitioned on 2 ranks to T/2, then one process"
same_state "$work/prest1/restart.h5" "$work/prest1w/restart.h5" "one process from the pieces and from the whole archive"
# A piece read alone, and an index whose piece is gone, are refused naming the file.
if "$talus" "${pargs[@]}" --set restart="$work/phalf/restart_s25_p1.h5" --out "$work/bad1" 2> "$work/bad1.log"; then
  echo "a restart from one piece was accepted"; exit 1; fi
grep -q "is one process's piece of the archive" "$work/bad1.log" || { cat "$work/bad1.log"; exit 1; }
mv "$work/phalf/restart_s25_p1.h5" "$work/piece.h5"
if "$talus" "${pargs[@]}" --set restart="$work/phalf/restart.h5" --out "$work/bad2" 2> "$work/bad2.log"; then
  echo "a restart with a piece missing was accepted"; exit 1; fi
grep -q "piece 1 (restart_s25_p1.h5): no such file beside the index" "$work/bad2.log" || { cat "$work/bad2.log"; exit 1; }
mv "$work/piece.h5" "$work/phalf/restart_s25_p1.h5"
"$mpirun" --oversubscribe --bind-to none -np 3 "$talus" "${pargs[@]}" --set restart="$work/phalf/restart.h5" \
  --out "$work/prest3" 2> "$work/prest3.log" || { cat "$work/prest3.log"; exit 1; }
compare_archive "$work/prest3/restart.h5" "partitioned on 2 ranks to T/2, then 3 ranks"
# Each rank reads only its share of the archive (the rows of the index's virtual datasets, or of a whole archive),
# and the beads and warm starts go to their owners: the rows' order does not matter, so the pieces and the whole
# archive of the same state continue to the same bits.
grep -q "read only its share of the restart archive's beads" "$work/prest3.log" \
  || { echo "restart on 3 ranks: every rank read the whole archive"; cat "$work/prest3.log"; exit 1; }
"$mpirun" --oversubscribe --bind-to none -np 3 "$talus" "${pargs[@]}" --set restart="$work/phalfw/restart.h5" \
  --out "$work/prest3w" 2> "$work/prest3w.log" || { cat "$work/prest3w.log"; exit 1; }
same_state "$work/prest3/restart.h5" "$work/prest3w/restart.h5" "3 ranks from the pieces and from the whole archive"
# A bad value in one rank's share only: that rank alone finds it, and every rank must stop (not wait for it in the
# first collective step) with the message, said once by rank 0, naming the archive, the dataset and the row.
cp -r "$work/phalf" "$work/pbad"
"$python" -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r+'); f['beads/radius'][10] = -1.0" "$work/pbad/restart_s25_p1.h5"
if timeout 120 "$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${pargs[@]}" --set restart="$work/pbad/restart.h5" \
     --out "$work/bad3" 2> "$work/bad3.log"; then
  echo "a restart from a bad piece was accepted"; exit 1; fi
grep -q "pbad/restart.h5: dataset /beads/radius: row [0-9]* is -1 (expected a positive finite number) (rank 1)" "$work/bad3.log" \
  || { echo "a bad value in one rank's share: not reported (or the ranks waited)"; cat "$work/bad3.log"; exit 1; }
echo "a bad value in rank 1's share of the archive stops both ranks with its message"
# Each rank checks only the pieces it reads: a missing piece is still found (by the ranks reading it) on 3 ranks.
mv "$work/pbad/restart_s25_p1.h5" "$work/pbad/gone.h5"
if timeout 120 "$mpirun" --oversubscribe --bind-to none -np 3 "$talus" "${pargs[@]}" --set restart="$work/pbad/restart.h5" \
     --out "$work/bad4" 2> "$work/bad4.log"; then
  echo "a restart with a piece missing was accepted on 3 ranks"; exit 1; fi
grep -q "piece 1 (restart_s25_p1.h5): no such file beside the index.*(rank [0-9])" "$work/bad4.log" \
  || { echo "a missing piece on 3 ranks: not reported"; cat "$work/bad4.log"; exit 1; }
# An output folder holding an earlier run, without --overwrite: rank 0 refuses it, and every rank stops (before, the
# others waited for it forever); the earlier run's files stay.
before=$(ls "$work/phalf" | sort | md5sum)
if timeout 120 "$mpirun" --oversubscribe --bind-to none -np 2 "$talus" run "$src/examples/bead_stack.yaml" --set t_end=0.025 \
     --no-plot --out "$work/phalf" 2> "$work/again.log"; then
  echo "a run into a folder holding an earlier run was accepted"; exit 1; fi
grep -q "holds the outputs of an earlier run.*pass --overwrite.*(rank 0)" "$work/again.log" \
  || { echo "an occupied output folder under mpirun: not reported (or the ranks waited)"; cat "$work/again.log"; exit 1; }
[ "$(ls "$work/phalf" | sort | md5sum)" = "$before" ] || { echo "the earlier run's files changed"; exit 1; }
echo "an occupied output folder stops both ranks with rank 0's message; the earlier run is kept"
# Materials in the pieces: every piece holds /beads/material when any bead is not "bead"; read through the index on
# one process, each bead keeps its material.
box_planes() {  # SIDE: the floor and four walls of a square box [0, SIDE]², normals inwards (a scene's planes:)
  printf 'planes:\n  - {name: floor, normal: [0, 0, 1], offset: 0.0}\n'
  printf '  - {name: x0, normal: [1, 0, 0], offset: 0.0}\n  - {name: x1, normal: [-1, 0, 0], offset: -%s}\n' "$1"
  printf '  - {name: y0, normal: [0, 1, 0], offset: 0.0}\n  - {name: y1, normal: [0, -1, 0], offset: -%s}\n' "$1"
}
scene_head() {  # NAME DESCRIPTION: a scene's name, description, gravity, and its laws: beginning with glass
  printf 'name: %s\ndescription: "%s"\ngravity: [0.0, 0.0, -9.81]\nlaws:\n' "$1" "$2"
  printf '  glass: {type: newton_friction, e: 0.0, mu: 0.3, dim: 3}\n'
}
{ scene_head mat "two lattices of two materials in a box"; cat <<'YAML'; box_planes 0.2; } > "$work/mat.yaml"
  grip: {type: newton_friction, e: 0.0, mu: 0.8, dim: 3}
materials: [steel]
lattices:
  - {name: a, corner: [0.01, 0.01, 0.01], counts: [8, 8, 4], radius: 0.01, density: 2500, spacing: 2.2, jitter: 0.05, seed: 1}
  - {name: b, corner: [0.01, 0.01, 0.11], counts: [8, 8, 4], radius: 0.01, density: 7800, spacing: 2.2, jitter: 0.05, seed: 2, material: steel}
contacts: {detect: true, law: glass, pairs: [{materials: [steel, bead], law: grip}]}
integrator: {path: large, h: 1.0e-3, t_end: 0.05}
YAML
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" run "$work/mat.yaml" --no-plot --overwrite --out "$work/mat2" 2> "$work/mat2.log" \
  || { cat "$work/mat2.log"; exit 1; }
"$talus" run "$work/mat.yaml" --no-plot --overwrite --set integrator.t_end=0.06 --restart "$work/mat2/restart.h5" --out "$work/mat1" \
  2> "$work/mat1.log" || { cat "$work/mat1.log"; exit 1; }
"$python" - "$work/mat2/restart.h5" "$work/mat1/restart.h5" <<'PY'
import sys, h5py, numpy as np
for path in sys.argv[1:]:
    f = h5py.File(path, "r")
    ids, mat, mass = f["beads/id"][()], f["beads/material"][()], f["beads/mass"][()]
    steel = set(ids[mat == 2].tolist())
    heavy = set(ids[mass > 0.02].tolist())  # the steel lattice's beads (7800 kg/m3, 4/3 pi r^3 rho = 0.033 kg)
    if len(ids) != 512 or steel != heavy or len(steel) != 256:
        sys.exit(f"{path}: {len(steel)} steel beads, {len(heavy)} of the steel lattice's mass, of {len(ids)}")
print("materials: each bead keeps its material through the pieces and a restart on one process")
PY
# Rolling resistance and the generalized-α scheme on a partitioned model: the rolling rows, or both of generalized-α's
# problems, are solved across the ranks, and their warm start (the rolling impulses, the position problem's
# impulses) travels with the beads and into the pieces (/contacts/rolling_cache or position_cache over them), bit for
# bit the archive gathered with --whole-restart; the run agrees with one process's to the solver's tolerance, and
# continues on one process from the pieces as from the whole archive, to the same bits. Generalized-α's continues on
# three ranks too, each reading its share of the archive and routing the position warm start to the beads' owners:
# the same bits from the pieces and from the whole archive.
optional_warm_start() {  # TAG WHAT GROUP T T2 SETTING...: a run to T whose archive holds /contacts/GROUP, then to T2
  local tag=$1 what=$2 group=$3 t=$4 t2=$5
  shift 5
  local oargs=("${pargs[@]}" "$@" --set t_end="$t")
  "$talus" "${oargs[@]}" --out "$work/${tag}one" 2> "$work/${tag}one.log" || { cat "$work/${tag}one.log"; exit 1; }
  "$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${oargs[@]}" --out "$work/${tag}2" 2> "$work/${tag}2.log" \
    || { cat "$work/${tag}2.log"; exit 1; }
  grep -q "the model is partitioned" "$work/${tag}2.log" || { echo "$what, 2 ranks: not partitioned"; cat "$work/${tag}2.log"; exit 1; }
  "$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${oargs[@]}" --whole-restart --out "$work/${tag}2w" \
    2> "$work/${tag}2w.log" || { cat "$work/${tag}2w.log"; exit 1; }
  compare_archive "$work/${tag}2/restart.h5" "$what, partitioned on 2 ranks" "$work/${tag}one/restart.h5"
  same_state "$work/${tag}2/restart.h5" "$work/${tag}2w/restart.h5" "$what on 2 ranks: pieces and --whole-restart"
  "$python" - "$work/${tag}2/restart.h5" "$work/${tag}one/restart.h5" "$what" "$group" <<'PY'
import sys, h5py, json, os
f, one, what, group = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), sys.argv[3], sys.argv[4]
n, n1 = f[f"contacts/{group}/keys"].shape[0], one[f"contacts/{group}/keys"].shape[0]
spread = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "run.json")))["parameters"]
if (spread["processes"], spread["model_spread"]) != (2, "partitioned"):
    sys.exit(f"run.json says {spread['processes']} processes, {spread['model_spread']} (expected 2, partitioned)")
entries = {"rolling_cache": "rolling_entries", "position_cache": "position_entries"}[group]
pieces = int(sum(f[f"pieces/{entries}"][()]))
if n == 0 or n != pieces or abs(n - n1) > 0.01 * n1:
    sys.exit(f"{what}: {n} rows of /contacts/{group} through the index, {pieces} in the pieces, {n1} in one process's archive")
print(f"{what}: {n} rows of /contacts/{group} in the pieces (one process: {n1})")
PY
  "$talus" "${oargs[@]}" --set t_end="$t2" --set restart="$work/${tag}2/restart.h5" --out "$work/${tag}1" \
    2> "$work/${tag}1.log" || { cat "$work/${tag}1.log"; exit 1; }
  "$talus" "${oargs[@]}" --set t_end="$t2" --set restart="$work/${tag}2w/restart.h5" --out "$work/${tag}1w" \
    2> "$work/${tag}1w.log" || { cat "$work/${tag}1w.log"; exit 1; }
  same_state "$work/${tag}1/restart.h5" "$work/${tag}1w/restart.h5" "$what: one process from the pieces and from the whole archive"
}
# Rolling resistance to 0.1 s: the lower layers landed across the ranks. Generalized-α to 0.07 s, solved to 1e-8:
# at 1e-4 its landing impacts spread two sweep orders (one process with 2 and 4 sweep blocks, or 2 ranks) by
# 0.01-0.1 m/s by 0.1 s; at 1e-8 two ranks agree with one process to 1e-9 m and 4e-7 m/s at 0.07 s (the velocity
# problem of step 98 stalls at 3e-7 in every sweep order).
optional_warm_start roll "rolling resistance" rolling_cache 0.1 0.11 --set rolling_friction=0.1
optional_warm_start ga "generalized-alpha" position_cache 0.07 0.08 --set scheme=generalized_alpha --set tolerance=1e-8
for from in ga2 ga2w; do
  "$mpirun" --oversubscribe --bind-to none -np 3 "$talus" "${pargs[@]}" --set scheme=generalized_alpha --set tolerance=1e-8 \
    --set t_end=0.08 \
    --set restart="$work/$from/restart.h5" --out "$work/${from}3" 2> "$work/${from}3.log" || { cat "$work/${from}3.log"; exit 1; }
  grep -q "read only its share of the restart archive" "$work/${from}3.log" \
    || { echo "generalized-alpha from $from on 3 ranks: not read in shares"; cat "$work/${from}3.log"; exit 1; }
done
same_state "$work/ga23/restart.h5" "$work/ga2w3/restart.h5" "generalized-alpha on 3 ranks from the pieces and from the whole archive"
# Periodic boundaries on a partitioned model: the chute (periodic along its flow) on two ranks agrees with one
# process's to the solver's tolerance, and continues on one process from its pieces. Its landing impacts amplify
# the difference a tolerance of 1e-4 leaves (8e-5 m and 0.015 m/s at 0.1 s), so both solve to 1e-8 (8e-9 m).
cargs=(run "$src/examples/chute.yaml" --set n=400 --set t_end=0.1 --set tolerance=1e-8 --no-plot --overwrite)
"$talus" "${cargs[@]}" --out "$work/cone" 2> "$work/cone.log"
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${cargs[@]}" --out "$work/chute2" 2> "$work/chute2.log" \
  || { cat "$work/chute2.log"; exit 1; }
grep -q "the model is partitioned" "$work/chute2.log" || { echo "periodic chute, 2 ranks: not partitioned"; cat "$work/chute2.log"; exit 1; }
"$python" "$src/scripts/check_granular_outputs.py" "$work/chute2" > /dev/null
compare_archive "$work/chute2/restart.h5" "periodic chute, partitioned on 2 ranks" "$work/cone/restart.h5"
"$talus" "${cargs[@]}" --set t_end=0.11 --set restart="$work/chute2/restart.h5" --out "$work/chute1" 2> "$work/chute1.log" \
  || { cat "$work/chute1.log"; exit 1; }
# Beads added during the run on a partitioned model: a rain (a pour with a rate) into an empty box, and the
# perturbed stack's dropped ball. Every rank places the same beads and keeps those in its region: the beads (ids)
# and their states are one process's (both solved to 1e-8, as the impacts amplify a looser tolerance), and a rain
# stopped halfway on two ranks continues on one process to the same beads.
{ scene_head rain "300 beads rained into an empty box"; box_planes 0.12; cat <<'YAML'; } > "$work/rain.yaml"
pours:
  - {name: rain, region: [0.0, 0.0, 0.05, 0.12, 0.12, 0.25], count: 300, radii: {uniform: [0.004, 0.006]}, density: 2500, seed: 3, rate: 4000}
contacts: {detect: true, law: glass}
integrator: {path: large, h: 5.0e-4, t_end: 0.12, tolerance: 1.0e-8}
YAML
"$talus" run "$work/rain.yaml" --no-plot --overwrite --out "$work/rain1" 2> "$work/rain1.log" || { cat "$work/rain1.log"; exit 1; }
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" run "$work/rain.yaml" --no-plot --overwrite --out "$work/rain2" \
  2> "$work/rain2.log" || { cat "$work/rain2.log"; exit 1; }
grep -q "the model is partitioned" "$work/rain2.log" || { echo "rain, 2 ranks: not partitioned"; cat "$work/rain2.log"; exit 1; }
"$python" "$src/scripts/check_granular_outputs.py" "$work/rain2" > /dev/null
compare_archive "$work/rain2/restart.h5" "rain, partitioned on 2 ranks" "$work/rain1/restart.h5"
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" run "$work/rain.yaml" --no-plot --overwrite --set integrator.t_end=0.06 \
  --out "$work/rainhalf" 2> "$work/rainhalf.log" || { cat "$work/rainhalf.log"; exit 1; }
"$talus" run "$work/rain.yaml" --no-plot --overwrite --restart "$work/rainhalf/restart.h5" --out "$work/rainrest" \
  2> "$work/rainrest.log" || { cat "$work/rainrest.log"; exit 1; }
compare_archive "$work/rainrest/restart.h5" "rain, 2 ranks to T/2, then one process" "$work/rain1/restart.h5"
sargs=(run "$src/examples/perturbed_stack.yaml" --set n=200 --set drop_time=0.03 --set t_end=0.06 --set tolerance=1e-8 --no-plot --overwrite)
"$talus" "${sargs[@]}" --out "$work/drop1" 2> "$work/drop1.log" || { cat "$work/drop1.log"; exit 1; }
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${sargs[@]}" --out "$work/drop2" 2> "$work/drop2.log" \
  || { cat "$work/drop2.log"; exit 1; }
grep -q "the model is partitioned" "$work/drop2.log" || { echo "dropped ball, 2 ranks: not partitioned"; cat "$work/drop2.log"; exit 1; }
compare_archive "$work/drop2/restart.h5" "dropped ball, partitioned on 2 ranks" "$work/drop1/restart.h5"
# Outflow on a partitioned model: each rank removes its own beads; none lost or counted twice.
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" run "$src/examples/silo.yaml" --set t_end=0.3 --no-plot \
  --overwrite --out "$work/silo2" 2> "$work/silo2.log" || { cat "$work/silo2.log"; exit 1; }
grep -q "the model is partitioned" "$work/silo2.log" || { echo "silo, 2 ranks: not partitioned"; exit 1; }
"$python" "$src/scripts/check_granular_outputs.py" "$work/silo2" > /dev/null
"$python" - "$work/silo2" <<'PY'
import json, sys, h5py, csv
folder = sys.argv[1]
r = json.load(open(f"{folder}/run.json"))["results"]
left, removed = r["beads_left"], r["removed_beads"]
rows = list(csv.reader(open(f"{folder}/discharge.csv")))[1:]
held = len(h5py.File(f"{folder}/restart.h5", "r")["beads/id"])
if removed <= 0 or left + removed != 1000 or int(rows[-1][1]) != removed or held != left:
    sys.exit(f"silo on 2 ranks: {left} beads left + {removed} removed (discharge.csv: {rows[-1][1]}; archive: {held}), "
             "expected 1000 in all")
print(f"silo on 2 ranks: {left} beads left, {removed} removed, 1000 in all")
PY
# --dump-fclib under mpirun: every rank holds the whole model alike (the flag reaches rank 0 only; deciding on each
# rank from its own flags partitioned the others and left rank 0 whole), and rank 0 writes the step's problem.
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${pargs[@]}" --set t_end=0.006 --set dump_fclib_step=3 \
  --dump-fclib "$work/dump" --out "$work/dump2" 2> "$work/dump2.log" || { cat "$work/dump2.log"; exit 1; }
grep -q "every rank holds the whole model: --dump-fclib" "$work/dump2.log" || { echo "--dump-fclib on 2 ranks: not whole"; cat "$work/dump2.log"; exit 1; }
[ -f "$work/dump/bead_stack_step3.hdf5" ] || { echo "--dump-fclib on 2 ranks: no problem written"; ls "$work/dump"; exit 1; }
echo "--dump-fclib on 2 ranks: the whole model on both, the problem written"
# A single scene on the large path (`lattices:`, a listed ball, planes) partitioned on two ranks: each rank builds
# only its share of the beads (the log says so); the archive holds one process's beads (ids) and state to the
# solver's tolerance (the beads are still falling at 0.05 s: the same to 1e-16 m/s); three ranks continue from the
# pieces and from the --whole-restart archive, each reading its share, to the same bits.
targs=(run "$src/examples/trough.yaml" --set integrator.t_end=0.05 --no-plot --overwrite)
"$talus" "${targs[@]}" --out "$work/tone" 2> "$work/tone.log" || { cat "$work/tone.log"; exit 1; }
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${targs[@]}" --out "$work/trough2" 2> "$work/trough2.log" \
  || { cat "$work/trough2.log"; exit 1; }
grep -q "built only its share of the scene's beads" "$work/trough2.log" \
  || { echo "trough, 2 ranks: every rank built the whole scene"; cat "$work/trough2.log"; exit 1; }
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${targs[@]}" --whole-restart --out "$work/trough2w" \
  2> "$work/trough2w.log" || { cat "$work/trough2w.log"; exit 1; }
compare_archive "$work/trough2/restart.h5" "trough (a single scene), partitioned on 2 ranks" "$work/tone/restart.h5"
same_state "$work/trough2/restart.h5" "$work/trough2w/restart.h5" "trough on 2 ranks: pieces and --whole-restart"
for from in trough2 trough2w; do
  "$mpirun" --oversubscribe --bind-to none -np 3 "$talus" "${targs[@]}" --set integrator.t_end=0.06 \
    --restart "$work/$from/restart.h5" --out "$work/${from}3" 2> "$work/${from}3.log" || { cat "$work/${from}3.log"; exit 1; }
  grep -q "read only its share of the restart archive" "$work/${from}3.log" \
    || { echo "trough from $from on 3 ranks: not read in shares"; cat "$work/${from}3.log"; exit 1; }
done
same_state "$work/trough23/restart.h5" "$work/trough2w3/restart.h5" "trough on 3 ranks from the pieces and from the whole archive"
# A rotating drum partitioned on two ranks (its bead–drum contacts are each solved by the bead's owner): to 0.02 s at
# tolerance 1e-6 (the bed landing on the drum: 3.6e-7 m and 1e-4 m/s from one process's), the same beads and
# contacts, and the drum's load in obstacle_loads.csv within 1e-4 of one process's (without the sum over the ranks,
# each rank reports its own beads' share).
dargs=(run "$src/examples/drum.yaml" --set t_end=0.02 --set tolerance=1e-6 --no-plot --overwrite)
"$talus" "${dargs[@]}" --out "$work/drum1" 2> "$work/drum1.log" || { cat "$work/drum1.log"; exit 1; }
"$mpirun" --oversubscribe --bind-to none -np 2 "$talus" "${dargs[@]}" --out "$work/drum2" 2> "$work/drum2.log" \
  || { cat "$work/drum2.log"; exit 1; }
grep -q "the model is partitioned" "$work/drum2.log" || { echo "drum, 2 ranks: not partitioned"; cat "$work/drum2.log"; exit 1; }
"$python" "$src/scripts/check_granular_outputs.py" "$work/drum2" > /dev/null
compare_archive "$work/drum2/restart.h5" "drum, partitioned on 2 ranks" "$work/drum1/restart.h5"
"$python" - "$work/drum1/obstacle_loads.csv" "$work/drum2/obstacle_loads.csv" <<'PY'
import csv, sys
def last(path):
    rows = [r for r in csv.DictReader(open(path)) if r["kind"] == "drum"]
    if not rows: sys.exit(f"{path}: no drum row")
    return [float(rows[-1][k]) for k in ("force_x", "force_y", "force_z", "torque_x", "torque_y", "torque_z")]
a, b = last(sys.argv[1]), last(sys.argv[2])
size = max(abs(x) for x in a)
worst = max(abs(x - y) for x, y in zip(a, b)) / size
if not worst <= 1e-4:
    sys.exit(f"drum on 2 ranks: the drum's load differs from one process's by {worst:.3g} of its size ({b} against {a})")
print(f"drum on 2 ranks: the drum's load within {worst:.2g} of one process's")
PY
