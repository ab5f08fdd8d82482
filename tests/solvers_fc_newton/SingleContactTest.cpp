// One contact, closed-form answers of Coulomb's law (dims 2 and 3), for the semismooth Newton and APGD:
// take-off (q_N > 0: r = 0), sticking (r = −W⁻¹ q inside the cone, u = 0) and sliding with a diagonal W
// (u_N = 0, r_N = −q_N / w_n, r_T = −μ r_N q_T / ‖q_T‖, u_T = (1 − μ w_t r_N / ‖q_T‖) q_T).
#include <catch2/catch.hpp>

#include "RandomProblems.hpp"
#include "solvers/fc/Apgd.hpp"
#include "solvers/fc/SemismoothNewton.hpp"

using namespace talus;
using namespace talus::solvers;

namespace {

struct Solved {
  Vector r, u;
};

std::vector<Solved> solve_both(const FrictionContactProblem& p) {
  std::vector<Solved> out;
  SemismoothNewtonParameters np;
  np.tolerance = 1e-13;
  Solved a;
  const SolverStats sn = semismooth_newton(p, a.r, a.u, np);
  REQUIRE(sn.converged());
  CHECK(sn.residual <= 1e-13);
  out.push_back(a);
  ApgdParameters ap;
  ap.tolerance = 1e-13;
  ap.max_iterations = 100000;
  Solved b;
  const SolverStats sa = apgd(p, b.r, b.u, ap);
  REQUIRE(sa.converged());
  out.push_back(b);
  return out;
}

Vector vec(std::initializer_list<double> v) {
  Vector x(Index(v.size()));
  Index i = 0;
  for (double e : v) x[i++] = e;
  return x;
}

}  // namespace

TEST_CASE("single contact takes off when the free normal velocity is positive", "[fc][newton][apgd]") {
  for (int dim : {2, 3}) {
    const Vector q = dim == 3 ? vec({0.4, -1.0, 2.0}) : vec({0.4, 3.0});
    const auto p = test::single_contact(dim, 0.5, 2.0, 3.0, q);
    for (const auto& s : solve_both(p)) {
      CHECK(s.r.norm() <= 1e-12);
      CHECK((s.u - q).norm() <= 1e-12);
    }
  }
}

TEST_CASE("single contact sticks inside the cone, also with a coupled W", "[fc][newton][apgd]") {
  SECTION("3D, full symmetric positive definite block") {
    FrictionContactProblem p;
    p.dim = 3;
    Matrix w(3, 3);
    w << 2.0, 0.3, -0.2, 0.3, 1.5, 0.1, -0.2, 0.1, 1.8;
    p.W = w.sparseView();
    const Vector r_expected = vec({1.0, 0.2, -0.1});  // ‖r_T‖ ≈ 0.224 < μ r_N = 0.5
    p.q = -w * r_expected;
    p.mu = Vector::Constant(1, 0.5);
    for (const auto& s : solve_both(p)) {
      CHECK((s.r - r_expected).norm() <= 1e-10);
      CHECK(s.u.norm() <= 1e-10);
    }
  }
  SECTION("2D") {
    FrictionContactProblem p;
    p.dim = 2;
    Matrix w(2, 2);
    w << 1.0, 0.4, 0.4, 2.0;
    p.W = w.sparseView();
    const Vector r_expected = vec({2.0, -0.5});
    p.q = -w * r_expected;
    p.mu = Vector::Constant(1, 0.6);
    for (const auto& s : solve_both(p)) {
      CHECK((s.r - r_expected).norm() <= 1e-10);
      CHECK(s.u.norm() <= 1e-10);
    }
  }
}

TEST_CASE("single contact slides against the tangential free velocity", "[fc][newton][apgd]") {
  const double mu = 0.3, wn = 2.0, wt = 0.5;
  for (int dim : {2, 3}) {
    const Vector q = dim == 3 ? vec({-1.0, 0.6, -0.8}) : vec({-1.0, -0.7});
    const auto p = test::single_contact(dim, mu, wn, wt, q);
    const double rn = -q[0] / wn;
    const Vector qt = q.tail(dim - 1);
    REQUIRE(qt.norm() > mu * wt * rn);  // the data are in the sliding regime
    Vector r_expected(dim), u_expected(dim);
    r_expected[0] = rn;
    r_expected.tail(dim - 1) = -mu * rn * qt / qt.norm();
    u_expected[0] = 0.0;
    u_expected.tail(dim - 1) = (1.0 - mu * wt * rn / qt.norm()) * qt;
    for (const auto& s : solve_both(p)) {
      CHECK((s.r - r_expected).norm() <= 1e-10);
      CHECK((s.u - u_expected).norm() <= 1e-10);
    }
  }
}
