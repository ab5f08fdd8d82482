#pragma once
// Runs any second-order scheme on the one-coordinate benchmarks of engine/BenchmarkModels.hpp and records the
// grid trajectory (t_i = i h) that engine/AnalyticSolutions.hpp measures (seed 000 eqs 48–50), so tests and
// bench/schemes compare every scheme the same way as bench/convergence compares Moreau–Jean.
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/AnalyticSolutions.hpp"

namespace talus {

// Scheme: a class constructed as Scheme(Model&, const Params&) with step(); Params has a field h.
template <class Scheme, class Params>
GridTrajectory integrate_scheme_on_grid(Model& model, const Params& params, double horizon) {
  if (model.lti.empty() || model.lti[0].dofs() != 1)
    throw std::invalid_argument("integrate_scheme_on_grid: the first LTI system must have one coordinate");
  const long steps = std::lround(horizon / params.h);
  if (steps < 1 || std::abs(steps * params.h - horizon) > 1e-9 * horizon)
    throw std::invalid_argument("integrate_scheme_on_grid: the horizon " + std::to_string(horizon) +
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

}  // namespace talus
