#pragma once
// The one interface through which the engine solves its one-step (mixed) LCPs (issue 2 item 4): a method
// choice and the settings all LCP solvers share, dispatched to Lemke, PSOR, the dual active-set method (symmetric
// positive semidefinite matrices, no equality rows) or the enumeration oracle. Every
// method reports the common residual lcp_residual (solvers/core/LcpProblem.hpp), so results compare.
#include "solvers/core/LcpProblem.hpp"
#include "solvers/core/SolverStats.hpp"
#include "solvers/lcp/DualActiveSet.hpp"
#include "solvers/lcp/Lemke.hpp"
#include "solvers/lcp/Psor.hpp"

namespace talus::solvers {

enum class LcpMethod { Lemke, Psor, DualActiveSet, Enumeration };

const char* to_string(LcpMethod m);

struct LcpSolverOptions {
  LcpMethod method = LcpMethod::Lemke;
  double tolerance = 1e-12;     // PSOR: on lcp_residual; Lemke, dual active set: acceptance × round-off scale
  int max_iterations = 10000;   // PSOR: sweeps; Lemke: pivots; dual active set: adds + drops
  double relaxation = 1.0;      // PSOR only
  bool record_history = false;  // PSOR only
};

// Buffers of every method, kept by a caller that solves once per time step so that steady-state solves do
// not allocate (the enumeration oracle, tests only, always allocates).
struct LcpWorkspace {
  LemkeWorkspace lemke;
  PsorWorkspace psor;
  DualActiveSetWorkspace dual_active_set;
};

// z: warm start for PSOR (ignored by the direct methods); z and w are resized to p.size().
SolverStats solve_lcp(const LcpProblem& p, Vector& z, Vector& w, const LcpSolverOptions& options,
                      LcpWorkspace& workspace);
SolverStats solve_lcp(const LcpProblem& p, Vector& z, Vector& w, const LcpSolverOptions& options);

}  // namespace talus::solvers
