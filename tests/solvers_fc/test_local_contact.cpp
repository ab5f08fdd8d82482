// One-contact friction problems with closed-form answers (seed 004, Coulomb's law (29)): taking off, sticking and
// sliding, in 3-D and 2-D, through every local solver and through NSGS. Answers are checked against the hand
// solution and against Coulomb's law written case by case, not only against the natural-map residual.
#include <catch2/catch.hpp>
#include <random>

#include "solvers/fc/LocalContactSolvers.hpp"
#include "solvers/fc/Nsgs.hpp"

using namespace talus;
using namespace talus::solvers;

namespace {

const LocalSolverKind kAllKinds[] = {LocalSolverKind::Analytic, LocalSolverKind::AlartCurnierNewton,
                                     LocalSolverKind::Projection};

FrictionContactProblem one_contact(const Matrix& W, const Vector& q, double mu) {
  FrictionContactProblem p;
  p.dim = static_cast<int>(q.size());
  p.W = W.sparseView();
  p.q = q;
  p.mu = Vector::Constant(1, mu);
  return p;
}

// Coulomb's law for one contact, case by case; returns the largest violation (0 for an exact solution).
double coulomb_violation(const Vector& r, const Vector& u, double mu) {
  const int t = static_cast<int>(r.size()) - 1;
  const double rn = r[0], un = u[0];
  const double rt = r.tail(t).norm(), ut = u.tail(t).norm();
  double v = std::max({-rn, -un, std::abs(rn * un), std::max(0.0, rt - mu * rn)});
  if (rn > 0.0 && ut > 1e-12) {
    // sliding: ‖r_T‖ = μ r_N and r_T = −λ u_T with λ >= 0
    v = std::max(v, std::abs(rt - mu * rn));
    v = std::max(v, (r.tail(t) / std::max(rt, 1e-300) + u.tail(t) / ut).norm() * rt);
  }
  return v;
}

// NSGS with a single contact solves the local problem; the projection solver needs many sweeps to get there.
Vector solve(const FrictionContactProblem& p, LocalSolverKind kind, Vector& u) {
  NsgsParameters prm;
  prm.local = kind;
  prm.tolerance = 1e-13;
  prm.max_iterations = 5000;
  Vector r;
  const SolverStats s = nsgs(p, r, u, prm);
  INFO("local solver " << to_string(kind) << ": " << to_string(s.status) << " residual " << s.residual);
  REQUIRE(s.converged());
  REQUIRE(friction_residual(p, r) <= 1e-13);
  return r;
}

}  // namespace

TEST_CASE("3-D contact taking off: r = 0 and u = q", "[fc][local]") {
  const Matrix W = (Matrix(3, 3) << 2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.0).finished();
  const Vector q = (Vector(3) << 0.4, -2.0, 1.0).finished();
  for (auto kind : kAllKinds) {
    Vector u;
    const Vector r = solve(one_contact(W, q, 0.6), kind, u);
    CHECK(r.norm() <= 1e-14);
    CHECK((u - q).norm() <= 1e-14);
  }
}

TEST_CASE("3-D contact sticking: u = 0 and r = -W^-1 q inside the cone", "[fc][local]") {
  const Matrix W = (Matrix(3, 3) << 2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.0).finished();
  const Vector q = (Vector(3) << -1.0, 0.1, -0.05).finished();
  const Vector expected = -W.inverse() * q;
  REQUIRE(expected.tail(2).norm() < 0.8 * expected[0]);  // really inside the cone for μ = 0.8
  for (auto kind : kAllKinds) {
    Vector u;
    const Vector r = solve(one_contact(W, q, 0.8), kind, u);
    CHECK((r - expected).norm() <= 1e-10 * expected.norm());
    CHECK(u.norm() <= 1e-10);
  }
}

TEST_CASE("3-D contact sliding, isotropic block: hand solution", "[fc][local]") {
  // W = diag(1, 2, 2), q = (−1, 3, 4), μ = 0.5: u_N = 0 gives r_N = 1; r_T = −μ r_N q_T/‖q_T‖ = (−0.3, −0.4);
  // u_T = 2 r_T + q_T = (2.4, 3.2), opposite to r_T.
  const Matrix W = Vector((Vector(3) << 1.0, 2.0, 2.0).finished()).asDiagonal();
  const Vector q = (Vector(3) << -1.0, 3.0, 4.0).finished();
  const Vector expected = (Vector(3) << 1.0, -0.3, -0.4).finished();
  for (auto kind : kAllKinds) {
    Vector u;
    const Vector r = solve(one_contact(W, q, 0.5), kind, u);
    CHECK((r - expected).norm() <= 1e-10);
    CHECK(std::abs(u[0]) <= 1e-10);
    CHECK((u.tail(2) - Vector((Vector(2) << 2.4, 3.2).finished())).norm() <= 1e-10);
  }
}

