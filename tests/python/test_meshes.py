# Triangle-mesh walls from Python (Model.add_mesh, add_mesh_file, mesh; issue 14 item 4): the mesh chute example
# built again in Python steps bit for bit as the YAML scene; a mesh from arrays is welded and checked, and a bad
# one raises ValueError naming what is wrong.
import numpy as np
import pytest

import talus


def test_mesh_chute_in_python_equals_the_example_bit_for_bit(source_dir):
    example = source_dir / "examples" / "mesh_chute.yaml"
    a = talus.Simulation(talus.load_scene(str(example)))
    m = talus.Model()
    m.gravity = [4.14588, 0.0, -8.89091]
    m.set_all_laws(mu=0.3, e=0.0)
    m.set_periodic(0, 0.0, 1.2)
    for n, p in [([0, 0, 1], [0, 0, 0]), ([0, 1, 0], [0, 0, 0]), ([0, -1, 0], [0, 0.3, 0])]:
        m.add_wall(normal=n, point=p)
    k = m.add_mesh_file(str(source_dir / "examples" / "meshes" / "boulder.stl"), translation=[0.75, 0.15, 0.015],
                        closed=True)
    m.add_lattice(corner=[0.02, 0.02, 0.0], counts=[20, 12, 3], radius=0.01, density=2500, spacing=2.2, jitter=0.05)
    b = talus.Simulation(m, talus.GranularSettings(h=1e-3, solver="anderson", tolerance=1e-4))
    info = m.mesh(k)
    assert m.mesh_count == 1 and info["triangles"].shape == (1280, 3) and info["boundary_edges"] == 0
    assert info["vertices"].shape == (642, 3)  # welded from the STL's 3 × 1280
    ra, rb = a.step(500), b.step(500)
    assert ra.contacts == rb.contacts
    for field in ("positions", "velocities", "angular_velocities"):
        assert np.array_equal(getattr(a.model, field), getattr(b.model, field)), field
    # The rock was reached: some bead is within one radius of its surface.
    v = info["vertices"]
    d = np.linalg.norm(b.model.positions[:, None, :] - v[None, :, :], axis=2).min()
    assert d < 0.025


def test_mesh_from_arrays_is_welded_and_checked():
    m = talus.Model()
    # Two triangles as a soup (six vertices): welded to four, one shared edge.
    v = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 1, 0], [0, 1, 0]], float)
    k = m.add_mesh(v, np.array([[0, 1, 2], [3, 4, 5]]), name="floor")
    info = m.mesh(k)
    assert info["vertices"].shape == (4, 3) and info["boundary_edges"] == 4 and info["area"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="runs the same way in triangles 0 and 1"):
        m.add_mesh(v, np.array([[0, 1, 2], [1, 2, 5]]))
    with pytest.raises(ValueError, match="degenerate"):
        m.add_mesh(np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0]], float), np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match="is open"):
        m.add_mesh(v, np.array([[0, 1, 2], [3, 4, 5]]), closed=True)
    with pytest.raises(ValueError, match="no such file"):
        m.add_mesh_file("/nonexistent/part.stl")


def test_mesh_conveyor_from_python():
    # A bead dropped on a belt moving at U rolls at 2U/7 (tests/granular/test_moving_mesh.cpp holds the same in C++).
    m = talus.Model()
    m.gravity = [0.0, 0.0, -9.81]
    m.set_all_laws(mu=0.3, e=0.0)
    v = np.array([[-2, -1, 0], [2, -1, 0], [2, 1, 0], [-2, 1, 0]], float)
    k = m.add_mesh(v, np.array([[0, 1, 2], [0, 2, 3]]), name="belt")
    m.set_mesh_motion(k, velocity=[0.5, 0.0, 0.0])
    m.add_sphere([0.0, 0.0, 0.01], radius=0.01, density=2500)
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3, solver="matrix_free", tolerance=1e-12, max_sweeps=100000))
    sim.step(150)
    assert m.velocities[0, 0] == pytest.approx(2 * 0.5 / 7, rel=1e-8)
    with pytest.raises(ValueError, match="no mesh 3"):
        m.set_mesh_motion(3, angular_velocity=1.0)


def test_attach_mesh_to_a_capsule():
    # A plate carried by a free capsule is struck by a bead: the capsule is pushed (its contacts are the plate's).
    m = talus.Model()
    m.set_all_laws(mu=0.3, e=0.5)
    b = m.add_sphere([0.1, 0.01, 0.0], radius=0.005, density=2500, velocity=[-1.0, 0.0, 0.0])
    c = m.add_capsule([0, 0, 0], [0, 0, 1], 0.02, 0.005)
    v = np.array([[0.03, -0.02, -0.02], [0.03, 0.02, -0.02], [0.03, 0.02, 0.02], [0.03, -0.02, 0.02]], float)
    k = m.add_mesh(v, np.array([[0, 1, 2], [0, 2, 3]]), name="plate")
    with pytest.raises(ValueError, match="is not a capsule"):
        m.attach_mesh(k, b)
    m.attach_mesh(k, c)
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3, solver="matrix_free", tolerance=1e-10, max_sweeps=100000))
    sim.step(120)
    assert m.velocities[c, 0] < -0.01
    p = m.masses[b] * m.velocities[b] + m.masses[c] * m.velocities[c]
    assert np.allclose(p, [-m.masses[b], 0, 0], rtol=0, atol=1e-12 * m.masses[b])
