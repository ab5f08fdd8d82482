// Exhaustive active-set enumeration; see EnumerationLcp.hpp. Deliberately shares no code with Lemke or PSOR
// (not even the MLCP reduction) so that it stays an independent oracle for their tests.
#include "solvers/lcp/EnumerationLcp.hpp"

#include "solvers/core/AcceptProblem.hpp"

#include <Eigen/LU>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/lcp/RoundoffScale.hpp"

namespace talus::solvers {
namespace {

// Same round-off acceptance as Lemke's default (RoundoffScale.hpp).
constexpr double kAcceptanceTolerance = 1e-10;

}  // namespace

SolverStats solve_lcp_by_enumeration(const LcpProblem& p, Vector& z, Vector& w) {
  const auto start = std::chrono::steady_clock::now();
  SolverStats stats;
  if (!accept_problem(p, stats)) return stats;
  const Index n = p.size();
  if (n > kEnumerationMaxSize) {
    stats.status = SolverStatus::InvalidInput;
    stats.message = "enumeration LCP: n = " + std::to_string(n) + " exceeds the limit of " +
                    std::to_string(kEnumerationMaxSize) + " (2^n dense solves)";
    return stats;
  }
  const Matrix M = Matrix(p.M);
  const double M_norm = max_row_abs_sum(p.M);
  const Index ne = p.n_equality;
  const Index ni = n - ne;
  std::vector<Index> active;
  active.reserve(n);
  Matrix M_active;
  Vector rhs;
  Eigen::FullPivLU<Matrix> lu;
  z.resize(n);
  w.resize(n);
  stats.status = SolverStatus::Infeasible;
  for (unsigned long mask = 0; mask < (1ul << ni); ++mask) {
    ++stats.iterations;
    active.clear();
    for (Index i = 0; i < ne; ++i) active.push_back(i);
    for (Index k = 0; k < ni; ++k)
      if (mask & (1ul << k)) active.push_back(ne + k);
    const Index m = static_cast<Index>(active.size());
    M_active.resize(m, m);
    rhs.resize(m);
    for (Index a = 0; a < m; ++a) {
      rhs[a] = -p.q[active[a]];
      for (Index b = 0; b < m; ++b) M_active(a, b) = M(active[a], active[b]);
    }
    z.setZero();
    if (m > 0) {
      lu.compute(M_active);
      if (!lu.isInvertible()) continue;
      const Vector z_active = lu.solve(rhs);
      for (Index a = 0; a < m; ++a) z[active[a]] = z_active[a];
    }
    const double residual = lcp_residual(p, z);
    if (residual <= kAcceptanceTolerance * roundoff_scale(M_norm, z, p.q)) {
      stats.status = SolverStatus::Converged;
      stats.residual = residual;
      break;
    }
  }
  if (stats.status != SolverStatus::Converged) {
    z.setZero();
    stats.residual = lcp_residual(p, z);
    stats.message = "enumeration LCP: none of the " + std::to_string(stats.iterations) +
                    " complementary active sets gives a solution";
  }
  w.noalias() = p.M * z;
  w += p.q;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace talus::solvers
