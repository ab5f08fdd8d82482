#!/usr/bin/env python3
"""Draws the figures of bench/schemes (issue 5) from the CSV files it writes with --figures DIR:

  two_ball_energy.png   mechanical energy of the two-ball oscillator, every scheme (seed 000 slides 66-68)
  bar_position.png      height of the lower end of the impacting elastic bar vs the exact solution (seed 004)
  bar_pressure.png      contact pressure at the lower end vs the exact solution
  bar_energy.png        energy of the bar (the exact solution conserves it)
  pendulum_drift.png    drift of the bilateral constraints of the bouncing pendulum (log scale)
  rotating_beam_energy.png  mechanical energy of the rotating beam striking its stop, every scheme (seed 000 fig. 10)
  rotating_beam_tip.png     angle of the beam's tip about the hinge (the stop is at pi/4)

Usage: scripts/plot_schemes.py DIR   (reads DIR/*.csv, writes DIR/*.png)
"""
import csv
import os
import sys

from talus_plotting import pyplot, savefig

plt = pyplot("plot_schemes.py")


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, data = rows[0], rows[1:]
    columns = {name: [float(r[i]) for r in data] for i, name in enumerate(header)}
    return header, columns


def line_plot(directory, name, title, ylabel, logy=False, reference="exact"):
    header, c = read(os.path.join(directory, name + ".csv"))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for column in header[1:]:
        style = dict(color="black", linewidth=2.0, linestyle="--") if column == reference else dict(linewidth=1.0)
        values = c[column]
        if logy:
            values = [max(v, 1e-17) for v in values]
        ax.plot(c["t"], values, label=column, **style)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("t [s]")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    savefig(fig, os.path.join(directory, name + ".png"), dpi=120)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    line_plot(d, "two_ball_energy", "Two-ball oscillator: mechanical energy (h = 2e-3)", "E [J]")
    line_plot(d, "bar_position", "Impacting elastic bar: height of the lower end", "x_b [m]")
    line_plot(d, "bar_pressure", "Impacting elastic bar: contact pressure at the lower end", "p [Pa]")
    line_plot(d, "bar_energy", "Impacting elastic bar: energy", "E [J]")
    line_plot(d, "pendulum_drift", "Bouncing pendulum: bilateral constraint drift", "|g|, |dg/dt|", logy=True)
    line_plot(d, "rotating_beam_energy", "Rotating beam striking a stop (e = 0): mechanical energy", "E [J]")
    line_plot(d, "rotating_beam_tip", "Rotating beam striking a stop: tip angle about the hinge", "angle [rad]")


if __name__ == "__main__":
    main()
