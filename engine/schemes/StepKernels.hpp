#pragma once
// Small kernels shared by the second-order schemes' steps: row selection of the constraint Jacobian, the
// one-step MLCP solve with its failure policy, and the Newton increment measure.
#include <vector>

#include "engine/StepReport.hpp"
#include "solvers/lcp/LcpSolver.hpp"

namespace talus {

// Rows `rows` of J, in that order (J is row-major, so this copies contiguous row slices).
void select_rows(const SparseMatrix& J, const std::vector<Index>& rows, SparseMatrix& out);

// Solves the one-step MLCP into z; throws StepFailure naming the scheme and the solver status when it is not
// Converged. Stats go to report.solver (iterations and time accumulated over Newton iterations).
void solve_step_mlcp(const solvers::LcpProblem& problem, const solvers::LcpSolverOptions& options,
                     solvers::LcpWorkspace& workspace, const char* scheme, Vector& z, Vector& w, StepReport& report);

// max(‖x₁ − x₀‖∞ / (1 + ‖x₁‖∞), ‖y₁ − y₀‖∞ / (1 + ‖y₁‖∞)): the Newton stopping measure.
double increment_measure(const Vector& x0, const Vector& x1, const Vector& y0, const Vector& y1);

// Throws StepFailure("<scheme>: non-finite state at t = …") when q or v holds a NaN or Inf.
void require_finite_state(const Vector& q, const Vector& v, double t, const char* scheme);

}  // namespace talus
