"""Makes `import talus` work for the examples straight after the README's first command: the module is built
into <build>/python (TALUS_BUILD_DIR, default build/ at the repository root). The examples need numpy and
matplotlib; when the python3 running them lacks numpy (a pyenv or virtualenv interpreter earlier on PATH) and
Debian's /usr/bin/python3, for which the module is built, is there, the example is re-run with that one."""
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def setup():
    try:
        import numpy  # noqa: F401
    except ImportError:
        system = "/usr/bin/python3"
        if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system):
            os.execv(system, [system] + sys.argv)
        raise
    try:
        import talus  # noqa: F401
    except ImportError:
        build = pathlib.Path(os.environ.get("TALUS_BUILD_DIR", ROOT / "build"))
        sys.path.insert(0, str(build / "python"))
        try:
            import talus  # noqa: F401,F811
        except ImportError as e:
            sys.exit("cannot import talus (%s): build it first (bash scripts/run-default.sh builds it into %s/python)"
                     % (e, build))
