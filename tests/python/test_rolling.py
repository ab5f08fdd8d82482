"""Rolling resistance from Python: Model.set_law(..., rolling_friction=μ_r) (docs/python.md)."""
import math

import pytest
import talus

R = 0.01


def test_a_rolling_bead_decelerates_at_five_sevenths_mu_r_g_and_stops():
    # A bead rolling without slipping on a level floor: the rolling torque μ_r R N brakes it at (5/7) μ_r g.
    m = talus.Model()
    m.gravity = [0, 0, -9.81]
    m.add_wall([0, 0, 1], [0, 0, 0])
    m.add_sphere([0, 0, R], R, velocity=[0.1, 0, 0])
    m.angular_velocities[0] = [0, 0.1 / R, 0]
    m.set_law("bead", "wall", mu=0.5, rolling_friction=0.05)
    assert m.rolling_friction("bead", "wall") == 0.05
    assert m.rolling_friction("bead", "bead") == 0.0
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3, solver="matrix_free", tolerance=1e-10))
    sim.step(100)
    decel = 5.0 / 7.0 * 0.05 * 9.81
    assert m.velocities[0][0] == pytest.approx(0.1 - decel * 0.1, rel=1e-6)
    sim.step(400)
    assert abs(m.velocities[0][0]) < 1e-9
    assert m.positions[0][0] == pytest.approx(0.1**2 / (2 * decel), rel=0.02)


def test_bad_rolling_friction_is_refused():
    m = talus.Model()
    with pytest.raises(ValueError, match="rolling_friction"):
        m.set_law("bead", "wall", mu=0.3, rolling_friction=-1.0)
    with pytest.raises(ValueError, match="rolling_friction"):
        m.set_all_laws(mu=0.3, rolling_friction=math.nan)
