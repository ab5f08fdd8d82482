#pragma once
// Granular stepper parameters for the solver tests: one solver, one tolerance, and a sweep budget large enough
// that only the tolerance ends a solve.
#include "engine/granular/GranularStepper.hpp"

namespace talus::granular::test {

inline GranularParameters solver_parameters(GranularSolver solver, double tolerance) {
  GranularParameters p;
  p.solver = solver;
  p.tolerance = tolerance;
  p.max_sweeps = 200000;
  return p;
}

}  // namespace talus::granular::test
