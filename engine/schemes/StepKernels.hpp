#pragma once
// Small kernels shared by the second-order schemes' steps: row selection of the constraint Jacobian, the
// one-step MLCP solve, and the Newton increment measure.
#include <string>
#include <vector>

#include "engine/StepReport.hpp"
#include "solvers/lcp/LcpSolver.hpp"

namespace talus {

// Rows `rows` of J, in that order (J is row-major, so this copies contiguous row slices).
void select_rows(const SparseMatrix& J, const std::vector<Index>& rows, SparseMatrix& out);

// Solves the one-step MLCP into z. Stats go to report.solver (iterations and time accumulated over Newton
// iterations; an empty problem is Converged). Returns false when it did not converge: the caller then fails the
// step by its policy (engine/Integrator.hpp's solve_failed) with unsolved_mlcp's words and the interactions.
bool solve_step_mlcp(const solvers::LcpProblem& problem, const solvers::LcpSolverOptions& options,
                     solvers::LcpWorkspace& workspace, Vector& z, Vector& w, StepReport& report);

// "one-step MLCP of size 12 not solved (max_iterations, residual 0.001): <the solver's message>".
std::string unsolved_mlcp(const solvers::LcpProblem& problem, const solvers::SolverStats& stats);

// max(‖x₁ − x₀‖∞ / (1 + ‖x₁‖∞), ‖y₁ − y₀‖∞ / (1 + ‖y₁‖∞)): the Newton stopping measure.
double increment_measure(const Vector& x0, const Vector& x1, const Vector& y0, const Vector& y1);

}  // namespace talus
