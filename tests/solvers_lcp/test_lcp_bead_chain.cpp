// The chain-of-beads impact LCP (issue 2 item 6): a 1D chain of beads hitting a wall, tridiagonal Delassus
// W = D M⁻¹ Dᵀ. Closed form when every bead approaches the wall (v_free ≤ 0): all beads stop (u = 0) and the
// impulse through contact k carries the momentum of the beads behind it, λ_k = Σ_{j ≥ k} m_j |v_free,j|.
// With mixed velocities there is no closed form, and Lemke and PSOR must agree.
#include <catch2/catch.hpp>

#include "solvers/lcp/Lemke.hpp"
#include "solvers/lcp/Psor.hpp"
#include "tests/solvers_lcp/LcpTestProblems.hpp"

using namespace talus;
using namespace talus::solvers;
using namespace talus::solvers::testing;

namespace {

PsorParameters chain_psor_parameters() {
  PsorParameters params;
  params.tolerance = 1e-12;
  params.max_iterations = 100000;
  params.relaxation = 1.9;  // the tridiagonal W is a 1D Laplacian: SOR needs ω near 2 to converge fast
  return params;
}

}  // namespace

TEST_CASE("bead chain approaching a wall: every bead stops, impulses carry the momentum behind them") {
  for (Index n : {1, 2, 10, 60}) {
    std::mt19937 rng(100 + n);
    std::uniform_real_distribution<double> mass(0.5, 2.0), speed(0.0, 3.0);
    Vector m(n), v(n);
    for (Index j = 0; j < n; ++j) {
      m[j] = mass(rng);
      v[j] = -speed(rng);
    }
    const BeadChain chain = bead_chain(m, v);
    Vector expected(n);
    double behind = 0.0;
    for (Index k = n - 1; k >= 0; --k) expected[k] = behind += m[k] * -v[k];

    Vector z_lemke, w_lemke, z_psor, w_psor;
    const SolverStats lemke = solve_lemke(chain.lcp, z_lemke, w_lemke);
    const SolverStats psor = solve_psor(chain.lcp, z_psor, w_psor, chain_psor_parameters());
    INFO("n " << n << ": " << lemke.message << " / " << psor.message);
    REQUIRE(lemke.converged());
    REQUIRE(psor.converged());
    CHECK((z_lemke - expected).norm() <= 1e-12 * expected.norm());
    CHECK((z_psor - expected).norm() <= 1e-8 * expected.norm());
    const Vector v_after = chain.v_free + chain.inverse_mass.asDiagonal() * chain.D.transpose() * z_lemke;
    CHECK(v_after.lpNorm<Eigen::Infinity>() <= 1e-12 * (1.0 + v.lpNorm<Eigen::Infinity>()));
  }
}

TEST_CASE("bead chain with mixed velocities: Lemke and PSOR agree and conserve momentum with the wall") {
  for (Index n : {5, 30, 100}) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
      std::mt19937 rng(seed * 977 + n);
      std::uniform_real_distribution<double> mass(0.5, 2.0), velocity(-2.0, 1.0);
      Vector m(n), v(n);
      for (Index j = 0; j < n; ++j) {
        m[j] = mass(rng);
        v[j] = velocity(rng);
      }
      const BeadChain chain = bead_chain(m, v);
      Vector z_lemke, w_lemke, z_psor, w_psor;
      const SolverStats lemke = solve_lemke(chain.lcp, z_lemke, w_lemke);
      const SolverStats psor = solve_psor(chain.lcp, z_psor, w_psor, chain_psor_parameters());
      INFO("n " << n << " seed " << seed);
      REQUIRE(lemke.converged());
      REQUIRE(psor.converged());
      CHECK(lcp_residual(chain.lcp, z_lemke) < 1e-14);
      CHECK((z_psor - z_lemke).norm() <= 1e-8 * (1.0 + z_lemke.norm()));
      // Internal impulses cancel: the chain's momentum changes by exactly the wall impulse λ_0.
      const Vector v_after = chain.v_free + chain.inverse_mass.asDiagonal() * chain.D.transpose() * z_lemke;
      CHECK(m.dot(v_after) - m.dot(v) == Approx(z_lemke[0]).margin(1e-12 * (1.0 + m.dot(v.cwiseAbs()))));
      // Post-impact gap velocities are non-negative (no interpenetrating velocities).
      CHECK((chain.D * v_after).minCoeff() >= -1e-12);
    }
  }
}
