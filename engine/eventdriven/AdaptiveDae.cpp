// Step-size control, drift guard and run-time dispatch of the DAE integrators (see AdaptiveDae.hpp).
#include "engine/eventdriven/AdaptiveDae.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace talus::eventdriven {

const char* to_string(DaeMethod m) {
  switch (m) {
    case DaeMethod::Rkf45: return "rkf45";
    case DaeMethod::Hem5: return "hem5";
    case DaeMethod::GeneralizedAlpha: return "alpha";
  }
  return "?";
}

DaeMethod parse_dae_method(const std::string& name) {
  if (name == "rkf45") return DaeMethod::Rkf45;
  if (name == "hem5") return DaeMethod::Hem5;
  if (name == "alpha" || name == "generalized-alpha" || name == "generalized_alpha") return DaeMethod::GeneralizedAlpha;
  throw std::invalid_argument("unknown DAE method '" + name + "' (expected hem5, rkf45 or generalized_alpha)");
}

namespace {

std::variant<Rkf45, Hem5, GeneralizedAlphaIndex3> make_method(ConstrainedEvaluator& ev, const DaeOptions& o) {
  switch (o.method) {
    case DaeMethod::Rkf45: {
      Rkf45 r(ev);
      r.project = o.rkf45_projection;
      return r;
    }
    case DaeMethod::Hem5: return Hem5(ev);
    case DaeMethod::GeneralizedAlpha: return GeneralizedAlphaIndex3(ev, o.alpha);
  }
  throw std::invalid_argument("unknown DAE method");
}

void validate(const DaeStepControl& c) {
  if (!(c.tolerance > 0.0)) throw std::invalid_argument("DaeStepControl: tolerance must be positive");
  if (!(c.safety > 0.0 && c.safety <= 1.0)) throw std::invalid_argument("DaeStepControl: safety must be in (0, 1]");
  if (!(c.min_step > 0.0)) throw std::invalid_argument("DaeStepControl: min_step must be positive");
  if (!(c.min_factor > 0.0 && c.min_factor < 1.0 && c.max_factor > 1.0))
    throw std::invalid_argument("DaeStepControl: need 0 < min_factor < 1 < max_factor");
  if (!(c.max_drift > 0.0)) throw std::invalid_argument("DaeStepControl: max_drift must be positive");
}

}  // namespace

AdaptiveDae::AdaptiveDae(const MechanicalSystem& system, const DaeOptions& options)
    : sys_(system), opt_(options), ev_(system, work_), method_(make_method(ev_, options)) {
  validate(opt_.control);
  h_ = opt_.control.initial_step > 0.0 ? opt_.control.initial_step : 1e-3;
}

int AdaptiveDae::order() const {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::order; }, method_);
}

void AdaptiveDae::set_active(const std::vector<Index>& rows) {
  ev_.set_active(rows);
  if (auto* h = std::get_if<Hem5>(&method_)) h->reset();
}

SaddleStatus AdaptiveDae::initialize(DaeState& s) {
  if (auto* h = std::get_if<Hem5>(&method_)) h->reset();
  s.alpha_acceleration.resize(0);
  return ev_.accelerations(s.t, s.q, s.v, s.a, s.lambda);
}

StepAttempt AdaptiveDae::attempt(const DaeState& s0, double h, DaeState& s1) {
  const double tol = opt_.control.tolerance;
  return std::visit([&](auto& m) { return m.attempt(s0, h, tol, s1); }, method_);
}

double AdaptiveDae::drift(const DaeState& s) {
  ev_.drift(s.q, s.v, g_, gd_);
  double d = 0.0;
  if (g_.size()) d = std::max(g_.maxCoeff(), gd_.maxCoeff());
  return d;
}

