#!/usr/bin/env python3
"""Dolan-More performance profiles of time-to-tolerance from a bench/fclib CSV.

For problem p and solver s let t[p, s] be the time to the tolerance (infinite when s did not converge) and
ratio[p, s] = t[p, s] / min_s t[p, s]. The profile of s is rho_s(tau) = fraction of problems with
ratio[p, s] <= tau: rho_s(1) is how often s is fastest, rho_s(tau -> inf) how often it solves at all.
(Dolan & More, "Benchmarking optimization software with performance profiles", Math. Prog. 91, 2002.)

usage: performance_profile.py RESULTS.csv OUT.png [--exclude portfolio] [--title TEXT]
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

from talus_plotting import pyplot, savefig

plt = pyplot("performance_profile.py")


def read_times(path, excluded):
    times = defaultdict(dict)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["solver"] in excluded:
                continue
            t = float(row["seconds"]) if row["converged"] == "1" else math.inf
            times[row["problem"]][row["solver"]] = t
    return times


def profiles(times):
    solvers = sorted({s for per in times.values() for s in per})
    ratios = {s: [] for s in solvers}
    for per in times.values():
        best = min(per.values())
        for s in solvers:
            t = per.get(s, math.inf)
            ratios[s].append(t / best if math.isfinite(t) and best > 0 else (1.0 if t == best else math.inf))
    return solvers, ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--exclude", action="append", default=[], help="solver name to leave out (repeatable)")
    parser.add_argument("--title", default=None)
    args = parser.parse_args()

    times = read_times(args.csv, set(args.exclude))
    if not times:
        sys.exit(f"{args.csv}: no results")
    solvers, ratios = profiles(times)
    problems = len(times)
    finite = [r for rs in ratios.values() for r in rs if math.isfinite(r)]
    tau_max = max(2.0, 2.0 * max(finite)) if finite else 2.0

    fig, ax = plt.subplots(figsize=(8, 5))
    for s in solvers:
        rs = sorted(ratios[s])
        taus = [1.0] + [r for r in rs if math.isfinite(r)] + [tau_max]
        fractions = [sum(1 for r in rs if r <= t) / problems for t in taus]
        ax.step(taus, fractions, where="post", label=f"{s} ({sum(map(math.isfinite, rs))}/{problems})")
    ax.set_xscale("log", base=2)
    ax.set_xlim(1.0, tau_max)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("tau: time / best time on the problem")
    ax.set_ylabel("fraction of problems solved within tau")
    ax.set_title(args.title or f"Performance profile, time to tolerance ({problems} problems)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    savefig(fig, args.png, dpi=120)
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
