#pragma once
// `talus run` for granular scenes (issue 4 items 5–7): a YAML file whose top-level key is `granular:` names a
// generated scene (bead_stack, perturbed_stack, silo, chute) and its parameters (docs/granular.md); `--set
// key=value` overrides any of them from the command line. The run steps engine/granular's GranularStepper,
// applies the scene's events between steps (dropping the ball, removing beads that left), prints a progress
// line, writes the ParaView series, the restart archive, a run summary (granular.json), a PNG snapshot
// (scripts/render_snapshot.py) and the per-phase profile table, and, when asked, a Chrome trace and an FCLIB
// dump of one step's problem. A step whose solver misses the tolerance ends the run (exit status 2), its
// outputs up to there kept.
#include <atomic>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

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
};

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
GranularSceneSummary check_granular_scene(const std::filesystem::path& scene_file,
                                          const std::vector<std::string>& sets = {});

// Returns the exit status of the command (0, 1 bad scene/outputs, 2 step failed, 130 interrupted). A bad scene
// throws SceneError as check_granular_scene does; failing outputs throw std::runtime_error naming the file.
int run_granular(const std::filesystem::path& scene_file, const GranularRunOptions& options, std::ostream& log);

}  // namespace talus::app
