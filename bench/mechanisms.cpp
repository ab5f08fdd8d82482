// The mechanisms bench (issue 6): the DAE integrators of the event-driven path compared as in seed 002
// section 3 and the event-driven scheme's event times on the bouncing ball.
//  1. slider-crank and rocking block (engine/eventdriven/Mechanisms.hpp, parameters in docs/mechanisms.md):
//     for tolerances 1e−2 … 1e−10 and HEM5, RKF45, generalized-α — average step, work (seed 002 table 2
//     counts), max drift of each g and ġ (the columns of seed 002 tables 3 and 4), and the error at t_end
//     against a reference computed by HEM5 at tolerance 1e−13 (the work–precision diagram of figure 3);
//  2. bouncing ball of seed 000 eq 122 under the event-driven scheme: max error of the first 20 impact times
//     against t_n = 3 − 2^(1−n), for each integrator and tolerances 1e−4 … 1e−12 (key `event_time_error`);
//  3. adaptive Moreau–Jean and the RK4 event-capturing scheme on the bouncing ball and the linear impacting
//     oscillator: precision against work (bench/AdaptivePrecisionWork.hpp, key `adaptive_moreau_jean`).
// Prints the tables; --json FILE writes them; --png FILE draws the work–precision diagram with
// scripts/plot_mechanisms.py and, beside it, the adaptive one with scripts/plot_adaptive.py.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <time.h>

#include "apps/JsonOutput.hpp"
#include "apps/PythonInterpreter.hpp"
#include "apps/RunOutputs.hpp"
#include "bench/AdaptivePrecisionWork.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/eventdriven/EventDriven.hpp"
#include "engine/eventdriven/Mechanisms.hpp"

using namespace talus;
using namespace talus::eventdriven;

