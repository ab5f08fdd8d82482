// Restart bit for bit (issue 12 item 4): a granular run to T and a run to T/2 + restart to T end with the same
// bits, because restart.h5 holds everything the next step reads — the bodies, the clock (the step counter
// decides the Morton re-sorts), the solver's warm start (contact caches) and the runner's counters (the
// perturbed stack's ball is not dropped twice). Without the caches the continuation differs (checked, so that
// the comparison can fail). Corrupt archives are refused with the file and the dataset named.
#include <catch2/catch.hpp>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "apps/GranularSceneFile.hpp"
#include "apps/SceneRun.hpp"
#include "tests/apps/GranularFileRun.hpp"
#include "apps/SceneLoader.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/SameBits.hpp"

using namespace talus::granular;
using talus::Model;
using namespace talus::app;
namespace fs = std::filesystem;

namespace {

using talus::test::same_bits;

fs::path scratch_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("talus_granular_restart_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

int run(const fs::path& scene, const fs::path& out, std::vector<std::string> sets) {
  std::ostringstream log;
  return talus::test::run_granular_file(scene, sets, talus::test::quiet_run(out, log));
}

struct Final {
  Model model;
  RestartExtras extras;
};
Final final_state(const fs::path& archive) {
  Final f;
  read_restart(archive, f.model, &f.extras);
  return f;
}

// A run of `scene` with `sets` straight to t_end, one to t_half, and that one's archive continued to t_end (in
// dir/straight, dir/first and dir/second): the three final archives.
struct Restarted {
  Final straight, half, restarted;
};
Restarted straight_and_restarted(const fs::path& scene, const fs::path& dir, const std::vector<std::string>& sets,
                                 const std::string& t_half, const std::string& t_end) {
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> s = sets;
    s.insert(s.end(), more.begin(), more.end());
    return s;
  };
  REQUIRE(run(scene, dir / "straight", with({"t_end=" + t_end})) == 0);
  REQUIRE(run(scene, dir / "first", with({"t_end=" + t_half})) == 0);
  REQUIRE(run(scene, dir / "second", with({"t_end=" + t_end, "restart=" + (dir / "first" / "restart.h5").string()})) == 0);
  return {final_state(dir / "straight" / "restart.h5"), final_state(dir / "first" / "restart.h5"),
          final_state(dir / "second" / "restart.h5")};
}

void require_same(const Final& a, const Final& b) {
  REQUIRE(a.model.bodies.spheres() == b.model.bodies.spheres());
  CHECK(a.model.time == b.model.time);
  CHECK(a.model.step == b.model.step);
  CHECK(same_bits(a.model.bodies.id, b.model.bodies.id));
  CHECK(same_bits(a.model.bodies.x, b.model.bodies.x));
  CHECK(same_bits(a.model.bodies.v, b.model.bodies.v));
  CHECK(same_bits(a.model.bodies.w, b.model.bodies.w));
  CHECK(same_bits(a.extras.cache.keys, b.extras.cache.keys));
  CHECK(same_bits(a.extras.cache.impulses, b.extras.cache.impulses));
}

}  // namespace

