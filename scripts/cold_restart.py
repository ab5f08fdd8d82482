#!/usr/bin/env python3
"""Copy a granular restart archive with every cached contact impulse set to zero (and, unless --keep-velocities, every
bead at rest): the next step of `talus run --restart` then solves the pile's contact problem from a cold start.

Issue 10's target "a settled pack solved to 1e-4 from a cold start": settle a pile, make its archive cold, and run
one step with each solver (docs/stack-height.md, "A settled pile from a cold start").

    python3 scripts/cold_restart.py out/bead_stack/restart.h5 /tmp/cold.h5
    build/talus run examples/bead_stack.yaml --restart /tmp/cold.h5 --t-end 0.801 --set solver=anderson --out /tmp/cold_anderson
"""
import argparse
import shutil
import sys

import h5py


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", help="restart.h5 of a granular run (one file, not a partitioned run's index)")
    ap.add_argument("out", help="the cold copy to write")
    ap.add_argument("--keep-velocities", action="store_true", help="keep the beads' velocities (impulses only zeroed)")
    a = ap.parse_args()
    try:
        with h5py.File(a.archive, "r") as f:
            for name in ("contacts/cache/impulses", "beads/v", "beads/w"):
                if name not in f:
                    sys.exit(f"{a.archive}: no dataset '{name}': not a one-file granular restart archive")
    except OSError as e:
        sys.exit(f"{a.archive}: {e}")
    shutil.copyfile(a.archive, a.out)
    with h5py.File(a.out, "r+") as f:
        f["contacts/cache/impulses"][...] = 0.0
        if not a.keep_velocities:
            f["beads/v"][...] = 0.0
            f["beads/w"][...] = 0.0
        print(f"{a.out}: {f['contacts/cache/impulses'].shape[0]} cached impulses zeroed, "
              f"{f['beads/v'].shape[0]} beads {'moving as before' if a.keep_velocities else 'at rest'}")


if __name__ == "__main__":
    main()
