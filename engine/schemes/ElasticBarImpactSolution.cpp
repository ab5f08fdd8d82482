// Closed-form solution of the impacting elastic bar (derivation in the header and docs/schemes.md).
#include "engine/schemes/ElasticBarImpactSolution.hpp"

#include <cmath>
#include <stdexcept>

namespace talus {

ElasticBarImpactSolution::ElasticBarImpactSolution(const ElasticBarImpact& p) : p_(p) {
  if (!(p.young > 0.0 && p.density > 0.0 && p.area > 0.0 && p.length > 0.0 && p.height >= 0.0 && p.velocity > 0.0))
    throw std::invalid_argument("elastic bar impact: E, ρ, A, L, v₀ must be > 0 and h₀ >= 0");
  c_ = std::sqrt(p.young / p.density);
  t_contact_ = p.height / p.velocity;
}

double ElasticBarImpactSolution::bottom_position(double t) const {
  if (t < t_contact_) return p_.height - p_.velocity * t;
  if (t <= contact_end()) return 0.0;
  return p_.velocity * (t - contact_end());
}

double ElasticBarImpactSolution::bottom_velocity(double t) const {
  if (t < t_contact_) return -p_.velocity;
  if (t < contact_end()) return 0.0;
  return p_.velocity;
}

double ElasticBarImpactSolution::contact_pressure(double t) const {
  return (t >= t_contact_ && t < contact_end()) ? p_.density * c_ * p_.velocity : 0.0;
}

double ElasticBarImpactSolution::center_of_mass(double t) const {
  const double x0 = p_.height + 0.5 * p_.length;
  if (t < t_contact_) return x0 - p_.velocity * t;
  // Constant force ρ c v₀ A on the mass ρ A L: acceleration c v₀ / L, velocity −v₀ → +v₀ over 2L/c.
  const double xc = x0 - p_.velocity * t_contact_, acc = c_ * p_.velocity / p_.length;
  const double tau = std::min(t, contact_end()) - t_contact_;
  const double x = xc - p_.velocity * tau + 0.5 * acc * tau * tau;
  return t <= contact_end() ? x : x + p_.velocity * (t - contact_end());
}

double ElasticBarImpactSolution::energy() const {
  return 0.5 * p_.density * p_.area * p_.length * p_.velocity * p_.velocity;
}

}  // namespace talus
