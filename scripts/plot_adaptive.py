#!/usr/bin/env python3
"""Draws the precision-work diagrams of the adaptive Moreau-Jean schemes (seed 000 slides 99-117): for the
bouncing ball and the linear impacting oscillator, the L1 grid error of q (eq 48) against the work (one-step
solves; RK stages + Moreau-Jean steps for the event-capturing scheme), log-log, one curve per scheme variant,
fixed-step Moreau-Jean as the reference line. Rows come from bench/AdaptivePrecisionWork.hpp.

Usage: python3 scripts/plot_adaptive.py RESULTS.json OUT.png
RESULTS.json holds the key "adaptive_moreau_jean" (a list of rows) at its top level.
Exit status: 0 figure written, 2 unreadable input, 3 matplotlib missing.
"""
import json
import sys

from talus_plotting import pyplot, savefig

plt = pyplot("plot_adaptive.py")

PROBLEMS = [("bouncing_ball", "Bouncing ball"), ("linear_oscillator", "Linear impacting oscillator")]
STYLE = {
    "moreau_jean_fixed": dict(color="black", linestyle="--", marker="o", label="Moreau-Jean, fixed step"),
    "adaptive_order0": dict(color="tab:blue", marker="s", label="adaptive, order 0 (eq 127)"),
    "adaptive_order1": dict(color="tab:orange", marker="^", label="adaptive, order 1 (eq 109)"),
    "adaptive_order2": dict(color="tab:green", marker="v", label="adaptive, order 2 (eq 109)"),
    "adaptive_order0_violation": dict(color="tab:purple", marker="D", label="order 0 + violation (eq 129)"),
    "adaptive_order1_violation": dict(color="tab:brown", marker="P", label="order 1 + violation (eq 129)"),
    "adaptive_variable_violation": dict(color="tab:gray", marker="X", label="variable order + violation"),
    "event_capturing_rk4": dict(color="tab:red", marker="*", markersize=10, label="RK4 + event capturing"),
}


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            rows = json.load(f)["adaptive_moreau_jean"]
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_adaptive: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2

    fig, axes = plt.subplots(1, 2, figsize=(14, 5.5))
    for ax, (problem, title) in zip(axes, PROBLEMS):
        mine = [r for r in rows if r["problem"] == problem and r["failure"] is None]
        for scheme in STYLE:
            # In sweep order (tolerance or step decreasing), so that a curve that turns back shows it.
            sel = sorted((r for r in mine if r["scheme"] == scheme and r["error_q"] > 0),
                         key=lambda r: -(r["tolerance"] or r["h"]))
            pts = [(r["work"], r["error_q"]) for r in sel]
            if pts:
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], **STYLE[scheme])
        ax.set_title(title)
        ax.set_xlabel("work (one-step solves; RK: stages + Moreau-Jean steps)")
        ax.set_ylabel("L1 grid error of q")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("Precision-work: adaptive Moreau-Jean and event-capturing RK (seed 000 slides 99-117)")
    fig.tight_layout()
    savefig(fig, argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
