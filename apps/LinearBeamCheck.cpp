#include "apps/LinearBeamCheck.hpp"

#include <cstdio>

namespace talus::app {

void LinearBeamCheck::after_step(const talus::Model& m, std::ostream& log) {
  if (warned_) return;
  for (const ContactBeam& b : m.detection.beams) {
    if (b.lti < 0 || b.lti >= Index(m.lti.size())) continue;
    const double ratio = beam_deflection_ratio(b.geometry, m.lti[b.lti].q);
    if (!(ratio > kLimit)) continue;
    char text[512];
    std::snprintf(text, sizeof text,
                  "\ntalus: warning: beam '%s' deflects by %.3g m at t = %.6g s, %.0f %% of its length: beyond "
                  "%.0f %% the linear Euler-Bernoulli beam bends more than the exact one by over 4 %% (10 %% at a "
                  "third of its length), and its contact geometry is a small-slope strip: use a stiffer or "
                  "thicker beam (docs/scene-format.md)\n",
                  m.lti[b.lti].name.c_str(), ratio * b.geometry.length, m.time, 100.0 * ratio, 100.0 * kLimit);
    log << text;
    warned_ = true;
    return;
  }
}

}  // namespace talus::app
