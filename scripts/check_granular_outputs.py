#!/usr/bin/env python3
"""Checks the files of a granular run (`talus run examples/<scene>.yaml`) the way ParaView and Perfetto read them.

For an output directory: every .pvd collection and .vtp frame is well-formed XML of the right VTK type; every
frame's DataArrays hold NumberOfPoints (point data) or NumberOfLines or NumberOfPolys (cell data) tuples of their
NumberOfComponents; every file a .pvd names exists; profile.txt and run.json are present. When there is
a capsule series (capsules.pvd), it has a frame at every time of beads.pvd, and every capsule frame holds the
arrays radius, half_length, axis, orientation, velocity, angular_velocity, contact_force and id, with positive
sizes, unit axes, unit quaternions that turn the body z axis onto the axis, and distinct ids. With --trace,
the Chrome trace-event JSON parses and its events are complete ("ph": "X") events with a name, a start and a
duration. The folder holds one run and nothing stale (issue 12): no temporary .NAME.tmp file, no frame that no
.pvd names, a frame written in pieces (MPI) is a .pvtp index whose pieces exist and hold the declared arrays,
run.json is strict JSON (no bare NaN) of a large-path run whose "files" list is exactly the run's files present,
and restart.h5 exists (with, for a partitioned MPI run, its pieces restart_sSTEP_pK.h5 of one step only). Prints one line per directory and exits 1 on the first problem.

Usage: check_granular_outputs.py OUT_DIR [OUT_DIR ...] [--trace FILE ...]
"""
import argparse
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

CAPSULE_ARRAYS = {"radius": 1, "half_length": 1, "axis": 3, "orientation": 4, "velocity": 3,
                  "angular_velocity": 3, "contact_force": 3, "id": 1}


def fail(msg):
    print("check_granular_outputs: " + msg, file=sys.stderr)
    sys.exit(1)


def check_vtp(path):
    root = ET.parse(path).getroot()
    if root.tag != "VTKFile" or root.get("type") != "PolyData":
        fail("%s: not a VTK PolyData file" % path)
    piece = root.find("PolyData/Piece")
    points = int(piece.get("NumberOfPoints"))
    cells = int(piece.get("NumberOfVerts") or piece.get("NumberOfLines") or piece.get("NumberOfPolys") or 0)
    for section, count in (("Points", points), ("PointData", points), ("CellData", cells)):
        node = piece.find(section)
        if node is None:
            continue
        for array in node.findall("DataArray"):
            comps = int(array.get("NumberOfComponents", "1"))
            values = (array.text or "").split()
            if len(values) != comps * count:
                fail("%s: %s/%s holds %d values, expected %d x %d" % (
                    path, section, array.get("Name"), len(values), count, comps))
            [float(v) for v in values]
    return points


def check_pvtp(path):
    """A frame written in pieces by MPI ranks: a PPolyData index whose pieces exist, are well-formed and hold the
    arrays the index declares. Returns the piece file names."""
    root = ET.parse(path).getroot()
    if root.tag != "VTKFile" or root.get("type") != "PPolyData":
        fail("%s: not a VTK PPolyData index" % path)
    index = root.find("PPolyData")
    declared = {a.get("Name") for a in index.iter("PDataArray")}
    pieces = [p.get("Source") for p in index.findall("Piece")]
    if not pieces:
        fail("%s: names no piece" % path)
    for p in pieces:
        f = os.path.join(os.path.dirname(path), p)
        if not os.path.isfile(f):
            fail("%s names %s, which is missing" % (path, f))
        check_vtp(f)
        held = {a.get("Name") for a in ET.parse(f).getroot().iter("DataArray")}
        held -= {"connectivity", "offsets"}
        if held != declared:
            fail("%s: piece %s holds the arrays %s, the index declares %s" % (path, p, sorted(held), sorted(declared)))
    return pieces


def point_arrays(path):
    piece = ET.parse(path).getroot().find("PolyData/Piece")
    node = piece.find("PointData")
    arrays = {} if node is None else {
        a.get("Name"): [float(v) for v in (a.text or "").split()] for a in node.findall("DataArray")}
    return int(piece.get("NumberOfPoints")), arrays


