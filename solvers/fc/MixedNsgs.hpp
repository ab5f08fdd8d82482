#pragma once
// NSGS for the friction-contact problem with bilateral rows (issue 11; MixedFrictionContactProblem in
// solvers/core/FrictionContactProblem.hpp): the one-step problem of Moreau–Jean with friction (seed 004 eq
// 31) when joints (equality rows) and frictional contacts meet in one step.
//
// Equality blocks that are coupled through W (joints sharing a body: one mechanism) are gathered into groups,
// found once per solve by union–find over the non-zeros of W between equality rows; a group is solved as one
// block. One sweep visits the groups, then the contacts, in the problem's order (a fixed order: the result is
// deterministic). With u the current velocity of the visited rows (the newest reactions everywhere):
//   - a group E takes its exact local solution u_E = 0, r_E ← r_E − W_EE⁺ u_E, W_EE⁺ the pseudo-inverse of
//   its
//     diagonal block (eigenvalues below 10⁻¹² of the largest dropped), so that dependent rows (a joint at a
//     singular pose, redundant joints in a closed loop) still get the least-norm correction; when the solve
//     then fails to converge, the message names the rank-deficient groups by their blocks, where u_E = 0 may
//     have no solution (contradictory joints); a group whose block is not symmetric (generalized-α's problem,
//     engine/schemes/NonsmoothGeneralizedAlpha.hpp, where the position and velocity rows read the smooth
//     multipliers and not the converse) takes the SVD pseudo-inverse of its true block instead;
//   - a contact, with b = q_i + Σ_{j≠i} W_ij r_j, takes the one-contact Coulomb solve of NSGS
//     (LocalContactSolvers.hpp), as in Nsgs.hpp.
// Why groups and not one joint at a time: a mechanism's joints are coupled through its bodies' masses, and
// block Gauss–Seidel between them converges at a rate set by the mass ratios: a driver on a light hub
// carrying a heavy arm (inertia ratio 500) was still at 3·10⁻⁸ after 10⁴ sweeps joint by joint. Solved
// together, the mechanism meets the contacts in a Gauss–Seidel of few blocks. The cost is a dense n_E × n_E
// pseudo-inverse per mechanism and solve, and n_E² per sweep: the small-system path's mechanisms have tens of
// rows. Relaxation ω scales both updates (a contact is projected back on its cone when ω > 1).
//
// Why a separate sweep and not the block-CSR kernel of Nsgs.cpp: that kernel is fixed-size (all blocks dim ×
// dim, templated on dim, coloured for threads), built for the granular piles; the mixed problem comes from
// the small-system path (a mechanism and a few contacts) with blocks of 1–6 rows, where a serial sweep over
// the rows of the sparse W is simple and fast enough. The options of NsgsParameters that concern the large
// problems (threads, coloured, shuffle, Anderson acceleration) are not used here.
//
// Stopping: the exact extended residual (the equality rows' ‖u_e‖ with the contacts' natural map, normalised
// by 1 + ‖q‖) is evaluated after every sweep; the returned residual is re-checked with friction_residual on
// the caller's problem. Status: Converged, MaxIterations (budget or time cap), Diverged (NaN/Inf),
// InvalidInput (sizes, blocks, a bad warm start or relaxation; the message says which).
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/core/SolverStats.hpp"
#include "solvers/fc/Nsgs.hpp"

namespace talus::solvers {

// Solves p by NSGS with exact equality-block solves. r: warm start in (empty = zero), solution out (equality
// rows first, as in p); u = W r + q out. stats.counters: sweeps, local_iterations.
SolverStats nsgs(const MixedFrictionContactProblem& p, Vector& r, Vector& u, const NsgsParameters& params);

}  // namespace talus::solvers
