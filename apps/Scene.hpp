#pragma once
// A loaded scene: the engine model it builds, the integrator settings and the run's output settings, plus the
// names the engine does not keep (rigid bodies have no names in the structure of arrays). It is what the
// loader returns and what `talus run` and the tests consume; see docs/scene-format.md for the file format.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/Model.hpp"
#include "engine/analysis/GranularMeasures.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "engine/granular/RegionFill.hpp"
#include "engine/schemes/SchemeSelection.hpp"

namespace talus::app {

struct RestartExtras;  // apps/LargePathRestart.hpp

// The large path: a single scene with `integrator.path: large`, or a `granular:` file (apps/GranularSceneFile.hpp).
// The scene is stepped by the granular stepper (matrix-free friction-contact solve, contacts detected each step)
// and run by the one runner (apps/SceneRun.hpp) with the large path's outputs. The model then holds spheres in
// the sphere group, the planes as walls and the contact law as the bead and wall materials' law.
struct LargePathSettings {
  granular::GranularParameters params;  // h, scheme, solver, tolerance, sweeps, threads
  double frame_every = 0.02;            // [s] between ParaView frames (and restart archives)
  granular::SceneEvents events;         // `outflow:`: where beads leave (removed between steps); the dropped ball
  std::vector<granular::TimedPour> pours;  // pours with a rate: beads inserted between steps
  // A `granular:` file's generator (bead_stack, silo, …) and its seed, for run.json; a single scene's bodies are
  // "explicit", with no seed.
  std::string generator = "explicit";
  std::optional<std::uint64_t> seed;
  std::optional<Region> measure_region;  // measures.csv's box; none: the bulk of the beads at each frame
  long dump_step = 100;                  // the step --dump-fclib writes (a granular file's dump_fclib_step)
  // The restart archive the model was restored from (a granular file's `restart:` key or the --restart flag), and
  // what it held besides the model: the stepper's warm starts and the runner's counters (null: not restored).
  std::filesystem::path restored_from;
  std::shared_ptr<const RestartExtras> restored;
  // > 1: the model holds this process's share of the generated beads, or of a restart archive's beads and warm
  // starts, one of `shares` (GranularFlags): it must be partitioned (ModelPartition::begin with shares), every
  // process holding another share.
  int shares = 1;
};

struct Scene {
  std::string name;         // from `name:`, or the file's stem
  std::string description;
  std::filesystem::path file;

  Model model;
  MoreauJeanParameters integrator;  // Moreau–Jean settings (h is shared with every scheme)
  SchemeChoice scheme{SchemeKind::MoreauJean};  // which scheme runs; kind MoreauJean uses `integrator` above
  double t_end = 0.0;       // [s]
  int output_every = 1;     // write one row every N steps (and the last step)
  // [s] between ParaView frames of the rigid bodies (apps/FrameSeries.hpp) on the small path; 0: t_end / 100.
  double frame_every = 0.0;

  std::vector<std::string> body_names;  // one per rigid body of model.bodies
  // The large path's obstacles as the file names them, in engine/analysis/ObstacleLoads.hpp model_obstacles'
  // order (walls, boxes, cones, drums, meshes); empty on the small path.
  std::vector<std::string> obstacle_names;
  std::optional<LargePathSettings> large_path;  // set: integrator.path is large
};

}  // namespace talus::app
