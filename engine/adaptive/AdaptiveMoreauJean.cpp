// Step doubling, the error measures of seed 000 eqs 109–111, 127–129 and the controller of eq 113 around
// engine/MoreauJean (AdaptiveMoreauJean.hpp).
#include "engine/adaptive/AdaptiveMoreauJean.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>

#include "engine/StepReport.hpp"

namespace talus {

namespace {

// The largest constraint violation of the model's current state: −g for unilateral gaps below 0 (eq 128),
// |g| for equalities. MoreauJean::step() leaves g(q_{k+1}) in row 0 of every interaction's gap.
double largest_violation(const Model& model) {
  double worst = 0.0;
  for (const Interaction& in : model.interactions) {
    if (in.gap.size() == 0) continue;
    const double g = in.gap[0];
    worst = std::max(worst, std::holds_alternative<EqualityLaw>(in.law) ? std::abs(g) : -g);
  }
  return worst;
}

bool at_minimum(double h, double h_min) { return h <= h_min * (1.0 + 1e-12); }

}  // namespace

void validate(const AdaptiveMoreauJeanParameters& p) {
  auto bad = [](const std::string& what) {
    throw std::invalid_argument("adaptive Moreau-Jean parameters: " + what);
  };
  if (!(p.atol >= 0.0) || !(p.rtol >= 0.0) || !(p.atol + p.rtol > 0.0))
    bad("atol and rtol must be >= 0, not both 0");
  if (p.violation_control && !(p.gap_tolerance > 0.0)) bad("gap_tolerance must be > 0");
  if (!(p.safety > 0.0 && p.safety <= 1.0)) bad("safety must be in (0, 1]");
  if (!(p.min_factor > 0.0 && p.min_factor < 1.0)) bad("min_factor must be in (0, 1)");
  if (!(p.max_factor >= 1.0)) bad("max_factor must be >= 1");
  if (!(p.h_min > 0.0) || !std::isfinite(p.h_min)) bad("h_min must be > 0 and finite");
  if (!(p.h_max >= p.h_min)) bad("h_max must be >= h_min");
  if (!(p.scheme.h >= p.h_min)) bad("the first step scheme.h must be >= h_min");
}

AdaptiveMoreauJean::AdaptiveMoreauJean(Model& model, const AdaptiveMoreauJeanParameters& params)
    : model_(model), p_((validate(params), params)), scheme_(model, params.scheme), h_(params.scheme.h) {
  model_.validate();
  layout_ = make_dof_layout(model_);
}

int AdaptiveMoreauJean::smooth_order() const {
  // θ = ½ makes the standard and the dissipative schemes the trapezoidal rule in smooth phases.
  const MoreauJeanParameters& s = p_.scheme;
  return s.variant != MoreauJeanVariant::Paoli && s.theta == 0.5 ? 2 : 1;
}

const StepReport& AdaptiveMoreauJean::scheme_step() {
  const StepReport& r = scheme_.step();
  for (int k = 0; k < kPhaseCount; ++k) {
    phase_seconds_[k] += r.phase_seconds[k];
    phase_cpu_seconds_[k] += r.phase_cpu_seconds[k];
  }
  return r;
}

AdaptiveMoreauJean::Try AdaptiveMoreauJean::attempt(double h) {
  Try out;
  int active_big = 0, active_first = 0;
  try {
    scheme_.set_step_size(h);
    ++stats_.one_step_solves;
    active_big = scheme_step().active;
    gather_coordinates(model_, layout_, q_big_);
    gather_velocities(model_, layout_, v_big_);
    start_.restore(model_, layout_);

    scheme_.set_step_size(0.5 * h);
    ++stats_.one_step_solves;
    active_first = scheme_step().active;
    half_.save(model_, layout_);
    half_violation_ = largest_violation(model_);
    ++stats_.one_step_solves;
    out.last_active = scheme_step().active;
  } catch (const StepFailure& failure) {
    start_.restore(model_, layout_);
    if (at_minimum(h, p_.h_min) || at_minimum(p_.min_factor * h, p_.h_min)) {
      std::ostringstream os;
      os << "adaptive Moreau-Jean: the step failed down to the minimum step h_min = " << p_.h_min
         << " at t = " << model_.time << ": " << failure.what();
      throw StepFailure(os.str());
    }
    out.failed = true;
    return out;
  }
  gather_coordinates(model_, layout_, q_small_);
  gather_velocities(model_, layout_, v_small_);

  switch (p_.order) {
    case ErrorEstimateOrder::Zero:
      out.order = 0;
      break;
    case ErrorEstimateOrder::One:
      out.order = 1;
      break;
    case ErrorEstimateOrder::Two:
      out.order = 2;
      break;
    case ErrorEstimateOrder::Variable: {
      const int a = out.last_active;
      const bool smooth =
          active_big == a && active_first == a && (previous_active_ < 0 || previous_active_ == a);
      out.order = smooth ? smooth_order() : 0;
      if (!smooth) ++stats_.zero_order_tries;
      break;
    }
  }
  // eq 127 for p = 0, eq 109 otherwise.
  const double scale = out.order == 0 ? 2.0 : 1.0 / (std::pow(2.0, out.order) - 1.0);
  double error = 0.0;
  for (Index i = 0; i < q_small_.size(); ++i) {
    const double tol = p_.atol + p_.rtol * std::max(std::abs(start_.q[i]), std::abs(q_small_[i]));
    error = std::max(error, scale * std::abs(q_small_[i] - q_big_[i]) / tol);
  }
  for (Index i = 0; i < v_small_.size(); ++i) {
    const double tol = p_.atol + p_.rtol * std::max(std::abs(start_.v[i]), std::abs(v_small_[i]));
    error = std::max(error, scale * std::abs(v_small_[i] - v_big_[i]) / tol);
  }
  if (p_.violation_control)
    error = std::max(error, std::max(half_violation_, largest_violation(model_)) / p_.gap_tolerance);
  if (!std::isfinite(error)) {
    start_.restore(model_, layout_);
    throw StepFailure("adaptive Moreau-Jean: the error estimate is not finite at t = " +
                      std::to_string(model_.time));
  }
  out.error = error;
  return out;
}

double AdaptiveMoreauJean::step(double t_end) {
  const double t0 = model_.time;
  const double remaining = t_end - t0;
  if (!(remaining > 0.0))
    throw std::invalid_argument("AdaptiveMoreauJean::step: t_end must lie after the current time");
  start_.save(model_, layout_);
  phase_seconds_.fill(0.0);
  phase_cpu_seconds_.fill(0.0);
  for (;;) {
    const double h = std::min(h_, remaining);
    const Try t = attempt(h);
    if (t.failed) {
      ++stats_.solver_failures;
      h_ = std::max(p_.h_min, p_.min_factor * h);
      continue;
    }
    // eq 113
    const double factor =
        t.error > 0.0 ? p_.safety * std::pow(1.0 / t.error, 1.0 / (t.order + 1)) : p_.max_factor;
    const double proposed = h * std::min(p_.max_factor, std::max(p_.min_factor, factor));
    if (t.error <= 1.0 || at_minimum(h, p_.h_min)) {
      if (t.error > 1.0) ++stats_.min_step_hits;
      ++stats_.accepted;
      stats_.max_accepted_error = std::max(stats_.max_accepted_error, t.error);
      previous_active_ = t.last_active;
      // A step shortened only to land on t_end says nothing against the step size in use.
      const double next = h < h_ && t.error <= 1.0 ? std::max(proposed, h_) : proposed;
      h_ = std::clamp(next, p_.h_min, p_.h_max);
      model_.time = h == remaining ? t_end : t0 + h;
      return h;
    }
    ++stats_.rejected;
    start_.restore(model_, layout_);
    h_ = std::clamp(std::min(proposed, p_.safety * h), p_.h_min, p_.h_max);
  }
}

}  // namespace talus
