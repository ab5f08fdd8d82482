#pragma once
// The one run summary of `talus run` (issue 11 item 5: one runner, one summary): run.json, written by both
// paths with the same keys for the same things, so a script reads every run alike. Before, the small path wrote
// run.json and the large path granular.json, with different names for the status, the failure, the restart,
// the time reached and the files.
//
// Layout (every key always present; null where it does not apply; NaN and infinities as null):
//   talus_version, path ("small" | "large"), scene, scene_file, description, overrides (the --set and flag
//   overrides, in the order given), restarted_from ({file, step, settings, continues_bitwise} or null: the
//   archive's recorded step settings, null in archives that recorded none, and whether they are this run's),
//   status ("running" while a large-path run goes on, then "completed" | "step_failed" | "interrupted"),
//   failure ({step, time, message}: the step that failed and the time it started from; or null),
//   parameters (scheme, h, t_end, solver, tolerance, frame_every, then the path's own settings),
//   model (what the model held at the start: beads, capsules, rigid_bodies, lti, nonlinear, beams, interactions),
//   start_time, final_time, steps and planned_steps (this run's), final_step (the model's step count at the end,
//   a restart's earlier steps included), wall_seconds, steps_per_second (this run's),
//   phase_seconds (wall time per stage summed over the steps), frames, files (the run's files in the folder),
//   results (the path's own results: the large path's sweeps, penetration, discharge and measures; the small
//   path's time-series rows and columns), units.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/StepProfile.hpp"

namespace talus::app {

struct RunSummary {
  const char* path = "small";
  std::string scene, scene_file, description;
  std::vector<std::string> overrides;
  std::string restart_file;  // empty: not restarted
  long restart_step = 0;
  std::string restart_settings;  // the archive's `settings` attribute (apps/RestartArchive.hpp); empty: none
  bool restart_same_settings = true;
  std::string status = "running";
  long failed_step = -1;  // < 0: no failure
  double failed_time = 0.0;
  std::string failure;
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  int beads = 0, capsules = 0, rigid_bodies = 0, lti = 0, nonlinear = 0, beams = 0, interactions = 0;
  double start_time = 0.0, final_time = 0.0;
  long steps = 0, planned_steps = 0;  // this run's
  long final_step = 0;                // the model's step count at the end (a restart's steps included)
  double wall_seconds = 0.0;
  PhaseSeconds phase_seconds{};
  int frames = 0;
  std::vector<std::string> files;
  nlohmann::ordered_json results = nlohmann::ordered_json::object();
  nlohmann::ordered_json units = nlohmann::ordered_json::object();  // the path's own keys' units, beside the common ones
};

// The parameters every run has, in this order (add the path's own after them).
nlohmann::ordered_json common_parameters(const std::string& scheme, double h, double t_end, const std::string& solver,
                                         double tolerance, double frame_every);

// The document (layout above).
nlohmann::ordered_json run_summary_json(const RunSummary& s);

// Adds to dir/run.json's "files" those of `names` that exist in dir and are not listed yet (figures drawn after the
// summary was written), rewriting it through a temporary file. Throws std::runtime_error naming the file when it
// cannot be read or written.
void list_in_run_summary(const std::filesystem::path& dir, const std::vector<std::string>& names);

}  // namespace talus::app
