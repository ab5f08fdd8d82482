#include "engine/GeneralizedAlphaCoefficients.hpp"

#include <stdexcept>

namespace talus {

GeneralizedAlphaCoefficients generalized_alpha_coefficients(double rho) {
  if (!(rho >= 0.0 && rho <= 1.0))
    throw std::invalid_argument("generalized-α: spectral radius at infinity must be in [0, 1]");
  GeneralizedAlphaCoefficients c;
  c.alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
  c.alpha_f = rho / (rho + 1.0);
  c.gamma = 0.5 + c.alpha_f - c.alpha_m;
  c.beta = 0.25 * (c.gamma + 0.5) * (c.gamma + 0.5);
  return c;
}

}  // namespace talus