TEST_CASE("a granular run to T and a run to T/2 plus a restart to T end bitwise equal", "[apps][granular][restart]") {
  const fs::path dir = scratch_dir("bitwise");
  const fs::path scene = fs::path(TALUS_SOURCE_DIR) / "examples" / "bead_stack.yaml";
  // 300 beads fall and pile up (contacts from about step 60 on); re-sorts every 25 steps, one of them after the
  // restart at step 120; T/2 is not a frame time.
  const auto [straight, half, restarted] =
      straight_and_restarted(scene, dir, {"n=300", "resort_every=25", "frame_every=0.05"}, "0.12", "0.24");
  REQUIRE(half.extras.has_contacts);
  REQUIRE(half.extras.cache.keys.size() > 300);  // the pile is in contact at T/2: the warm start matters
  CHECK(half.model.step == 120);
  CHECK(straight.model.step == 240);
  require_same(straight, restarted);

  // The same continuation without the warm start (cold first step) ends elsewhere: the comparison can fail.
  Model cold = half.model;
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-4;
  p.resort_every = 25;
  GranularStepper stepper(cold, p);
  while (cold.step < 240) REQUIRE(stepper.step().solver.converged());
  CHECK(cold.time == straight.model.time);
  CHECK_FALSE(same_bits(cold.bodies.x, straight.model.bodies.x));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a generalized-α run restarted at T/2 ends bitwise as the straight run, its position caches archived",
          "[apps][granular][restart]") {
  const fs::path dir = scratch_dir("bitwise_ga");
  const fs::path scene = fs::path(TALUS_SOURCE_DIR) / "examples" / "bead_stack.yaml";
  const auto [straight, half, restarted] = straight_and_restarted(
      scene, dir, {"n=200", "resort_every=25", "frame_every=0.05", "scheme=generalized_alpha"}, "0.1", "0.2");
  REQUIRE(half.extras.has_position_cache);
  REQUIRE(half.extras.position_cache.keys.size() > 200);
  require_same(straight, restarted);
  CHECK(same_bits(straight.extras.position_cache.keys, restarted.extras.position_cache.keys));
  CHECK(same_bits(straight.extras.position_cache.impulses, restarted.extras.position_cache.impulses));

  // Without the position caches (velocity caches only) the continuation ends elsewhere.
  Model cold = half.model;
  GranularParameters p;
  p.scheme = GranularScheme::GeneralizedAlpha;
  p.resort_every = 25;
  GranularStepper stepper(cold, p);
  half.extras.cache.load_into(stepper.contact_cache());
  while (cold.step < straight.model.step) REQUIRE(stepper.step().solver.converged());
  CHECK_FALSE(same_bits(cold.bodies.x, straight.model.bodies.x));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a restart after the perturbed stack's drop does not drop the ball again", "[apps][granular][restart]") {
  const fs::path dir = scratch_dir("drop");
  {
    std::ofstream y(dir / "scene.yaml");
    y << "granular:\n  scene: perturbed_stack\n  n: 64\n  drop_time: 0.02\n  impact_speed: 1.0\n  frame_every: 1\n";
  }
  REQUIRE(run(dir / "scene.yaml", dir / "straight", {"t_end=0.06"}) == 0);
  REQUIRE(run(dir / "scene.yaml", dir / "first", {"t_end=0.03"}) == 0);
  REQUIRE(run(dir / "scene.yaml", dir / "second", {"t_end=0.06", "restart=" + (dir / "first" / "restart.h5").string()}) == 0);
  const Final straight = final_state(dir / "straight" / "restart.h5");
  const Final half = final_state(dir / "first" / "restart.h5");
  CHECK(half.extras.counters.dropped);
  CHECK(straight.model.bodies.spheres() == 65);
  require_same(straight, final_state(dir / "second" / "restart.h5"));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a silo with capsules restarted during its outflow ends bitwise as the straight run", "[apps][granular][restart]") {
  const fs::path dir = scratch_dir("silo");
  {
    std::ofstream y(dir / "scene.yaml");
    y << "granular:\n  scene: silo\n  n: 125\n  orifice_diameters: 4\n  capsule_fraction: 0.2\n  frame_every: 1\n";
  }
  // Beads leave from t = 0.15 s: the restart at 0.2 s falls in the outflow.
  REQUIRE(run(dir / "scene.yaml", dir / "straight", {"t_end=0.3"}) == 0);
  REQUIRE(run(dir / "scene.yaml", dir / "first", {"t_end=0.2"}) == 0);
  REQUIRE(run(dir / "scene.yaml", dir / "second", {"t_end=0.3", "restart=" + (dir / "first" / "restart.h5").string()}) == 0);
  const Final straight = final_state(dir / "straight" / "restart.h5");
  const Final half = final_state(dir / "first" / "restart.h5");
  const Final restarted = final_state(dir / "second" / "restart.h5");
  REQUIRE(half.extras.counters.removed > 0);
  REQUIRE(straight.extras.counters.removed > half.extras.counters.removed);
  REQUIRE(std::count_if(half.extras.cache.keys.begin(), half.extras.cache.keys.end(), [](talus::contact::ContactKey k) {
            return talus::contact::key_touches(k, talus::contact::KeyBody::Capsule);
          }) > 0);
  require_same(straight, restarted);
  const talus::RigidBodies &a = straight.model.bodies, &b = restarted.model.bodies;
  REQUIRE(a.capsules() > 0);
  CHECK(same_bits(a.id, b.id));
  CHECK(same_bits(a.x, b.x));
  CHECK(same_bits(a.v, b.v));
  CHECK(same_bits(a.w, b.w));
  CHECK(same_bits(a.q, b.q));
  // The outflow count and history go on from the archive's.
  CHECK(straight.extras.counters.removed == restarted.extras.counters.removed);
  CHECK(straight.extras.counters.discharge == restarted.extras.counters.discharge);
  fs::remove_all(dir.parent_path());
}

