#pragma once
// A `granular:` scene file (issue 4 items 5–7; docs/granular.md): a YAML file whose top-level key is `granular:`
// names a generated scene (bead_stack, perturbed_stack, silo, chute, drum, …) and its parameters; `--set
// key=value` overrides any of them from the command line. It is read into the one Scene type on the large path
// (Scene::large_path: the granular stepper's settings, the generator and its seed, the events between steps,
// measures.csv's region, the restart archive it names) and run by the one runner, apps/SceneRun.hpp run_scene,
// like any scene. The scene's sizes are checked against the memory before anything is allocated.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "apps/Scene.hpp"

namespace talus::app {

// True when the file is YAML with a top-level `granular` key (never throws; false for unreadable files).
bool is_granular_scene(const std::filesystem::path& file);

// Bytes a granular run holds at its peak for this many bodies (bench/granular: 1.2 KB of stepper buffers per
// settled bead, 1.7 KB while a lattice collapses, ≤ 2.1 KB peak RSS with two copies of the model, as the
// runner keeps them; a capsule's general contacts hold full 3×3 blocks: about twice a bead). Saturates
// instead of wrapping.
std::uint64_t granular_memory_estimate(double beads, double capsules);

// Command-line flags that stand for keys of the granular: map, which they replace; each problem of theirs names
// the flag ("--restart FILE", "--h 0.001"). 0 or empty: not given.
struct GranularFlags {
  std::filesystem::path restart;  // the `restart` key: the archive the model is restored from
  long dump_step = 0;             // `dump_fclib_step`
  double t_end = 0.0, h = 0.0;    // `t_end`, `h`
  // Under mpirun with a partitioned model (issue 15): this process builds only share `share` of `shares` equal
  // shares of the generated beads (BeadSpec::keep_begin), and reads only that share of a restart archive's beads
  // and warm starts (read_restart's ArchiveShare). It builds the whole scene where `unsupported`
  // (ModelPartition::unsupported) gives a reason to refuse the scene (then a restart archive is read whole too),
  // and for capsules or a drum. LargePathSettings::shares says which it did.
  int share = 0, shares = 1;
  std::function<std::string(const Model&, const granular::GranularParameters&)> unsupported;
};

// Reads, validates and builds the scene with the overrides `sets` and the flags; restores the restart archive
// when the scene or --restart names one (LargePathSettings::restored_from). Every problem is thrown as one
// SceneError line FILE:LINE:COL: field 'granular.key': what is wrong (apps/SceneError.hpp); an override's problem
// names it ("--set n=abc: ..."). max_memory: the bytes the scene may ask for (--max-memory); 0 = MemAvailable.
Scene load_granular_scene(const std::filesystem::path& scene_file, const std::vector<std::string>& sets = {},
                          std::uint64_t max_memory = 0, const GranularFlags& flags = {});

// What `talus check` says of a granular scene: loaded as load_granular_scene loads it, and its stepper built
// (the stepper's own parameter checks), without stepping.
struct GranularSceneSummary {
  std::string name, kind;
  long beads = 0;
  int walls = 0;
  double h = 0.0, t_end = 0.0;
};
GranularSceneSummary check_granular_scene(const std::filesystem::path& scene_file,
                                          const std::vector<std::string>& sets = {}, std::uint64_t max_memory = 0);

}  // namespace talus::app
