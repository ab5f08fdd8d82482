#pragma once
// Bilateral joint rows in the matrix-free sweeps (issue 11: a mechanism meets beads on the large path). A
// joint row is an equality U = J v + target = 0 with a free multiplier λ (seed 000 eq 41 for the velocity law
// of an equality; target = ∂g/∂t + g/h when the positions are to close the gap within the step). Joints are
// few (a paddle, a crank) beside thousands of contacts, so the sweeps do not split them: joints that share a
// body form one block (a connected component of the joint graph), and each sweep solves every block exactly,
//     Δλ = −W⁺ (J v + target),   v ← v + M⁻¹ Jᵀ Δλ,   W = Σ_bodies J_b M_b⁻¹ J_bᵀ,
// with W⁺ the pseudo-inverse (redundant rows, a driver on a revolute joint's sixth freedom, an
// over-constrained loop: the least-squares multiplier of smallest norm, as solvers/fc/MixedNsgs.hpp does for
// its equality blocks). W is formed and decomposed once per step (prepare_joint_blocks), from the bodies'
// current inverse inertias.
//
// Like the contacts, the rows keep u = W λ + q in the bodies' velocities: a block update reads and writes
// only its bodies. The Jacobian rows are in the bodies' WORLD velocity coordinates [v, ω] (BodyArrays'
// convention): an engine whose relations give [v, Ω_body] multiplies the angular columns by Rᵀ. The blocks
// are solved one after the other by one thread (`omp single` inside the sweep's parallel region), after the
// contacts of the sweep, so the result does not depend on the thread count; nothing is allocated once
// prepared.
//
// For the stopping test an equality row's error in the common residual ‖r − proj_K(r − û)‖ is |û| (K = ℝ):
// the rows' Σ u² is added to the contacts' sum.
#include <Eigen/Dense>
#include <vector>

#include "solvers/matrixfree/BodyArrays.hpp"

namespace talus::matrixfree {

using JointJacobianRow = Eigen::Matrix<double, 1, 6>;  // [v, ω] columns of one body, world frame

// One block of joints sharing bodies: its rows (global row indices), its bodies, W⁺ and M⁻¹ Jᵀ.
struct JointBlock {
  std::vector<int> rows;              // indices into JointSweep's per-row arrays
  std::vector<int> bodies;            // body indices (movable or not), in first-seen order
  Eigen::MatrixXd J;                  // rows × 6·bodies
  Eigen::MatrixXd MJt;                // 6·bodies × rows: M⁻¹ Jᵀ
  Eigen::MatrixXd W, W_pinv, scaled;  // scaled: eigenvectors times the inverted eigenvalues
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen;
  Eigen::VectorXd u, dl, x, inv;  // scratch: U of the rows, Δλ, the bodies' stacked velocities, 1/eigenvalues
};

struct JointSweep {
  // Filled by the caller: joint k has rows [row_start[k], row_start[k+1]) between bodies body_a[k] and
  // body_b[k] (−1: the world). Per row: the Jacobian blocks of a and b, the target, and λ (warm start in,
  // the solve's impulse out).
  std::vector<int> body_a, body_b, row_start{0};
  std::vector<JointJacobianRow> jac_a, jac_b;
  std::vector<double> target, impulse;
  BodyArrays bodies;  // refreshed by the caller before every solve
  // Derived by prepare_joint_blocks, and its scratch (kept: a step allocates nothing once the joints are
  // known).
  std::vector<JointBlock> blocks;
  std::vector<int> parent, block_of, block_of_root, joint_of_row;

  int joints() const { return static_cast<int>(body_a.size()); }
  int rows() const { return row_start.back(); }
  bool empty() const { return body_a.empty(); }
  // Sizes the per-row arrays for joints of the given row counts (keeps impulse when the layout is unchanged).
  void set_layout(const std::vector<int>& rows_per_joint);
};

// Groups the joints into blocks and forms each block's J, M⁻¹ Jᵀ and W⁺ from `set.bodies`. Call after the
// Jacobians and the bodies' inverse inertias of the step are in place.
void prepare_joint_blocks(JointSweep& set);

// v += M⁻¹ Jᵀ λ of every row (the warm start), outside or inside a parallel region (one thread does it).
void apply_joint_impulses(JointSweep& set);

// One exact solve of every block, inside the sweep's parallel region or alone.
void sweep_joints(JointSweep& set);

// Σ (J v + target)² over the rows at the bodies' current velocities (‖q‖² of the rows on the free velocities;
// their part of the common residual after a solve). Sequential.
double joint_squared_velocity(const JointSweep& set);

}  // namespace talus::matrixfree
