// Restart of single scenes (issue 12 item 4, small systems): a moreau_jean or generalized_alpha run to T and a
// run to T/2 followed by a restart to T end in bitwise-identical states and time series (and generalized-α's
// restored accelerations are shown to matter); archives are validated (finite values, sizes, the scene and
// scheme they belong to, h, the clock against the step count) with errors naming the archive and the dataset;
// schemes whose state the engine cannot restore are refused with the reason.
#include <catch2/catch.hpp>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "apps/SceneLoader.hpp"
#include "apps/RestartArchive.hpp"
#include "apps/SceneRestart.hpp"
#include "apps/SceneRun.hpp"
#include "apps/TimeSeries.hpp"
#include "engine/DofLayout.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

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

// Number of entries of the two models' states (q, v, impulses) that differ bitwise.
long count_differences(const Model& a, const Model& b) {
  const DofLayout la = make_dof_layout(a), lb = make_dof_layout(b);
  Vector qa, qb, va, vb;
  gather_coordinates(a, la, qa);
  gather_coordinates(b, lb, qb);
  gather_velocities(a, la, va);
  gather_velocities(b, lb, vb);
  long differ = 0;
  for (Index i = 0; i < std::min(qa.size(), qb.size()); ++i) differ += qa[i] != qb[i];
  for (Index i = 0; i < std::min(va.size(), vb.size()); ++i) differ += va[i] != vb[i];
  return differ;
}

LoadOptions ending_at(double t_end) {
  LoadOptions o;
  std::ostringstream t;
  t.precision(17);
  t << t_end;
  o.overrides.push_back({"test", "integrator.t_end", t.str()});
  return o;
}

