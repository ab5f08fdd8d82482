// Lemke, PSOR and the enumeration oracle agree on random P-matrix LCPs (issue 2 item 6): a P-matrix LCP has
// exactly one solution, so three independent methods must return the same z, and every residual is re-checked
// with lcp_residual.
#include <catch2/catch.hpp>

#include "solvers/lcp/EnumerationLcp.hpp"
#include "solvers/lcp/LcpSolver.hpp"
#include "solvers/lcp/Lemke.hpp"
#include "solvers/lcp/Psor.hpp"
#include "tests/solvers_lcp/LcpTestProblems.hpp"

using namespace talus;
using namespace talus::solvers;
using namespace talus::solvers::testing;

namespace {

enum class Family { Spd, DiagonallyDominant, SkewPerturbed };

Matrix make_matrix(Family f, Index n, std::mt19937& rng) {
  switch (f) {
    case Family::Spd:
      return spd_matrix(n, rng);
    case Family::DiagonallyDominant:
      return diagonally_dominant_matrix(n, rng);
    case Family::SkewPerturbed:
      return skew_perturbed_matrix(n, rng);
  }
  return {};
}

double relative_difference(const Vector& a, const Vector& b) { return (a - b).norm() / (1.0 + b.norm()); }

}  // namespace

TEST_CASE("Lemke matches the enumeration oracle on small random P-matrix LCPs") {
  for (Family family : {Family::Spd, Family::DiagonallyDominant, Family::SkewPerturbed}) {
    for (Index n : {1, 2, 5, 8, 11}) {
      for (unsigned seed = 1; seed <= 5; ++seed) {
        std::mt19937 rng(1000 * seed + 17 * n + static_cast<unsigned>(family));
        const LcpProblem p = make_lcp(make_matrix(family, n, rng), random_vector(n, rng));
        Vector z_lemke, w_lemke, z_enum, w_enum;
        const SolverStats lemke = solve_lemke(p, z_lemke, w_lemke);
        const SolverStats oracle = solve_lcp_by_enumeration(p, z_enum, w_enum);
        INFO("family " << static_cast<int>(family) << " n " << n << " seed " << seed << ": "
                       << lemke.message);
        REQUIRE(oracle.converged());
        REQUIRE(lemke.converged());
        CHECK(lemke.residual == Approx(lcp_residual(p, z_lemke)).margin(0.0));
        CHECK(lcp_residual(p, z_lemke) < 1e-13);
        CHECK(relative_difference(z_lemke, z_enum) < 1e-11);
        CHECK(relative_difference(w_lemke, p.M * z_lemke + p.q) < 1e-15);
        CHECK(lemke.iterations <= 2 * n + 1);
      }
    }
  }
}

TEST_CASE("PSOR matches Lemke on random P-matrix LCPs where it converges (SPD, diagonally dominant)") {
  for (Family family : {Family::Spd, Family::DiagonallyDominant}) {
    for (Index n : {4, 10, 40, 120}) {
      for (unsigned seed = 1; seed <= 3; ++seed) {
        std::mt19937 rng(7000 * seed + 31 * n + static_cast<unsigned>(family));
        const LcpProblem p = make_lcp(make_matrix(family, n, rng), random_vector(n, rng));
        Vector z_lemke, w_lemke, z_psor, w_psor;
        const SolverStats lemke = solve_lemke(p, z_lemke, w_lemke);
        PsorParameters params;
        params.tolerance = 1e-13;
        params.max_iterations = 200000;
        params.relaxation = family == Family::Spd ? 1.2 : 1.0;
        const SolverStats psor = solve_psor(p, z_psor, w_psor, params);
        INFO("family " << static_cast<int>(family) << " n " << n << " seed " << seed << ": " << psor.message);
        REQUIRE(lemke.converged());
        REQUIRE(psor.converged());
        CHECK(lcp_residual(p, z_psor) <= 1e-13);
        CHECK(psor.residual == lcp_residual(p, z_psor));
        // For an SPD M the error is bounded by the residual times the conditioning of the active block.
        CHECK(relative_difference(z_psor, z_lemke) < 1e-9);
      }
    }
  }
}

TEST_CASE("solve_lcp dispatches every method to the same answer") {
  std::mt19937 rng(42);
  const LcpProblem p = make_lcp(spd_matrix(7, rng), random_vector(7, rng));
  Vector z_ref, w_ref;
  REQUIRE(solve_lcp_by_enumeration(p, z_ref, w_ref).converged());
  for (LcpMethod method : {LcpMethod::Lemke, LcpMethod::Psor, LcpMethod::Enumeration}) {
    LcpSolverOptions options;
    options.method = method;
    options.record_history = true;
    Vector z, w;
    const SolverStats stats = solve_lcp(p, z, w, options);
    INFO(to_string(method) << ": " << stats.message);
    REQUIRE(stats.converged());
    CHECK(relative_difference(z, z_ref) < 1e-10);
    CHECK(stats.residual <= 1e-12);
    if (method == LcpMethod::Psor) {
      REQUIRE(stats.residual_history.size() == static_cast<size_t>(stats.iterations));
      CHECK(stats.residual_history.back() <= options.tolerance);
      CHECK(stats.residual_history.front() > stats.residual_history.back());
    }
  }
}
