// The plumbing of `talus run`: a run of the bouncing ball writes a CSV and an HDF5 file holding the same
// numbers (the HDF5 file is re-read here with the C API, independently of the writer), rows at the planned
// times, sums that do not depend on the output stride, and a run.json; a run that fails or is interrupted
// midway keeps every row written so far plus its last good state; an aborted output never clobbers the
// previous run's files.
#include <catch2/catch.hpp>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <limits>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/RunOutputs.hpp"

#include <nlohmann/json.hpp>
#include "apps/SceneLoader.hpp"
#include "apps/SceneRun.hpp"
#include "engine/MoreauJean.hpp"
#include "solvers/fc/Apgd.hpp"
#include "solvers/fc/FclibIO.hpp"

using namespace talus;
using namespace talus::app;
namespace fs = std::filesystem;

namespace {

const fs::path kBouncingBall = fs::path(TALUS_SOURCE_DIR) / "examples" / "bouncing_ball.yaml";

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
};

// A fresh directory per call, removed by the destructor.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("talus_run_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

Table read_csv(const fs::path& file) {
  Table t;
  std::ifstream in(file);
  REQUIRE(in);
  std::string line, cell;
  std::getline(in, line);
  std::stringstream header(line);
  while (std::getline(header, cell, ',')) t.columns.push_back(cell);
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream ls(line);
    while (std::getline(ls, cell, ',')) row.push_back(std::stod(cell));
    REQUIRE(row.size() == t.columns.size());
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<std::string> read_string_attribute(hid_t object, const char* name) {
  const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
  REQUIRE(attr >= 0);
  const hid_t space = H5Aget_space(attr);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  std::vector<char*> ptrs(n);
  REQUIRE(H5Aread(attr, type, ptrs.data()) >= 0);
  std::vector<std::string> values(ptrs.begin(), ptrs.end());
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, ptrs.data());
  H5Tclose(type);
  H5Sclose(space);
  H5Aclose(attr);
  return values;
}

Table read_hdf5(const fs::path& file, std::string* scene = nullptr) {
  Table t;
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, "timeseries", H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t space = H5Dget_space(d);
  REQUIRE(H5Sget_simple_extent_ndims(space) == 2);
  hsize_t dims[2];
  H5Sget_simple_extent_dims(space, dims, nullptr);
  std::vector<double> values(dims[0] * dims[1]);
  if (!values.empty()) REQUIRE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  t.columns = read_string_attribute(d, "columns");
  if (scene) *scene = read_string_attribute(f, "scene").at(0);
  for (hsize_t i = 0; i < dims[0]; ++i)
    t.rows.emplace_back(values.begin() + i * dims[1], values.begin() + (i + 1) * dims[1]);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return t;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RunOptions quiet_options(const fs::path& dir) {
  RunOptions o;
  o.out_dir = dir;
  o.log = nullptr;
  return o;
}

std::size_t column(const Table& t, const std::string& name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  REQUIRE(it != t.columns.end());
  return static_cast<std::size_t>(it - t.columns.begin());
}

// Moreau–Jean on the scene's model, failing with StepFailure at step `fail_at` (0: never).
struct FailingStepper {
  MoreauJean integrator;
  long fail_at;
  long calls = 0;
  FailingStepper(Scene& s, long fail_at) : integrator(s.model, s.integrator), fail_at(fail_at) {}
  const StepReport& operator()() {
    if (++calls == fail_at) throw StepFailure("injected failure");
    return integrator.step();
  }
};

}  // namespace

