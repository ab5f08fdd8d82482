#pragma once
// The one-step nonsmooth problem of Moreau–Jean-type schemes, from the assembled rows to the impulses:
//
//   U_{k+1} = W P + J v_free,   W = J M̂⁻¹ Jᵀ,
//   Newton impact rows:     0 <= U_{k+1} + e U_k  ⟂  P >= 0            (seed 000 eqs 40, 41d; eq 87)
//   equality rows:          U_{k+1} = 0,  P free
//   Newton + Coulomb rows:  the friction-contact problem of solvers/core/FrictionContactProblem.hpp with
//                           q_N = (J v_free)_N + e U_{k,N}                (seed 004 eq 31)
//
// Dispatch: no friction → a mixed LCP (equality rows first) for Lemke or PSOR (solvers/lcp/LcpSolver.hpp;
// OneStepSolverKind::Nsgs falls back to PSOR, which is projected Gauss–Seidel on these one-row blocks);
// 2-D friction → the exact LCP form (solvers/lcp/Fc2dAsLcp.hpp) for Lemke, NSGS otherwise (that LCP has zero
// diagonal entries on its slack rows, which PSOR cannot handle; NSGS is PSOR's block version);
// 3-D friction → NSGS (solvers/fc/Nsgs.hpp) whatever the kind. Frictionless contacts among frictional ones are μ = 0 blocks
// (their tangential rows are padded with a unit diagonal and q = 0, so the reaction there is 0).
// Equality rows with friction (a mechanism touching frictional contacts, issue 11) → the friction-contact problem
// with equality blocks, one block per equality interaction (solvers/fc/MixedNsgs.hpp: the joints of each
// mechanism solved together and exactly, U_E = 0, the local Coulomb solve for the contacts), whatever the kind
// and the dim: no LCP form of it is built for Lemke. A failure names the equality interactions behind the
// solver's blocks.
// A solve that does not converge fails by settings.on_failure (engine/Integrator.hpp's step_failed): RollBack
// throws StepFailure with the solver's status, residual, iterations and the active interactions; Keep returns
// the stats with that message and the solver's last iterate in P.
#include <string>
#include <vector>

#include "engine/ConstraintAssembly.hpp"
#include "engine/MoreauJean.hpp"
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/core/LcpProblem.hpp"

namespace talus {

struct OneStepSolveSettings {
  OneStepSolverKind kind = OneStepSolverKind::Lemke;
  double tolerance = 1e-12;
  int max_iterations = 10000;
  // Named in failure messages only (no string is built on the successful path).
  const char* scheme = "one-step";
  long step = 0;      // the step being taken (k + 1)
  double time = 0.0;  // t_k
  double h = 0.0;     // t_{k+1} − t_k
  FailurePolicy on_failure = FailurePolicy::RollBack;
};

// Reused buffers of the one-step solve.
struct OneStepWorkspace {
  std::vector<Index> order;        // problem row → constraint row (or −1 for padding)
  std::vector<Index> problem_row;  // constraint row → problem row
  std::vector<Triplet> triplets;
  solvers::LcpProblem lcp;
  solvers::FrictionContactProblem fc;
  solvers::MixedFrictionContactProblem mixed;
  std::vector<int> equalities;  // mixed problem: equality block → interaction
  Vector z, w, r, u;
};

// rows: the active interactions' rows; W: their Delassus matrix; Jv_free = J v_free; U_k = J v_k (same rows).
// Warm start from Interaction::impulse when its size matches. P receives the impulses (rows).
solvers::SolverStats solve_one_step(const Model& model, const ConstraintRows& rows, const SparseMatrix& W,
                                    const Vector& Jv_free, const Vector& U_k, const OneStepSolveSettings& settings,
                                    OneStepWorkspace& ws, Vector& P);

}  // namespace talus