// Runs the example straight to T, and to T/2 then from its restart.h5 to T.
void check_restart_is_bitwise(const std::string& name, double t_end, const std::vector<SceneOverride>& extra = {}) {
  INFO(name);
  TempDir straight, first, second;
  LoadOptions to_end = ending_at(t_end), to_half = ending_at(t_end / 2);
  for (const SceneOverride& o : extra) to_end.overrides.push_back(o), to_half.overrides.push_back(o);
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

void remove_dataset(const fs::path& file, const char* dataset) {
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  REQUIRE(H5Ldelete(f, dataset, H5P_DEFAULT) >= 0);
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
  // Spinning spheres: the store's world-frame ω is not recovered bit for bit from the archive's body-frame ω,
  // so the archive records it as well (apps/SceneRestart.cpp).
  check_restart_is_bitwise("newtons_cradle", 0.02,
                           {{"test", "spheres[0].angular_velocity", "[3.0, -2.0, 5.0]"},
                            {"test", "spheres[2].angular_velocity", "[-0.7, 4.0, 1.3]"}});
  // A nonlinear system with 2-D friction under NSGS, restarted at t = 1.005 where two corners are in contact
  // and the next solve takes 12 sweeps from its warm start.
  check_restart_is_bitwise("rocking_block", 2.01);
}

TEST_CASE("archives of format 1 still read and continue", "[apps][restart]") {
  // tests/data/restart_v1: archives talus run wrote before the one layout (apps/RestartArchive.hpp).
  const fs::path data = fs::path(TALUS_SOURCE_DIR) / "tests" / "data" / "restart_v1";
  struct Case {
    const char* scene;
    const char* archive;
    double t_end;
  };
  for (const Case& k : {Case{"two_ball_oscillator", "two_ball_oscillator_t0.1.h5", 0.2},
                        Case{"newtons_cradle", "newtons_cradle_t0.01.h5", 0.02}}) {
    INFO(k.scene);
    TempDir straight, resumed;
    const fs::path file = kExamples / (std::string(k.scene) + ".yaml");
    Scene a = load_scene(file, ending_at(k.t_end));
    REQUIRE(run_scene(a, quiet(straight.path)).status == RunStatus::Completed);
    Scene c = load_scene(file, ending_at(k.t_end));
    RunOptions resume = quiet(resumed.path);
    resume.restart = data / k.archive;
    const RunResult rc = run_scene(c, resume);
    REQUIRE(rc.status == RunStatus::Completed);
    CHECK(rc.first_step == planned_steps(a) / 2);
    // The archive's state is what the reader restores, whatever the engine does with it afterwards.
    {
      Scene r = load_scene(file, ending_at(k.t_end));
      read_scene_restart(data / k.archive, r, TimeSeries(r).columns());
      const DofLayout layout = make_dof_layout(r.model);
      Vector q, v;
      gather_coordinates(r.model, layout, q);
      gather_velocities(r.model, layout, v);
      const hid_t f = H5Fopen((data / k.archive).string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      REQUIRE(f >= 0);
      for (const auto& [name, x] : {std::pair<const char*, const Vector*>{"q", &q}, {"v", &v}}) {
        Vector stored(x->size());
        const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
        REQUIRE(d >= 0);
        H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, stored.data());
        H5Dclose(d);
        CHECK(stored == *x);
      }
      H5Fclose(f);
    }
    // Written by the engine of commit b3ce05a: the same steps, so the same bits while these schemes are unchanged.
    // (A change that moves these trajectories breaks this line, not the reading above: compare to a tolerance.)
    check_same_state(a.model, c.model);
    // And a resumed run writes the one layout.
    const hid_t f = H5Fopen((resumed.path / kRestartFile).string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    const ArchiveHeader h = read_header(f, resumed.path / kRestartFile);
    H5Fclose(f);
    CHECK(h.format == kRestartFormat);
    CHECK(h.path == "small");
    CHECK(h.scene == k.scene);
  }
  // Format 1 archives written before the small path's bodies moved to RigidBodies lack the world-frame ω: the
  // body-frame ω, rotated, gives it back up to round-off.
  TempDir straight, dir, resumed;
  const fs::path archive = dir.path / "old.h5";
  fs::create_directories(dir.path);
  fs::copy_file(data / "newtons_cradle_t0.01.h5", archive);
  remove_dataset(archive, "rigid_angular_velocity_world");
  const fs::path file = kExamples / "newtons_cradle.yaml";
  Scene a = load_scene(file, ending_at(0.02));
  REQUIRE(run_scene(a, quiet(straight.path)).status == RunStatus::Completed);
  Scene c = load_scene(file, ending_at(0.02));
  RunOptions resume = quiet(resumed.path);
  resume.restart = archive;
  REQUIRE(run_scene(c, resume).status == RunStatus::Completed);
  for (int k = 0; k < a.model.bodies.count(); ++k) {
    CHECK((c.model.bodies.x[k] - a.model.bodies.x[k]).norm() <= 1e-15);
    CHECK((c.model.bodies.w[k] - a.model.bodies.w[k]).norm() <= 1e-13 * (1.0 + a.model.bodies.w[k].norm()));
  }
}

TEST_CASE("detected contacts are archived with their impulses: an iterative solve continues bit for bit",
          "[apps][restart]") {
  // 1 024 beads falling on an FE cantilever, every contact found by the detection stage, 3-D friction solved by
  // NSGS to 1e-6: each solve starts from the contacts' last impulses, so a restart that lost them would take other
  // sweeps (checked below by removing them from the archive).
  const std::vector<SceneOverride> loose = {{"test", "integrator.tolerance", "1e-6"}, {"test", "output.every", "1"}};
  constexpr double kT = 0.22, kHalf = 0.2;
  const fs::path file = kExamples / "beam_pile.yaml";
  TempDir straight, first, warm, cold;
  LoadOptions to_end = ending_at(kT), to_half = ending_at(kHalf);
  for (const SceneOverride& o : loose) to_end.overrides.push_back(o), to_half.overrides.push_back(o);
  Scene a = load_scene(file, to_end);
  REQUIRE(run_scene(a, quiet(straight.path)).status == RunStatus::Completed);
  Scene b = load_scene(file, to_half);
  REQUIRE(run_scene(b, quiet(first.path)).restart_written);
  const std::size_t detected = b.model.interactions.size() - b.model.listed_interactions();
  CHECK(detected > 100);
  const auto resume_from = [&](const fs::path& archive, const fs::path& out) {
    Scene c = load_scene(file, to_end);
    RunOptions o = quiet(out);
    o.restart = archive;
    REQUIRE(run_scene(c, o).status == RunStatus::Completed);
    return c;
  };
  // The rows of the time series after the restart (solver sweeps and residuals included) are the straight run's.
  const auto rows_after = [&](const fs::path& csv) {
    std::ifstream in(csv);
    std::vector<std::string> rows;
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != 't' && std::stod(line.substr(0, line.find(','))) > kHalf + 1e-9) rows.push_back(line);
    return rows;
  };
  const Scene c = resume_from(first.path / kRestartFile, warm.path);
  check_same_state(a.model, c.model);
  const std::vector<std::string> expected = rows_after(straight.path / "timeseries.csv");
  REQUIRE(expected.size() == 20);
  CHECK(rows_after(warm.path / "timeseries.csv") == expected);
  // Without them the first solve starts cold: other sweeps, another state.
  const fs::path stripped = first.path / "cold.h5";
  fs::copy_file(first.path / kRestartFile, stripped);
  remove_dataset(stripped, "contacts");
  const Scene d = resume_from(stripped, cold.path);
  CHECK(count_differences(a.model, d.model) > 0);
  CHECK(rows_after(cold.path / "timeseries.csv") != expected);
}

namespace {

// Largest number of active interactions over the time-series rows between t0 and t1.
int max_active(const fs::path& csv, double t0, double t1) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) head.push_back(c);
  const auto col = std::find(head.begin(), head.end(), "active") - head.begin();
  int best = -1;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    if (cells.size() != head.size()) continue;
    const double t = std::stod(cells[0]);
    if (t >= t0 && t <= t1) best = std::max(best, std::stoi(cells[static_cast<std::size_t>(col)]));
  }
  return best;
}

}  // namespace

