#pragma once
// Exact solutions of the benchmarks of engine/BenchmarkModels.hpp, the references against which the time-stepping
// schemes are measured (seed 000 slides 38–44: grid norms eqs 48–49, order eq 50).
//  - Bouncing ball: parabolic flights between impacts whose times form a geometric series, so impacts accumulate
//    at a finite time t∞ after which the ball rests on the ground. With the seed's data this is the closed form
//    of seed 000 eqs 123–124 (t∞ = 3).
//  - Linear impacting oscillator: harmonic + forced-response flights between impacts; each impact time is the
//    first root of the flight's closed form, bracketed with a rigorous curvature bound (no root can be missed,
//    grazing is reported) and refined by bisection to a few ulps.
// Both are right-continuous in v: at an impact time, at(t) returns the post-impact velocity v⁺ and
// left_limit(t) the pre-impact v⁻. A time within impact_time_tolerance(t) of an impact counts as that impact, so
// grid times i·h that should land on an impact do so despite rounding.
#include <vector>

#include "engine/BenchmarkModels.hpp"

namespace talus {

struct ExactState {
  double q = 0.0;
  double v = 0.0;
};

// Times closer than this to an impact time are treated as the impact time.
double impact_time_tolerance(double t);

class BouncingBallSolution {
 public:
  explicit BouncingBallSolution(const BouncingBallParameters& p = {});

  ExactState at(double t) const;          // v = v⁺(t)
  ExactState left_limit(double t) const;  // v = v⁻(t)

  // Impact times t₁ < t₂ < … up to the first flight shorter than 1e-9 max(1, t∞); from that impact on the ball
  // is reported at rest (the neglected flights lie within 2e-9 max(1, t∞) of t∞).
  const std::vector<double>& impact_times() const { return impact_times_; }
  // t∞ = t₁ + 2 e |v₁⁻| / (|a| (1 − e)), a = f / m; for e = 0, t∞ = t₁.
  double accumulation_time() const { return accumulation_time_; }

 private:
  ExactState flight(int k, double t) const;

  BouncingBallParameters p_;
  double a_;                           // acceleration f / m
  std::vector<double> impact_times_;
  std::vector<double> takeoff_velocity_;  // v⁺ after impact k (index 0: the initial state at t = 0)
  double accumulation_time_;
};

class LinearOscillatorSolution {
 public:
  // Resolves every impact in [0, horizon]; throws std::runtime_error if a flight grazes the stop (the exact
  // solution is then not a transversal impact chain and the reference would be unreliable).
  LinearOscillatorSolution(const LinearOscillatorParameters& p, double horizon);

  ExactState at(double t) const;          // t in [0, horizon]
  ExactState left_limit(double t) const;

  const std::vector<double>& impact_times() const { return impact_times_; }
  double horizon() const { return horizon_; }

 private:
  struct Flight {
    double t0;  // start: 0 or an impact time
    double C;   // q(t) = ℓ + P cos Ω t + C cos ω(t − t0) + S sin ω(t − t0)
    double S;
  };
  ExactState evaluate(const Flight& f, double t) const;
  Flight start_flight(double t0, double q0, double v0) const;
  // First t in (t0, limit] with q(t) = 0 for the flight leaving (q0, v0) at t0, or a negative value if none.
  double next_impact(const Flight& f, double q0, double v0, double limit) const;

  LinearOscillatorParameters p_;
  double horizon_;
  double omega_;   // sqrt(k / m)
  double P_;       // forced response amplitude F / (m (ω² − Ω²))
  std::vector<Flight> flights_;
  std::vector<double> impact_times_;  // flights_[i + 1].t0
};

// The L1 grid norm of seed 000 eq 48, ‖e‖₁ = h Σ_{i=0}^{N} |f_i − f(t_i)| with t_i = i h, for f = q and f = v.
// v_i is compared with the right limit v⁺(t_i): the scheme's v_{k+1} already contains the impulses of
// (t_k, t_{k+1}], so at a grid time that is an impact time it approximates the post-impact velocity.
struct GridError {
  double q = 0.0;
  double v = 0.0;
};
GridError l1_grid_error(const GridTrajectory& numerical, const BouncingBallSolution& exact);
GridError l1_grid_error(const GridTrajectory& numerical, const LinearOscillatorSolution& exact);

// The empirical order p of seed 000 eq 50 (‖e‖ ≈ C h^p): least-squares slope of log ‖e‖ against log h.
// Needs at least two pairs with h > 0 and ‖e‖ > 0 (throws std::invalid_argument otherwise).
double fitted_order(const std::vector<double>& h, const std::vector<double>& error);

}  // namespace talus
