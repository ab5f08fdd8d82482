// Kernels shared by the second-order schemes' steps (see the header).
#include "engine/schemes/StepKernels.hpp"

#include <sstream>

namespace talus {

void select_rows(const SparseMatrix& J, const std::vector<Index>& rows, SparseMatrix& out) {
  out.resize(static_cast<Index>(rows.size()), J.cols());
  out.reserve(rows.empty() ? 0 : J.nonZeros());
  for (size_t r = 0; r < rows.size(); ++r) {
    out.startVec(static_cast<Index>(r));
    for (SparseMatrix::InnerIterator it(J, rows[r]); it; ++it) out.insertBack(static_cast<Index>(r), it.col()) = it.value();
  }
  out.finalize();
}

bool solve_step_mlcp(const solvers::LcpProblem& problem, const solvers::LcpSolverOptions& options,
                     solvers::LcpWorkspace& workspace, Vector& z, Vector& w, StepReport& report) {
  if (problem.size() == 0) {
    z.resize(0);
    w.resize(0);
    report.solver.status = solvers::SolverStatus::Converged;
    return true;
  }
  const double previous_seconds = report.solver.seconds;
  const int previous_iterations = report.solver.iterations;
  report.solver = solvers::solve_lcp(problem, z, w, options, workspace);
  report.solver.seconds += previous_seconds;
  report.solver.iterations += previous_iterations;
  // A solver that stopped before its first iterate leaves no z; a kept step (FailurePolicy::Keep) then applies
  // no impulse rather than reading past its end.
  if (z.size() != problem.size()) z.setZero(problem.size());
  return report.solver.converged();
}

std::string unsolved_mlcp(const solvers::LcpProblem& problem, const solvers::SolverStats& stats) {
  std::ostringstream msg;
  msg << "one-step MLCP of size " << problem.size() << " not solved (" << solvers::to_string(stats.status)
      << ", residual " << stats.residual << ")";
  if (!stats.message.empty()) msg << ": " << stats.message;
  return msg.str();
}

double increment_measure(const Vector& x0, const Vector& x1, const Vector& y0, const Vector& y1) {
  const double dx = x1.size() ? (x1 - x0).lpNorm<Eigen::Infinity>() / (1.0 + x1.lpNorm<Eigen::Infinity>()) : 0.0;
  const double dy = y1.size() ? (y1 - y0).lpNorm<Eigen::Infinity>() / (1.0 + y1.lpNorm<Eigen::Infinity>()) : 0.0;
  return std::max(dx, dy);
}

}  // namespace talus
