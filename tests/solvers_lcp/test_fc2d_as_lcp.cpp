// Planar Coulomb friction written as an LCP (Fc2dAsLcp.hpp) and solved by Lemke: single contacts with closed
// forms (take-off, stick, slide in either direction, frictionless) and multi-contact problems checked with
// the De Saxcé natural-map residual friction_residual of solvers/core, which knows nothing of the LCP.
#include <catch2/catch.hpp>

#include "solvers/lcp/EnumerationLcp.hpp"
#include "solvers/lcp/Fc2dAsLcp.hpp"
#include "solvers/lcp/Lemke.hpp"
#include "solvers/lcp/Psor.hpp"
#include "tests/solvers_lcp/LcpTestProblems.hpp"

using namespace talus;
using namespace talus::solvers;
using namespace talus::solvers::testing;

namespace {

FrictionContactProblem fc2d(const Matrix& W, const Vector& q, const Vector& mu) {
  FrictionContactProblem p;
  p.dim = 2;
  p.W = W.sparseView();
  p.q = q;
  p.mu = mu;
  return p;
}

Vector solve_fc2d_with_lemke(const FrictionContactProblem& p, SolverStats& stats) {
  const LcpProblem lcp = fc2d_to_lcp(p);
  Vector z, w, r;
  stats = solve_lemke(lcp, z, w);
  fc2d_reaction_from_lcp(p, z, r);
  return r;
}

Vector two(double a, double b) { return (Vector(2) << a, b).finished(); }

}  // namespace

TEST_CASE("FC2D as LCP: single contact, closed forms") {
  Matrix W(2, 2);
  W << 1.0, 0.2, 0.2, 2.0;
  const double a = W(0, 0), b = W(0, 1), c = W(1, 1);

  SECTION("take-off: q_N >= 0 gives r = 0") {
    const FrictionContactProblem p = fc2d(W, two(0.5, -2.0), Vector::Constant(1, 0.3));
    SolverStats stats;
    const Vector r = solve_fc2d_with_lemke(p, stats);
    REQUIRE(stats.converged());
    CHECK(r.isZero(0.0));
  }
  SECTION("stick: u = 0, r = -W^-1 q inside the cone") {
    const FrictionContactProblem p = fc2d(W, two(-1.0, 0.1), Vector::Constant(1, 0.5));
    const Vector expected = -W.inverse() * p.q;
    REQUIRE(expected[0] > 0.0);
    REQUIRE(std::abs(expected[1]) < p.mu[0] * expected[0]);  // the closed form's premise
    SolverStats stats;
    const Vector r = solve_fc2d_with_lemke(p, stats);
    REQUIRE(stats.converged());
    CHECK((r - expected).norm() < 1e-14);
    CHECK(friction_residual(p, r) < 1e-15);
  }
  for (double sigma : {1.0, -1.0}) {
    SECTION("slide: u_N = 0, r_T = -sigma mu r_N with sigma = sign(u_T), sigma " + std::to_string(sigma)) {
      const double mu = 0.3;
      const FrictionContactProblem p = fc2d(W, two(-1.0, 2.0 * sigma), Vector::Constant(1, mu));
      const double rn = -p.q[0] / (a - sigma * mu * b);
      const Vector expected = two(rn, -sigma * mu * rn);
      REQUIRE(sigma * (b * expected[0] + c * expected[1] + p.q[1]) > 0.0);  // sliding in direction sigma
      SolverStats stats;
      const Vector r = solve_fc2d_with_lemke(p, stats);
      REQUIRE(stats.converged());
      CHECK((r - expected).norm() < 1e-14);
      CHECK(friction_residual(p, r) < 1e-15);
    }
  }
  SECTION("frictionless (mu = 0): r_T = 0, u_N = 0") {
    const FrictionContactProblem p = fc2d(W, two(-1.0, 2.0), Vector::Constant(1, 0.0));
    SolverStats stats;
    const Vector r = solve_fc2d_with_lemke(p, stats);
    REQUIRE(stats.converged());
    CHECK((r - two(1.0 / a, 0.0)).norm() < 1e-14);
  }
}

TEST_CASE("FC2D as LCP: the enumeration oracle finds the same single-contact reactions") {
  Matrix W(2, 2);
  W << 1.5, -0.3, -0.3, 0.8;
  for (const Vector& q : {two(-1.0, 0.05), two(-1.0, 3.0), two(-0.5, -3.0), two(0.2, 1.0)}) {
    const FrictionContactProblem p = fc2d(W, q, Vector::Constant(1, 0.4));
    SolverStats stats;
    const Vector r = solve_fc2d_with_lemke(p, stats);
    const LcpProblem lcp = fc2d_to_lcp(p);
    Vector z, w, r_enum;
    REQUIRE(solve_lcp_by_enumeration(lcp, z, w).converged());
    fc2d_reaction_from_lcp(p, z, r_enum);
    REQUIRE(stats.converged());
    CHECK((r - r_enum).norm() < 1e-13);
  }
}

TEST_CASE("FC2D as LCP: multi-contact problems solve Coulomb's law (friction_residual ~ 0)") {
  for (Index contacts : {2, 5, 12, 30}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      std::mt19937 rng(seed * 131 + contacts);
      const Index m = 2 * contacts;
      const Matrix A = random_matrix(m, m, rng);
      std::uniform_real_distribution<double> friction(0.0, 1.0);
      Vector mu(contacts);
      for (Index i = 0; i < contacts; ++i) mu[i] = friction(rng);
      const FrictionContactProblem p =
          fc2d(A.transpose() * A + 0.1 * Matrix::Identity(m, m), 2.0 * random_vector(m, rng), mu);
      SolverStats stats;
      const Vector r = solve_fc2d_with_lemke(p, stats);
      INFO("contacts " << contacts << " seed " << seed << ": " << stats.message);
      REQUIRE(stats.converged());
      CHECK(friction_residual(p, r) < 1e-12);
      for (Index i = 0; i < contacts; ++i) {
        CHECK(r[2 * i] >= 0.0);
        CHECK(std::abs(r[2 * i + 1]) <= mu[i] * r[2 * i] * (1.0 + 1e-12) + 1e-14);
      }
    }
  }
}

TEST_CASE("FC2D as LCP: wrong dimension is rejected, PSOR refuses the zero-diagonal slack rows") {
  FrictionContactProblem p3;
  p3.dim = 3;
  p3.W = Matrix::Identity(3, 3).sparseView();
  p3.q = Vector::Zero(3);
  p3.mu = Vector::Constant(1, 0.5);
  CHECK_THROWS_AS(fc2d_to_lcp(p3), std::invalid_argument);

  const FrictionContactProblem p = fc2d(Matrix::Identity(2, 2), two(-1.0, 1.0), Vector::Constant(1, 0.5));
  Vector z, w;
  const SolverStats stats = solve_psor(fc2d_to_lcp(p), z, w, PsorParameters{});
  CHECK(stats.status == SolverStatus::InvalidInput);
  CHECK(stats.message.find("diagonal") != std::string::npos);
}
