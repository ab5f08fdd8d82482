#!/usr/bin/env python3
"""One friction-contact problem replayed through three Talus solvers, with their residual histories plotted
(docs/python.md, "Solvers"; issue 13).

The problem is an FCLIB file (https://frictionalcontactlibrary.github.io): by default the rock pile of the
shared FCLIB collection (../shared/fclib/RockPile/RockPile_tob1.hdf5) when it is there, else one step of a
settling bead pile that the script dumps itself (a Simulation's keep_problem and write_fclib). Each solver runs
to the same tolerance from a cold start; the figure plots the solvers' common residual against iterations and
against time.

    python3 examples/python/fclib_solvers.py                      # out/python/fclib_solvers.png
    python3 examples/python/fclib_solvers.py PROBLEM.hdf5 --solvers nsgs,nsgs_plain,apgd,semismooth_newton
"""
import argparse
import pathlib
import sys

import _talus_path

_talus_path.setup()
import numpy as np  # noqa: E402

import talus  # noqa: E402


def dumped_problem(out):
    """One step of 500 beads settling on a floor in a box, dumped as an FCLIB local problem."""
    m = talus.Model()
    m.gravity = [0, 0, -9.81]
    m.add_wall([0, 0, 1], [0, 0, 0])
    for n, p in [([1, 0, 0], [0, 0, 0]), ([-1, 0, 0], [0.1, 0, 0]), ([0, 1, 0], [0, 0, 0]), ([0, -1, 0], [0, 0.1, 0])]:
        m.add_wall(n, p)
    m.add_lattice([0.0, 0.0, 0.0], [4, 4, 32], radius=0.01, spacing=2.2, jitter=0.05, seed=2)
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3))
    sim.run(t_end=0.3, progress=False)
    sim.keep_problem()
    sim.step()
    file = out / "bead_pile_step.hdf5"
    sim.write_fclib(str(file), title="bead pile, 512 beads, step %d" % m.step)
    return file


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("problem", nargs="?", help="FCLIB file (default: the shared rock pile, else a dumped bead pile)")
    p.add_argument("--solvers", default="nsgs,apgd,semismooth_newton",
                   help="comma-separated, from %s (default nsgs,apgd,semismooth_newton)" % ",".join(talus.friction_solvers))
    p.add_argument("--tolerance", type=float, default=1e-8)
    p.add_argument("--max-iterations", type=int, default=5000)
    p.add_argument("--time-cap", type=float, default=20.0, help="seconds per solver at most (default 20)")
    p.add_argument("--out", default=str(_talus_path.ROOT / "out" / "python"))
    args = p.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.problem:
        file = pathlib.Path(args.problem)
    else:
        shared = _talus_path.ROOT.parent / "shared" / "fclib" / "RockPile" / "RockPile_tob1.hdf5"
        file = shared if shared.exists() else dumped_problem(out)
    problem = talus.read_fclib(str(file))
    print("%s: %d contacts, W %d×%d with %d entries" % (file.name, len(problem["mu"]), problem["W"].shape[0],
                                                        problem["W"].shape[1], problem["W"].nnz))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name in args.solvers.split(","):
        res = talus.solve(problem["W"], problem["q"], problem["mu"], dim=problem["dim"], solver=name,
                          tolerance=args.tolerance, max_iterations=args.max_iterations, time_cap=args.time_cap,
                          record_history=True)
        st = res["stats"]
        hist = np.asarray(st.residual_history)
        print("  %-18s %-14s %6d iterations  residual %.2e (checked %.2e)  %.3f s"
              % (name, st.status, st.iterations, st.residual, res["residual"], st.seconds))
        if len(hist) == 0:
            continue
        it = np.arange(1, len(hist) + 1)
        ax1.semilogy(it, hist, label=name)
        ax2.semilogy(it * st.seconds / len(hist), hist, label=name)
    for ax in (ax1, ax2):
        ax.axhline(args.tolerance, color="grey", ls=":", lw=0.8)
        ax.set_ylabel("residual")
        ax.legend()
    ax1.set_xlabel("iteration (sweep, gradient step or Newton step)")
    ax2.set_xlabel("time [s] (iterations spread evenly over the solve)")
    fig.suptitle("%s: %d contacts" % (file.name, len(problem["mu"])))
    fig.tight_layout()
    png = out / "fclib_solvers.png"
    fig.savefig(png, dpi=120)
    print("wrote %s" % png)


if __name__ == "__main__":
    sys.exit(main())
