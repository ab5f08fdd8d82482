#pragma once
// A Model seen as the MechanicalSystem the event-driven scheme integrates (engine/eventdriven/
// MechanicalSystem.hpp), so that any frictionless scene of the time-stepping path runs under the event-driven
// path unchanged (issue 6). Global ordering, mass, force and Jacobians come from the shared engine code
// (DofLayout, SystemMatrices, ConstraintAssembly). Rows:
//  - an EqualityLaw interaction contributes all its rows, always active (bilateral);
//  - a NewtonImpactLaw interaction contributes its normal row (unilateral, restitution e);
//  - a NewtonImpactFrictionLaw interaction with μ = 0 contributes its normal row like a Newton impact law;
//    with μ > 0 it is rejected (Coulomb friction is not part of the event-driven path).
// Fixed rigid bodies (inv_mass = 0) keep zero velocity: their block of M is the identity, their force and
// their Jacobian columns are zero. The curvature (d/dt G) v is left to the finite-difference default.
#include <memory>
#include <vector>

#include "engine/DofLayout.hpp"
#include "engine/Model.hpp"
#include "engine/eventdriven/MechanicalSystem.hpp"

namespace talus::eventdriven {

struct ConstraintRow {
  int interaction = 0;   // index in Model::interactions
  int local_row = 0;     // row of that interaction
  bool unilateral = false;
  double restitution = 0.0;
};

struct ModelSystem {
  MechanicalSystem system;            // callbacks evaluate the model's systems at any global (q, v)
  DofLayout layout;
  std::vector<ConstraintRow> rows;    // one per row of system.gap / system.jacobian
  std::vector<Index> bilateral_rows;  // always active
  std::vector<Index> unilateral_rows;
};

// Throws std::invalid_argument for friction or an interaction the path cannot integrate. The model must
// outlive the returned object (its callbacks read the model's systems and interactions).
ModelSystem make_model_system(const Model& model);

}  // namespace talus::eventdriven
