#include "engine/granular/GranularFailure.hpp"

#include <cmath>
#include <cstdio>

namespace talus::granular {

namespace {

std::string num(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", x);
  return b;
}

std::string vec(const Eigen::Vector3d& v) {
  char b[160];
  std::snprintf(b, sizeof b, "(%g, %g, %g)", v.x(), v.y(), v.z());
  return b;
}

}  // namespace

std::string non_finite_body(const Model& m) {
  auto where = [](const char* kind, std::uint32_t id, int i, const char* what) {
    return std::string(kind) + " id " + std::to_string(id) + " (index " + std::to_string(i) + "): " + what + " ";
  };
  // Indices are within each kind's group, as the outputs number them.
  const RigidBodies& b = m.bodies;
  for (int i = 0; i < b.spheres(); ++i) {
    if (!b.x[i].allFinite()) return where("bead", b.id[i], i, "position") + vec(b.x[i]);
    if (!b.v[i].allFinite()) return where("bead", b.id[i], i, "velocity") + vec(b.v[i]);
    if (!b.w[i].allFinite()) return where("bead", b.id[i], i, "angular velocity") + vec(b.w[i]);
  }
  for (int c = 0; c < b.capsules(); ++c) {
    const int i = b.capsule(c);
    if (!b.x[i].allFinite()) return where("capsule", b.id[i], c, "position") + vec(b.x[i]);
    if (!b.v[i].allFinite()) return where("capsule", b.id[i], c, "velocity") + vec(b.v[i]);
    if (!b.w[i].allFinite()) return where("capsule", b.id[i], c, "angular velocity") + vec(b.w[i]);
    if (!b.q[i].coeffs().allFinite()) return where("capsule", b.id[i], c, "orientation") + vec(b.q[i].vec());
  }
  for (const LagrangianLti& s : m.lti) {
    if (!s.q.allFinite()) return "system '" + s.name + "': coordinates not finite";
    if (!s.v.allFinite()) return "system '" + s.name + "': velocities not finite";
  }
  if (!std::isfinite(m.time)) return "the clock: time " + std::to_string(m.time);
  return "";
}

std::string non_finite_after_solve(const Model& m, const std::vector<SweepContact>& contacts,
                                   const GeneralContactSet& general) {
  const auto& ids = m.bodies.id;
  auto impulse = [](const Eigen::Vector3d& r) { return ": impulse (" + num(r[0]) + ", " + num(r[1]) + ", " + num(r[2]) + ")"; };
  for (const SweepContact& c : contacts)
    if (!c.r.allFinite())
      return "contact of bead id " + std::to_string(ids[c.b]) +
             (c.a >= 0 ? " with bead id " + std::to_string(ids[c.a]) : std::string(" with a wall or box")) + impulse(c.r);
  auto body = [&](BodyKind kind, int i) {
    if (kind == BodyKind::Fixed) return std::string("an obstacle");
    return std::string(kind == BodyKind::Sphere ? "bead id " : "capsule id ") + std::to_string(ids[i]);
  };
  for (const GeneralContact& c : general.contacts)
    if (!c.r.allFinite()) return "contact of " + body(c.kind_b, c.b) + " with " + body(c.kind_a, c.a) + impulse(c.r);
  for (const FlexibleContact& c : general.flexible.contacts)
    if (!c.r.allFinite())
      return "contact of " + body(c.rigid < m.bodies.spheres() ? BodyKind::Sphere : BodyKind::Capsule, c.rigid) +
             " with a beam" + impulse(c.r);
  return non_finite_body(m);
}

std::string fastest_body(const Model& m, matrixfree::PartitionedSolve* spread) {
  // The body as a tag: 2 id + 1 for a capsule, −1 for none. A partitioned model's ghosts are other processes'.
  double vmax = -1.0;
  std::int64_t tag = -1;
  const int own = spread ? spread->own_spheres(m.bodies.spheres()) : m.bodies.spheres();
  for (int i = 0; i < own; ++i)
    if (m.bodies.v[i].norm() > vmax) vmax = m.bodies.v[i].norm(), tag = 2 * static_cast<std::int64_t>(m.bodies.id[i]);
  for (int i = m.bodies.capsule(0); i < m.bodies.capsule(m.bodies.capsules()); ++i)
    if (m.bodies.v[i].norm() > vmax) vmax = m.bodies.v[i].norm(), tag = 2 * static_cast<std::int64_t>(m.bodies.id[i]) + 1;
  if (spread) spread->largest_over_processes(vmax, tag);
  const std::string which =
      tag < 0 ? "no bodies" : std::string(tag % 2 ? "capsule id " : "bead id ") + std::to_string(tag / 2);
  return "the fastest body after it: " + which + " at " + num(vmax) + " m/s";
}

}  // namespace talus::granular