TEST_CASE("a bouncing-ball run writes matching CSV, HDF5 and run.json", "[apps][run]") {
  TempDir dir;
  Scene scene = load_scene(kBouncingBall);
  const RunResult r = run_scene(scene, quiet_options(dir.path));
  REQUIRE(r.status == RunStatus::Completed);
  CHECK(r.steps == 4000);
  CHECK(r.rows == 4001);

  const Table csv = read_csv(dir.path / "timeseries.csv");
  std::string scene_name;
  const Table h5 = read_hdf5(dir.path / "timeseries.h5", &scene_name);
  CHECK(scene_name == "bouncing_ball");
  CHECK(h5.columns == csv.columns);
  REQUIRE(csv.rows.size() == 4001);
  REQUIRE(h5.rows.size() == csv.rows.size());
  // The CSV prints shortest round-trip decimals, so both files must hold bit-identical doubles.
  long mismatches = 0;
  for (std::size_t i = 0; i < csv.rows.size(); ++i)
    for (std::size_t j = 0; j < csv.columns.size(); ++j)
      if (!(csv.rows[i][j] == h5.rows[i][j])) ++mismatches;
  CHECK(mismatches == 0);

  // Row 0 is the initial state of the scene; rows follow the grid t_k = k h; the last row is the model's state.
  const std::size_t t = column(csv, "t"), q = column(csv, "ball.q0"), v = column(csv, "ball.v0");
  const std::size_t gap = column(csv, "floor.gap"), P = column(csv, "floor.P0");
  CHECK(csv.rows[0][t] == 0.0);
  CHECK(csv.rows[0][q] == 1.0);
  CHECK(csv.rows[0][v] == 0.0);
  CHECK(csv.rows[0][gap] == 1.0);  // g = q
  CHECK(csv.rows[0][P] == 0.0);
  for (std::size_t i = 0; i < csv.rows.size(); i += 500) CHECK(csv.rows[i][t] == Approx(1e-3 * i).margin(1e-9));
  CHECK(csv.rows.back()[t] == scene.model.time);
  CHECK(csv.rows.back()[q] == scene.model.lti[0].q[0]);
  CHECK(csv.rows.back()[v] == scene.model.lti[0].v[0]);
  CHECK(csv.rows.back()[P] == scene.model.interactions[0].impulse[0]);
  // The gap column is g(q) = q of the same row.
  for (const auto& row : csv.rows) REQUIRE(row[gap] == row[q]);
  // Energies: kinetic ½ m v², total = kinetic + potential (no K here).
  const std::size_t kin = column(csv, "kinetic"), tot = column(csv, "total"), pot = column(csv, "potential");
  for (std::size_t i = 0; i < csv.rows.size(); i += 97) {
    CHECK(csv.rows[i][kin] == Approx(0.5 * csv.rows[i][v] * csv.rows[i][v]).margin(1e-15));
    CHECK(csv.rows[i][tot] == csv.rows[i][kin] + csv.rows[i][pot]);
  }

  const auto json = nlohmann::json::parse(slurp(dir.path / "run.json"));
  CHECK(json["scene"] == "bouncing_ball");
  CHECK(json["status"] == "completed");
  CHECK(json["steps"] == 4000);
  CHECK(json["results"]["rows"] == 4001);
  CHECK(json["path"] == "small");
  CHECK(json["final_step"] == 4000);
  CHECK(json["start_time"] == 0.0);
  CHECK(json["model"]["rigid_bodies"] == 0);
  CHECK(json["model"]["lti"] == 1);
  CHECK(json["parameters"]["h"] == 0.001);
  CHECK(json["parameters"]["solver"] == "lemke");
  CHECK(json["units"]["parameters.h"] == "s");
  CHECK(json["talus_version"].is_string());
  CHECK(json["overrides"].is_array());
  // Only the final files remain: no temporary file left behind.
  for (const auto& e : fs::directory_iterator(dir.path)) CHECK(e.path().filename().string()[0] != '.');
}

TEST_CASE("output.every thins the rows without changing them", "[apps][run]") {
  TempDir all_dir, thin_dir;
  Scene all = load_scene(kBouncingBall);
  Scene thin = load_scene(kBouncingBall);
  thin.output_every = 7;
  run_scene(all, quiet_options(all_dir.path));
  const RunResult r = run_scene(thin, quiet_options(thin_dir.path));
  const Table a = read_csv(all_dir.path / "timeseries.csv"), b = read_csv(thin_dir.path / "timeseries.csv");
  // Rows at steps 0, 7, 14, …, 3997 and the last step 4000.
  REQUIRE(b.rows.size() == 1 + 4000 / 7 + 1);
  CHECK(r.rows == static_cast<long>(b.rows.size()));
  for (std::size_t i = 0; i + 1 < b.rows.size(); ++i) REQUIRE(b.rows[i] == a.rows[7 * i]);
  // Cumulated works sum every step, not only the written ones.
  CHECK(b.rows.back() == a.rows.back());
  CHECK(read_hdf5(thin_dir.path / "timeseries.h5").rows == b.rows);
}

