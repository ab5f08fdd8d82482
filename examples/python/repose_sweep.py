#!/usr/bin/env python3
"""The angle of repose of a pile against the friction coefficient μ, with the plot (docs/python.md; issue 13).

For each μ the script builds the same quasi-two-dimensional heap: beads (r = 5 mm ± 10 %) rained from a narrow
region onto a rough base (a row of fixed beads) in a slot six diameters deep and periodic front to back,
left to settle until their kinetic energy is small. The angle is that of the heap's flanks: the top of the beads
in bins one diameter wide, a least-squares line through the bins between 20 % and 80 % of the heap's height on
each side, the mean of both sides. The angle rises with μ and saturates: spheres without rolling resistance roll
down the flanks however much they resist sliding (with the defaults: 17° at μ = 0.05, 22° at 0.2, 27° at 0.4,
24° at 0.8). These heaps are small (about 6 diameters high) and not wholly at rest at 2 s (a few beads still roll:
the kinetic-energy criterion that would stop a run early is not met), so take the angles to a few degrees. A μ
whose run fails (a step whose solve misses the tolerance) is reported and left out of the plot.

    python3 examples/python/repose_sweep.py                         # about a minute; out/python/repose.png, .csv
    python3 examples/python/repose_sweep.py --mu 0.1,0.3,0.6 --beads 800
"""
import argparse
import csv
import math
import pathlib

import _talus_path

_talus_path.setup()
import numpy as np  # noqa: E402

import talus  # noqa: E402

R = 0.005
DEPTH = 12 * R  # the periodic slot: six diameters front to back (a period holds at least 3 contact cells)


def build(mu, beads, rate, seed):
    m = talus.Model()
    m.gravity = [0.0, 0.0, -9.81]
    m.set_all_laws(mu=mu, e=0.0)
    m.set_periodic(1, 0.0, DEPTH)
    m.add_wall([0, 0, 1], [0, 0, 0])
    # The rough base: one layer of fixed beads 2 r apart across the whole floor.
    base = m.add_lattice([-0.3, 0.0, 0.0], [60, 6, 1], radius=R, spacing=2.0)
    for i in base:
        m.fix(i)
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3))
    # The rain: `rate` beads a second enter a narrow region above the middle, and the heap grows by avalanches.
    sim.add_pour(lower=[-0.012, 0.0005, 0.2], upper=[0.012, DEPTH - 0.0005, 0.23], count=beads,
                 sizes=talus.SizeDistribution.uniform(0.9 * R, 1.1 * R), rate=rate, seed=seed)
    return sim


def flank_angle(m):
    x = m.positions
    free = m.inverse_masses > 0
    xs, top = x[free, 0], x[free, 2] + m.radii[free]
    edges = np.arange(-0.3, 0.3 + 1e-9, 2 * R)
    idx = np.digitize(xs, edges)
    centres, heights = [], []
    for k in np.unique(idx):
        sel = idx == k
        if np.count_nonzero(sel) >= 2:
            centres.append(xs[sel].mean())
            heights.append(top[sel].max())
    centres, heights = np.array(centres), np.array(heights)
    peak = centres[np.argmax(heights)]
    hmax = heights.max()
    angles = []
    for side in (-1, 1):
        sel = (np.sign(centres - peak) == side) & (heights > 0.2 * hmax) & (heights < 0.8 * hmax)
        if np.count_nonzero(sel) >= 3:
            slope = np.polyfit(centres[sel], heights[sel], 1)[0]
            angles.append(math.degrees(math.atan(abs(slope))))
    return float(np.mean(angles)) if angles else float("nan"), hmax


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mu", default="0.05,0.2,0.4,0.8", help="friction coefficients (default 0.05,0.2,0.4,0.8)")
    p.add_argument("--beads", type=int, default=500, help="beads per heap (default 500)")
    p.add_argument("--rate", type=float, default=1000.0, help="beads poured per second (default 1000)")
    p.add_argument("--t-end", type=float, default=2.0, help="longest run [s] (default 2)")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--out", default=str(_talus_path.ROOT / "out" / "python"))
    args = p.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for mu in [float(s) for s in args.mu.split(",")]:
        sim = build(mu, args.beads, args.rate, args.seed)
        m = sim.model
        poured = args.beads / args.rate + 0.25  # the last bead has entered and landed
        bead_m_g_r = 2500 * 4 / 3 * math.pi * R ** 3 * 9.81 * R

        def at_rest(s):  # stop once the heap has stopped moving
            return not (s.model.time > poured and talus.kinetic_energy(s.model)["total"] < 1e-4 * args.beads * bead_m_g_r)

        try:
            sim.run(t_end=args.t_end, callback=at_rest, every=20, progress=False)
        except talus.StepFailure as e:
            print("mu = %.2f: left out, the run failed: %s" % (mu, e))
            continue
        angle, height = flank_angle(m)
        print("mu = %.2f: angle of repose %.1f deg (heap %.1f mm high, settled at t = %.2f s)"
              % (mu, angle, 1000 * height, m.time))
        rows.append((mu, angle, height, m.time))
    with open(out / "repose.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mu", "angle_deg", "height_m", "settled_s"])
        w.writerows(rows)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.plot([r[0] for r in rows], [r[1] for r in rows], "o-", label="Talus heaps")
    mus = np.linspace(0.01, max(r[0] for r in rows), 100)
    ax.plot(mus, np.degrees(np.arctan(mus)), "k:", lw=0.8, label="arctan μ (a sliding block)")
    ax.set_xlabel("bead friction coefficient μ")
    ax.set_ylabel("angle of repose [deg]")
    ax.set_title("%d beads, r = %.0f mm, no rolling resistance" % (args.beads, 1000 * R))
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "repose.png", dpi=120)
    print("wrote %s and %s" % (out / "repose.png", out / "repose.csv"))


if __name__ == "__main__":
    main()
