#pragma once
// Particle size distributions (issue 11 item 5, "pours, size distributions"; issue 14 item 3): the radii a
// generator draws. Three forms granular users give:
//   uniform    radius uniform in [r_min, r_max];
//   log-normal ln r normal with median r_50 and standard deviation σ, truncated to r_50 e^{±3σ} (a measured
//              sieve curve's usual fit; the truncation keeps 99.7 % of the mass of the untruncated law and
//              bounds the contact cells);
//   table      discrete radii with their fractions by number or by mass (a sieve analysis; mass fractions
//              are turned into number fractions ∝ fraction / r³).
// `cdf` is the distribution's own cumulative function by number, against which a test measures the radii
// drawn (Kolmogorov–Smirnov distance).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace talus::granular {

struct SizeDistribution {
  enum class Kind { Uniform, LogNormal, Table };
  Kind kind = Kind::Uniform;
  double r_min = 0.01, r_max = 0.01;     // Uniform
  double median = 0.01, sigma = 0.0;     // LogNormal: of the radius
  std::vector<double> radii, fractions;  // Table: radii and their number fractions (normalised by check)

  // The form's checks, with the reason; empty when valid. `check` also normalises a table's fractions.
  std::string problem() const;
  // Throws std::invalid_argument(problem()) when invalid; normalises a table's fractions to sum 1.
  void check();

  double smallest() const;
  double largest() const;
  // One radius drawn with `gen` (by number).
  double sample(std::mt19937_64& gen) const;
  // P(radius ≤ r), by number.
  double cdf(double r) const;
};

// A table given by mass fractions, as number fractions (∝ fraction / r³), in a distribution ready for
// check().
SizeDistribution table_by_mass(std::vector<double> radii, const std::vector<double>& mass_fractions);

// The largest distance between the empirical distribution of `drawn` and dist.cdf (Kolmogorov–Smirnov).
double kolmogorov_smirnov_distance(std::vector<double> drawn, const SizeDistribution& dist);

}  // namespace talus::granular
