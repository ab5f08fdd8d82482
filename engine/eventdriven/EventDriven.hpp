#pragma once
// The event-driven (event-tracking) scheme of seed 000 slides 7–31 with the index sets of seed 002 / 003,
// over a Model's frictionless interactions (bilateral EqualityLaw rows and unilateral Newton impact rows):
//  1. smooth phases: an adaptive DAE integrator (HEM5 by default, RKF45 or generalized-α) with the active
//     rows = bilateral rows ∪ I₂ (seed 000 eq 29, seed 002 eq 3), I₂ constant over the phase;
//  2. event detection on the dense output of every step: root of g for inactive contacts, root of λ for
//     closed ones (slide "Comments": the cases 1.4, 1.5 and 2.2.2 disappear), located by Brent's method;
//  3. at an event: I₁ from the gaps, the impact LCP (eq 27) with Newton's law if a contact of I₁ approaches,
//     then the acceleration LCP (eq 28) on the contacts of I₁ at rest, whose solution decides I₂ (λ > 0 stays
//     closed, Γ > 0 leaves, λ = Γ = 0 is the undetermined case, counted and resolved as leaving).
// Thresholds are relative to scales of the problem — a length L, a time T and the velocity L/T — and are
// documented in docs/event-driven.md. A finite accumulation of impacts (the bouncing ball at t = 3) is
// handled by switching a contact to rest when its next flight would be shorter than min_flight_time · T,
// so the scheme never stalls; the impacts before that are tracked one by one to round-off.
#include <functional>
#include <memory>
#include <vector>

#include "engine/Model.hpp"
#include "engine/StepReport.hpp"
#include "engine/eventdriven/AdaptiveDae.hpp"
#include "solvers/lcp/LcpSolver.hpp"

namespace talus::eventdriven {

struct EventDrivenParameters {
  DaeOptions dae;                      // smooth phases (method, tolerance, safety, min step, drift guard)
  double length_scale = 0.0;           // L [m]; 0 = from the initial state (docs/event-driven.md)
  double time_scale = 0.0;             // T [s]; 0 = sqrt(L / A), A the free acceleration scale at start
  double gap_tolerance = 1e-10;        // |g| <= gap_tolerance · L counts as closed (I₁)
  double velocity_tolerance = 1e-10;   // |U| <= velocity_tolerance · L/T counts as zero (I₂)
  double min_flight_time = 1e-9;       // a lift-off whose predicted flight is shorter than this · T rests
  double multiplier_tolerance = 1e-9;  // λ, Γ relative to their scale in the acceleration LCP
  double edge_rcond = 1e-8;            // W of the I₂ candidates with λ_min < this · λ_max: an edge (seed 002 §4)
  int samples_per_step = 8;            // dense-output samples per step to bracket roots of g and λ
  int max_events_without_progress = 200;  // events closer than min_flight_time · T in a row before failing
  solvers::LcpSolverOptions lcp;       // impact and acceleration LCPs (Lemke by default)
};

enum class EventKind { Impact, Closing, Release, Rest };
const char* to_string(EventKind k);

struct EventRecord {
  double time = 0.0;
  EventKind kind = EventKind::Impact;
  int interaction = -1;
  double U_minus = 0.0;  // normal velocity before (impacts)
  double U_plus = 0.0;   // and after
  double impulse = 0.0;  // P (impacts), λ (closings)
};

struct EventDrivenReport {
  long smooth_steps = 0;       // accepted DAE steps (including those cut at an event)
  long events = 0;             // event times handled
  long impacts = 0;
  long closings = 0;           // contacts entering I₂
  long releases = 0;           // contacts leaving I₂
  long rest_switches = 0;      // lift-offs replaced by rest (accumulation)
  long undetermined = 0;       // λ = Γ = 0 cases of the acceleration LCP
  long edge_fallbacks = 0;     // acceleration LCPs at a geometric singularity (seed 002 §4.2.1)
  long lcp_solves = 0;
  long event_function_evaluations = 0;
  DaeWork work;                // of the smooth phases
  std::vector<EventRecord> log;
};

class EventDriven {
 public:
  EventDriven(Model& model, const EventDrivenParameters& params);
  ~EventDriven();
  EventDriven(const EventDriven&) = delete;
  EventDriven& operator=(const EventDriven&) = delete;

  // Integrates from the model's current time to t_end and writes the state back into the model. Throws
  // talus::StepFailure when a smooth phase or an event problem cannot be solved, or when events stop making
  // progress (more than max_events_without_progress within min_flight_time · T).
  void advance_to(double t_end);

  double time() const;
  const EventDrivenReport& report() const;
  std::vector<int> closed_interactions() const;  // unilateral interactions in I₂ now
  // The multiplier λ of an interaction's normal row in the current smooth phase (0 when it is not active)
  // and the global accelerations v̇, both consistent with the current state (index-1 solve).
  double multiplier(int interaction) const;
  const Vector& acceleration() const;
  double length_scale() const;
  double time_scale() const;
  // Called after each event with the records it produced.
  std::function<void(const EventRecord&)> on_event;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace talus::eventdriven
