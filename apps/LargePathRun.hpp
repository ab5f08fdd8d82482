#pragma once
// The large path's part of the one runner (apps/SceneRun.hpp run_scene): a scene whose model the granular stepper
// steps (a `granular:` file, or a single scene with `integrator.path: large`). Around the shared loop, frames,
// summary and archive it applies the scene's events between steps (pours at a rate, the dropped ball, outflow),
// and writes measures.csv, obstacle_loads.csv, joints.csv, discharge.csv, profile.txt and snapshot.png
// (scripts/render_snapshot.py), and, when asked, a Chrome trace and an FCLIB dump of one step's problem.
// Reliability (issue 12): every file is written under a temporary name and renamed when complete; a folder
// holding an earlier run's outputs is refused unless `overwrite` (which then removes that run's files as one set,
// frames included); run.json is written at the start (status "running") and at the end; restart.h5 at every
// frame holds the state the next step starts from.
#include <filesystem>
#include <functional>
#include <string>

#include "apps/LargePathRestart.hpp"
#include "apps/Scene.hpp"
#include "apps/SceneRun.hpp"

namespace talus::app {

// Where a problem of a large-path setting is reported: a `granular:` file's key ("restart", "h"), or a flag.
using SettingFailure = std::function<void(const char* key, const std::string& what)>;

// Replaces the scene's bodies, beams, clock and step count by a large-path restart archive's (apps/LargePathRestart.hpp),
// keeps what the archive held for the stepper and the runner (LargePathSettings::restored), re-indexes the joints
// when the archive holds another number of beads before the capsules, and takes the pours with a rate as far as
// they had gone at the start of the archive's last step. A joint count that does not fit is `fail`ed under
// "restart"; an unreadable or invalid archive throws std::runtime_error naming the file and the dataset.
// `share`: a partitioned run's process reads its share of the archive's beads and warm starts (read_restart), and
// LargePathSettings::shares becomes share.shares.
void restore_large_path_scene(Scene& scene, const std::filesystem::path& archive, const SettingFailure& fail,
                              ArchiveShare share = {});

// The number of whole steps of size h from t0 to t_end (never past it); `fail` when none fits or more than 10⁹.
long large_path_steps(const std::function<void(const std::string&)>& fail, double t_end, double h, double t0);

// Runs a large-path scene (scene.large_path set) as run_scene does.
RunResult run_large_path(Scene& scene, const RunOptions& options);

}  // namespace talus::app
