# The loads on the obstacles through the module (engine/analysis/ObstacleLoads.hpp): the trough of test_model.py,
# whose planes carry names. Over any run of steps the planes' impulses are M g T − ΔP of the bodies (every other
# impulse is between two bodies), and their names and kinds are the scene's.
import numpy as np
import pytest

import talus
from test_model import TROUGH, trough_in_python


def momentum(model):
    return (model.masses[:, None] * model.velocities).sum(axis=0)


def test_planes_take_the_bodies_momentum_and_keep_their_names():
    sim = talus.Simulation(talus.load_scene_string(TROUGH, "py_trough.yaml"))
    m = sim.model
    before = sim.obstacle_loads()
    assert [o["name"] for o in before] == ["left", "right", "front", "back"]
    assert all(o["kind"] == "plane" and o["seconds"] == 0.0 for o in before)
    p0 = momentum(m)
    sim.step(200)
    loads = sim.obstacle_loads()  # means over the 200 steps, then a new sum
    seconds = loads[0]["seconds"]
    assert seconds == pytest.approx(0.2, rel=1e-12)
    impulse = sum(o["force"] for o in loads) * seconds
    mass = m.masses.sum()
    expected = mass * np.array([0.0, 0.0, -9.81]) * seconds - (momentum(m) - p0)
    assert np.linalg.norm(impulse - expected) <= 1e-9 * mass * 9.81 * seconds
    # The V's two sides are pushed down and apart, symmetric about x = 0 up to the bed's jitter.
    assert loads[0]["force"][2] < 0 and loads[1]["force"][2] < 0
    assert loads[0]["force"][0] < 0 < loads[1]["force"][0]
    assert sim.obstacle_loads()[0]["seconds"] == 0.0  # reset by the call before
    # The planes are bodies of the store, after the 121 dynamic ones, which the views and len() keep to.
    assert len(m) == m.body_count == 121 and m.positions.shape == (121, 3) and m.masses.shape == (121,)
    bodies = m.obstacles
    assert [(o["kind"], o["index"]) for o in bodies] == [("plane", k) for k in range(4)]
    np.testing.assert_allclose(bodies[3]["position"], [0.0, 0.088, 0.0], atol=1e-15)  # the back plane's point
    assert bodies[0]["velocity"] == [0.0, 0.0, 0.0]
    # Their force is the last step's load: with the one above, their sum is the step's momentum balance.
    assert sum(np.array(o["force"]) for o in bodies)[2] < 0
    # A model built in Python has no names: the kinds' labels.
    unnamed = trough_in_python()
    unnamed.step(1)
    assert [o["name"] for o in unnamed.obstacle_loads()] == ["plane0", "plane1", "plane2", "plane3"]


def test_small_path_has_no_obstacle_loads(source_dir):
    sim = talus.Simulation(talus.load_scene(str(source_dir / "examples" / "bouncing_ball.yaml")))
    with pytest.raises(ValueError, match="obstacle_loads"):
        sim.obstacle_loads()