TEST_CASE("a generalized_alpha run to T and a run to T/2 + restart to T are bitwise identical", "[apps][restart]") {
  // The two-ball oscillator (LTI, e = 1, h = 2 ms) restarted at T/2 = 0.984 s (step 492), one step before an
  // impact of the lower ball at t = 0.986 s (the check below makes sure a contact is active in the steps around
  // the restart), then run on through the next impacts to T = 1.968 s.
  constexpr double kT = 1.968;
  check_restart_is_bitwise("two_ball_oscillator", kT);
  // Rigid bodies on revolute joints, stepped on the Lie group (quaternions): the positions are retracted from the
  // restored q_n as in a straight run.
  check_restart_is_bitwise("pendulum_joint", 1.0);
  // Beads with 3-D Coulomb friction, spinning: the scheme integrates the body-frame ω, which the model holds rotated
  // to the world frame (Rᵀ R ω ≠ ω at round-off), so the archive keeps the scheme's own velocities (/systems/v).
  // Before it did, this continuation differed by 2e-13 m/s at T.
  check_restart_is_bitwise("paddle_beads", 0.4,
                           {{"test", "integrator.scheme", "generalized_alpha"},
                            {"test", "contacts.law.type", "newton_friction"},
                            {"test", "contacts.law.mu", "0.3"},
                            {"test", "contacts.law.dim", "3"}});
  {
    TempDir dir;
    Scene s = load_scene(kExamples / "two_ball_oscillator.yaml", ending_at(kT));
    s.output_every = 1;
    REQUIRE(run_scene(s, quiet(dir.path)).status == RunStatus::Completed);
    const double h = s.integrator.h;
    CHECK(max_active(dir.path / "timeseries.csv", kT / 2 - 1.5 * h, kT / 2 + 1.5 * h) >= 1);
  }

  // The same restart with the accelerations NOT given back (a new integrator recomputes a₀ = ṽ̇₀ from (q, v),
  // as before this archive held them) ends elsewhere: the restored a_n and ṽ̇_n are what makes it bitwise.
  TempDir straight, first, second;
  const fs::path file = kExamples / "two_ball_oscillator.yaml";
  Scene a = load_scene(file, ending_at(kT));
  REQUIRE(run_scene(a, quiet(straight.path)).status == RunStatus::Completed);
  Scene b = load_scene(file, ending_at(kT / 2));
  REQUIRE(run_scene(b, quiet(first.path)).restart_written);
  Scene c = load_scene(file, ending_at(kT));
  RunOptions resume = quiet(second.path);
  resume.restart = first.path / kRestartFile;
  NonsmoothGeneralizedAlphaParameters p;
  p.h = c.integrator.h;
  p.newton_tolerance = c.integrator.newton_tolerance;
  p.newton_max_iterations = c.integrator.newton_max_iterations;
  p.coefficients = generalized_alpha_coefficients(c.scheme.rho_infinity);
  std::unique_ptr<NonsmoothGeneralizedAlpha> fresh;  // built at the first step, on the restored model
  const RunResult rc = run_scene(c, resume, [&]() -> const StepReport& {
    if (!fresh) fresh = std::make_unique<NonsmoothGeneralizedAlpha>(c.model, p);
    return fresh->step();
  });
  REQUIRE(rc.status == RunStatus::Completed);
  CHECK(c.model.time == a.model.time);
  CHECK(count_differences(a.model, c.model) > 0);
  CHECK(!rc.restart_written);  // a stepper that cannot give its accelerations writes no archive

  // The engine's entry point refuses accelerations of the wrong size or not finite.
  NonsmoothGeneralizedAlpha ga(c.model, p);
  const Vector ok = ga.acceleration();
  CHECK_THROWS_AS(ga.restore_accelerations(Vector::Zero(ok.size() + 1), ok), std::invalid_argument);
  Vector nan = ok;
  nan[0] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(ga.restore_accelerations(ok, nan), Catch::Contains("smooth acceleration entry 0 is not finite"));
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
  set_double(bad, "systems/q", 0, std::numeric_limits<double>::quiet_NaN());
  CHECK(restart_error("bouncing_ball", bad) == prefix + ": dataset /systems/q: row 0 is nan (expected a finite number)");

  bad = copy("x.h5");
  set_double(bad, "clock", 0, -1.0);
  CHECK(restart_error("bouncing_ball", bad) == prefix + ": dataset /clock: time is -1 (expected a time >= 0)");

  bad = copy("x.h5");
  set_double(bad, "clock", 0, 1e9);
  CHECK(restart_error("bouncing_ball", bad).rfind(prefix + ": dataset /clock: time is 1e+09 after 1000 steps", 0) == 0);

  bad = copy("x.h5");
  set_double(bad, "step_size", 0, 2e-3);
  CHECK(restart_error("bouncing_ball", bad).rfind(prefix + ": dataset /step_size: is 0.002 (expected the scene's h = 0.001", 0) == 0);

  bad = copy("x.h5");
  resize_dataset(bad, "systems/v", 3);
  CHECK(restart_error("bouncing_ball", bad) ==
        prefix + ": dataset /systems/v: has shape 3 (expected 1: one per velocity of the scene)");

  bad = copy("x.h5");
  resize_dataset(bad, "interactions/impulse", 0);
  CHECK(restart_error("bouncing_ball", bad).rfind(prefix + ": dataset /interactions/impulse: has shape 0", 0) == 0);

  // Another scene's archive, a file that is not HDF5, a missing file.
  CHECK(restart_error("linear_oscillator", good).find("dataset /columns: names other systems or interactions") !=
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

TEST_CASE("generalized_alpha archives are checked for their scheme and accelerations", "[apps][restart]") {
  TempDir dir;
  Scene two = load_scene(kExamples / "two_ball_oscillator.yaml", ending_at(0.1));
  REQUIRE(run_scene(two, quiet(dir.path)).restart_written);
  const fs::path good = dir.path / kRestartFile;
  const std::string prefix = "restart archive " + (dir.path / "x.h5").string();
  const auto copy = [&]() {
    const fs::path p = dir.path / "x.h5";
    fs::copy_file(good, p, fs::copy_options::overwrite_existing);
    return p;
  };
  fs::path bad = copy();
  remove_dataset(bad, "generalized_alpha/acceleration");
  CHECK(restart_error("two_ball_oscillator", bad) == prefix + ": dataset /generalized_alpha/acceleration: missing");
  bad = copy();
  set_double(bad, "generalized_alpha/smooth_acceleration", 1, std::numeric_limits<double>::infinity());
  CHECK(restart_error("two_ball_oscillator", bad) ==
        prefix + ": dataset /generalized_alpha/smooth_acceleration: row 1 is inf (expected a finite number)");
  bad = copy();
  resize_dataset(bad, "generalized_alpha/acceleration", 1);
  CHECK(restart_error("two_ball_oscillator", bad) ==
        prefix + ": dataset /generalized_alpha/acceleration: has shape 1 (expected 2: the acceleration-like "
                 "variable a_n, one per velocity of the scene)");
  // The same scene under another scheme: refused on the scheme, before anything else.
  Scene mj = load_scene(kExamples / "two_ball_oscillator.yaml", ending_at(0.2));
  mj.scheme.kind = SchemeKind::MoreauJean;
  TempDir out;
  RunOptions o = quiet(out.path);
  o.restart = good;
  CHECK_THROWS_WITH(run_scene(mj, o), Catch::Contains("attribute /@scheme: is generalized_alpha (expected the scheme of") &&
                                          Catch::Contains("moreau_jean: a restart continues with the scheme"));
  // The same scheme under other settings (ρ∞, the Newton tolerance) would take other steps: refused, naming both.
  Scene other_rho = load_scene(kExamples / "two_ball_oscillator.yaml", ending_at(0.2));
  other_rho.scheme.rho_infinity = 0.5;
  CHECK_THROWS_WITH(run_scene(other_rho, o), Catch::Contains("attribute /@settings: is 'generalized_alpha rho_infinity=0.80") &&
                                                 Catch::Contains("rho_infinity=0.5 newton_tolerance=") &&
                                                 Catch::Contains("a restart continues with the settings it was written with"));
  Scene other_newton = load_scene(kExamples / "two_ball_oscillator.yaml", ending_at(0.2));
  other_newton.integrator.newton_tolerance = 1e-6;
  CHECK_THROWS_WITH(run_scene(other_newton, o), Catch::Contains("attribute /@settings"));
  Scene same = load_scene(kExamples / "two_ball_oscillator.yaml", ending_at(0.2));
  CHECK(run_scene(same, o).status == RunStatus::Completed);
}

TEST_CASE("newmark, hht and schatzman_paoli runs restart bit for bit", "[apps][restart]") {
  // The two-ball oscillator (LTI, e = 1) under each scheme, restarted at T/2 = 0.984 s (one step before an impact)
  // and run on through the next impacts: the archive's /<scheme> group gives the scheme the vectors it carries
  // (apps/SceneRestart.hpp carried_vectors), so the time series' last rows agree to the last digit, energy terms
  // included.
  constexpr double kT = 1.968;
  const fs::path file = kExamples / "two_ball_oscillator.yaml";
  for (const SchemeKind kind : {SchemeKind::Newmark, SchemeKind::Hht, SchemeKind::SchatzmanPaoli}) {
    INFO(to_string(kind));
    const auto scene = [&](double t_end) {
      Scene s = load_scene(file, ending_at(t_end));
      s.scheme.kind = kind;
      return s;
    };
    TempDir straight, first, second, third;
    Scene a = scene(kT);
    REQUIRE(run_scene(a, quiet(straight.path)).status == RunStatus::Completed);
    Scene b = scene(kT / 2);
    REQUIRE(run_scene(b, quiet(first.path)).restart_written);
    Scene c = scene(kT);
    RunOptions resume = quiet(second.path);
    resume.restart = first.path / kRestartFile;
    REQUIRE(run_scene(c, resume).status == RunStatus::Completed);
    check_same_state(a.model, c.model);
    CHECK(last_line(straight.path / "timeseries.csv") == last_line(second.path / "timeseries.csv"));
    // The carried vectors are what makes it bitwise: with the first one zeroed (a_n, or q_{n−1}) the run ends
    // elsewhere.
    const fs::path altered = first.path / "altered.h5";
    fs::copy_file(first.path / kRestartFile, altered);
    const std::string first_vector = std::string(to_string(kind)) + "/" + carried_vectors(kind).front().name;
    for (std::size_t i = 0; i < 2; ++i) set_double(altered, first_vector.c_str(), i, 0.0);
    Scene d = scene(kT);
    RunOptions from_altered = quiet(third.path);
    from_altered.restart = altered;
    REQUIRE(run_scene(d, from_altered).status == RunStatus::Completed);
    CHECK(count_differences(a.model, d.model) > 0);
    // Another scheme's archive is refused on the scheme.
    Scene e = scene(kT);
    e.scheme.kind = kind == SchemeKind::Newmark ? SchemeKind::Hht : SchemeKind::Newmark;
    TempDir out;
    RunOptions wrong = quiet(out.path);
    wrong.restart = first.path / kRestartFile;
    CHECK_THROWS_WITH(run_scene(e, wrong), Catch::Contains("attribute /@scheme: is " + std::string(to_string(kind))));
  }
}

TEST_CASE("schemes whose state the engine cannot restore refuse a restart and say why", "[apps][restart]") {
  TempDir dir;
  Scene ga = load_scene(kExamples / "two_ball_oscillator.yaml", ending_at(0.1));
  REQUIRE(run_scene(ga, quiet(dir.path)).restart_written);
  Scene s = load_scene(kExamples / "two_ball_oscillator.yaml");
  s.scheme.kind = SchemeKind::EventDriven;
  TempDir out;
  RunOptions o = quiet(out.path);
  o.restart = dir.path / kRestartFile;
  CHECK_THROWS_WITH(run_scene(s, o), Catch::Contains("scheme event_driven keeps its DAE integrator's step-size history") &&
                                         Catch::Contains("the fixed-step schemes (moreau_jean, newmark, hht, "
                                                         "generalized_alpha, schatzman_paoli) restart bit for bit"));
  // And it writes no archive a restart could not honour.
  Scene shorter = load_scene(kExamples / "two_ball_oscillator.yaml", ending_at(0.1));
  shorter.scheme.kind = SchemeKind::EventDriven;
  TempDir run_dir;
  const RunResult r = run_scene(shorter, quiet(run_dir.path));
  CHECK(!r.restart_written);
  CHECK(!fs::exists(run_dir.path / kRestartFile));
}
