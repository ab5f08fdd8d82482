// Pours and size distributions in the one scene format (issue 11 item 5): `pours:` places a count of beads at
// random without overlap in a box, radii drawn from a uniform, log-normal or tabulated (by number or mass)
// distribution. The draws are held to the distributions they claim (Kolmogorov–Smirnov distance at the 1 %
// level, exact number fractions of a mass table), the placement to its promises (no overlap with each other,
// with listed spheres or with planes; inside the region; largest first; the seed fixes it), and an impossible
// pour is refused at its line, saying how far it got.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "apps/GranularSceneFile.hpp"
#include "apps/SceneRun.hpp"
#include "tests/apps/GranularFileRun.hpp"
#include "apps/SceneLoader.hpp"
#include "engine/granular/RegionFill.hpp"
#include "engine/granular/SizeDistribution.hpp"
#include "tests/SceneText.hpp"

using namespace talus;
using namespace talus::granular;

namespace {

std::vector<double> draw(const SizeDistribution& d, int n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<double> r(n);
  for (double& x : r) x = d.sample(gen);
  return r;
}

// The KS critical distance at the 1 % level for n draws.
double ks_bound(int n) { return 1.63 / std::sqrt(static_cast<double>(n)); }

}  // namespace

TEST_CASE("size distributions draw what their cumulative functions say", "[apps][pours]") {
  const int n = 20000;
  SizeDistribution uniform;
  uniform.r_min = 0.004, uniform.r_max = 0.012;
  uniform.check();
  CHECK(kolmogorov_smirnov_distance(draw(uniform, n, 1), uniform) < ks_bound(n));

  SizeDistribution lognormal;
  lognormal.kind = SizeDistribution::Kind::LogNormal;
  lognormal.median = 0.005, lognormal.sigma = 0.3;
  lognormal.check();
  const std::vector<double> r = draw(lognormal, n, 2);
  CHECK(kolmogorov_smirnov_distance(r, lognormal) < ks_bound(n));
  // Independently of cdf: the median of ln r and the spread of ln r (the truncation at ±3σ shrinks the
  // standard deviation by 1.4 %).
  std::vector<double> logs;
  for (double x : r) logs.push_back(std::log(x));
  std::nth_element(logs.begin(), logs.begin() + n / 2, logs.end());
  CHECK(std::exp(logs[n / 2]) == Approx(0.005).epsilon(0.01));
  double mean = 0.0, var = 0.0;
  for (double x : logs) mean += x / n;
  for (double x : logs) var += (x - mean) * (x - mean) / (n - 1);
  CHECK(std::sqrt(var) == Approx(0.3 * 0.986).epsilon(0.02));
  CHECK(*std::min_element(r.begin(), r.end()) >= lognormal.smallest());
  CHECK(*std::max_element(r.begin(), r.end()) <= lognormal.largest());
  // A sampler drawing the wrong law fails the same test: uniform radii against the log-normal's cdf.
  SizeDistribution wide = uniform;
  wide.r_min = lognormal.smallest(), wide.r_max = lognormal.largest();
  CHECK(kolmogorov_smirnov_distance(draw(wide, n, 3), lognormal) > 10 * ks_bound(n));

  // A sieve table by mass: 50 % of the mass in beads of 1 mm, 50 % in beads of 2 mm, so 8 small beads per
  // large one by number.
  SizeDistribution sieve = table_by_mass({0.001, 0.002}, {0.5, 0.5});
  sieve.check();
  CHECK(sieve.fractions[0] == Approx(8.0 / 9.0));
  const std::vector<double> t = draw(sieve, n, 4);
  const double small = std::count(t.begin(), t.end(), 0.001) / static_cast<double>(n);
  CHECK(small == Approx(8.0 / 9.0).margin(4.0 * std::sqrt(8.0 / 81.0 / n)));
  CHECK(kolmogorov_smirnov_distance(t, sieve) < ks_bound(n));

  SizeDistribution bad;
  bad.kind = SizeDistribution::Kind::Table;
  bad.radii = {0.002, 0.001};
  bad.fractions = {1, 1};
  CHECK(bad.problem() == "a size table's radii must increase");
}

