#!/usr/bin/env python3
"""Draws the figures of a talus run: positions, velocities, reactions and energy, as PNG files in the run's
directory (positions.png, velocities.png, reactions.png, energy.png).

Usage: python3 scripts/plot_run.py DIR     (DIR holds the timeseries.csv written by `talus run`)

It reads the CSV (the HDF5 file holds the same numbers) and groups columns by their names (apps/TimeSeries.hpp):
<system>.q<i> are coordinates (for rigid bodies q3..q6 are the orientation quaternion, not drawn), <system>.v<i> velocities, <interaction>.P<r> impulses of the step, and the
energy columns are kinetic, potential, total and the cumulated works. Exit status: 0 figures written,
2 unreadable run, 3 numpy/matplotlib missing.
"""
import json
import os
import re
import sys

from talus_plotting import pyplot, savefig

plt = pyplot("plot_run.py")
import numpy as np  # noqa: E402  (installed with matplotlib)

MAX_CURVES = 24  # beyond this a figure is unreadable: plot the first ones and say so


def read_run(directory):
    path = os.path.join(directory, "timeseries.csv")
    with open(path) as f:
        columns = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.shape[0] == 0 or data.shape[1] != len(columns):
        raise ValueError(f"{path}: expected rows of {len(columns)} values")
    return columns, data


def select(columns, pattern):
    rx = re.compile(pattern)
    return [i for i, c in enumerate(columns) if rx.search(c)]


def rigid_orientations(columns):
    """Quaternion columns of rigid bodies (7 coordinates and 6 velocities: q3..q6 are w, x, y, z)."""
    counts = {}
    for c in columns:
        m = re.match(r"(.*)\.([qv])\d+$", c)
        if m:
            key = (m.group(1), m.group(2))
            counts[key] = counts.get(key, 0) + 1
    rigid = {name for (name, kind), n in counts.items() if kind == "q" and n == 7 and counts.get((name, "v")) == 6}
    return {f"{name}.q{i}" for name in rigid for i in range(3, 7)}


def varying(data, indices):
    """The columns that change during the run; constant ones would only crowd the figure."""
    return [i for i in indices if np.ptp(data[:, i]) > 0.0]


def plot_group(ax, t, data, columns, indices, ylabel):
    for i in indices[:MAX_CURVES]:
        ax.plot(t, data[:, i], label=columns[i], linewidth=1.0)
    if len(indices) > MAX_CURVES:
        ax.set_title(f"first {MAX_CURVES} of {len(indices)} columns", fontsize=9)
    if not indices:
        ax.text(0.5, 0.5, "none in this run", transform=ax.transAxes, ha="center", va="center")
    ax.set_xlabel("t [s]")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if indices:
        ax.legend(fontsize=7, ncol=max(1, min(4, len(indices[:MAX_CURVES]) // 8 + 1)), loc="best")


def save(fig, directory, name):
    fig.tight_layout()
    savefig(fig, os.path.join(directory, name), dpi=120)
    plt.close(fig)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 0 if len(argv) == 2 else 2
    directory = argv[1]
    try:
        columns, data = read_run(directory)
    except (OSError, ValueError) as e:
        print(f"plot_run.py: cannot read the run: {e}", file=sys.stderr)
        return 2
    t = data[:, columns.index("t")]
    scene = os.path.basename(os.path.normpath(directory))
    try:
        with open(os.path.join(directory, "run.json")) as f:
            scene = json.load(f).get("scene", scene)
    except (OSError, ValueError):
        pass  # the figures only lose their title

    orientations = rigid_orientations(columns)
    for name, pattern, ylabel in (("positions.png", r"\.q\d+$", "coordinates q"),
                                  ("velocities.png", r"\.v\d+$", "velocities v")):
        fig, ax = plt.subplots(figsize=(9, 5))
        candidates = [i for i in select(columns, pattern) if columns[i] not in orientations]
        shown = varying(data, candidates)
        plot_group(ax, t, data, columns, shown, ylabel)
        note = f" ({len(candidates) - len(shown)} constant columns not shown)" if len(shown) < len(candidates) else ""
        ax.set_title(f"{scene}: {ylabel}{note}", loc="left")
        save(fig, directory, name)

    fig, (ax_p, ax_g) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    plot_group(ax_p, t, data, columns, varying(data, select(columns, r"\.P\d+$")), "impulse P of the step")
    ax_p.set_title(f"{scene}: reactions (impulse per step; force ≈ P / h)", loc="left")
    plot_group(ax_g, t, data, columns, select(columns, r"\.gap$"), "normal gap g")
    save(fig, directory, "reactions.png")

    fig, ax = plt.subplots(figsize=(9, 5))
    energy = [columns.index(c) for c in ("kinetic", "potential", "total", "external_work") if c in columns]
    plot_group(ax, t, data, columns, energy, "energy [J]")
    if "total" in columns and "external_work" in columns:
        balance = data[:, columns.index("total")] - data[0, columns.index("total")] \
            - data[:, columns.index("external_work")]
        ax.plot(t, balance, "k--", linewidth=1.0, label="total − total(0) − external_work (dissipated)")
        ax.legend(fontsize=7, loc="best")
    ax.set_title(f"{scene}: energy", loc="left")
    save(fig, directory, "energy.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
