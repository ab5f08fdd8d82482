// Lemke's robustness (issue 2 items 4 and 6): degenerate LCPs (zero entries in q, ties in the ratio test,
// repeated columns, doubly degenerate planted solutions) must terminate with a solution — the lexicographic
// ratio test excludes cycling — while an infeasible LCP must end on a secondary ray, never as Converged.
#include <catch2/catch.hpp>

#include "solvers/lcp/EnumerationLcp.hpp"
#include "solvers/lcp/Lemke.hpp"
#include "tests/solvers_lcp/LcpTestProblems.hpp"

using namespace talus;
using namespace talus::solvers;
using namespace talus::solvers::testing;

TEST_CASE("Lemke: q >= 0 is solved by z = 0 without pivoting") {
  Matrix M(2, 2);
  M << 1.0, -3.0, 2.0, 0.5;
  const LcpProblem p = make_lcp(M, Vector::Constant(2, 0.0));
  Vector z, w;
  const SolverStats stats = solve_lemke(p, z, w);
  CHECK(stats.converged());
  CHECK(stats.iterations == 0);
  CHECK(z.isZero(0.0));
  CHECK(w == p.q);
}

TEST_CASE("Lemke: infeasible LCPs end on a secondary ray") {
  SECTION("1x1: w = -z - 1 >= 0 has no z >= 0") {
    const LcpProblem p = make_lcp(Matrix::Constant(1, 1, -1.0), Vector::Constant(1, -1.0));
    Vector z, w;
    const SolverStats stats = solve_lemke(p, z, w);
    CHECK(stats.status == SolverStatus::RayTermination);
    CHECK_FALSE(stats.message.empty());
    CHECK(stats.residual == lcp_residual(p, z));
    CHECK(stats.residual > 0.1);
    CHECK(solve_lcp_by_enumeration(p, z, w).status == SolverStatus::Infeasible);
  }
  SECTION("2x2 positive semidefinite: w1 + w2 = -2 < 0 for every z") {
    Matrix M(2, 2);
    M << 1.0, -1.0, -1.0, 1.0;
    const LcpProblem p = make_lcp(M, Vector::Constant(2, -1.0));
    Vector z, w;
    const SolverStats stats = solve_lemke(p, z, w);
    CHECK(stats.status == SolverStatus::RayTermination);
    CHECK(solve_lcp_by_enumeration(p, z, w).status == SolverStatus::Infeasible);
  }
}

TEST_CASE("Lemke: max_pivots exhausted is reported, not accepted") {
  std::mt19937 rng(5);
  const LcpProblem p = make_lcp(spd_matrix(6, rng), -Vector::Ones(6));
  Vector z, w;
  LemkeParameters params;
  params.max_pivots = 2;
  const SolverStats stats = solve_lemke(p, z, w, params);
  CHECK(stats.status == SolverStatus::MaxIterations);
  CHECK(stats.iterations == 2);
  CHECK(solve_lemke(p, z, w).converged());
}

TEST_CASE("Lemke: zeros in q and exact ties in the first ratio test") {
  Matrix M(4, 4);
  M << 2, 1, 0, 0,  //
      1, 2, 1, 0,   //
      0, 1, 2, 1,   //
      0, 0, 1, 2;
  Vector q(4);
  q << 0.0, -1.0, 0.0, -1.0;
  const LcpProblem p = make_lcp(M, q);
  Vector z, w, z_ref, w_ref;
  const SolverStats stats = solve_lemke(p, z, w);
  REQUIRE(stats.converged());
  REQUIRE(solve_lcp_by_enumeration(p, z_ref, w_ref).converged());
  CHECK((z - z_ref).norm() < 1e-14);
  CHECK(stats.residual < 1e-15);
}

TEST_CASE("Lemke: repeated columns (positive semidefinite M) with tied ratios") {
  // M = B Bᵀ with the first two rows of B equal: columns 0 and 1 of M coincide and q_0 = q_1, so every ratio
  // test sees exact ties between rows 0 and 1. The solution set is not a point, but w = M z + q is unique
  // (monotone symmetric LCP), so it is compared with the oracle's w.
  Matrix B(4, 3);
  B << 1, 2, 0,  //
      1, 2, 0,   //
      0, 1, 1,   //
      2, 0, 1;
  const Matrix M = B * B.transpose();
  Vector q(4);
  q << -3.0, -3.0, -1.0, 2.0;
  const LcpProblem p = make_lcp(M, q);
  Vector z, w, z_ref, w_ref;
  const SolverStats stats = solve_lemke(p, z, w);
  INFO(stats.message);
  REQUIRE(stats.converged());
  REQUIRE(solve_lcp_by_enumeration(p, z_ref, w_ref).converged());
  CHECK((w - w_ref).norm() < 1e-12);
  CHECK(stats.residual < 1e-14);
}

