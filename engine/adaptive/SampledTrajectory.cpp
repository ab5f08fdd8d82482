// Non-uniform grid samples of the one-coordinate benchmarks and their errors (SampledTrajectory.hpp).
#include "engine/adaptive/SampledTrajectory.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace talus {

namespace {

template <class Exact>
GridError l1_error_against(const SampledTrajectory& x, const Exact& exact) {
  const size_t n = x.t.size();
  if (n < 2 || x.q.size() != n || x.v.size() != n)
    throw std::invalid_argument("l1_error: the trajectory needs >= 2 samples with t, q, v of equal sizes");
  GridError e;
  for (size_t i = 0; i < n; ++i) {
    const double w = i == 0 ? x.t[1] - x.t[0] : x.t[i] - x.t[i - 1];
    const ExactState s = exact.at(x.t[i]);
    e.q += w * std::abs(x.q[i] - s.q);
    e.v += w * std::abs(x.v[i] - s.v);
  }
  return e;
}

template <class Exact>
double final_error_against(const SampledTrajectory& x, const Exact& exact) {
  if (x.t.empty()) throw std::invalid_argument("final_error: empty trajectory");
  const ExactState s = exact.at(x.t.back());
  return std::max(std::abs(x.q.back() - s.q), std::abs(x.v.back() - s.v));
}

void record(SampledTrajectory& x, const Model& model) {
  x.t.push_back(model.time);
  x.q.push_back(model.lti[0].q[0]);
  x.v.push_back(model.lti[0].v[0]);
}

}  // namespace

SampledTrajectory sampled(const GridTrajectory& uniform, double t0) {
  SampledTrajectory x;
  x.q = uniform.q;
  x.v = uniform.v;
  x.t.resize(x.q.size());
  for (size_t i = 0; i < x.t.size(); ++i) x.t[i] = t0 + static_cast<double>(i) * uniform.h;
  return x;
}

GridError l1_error(const SampledTrajectory& x, const BouncingBallSolution& exact) {
  return l1_error_against(x, exact);
}
GridError l1_error(const SampledTrajectory& x, const LinearOscillatorSolution& exact) {
  return l1_error_against(x, exact);
}
double final_error(const SampledTrajectory& x, const BouncingBallSolution& exact) {
  return final_error_against(x, exact);
}
double final_error(const SampledTrajectory& x, const LinearOscillatorSolution& exact) {
  return final_error_against(x, exact);
}

SampledTrajectory integrate_adaptive(Model& model, const AdaptiveMoreauJeanParameters& params, double horizon,
                                     AdaptiveMoreauJeanStats& stats) {
  if (model.lti.empty() || model.lti[0].dofs() != 1)
    throw std::invalid_argument("integrate_adaptive: the model's first LTI system must have one coordinate");
  if (!(horizon > 0.0)) throw std::invalid_argument("integrate_adaptive: the horizon must be > 0");
  AdaptiveMoreauJean scheme(model, params);
  const double t_end = model.time + horizon;
  SampledTrajectory x;
  record(x, model);
  while (model.time < t_end) {
    scheme.step(t_end);
    const StateSnapshot& half = scheme.half_step_state();
    x.t.push_back(half.time);
    x.q.push_back(half.q[0]);
    x.v.push_back(half.v[0]);
    record(x, model);
  }
  stats = scheme.stats();
  return x;
}

}  // namespace talus