TEST_CASE("3-D contact sliding with a coupled block satisfies Coulomb's law case by case", "[fc][local]") {
  // Strong normal-tangential coupling and μ = 1 (the RockPile kind of block, where plain Newton stalls).
  const Matrix W = (Matrix(3, 3) << 10.0, 11.789, -0.973, 11.789, 24.273, -3.118, -0.973, -3.118, 23.149).finished();
  std::mt19937 rng(3);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    Vector q(3);
    q << -std::abs(normal(rng)), 5.0 * normal(rng), 5.0 * normal(rng);
    // Only the analytic solver (slip-angle fallback): the projection fixed point is not monotone for such a
    // block and can cycle, and the bare Newton's line search can stall.
    Vector u;
    const Vector r = solve(one_contact(W, q, 1.0), LocalSolverKind::Analytic, u);
    INFO("trial " << trial << " q = " << q.transpose());
    CHECK(coulomb_violation(r, u, 1.0) <= 1e-8 * (1.0 + q.norm()));
  }
}

TEST_CASE("Local solvers agree with each other on random single contacts", "[fc][local]") {
  std::mt19937 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    Matrix A = Matrix::NullaryExpr(3, 3, [&] { return normal(rng); });
    const Matrix W = A * A.transpose() + 0.1 * Matrix::Identity(3, 3);
    const Vector q = Vector::NullaryExpr(3, [&] { return normal(rng); });
    const double mu = 0.1 + 0.5 * std::abs(normal(rng));
    Vector u0, u1;
    const Vector analytic = solve(one_contact(W, q, mu), LocalSolverKind::Analytic, u0);
    const Vector newton = solve(one_contact(W, q, mu), LocalSolverKind::AlartCurnierNewton, u1);
    INFO("trial " << trial);
    CHECK(coulomb_violation(analytic, u0, mu) <= 1e-9 * (1.0 + q.norm()));
    CHECK((analytic - newton).norm() <= 1e-8 * (1.0 + analytic.norm()));
  }
}

TEST_CASE("2-D contact: take-off, stick and both sliding directions in closed form", "[fc][local]") {
  const Matrix W = (Matrix(2, 2) << 2.0, 0.5, 0.5, 1.0).finished();
  const double mu = 0.3;
  struct Case {
    double qn, qt, rn, rt;
  };
  // Sliding with s = sign(u_T): r_T = −s μ r_N and u_N = 0 give r_N = −q_N / (W_NN − s μ W_NT).
  const Case cases[] = {
      {0.5, 1.0, 0.0, 0.0},                                // taking off
      {-1.0, -0.2, 0.9 / 1.75, -0.1 / 1.75},              // sticking: r = −W⁻¹q (det W = 1.75), |r_T| < μ r_N
      {-1.0, 3.0, 1.0 / 1.85, -0.3 / 1.85},                // sliding forwards
      {-1.0, -3.0, 1.0 / 2.15, 0.3 / 2.15},                // sliding backwards
  };
  for (const auto& c : cases) {
    const Vector q = (Vector(2) << c.qn, c.qt).finished();
    for (auto kind : kAllKinds) {
      Vector u;
      const Vector r = solve(one_contact(W, q, mu), kind, u);
      INFO("q = " << q.transpose() << ", r = " << r.transpose());
      CHECK(std::abs(r[0] - c.rn) <= 1e-10);
      CHECK(std::abs(r[1] - c.rt) <= 1e-10);
      CHECK(coulomb_violation(r, u, mu) <= 1e-10);
    }
  }
}

TEST_CASE("Frictionless contact (mu = 0) is the one-dimensional complementarity problem", "[fc][local]") {
  const Matrix W = (Matrix(3, 3) << 2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.0).finished();
  const Vector q = (Vector(3) << -1.0, 2.0, 0.5).finished();
  for (auto kind : kAllKinds) {
    Vector u;
    const Vector r = solve(one_contact(W, q, 0.0), kind, u);
    CHECK(std::abs(r[0] - 0.5) <= 1e-10);
    CHECK(r.tail(2).norm() <= 1e-12);
    CHECK(std::abs(u[0]) <= 1e-10);
  }
}