TEST_CASE("Lemke: LCPs on which a naive tie-breaking rule cycles") {
  // Found by an exhaustive-arithmetic search over small integer LCPs: Lemke breaking ratio ties by the
  // largest row index (first problem) or the smallest row index (second) revisits a basis and cycles forever;
  // the lexicographic rule reaches a solution in a few pivots.
  Matrix M3(3, 3);
  M3 << -2, 0, -1,  //
      -2, 1, 2,     //
      2, 2, 0;
  Vector q3(3);
  q3 << 0, -1, -1;
  Matrix M5(5, 5);
  M5 << 0, -1, 0, 2, 2,  //
      2, -1, -1, 1, 1,   //
      2, 0, 0, 2, 0,     //
      -1, -2, -1, 0, 0,  //
      0, 2, 0, 2, 1;
  Vector q5(5);
  q5 << -1, -1, 0, 0, 0;
  for (const LcpProblem& p : {make_lcp(M3, q3), make_lcp(M5, q5)}) {
    Vector z, w, z_ref, w_ref;
    LemkeParameters params;
    params.max_pivots = 50;
    const SolverStats stats = solve_lemke(p, z, w, params);
    INFO("n " << p.size() << ": " << stats.message);
    REQUIRE(stats.converged());
    CHECK(stats.iterations <= 2 * p.size() + 2);
    CHECK(stats.residual < 1e-15);
    CHECK(z.minCoeff() >= 0.0);
    CHECK(w.minCoeff() >= -1e-15);
    CHECK(std::abs(z.dot(w)) < 1e-14);
  }
}

TEST_CASE("Lemke: many doubly degenerate planted LCPs with integer data terminate with the solution") {
  // Integer M and planted solutions where z*_i = w*_i = 0 on a random third of the rows give exact ties and
  // zero basic values throughout the pivoting: without an anti-cycling rule such problems can stall.
  std::uniform_int_distribution<int> entry(-2, 2);
  int solved = 0;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const Index n = 2 + seed % 9;
    Matrix B(n, n);
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < n; ++j) B(i, j) = entry(rng);
    B.row(n - 1) = B.row(0);  // repeated rows/columns of M
    const Matrix M = B * B.transpose() + double(seed % 2) * Matrix::Identity(n, n);
    const PlantedLcp planted = plant_solution(M, rng, 1.0 / 3.0, /*integer_values=*/true);
    const LcpProblem p = make_lcp(M, planted.q);
    Vector z, w;
    const SolverStats stats = solve_lemke(p, z, w);
    INFO("seed " << seed << " n " << n << ": " << stats.message);
    REQUIRE(stats.converged());
    CHECK(stats.iterations <= 4 * n + 2);
    CHECK(stats.residual < 1e-13);
    // Monotone symmetric LCP: w is unique over the solution set.
    CHECK((w - planted.w).norm() <= 1e-11 * (1.0 + planted.w.norm()));
    ++solved;
  }
  CHECK(solved == 200);
}

TEST_CASE("Lemke: the pivot path does not depend on the units of q and M") {
  // LCP(αM, βq) is solved by (β/α) z: every ratio scales by β/α and every B⁻¹ entry by 1/α, so the
  // tie-breaking decisions — and hence the pivot count — must be the same for every α, β. Checked on the
  // degenerate problems above, where a tolerance in absolute units would change the path.
  Matrix M3(3, 3);
  M3 << -2, 0, -1,  //
      -2, 1, 2,     //
      2, 2, 0;
  Vector q3(3);
  q3 << 0, -1, -1;
  Matrix M4(4, 4);
  M4 << 2, 1, 0, 0,  //
      1, 2, 1, 0,    //
      0, 1, 2, 1,    //
      0, 0, 1, 2;
  Vector q4(4);
  q4 << 0.0, -1.0, 0.0, -1.0;
  for (const auto& [M, q] : {std::pair{M3, q3}, std::pair{M4, q4}}) {
    Vector z_ref, w_ref;
    const SolverStats reference = solve_lemke(make_lcp(M, q), z_ref, w_ref);
    REQUIRE(reference.converged());
    for (double alpha : {1e-15, 1e-9, 1.0, 1e7, 1e14}) {
      for (double beta : {1e-15, 1e-3, 1e9}) {
        Vector z, w;
        const SolverStats stats = solve_lemke(make_lcp(alpha * M, beta * q), z, w);
        INFO("alpha " << alpha << " beta " << beta << ": " << stats.message);
        REQUIRE(stats.converged());
        CHECK(stats.iterations == reference.iterations);
        CHECK((z - (beta / alpha) * z_ref).norm() <= 1e-14 * (beta / alpha) * (1.0 + z_ref.norm()));
      }
    }
  }
}
