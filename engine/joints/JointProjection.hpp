#pragma once
// Projection of the positions onto the joints' manifold, for schemes that hold joints at velocity level only.
//
// Moreau–Jean enforces an equality as J(q_k) v_{k+1} + ∂g/∂t = 0 (seed 000 eq 41): the gap itself is never
// asked to vanish, and it drifts by O(h²) per step wherever the joint's manifold is curved, always the same way
// (a pendulum's centripetal drift lengthens its rod): a revolute double pendulum swinging freely lengthened its
// links by 1.7 cm in 3 s at h = 1e−3, and the energy followed. This is the direct projection of Siconos'
// MoreauJeanDirectProjection: after the step, Newton iterations on
//     g(q ∘ exp(Δ), t) = 0,   Δ = M⁻¹ Jᵀ μ,
// the smallest displacement in the kinetic metric that closes the gaps. Velocities are left as the step made
// them (their law, U = 0 at J(q_k), is already satisfied).
#include <vector>

#include "engine/ConstraintAssembly.hpp"

namespace talus {

struct JointProjectionWorkspace {
  ConstraintRows rows;
  Vector inv_mass;  // per velocity: 1/m, 1/I of movable rigid bodies, 0 elsewhere
  Vector delta, q_next;
  Matrix A;
};

// Projects the rigid bodies' coordinates in q (global, DofLayout.hpp) onto g = 0 of the interactions `joints`
// (JointRelation rows only) at time t, to max |g| <= tolerance. Returns the Newton iterations taken, or −1 when
// max |g| is still above tolerance after max_iterations (q then holds the last iterate).
int project_onto_joints(const Model& model, const DofLayout& layout, const std::vector<int>& joints, double t,
                        double tolerance, int max_iterations, Vector& q, JointProjectionWorkspace& ws);

}  // namespace talus
