#pragma once
// Global semismooth Newton on the Alart–Curnier formulation of the friction-contact problem (issue 3, seed 004;
// Alart & Curnier 1991, Christensen–Klarbring–Pang–Strömberg 1998). The unknown is r alone, u = W r + q being
// substituted, so one step solves
//   (A + B W + λ I) d = −Φ(W r + q, r),   A, B block-diagonal (AlartCurnier.hpp),
// with a SuiteSparse direct solver whose symbolic analysis is done once (the pattern of A + B W is the block
// pattern of W plus the diagonal blocks, fixed for the whole solve) and whose numeric factorisation is redone
// each step. λ ≥ 0 is a Levenberg–Marquardt-type regularisation, needed because W is singular whenever
// contacts outnumber the degrees of freedom and sticking contacts put rows of W into the Jacobian.
// Globalisation: a non-monotone (Grippo–Lampariello–Lucidi) Armijo line search on ψ = ½‖Φ‖², and an escape
// through a burst of APGD when the iteration stagnates.
// The stopping test is the common residual friction_residual (FrictionContactProblem.hpp).
// Full description and measured results: docs/semismooth-newton.md.
#include "solvers/core/DelassusOperator.hpp"
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/core/SolverParameters.hpp"
#include "solvers/core/SolverStats.hpp"
#include "solvers/fc/AlartCurnier.hpp"

namespace talus::solvers {

enum class NewtonLinearSolver {
  Umfpack,  // Eigen::UmfPackLU: multifrontal LU, robust pivoting
  Klu,      // Eigen::KLU: left-looking LU with BTF, cheaper on very sparse Jacobians
};

enum class AlartCurnierRhoScaling {
  DiagonalBlocks,  // ρ_N = 1/W_NN, ρ_T = (dim−1)/trace(W_TT) per contact (alart_curnier_rho_from_block)
  Unit,            // ρ_N = ρ_T = 1 for every contact
};

struct SemismoothNewtonParameters : SolverParameters {
  NewtonLinearSolver linear_solver = NewtonLinearSolver::Umfpack;
  AlartCurnierVariant variant = AlartCurnierVariant::Standard;
  AlartCurnierRhoScaling rho_scaling = AlartCurnierRhoScaling::DiagonalBlocks;
  double rho_factor = 1.0;  // multiplies every ρ_N and ρ_T (dimensionless)

  // Non-monotone Armijo: accept step t when ψ(r + t d) ≤ max of the last `line_search_memory` merits
  // + σ t ∇ψ·d. Memory 1 is the classical monotone Armijo rule.
  int line_search_memory = 10;
  double armijo_sigma = 1e-4;
  double backtrack_factor = 0.5;
  double min_step = 1e-12;  // below this the step is rejected and λ is raised instead

  // Regularisation λ_k = clamp(regularization_factor · residual_k, regularization_min, regularization_max),
  // dimensionless because the ρ scaling gives the Jacobian unit-size rows. It is raised (×100) when a
  // factorisation fails or a line search fails, and relaxed again once steps are accepted.
  double regularization_min = 1e-12;
  double regularization_max = 1e-2;
  double regularization_factor = 1.0;

  // Stagnation escape: when the common residual has not fallen below stagnation_ratio × its value at the
  // start of a window of stagnation_window iterations, up to escape_iterations of APGD (Apgd.hpp) are run from
  // the best iterate, every ρ is rescaled (×10, ×0.1, ×100, ×0.01, ×1, cycling) and Newton resumes from APGD's
  // answer. Newton on ψ can stall at a non-zero stationary point of the merit; a projected-gradient method is
  // not attracted there, and the stationary points of ψ move with ρ while its zeros do not. 0 disables it.
  int stagnation_window = 30;
  double stagnation_ratio = 0.5;
  int escape_iterations = 200;
};

// Solves the problem from the warm start r (resized to zero if its size is wrong); on return r is the best
// iterate found (lowest common residual) and u = W r + q. Counters: iterations (= sweeps), linear_solves,
// factorizations (failed ones included), linear_seconds (factorisations + solves), matvec_seconds.
// The message says how many factorisations failed or line searches were rescued by regularisation.
SolverStats semismooth_newton(const FrictionContactProblem& problem, Vector& r, Vector& u,
                              const SemismoothNewtonParameters& params = {});

// The same on either form of the operator (solvers/core/DelassusOperator.hpp). Newton's Jacobian needs W's
// entries: a factored operator forms W once (DelassusOperator::assembled), which the message says.
SolverStats semismooth_newton(const DelassusOperator& op, Vector& r, Vector& u,
                              const SemismoothNewtonParameters& params = {});

}  // namespace talus::solvers
