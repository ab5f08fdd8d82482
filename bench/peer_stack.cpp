// Talus beside Bullet on the scene of issue 10 (docs/stack-height.md, "Side by side with Bullet"): the lattice of
// examples/bead_stack.yaml (glass beads, r = 1 cm, ρ = 2500, μ = 0.3, e = 0, spacing 2.2 r, jitter 0.05 r) released
// into its box and stepped to --t-end, the same initial beads and walls in both codes, one thread each, one after
// the other in one run. Reported per code and setting: wall and CPU seconds (per simulated second too), the
// deepest interpenetration over the run / r, the final kinetic energy / (N m g r), and the pile it leaves: mean
// height 2⟨z⟩ and the packing fraction of its bulk (apps/GranularMeasureSeries.hpp's region), so the physics are
// compared as well as the speed.
//
// Talus: the granular stepper with the scene's settings (Moreau–Jean, h = 1e-3, residual ≤ --tolerance at every
// step, --solver). Bullet 3 (Debian's libbullet-dev; built in when found, else the bench says so): a
// btDiscreteDynamicsWorld with its sequential-impulse (PGS) solver, spheres and static planes, every body's
// friction √μ and restitution 0 (Bullet multiplies the two bodies' coefficients), its defaults otherwise (split
// impulse off, ERP 0.2, sleeping on: what a user gets), stepped at fixed h with --bullet settings "h:iterations".
// Bullet's penetration is read from its contact manifolds after every step (the deepest point's distance).
#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "apps/GranularMeasureSeries.hpp"
#include "apps/JsonOutput.hpp"
#include "engine/analysis/GranularMeasures.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

#ifdef TALUS_HAVE_BULLET
#include <btBulletDynamicsCommon.h>
#endif

using namespace talus;
using namespace talus::granular;

