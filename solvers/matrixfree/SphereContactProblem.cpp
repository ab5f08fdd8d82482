#include "solvers/matrixfree/SphereContactProblem.hpp"

#include <cmath>
#include <stdexcept>

namespace talus::matrixfree {

namespace {

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument("global problem is not a sphere-contact problem: " + what);
}

// One body's share of a contact's three columns: the velocity rows and the angular-velocity rows.
struct BodyShare {
  int body = -1;
  Eigen::Matrix3d lin = Eigen::Matrix3d::Zero(), ang = Eigen::Matrix3d::Zero();  // column r: frame row r
};

bool close(const Eigen::Vector3d& a, const Eigen::Vector3d& b, double scale) {
  return (a - b).norm() <= 1e-10 * scale;
}

}  // namespace

SphereContactProblem sphere_problem_from_global(const solvers::GlobalFrictionContactProblem& g) {
  solvers::validate(g);
  if (g.dim != 3) refuse("dim is " + std::to_string(g.dim) + " (expected 3)");
  const Index n = g.M.rows();
  if (n % 6 != 0) refuse("M has " + std::to_string(n) + " rows (expected 6 per body)");
  const int bodies = static_cast<int>(n / 6);
  SphereContactProblem p;
  p.inv_mass.resize(bodies);
  p.inv_inertia.resize(bodies);
  p.v_free.resize(bodies);
  p.w_free.resize(bodies);
  // M: diagonal, (m, m, m, I, I, I) per body.
  Eigen::VectorXd diag = Eigen::VectorXd::Zero(n);
  for (Index j = 0; j < g.M.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(g.M, j); it; ++it) {
      if (it.row() != it.col() && it.value() != 0.0)
        refuse("M(" + std::to_string(it.row()) + ", " + std::to_string(it.col()) + ") is off the diagonal");
      if (it.row() == it.col()) diag[it.row()] += it.value();
    }
  for (int k = 0; k < bodies; ++k) {
    const double m = diag[6 * k], I = diag[6 * k + 3];
    for (int d = 0; d < 3; ++d) {
      if (!(diag[6 * k + d] > 0.0) || std::abs(diag[6 * k + d] - m) > 1e-12 * m)
        refuse("body " + std::to_string(k) + ": its three mass entries of M differ or are not positive");
      if (!(diag[6 * k + 3 + d] > 0.0) || std::abs(diag[6 * k + 3 + d] - I) > 1e-12 * I)
        refuse("body " + std::to_string(k) + ": its inertia is not isotropic and positive");
    }
    p.inv_mass[k] = 1.0 / m, p.inv_inertia[k] = 1.0 / I;
    p.v_free[k] = g.f.segment<3>(6 * k) / m;
    p.w_free[k] = g.f.segment<3>(6 * k + 3) / I;
  }
  // H: per contact, the bodies its three columns touch (H is stored by rows: a column-major copy).
  const SparseMatrixCol H = g.H;
  const Index contacts = g.contacts();
  p.contacts.resize(contacts);
  for (Index i = 0; i < contacts; ++i) {
    const std::string who = "contact " + std::to_string(i);
    BodyShare share[2];
    int touched = 0;
    for (int r = 0; r < 3; ++r)
      for (SparseMatrixCol::InnerIterator it(H, 3 * i + r); it; ++it) {
        if (it.value() == 0.0) continue;
        const int body = static_cast<int>(it.row() / 6), row = static_cast<int>(it.row() % 6);
        int s = 0;
        while (s < touched && share[s].body != body) ++s;
        if (s == touched) {
          if (touched == 2) refuse(who + " touches more than two bodies");
          share[touched++].body = body;
        }
        (row < 3 ? share[s].lin : share[s].ang)(row % 3, r) = it.value();
      }
    if (touched == 0) refuse(who + " touches no body");
    // The second body (b) carries +n: with two bodies, the one of higher index (the granular path's order).
    if (touched == 2 && share[0].body > share[1].body) std::swap(share[0], share[1]);
    const BodyShare& B = share[touched - 1];
    const BodyShare* A = touched == 2 ? &share[0] : nullptr;
    SweepContact& c = p.contacts[i];
    c.b = B.body, c.a = A ? A->body : -1;
    c.n = B.lin.col(0), c.t1 = B.lin.col(1), c.t2 = B.lin.col(2);
    Eigen::Matrix3d F;
    F << c.n, c.t1, c.t2;
    if (!((F.transpose() * F - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() <= 1e-10))
      refuse(who + ": its velocity rows on body " + std::to_string(c.b) + " are not an orthonormal frame");
    // Lever arms along the normal: the angular rows are −r (n × e); n × t1 is a unit vector.
    const Eigen::Vector3d nt1 = c.n.cross(c.t1);
    c.rb = -B.ang.col(1).dot(nt1);
    c.ra = A ? -A->ang.col(1).dot(nt1) : 0.0;
    const double scale = 1.0 + std::abs(c.rb) + std::abs(c.ra);
    for (int r = 0; r < 3; ++r) {
      const Eigen::Vector3d turn = c.n.cross(F.col(r));
      if (!close(B.ang.col(r), -c.rb * turn, scale) || (A && !close(A->ang.col(r), -c.ra * turn, scale)))
        refuse(who + ": a lever arm is not along the normal (angular rows of frame row " + std::to_string(r) + ")");
      if (A && !close(A->lin.col(r), -F.col(r), 1.0))
        refuse(who + ": the velocity rows of its two bodies are not opposite");
    }
    if (g.w[3 * i + 1] != 0.0 || g.w[3 * i + 2] != 0.0) refuse(who + ": w has a tangential part");
    c.extra = g.w[3 * i];
    c.mu = g.mu[i];
    const double ima = A ? p.inv_mass[c.a] : 0.0, iia = A ? p.inv_inertia[c.a] : 0.0;
    c.wn = ima + p.inv_mass[c.b];
    c.wt = c.wn + iia * c.ra * c.ra + p.inv_inertia[c.b] * c.rb * c.rb;
    c.r.setZero();
  }
  return p;
}

solvers::SolverStats solve_sphere_problem(const SphereContactProblem& problem, const MatrixFreeParameters& params,
                                          SphereSolveOutput& out, MatrixFreeWorkspace& work) {
  const int n = static_cast<int>(problem.contacts.size()), nb = problem.bodies();
  std::vector<std::int32_t> a(n), b(n);
  for (int k = 0; k < n; ++k) a[k] = problem.contacts[k].a, b[k] = problem.contacts[k].b;
  SweepLayout layout;
  build_sweep_layout(a.data(), b.data(), n, nb, default_partitions(nb), layout);
  std::vector<SweepContact> sweep(n);
  const bool warm = out.r.size() == 3 * n;
  for (int k = 0; k < n; ++k) {
    SweepContact& c = sweep[layout.slot[k]];
    c = problem.contacts[k];
    if (warm) c.r = out.r.segment<3>(3 * k);
  }
  out.v = problem.v_free, out.w = problem.w_free;
  BodyArrays bodies;
  bodies.v = out.v.data(), bodies.w = out.w.data();
  bodies.inv_mass = problem.inv_mass.data(), bodies.inv_inertia = problem.inv_inertia.data();
  bodies.count = bodies.spheres = nb;
  // ‖q‖ on the free velocities (the residual's scale), then the warm start's impulses.
  const double q_norm = std::sqrt(squared_contact_velocities(sweep, bodies, params.threads, work));
  apply_impulses(sweep, layout, bodies, params.threads);
  const solvers::SolverStats stats = solve_matrix_free(sweep, layout, bodies, q_norm, params, work);
  out.r.resize(3 * n), out.u.resize(3 * n);
  for (int k = 0; k < n; ++k) {
    const SweepContact& c = sweep[layout.slot[k]];
    out.r.segment<3>(3 * k) = c.r;
    Eigen::Vector3d u = contact_velocity(c, bodies);
    out.u.segment<3>(3 * k) = u;
  }
  return stats;
}

}  // namespace talus::matrixfree
