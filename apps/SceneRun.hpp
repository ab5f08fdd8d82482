#pragma once
// The one runner of `talus run` (issue 11 item 5): every scene, single or `granular:`, on either path, is run by
// run_scene to its end time, writing its outputs as it goes. What is shared: the step loop (apps/RunLoop.hpp), the
// ParaView series (FrameSeries.hpp), the run summary (run.json, RunSummary.hpp), the restart archive
// (RestartArchive.hpp), the progress meter and the stage profile. What the model holds chooses the rest:
//   small path  the time series (RunOutputs.hpp: CSV + HDF5, one row every `output_every` steps and the last),
//               the event-driven scheme's events.csv, the time-series plots;
//   large path  measures.csv, obstacle_loads.csv, joints.csv, discharge.csv, profile.txt, snapshot.png and the
//               scene's events between steps (pours, outflow, the dropped ball) (apps/LargePathRun.hpp).
// A step that fails (StepFailure: a non-converged solve, NaN) ends the run early but not badly: the outputs so
// far, the last good state (the integrator rolled the step back) and a run.json that names the failed step and
// its time are kept. An interrupt request (SIGINT or SIGTERM in the CLI, *stop) ends the run the same way.
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "apps/FramePiece.hpp"
#include "apps/RunLoop.hpp"
#include "apps/Scene.hpp"
#include "engine/Integrator.hpp"
#include "engine/StepReport.hpp"

namespace talus::matrixfree {
class PartitionedSolve;
}

