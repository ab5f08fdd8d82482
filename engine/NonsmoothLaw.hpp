#pragma once
// Nonsmooth laws attached to a relation (seed 000 eqs 9, 40, 41d; seed 004 for Coulomb friction).
#include <variant>

namespace talus {

// 0 <= U⁺ + e U⁻ ⟂ P >= 0 when the constraint is active (one row).
struct NewtonImpactLaw {
  double e = 0.0;
};

// Newton impact on the normal row + Coulomb friction on 1 (dim = 2) or 2 (dim = 3) tangential rows.
struct NewtonImpactFrictionLaw {
  double e = 0.0;
  double mu = 0.0;
  int dim = 3;
};

// Bilateral equality g(q) = 0, enforced at velocity level (U = 0) on `rows` rows.
struct EqualityLaw {
  int rows = 1;
};

using NonsmoothLaw = std::variant<NewtonImpactLaw, NewtonImpactFrictionLaw, EqualityLaw>;

// Rows of the law (and so of its relation).
int law_rows(const NonsmoothLaw& law);

}  // namespace talus
