# The shared FCLIB collection through the module (skipped, as ctest reports it, where ../shared is absent): a
# problem of the collection solved by the three solver families to the same residual.
import talus


def test_rock_pile_through_three_solvers(shared_dir):
    file = shared_dir / "fclib" / "RockPile" / "RockPile_tob1.hdf5"
    p = talus.read_fclib(str(file))
    assert len(p["mu"]) == 463
    res = talus.solve_fclib(str(file), solver="semismooth_newton", tolerance=1e-8)
    assert res["stats"].converged and res["residual"] <= 1e-8
    for solver in ("nsgs", "apgd"):
        r = talus.solve_fclib(str(file), solver=solver, tolerance=1e-4, max_iterations=20000)
        assert r["residual"] <= 1e-4, solver
