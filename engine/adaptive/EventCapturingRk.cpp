// RK4 in smooth phases, event bracketing (seed 000 eq 130) and Moreau–Jean over the event interval
// (EventCapturingRk.hpp).
#include "engine/adaptive/EventCapturingRk.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>

#include "engine/StepReport.hpp"
#include "engine/SystemMatrices.hpp"

namespace talus {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// A few ulps of t: below this, two times are the same instant.
double time_resolution(double t) { return 16.0 * kEps * std::max(1.0, std::abs(t)); }

}  // namespace

StepFailure EventCapturingRk::too_many_events(double t_end) const {
  std::ostringstream os;
  os << "event-capturing scheme: more than " << p_.max_events_per_step
     << " events in the step ending at t = " << t_end
     << " (an accumulation the closed-contact test did not catch: raise contact_gap_tolerance)";
  return StepFailure(os.str());
}

void validate(const EventCapturingParameters& p) {
  auto bad = [](const std::string& what) {
    throw std::invalid_argument("event-capturing parameters: " + what);
  };
  if (!(p.h > 0.0) || !std::isfinite(p.h)) bad("h must be > 0 and finite");
  if (!(p.event_interval_scale > 0.0)) bad("event_interval_scale must be > 0");
  if (!(p.contact_gap_tolerance >= 0.0)) bad("contact_gap_tolerance must be >= 0");
  if (p.max_events_per_step < 1) bad("max_events_per_step must be >= 1");
}

namespace {

// A contact the closed-contact test holds closed must be active in the Moreau–Jean step that follows, or that
// step would let it fall through for a whole step; and an event is located where the gap crosses g_tol, so
// the forecast of the event step (eq 41e) lies at g_tol up to round-off: twice g_tol activates both for sure.
MoreauJeanParameters moreau_jean_parameters(const EventCapturingParameters& p) {
  MoreauJeanParameters mj = p.moreau_jean;
  mj.h = p.h;
  mj.activation_tolerance = std::max(mj.activation_tolerance, 2.0 * p.contact_gap_tolerance);
  return mj;
}

}  // namespace

EventCapturingRk::EventCapturingRk(Model& model, const EventCapturingParameters& params)
    : model_(model), p_((validate(params), params)), moreau_jean_(model, moreau_jean_parameters(params)) {
  model_.validate();
  if (model_.bodies.count() > 0)
    throw std::invalid_argument(
        "event-capturing scheme: rigid bodies are not supported (LTI and nonlinear only)");
  for (const Interaction& in : model_.interactions)
    if (std::holds_alternative<EqualityLaw>(in.law))
      throw std::invalid_argument("event-capturing scheme: interaction '" + in.name +
                                  "' is an equality, which the unconstrained RK phase cannot keep");
  layout_ = make_dof_layout(model_);
  contacts_ = all_interactions(model_);
  constant_mass_ = model_.nonlinear.empty();
  if (constant_mass_) {
    gather_coordinates(model_, layout_, q_);
    mass_ = SparseMatrixCol(global_mass(model_, layout_, q_));
    mass_factor_.compute(mass_);
    if (mass_factor_.info() != Eigen::Success)
      throw std::invalid_argument("event-capturing scheme: the mass matrix is not positive definite");
  }
}

void EventCapturingRk::acceleration(double t, const Vector& q, const Vector& v, Vector& a) {
  smooth_force(model_, layout_, t, q, v, f_);
  if (!constant_mass_) {
    // M(q) changes at every stage: factorised here (a small-system path; the allocation is accepted).
    mass_ = SparseMatrixCol(global_mass(model_, layout_, q));
    mass_factor_.compute(mass_);
    if (mass_factor_.info() != Eigen::Success)
      throw StepFailure("event-capturing scheme: the mass matrix M(q) is not positive definite at t = " +
                        std::to_string(t));
  }
  a = mass_factor_.solve(f_);
  ++stats_.force_evaluations;
}

void EventCapturingRk::rk4(double t, const Vector& q, const Vector& v, double tau, Vector& q1, Vector& v1) {
  k1q_ = v;
  acceleration(t, q, v, k1v_);
  Q_ = q + 0.5 * tau * k1q_;
  V_ = v + 0.5 * tau * k1v_;
  k2q_ = V_;
  acceleration(t + 0.5 * tau, Q_, V_, k2v_);
  Q_ = q + 0.5 * tau * k2q_;
  V_ = v + 0.5 * tau * k2v_;
  k3q_ = V_;
  acceleration(t + 0.5 * tau, Q_, V_, k3v_);
  Q_ = q + tau * k3q_;
  V_ = v + tau * k3v_;
  k4q_ = V_;
  acceleration(t + tau, Q_, V_, k4v_);
  q1 = q + (tau / 6.0) * (k1q_ + 2.0 * k2q_ + 2.0 * k3q_ + k4q_);
  v1 = v + (tau / 6.0) * (k1v_ + 2.0 * k2v_ + 2.0 * k3v_ + k4v_);
  ++stats_.rk_steps;
  if (!q1.allFinite() || !v1.allFinite())
    throw StepFailure("event-capturing scheme: the RK state is not finite (NaN/Inf) at t = " +
                      std::to_string(t));
}

