#pragma once
// `talus run FILE --set k=v …` for a granular: file, as apps/Cli.cpp runs it: the file loaded into the one Scene
// with its overrides and flags, then the one runner (apps/SceneRun.hpp). Returns the command's exit status.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "apps/GranularSceneFile.hpp"
#include "solvers/core/NumberText.hpp"
#include "apps/SceneRun.hpp"

namespace talus::test {

// Options of a quiet run into `out`: messages (a failed step) to `log`, no progress, no snapshot.
inline app::RunOptions quiet_run(const std::filesystem::path& out, std::ostream& log) {
  app::RunOptions o;
  o.out_dir = out;
  o.log = &log;
  o.progress = false;
  return o;
}

inline int run_granular_file(const std::filesystem::path& file, const std::vector<std::string>& sets,
                             app::RunOptions options, const app::GranularFlags& flags = {}) {
  app::Scene scene = app::load_granular_scene(file, sets, 0, flags);
  // Recorded as the CLI records them: --set first, then the flags.
  for (const std::string& kv : sets) options.overrides.push_back("--set " + kv);
  if (flags.t_end > 0) options.overrides.push_back("--t-end " + talus::exact_number_text(flags.t_end));
  if (flags.h > 0) options.overrides.push_back("--h " + talus::exact_number_text(flags.h));
  return app::run_scene(scene, options).exit_status();
}

}  // namespace talus::test
