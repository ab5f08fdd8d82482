#pragma once
// Reads a YAML scene file (docs/scene-format.md) into a Scene: builds the engine model (LTI systems, rigid
// spheres, static planes, planar blocks, interactions and their laws) and the integrator and output settings.
// Every problem in the file — syntax, missing or unknown keys, wrong types or sizes, unknown names, negative
// masses, unsuitable laws — is thrown as one SceneError line naming the file, line, column and field.
#include <filesystem>
#include <string>

#include "apps/Scene.hpp"

namespace talus::app {

Scene load_scene(const std::filesystem::path& file);

// The same from text in memory; `file_name` is used in messages and to default the scene's name.
Scene load_scene_from_string(const std::string& text, const std::string& file_name);

}  // namespace talus::app
