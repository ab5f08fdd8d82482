// The convergence bench (issue 2 item 7): empirical order of the Moreau–Jean θ-scheme and of its variants on the
// two academic benchmarks of seed 000 (slides 38–44) — the bouncing ball and the linear impacting oscillator —
// measured against their exact solutions (engine/AnalyticSolutions.hpp) with the L1 grid norm of eq 48 and the
// least-squares order of eq 50. Prints the error/order table; --json FILE writes one record per
// (problem, scheme, θ) so that a script can re-check it. docs/convergence.md explains the problems and the table.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/JsonOutput.hpp"
#include "engine/AnalyticSolutions.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/MoreauJean.hpp"

using namespace talus;

namespace {

constexpr double kBouncingBallHorizon = 4.0;       // impacts accumulate at t = 3, then one second at rest
constexpr double kLinearOscillatorHorizon = 5.0;   // six impacts of the forced oscillator

struct Problem {
  std::string name;
  double horizon;
  std::function<Model()> build;
  std::function<GridError(const GridTrajectory&)> error;
};

struct Scheme {
  std::string name;
  MoreauJeanVariant variant;
  bool uses_theta;  // Paoli's scheme evaluates forces at t_{i+1} whatever θ: one record, with θ = 1
};

struct Record {
  std::string problem, scheme;
  double theta = 0.0;
  std::vector<double> h, error_q, error_v;
  double order_q = std::numeric_limits<double>::quiet_NaN();
  double order_v = std::numeric_limits<double>::quiet_NaN();
  std::string failure;  // empty when every step of every run succeeded
};

std::vector<Problem> make_problems() {
  auto ball = std::make_shared<BouncingBallSolution>();
  auto oscillator = std::make_shared<LinearOscillatorSolution>(LinearOscillatorParameters{}, kLinearOscillatorHorizon);
  return {
      {"bouncing_ball", kBouncingBallHorizon, [] { return make_bouncing_ball(); },
       [ball](const GridTrajectory& x) { return l1_grid_error(x, *ball); }},
      {"linear_oscillator", kLinearOscillatorHorizon, [] { return make_linear_oscillator(); },
       [oscillator](const GridTrajectory& x) { return l1_grid_error(x, *oscillator); }},
  };
}

Scheme scheme_named(const std::string& name) {
  if (name == "moreau_jean") return {name, MoreauJeanVariant::Standard, true};
  if (name == "moreau_jean_dissipative") return {name, MoreauJeanVariant::Dissipative, true};
  return {name, MoreauJeanVariant::Paoli, false};
}

double order_or_nan(const std::vector<double>& h, const std::vector<double>& e) {
  try {
    return fitted_order(h, e);
  } catch (const std::invalid_argument&) {
    return std::numeric_limits<double>::quiet_NaN();  // e.g. an error exactly 0: no log-log slope
  }
}

Record measure(const Problem& problem, const Scheme& scheme, double theta, const std::vector<double>& steps) {
  Record r;
  r.problem = problem.name;
  r.scheme = scheme.name;
  r.theta = theta;
  for (double h : steps) {
    MoreauJeanParameters params;
    params.h = h;
    params.theta = theta;
    params.variant = scheme.variant;
    try {
      Model model = problem.build();
      const GridError e = problem.error(integrate_on_grid(model, params, problem.horizon));
      r.h.push_back(h);
      r.error_q.push_back(e.q);
      r.error_v.push_back(e.v);
    } catch (const std::exception& ex) {
      r.failure = "h = " + std::to_string(h) + ": " + ex.what();
      return r;
    }
  }
  r.order_q = order_or_nan(r.h, r.error_q);
  r.order_v = order_or_nan(r.h, r.error_v);
  return r;
}

void print_record(const Record& r) {
  std::printf("\n%s, %s, theta = %g\n", r.problem.c_str(), r.scheme.c_str(), r.theta);
  std::printf("  %10s  %14s  %14s\n", "h", "L1 error q", "L1 error v");
  for (std::size_t i = 0; i < r.h.size(); ++i)
    std::printf("  %10.1e  %14.6e  %14.6e\n", r.h[i], r.error_q[i], r.error_v[i]);
  if (!r.failure.empty())
    std::printf("  FAILED %s\n", r.failure.c_str());
  else
    std::printf("  %10s  %14.3f  %14.3f\n", "order", r.order_q, r.order_v);
}

void print_summary(const std::vector<Record>& records) {
  std::printf("\nSummary (least-squares order of the L1 grid error over h):\n");
  std::printf("  %-18s  %-24s  %5s  %8s  %8s\n", "problem", "scheme", "theta", "order_q", "order_v");
  for (const Record& r : records)
    std::printf("  %-18s  %-24s  %5g  %8.3f  %8.3f%s\n", r.problem.c_str(), r.scheme.c_str(), r.theta, r.order_q,
                r.order_v, r.failure.empty() ? "" : "  (failed)");
}

// One object: how it was made (command, version), the units, and one record per (problem, scheme, θ);
// "failure" only appears on a failed record. NaN and infinite values are written as null.
void write_json(const std::string& path, const std::vector<Record>& records, int argc, char** argv) {
  nlohmann::ordered_json doc;
  doc["command"] = talus::app::command_record(argc, argv);
  doc["units"] = {{"h", "s"},
                  {"error_q", "L1 grid error of q over [0, T] (seed 000 eq 48): m s"},
                  {"error_v", "L1 grid error of v over [0, T]: m"},
                  {"order_q", "least-squares slope of log error_q over log h (eq 50)"},
                  {"order_v", "least-squares slope of log error_v over log h"}};
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Record& r : records) {
    nlohmann::ordered_json j{{"problem", r.problem}, {"scheme", r.scheme},   {"theta", r.theta},
                             {"h", r.h},             {"error_q", r.error_q}, {"error_v", r.error_v},
                             {"order_q", r.order_q}, {"order_v", r.order_v}};
    if (!r.failure.empty()) j["failure"] = r.failure;
    list.push_back(std::move(j));
  }
  doc["records"] = std::move(list);
  talus::app::write_json_file(path, doc);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Empirical order of convergence of the Moreau-Jean scheme on the bouncing ball and the linear impacting "
      "oscillator (L1 grid error against the exact solutions, seed 000 eqs 48-50)"};
  std::vector<std::string> problem_names = {"bouncing_ball", "linear_oscillator"};
  std::vector<std::string> schemes = {"moreau_jean", "moreau_jean_dissipative", "paoli"};
  std::vector<double> thetas = {0.5, 1.0};
  std::vector<double> steps = {1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4};
  std::string json_path;
  app.add_option("--problem", problem_names, "problems to run")
      ->check(CLI::IsMember({"bouncing_ball", "linear_oscillator"}))
      ->capture_default_str();
  app.add_option("--scheme", schemes, "schemes to run (paoli has no theta: one record, with theta = 1)")
      ->check(CLI::IsMember({"moreau_jean", "moreau_jean_dissipative", "paoli"}))
      ->capture_default_str();
  app.add_option("--theta", thetas, "values of theta")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  app.add_option("--h", steps, "time steps [s]")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--json", json_path, "write one record per (problem, scheme, theta) to this JSON file");
  CLI11_PARSE(app, argc, argv);

  std::vector<Record> records;
  try {
    const std::vector<Problem> problems = make_problems();
    for (const Problem& problem : problems) {
      if (std::find(problem_names.begin(), problem_names.end(), problem.name) == problem_names.end()) continue;
      for (const std::string& name : schemes) {
        const Scheme scheme = scheme_named(name);
        for (double theta : scheme.uses_theta ? thetas : std::vector<double>{1.0}) {
          records.push_back(measure(problem, scheme, theta, steps));
          print_record(records.back());
          std::fflush(stdout);
        }
      }
    }
    print_summary(records);
    if (!json_path.empty()) {
      write_json(json_path, records, argc, argv);
      std::printf("\nwrote %s\n", json_path.c_str());
    }
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "convergence: %s\n", ex.what());
    return 1;
  }
  for (const Record& r : records)
    if (!r.failure.empty()) return 1;
  return 0;
}
