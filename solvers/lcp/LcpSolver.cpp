// Dispatch of solve_lcp to the chosen method; see LcpSolver.hpp.
#include "solvers/lcp/LcpSolver.hpp"

#include "solvers/lcp/EnumerationLcp.hpp"

namespace talus::solvers {

const char* to_string(LcpMethod m) {
  switch (m) {
    case LcpMethod::Lemke:
      return "lemke";
    case LcpMethod::Psor:
      return "psor";
    case LcpMethod::DualActiveSet:
      return "dual_active_set";
    case LcpMethod::Enumeration:
      return "enumeration";
  }
  return "unknown";
}

SolverStats solve_lcp(const LcpProblem& p, Vector& z, Vector& w, const LcpSolverOptions& options,
                      LcpWorkspace& workspace) {
  switch (options.method) {
    case LcpMethod::Lemke: {
      LemkeParameters params;
      params.max_pivots = options.max_iterations;
      params.acceptance_tolerance = options.tolerance;
      return solve_lemke(p, z, w, params, workspace.lemke);
    }
    case LcpMethod::Psor: {
      PsorParameters params;
      params.tolerance = options.tolerance;
      params.max_iterations = options.max_iterations;
      params.relaxation = options.relaxation;
      params.record_history = options.record_history;
      return solve_psor(p, z, w, params, workspace.psor);
    }
    case LcpMethod::DualActiveSet: {
      DualActiveSetParameters params;
      params.max_steps = options.max_iterations;
      params.acceptance_tolerance = options.tolerance;
      return solve_dual_active_set(p, z, w, params, workspace.dual_active_set);
    }
    case LcpMethod::Enumeration:
      return solve_lcp_by_enumeration(p, z, w);
  }
  SolverStats stats;
  stats.message = "solve_lcp: unknown method";
  return stats;
}

SolverStats solve_lcp(const LcpProblem& p, Vector& z, Vector& w, const LcpSolverOptions& options) {
  LcpWorkspace workspace;
  return solve_lcp(p, z, w, options, workspace);
}

}  // namespace talus::solvers
