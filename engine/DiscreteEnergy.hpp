#pragma once
// Energy of the whole model at a state (seed 000 eq 77: E = ½ vᵀ M v + ½ qᵀ K q), in the ordering of
// DofLayout.hpp, for the energy output of every integrator and for the discrete balance checks (eqs 84, 88).
//  - kinetic: LTI ½ vᵀ M v; nonlinear ½ vᵀ M(q) v; rigid ½ m |v|² + ½ ωᵀ I ω (fixed bodies count 0).
//  - potential: LTI ½ qᵀ K q; nonlinear systems' potential callbacks when given. Gravity on rigid bodies and
//    F_ext on LTI systems are external forces: their work is reported as external work, not as potential.
#include "engine/DofLayout.hpp"

namespace talus {

double kinetic_energy(const Model& model, const DofLayout& layout, const Vector& q, const Vector& v);
double potential_energy(const Model& model, const DofLayout& layout, const Vector& q);

// Of the model's current state.
double total_energy(const Model& model);

}  // namespace talus
