# The granular measurements through the module, on packings whose answers are known: a simple cubic and a
# face-centred cubic (hexagonal close) packing give π/6 and π/(3√2) and 6 and 12 touching neighbours; the contact
# list and the stress agree with what the packing's weight implies.
import math

import numpy as np
import pytest

import talus

R = 0.01


def settle_one_step(model):
    sim = talus.Simulation(model, talus.GranularSettings(h=1e-3, tolerance=1e-8))
    sim.step()
    return sim


def test_simple_cubic_packing():
    n = 6
    m = talus.Model()
    # Neighbours overlap by 1e-7 r, so that every touching pair is in contact whatever the round-off of the sites.
    s = 2.0 * (1 - 5e-8)
    for k in range(n):
        for j in range(n):
            for i in range(n):
                m.add_sphere([i * s * R, j * s * R, k * s * R], R)
    # A region of whole cells: exactly (4/3) π / s³ (π/6 at s = 2) whatever its placement.
    region = talus.Region([2 * R, 2 * R, 2 * R], [2 * R + 3 * s * R, 2 * R + 3 * s * R, 2 * R + 3 * s * R])
    assert talus.packing_fraction(m, region) == pytest.approx(4 / 3 * math.pi / s ** 3, rel=1e-9)
    assert talus.packing_fraction(m, region) == pytest.approx(math.pi / 6, rel=1e-6)
    sim = settle_one_step(m)
    c = sim.contacts()
    pairs = 3 * n * n * (n - 1)
    assert len(c) == pairs
    z = talus.coordination(m, c)
    assert z["geometric"] == pytest.approx(2 * pairs / n ** 3, rel=1e-12)  # 6 (n − 1)/n
    assert z["mean"] == 0.0  # no load, no force


def fcc_sites(cells, a):
    base = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]]) * a
    return np.array([base[k] + a * np.array([i, j, l]) for i in range(cells) for j in range(cells)
                     for l in range(cells) for k in range(4)])


def test_face_centred_cubic_packing():
    a = 2 * math.sqrt(2) * R * (1 - 5e-8)  # neighbours overlap by 1e-7 r (see the cubic packing)
    sites = fcc_sites(5, a)
    m = talus.Model()
    for x in sites:
        m.add_sphere(x, R)
    region = talus.Region([a, a, a], [3 * a, 3 * a, 3 * a])
    phi = talus.packing_fraction(m, region)
    assert phi == pytest.approx(16 / 3 * math.pi * R ** 3 / a ** 3, rel=1e-9)
    assert phi == pytest.approx(math.pi / (3 * math.sqrt(2)), rel=1e-6)
    c = settle_one_step(m).contacts()
    d = np.linalg.norm(sites[:, None, :] - sites[None, :, :], axis=2)
    touching = int(np.count_nonzero(np.isclose(d, a / math.sqrt(2), rtol=1e-9))) // 2
    assert len(c) == touching
    z = talus.coordination(m, c)
    assert z["geometric"] == pytest.approx(2 * touching / len(sites), rel=1e-12)
    # An inner bead touches 12 (indices after the step: the beads were re-sorted along a space-filling curve).
    x = m.positions
    inner = np.argmin(np.linalg.norm(x - x.mean(axis=0), axis=1))
    assert np.count_nonzero(c.a == inner) + np.count_nonzero(c.b == inner) == 12


def test_column_weight_and_stress():
    # A column of 10 beads on a floor: after one step the floor carries the weight of all of them, each contact
    # the weight above it, and the Love–Weber stress of the column's box is the weight's integral (σ_zz V = Σ f l).
    m = talus.Model()
    m.gravity = [0, 0, -9.81]
    m.add_wall([0, 0, 1], [0, 0, 0])
    for k in range(10):
        m.add_sphere([0, 0, R + 2 * R * k], R)
    sim = settle_one_step(m)
    c = sim.contacts()
    w = m.masses[0] * 9.81
    fn = np.sort(c.normal_forces)
    np.testing.assert_allclose(fn, w * np.arange(1, 11), rtol=1e-6)
    assert np.max(np.abs(c.tangential_forces)) < 1e-9 * w
    box = talus.Region([-R, -R, 0], [R, R, 20 * R])
    s = talus.love_weber_stress(m, c, box)
    # Σ over beads of f ⊗ branch: each of the 10 beads' contacts contribute (weight above) · r; σ_zz = that / V.
    expected = sum(w * (k + 1) * R + w * k * R for k in range(10)) / box.volume
    assert s[2, 2] == pytest.approx(expected, rel=1e-6)
    ke = talus.kinetic_energy(m)
    assert ke["rotation"] == 0.0 and ke["translation"] >= 0.0
    dist = talus.force_distribution(c, bins=10, max_ratio=2.0)
    assert dist["contacts"] == 10 and dist["mean"] == pytest.approx(5.5 * w, rel=1e-6)


def test_mass_flow_meter_counts_a_falling_bead():
    m = talus.Model()
    m.gravity = [0, 0, -9.81]
    m.add_sphere([0, 0, 0.05], R)
    meter = talus.MassFlowMeter([0, 0, 0], [0, 0, 1])
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3))
    meter.record(m)
    sim.run(t_end=0.2, callback=meter.record, every=10, progress=False)
    assert meter.mass == pytest.approx(m.masses[0], rel=1e-12)
    assert meter.rate == pytest.approx(m.masses[0] / 0.2, rel=1e-9)
