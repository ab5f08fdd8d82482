"""Talus: nonsmooth contact dynamics from Python (docs/python.md).

The compiled core (talus._talus) wraps the engine's one model, its integrators, the granular measurements and
the friction-contact solvers; this file adds the run loop with its progress line.

    import talus
    scene = talus.load_scene("examples/bead_stack.yaml", {"n": 500, "t_end": 0.2})
    sim = talus.Simulation(scene)
    sim.run(callback=lambda s: print(s.model.time, talus.kinetic_energy(s.model)), every=50)
    print(talus.packing_fraction(sim.model, talus.bulk_region(sim.model)))
"""
import math as _math
import sys as _sys
import time as _time

from talus._talus import *  # noqa: F401,F403
from talus._talus import Simulation, __version__  # noqa: F401


class _Progress:
    """One line on stderr, rewritten in place on a terminal and printed every 5 s otherwise."""

    def __init__(self, sim, t_end, enabled):
        self.sim, self.t_end, self.enabled = sim, t_end, enabled
        self.tty = enabled and _sys.stderr.isatty()
        self.start = self.last = _time.monotonic()
        self.t0 = sim.model.time
        self.shown = False

    def update(self, report, force=False):
        if not self.enabled:
            return
        now = _time.monotonic()
        if not force and now - self.last < (1.0 if self.tty else 5.0):
            return
        self.last = now
        t = self.sim.model.time
        done = (t - self.t0) / max(self.t_end - self.t0, 1e-300)
        elapsed = now - self.start
        left = elapsed * (1.0 - done) / done if done > 0 else float("nan")
        line = "t = %.4f / %.4f s  %3.0f %%  %d bodies" % (t, self.t_end, 100.0 * done, self.sim.model.body_count)
        if report is not None:
            line += "  %d sweeps  residual %.1e" % (report.sweeps, report.residual)
            if hasattr(report, "contacts"):
                line += "  %d contacts" % report.contacts
        line += "  elapsed %.0f s" % elapsed
        if _math.isfinite(left) and done < 1.0:
            line += "  left %.0f s" % left
        if self.tty:
            _sys.stderr.write("\r" + line + "\033[K")
        else:
            _sys.stderr.write(line + "\n")
        _sys.stderr.flush()
        self.shown = True

    def close(self):
        if self.tty and self.shown:
            _sys.stderr.write("\n")
            _sys.stderr.flush()


def _run(self, t_end=None, callback=None, every=1, progress=None):
    """Steps until t_end (default: the scene's end time), calling callback(sim) every `every` steps and after the
    last one. A callback that returns False stops the run. progress: a line on stderr with time, sweeps and time
    left (default: on for runs of more than 1000 steps). Returns the last step's report (None if no step was
    taken). A failed step raises talus.StepFailure with the model left at the last good state."""
    if t_end is None:
        t_end = self.t_end
    if not t_end > 0.0:
        raise ValueError("run(t_end): give the end time (this simulation has no scene end time)")
    every = int(every)
    if every < 1:
        raise ValueError("run(every): expected an integer >= 1")
    h = self.h
    # Fixed-step schemes take floor((t_end - t) / h) steps (to a relative 1e-9), as `talus run` does; adaptive and
    # event-driven ones step until the time is reached.
    steps = int(_math.floor((t_end - self.model.time) / h * (1.0 + 1e-12) + 1e-9))
    if progress is None:
        progress = steps > 1000
    bar = _Progress(self, t_end, progress)
    report = None
    taken = 0
    try:
        while taken < steps and self.model.time < t_end - 1e-9 * h:
            n = min(every, steps - taken)
            report = self.step(n)
            taken += n
            bar.update(report)
            if callback is not None and callback(self) is False:
                break
        bar.update(report, force=True)
    finally:
        bar.close()
    return report


Simulation.run = _run
