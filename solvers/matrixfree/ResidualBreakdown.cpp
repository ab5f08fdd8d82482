#include "solvers/matrixfree/ResidualBreakdown.hpp"

#include <cmath>

#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/matrixfree/MatrixFreeNsgs.hpp"

namespace talus::matrixfree {

double ResidualBreakdown::rolling_ratio() const {
  const double moved = translation_slip + spin_slip;
  if (moved <= 0.0) return 1.0;
  return slip > 0.0 ? moved / (2.0 * slip) : INFINITY;
}

std::array<double, ResidualBreakdown::kSums> ResidualBreakdown::sums() const {
  return {open.contacts, open.squared, sticking.contacts, sticking.squared, sliding.contacts, sliding.squared,
          translation_slip, spin_slip, slip};
}

void ResidualBreakdown::set_sums(const std::array<double, kSums>& s) {
  open = {s[0], s[1]}, sticking = {s[2], s[3]}, sliding = {s[4], s[5]};
  translation_slip = s[6], spin_slip = s[7], slip = s[8];
}

int contact_state(const SweepContact& c) {
  if (!(c.r[0] > 0.0)) return 0;
  return std::hypot(c.r[1], c.r[2]) < c.mu * c.r[0] * (1.0 - 1e-9) ? 1 : 2;
}

ResidualBreakdown residual_breakdown(const std::vector<SweepContact>& contacts, const BodyArrays& beads,
                                     const std::function<bool(int)>& counted) {
  ResidualBreakdown out;
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    if (counted && !counted(static_cast<int>(i))) continue;
    const SweepContact& c = contacts[i];
    const Eigen::Vector3d u = contact_velocity(c, beads);
    const double e2 = solvers::contact_residual_squared(c.r.data(), u.data(), 3, c.mu);
    const int state = contact_state(c);
    ResidualBreakdown::Share& share = state == 0 ? out.open : state == 1 ? out.sticking : out.sliding;
    share.contacts += 1.0, share.squared += e2;
    if (std::sqrt(e2) > out.worst_error) out.worst_error = std::sqrt(e2), out.worst = static_cast<int>(i);
    if (state != 1) continue;
    Eigen::Vector3d move = beads.v[c.b], spin = c.rb * beads.w[c.b];
    if (c.a >= 0) move -= beads.v[c.a], spin += c.ra * beads.w[c.a];
    move -= move.dot(c.n) * c.n;
    out.translation_slip += move.squaredNorm();
    out.spin_slip += spin.cross(c.n).squaredNorm();
    out.slip += u[1] * u[1] + u[2] * u[2];
  }
  return out;
}

}  // namespace talus::matrixfree
