#include "engine/granular/AssembledProblem.hpp"

#include "solvers/matrixfree/MatrixFreeNsgs.hpp"

namespace talus::granular {

namespace {

Eigen::Matrix3d skew(const Eigen::Vector3d& p) {
  Eigen::Matrix3d s;
  s << 0, -p.z(), p.y(), p.z(), 0, -p.x(), -p.y(), p.x(), 0;
  return s;
}

}  // namespace

solvers::FrictionContactProblem assemble_problem(const std::vector<SweepContact>& contacts, const RigidBodies& beads) {
  const int n = static_cast<int>(contacts.size());
  const BodyArrays view = body_arrays(beads);
  const int nb = beads.spheres();
  // Contacts of each bead (CSR), with the bead's side and lever arm.
  std::vector<int> start(nb + 1, 0);
  for (const SweepContact& c : contacts) {
    ++start[c.b + 1];
    if (c.a >= 0) ++start[c.a + 1];
  }
  for (int k = 0; k < nb; ++k) start[k + 1] += start[k];
  struct Incidence {
    int contact;
    double sign;
    Eigen::Vector3d p;
  };
  std::vector<Incidence> inc(start[nb]);
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (int i = 0; i < n; ++i) {
    const SweepContact& c = contacts[i];
    if (c.a >= 0) inc[fill[c.a]++] = {i, -1.0, c.ra * c.n};
    inc[fill[c.b]++] = {i, 1.0, -c.rb * c.n};
  }
  std::vector<Triplet> t;
  t.reserve(static_cast<std::size_t>(9) * (start[nb] * 6));
  for (int k = 0; k < nb; ++k) {
    for (int x = start[k]; x < start[k + 1]; ++x) {
      const Incidence& ix = inc[x];
      const SweepContact& ci = contacts[ix.contact];
      Eigen::Matrix3d Ri;
      Ri << ci.n, ci.t1, ci.t2;
      for (int y = start[k]; y < start[k + 1]; ++y) {
        const Incidence& iy = inc[y];
        const SweepContact& cj = contacts[iy.contact];
        Eigen::Matrix3d Rj;
        Rj << cj.n, cj.t1, cj.t2;
        const Eigen::Matrix3d inner =
            beads.inv_mass[k] * Eigen::Matrix3d::Identity() - beads.inv_inertia[k] * skew(ix.p) * skew(iy.p);
        const Eigen::Matrix3d block = ix.sign * iy.sign * Ri.transpose() * inner * Rj;
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s) t.emplace_back(3 * ix.contact + r, 3 * iy.contact + s, block(r, s));
      }
    }
  }
  solvers::FrictionContactProblem p;
  p.dim = 3;
  p.W.resize(3 * n, 3 * n);
  p.W.setFromTriplets(t.begin(), t.end());
  p.q.resize(3 * n);
  p.mu.resize(n);
  for (int i = 0; i < n; ++i) {
    p.q.segment<3>(3 * i) = contact_velocity(contacts[i], view);
    p.mu[i] = contacts[i].mu;
  }
  return p;
}

solvers::GlobalFrictionContactProblem assemble_global_problem(const std::vector<SweepContact>& contacts,
                                                              const RigidBodies& beads) {
  const int n = static_cast<int>(contacts.size());
  const int nb = beads.spheres();
  solvers::GlobalFrictionContactProblem g;
  g.dim = 3;
  std::vector<Triplet> t;
  t.reserve(static_cast<std::size_t>(6) * nb);
  g.f.resize(6 * nb);
  for (int k = 0; k < nb; ++k) {
    const double inertia = 1.0 / beads.inv_inertia[k], mass = 1.0 / beads.inv_mass[k];
    for (int d = 0; d < 3; ++d) {
      t.emplace_back(6 * k + d, 6 * k + d, mass);
      t.emplace_back(6 * k + 3 + d, 6 * k + 3 + d, inertia);
    }
    g.f.segment<3>(6 * k) = mass * beads.v[k];
    g.f.segment<3>(6 * k + 3) = inertia * beads.w[k];
  }
  g.M.resize(6 * nb, 6 * nb);
  g.M.setFromTriplets(t.begin(), t.end());
  // u_k = e_k · (v_b − r_b ω_b × n − v_a − r_a ω_a × n) (contact_velocity), i.e. the coefficient of ω is
  // −r (n × e_k) on either side.
  t.clear();
  t.reserve(static_cast<std::size_t>(36) * n);
  g.w = Eigen::VectorXd::Zero(3 * n);
  g.mu.resize(n);
  for (int i = 0; i < n; ++i) {
    const SweepContact& c = contacts[i];
    const Eigen::Vector3d e[3] = {c.n, c.t1, c.t2};
    for (int r = 0; r < 3; ++r) {
      const Eigen::Vector3d turn = c.n.cross(e[r]);
      for (int d = 0; d < 3; ++d) {
        t.emplace_back(6 * c.b + d, 3 * i + r, e[r][d]);
        t.emplace_back(6 * c.b + 3 + d, 3 * i + r, -c.rb * turn[d]);
        if (c.a >= 0) {
          t.emplace_back(6 * c.a + d, 3 * i + r, -e[r][d]);
          t.emplace_back(6 * c.a + 3 + d, 3 * i + r, -c.ra * turn[d]);
        }
      }
    }
    g.w[3 * i] = c.extra;
    g.mu[i] = c.mu;
  }
  g.H.resize(6 * nb, 3 * n);
  g.H.setFromTriplets(t.begin(), t.end());
  g.H.prune(0.0, 0.0);
  return g;
}

}  // namespace talus::granular
