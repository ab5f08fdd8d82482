#pragma once
// Reads a YAML scene file (docs/scene-format.md) into a Scene: builds the engine model (LTI systems, rigid
// spheres, static planes, planar blocks, interactions and their laws) and the integrator and output settings.
// Every problem in the file — syntax, a second YAML document, missing, unknown or unused keys, wrong types or
// sizes, unknown names, negative masses, unsuitable laws, h against t_end, a size whose memory estimate exceeds
// the limit — is thrown as one SceneError line naming the file, line, column and field. An override
// (`--set integrator.h=1e-3`) is applied to the parsed file before anything is read, so it goes through the
// same checks; its problems name it ("--set integrator.h=abc: field 'integrator.h': …").
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/Scene.hpp"

namespace talus::app {

// One override of a key of the scene: `key` is a dotted path with list indices ("integrator.h",
// "spheres[0].radius", "gravity"), `value` YAML text ("1e-3", "[0, 0, -9.81]"), `origin` names it in
// messages and in run.json ("--set integrator.h=1e-3", "--h 0.001").
struct SceneOverride {
  std::string origin, key, value;
};

// "key=value" as given to --set. Throws SceneError (at "--set TEXT") when there is no '=' or no key.
SceneOverride parse_override(const std::string& key_value);

struct LoadOptions {
  std::vector<SceneOverride> overrides;
  std::uint64_t max_memory = 0;            // bytes; 0: the machine's available memory (MemAvailable)
  std::vector<std::string>* warnings = nullptr;  // where tolerated oddities are reported (one line each)
  // Under mpirun with a partitioned model (issue 15): a large-path scene's process builds only share `share` of
  // `shares` of its beads (the listed spheres, the lattices' and the particle files' beads, in the file's order:
  // bead k goes to share k mod shares), each with the id it has in the whole scene, so that no process holds them
  // all. A scene with capsules, drums, joints, FE beams or pours placed when it is read is built whole (its beads
  // depend on each other, or the partitioned model refuses it). Scene::large_path->shares says which it did.
  int share = 0, shares = 1;
};

Scene load_scene(const std::filesystem::path& file, const LoadOptions& options = {});

// The same from text in memory; `file_name` is used in messages and to default the scene's name.
Scene load_scene_from_string(const std::string& text, const std::string& file_name, const LoadOptions& options = {});

}  // namespace talus::app
