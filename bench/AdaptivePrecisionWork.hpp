#pragma once
// Precision–work diagrams for the adaptive Moreau–Jean scheme (seed 000 slides 99–107) and the higher-order
// event-capturing scheme (slides 108–117) on the bouncing ball and the linear impacting oscillator (eq 122
// and engine/BenchmarkModels.hpp), with fixed-step Moreau–Jean as the reference line. Header-only so that a
// bench program (bench/mechanisms) includes it and prints, writes and plots the same rows:
//   rows = adaptive_precision_work(settings);
//   print_adaptive_precision_work(std::cout, rows);
//   doc["adaptive_moreau_jean"] = adaptive_precision_work_json(rows);   // a JSON list (nlohmann-json)
//   plot_adaptive_precision_work(rows, "out/adaptive.json", "out/adaptive.png");
// Work is counted, never timed: one-step solves for the Moreau–Jean schemes (3 per step-doubling try,
// rejected tries included), and RK stages + Moreau–Jean steps for the event-capturing scheme. Errors are the
// L1 grid norm of eq 48 on each run's own grid (engine/adaptive/SampledTrajectory.hpp) and the error at the
// final time. docs/adaptive-moreau-jean.md explains the variants and the figures.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/JsonOutput.hpp"
#include "apps/PythonInterpreter.hpp"
#include "engine/AnalyticSolutions.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/StepReport.hpp"
#include "engine/adaptive/AdaptiveMoreauJean.hpp"
#include "engine/adaptive/EventCapturingRk.hpp"
#include "engine/adaptive/SampledTrajectory.hpp"

