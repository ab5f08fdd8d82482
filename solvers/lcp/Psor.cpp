// Projected SOR for the (mixed) LCP; see Psor.hpp. All buffers are sized before the sweep loop; the loop
// itself only reads M row by row and writes z in place (Gauss–Seidel: row i sees this sweep's z_j, j < i).
#include "solvers/lcp/Psor.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "solvers/core/NumberText.hpp"
#include "solvers/lcp/LcpResidualInPlace.hpp"

namespace talus::solvers {
namespace {

SolverStats invalid(std::string message) {
  SolverStats stats;
  stats.status = SolverStatus::InvalidInput;
  stats.message = std::move(message);
  return stats;
}

}  // namespace

SolverStats solve_psor(const LcpProblem& p, Vector& z, Vector& w, const PsorParameters& params,
                       PsorWorkspace& workspace) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  try {
    validate(p);
  } catch (const std::invalid_argument& e) {
    return invalid(e.what());
  }
  const double omega = params.relaxation;
  if (!(omega > 0.0 && omega < 2.0))
    return invalid("PSOR: relaxation " + std::to_string(omega) + " is outside (0, 2)");
  if (params.residual_check_interval < 1) return invalid("PSOR: residual_check_interval must be >= 1");
  if (params.max_iterations < 1) return invalid("PSOR: max_iterations must be >= 1");
  const Index n = p.size();
  if (z.size() == 0) z.setZero(n);
  if (z.size() != n)
    return invalid("PSOR: warm start has " + std::to_string(z.size()) + " entries, expected " +
                   std::to_string(n));
  if (!z.allFinite()) return invalid("PSOR: warm start contains NaN or Inf");

  Vector& inverse_diagonal = workspace.inverse_diagonal;
  inverse_diagonal.resize(n);
  for (Index i = 0; i < n; ++i) {
    const double d = p.M.coeff(i, i);
    if (!(d > 0.0))
      return invalid("PSOR: M(" + std::to_string(i) + "," + std::to_string(i) + ") = " + std::to_string(d) +
                     ", projected Gauss-Seidel needs a positive diagonal");
    inverse_diagonal[i] = 1.0 / d;
  }
  for (Index i = p.n_equality; i < n; ++i) z[i] = std::max(0.0, z[i]);

  SolverStats stats;
  stats.status = SolverStatus::MaxIterations;
  if (params.record_history)
    stats.residual_history.reserve(params.max_iterations / params.residual_check_interval + 1);
  w.resize(n);
  const Index n_equality = p.n_equality;
  double matvec_seconds = 0.0;
  double residual = 0.0;
  int sweep = 0;
  while (sweep < params.max_iterations) {
    ++sweep;
    for (Index i = 0; i < n; ++i) {
      double wi = p.q[i];
      for (SparseMatrix::InnerIterator it(p.M, i); it; ++it) wi += it.value() * z[it.index()];
      const double zi = z[i] - omega * wi * inverse_diagonal[i];
      z[i] = i < n_equality ? zi : std::max(0.0, zi);
    }
    if (sweep % params.residual_check_interval != 0 && sweep != params.max_iterations) continue;
    const auto check_start = std::chrono::steady_clock::now();
    residual = lcp_residual_into(p, z, w);
    matvec_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - check_start).count();
    if (params.record_history) stats.residual_history.push_back(residual);
    if (!std::isfinite(residual)) {
      stats.status = SolverStatus::Diverged;
      stats.message = "PSOR: NaN or Inf after " + std::to_string(sweep) + " sweeps";
      break;
    }
    if (residual <= params.tolerance) {
      stats.status = SolverStatus::Converged;
      break;
    }
    if (params.time_cap_seconds > 0.0 && elapsed() > params.time_cap_seconds) {
      stats.message = "PSOR: time cap of " + std::to_string(params.time_cap_seconds) + " s reached";
      break;
    }
  }
  stats.iterations = sweep;
  stats.counters.sweeps = sweep;
  stats.counters.matvec_seconds = matvec_seconds;
  stats.residual = residual;  // the last sweep is always checked, so w and the residual belong to the final z
  if (stats.status == SolverStatus::MaxIterations && stats.message.empty())
    stats.message = "PSOR: residual " + number_text(stats.residual) + " above tolerance " +
                    number_text(params.tolerance) + " after " + std::to_string(sweep) + " sweeps";
  stats.seconds = elapsed();
  return stats;
}

SolverStats solve_psor(const LcpProblem& p, Vector& z, Vector& w, const PsorParameters& params) {
  PsorWorkspace workspace;
  return solve_psor(p, z, w, params, workspace);
}

}  // namespace talus::solvers
