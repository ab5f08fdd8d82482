// "A scene runs under either path by changing one line" (issue 6): the foundation's scene files with
// `integrator.scheme: event_driven` instead of moreau_jean run through apps/SceneRun with the same outputs
// (time series on the output grid, run.json) plus events.csv. Checked against exact solutions: the bouncing
// ball's flights q = 1 − t² and impact times t_n = 3 − 2^(1−n) (seed 000 eq 122), Newton's cradle's exchange
// of velocities (e = 1, successive two-body impacts); friction and misplaced keys are refused at their field.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/SceneRun.hpp"

using namespace talus;
using namespace talus::app;
namespace fs = std::filesystem;

namespace {

// The example scene with its one `scheme:` line switched to the event-driven path (plus extra keys).
Scene event_driven_example(const std::string& name, const std::string& extra = "") {
  const fs::path file = fs::path(TALUS_SOURCE_DIR) / "examples" / (name + ".yaml");
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string from = "scheme: moreau_jean";
  if (const size_t at = text.find(from); at != std::string::npos) {
    text.replace(at, from.size(), "scheme: event_driven" + extra);
  } else {
    const size_t at2 = text.find("integrator:\n");
    REQUIRE(at2 != std::string::npos);
    text.insert(at2 + 12, "  scheme: event_driven" + extra + "\n");
  }
  return load_scene_from_string(text, file.string());
}

std::vector<std::vector<std::string>> read_csv(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("talus_ed_scene_" + name);
  fs::remove_all(d);
  return d;
}

void expect_refused(const std::string& text, const std::string& line_prefix, const std::string& field) {
  try {
    load_scene_from_string(text, "bad.yaml");
    FAIL("the scene was accepted");
  } catch (const SceneError& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find(line_prefix) == 0);
    CHECK(m.find(field) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("bouncing_ball.yaml runs under the event-driven path by changing one line", "[eventdriven][apps]") {
  Scene scene = event_driven_example("bouncing_ball");
  REQUIRE(scene.scheme.kind == SchemeKind::EventDriven);
  CHECK(scene.scheme.dae_method == "hem5");
  const fs::path out = fresh_dir("ball");
  const RunResult r = run_scene(scene, RunOptions{out});
  REQUIRE(r.status == RunStatus::Completed);
  CHECK(r.time == Approx(scene.t_end));

  // The time series on the output grid: q = 1 − t² up to the first impact at t = 1, rest after t = 3.
  const auto ts = read_csv(out / "timeseries.csv");
  REQUIRE(ts.size() > 1000);
  int checked = 0;
  for (size_t i = 1; i < ts.size(); ++i) {
    const double t = std::stod(ts[i][0]), q = std::stod(ts[i][1]), v = std::stod(ts[i][2]);
    if (t < 1.0) {
      CHECK(std::abs(q - (1.0 - t * t)) < 1e-12);
      CHECK(std::abs(v + 2.0 * t) < 1e-12);
      ++checked;
    } else if (t > 3.0) {
      CHECK(std::abs(q) < 1e-12);
      CHECK(std::abs(v) < 1e-12);
    }
  }
  CHECK(checked >= 999);
  // The impacts' work ½ (U⁻ + U⁺) P, accumulated: every impact takes (1 − e²) of the kinetic energy it meets,
  // and the accumulation ends with the whole initial energy m g q₀ = 1 · 2 · 1 dissipated.
  const auto& header = ts[0];
  const size_t cw = static_cast<size_t>(std::find(header.begin(), header.end(), "contact_work") - header.begin());
  REQUIRE(cw < header.size());
  for (size_t i = 1; i < ts.size(); ++i) {
    const double t = std::stod(ts[i][0]), w = std::stod(ts[i][cw]);
    if (t < 1.0) CHECK(w == 0.0);
    if (t > 1.0 && t < 2.0) CHECK(std::abs(w - (-0.75 * 2.0)) < 1e-12);  // ½ m v⁻² (1 − e²) with v⁻ = −2, e = ½
    if (t > 3.0) CHECK(std::abs(w + 2.0) < 1e-12);
  }

  // events.csv: impact times of seed 000 eq 122.
  const auto ev = read_csv(out / "events.csv");
  REQUIRE(ev.size() > 21);
  CHECK(ev[0][0] == "time");
  for (int n = 0; n < 20; ++n) {
    INFO("impact " << n);
    CHECK(ev[static_cast<size_t>(n) + 1][1] == "impact");
    CHECK(std::abs(std::stod(ev[static_cast<size_t>(n) + 1][0]) - (3.0 - std::pow(2.0, 1.0 - n))) < 1e-10);
  }
  std::ifstream run_json(out / "run.json");
  std::stringstream js;
  js << run_json.rdbuf();
  CHECK(js.str().find("\"scheme\": \"event_driven\"") != std::string::npos);
  fs::remove_all(out);
}

TEST_CASE("newtons_cradle.yaml under the event-driven path passes the velocity down the row", "[eventdriven][apps]") {
  Scene scene = event_driven_example("newtons_cradle", "\n  dae_method: rkf45\n  dae_tolerance: 1.0e-10");
  REQUIRE(scene.scheme.dae_method == "rkf45");
  CHECK(scene.scheme.dae_tolerance == 1e-10);
  const fs::path out = fresh_dir("cradle");
  REQUIRE(run_scene(scene, RunOptions{out}).status == RunStatus::Completed);
  const auto& v = scene.model.bodies.v;
  REQUIRE(v.size() == 5);
  for (Index b = 0; b < 4; ++b) CHECK(v[b].norm() < 1e-12);
  CHECK(std::abs(v[4][0] - 1.0) < 1e-12);
  CHECK(read_csv(out / "events.csv").size() == 5);  // header + the four two-body impacts
  fs::remove_all(out);
}

TEST_CASE("the event-driven path refuses friction and its keys elsewhere, naming the field", "[eventdriven][apps]") {
  const std::string mass = "lti_systems:\n  - {name: m, M: [[1.0]], f_const: [-1.0], q0: [1.0], v0: [0.0]}\n";
  expect_refused(mass +
                     "laws:\n  rough: {type: newton_friction, e: 0.5, mu: 0.3, dim: 2}\n"
                     "interactions:\n  - {name: floor, type: linear, systems: [m], C: [[1.0], [0.0]], law: rough}\n"
                     "integrator: {scheme: event_driven, h: 1.0e-3, t_end: 1.0}\n",
                 "bad.yaml:6:", "event_driven");
  expect_refused(mass + "integrator: {scheme: moreau_jean, dae_method: hem5, h: 1.0e-3, t_end: 1.0}\n", "bad.yaml:3:",
                 "integrator.dae_method");
  expect_refused(mass + "integrator: {scheme: event_driven, dae_method: rk4, h: 1.0e-3, t_end: 1.0}\n", "bad.yaml:3:",
                 "hem5");
}