namespace talus::bench {

struct AdaptivePrecisionWorkRow {
  std::string problem;     // "bouncing_ball" or "linear_oscillator"
  std::string scheme;      // moreau_jean_fixed, adaptive_order0 …, event_capturing_rk4
  double tolerance = 0.0;  // atol = rtol (and the gap tolerance) of the adaptive runs; 0 for fixed-step runs
  double h = 0.0;          // the step of fixed-step runs, the first step of adaptive ones [s]
  long steps = 0;          // accepted steps
  long rejected = 0;
  long min_step_hits = 0;  // adaptive steps accepted at h_min above tolerance (0 expected)
  long work = 0;
  double error_q = 0.0;          // L1 grid error of q (eq 48)
  double error_v = 0.0;          // L1 grid error of v
  double final_error = 0.0;      // max(|q_N − q(T)|, |v_N − v⁺(T)|)
  double max_penetration = 0.0;  // max over the grid of −min(0, q): the constraint violation
  std::string failure;           // empty unless the run threw (then the numbers are meaningless)
};

struct AdaptivePrecisionWorkSettings {
  std::vector<double> tolerances = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
  std::vector<double> fixed_steps = {1e-1, 5e-2, 2e-2, 1e-2, 5e-3,
                                     2e-3, 1e-3, 5e-4, 2e-4, 1e-4};       // divide both horizons
  std::vector<double> rk_steps = {1e-1, 5e-2, 2.5e-2, 1.25e-2, 6.25e-3};  // event_capturing_rk4
  double theta = 0.5;
  double ball_horizon = 4.0;        // the accumulation at t = 3, then one second at rest
  double oscillator_horizon = 5.0;  // six impacts of the forced oscillator
  double first_step = 1e-2;
  double h_min = 1e-12;
};

namespace detail {

inline AdaptivePrecisionWorkRow make_row(const std::string& problem, const std::string& scheme,
                                         double tolerance, double h) {
  AdaptivePrecisionWorkRow row;
  row.problem = problem;
  row.scheme = scheme;
  row.tolerance = tolerance;
  row.h = h;
  return row;
}

struct AdaptiveVariant {
  const char* name;
  ErrorEstimateOrder order;
  bool violation;
};

inline const std::vector<AdaptiveVariant>& adaptive_variants() {
  static const std::vector<AdaptiveVariant> v = {
      {"adaptive_order0", ErrorEstimateOrder::Zero, false},
      {"adaptive_order1", ErrorEstimateOrder::One, false},
      {"adaptive_order2", ErrorEstimateOrder::Two, false},
      {"adaptive_order0_violation", ErrorEstimateOrder::Zero, true},
      {"adaptive_order1_violation", ErrorEstimateOrder::One, true},
      {"adaptive_variable_violation", ErrorEstimateOrder::Variable, true},
  };
  return v;
}

template <class Exact>
void fill_errors(AdaptivePrecisionWorkRow& row, const SampledTrajectory& x, const Exact& exact) {
  const GridError e = l1_error(x, exact);
  row.error_q = e.q;
  row.error_v = e.v;
  row.final_error = final_error(x, exact);
  for (double q : x.q) row.max_penetration = std::max(row.max_penetration, -q);
}

template <class Exact>
void sweep_problem(const std::string& problem, double horizon, const std::function<Model()>& build,
                   const Exact& exact, const AdaptivePrecisionWorkSettings& s,
                   std::vector<AdaptivePrecisionWorkRow>& rows) {
  auto guarded = [&](AdaptivePrecisionWorkRow row,
                     const std::function<void(AdaptivePrecisionWorkRow&)>& run) {
    try {
      run(row);
    } catch (const std::exception& e) {
      row.failure = e.what();
    }
    rows.push_back(row);
  };
  for (double h : s.fixed_steps) {
    guarded(make_row(problem, "moreau_jean_fixed", 0.0, h), [&](AdaptivePrecisionWorkRow& r) {
      Model model = build();
      MoreauJeanParameters p;
      p.h = h;
      p.theta = s.theta;
      const SampledTrajectory x = sampled(integrate_on_grid(model, p, horizon));
      r.steps = r.work = static_cast<long>(x.t.size()) - 1;
      fill_errors(r, x, exact);
    });
  }
  for (const AdaptiveVariant& variant : adaptive_variants()) {
    for (double tol : s.tolerances) {
      guarded(make_row(problem, variant.name, tol, s.first_step), [&](AdaptivePrecisionWorkRow& r) {
        Model model = build();
        AdaptiveMoreauJeanParameters p;
        p.scheme.h = s.first_step;
        p.scheme.theta = s.theta;
        p.order = variant.order;
        p.atol = p.rtol = tol;
        p.violation_control = variant.violation;
        p.gap_tolerance = tol;
        p.h_min = s.h_min;
        AdaptiveMoreauJeanStats stats;
        const SampledTrajectory x = integrate_adaptive(model, p, horizon, stats);
        r.steps = stats.accepted;
        r.rejected = stats.rejected;
        r.min_step_hits = stats.min_step_hits;
        r.work = stats.one_step_solves;
        fill_errors(r, x, exact);
      });
    }
  }
  for (double h : s.rk_steps) {
    guarded(make_row(problem, "event_capturing_rk4", 0.0, h), [&](AdaptivePrecisionWorkRow& r) {
      Model model = build();
      EventCapturingParameters p;
      p.h = h;
      p.moreau_jean.theta = s.theta;
      const long n = std::lround(horizon / h);
      SampledTrajectory x;
      x.t.push_back(model.time);
      x.q.push_back(model.lti[0].q[0]);
      x.v.push_back(model.lti[0].v[0]);
      EventCapturingRk scheme(model, p);
      for (long i = 0; i < n; ++i) {
        scheme.step();
        x.t.push_back(model.time);
        x.q.push_back(model.lti[0].q[0]);
        x.v.push_back(model.lti[0].v[0]);
      }
      r.steps = scheme.stats().steps;
      r.work = scheme.stats().work();
      fill_errors(r, x, exact);
    });
  }
}

}  // namespace detail

// Runs every sweep on both problems. A run that throws is kept as a row with `failure` set.
inline std::vector<AdaptivePrecisionWorkRow> adaptive_precision_work(
    const AdaptivePrecisionWorkSettings& s = {}) {
  std::vector<AdaptivePrecisionWorkRow> rows;
  const BouncingBallSolution ball;
  detail::sweep_problem(
      "bouncing_ball", s.ball_horizon, [] { return make_bouncing_ball(); }, ball, s, rows);
  const LinearOscillatorSolution oscillator(LinearOscillatorParameters{}, s.oscillator_horizon);
  detail::sweep_problem(
      "linear_oscillator", s.oscillator_horizon, [] { return make_linear_oscillator(); }, oscillator, s,
      rows);
  return rows;
}

// A readable table, one line per row.
inline void print_adaptive_precision_work(std::ostream& os,
                                          const std::vector<AdaptivePrecisionWorkRow>& rows) {
  char line[256];
  std::snprintf(line, sizeof line, "%-18s %-28s %8s %9s %8s %6s %4s %9s %10s %10s %10s %9s\n", "problem",
                "scheme", "tol", "h", "steps", "rej", "min", "work", "L1 err q", "L1 err v", "final err",
                "max pen");
  os << line;
  for (const AdaptivePrecisionWorkRow& r : rows) {
    if (!r.failure.empty()) {
      os << r.problem << " " << r.scheme << " tol " << r.tolerance << " h " << r.h
         << ": FAILED: " << r.failure << "\n";
      continue;
    }
    std::snprintf(line, sizeof line,
                  "%-18s %-28s %8.0e %9.2e %8ld %6ld %4ld %9ld %10.3e %10.3e %10.3e %9.2e\n",
                  r.problem.c_str(), r.scheme.c_str(), r.tolerance, r.h, r.steps, r.rejected, r.min_step_hits,
                  r.work, r.error_q, r.error_v, r.final_error, r.max_penetration);
    os << line;
  }
}

// The rows as a JSON list (nlohmann-json: NaN as null, strings escaped), for a bench's --json object under
// the key "adaptive_moreau_jean". A fixed-step row has tolerance null; "failure" is null unless it failed.
inline nlohmann::ordered_json adaptive_precision_work_json(const std::vector<AdaptivePrecisionWorkRow>& rows) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const AdaptivePrecisionWorkRow& r : rows)
    list.push_back({{"problem", r.problem},
                    {"scheme", r.scheme},
                    {"tolerance", r.tolerance > 0.0 ? nlohmann::ordered_json(r.tolerance) : nlohmann::ordered_json()},
                    {"h", r.h},
                    {"steps", r.steps},
                    {"rejected", r.rejected},
                    {"min_step_hits", r.min_step_hits},
                    {"work", r.work},
                    {"error_q", r.error_q},
                    {"error_v", r.error_v},
                    {"final_error", r.final_error},
                    {"max_penetration", r.max_penetration},
                    {"failure", r.failure.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.failure)}});
  return list;
}

