// NSGS with equality blocks (solvers/fc/MixedNsgs.hpp, issue 11) against solves it shares no code with:
//  - frictionless (μ = 0): the mixed LCP in (equality rows, normal rows) solved by Lemke (solvers/lcp);
//  - frictional: the equality rows eliminated by their Schur complement, W' = W_cc − W_ce W_ee⁻¹ W_ec,
//    q' = q_c − W_ce W_ee⁻¹ q_e, the reduced friction problem solved by the contact-only NSGS (Nsgs.hpp), and
//    r_e = −W_ee⁻¹ (q_e + W_ec r_c) recovered;
// on small random problems with W = H Hᵀ positive definite (more dofs than rows) and μ small enough for a
// unique solution. Also: rank-deficient equality blocks (the pseudo-inverse), an inconsistent one (its
// failure names the blocks), separate mechanisms, the extended residual, bad input, and bitwise determinism.
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>

#include "solvers/fc/MixedNsgs.hpp"
#include "solvers/lcp/LcpSolver.hpp"

using namespace talus;
using namespace talus::solvers;

namespace {

// Rows of H: the equality blocks' rows, then `contacts` × dim contact rows, each a random combination of
// `dofs` unit-mass dofs (W = H Hᵀ). A block row may repeat the block's first row (`duplicate`) to make the
// block rank-deficient. q = H v + noise_on_contacts: consistent on the equality rows whatever the blocks.
MixedFrictionContactProblem random_mixed(int dim, const std::vector<int>& blocks, int contacts, double mu,
                                         int dofs, unsigned seed, bool duplicate = false) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  MixedFrictionContactProblem p;
  p.dim = dim;
  p.equality_start = {0};
  for (int n : blocks) p.equality_start.push_back(p.equality_start.back() + n);
  if (blocks.empty()) p.equality_start.clear();
  const Index me = p.equality_rows(), m = me + dim * contacts;
  Matrix H = Matrix::NullaryExpr(m, dofs, [&] { return normal(rng); });
  if (duplicate)
    for (size_t e = 0; e < blocks.size(); ++e)
      if (blocks[e] > 1) H.row(p.equality_start[e] + 1) = H.row(p.equality_start[e]);
  const Matrix W = H * H.transpose();
  p.W = W.sparseView();
  const Vector v = Vector::NullaryExpr(dofs, [&] { return normal(rng); });
  p.q = H * v;
  for (Index i = me; i < m; ++i) p.q[i] += normal(rng);
  p.mu = Vector::Constant(contacts, mu);
  return p;
}

SolverStats solve(const MixedFrictionContactProblem& p, Vector& r, Vector& u, double tol = 1e-13) {
  NsgsParameters prm;
  prm.tolerance = tol;
  prm.max_iterations = 200000;
  r.resize(0);
  return nsgs(p, r, u, prm);
}

}  // namespace

TEST_CASE("mixed NSGS, frictionless: agrees with Lemke on the mixed LCP", "[fc][nsgs][equality]") {
  double worst = 0.0;
  for (int dim : {2, 3})
    for (unsigned seed = 1; seed <= 8; ++seed) {
      INFO("dim " << dim << ", seed " << seed);
      const std::vector<int> blocks = {1 + int(seed % 5), 5, 3};
      const MixedFrictionContactProblem p = random_mixed(dim, blocks, 4, 0.0, 40, seed);
      Vector r, u;
      const SolverStats st = solve(p, r, u);
      REQUIRE(st.converged());
      CHECK(friction_residual(p, r) <= 1e-13);

      // The MLCP: equality rows, then each contact's normal row (μ = 0: no tangential reaction).
      const Index me = p.equality_rows(), nc = p.contacts();
      std::vector<Index> keep;
      for (Index i = 0; i < me; ++i) keep.push_back(i);
      for (Index c = 0; c < nc; ++c) keep.push_back(me + dim * c);
      const Matrix Wd = p.W.toDense();
      Matrix M(keep.size(), keep.size());
      Vector q(keep.size());
      for (size_t a = 0; a < keep.size(); ++a) {
        q[a] = p.q[keep[a]];
        for (size_t b = 0; b < keep.size(); ++b) M(a, b) = Wd(keep[a], keep[b]);
      }
      LcpProblem lcp;
      lcp.M = M.sparseView();
      lcp.q = q;
      lcp.n_equality = int(me);
      Vector z, w;
      const SolverStats ls = solve_lcp(lcp, z, w, LcpSolverOptions{});
      REQUIRE(ls.converged());
      double diff = 0.0, scale = 1.0;
      for (size_t a = 0; a < keep.size(); ++a) {
        diff = std::max(diff, std::abs(r[keep[a]] - z[a]));
        scale = std::max(scale, std::abs(z[a]));
      }
      for (Index c = 0; c < nc; ++c)
        for (int k = 1; k < dim; ++k) CHECK(r[me + dim * c + k] == 0.0);
      CHECK(diff <= 1e-8 * scale);
      worst = std::max(worst, diff / scale);
    }
  std::printf("mixed NSGS vs Lemke on the mixed LCP (mu = 0): largest reaction difference %.1e (relative)\n",
              worst);
}

