// Stack-height bench (issue 10 item 1; docs/stack-height.md): how the cost of the friction-contact solve grows
// with the number of layers L. Gauss–Seidel carries a correction about one contact layer per sweep, so plain
// NSGS needs on the order of L² sweeps; the multilevel and NNCG solvers are meant to remove that growth, and
// this bench measures it on three families of scenes, and a fourth on request (engine/granular/GranularScenes.hpp):
//   bead_column       one column of L beads on a floor, at rest (gaps 0): the first step from zero reactions
//                     (cold) and --warm-steps more (warm start from the cached reactions);
//   packed_box        L layers of FCC packing at rest in a box whose walls touch it: cold and warm steps;
//   lattice_collapse  bead_stack's 2.2 r lattice, k × k beads wide and L high, released at t = 0 and stepped
//                     --steps times: the mean and worst over the steps;
//   pyramid           (on request) a square pyramid of L FCC layers on a floor, every contact touching: cold
//                     and warm steps, as packed_box.
// The measure is the sweep-equivalent: the solve's CPU time divided by the CPU time of one plain matrix-free
// sweep on the same problem, so that every coarse level, every extra pass and every residual evaluation of a
// solver is counted. The sweep time is measured by calibration runs: a fresh stepper on a copy of the state
// before the step solves it with the plain matrix-free solver to the tolerance (at most --calibration-sweeps
// sweeps, repeated until --calibration-ms of CPU are spent); its solve time divided by its sweeps plus residual
// evaluations (each costs about a sweep) is the unit, so plain NSGS scores about its sweeps plus checks.
// packed_box, bead_column and pyramid keep their contacts, so one calibration per (family, L) serves every step and
// solver; lattice_collapse is calibrated before every step of every solver, on that solver's state.
// The machine is shared, so CPU time of the stepping thread is the measure (with one thread, the whole cost);
// wall time is reported beside it.
// A solver that the stepper refuses (std::invalid_argument, e.g. one not built yet) is reported as not
// available and the bench goes on. A solve that does not reach the tolerance within --max-sweeps is reported
// as not converged, with its figures.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/PythonInterpreter.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus;
using namespace talus::granular;
using json = nlohmann::ordered_json;

