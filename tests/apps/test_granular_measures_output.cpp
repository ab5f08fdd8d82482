// measures.csv and run.json's results.measures (apps/GranularMeasureSeries.hpp): a settled stack's row gives a
// random packing's fraction and coordination, a pressure close to the weight it carries, and a file with one
// row per frame; a measure_region outside the beads gives no packing and no stress.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "apps/GranularSceneFile.hpp"
#include "apps/SceneRun.hpp"
#include "tests/apps/GranularFileRun.hpp"

using namespace talus::app;
namespace fs = std::filesystem;

namespace {

const fs::path kStack = fs::path(TALUS_SOURCE_DIR) / "examples" / "bead_stack.yaml";

nlohmann::json run_stack(const fs::path& out, std::vector<std::string> sets) {
  std::ostringstream log;
  RunOptions o = talus::test::quiet_run(out, log);
  o.overwrite = true;
  REQUIRE(talus::test::run_granular_file(kStack, sets, o) == 0);
  std::ifstream in(out / "run.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("a settled stack's measures: packing, coordination, pressure, one row per frame",
          "[apps][granular]") {
  const fs::path out = fs::temp_directory_path() / ("talus_measures_" + std::to_string(::getpid()));
  const nlohmann::json j = run_stack(out, {"n=1000", "t_end=0.6", "frame_every=0.1"});
  const nlohmann::json& m = j["results"]["measures"];
  INFO(m.dump());
  // A poured, frictional (μ = 0.3) random packing: between random loose (0.55) and close (0.64) packing, and
  // a coordination of 4–6 force-carrying contacts per bead.
  CHECK(m["packing_fraction"].get<double>() > 0.52);
  CHECK(m["packing_fraction"].get<double>() < 0.66);
  CHECK(m["coordination"].get<double>() > 3.5);
  CHECK(m["coordination"].get<double>() < 6.5);
  // Below the hydrostatic bound: the region's mean vertical stress cannot exceed ρ_bulk g (top − region
  // bottom).
  const double p = m["pressure_Pa"].get<double>();
  const auto region = m["region"].get<std::vector<double>>();
  CHECK(p > 0.0);
  CHECK(p < 2500.0 * 0.66 * 9.81 * (region[5] - region[2] + 0.1));
  CHECK(m["ke_translation_J"].get<double>() < 1e-3);
  std::ifstream csv(out / "measures.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  CHECK(lines == 1 + j["frames"].get<int>());  // the header and one row per frame
  bool listed = false;
  for (const auto& f : j["files"]) listed = listed || f.get<std::string>() == "measures.csv";
  CHECK(listed);
  // A region that holds no bead: no packing, no stress (0 and 0), the force columns still there.
  const nlohmann::json k = run_stack(out, {"n=200", "t_end=0.2", "measure_region=[5, 5, 5, 6, 6, 6]"});
  CHECK(k["results"]["measures"]["packing_fraction"].get<double>() == 0.0);
  CHECK(k["results"]["measures"]["pressure_Pa"].get<double>() == 0.0);
  CHECK(k["results"]["measures"]["coordination"].get<double>() > 0.0);
  fs::remove_all(out);
}
