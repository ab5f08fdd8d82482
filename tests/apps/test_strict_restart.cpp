// Restart of single scenes (issue 12 item 4, small systems): a moreau_jean run to T and a run to T/2 followed
// by a restart to T end in bitwise-identical states and time series; archives are validated (finite values,
// sizes, the scene they belong to, h, the clock against the step count) with errors naming the archive and
// the dataset; schemes whose state lives inside the integrator are refused with the reason.
#include <catch2/catch.hpp>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "apps/SceneLoader.hpp"
#include "apps/SceneRestart.hpp"
#include "apps/SceneRun.hpp"
#include "engine/DofLayout.hpp"

using namespace talus;
using namespace talus::app;
namespace fs = std::filesystem;

namespace {

const fs::path kExamples = fs::path(TALUS_SOURCE_DIR) / "examples";

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("talus_restart_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

RunOptions quiet(const fs::path& dir) {
  RunOptions o;
  o.out_dir = dir;
  return o;
}

std::string last_line(const fs::path& csv) {
  std::ifstream in(csv);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// Everything the next step reads, compared bit for bit.
void check_same_state(const Model& a, const Model& b) {
  const DofLayout la = make_dof_layout(a), lb = make_dof_layout(b);
  Vector qa, qb, va, vb;
  gather_coordinates(a, la, qa);
  gather_coordinates(b, lb, qb);
  gather_velocities(a, la, va);
  gather_velocities(b, lb, vb);
  CHECK(a.time == b.time);
  REQUIRE(qa.size() == qb.size());
  long differ = 0;
  for (Index i = 0; i < qa.size(); ++i) differ += qa[i] != qb[i];
  for (Index i = 0; i < va.size(); ++i) differ += va[i] != vb[i];
  for (std::size_t i = 0; i < a.interactions.size(); ++i) {
    const Vector &pa = a.interactions[i].impulse, &pb = b.interactions[i].impulse;
    REQUIRE(pa.size() == pb.size());
    for (Index k = 0; k < pa.size(); ++k) differ += pa[k] != pb[k];
  }
  CHECK(differ == 0);
}

// Runs the example straight to T, and to T/2 then from its restart.h5 to T.
void check_restart_is_bitwise(const std::string& name, double t_end) {
  INFO(name);
  TempDir straight, first, second;
  LoadOptions to_end, to_half;
  std::ostringstream te, th;
  te.precision(17), th.precision(17);
  te << t_end, th << t_end / 2;
  to_end.overrides.push_back({"test", "integrator.t_end", te.str()});
  to_half.overrides.push_back({"test", "integrator.t_end", th.str()});
  const fs::path file = kExamples / (name + ".yaml");

  Scene a = load_scene(file, to_end);
  REQUIRE(run_scene(a, quiet(straight.path)).status == RunStatus::Completed);
  Scene b = load_scene(file, to_half);
  const RunResult rb = run_scene(b, quiet(first.path));
  REQUIRE(rb.status == RunStatus::Completed);
  REQUIRE(rb.restart_written);
  REQUIRE(fs::exists(first.path / kRestartFile));
  Scene c = load_scene(file, to_end);
  RunOptions resume = quiet(second.path);
  resume.restart = first.path / kRestartFile;
  const RunResult rc = run_scene(c, resume);
  REQUIRE(rc.status == RunStatus::Completed);
  CHECK(rc.first_step == rb.steps);
  CHECK(rc.steps == planned_steps(a));

  check_same_state(a.model, c.model);
  // The time series' last rows (state, impulses, energies and their running sums) agree to the last digit.
  CHECK(last_line(straight.path / "timeseries.csv") == last_line(second.path / "timeseries.csv"));
}

void set_double(const fs::path& file, const char* dataset, std::size_t index, double value) {
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t space = H5Dget_space(d);
  std::vector<double> x(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
  x.at(index) = value;
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
}

void resize_dataset(const fs::path& file, const char* dataset, std::size_t n) {
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  REQUIRE(H5Ldelete(f, dataset, H5P_DEFAULT) >= 0);
  const hsize_t dims = n;
  const hid_t space = H5Screate_simple(1, &dims, nullptr);
  const hid_t d = H5Dcreate2(f, dataset, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  std::vector<double> zeros(n, 0.0);
  if (n) H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data());
  H5Dclose(d);
  H5Sclose(space);
  H5Fclose(f);
}

std::string restart_error(const std::string& name, const fs::path& archive) {
  Scene s = load_scene(kExamples / (name + ".yaml"));
  TempDir out;
  RunOptions o = quiet(out.path);
  o.restart = archive;
  try {
    run_scene(s, o);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("a moreau_jean run to T and a run to T/2 + restart to T are bitwise identical", "[apps][restart]") {
  check_restart_is_bitwise("bouncing_ball", 2.0);      // LTI, Lemke, impacts and a resting phase
  check_restart_is_bitwise("newtons_cradle", 0.02);    // rigid spheres (quaternions), a row of contacts
  // A nonlinear system with 2-D friction under NSGS, restarted at t = 1.005 where two corners are in contact
  // and the next solve takes 12 sweeps from its warm start.
  check_restart_is_bitwise("rocking_block", 2.01);
}

TEST_CASE("corrupt or foreign restart archives are refused naming the archive and the dataset", "[apps][restart]") {
  TempDir dir;
  Scene s = load_scene(kExamples / "bouncing_ball.yaml");
  s.t_end = 1.0;
  REQUIRE(run_scene(s, quiet(dir.path)).restart_written);
  const fs::path good = dir.path / kRestartFile;
  const auto copy = [&](const char* name) {
    const fs::path p = dir.path / name;
    fs::copy_file(good, p, fs::copy_options::overwrite_existing);
    return p;
  };
  const std::string prefix = "restart archive " + (dir.path / "x.h5").string();

  fs::path bad = copy("x.h5");
  set_double(bad, "q", 0, std::numeric_limits<double>::quiet_NaN());
  CHECK(restart_error("bouncing_ball", bad) == prefix + ": dataset 'q': value 0 is not finite");

  bad = copy("x.h5");
  set_double(bad, "time", 0, -1.0);
  CHECK(restart_error("bouncing_ball", bad) == prefix + ": dataset 'time': is -1 (expected a time >= 0)");

  bad = copy("x.h5");
  set_double(bad, "time", 0, 1e9);
  CHECK(restart_error("bouncing_ball", bad).rfind(prefix + ": dataset 'time': is 1e+09 after 1000 steps", 0) == 0);

  bad = copy("x.h5");
  set_double(bad, "h", 0, 2e-3);
  CHECK(restart_error("bouncing_ball", bad).rfind(prefix + ": dataset 'h': is 0.002 (expected the scene's h = 0.001", 0) == 0);

  bad = copy("x.h5");
  resize_dataset(bad, "v", 3);
  CHECK(restart_error("bouncing_ball", bad) ==
        prefix + ": dataset 'v': has 3 values (expected 1: one per velocity of the scene)");

  bad = copy("x.h5");
  resize_dataset(bad, "interactions/impulse", 0);
  CHECK(restart_error("bouncing_ball", bad).rfind(prefix + ": dataset 'interactions/impulse': has 0 values", 0) == 0);

  // Another scene's archive, a file that is not HDF5, a missing file.
  CHECK(restart_error("linear_oscillator", good).find("dataset '/@columns': names other systems or interactions") !=
        std::string::npos);
  std::ofstream(dir.path / "text.h5") << "not hdf5";
  CHECK(restart_error("bouncing_ball", dir.path / "text.h5") ==
        "restart archive " + (dir.path / "text.h5").string() + ": is not an HDF5 file");
  CHECK(restart_error("bouncing_ball", dir.path / "none.h5") ==
        "restart archive " + (dir.path / "none.h5").string() + ": no such file");
  // An archive at or past t_end leaves nothing to run.
  Scene shorter = load_scene(kExamples / "bouncing_ball.yaml");
  shorter.t_end = 0.5;
  TempDir out;
  RunOptions o = quiet(out.path);
  o.restart = good;
  CHECK_THROWS_WITH(run_scene(shorter, o), Catch::Contains("expected a time before t_end = 0.5"));
}

TEST_CASE("schemes that keep state inside the integrator refuse a restart and say why", "[apps][restart]") {
  TempDir dir;
  Scene mj = load_scene(kExamples / "bouncing_ball.yaml");
  mj.t_end = 0.1;
  REQUIRE(run_scene(mj, quiet(dir.path)).restart_written);
  const std::string ga = restart_error("two_ball_oscillator", dir.path / kRestartFile);
  CHECK(ga.find("scheme generalized_alpha keeps part of its state") != std::string::npos);
  CHECK(ga.find("only moreau_jean scenes restart bit for bit") != std::string::npos);
  // And they write no archive a restart could not honour.
  TempDir ga_dir;
  Scene two = load_scene(kExamples / "two_ball_oscillator.yaml");
  two.t_end = 0.1;
  const RunResult r = run_scene(two, quiet(ga_dir.path));
  CHECK(!r.restart_written);
  CHECK(!fs::exists(ga_dir.path / kRestartFile));
}
