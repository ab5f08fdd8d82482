#pragma once
// Settings every iterative one-step solver shares; each solver's own parameter struct derives from this one
// (typed settings with units and defaults, never integer-indexed option arrays: STYLE.md).
namespace talus::solvers {

struct SolverParameters {
  double tolerance = 1e-8;        // on the problem family's common residual measure
  int max_iterations = 10000;     // sweeps / outer iterations
  double time_cap_seconds = 0.0;  // stop with MaxIterations once exceeded; 0 = no cap
  bool record_history = false;    // fill SolverStats::residual_history
};

}  // namespace talus::solvers
