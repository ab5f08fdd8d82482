#include "engine/NonsmoothLaw.hpp"

namespace talus {

int law_rows(const NonsmoothLaw& law) {
  struct Rows {
    int operator()(const NewtonImpactLaw&) const { return 1; }
    int operator()(const NewtonImpactFrictionLaw& l) const { return l.dim; }
    int operator()(const EqualityLaw& l) const { return l.rows; }
  };
  return std::visit(Rows{}, law);
}

}  // namespace talus
