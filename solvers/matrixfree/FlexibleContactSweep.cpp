#include "solvers/matrixfree/FlexibleContactSweep.hpp"

#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::matrixfree {

namespace {

constexpr solvers::LocalSolveSettings kLocalSettings{};

// Column k (0: n, 1: t1, 2: t2) of the contact's response M̂⁻¹ Jᵀ on its body's unknowns.
inline const double* response_column(const FlexibleContact& c, const FlexibleContactSweep& set, int k) {
  return set.response.data() + c.response + static_cast<std::size_t>(k) * set.bodies[c.body].dofs;
}

// The impulse change dr (frame) applied to the rigid body (world d at lever arm p) and to the flexible body.
inline void push(const FlexibleContact& c, const Eigen::Vector3d& dr, const FlexibleContactSweep& set,
                 const BodyArrays& b) {
  const Eigen::Vector3d d = dr[0] * c.n + dr[1] * c.t1 + dr[2] * c.t2;
  const int i = c.rigid;
  b.v[i] += b.inv_mass[i] * d;
  if (i < b.spheres)
    b.w[i] += b.inv_inertia[i] * c.p.cross(d);
  else
    b.w[i] += b.inv_inertia_world_of(i) * c.p.cross(d);
  const FlexibleBody& f = set.bodies[c.body];
  for (int k = 0; k < 3; ++k) {
    if (dr[k] == 0.0) continue;
    const double* col = response_column(c, set, k);
    for (int j = 0; j < f.dofs; ++j) f.v[j] += col[j] * dr[k];
  }
}

inline double contact_error(const FlexibleContact& c, const FlexibleContactSweep& set, const BodyArrays& b) {
  const Eigen::Vector3d u = flexible_contact_velocity(c, set, b);
  return solvers::contact_residual_squared(c.r.data(), u.data(), 3, c.local.mu);
}

}  // namespace

void prepare_flexible_contact(FlexibleContact& c, const Eigen::Vector3d& n, const Eigen::Vector3d& t1,
                              const Eigen::Vector3d& t2, const Eigen::Vector3d& p, double mu, const BodyArrays& b,
                              const std::vector<double>& response, int dofs) {
  c.n = n, c.t1 = t1, c.t2 = t2, c.p = p;
  Eigen::Matrix3d F;
  F.row(0) = n.transpose(), F.row(1) = t1.transpose(), F.row(2) = t2.transpose();
  Eigen::Matrix3d px;
  px << 0.0, -p.z(), p.y(), p.z(), 0.0, -p.x(), -p.y(), p.x(), 0.0;
  const int i = c.rigid;
  const Eigen::Matrix3d inv_inertia =
      i < b.spheres ? Eigen::Matrix3d(b.inv_inertia[i] * Eigen::Matrix3d::Identity()) : b.inv_inertia_world_of(i);
  const Eigen::Matrix3d rigid = b.inv_mass[i] * Eigen::Matrix3d::Identity() - px * inv_inertia * px;
  Eigen::Matrix<double, 3, 3, Eigen::RowMajor> W = F * rigid * F.transpose();
  // J M̂⁻¹ Jᵀ: row a of J against column k of the response (M̂⁻¹ Jᵀ e_k), read at the contact's unknowns.
  for (int k = 0; k < 3; ++k) {
    const double* col = response.data() + c.response + static_cast<std::size_t>(k) * dofs;
    for (int j = 0; j < 4; ++j)
      if (c.dof[j] >= 0)
        for (int a = 0; a < 3; ++a) W(a, k) += c.J(a, j) * col[c.dof[j]];
  }
  c.local = solvers::prepare_local_contact<3>(W.data(), mu);
}

Eigen::Vector3d flexible_contact_velocity(const FlexibleContact& c, const FlexibleContactSweep& set,
                                          const BodyArrays& b) {
  const Eigen::Vector3d vp = b.v[c.rigid] + b.w[c.rigid].cross(c.p);
  Eigen::Vector3d u(c.n.dot(vp) + c.extra, c.t1.dot(vp), c.t2.dot(vp));
  const double* v = set.bodies[c.body].v;
  for (int j = 0; j < 4; ++j)
    if (c.dof[j] >= 0) u += c.J.col(j) * v[c.dof[j]];
  return u;
}

void apply_flexible_impulses(FlexibleContactSweep& set, const BodyArrays& b) {
#pragma omp single
  for (const FlexibleContact& c : set.contacts) push(c, c.r, set, b);
}

void sweep_flexible_contacts(FlexibleContactSweep& set, const BodyArrays& b) {
#pragma omp single
  for (FlexibleContact& c : set.contacts) {
    const Eigen::Vector3d u = flexible_contact_velocity(c, set, b);
    const Eigen::Vector3d rhs = u - c.local.W * c.r;
    Eigen::Vector3d r = c.r;
    solvers::solve_local_contact<3>(solvers::LocalSolverKind::Analytic, c.local, rhs, r, kLocalSettings);
    push(c, r - c.r, set, b);
    c.r = r;
  }
}

void flexible_residual(FlexibleContactSweep& set, const BodyArrays& b) {
#pragma omp single
  {
    double s = 0.0;
    for (const FlexibleContact& c : set.contacts) s += contact_error(c, set, b);
    set.squared_error = s;
  }
}

double flexible_squared_velocity(const FlexibleContactSweep& set, const BodyArrays& b) {
  double s = 0.0;
  for (const FlexibleContact& c : set.contacts) s += flexible_contact_velocity(c, set, b).squaredNorm();
  return s;
}

}  // namespace talus::matrixfree
