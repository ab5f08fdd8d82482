#!/usr/bin/env python3
"""Draws the work-precision diagrams of bench/mechanisms (seed 002 figure 3): for the slider-crank and the
rocking block, work (F + G + G_q + linear systems) against the error of q(t_end), one curve per DAE integrator
over the tolerances; a third panel shows the event-driven bouncing ball's impact-time errors per tolerance.

Usage: python3 scripts/plot_mechanisms.py RESULTS.json OUT.png   (RESULTS.json from bench/mechanisms --json)
Exit status: 0 figure written, 2 unreadable input, 3 numpy/matplotlib missing.
"""
import json
import sys

from talus_plotting import pyplot, savefig

plt = pyplot("plot_mechanisms.py")

LABELS = {"hem5": "HEM5 (index 2)", "rkf45": "RKF45 (index 1)", "alpha": "generalized-α (index 3)"}
COLORS = {"hem5": "C0", "rkf45": "C1", "alpha": "C2"}  # one colour per integrator across the panels


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plot_mechanisms: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    for ax, mech, title in zip(axes, ["slider_crank", "rocking_block"], ["Slider-crank", "Rocking block"]):
        rows = [r for r in data["mechanisms"] if r["mechanism"] == mech]
        for method in sorted({r["method"] for r in rows}):
            sel = sorted((r for r in rows if r["method"] == method), key=lambda r: -r["tolerance"])
            pts = [(r["error"], r["work"]) for r in sel if r["error"] is not None and r["error"] > 0]
            if pts:
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", color=COLORS.get(method),
                          label=LABELS.get(method, method))
        ax.set_xlabel("error of q(t_end)")
        ax.set_ylabel("work")
        ax.set_title(f"{title}: work-precision")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()

    ax = axes[2]
    ball = data.get("event_time_error", {})
    for m in ball.get("methods", []):
        errs = [e if e and e > 0 else 1e-17 for e in m["max_error"]]
        ax.loglog(m["tolerances"], errs, "o-", color=COLORS.get(m["method"]), label=LABELS.get(m["method"], m["method"]))
    ax.axhline(1e-10, color="k", ls="--", lw=1, label="required 1e-10")
    ax.set_xlabel("integration tolerance")
    ax.set_ylabel("max |t_n - t_n exact|, first 20 impacts")
    ax.set_title("Event-driven bouncing ball: impact times")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()

    fig.tight_layout()
    savefig(fig, argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