namespace {

// Replaces dataset `name` of the archive by `values` shaped rows × cols (cols 1: rank 1).
void replace_dataset(const fs::path& file, const char* name, const std::vector<double>& values, hsize_t rows, hsize_t cols) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  REQUIRE(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
  const hsize_t dims[2] = {rows, cols};
  const hid_t space = H5Screate_simple(cols == 1 ? 1 : 2, dims, nullptr);
  const hid_t d = H5Dcreate2(f, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(d >= 0);
  if (rows > 0) REQUIRE(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  H5Dclose(d);
  H5Sclose(space);
  H5Fclose(f);
}

std::vector<double> dataset(const fs::path& file, const char* name) {
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  std::vector<double> v(H5Sget_simple_extent_npoints(space));
  if (!v.empty()) H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return v;
}

std::string read_error(const fs::path& file) {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  try {
    read_restart(file, m);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("corrupt restart archives are refused naming the archive and the dataset", "[apps][granular][restart]") {
  const fs::path dir = scratch_dir("corrupt");
  BeadSpec spec;
  spec.n = 27;
  GranularScene sc = bead_stack(spec);
  GranularParameters p;
  GranularStepper stepper(sc.model, p);
  for (int k = 0; k < 80; ++k) REQUIRE(stepper.step().solver.converged());
  REQUIRE(stepper.contact_cache().size() > 0);
  const fs::path good = dir / "good.h5";
  RunCounters counters;
  const StepperArchive state = stepper_archive(stepper);
  write_restart(good, sc.model, &state, &counters);
  REQUIRE(read_error(good).empty());
  const int n = sc.model.bodies.spheres();

  struct Case {
    const char* dataset;
    int index;  // the value changed (-1: none)
    double value;
    std::string expected;  // after "FILE: "
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Case cases[] = {
      {"/clock", 0, nan, "dataset /clock: time is nan (expected a finite time >= 0)"},
      {"/clock", 0, -1.0, "dataset /clock: time is -1 (expected a finite time >= 0)"},
      {"/clock", 1, 2.5, "dataset /clock: step is 2.5 (expected an integer in [0, 9007199254740992])"},
      {"/clock", 2, 3.0, "dataset /clock: the next bead id 3 is not above bead id "},
      {"/beads/radius", 3, -0.01, "dataset /beads/radius: row 3 is -0.01 (expected a positive finite number)"},
      {"/beads/mass", 0, 0.0, "dataset /beads/mass: row 0 is 0 (expected a positive finite number)"},
      {"/beads/v", 4, inf, "dataset /beads/v: row 1 column 1 is inf (expected a finite number)"},
      {"/beads/x", 2, nan, "dataset /beads/x: row 0 column 2 is nan (expected a finite number)"},
      {"/beads/id", 1, nan, "dataset /beads/id: row 1 is nan (expected an integer id in [0, 2^32))"},
      {"/contacts/cache/impulses", 0, nan, "dataset /contacts/cache/impulses: row 0 column 0 is nan"},
      // A radius scaled alone: the mass and inertia still describe the bead as it was.
      {"/beads/radius", 2, 1.0, "dataset /beads/radius: row 2 is 1 but the bead's mass and inverse inertia"},
  };
  for (const Case& c : cases) {
    INFO(c.dataset << " [" << c.index << "] = " << c.value);
    const fs::path bad = dir / "bad.h5";
    fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
    std::vector<double> v = dataset(bad, c.dataset);
    v[c.index] = c.value;
    const bool matrix = std::string(c.dataset).find("/x") != std::string::npos || std::string(c.dataset).find("/v") != std::string::npos ||
                        std::string(c.dataset).find("impulses") != std::string::npos;
    replace_dataset(bad, c.dataset, v, matrix ? v.size() / 3 : v.size(), matrix ? 3 : 1);
    const std::string e = read_error(bad);
    CHECK(e.rfind("restart archive " + bad.string() + ": " + c.expected, 0) == 0);
  }
  // Duplicate ids, an empty dataset beside full ones, keys out of order.
  {
    const fs::path bad = dir / "bad.h5";
    fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
    std::vector<double> id = dataset(bad, "/beads/id");
    id[5] = id[2];
    replace_dataset(bad, "/beads/id", id, n, 1);
    CHECK(read_error(bad) == "restart archive " + bad.string() + ": dataset /beads/id: id " + std::to_string(static_cast<long>(id[2])) +
                                 " appears twice (expected distinct ids)");
    fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
    replace_dataset(bad, "/beads/mass", {}, 0, 1);
    CHECK(read_error(bad).rfind("restart archive " + bad.string() + ": dataset /beads/mass: has shape 0 (expected " + std::to_string(n), 0) == 0);
    fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
    replace_dataset(bad, "/beads/radius", {}, 0, 1);
    CHECK(read_error(bad).rfind("restart archive " + bad.string() + ": dataset /beads/x: has shape " + std::to_string(n) + "×3 (expected 0×3", 0) == 0);
  }
  // A chunked dataset may declare rows it never stored: 2·10⁹ beads are refused before anything is allocated.
  {
    const fs::path bad = dir / "bad.h5";
    fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
    const hid_t f = H5Fopen(bad.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(H5Ldelete(f, "/beads/radius", H5P_DEFAULT) >= 0);
    const hsize_t dims[1] = {2000000000}, chunk[1] = {1024};
    const hid_t space = H5Screate_simple(1, dims, nullptr), plist = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(plist, 1, chunk);
    const hid_t d = H5Dcreate2(f, "/beads/radius", H5T_IEEE_F64LE, space, H5P_DEFAULT, plist, H5P_DEFAULT);
    REQUIRE(d >= 0);
    H5Dclose(d), H5Pclose(plist), H5Sclose(space), H5Fclose(f);
    CHECK(read_error(bad).rfind("restart archive " + bad.string() + ": dataset /beads/radius: 2000000000 rows would need about ", 0) == 0);
  }
  // A group missing inside /contacts is named with its path.
  {
    const fs::path bad = dir / "bad.h5";
    fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
    const hid_t f = H5Fopen(bad.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(H5Ldelete(f, "/contacts/cache", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    CHECK(read_error(bad) == "restart archive " + bad.string() + ": no group /contacts/cache");
  }
  // A file that is not HDF5, and one without /beads.
  {
    std::ofstream(dir / "text.h5") << "not an archive\n";
    CHECK(read_error(dir / "text.h5") == "restart archive " + (dir / "text.h5").string() + ": is not an HDF5 file");
  }
  // Capsules: a dimension changed alone disagrees with the inertia; a zero half length is refused by name.
  {
    BeadSpec cs;
    cs.n = 27;
    cs.capsule_fraction = 0.5;
    GranularScene with_capsules = bead_stack(cs);
    REQUIRE(with_capsules.model.bodies.capsules() > 0);
    const fs::path caps = dir / "capsules.h5", bad = dir / "bad.h5";
    write_restart(caps, with_capsules.model);
    REQUIRE(read_error(caps).empty());
    fs::copy_file(caps, bad, fs::copy_options::overwrite_existing);
    std::vector<double> r = dataset(bad, "/capsules/radius");
    r[0] *= 100;
    replace_dataset(bad, "/capsules/radius", r, r.size(), 1);
    CHECK(read_error(bad).rfind("restart archive " + bad.string() + ": dataset /capsules/inertia: row 0 column 0 is ", 0) == 0);
    fs::copy_file(caps, bad, fs::copy_options::overwrite_existing);
    std::vector<double> half = dataset(bad, "/capsules/half_length");
    half[1] = 0.0;
    replace_dataset(bad, "/capsules/half_length", half, half.size(), 1);
    CHECK(read_error(bad) == "restart archive " + bad.string() + ": dataset /capsules/half_length: row 1 is 0 (expected a positive finite number)");
  }
  // A refused archive leaves the model as it was.
  Model untouched = sc.model;
  fs::copy_file(good, dir / "bad.h5", fs::copy_options::overwrite_existing);
  replace_dataset(dir / "bad.h5", "/clock", {nan, 0, 100, 0}, 4, 1);
  CHECK_THROWS(read_restart(dir / "bad.h5", untouched));
  CHECK(same_bits(untouched.bodies.x, sc.model.bodies.x));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a non-finite state is never written to restart.h5", "[apps][granular][restart]") {
  const fs::path dir = scratch_dir("nonfinite");
  BeadSpec spec;
  spec.n = 8;
  GranularScene sc = bead_stack(spec);
  write_restart(dir / "restart.h5", sc.model);
  Model bad = sc.model;
  bad.bodies.v[3].y() = std::numeric_limits<double>::quiet_NaN();
  CHECK(non_finite_body(bad) == "bead id 3 (index 3): velocity (0, nan, 0)");
  CHECK(non_finite_body(sc.model).empty());
  try {
    write_restart(dir / "restart.h5", bad);
    FAIL("written");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "restart archive " + (dir / "restart.h5").string() +
                                       ": not written: the state is not finite (bead id 3 (index 3): velocity (0, nan, 0))");
  }
  // The earlier archive is intact and no temporary file is left.
  Model back;
  read_restart(dir / "restart.h5", back);
  CHECK(same_bits(back.bodies.v, sc.model.bodies.v));
  CHECK_FALSE(fs::exists(temporary_name(dir / "restart.h5")));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a scene with joints restarts bit for bit: the joints' warm start is archived", "[apps][restart]") {
  // examples/mesh_paddle.yaml with 200 beads: a shaft on a revolute joint and a driver, carrying a mesh blade.
  // Before the joints' impulses were archived, the restarted run started their solve cold and ended elsewhere.
  const fs::path dir = scratch_dir("joints");
  const std::string scene = std::string(TALUS_SOURCE_DIR) + "/examples/mesh_paddle.yaml";
  auto run = [&](const std::string& t_end, const fs::path& out, const std::string& restart) {
    LoadOptions o;
    o.overrides = {parse_override("pours[0].count=200"), parse_override("integrator.t_end=" + t_end)};
    std::ostringstream log;
    RunOptions r = talus::test::quiet_run(out, log);
    r.restart = restart;
    Scene s = load_scene(scene, o);
    return run_scene(s, r).exit_status();
  };
  REQUIRE(run("0.06", dir / "full", "") == 0);
  REQUIRE(run("0.03", dir / "half", "") == 0);
  REQUIRE(run("0.06", dir / "cont", (dir / "half" / "restart.h5").string()) == 0);
  Model a, b;
  RestartExtras ea, eb;
  read_restart(dir / "full" / "restart.h5", a, &ea);
  read_restart(dir / "cont" / "restart.h5", b, &eb);
  CHECK(ea.has_joints);
  CHECK(ea.joint_impulses.size() == 6);  // a revolute joint's 5 rows and the driver's 1
  CHECK(same_bits(a.bodies.x, b.bodies.x));
  CHECK(same_bits(a.bodies.q, b.bodies.q));
  CHECK(same_bits(ea.joint_impulses, eb.joint_impulses));
}

TEST_CASE("a run with rolling resistance restarts bit for bit: the rolling warm start is archived", "[apps][restart]") {
  const fs::path dir = scratch_dir("rolling");
  const fs::path scene = fs::path(TALUS_SOURCE_DIR) / "examples" / "bead_stack.yaml";
  const auto [straight, half, restarted] = straight_and_restarted(
      scene, dir, {"n=300", "resort_every=25", "frame_every=0.05", "rolling_friction=0.1"}, "0.12", "0.24");
  REQUIRE(half.extras.has_rolling_cache);
  CHECK(half.extras.rolling_cache.keys.size() > 300);
  require_same(straight, restarted);
  CHECK(same_bits(straight.extras.rolling_cache.impulses, restarted.extras.rolling_cache.impulses));
  // Without the rolling warm start the continuation ends elsewhere: the comparison can fail.
  Model cold = half.model;
  cold.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).rolling = 0.1;
  cold.materials.law(talus::kBeadMaterial, talus::kWallMaterial).rolling = 0.1;
  GranularParameters p;
  p.h = 1e-3;
  p.resort_every = 25;
  p.solver = GranularSolver::Anderson;
  GranularStepper stepper(cold, p);
  half.extras.cache.load_into(stepper.contact_cache());
  while (cold.step < 240) REQUIRE(stepper.step().solver.converged());
  CHECK_FALSE(same_bits(cold.bodies.x, straight.model.bodies.x));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a drum with rolling resistance at its wall restarts bit for bit", "[apps][restart]") {
  // examples/drum.yaml: rolling resistance between beads and between the beads and the drum (general contacts).
  const fs::path dir = scratch_dir("rolling_drum");
  const fs::path scene = fs::path(TALUS_SOURCE_DIR) / "examples" / "drum.yaml";
  const auto [straight, half, restarted] = straight_and_restarted(scene, dir, {"frame_every=0.05"}, "0.1", "0.2");
  REQUIRE(half.extras.has_rolling_cache);
  // The drum's contacts (general contacts) are in the one rolling cache beside the bead pairs.
  const auto& keys = half.extras.rolling_cache.keys;
  CHECK(std::count_if(keys.begin(), keys.end(), [](talus::contact::ContactKey k) {
          return talus::contact::is_obstacle_key(k) &&
                 talus::contact::obstacle_kind(k) == talus::contact::KeyObstacle::Drum;
        }) > 20);
  require_same(straight, restarted);
  CHECK(same_bits(straight.extras.rolling_cache.keys, restarted.extras.rolling_cache.keys));
  CHECK(same_bits(straight.extras.rolling_cache.impulses, restarted.extras.rolling_cache.impulses));
  fs::remove_all(dir.parent_path());
}

namespace {

void write_u64(hid_t parent, const char* name, const std::vector<std::uint64_t>& v) {
  const hsize_t dims[1] = {v.size()};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t d = H5Dcreate2(parent, name, H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(d >= 0);
  if (!v.empty()) REQUIRE(H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
  H5Dclose(d), H5Sclose(space);
}

void write_rows3(hid_t parent, const char* name, const std::vector<Eigen::Vector3d>& v) {
  const hsize_t dims[2] = {v.size(), 3};
  std::vector<double> flat;
  for (const Eigen::Vector3d& x : v) flat.insert(flat.end(), {x[0], x[1], x[2]});
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const hid_t d = H5Dcreate2(parent, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(d >= 0);
  if (!v.empty()) REQUIRE(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, flat.data()) >= 0);
  H5Dclose(d), H5Sclose(space);
}

}  // namespace

TEST_CASE("an archive of the two caches under their older keys is read into the one cache", "[apps][granular][restart]") {
  // Archives written before the one key scheme (contact/ContactKey.hpp) held /contacts/beads under the old bead
  // keys — bead pairs (id a << 32 | id b) and tagged walls (0x80000000 | wall << 1 | feature in the high word) —
  // and /contacts/capsules. One is made here from a new archive with those formulas; it must read back as the
  // same cache, key for key and bit for bit.
  namespace ck = talus::contact;
  const fs::path dir = scratch_dir("legacy_keys");
  BeadSpec spec;
  spec.n = 64;
  GranularScene sc = bead_stack(spec);
  GranularStepper stepper(sc.model, GranularParameters{});
  for (int k = 0; k < 150; ++k) REQUIRE(stepper.step().solver.converged());
  const fs::path now = dir / "now.h5", old = dir / "old.h5";
  const StepperArchive state = stepper_archive(stepper);
  write_restart(now, sc.model, &state);
  RestartExtras a;
  Model ma = sc.model;
  read_restart(now, ma, &a);
  REQUIRE(a.cache.keys.size() > 64);
  std::vector<std::uint64_t> legacy;
  int pairs = 0, walls = 0;
  for (ck::ContactKey k : a.cache.keys) {
    if (!ck::is_obstacle_key(k)) {
      legacy.push_back(((k >> 33) & (ck::kKeyBodyIds - 1)) << 32 | ((k >> 3) & (ck::kKeyBodyIds - 1)));
      ++pairs;
    } else {
      REQUIRE(ck::obstacle_kind(k) == ck::KeyObstacle::Plane);
      const std::uint64_t tag = 0x80000000u | (ck::obstacle_index(k) << 1) | ((k >> 32) & 0xff);
      legacy.push_back(tag << 32 | (k & 0x3fffffff));
      ++walls;
    }
  }
  REQUIRE(pairs > 0);
  REQUIRE(walls > 0);
  fs::copy_file(now, old, fs::copy_options::overwrite_existing);
  {
    const hid_t f = H5Fopen(old.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(H5Ldelete(f, "/contacts/cache", H5P_DEFAULT) >= 0);
    const hid_t g = H5Gopen2(f, "/contacts", H5P_DEFAULT);
    for (const char* name : {"beads", "capsules"}) {
      const hid_t c = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      // The old archives held each group's keys strictly increasing.
      std::vector<std::size_t> order(name[0] == 'b' ? legacy.size() : 0);
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return legacy[i] < legacy[j]; });
      std::vector<std::uint64_t> keys;
      std::vector<Eigen::Vector3d> impulses;
      for (std::size_t i : order) keys.push_back(legacy[i]), impulses.push_back(a.cache.impulses[i]);
      write_u64(c, "keys", keys);
      write_rows3(c, "impulses", impulses);
      H5Gclose(c);
    }
    H5Gclose(g), H5Fclose(f);
  }
  RestartExtras b;
  Model mb = sc.model;
  read_restart(old, mb, &b);
  REQUIRE(b.has_contacts);
  ck::ContactCache ca, cb;
  a.cache.load_into(ca), b.cache.load_into(cb);
  CHECK(same_bits(ca.keys(), cb.keys()));
  CHECK(same_bits(ca.impulses(), cb.impulses()));
  // A key the new scheme cannot hold is refused naming the archive and the row.
  {
    const hid_t f = H5Fopen(old.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(H5Ldelete(f, "/contacts/capsules/keys", H5P_DEFAULT) >= 0);
    REQUIRE(H5Ldelete(f, "/contacts/capsules/impulses", H5P_DEFAULT) >= 0);
    const hid_t c = H5Gopen2(f, "/contacts/capsules", H5P_DEFAULT);
    // A general key of a wall (kind 0) and a sphere (kind 2) whose obstacle side names a sphere kind twice.
    write_u64(c, "keys", {(std::uint64_t{2} << 62) | (std::uint64_t{0} << 60) | 5});
    write_rows3(c, "impulses", {Eigen::Vector3d::Zero()});
    H5Gclose(c), H5Fclose(f);
    CHECK(read_error(old).rfind("restart archive " + old.string() + ": dataset /contacts/capsules/keys row 0: contact key ", 0) == 0);
  }
  fs::remove_all(dir.parent_path());
}
