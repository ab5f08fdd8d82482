// Newton projection onto the joints' manifold (see JointProjection.hpp).
#include "engine/joints/JointProjection.hpp"

#include <Eigen/QR>

namespace talus {

int project_onto_joints(const Model& model, const DofLayout& layout, const std::vector<int>& joints, double t,
                        double tolerance, int max_iterations, Vector& q, JointProjectionWorkspace& ws) {
  if (joints.empty()) return 0;
  ws.inv_mass.setZero(layout.n_vels);
  const RigidBodies& b = model.bodies;
  for (Index k = 0; k < layout.bodies; ++k) {
    if (b.inv_mass[k] == 0.0) continue;
    const Index o = layout.rigid_vel_offset + 6 * k;
    ws.inv_mass.segment<3>(o).setConstant(b.inv_mass[k]);
    ws.inv_mass.segment<3>(o + 3) = b.inertia[k].cwiseInverse();
  }
  for (int it = 0;; ++it) {
    assemble_constraints(model, layout, q, joints, ws.rows, t);
    if (ws.rows.gap.cwiseAbs().maxCoeff() <= tolerance) return it;
    if (it >= max_iterations) return -1;
    const SparseMatrix& J = ws.rows.J;
    const Matrix JM = Matrix(J) * ws.inv_mass.asDiagonal();
    ws.A = JM * Matrix(J).transpose();
    // Complete orthogonal decomposition: a closed loop of joints has redundant rows, and the minimum-norm μ is
    // then the one wanted.
    const Vector mu = Eigen::CompleteOrthogonalDecomposition<Matrix>(ws.A).solve(-ws.rows.gap);
    ws.delta = JM.transpose() * mu;
    advance_coordinates(layout, q, ws.delta, 1.0, ws.q_next);
    q.swap(ws.q_next);
  }
}

}  // namespace talus
