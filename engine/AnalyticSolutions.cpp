// Exact solutions of the bouncing ball (seed 000 eqs 122–124, generalised to any f < 0, e, q₀, v₀) and of the
// forced linear impacting oscillator of engine/BenchmarkModels.hpp. Derivations: docs/convergence.md.
#include "engine/AnalyticSolutions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

namespace talus {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// Index of the flight that holds t: flights are [t_k, t_{k+1}), flight 0 starts at t = 0 and flight k >= 1 at
// impact k. A time within the tolerance of an impact belongs to the flight after it (right limit) ...
std::size_t flight_after(const std::vector<double>& impacts, double t) {
  return static_cast<std::size_t>(
      std::upper_bound(impacts.begin(), impacts.end(), t + impact_time_tolerance(t)) - impacts.begin());
}

// ... or to the flight before it (left limit).
std::size_t flight_before(const std::vector<double>& impacts, double t) {
  return static_cast<std::size_t>(
      std::lower_bound(impacts.begin(), impacts.end(), t - impact_time_tolerance(t)) - impacts.begin());
}

}  // namespace

double impact_time_tolerance(double t) { return 1e-12 * std::max(1.0, std::abs(t)); }

// ---------------------------------------------------------------------------------------------------------------
// Bouncing ball. Flight k >= 1 leaves the ground at t_k with w_k = e |v⁻_k| and lands after 2 w_k / |a|; since
// w_{k+1} = e w_k the flight durations form a geometric series summing to t∞ − t₁ = 2 w₁ / (|a| (1 − e)).

BouncingBallSolution::BouncingBallSolution(const BouncingBallParameters& p) : p_(p), a_(p.force / p.mass) {
  validate(p);
  const double g = -a_;  // > 0
  // First landing: root of q₀ + v₀ t − g t² / 2 = 0 (t = 0 when the ball starts on the ground moving down).
  const double t1 = (p.v0 + std::sqrt(p.v0 * p.v0 + 2.0 * g * p.q0)) / g;
  const double w1 = p.restitution * g * t1 - p.restitution * p.v0;  // e |v₀ − g t₁|
  accumulation_time_ = t1 + 2.0 * w1 / (g * (1.0 - p.restitution));

  takeoff_velocity_.push_back(p.v0);
  double t = t1, w = w1;
  impact_times_.push_back(t);
  takeoff_velocity_.push_back(w);
  // Flights shorter than d = 1e-9 max(1, t∞) are merged into the rest state: they sum to less than d / (1 − e),
  // and each holds |v| <= g d / 2 and q <= g d² / 8. Every stored flight stays far longer than
  // the impact-time tolerance, so a time inside a flight is never mistaken for its end.
  const double shortest_flight = 1e-9 * std::max(1.0, accumulation_time_);
  while (2.0 * w / g > shortest_flight) {
    t += 2.0 * w / g;
    w *= p.restitution;
    impact_times_.push_back(t);
    takeoff_velocity_.push_back(w);
  }
}

ExactState BouncingBallSolution::flight(int k, double t) const {
  const int last = static_cast<int>(impact_times_.size());
  if (k == last) return {0.0, 0.0};  // the remaining flights are merged into the rest state
  const double t0 = k == 0 ? 0.0 : impact_times_[k - 1];
  const double q0 = k == 0 ? p_.q0 : 0.0;
  const double v0 = takeoff_velocity_[k];
  const double tau = t - t0;
  return {q0 + v0 * tau + 0.5 * a_ * tau * tau, v0 + a_ * tau};
}

ExactState BouncingBallSolution::at(double t) const {
  return flight(static_cast<int>(flight_after(impact_times_, t)), t);
}

ExactState BouncingBallSolution::left_limit(double t) const {
  return flight(static_cast<int>(flight_before(impact_times_, t)), t);
}

// ---------------------------------------------------------------------------------------------------------------
// Linear impacting oscillator. Between impacts q̈ + ω² (q − ℓ) = (F / m) cos Ω t, whose solution is the forced
// response ℓ + P cos Ω t plus a free oscillation fitted to the flight's initial state.

LinearOscillatorSolution::LinearOscillatorSolution(const LinearOscillatorParameters& p, double horizon)
    : p_(p), horizon_(horizon) {
  validate(p);
  if (!(horizon > 0.0) || !std::isfinite(horizon))
    throw std::invalid_argument("linear oscillator: the horizon must be a positive finite time");
  omega_ = std::sqrt(p.stiffness / p.mass);
  const double Omega = p.forcing_frequency;
  P_ = p.forcing_amplitude / (p.mass * (omega_ * omega_ - Omega * Omega));

  // Impacts slower than 1e-9 of this velocity scale of the motion count as grazing.
  const double velocity_scale = omega_ * std::max({p.spring_rest, std::abs(P_), std::abs(p.q0 - p.spring_rest)});
  constexpr std::size_t max_impacts = 1000000;

  flights_.push_back(start_flight(0.0, p.q0, p.v0));
  double takeoff = p.v0;
  for (;;) {
    const double t = next_impact(flights_.back(), flights_.size() == 1 ? p.q0 : 0.0, takeoff, horizon_);
    if (t < 0.0) break;
    const double v_minus = evaluate(flights_.back(), t).v;
    if (!(v_minus < -1e-9 * velocity_scale))
      throw std::runtime_error("linear oscillator: the flight grazes the stop at t = " + std::to_string(t) +
                               " (impact velocity " + std::to_string(v_minus) + "); choose other parameters");
    if (impact_times_.size() == max_impacts)
      throw std::runtime_error("linear oscillator: more than a million impacts before the horizon");
    impact_times_.push_back(t);
    takeoff = -p.restitution * v_minus;
    flights_.push_back(start_flight(t, 0.0, takeoff));
  }
}

