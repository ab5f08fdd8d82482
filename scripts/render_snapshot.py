#!/usr/bin/env python3
"""Quick look at a granular frame (issue 4 item 6): renders a beads_NNNNN.vtp written by `talus run` as a PNG.

Two panels: a side view (x–z) and a top view (x–y), beads drawn as discs of their true radius, the nearest in
front, coloured by speed; side by side, or one above the other for long domains (chutes). Usage: render_snapshot.py FRAME.vtp OUT.png [--title TEXT]
"""
import argparse
import re
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import EllipseCollection  # noqa: E402


def read_array(text, name):
    m = re.search(r'<DataArray[^>]*Name="%s"[^>]*>(.*?)</DataArray>' % name, text, re.S)
    if m is None:
        raise ValueError("no array %s" % name)
    return np.array(m.group(1).split(), dtype=float)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("frame")
    ap.add_argument("png")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    text = open(a.frame).read()
    x = read_array(text, "points").reshape(-1, 3)
    r = read_array(text, "radius")
    v = read_array(text, "velocity").reshape(-1, 3)
    speed = np.linalg.norm(v, axis=1)
    # Long domains (chutes) get the two views one above the other, so that neither is a thin strip.
    span = np.ptp(x, axis=0) + 1e-12 if len(r) else np.ones(3)
    wide = max(span[0] / span[2], span[0] / span[1]) > 2.5
    fig, axes = plt.subplots(2, 1, figsize=(12, 7)) if wide else plt.subplots(1, 2, figsize=(12, 6))
    for ax, (i, j, depth, label) in zip(axes, [(0, 2, 1, "side view (x, z)"), (0, 1, 2, "top view (x, y)")]):
        order = np.argsort(-x[:, depth] if depth == 1 else x[:, depth])
        coll = EllipseCollection(2 * r[order], 2 * r[order], np.zeros(len(r)), units="xy",
                                 offsets=x[order][:, [i, j]], offset_transform=ax.transData,
                                 cmap="viridis", edgecolors="k", linewidths=0.2)
        coll.set_array(speed[order])
        ax.add_collection(coll)
        ax.set_aspect("equal")
        pad = 2 * r.max() if len(r) else 1.0
        if len(r):
            ax.set_xlim(x[:, i].min() - pad, x[:, i].max() + pad)
            ax.set_ylim(x[:, j].min() - pad, x[:, j].max() + pad)
        ax.set_title(label)
        ax.set_xlabel("xyz"[i] + " [m]")
        ax.set_ylabel("xyz"[j] + " [m]")
    fig.colorbar(coll, ax=axes, label="speed [m/s]", shrink=0.8)
    fig.suptitle(a.title or "%s: %d beads, max speed %.3g m/s" % (a.frame, len(r), speed.max() if len(r) else 0))
    fig.savefig(a.png, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
