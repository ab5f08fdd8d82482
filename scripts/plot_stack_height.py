#!/usr/bin/env python3
"""Figure of bench/stack_height (issue 10; docs/stack-height.md) from its JSON.

Left: the residual history of one hard step (the bench's --history-family/--history-layers/--history-step, by
default the cold start of the tallest packed_box), residual (log) against sweep-equivalents (time / time of one
plain matrix-free sweep on the same problem), one curve per solver, the tolerance dashed.
Right: sweep-equivalents per step against the number of layers L (log-log), one line per family and solver
(cold steps of bead_column and packed_box, the mean of lattice_collapse), with an L^2 guide; hollow markers are
steps that did not reach the tolerance (their cost is a lower bound).

usage: plot_stack_height.py STACK_HEIGHT.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        data = json.load(f)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.8))

    hist = data["history"]
    drawn = 0
    for curve in hist["solvers"]:
        if not curve["available"]:
            ax.plot([], [], " ", label=f"{curve['solver']}: not available")
            continue
        pts = [(s["sweep_equivalents"], s["residual"]) for s in curve["samples"] if s["residual"] > 0]
        if not pts:
            continue
        x, y = zip(*pts)
        ax.semilogy(x, y, marker=".", markersize=3, label=curve["solver"])
        drawn += 1
    ax.axhline(hist["tolerance"], color="grey", linestyle="--", linewidth=1, label="tolerance")
    ax.set_xlabel("sweep-equivalents (solve time / one fine sweep)")
    ax.set_ylabel("residual")
    ax.set_title(f"{hist['family']}, L = {hist['layers']}, step {hist['step']}: residual history")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if drawn == 0:
        ax.text(0.5, 0.5, "no residual history recorded", transform=ax.transAxes, ha="center")

    series = {}
    for r in data["records"]:
        if not r["available"]:
            continue
        label = "mean" if r["family"] == "lattice_collapse" else "cold"
        s = r.get(label)
        if not s or s["sweep_equivalents"] <= 0:
            continue
        series.setdefault((r["family"], r["solver"]), []).append(
            (r["layers"], s["sweep_equivalents"], s["unconverged_steps"] > 0))
    markers = {"bead_column": "o", "packed_box": "s", "lattice_collapse": "^"}
    for (family, solver), pts in sorted(series.items()):
        pts.sort()
        L = [p[0] for p in pts]
        se = [p[1] for p in pts]
        (line,) = bx.loglog(L, se, label=f"{family} / {solver}", marker=markers.get(family, "o"))
        bad = [(p[0], p[1]) for p in pts if p[2]]
        if bad:
            bx.loglog(*zip(*bad), linestyle="none", marker=markers.get(family, "o"), markersize=10,
                      markerfacecolor="none", color=line.get_color())
    layers = sorted({r["layers"] for r in data["records"]})
    if series and len(layers) > 1:
        first = min(min(p[1] for p in pts) for pts in series.values())
        bx.loglog(layers, [first * (L / layers[0]) ** 2 for L in layers], color="grey", linestyle=":",
                  label="~ L^2")
    bx.set_xlabel("layers L")
    bx.set_ylabel("sweep-equivalents per step")
    bx.set_title("cost per step to the tolerance (hollow: not converged)")
    bx.grid(True, which="both", alpha=0.3)
    bx.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
