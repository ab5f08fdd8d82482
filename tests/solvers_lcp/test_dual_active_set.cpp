// The dual active-set method (solvers/lcp/DualActiveSet.hpp) on symmetric positive SEMIdefinite LCPs
// G = J M⁻¹ Jᵀ with more rows than columns (redundant contacts, as in a stacked packing): on feasible ones it
// converges to round-off and gives the same displacement M⁻¹Jᵀz as Lemke and PSOR (z itself is not unique); on
// infeasible ones it returns the Farkas certificate's rows; a violation within data_tolerance of a self-stressed
// pair is accepted, a larger one is not.
#include <catch2/catch.hpp>

#include "solvers/core/LcpProblem.hpp"
#include "solvers/lcp/DualActiveSet.hpp"
#include "solvers/lcp/LcpSolver.hpp"
#include "tests/solvers_lcp/LcpTestProblems.hpp"

using namespace talus;
using namespace talus::solvers;
using namespace talus::solvers::testing;

namespace {

// A feasible LCP with G = J M⁻¹ Jᵀ singular (m > n): q = −G z* + w*, z* ≥ 0, w* ≥ 0, z*ᵀw* = 0.
struct RedundantLcp {
  Matrix J, Minv;
  LcpProblem problem;
};

RedundantLcp redundant_lcp(Index n, Index m, std::mt19937& rng) {
  RedundantLcp r;
  r.J = random_matrix(m, n, rng);
  // Exactly dependent rows, as opposite contacts and chains give: some rows are sums or negatives of others.
  for (Index i = 0; i + 2 < m; i += 5) r.J.row(i + 2) = -(r.J.row(i) + 0.5 * r.J.row(i + 1));
  std::uniform_real_distribution<double> mass(0.5, 2.0), u(0.0, 1.0);
  r.Minv = Matrix::Zero(n, n);
  for (Index i = 0; i < n; ++i) r.Minv(i, i) = 1.0 / mass(rng);
  const Matrix G = r.J * r.Minv * r.J.transpose();
  Vector z_star = Vector::Zero(m), w_star = Vector::Zero(m);
  for (Index i = 0; i < m; ++i) {
    if (u(rng) < 0.4)
      z_star[i] = u(rng);
    else
      w_star[i] = u(rng) < 0.3 ? 0.0 : u(rng);  // some degenerate rows (z = w = 0)
  }
  r.problem = make_lcp(G, -G * z_star + w_star);
  return r;
}

}  // namespace

TEST_CASE("dual active set solves feasible singular PSD LCPs and agrees with Lemke and PSOR", "[lcp][dual_active_set]") {
  int lemke_solved = 0, cases = 0;
  for (Index n : {3, 6, 12, 24}) {
    for (Index extra : {1, 4, 12}) {
      for (unsigned seed = 1; seed <= 4; ++seed) {
        std::mt19937 rng(7919 * seed + 31 * n + extra);
        const RedundantLcp r = redundant_lcp(n, n + extra, rng);
        INFO("n " << n << " m " << n + extra << " seed " << seed);
        ++cases;
        Vector z, w;
        const SolverStats das = solve_dual_active_set(r.problem, z, w);
        REQUIRE(das.converged());
        CHECK(lcp_residual(r.problem, z) < 1e-12);
        CHECK(z.minCoeff() >= 0.0);
        CHECK(w.minCoeff() > -1e-12);
        const Vector displacement = r.Minv * r.J.transpose() * z;
        // PSOR converges on a solvable symmetric PSD LCP (Luo and Tseng), slowly when redundant.
        LcpSolverOptions psor;
        psor.method = LcpMethod::Psor;
        psor.tolerance = 1e-13;
        psor.max_iterations = 200000;
        Vector zp, wp;
        if (solve_lcp(r.problem, zp, wp, psor).converged())
          CHECK((r.Minv * r.J.transpose() * zp - displacement).norm() < 1e-8 * (1.0 + displacement.norm()));
        Vector zl, wl;
        if (solve_lcp(r.problem, zl, wl, LcpSolverOptions{}).converged()) {
          ++lemke_solved;
          CHECK((r.Minv * r.J.transpose() * zl - displacement).norm() < 1e-9 * (1.0 + displacement.norm()));
        }
      }
    }
  }
  WARN("Lemke solved " << lemke_solved << " of " << cases << " feasible singular PSD LCPs; the dual active set all");
}

TEST_CASE("dual active set certifies infeasibility and accepts violations within the data's accuracy", "[lcp][dual_active_set]") {
  // A sphere squeezed between two walls closer than its diameter: rows +e and −e, gaps summing to −δ.
  Matrix G(3, 3);
  G << 1.0, -1.0, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0, 2.0;
  for (double delta : {1.0, 1e-9}) {
    INFO("delta " << delta);
    const LcpProblem p = make_lcp(G, Vector((Vector(3) << -delta, 0.0, 0.5).finished()));
    DualActiveSetWorkspace ws;
    Vector z, w;
    DualActiveSetParameters exact;
    const SolverStats s = solve_dual_active_set(p, z, w, exact, ws);
    CHECK(s.status == SolverStatus::Infeasible);
    REQUIRE(ws.certificate.size() == 2);
    CHECK(((ws.certificate[0] == 0 && ws.certificate[1] == 1) || (ws.certificate[0] == 1 && ws.certificate[1] == 0)));
    // Known to 1e-8 only, the data cannot tell a 1e-9 violation from none; a violation of 1 is still infeasible.
    DualActiveSetParameters tolerant;
    tolerant.data_tolerance = 1e-8;
    const SolverStats t = solve_dual_active_set(p, z, w, tolerant, ws);
    if (delta < 1e-8) {
      CHECK(t.converged());
      CHECK(w.minCoeff() >= -1e-8);
      CHECK(z.minCoeff() >= 0.0);
    } else {
      CHECK(t.status == SolverStatus::Infeasible);
    }
  }
  // Not symmetric, or with equality rows: refused.
  Matrix A(2, 2);
  A << 1.0, 0.5, 0.0, 1.0;
  Vector z, w;
  CHECK(solve_dual_active_set(make_lcp(A, Vector::Constant(2, -1.0)), z, w).status == SolverStatus::InvalidInput);
  CHECK(solve_dual_active_set(make_lcp(G, Vector::Constant(3, -1.0), 1), z, w).status == SolverStatus::InvalidInput);
}