namespace {

// CPU time of this thread: the bench machine is shared, wall time would measure the neighbours.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::vector<double> to_std(const Vector& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

struct MechanismRow {
  std::string mechanism, method;
  double tolerance = 0.0, average_step = 0.0, error = 0.0, seconds = 0.0;
  long work = 0, steps = 0, rejected = 0, forced = 0, newton = 0;
  std::vector<double> g_max, gd_max;
};

DaeOptions options(DaeMethod method, double tol) {
  DaeOptions o;
  o.method = method;
  o.control.tolerance = tol;  // the other settings are seed 002 table 1's defaults (DaeStepControl)
  return o;
}

MechanismRow run_mechanism(const MechanismCase& c, DaeMethod method, double tol, const Vector& q_ref) {
  MechanismRow r;
  r.mechanism = c.name;
  r.method = to_string(method);
  r.tolerance = tol;
  DaeState s = c.initial;
  const double t0 = cpu_seconds();
  const DaeRunSummary sum = integrate(c.system, c.active, s, c.t_end, options(method, tol));
  r.seconds = cpu_seconds() - t0;
  r.average_step = sum.average_step;
  r.work = sum.work.work();
  r.steps = sum.steps;
  r.rejected = sum.work.rejected_steps;
  r.forced = sum.work.forced_steps;
  r.newton = sum.work.newton_iterations;
  r.g_max = to_std(sum.max_gap_drift_rows);
  r.gd_max = to_std(sum.max_velocity_drift_rows);
  r.error = (s.q - q_ref).lpNorm<Eigen::Infinity>();
  return r;
}

struct BallRow {
  std::string method;
  std::vector<double> tolerances, max_error, error_after_accumulation;
  std::vector<long> impacts;
};

BallRow run_ball(DaeMethod method, const std::vector<double>& tolerances) {
  BallRow b;
  b.method = to_string(method);
  b.tolerances = tolerances;
  for (double tol : tolerances) {
    Model model = make_bouncing_ball();
    EventDrivenParameters p;
    p.dae = options(method, tol);
    EventDriven ed(model, p);
    ed.advance_to(4.0);
    double worst = 0.0;
    int n = 0;
    for (const EventRecord& e : ed.report().log) {
      if (e.kind != EventKind::Impact && e.kind != EventKind::Rest) continue;
      if (n < 20) worst = std::max(worst, std::abs(e.time - (3.0 - std::pow(2.0, 1.0 - n))));
      ++n;
    }
    if (n < 20) worst = std::numeric_limits<double>::infinity();
    b.max_error.push_back(worst);
    b.error_after_accumulation.push_back(std::max(std::abs(model.lti[0].q[0]), std::abs(model.lti[0].v[0])));
    b.impacts.push_back(n);
  }
  return b;
}

void print_table(const std::vector<MechanismRow>& rows, const std::string& mechanism, const std::string& method) {
  std::vector<const MechanismRow*> sel;
  for (const auto& r : rows)
    if (r.mechanism == mechanism && r.method == method) sel.push_back(&r);
  if (sel.empty()) return;
  const size_t m = sel.front()->g_max.size();
  std::printf("\n%s — %s\n%-10s %-10s %-9s", mechanism.c_str(), method.c_str(), "tolerance", "average h", "work");
  for (size_t i = 0; i < m; ++i) std::printf(" %-10s", ("g" + std::to_string(i + 1) + "_max").c_str());
  for (size_t i = 0; i < m; ++i) std::printf(" %-10s", ("gdot" + std::to_string(i + 1) + "_max").c_str());
  std::printf(" %-10s %-7s %-7s %-8s\n", "error", "steps", "reject", "forced");
  for (const MechanismRow* r : sel) {
    std::printf("%-10.0e %-10.3e %-9ld", r->tolerance, r->average_step, r->work);
    for (double g : r->g_max) std::printf(" %-10.2e", g);
    for (double g : r->gd_max) std::printf(" %-10.2e", g);
    std::printf(" %-10.2e %-7ld %-7ld %-8ld\n", r->error, r->steps, r->rejected, r->forced);
  }
}

// The tables as one JSON object (nlohmann-json: NaN as null), with how it was made and the units.
std::string json(const std::vector<MechanismRow>& rows, const std::vector<BallRow>& balls,
                 const std::vector<talus::bench::AdaptivePrecisionWorkRow>& adaptive, int argc, char** argv) {
  using nlohmann::ordered_json;
  ordered_json doc;
  doc["command"] = talus::app::command_record(argc, argv);
  doc["units"] = {{"tolerance", "the DAE integrator's relative tolerance"},
                  {"average_step", "s"},
                  {"work", "F + G + G_q evaluations + linear systems (seed 002 figure 3)"},
                  {"g_max", "largest position-constraint violation, one per constraint (SI length)"},
                  {"gdot_max", "largest velocity-constraint violation (SI length/s)"},
                  {"error", "error of q(t_end) against the reference"},
                  {"cpu_seconds", "s"},
                  {"max_error", "s: largest impact-time error over the compared impacts"}};
  ordered_json mechanisms = ordered_json::array();
  for (const MechanismRow& r : rows)
    mechanisms.push_back({{"mechanism", r.mechanism},
                          {"method", r.method},
                          {"tolerance", r.tolerance},
                          {"average_step", r.average_step},
                          {"work", r.work},
                          {"steps", r.steps},
                          {"rejected", r.rejected},
                          {"forced", r.forced},
                          {"newton_iterations", r.newton},
                          {"g_max", r.g_max},
                          {"gdot_max", r.gd_max},
                          {"error", r.error},
                          {"cpu_seconds", r.seconds}});
  doc["mechanisms"] = std::move(mechanisms);
  ordered_json methods = ordered_json::array();
  for (const BallRow& b : balls)
    methods.push_back({{"method", b.method},
                       {"tolerances", b.tolerances},
                       {"max_error", b.max_error},
                       {"impacts", std::vector<double>(b.impacts.begin(), b.impacts.end())},
                       {"state_error_at_t4", b.error_after_accumulation}});
  doc["event_time_error"] = {{"problem", "bouncing_ball"},
                             {"impacts_compared", 20},
                             {"exact", "t_n = 3 - 2^(1-n)"},
                             {"methods", std::move(methods)}};
  if (!adaptive.empty()) doc["adaptive_moreau_jean"] = talus::bench::adaptive_precision_work_json(adaptive);
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Mechanisms bench: seed 002 tables 3-4 (slider-crank, rocking block; HEM5, RKF45, generalized-alpha)\n"
               "the event-driven bouncing ball's impact-time errors, and the precision-work sweeps of the adaptive\n"
               "Moreau-Jean and RK4 event-capturing schemes (bouncing ball, impacting oscillator)."};
  std::string json_path, png_path, adaptive_png_path;
  bool skip_adaptive = false;
  std::vector<double> tolerances = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
  std::vector<std::string> methods = {"hem5", "rkf45", "alpha"};
  // Generalized-α at 1e-10 runs at the 1e-6 s minimum step (2e6 steps on the slider-crank, about half of the
  // bench's time); --alpha-min-tolerance 1e-9 skips it.
  double alpha_min_tolerance = 1e-10;
  // The plotting script sits in scripts/ of the source tree; the executable in build/bench/ finds it there.
  std::string plot_script = "scripts/plot_mechanisms.py";
  {
    std::error_code ec;
    const auto exe = std::filesystem::canonical(argv[0], ec);
    if (!ec) {
      const auto guess = exe.parent_path().parent_path().parent_path() / "scripts" / "plot_mechanisms.py";
      if (std::filesystem::exists(guess)) plot_script = guess.string();
    }
  }
  app.add_option("--json", json_path, "write the tables as JSON to FILE");
  app.add_option("--png", png_path, "draw the work-precision diagram to FILE (runs scripts/plot_mechanisms.py)");
  app.add_option("--plot-script", plot_script, "the plotting script run with --png")->capture_default_str();
  app.add_option("--adaptive-png", adaptive_png_path,
                 "draw the adaptive Moreau-Jean precision-work diagram to FILE (default with --png: beside it, "
                 "<stem>_adaptive.png)");
  app.add_flag("--skip-adaptive", skip_adaptive, "leave out the adaptive Moreau-Jean precision-work sweeps");
  app.add_option("--tolerances", tolerances, "integration tolerances")->capture_default_str();
  app.add_option("--methods", methods, "DAE integrators: hem5 rkf45 alpha")->capture_default_str();
  app.add_option("--alpha-min-tolerance", alpha_min_tolerance,
                 "skip generalized-alpha below this tolerance (it runs at the 1e-6 s minimum step there)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    std::vector<DaeMethod> ms;
    for (const auto& m : methods) ms.push_back(parse_dae_method(m));

    std::vector<MechanismRow> rows;
    for (const MechanismCase& c : {make_slider_crank(), make_rocking_block()}) {
      DaeState ref = c.initial;
      DaeOptions ro = options(DaeMethod::Hem5, 1e-13);
      ro.control.min_step = 1e-9;
      integrate(c.system, c.active, ref, c.t_end, ro);
      for (DaeMethod m : ms)
        for (double tol : tolerances) {
          if (m == DaeMethod::GeneralizedAlpha && tol < alpha_min_tolerance) continue;
          rows.push_back(run_mechanism(c, m, tol, ref.q));
        }
    }
    std::printf("Seed 002 tables 3 (slider-crank) and 4 (rocking block): average step, work (F + G + G_q + linear\n"
                "systems [+ K_t, C_t]), max drift of g and gdot over [0, t_end], error of q(t_end) vs HEM5 at 1e-13.\n");
    for (const char* mech : {"slider_crank", "rocking_block"})
      for (const auto& m : methods) print_table(rows, mech, to_string(parse_dae_method(m)));

    const std::vector<double> ball_tols = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12};
    std::vector<BallRow> balls;
    for (DaeMethod m : ms) balls.push_back(run_ball(m, ball_tols));
    std::printf("\nEvent-driven bouncing ball (seed 000 eq 122): max |t_n - (3 - 2^(1-n))| over the first 20 impacts\n");
    std::printf("%-8s", "method");
    for (double t : ball_tols) std::printf(" %-9.0e", t);
    std::printf("\n");
    for (const BallRow& b : balls) {
      std::printf("%-8s", b.method.c_str());
      for (double e : b.max_error) std::printf(" %-9.1e", e);
      std::printf("\n");
    }
    std::printf("max(|q|, |v|) at t = 4, after the accumulation at t = 3 (exact: 0)\n");
    for (const BallRow& b : balls) {
      std::printf("%-8s", b.method.c_str());
      for (double e : b.error_after_accumulation) std::printf(" %-9.1e", e);
      std::printf("\n");
    }

