// Mesh-wall bench (issue 14 item 6): the cost of triangle-mesh walls against analytic ones in the same scene.
// A square hopper (four walls at 45°, outlet closed by a floor) under a square bin, filled with --beads beads
// (r = 5 mm) in a touching cubic lattice, is stepped twice from the same state: once with its walls as nine
// analytic planes (the hopper is their intersection: convex), once as one triangle mesh of about --triangles
// triangles tessellating the same eight walls (the floor stays a plane). The lattice is aligned with the walls, so
// every bead of the outer columns touches a bin wall and every bead of the stair along a sloping wall touches it:
// both variants have the same contacts with the same gaps and normals (to round-off), and the same solve, so the
// difference is the cost of the mesh itself (detection through the hierarchy, features, narrow phase). Reported
// per variant: seconds per step (wall and CPU of the stepping thread), the detection (broad) and narrow-phase CPU
// per step, contacts and wall contacts, mean sweeps; then the mesh's overhead per step (CPU), total and in
// detection + narrow phase. The variants step in turn, one step each.
// Each step does a fixed number of sweeps (--sweeps, 20 by default): how many sweeps a tolerance takes varies
// from step to step with round-off and contact order (4 to 150 on this lattice, either variant), which would
// drown the difference measured. --sweeps 0 solves to --tolerance instead and reports the mean sweeps.
//   bench/mesh_hopper                     # 10⁵ beads, 10⁴ triangles, 10 timed steps after 2 untimed ones
//   bench/mesh_hopper --beads 20000 --json out/mesh_hopper.json
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "apps/JsonOutput.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus;
using namespace talus::granular;

namespace {

constexpr double kR = 0.005, kD = 2 * kR;

// The hopper: half-width w(z) = min(a + z, B) (walls at 45° from the outlet's half-width a up to the bin's B).
// a = (m + ½) d + (√2 − 1) r puts the centres of lattice column m exactly one radius from the sloping wall along
// its normal at every layer; B = n d puts column n − 1 against the bin wall.
struct Hopper {
  double a, B, z_top;
  double half_width(double z) const { return std::min(a + z, B); }
};

// The lattice sites (x, y, z) of the beads: layers z = r + k d, columns (i + ½) d, inside the walls.
std::vector<Eigen::Vector3d> lattice(const Hopper& h, long beads) {
  std::vector<Eigen::Vector3d> x;
  const int n = static_cast<int>(std::lround(h.B / kD));
  for (int k = 0; static_cast<long>(x.size()) < beads; ++k) {
    const double z = kR + k * kD;
    // Within the sloping walls: |x| − z <= a − √2 r; within the bin: |x| <= B − r (1e-9: round-off).
    const double reach = std::min(h.a + z - std::sqrt(2.0) * kR, h.B - kR) + 1e-9 * kR;
    for (int i = -n; i < n && static_cast<long>(x.size()) < beads; ++i)
      for (int j = -n; j < n && static_cast<long>(x.size()) < beads; ++j) {
        const double px = (i + 0.5) * kD, py = (j + 0.5) * kD;
        if (std::abs(px) <= reach && std::abs(py) <= reach) x.emplace_back(px, py, z);
      }
  }
  return x;
}

Hopper hopper_for(long beads) {
  // A bin about 1.5 times as tall as wide: N ≈ (2n)² · 3n beads.
  const int n = std::max(4, static_cast<int>(std::cbrt(static_cast<double>(beads) / 12.0)));
  Hopper h;
  h.a = 2.5 * kD + (std::sqrt(2.0) - 1.0) * kR;
  h.B = n * kD;
  h.z_top = 1e9;
  const std::vector<Eigen::Vector3d> x = lattice(h, beads);
  h.z_top = x.back().z() + 2 * kD;
  return h;
}

// The eight walls as one mesh: rings of points around the square section at each level (levels and points
// spaced so that the cells are about square), the corners and the kink at z = B − a among them.
std::shared_ptr<const contact::TriangleMesh> hopper_mesh(const Hopper& h, int triangles) {
  const double kink = h.B - h.a, length = kink * std::sqrt(2.0) + (h.z_top - kink);
  const int per_side = std::max(2, static_cast<int>(std::lround(std::sqrt(4.0 * triangles * h.B / length) / 4.0)));
  const int around = 4 * per_side;
  const double cell = length / std::max(2.0, triangles / (2.0 * around));
  const int rows_h = std::max(1, static_cast<int>(std::lround(kink * std::sqrt(2.0) / cell)));
  const int rows_b = std::max(1, static_cast<int>(std::lround((h.z_top - kink) / cell)));
  std::vector<double> z;
  for (int i = 0; i <= rows_h; ++i) z.push_back(kink * i / rows_h);
  for (int i = 1; i <= rows_b; ++i) z.push_back(kink + (h.z_top - kink) * i / rows_b);
  std::vector<Eigen::Vector3d> v;
  for (double zi : z) {
    const double w = h.half_width(zi);
    // Counter-clockwise round the square from (w, −w): side s runs from corner s to corner s + 1.
    const Eigen::Vector2d corner[5] = {{w, -w}, {w, w}, {-w, w}, {-w, -w}, {w, -w}};
    for (int s = 0; s < 4; ++s)
      for (int j = 0; j < per_side; ++j) {
        const Eigen::Vector2d p = corner[s] + (corner[s + 1] - corner[s]) * (static_cast<double>(j) / per_side);
        v.emplace_back(p.x(), p.y(), zi);
      }
  }
  std::vector<std::array<int, 3>> t;
  for (int i = 0; i + 1 < static_cast<int>(z.size()); ++i)
    for (int j = 0; j < around; ++j) {
      const int p = i * around + j, q = i * around + (j + 1) % around, r = p + around, s = q + around;
      t.push_back({p, q, s});
      t.push_back({p, s, r});
    }
  return std::make_shared<const contact::TriangleMesh>(contact::build_triangle_mesh("hopper", std::move(v), t));
}

Model filled_hopper(const Hopper& h, long beads, bool mesh, int triangles) {
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -9.81);
  m.materials.set_defaults(0.3, 0.3, 0.0);
  m.walls.push_back(contact::Wall{Eigen::Vector3d::UnitZ(), 0.0});  // the gate under the outlet
  if (mesh) {
    m.meshes.push_back(hopper_mesh(h, triangles));
  } else {
    const double s = 1.0 / std::sqrt(2.0);
    for (int axis = 0; axis < 2; ++axis)
      for (const double sign : {1.0, -1.0}) {
        Eigen::Vector3d inward = Eigen::Vector3d::Zero();
        inward[axis] = -sign;
        // The sloping wall through the outlet's edge, its normal inwards and up; the bin's vertical wall.
        const Eigen::Vector3d n = s * (inward + Eigen::Vector3d::UnitZ());
        m.walls.push_back(contact::Wall{n, -s * h.a});
        m.walls.push_back(contact::Wall{inward, -h.B});
      }
  }
  for (const Eigen::Vector3d& x : lattice(h, beads)) m.bodies.add_sphere(x, kR, 2500.0);
  return m;
}

