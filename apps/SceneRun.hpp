#pragma once
// Runs a loaded scene to its end time and writes its outputs (RunOutputs.hpp): the initial state, then one
// row every `output_every` steps and the last step. A step that fails (StepFailure: a non-converged solve,
// NaN; or any error the integrator raises) ends the run early but not badly: the rows written so far, the
// last good state and a run.json that names the failed step and its time are kept. An interrupt request
// (SIGINT in the CLI) ends the run the same way.
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "apps/RunLoop.hpp"
#include "apps/Scene.hpp"
#include "engine/Integrator.hpp"
#include "engine/StepReport.hpp"

namespace talus::app {

struct RunOptions {
  std::filesystem::path out_dir;
  std::ostream* log = nullptr;              // progress and messages; null = silent
  bool progress = true;                     // --quiet turns it off
  bool tty = false;                         // log is a terminal: progress rewrites one line
  const std::atomic<bool>* stop = nullptr;  // set asynchronously to end the run after the current step
  bool overwrite = false;                   // replace an earlier run in out_dir (else: refused, RunOutputs.hpp)
  std::vector<std::string> overrides;       // the overrides the scene was loaded with, for run.json
  // A restart archive (apps/SceneRestart.hpp) to continue from: the run starts at its clock and step count
  // and ends at the scene's t_end. Empty: start from the scene's initial state.
  std::filesystem::path restart;
  // --profile: a Chrome trace-event JSON of every step's stages (engine/StepProfile.hpp), written at the end;
  // time-stepping schemes only (event_driven has no steps of its own: refused).
  std::filesystem::path profile;
  // --dump-fclib DIR (moreau_jean scenes): the friction-contact problem of the first step from dump_step on that
  // has one, written as DIR/NAME_stepK.hdf5 (FCLIB's local form: W, q, μ), for other solvers (bench/fclib,
  // Siconos). Frictionless steps (an LCP) and steps with joints (a mixed problem) are passed over.
  std::filesystem::path dump_fclib;
  long dump_step = 100;
};

struct RunResult {
  RunStatus status = RunStatus::Completed;
  long steps = 0;              // completed steps
  long planned_steps = 0;
  double start_time = 0.0;     // simulated time at the start (a restart's clock)
  double time = 0.0;           // simulated time reached
  long rows = 0;               // rows written to the time series
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
};

// Advances the scene's model by one step and returns the step's report (e.g. MoreauJean::step).
using Stepper = std::function<const StepReport&()>;

// Number of steps of size h that fit in t_end: floor(t_end / h) up to a relative 1e-12, so a run never ends
// past t_end (it ends short of it by less than h when t_end is not a multiple of h).
long planned_steps(const Scene& scene);

// Runs the scene with its scheme and parameters; a moreau_jean or generalized_alpha run also writes restart.h5
// (its last good state, with generalized-α's accelerations), from which options.restart continues bit for bit. Throws std::invalid_argument if the
// integrator rejects the parameters and std::runtime_error if the outputs cannot be written — in both cases
// before any existing output is touched.
RunResult run_scene(Scene& scene, const RunOptions& options);
// The integrator run_scene steps a small-path scene with: its scheme and every setting of its integrator
// section (Moreau–Jean's solver and tolerances, the second-order schemes' Newton settings, generalized-α's
// ρ∞, the event-driven scheme's DAE method), built on scene.model (the Python module's Simulation). Throws
// std::invalid_argument for a large-path scene or parameters the scheme refuses.
std::unique_ptr<Integrator> make_scene_integrator(Scene& scene);

// The same with any stepper working on scene.model (other integrators, tests). With options.restart the
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
