# Particle sets from files and arrays (issue 14 item 3): an HDF5 file written with h5py and a CSV give the same
# beads through the scene key `particles:` and through Model.add_particles, and numpy arrays through add_spheres.
import h5py
import numpy as np
import pytest

import talus

SCENE = """
gravity: [0, 0, -9.81]
laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}
contacts: {detect: true, law: glass}
planes: [{name: floor, normal: [0, 0, 1], offset: 0}]
particles: [{name: pack, file: %s, density: 2500}]
integrator: {path: large, h: 1.0e-3, t_end: 0.01}
"""


def packing(n=50, seed=4):
    rng = np.random.default_rng(seed)
    x = np.column_stack([np.arange(n) * 0.025, rng.uniform(0, 0.01, n), rng.uniform(0.02, 0.05, n)])
    r = rng.uniform(0.008, 0.011, n)
    v = rng.normal(0, 0.1, (n, 3))
    return x, r, v


def test_hdf5_csv_and_arrays_give_the_same_beads(tmp_path):
    x, r, v = packing()
    with h5py.File(tmp_path / "pack.h5", "w") as f:
        f["x"], f["radius"], f["v"] = x, r, v
    with open(tmp_path / "pack.csv", "w") as f:
        f.write("x,y,z,radius,vx,vy,vz\n")
        for i in range(len(r)):
            f.write(",".join(repr(float(a)) for a in (*x[i], r[i], *v[i])) + "\n")
    models = [talus.load_scene_string(SCENE % (tmp_path / name), "p.yaml").model for name in ("pack.h5", "pack.csv")]
    m = talus.Model()
    m.add_particles(str(tmp_path / "pack.h5"))
    models.append(m)
    m = talus.Model()
    m.add_spheres(x, r, velocities=v)
    models.append(m)
    for m in models:
        assert m.sphere_count == len(r)
        np.testing.assert_array_equal(m.positions, x)
        np.testing.assert_array_equal(m.radii, r)
        np.testing.assert_array_equal(m.velocities, v)


def test_bad_files_and_arrays_are_refused(tmp_path):
    x, r, v = packing(5)
    with h5py.File(tmp_path / "short.h5", "w") as f:
        f["x"], f["radius"] = x, r[:4]
    with pytest.raises(talus.SceneError, match=r"short\.h5: dataset radius: 4 rows, x has 5"):
        talus.load_scene_string(SCENE % (tmp_path / "short.h5"), "p.yaml")
    with h5py.File(tmp_path / "flat.h5", "w") as f:
        f["x"], f["radius"] = x.ravel(), r
    with pytest.raises(RuntimeError, match=r"dataset x: has the wrong shape"):
        talus.Model().add_particles(str(tmp_path / "flat.h5"))
    with pytest.raises(ValueError, match="radii has 4 entries for 5 centres"):
        talus.Model().add_spheres(x, r[:4])
