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

void solve_step_mlcp(const solvers::LcpProblem& problem, const solvers::LcpSolverOptions& options,
                     solvers::LcpWorkspace& workspace, const char* scheme, Vector& z, Vector& w, StepReport& report) {
  if (problem.size() == 0) {
    z.resize(0);
    w.resize(0);
    return;
  }
  const double previous_seconds = report.solver.seconds;
  const int previous_iterations = report.solver.iterations;
  report.solver = solvers::solve_lcp(problem, z, w, options, workspace);
  report.solver.seconds += previous_seconds;
  report.solver.iterations += previous_iterations;
  if (!report.solver.converged()) {
    std::ostringstream msg;
    msg << scheme << ": one-step MLCP of size " << problem.size() << " not solved at t = " << report.time << " ("
        << solvers::to_string(report.solver.status) << ", residual " << report.solver.residual << ")";
    if (!report.solver.message.empty()) msg << ": " << report.solver.message;
    throw StepFailure(msg.str());
  }
}

double increment_measure(const Vector& x0, const Vector& x1, const Vector& y0, const Vector& y1) {
  const double dx = x1.size() ? (x1 - x0).lpNorm<Eigen::Infinity>() / (1.0 + x1.lpNorm<Eigen::Infinity>()) : 0.0;
  const double dy = y1.size() ? (y1 - y0).lpNorm<Eigen::Infinity>() / (1.0 + y1.lpNorm<Eigen::Infinity>()) : 0.0;
  return std::max(dx, dy);
}

void require_finite_state(const Vector& q, const Vector& v, double t, const char* scheme) {
  if (q.allFinite() && v.allFinite()) return;
  std::ostringstream msg;
  msg << scheme << ": non-finite state at t = " << t;
  throw StepFailure(msg.str());
}

}  // namespace talus
