#include "solvers/matrixfree/GeneralContactSweep.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::matrixfree {

namespace {

constexpr int kBlock = 2048;  // contacts per residual block: fixed, so the sum's order never changes
constexpr solvers::LocalSolveSettings kLocalSettings{};

inline Eigen::Matrix3d cross_matrix(const Eigen::Vector3d& p) {
  Eigen::Matrix3d m;
  m << 0.0, -p.z(), p.y(), p.z(), 0.0, -p.x(), -p.y(), p.x(), 0.0;
  return m;
}

// m⁻¹ 1 − [p]× I⁻¹ [p]× of one body (zero when fixed).
// A sphere's inverse inertia is the scalar inv_inertia, a capsule's the world tensor of the step.
Eigen::Matrix3d body_block(BodyKind kind, int i, const Eigen::Vector3d& p, const BodyArrays& b) {
  if (kind == BodyKind::Fixed) return Eigen::Matrix3d::Zero();
  const Eigen::Matrix3d px = cross_matrix(p);
  if (kind == BodyKind::Sphere) return b.inv_mass[i] * Eigen::Matrix3d::Identity() - b.inv_inertia[i] * px * px;
  return b.inv_mass[i] * Eigen::Matrix3d::Identity() - px * b.inv_inertia_world_of(i) * px;
}

inline Eigen::Vector3d point_velocity(BodyKind kind, int i, const Eigen::Vector3d& p, const BodyArrays& b) {
  if (kind == BodyKind::Fixed) return Eigen::Vector3d::Zero();
  return b.v[i] + b.w[i].cross(p);
}

// The impulse d (world) applied at lever arm p of one body.
inline void apply(BodyKind kind, int i, const Eigen::Vector3d& p, const Eigen::Vector3d& d, const BodyArrays& b) {
  if (kind == BodyKind::Sphere) {
    b.v[i] += b.inv_mass[i] * d;
    b.w[i] += b.inv_inertia[i] * p.cross(d);
  } else if (kind == BodyKind::Capsule) {
    b.v[i] += b.inv_mass[i] * d;
    b.w[i] += b.inv_inertia_world_of(i) * p.cross(d);
  }
}

inline void push(const GeneralContact& c, const Eigen::Vector3d& dr, const BodyArrays& b) {
  const Eigen::Vector3d d = dr[0] * c.n + dr[1] * c.t1 + dr[2] * c.t2;
  apply(c.kind_b, c.b, c.pb, d, b);
  apply(c.kind_a, c.a, c.pa, -d, b);
}

inline void update(GeneralContact& c, const BodyArrays& b, bool rolling) {
  const Eigen::Vector3d u = general_contact_velocity(c, b);
  const Eigen::Vector3d rhs = u - c.local.W * c.r;
  Eigen::Vector3d r = c.r;
  solvers::solve_local_contact<3>(solvers::LocalSolverKind::Analytic, c.local, rhs, r, kLocalSettings);
  push(c, r - c.r, b);
  c.r = r;
  if (rolling && c.roll.w > 0.0) rolling_update(c, c.roll, b, c.roll_surface);
}

inline double contact_error(const GeneralContact& c, const BodyArrays& b, bool rolling) {
  const Eigen::Vector3d u = general_contact_velocity(c, b);
  const double e = solvers::contact_residual_squared(c.r.data(), u.data(), 3, c.local.mu);
  return rolling && c.roll.w > 0.0 ? e + rolling_error_squared(c, c.roll, b, c.roll_surface) : e;
}

template <class F>
void for_each_colour(GeneralContactSweep& set, F&& f) {
  for (int k = 0; k < set.colours.colours(); ++k)
    for_colour(set.colours, k, 0, false, [&](int i) { f(set.contacts[i]); });
}

}  // namespace

void prepare_general_contact(GeneralContact& c, const Eigen::Vector3d& n, const Eigen::Vector3d& t1,
                             const Eigen::Vector3d& t2, const Eigen::Vector3d& pa, const Eigen::Vector3d& pb,
                             double mu, const BodyArrays& b) {
  c.n = n, c.t1 = t1, c.t2 = t2;
  c.pa = pa, c.pb = pb;
  Eigen::Matrix3d F;
  F.row(0) = c.n.transpose(), F.row(1) = c.t1.transpose(), F.row(2) = c.t2.transpose();
  const Eigen::Matrix3d M = body_block(c.kind_a, c.a, pa, b) + body_block(c.kind_b, c.b, pb, b);
  const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> W = F * M * F.transpose();
  c.local = solvers::prepare_local_contact<3>(W.data(), mu);
}

Eigen::Vector3d general_contact_velocity(const GeneralContact& c, const BodyArrays& b) {
  const Eigen::Vector3d rel = point_velocity(c.kind_b, c.b, c.pb, b) - point_velocity(c.kind_a, c.a, c.pa, b);
  return Eigen::Vector3d(c.n.dot(rel) + c.extra, c.t1.dot(rel) + c.extra_t[0], c.t2.dot(rel) + c.extra_t[1]);
}

void apply_general_impulses(GeneralContactSweep& set) {
  for_each_colour(set, [&](const GeneralContact& c) {
    push(c, c.r, set.bodies);
    if (set.rolling && c.roll.w > 0.0) push_rolling(c, c.roll, c.roll.rho, set.bodies);
  });
  if (!set.flexible.empty()) apply_flexible_impulses(set.flexible, set.bodies);
}

void sweep_general_contacts(GeneralContactSweep& set) {
  for_each_colour(set, [&](GeneralContact& c) { update(c, set.bodies, set.rolling); });
  if (!set.flexible.empty()) sweep_flexible_contacts(set.flexible, set.bodies);
}

void general_residual_blocks(GeneralContactSweep& set) {
  const int n = static_cast<int>(set.contacts.size());
  const int blocks = static_cast<int>(set.block_sums.size());
#pragma omp for schedule(static)
  for (int k = 0; k < blocks; ++k) {
    double s = 0.0;
    for (int i = k * kBlock, e = std::min(n, (k + 1) * kBlock); i < e; ++i)
      s += contact_error(set.contacts[i], set.bodies, set.rolling);
    set.block_sums[k] = s;
  }
  if (!set.flexible.empty()) flexible_residual(set.flexible, set.bodies);
}

double general_squared_error(const GeneralContactSweep& set) {
  double s = 0.0;
  for (double v : set.block_sums) s += v;
  return set.flexible.empty() ? s : s + set.flexible.squared_error;
}

double general_squared_velocity(const GeneralContactSweep& set) {
  double s = 0.0;
  for (const GeneralContact& c : set.contacts) s += general_contact_velocity(c, set.bodies).squaredNorm();
  return set.flexible.empty() ? s : s + flexible_squared_velocity(set.flexible, set.bodies);
}

}  // namespace talus::matrixfree