TEST_CASE("a run that fails midway keeps what it wrote and says where it failed", "[apps][run]") {
  TempDir ref_dir, dir;
  Scene reference = load_scene(kBouncingBall);
  run_scene(reference, quiet_options(ref_dir.path));
  const Table ref = read_csv(ref_dir.path / "timeseries.csv");

  SECTION("every step written") {
    Scene scene = load_scene(kBouncingBall);
    FailingStepper stepper(scene, 1500);
    const RunResult r = run_scene(scene, quiet_options(dir.path), std::ref(stepper));
    CHECK(r.status == RunStatus::StepFailed);
    CHECK(r.failed_step == 1500);
    CHECK(r.failed_time == Approx(1.499).margin(1e-12));
    CHECK(r.failure == "injected failure");
    CHECK(r.steps == 1499);
    const Table csv = read_csv(dir.path / "timeseries.csv");
    const Table h5 = read_hdf5(dir.path / "timeseries.h5");
    REQUIRE(csv.rows.size() == 1500);  // the initial state and steps 1..1499
    CHECK(h5.rows == csv.rows);
    for (std::size_t i = 0; i < csv.rows.size(); ++i) REQUIRE(csv.rows[i] == ref.rows[i]);
    const auto json = nlohmann::json::parse(slurp(dir.path / "run.json"));
    CHECK(json["status"] == "step_failed");
    CHECK(json["failure"]["step"] == 1500);
    CHECK(std::abs(json["failure"]["time"].get<double>() - 1.499) < 1e-12);  // t = 1499 h, up to round-off
    CHECK(json["failure"]["message"] == "injected failure");
  }
  SECTION("sparse output: the last good state is added") {
    Scene scene = load_scene(kBouncingBall);
    scene.output_every = 100;
    FailingStepper stepper(scene, 1550);
    const RunResult r = run_scene(scene, quiet_options(dir.path), std::ref(stepper));
    CHECK(r.status == RunStatus::StepFailed);
    const Table csv = read_csv(dir.path / "timeseries.csv");
    REQUIRE(csv.rows.size() == 1 + 15 + 1);  // steps 0, 100, …, 1500, then 1549
    CHECK(csv.rows[15] == ref.rows[1500]);
    CHECK(csv.rows.back() == ref.rows[1549]);
    CHECK(read_hdf5(dir.path / "timeseries.h5").rows == csv.rows);
  }
  SECTION("a failure at the first step keeps the initial state") {
    Scene scene = load_scene(kBouncingBall);
    FailingStepper stepper(scene, 1);
    const RunResult r = run_scene(scene, quiet_options(dir.path), std::ref(stepper));
    CHECK(r.status == RunStatus::StepFailed);
    CHECK(r.steps == 0);
    const Table csv = read_csv(dir.path / "timeseries.csv");
    REQUIRE(csv.rows.size() == 1);
    CHECK(csv.rows[0] == ref.rows[0]);
  }
}

TEST_CASE("an interrupted run ends cleanly with its rows", "[apps][run]") {
  TempDir dir;
  Scene scene = load_scene(kBouncingBall);
  std::atomic<bool> stop{false};
  MoreauJean integrator(scene.model, scene.integrator);
  long calls = 0;
  RunOptions options = quiet_options(dir.path);
  options.stop = &stop;
  const RunResult r = run_scene(scene, options, [&]() -> const StepReport& {
    if (++calls == 250) stop = true;  // as the SIGINT handler would
    return integrator.step();
  });
  CHECK(r.status == RunStatus::Interrupted);
  CHECK(r.steps == 250);
  CHECK(read_csv(dir.path / "timeseries.csv").rows.size() == 251);
  CHECK(slurp(dir.path / "run.json").find("\"status\": \"interrupted\"") != std::string::npos);
}

