#include "engine/IndexSets.hpp"

#include <cmath>

namespace talus {

IndexSets compute_index_sets(const Model& model, const IndexSetTolerances& tol) {
  IndexSets s;
  for (int a = 0; a < static_cast<int>(model.interactions.size()); ++a) {
    const Interaction& in = model.interactions[a];
    if (std::holds_alternative<EqualityLaw>(in.law)) continue;  // bilateral: always in the smooth system
    s.I0.push_back(a);
    if (in.gap.size() == 0) continue;
    if (std::abs(in.gap[0]) <= tol.gap) {
      s.I1.push_back(a);
      if (in.velocity.size() && std::abs(in.velocity[0]) <= tol.velocity) s.I2.push_back(a);
    }
  }
  return s;
}

}  // namespace talus