double EventCapturingRk::event_function(const Vector& q) {
  evaluate_normal_gaps(model_, layout_, q, contacts_, g_, model_.time);
  double phi = std::numeric_limits<double>::infinity();
  for (Index i = 0; i < g_.size(); ++i) phi = std::min(phi, g_[i] - g_start_[i]);
  return phi;
}

EventCapturingRk::ContactState EventCapturingRk::touching_contacts() {
  if (contacts_.empty()) return ContactState::Open;
  assemble_constraints(model_, layout_, q_, contacts_, rows_, model_.time);
  U_ = rows_.J * v_;
  // Events are located where gaps cross g_tol, so a contact just through one sits at g_tol up to round-off:
  // touching and closed are judged against 2 g_tol (the Moreau–Jean activation tolerance here), or a ball
  // hovering at g_tol would bounce on that level forever instead of coming to rest.
  const double tol = p_.contact_gap_tolerance;
  ContactState state = ContactState::Open;
  for (size_t i = 0; i < contacts_.size(); ++i) {
    const Index r = rows_.row_offset[i];
    const double g = rows_.gap[r];
    if (g > 2.0 * tol) continue;
    if (p_.h * U_[r] < -tol) return ContactState::Impact;
    if (g + p_.h * U_[r] <= 2.0 * tol) state = ContactState::Closed;
  }
  return state;
}

void EventCapturingRk::store_interactions() {
  if (contacts_.empty()) return;
  assemble_constraints(model_, layout_, q_, contacts_, rows_, model_.time);
  U_ = rows_.J * v_;
  for (size_t i = 0; i < contacts_.size(); ++i) {
    Interaction& in = model_.interactions[contacts_[i]];
    const Index r0 = rows_.row_offset[i], nr = rows_.row_offset[i + 1] - r0;
    in.gap.setZero(nr);
    in.gap[0] = rows_.gap[r0];
    in.velocity = U_.segment(r0, nr);
    in.impulse.setZero(nr);
  }
}

void EventCapturingRk::step() {
  const double t_end = model_.time + p_.h;
  const double interval =
      std::max(p_.event_interval_scale * std::pow(p_.h, order + 1), time_resolution(t_end));
  int events = 0;
  for (;;) {
    const double t = model_.time;
    const double remaining = t_end - t;
    if (remaining <= time_resolution(t_end)) break;
    gather_coordinates(model_, layout_, q_);
    gather_velocities(model_, layout_, v_);
    const ContactState contact = remaining <= interval ? ContactState::Closed : touching_contacts();
    if (contact != ContactState::Open) {
      // An impact right at t (an event on the grid, which the previous RK step ended on) gets the short
      // Moreau–Jean step of an event; a closed contact the rest of the step.
      const bool impact = contact == ContactState::Impact;
      if (impact) {
        if (++events > p_.max_events_per_step) throw too_many_events(t_end);
        ++stats_.events;
      } else if (remaining > interval) {
        ++stats_.closed_contact_steps;
      }
      moreau_jean_.set_step_size(impact ? std::min(interval, remaining) : remaining);
      moreau_jean_.step();
      ++stats_.moreau_jean_steps;
      continue;
    }
    // The level each gap's event is measured from: g_tol (an impact then ends on the grid point it
    // coincides with, instead of being left to the next step), or a start already below it.
    evaluate_normal_gaps(model_, layout_, q_, contacts_, g_start_, model_.time);
    g_start_ = g_start_.cwiseMin(p_.contact_gap_tolerance);
    rk4(t, q_, v_, remaining, q1_, v1_);
    double fb = contacts_.empty() ? 1.0 : event_function(q1_);
    if (fb >= 0.0) {
      q_ = q1_;
      v_ = v1_;
      scatter_state(layout_, q_, v_, model_);
      model_.time = t_end;
      store_interactions();
      break;
    }
    if (++events > p_.max_events_per_step) throw too_many_events(t_end);
    // Illinois regula falsi on φ(τ), φ(0) >= 0 > φ(remaining), down to the interval of eq 130.
    double a = 0.0, b = remaining, fa = event_function(q_);
    qa_ = q_;
    va_ = v_;
    int side = 0;
    // Illinois converges superlinearly from both ends; the cap only guards against round-off stalling, and
    // a bracket left longer than eq 130 asks still contains the event.
    for (int iteration = 0; b - a > interval && iteration < 200; ++iteration) {
      double c = fa - fb != 0.0 ? (a * fb - b * fa) / (fb - fa) : 0.5 * (a + b);
      if (!(c > a && c < b)) c = 0.5 * (a + b);
      rk4(t, q_, v_, c, qc_, vc_);
      const double fc = event_function(qc_);
      ++stats_.root_iterations;
      if (fc > 0.0) {
        a = c;
        fa = fc;
        qa_ = qc_;
        va_ = vc_;
        if (side == 1) fb *= 0.5;
        side = 1;
      } else {
        b = c;
        fb = fc;
        if (side == -1) fa *= 0.5;
        side = -1;
      }
    }
    ++stats_.events;
    scatter_state(layout_, qa_, va_, model_);
    model_.time = t + a;
    q_ = qa_;
    v_ = va_;
    store_interactions();
    moreau_jean_.set_step_size(b - a);
    moreau_jean_.step();
    ++stats_.moreau_jean_steps;
    model_.time = t + b;
  }
  model_.time = t_end;
  ++stats_.steps;
}

}  // namespace talus
