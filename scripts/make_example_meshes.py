#!/usr/bin/env python3
"""Writes the triangle meshes the examples read (examples/meshes/*.stl), so that they can be remade or varied.

  boulder.stl  a closed, irregular rock about 12 cm across: an icosahedron subdivided three times (1280 triangles)
               whose vertices are pushed in and out by a few smooth harmonics of the direction (deterministic);
               examples/mesh_chute.yaml puts it in a chute's flow.

  lifter_drum.obj
               a closed drum (radius 10 cm, 6 cm long, axis y from y = 0) with six lifter bars (1.5 cm tall,
               6 mm thick) along its inner wall: the cylinder, its two end discs and the bars' boxes, 2.6k
               triangles; examples/lifter_drum.yaml turns it.

  blade.obj    a paddle's blade: a plate 1.9 cm long, 5.5 cm tall and 2 mm thick (a closed box, 12 triangles),
               placed where examples/mesh_paddle.yaml's shaft carries it.

Usage: scripts/make_example_meshes.py [--out examples/meshes]
"""
import argparse
import os
import sys

try:
    import numpy as np
except ImportError:  # the machine's first python3 may lack numpy: run again with the system's
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise


def icosphere(levels):
    t = (1 + 5 ** 0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
         (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    v = [np.array(p, float) / np.linalg.norm(p) for p in v]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
         (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
         (8, 6, 7), (9, 8, 1)]
    for _ in range(levels):
        mid = {}

        def midpoint(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                p = v[a] + v[b]
                v.append(p / np.linalg.norm(p))
                mid[key] = len(v) - 1
            return mid[key]

        g = []
        for a, b, c in f:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            g += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = g
    return np.array(v), np.array(f)


def boulder():
    v, f = icosphere(3)
    x, y, z = v.T
    # Smooth bumps: a few low harmonics of the direction, ±20 % of the radius at most.
    bump = 0.08 * x * y + 0.07 * np.sin(3 * z + 1) + 0.05 * np.cos(2 * x - y) + 0.04 * x * z * z
    radius = 0.06 * (1 + bump)
    scale = np.array([1.2, 1.0, 0.8])  # flatter than a ball, longer along the flow
    return v * radius[:, None] * scale, f


def lifter_drum(R=0.1, L=0.06, around=96, rows=6, lifters=6, height=0.015, thickness=0.006):
    """Vertices and triangles of a closed drum about the y axis with lifter bars (each a closed box reaching 1 mm
    beyond the wall, so that it shares no vertex with the drum). Normals point away from the material: into the
    drum, out of each bar (contacts are two-sided; pours use the sense to tell inside from outside)."""
    v, f = [], []
    ring = lambda i, j: i * around + (j % around)
    for i in range(rows + 1):
        y = L * i / rows
        for j in range(around):
            a = 2 * np.pi * j / around
            v.append((R * np.cos(a), y, R * np.sin(a)))
    # The drum's material is outside its wall: its normals point in, towards the beads (a container: negative
    # volume, so that a pour places beads inside it), the bars' out of each bar (solids).
    for i in range(rows):
        for j in range(around):
            f += [(ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)), (ring(i, j), ring(i, j + 1), ring(i + 1, j + 1))]
    for end, y in ((0, 0.0), (rows, L)):
        c = len(v)
        v.append((0.0, y, 0.0))
        for j in range(around):
            tri = (c, ring(end, j + 1), ring(end, j)) if end == 0 else (c, ring(end, j), ring(end, j + 1))
            f.append(tri)
    for k in range(lifters):
        a = 2 * np.pi * (k + 0.5) / lifters
        radial, tangent = np.array([np.cos(a), 0, np.sin(a)]), np.array([-np.sin(a), 0, np.cos(a)])
        base = len(v)
        for r in (R - height, R + 0.001):
            for t in (-thickness / 2, thickness / 2):
                for y in (0.001, L - 0.001):
                    v.append(tuple(r * radial + t * tangent + np.array([0, y, 0])))
        # Corners: index = base + 4 r + 2 t + y (r, t, y in {0, 1}); outward-facing quads as two triangles each.
        idx = lambda r, t, y: base + 4 * r + 2 * t + y
        quads = [(idx(0, 0, 0), idx(0, 0, 1), idx(0, 1, 1), idx(0, 1, 0)),   # inner face (towards the axis)
                 (idx(1, 0, 0), idx(1, 1, 0), idx(1, 1, 1), idx(1, 0, 1)),   # outer face
                 (idx(0, 0, 0), idx(1, 0, 0), idx(1, 0, 1), idx(0, 0, 1)),   # side t = −
                 (idx(0, 1, 0), idx(0, 1, 1), idx(1, 1, 1), idx(1, 1, 0)),   # side t = +
                 (idx(0, 0, 0), idx(0, 1, 0), idx(1, 1, 0), idx(1, 0, 0)),   # end y = 0
                 (idx(0, 0, 1), idx(1, 0, 1), idx(1, 1, 1), idx(0, 1, 1))]   # end y = L
        for q in quads:
            f += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return np.array(v), np.array(f)


def box(lo, hi):
    """A closed box [lo, hi] (12 triangles, normals out of it)."""
    v = [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    idx = lambda i, j, k: 4 * i + 2 * j + k
    quads = [(idx(0, 0, 0), idx(0, 0, 1), idx(0, 1, 1), idx(0, 1, 0)), (idx(1, 0, 0), idx(1, 1, 0), idx(1, 1, 1), idx(1, 0, 1)),
             (idx(0, 0, 0), idx(1, 0, 0), idx(1, 0, 1), idx(0, 0, 1)), (idx(0, 1, 0), idx(0, 1, 1), idx(1, 1, 1), idx(1, 1, 0)),
             (idx(0, 0, 0), idx(0, 1, 0), idx(1, 1, 0), idx(1, 0, 0)), (idx(0, 0, 1), idx(1, 0, 1), idx(1, 1, 1), idx(0, 1, 1))]
    f = []
    for q in quads:
        f += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return np.array(v, float), np.array(f)


def write_obj(path, v, f, name):
    with open(path, "w") as out:
        out.write(f"# {name}: written by scripts/make_example_meshes.py\no {name}\n")
        for p in v:
            out.write(f"v {p[0]:.9g} {p[1]:.9g} {p[2]:.9g}\n")
        for a, b, c in f:
            out.write(f"f {a + 1} {b + 1} {c + 1}\n")


def write_stl(path, v, f, name):
    with open(path, "w") as out:
        out.write(f"solid {name}\n")
        for a, b, c in f:
            n = np.cross(v[b] - v[a], v[c] - v[a])
            n /= np.linalg.norm(n)
            out.write(f"  facet normal {n[0]:.9g} {n[1]:.9g} {n[2]:.9g}\n    outer loop\n")
            for i in (a, b, c):
                out.write(f"      vertex {v[i][0]:.9g} {v[i][1]:.9g} {v[i][2]:.9g}\n")
            out.write("    endloop\n  endfacet\n")
        out.write(f"endsolid {name}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "meshes"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    v, f = boulder()
    path = os.path.join(args.out, "boulder.stl")
    write_stl(path, v, f, "boulder")
    print(f"{path}: {len(f)} triangles, {len(v)} vertices, extent {np.ptp(v, axis=0).round(4)} m")
    v, f = box((0.047, 0.043, 0.004), (0.066, 0.045, 0.059))
    path = os.path.join(args.out, "blade.obj")
    write_obj(path, v, f, "blade")
    print(f"{path}: {len(f)} triangles, {len(v)} vertices, extent {np.ptp(v, axis=0).round(4)} m")
    v, f = lifter_drum()
    path = os.path.join(args.out, "lifter_drum.obj")
    write_obj(path, v, f, "lifter_drum")
    print(f"{path}: {len(f)} triangles, {len(v)} vertices, extent {np.ptp(v, axis=0).round(4)} m")


if __name__ == "__main__":
    main()
