// The talus command (docs/cli.md): turns a scene file and flags into a run and its output files.
//   talus run SCENE [--out DIR] [--t-end T] [--h H] [--no-plot] [--quiet]
//   talus check SCENE [--set key=value ...]   (granular scenes take --set, as with run)
//   talus --help | --version
// Exit status: 0 success, 1 invalid scene, options or outputs, 2 a step failed (outputs up to it are kept),
// 130 interrupted (outputs up to it are kept).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <sstream>

#include "apps/GranularRun.hpp"
#include "apps/PlotScript.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/SceneRun.hpp"
#include "apps/Version.hpp"
#include "engine/MoreauJean.hpp"

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag is set from a signal handler");

extern "C" void on_interrupt(int) {
  g_stop.store(true, std::memory_order_relaxed);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

std::string summary(const talus::app::Scene& s) {
  std::ostringstream o;
  o << s.model.lti.size() << " LTI, " << s.model.nonlinear.size() << " nonlinear, " << s.model.bodies.size()
    << " rigid bodies, " << s.model.interactions.size() << " interactions; h = " << s.integrator.h
    << ", t_end = " << s.t_end << " (" << talus::app::planned_steps(s) << " steps)";
  return o.str();
}

struct RunFlags {
  std::string scene, out;
  double t_end = 0.0, h = 0.0;
  bool no_plot = false, quiet = false;
  std::vector<std::string> sets;          // granular scenes only (apps/GranularRun.hpp)
  std::string profile, dump_fclib;
};

int run_command(const RunFlags& f) {
  using namespace talus::app;
  if (is_granular_scene(f.scene)) {
    std::signal(SIGINT, on_interrupt);
    return run_granular(f.scene, {f.out, f.sets, f.profile, f.dump_fclib, f.t_end, f.h, f.quiet,
                                  isatty(STDERR_FILENO) == 1, f.no_plot, &g_stop}, std::cerr);
  }
  Scene scene = load_scene(f.scene);
  if (f.t_end > 0.0) scene.t_end = f.t_end;
  if (f.h > 0.0) scene.integrator.h = f.h;
  RunOptions options;
  options.out_dir = f.out.empty() ? std::filesystem::path("out") / scene.name : std::filesystem::path(f.out);
  options.log = &std::cerr;
  options.progress = !f.quiet;
  options.tty = isatty(STDERR_FILENO) == 1;
  options.stop = &g_stop;
  if (!f.quiet) std::cerr << "talus: " << scene.name << ": " << summary(scene) << '\n';

  std::signal(SIGINT, on_interrupt);
  const RunResult r = run_scene(scene, options);
  std::signal(SIGINT, SIG_DFL);

  const std::string dir = options.out_dir.string();
  switch (r.status) {
    case RunStatus::Completed:
      if (!f.quiet)
        std::cerr << "talus: " << r.steps << " steps to t = " << r.time << " in " << r.wall_seconds << " s ("
                  << (r.wall_seconds > 0 ? r.steps / r.wall_seconds : 0.0) << " steps/s); outputs in " << dir
                  << '\n';
      break;
    case RunStatus::StepFailed:
      std::cerr << "talus: step " << r.failed_step << " failed at t = " << r.failed_time << ": " << r.failure
                << "; " << r.rows << " rows up to t = " << r.time << " kept in " << dir << '\n';
      break;
    case RunStatus::Interrupted:
      std::cerr << "talus: interrupted at t = " << r.time << "; " << r.rows << " rows kept in " << dir << '\n';
      break;
  }
  if (!f.no_plot) run_plot_script(options.out_dir, std::cerr);
  switch (r.status) {
    case RunStatus::Completed: return 0;
    case RunStatus::StepFailed: return 2;
    case RunStatus::Interrupted: return 130;
  }
  return 1;
}

int check_command(const std::string& file, const std::vector<std::string>& sets) {
  using namespace talus::app;
  if (is_granular_scene(file)) {
    const GranularSceneSummary g = check_granular_scene(file, sets);
    std::cout << file << ": ok: " << g.name << ": granular " << g.kind << ", " << g.beads << " beads, " << g.walls
              << " walls; h = " << g.h << ", t_end = " << g.t_end << " (" << std::lround(g.t_end / g.h)
              << " steps)\n";
    return 0;
  }
  if (!sets.empty()) throw std::invalid_argument("--set applies to granular scenes only");
  Scene scene = load_scene(file);
  talus::MoreauJean integrator(scene.model, scene.integrator);  // the integrator's own parameter checks
  std::cout << file << ": ok: " << scene.name << ": " << summary(scene) << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Talus: nonsmooth contact dynamics (unilateral contact, Newton impacts, Coulomb friction).\n"
               "Scene files are YAML, see docs/scene-format.md; the command is described in docs/cli.md."};
  app.set_version_flag("--version", std::string("talus ") + talus::app::version());
  app.require_subcommand(1);

  RunFlags run_flags;
  auto* run = app.add_subcommand("run", "run a scene and write timeseries.csv, timeseries.h5, run.json and plots");
  run->add_option("scene", run_flags.scene, "scene file (YAML)")->required();
  run->add_option("--out", run_flags.out, "output directory (default: out/<scene name>)");
  run->add_option("--t-end", run_flags.t_end, "override the scene's end time [s]")->check(CLI::PositiveNumber);
  run->add_option("--h", run_flags.h, "override the scene's time step [s]")->check(CLI::PositiveNumber);
  run->add_flag("--no-plot", run_flags.no_plot, "do not call scripts/plot_run.py");
  run->add_flag("--quiet", run_flags.quiet, "no progress nor summary (errors are still printed)");
  run->add_option("--set", run_flags.sets, "granular scenes: override a key, e.g. --set n=10000 (docs/granular.md)")
      ->allow_extra_args(false);
  run->add_option("--profile", run_flags.profile, "granular scenes: write a Chrome trace-event JSON of the phases");
  run->add_option("--dump-fclib", run_flags.dump_fclib, "granular scenes: dump one step's problem (FCLIB) into DIR");

  std::string check_scene;
  std::vector<std::string> check_sets;
  auto* check = app.add_subcommand("check", "validate a scene file without running it");
  check->add_option("scene", check_scene, "scene file (YAML)")->required();
  check->add_option("--set", check_sets, "granular scenes: check with a key overridden, e.g. --set n=10000")
      ->allow_extra_args(false);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*run) return run_command(run_flags);
    return check_command(check_scene, check_sets);
  } catch (const talus::app::SceneError& e) {
    std::cerr << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "talus: " << e.what() << '\n';
  }
  return 1;
}
