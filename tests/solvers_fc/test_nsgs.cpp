// NSGS on small random problems (issue 3: every answer re-checked by the independent residual, solvers agreeing
// where the solution is unique), the status it reports on bad input, divergence and an exhausted budget, warm
// starts, and the determinism of shuffled sweeps.
#include <catch2/catch.hpp>
#include "solvers/fc/Nsgs.hpp"
#include "tests/solvers_fc/RandomFrictionProblem.hpp"

using namespace talus;
using namespace talus::solvers;

namespace {

FrictionContactProblem random_problem(int dim, int bodies, int contacts, double mu, unsigned seed) {
  return testing::random_friction_problem(dim, bodies, contacts, mu, seed);
}

SolverStats run(const FrictionContactProblem& p, Vector& r, NsgsParameters prm = {}) {
  Vector u;
  const SolverStats s = nsgs(p, r, u, prm);
  if (s.converged()) {
    CHECK(friction_residual(p, r) <= prm.tolerance);
    CHECK((u - (p.W * r + p.q)).norm() <= 1e-12 * (1.0 + u.norm()));
  }
  return s;
}

}  // namespace

TEST_CASE("NSGS solves random well-posed problems with every local solver, to the same solution",
          "[fc][nsgs]") {
  for (int dim : {2, 3}) {
    for (unsigned seed = 1; seed <= 5; ++seed) {
      // 12 bodies, 15 contacts: W positive definite; μ = 0.1 is small enough for a unique solution.
      const FrictionContactProblem p = random_problem(dim, 12, 15, 0.1, seed);
      Vector reference;
      for (auto kind : {LocalSolverKind::Analytic, LocalSolverKind::AlartCurnierNewton, LocalSolverKind::Projection}) {
        NsgsParameters prm;
        prm.local = kind;
        prm.tolerance = 1e-10;
        prm.max_iterations = 50000;
        Vector r;
        const SolverStats s = run(p, r, prm);
        INFO("dim " << dim << " seed " << seed << " local " << to_string(kind) << ": " << to_string(s.status)
                    << " residual " << s.residual);
        REQUIRE(s.converged());
        if (reference.size() == 0)
          reference = r;
        else
          CHECK((r - reference).norm() <= 1e-6 * (1.0 + reference.norm()));
      }
    }
  }
}

TEST_CASE("NSGS with and without Anderson acceleration on singular W", "[fc][nsgs]") {
  // 4 bodies and 20 contacts: 60 contact rows against 24 dofs, W has a large null space.
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const FrictionContactProblem p = random_problem(3, 4, 20, 0.3, seed);
    for (int memory : {0, 5}) {
      NsgsParameters prm;
      prm.anderson_memory = memory;
      prm.max_iterations = 20000;
      Vector r;
      const SolverStats s = run(p, r, prm);
      INFO("seed " << seed << " memory " << memory << ": " << to_string(s.status) << " residual " << s.residual
                   << " after " << s.iterations << " sweeps");
      CHECK(s.converged());
    }
  }
}

TEST_CASE("NSGS warm start from a solution stops after one sweep", "[fc][nsgs]") {
  const FrictionContactProblem p = random_problem(3, 10, 12, 0.4, 7);
  Vector r;
  REQUIRE(run(p, r).converged());
  const Vector solution = r;
  const SolverStats again = run(p, r);
  CHECK(again.converged());
  CHECK(again.iterations == 1);
  CHECK((r - solution).norm() <= 1e-6 * solution.norm());
}

TEST_CASE("Shuffled sweeps are deterministic per seed", "[fc][nsgs]") {
  const FrictionContactProblem p = random_problem(3, 10, 14, 0.5, 9);
  NsgsParameters prm;
  prm.shuffle = true;
  prm.seed = 42;
  Vector r1, r2, r3;
  REQUIRE(run(p, r1, prm).converged());
  REQUIRE(run(p, r2, prm).converged());
  CHECK(r1 == r2);
  prm.seed = 43;
  REQUIRE(run(p, r3, prm).converged());
  CHECK(r3 != r1);  // another order reaches the tolerance by another path
}

TEST_CASE("Over-relaxed NSGS keeps reactions in the cones and converges", "[fc][nsgs]") {
  const FrictionContactProblem p = random_problem(3, 12, 15, 0.3, 4);
  NsgsParameters prm;
  prm.relaxation = 1.4;
  prm.anderson_memory = 0;
  Vector r;
  REQUIRE(run(p, r, prm).converged());
  for (Index i = 0; i < p.contacts(); ++i)
    CHECK(r.segment<2>(3 * i + 1).norm() <= p.mu[i] * r[3 * i] * (1.0 + 1e-12) + 1e-14);
}

TEST_CASE("NSGS reports bad input, an exhausted budget and divergence", "[fc][nsgs]") {
  const FrictionContactProblem p = random_problem(3, 6, 10, 0.5, 3);
  Vector r, u;
  SECTION("warm start of the wrong size") {
    r = Vector::Zero(5);
    const SolverStats s = nsgs(p, r, u, {});
    CHECK(s.status == SolverStatus::InvalidInput);
    CHECK_THAT(s.message, Catch::Contains("warm start"));
  }
  SECTION("NaN in q") {
    FrictionContactProblem bad = p;
    bad.q[4] = NAN;
    CHECK(nsgs(bad, r, u, {}).status == SolverStatus::InvalidInput);
  }
  SECTION("negative friction coefficient") {
    FrictionContactProblem bad = p;
    bad.mu[2] = -0.1;
    CHECK(nsgs(bad, r, u, {}).status == SolverStatus::InvalidInput);
  }
  SECTION("one sweep is not enough") {
    NsgsParameters prm;
    prm.max_iterations = 1;
    const SolverStats s = nsgs(p, r, u, prm);
    CHECK(s.status == SolverStatus::MaxIterations);
    CHECK(s.iterations == 1);
    CHECK(s.residual == Approx(friction_residual(p, r)));
  }
  SECTION("overflow to Inf/NaN") {
    // Two coupled contacts, tiny diagonal and huge coupling: the first local solve already overflows.
    Matrix W = Matrix::Zero(6, 6);
    W.diagonal().setConstant(1e-300);
    W.block(0, 3, 3, 3) = 1e300 * Matrix::Identity(3, 3);
    W.block(3, 0, 3, 3) = 1e300 * Matrix::Identity(3, 3);
    FrictionContactProblem huge;
    huge.W = W.sparseView();
    huge.q = Vector::Constant(6, -1.0);
    huge.mu = Vector::Constant(2, 0.5);
    const SolverStats s = nsgs(huge, r, u, {});
    CHECK(s.status == SolverStatus::Diverged);
  }
}

TEST_CASE("NSGS kernel counters add up", "[fc][nsgs]") {
  const FrictionContactProblem p = random_problem(3, 20, 64, 0.7, 5);
  NsgsParameters prm;
  prm.local = LocalSolverKind::AlartCurnierNewton;
  Vector r;
  const SolverStats s = run(p, r, prm);
  CHECK(s.counters.sweeps == s.iterations);
  CHECK(s.counters.local_iterations > 0);
  CHECK(s.counters.local_seconds > 0.0);
  CHECK(s.counters.matvec_seconds > 0.0);
}
