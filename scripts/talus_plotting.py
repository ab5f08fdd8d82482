"""Finds a Python with matplotlib for the plotting scripts, and writes figures atomically.

Debian installs python3-matplotlib for the system interpreter (/usr/bin/python3), while the python3 first on
PATH may be another one (a virtualenv, pyenv, conda) without it. `pyplot(name)` imports matplotlib.pyplot
(Agg backend, files only); when that fails it re-runs the calling script once under the system interpreter
(or $TALUS_PYTHON, as apps/PythonInterpreter.hpp does), and when that fails too it prints how to install
matplotlib and exits with status 3. `savefig(fig, path)` writes through a temporary name and a rename, so a
figure is either the old file or the whole new one (a killed plot leaves no half-written PNG).
"""
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
MISSING_STATUS = 3


def _candidates():
    seen = {os.path.realpath(sys.executable)}
    for python in (os.environ.get("TALUS_PYTHON"), SYSTEM_PYTHON):
        if python and os.path.exists(python) and os.path.realpath(python) not in seen:
            seen.add(os.path.realpath(python))
            yield python


def pyplot(name):
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt

        return plt
    except ImportError as missing:
        if not os.environ.get("TALUS_PLOT_RETRIED"):
            for python in _candidates():
                os.environ["TALUS_PLOT_RETRIED"] = "1"
                os.execv(python, [python] + sys.argv)
        print(f"{name}: {missing} under {sys.executable}; install matplotlib "
              "(Debian: apt-get install python3-matplotlib python3-numpy, or run scripts/install-deps.sh), "
              "or set TALUS_PYTHON to a Python that has it", file=sys.stderr)
        sys.exit(MISSING_STATUS)


def savefig(fig, path, **kwargs):
    directory, base = os.path.split(path)
    tmp = os.path.join(directory, "." + base + ".partial")
    root, ext = os.path.splitext(base)
    kwargs.setdefault("format", ext.lstrip(".") or "png")
    try:
        fig.savefig(tmp, **kwargs)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
