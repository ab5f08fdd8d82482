#include "solvers/matrixfree/JointSweep.hpp"

#include <algorithm>
#include <numeric>

namespace talus::matrixfree {

namespace {

Eigen::Matrix3d inverse_inertia(const BodyArrays& b, int i) {
  return i < b.spheres ? Eigen::Matrix3d(b.inv_inertia[i] * Eigen::Matrix3d::Identity())
                       : b.inv_inertia_world_of(i);
}

int root(std::vector<int>& parent, int k) {
  while (parent[k] != k) k = parent[k] = parent[parent[k]];
  return k;
}

void gather(const JointBlock& blk, const BodyArrays& b, Eigen::VectorXd& x) {
  for (std::size_t p = 0; p < blk.bodies.size(); ++p) {
    x.segment<3>(6 * p) = b.v[blk.bodies[p]];
    x.segment<3>(6 * p + 3) = b.w[blk.bodies[p]];
  }
}

void scatter_add(const JointBlock& blk, const BodyArrays& b, const Eigen::VectorXd& dx) {
  for (std::size_t p = 0; p < blk.bodies.size(); ++p) {
    b.v[blk.bodies[p]] += dx.segment<3>(6 * p);
    b.w[blk.bodies[p]] += dx.segment<3>(6 * p + 3);
  }
}

void block_velocity(JointBlock& blk, const JointSweep& s) {
  gather(blk, s.bodies, blk.x);
  blk.u.noalias() = blk.J * blk.x;
  for (std::size_t r = 0; r < blk.rows.size(); ++r) blk.u[r] += s.target[blk.rows[r]];
}

}  // namespace

void JointSweep::set_layout(const std::vector<int>& rows_per_joint) {
  const int n = static_cast<int>(rows_per_joint.size());
  bool same = n == joints();
  for (int k = 0; same && k < n; ++k) same = row_start[k + 1] - row_start[k] == rows_per_joint[k];
  body_a.resize(n);
  body_b.resize(n);
  row_start.resize(n + 1);
  row_start[0] = 0;
  for (int k = 0; k < n; ++k) row_start[k + 1] = row_start[k] + rows_per_joint[k];
  const int m = row_start[n];
  jac_a.resize(m);
  jac_b.resize(m);
  target.resize(m);
  if (!same || static_cast<int>(impulse.size()) != m) impulse.assign(m, 0.0);
}

void prepare_joint_blocks(JointSweep& s) {
  const int n = s.joints();
  // Connected components of the joints through their bodies (the world joins nothing).
  std::vector<int>& parent = s.parent;
  parent.resize(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (int k = 0; k < n; ++k)
    for (int l = 0; l < k; ++l) {
      const bool share = (s.body_a[k] >= 0 && (s.body_a[k] == s.body_a[l] || s.body_a[k] == s.body_b[l])) ||
                         (s.body_b[k] >= 0 && (s.body_b[k] == s.body_a[l] || s.body_b[k] == s.body_b[l]));
      if (share) parent[root(parent, k)] = root(parent, l);
    }
  int count = 0;
  std::vector<int>&block_of = s.block_of, &block_of_root = s.block_of_root;
  block_of.assign(n, -1);
  block_of_root.assign(n, -1);
  for (int k = 0; k < n; ++k) {
    const int r = root(parent, k);
    if (block_of_root[r] < 0) block_of_root[r] = count++;
    block_of[k] = block_of_root[r];
  }
  s.blocks.resize(count);
  for (JointBlock& blk : s.blocks) blk.rows.clear(), blk.bodies.clear();
  for (int k = 0; k < n; ++k) {
    JointBlock& blk = s.blocks[block_of[k]];
    for (int r = s.row_start[k]; r < s.row_start[k + 1]; ++r) blk.rows.push_back(r);
    for (int body : {s.body_a[k], s.body_b[k]})
      if (body >= 0 && std::find(blk.bodies.begin(), blk.bodies.end(), body) == blk.bodies.end())
        blk.bodies.push_back(body);
  }
  std::vector<int>& joint_of_row = s.joint_of_row;
  joint_of_row.resize(s.rows());
  for (int k = 0; k < n; ++k)
    for (int r = s.row_start[k]; r < s.row_start[k + 1]; ++r) joint_of_row[r] = k;
  const BodyArrays& b = s.bodies;
  for (JointBlock& blk : s.blocks) {
    const int m = static_cast<int>(blk.rows.size()), nb = static_cast<int>(blk.bodies.size());
    blk.J.setZero(m, 6 * nb);
    for (int i = 0; i < m; ++i) {
      const int r = blk.rows[i], k = joint_of_row[r];
      for (int p = 0; p < nb; ++p) {
        if (blk.bodies[p] == s.body_a[k]) blk.J.block<1, 6>(i, 6 * p) += s.jac_a[r];
        if (blk.bodies[p] == s.body_b[k]) blk.J.block<1, 6>(i, 6 * p) += s.jac_b[r];
      }
    }
    blk.MJt.resize(6 * nb, m);
    for (int p = 0; p < nb; ++p) {
      const int i = blk.bodies[p];
      blk.MJt.middleRows<3>(6 * p) = b.inv_mass[i] * blk.J.middleCols<3>(6 * p).transpose();
      blk.MJt.middleRows<3>(6 * p + 3) = inverse_inertia(b, i) * blk.J.middleCols<3>(6 * p + 3).transpose();
    }
    blk.W.noalias() = blk.J * blk.MJt;
    blk.W_pinv = blk.W.transpose();
    blk.W += blk.W_pinv;
    blk.W *= 0.5;
    // Pseudo-inverse by the symmetric eigendecomposition: directions W cannot move (redundant rows, a fixed
    // body) get no multiplier instead of an unbounded one.
    blk.eigen.compute(blk.W);
    const Eigen::VectorXd& ev = blk.eigen.eigenvalues();
    const double cut = std::max(ev.cwiseAbs().maxCoeff(), 0.0) * 1e-12 * m;
    blk.inv.resize(m);
    for (int i = 0; i < m; ++i) blk.inv[i] = ev[i] > cut ? 1.0 / ev[i] : 0.0;
    const Eigen::MatrixXd& V = blk.eigen.eigenvectors();
    blk.scaled.noalias() = V * blk.inv.asDiagonal();
    blk.W_pinv.noalias() = blk.scaled * V.transpose();
    blk.u.resize(m);
    blk.dl.resize(m);
    blk.x.resize(6 * nb);
  }
}

void apply_joint_impulses(JointSweep& s) {
#pragma omp single
  for (JointBlock& blk : s.blocks) {
    for (std::size_t r = 0; r < blk.rows.size(); ++r) blk.dl[r] = s.impulse[blk.rows[r]];
    blk.x.noalias() = blk.MJt * blk.dl;
    scatter_add(blk, s.bodies, blk.x);
  }
}

void sweep_joints(JointSweep& s) {
#pragma omp single
  for (JointBlock& blk : s.blocks) {
    block_velocity(blk, s);
    blk.dl.noalias() = blk.W_pinv * blk.u;
    blk.dl = -blk.dl;
    for (std::size_t r = 0; r < blk.rows.size(); ++r) s.impulse[blk.rows[r]] += blk.dl[r];
    blk.x.noalias() = blk.MJt * blk.dl;
    scatter_add(blk, s.bodies, blk.x);
  }
}

double joint_squared_velocity(const JointSweep& s) {
  double sum = 0.0;
  const BodyArrays& b = s.bodies;
  for (int k = 0; k < s.joints(); ++k)
    for (int r = s.row_start[k]; r < s.row_start[k + 1]; ++r) {
      double u = s.target[r];
      if (const int a = s.body_a[k]; a >= 0)
        u += s.jac_a[r].head<3>().dot(b.v[a]) + s.jac_a[r].tail<3>().dot(b.w[a]);
      if (const int c = s.body_b[k]; c >= 0)
        u += s.jac_b[r].head<3>().dot(b.v[c]) + s.jac_b[r].tail<3>().dot(b.w[c]);
      sum += u * u;
    }
  return sum;
}

}  // namespace talus::matrixfree