TEST_CASE("outputs that are never committed leave the previous run's files intact", "[apps][run]") {
  TempDir dir;
  Scene scene = load_scene(kBouncingBall);
  scene.t_end = 0.01;
  run_scene(scene, quiet_options(dir.path));
  const std::string csv_before = slurp(dir.path / "timeseries.csv");
  const std::string json_before = slurp(dir.path / "run.json");
  REQUIRE(!csv_before.empty());
  {
    RunOutputs aborted(dir.path, ColumnInfo{{"t", "x"}, {}, {}}, {{"scene", "other"}}, /*overwrite=*/true);
    const double row[2] = {0.0, 1.0};
    aborted.append(row);
    aborted.flush();
  }  // destroyed without commit(), as when an exception unwinds a run
  CHECK(slurp(dir.path / "timeseries.csv") == csv_before);
  CHECK(slurp(dir.path / "run.json") == json_before);
  for (const auto& e : fs::directory_iterator(dir.path)) CHECK(e.path().filename().string()[0] != '.');

  // A committed run replaces the results and drops the figures of the earlier one.
  std::ofstream(dir.path / "positions.png") << "old figure";
  Scene again = load_scene(kBouncingBall);
  again.t_end = 0.02;
  RunOptions overwrite = quiet_options(dir.path);
  overwrite.overwrite = true;
  run_scene(again, overwrite);
  CHECK(read_csv(dir.path / "timeseries.csv").rows.size() == 21);
  CHECK(!fs::exists(dir.path / "positions.png"));
}

TEST_CASE("the HDF5 time series names each column's unit and meaning", "[apps][run]") {
  TempDir dir;
  Scene scene = load_scene(kBouncingBall);
  scene.t_end = 0.01;
  run_scene(scene, quiet_options(dir.path));
  const hid_t f = H5Fopen((dir.path / "timeseries.h5").string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, "timeseries", H5P_DEFAULT);
  const std::vector<std::string> columns = read_string_attribute(d, "columns");
  const std::vector<std::string> units = read_string_attribute(d, "units");
  const std::vector<std::string> descriptions = read_string_attribute(d, "descriptions");
  REQUIRE(units.size() == columns.size());
  REQUIRE(descriptions.size() == columns.size());
  const auto unit_of = [&](const std::string& c) {
    const auto it = std::find(columns.begin(), columns.end(), c);
    REQUIRE(it != columns.end());
    return units[static_cast<std::size_t>(it - columns.begin())];
  };
  CHECK(unit_of("t") == "s");
  CHECK(unit_of("floor.P0") == "N s");
  CHECK(unit_of("kinetic") == "J");
  CHECK(unit_of("active") == "1");
  CHECK(descriptions[0] == "simulated time");
  CHECK(read_string_attribute(f, "scene_file").at(0) == kBouncingBall.string());
  CHECK(read_string_attribute(f, "time_unit").at(0) == "s");
  H5Dclose(d);
  H5Fclose(f);
}

TEST_CASE("run.json is valid JSON whatever the failure message holds, and NaN is null", "[apps][run]") {
  Scene scene = load_scene(kBouncingBall);
  RunResult r;
  r.status = RunStatus::StepFailed;
  r.failure = "solver said \"no\"\nat \\ row 3\t\x01";
  r.failed_time = std::numeric_limits<double>::quiet_NaN();
  r.wall_seconds = std::numeric_limits<double>::infinity();
  const auto j = nlohmann::json::parse(run_json(scene, r, 3, {"--set integrator.h=\"x\""}));
  CHECK(j["failure"]["message"] == r.failure);
  CHECK(j["failure"]["time"].is_null());
  CHECK(j["wall_seconds"].is_null());
  CHECK(j["overrides"][0] == "--set integrator.h=\"x\"");
}

