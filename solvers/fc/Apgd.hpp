#pragma once
// Accelerated projected gradient (APGD) for the friction-contact problem: Nesterov's method with adaptive
// restart on the cone-complementarity form, after Mazhar, Heyn, Negrut & Tasora, "Using Nesterov's method to
// accelerate multibody dynamics with friction and contact", ACM TOG 34(3), 2015 (their Algorithm APGD: step
// 1/L with backtracking L ← 2L, relaxation L ← 0.9 L, restart when gᵀ(γ_{k+1} − γ_k) > 0, best iterate kept).
// Issue 3 wants it for comparison on large problems: each iteration is one product with W and a projection
// per contact, no factorisation.
//
// APGD minimises ½ rᵀ W r + (q + s)ᵀ r over r ∈ Π K_μ, whose optimality conditions are the cone-complementarity
// problem K* ∋ W r + q + s ⟂ r ∈ K. With s = 0 that is the convex relaxation (Anitescu–Tasora), whose
// solution is not Coulomb's: a sliding contact also separates, u_N = μ‖u_T‖ > 0. With s_i = μ_i ‖u_T,i‖ n it is
// exactly the De Saxcé problem; the default mode therefore wraps APGD in the fixed point on s (Acary, Cadoux,
// Lemaréchal & Malick 2011): freeze s from the current u, solve the convex problem approximately, update s.
// Convergence is tested on the common De Saxcé residual every iteration in both modes.
// Details and measurements: docs/semismooth-newton.md (section APGD).
#include "solvers/core/DelassusOperator.hpp"
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/core/SolverParameters.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus::solvers {

enum class ApgdCoulombMode {
  DeSaxceFixedPoint,  // outer fixed point on s = μ‖u_T‖: converges to the Coulomb (De Saxcé) solution
  ConvexRelaxation,   // s = 0: the cone-complementarity relaxation; the common residual then measures its bias
};

struct ApgdParameters : SolverParameters {
  ApgdCoulombMode mode = ApgdCoulombMode::DeSaxceFixedPoint;
  bool adaptive_restart = true;    // gradient restart of the momentum (Mazhar et al. 2015, line 18)
  int power_iterations = 20;       // iterations of the power method estimating ‖W‖₂, the initial L
  double step_relaxation = 0.9;    // L ← step_relaxation · L after each iteration, lets the step grow again
  double backtrack_factor = 2.0;   // L ← backtrack_factor · L while the sufficient-decrease test fails
  bool block_scaling = true;       // solve in variables r_i = sqrt(d_i) z_i, d_i = 1 / max diag of W's block i:
                                   // a per-contact scalar keeps every cone unchanged and equalises the blocks
  // Fixed point on s: the convex subproblem is solved until its own natural-map residual falls below
  // inner_tolerance_ratio × the current De Saxcé residual (or inner_max_iterations), then s is refreshed.
  double inner_tolerance_ratio = 0.5;
  int inner_max_iterations = 1000;
};

// Solves from the warm start r (resized to zero if its size is wrong); on return r is the best iterate found
// (lowest common residual) and u = W r + q. iterations and counters.sweeps count APGD iterations;
// counters.matvec_seconds the products with W.
SolverStats apgd(const FrictionContactProblem& problem, Vector& r, Vector& u, const ApgdParameters& params = {});

// The same on either form of the operator (solvers/core/DelassusOperator.hpp): APGD needs products with W only,
// so the factored form (FactoredDelassus.hpp) runs without W ever being formed. The iterates are those of the
// assembled form up to round-off.
SolverStats apgd(const DelassusOperator& op, Vector& r, Vector& u, const ApgdParameters& params = {});

}  // namespace talus::solvers
