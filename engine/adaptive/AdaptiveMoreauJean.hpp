#pragma once
// Adaptive time-step control for the Moreau–Jean scheme (seed 000 slides 89–107): step doubling (eqs
// 108–109), the order-0 estimate of eq 127 for steps that contain an impact, the error measure and controller
// of eqs 110–113, and the constraint-violation control of eqs 128–129. The scheme itself is
// engine/MoreauJean: every try is MoreauJean::step() on the model, between saves and restores of its state
// (StateSnapshot.hpp).
//
// One try from (t, x₀) with step h: one step of size h gives x₁, two steps of size h/2 give x_{1/2}; the
// local error of x_{1/2} is estimated as
//   order p ≥ 1:  e = (x_{1/2} − x₁) / (2^p − 1)          (eq 109)
//   order 0:      e = 2 (x_{1/2} − x₁)                      (eq 127)
// over all coordinates and velocities, measured by error = ‖e ∘ invtol‖∞ with invtol_i = 1/(atol + rtol
// max(|x₀,i|, |x_{1/2},i|)) (eqs 110–111), and with the violation control by
//   error = max(‖min(0, g) ∘ invtol_g‖∞, ‖e ∘ invtol‖∞)   (eqs 128–129; equalities count |g|)
// where g are the gaps at the two accepted grid points t + h/2 and t + h. error ≤ 1 accepts x_{1/2}; either
// way the next step is h min(α_max, max(α_min, α error^{−1/(p+1)})) (eq 113). The variable-order variant
// (slides 106–107) guesses p per try: 0 when the active set changes within the try (an impact or a release),
// the smooth order of the θ-scheme otherwise (2 for θ = ½ in the standard and dissipative variants, which are
// then the trapezoidal rule; 1 otherwise).
//
// Failures are never silent: a one-step problem that is not solved throws StepFailure inside a try; the try
// is then restored and retried with α_min h, and the failure is rethrown once h would drop below h_min. A try
// whose error stays above 1 at h_min is accepted and counted in min_step_hits, which the caller must report.
#include <limits>

#include "engine/DofLayout.hpp"
#include "engine/Model.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/adaptive/StateSnapshot.hpp"

namespace talus {

enum class ErrorEstimateOrder { Zero, One, Two, Variable };

struct AdaptiveMoreauJeanParameters {
  // θ, γ, variant, one-step solver; scheme.h is the first step tried [s].
  MoreauJeanParameters scheme;
  ErrorEstimateOrder order = ErrorEstimateOrder::Zero;
  double atol = 1e-6;  // eq 110, in the units of each component (coordinates and velocities alike)
  double rtol = 1e-6;  // eq 110
  // eqs 128–129. On by default: without it a contact that opens and closes again within one step (the
  // forecast of eq 41e sees it opening) is missed by the big step and by both half steps alike, and with the
  // θ = ½ scheme exact in free flight step doubling estimates a zero error: the ball tunnels.
  bool violation_control = true;
  double gap_tolerance = 1e-6;                             // [length] the tolerance on min(0, g) of eq 128
  double safety = 0.9;                                     // α of eq 113
  double min_factor = 0.2;                                 // α_min of eq 113
  double max_factor = 5.0;                                 // α_max of eq 113
  double h_min = 1e-12;                                    // [s] smallest step tried; see min_step_hits
  double h_max = std::numeric_limits<double>::infinity();  // [s]
};

// Throws std::invalid_argument naming the offending field.
void validate(const AdaptiveMoreauJeanParameters& p);

struct AdaptiveMoreauJeanStats {
  long accepted = 0;                // accepted steps (each made of two half steps)
  long rejected = 0;                // tries whose error exceeded 1, retried with a smaller step
  long one_step_solves = 0;         // MoreauJean::step() calls: 3 per try, rejected tries included (the work)
  long min_step_hits = 0;           // tries accepted at h_min with error > 1
  long solver_failures = 0;         // tries abandoned on a StepFailure and retried with a smaller step
  long zero_order_tries = 0;        // tries the variable-order variant measured with p = 0
  double max_accepted_error = 0.0;  // the largest error (eq 111/129) of an accepted step
};

class AdaptiveMoreauJean {
 public:
  // Keeps a reference to `model`, which it advances. Throws std::invalid_argument for bad parameters or a
  // model that fails Model::validate().
  AdaptiveMoreauJean(Model& model, const AdaptiveMoreauJeanParameters& params);

  // Advances the model by one accepted step, never past t_end, and returns its size. Throws StepFailure as
  // described above.
  double step(double t_end = std::numeric_limits<double>::infinity());

  // The accepted step's first half-step state (its grid point t + h/2), for callers that record both points.
  const StateSnapshot& half_step_state() const { return half_; }
  double next_step_size() const { return h_; }
  const AdaptiveMoreauJeanStats& stats() const { return stats_; }
  // The stages of the last step(), summed over its tries' Moreau–Jean steps (rejected tries included), and the
  // report of its last Moreau–Jean step (the accepted try's second half step).
  const PhaseSeconds& phase_seconds() const { return phase_seconds_; }
  const PhaseSeconds& phase_cpu_seconds() const { return phase_cpu_seconds_; }
  const StepReport& last_scheme_report() const { return scheme_.last_report(); }
  const AdaptiveMoreauJeanParameters& parameters() const { return p_; }

 private:
  struct Try {
    double error = 0.0;
    int order = 0;
    int last_active = 0;  // active interactions of the second half step
    bool failed = false;
  };
  // One step-doubling try of size h from the saved start state; leaves x_{1/2} in the model and the
  // half-step state in half_. A StepFailure is returned as failed (model restored) unless h is at h_min.
  Try attempt(double h);
  double gap_violation() const;
  int smooth_order() const;
  const StepReport& scheme_step();

  Model& model_;
  AdaptiveMoreauJeanParameters p_;
  MoreauJean scheme_;
  DofLayout layout_;
  StateSnapshot start_, half_;
  Vector q_big_, v_big_, q_small_, v_small_;
  double h_;
  int previous_active_ = -1;  // active interactions of the last accepted half step
  double half_violation_ = 0.0;
  AdaptiveMoreauJeanStats stats_;
  PhaseSeconds phase_seconds_{}, phase_cpu_seconds_{};
};

}  // namespace talus
