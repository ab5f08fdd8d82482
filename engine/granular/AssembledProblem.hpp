#pragma once
// The bead contacts' one-step problem as plain data (issue 4 item 3, "W assembled as a block-sparse matrix";
// STYLE.md practice 6): W = H M⁻¹ Hᵀ in 3×3 blocks, q = H v* + extra, μ. Used to compare the assembled path
// (solvers' nsgs on W) with the matrix-free sweep, and to dump a step as an FCLIB local problem.
// H_ik = s Rᵢᵀ [I | −[p_ik]×] for bead k of contact i (s = +1 for b, −1 for a), with ω in the world frame;
// so W_ij = Σ_k s_ik s_jk Rᵢᵀ (1/m_k I − (1/I_k) [p_ik]× [p_jk]×) R_j over the beads k the two contacts share.
#include <vector>

#include "engine/bodies/RigidBodies.hpp"
#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/fc/GlobalFrictionContactProblem.hpp"

namespace talus::granular {

using namespace matrixfree;  // the granular path is built on solvers/matrixfree

// Beads' velocities must be the free ones v* (no impulse applied).
solvers::FrictionContactProblem assemble_problem(const std::vector<SweepContact>& contacts, const RigidBodies& beads);

// The same step in FCLIB's global form (issue 10 item 3: a granular step replayed alone): the unknowns are the
// beads' velocities, six per sphere (v, then ω, world frame), M = diag(m I, I_s I) (I_s the sphere's scalar
// inertia), f = M v*, H's columns the contacts' rows (n, t1, t2) with u = Hᵀ v + w, and w the normal targets
// (`extra`). Condensed (W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w) it is assemble_problem's problem. Beads' velocities
// must be the free ones v*.
solvers::GlobalFrictionContactProblem assemble_global_problem(const std::vector<SweepContact>& contacts,
                                                              const RigidBodies& beads);

}  // namespace talus::granular
