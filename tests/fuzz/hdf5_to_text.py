#!/usr/bin/python3
"""Writes an HDF5 file as the text the FCLIB and restart harnesses read (tests/fuzz/src/Hdf5Text.hpp), to seed
their corpus from real files: tests/fuzz/hdf5_to_text.py FILE.hdf5 > tests/fuzz/corpus/fclib/NAME.txt
Needs h5py (Debian python3-h5py)."""
import sys

import h5py
import numpy as np


def main(path):
    lines = []

    def visit(name, obj):
        full = "/" + name
        if isinstance(obj, h5py.Group):
            lines.append(f"{full} g")
            return
        data = obj[()]
        if obj.dtype.kind in "SUO":
            text = data.decode() if isinstance(data, bytes) else str(data)
            lines.append(f"{full} s {text.splitlines()[0] if text else ''}")
            return
        kind = {"i": "i" if obj.dtype.itemsize <= 4 else "l", "u": "l" if obj.dtype.itemsize <= 4 else "u", "f": "d" if obj.dtype.itemsize == 8 else "f"}
        t = kind.get(obj.dtype.kind)
        if t is None:
            return
        values = np.asarray(data).ravel()
        shape = "x".join(str(d) for d in obj.shape)
        spec = f"{t}:{shape}" if obj.ndim > 1 else t
        text = " ".join(repr(float(v)) if t in "df" else str(int(v)) for v in values)
        lines.append(f"{full} {spec} {text}".rstrip())

    with h5py.File(path, "r") as f:
        f.visititems(visit)
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
