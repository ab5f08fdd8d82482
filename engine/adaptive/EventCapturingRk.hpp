#pragma once
// The higher-order event-capturing time-stepping scheme of seed 000 slides 108–117 (after Mannshardt 1978 and
// Acary 2009): an ODE solver of order p in the smooth phases, Moreau–Jean on a short interval that contains
// the event, the whole repeated on the rest of the step for accumulations.
//
// One step [t_k, t_k + h]:
//  1. If a contact touches (g ≤ 2 g_tol) and approaches (h U < −g_tol), the event is at the start of the
//     interval (an impact on the grid): one Moreau–Jean step over [t, t + c h^{p+1}]. If a contact is closed
//     (g ≤ 2 g_tol and g + h U ≤ 2 g_tol: touching and not leaving within the step, the activation rule of
//     Moreau–Jean's eq 41e restricted to touching contacts), the active set is not empty and the rest of the
//     step is one Moreau–Jean step (resting contact, and the end of an accumulation).
//  2. Otherwise the classical Runge–Kutta method (p = 4) integrates the unconstrained dynamics M q̈ = f(t, q,
//  q̇)
//     (eq 131 with I = ∅) over the rest of the step. If a gap ends below its start level min(g_tol, g(t)) — a
//     gap left below g_tol by a Moreau–Jean step is measured from there, and an impact that falls on the end
//     of the step is caught in this step, not left to the next — the first crossing is bracketed by Illinois
//     regula falsi on the RK solution of the same start state (one RK step of the trial length per iteration)
//     down to [t_a, t_b] with |t_b − t_a| ≤ c h^{p+1} (eq 130).
//  3. RK over [t_k, t_a]; one Moreau–Jean step over [t_a, t_b] (the impact, Newton's law); then back to 1 on
//     [t_b, t_k + h]: "repeat the whole process on the remaining part of the interval" (slide 116).
// The local error in the coordinates is O(h^{p+1}) when events are transversal and isolated (eq 136); the
// velocity jump is Moreau–Jean's, exact for one impact in [t_a, t_b].
//
// Scope: LTI and nonlinear Lagrangian systems with unilateral contacts (no rigid bodies, whose coordinates
// are not integrated by q̇ = v, and no equalities, which the unconstrained RK phase would violate): other
// models are rejected with std::invalid_argument. A gap that dips below zero and comes back within one RK
// step is not seen (the seed's one-event-per-step assumption). More than max_events_per_step events in one
// step throw StepFailure (an accumulation the closed-contact test did not catch).
#include <Eigen/SparseCholesky>
#include <vector>

#include "engine/ConstraintAssembly.hpp"
#include "engine/DofLayout.hpp"
#include "engine/Model.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/StepReport.hpp"

namespace talus {

struct EventCapturingParameters {
  double h = 1e-2;  // the step [s]
  // θ, γ and the one-step solver of the Moreau–Jean steps (its h is set per step; its activation tolerance is
  // raised to 2 contact_gap_tolerance so that a contact held closed, or just located, is active in them).
  MoreauJeanParameters moreau_jean;
  // c of eq 130, |t_b − t_a| ≤ c h^{p+1} [s^{−p}]; the interval never goes below a few ulps of t.
  double event_interval_scale = 1.0;
  // g_tol of the closed-contact test [length]: well below the problem's length scale, above round-off.
  double contact_gap_tolerance = 1e-10;
  int max_events_per_step = 10000;
};

void validate(const EventCapturingParameters& p);

struct EventCapturingStats {
  long steps = 0;              // completed steps of size h
  long rk_steps = 0;           // RK steps, root-finding trials included
  long force_evaluations = 0;  // RK stages (4 per RK step)
  long moreau_jean_steps = 0;  // one-step solves: event intervals and closed-contact steps
  long events = 0;             // located events (each followed by one short Moreau–Jean step)
  long closed_contact_steps = 0;
  long root_iterations = 0;
  // The work in one unit across schemes: dynamics evaluations, one per RK stage or Moreau–Jean step.
  long work() const { return force_evaluations + moreau_jean_steps; }
};

class EventCapturingRk {
 public:
  static constexpr int order = 4;  // p of the classical RK method

  // Keeps a reference to `model`. Throws std::invalid_argument for bad parameters or an unsupported model.
  EventCapturingRk(Model& model, const EventCapturingParameters& params);

  // Advances the model by h. Propagates StepFailure from the Moreau–Jean steps.
  void step();

  const EventCapturingStats& stats() const { return stats_; }
  const EventCapturingParameters& parameters() const { return p_; }

 private:
  // One RK step of length tau from (t, q, v).
  void rk4(double t, const Vector& q, const Vector& v, double tau, Vector& q1, Vector& v1);
  void acceleration(double t, const Vector& q, const Vector& v, Vector& a);
  // min over contacts of g_i(q) − min(g_tol, g_i at the sub-step start).
  double event_function(const Vector& q);
  // Contacts touching at the current sub-step start (g ≤ 2 g_tol): Impact if one approaches by more than
  // g_tol over a step, else Closed if one stays within 2 g_tol over a step, else Open.
  enum class ContactState { Open, Closed, Impact };
  ContactState touching_contacts();
  StepFailure too_many_events(double t_end) const;
  void store_interactions();

  Model& model_;
  EventCapturingParameters p_;
  MoreauJean moreau_jean_;
  DofLayout layout_;
  std::vector<int> contacts_;
  ConstraintRows rows_;
  SparseMatrixCol mass_;
  Eigen::SimplicialLDLT<SparseMatrixCol> mass_factor_;
  bool constant_mass_ = true;
  Vector q_, v_, q1_, v1_, qa_, va_, qc_, vc_, g_, g_start_, U_, f_;
  Vector k1q_, k1v_, k2q_, k2v_, k3q_, k3v_, k4q_, k4v_, Q_, V_;
  EventCapturingStats stats_;
};

}  // namespace talus
