#!/usr/bin/env python3
"""Height and packing fraction of a granular run's final pile, from its restart.h5 (issue 10: "the same physics"
when two solvers settle the same scene).

For each output directory (or restart.h5) of a bead_stack-like run, in a square box of side k · spacing · r with
k = ceil(N^(1/3)) (the lattice's footprint, docs/granular.md), prints:
  mean_height   2 <z>: the height of a uniform column with the beads' mean centre height [m];
  top           the 99th percentile of z + r [m];
  phi_bulk      the beads' volume over width² · 2 <z>;
  phi_core      the volume of the beads whose centres lie in the core of the pile (4 r from the walls, 4 r above
                the floor, 6 r below the top) over the core's volume: the packing away from walls and surface.
With two or more directories, also the relative differences of each against the first.

Usage: pile_summary.py OUT_DIR [OUT_DIR ...] [--spacing 2.2]
Needs h5py and numpy (Debian python3-h5py, python3-numpy).
"""
import argparse
import os
import sys

import h5py
import numpy as np


def summary(path, spacing):
    f = path if path.endswith(".h5") else os.path.join(path, "restart.h5")
    if not os.path.isfile(f):
        sys.exit(f"pile_summary: {f}: no such file (a granular run writes restart.h5 in its output directory)")
    with h5py.File(f, "r") as h:
        if "/beads/x" not in h:
            sys.exit(f"pile_summary: {f}: no /beads/x dataset (not a granular restart archive)")
        x = h["/beads/x"][:]
        r = h["/beads/radius"][:]
    n = len(r)
    if n == 0:
        sys.exit(f"pile_summary: {f}: no beads")
    rm = float(np.mean(r))
    width = int(np.ceil(n ** (1.0 / 3.0) - 1e-9)) * spacing * rm
    z = x[:, 2]
    volume = 4.0 / 3.0 * np.pi * r ** 3
    mean_height = 2.0 * float(z.mean())
    top = float(np.percentile(z + r, 99))
    lo, hi, m = 4 * rm, top - 6 * rm, 4 * rm
    core = (x[:, 0] > m) & (x[:, 0] < width - m) & (x[:, 1] > m) & (x[:, 1] < width - m) & (z > lo) & (z < hi)
    core_volume = (width - 2 * m) ** 2 * max(hi - lo, 0.0)
    return {
        "beads": n,
        "mean_height": mean_height,
        "top": top,
        "phi_bulk": float(volume.sum()) / (width * width * mean_height),
        "phi_core": float(volume[core].sum()) / core_volume if core_volume > 0 else float("nan"),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="output directories of granular runs (or their restart.h5)")
    ap.add_argument("--spacing", type=float, default=2.2, help="lattice spacing / r of the scene (default 2.2)")
    a = ap.parse_args()
    rows = [(p, summary(p, a.spacing)) for p in a.runs]
    keys = ["mean_height", "top", "phi_bulk", "phi_core"]
    print(f"{'run':40s} {'beads':>7s} " + " ".join(f"{k:>12s}" for k in keys))
    for p, s in rows:
        print(f"{p:40s} {s['beads']:7d} " + " ".join(f"{s[k]:12.5f}" for k in keys))
    for p, s in rows[1:]:
        base = rows[0][1]
        print(f"{p} against {rows[0][0]}: " +
              ", ".join(f"{k} {100.0 * (s[k] - base[k]) / base[k]:+.2f} %" for k in keys))


if __name__ == "__main__":
    main()
