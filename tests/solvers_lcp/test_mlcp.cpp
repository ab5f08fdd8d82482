// Mixed LCPs (equality rows first, issue 2 item 4): Lemke's Schur-complement path and PSOR's unprojected
// equality rows against (a) the closed form of two beads joined by a rigid rod hitting a wall, (b) an
// independent dense KKT solve in velocity space on random mechanical MLCPs, (c) the enumeration oracle,
// which treats equality rows natively without any Schur complement.
#include <Eigen/LU>
#include <catch2/catch.hpp>

#include "solvers/lcp/EnumerationLcp.hpp"
#include "solvers/lcp/Lemke.hpp"
#include "solvers/lcp/Psor.hpp"
#include "tests/solvers_lcp/LcpTestProblems.hpp"

using namespace talus;
using namespace talus::solvers;
using namespace talus::solvers::testing;

namespace {

// Impact problem u = D v, v = v_free + Mass⁻¹ Dᵀ z, with the first n_equality rows of D bilateral.
struct MechanicalMlcp {
  Matrix mass, D;
  Vector v_free;
  LcpProblem lcp;
};

MechanicalMlcp mechanical_mlcp(const Matrix& mass, const Matrix& D, const Vector& v_free, int n_equality) {
  MechanicalMlcp m{mass, D, v_free, {}};
  const Matrix inverse_mass = mass.inverse();
  m.lcp = make_lcp(D * inverse_mass * D.transpose(), D * v_free, n_equality);
  return m;
}

}  // namespace

TEST_CASE("MLCP: two beads joined by a rod hitting a wall (closed form)") {
  // Row 0: rod, u_E = v_1 − v_0 = 0 (bilateral). Row 1: wall, 0 ≤ u = v_0 ⟂ λ ≥ 0.
  const double m0 = 1.0, m1 = 3.0;
  Matrix mass = Matrix::Zero(2, 2);
  mass.diagonal() << m0, m1;
  Matrix D(2, 2);
  D << -1.0, 1.0, 1.0, 0.0;
  for (double v1 : {0.5, 1.0}) {
    Vector v_free(2);
    v_free << -2.0, v1;
    const MechanicalMlcp m = mechanical_mlcp(mass, D, v_free, 1);
    const double momentum = m0 * v_free[0] + m1 * v_free[1];
    // Approaching (momentum < 0): both stop and the wall takes the momentum; leaving: common velocity.
    const double v_common = momentum < 0.0 ? 0.0 : momentum / (m0 + m1);
    const Vector expected = (Vector(2) << m1 * (v_common - v_free[1]), std::max(0.0, -momentum)).finished();
    Vector z, w;
    const SolverStats lemke = solve_lemke(m.lcp, z, w);
    INFO("v1 = " << v1 << ": " << lemke.message);
    REQUIRE(lemke.converged());
    CHECK((z - expected).norm() < 1e-14);
    CHECK(std::abs(w[0]) < 1e-15);
    PsorParameters params;
    params.tolerance = 1e-14;
    Vector z_psor, w_psor;
    REQUIRE(solve_psor(m.lcp, z_psor, w_psor, params).converged());
    CHECK((z_psor - expected).norm() < 1e-12);
  }
}

TEST_CASE("MLCP: Lemke's Schur path matches a dense velocity-space KKT solve and the enumeration oracle") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    const Index dofs = 4 + seed % 5;
    const Index rows = 2 + seed % (dofs - 1);  // rows ≤ dofs: D has full row rank, W is SPD
    const int n_equality = 1 + static_cast<int>(seed % 2);
    const Matrix A = random_matrix(dofs, dofs, rng);
    const MechanicalMlcp m =
        mechanical_mlcp(A * A.transpose() + Matrix::Identity(dofs, dofs), random_matrix(rows, dofs, rng),
                        2.0 * random_vector(dofs, rng), n_equality);
    Vector z, w;
    const SolverStats lemke = solve_lemke(m.lcp, z, w);
    INFO("seed " << seed << ": " << lemke.message);
    REQUIRE(lemke.converged());
    CHECK(w.head(n_equality).norm() < 1e-13);

    // KKT of the impact on the active set A = E ∪ {z_i > 0}:  Mass v − D_Aᵀ z_A = Mass v_free,  D_A v = 0.
    std::vector<Index> active;
    for (Index i = 0; i < rows; ++i)
      if (i < n_equality || z[i] > 1e-12) active.push_back(i);
    const Index na = static_cast<Index>(active.size());
    Matrix kkt = Matrix::Zero(dofs + na, dofs + na);
    Vector rhs = Vector::Zero(dofs + na);
    kkt.topLeftCorner(dofs, dofs) = m.mass;
    rhs.head(dofs) = m.mass * m.v_free;
    for (Index a = 0; a < na; ++a) {
      kkt.block(0, dofs + a, dofs, 1) = -m.D.row(active[a]).transpose();
      kkt.block(dofs + a, 0, 1, dofs) = m.D.row(active[a]);
    }
    const Vector x = kkt.fullPivLu().solve(rhs);
    const Vector v = x.head(dofs);
    Vector z_kkt = Vector::Zero(rows);
    for (Index a = 0; a < na; ++a) z_kkt[active[a]] = x[dofs + a];
    const Vector u = m.D * v;
    // The KKT point is a solution of the MLCP (a certificate independent of the pivoting)...
    for (Index i = n_equality; i < rows; ++i) {
      CHECK(z_kkt[i] >= -1e-12);
      CHECK(u[i] >= -1e-12);
    }
    // ...and it is the one Lemke returned (SPD W: the solution is unique).
    CHECK((z - z_kkt).norm() <= 1e-11 * (1.0 + z.norm()));
    CHECK((u - w).norm() <= 1e-11 * (1.0 + u.norm()));

    Vector z_enum, w_enum;
    REQUIRE(solve_lcp_by_enumeration(m.lcp, z_enum, w_enum).converged());
    CHECK((z - z_enum).norm() <= 1e-11 * (1.0 + z.norm()));
  }
}

TEST_CASE("MLCP: PSOR with unprojected equality rows agrees with Lemke") {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(50 + seed);
    const Index n = 30;
    const LcpProblem p = make_lcp(spd_matrix(n, rng), random_vector(n, rng), 5);
    Vector z_lemke, w_lemke, z_psor, w_psor;
    PsorParameters params;
    params.tolerance = 1e-13;
    params.max_iterations = 100000;
    params.relaxation = 1.3;
    REQUIRE(solve_lemke(p, z_lemke, w_lemke).converged());
    const SolverStats psor = solve_psor(p, z_psor, w_psor, params);
    REQUIRE(psor.converged());
    CHECK((z_psor - z_lemke).norm() <= 1e-9 * (1.0 + z_lemke.norm()));
    CHECK((z_lemke.head(5).array() < 0.0).any());  // the free unknowns really are free
  }
}

TEST_CASE("MLCP: only equality rows is a linear solve, a singular equality block is reported") {
  std::mt19937 rng(3);
  const Matrix M = spd_matrix(4, rng);
  const Vector q = random_vector(4, rng);
  Vector z, w;
  const SolverStats all_equal = solve_lemke(make_lcp(M, q, 4), z, w);
  REQUIRE(all_equal.converged());
  CHECK((z + M.fullPivLu().solve(q)).norm() < 1e-13);

  Matrix singular = M;
  singular.row(1) = singular.row(0);
  singular.col(1) = singular.col(0);
  const SolverStats bad = solve_lemke(make_lcp(singular, q, 2), z, w);
  CHECK(bad.status == SolverStatus::InvalidInput);
  CHECK(bad.message.find("singular") != std::string::npos);
}
