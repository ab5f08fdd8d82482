#pragma once
// The two academic benchmarks with exact solutions of seed 000 (slides 38–40 "The bouncing ball and the linear
// impacting oscillator", eq 122): defined once here so that the convergence tests, bench/convergence and the
// example scenes build exactly the same Model. Their exact solutions live in engine/AnalyticSolutions.hpp;
// docs/convergence.md gives the equations and the derivations.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/Model.hpp"
#include "engine/MoreauJean.hpp"

namespace talus {

// m v̇ = f + λ, q̇ = v, 0 <= q ⟂ λ >= 0, v⁺ = −e v⁻ at impacts (seed 000 eq 122).
// Defaults are the seed's: f = −2, e = 1/2, q₀ = 1, v₀ = 0 (impacts accumulate at t = 3).
struct BouncingBallParameters {
  double mass = 1.0;          // m > 0
  double force = -2.0;        // constant force f < 0 (pushes the ball onto the ground)
  double restitution = 0.5;   // e ∈ [0, 1)
  double q0 = 1.0;            // initial height >= 0
  double v0 = 0.0;            // initial velocity
};

// Forced mass–spring hitting a rigid stop at q = 0:
//   m q̈ + k (q − ℓ) = F cos(Ω t) + λ,   0 <= q ⟂ λ >= 0,   v⁺ = −e v⁻ at impacts.
// The spring's rest position ℓ lies above the stop and F < k ℓ, so the smooth force at the stop always pushes
// the mass away: impacts never accumulate and the mass never sticks, so the exact solution is a finite chain
// of harmonic flights on any bounded interval (see docs/convergence.md).
struct LinearOscillatorParameters {
  double mass = 1.0;                        // m > 0
  double stiffness = 39.47841760435743;     // k = m ω² with ω = 2π (period 1 s)
  double spring_rest = 0.5;                 // ℓ > 0
  double forcing_amplitude = 15.0;          // F, |F| < k ℓ
  double forcing_frequency = 8.0;           // Ω [rad/s], Ω² ≠ k/m (no resonance)
  double restitution = 0.5;                 // e ∈ (0, 1]
  double q0 = 1.0;                          // initial position >= 0
  double v0 = 0.0;                          // initial velocity (> 0 if q0 = 0)
};

// Throw std::invalid_argument naming the parameter when the benchmark is not well posed.
void validate(const BouncingBallParameters& p);
void validate(const LinearOscillatorParameters& p);

// One LTI Lagrangian system of one coordinate q (the height, resp. the position) and one interaction
// "ground" / "stop" with the linear gap g = q and a Newton impact law; Model::time = 0.
Model make_bouncing_ball(const BouncingBallParameters& p = {});
Model make_linear_oscillator(const LinearOscillatorParameters& p = {});

// The coordinate of a one-coordinate benchmark sampled on the grid t_i = i h, i = 0..N with N h = horizon: what
// the grid norms of engine/AnalyticSolutions.hpp compare with the exact solution.
struct GridTrajectory {
  double h = 0.0;
  std::vector<double> q, v;  // N + 1 values each; v is the scheme's v_{i} (an approximation of v⁺(t_i))
};

// Integrates `model` (whose first LTI system is the benchmark's coordinate) with any scheme from its current
// state over [model.time, model.time + horizon], so every scheme is measured on the same grid. Scheme is built
// as Scheme(Model&, const Params&) and has step(); Params has the step h. The horizon must be a whole number of
// steps. Propagates StepFailure.
template <class Scheme, class Params>
GridTrajectory integrate_scheme_on_grid(Model& model, const Params& params, double horizon) {
  if (model.lti.empty() || model.lti[0].dofs() != 1)
    throw std::invalid_argument("integrate_on_grid: the model's first LTI system must have one coordinate");
  if (!(params.h > 0.0)) throw std::invalid_argument("integrate_on_grid: the step h must be > 0");
  const long steps = std::lround(horizon / params.h);
  if (steps < 1 || std::abs(steps * params.h - horizon) > 1e-9 * horizon)
    throw std::invalid_argument("integrate_on_grid: the horizon " + std::to_string(horizon) +
                                " is not a whole number of steps h = " + std::to_string(params.h));
  GridTrajectory out;
  out.h = params.h;
  out.q.reserve(steps + 1);
  out.v.reserve(steps + 1);
  const LagrangianLti& system = model.lti[0];
  out.q.push_back(system.q[0]);
  out.v.push_back(system.v[0]);
  Scheme scheme(model, params);
  for (long i = 0; i < steps; ++i) {
    scheme.step();
    out.q.push_back(system.q[0]);
    out.v.push_back(system.v[0]);
  }
  return out;
}

// The Moreau–Jean instance of the above (bench/convergence, tests/convergence).
GridTrajectory integrate_on_grid(Model& model, const MoreauJeanParameters& params, double horizon);

}  // namespace talus
