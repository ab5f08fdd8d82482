#pragma once
// What every one-step solver returns (STYLE.md practice 7): a status that says which stopping test fired,
// the iterations, the residual in the solver family's common measure, and the wall time. A solve that did not
// converge is reported through `status`, never silently accepted by the caller.
#include <string>
#include <vector>

namespace talus::solvers {

enum class SolverStatus {
  Converged,       // residual <= tolerance
  MaxIterations,   // iteration budget spent before the tolerance was met
  RayTermination,  // Lemke: secondary ray, the LCP may have no solution (or the matrix is not copositive-plus)
  Infeasible,      // a certificate of infeasibility was found
  Diverged,        // NaN/Inf or growth beyond any sensible bound
  InvalidInput,    // dimensions or data inconsistent (message says which)
};

const char* to_string(SolverStatus s);

// Kernel profiling counters (issue 3 item 5): where a solver's time goes. Each solver fills what applies.
struct KernelCounters {
  long sweeps = 0;              // Gauss–Seidel sweeps / outer iterations
  long local_iterations = 0;    // local Newton iterations summed over contacts and sweeps
  long linear_solves = 0;       // sparse direct solves (global Newton)
  long factorizations = 0;      // numeric factorisations
  double local_seconds = 0.0;   // time in per-contact local solves
  double matvec_seconds = 0.0;  // time in matrix–vector work (W r, row products)
  double linear_seconds = 0.0;  // time in factorisations and solves
  long colours = 0;             // coloured (parallel) Gauss–Seidel: colour classes per sweep
};

struct SolverStats {
  SolverStatus status = SolverStatus::InvalidInput;
  int iterations = 0;         // sweeps (Gauss–Seidel), pivots (Lemke), Newton steps
  double residual = 0.0;      // common residual measure of the problem family, see the problem header
  double seconds = 0.0;       // wall time of solve()
  std::string message;        // human-readable detail for failures
  std::vector<double> residual_history;  // filled when the parameters ask for it
  KernelCounters counters;

  bool converged() const { return status == SolverStatus::Converged; }
};

}  // namespace talus::solvers
