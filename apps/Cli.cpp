#include "apps/Cli.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <sstream>

#include "apps/GranularSceneFile.hpp"
#include "apps/ModelPartition.hpp"
#include "apps/MpiLaunch.hpp"
#include "solvers/core/NumberText.hpp"
#include "apps/PlotScript.hpp"
#include "apps/ResourceLimits.hpp"
#include "apps/RunOutputs.hpp"
#include "apps/RunSummary.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/SceneRun.hpp"
#include "apps/Version.hpp"
#include "engine/MoreauJean.hpp"

namespace talus::app {

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag is set from a signal handler");

// SIGINT and SIGTERM alike: the first asks the run to stop after the current step (it then closes its outputs
// with status "interrupted"); a second one ends the process at once, after unlinking the temporary files of
// the open outputs so that no hidden .partial file stays behind.
extern "C" void on_stop_signal(int sig) {
  if (g_stop.exchange(true, std::memory_order_relaxed)) {
    remove_partial_files_from_signal_handler();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
}

// Installs the handlers for one run and restores the previous ones when the run ends.
class StopSignals {
 public:
  StopSignals() {
    g_stop.store(false);
    int_ = std::signal(SIGINT, on_stop_signal);
    term_ = std::signal(SIGTERM, on_stop_signal);
  }
  ~StopSignals() {
    std::signal(SIGINT, int_);
    std::signal(SIGTERM, term_);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  void (*int_)(int) = SIG_DFL;
  void (*term_)(int) = SIG_DFL;
};

std::string summary(const Scene& s) {
  std::ostringstream o;
  const long steps = planned_steps(s);
  o << s.model.lti.size() << " LTI, " << s.model.nonlinear.size() << " nonlinear, " << s.model.bodies.count()
    << " rigid bodies, " << s.model.interactions.size() << " interactions; h = " << s.integrator.h
    << ", t_end = " << s.t_end << " (" << steps << " steps";
  const double end = static_cast<double>(steps) * s.integrator.h;
  if (s.t_end - end > 1e-9 * s.integrator.h) o << ", ending at t = " << end << ": t_end is not a multiple of h";
  o << ")";
  return o.str();
}

struct RunFlags {
  std::string scene, out, max_memory, restart;
  double t_end = 0.0, h = 0.0;
  bool no_plot = false, quiet = false, overwrite = false, replicated = false, whole_restart = false;
  std::vector<std::string> sets;
  std::string profile, dump_fclib;
  long dump_step = 0;
};

std::uint64_t memory_limit(const std::string& text) {
  if (text.empty()) return 0;
  try {
    return parse_memory_size(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--max-memory: ") + e.what());
  }
}

// The non-granular scene with its overrides: --set first, then --t-end and --h (explicit flags win). `share` of
// `shares`: a partitioned run's process builds that share of a large-path scene's beads (LoadOptions::share).
Scene load_with_overrides(const std::string& file, const std::vector<std::string>& sets, double t_end, double h,
                          std::uint64_t max_memory, std::vector<std::string>& applied, int share = 0, int shares = 1) {
  LoadOptions o;
  o.share = share, o.shares = shares;
  for (const std::string& s : sets) o.overrides.push_back(parse_override(s));
  if (t_end > 0.0) o.overrides.push_back({"--t-end " + exact_number_text(t_end), "integrator.t_end", exact_number_text(t_end)});
  if (h > 0.0) o.overrides.push_back({"--h " + exact_number_text(h), "integrator.h", exact_number_text(h)});
  o.max_memory = max_memory;
  std::vector<std::string> warnings;
  o.warnings = &warnings;
  Scene scene = load_scene(file, o);
  for (const std::string& w : warnings) std::cerr << "talus: warning: " << w << '\n';
  for (const SceneOverride& x : o.overrides) applied.push_back(x.origin);
  return scene;
}

// Under mpirun (MpiLaunch.hpp), a large-path scene is partitioned over the ranks (or, --replicated or where the
// scene needs it, held whole by each with its solve spread); rank 0 keeps the outputs and the log, the others write
// into their scratch folders. The ranks' time split is printed at the end.
void spread_over_ranks(MpiLaunch& mpi, RunOptions& o, bool partitioned) {
  o.distributed = mpi.solve();
  if (partitioned) o.partition = mpi.partition();
  o.frame_piece = {mpi.rank(), mpi.size()};
  o.barrier = [&mpi] { mpi.barrier(); };
  o.any_rank = [&mpi](bool mine) { return mpi.any(mine); };
  o.first_failure = [&mpi](const std::string& mine) { return mpi.first_message(mine); };
  if (mpi.rank() > 0) {
    o.frame_dir = o.out_dir;  // its frame pieces go beside rank 0's
    o.out_dir = mpi.scratch_folder();
    o.progress = false, o.tty = false, o.plot = false, o.overwrite = true;
    o.profile.clear(), o.dump_fclib.clear();
  }
}

int run_on(MpiLaunch& mpi, const RunFlags& f);

// Every scene file, single or granular, is loaded into the one Scene and run by the one runner (SceneRun.hpp).
int run_command(const RunFlags& f) {
  MpiLaunch mpi;
  try {
    return run_on(mpi, f);
  } catch (const RanksFailure& e) {
    // Every rank learnt of the failure together. Rank 0 says why and exits 1; the others wait until it has said it
    // and exit 0: mpirun aborts the job at the first non-zero exit, and could otherwise kill rank 0 before it speaks
    // (the run's exit status is rank 0's).
    if (e.say_here) std::cerr << e.what() << std::endl;
    mpi.barrier();
    return e.say_here ? 1 : 0;
  }
}

int run_on(MpiLaunch& mpi, const RunFlags& f) {
  const std::uint64_t max_memory = memory_limit(f.max_memory);
  // Under mpirun, partitioned unless --replicated or --dump-fclib (the problem is written whole): decided once, on
  // every rank alike (only rank 0 keeps the --dump-fclib flag in its options).
  const bool partitioned = !f.replicated && f.dump_fclib.empty();
  RunOptions options;
  Scene scene;
  if (is_granular_scene(f.scene)) {
    // A granular file's --restart, --dump-step, --t-end and --h replace its keys (their problems name the flag).
    GranularFlags flags;
    flags.restart = f.restart, flags.dump_step = f.dump_step, flags.t_end = f.t_end, flags.h = f.h;
    // Partitioned (spread_over_ranks): each rank builds its share of the beads, not the whole scene.
    if (mpi.active() && mpi.size() > 1 && partitioned) {
      flags.share = mpi.rank(), flags.shares = mpi.size();
      flags.unsupported = [&mpi](const Model& m, const granular::GranularParameters& p) {
        return mpi.partition()->unsupported(m, p);
      };
    }
    // Under mpirun a rank may fail alone (its share of a restart archive holds a bad value): every rank learns it
    // before the first collective step, so that none waits forever for the others, and rank 0 says why.
    std::exception_ptr failed;
    std::string why;
    try {
      scene = load_granular_scene(f.scene, f.sets, max_memory, flags);
    } catch (const SceneError& e) {
      failed = std::current_exception(), why = e.what();
    } catch (const std::exception& e) {
      failed = std::current_exception(), why = std::string("talus: ") + e.what();
    }
    if (mpi.active() && mpi.size() > 1)
      if (const std::string first = mpi.first_message(why); !first.empty()) throw RanksFailure(first, mpi.rank() == 0);
    if (failed) std::rethrow_exception(failed);
    for (const std::string& kv : f.sets) options.overrides.push_back("--set " + kv);
    if (f.t_end > 0) options.overrides.push_back("--t-end " + exact_number_text(f.t_end));
    if (f.h > 0) options.overrides.push_back("--h " + exact_number_text(f.h));
  } else {
    // Partitioned (spread_over_ranks): each rank builds its share of a large-path scene's beads, unless the
    // partitioned model refuses the scene, which every rank then builds whole.
    const bool in_shares = mpi.active() && mpi.size() > 1 && partitioned;
    scene = load_with_overrides(f.scene, f.sets, f.t_end, f.h, max_memory, options.overrides,
                                in_shares ? mpi.rank() : 0, in_shares ? mpi.size() : 1);
    if (scene.large_path && scene.large_path->shares > 1 &&
        !mpi.partition()->unsupported(scene.model, scene.large_path->params).empty()) {
      options.overrides.clear();
      scene = load_with_overrides(f.scene, f.sets, f.t_end, f.h, max_memory, options.overrides);
    }
    options.restart = f.restart;
  }
  if (!f.out.empty()) options.out_dir = f.out;
  options.log = &std::cerr;
  options.progress = !f.quiet;
  options.tty = isatty(STDERR_FILENO) == 1;
  options.stop = &g_stop;
  options.overwrite = f.overwrite;
  options.profile = f.profile;
  options.dump_fclib = f.dump_fclib;
  options.dump_step = f.dump_step;
  options.plot = !f.no_plot;
  options.whole_restart = f.whole_restart;
  if (scene.large_path && mpi.active()) spread_over_ranks(mpi, options, partitioned);
  if (!scene.large_path) {
    if (mpi.size() > 1)
      throw std::invalid_argument("mpirun: " + f.scene + " is a single scene on the small path, which runs on one "
                                  "process; granular scenes and integrator.path: large are spread over ranks");
    if (!f.quiet) std::cerr << "talus: " << scene.name << ": " << summary(scene) << '\n';
  }
  RunResult r;
  {
    StopSignals signals;
    r = run_scene(scene, options);
  }
  if (scene.large_path) {
    const std::string split = mpi.summary();
    if (options.progress) std::cerr << split;
  }
  return r.exit_status();
}

int check_command(const std::string& file, const std::vector<std::string>& sets, const std::string& max_memory_text) {
  const std::uint64_t max_memory = memory_limit(max_memory_text);
  if (is_granular_scene(file)) {
    const GranularSceneSummary g = check_granular_scene(file, sets, max_memory);
    std::cout << file << ": ok: " << g.name << ": granular " << g.kind << ", " << g.beads << " beads, " << g.walls
              << " walls; h = " << g.h << ", t_end = " << g.t_end << " (" << std::lround(g.t_end / g.h)
              << " steps)\n";
    return 0;
  }
  std::vector<std::string> applied;
  Scene scene = load_with_overrides(file, sets, 0.0, 0.0, max_memory, applied);
  if (scene.large_path) {
    granular::GranularStepper stepper(scene.model, scene.large_path->params);  // the stepper's own checks
    const long steps = planned_steps(scene);
    const Model& m = scene.model;
    std::cout << file << ": ok: " << scene.name << ": large path, " << m.bodies.spheres() << " spheres, "
              << m.bodies.capsules() << " capsules, " << m.interactions.size() << " joints, " << m.walls.size()
              << " planes, " << m.boxes.size() << " boxes, " << m.drums.size() << " drums, " << m.cones.size() << " cones, "
              << m.meshes.size() << " meshes (";
    std::size_t triangles = 0;
    for (const auto& mesh : m.meshes) triangles += mesh->triangles.size();
    const granular::GranularParameters& p = scene.large_path->params;
    std::cout << triangles << " triangles), " << m.detection.beams.size() << " FE beams, " << m.materials.count()
              << " materials; " << (p.scheme == granular::GranularScheme::GeneralizedAlpha ? "generalized_alpha" : "moreau_jean")
              << ", solver " << granular::granular_solver_name(p.solver) << "; h = " << scene.integrator.h
              << ", t_end = " << scene.t_end << " (" << steps << " steps)\n";
    return 0;
  }
  MoreauJean integrator(scene.model, scene.integrator);  // the integrator's own parameter checks
  std::cout << file << ": ok: " << scene.name << ": " << summary(scene) << '\n';
  return 0;
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"Talus: nonsmooth contact dynamics (unilateral contact, Newton impacts, Coulomb friction).\n"
               "Scene files are YAML, see docs/scene-format.md; the command is described in docs/cli.md."};
  app.set_version_flag("--version", std::string("talus ") + version());
  app.require_subcommand(1);

  RunFlags run_flags;
  auto* run = app.add_subcommand(
      "run",
      "run a scene. Granular scenes (and scenes with integrator.path: large) write beads.pvd + beads_NNNNN.vtp, contacts.pvd + contacts_NNNNN.vtp, "
      "snapshot.png, profile.txt, measures.csv and restart.h5; other scenes write "
      "timeseries.csv, timeseries.h5, restart.h5 (the fixed-step schemes), "
      "events.csv (scheme event_driven) and PNG plots (positions, velocities, reactions, energy). Every run writes run.json: "
      "its inputs, status, time per stage, files and results, with the same keys on both paths. --profile FILE writes a "
      "Chrome trace (e.g. trace.json, for Perfetto) of every step's stages. A folder holding an earlier run is refused without "
      "--overwrite.");
  run->add_option("scene", run_flags.scene, "scene file (YAML)")->required();
  run->add_option("--out", run_flags.out, "output directory (default: out/<scene name>)");
  run->add_option("--t-end", run_flags.t_end, "override the scene's end time [s]")->check(CLI::PositiveNumber);
  run->add_option("--h", run_flags.h, "override the scene's time step [s]")->check(CLI::PositiveNumber);
  run->add_flag("--no-plot", run_flags.no_plot, "do not draw the figures (plot_run.py, render_snapshot.py)");
  run->add_flag("--replicated", run_flags.replicated,
                "under mpirun: every rank holds the whole model and only the contact solve is spread (the same bits "
                "as one process with fixed partitions); by default a scene of beads and fixed walls is partitioned "
                "(docs/distributed.md)");
  run->add_flag("--whole-restart", run_flags.whole_restart,
                "under mpirun with a partitioned model: rank 0 gathers the whole model into one self-contained "
                "restart.h5, instead of each rank writing its piece beside an index restart.h5 (docs/distributed.md)");
  run->add_flag("--quiet", run_flags.quiet, "no progress nor summary (errors are still printed)");
  run->add_option("--set", run_flags.sets,
                  "override a key of the scene, e.g. --set integrator.h=1e-3 or, for granular scenes, "
                  "--set n=10000 (docs/cli.md)")
      ->allow_extra_args(false);
  run->add_flag("--overwrite", run_flags.overwrite,
                "replace an earlier run in the output directory (its files are removed as one set)");
  run->add_option("--max-memory", run_flags.max_memory,
                  "refuse scenes whose estimated memory exceeds SIZE (e.g. 4G; default: the available memory)");
  run->add_option("--restart", run_flags.restart,
                  "fixed-step schemes (moreau_jean, newmark, hht, generalized_alpha, schatzman_paoli), integrator.path: large and granular scenes: continue from a restart.h5 an earlier run wrote, to the scene's t_end (the "
                  "result is bitwise that of one run; for a granular scene the same as --set restart=FILE)");
  run->add_option("--profile", run_flags.profile,
                  "write a Chrome trace-event JSON of every step's stages (granular and time-stepping scenes)");
  run->add_option("--dump-fclib", run_flags.dump_fclib,
                  "write one step's friction-contact problem as an FCLIB file into DIR: step 100 (or --dump-step) of "
                  "granular and integrator.path: large scenes (local and global forms); moreau_jean scenes: the "
                  "first step from there on that has a friction-contact problem (local form)");
  run->add_option("--dump-step", run_flags.dump_step, "the step --dump-fclib writes (default 100; a granular scene's "
                                                      "dump_fclib_step)")
      ->check(CLI::PositiveNumber);

  std::string check_scene, check_memory;
  std::vector<std::string> check_sets;
  auto* check = app.add_subcommand("check", "validate a scene file without running it");
  check->add_option("scene", check_scene, "scene file (YAML)")->required();
  check->add_option("--set", check_sets, "check with a key overridden, as run does (e.g. --set integrator.h=1e-3)")
      ->allow_extra_args(false);
  check->add_option("--max-memory", check_memory, "refuse scenes whose estimated memory exceeds SIZE, as run does");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*run) return run_command(run_flags);
    return check_command(check_scene, check_sets, check_memory);
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "talus: " << e.what() << '\n';
  }
  return 1;
}

}  // namespace talus::app
