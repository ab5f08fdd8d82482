#pragma once
// Index sets of seed 000 (event-driven, eqs 11–31) and seed 002: I₀ all unilateral interactions,
// I₁ = {α ∈ I₀ : g_α = 0} (closed), I₂ = {α ∈ I₁ : ġ_α = 0} (closed and staying in contact).
// "= 0" is tested with tolerances given relative to problem scales by the caller.
#include <vector>

#include "engine/Model.hpp"

namespace talus {

struct IndexSets {
  std::vector<int> I0, I1, I2;
};

struct IndexSetTolerances {
  double gap = 1e-10;       // |g| <= gap  counts as closed
  double velocity = 1e-10;  // |ġ| <= velocity counts as staying
};

// From the gaps and velocities stored in the interactions (Interaction::gap / velocity, row 0).
IndexSets compute_index_sets(const Model& model, const IndexSetTolerances& tol);

}  // namespace talus
