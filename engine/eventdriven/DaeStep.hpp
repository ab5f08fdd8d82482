#pragma once
// What the DAE integrators of the event-driven path exchange: the state at a step boundary, the outcome of
// one attempted step, the step-size control of seed 002 eq 12 with the parameters of its table 1, and the
// weighted error norm the estimates are measured in.
#include <string>

#include "engine/eventdriven/ConstrainedEvaluator.hpp"

namespace talus::eventdriven {

struct DaeState {
  double t = 0.0;
  Vector q, v;
  Vector a;       // v̇(t), consistent with the active constraints (index-1 solve, or generalized-α's q̈)
  Vector lambda;  // multipliers of the active rows at t
  Vector alpha_acceleration;  // generalized-α's auxiliary variable a of seed 002 eq 6; empty = start from a
  double alpha_step = 0.0;    // the step size that produced alpha_acceleration
};

// Step-size control of seed 002 eq 12: h_new = h · clamp(safety · err^(−1/p), min_factor, max_factor), where
// err is the estimate measured in the norm below (err <= 1 accepts) and p the order the seed assigns to the
// method (RKF45 4, HEM5 5, generalized-α 2). Defaults are the seed's table 1.
struct DaeStepControl {
  double tolerance = 1e-6;     // tol, used as absolute and relative weight
  double safety = 0.9;         // safe
  double min_step = 1e-6;      // [s]; a step at min_step is accepted whatever its error (counted as forced)
  double max_step = 0.0;       // [s]; 0 = the whole interval
  double initial_step = 0.0;   // [s]; 0 = min(1e-3, max_step) — the controller adapts within a few steps
  double min_factor = 0.2;
  double max_factor = 5.0;
  double max_drift = 1e-3;     // a step with |g_A| or |G_A v| above this is rejected (table 1: 1e-3)
};

// RMS over the components of (dq, dv) weighted by tol (1 + max(|y0|, |y1|)) (Hairer's mixed norm with
// atol = rtol = tol).
double weighted_rms(const Vector& dq, const Vector& dv, const DaeState& s0, const DaeState& s1, double tol);

struct StepAttempt {
  SaddleStatus status = SaddleStatus::Ok;
  bool newton_converged = true;  // generalized-α only
  double error = 0.0;            // normalised: <= 1 accepts
  bool ok() const { return status == SaddleStatus::Ok && newton_converged; }
};

}  // namespace talus::eventdriven
