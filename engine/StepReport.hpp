#pragma once
// What one integrator step reports: time, solver statistics, active set size, and the discrete energy terms of
// seed 000 eqs 74–104 so that the balance identities (eq 84, 88, …) can be checked to round-off and plotted.
#include <stdexcept>
#include <string>

#include "engine/StepProfile.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus {

struct EnergyReport {
  double kinetic = 0.0;     // ½ vᵀ M v (+ rigid bodies' ½ m|v|² + ½ ωᵀ I ω)
  double potential = 0.0;   // ½ qᵀ K q (+ nonlinear systems' potential callbacks)
  double external_work = 0.0;  // this step's discrete supply W̄ᵉˣᵗ (eq 83: h v_{k+θ}ᵀ F_{k+θ}), gravity included
  double contact_work = 0.0;   // this step's U_{k+θ}ᵀ P_{k+1} (eq 84) or U_{k+1/2}ᵀ P_{k+1} (eq 88)
  double numerical_dissipation = 0.0;  // (½ − θ)[‖Δv‖²_M + ‖Δq‖²_K] (eq 84) or its variant
  double damping_work = 0.0;   // this step's −h v_{k+θ}ᵀ C v_{k+θ} (LTI damping; 0 when C = 0)
  // Storage a scheme keeps beyond E (engine/schemes: Newmark's (h²/4)(2β − γ) aᵀMa of eq 93, HHT's extra
  // term of eq 103); 0 for Moreau–Jean. The balance is then written on E + algorithmic.
  double algorithmic = 0.0;
  // Balance (exact for LTI systems and rigid bodies, see MoreauJean.cpp):
  //   ΔE − external_work = numerical_dissipation + contact_work + damping_work.
  double total() const { return kinetic + potential; }
};

struct StepReport {
  double time = 0.0;    // t_{k+1}
  long step = 0;        // k + 1
  double h = 0.0;       // the step taken, t_{k+1} − t_k [s] (adaptive schemes: the accepted step's size)
  int active = 0;       // interactions in the one-step problem (forecast ḡ <= 0, or equalities)
  solvers::SolverStats solver;
  int newton_iterations = 0;
  EnergyReport energy;
  // Wall and CPU time of each stage of the step (StepProfile.hpp's phases; a Newton loop's stages summed).
  PhaseSeconds phase_seconds{}, phase_cpu_seconds{};
};

// A step that could not be completed (non-converged solve, NaN, singular iteration matrix).
struct StepFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What an integrator does with a step it could not complete, said the same way by every integrator (issue 11
// item 3; engine/Integrator.hpp): RollBack leaves the model exactly as it was before the step and throws
// StepFailure, whose message names the step, its time and the body or contact where it failed; Keep applies the
// step anyway and says so in the report (solver status not Converged, and the same message), for benches and
// studies of a solver's failures. Every scheme's parameters carry it (on_failure); the adaptive, event-capturing
// and event-driven schemes roll back only (SchemeSelection.hpp says why). A step that cannot be computed at all
// (a singular iteration matrix) throws under either policy.
enum class FailurePolicy { RollBack, Keep };

}  // namespace talus