def rotate_z(q):
    """The body z axis turned by the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    return (2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y))


def check_capsule_frame(path):
    n, arrays = point_arrays(path)
    for name, comps in CAPSULE_ARRAYS.items():
        if name not in arrays:
            fail("%s: no point array %s" % (path, name))
        if len(arrays[name]) != comps * n:
            fail("%s: %s holds %d values, expected %d x %d" % (path, name, len(arrays[name]), n, comps))
    for i in range(n):
        r, half = arrays["radius"][i], arrays["half_length"][i]
        axis = arrays["axis"][3 * i:3 * i + 3]
        q = arrays["orientation"][4 * i:4 * i + 4]
        if not (r > 0 and half > 0):
            fail("%s: capsule %d has radius %g, half_length %g" % (path, i, r, half))
        if abs(sum(a * a for a in axis) - 1) > 1e-6 or abs(sum(c * c for c in q) - 1) > 1e-6:
            fail("%s: capsule %d: axis or orientation not of unit length" % (path, i))
        if max(abs(a - b) for a, b in zip(rotate_z(q), axis)) > 1e-6:
            fail("%s: capsule %d: the orientation does not turn z onto the axis" % (path, i))
    if len(set(arrays["id"])) != n:
        fail("%s: capsule ids repeat" % path)
    return n


def collection(pvd):
    return [(float(ds.get("timestep")), ds.get("file")) for ds in ET.parse(pvd).getroot().findall("Collection/DataSet")]


def check_capsules(out):
    """Checks the capsule series when there is one; returns (frames, capsules in the last frame) or None."""
    pvd = os.path.join(out, "capsules.pvd")
    if not os.path.isfile(pvd):
        if glob.glob(os.path.join(out, "capsules_*.vtp")):
            fail("%s: capsule frames without capsules.pvd" % out)
        return None
    frames = collection(pvd)
    bead_times = [t for t, _ in collection(os.path.join(out, "beads.pvd"))]
    if [t for t, _ in frames] != bead_times:
        fail("%s: the capsule frames' times differ from the bead frames'" % pvd)
    counts = [check_capsule_frame(os.path.join(out, f)) for _, f in frames]
    return len(frames), counts[-1] if counts else 0


def check_dir(out):
    pvds = glob.glob(os.path.join(out, "*.pvd"))
    if not pvds:
        fail("%s: no .pvd collection" % out)
    frames = 0
    for pvd in pvds:
        root = ET.parse(pvd).getroot()
        if root.tag != "VTKFile" or root.get("type") != "Collection":
            fail("%s: not a VTK collection" % pvd)
        for ds in root.findall("Collection/DataSet"):
            f = os.path.join(out, ds.get("file"))
            if not os.path.isfile(f):
                fail("%s names %s, which is missing" % (pvd, f))
            float(ds.get("timestep"))
    vtps = sorted(glob.glob(os.path.join(out, "*.vtp")))
    for v in vtps:
        check_vtp(v)
        frames += 1
    pvtps = sorted(glob.glob(os.path.join(out, "*.pvtp")))
    pieces = set()
    for v in pvtps:
        pieces |= set(check_pvtp(v))
    for f in ("profile.txt", "run.json"):
        if not os.path.isfile(os.path.join(out, f)):
            fail("%s: no %s" % (out, f))
    capsules = check_capsules(out)
    def no_constant(c):
        raise ValueError("bare %s (not JSON)" % c)
    try:
        summary = json.load(open(os.path.join(out, "run.json")), parse_constant=no_constant)
    except ValueError as e:
        fail("%s/run.json: %s" % (out, e))
    if summary.get("path") != "large":
        fail("%s/run.json: path is %r, not a large-path run" % (out, summary.get("path")))
    named = set()
    for pvd in pvds:
        named |= {ds.get("file") for ds in ET.parse(pvd).getroot().findall("Collection/DataSet")}
    for v in vtps + pvtps:
        # meshes.vtp: the fixed meshes' triangles, written once (no collection); pieces: named by their .pvtp.
        name = os.path.basename(v)
        if name not in named and name not in pieces and name != "meshes.vtp":
            fail("%s: no .pvd names it (a stale frame of an earlier run?)" % v)
    for f in os.listdir(out):
        if f.startswith(".") and (f.endswith(".tmp") or f.endswith(".tmp.png")):
            fail("%s/%s: a temporary file left by a killed run" % (out, f))
    if not os.path.isfile(os.path.join(out, "restart.h5")):
        fail("%s: no restart.h5" % out)
    # A partitioned MPI run's archive in pieces: restart.h5 indexes restart_sSTEP_pK.h5, one per rank, all of one step.
    archive_pieces = sorted(f for f in os.listdir(out) if re.fullmatch(r"restart_s[0-9]+_p[0-9]+\.h5", f))
    piece_steps = sorted({f.split("_")[1] for f in archive_pieces})
    if len(piece_steps) > 1:
        fail("%s: restart pieces of %d archives (%s): an earlier archive's pieces were left behind" % (
            out, len(piece_steps), ", ".join(piece_steps)))
    if "files" in summary:
        listed = set(summary["files"])
        missing = sorted(f for f in listed if not os.path.isfile(os.path.join(out, f)))
        if missing:
            fail("%s: run.json lists %s, missing" % (out, ", ".join(missing[:5])))
        unlisted = sorted(os.path.basename(v) for v in vtps + pvtps + archive_pieces if os.path.basename(v) not in listed)
        if unlisted:
            fail("%s: frames of another run beside this one: %s" % (out, ", ".join(unlisted[:5])))
    print("%s: %d pvd, %d vtp frames%s ok%s; %s, %d steps, worst residual %.2g, max penetration %.2g r" % (
        out, len(pvds), frames, " (%d pvtp indices of pieces)" % len(pvtps) if pvtps else "",
        "" if capsules is None else " (%d capsule frames, %d capsules at the end)" % capsules,
        summary["status"], summary["steps"], summary["results"]["worst_residual"],
        summary["results"]["max_penetration_over_r"]))


def check_trace(path):
    events = json.load(open(path))["traceEvents"]
    if not events:
        fail("%s: no events" % path)
    for e in events:
        if e.get("ph") != "X" or "name" not in e or float(e["dur"]) < 0 or "ts" not in e:
            fail("%s: malformed event %r" % (path, e))
    print("%s: %d trace events ok (%s)" % (path, len(events), ", ".join(sorted({e["name"] for e in events}))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--trace", nargs="*", default=[])
    a = ap.parse_args()
    for d in a.dirs:
        check_dir(d)
    for t in a.trace:
        check_trace(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