namespace {

const std::vector<std::string> kFamilies = {"bead_column", "packed_box", "lattice_collapse", "pyramid"};
// The default sweep (pyramid is on request: its L-layer scene holds ~L³/3 beads).
const std::vector<std::string> kDefaultFamilies = {"bead_column", "packed_box", "lattice_collapse"};

constexpr int kSolve = static_cast<int>(Phase::Solve);

GranularScene make_scene(const std::string& family, int layers, int width) {
  const BeadSpec spec;  // glass beads: r = 1 cm, ρ = 2500, μ = 0.3, e = 0; 2.2 r lattice with 0.05 r jitter
  if (family == "bead_column") return bead_column(spec, layers);
  if (family == "packed_box") return packed_box(spec, width, layers);
  if (family == "pyramid") return pyramid(spec, layers);
  return lattice_stack(spec, width, layers);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One fine sweep's time on the problem of the next step of `state`: the plain matrix-free solve of that step
// to the tolerance (at most `budget` sweeps), its solve time over its sweeps plus residual evaluations,
// repeated until `min_cpu` seconds of CPU are spent (tiny problems). A whole solve, not a few sweeps: the
// first sweeps from zero reactions are up to a third cheaper than the later ones (measured on packed_box
// L = 160: 0.65 ms per sweep over 20 sweeps, 0.98 ms over 1 280), so a short run would flatter every solver.
struct Calibration {
  double sweep_wall = 0.0, sweep_cpu = 0.0;
  long sweeps = 0, checks = 0;
  int runs = 0;
};

Calibration calibrate(const Model& state, const GranularParameters& base, double min_cpu, int budget) {
  Calibration c;
  double cpu = 0.0, wall = 0.0;
  while (c.runs < 1000) {
    Model m = state;
    GranularParameters p = base;
    p.solver = GranularSolver::MatrixFree;
    p.max_sweeps = std::min(base.max_sweeps, budget);
    p.record_history = false;
    GranularStepper s(m, p);
    const GranularStepReport& rep = s.step();
    if (rep.contacts == 0) return Calibration{};  // nothing to solve: no sweep time
    ++c.runs;
    c.sweeps += rep.solver.iterations, c.checks += rep.residual_checks;
    cpu += rep.phase_cpu_seconds[kSolve], wall += rep.phase_seconds[kSolve];
    if (cpu >= min_cpu) break;
  }
  const double n = static_cast<double>(c.sweeps + c.checks);
  if (n > 0) c.sweep_cpu = cpu / n, c.sweep_wall = wall / n;
  return c;
}

struct StepFigures {
  int contacts = 0, sweeps = 0, checks = 0;
  double residual = 0.0;
  bool converged = true;
  std::string status;
  double solve_wall = 0, solve_cpu = 0, step_wall = 0, step_cpu = 0;
  double sweep_wall = 0, sweep_cpu = 0;     // calibration: one fine sweep
  double se_cpu = 0, se_wall = 0;           // sweep-equivalents (0 when the step had no contact)
};

json to_json(const StepFigures& f, int index) {
  return json{{"step", index},         {"contacts", f.contacts},       {"sweeps", f.sweeps},
              {"residual_checks", f.checks}, {"residual", f.residual}, {"converged", f.converged},
              {"status", f.status},    {"solve_wall_s", f.solve_wall}, {"solve_cpu_s", f.solve_cpu},
              {"step_wall_s", f.step_wall}, {"step_cpu_s", f.step_cpu}, {"sweep_wall_s", f.sweep_wall},
              {"sweep_cpu_s", f.sweep_cpu}, {"sweep_equivalents", f.se_cpu}, {"sweep_equivalents_wall", f.se_wall}};
}

// Mean and worst of the figures over a range of steps.
struct Summary {
  std::string label;  // cold, warm, mean, worst
  int steps = 0, unconverged = 0;
  double contacts = 0, sweeps = 0, checks = 0, residual = 0, solve_wall = 0, solve_cpu = 0, step_wall = 0,
         step_cpu = 0, sweep_cpu = 0, se_cpu = 0, se_wall = 0;
};

Summary summarise(const std::vector<StepFigures>& s, std::size_t from, std::size_t to, bool worst,
                  const std::string& label) {
  Summary r;
  r.label = label;
  for (std::size_t i = from; i < to; ++i) {
    const StepFigures& f = s[i];
    ++r.steps;
    r.unconverged += f.converged ? 0 : 1;
    auto acc = [&](double& a, double v) { a = worst ? std::max(a, v) : a + v; };
    acc(r.contacts, f.contacts), acc(r.sweeps, f.sweeps), acc(r.checks, f.checks);
    acc(r.solve_wall, f.solve_wall), acc(r.solve_cpu, f.solve_cpu), acc(r.step_wall, f.step_wall);
    acc(r.step_cpu, f.step_cpu), acc(r.sweep_cpu, f.sweep_cpu), acc(r.se_cpu, f.se_cpu), acc(r.se_wall, f.se_wall);
    r.residual = std::max(r.residual, f.residual);  // the worst residual reached, in either case
  }
  if (!worst && r.steps > 0)
    for (double* a : {&r.contacts, &r.sweeps, &r.checks, &r.solve_wall, &r.solve_cpu, &r.step_wall, &r.step_cpu,
                      &r.sweep_cpu, &r.se_cpu, &r.se_wall})
      *a /= r.steps;
  return r;
}

json to_json(const Summary& s) {
  return json{{"steps", s.steps},         {"unconverged_steps", s.unconverged},
              {"contacts", s.contacts},   {"sweeps", s.sweeps},
              {"residual_checks", s.checks}, {"worst_residual", s.residual},
              {"solve_wall_s", s.solve_wall}, {"solve_cpu_s", s.solve_cpu},
              {"step_wall_s", s.step_wall}, {"step_cpu_s", s.step_cpu},
              {"sweep_cpu_s", s.sweep_cpu}, {"sweep_equivalents", s.se_cpu},
              {"sweep_equivalents_wall", s.se_wall}};
}

struct Case {
  std::string family, solver;
  int layers = 0;
  long beads = 0;
  bool available = true;
  std::string reason;  // why not available
  std::vector<StepFigures> steps;
  std::vector<Summary> summaries;  // cold, warm (column, box) or mean, worst (collapse)
  std::vector<ResidualSample> history;
  double history_solve_wall = 0, history_solve_cpu = 0, history_sweep_wall = 0, history_sweep_cpu = 0;
};

std::string status_text(const StepFigures& f, int max_sweeps) {
  if (f.converged) return "ok";
  if (f.status == talus::solvers::to_string(talus::solvers::SolverStatus::MaxIterations))
    return "did not converge in " + std::to_string(max_sweeps) + " sweeps";
  return "did not converge: " + f.status;
}

std::string summary_status(const Summary& s, int max_sweeps) {
  if (s.unconverged == 0) return "ok";
  std::string t = "did not converge in " + std::to_string(max_sweeps) + " sweeps";
  if (s.steps > 1) t += " (" + std::to_string(s.unconverged) + " of " + std::to_string(s.steps) + " steps)";
  return t;
}

void print_header() {
  std::printf("%-16s %4s %6s %-12s %-5s %8s %8s %6s %10s %10s %10s %10s %10s %9s %9s  %s\n", "family", "L", "beads",
              "solver", "step", "contacts", "sweeps", "checks", "sweep-eq", "solve cpu", "solve wall", "step cpu",
              "step wall", "sweep us", "residual", "status");
}

void print_summary(const Case& c, const Summary& s, int max_sweeps) {
  std::printf("%-16s %4d %6ld %-12s %-5s %8.0f %8.1f %6.1f %10.1f %9.2fms %9.2fms %9.2fms %9.2fms %9.2f %9.2e  %s\n",
              c.family.c_str(), c.layers, c.beads, c.solver.c_str(), s.label.c_str(), s.contacts, s.sweeps, s.checks,
              s.se_cpu, 1e3 * s.solve_cpu, 1e3 * s.solve_wall, 1e3 * s.step_cpu, 1e3 * s.step_wall, 1e6 * s.sweep_cpu,
              s.residual, summary_status(s, max_sweeps).c_str());
  std::fflush(stdout);
}

struct Options {
  std::vector<int> layers{10, 20, 40, 80, 160};
  std::vector<std::string> families = kDefaultFamilies;
  std::vector<std::string> solvers{"matrix_free", "anderson", "nncg", "multilevel"};
  int width = 6, steps = 100, warm_steps = 3;
  double calibration_ms = 5.0;
  int calibration_sweeps = 2000;
  std::string history_family = "packed_box";
  int history_layers = 0;  // 0: the largest of --layers
  int history_step = 0;
  std::string json_path, png_path, plot_script = "scripts/plot_stack_height.py";
};

Case run_case(const std::string& family, int layers, const std::string& solver, const Options& o,
              const GranularParameters& base, const Calibration* shared_calibration, bool keep_history) {
  Case c;
  c.family = family, c.solver = solver, c.layers = layers;
  GranularScene sc = make_scene(family, layers, o.width);
  Model& m = sc.model;
  c.beads = m.bodies.spheres();
  const bool collapse = family == "lattice_collapse";
  const int nsteps = collapse ? o.steps : 1 + o.warm_steps;
  GranularParameters p = base;
  p.solver = granular_solver_from_name(solver);
  p.record_history = keep_history;
  const auto t0 = std::chrono::steady_clock::now();
  auto last_progress = t0;
  // Only the solver's refusal counts as "not available"; a failing calibration is an error of the bench.
  auto refused = [&](const std::invalid_argument& e) {
    c.available = false;
    c.reason = e.what();
    c.steps.clear();
    return c;
  };
  std::optional<GranularStepper> stepper;
  try {
    stepper.emplace(m, p);
  } catch (const std::invalid_argument& e) {
    return refused(e);
  }
  for (int k = 0; k < nsteps; ++k) {
    const Calibration cal =
        shared_calibration ? *shared_calibration : calibrate(m, base, 1e-3 * o.calibration_ms, o.calibration_sweeps);
    const GranularStepReport* step_report = nullptr;
    try {
      step_report = &stepper->step();
    } catch (const std::invalid_argument& e) {
      return refused(e);
    }
    const GranularStepReport& rep = *step_report;
    StepFigures f;
    f.contacts = rep.contacts, f.sweeps = rep.solver.iterations, f.checks = rep.residual_checks;
    f.residual = rep.solver.residual, f.converged = rep.solver.converged();
    f.status = talus::solvers::to_string(rep.solver.status);
    f.solve_wall = rep.phase_seconds[kSolve], f.solve_cpu = rep.phase_cpu_seconds[kSolve];
    for (int q = 0; q < kPhaseCount; ++q) f.step_wall += rep.phase_seconds[q], f.step_cpu += rep.phase_cpu_seconds[q];
    f.sweep_wall = cal.sweep_wall, f.sweep_cpu = cal.sweep_cpu;
    if (rep.contacts > 0 && cal.sweep_cpu > 0.0) f.se_cpu = f.solve_cpu / cal.sweep_cpu;
    if (rep.contacts > 0 && cal.sweep_wall > 0.0) f.se_wall = f.solve_wall / cal.sweep_wall;
    c.steps.push_back(f);
    if (keep_history && k == o.history_step) {
      c.history = stepper->residual_history();
      c.history_solve_wall = f.solve_wall, c.history_solve_cpu = f.solve_cpu;
      c.history_sweep_wall = cal.sweep_wall, c.history_sweep_cpu = cal.sweep_cpu;
    }
    if (seconds_since(last_progress) > 10.0 || k + 1 == nsteps) {
      last_progress = std::chrono::steady_clock::now();
      std::fprintf(stderr, "  %s L=%d %s: step %d/%d, %d contacts, %d sweeps, residual %.2e%s (%.0f s)\n",
                   family.c_str(), layers, solver.c_str(), k + 1, nsteps, f.contacts, f.sweeps, f.residual,
                   f.converged ? "" : " not converged", seconds_since(t0));
    }
  }
  if (collapse) {
    c.summaries.push_back(summarise(c.steps, 0, c.steps.size(), false, "mean"));
    c.summaries.push_back(summarise(c.steps, 0, c.steps.size(), true, "worst"));
  } else {
    c.summaries.push_back(summarise(c.steps, 0, 1, false, "cold"));
    if (c.steps.size() > 1) c.summaries.push_back(summarise(c.steps, 1, c.steps.size(), false, "warm"));
  }
  return c;
}

const Summary* find_summary(const Case& c, const std::string& label) {
  for (const Summary& s : c.summaries)
    if (s.label == label) return &s;
  return nullptr;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"Stack-height bench (issue 10): sweep-equivalents per step of the friction-contact solve against "
               "the number of layers, per scene family and solver. docs/stack-height.md explains the figures."};
  Options o;
  GranularParameters base;
  base.on_failure = FailurePolicy::Keep;  // a solve that misses the tolerance is a measurement, not an error
  base.tolerance = 1e-4;
  base.max_sweeps = 20000;
  base.h = 1e-3;
  base.threads = 1;
  {
    // The plotting script sits in scripts/ of the source tree; the executable in <build>/bench/ finds it there.
    std::error_code ec;
    const auto exe = std::filesystem::canonical(argv[0], ec);
    if (!ec) {
      const auto guess = exe.parent_path().parent_path().parent_path() / "scripts" / "plot_stack_height.py";
      if (std::filesystem::exists(guess)) o.plot_script = guess.string();
    }
  }
  const std::vector<std::string>& solver_names = granular_solver_names();
  app.add_option("--layers", o.layers, "stack heights L (layers)")->delimiter(',')->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--families", o.families, "scene families")->delimiter(',')->check(CLI::IsMember(kFamilies))
      ->capture_default_str();
  app.add_option("--solvers", o.solvers, "solvers to measure")->delimiter(',')->check(CLI::IsMember(solver_names))
      ->capture_default_str();
  app.add_option("--width", o.width, "footprint k (k x k beads) of packed_box and lattice_collapse")
      ->check(CLI::Range(2, 1000))->capture_default_str();
  app.add_option("--steps", o.steps, "lattice_collapse: steps from t = 0")->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warm-steps", o.warm_steps, "bead_column, packed_box: warm steps after the cold one")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--tolerance", base.tolerance, "friction-contact residual per step")->capture_default_str();
  app.add_option("--max-sweeps", base.max_sweeps, "fine-sweep budget per step (beyond it: not converged)")
      ->capture_default_str();
  app.add_option("--threads", base.threads, "threads of the stepper")->capture_default_str();
  app.add_option("--h", base.h, "time step [s]")->capture_default_str();
  std::string contact_order = "detection";
  app.add_option("--contact-order", contact_order,
                 "order of the contacts in each sweep block (GranularParameters::contact_order; the calibration "
                 "sweeps in the same order)")
      ->check(CLI::IsMember({"detection", "bottom_up", "top_down"}))->capture_default_str();
  // The multilevel solver's cycle (MultilevelNsgs.hpp), for measuring its variants on the same scenes.
  matrixfree::MultilevelParameters& ml = base.multilevel;
  app.add_option("--ml-pre-sweeps", ml.pre_sweeps, "multilevel: fine sweeps before the coarse levels, per cycle")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--ml-post-sweeps", ml.post_sweeps, "multilevel: fine sweeps after them")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--ml-coarse-sweeps", ml.coarse_sweeps, "multilevel: sweeps at each intermediate level, per visit")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--ml-coarsest-sweeps", ml.coarsest_sweeps, "multilevel: sweeps at the coarsest level, at most")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--ml-max-levels", ml.max_levels, "multilevel: coarse levels at most")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--ml-trial-cycles", ml.trial_cycles, "multilevel: cycles before the residual must beat the checkpoint")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--ml-plain-first", ml.plain_first, "multilevel: plain sweeps before the first cycle")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--ml-up-leg", ml.up_leg, "multilevel: visit the levels again on the way back up")->capture_default_str();
  app.add_option("--ml-aggregate-diameters", ml.aggregate_diameters,
                 "multilevel: side of the first level's cells in bead diameters (doubled per level)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--ml-spread-routing", ml.spread_routing,
                 "multilevel: a bead's need shared by all its contacts toward its aggregate's root (0: one tree contact)")
      ->capture_default_str();
  app.add_option("--calibration-ms", o.calibration_ms, "least CPU time of a sweep-time calibration (solves repeated)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--calibration-sweeps", o.calibration_sweeps, "sweep budget of a calibration solve")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--history-family", o.history_family, "family of the step whose residual history is kept")
      ->check(CLI::IsMember(kFamilies))->capture_default_str();
  app.add_option("--history-layers", o.history_layers, "its L (default: the largest of --layers)");
  app.add_option("--history-step", o.history_step, "its step index (0: the first, cold step)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--json", o.json_path, "write every figure to FILE");
  app.add_option("--png", o.png_path, "draw the residual histories to FILE (runs scripts/plot_stack_height.py)");
  app.add_option("--plot-script", o.plot_script, "the plotting script run with --png")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  base.contact_order = contact_order == "bottom_up"  ? GranularParameters::ContactOrder::BottomUp
                      : contact_order == "top_down" ? GranularParameters::ContactOrder::TopDown
                                                    : GranularParameters::ContactOrder::Detection;
  if (o.history_layers == 0) o.history_layers = *std::max_element(o.layers.begin(), o.layers.end());
  std::sort(o.layers.begin(), o.layers.end());
  o.layers.erase(std::unique(o.layers.begin(), o.layers.end()), o.layers.end());
  if (base.threads > 1)
    std::fprintf(stderr, "stack_height: with %d threads the CPU times count the calling thread only\n", base.threads);

  const auto t_start = std::chrono::steady_clock::now();
  std::vector<Case> cases;
  std::printf("sweep-eq = solve CPU time / CPU time of one plain matrix-free sweep on the same problem; times per "
              "step (CPU of the stepping thread, and wall); residual = the worst reached\n");
  print_header();
  for (const std::string& family : kFamilies) {
    if (std::find(o.families.begin(), o.families.end(), family) == o.families.end()) continue;
    for (int L : o.layers) {
      Calibration shared;
      const bool static_scene = family != "lattice_collapse";
      if (static_scene) {
        GranularScene sc = make_scene(family, L, o.width);
        shared = calibrate(sc.model, base, 1e-3 * o.calibration_ms, o.calibration_sweeps);
        std::fprintf(stderr, "%s L=%d: %d beads, one sweep %.3g ms CPU (%ld sweeps + %ld checks in %d runs)\n",
                     family.c_str(), L, sc.model.bodies.spheres(), 1e3 * shared.sweep_cpu, shared.sweeps, shared.checks,
                     shared.runs);
      }
      for (const std::string& solver : o.solvers) {
        const bool keep = family == o.history_family && L == o.history_layers;
        std::fprintf(stderr, "%s L=%d %s ...\n", family.c_str(), L, solver.c_str());
        cases.push_back(run_case(family, L, solver, o, base, static_scene ? &shared : nullptr, keep));
        const Case& c = cases.back();
        if (!c.available) {
          std::printf("%-16s %4d %6ld %-12s not available (%s)\n", family.c_str(), L, c.beads, solver.c_str(),
                      c.reason.c_str());
          std::fflush(stdout);
        }
        for (const Summary& s : c.summaries) print_summary(c, s, base.max_sweeps);
      }
    }
  }

  // Growth from the smallest to the largest L: the target is <= 2 for the new solvers; plain NSGS
  // grows about as L².
  json growth = json::array();
  const int lo = o.layers.front(), hi = o.layers.back();
  std::printf("\ngrowth of sweep-equivalents per step from L = %d to L = %d (L^2 ratio %.0f):\n", lo, hi,
              double(hi) * hi / (double(lo) * lo));
  for (const std::string& family : kFamilies)
    for (const std::string& solver : o.solvers)
      for (const std::string label : {"cold", "warm", "mean"}) {
        const Case *a = nullptr, *b = nullptr;
        for (const Case& c : cases) {
          if (c.family != family || c.solver != solver || !c.available || !find_summary(c, label)) continue;
          if (c.layers == lo) a = &c;
          if (c.layers == hi) b = &c;
        }
        if (!a || !b || a == b) continue;
        const Summary &sa = *find_summary(*a, label), &sb = *find_summary(*b, label);
        if (!(sa.se_cpu > 0.0)) continue;
        const double ratio = sb.se_cpu / sa.se_cpu;
        const bool bound = sb.unconverged > 0;  // the largest did not converge: its cost is only a lower bound
        std::printf("  %-16s %-12s %-5s %10.1f -> %10.1f   x %s%.2f%s%s\n", family.c_str(), solver.c_str(),
                    label.c_str(), sa.se_cpu, sb.se_cpu, bound ? ">= " : "", ratio,
                    bound ? "  (largest L did not converge)" : "", sa.unconverged ? "  (smallest L did not converge)" : "");
        growth.push_back({{"family", family}, {"solver", solver}, {"step", label}, {"layers_from", lo},
                          {"layers_to", hi}, {"sweep_equivalents_from", sa.se_cpu}, {"sweep_equivalents_to", sb.se_cpu},
                          {"ratio", ratio}, {"lower_bound", bound}, {"from_unconverged", sa.unconverged > 0}});
      }
  const double total_s = seconds_since(t_start);
  std::printf("\nbench time %.1f s (wall)\n", total_s);

  if (o.json_path.empty() && o.png_path.empty()) return 0;
  json out;
  out["bench"] = "stack_height";
  out["parameters"] = {{"layers", o.layers}, {"families", o.families}, {"solvers", o.solvers}, {"width", o.width},
                       {"steps", o.steps}, {"warm_steps", o.warm_steps}, {"tolerance", base.tolerance},
                       {"max_sweeps", base.max_sweeps}, {"threads", base.threads},
                       {"multilevel", {{"pre_sweeps", ml.pre_sweeps}, {"post_sweeps", ml.post_sweeps},
                                       {"coarse_sweeps", ml.coarse_sweeps}, {"coarsest_sweeps", ml.coarsest_sweeps},
                                       {"max_levels", ml.max_levels}, {"trial_cycles", ml.trial_cycles},
                                       {"plain_first", ml.plain_first}, {"up_leg", ml.up_leg}}}, {"h", base.h}, {"contact_order", contact_order},
                       {"calibration_ms", o.calibration_ms}, {"calibration_sweeps", o.calibration_sweeps}, {"radius", BeadSpec{}.radius},
                       {"density", BeadSpec{}.density}, {"mu", BeadSpec{}.mu},
                       {"restitution", BeadSpec{}.restitution}};
  json records = json::array();
  for (const Case& c : cases) {
    json r = {{"family", c.family}, {"layers", c.layers}, {"solver", c.solver}, {"beads", c.beads},
              {"available", c.available}};
    if (!c.available) {
      r["reason"] = c.reason;
    } else {
      for (const Summary& s : c.summaries) {
        json js = to_json(s);
        js["status"] = summary_status(s, base.max_sweeps);
        r[s.label] = js;
      }
      json steps = json::array();
      for (std::size_t k = 0; k < c.steps.size(); ++k) {
        json js = to_json(c.steps[k], static_cast<int>(k));
        js["status"] = status_text(c.steps[k], base.max_sweeps);
        steps.push_back(js);
      }
      r["steps"] = steps;
    }
    records.push_back(r);
  }
  out["records"] = records;
  out["growth"] = growth;
  // The history's clock is wall time; on a shared machine the solve's CPU share is applied to it (seconds ×
  // solve CPU / solve wall ÷ sweep CPU), so that the last sample lands on the solve's sweep-equivalents.
  json history = {{"family", o.history_family}, {"layers", o.history_layers}, {"step", o.history_step},
                  {"tolerance", base.tolerance}};
  json curves = json::array();
  for (const Case& c : cases) {
    if (c.family != o.history_family || c.layers != o.history_layers) continue;
    json curve = {{"solver", c.solver}, {"available", c.available}};
    json samples = json::array();
    const double cpu_share = c.history_solve_wall > 0.0 ? c.history_solve_cpu / c.history_solve_wall : 1.0;
    for (const ResidualSample& s : c.history)
      samples.push_back({{"sweeps", s.sweeps}, {"seconds", s.seconds}, {"residual", s.residual},
                         {"sweep_equivalents", c.history_sweep_cpu > 0.0 ? s.seconds * cpu_share / c.history_sweep_cpu : 0.0},
                         {"sweep_equivalents_wall", c.history_sweep_wall > 0.0 ? s.seconds / c.history_sweep_wall : 0.0}});
    curve["sweep_cpu_s"] = c.history_sweep_cpu;
    curve["sweep_wall_s"] = c.history_sweep_wall;
    curve["samples"] = samples;
    curves.push_back(curve);
  }
  history["solvers"] = curves;
  out["history"] = history;
  out["bench_wall_s"] = total_s;

  std::string json_path = o.json_path;
  if (json_path.empty()) json_path = std::filesystem::path(o.png_path).replace_extension(".json").string();
  {
    std::ofstream f(json_path);
    f << out.dump(1) << '\n';
    if (!f) {
      std::cerr << "stack_height: cannot write " << json_path << '\n';
      return 1;
    }
  }
  if (!o.png_path.empty()) {
    const std::string cmd = "\"" + talus::app::python_interpreter() + "\" \"" + o.plot_script + "\" \"" + json_path +
                            "\" \"" + o.png_path + "\"";
    if (std::system(cmd.c_str()) != 0) {
      std::cerr << "stack_height: plotting failed: " << cmd << '\n';
      return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "stack_height: " << e.what() << '\n';
    return 1;
  }
}
