#pragma once
// Gaps and the global sparse constraint Jacobian of a list of interactions, shared by every integrator.
//
// Conventions (seed 000 eqs 36–41, seed 004 eq 27; Relation.hpp):
//  - The rows of the interactions in `which` are stacked in that order; interaction which[i] owns rows
//    [row_offset[i], row_offset[i+1]), as many as its law has (law_rows()). Row 0 of each is the normal row.
//  - Columns are the global velocities of DofLayout.hpp, so U = J v (relative velocities, rows) and the
//    generalised impulse of the reactions is p = Jᵀ P. J is Hᵀ in the notation of seed 000 (U = Hᵀ v).
//  - Relations are written in coordinates (Relation.hpp: g(q), ∇g w.r.t. the concatenated coordinates of the
//    interaction's systems). For a rigid body the 7 coordinate columns [x, quat] are mapped to its 6 velocity
//    columns [v_world, ω_body] through q̇ = T(q) v (DofLayout.hpp): J_v = ∂g/∂x, J_ω = ∂g/∂quat · G(quat).
//  - SphereContactRelation uses contact/SphereContact.hpp (frame n, t1, t2); interactions with fewer rows than
//    3 keep the first ones (2-D friction: n, t1; frictionless: n).
//  - BeamSphereContactRelation uses engine/detection/BeamSphereContact.hpp (the same rows; the beam's columns
//    are the four unknowns of the element under the contact).
//  - JointRelation uses engine/joints/RigidJoint.hpp, whose Jacobian is already in velocity columns.
//  - gap: row 0 holds the normal gap g(q); the tangential rows' entries are 0 (unused). A joint fills every row
//    (each is a gap that its equality law holds at zero).
//  - rate: ∂g/∂t of each row, so that the constraint velocity is U = J v + rate. Zero but for the joints' driver
//    (the only rheonomous relation); `t` is the time the rows are evaluated at, which only it reads.
// Everything is evaluated at a given global coordinate vector q (not necessarily the model's state), so an
// integrator can evaluate at q_k, q_{k+1} or a forecast without touching the model.
#include <vector>

#include "engine/DofLayout.hpp"

namespace talus {

struct ConstraintRows {
  std::vector<int> interactions;  // model interaction indices, in row order
  std::vector<Index> row_offset;  // size interactions.size() + 1
  Vector gap;                     // rows
  SparseMatrix J;                 // rows × layout.n_vels
  Vector rate;                    // rows: ∂g/∂t

  Index rows() const { return row_offset.empty() ? 0 : row_offset.back(); }

  // Reused between calls so that re-assembling every step does not allocate once sizes have settled.
  std::vector<Triplet> triplets_;
  Vector q_local_, g_local_;
  Matrix J_local_, Jb_local_;
};

void assemble_constraints(const Model& model, const DofLayout& layout, const Vector& q,
                          const std::vector<int>& which, ConstraintRows& out, double t);

// Normal gaps only (row 0 of each interaction in `which`), g resized to which.size(). Cheaper than the full
// assembly for activation tests.
void evaluate_normal_gaps(const Model& model, const DofLayout& layout, const Vector& q,
                          const std::vector<int>& which, Vector& g, double t);

// The sub-list of `all` at positions `positions` (indices into all.interactions), rows and J rows copied,
// without evaluating any relation again: e.g. the active set chosen from a full assembly.
void select_interactions(const ConstraintRows& all, const std::vector<Index>& positions, ConstraintRows& out);

// Every interaction of the model, 0..n-1 (a convenience for `which`).
std::vector<int> all_interactions(const Model& model);

}  // namespace talus

// The mass, stiffness and damping matrices that go with J are in SystemMatrices.hpp.
#include "engine/SystemMatrices.hpp"