TEST_CASE("a scene of several hundred spheres labels its HDF5 columns and restarts (attributes over 64 KiB)",
          "[apps][run]") {
  // 12 × 12 × 4 = 576 spheres: 13 columns each, ~90 KiB of column names, more than one attribute message of the
  // HDF5 1.6 object header holds (this run used to fail: "cannot write the attribute 'columns'").
  const std::string text = R"(name: many_spheres
gravity: [0.0, 0.0, -9.81]
lattices:
  - {name: bed, corner: [0.0, 0.0, 0.0], counts: [12, 12, 4], radius: 0.004, density: 2500, jitter: 0.05}
planes:
  - {name: floor, normal: [0.0, 0.0, 1.0], offset: 0.0}
contacts:
  law: {type: newton_friction, e: 0.0, mu: 0.3, dim: 3}
  detect: true
integrator: {scheme: moreau_jean, h: 1.0e-3, t_end: 0.004}
)";
  TempDir first, second, straight;
  Scene a = load_scene_from_string(text, "many_spheres.yaml");
  REQUIRE(a.model.bodies.count() == 576);
  const RunResult ra = run_scene(a, quiet_options(first.path));
  REQUIRE(ra.status == RunStatus::Completed);
  REQUIRE(ra.restart_written);
  const Table csv = read_csv(first.path / "timeseries.csv");
  const Table h5 = read_hdf5(first.path / "timeseries.h5");
  CHECK(csv.columns.size() > 576 * 13);
  CHECK(h5.columns == csv.columns);
  REQUIRE(h5.rows.size() == csv.rows.size());
  CHECK(h5.rows.back() == csv.rows.back());

  // The archive (its own `columns` attribute is as long) continues the run bit for bit.
  Scene b = load_scene_from_string(text, "many_spheres.yaml");
  b.t_end = 0.008;
  RunOptions resume = quiet_options(second.path);
  resume.restart = first.path / "restart.h5";
  REQUIRE(run_scene(b, resume).status == RunStatus::Completed);
  Scene c = load_scene_from_string(text, "many_spheres.yaml");
  c.t_end = 0.008;
  REQUIRE(run_scene(c, quiet_options(straight.path)).status == RunStatus::Completed);
  CHECK(read_csv(second.path / "timeseries.csv").rows.back() == read_csv(straight.path / "timeseries.csv").rows.back());
}

namespace {

// The point coordinates and the velocity array of a frame written by write_bodies_vtp (ASCII VTK XML).
std::vector<double> vtk_array(const fs::path& file, const std::string& name) {
  const std::string text = slurp(file);
  const auto at = text.find("Name=\"" + name + "\"");
  REQUIRE(at != std::string::npos);
  const auto begin = text.find('>', at) + 1, end = text.find("</DataArray>", begin);
  std::istringstream in(text.substr(begin, end - begin));
  std::vector<double> values;
  for (double x; in >> x;) values.push_back(x);
  return values;
}

}  // namespace

TEST_CASE("a small-path scene with rigid bodies writes ParaView frames of them, kept as one run's files",
          "[apps][run]") {
  TempDir dir;
  const fs::path cradle = fs::path(TALUS_SOURCE_DIR) / "examples" / "newtons_cradle.yaml";
  Scene scene = load_scene(cradle);
  scene.t_end = 0.05;
  scene.frame_every = 0.01;
  const RunResult r = run_scene(scene, quiet_options(dir.path));
  REQUIRE(r.status == RunStatus::Completed);
  // The initial frame and one every 0.01 s: six, indexed by time in bodies.pvd.
  CHECK(r.frames == 6);
  for (int k = 0; k < 6; ++k) CHECK(fs::exists(dir.path / ("bodies_0000" + std::to_string(k) + ".vtp")));
  CHECK(!fs::exists(dir.path / "bodies_00006.vtp"));
  const std::string pvd = slurp(dir.path / "bodies.pvd");
  CHECK(pvd.find("timestep=\"0.05") != std::string::npos);
  // The last frame is the model's final state, body by body (the thrown sphere's momentum has passed on).
  const std::vector<double> x = vtk_array(dir.path / "bodies_00005.vtp", "points");
  const std::vector<double> v = vtk_array(dir.path / "bodies_00005.vtp", "velocity");
  REQUIRE(x.size() == 15);
  for (int i = 0; i < 5; ++i)
    for (int c = 0; c < 3; ++c) {
      CHECK(x[3 * i + c] == Approx(scene.model.bodies.x[i][c]).margin(1e-12));
      CHECK(v[3 * i + c] == Approx(scene.model.bodies.v[i][c]).margin(1e-12));
    }
  CHECK(v[0] == Approx(0.0).margin(1e-9));
  CHECK(v[12] == Approx(1.0).epsilon(1e-9));
  nlohmann::json j;
  std::ifstream(dir.path / "run.json") >> j;
  CHECK(j["frames"] == 6);
  CHECK(std::find(j["files"].begin(), j["files"].end(), "bodies.pvd") != j["files"].end());

  // Overwritten by a shorter run: its own frames are kept, the earlier run's extra ones go with it.
  Scene again = load_scene(cradle);
  again.t_end = 0.02;
  again.frame_every = 0.01;
  RunOptions overwrite = quiet_options(dir.path);
  overwrite.overwrite = true;
  REQUIRE(run_scene(again, overwrite).frames == 3);
  CHECK(fs::exists(dir.path / "bodies_00002.vtp"));
  CHECK(!fs::exists(dir.path / "bodies_00003.vtp"));
  CHECK(slurp(dir.path / "bodies.pvd").find("bodies_00002.vtp") != std::string::npos);
  // The frames were staged under temporary names until the commit: none is left.
  for (const auto& e : fs::directory_iterator(dir.path)) CHECK(e.path().filename().string()[0] != '.');
  // And a folder holding frames only is an earlier run's: refused without overwrite.
  CHECK_THROWS_WITH(run_scene(again, quiet_options(dir.path)), Catch::Contains("holds an earlier run"));
}