// Units of the rows' fields, for the "units" object of a bench's --json.
inline nlohmann::ordered_json adaptive_precision_work_units() {
  return {{"h", "s (first step for the adaptive schemes)"},
          {"error_q", "L1 grid error of q (seed 000 eq 48)"},
          {"error_v", "L1 grid error of v"},
          {"max_penetration", "m"},
          {"work", "one-step solves (RK stages + Moreau-Jean steps for the event-capturing scheme)"}};
}

// Writes `{ fragment }` to json_path and runs `python plot_script json_path png_path`
// (scripts/plot_adaptive.py: L1 error of q against work, log–log, one panel per problem). Throws
// std::runtime_error when either fails.
inline void plot_adaptive_precision_work(const std::vector<AdaptivePrecisionWorkRow>& rows,
                                         const std::string& json_path, const std::string& png_path,
                                         const std::string& plot_script = "scripts/plot_adaptive.py",
                                         const std::string& python = app::python_interpreter()) {
  app::write_json_file(json_path, {{"units", adaptive_precision_work_units()},
                                   {"adaptive_moreau_jean", adaptive_precision_work_json(rows)}});
  const std::string command =
      "\"" + python + "\" \"" + plot_script + "\" \"" + json_path + "\" \"" + png_path + "\"";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("plotting failed: " + command);
}

}  // namespace talus::bench
