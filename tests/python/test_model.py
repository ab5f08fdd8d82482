# The Python model: numpy views of the engine's memory, a scene built in Python against the same scene read from
# YAML (bitwise), and errors as exceptions with the engine's message.
import numpy as np
import pytest

import talus

TROUGH = """
name: py_trough
gravity: [0.0, 0.0, -9.81]
laws:
  glass: {type: newton_friction, e: 0.0, mu: 0.3, dim: 3}
spheres:
  - {name: boulder, position: [0.0, 0.044, 0.5], radius: 0.02, density: 7800}
lattices:
  - {name: bed, corner: [-0.05, 0.0, 0.05], counts: [5, 4, 6], radius: 0.01, density: 2500,
     spacing: 2.2, jitter: 0.05, seed: 7}
planes:
  - {name: left, normal: [0.573576436, 0.0, 0.819152044], point: [0.0, 0.0, 0.0]}
  - {name: right, normal: [-0.573576436, 0.0, 0.819152044], point: [0.0, 0.0, 0.0]}
  - {name: front, normal: [0.0, 1.0, 0.0], point: [0.0, 0.0, 0.0]}
  - {name: back, normal: [0.0, -1.0, 0.0], point: [0.0, 0.088, 0.0]}
contacts: {detect: true, law: glass}
integrator: {path: large, h: 1.0e-3, t_end: 0.1, solver: anderson, tolerance: 1.0e-4}
"""


def trough_in_python():
    m = talus.Model()
    m.gravity = [0.0, 0.0, -9.81]
    m.set_all_laws(mu=0.3, e=0.0)
    m.add_sphere([0.0, 0.044, 0.5], radius=0.02, density=7800)
    m.add_lattice(corner=[-0.05, 0.0, 0.05], counts=[5, 4, 6], radius=0.01, density=2500, spacing=2.2,
                  jitter=0.05, seed=7)
    for n, p in [([0.573576436, 0.0, 0.819152044], [0, 0, 0]), ([-0.573576436, 0.0, 0.819152044], [0, 0, 0]),
                 ([0.0, 1.0, 0.0], [0, 0, 0]), ([0.0, -1.0, 0.0], [0, 0.088, 0])]:
        m.add_wall(normal=n, point=p)
    settings = talus.GranularSettings(h=1e-3, solver="anderson", tolerance=1e-4)
    return talus.Simulation(m, settings)


def test_views_are_the_engines_memory():
    m = talus.Model()
    i = m.add_sphere([0.0, 0.0, 1.0], radius=0.01)
    x = m.positions
    assert x.shape == (1, 3) and x.base is not None
    x[i, 2] = 2.0  # a write through numpy moves the body
    assert m.positions[i, 2] == 2.0
    v = m.velocities
    v[i] = [1.0, 0.0, 0.0]
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3))
    sim.step(10)
    # free flight: x = x0 + t v, z = z0 − g t²/2 (here g = 0: the model's gravity is zero by default)
    assert m.positions[i, 0] == pytest.approx(10 * 1e-3 * 1.0, rel=1e-12)
    assert x[i, 0] == m.positions[i, 0]  # the earlier view sees the step too
    with pytest.raises(ValueError):
        m.radii[0] = 1.0  # read-only views
    assert m.masses[0] == pytest.approx(2500 * 4 / 3 * np.pi * 1e-6)


def test_python_scene_equals_yaml_scene_bit_for_bit():
    a = talus.Simulation(talus.load_scene_string(TROUGH, "py_trough.yaml"))
    b = trough_in_python()
    assert a.model.body_count == b.model.body_count == 121
    np.testing.assert_array_equal(a.model.positions, b.model.positions)
    ra = a.step(150)
    rb = b.step(150)
    assert ra.contacts > 100 and ra.contacts == rb.contacts and ra.sweeps == rb.sweeps
    for field in ("positions", "velocities", "angular_velocities"):
        assert np.array_equal(getattr(a.model, field), getattr(b.model, field)), field
    np.testing.assert_array_equal(a.model.ids, b.model.ids)