namespace talus::app {

class ModelPartition;  // apps/ModelPartition.hpp

struct RunOptions {
  std::filesystem::path out_dir;            // empty: out/<scene name>
  std::ostream* log = nullptr;              // progress and messages; null = silent
  bool progress = true;                     // --quiet turns it off (a failed step is still said in the log)
  bool tty = false;                         // log is a terminal: progress rewrites one line
  const std::atomic<bool>* stop = nullptr;  // set asynchronously to end the run after the current step
  bool overwrite = false;                   // replace an earlier run in out_dir (else: refused, RunOutputs.hpp)
  std::vector<std::string> overrides;       // the overrides the scene was loaded with ("--set k=v", "--h x"), for run.json
  // A restart archive to continue from: the run starts at its clock and step count and ends at the scene's t_end.
  // Empty: start from the scene's state (a large-path scene may have been restored when it was loaded:
  // LargePathSettings::restored_from; naming another archive here is then refused).
  std::filesystem::path restart;
  // --profile: a Chrome trace-event JSON of every step's stages (engine/StepProfile.hpp), written at the end;
  // time-stepping schemes only (event_driven has no steps of its own: refused).
  std::filesystem::path profile;
  // --dump-fclib DIR: one step's friction-contact problem, for other solvers (bench/fclib, Siconos). The small
  // path (moreau_jean) writes the first step from dump_step on that has one, as DIR/NAME_stepK.hdf5 (FCLIB's local
  // form: W, q, μ; frictionless steps, an LCP, and steps with joints, a mixed problem, are passed over); the large
  // path writes step dump_step in the local and the global form.
  std::filesystem::path dump_fclib;
  long dump_step = 0;  // > 0: the step to dump; 0: the scene's (a granular file's dump_fclib_step; 100)
  bool plot = false;   // draw the figures: the time series' plots (small path), snapshot.png (large path)
  // The large path under mpirun (apps/MpiLaunch.hpp): the bead contacts' solve spread over the ranks, this
  // process's piece of every frame (FrameSeries.hpp), the folder the pieces go to when out_dir is a rank's scratch
  // folder, and a barrier every rank passes once the output folder is prepared and once the last frame is written.
  matrixfree::PartitionedSolve* distributed = nullptr;
  // Under mpirun, a partitioned model (ModelPartition.hpp): used instead of `distributed` when the scene allows it.
  ModelPartition* partition = nullptr;
  // A partitioned model's restart archive: in pieces, one per process (false: apps/RestartPieces.hpp), or gathered
  // whole by process 0 into one self-contained restart.h5 (true: --whole-restart).
  bool whole_restart = false;
  FramePiece frame_piece;
  std::filesystem::path frame_dir;
  std::function<void()> barrier;
  // Under mpirun: whether any rank asks to stop (collective: every rank calls it once before each step), so that
  // an interrupt ends every rank after the same step instead of leaving the others waiting in the solve.
  std::function<bool(bool)> any_rank;
  // Under mpirun: the non-empty message of the lowest rank that has one, with its rank, on every rank; empty when
  // none has (collective). Failures that may strike some ranks only (the output folder, which rank 0 prepares) go
  // through it, so that every rank stops (RanksFailure) instead of waiting for the failed one.
  std::function<std::string(const std::string&)> first_failure;
};

// A failure every rank of an mpirun run learnt of together (RunOptions::first_failure): thrown on every rank with
// the same message, to be printed where `say_here` (rank 0) only.
struct RanksFailure : std::runtime_error {
  RanksFailure(const std::string& what, bool say) : std::runtime_error(what), say_here(say) {}
  bool say_here;
};

struct RunResult {
  RunStatus status = RunStatus::Completed;
  long steps = 0;              // the model's step count at the end (a restart's steps included)
  long planned_steps = 0;
  double start_time = 0.0;     // simulated time at the start (a restart's clock)
  double time = 0.0;           // simulated time reached
  long rows = 0;               // rows written to the time series (small path)
  double wall_seconds = 0.0;
  long failed_step = 0;        // StepFailed: the step that failed (k + 1) …
  double failed_time = 0.0;    // … and the time it started from
  std::string failure;         // StepFailed: the integrator's message
  long first_step = 0;         // steps already taken when the run started (a restart's step count)
  std::string restart_settings;  // the restart archive's recorded step settings (the scene's: others are refused)
  bool restart_written = false;  // restart.h5 holds the last good state (the fixed-step schemes)
  PhaseSeconds phase_seconds{};  // wall time per stage summed over the steps (run.json, --profile's table)
  int frames = 0;              // ParaView frames written (scenes with rigid bodies, FrameSeries.hpp) …
  std::vector<std::string> frame_collections;  // … and their .pvd files (bodies.pvd)
  std::string fclib_file;      // --dump-fclib: the problem written ("" when no step from dump_step on had one)
  // The exit status of `talus run`: 0 completed, 2 a step failed, 130 interrupted.
  int exit_status() const;
};

// Advances the scene's model by one step and returns the step's report (e.g. MoreauJean::step).
using Stepper = std::function<const StepReport&()>;

// Number of steps of size h that fit in t_end: floor(t_end / h) up to a relative 1e-12, so a run never ends
// past t_end (it ends short of it by less than h when t_end is not a multiple of h).
long planned_steps(const Scene& scene);

// Runs the scene with its path, scheme and parameters; a run of a fixed-step scheme also writes restart.h5 (its
// last good state with what the integrator carries), from which options.restart continues bit for bit. Throws
// std::invalid_argument if the integrator rejects the parameters, SceneError for a restart archive that does not
// fit the scene, and std::runtime_error if the outputs cannot be written (an output folder holding an earlier run
// without `overwrite` included) — in each case before any existing output is touched. scene.model holds the last
// good state afterwards.
RunResult run_scene(Scene& scene, const RunOptions& options);
// The integrator run_scene steps a small-path scene with: its scheme and every setting of its integrator
// section (Moreau–Jean's solver and tolerances, the second-order schemes' Newton settings, generalized-α's
// ρ∞, the event-driven scheme's DAE method), built on scene.model (the Python module's Simulation). Throws
// std::invalid_argument for a large-path scene or parameters the scheme refuses.
std::unique_ptr<Integrator> make_scene_integrator(Scene& scene);

// The same on the small path with any stepper working on scene.model (other integrators, tests). With options.restart the
// archive is loaded into the model before the first step: the stepper must read the model's state when it
// steps, not when it was built. Such a stepper cannot be given generalized-α's accelerations (the archive's
// are read and dropped: the run is then NOT the continuation of the archived one) and a generalized_alpha
// scene run this way writes no restart.h5.
RunResult run_scene(Scene& scene, const RunOptions& options, const Stepper& step);

// The run.json document of a small-path run (apps/RunSummary.hpp, the layout both paths share; written with
// nlohmann-json: strings escaped, NaN and infinities as null). Its results are the time series' rows and columns.
std::string run_json(const Scene& scene, const RunResult& result, std::size_t columns,
                     const std::vector<std::string>& overrides = {}, const std::string& restart_file = {});

}  // namespace talus::app
