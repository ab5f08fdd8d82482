#!/usr/bin/env python3
"""A hopper whose walls the script defines, filled by a pour, discharged through its slot, with the flow rate
measured and plotted (docs/python.md; issue 13).

The hopper is a wedge: two solid slabs (talus boxes) inclined at `--angle` from horizontal leave a slot of
width `--outlet` between their lower edges; two planes close it front and back. A gate (a plane under the slot)
holds the beads while a pour fills the hopper and the bed settles; at `--open` s the script removes the gate, the
beads run out through the slot, and those that fall below the bench are removed. A MassFlowMeter on the plane
of the slot records the discharged mass; the flow rate is the slope of its steady part (a least-squares line
over the middle of the discharge, where Beverloo's law says the rate of a hopper is constant).

    python3 examples/python/hopper.py                  # about 15 s of one core; out/python/hopper.png and .csv
    python3 examples/python/hopper.py --outlet 0.05    # a narrower slot, a slower flow
"""
import argparse
import csv
import math
import pathlib
import sys

import _talus_path

_talus_path.setup()
import numpy as np  # noqa: E402

import talus  # noqa: E402


def build(args):
    m = talus.Model()
    m.gravity = [0.0, 0.0, -9.81]
    m.add_material("steel")
    m.set_law("bead", "bead", mu=args.mu, e=0.0)
    m.set_law("bead", "steel", mu=args.mu_wall, e=0.0)
    m.set_law("bead", "wall", mu=args.mu_wall, e=0.0)
    a = args.outlet / 2
    alpha = math.radians(args.angle)
    depth, length, thick = args.depth, args.wall_length, 0.01
    # Each slab's inner face starts at the slot's edge (±a, 0) and rises along u; n is its inner normal.
    for side in (-1.0, 1.0):
        u = np.array([side * math.cos(alpha), 0.0, math.sin(alpha)])
        n = np.array([-side * math.sin(alpha), 0.0, math.cos(alpha)])
        centre = np.array([side * a, depth / 2, 0.0]) + length / 2 * u - thick / 2 * n
        m.add_box(centre, [length / 2, depth / 2 + 0.02, thick / 2], axis=[0, 1, 0], angle=-side * alpha,
                  material="steel")
    m.add_wall([0, 1, 0], [0, 0, 0])       # front
    m.add_wall([0, -1, 0], [0, depth, 0])  # back
    gate = m.add_wall([0, 0, 1], [0, 0, 0], material="steel")  # the last wall: removed to open the slot
    # The pour's region lies inside the wedge: at height z the hopper is 2 (a + z / tan α) wide.
    z0 = 0.10
    half = a + z0 / math.tan(alpha) - 1.5 * args.radius
    r = args.radius
    m.pour(lower=[-half, r, z0], upper=[half, depth - r, z0 + args.fill_height], count=args.beads,
           sizes=talus.SizeDistribution.uniform(0.9 * r, 1.1 * r), density=2500.0, seed=args.seed)
    return m, gate


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--beads", type=int, default=1200, help="beads poured (default 1200)")
    p.add_argument("--radius", type=float, default=0.005, help="mean bead radius [m] (radii ±10%%; default 0.005)")
    p.add_argument("--outlet", type=float, default=0.06, help="slot width [m] (default 0.06, 6 diameters)")
    p.add_argument("--angle", type=float, default=60.0, help="wall angle from horizontal [deg] (default 60)")
    p.add_argument("--depth", type=float, default=0.04, help="front-to-back depth [m] (default 0.04)")
    p.add_argument("--wall-length", type=float, default=0.3, help="slab length [m] (default 0.3)")
    p.add_argument("--fill-height", type=float, default=0.5, help="height of the pour's region [m] (default 0.5)")
    p.add_argument("--mu", type=float, default=0.3, help="bead-bead friction (default 0.3)")
    p.add_argument("--mu-wall", type=float, default=0.3, help="bead-wall friction (default 0.3)")
    p.add_argument("--open", type=float, default=0.6, help="time the gate opens [s] (default 0.6)")
    p.add_argument("--t-end", type=float, default=1.8, help="end time [s] (default 1.8)")
    p.add_argument("--h", type=float, default=1e-3, help="time step [s] (default 1e-3)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--out", default=str(_talus_path.ROOT / "out" / "python"), help="output folder (default out/python)")
    p.add_argument("--vtk", action="store_true", help="also write ParaView frames every 0.05 s into OUT/hopper_vtk")
    args = p.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model, gate = build(args)
    sim = talus.Simulation(model, talus.GranularSettings(h=args.h, threads=args.threads))
    sim.set_outflow(below_z=-0.15)
    meter = talus.MassFlowMeter([0, 0, 0], [0, 0, 1])
    total_mass = float(np.sum(model.masses))
    print("hopper: %d beads (%.3f kg), slot %.3f m, walls at %.0f deg; gate opens at %.2f s"
          % (model.sphere_count, total_mass, args.outlet, args.angle, args.open), file=sys.stderr)

    rows = []
    frame_every = max(1, int(round(0.05 / args.h)))

    def record(s):
        meter.record(s.model)
        r = s.last_report
        rows.append((s.model.time, meter.mass, s.model.sphere_count, talus.kinetic_energy(s.model)["total"],
                     r.sweeps, r.contacts))
        if args.vtk and s.model.step % frame_every == 0:
            s.write_vtk(str(out / "hopper_vtk"))

    sim.run(t_end=args.open, callback=record, every=5, progress=True)
    model.remove_wall(gate)
    sim.run(t_end=args.t_end, callback=record, every=5, progress=True)

    t = np.array([r[0] for r in rows])
    mass = np.array([r[1] for r in rows])
    with open(out / "hopper.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["time_s", "discharged_kg", "beads_in_domain", "kinetic_energy_J", "sweeps", "contacts"])
        w.writerows(rows)

    # The steady part: between 20 % and 70 % of the mass that left in all.
    final = mass[-1]
    steady = (mass >= 0.2 * final) & (mass <= 0.7 * final) & (t > args.open)
    rate = float("nan")
    if final > 0 and np.count_nonzero(steady) >= 3:
        rate, intercept = np.polyfit(t[steady], mass[steady], 1)
    print("hopper: %.3f of %.3f kg discharged by t = %.2f s; steady flow rate %.4f kg/s (%.0f beads/s)"
          % (final, total_mass, t[-1], rate, rate / (total_mass / args.beads)))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    ax1.plot(t, mass, label="discharged mass")
    if math.isfinite(rate):
        ts = t[steady]
        ax1.plot(ts, rate * ts + intercept, "k--", label="steady fit: %.3f kg/s" % rate)
    ax1.axvline(args.open, color="grey", lw=0.8, ls=":", label="gate opens")
    ax1.set_xlabel("time [s]")
    ax1.set_ylabel("mass through the slot [kg]")
    ax1.legend()
    # Flow rate over 0.05 s windows.
    win = max(1, int(round(0.05 / (t[1] - t[0])))) if len(t) > 1 else 1
    tr = t[win:]
    q = (mass[win:] - mass[:-win]) / (t[win:] - t[:-win])
    ax2.plot(tr, q)
    if math.isfinite(rate):
        ax2.axhline(rate, color="k", ls="--", lw=0.8)
    ax2.set_xlabel("time [s]")
    ax2.set_ylabel("flow rate over 0.05 s [kg/s]")
    fig.suptitle("Wedge hopper: %d beads, slot %.0f mm, walls at %.0f°, μ = %.2f"
                 % (args.beads, 1000 * args.outlet, args.angle, args.mu))
    fig.tight_layout()
    png = out / "hopper.png"
    fig.savefig(png, dpi=120)
    print("hopper: wrote %s and %s" % (png, out / "hopper.csv"))


if __name__ == "__main__":
    main()
