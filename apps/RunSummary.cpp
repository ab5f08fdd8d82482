#include "apps/RunSummary.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "apps/JsonOutput.hpp"
#include "apps/RunOutputs.hpp"
#include "apps/Version.hpp"

namespace talus::app {

namespace {

nlohmann::ordered_json number(double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); }

}  // namespace

nlohmann::ordered_json common_parameters(const std::string& scheme, double h, double t_end, const std::string& solver,
                                         double tolerance, double frame_every) {
  nlohmann::ordered_json p;
  p["scheme"] = scheme;
  p["h"] = number(h);
  p["t_end"] = number(t_end);
  p["solver"] = solver;
  p["tolerance"] = number(tolerance);
  p["frame_every"] = number(frame_every);
  return p;
}

nlohmann::ordered_json run_summary_json(const RunSummary& s) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["talus_version"] = version();
  j["path"] = s.path;
  j["scene"] = s.scene;
  j["scene_file"] = s.scene_file;
  j["description"] = s.description;
  j["overrides"] = s.overrides;
  const bool recorded = !s.restart_settings.empty();
  j["restarted_from"] = s.restart_file.empty()
                            ? ordered_json(nullptr)
                            : ordered_json{{"file", s.restart_file},
                                           {"step", s.restart_step},
                                           {"settings", recorded ? ordered_json(s.restart_settings) : ordered_json(nullptr)},
                                           {"continues_bitwise",
                                            recorded ? ordered_json(s.restart_same_settings) : ordered_json(nullptr)}};
  j["status"] = s.status;
  j["failure"] = s.failed_step < 0 ? ordered_json(nullptr)
                                   : ordered_json{{"step", s.failed_step}, {"time", number(s.failed_time)}, {"message", s.failure}};
  j["parameters"] = s.parameters;
  j["model"] = {{"beads", s.beads},   {"capsules", s.capsules},   {"rigid_bodies", s.rigid_bodies},
                {"lti", s.lti},       {"nonlinear", s.nonlinear}, {"beams", s.beams},
                {"interactions", s.interactions}};
  j["start_time"] = number(s.start_time);
  j["final_time"] = number(s.final_time);
  j["steps"] = s.steps;
  j["planned_steps"] = s.planned_steps;
  j["final_step"] = s.final_step;
  j["wall_seconds"] = number(s.wall_seconds);
  j["steps_per_second"] = number(s.wall_seconds > 0 ? s.steps / s.wall_seconds : 0.0);
  ordered_json phases;
  for (int q = 0; q < kPhaseCount; ++q) phases[to_string(static_cast<Phase>(q))] = number(s.phase_seconds[q]);
  j["phase_seconds"] = phases;
  j["frames"] = s.frames;
  j["files"] = s.files;
  j["results"] = s.results;
  ordered_json units = {{"parameters.h", "s"},    {"parameters.t_end", "s"},   {"parameters.frame_every", "s"},
                        {"failure.time", "s"},    {"start_time", "s"},         {"final_time", "s"},
                        {"wall_seconds", "s"},    {"steps_per_second", "1/s"}, {"phase_seconds", "s (wall, summed over the steps)"},
                        {"parameters.tolerance", "the one-step solver's residual measure"}};
  for (auto it = s.units.begin(); it != s.units.end(); ++it) units[it.key()] = it.value();
  j["units"] = units;
  return j;
}

void list_in_run_summary(const std::filesystem::path& dir, const std::vector<std::string>& names) {
  const std::filesystem::path file = dir / kRunJsonFile;
  nlohmann::ordered_json j;
  try {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot open it");
    j = nlohmann::ordered_json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": cannot read the run summary: " + e.what());
  }
  nlohmann::ordered_json& files = j["files"];
  bool added = false;
  for (const std::string& n : names)
    if (std::filesystem::is_regular_file(dir / n) && std::find(files.begin(), files.end(), n) == files.end())
      files.push_back(n), added = true;
  if (added) write_json_file(file, j);
}

}  // namespace talus::app
