// The multilevel solver of issue 10 (MultilevelNsgs.hpp) and the NNCG-accelerated sweep, against answers they
// cannot fake: a column's exact weights (the contact k beads from the top carries k m g h, the floor all of
// them), reached by one V-cycle where plain Gauss–Seidel needs ~L² sweeps; agreement with plain NSGS at 1e-10 on
// small piles; the same state for 1 and 2 threads; and no worse than plain sweeps where rigid aggregates do not
// help (the checkpoint takes a harmful cycle back).
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/granular/SolverTestParameters.hpp"

using namespace talus::granular;

namespace {

using test::solver_parameters;

// Normal impulse of the contact between beads ia and ib (ib = −1: the floor), −1 when absent.
double normal_impulse(const GranularStepper& s, int ia, int ib) {
  for (const SweepContact& c : s.contacts()) {
    const bool floor = ib < 0 && c.a < 0 && c.b == ia;
    const bool pair = (c.a == ia && c.b == ib) || (c.a == ib && c.b == ia);
    if (floor || pair) return c.r[0];
  }
  return -1.0;
}

void check_column_weights(int layers) {
  BeadSpec spec;
  GranularScene sc = bead_column(spec, layers);
  GranularParameters p = solver_parameters(GranularSolver::Multilevel, 1e-10);
  p.resort_every = 0;  // keep the beads in column order (bottom first)
  // Plain sweeps before the cycle, so that the weights are the coarse correction's work (with Anderson on them,
  // the default, a two-bead column is solved before any cycle).
  p.multilevel.anderson = 0;
  GranularStepper s(sc.model, p);
  const GranularStepReport& r = s.step();
  REQUIRE(r.solver.converged());
  const talus::RigidBodies& b = sc.model.bodies;
  const double w = b.mass[0] * 9.81 * p.h;
  CHECK(normal_impulse(s, 0, -1) == Approx(layers * w).epsilon(1e-9));
  for (int k = 0; k + 1 < layers; ++k) {
    INFO("contact between beads " << k << " and " << k + 1);
    CHECK(normal_impulse(s, k, k + 1) == Approx((layers - 1 - k) * w).epsilon(1e-9));
  }
  // One cycle after the plain sweeps that come first, where plain NSGS needs 163 sweeps for ten beads.
  CHECK(r.cycles == 1);
  CHECK(r.solver.counters.sweeps <= p.multilevel.plain_first + 4);
  for (int i = 0; i < b.spheres(); ++i) CHECK(b.v[i].norm() < 1e-9);
}

}  // namespace

TEST_CASE("multilevel: a two-bead and a ten-bead column carry their exact weights after one cycle") {
  check_column_weights(2);
  check_column_weights(10);
}

TEST_CASE("multilevel: a column standing on a fixed bead carries the weights above it") {
  // A fixed bead (Python's Model.fix, or a sphere added fixed) belongs to no aggregate. The levels used to number
  // it as an aggregate without beads (no mass, no root bead), which wrote before the start of the trees' arrays.
  const int layers = 10;
  BeadSpec spec;
  GranularScene sc = bead_column(spec, layers);
  talus::RigidBodies& b = sc.model.bodies;
  b.inv_mass[0] = 0.0, b.inv_inertia[0] = 0.0, b.v[0].setZero();
  GranularParameters p = solver_parameters(GranularSolver::Multilevel, 1e-10);
  p.resort_every = 0;
  p.multilevel.anderson = 0;
  GranularStepper s(sc.model, p);
  const GranularStepReport& r = s.step();
  REQUIRE(r.solver.converged());
  CHECK(r.levels >= 1);
  const double w = b.mass[1] * 9.81 * p.h;
  for (int k = 0; k + 1 < layers; ++k) {
    INFO("contact between beads " << k << " and " << k + 1);
    CHECK(normal_impulse(s, k, k + 1) == Approx((layers - 1 - k) * w).epsilon(1e-9));
  }
  for (int i = 0; i < b.spheres(); ++i) CHECK(b.v[i].norm() < 1e-9);
}

TEST_CASE("multilevel: a 160-bead column is still one cycle (plain NSGS: about 25 000 sweeps)") {
  BeadSpec spec;
  GranularScene sc = bead_column(spec, 160);
  const GranularParameters p = solver_parameters(GranularSolver::Multilevel, 1e-8);
  GranularStepper s(sc.model, p);
  const GranularStepReport& r = s.step();
  REQUIRE(r.solver.converged());
  CHECK(r.cycles == 1);
  CHECK(r.solver.counters.sweeps <= p.multilevel.plain_first + 4);
  CHECK(r.levels >= 6);
}

TEST_CASE("multilevel, NNCG and Anderson agree with plain NSGS at 1e-10 on a small packed box and a falling lattice") {
  BeadSpec spec;
  for (int family = 0; family < 2; ++family) {
    INFO((family == 0 ? "packed_box(3, 4)" : "lattice_stack(3, 5), 40 steps"));
    auto scene = [&] { return family == 0 ? packed_box(spec, 3, 4) : lattice_stack(spec, 3, 5); };
    const int steps = family == 0 ? 1 : 40;
    GranularScene ref = scene();
    GranularStepper plain(ref.model, solver_parameters(GranularSolver::MatrixFree, 1e-10));
    for (int k = 0; k < steps; ++k) REQUIRE(plain.step().solver.converged());
    for (GranularSolver solver : {GranularSolver::Multilevel, GranularSolver::Nncg, GranularSolver::Anderson}) {
      GranularScene sc = scene();
      GranularStepper s(sc.model, solver_parameters(solver, 1e-10));
      for (int k = 0; k < steps; ++k) REQUIRE(s.step().solver.converged());
      double worst = 0.0, scale = 0.0;
      for (int i = 0; i < sc.model.bodies.spheres(); ++i) {
        worst = std::max(worst, (sc.model.bodies.v[i] - ref.model.bodies.v[i]).norm());
        worst = std::max(worst, 0.01 * (sc.model.bodies.w[i] - ref.model.bodies.w[i]).norm());  // r ω
        scale = std::max(scale, ref.model.bodies.v[i].norm());
      }
      INFO("solver " << static_cast<int>(solver) << ": worst velocity difference " << worst << " m/s");
      CHECK(worst <= 1e-6 * std::max(scale, 9.81e-3));
    }
  }
}

TEST_CASE("multilevel, NNCG and Anderson: the same state for 1 and 2 threads") {
  BeadSpec spec;
  for (GranularSolver solver : {GranularSolver::Multilevel, GranularSolver::Nncg, GranularSolver::Anderson}) {
    std::uint64_t hash[2];
    for (int t = 0; t < 2; ++t) {
      GranularScene sc = lattice_stack(spec, 4, 6);
      GranularParameters p = solver_parameters(solver, 1e-4);
      p.threads = t + 1;
      GranularStepper s(sc.model, p);
      for (int k = 0; k < 60; ++k) REQUIRE(s.step().solver.converged());
      hash[t] = state_hash(sc.model.bodies);
    }
    CHECK(hash[0] == hash[1]);
  }
}