namespace {

double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Row {
  std::string code, setting;
  double wall = 0.0, cpu = 0.0, simulated = 0.0;
  double penetration = 0.0;  // deepest over the run / r
  double ke_ratio = 0.0;     // final KE / (N m g r)
  double height = 0.0, phi = std::nan("");
  long steps = 0;
  double mean_sweeps = 0.0;  // Talus: sweeps per step; Bullet: its iterations
  long sleeping = 0;         // Bullet: bodies asleep at the end
};

// The pile a run leaves: mean height 2⟨z⟩ over the beads and the bulk packing fraction.
void measure_pile(const RigidBodies& beads, Row& row) {
  double z = 0.0;
  for (int i = 0; i < beads.spheres(); ++i) z += beads.x[i].z();
  row.height = 2.0 * z / std::max(beads.spheres(), 1);
  if (const auto region = app::bulk_region(beads)) row.phi = packing_fraction(beads, *region);
}

void progress(const char* code, double t, double t_end, double wall) {
  std::fprintf(stderr, "\r%s: t = %.3f of %.3f s, %.1f s of wall time", code, t, t_end, wall);
  std::fflush(stderr);
}

Row run_talus(const BeadSpec& spec, GranularParameters p, double t_end) {
  GranularScene sc = bead_stack(spec);
  GranularStepper s(sc.model, p);
  Row row;
  row.code = "Talus", row.setting = granular_solver_name(p.solver) + ", h = " + std::to_string(p.h).substr(0, 6) +
                                    ", residual <= " + std::to_string(p.tolerance).substr(0, 7);
  const long steps = std::lround(t_end / p.h);
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_now();
  long sweeps = 0;
  for (long k = 0; k < steps; ++k) {
    const GranularStepReport& r = s.step();
    if (!r.solver.converged())
      throw std::runtime_error("talus: step " + std::to_string(k) + " did not converge: " + r.solver.message);
    sweeps += r.solver.iterations;
    row.penetration = std::max(row.penetration, r.max_penetration / spec.radius);
    if (k % 25 == 0)
      progress("talus", sc.model.time, t_end, std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
  }
  row.cpu = cpu_now() - c0;
  row.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  std::fprintf(stderr, "\n");
  row.steps = steps, row.simulated = sc.model.time;
  row.mean_sweeps = static_cast<double>(sweeps) / std::max<long>(steps, 1);
  const RigidBodies& b = sc.model.bodies;
  row.ke_ratio = kinetic_energy(b, ShapeKind::Sphere) / (b.spheres() * b.mass[0] * 9.81 * spec.radius);
  measure_pile(b, row);
  return row;
}

#ifdef TALUS_HAVE_BULLET
// `scale`: Bullet's lengths are the scene's times scale (its tolerances, margins and sleeping thresholds are
// absolute, set for bodies of 0.05 to 10 units: a 1 cm bead in metres is below that). Masses and times are the
// same, so the dynamics are the scene's; lengths and speeds are divided back before they are measured.
Row run_bullet(const BeadSpec& spec, double h, int iterations, double t_end, double scale) {
  GranularScene sc = bead_stack(spec);  // the same beads and walls
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
  world.setGravity(btVector3(0, 0, static_cast<btScalar>(-9.81 * scale)));
  world.getSolverInfo().m_numIterations = iterations;
  const btScalar friction = static_cast<btScalar>(std::sqrt(spec.mu));
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btDefaultMotionState>> states;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  auto add = [&](btCollisionShape* shape, double mass, const Eigen::Vector3d& x) {
    shapes.emplace_back(shape);
    btVector3 inertia(0, 0, 0);
    if (mass > 0.0) shape->calculateLocalInertia(static_cast<btScalar>(mass), inertia);
    btTransform t;
    t.setIdentity();
    t.setOrigin(btVector3(static_cast<btScalar>(scale * x.x()), static_cast<btScalar>(scale * x.y()),
                          static_cast<btScalar>(scale * x.z())));
    states.emplace_back(new btDefaultMotionState(t));
    btRigidBody::btRigidBodyConstructionInfo info(static_cast<btScalar>(mass), states.back().get(), shape, inertia);
    info.m_friction = friction;
    info.m_restitution = 0;
    bodies.emplace_back(new btRigidBody(info));
    world.addRigidBody(bodies.back().get());
  };
  for (const contact::Wall& w : sc.model.walls)
    add(new btStaticPlaneShape(btVector3(static_cast<btScalar>(w.normal.x()), static_cast<btScalar>(w.normal.y()),
                                         static_cast<btScalar>(w.normal.z())),
                               static_cast<btScalar>(scale * w.offset)),
        0.0, Eigen::Vector3d::Zero());
  const RigidBodies& b = sc.model.bodies;
  const std::size_t first_bead = bodies.size();
  for (int i = 0; i < b.spheres(); ++i)
    add(new btSphereShape(static_cast<btScalar>(scale * b.radius[i])), b.mass[i], b.x[i]);
  Row row;
  row.code = "Bullet " + std::to_string(BT_BULLET_VERSION / 100) + "." + std::to_string(BT_BULLET_VERSION % 100);
  row.setting = "PGS, h = 1/" + std::to_string(std::lround(1.0 / h)) + " s, " + std::to_string(iterations) +
                " iterations, x" + std::to_string(std::lround(scale));
  const long steps = std::lround(t_end / h);
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_now();
  for (long k = 0; k < steps; ++k) {
    world.stepSimulation(static_cast<btScalar>(h), 1, static_cast<btScalar>(h));
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m) {
      const btPersistentManifold* c = dispatcher.getManifoldByIndexInternal(m);
      for (int j = 0; j < c->getNumContacts(); ++j)
        row.penetration =
            std::max(row.penetration, -static_cast<double>(c->getContactPoint(j).getDistance()) / (scale * spec.radius));
    }
    if (k % 50 == 0)
      progress("bullet", (k + 1) * h, t_end, std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
  }
  row.cpu = cpu_now() - c0;
  row.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  std::fprintf(stderr, "\n");
  row.steps = steps, row.simulated = steps * h, row.mean_sweeps = iterations;
  // The pile as Talus measures it: the beads' final state copied into the store.
  RigidBodies end = b;
  double ke = 0.0;
  for (int i = 0; i < b.spheres(); ++i) {
    const btRigidBody& body = *bodies[first_bead + i];
    const btVector3 x = body.getCenterOfMassPosition(), v = body.getLinearVelocity(), w = body.getAngularVelocity();
    end.x[i] = Eigen::Vector3d(x.x(), x.y(), x.z()) / scale;
    end.v[i] = Eigen::Vector3d(v.x(), v.y(), v.z()) / scale;
    end.w[i] = Eigen::Vector3d(w.x(), w.y(), w.z());
    row.sleeping += body.getActivationState() == ISLAND_SLEEPING;
  }
  ke = kinetic_energy(end, ShapeKind::Sphere);
  row.ke_ratio = ke / (b.spheres() * b.mass[0] * 9.81 * spec.radius);
  measure_pile(end, row);
  for (auto& body : bodies) world.removeRigidBody(body.get());
  return row;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Talus beside Bullet on the lattice collapse of examples/bead_stack.yaml (issue 10; docs/stack-height.md)."};
  BeadSpec spec;
  spec.n = 10000;
  double t_end = 0.5;
  GranularParameters p;
  p.solver = GranularSolver::Anderson;
  std::string solver = "anderson", json;
  std::vector<std::string> bullet{"1/600:50", "1/240:20"};
  bool skip_talus = false;
  double bullet_scale = 100.0;
  app.add_option("--beads", spec.n, "beads in the lattice")->check(CLI::PositiveNumber);
  app.add_option("--t-end", t_end, "simulated time [s]")->check(CLI::PositiveNumber);
  app.add_option("--solver", solver, "Talus's friction-contact solver (GranularParameters::solver)");
  app.add_option("--tolerance", p.tolerance, "Talus: residual to reach at every step");
  app.add_option("--h", p.h, "Talus: time step [s]")->check(CLI::PositiveNumber);
  app.add_option("--bullet", bullet, "Bullet settings, each h:iterations with h a number or 1/N (empty: none)")->delimiter(',');
  app.add_option("--bullet-scale", bullet_scale,
                 "Bullet's length unit: the scene's lengths times this (100: a bead of 1 unit, inside the 0.05-10 "
                 "Bullet's tolerances are set for)")->check(CLI::PositiveNumber);
  app.add_flag("--skip-talus", skip_talus, "run the Bullet settings only");
  app.add_option("--json", json, "write the rows (with the command, version and units) as JSON");
  CLI11_PARSE(app, argc, argv);
  try {
    p.solver = granular_solver_from_name(solver);
  } catch (const std::exception& e) {
    std::cerr << "peer_stack: --solver: " << e.what() << '\n';
    return 2;
  }
  // The Bullet settings are read before anything runs: a bad one must not cost the Talus run before it. An empty
  // entry (--bullet "") is no setting.
  struct BulletSetting {
    std::string text;
    double h = 0.0;
    int iterations = 0;
  };
  std::vector<BulletSetting> settings;
  try {
    for (const std::string& s : bullet) {
      if (s.empty()) continue;
      const auto colon = s.find(':');
      if (colon == std::string::npos) throw std::invalid_argument("--bullet " + s + ": expected h:iterations (1/600:50)");
      const std::string hs = s.substr(0, colon);
      double h = 0.0;
      int iterations = 0;
      try {
        h = hs.rfind("1/", 0) == 0 ? 1.0 / std::stod(hs.substr(2)) : std::stod(hs);
        iterations = std::stoi(s.substr(colon + 1));
      } catch (const std::exception&) {
        throw std::invalid_argument("--bullet " + s + ": h or iterations is not a number");
      }
      if (!(h > 0.0) || iterations < 1) throw std::invalid_argument("--bullet " + s + ": h and iterations must be positive");
      settings.push_back({s, h, iterations});
    }
  } catch (const std::exception& e) {
    std::cerr << "peer_stack: " << e.what() << '\n';
    return 2;
  }
  std::vector<Row> rows;
  try {
    if (!skip_talus) rows.push_back(run_talus(spec, p, t_end));
    for (const BulletSetting& b : settings) {
#ifdef TALUS_HAVE_BULLET
      rows.push_back(run_bullet(spec, b.h, b.iterations, t_end, bullet_scale));
#else
      std::cerr << "peer_stack: built without Bullet (install libbullet-dev, then rebuild): --bullet " << b.text
                << " skipped\n";
#endif
    }
  } catch (const std::exception& e) {
    std::cerr << "\npeer_stack: " << e.what() << '\n';
    return 1;
  }
  std::printf("%zu beads, %.3g s simulated, one thread each (wall and CPU seconds of this process)\n",
              static_cast<std::size_t>(spec.n), t_end);
  std::printf("%-12s %-40s %9s %9s %12s %9s %10s %11s %9s %8s\n", "code", "setting", "wall s", "CPU s", "CPU s/sim s",
              "sweeps", "max pen/r", "KE/(Nmgr)", "2<z> m", "phi");
  for (const Row& r : rows)
    std::printf("%-12s %-40s %9.2f %9.2f %12.1f %9.1f %10.2e %11.2e %9.5f %8.4f\n", r.code.c_str(), r.setting.c_str(),
                r.wall, r.cpu, r.cpu / r.simulated, r.mean_sweeps, r.penetration, r.ke_ratio, r.height, r.phi);
  if (!json.empty()) {
    nlohmann::ordered_json doc;
    doc["bench"] = "peer_stack";
    doc["command"] = app::command_record(argc, argv);
    doc["units"] = {{"wall_s", "s"}, {"cpu_s", "s"}, {"max_penetration_over_r", "1"}, {"ke_over_n_m_g_r", "1"},
                    {"mean_height", "m"}, {"packing_fraction", "1"}};
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Row& r : rows)
      list.push_back({{"code", r.code}, {"setting", r.setting}, {"steps", r.steps}, {"simulated_s", r.simulated},
                      {"wall_s", r.wall}, {"cpu_s", r.cpu}, {"cpu_s_per_simulated_s", r.cpu / r.simulated},
                      {"mean_sweeps_or_iterations", r.mean_sweeps}, {"max_penetration_over_r", r.penetration},
                      {"ke_over_n_m_g_r", r.ke_ratio}, {"mean_height", r.height},
                      {"packing_fraction", std::isfinite(r.phi) ? nlohmann::ordered_json(r.phi) : nlohmann::ordered_json()},
                      {"sleeping_bodies", r.sleeping}});
    doc["rows"] = list;
    app::write_json_file(json, doc);
  }
  return 0;
}
