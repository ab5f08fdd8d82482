# The friction-contact solvers from Python: a problem with a known answer, a scipy.sparse matrix in, the same
# problem through every solver, and a granular step and a small-path step dumped as FCLIB and read back.
import re

import numpy as np
import pytest
import scipy.sparse as sp

import talus


def test_one_sliding_contact_has_its_exact_answer():
    # W = I, q = (−1, 0.5, 0), μ = 0.3: the contact closes (u_N = 0, r_N = 1) and slides along +t
    # (u_T = 0.2 e_t), with friction r_T = −μ r_N e_t opposing the slip.
    W = sp.identity(3, format="csr")
    q = np.array([-1.0, 0.5, 0.0])
    for solver in talus.friction_solvers:
        res = talus.solve(W, q, [0.3], solver=solver, tolerance=1e-12)
        assert res["stats"].converged, solver
        np.testing.assert_allclose(res["r"], [1.0, -0.3, 0.0], atol=1e-10, err_msg=solver)
        np.testing.assert_allclose(res["u"], [0.0, 0.2, 0.0], atol=1e-10, err_msg=solver)


def test_solvers_agree_on_a_dumped_granular_step(tmp_path):
    m = talus.Model()
    m.gravity = [0, 0, -9.81]
    m.add_wall([0, 0, 1], [0, 0, 0])
    m.add_lattice([0, 0, 0.0], [3, 3, 6], radius=0.01, spacing=2.05, seed=3)
    sim = talus.Simulation(m, talus.GranularSettings(h=1e-3, tolerance=1e-6))
    sim.run(t_end=0.08, progress=False)
    sim.keep_problem()
    report = sim.step()
    assert report.contacts > 50
    local, glob = tmp_path / "step.hdf5", tmp_path / "step_global.hdf5"
    sim.write_fclib(str(local))
    sim.write_fclib(str(glob), global_form=True)
    p = talus.read_fclib(str(local))
    g = talus.read_fclib(str(glob))  # condensed: the same W and q to round-off
    assert len(p["mu"]) == report.contacts and p["dim"] == 3
    np.testing.assert_allclose(g["q"], p["q"], rtol=1e-9, atol=1e-12)
    assert abs(g["W"] - p["W"]).max() <= 1e-9 * abs(p["W"]).max()
    velocities = []
    for solver in ("nsgs", "apgd", "semismooth_newton"):
        res = talus.solve_fclib(str(local), solver=solver, tolerance=1e-9, max_iterations=20000, record_history=True)
        assert res["residual"] <= 1e-9, solver
        assert len(res["stats"].residual_history) > 0
        velocities.append(res["u"])
    # Different solvers may pick different reactions where the problem is degenerate, but the contact velocities
    # of a converged solution agree (u is unique for a positive definite W).
    for u in velocities[1:]:
        np.testing.assert_allclose(u, velocities[0], atol=1e-6)


def test_bad_problems_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="sizes"):
        talus.solve(sp.identity(3, format="csr"), np.zeros(2), [0.3])
    with pytest.raises(ValueError, match="unknown solver 'pgs'"):
        talus.solve(sp.identity(3, format="csr"), np.zeros(3), [0.3], solver="pgs")
    with pytest.raises(RuntimeError, match="nowhere.hdf5"):
        talus.read_fclib("nowhere.hdf5")


def test_a_small_path_moreau_jean_step_dumped_and_drawn(tmp_path, source_dir):
    # The lattice falling on the FE cantilever (examples/lattice_on_beam.yaml) with 3-D Coulomb friction: a
    # small-path Moreau–Jean step's friction-contact problem, replayed by other solvers, and its ParaView frame.
    scene = talus.load_scene(str(source_dir / "examples" / "lattice_on_beam.yaml"),
                             ["contacts.law.type=newton_friction", "contacts.law.mu=0.3", "contacts.law.dim=3"])
    sim = talus.Simulation(scene)
    sim.step(999)  # thrown off the springing strip, the beads have come to rest on the floor and the strip
    sim.keep_problem()
    report = sim.step()
    local = tmp_path / "step.hdf5"
    sim.write_fclib(str(local), title="lattice on beam")
    p = talus.read_fclib(str(local))
    assert p["dim"] == 3 and len(p["mu"]) == report.active > 3
    for solver in ("nsgs", "apgd"):
        res = talus.solve_fclib(str(local), solver=solver, tolerance=1e-9, max_iterations=50000)
        assert res["residual"] <= 1e-9, solver
    with pytest.raises(ValueError, match="local form only"):
        sim.write_fclib(str(tmp_path / "g.hdf5"), global_form=True)
    # The frame: the bodies, the beam's centreline and the contacts that carried an impulse.
    first = sim.write_vtk(str(tmp_path / "vtk"))
    assert first.endswith("bodies_00000.vtp")
    names = sorted(f.name for f in (tmp_path / "vtk").iterdir())
    assert names == ["beams.pvd", "beams_00000.vtp", "bodies.pvd", "bodies_00000.vtp", "contacts.pvd",
                     "contacts_00000.vtp"]
    text = (tmp_path / "vtk" / "contacts_00000.vtp").read_text()
    pressed = int(re.search(r'NumberOfLines="(\d+)"', text).group(1))
    assert 0 < pressed <= report.active


def test_multilevel_cycle_settings_reach_the_solver():
    # A column of 40 touching beads on the floor, from zero impulses: the multilevel solver carries its exact weights
    # in one cycle after its plain sweeps, so the sweeps are plain_first + pre + post (the bench's own check, docs/
    # stack-height.md); plain Gauss-Seidel needs about 2 000.
    def column():
        m = talus.Model()
        m.gravity = [0, 0, -9.81]
        m.add_wall([0, 0, 1], [0, 0, 0])
        for k in range(40):
            m.add_sphere([0.0, 0.0, 0.01 + 0.02 * k], 0.01)
        return m

    settings = talus.GranularSettings(h=1e-3, tolerance=1e-10, solver="multilevel", multilevel_plain_first=4,
                                      multilevel_pre_sweeps=3, multilevel_post_sweeps=2, multilevel_routing="tree")
    assert settings.multilevel_routing == "tree" and settings.multilevel_pre_sweeps == 3
    report = talus.Simulation(column(), settings).step()
    assert report.cycles == 1 and report.sweeps == 4 + 3 + 2
    default = talus.GranularSettings(h=1e-3, tolerance=1e-10, solver="multilevel")
    assert (default.multilevel_pre_sweeps, default.multilevel_post_sweeps, default.multilevel_plain_first,
            default.multilevel_routing) == (6, 6, 16, "spread")
    report = talus.Simulation(column(), default).step()
    assert report.cycles == 1 and report.sweeps == 16 + 6 + 6
    with pytest.raises(ValueError, match="multilevel_routing"):
        talus.GranularSettings(multilevel_routing="star")