LinearOscillatorSolution::Flight LinearOscillatorSolution::start_flight(double t0, double q0, double v0) const {
  const double Omega = p_.forcing_frequency;
  return {t0, q0 - p_.spring_rest - P_ * std::cos(Omega * t0), (v0 + P_ * Omega * std::sin(Omega * t0)) / omega_};
}

ExactState LinearOscillatorSolution::evaluate(const Flight& f, double t) const {
  const double Omega = p_.forcing_frequency;
  const double c = std::cos(omega_ * (t - f.t0)), s = std::sin(omega_ * (t - f.t0));
  return {p_.spring_rest + P_ * std::cos(Omega * t) + f.C * c + f.S * s,
          -P_ * Omega * std::sin(Omega * t) + omega_ * (f.S * c - f.C * s)};
}

// The root search relies on a bound of the flight's curvature, |q̈| <= A = |P| Ω² + ω² √(C² + S²): on [a, b],
// q >= min(q(a), q(b)) − A (b − a)² / 8, so an interval whose end values clear that margin holds no root.
// Intervals that do not are halved, left half first, so the root found is the first one; a bracket
// q(a) > 0 >= q(b) is halved down to a few ulps.
double LinearOscillatorSolution::next_impact(const Flight& f, double q0, double v0, double limit) const {
  const double Omega = p_.forcing_frequency;
  const double A = std::abs(P_) * Omega * Omega + omega_ * omega_ * std::hypot(f.C, f.S);
  const double step = 2.0 * std::numbers::pi / std::max(omega_, Omega) / 64.0;
  const double grazing_width = 1e-9 * step;
  auto q = [&](double t) { return evaluate(f, t).q; };

  // Leaving the stop (q0 = 0) with v0 > 0, q(t0 + τ) >= v0 τ − A τ² / 2 > 0 for 0 < τ <= v0 / A, so the
  // search starts there rather than at the round-off-sized q(t0).
  double a = q0 > 0.0 ? f.t0 : f.t0 + std::min(v0 / A, step);
  if (!(q(a) > 0.0))
    throw std::runtime_error("linear oscillator: a flight at t = " + std::to_string(f.t0) + " does not leave the stop");

  auto first_root = [&](auto&& self, double lo, double hi, double qlo, double qhi) -> double {
    if (qhi <= 0.0 && hi - lo <= 4.0 * kEps * std::max(1.0, std::abs(hi))) return hi;
    if (qhi > 0.0) {
      if (std::min(qlo, qhi) > A * (hi - lo) * (hi - lo) / 8.0) return -1.0;
      if (hi - lo < grazing_width)
        throw std::runtime_error("linear oscillator: the flight grazes the stop near t = " + std::to_string(lo) +
                                 "; choose other parameters");
    }
    const double mid = 0.5 * (lo + hi);
    const double qmid = q(mid);
    if (qmid <= 0.0) return self(self, lo, mid, qlo, qmid);
    const double left = self(self, lo, mid, qlo, qmid);
    return left >= 0.0 ? left : self(self, mid, hi, qmid, qhi);
  };

  double qa = q(a);
  while (a < limit) {
    const double b = std::min(a + step, limit);
    const double qb = q(b);
    const double root = first_root(first_root, a, b, qa, qb);
    if (root >= 0.0) return root;
    a = b;
    qa = qb;
  }
  return -1.0;
}

ExactState LinearOscillatorSolution::at(double t) const {
  return evaluate(flights_[flight_after(impact_times_, t)], t);
}

ExactState LinearOscillatorSolution::left_limit(double t) const {
  return evaluate(flights_[flight_before(impact_times_, t)], t);
}

// ---------------------------------------------------------------------------------------------------------------
// Error measures (seed 000 eqs 48, 50).

namespace {

template <class Solution>
GridError l1_grid_error_of(const GridTrajectory& numerical, const Solution& exact) {
  if (numerical.q.size() != numerical.v.size() || numerical.q.empty() || !(numerical.h > 0.0))
    throw std::invalid_argument("l1_grid_error: malformed grid trajectory");
  GridError e;
  for (std::size_t i = 0; i < numerical.q.size(); ++i) {
    const ExactState x = exact.at(static_cast<double>(i) * numerical.h);
    e.q += std::abs(numerical.q[i] - x.q);
    e.v += std::abs(numerical.v[i] - x.v);
  }
  e.q *= numerical.h;
  e.v *= numerical.h;
  return e;
}

}  // namespace

GridError l1_grid_error(const GridTrajectory& numerical, const BouncingBallSolution& exact) {
  return l1_grid_error_of(numerical, exact);
}

GridError l1_grid_error(const GridTrajectory& numerical, const LinearOscillatorSolution& exact) {
  if (static_cast<double>(numerical.q.size() - 1) * numerical.h > exact.horizon() * (1.0 + 1e-12))
    throw std::invalid_argument("l1_grid_error: the trajectory runs past the exact solution's horizon");
  return l1_grid_error_of(numerical, exact);
}

double fitted_order(const std::vector<double>& h, const std::vector<double>& error) {
  if (h.size() != error.size() || h.size() < 2)
    throw std::invalid_argument("fitted_order: needs at least two (h, error) pairs of equal count");
  double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (!(h[i] > 0.0) || !(error[i] > 0.0))
      throw std::invalid_argument("fitted_order: steps and errors must be > 0 (log-log fit)");
    const double x = std::log(h[i]), y = std::log(error[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double n = static_cast<double>(h.size());
  const double denominator = n * sxx - sx * sx;
  if (!(denominator > 0.0)) throw std::invalid_argument("fitted_order: needs at least two distinct steps h");
  return (n * sxy - sx * sy) / denominator;
}

}  // namespace talus