TEST_CASE("a region fill places every bead without overlap, largest first, as the seed says",
          "[apps][pours]") {
  RegionFill fill;
  fill.lower = Eigen::Vector3d(0, 0, 0), fill.upper = Eigen::Vector3d(0.1, 0.1, 0.2);
  fill.count = 600;
  fill.sizes.r_min = 0.003, fill.sizes.r_max = 0.006;
  const std::vector<PlacedSphere> listed = {{Eigen::Vector3d(0.05, 0.05, 0.1), 0.02}};
  // A plane across the region: nothing may sit below z = 0.03 + r.
  const std::vector<contact::Wall> walls = {contact::Wall{Eigen::Vector3d::UnitZ(), 0.03}};
  const std::vector<PlacedSphere> s = fill_region(fill, listed, walls);
  REQUIRE(s.size() == 600);
  double phi = 0.0;
  int order = 0, outside = 0, overlaps = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double r = s[i].radius;
    phi += 4.0 / 3.0 * M_PI * r * r * r / (0.1 * 0.1 * 0.2);
    order += i > 0 && r > s[i - 1].radius;
    outside += !((s[i].x.array() - r) >= fill.lower.array()).all() ||
               !((s[i].x.array() + r) <= fill.upper.array()).all() || s[i].x.z() - r < 0.03;
    overlaps += (s[i].x - listed[0].x).norm() < r + listed[0].radius;
    for (std::size_t j = 0; j < i; ++j) overlaps += (s[i].x - s[j].x).norm() < r + s[j].radius;
  }
  CHECK(order == 0);
  CHECK(outside == 0);
  CHECK(overlaps == 0);
  CHECK(phi > 0.05);
  const std::vector<PlacedSphere> again = fill_region(fill, listed, walls);
  CHECK(again.back().x == s.back().x);
  fill.seed = 2;
  CHECK(fill_region(fill, listed, walls).back().x != s.back().x);

  // Far more than random insertion can place (it jams near φ ≈ 0.3–0.4): refused, saying how far it got.
  fill.count = 20000;
  fill.tries_per_bead = 200;
  try {
    fill_region(fill);
    FAIL("an impossible fill was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("fill: placed ") &&
                             Catch::Contains(" of 20000 beads (they fill 0.") &&
                             Catch::Contains("expected a larger region or fewer beads"));
  }
}

TEST_CASE("pours: in a scene, on either path", "[apps][pours]") {
  const std::string text =
      "gravity: [0, 0, -9.81]\n"                                                              // 1
      "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"                       // 2
      "spheres: [{name: ball, position: [0.05, 0.05, 0.15], radius: 0.02, density: 7800}]\n"  // 3
      "planes:\n"                                                                             // 4
      "  - {name: floor, normal: [0, 0, 1], offset: 0}\n"                                     // 5
      "pours:\n"                                                                              // 6
      "  - name: sand\n"                                                                      // 7
      "    region: [0, 0, 0, 0.1, 0.1, 0.3]\n"                                                // 8
      "    count: 400\n"                                                                      // 9
      "    radii: {lognormal: {median: 0.004, sigma: 0.25}}\n"                                // 10
      "    density: 2600\n"                                                                   // 11
      "    seed: 5\n"                                                                         // 12
      "contacts: {detect: true, law: glass}\n"                                                // 13
      "integrator: {path: large, h: 1.0e-3, t_end: 0.1}\n";                                   // 14
  for (const bool large : {true, false}) {
    INFO((large ? "large" : "small") << " path");
    const std::string scene_text = large ? text : test::replace_once(text, "path: large, ", "");
    app::Scene scene = app::load_scene_from_string(scene_text, "pour.yaml");
    const RigidBodies& b = scene.model.bodies;
    REQUIRE(b.count() == 401);
    CHECK(scene.body_names[1] == "sand_0");
    CHECK(scene.body_names[400] == "sand_399");
    CHECK(b.kind(1) == (large ? ShapeKind::Sphere : ShapeKind::General));
    SizeDistribution d;
    d.kind = SizeDistribution::Kind::LogNormal;
    d.median = 0.004, d.sigma = 0.25;
    std::vector<double> radii(b.radius.begin() + 1, b.radius.end());
    CHECK(kolmogorov_smirnov_distance(radii, d) < ks_bound(400));
    for (int i = 1; i < b.count(); ++i) {
      CHECK(b.x[i].z() >= b.radius[i]);
      CHECK((b.x[i] - b.x[0]).norm() >= b.radius[i] + b.radius[0]);
      CHECK(b.mass[i] == Approx(2600 * 4.0 / 3.0 * M_PI * std::pow(b.radius[i], 3)));
    }
  }
  const auto error = [&](const std::string& from, const std::string& to) {
    return test::scene_error(test::replace_once(text, from, to), "pour.yaml", "accepted");
  };
  CHECK_THAT(error("count: 400", "count: 40000"),
             Catch::StartsWith("pour.yaml:7:") && Catch::Contains("field 'pours[0]': fill: placed "));
  CHECK_THAT(error("    density: 2600\n", "    density: 2600\n    radius: 0.004\n"),
             Catch::Contains("field 'pours[0].radius': expected exactly one of 'radius' or 'radii'"));
  CHECK_THAT(error("{lognormal: {median: 0.004, sigma: 0.25}}", "{table: [[0.004, 1], [0.003, 1]]}"),
             Catch::StartsWith("pour.yaml:10:") && Catch::Contains("a size table's radii must increase"));
  CHECK_THAT(error("{lognormal: {median: 0.004, sigma: 0.25}}", "{uniform: [0.004, 0.005], by: mass}"),
             Catch::Contains("field 'pours[0].radii.by': is only read with 'table'"));
  CHECK_THAT(error("region: [0, 0, 0, 0.1, 0.1, 0.3]", "region: [0, 0, 0, 0.1, 0.1, 0.005]"),
             Catch::Contains("fill: the region is narrower than the largest bead's diameter"));
}