TEST_CASE("an FE beam's frames draw its deformed centreline, tip deflection as in the time series", "[apps][run]") {
  TempDir dir;
  Scene scene = load_scene(fs::path(TALUS_SOURCE_DIR) / "examples" / "lattice_on_beam.yaml");
  scene.t_end = 0.2;  // the block has landed on the strip and bent it
  scene.frame_every = 0.1;
  const RunResult r = run_scene(scene, quiet_options(dir.path));
  REQUIRE(r.status == RunStatus::Completed);
  REQUIRE(r.frames == 3);
  // The strip: 10 elements from (−0.05, −0.12, 0.06) along x, L = 0.2, bending along z; 8 segments an element.
  const std::vector<double> x = vtk_array(dir.path / "beams_00002.vtp", "points");
  const std::vector<double> w = vtk_array(dir.path / "beams_00002.vtp", "deflection");
  REQUIRE(w.size() == 81);
  REQUIRE(x.size() == 3 * 81);
  // The clamped root does not move; the tip's deflection is the last nodal w, column cantilever.q18 of the
  // last row of timeseries.csv (written by another writer from the same state).
  CHECK(x[0] == Approx(-0.05).margin(1e-15));
  CHECK(x[2] == Approx(0.06).margin(1e-15));
  CHECK(w[0] == 0.0);
  const Table t = read_csv(dir.path / "timeseries.csv");
  const auto col = std::find(t.columns.begin(), t.columns.end(), "cantilever.q18") - t.columns.begin();
  REQUIRE(col < static_cast<long>(t.columns.size()));
  const double tip = t.rows.back()[col];
  CHECK(std::abs(tip) > 1e-6);  // the block bent the strip
  CHECK(w[80] == Approx(tip).epsilon(1e-8));
  CHECK(x[3 * 80] == Approx(0.15).margin(1e-12));
  CHECK(x[3 * 80 + 2] == Approx(0.06 + tip).epsilon(1e-8));
  // Between nodes the cubic lies between its nodal values' envelope: no point of the line jumps.
  for (int k = 1; k < 81; ++k) CHECK(std::abs(w[k] - w[k - 1]) < 0.1 * std::abs(tip) + 1e-9);
}

namespace {

// Two glass spheres (r = 1 cm) stacked on a floor, their contacts detected, under `gravity` and `law`.
std::string two_stacked_spheres(const std::string& name, const std::string& gravity, const std::string& law,
                                const std::string& rest) {
  return "name: " + name + "\ngravity: " + gravity +
         "\n"
         "spheres:\n"
         "  - {name: a, position: [0.0, 0.0, 0.01], radius: 0.01, density: 2500}\n"
         "  - {name: b, position: [0.0, 0.0, 0.03], radius: 0.01, density: 2500}\n"
         "planes:\n"
         "  - {name: floor, normal: [0.0, 0.0, 1.0], offset: 0.0}\n"
         "contacts:\n"
         "  law: " + law + "\n  detect: true\n" + rest;
}

}  // namespace

