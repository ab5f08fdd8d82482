// Capsules in the files of a granular run (issue 4 item 6; apps/GranularOutput.hpp): the restart archive
// gives back the capsules' state bitwise after a few steps of a capsule scene (the orientations are then no
// longer the lattice's, so a restart that rebuilt them from the axes would fail), the capsule frame holds
// one point per capsule with its axis, and the contact network holds one line per active contact, the
// capsule contacts included, with the forces the stepper computed. `talus run` writes the capsule series
// only for scenes with capsules.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "apps/GranularSceneFile.hpp"
#include "apps/SceneRun.hpp"
#include "tests/apps/GranularFileRun.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/SameBits.hpp"

using namespace talus::granular;
using talus::Model;
namespace fs = std::filesystem;

namespace {

using talus::test::same_bits;

fs::path scratch_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("talus_capsule_output_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The numbers of a DataArray named `name` in a VTK XML file.
std::vector<double> data_array(const std::string& text, const std::string& name) {
  const std::regex re("<DataArray[^>]*Name=\"" + name + "\"[^>]*>([^<]*)</DataArray>");
  std::smatch m;
  REQUIRE(std::regex_search(text, m, re));
  std::istringstream in(m[1].str());
  std::vector<double> v;
  for (double x; in >> x;) v.push_back(x);
  return v;
}

GranularScene capsule_stack() {
  BeadSpec spec;
  spec.n = 64;
  spec.capsule_fraction = 0.4;
  spec.seed = 7;
  return bead_stack(spec);
}

}  // namespace

TEST_CASE("the restart archive gives back beads and capsules bitwise", "[apps][granular][capsules]") {
  GranularScene sc = capsule_stack();
  Model& m = sc.model;
  REQUIRE(m.bodies.capsules() > 0);
  REQUIRE(m.bodies.spheres() > 0);
  GranularParameters p;
  p.h = 1e-3;
  GranularStepper stepper(m, p);
  for (int k = 0; k < 60; ++k) REQUIRE(stepper.step().solver.converged());
  // The capsules have started turning: their orientations are no longer the ones the lattice gave them.
  double spin = 0.0;
  for (int i = 0; i < m.bodies.capsules(); ++i) spin = std::max(spin, m.bodies.w[m.bodies.capsule(i)].norm());
  REQUIRE(spin > 0.0);

  const fs::path dir = scratch_dir("restart");
  talus::app::write_restart(dir / "restart.h5", m);
  Model back = capsule_stack().model;
  talus::app::read_restart(dir / "restart.h5", back);

  CHECK(back.time == m.time);
  CHECK(back.step == m.step);
  // One store: beads and capsules compared together.
  const talus::RigidBodies &a = m.bodies, &b = back.bodies;
  CHECK(b.group_start == a.group_start);
  CHECK(same_bits(a.x, b.x));
  CHECK(same_bits(a.v, b.v));
  CHECK(same_bits(a.w, b.w));
  CHECK(same_bits(a.q, b.q));
  CHECK(same_bits(a.radius, b.radius));
  CHECK(same_bits(a.half_length, b.half_length));
  CHECK(same_bits(a.mass, b.mass));
  CHECK(same_bits(a.inv_mass, b.inv_mass));
  CHECK(same_bits(a.inertia, b.inertia));
  CHECK(same_bits(a.id, b.id));
  CHECK(b.next_id == a.next_id);
  // The world inverse inertia follows from the restored orientation as the stepper forms it.
  talus::RigidBodies refreshed = a;
  refresh_world_inertia(refreshed);
  CHECK(same_bits(refreshed.inv_inertia_world, b.inv_inertia_world));
  CHECK(same_bits(m.bodies.x, back.bodies.x));
  CHECK(same_bits(m.bodies.v, back.bodies.v));
  CHECK(same_bits(m.bodies.w, back.bodies.w));
  CHECK(same_bits(m.bodies.mass, back.bodies.mass));
  CHECK(same_bits(m.bodies.inv_mass, back.bodies.inv_mass));
  CHECK(same_bits(m.bodies.inv_inertia, back.bodies.inv_inertia));
  CHECK(same_bits(m.bodies.id, back.bodies.id));

  // A scene without capsules restarted from an archive without them has none.
  Model no_capsules = m;
  {
    std::vector<char> capsule_flags(no_capsules.bodies.count(), 0);
    for (int c = 0; c < no_capsules.bodies.capsules(); ++c) capsule_flags[no_capsules.bodies.capsule(c)] = 1;
    no_capsules.bodies.remove(capsule_flags);
  }
  talus::app::write_restart(dir / "beads_only.h5", no_capsules);
  talus::app::read_restart(dir / "beads_only.h5", back);
  CHECK(back.bodies.capsules() == 0);
  CHECK(same_bits(no_capsules.bodies.x, back.bodies.x));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("capsule frames and the contact network hold the capsules and their contacts",
          "[apps][granular][capsules]") {
  GranularScene sc = capsule_stack();
  Model& m = sc.model;
  GranularParameters p;
  p.h = 1e-3;
  GranularStepper stepper(m, p);
  for (int k = 0; k < 150; ++k) REQUIRE(stepper.step().solver.converged());
  const auto& general = stepper.general_contacts().contacts;
  int active = 0, active_general = 0;
  for (const SweepContact& c : stepper.contacts()) active += c.r[0] > 0.0;
  for (const GeneralContact& c : general) active_general += c.r[0] > 0.0;
  REQUIRE(active_general > 0);  // the capsules have landed

  const fs::path dir = scratch_dir("frames");
  const talus::app::FrameContacts fc{stepper.contacts(), general, stepper.general_contacts().flexible.contacts};
  talus::app::write_capsules_vtp(dir / "capsules.vtp", m, fc, p.h);
  talus::app::write_contacts_vtp(dir / "contacts.vtp", m, fc, p.h);
  talus::app::write_beads_vtp(dir / "beads.vtp", m, fc, p.h);

  const std::string caps = slurp(dir / "capsules.vtp");
  CHECK(caps.find("NumberOfPoints=\"" + std::to_string(m.bodies.capsules()) + "\"") != std::string::npos);
  const std::vector<double> axis = data_array(caps, "axis"), q = data_array(caps, "orientation");
  REQUIRE(axis.size() == 3u * m.bodies.capsules());
  REQUIRE(q.size() == 4u * m.bodies.capsules());
  for (int i = 0; i < m.bodies.capsules(); ++i) {
    const Eigen::Vector3d ax = m.bodies.axis(m.bodies.capsule(i));
    CHECK((Eigen::Vector3d(axis[3 * i], axis[3 * i + 1], axis[3 * i + 2]) - ax).norm() < 1e-8);
    const Eigen::Quaterniond qi(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]);
    CHECK((qi * Eigen::Vector3d::UnitZ() - ax).norm() < 1e-8);
  }

  const std::string net = slurp(dir / "contacts.vtp");
  CHECK(net.find("NumberOfLines=\"" + std::to_string(active + active_general) + "\"") != std::string::npos);
  // Forces of the network against the impulses of the stepper: Σ normal force = Σ r_N / h over both kinds.
  double expected = 0.0;
  for (const SweepContact& c : stepper.contacts()) expected += c.r[0] > 0.0 ? c.r[0] / p.h : 0.0;
  for (const GeneralContact& c : general) expected += c.r[0] > 0.0 ? c.r[0] / p.h : 0.0;
  double written = 0.0;
  for (double f : data_array(net, "normal_force")) written += f;
  CHECK(written == Approx(expected).epsilon(1e-7));

  // Each body's contact_force is its share of the contacts' forces: over all bodies, the forces between
  // bodies cancel and what is left is the force of the obstacles, which (nearly at rest after 0.15 s) carries
  // most of the weight. Checked exactly against the obstacle contacts' forces.
  Eigen::Vector3d total = Eigen::Vector3d::Zero(), from_obstacles = Eigen::Vector3d::Zero();
  for (const char* f : {"beads.vtp", "capsules.vtp"}) {
    const std::vector<double> cf = data_array(slurp(dir / f), "contact_force");
    for (std::size_t i = 0; i < cf.size(); i += 3) total += Eigen::Vector3d(cf[i], cf[i + 1], cf[i + 2]);
  }
  for (const SweepContact& c : stepper.contacts())
    if (c.a < 0) from_obstacles += (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) / p.h;
  for (const GeneralContact& c : general)
    if (c.kind_a == BodyKind::Fixed) from_obstacles += (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) / p.h;
  CHECK((total - from_obstacles).norm() < 1e-6 * from_obstacles.norm());
  fs::remove_all(dir.parent_path());
}

TEST_CASE("talus run writes the capsule series only for scenes with capsules", "[apps][granular][capsules]") {
  const fs::path dir = scratch_dir("run");
  {
    std::ofstream y(dir / "scene.yaml");
    y << "granular:\n  scene: bead_stack\n  n: 27\n  h: 1.0e-3\n  t_end: 0.004\n  frame_every: 0.002\n";
  }
  std::ostringstream log;
  talus::app::RunOptions o = talus::test::quiet_run(dir / "with", log);
  REQUIRE(talus::test::run_granular_file(dir / "scene.yaml", {"capsule_fraction=0.5"}, o) == 0);
  CHECK(fs::is_regular_file(o.out_dir / "capsules.pvd"));
  CHECK(fs::is_regular_file(o.out_dir / "capsules_00002.vtp"));
  Model back;
  talus::app::read_restart(o.out_dir / "restart.h5", back);
  CHECK(back.bodies.capsules() > 0);
  CHECK(slurp(o.out_dir / "capsules_00002.vtp").find("NumberOfPoints=\"" + std::to_string(back.bodies.capsules())) !=
        std::string::npos);

  o.out_dir = dir / "without";
  REQUIRE(talus::test::run_granular_file(dir / "scene.yaml", {}, o) == 0);
  CHECK(fs::is_regular_file(o.out_dir / "beads.pvd"));
  CHECK_FALSE(fs::exists(o.out_dir / "capsules.pvd"));
  CHECK_FALSE(fs::exists(o.out_dir / "capsules_00000.vtp"));
  fs::remove_all(dir.parent_path());
}