DaeStepResult AdaptiveDae::step(DaeState& s, double t_limit, DenseSegment* seg) {
  const DaeStepControl& c = opt_.control;
  DaeStepResult out;
  const double span = t_limit - s.t;
  if (!(span > 0.0)) {
    out.status = DaeStepStatus::Failed;
    out.message = "step requested with t_limit <= t";
    return out;
  }
  const double h_max = c.max_step > 0.0 ? c.max_step : span;
  const double p = static_cast<double>(order());
  double h = std::min(std::max(h_, c.min_step), h_max);
  bool rejected = false;
  for (;;) {
    // A step that would stop just short of t_limit is stretched to it, so no sliver step follows — unless a
    // step was just rejected: stretching it back would retry the failed size forever, so the remainder is
    // split in two instead (at or below the minimum step when it is short, hence accepted).
    bool last = false;
    if (h >= span * (1.0 - 1e-12)) {
      h = span;
      last = true;
    } else if (span - h < c.min_step) {
      if (rejected) {
        h = 0.5 * span;
      } else {
        h = span;
        last = true;
      }
    }
    const StepAttempt att = attempt(s, h, trial_);
    const bool at_min = h <= c.min_step * (1.0 + 1e-12);
    if (!att.ok()) {
      if (at_min) {
        out.status = att.status == SaddleStatus::SingularConstraints ? DaeStepStatus::Singular
                                                                       : DaeStepStatus::Failed;
        out.message = std::string(to_string(opt_.method)) + " step at t = " + std::to_string(s.t) +
                      " failed at the minimum step: " +
                      (att.newton_converged ? to_string(att.status) : "Newton did not converge");
        return out;
      }
      ++work_.rejected_steps;
      h = std::max(0.25 * h, c.min_step);
      rejected = true;
      continue;
    }
    if (drift(trial_) > c.max_drift) {
      if (auto* rk = std::get_if<Rkf45>(&method_)) {
        // Index 1: the drift accumulates over the steps, so only a projection removes it.
        if (!rk->project_onto_constraints(trial_)) {
          out.status = DaeStepStatus::Singular;
          out.message = "rkf45: projection onto the constraints failed at t = " + std::to_string(trial_.t);
          return out;
        }
        ++work_.projections;
      } else if (!at_min) {
        ++work_.rejected_steps;
        h = std::max(0.5 * h, c.min_step);
        rejected = true;
        continue;
      }
    }
    const double err = att.error;
    const double fac = err > 0.0 ? std::clamp(c.safety * std::pow(err, -1.0 / p), c.min_factor, c.max_factor)
                                 : c.max_factor;
    if (err <= 1.0 || at_min) {
      if (err > 1.0) ++work_.forced_steps;
      ++work_.accepted_steps;
      if (seg) make_segment(ev_, s, trial_, *seg);
      out.h = h;
      std::swap(s, trial_);
      if (!last || fac < 1.0) h_ = rejected ? std::min(h * fac, h) : h * fac;
      h_ = std::max(h_, c.min_step);
      return out;
    }
    ++work_.rejected_steps;
    rejected = true;
    h = std::max(h * fac, c.min_step);
  }
}

DaeRunSummary integrate(const MechanicalSystem& system, const std::vector<Index>& active, DaeState& s,
                        double t_end, const DaeOptions& options,
                        const std::function<void(const DaeState&)>& observer) {
  AdaptiveDae dae(system, options);
  dae.set_active(active);
  if (SaddleStatus st = dae.initialize(s); st != SaddleStatus::Ok)
    throw std::runtime_error(std::string("DAE initialisation failed: ") + to_string(st));
  DaeRunSummary out;
  const Index m = static_cast<Index>(active.size());
  out.max_gap_drift_rows.setZero(m);
  out.max_velocity_drift_rows.setZero(m);
  Vector g, gd;
  const double t0 = s.t;
  while (s.t < t_end) {
    const DaeStepResult r = dae.step(s, t_end, nullptr);
    if (r.status != DaeStepStatus::Accepted) throw std::runtime_error(r.message);
    ++out.steps;
    dae.evaluator().drift(s.q, s.v, g, gd);
    if (m) {
      out.max_gap_drift_rows = out.max_gap_drift_rows.cwiseMax(g);
      out.max_velocity_drift_rows = out.max_velocity_drift_rows.cwiseMax(gd);
    }
    if (observer) observer(s);
  }
  out.work = dae.work();
  out.average_step = out.steps ? (s.t - t0) / static_cast<double>(out.steps) : 0.0;
  if (m) {
    out.max_gap_drift = out.max_gap_drift_rows.maxCoeff();
    out.max_velocity_drift = out.max_velocity_drift_rows.maxCoeff();
  }
  return out;
}

}  // namespace talus::eventdriven
