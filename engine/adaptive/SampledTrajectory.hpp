#pragma once
// The coordinate of a one-coordinate benchmark (engine/BenchmarkModels.hpp) sampled on the non-uniform grid
// an adaptive scheme chooses, and its distance to the exact solution (engine/AnalyticSolutions.hpp). The L1
// norm is seed 000 eq 48 with each sample weighted by the step that produced it,
//   ‖e‖₁ = Σ_{i=0}^{N} h_i |f_i − f(t_i)|,  h_i = t_i − t_{i−1} (h_0 = h_1),
// which is eq 48 itself on a uniform grid, so adaptive and fixed-step runs are measured alike (v_i against
// the right limit v⁺(t_i), as there).
#include <vector>

#include "engine/AnalyticSolutions.hpp"
#include "engine/adaptive/AdaptiveMoreauJean.hpp"

namespace talus {

struct SampledTrajectory {
  std::vector<double> t, q, v;  // increasing times, the first coordinate of model.lti[0] and its velocity
};

SampledTrajectory sampled(const GridTrajectory& uniform, double t0 = 0.0);

GridError l1_error(const SampledTrajectory& numerical, const BouncingBallSolution& exact);
GridError l1_error(const SampledTrajectory& numerical, const LinearOscillatorSolution& exact);

// max(|q_N − q(t_N)|, |v_N − v⁺(t_N)|) at the last sample.
double final_error(const SampledTrajectory& numerical, const BouncingBallSolution& exact);
double final_error(const SampledTrajectory& numerical, const LinearOscillatorSolution& exact);

// Integrates `model` (whose first LTI system has one coordinate) with the adaptive Moreau–Jean scheme over
// [model.time, model.time + horizon], recording both grid points of every accepted step. The scheme's
// counters are returned in `stats`. Propagates StepFailure and std::invalid_argument.
SampledTrajectory integrate_adaptive(Model& model, const AdaptiveMoreauJeanParameters& params, double horizon,
                                     AdaptiveMoreauJeanStats& stats);

}  // namespace talus