struct Result {
  double wall = 0, cpu = 0, broad_cpu = 0, narrow_cpu = 0, solve_cpu = 0, contacts = 0, wall_contacts = 0, sweeps = 0;
  int unconverged = 0;
};

void add(Result& r, const GranularStepper& s, const GranularStepReport& rep, int steps) {
  for (int q = 0; q < kPhaseCount; ++q) r.wall += rep.phase_seconds[q] / steps, r.cpu += rep.phase_cpu_seconds[q] / steps;
  r.broad_cpu += rep.phase_cpu_seconds[static_cast<int>(Phase::Broad)] / steps;
  r.narrow_cpu += rep.phase_cpu_seconds[static_cast<int>(Phase::Narrow)] / steps;
  r.solve_cpu += rep.phase_cpu_seconds[static_cast<int>(Phase::Solve)] / steps;
  r.contacts += double(rep.contacts) / steps;
  int walls = 0;
  for (const SweepContact& c : s.contacts()) walls += c.a < 0;
  r.wall_contacts += double(walls) / steps;
  r.sweeps += double(rep.solver.iterations) / steps;
  r.unconverged += rep.solver.converged() ? 0 : 1;
}

// The two variants step in turn (a step of one, then of the other), so that a change in the machine's load
// during the run falls on both.
void run(Model& ma, Model& mb, const GranularParameters& p, int warmup, int steps, Result& a, Result& b) {
  GranularStepper sa(ma, p), sb(mb, p);
  for (int k = 0; k < warmup; ++k) sa.step(), sb.step();
  for (int k = 0; k < steps; ++k) {
    add(a, sa, sa.step(), steps);
    add(b, sb, sb.step(), steps);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Mesh-wall bench: a filled square hopper stepped with analytic planes and with a triangle mesh of "
               "the same walls (issue 14 item 6)"};
  long beads = 100000;
  int triangles = 10000, steps = 10, warmup = 2, threads = 1;
  double tolerance = 1e-4;
  int sweeps = 20;
  std::string json;
  app.add_option("--beads", beads, "beads in the hopper")->check(CLI::Range(100L, 100000000L))->capture_default_str();
  app.add_option("--triangles", triangles, "triangles of the mesh (about)")->check(CLI::Range(16, 100000000))->capture_default_str();
  app.add_option("--steps", steps, "timed steps per variant")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--warmup", warmup, "untimed steps before them")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--threads", threads, "threads of the stepper")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--sweeps", sweeps, "sweeps per step (0: solve to --tolerance)")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--tolerance", tolerance, "solver tolerance with --sweeps 0")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--json", json, "also write the results to this JSON file");
  CLI11_PARSE(app, argc, argv);

  const Hopper h = hopper_for(beads);
  GranularParameters p;
  p.solver = GranularSolver::Anderson;
  p.tolerance = tolerance;
  p.threads = threads;
  if (sweeps > 0) {
    // A fixed amount of solver work: a tolerance no step reaches, the sweeps capped, the unconverged step kept.
    p.solver = GranularSolver::MatrixFree;
    p.tolerance = 1e-300;
    p.max_sweeps = sweeps;
    p.on_failure = FailurePolicy::Keep;
  }
  Model analytic = filled_hopper(h, beads, false, triangles), meshed = filled_hopper(h, beads, true, triangles);
  std::printf("mesh_hopper: %ld beads in a square hopper (outlet %.3f m, bin %.3f m wide, %.3f m tall), mesh of %d "
              "triangles, %d thread(s), %d + %d steps per variant\n",
              beads, 2 * h.a, 2 * h.B, h.z_top, meshed.meshes[0]->faces(), threads, warmup, steps);
  std::fflush(stdout);
  Result a, b;
  run(analytic, meshed, p, warmup, steps, a, b);
  std::printf("  analytic  %8.4f s/step (cpu %8.4f: broad %7.4f, narrow %7.4f, solve %7.4f)  contacts %9.0f (walls %7.0f)  sweeps %6.1f%s\n",
              a.wall, a.cpu, a.broad_cpu, a.narrow_cpu, a.solve_cpu, a.contacts, a.wall_contacts, a.sweeps,
              a.unconverged && sweeps == 0 ? "  (unconverged steps)" : "");
  std::printf("  mesh      %8.4f s/step (cpu %8.4f: broad %7.4f, narrow %7.4f, solve %7.4f)  contacts %9.0f (walls %7.0f)  sweeps %6.1f%s\n",
              b.wall, b.cpu, b.broad_cpu, b.narrow_cpu, b.solve_cpu, b.contacts, b.wall_contacts, b.sweeps,
              b.unconverged && sweeps == 0 ? "  (unconverged steps)" : "");
  const double overhead = b.cpu / a.cpu - 1.0;
  const double detect_overhead = (b.broad_cpu + b.narrow_cpu - a.broad_cpu - a.narrow_cpu) / a.cpu;
  std::printf("  mesh overhead per step (CPU): %+.1f %% in all, %+.1f %% of the analytic step in detection + narrow phase\n",
              100 * overhead, 100 * detect_overhead);
  if (!json.empty()) {
    nlohmann::ordered_json j = app::command_record(argc, argv);
    const auto rec = [](const Result& r) {
      return nlohmann::ordered_json{{"seconds_per_step", r.wall}, {"cpu_seconds_per_step", r.cpu}, {"broad_cpu", r.broad_cpu},
                            {"narrow_cpu", r.narrow_cpu}, {"solve_cpu", r.solve_cpu}, {"contacts", r.contacts},
                            {"wall_contacts", r.wall_contacts}, {"sweeps", r.sweeps}, {"unconverged_steps", r.unconverged}};
    };
    j["beads"] = beads, j["triangles"] = meshed.meshes[0]->faces(), j["threads"] = threads, j["steps"] = steps;
    j["sweeps_per_step"] = sweeps;
    j["analytic"] = rec(a), j["mesh"] = rec(b);
    j["overhead"] = overhead, j["detection_overhead"] = detect_overhead;
    app::write_json_file(json, j);
  }
  return 0;
}
