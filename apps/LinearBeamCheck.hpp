#pragma once
// The linear Euler–Bernoulli beams of a scene (`beams:`, engine/detection/BeamSphereContact.hpp) hold for small
// deflections only: their stiffness is the undeformed one and their contact geometry a small-slope strip. How
// far: for a cantilever loaded at its tip the elastica (the exact inextensible beam; Bisshopp & Drucker 1945)
// bends less than the linear beam by 1 % at a tip deflection of 0.1 L, 2.3 % at 0.15 L, 4 % at 0.2 L, 6 % at
// 0.25 L and 10.5 % at 0.33 L (the shooting solution of θ'' = −(P L²/EI) cos θ, computed for this note). A pile
// heavy enough to bend a beam by more than 0.2 L gives figures off by more than that (a plastic strip under
// 4 096 beads bent by more than its length and let beads sink 4 r into it), so each run says so once, naming
// the beam, the time and the deflection, on either path.
#include <ostream>

#include "engine/Model.hpp"

namespace talus::app {

class LinearBeamCheck {
 public:
  static constexpr double kLimit = 0.2;  // deflection / length beyond which the warning is given
  // After a step: writes the warning to `log` the first time a beam of the model deflects beyond kLimit.
  void after_step(const talus::Model& m, std::ostream& log);

 private:
  bool warned_ = false;
};

}  // namespace talus::app