TEST_CASE("mixed NSGS, frictional: agrees with the contact-only NSGS on the Schur-reduced problem",
          "[fc][nsgs][equality]") {
  int pressed = 0, open = 0;
  double worst = 0.0;
  for (int dim : {2, 3})
    for (unsigned seed = 11; seed <= 18; ++seed) {
      INFO("dim " << dim << ", seed " << seed);
      const std::vector<int> blocks = {5, 1 + int(seed % 5)};
      const MixedFrictionContactProblem p = random_mixed(dim, blocks, 5, 0.1, 40, seed);
      Vector r, u;
      const SolverStats st = solve(p, r, u);
      REQUIRE(st.converged());
      CHECK(friction_residual(p, r) <= 1e-13);
      const Index me = p.equality_rows(), mc = dim * p.contacts();
      CHECK(u.head(me).norm() <= 1e-12 * (1.0 + p.q.norm()));

      const Matrix Wd = p.W.toDense();
      const Matrix Wee = Wd.topLeftCorner(me, me), Wec = Wd.topRightCorner(me, mc),
                   Wce = Wd.bottomLeftCorner(mc, me), Wcc = Wd.bottomRightCorner(mc, mc);
      const Eigen::LLT<Matrix> llt(Wee);
      REQUIRE(llt.info() == Eigen::Success);
      FrictionContactProblem reduced;
      reduced.dim = dim;
      reduced.W = Matrix(Wcc - Wce * llt.solve(Wec)).sparseView();
      reduced.q = p.q.tail(mc) - Wce * llt.solve(p.q.head(me));
      reduced.mu = p.mu;
      NsgsParameters prm;
      prm.tolerance = 1e-13;
      prm.max_iterations = 200000;
      Vector rc, uc;
      REQUIRE(nsgs(reduced, rc, uc, prm).converged());
      const Vector re = -llt.solve(p.q.head(me) + Wec * rc);
      const double scale = 1.0 + rc.cwiseAbs().maxCoeff() + re.cwiseAbs().maxCoeff();
      CHECK((r.tail(mc) - rc).cwiseAbs().maxCoeff() <= 1e-8 * scale);
      CHECK((r.head(me) - re).cwiseAbs().maxCoeff() <= 1e-8 * scale);
      worst = std::max(worst, (r - (Vector(r.size()) << re, rc).finished()).cwiseAbs().maxCoeff() / scale);
      CHECK((u.tail(mc) - uc).cwiseAbs().maxCoeff() <= 1e-8 * (1.0 + uc.cwiseAbs().maxCoeff()));
      for (Index c = 0; c < p.contacts(); ++c) (rc[dim * c] > 0.0 ? pressed : open) += 1;
    }
  // Contacts of both kinds were met: the test is not the trivial all-open (or all-closed) one.
  std::printf(
      "mixed NSGS vs Schur-reduced contact NSGS: largest reaction difference %.1e (relative), %d contacts "
      "pressed, %d open\n",
      worst, pressed, open);
  CHECK(pressed > 10);
  CHECK(open > 10);
}

TEST_CASE("mixed NSGS without contacts solves the linear system, without equalities the friction problem",
          "[fc][nsgs][equality]") {
  const MixedFrictionContactProblem only_eq = random_mixed(3, {3, 5, 2}, 0, 0.0, 20, 3);
  Vector r, u;
  REQUIRE(solve(only_eq, r, u).converged());
  const Matrix Wd = only_eq.W.toDense();
  CHECK((Wd * r + only_eq.q).norm() <= 1e-12 * (1.0 + only_eq.q.norm()));
  CHECK((r + Wd.llt().solve(only_eq.q)).cwiseAbs().maxCoeff() <= 1e-8 * (1.0 + r.cwiseAbs().maxCoeff()));

  const MixedFrictionContactProblem only_c = random_mixed(3, {}, 6, 0.2, 30, 4);
  REQUIRE(solve(only_c, r, u).converged());
  FrictionContactProblem plain;
  plain.dim = 3;
  plain.W = only_c.W;
  plain.q = only_c.q;
  plain.mu = only_c.mu;
  CHECK(friction_residual(plain, r) == friction_residual(only_c, r));
  CHECK(friction_residual(plain, r) <= 1e-13);
}

