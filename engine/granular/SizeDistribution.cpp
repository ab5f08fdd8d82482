#include "engine/granular/SizeDistribution.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace talus::granular {

namespace {

constexpr double kTails = 3.0;  // log-normal truncation, in σ

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

std::string SizeDistribution::problem() const {
  switch (kind) {
    case Kind::Uniform:
      if (!(r_min > 0.0 && r_max >= r_min && std::isfinite(r_max)))
        return "uniform radii need 0 < r_min <= r_max";
      return {};
    case Kind::LogNormal:
      if (!(median > 0.0 && std::isfinite(median))) return "log-normal radii need a median > 0";
      if (!(sigma >= 0.0 && sigma <= 2.0))
        return "log-normal radii need 0 <= sigma <= 2 (the spread of ln r)";
      return {};
    case Kind::Table: {
      if (radii.empty() || radii.size() != fractions.size())
        return "a size table needs one fraction per radius";
      double sum = 0.0;
      for (std::size_t k = 0; k < radii.size(); ++k) {
        if (!(radii[k] > 0.0 && std::isfinite(radii[k]))) return "a size table's radii must be > 0";
        if (!(fractions[k] >= 0.0 && std::isfinite(fractions[k])))
          return "a size table's fractions must be >= 0";
        if (k > 0 && !(radii[k] > radii[k - 1])) return "a size table's radii must increase";
        sum += fractions[k];
      }
      if (!(sum > 0.0)) return "a size table's fractions must not all be 0";
      return {};
    }
  }
  return "unknown size distribution";
}

void SizeDistribution::check() {
  if (const std::string why = problem(); !why.empty()) throw std::invalid_argument(why);
  if (kind == Kind::Table) {
    const double sum = std::accumulate(fractions.begin(), fractions.end(), 0.0);
    for (double& f : fractions) f /= sum;
  }
}

double SizeDistribution::smallest() const {
  switch (kind) {
    case Kind::Uniform:
      return r_min;
    case Kind::LogNormal:
      return median * std::exp(-kTails * sigma);
    case Kind::Table:
      return radii.front();
  }
  return 0.0;
}

double SizeDistribution::largest() const {
  switch (kind) {
    case Kind::Uniform:
      return r_max;
    case Kind::LogNormal:
      return median * std::exp(kTails * sigma);
    case Kind::Table:
      return radii.back();
  }
  return 0.0;
}

// Inverse-transform sampling from one uniform draw, so that a seed gives the same radii on every platform
// (std:: distributions other than the engine itself are not specified bit for bit).
double SizeDistribution::sample(std::mt19937_64& gen) const {
  const double u = (static_cast<double>(gen() >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
  switch (kind) {
    case Kind::Uniform:
      return r_min + u * (r_max - r_min);
    case Kind::LogNormal: {
      if (sigma == 0.0) return median;
      // The truncated normal's quantile: u mapped into [Φ(−3), Φ(3)], then inverted by bisection (Φ is
      // monotone; 60 halvings reach round-off).
      const double lo = normal_cdf(-kTails), hi = normal_cdf(kTails), p = lo + u * (hi - lo);
      double a = -kTails, b = kTails;
      for (int it = 0; it < 60; ++it) {
        const double m = 0.5 * (a + b);
        (normal_cdf(m) < p ? a : b) = m;
      }
      return median * std::exp(sigma * 0.5 * (a + b));
    }
    case Kind::Table: {
      double c = 0.0;
      for (std::size_t k = 0; k < radii.size(); ++k) {
        c += fractions[k];
        if (u <= c) return radii[k];
      }
      return radii.back();
    }
  }
  return 0.0;
}

double SizeDistribution::cdf(double r) const {
  switch (kind) {
    case Kind::Uniform:
      if (r_max == r_min) return r >= r_min ? 1.0 : 0.0;
      return std::clamp((r - r_min) / (r_max - r_min), 0.0, 1.0);
    case Kind::LogNormal: {
      if (sigma == 0.0) return r >= median ? 1.0 : 0.0;
      const double lo = normal_cdf(-kTails), hi = normal_cdf(kTails);
      const double z = std::clamp(std::log(r / median) / sigma, -kTails, kTails);
      return (normal_cdf(z) - lo) / (hi - lo);
    }
    case Kind::Table: {
      double c = 0.0;
      for (std::size_t k = 0; k < radii.size() && radii[k] <= r; ++k) c += fractions[k];
      return std::min(c, 1.0);
    }
  }
  return 0.0;
}

SizeDistribution table_by_mass(std::vector<double> radii, const std::vector<double>& mass_fractions) {
  SizeDistribution d;
  d.kind = SizeDistribution::Kind::Table;
  d.fractions.resize(mass_fractions.size());
  for (std::size_t k = 0; k < mass_fractions.size() && k < radii.size(); ++k)
    d.fractions[k] = radii[k] > 0.0 ? mass_fractions[k] / (radii[k] * radii[k] * radii[k]) : -1.0;
  d.radii = std::move(radii);
  return d;
}

double kolmogorov_smirnov_distance(std::vector<double> drawn, const SizeDistribution& dist) {
  std::sort(drawn.begin(), drawn.end());
  const double n = static_cast<double>(drawn.size());
  double d = 0.0;
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    // The empirical CDF jumps at each sample; ties (a table's radii) jump once, after the last of them.
    if (i + 1 < drawn.size() && drawn[i + 1] == drawn[i]) continue;
    const double f = dist.cdf(drawn[i]);
    const double below = i == 0 ? 0.0 : dist.cdf(std::nextafter(drawn[i], 0.0));
    std::size_t first = i;
    while (first > 0 && drawn[first - 1] == drawn[i]) --first;
    d = std::max({d, std::abs((i + 1) / n - f), std::abs(first / n - below)});
  }
  return d;
}

}  // namespace talus::granular
