// Independent solvers agree where the solution is unique (W positive definite, small μ): the semismooth Newton
// in all its settings, APGD and NSGS (Nsgs.hpp) reach the same reactions on random small problems, 2-D and 3-D.
// On singular W (more contact rows than degrees of freedom, r not unique) Newton must still converge.
#include <catch2/catch.hpp>

#include "RandomProblems.hpp"
#include "solvers/fc/Apgd.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "solvers/fc/SemismoothNewton.hpp"

using namespace talus;
using namespace talus::solvers;

namespace {

double relative_gap(const Vector& a, const Vector& b) { return (a - b).norm() / (1.0 + b.norm()); }

}  // namespace

TEST_CASE("Newton, APGD and NSGS agree on random problems with a unique solution", "[fc][newton][apgd]") {
  for (int dim : {2, 3}) {
    for (unsigned seed = 1; seed <= 6; ++seed) {
      test::RandomProblemSpec spec;
      spec.dim = dim;
      spec.contacts = 10;
      spec.dofs = dim * spec.contacts + 6;
      spec.seed = seed;
      const FrictionContactProblem p = test::random_problem(spec);
      INFO("dim " << dim << " seed " << seed);

      Vector r_newton, u_newton;
      SemismoothNewtonParameters np;
      np.tolerance = 1e-12;
      const SolverStats sn = semismooth_newton(p, r_newton, u_newton, np);
      REQUIRE(sn.converged());
      CHECK(sn.counters.factorizations >= sn.iterations);
      CHECK(sn.counters.linear_solves >= sn.iterations);

      Vector r_apgd, u_apgd;
      ApgdParameters ap;
      ap.tolerance = 1e-11;
      ap.max_iterations = 200000;
      const SolverStats sa = apgd(p, r_apgd, u_apgd, ap);
      REQUIRE(sa.converged());
      CHECK(relative_gap(r_apgd, r_newton) <= 1e-8);
      CHECK(relative_gap(u_apgd, u_newton) <= 1e-8);

      Vector r_nsgs, u_nsgs;
      NsgsParameters gp;
      gp.tolerance = 1e-11;
      gp.max_iterations = 100000;
      const SolverStats sg = nsgs(p, r_nsgs, u_nsgs, gp);
      REQUIRE(sg.converged());
      CHECK(relative_gap(r_nsgs, r_newton) <= 1e-8);

      // Every Newton setting lands on the same solution.
      for (int variant = 0; variant < 4; ++variant) {
        SemismoothNewtonParameters vp = np;
        if (variant == 0) vp.linear_solver = NewtonLinearSolver::Klu;
        if (variant == 1) vp.variant = AlartCurnierVariant::JeanMoreau;
        if (variant == 2) vp.rho_scaling = AlartCurnierRhoScaling::Unit;
        if (variant == 3) vp.line_search_memory = 1;
        Vector r, u;
        const SolverStats s = semismooth_newton(p, r, u, vp);
        INFO("Newton variant " << variant);
        REQUIRE(s.converged());
        CHECK(relative_gap(r, r_newton) <= 1e-9);
      }
    }
  }
}

TEST_CASE("Newton converges when W is singular (more contact rows than degrees of freedom)", "[fc][newton]") {
  for (int dim : {2, 3}) {
    for (unsigned seed = 11; seed <= 14; ++seed) {
      test::RandomProblemSpec spec;
      spec.dim = dim;
      spec.contacts = 12;
      spec.dofs = 6;  // rank W = 6 < 12 dim: the Alart–Curnier Jacobian of sticking contacts is singular
      spec.mu_min = 0.3;
      spec.mu_max = 0.8;
      spec.seed = seed;
      const FrictionContactProblem p = test::random_problem(spec);
      INFO("dim " << dim << " seed " << seed);
      Vector r, u;
      SemismoothNewtonParameters np;
      np.tolerance = 1e-10;
      const SolverStats s = semismooth_newton(p, r, u, np);
      REQUIRE(s.converged());
      CHECK(friction_residual(p, r) <= 1e-10);
      CHECK((u - (p.W * r + p.q)).norm() <= 1e-12 * (1.0 + u.norm()));
    }
  }
}

TEST_CASE("non-convergence and bad input are reported, never silently accepted", "[fc][newton][apgd]") {
  test::RandomProblemSpec spec;
  spec.contacts = 20;
  spec.dofs = 40;
  spec.mu_min = 0.5;
  spec.mu_max = 0.9;
  const FrictionContactProblem p = test::random_problem(spec);

  SECTION("one iteration is not enough") {
    Vector r, u;
    SemismoothNewtonParameters np;
    np.max_iterations = 1;
    const SolverStats sn = semismooth_newton(p, r, u, np);
    CHECK(sn.status == SolverStatus::MaxIterations);
    CHECK(sn.iterations == 1);
    CHECK(sn.residual > np.tolerance);
    CHECK(sn.residual == Approx(friction_residual(p, r)));
    ApgdParameters ap;
    ap.max_iterations = 1;
    Vector ra, ua;
    const SolverStats sa = apgd(p, ra, ua, ap);
    CHECK(sa.status == SolverStatus::MaxIterations);
    CHECK(sa.residual > ap.tolerance);
  }
  SECTION("time cap") {
    Vector r, u;
    SemismoothNewtonParameters np;
    np.time_cap_seconds = 1e-12;
    const SolverStats sn = semismooth_newton(p, r, u, np);
    CHECK(sn.status == SolverStatus::MaxIterations);
    CHECK(sn.message.find("time cap") != std::string::npos);
  }
  SECTION("inconsistent sizes and NaN") {
    FrictionContactProblem bad = p;
    bad.q.conservativeResize(bad.q.size() - 1);
    Vector r, u;
    CHECK(semismooth_newton(bad, r, u).status == SolverStatus::InvalidInput);
    CHECK(apgd(bad, r, u).status == SolverStatus::InvalidInput);
    FrictionContactProblem nan = p;
    nan.q[0] = std::nan("");
    const SolverStats s = semismooth_newton(nan, r, u);
    CHECK(s.status == SolverStatus::InvalidInput);
    CHECK(!s.message.empty());
  }
  SECTION("a warm start at the solution costs no iteration") {
    Vector r, u;
    SemismoothNewtonParameters np;
    np.tolerance = 1e-12;
    REQUIRE(semismooth_newton(p, r, u, np).converged());
    const Vector r_solution = r;
    const SolverStats again = semismooth_newton(p, r, u, np);
    CHECK(again.converged());
    CHECK(again.iterations == 0);
    CHECK((r - r_solution).norm() == 0.0);
    ApgdParameters ap;
    ap.tolerance = 1e-12;
    CHECK(apgd(p, r, u, ap).iterations == 0);
  }
}