TEST_CASE(
    "mixed NSGS: a rank-deficient equality block takes the pseudo-inverse, an inconsistent one is named",
    "[fc][nsgs][equality][failure]") {
  // A block whose second row repeats its first (a joint with dependent rows): q consistent, so u_e = 0 has
  // solutions and the least-norm corrections reach one.
  MixedFrictionContactProblem p = random_mixed(3, {4, 2}, 3, 0.3, 30, 5, true);
  Vector r, u;
  const SolverStats st = solve(p, r, u, 1e-12);
  REQUIRE(st.converged());
  CHECK(u.head(p.equality_rows()).norm() <= 1e-11 * (1.0 + p.q.norm()));
  // The repeated rows share the reaction equally (least norm within the block).
  CHECK(std::abs(r[0] - r[1]) <= 1e-8 * (1.0 + std::abs(r[0])));

  // The same block asked for two different velocities on the same row: no solution. The solver stops on its
  // budget and its message names the blocks of the rank-deficient group (every block is coupled to every
  // other by the dense H, so both form one group: rank 3 + 1 of 6).
  p.q[1] = p.q[0] + 1.0;
  NsgsParameters prm;
  prm.tolerance = 1e-10;
  prm.max_iterations = 500;
  r.resize(0);
  const SolverStats bad = nsgs(p, r, u, prm);
  CHECK(bad.status == SolverStatus::MaxIterations);
  CHECK(bad.message.find("equality blocks {0, 1} (one mechanism) have rank 4 of 6") != std::string::npos);
}

TEST_CASE("mixed NSGS: bad input is reported, and the result is bitwise deterministic",
          "[fc][nsgs][equality]") {
  const MixedFrictionContactProblem p = random_mixed(3, {5, 3}, 4, 0.3, 30, 6);
  Vector r1, u1, r2, u2;
  REQUIRE(solve(p, r1, u1).converged());
  REQUIRE(solve(p, r2, u2).converged());
  CHECK(r1 == r2);
  CHECK(u1 == u2);

  // A warm start at the solution converges in one sweep.
  NsgsParameters prm;
  prm.tolerance = 1e-12;
  Vector r = r1, u;
  const SolverStats warm = nsgs(p, r, u, prm);
  CHECK(warm.converged());
  CHECK(warm.iterations == 1);

  MixedFrictionContactProblem bad = p;
  bad.equality_start = {0, 5, 5};
  r.resize(0);
  SolverStats st = nsgs(bad, r, u, prm);
  CHECK(st.status == SolverStatus::InvalidInput);
  CHECK(st.message.find("equality block 1 has 0 rows") != std::string::npos);
  bad = p;
  bad.equality_start = {1, 5};
  st = nsgs(bad, r, u, prm);
  CHECK(st.status == SolverStatus::InvalidInput);
  bad = p;
  bad.q.resize(3);
  st = nsgs(bad, r, u, prm);
  CHECK(st.status == SolverStatus::InvalidInput);
  CHECK(st.message.find("q has 3 entries") != std::string::npos);
  r = Vector::Zero(2);
  st = nsgs(p, r, u, prm);
  CHECK(st.status == SolverStatus::InvalidInput);
}

TEST_CASE("mixed NSGS groups the equality blocks by mechanism (blocks that share dofs)",
          "[fc][nsgs][equality]") {
  // Blocks 0 (3 rows) on dofs 0–9, blocks 1 and 2 (2 rows each) on dofs 10–19, two contacts on all dofs.
  // Block 1 repeats a row with a different right-hand side: only the group {1, 2} is named.
  std::mt19937 rng(9);
  std::normal_distribution<double> normal(0.0, 1.0);
  MixedFrictionContactProblem p;
  p.dim = 3;
  p.equality_start = {0, 3, 5, 7};
  const Index m = 7 + 6;
  Matrix H = Matrix::Zero(m, 20);
  for (Index i = 0; i < 3; ++i)
    for (Index k = 0; k < 10; ++k) H(i, k) = normal(rng);
  for (Index i = 3; i < 7; ++i)
    for (Index k = 10; k < 20; ++k) H(i, k) = normal(rng);
  for (Index i = 7; i < m; ++i)
    for (Index k = 0; k < 20; ++k) H(i, k) = normal(rng);
  H.row(4) = H.row(3);
  p.W = Matrix(H * H.transpose()).sparseView();
  p.q = H * Vector::NullaryExpr(20, [&] { return normal(rng); });
  p.q.tail(6) += Vector::Constant(6, -1.0);
  p.mu = Vector::Constant(2, 0.3);
  Vector r, u;
  REQUIRE(solve(p, r, u, 1e-12).converged());
  CHECK(u.head(7).norm() <= 1e-11 * (1.0 + p.q.norm()));

  p.q[4] += 1.0;
  NsgsParameters prm;
  prm.max_iterations = 300;
  r.resize(0);
  const SolverStats bad = nsgs(p, r, u, prm);
  CHECK(bad.status == SolverStatus::MaxIterations);
  CHECK(bad.message.find("equality blocks {1, 2} (one mechanism) have rank 3 of 4") != std::string::npos);
  CHECK(bad.message.find("{0") == std::string::npos);
}
