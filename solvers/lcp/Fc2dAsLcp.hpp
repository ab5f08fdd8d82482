#pragma once
// Planar Coulomb friction (FrictionContactProblem with dim = 2, seed 004 eq (29)) written exactly as an LCP,
// since the 2D cone is polyhedral. Per contact i, with u = W r + q, r_T = β⁺ − β⁻ and the slack s ≈ |u_T|:
//   0 ≤ u_N            ⟂ r_N ≥ 0
//   0 ≤ s + u_T        ⟂ β⁺  ≥ 0
//   0 ≤ s − u_T        ⟂ β⁻  ≥ 0
//   0 ≤ μ r_N − β⁺ − β⁻ ⟂ s  ≥ 0
// LCP unknowns z = (r_N, β⁺, β⁻, s) per contact (4 per contact); with r = G z, M = Gᵀ W G + C, q_lcp = Gᵀ q,
// where C holds the slack and cone rows. Solvable by Lemke when W is positive definite.
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/core/LcpProblem.hpp"

namespace talus::solvers {

// Throws std::invalid_argument when p is not a valid dim = 2 problem.
LcpProblem fc2d_to_lcp(const FrictionContactProblem& p);

// r = (r_N, β⁺ − β⁻) per contact; r is resized to 2 · contacts.
void fc2d_reaction_from_lcp(const FrictionContactProblem& p, const Vector& z, Vector& r);

}  // namespace talus::solvers