TEST_CASE("examples/pour.yaml draws its sieve curve", "[apps][pours]") {
  const app::Scene scene = app::load_scene(std::string(TALUS_SOURCE_DIR) + "/examples/pour.yaml");
  REQUIRE(scene.large_path);
  const RigidBodies& b = scene.model.bodies;
  REQUIRE(b.spheres() == 1000);
  // Mass fractions 0.1, 0.3, 0.4, 0.2 of radii 3, 4, 5, 6 mm: number fractions ∝ fraction / r³.
  SizeDistribution sieve = table_by_mass({0.003, 0.004, 0.005, 0.006}, {0.1, 0.3, 0.4, 0.2});
  sieve.check();
  CHECK(kolmogorov_smirnov_distance(b.radius, sieve) < ks_bound(1000));
  CHECK(sieve.fractions[0] == Approx(0.296).margin(1e-3));
}

TEST_CASE("a pour at a rate fills an empty box during the run, and a restart continues it bit for bit",
          "[apps][pours]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("talus_timed_pour_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto scene_file = [&](double t_end) {
    const fs::path f = dir / ("rain_" + std::to_string(static_cast<int>(t_end * 1000)) + ".yaml");
    std::ofstream(f)
        << "gravity: [0, 0, -9.81]\n"
           "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
           "planes:\n"
           "  - {name: floor, normal: [0, 0, 1], offset: 0}\n"
           "  - {name: x0, normal: [1, 0, 0], offset: 0}\n"
           "  - {name: x1, normal: [-1, 0, 0], offset: -0.06}\n"
           "  - {name: y0, normal: [0, 1, 0], offset: 0}\n"
           "  - {name: y1, normal: [0, -1, 0], offset: -0.06}\n"
           "pours:\n"
           "  - {name: rain, region: [0, 0, 0.1, 0.06, 0.06, 0.14], count: 120, rate: 1500, start: 0.01,\n"
           "     radii: {uniform: [0.003, 0.004]}, density: 2500, velocity: [0, 0, -0.5]}\n"
           "contacts: {detect: true, law: glass}\n"
           "integrator: {path: large, h: 1.0e-3, t_end: "
        << t_end << "}\noutput: {frame_every: 0.02}\n";
    return f;
  };
  const auto run = [&](const fs::path& file, const fs::path& out, const fs::path& restart = {}) {
    app::Scene scene = app::load_scene(file);
    std::ostringstream log;
    app::RunOptions o = talus::test::quiet_run(out, log);
    o.restart = restart;
    return app::run_scene(scene, o).exit_status();
  };
  const fs::path full = scene_file(0.16), half = scene_file(0.05);
  REQUIRE(app::load_scene(full).model.bodies.count() == 0);  // the box starts empty
  REQUIRE(run(full, dir / "full") == 0);
  REQUIRE(run(half, dir / "half") == 0);
  REQUIRE(run(full, dir / "continued", dir / "half" / "restart.h5") == 0);
  nlohmann::json j;
  std::ifstream(dir / "full" / "run.json") >> j;
  CHECK(j["results"]["poured_beads"] == 120);  // 1500 per second from 0.01 s: all 120 by 0.09 s
  CHECK(j["results"]["beads_left"] == 120);
  Model a, b, h;
  app::read_restart(dir / "full" / "restart.h5", a);
  app::read_restart(dir / "continued" / "restart.h5", b);
  app::read_restart(dir / "half" / "restart.h5", h);
  CHECK(h.bodies.spheres() == 58);  // inserted before each step: the last began at 0.049 s, 1500 × 0.039 → 58
  REQUIRE(a.bodies.spheres() == 120);
  CHECK(a.bodies.x == b.bodies.x);
  CHECK(a.bodies.v == b.bodies.v);
  // Every bead is in the box, on or above the floor.
  for (int i = 0; i < a.bodies.spheres(); ++i) {
    CHECK(a.bodies.x[i].z() >= a.bodies.radius[i] * 0.99);
    CHECK(a.bodies.x[i].x() >= 0.0);
    CHECK(a.bodies.x[i].x() <= 0.06);
  }
  fs::remove_all(dir);
}

