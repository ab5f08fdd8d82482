#pragma once
// `talus run` for granular scenes (issue 4 items 5–7) and for single scenes on the large path (issue 11 item 5:
// `integrator.path: large`, run_large_path_scene): a YAML file whose top-level key is `granular:` names a
// generated scene (bead_stack, perturbed_stack, silo, chute) and its parameters (docs/granular.md); `--set
// key=value` overrides any of them from the command line. The run steps engine/granular's GranularStepper,
// applies the scene's events between steps (dropping the ball, removing beads that left), prints a progress
// line, writes the ParaView series, the restart archive, a run summary (run.json, apps/RunSummary.hpp: the small path's layout), a PNG snapshot
// (scripts/render_snapshot.py) and the per-phase profile table, and, when asked, a Chrome trace and an FCLIB
// dump of one step's problem. A step whose solver misses the tolerance, or that leaves a non-finite value, ends
// the run (exit status 2): restart.h5 and the last frame then hold the last good state (the one before that
// step), and the message names the step, the time and the body or contact that went wrong.
// Reliability (issue 12): the scene's sizes are checked against the memory before anything is allocated; every
// file is written under a temporary name and renamed when complete; a folder holding an earlier run's outputs
// is refused unless `overwrite` (which then removes that run's files as one set, frames included); run.json
// is written at the start (status "running") and at the end; SIGTERM ends the run like SIGINT (status
// "interrupted", outputs complete).
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "apps/FramePiece.hpp"

namespace talus::matrixfree {
class PartitionedSolve;
}

namespace talus::app {

// True when the file is YAML with a top-level `granular` key (never throws; false for unreadable files).
bool is_granular_scene(const std::filesystem::path& file);

struct GranularRunOptions {
  std::filesystem::path out_dir;           // empty: out/<scene name>
  std::vector<std::string> sets;           // "key=value" overrides of the scene's granular: map
  std::filesystem::path profile;           // Chrome trace-event JSON; empty = none
  std::filesystem::path dump_fclib;        // directory for an FCLIB dump of one step; empty = none
  double t_end = 0.0, h = 0.0;             // > 0: override the scene's
  bool quiet = false, tty = false, no_plot = false;
  const std::atomic<bool>* stop = nullptr;
  // Fields added after `stop` so that talus_main.cpp's positional initialiser stays valid.
  bool overwrite = false;       // replace an earlier run's outputs in the output folder (else refuse)
  std::uint64_t max_memory = 0;  // bytes the scene may ask for (--max-memory); 0 = MemAvailable
  matrixfree::PartitionedSolve* distributed = nullptr;  // under mpirun: the solve spread over ranks (MpiLaunch.hpp)
  // run_granular: the --restart flag, the same as the scene's `restart` key (which it replaces); its problems
  // name "--restart FILE".
  std::filesystem::path restart;
  // Under mpirun: this process's piece of every frame's beads and contacts (FrameSeries.hpp), the folder the
  // pieces go to when out_dir is a rank's scratch folder (empty: out/<scene name>), and a barrier every rank
  // passes once the output folder is prepared and once the last frame is written.
  FramePiece frame_piece;
  std::filesystem::path frame_dir;
  std::function<void()> barrier;
  // --dump-step K (> 0): the step --dump-fclib writes (a granular scene's dump_fclib_step key, which it replaces;
  // 0: the scene's, 100 by default).
  long dump_step = 0;
};

// Bytes a granular run holds at its peak for this many bodies (bench/granular: 1.2 KB of stepper buffers per
// settled bead, 1.7 KB while a lattice collapses, ≤ 2.1 KB peak RSS with two copies of the model, as the
// runner keeps them; a capsule's general contacts hold full 3×3 blocks: about twice a bead). Saturates
// instead of wrapping.
std::uint64_t granular_memory_estimate(double beads, double capsules);

// What `talus check` says of a granular scene.
struct GranularSceneSummary {
  std::string name, kind;
  long beads = 0;
  int walls = 0;
  double h = 0.0, t_end = 0.0;
};

// Reads, validates and builds the scene with the overrides `sets` (the restart archive too, when named) and
// constructs its stepper, without stepping. Every problem is thrown as one SceneError line
// FILE:LINE:COL: field 'granular.key': what is wrong (apps/SceneError.hpp); an override's problem names it
// ("--set n=abc: ...").
// The sizes are checked as run_granular checks them (max_memory as in GranularRunOptions).
GranularSceneSummary check_granular_scene(const std::filesystem::path& scene_file,
                                          const std::vector<std::string>& sets = {}, std::uint64_t max_memory = 0);

// Returns the exit status of the command (0, 1 bad scene/outputs, 2 step failed, 130 interrupted by SIGINT or
// SIGTERM or *stop). A bad scene throws SceneError as check_granular_scene does; failing outputs, and an output
// folder holding an earlier run without `overwrite`, throw std::runtime_error naming the file or folder.
int run_granular(const std::filesystem::path& scene_file, const GranularRunOptions& options, std::ostream& log);

struct Scene;
// A granular scene file (a `granular:` generator, docs/granular.md) read into the one Scene type with the
// overrides `sets`: the generator's model (restored from the scene's restart archive when it names one), its
// large-path settings (scheme, solver, h, frame interval), events (outflow, the dropped ball) and name, as
// run_granular would run it; the Python module's load_scene. Errors as check_granular_scene.
Scene load_granular_scene(const std::filesystem::path& scene_file, const std::vector<std::string>& sets = {},
                          std::uint64_t max_memory = 0);
// A single scene (apps/SceneLoader.hpp) whose `integrator.path` is large: its spheres, planes and contact law
// stepped by the granular stepper with its settings, and written as a granular run is (the same files, kind
// "explicit"); the one runner of the large path for both kinds of scene file. `restart` (empty: none) continues
// from a restart.h5 such a run wrote; its problems name "--restart FILE". options.sets, t_end and h are only
// recorded in run.json (the loader has applied them). Exit status and errors as run_granular; scene.model
// holds the last good state afterwards.
int run_large_path_scene(Scene& scene, const GranularRunOptions& options, const std::filesystem::path& restart,
                         std::ostream& log);

}  // namespace talus::app