    std::vector<talus::bench::AdaptivePrecisionWorkRow> adaptive;
    if (!skip_adaptive) {
      adaptive = talus::bench::adaptive_precision_work();
      std::printf("\nAdaptive Moreau-Jean and RK4 event capturing (seed 000 slides 89-117): precision against work\n");
      std::fflush(stdout);
      talus::bench::print_adaptive_precision_work(std::cout, adaptive);
      std::cout.flush();
    }

    std::string out = json(rows, balls, adaptive, argc, argv);
    if (!json_path.empty()) talus::app::write_file_atomically(json_path, out);
    if (!png_path.empty()) {
      std::string data = json_path;
      if (data.empty()) {
        data = (std::filesystem::temp_directory_path() / "talus_mechanisms.json").string();
        talus::app::write_file_atomically(data, out);
      }
      const std::string command = talus::app::python_interpreter() + " \"" + plot_script + "\" \"" + data + "\" \"" + png_path + "\"";
      if (std::system(command.c_str()) != 0) throw std::runtime_error("plotting failed: " + command);
      std::printf("\nwork-precision diagram: %s\n", png_path.c_str());
      if (adaptive_png_path.empty() && !adaptive.empty()) {
        const std::filesystem::path p(png_path);
        adaptive_png_path = (p.parent_path() / (p.stem().string() + "_adaptive.png")).string();
      }
    }
    if (!adaptive_png_path.empty() && !adaptive.empty()) {
      const auto data = std::filesystem::temp_directory_path() / "talus_mechanisms_adaptive.json";
      const auto script = std::filesystem::path(plot_script).parent_path() / "plot_adaptive.py";
      talus::bench::plot_adaptive_precision_work(adaptive, data.string(), adaptive_png_path, script.string());
      std::printf("adaptive Moreau-Jean precision-work diagram: %s\n", adaptive_png_path.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mechanisms: %s\n", e.what());
    return 1;
  }
  return 0;
}