TEST_CASE("a pour fills a drum's bed from a box around it: every bead inside the drum", "[apps][pours][drum]") {
  // A drum is the inside of a cylinder: a bead placed outside it would start deep in its wall. The pour's box
  // spans the drum's lower half, corners outside the circle included; the fill keeps to the inside (RegionFill's
  // obstacles), so the one scene format spells out the drum generator's bed.
  const std::string text =
      "gravity: [0, 0, -9.81]\n"
      "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
      "drums: [{name: drum, centre: [0, 0, 0], axis: [0, 1, 0], radius: 0.01, angular_velocity: 3.13}]\n"
      "periodic: {y: [-0.004, 0.004]}\n"
      "pours:\n"
      "  - {name: bed, region: [-0.01, -0.004, -0.01, 0.01, 0.004, 0.0], count: 150, radius: 0.0005, density: 2500, seed: 3}\n"
      "contacts: {detect: true, law: glass}\n"
      "integrator: {path: large, h: 5.0e-4, t_end: 0.05}\n";
  app::Scene scene = app::load_scene_from_string(text, "drum_pour.yaml");
  const RigidBodies& b = scene.model.bodies;
  REQUIRE(b.spheres() == 150);
  int corner_side = 0;  // beads a fill of the box alone could have put outside: none is
  for (int i = 0; i < b.spheres(); ++i) {
    const double radial = std::hypot(b.x[i].x(), b.x[i].z());
    CHECK(radial + b.radius[i] <= 0.01 * (1.0 + 1e-12));
    corner_side += radial > 0.0085;
  }
  CHECK(corner_side > 0);  // they reach the wall
  namespace fs = std::filesystem;
  // Stepped, the bed settles against the wall with small penetrations, not the wall's depth.
  std::ostringstream log;
  app::RunOptions o = talus::test::quiet_run(fs::temp_directory_path() / ("talus_drum_pour_" + std::to_string(::getpid())), log);
  REQUIRE(app::run_scene(scene, o).exit_status() == 0);
  nlohmann::json j;
  std::ifstream(o.out_dir / "run.json") >> j;
  CHECK(j["results"]["max_penetration_over_r"].get<double>() < 0.05);
  CHECK(j["results"]["beads_left"] == 150);
  fs::remove_all(o.out_dir);
}

TEST_CASE("examples/drum_bed.yaml pours its 246 beads inside the drum", "[apps][pours][drum]") {
  const app::Scene scene = app::load_scene(std::filesystem::path(TALUS_SOURCE_DIR) / "examples" / "drum_bed.yaml");
  const RigidBodies& b = scene.model.bodies;
  REQUIRE(scene.model.drums.size() == 1);
  const double R = scene.model.drums[0].radius;
  CHECK(b.spheres() == 246);
  for (int i = 0; i < b.spheres(); ++i) CHECK(std::hypot(b.x[i].x(), b.x[i].z()) + b.radius[i] <= R * (1.0 + 1e-12));
}