def test_scene_errors_are_exceptions_with_file_line_column():
    bad = TROUGH.replace("tolerance: 1.0e-4", "tolerance: -1")
    with pytest.raises(talus.SceneError) as e:
        talus.load_scene_string(bad, "bad.yaml")
    assert "bad.yaml:" in str(e.value) and "integrator.tolerance" in str(e.value)
    with pytest.raises(talus.SceneError, match=r"nowhere\.yaml"):
        talus.load_scene("nowhere.yaml")
    with pytest.raises(ValueError, match="unknown material 'steel'"):
        talus.Model().add_sphere([0, 0, 0], 0.01, material="steel")
    with pytest.raises(ValueError, match="radius and density must be positive"):
        talus.Model().add_sphere([0, 0, 0], -1.0)
    with pytest.raises(AttributeError, match="unknown setting 'tolerence'"):
        talus.GranularSettings(tolerence=1e-4)


def test_failed_step_raises_and_rolls_back():
    m = talus.Model()
    m.gravity = [0, 0, -9.81]
    m.add_wall([0, 0, 1], [0, 0, 0])
    m.add_lattice([0, 0, 0.011], [4, 4, 4], radius=0.01, spacing=2.0)
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3, max_sweeps=1, tolerance=1e-12, solver="matrix_free"))
    with pytest.raises(talus.StepFailure, match="step"):
        sim.run(t_end=0.2)
    before = m.positions.copy()
    t = m.time
    with pytest.raises(talus.StepFailure):
        sim.step()
    assert m.time == t and np.array_equal(m.positions, before)


def test_run_callback_every_and_stop():
    m = talus.Model()
    m.gravity = [0, 0, -9.81]
    m.add_sphere([0, 0, 1.0], 0.01)
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3))
    times = []
    sim.run(t_end=0.1, callback=lambda s: times.append(s.model.time), every=25, progress=False)
    assert len(times) == 4 and times[-1] == pytest.approx(0.1)
    assert m.positions[0, 2] == pytest.approx(1.0 - 9.81 * 0.1 * 0.1 / 2 - 9.81 * 1e-3 * 0.1 / 2, rel=1e-9)
    sim.run(t_end=0.2, callback=lambda s: False, every=10, progress=False)
    assert m.step == 110


def test_small_path_scene_and_settings(source_dir):
    scene = talus.load_scene(str(source_dir / "examples" / "bouncing_ball.yaml"))
    assert scene.path == "small"
    sim = talus.Simulation(scene)
    r = sim.run(progress=False)
    assert r.time == pytest.approx(scene.t_end, abs=scene.h)
    m = talus.Model()
    m.gravity = [0, 0, -9.81]
    m.add_rigid_sphere([0, 0, 1.0], 0.1)
    sim = talus.Simulation(m, talus.SchemeSettings(scheme="moreau_jean", h=1e-3, theta=0.5))
    sim.run(t_end=0.1, progress=False)
    assert m.positions[0, 2] == pytest.approx(1.0 - 9.81 * 0.1 ** 2 / 2, rel=1e-9)


def test_conical_hopper_in_python_equals_the_example_bit_for_bit(source_dir):
    # examples/conical_hopper.yaml with a smaller pour, built again with the module's builders.
    overrides = {"pours[0].count": 300, "pours[0].region": "[-0.075, -0.075, 0.16, 0.075, 0.075, 0.3]"}
    a = talus.Simulation(talus.load_scene(str(source_dir / "examples" / "conical_hopper.yaml"), overrides))
    m = talus.Model()
    m.gravity = [0.0, 0.0, -9.81]
    m.set_all_laws(mu=0.3, e=0.0)
    m.add_cone(base=[0, 0, 0], axis=[0, 0, 1], height=0.15, radius_bottom=0.03, radius_top=0.116603)
    m.add_cone(base=[0, 0, 0.15], axis=[0, 0, 1], height=0.45, radius_bottom=0.116603, radius_top=0.116603)
    m.add_wall([0, 0, 1], [0, 0, 0], open_at=0.7)
    m.pour([-0.075, -0.075, 0.16], [0.075, 0.075, 0.3], count=300,
           sizes=talus.SizeDistribution.uniform(0.0045, 0.0055), density=2500, seed=3)
    b = talus.Simulation(m, talus.GranularSettings(h=1e-3, solver="anderson", tolerance=1e-4))
    b.set_outflow(below_z=-0.2)
    assert a.model.cone_count == b.model.cone_count == 2
    ra, rb = a.step(200), b.step(200)
    assert ra.contacts > 300 and ra.contacts == rb.contacts
    for field in ("positions", "velocities", "angular_velocities"):
        assert np.array_equal(getattr(a.model, field), getattr(b.model, field)), field
    # A capsule in the hopper meets its cones too.
    m.add_capsule([0, 0, 0.5], [0, 0, 1], 0.01, 0.005)
    b.step(5)