TEST_CASE("the small path's contact frames draw each pressed contact with its force", "[apps][run]") {
  // A sphere resting on a plane, and a second one resting on it: the lower contact carries both weights.
  const std::string text = two_stacked_spheres("two_on_floor", "[0.0, 0.0, -9.81]", "{type: newton, e: 0.0}",
                                               "integrator: {h: 1.0e-3, t_end: 0.05}\noutput: {frame_every: 0.05}\n");
  TempDir dir;
  Scene scene = load_scene_from_string(text, "two_on_floor.yaml");
  REQUIRE(run_scene(scene, quiet_options(dir.path)).frames == 2);
  const double m = 2500 * 4.0 / 3.0 * M_PI * 1e-6, g = 9.81;
  const std::vector<double> f = vtk_array(dir.path / "contacts_00001.vtp", "normal_force");
  const std::vector<double> x = vtk_array(dir.path / "contacts_00001.vtp", "points");
  REQUIRE(f.size() == 2);
  // Lines in the order of the interactions: floor–a (from the floor's contact point), then a–b.
  CHECK(x[2] == Approx(0.0).margin(1e-12));
  CHECK(x[5] == Approx(0.01).margin(1e-9));
  CHECK(f[0] == Approx(2 * m * g).epsilon(1e-6));
  CHECK(f[1] == Approx(m * g).epsilon(1e-6));
  // The initial frame has no impulse yet: no line.
  CHECK(vtk_array(dir.path / "contacts_00000.vtp", "normal_force").empty());
}

TEST_CASE("an FCLIB dump of a Moreau-Jean step's friction-contact problem: its solution is the step's impulses",
          "[apps][run][fclib]") {
  // Two spheres stacked on a floor under a slanted gravity: both contacts slide or stick under 3-D Coulomb.
  const std::string text =
      two_stacked_spheres("slanted_pair", "[3.0, 0.0, -9.81]", "{type: newton_friction, e: 0.0, mu: 0.2, dim: 3}",
                          "integrator: {h: 1.0e-3, t_end: 0.02, solver: nsgs, tolerance: 1.0e-12}\n");
  TempDir dir;
  Scene scene = load_scene_from_string(text, "slanted_pair.yaml");
  RunOptions o = quiet_options(dir.path / "out");
  o.dump_fclib = dir.path / "fclib";
  o.dump_step = 20;  // the last step: its impulses are the model's after the run
  const RunResult r = run_scene(scene, o);
  REQUIRE(r.status == RunStatus::Completed);
  REQUIRE(r.fclib_file == (dir.path / "fclib" / "slanted_pair_step20.hdf5").string());
  const solvers::FrictionContactProblem p = solvers::read_fclib_problem(r.fclib_file);
  REQUIRE(p.dim == 3);
  REQUIRE(p.contacts() == 2);
  CHECK(p.mu[0] == 0.2);
  // Another solver, on the file alone: accelerated projected gradient, not the run's Gauss–Seidel.
  Vector rr, u;
  solvers::ApgdParameters ap;
  ap.tolerance = 1e-11;
  ap.max_iterations = 100000;
  REQUIRE(solvers::apgd(p, rr, u, ap).converged());
  // The run's impulses of that step, contact by contact in the order of the interactions.
  std::vector<Vector> impulses;
  for (const Interaction& in : scene.model.interactions)
    if (in.impulse.size() == 3 && in.impulse[0] > 0.0) impulses.push_back(in.impulse);
  REQUIRE(impulses.size() == 2);
  const double scale = std::max(impulses[0].norm(), impulses[1].norm());
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 3; ++k) CHECK(rr[3 * c + k] == Approx(impulses[c][k]).margin(1e-7 * scale));
  // The floor contact carries both spheres' weight over the step, m g h each (to 1 %: the upper sphere slides
  // off the lower one and sinks a little).
  const double m = 2500 * 4.0 / 3.0 * M_PI * 1e-6;
  CHECK(rr[0] == Approx(2 * m * 9.81 * 1e-3).epsilon(1e-2));

  // Generalized-α has no such dump (its steps solve two problems): refused before anything is written.
  Scene ga = load_scene_from_string(text, "slanted_pair.yaml");
  ga.scheme.kind = SchemeKind::GeneralizedAlpha;
  RunOptions og = quiet_options(dir.path / "ga");
  og.dump_fclib = dir.path / "fclib_ga";
  CHECK_THROWS_WITH(run_scene(ga, og), Catch::Contains("--dump-fclib: the small path dumps moreau_jean's"));
  CHECK(!fs::exists(dir.path / "ga" / "run.json"));
}
