#pragma once
// The coefficients of the generalized-α formulas (seed 004 eqs 41–42), shared by the small path's
// NonsmoothGeneralizedAlpha (engine/schemes/) and the large path's FE beams (engine/granular/BeamContacts.hpp).

namespace talus {

struct GeneralizedAlphaCoefficients {
  double alpha_m = 0.0;
  double alpha_f = 0.0;
  double gamma = 0.5;
  double beta = 0.25;
};

// Chung–Hulbert choice from the spectral radius at infinity ρ∞ ∈ [0, 1] (seed 004 eq 42, seed 000 eq 63):
// α_m = (2ρ∞ − 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1), γ = ½ + α_f − α_m, β = ¼(γ + ½)².
// Throws std::invalid_argument outside [0, 1].
GeneralizedAlphaCoefficients generalized_alpha_coefficients(double rho_infinity);

}  // namespace talus
