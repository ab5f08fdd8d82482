#include "engine/granular/GranularFailure.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>

#include "solvers/matrixfree/ResidualBreakdown.hpp"

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

std::string residual_report(const Model& m, const std::vector<SweepContact>& contacts,
                            const matrixfree::BodyArrays& beads, matrixfree::PartitionedSolve* spread) {
  std::function<bool(int)> counted;
  if (spread) counted = [spread](int i) { return spread->counts_contact(i); };
  matrixfree::ResidualBreakdown r = matrixfree::residual_breakdown(contacts, beads, counted);
  // The largest error's contact as a tag of its beads' ids (the second + 1, 0 for an obstacle), so that every
  // process can name it.
  std::int64_t tag = -1;
  if (r.worst >= 0) {
    const SweepContact& c = contacts[r.worst];
    const std::uint64_t a = c.a >= 0 ? static_cast<std::uint64_t>(m.bodies.id[c.a]) + 1 : 0;
    tag = static_cast<std::int64_t>((static_cast<std::uint64_t>(m.bodies.id[c.b]) << 32) | (a & 0xffffffffu));
  }
  if (spread) {
    std::array<double, matrixfree::ResidualBreakdown::kSums> sums = r.sums();
    spread->sum_over_processes(sums.data(), static_cast<int>(sums.size()));
    r.set_sums(sums);
    spread->largest_over_processes(r.worst_error, tag);
  }
  if (tag < 0 && r.worst_error < 0.0) return "no bead contacts";
  char b[512];
  std::string out;
  {
    const std::uint64_t t = static_cast<std::uint64_t>(tag);
    const std::uint64_t a = t & 0xffffffffu;
    out = "the largest contact error: bead id " + std::to_string(t >> 32) +
          (a ? " with bead id " + std::to_string(a - 1) : std::string(" with an obstacle"));
    std::snprintf(b, sizeof b, " (%.2g)", r.worst_error);
    out += b;
  }
  const double total = r.squared();
  if (total > 0.0) {
    auto pct = [total](double x) { return 100.0 * x / total; };
    std::snprintf(b, sizeof b,
                  "; of the bead contacts' squared residual: sticking %.0f %% (%.0f contacts), sliding %.0f %% (%.0f), "
                  "open %.0f %% (%.0f)",
                  pct(r.sticking.squared), r.sticking.contacts, pct(r.sliding.squared), r.sliding.contacts,
                  pct(r.open.squared), r.open.contacts);
    out += b;
  }
  // Rolling: the translations' and the spins' slips each much larger than the slip they leave.
  if (r.sticking.contacts > 0.0) {
    std::snprintf(b, sizeof b,
                  "; at the sticking contacts the slips of the beads' translations and of their spins (sums of squares "
                  "%.2e and %.2e m²/s²) leave %.2e%s",
                  r.translation_slip, r.spin_slip, r.slip,
                  r.rolling_ratio() > 10.0 ? ": the beads roll on each other" : "");
    out += b;
  }
  return out;
}

}  // namespace talus::granular
