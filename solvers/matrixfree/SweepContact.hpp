#pragma once
// One bead contact as the matrix-free solver sweeps it (issue 4 item 3). Every field is read at each update
// of the contact, so the record is stored whole (array of structs, ~150 bytes) and the contact array is laid
// out in sweep order (colour by colour): a sweep then streams it once. Cold data (cache keys, gaps) stay in
// separate arrays of the stepper.
//
// For spheres every lever arm is along the normal (p_a = r_a n, p_b = −r_b n), so the contact's diagonal block
// of W = H M⁻¹ Hᵀ in the frame (n, t1, t2) is diag(w_n, w_t, w_t) with
//   w_n = 1/m_a + 1/m_b,   w_t = w_n + r_a²/I_a + r_b²/I_b,
// isotropic and uncoupled: the exact local solution is the closed form of LocalContactSolvers.hpp's
// analytic_solve (isotropic case), see MatrixFreeNsgs.hpp.
#include <Eigen/Dense>
#include <cstdint>

namespace talus::matrixfree {

struct SweepContact {
  std::int32_t a = -1;       // first bead, or −1 for a wall (fixed)
  std::int32_t b = -1;       // second bead (always a bead)
  Eigen::Vector3d n, t1, t2; // frame, n from a to b
  double ra = 0.0, rb = 0.0; // lever arms: p_a = ra n, p_b = −rb n
  double extra = 0.0;        // normal velocity target: u_N + extra >= 0 (gap / h, or e u_N,k at impact)
  double mu = 0.0;
  double wn = 0.0, wt = 0.0; // diagonal block of W
  Eigen::Vector3d r = Eigen::Vector3d::Zero();  // impulse in the frame (normal first)
};

}  // namespace talus::matrixfree
