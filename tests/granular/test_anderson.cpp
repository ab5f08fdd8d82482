// The Anderson-accelerated sweep (solvers/matrixfree/AndersonSweep.hpp, issue 10) against what it cannot fake: a
// column's exact weights reached from zero reactions; the same step solved by plain NSGS (the velocities agree
// to the tolerance); fewer sweeps than plain NSGS on the same settling steps (the sweep counts are
// deterministic, so the ratio is a property of the code, not of the machine); and the same state for 1 and 2
// threads with several sweep blocks and interface colours.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/granular/SolverTestParameters.hpp"

using namespace talus::granular;

using test::require_thread_count_independent;
using test::solver_parameters;

TEST_CASE("anderson: a ten-bead column carries its exact weights, in fewer sweeps than plain NSGS") {
  BeadSpec spec;
  int sweeps[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const GranularSolver solver = k == 0 ? GranularSolver::MatrixFree : GranularSolver::Anderson;
    GranularScene sc = bead_column(spec, 10);
    GranularParameters p = solver_parameters(solver, 1e-10);
    p.resort_every = 0;  // beads stay in column order, bottom first
    GranularStepper s(sc.model, p);
    const GranularStepReport& r = s.step();
    REQUIRE(r.solver.converged());
    sweeps[k] = r.solver.counters.sweeps;
    const double w = sc.model.bodies.mass[0] * 9.81 * p.h;
    for (const SweepContact& c : s.contacts()) {
      // The contact under bead j (the floor's when a < 0) carries the ten − j beads above it, itself included.
      const int below = c.a < 0 ? 10 : 10 - c.b;
      INFO("contact " << c.a << "–" << c.b);
      CHECK(c.r[0] == Approx(below * w).epsilon(1e-7));
      CHECK(std::hypot(c.r[1], c.r[2]) < 1e-12 * w);
    }
  }
  INFO("sweeps: plain " << sweeps[0] << ", anderson " << sweeps[1]);
  CHECK(sweeps[1] * 3 < sweeps[0]);
}

TEST_CASE("anderson: fewer sweeps than plain NSGS on the same settling steps, with the same answer") {
  // A 4 × 4 × 8 lattice collapses and settles; from states along the plain trajectory each solver takes the
  // same next step (same warm start), to 1e-4 as the runs do, and to 1e-9 for the answer (velocities within 1e-8
  // m/s: the residual bounds the velocity error of each contact, summed over the ~500 contacts).
  BeadSpec spec;
  GranularScene sc = lattice_stack(spec, 4, 8);
  GranularStepper plain(sc.model, solver_parameters(GranularSolver::MatrixFree, 1e-4));
  long total[2] = {0, 0};
  for (int step = 1; step <= 200; ++step) {
    if (step % 25 == 0) {
      talus::Model copies[2] = {sc.model, sc.model};
      for (int k = 0; k < 2; ++k) {
        const GranularSolver solver = k == 0 ? GranularSolver::MatrixFree : GranularSolver::Anderson;
        GranularStepper s(copies[k], solver_parameters(solver, 1e-4));
        s.contact_cache() = plain.contact_cache();
        const GranularStepReport& r = s.step();
        REQUIRE(r.solver.converged());
        total[k] += r.solver.counters.sweeps;
      }
      talus::Model tight[2] = {sc.model, sc.model};
      double worst = 0.0;
      for (int k = 0; k < 2; ++k) {
        const GranularSolver solver = k == 0 ? GranularSolver::MatrixFree : GranularSolver::Anderson;
        GranularStepper s(tight[k], solver_parameters(solver, 1e-9));
        s.contact_cache() = plain.contact_cache();
        const GranularStepReport& r = s.step();
        INFO("solver " << k << " at step " << step << ": " << r.solver.message << " sweeps "
                        << r.solver.counters.sweeps);
        REQUIRE(r.solver.converged());
      }
      for (int i = 0; i < sc.model.bodies.spheres(); ++i)
        worst = std::max(worst, (tight[0].bodies.v[i] - tight[1].bodies.v[i]).norm());
      INFO("step " << step << ": worst velocity difference " << worst << " m/s");
      CHECK(worst < 1e-8);
    }
    REQUIRE(plain.step().solver.converged());
  }
  INFO("sweeps over the sampled steps: plain " << total[0] << ", anderson " << total[1]);
  CHECK(total[1] * 2 < total[0]);
}

TEST_CASE("anderson: the same state for 1 and 2 threads with four sweep blocks") {
  require_thread_count_independent(solver_parameters(GranularSolver::Anderson, 1e-4));
}

TEST_CASE("anderson: memory outside [1, 8] and a period outside [1, 4] are refused") {
  BeadSpec spec;
  GranularScene sc = bead_column(spec, 3);
  GranularParameters p = solver_parameters(GranularSolver::Anderson, 1e-6);
  p.anderson_memory = 0;
  CHECK_THROWS_WITH(GranularStepper(sc.model, p), Catch::Contains("anderson_memory"));
  p.anderson_memory = 9;
  CHECK_THROWS_WITH(GranularStepper(sc.model, p), Catch::Contains("anderson_memory"));
  p.anderson_memory = 2;
  p.anderson_every = 0;
  CHECK_THROWS_WITH(GranularStepper(sc.model, p), Catch::Contains("anderson_every"));
  p.anderson_every = 5;
  CHECK_THROWS_WITH(GranularStepper(sc.model, p), Catch::Contains("anderson_every"));
}
