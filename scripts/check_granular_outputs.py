#!/usr/bin/env python3
"""Checks the files of a granular run (`talus run examples/<scene>.yaml`) the way ParaView and Perfetto read them.

For an output directory: every .pvd collection and .vtp frame is well-formed XML of the right VTK type; every
frame's DataArrays hold NumberOfPoints (point data) or NumberOfLines (cell data) tuples of their
NumberOfComponents; every file a .pvd names exists; profile.txt and granular.json are present. With --trace,
the Chrome trace-event JSON parses and its events are complete ("ph": "X") events with a name, a start and a
duration. Prints one line per directory and exits 1 on the first problem.

Usage: check_granular_outputs.py OUT_DIR [OUT_DIR ...] [--trace FILE ...]
"""
import argparse
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("check_granular_outputs: " + msg, file=sys.stderr)
    sys.exit(1)


def check_vtp(path):
    root = ET.parse(path).getroot()
    if root.tag != "VTKFile" or root.get("type") != "PolyData":
        fail("%s: not a VTK PolyData file" % path)
    piece = root.find("PolyData/Piece")
    points = int(piece.get("NumberOfPoints"))
    cells = int(piece.get("NumberOfVerts") or piece.get("NumberOfLines") or 0)
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
    for f in ("profile.txt", "granular.json"):
        if not os.path.isfile(os.path.join(out, f)):
            fail("%s: no %s" % (out, f))
    summary = json.load(open(os.path.join(out, "granular.json")))
    print("%s: %d pvd, %d vtp frames ok; %s, %d steps, worst residual %.2g, max penetration %.2g r" % (
        out, len(pvds), frames, summary["status"], summary["steps"], summary["worst_residual"],
        summary["max_penetration_over_r"]))


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
