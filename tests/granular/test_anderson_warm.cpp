// GranularParameters::anderson_warm (issue 10; docs/stack-height.md, "Plain sweeps for a good warm start"): the
// Anderson solver sweeps plainly through a step whose warm start is already within anderson_warm times the
// tolerance. What it cannot fake: such a step is then exactly the plain solver's step (the same sweeps, the same
// velocities bit for bit), a step whose warm start is further off is still extrapolated (it differs from the
// plain one), and both reach the tolerance.
#include <catch2/catch.hpp>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/granular/SolverTestParameters.hpp"

using namespace talus::granular;

using test::solver_parameters;

namespace {

struct Step {
  bool contacts = false;  // the step had contacts (a step without any is solved without a residual check)
  int sweeps = 0;
  double warm_residual = 0.0;
  std::uint64_t hash = 0;
};

// One step from `state` with the cache of `from`, by `solver`, recording the warm start's residual.
Step step_from(const talus::Model& state, GranularStepper& from, GranularSolver solver, double warm) {
  talus::Model m = state;
  GranularParameters p = solver_parameters(solver, 1e-4);
  p.anderson_warm = warm;
  p.record_history = true;
  GranularStepper s(m, p);
  s.contact_cache() = from.contact_cache();
  const GranularStepReport& r = s.step();
  REQUIRE(r.solver.converged());
  if (r.contacts == 0) return {};
  REQUIRE(!s.residual_history().empty());
  REQUIRE(s.residual_history().front().sweeps == 0);
  return {true, static_cast<int>(r.solver.counters.sweeps), s.residual_history().front().residual, state_hash(m.bodies)};
}

}  // namespace

TEST_CASE("anderson_warm: a good warm start is swept plainly, a poor one is extrapolated") {
  // A 4 × 4 × 8 lattice collapses and settles; every 10 steps the next step is taken by plain NSGS and by Anderson
  // with anderson_warm = 3 from the same state and warm start.
  BeadSpec spec;
  GranularScene sc = lattice_stack(spec, 4, 8);
  GranularStepper run(sc.model, solver_parameters(GranularSolver::Anderson, 1e-4));
  int plain_steps = 0, extrapolated_steps = 0;
  for (int step = 1; step <= 400; ++step) {
    if (step % 10 == 0) {
      const Step plain = step_from(sc.model, run, GranularSolver::MatrixFree, 0.0);
      const Step anderson = step_from(sc.model, run, GranularSolver::Anderson, 3.0);
      INFO("step " << step << ": warm-start residual " << plain.warm_residual << ", sweeps plain " << plain.sweeps
                   << ", anderson " << anderson.sweeps);
      REQUIRE(anderson.contacts == plain.contacts);
      CHECK(anderson.warm_residual == plain.warm_residual);
      if (plain.contacts && plain.warm_residual <= 3.0 * 1e-4) {
        ++plain_steps;
        CHECK(anderson.sweeps == plain.sweeps);
        CHECK(anderson.hash == plain.hash);
      } else if (plain.contacts && anderson.sweeps > 4) {
        // Extrapolation starts after the 4th sweep: a step solved in fewer is the plain step either way.
        ++extrapolated_steps;
        CHECK(anderson.hash != plain.hash);
      }
    }
    REQUIRE(run.step().solver.converged());
  }
  INFO("plain steps " << plain_steps << ", extrapolated steps " << extrapolated_steps);
  CHECK(plain_steps > 0);
  CHECK(extrapolated_steps > 0);
}