def test_beam_scene_under_generalized_alpha_restarts_bit_for_bit(source_dir, tmp_path):
    # examples/rods_on_beam.yaml (beads, rods, a driven paddle and an FE cantilever) under generalized-α: the beam's
    # a_n and ṽ̇_n are part of the state, so the archive holds them and a continued run keeps the straight run's bits.
    scene = str(source_dir / "examples" / "rods_on_beam.yaml")
    settings = {"integrator.scheme": "generalized_alpha", "integrator.rho_infinity": 0.7}
    a = talus.Simulation(talus.load_scene(scene, settings))
    a.step(100)
    a.write_restart(str(tmp_path / "restart.h5"))
    a.step(60)
    b = talus.Simulation(talus.load_scene(scene, settings))
    b.read_restart(str(tmp_path / "restart.h5"))
    b.step(60)
    for field in ("positions", "velocities", "angular_velocities"):
        assert np.array_equal(getattr(a.model, field), getattr(b.model, field)), field
    assert talus.GranularSettings(rho_infinity=0.5).rho_infinity == 0.5


def test_small_path_scene_restarts_bit_for_bit(source_dir, tmp_path):
    # examples/paddle_beads.yaml (a driven paddle on a revolute joint and 24 detected beads) on the small path, under
    # both schemes: the archive is `talus run`'s (the one layout), so a continued run keeps the straight run's bits.
    scene = str(source_dir / "examples" / "paddle_beads.yaml")
    friction = {"contacts.law.type": "newton_friction", "contacts.law.mu": 0.3, "contacts.law.dim": 3}
    for scheme in ("moreau_jean", "generalized_alpha"):
        # With friction the beads spin: generalized-α's own body-frame ω travels in the archive too.
        settings = {"integrator.scheme": scheme, **friction}
        archive = str(tmp_path / (scheme + ".h5"))
        a = talus.Simulation(talus.load_scene(scene, settings))
        a.step(150)
        a.write_restart(archive)
        a.step(100)
        b = talus.Simulation(talus.load_scene(scene, settings))
        b.read_restart(archive)
        b.step(100)
        assert a.model.time == b.model.time, scheme
        for field in ("positions", "velocities", "angular_velocities", "orientations"):
            assert np.array_equal(getattr(a.model, field), getattr(b.model, field)), (scheme, field)
        assert np.any(a.model.velocities != 0.0), scheme  # the beads are moving
    # The archive names its scene: another scene's is refused, and a model without a scene cannot write one.
    other = talus.Simulation(talus.load_scene(str(source_dir / "examples" / "newtons_cradle.yaml")))
    with pytest.raises(RuntimeError, match="names other systems or interactions"):
        other.read_restart(str(tmp_path / "moreau_jean.h5"))


def test_granular_scene_loaded_with_a_restart_key_continues_bit_for_bit(source_dir, tmp_path):
    # A granular: file whose `restart` key names an archive is restored when it is loaded, with the archive's
    # contact cache (the warm start): stepped on, it keeps the bits of the run that wrote the archive, as
    # `talus run` does. (Before, the loaded scene dropped the cache and its first step started cold.)
    scene = str(source_dir / "examples" / "bead_stack.yaml")
    sets = ["n=64", "t_end=0.2"]
    a = talus.Simulation(talus.load_scene(scene, sets))
    a.step(120)  # the lattice has landed: the cache holds every contact's impulse
    archive = str(tmp_path / "restart.h5")
    a.write_restart(archive)
    a.step(30)
    b = talus.Simulation(talus.load_scene(scene, sets + ["restart=" + archive]))
    b.step(30)
    for field in ("positions", "velocities", "angular_velocities"):
        assert np.array_equal(getattr(a.model, field), getattr(b.model, field)), field
