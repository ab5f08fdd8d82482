#pragma once
// Granular stepper parameters for the solver tests: one solver, one tolerance, and a sweep budget large enough
// that only the tolerance ends a solve.
#include <catch2/catch.hpp>

#include <cstdint>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

namespace talus::granular::test {

inline GranularParameters solver_parameters(GranularSolver solver, double tolerance) {
  GranularParameters p;
  p.solver = solver;
  p.tolerance = tolerance;
  p.max_sweeps = 200000;
  return p;
}

// The state hashes after 120 steps of an 8 × 8 × 6 lattice collapse under `p` with 1 and 2 threads and four sweep
// blocks (interior blocks and interface colours, as at 10⁴ beads and more): equal when the solve is deterministic.
inline void require_thread_count_independent(GranularParameters p) {
  std::uint64_t hash[2];
  for (int t = 0; t < 2; ++t) {
    GranularScene sc = lattice_stack(BeadSpec{}, 8, 6);
    p.threads = t + 1;
    p.partitions = 4;
    GranularStepper s(sc.model, p);
    for (int k = 0; k < 120; ++k) REQUIRE(s.step().solver.converged());
    hash[t] = state_hash(sc.model.bodies);
  }
  CHECK(hash[0] == hash[1]);
}

}  // namespace talus::granular::test
