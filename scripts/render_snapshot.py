#!/usr/bin/env python3
"""Quick look at a granular frame (issue 4 item 6): renders a beads_NNNNN.vtp written by `talus run` as a PNG.

Two panels: a side view (x–z) and a top view (x–y), beads drawn as discs of their true radius, the nearest in
front, coloured by speed; side by side, or one above the other for long domains (chutes). When the frame's
capsules_NNNNN.vtp lies beside it, the capsules are drawn on top as their true outline in each view (a segment
thickened by the radius, with round ends), coloured by the same speed scale, edged in red.
A frame written in pieces by several MPI ranks (beads_NNNNN.pvtp, naming beads_NNNNN_pK.vtp) is read whole.
Usage: render_snapshot.py FRAME.vtp|FRAME.pvtp OUT.png [--title TEXT]
"""
import argparse
import os
import re
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import EllipseCollection, PolyCollection  # noqa: E402


def read_array(text, name):
    m = re.search(r'<DataArray[^>]*Name="%s"[^>]*>(.*?)</DataArray>' % name, text, re.S)
    if m is None:
        raise ValueError("no array %s" % name)
    return np.array(m.group(1).split(), dtype=float)


def read_frame_array(frame, name):
    """An array of a frame: of the .vtp itself, or of every piece a .pvtp names, concatenated in their order."""
    if not frame.endswith(".pvtp"):
        return read_array(open(frame).read(), name)
    index = open(frame).read()
    pieces = re.findall(r'<Piece\s+Source="([^"]+)"', index)
    head = os.path.dirname(frame)
    return np.concatenate([read_array(open(os.path.join(head, p)).read(), name) for p in pieces])


def sibling(frame, series):
    """The whole (not pieced) frame of another series at the same time: capsules_NNNNN.vtp beside beads_NNNNN.*"""
    head, tail = os.path.split(frame)
    if not tail.startswith("beads_"):
        return ""
    return os.path.join(head, series + "_" + os.path.splitext(tail[len("beads_"):])[0] + ".vtp")


def read_capsules(frame):
    """Centres, radii, half lengths, unit axes and speeds of the capsules of a beads_NNNNN.vtp's frame, or None."""
    path = sibling(frame, "capsules")
    if not os.path.isfile(path):
        return None
    text = open(path).read()
    c = read_array(text, "points").reshape(-1, 3)
    return (c, read_array(text, "radius"), read_array(text, "half_length"), read_array(text, "axis").reshape(-1, 3),
            np.linalg.norm(read_array(text, "velocity").reshape(-1, 3), axis=1))


def read_meshes(frame):
    """Vertices (V x 3) and triangles (T x 3) of the meshes beside a frame (scenes with `meshes:`), or None: the
    frame's own meshes_NNNNN.vtp when a mesh moves, else meshes.vtp."""
    path = sibling(frame, "meshes")
    if not os.path.isfile(path):
        path = os.path.join(os.path.dirname(frame), "meshes.vtp")
    if not os.path.isfile(path):
        return None
    text = open(path).read()
    m = re.search(r'<Polys>\s*<DataArray[^>]*Name="connectivity"[^>]*>(.*?)</DataArray>', text, re.S)
    return read_array(text, "points").reshape(-1, 3), np.array(m.group(1).split(), dtype=int).reshape(-1, 3)


def stadium(p, q, r, k=8):
    """Outline of the segment p–q (2D) thickened by r: two half circles joined by straight sides."""
    d = q - p
    length = np.hypot(*d)
    u = d / length if length > 1e-12 * r else np.array([1.0, 0.0])
    base = np.arctan2(u[1], u[0])
    a1 = base + np.linspace(-np.pi / 2, np.pi / 2, k)
    a2 = base + np.linspace(np.pi / 2, 3 * np.pi / 2, k)
    return np.vstack([q + r * np.c_[np.cos(a1), np.sin(a1)], p + r * np.c_[np.cos(a2), np.sin(a2)]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("frame")
    ap.add_argument("png")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    x = read_frame_array(a.frame, "points").reshape(-1, 3)
    r = read_frame_array(a.frame, "radius")
    v = read_frame_array(a.frame, "velocity").reshape(-1, 3)
    speed = np.linalg.norm(v, axis=1)
    caps = read_capsules(a.frame)
    meshes = read_meshes(a.frame)
    ncaps = 0 if caps is None else len(caps[1])
    if ncaps:
        # The capsules' ends count in the view's extent.
        cx, cr, cl, cax, cspeed = caps
        ends = np.vstack([cx + cl[:, None] * cax, cx - cl[:, None] * cax])
        x_all = np.vstack([x, ends])
        r_all = np.concatenate([r, cr, cr])
    else:
        x_all, r_all = x, r
    if meshes is not None:
        # The walls count in the view's extent (a drum's wall beyond its charge).
        x_all = np.vstack([x_all, meshes[0]])
        r_all = np.concatenate([r_all, np.zeros(len(meshes[0]))])
    vmax = max(speed.max() if len(r) else 0.0, caps[4].max() if ncaps else 0.0)
    # Long domains (chutes) get the two views one above the other, so that neither is a thin strip.
    span = np.ptp(x_all, axis=0) + 1e-12 if len(r_all) else np.ones(3)
    wide = max(span[0] / span[2], span[0] / span[1]) > 2.5
    fig, axes = plt.subplots(2, 1, figsize=(12, 7)) if wide else plt.subplots(1, 2, figsize=(12, 6))
    for ax, (i, j, depth, label) in zip(axes, [(0, 2, 1, "side view (x, z)"), (0, 1, 2, "top view (x, y)")]):
        if meshes is not None:
            # The mesh walls' triangles projected on the view, in grey under the beads.
            mv, mt = meshes
            ax.add_collection(PolyCollection([mv[t][:, [i, j]] for t in mt], facecolors="0.85", edgecolors="0.6",
                                             linewidths=0.2, zorder=0))
        order = np.argsort(-x[:, depth] if depth == 1 else x[:, depth])
        coll = EllipseCollection(2 * r[order], 2 * r[order], np.zeros(len(r)), units="xy",
                                 offsets=x[order][:, [i, j]], offset_transform=ax.transData,
                                 cmap="viridis", edgecolors="k", linewidths=0.2)
        coll.set_array(speed[order])
        coll.set_clim(0.0, vmax)
        ax.add_collection(coll)
        if ncaps:
            corder = np.argsort(-cx[:, depth] if depth == 1 else cx[:, depth])
            outlines = [stadium((cx[k] - cl[k] * cax[k])[[i, j]], (cx[k] + cl[k] * cax[k])[[i, j]], cr[k])
                        for k in corder]
            pc = PolyCollection(outlines, cmap="viridis", edgecolors="r", linewidths=0.6)
            pc.set_array(cspeed[corder])
            pc.set_clim(0.0, vmax)
            ax.add_collection(pc)
        ax.set_aspect("equal")
        pad = 2 * r_all.max() if len(r_all) else 1.0
        if len(r_all):
            ax.set_xlim(x_all[:, i].min() - pad, x_all[:, i].max() + pad)
            ax.set_ylim(x_all[:, j].min() - pad, x_all[:, j].max() + pad)
        ax.set_title(label)
        ax.set_xlabel("xyz"[i] + " [m]")
        ax.set_ylabel("xyz"[j] + " [m]")
    fig.colorbar(coll, ax=axes, label="speed [m/s]", shrink=0.8)
    fig.suptitle(a.title or "%s: %d beads%s, max speed %.3g m/s" % (
        a.frame, len(r), ", %d capsules" % ncaps if ncaps else "", vmax))
    fig.savefig(a.png, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
