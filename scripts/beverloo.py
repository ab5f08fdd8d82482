#!/usr/bin/env python3
"""Beverloo check at scene size (issue 4 physics list): runs examples/silo.yaml for several orifice diameters
and fits the discharge rates with W = C rho_b sqrt(g) (D - k d)^n.

Each run drains the silo (`talus run examples/silo.yaml --set orifice_diameters=D`); the rate is the slope of
the discharged mass over the quasi-steady part of discharge.csv: after --t-start (the lattice the beads start
from has collapsed and the flow has set in) and before half the beads are out (the head stays above the
orifice size). Two fits, both printed:
  - k fixed at 1.5 (the usual value), exponent n from a log-log least-squares line: Beverloo says 2.5;
  - n fixed at 2.5, W^(2/5) linear in D: k from the intercept, C from the slope.
tests/granular/test_beverloo.cpp is the small, fast version run by the test suite.

--scene conical_hopper runs examples/conical_hopper.yaml instead (a 30° conical hopper under a bin, beads of
r = 5 mm ± 10 %, held by a gate until --gate s): each outlet D keeps the half-angle, the bin and the pour, and
moves the hopper's top to the bin's radius (height (R_bin - D/2) / tan 30°); --n beads, the window starts 0.15 s
after the gate opens. Beverloo's fit is then read with Rose and Tanaka's hopper factor in mind: a hopper
steeper than its stagnant zone flows faster than a flat-bottomed silo by (tan θ_h)^-0.35 (1.21 at 30°).

Usage: scripts/beverloo.py [--talus build/talus] [--n 3000] [--orifices 4,5,6,7] [--out out/beverloo]
                           [--threads 1] [--t-end 3] [--t-start 0.6] [--reuse] [--json FILE] [--png FILE]
                           [--scene silo|conical_hopper] [--gate 0.7]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys


def rate_of(run_dir, bead_mass, n, t_start):
    rows = list(csv.DictReader(open(os.path.join(run_dir, "discharge.csv"))))
    t = [float(r["time"]) for r in rows]
    k = [int(r["removed_beads"]) for r in rows]
    # The removed mass where the run recorded it (beads of several sizes), else the count times one bead's mass.
    mass = [float(r["removed_mass_kg"]) for r in rows] if rows and "removed_mass_kg" in rows[0] else [bead_mass * x for x in k]
    pts = [(ti, mi, ki) for ti, mi, ki in zip(t, mass, k) if ti >= t_start and ki <= 0.5 * n]
    total = pts[-1][2] - pts[0][2] if pts else 0
    if len(pts) < 3 or total < 20:
        raise RuntimeError("%s: too few beads out (%d) in the quasi-steady window for a rate" % (run_dir, total))
    mt = sum(p[0] for p in pts) / len(pts)
    mm = sum(p[1] for p in pts) / len(pts)
    slope = sum((p[0] - mt) * (p[1] - mm) for p in pts) / sum((p[0] - mt) ** 2 for p in pts)
    return slope, total


def line_fit(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxx = sum((a - mx) ** 2 for a in x)
    b = sum((a - mx) * (c - my) for a, c in zip(x, y)) / sxx
    return b, my - b * mx


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--talus", default=os.path.join(root, "build", "talus"))
    ap.add_argument("--n", type=int, default=3000, help="beads (the silo is ceil(n^(1/3)) beads wide)")
    ap.add_argument("--orifices", default="4,5,6,7", help="orifice diameters in bead diameters")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--t-end", type=float, default=3.0)
    ap.add_argument("--t-start", type=float, default=0.6, help="start of the quasi-steady window [s]")
    ap.add_argument("--reuse", action="store_true", help="fit the runs already in --out instead of running")
    ap.add_argument("--out", default=os.path.join(root, "out", "beverloo"))
    ap.add_argument("--json", default=None)
    ap.add_argument("--png", default=None)
    ap.add_argument("--scene", choices=["silo", "conical_hopper"], default="silo")
    ap.add_argument("--gate", type=float, default=0.7, help="conical_hopper: when the gate opens [s]")
    a = ap.parse_args()
    hopper = a.scene == "conical_hopper"
    radius, density, g = (0.005 if hopper else 0.01), 2500.0, 9.81
    d = 2 * radius
    # The hopper's radii are uniform in r (1 ± 0.1): the mean of r³ is 1.01 r³.
    bead_mass = density * 4.0 / 3.0 * math.pi * radius ** 3 * (1.01 if hopper else 1.0)
    if hopper:
        a.t_start = a.gate + 0.15
    orifices = [float(s) for s in a.orifices.split(",")]
    if len(orifices) < 3:
        sys.exit("beverloo.py: at least 3 orifice diameters are needed for a fit")
    records = []
    for D in orifices:
        run_dir = os.path.join(a.out, "D%g" % D)
        # --overwrite: a run_dir of an earlier invocation is replaced as one set (talus refuses it otherwise).
        if hopper:
            r_bin, tan30 = 0.116603, math.tan(math.radians(30))
            height = (r_bin - D * d / 2) / tan30
            cmd = [a.talus, "run", os.path.join(root, "examples", "conical_hopper.yaml"), "--out", run_dir,
                   "--overwrite", "--no-plot", "--quiet", "--t-end", str(a.t_end),
                   "--set", "cones[0].radius_bottom=%.6f" % (D * d / 2), "--set", "cones[0].height=%.6f" % height,
                   "--set", "cones[1].base=[0, 0, %.6f]" % height,
                   "--set", "pours[0].region=[-0.075, -0.075, %.6f, 0.075, 0.075, %.6f]" % (height + 0.01, height + 0.45),
                   "--set", "pours[0].count=%d" % a.n, "--set", "planes[0].open_at=%g" % a.gate,
                   "--set", "integrator.threads=%d" % a.threads, "--set", "output.frame_every=1"]
        else:
            cmd = [a.talus, "run", os.path.join(root, "examples", "silo.yaml"), "--out", run_dir, "--overwrite",
                   "--no-plot", "--quiet", "--t-end", str(a.t_end), "--set", "n=%d" % a.n,
                   "--set", "orifice_diameters=%g" % D, "--set", "threads=%d" % a.threads, "--set", "frame_every=1"]
        if not (a.reuse and os.path.isfile(os.path.join(run_dir, "run.json"))):
            subprocess.run(cmd, check=True)
        summary = json.load(open(os.path.join(run_dir, "run.json")))
        results = summary["results"]
        w, out = rate_of(run_dir, bead_mass, a.n, a.t_start)
        records.append({"orifice_diameters": D, "rate_kg_per_s": w, "beads_out": out,
                        "mean_sweeps": results["mean_sweeps"], "worst_residual": results["worst_residual"],
                        "max_penetration_over_r": results["max_penetration_over_r"],
                        "wall_seconds": summary["wall_seconds"]})
    n_exp, _ = line_fit([math.log((r["orifice_diameters"] - 1.5) * d) for r in records],
                        [math.log(r["rate_kg_per_s"]) for r in records])
    slope, intercept = line_fit([r["orifice_diameters"] * d for r in records],
                                [r["rate_kg_per_s"] ** 0.4 for r in records])
    k_fit = -intercept / slope / d
    c_fit = slope ** 2.5 / (0.6 * density * math.sqrt(g))  # rho_b = 0.6 rho
    print("| D / d | beads out in the window | rate [kg/s] | mean sweeps | worst residual | max pen / r | wall [s] |")
    print("|---|---|---|---|---|---|---|")
    for r in records:
        print("| %g | %d | %.4g | %.1f | %.2g | %.2g | %.0f |" % (
            r["orifice_diameters"], r["beads_out"], r["rate_kg_per_s"], r["mean_sweeps"], r["worst_residual"],
            r["max_penetration_over_r"], r["wall_seconds"]))
    print("exponent with k = 1.5: %.2f (Beverloo: 2.5); with exponent 2.5: k = %.2f, C = %.2f (rho_b = 0.6 rho)"
          % (n_exp, k_fit, c_fit))
    if a.json:
        json.dump({"n": a.n, "records": records, "exponent_k1.5": n_exp, "k_at_2.5": k_fit, "C_at_2.5": c_fit},
                  open(a.json, "w"), indent=2)
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        x = [r["orifice_diameters"] for r in records]
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.plot(x, [r["rate_kg_per_s"] ** 0.4 for r in records], "o", label="talus")
        ax.plot(x, [slope * (D * d) + intercept for D in x], "-", label="k = %.2f" % k_fit)
        ax.set_xlabel("D / d")
        ax.set_ylabel("W^(2/5) [(kg/s)^(2/5)]")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
