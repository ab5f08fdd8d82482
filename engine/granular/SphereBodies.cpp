#include "engine/granular/SphereBodies.hpp"

#include <cstring>
#include <numbers>
#include <stdexcept>
#include <string>

namespace talus::granular {

std::uint32_t SphereBodies::add(const Eigen::Vector3d& c, double r, double rho, const Eigen::Vector3d& vel) {
  if (!(r > 0.0) || !(rho > 0.0) || !c.allFinite())
    throw std::invalid_argument("bead: radius and density must be positive and the centre finite (r = " +
                                std::to_string(r) + ", rho = " + std::to_string(rho) + ")");
  const double m = rho * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  x.push_back(c);
  v.push_back(vel);
  w.push_back(Eigen::Vector3d::Zero());
  radius.push_back(r);
  mass.push_back(m);
  inv_mass.push_back(1.0 / m);
  inv_inertia.push_back(1.0 / (0.4 * m * r * r));
  id.push_back(next_id);
  return next_id++;
}

void SphereBodies::remove(const std::vector<char>& flags) {
  int k = 0;
  for (int i = 0; i < size(); ++i) {
    if (flags[i]) continue;
    x[k] = x[i], v[k] = v[i], w[k] = w[i], radius[k] = radius[i], mass[k] = mass[i];
    inv_mass[k] = inv_mass[i], inv_inertia[k] = inv_inertia[i], id[k] = id[i];
    ++k;
  }
  x.resize(k), v.resize(k), w.resize(k), radius.resize(k), mass.resize(k);
  inv_mass.resize(k), inv_inertia.resize(k), id.resize(k);
}

void SphereBodies::permute(const std::vector<std::int32_t>& order, SphereBodies& s) {
  s.x.resize(size()), s.v.resize(size()), s.w.resize(size()), s.radius.resize(size()), s.mass.resize(size());
  s.inv_mass.resize(size()), s.inv_inertia.resize(size()), s.id.resize(size());
  for (int k = 0; k < size(); ++k) {
    const int i = order[k];
    s.x[k] = x[i], s.v[k] = v[i], s.w[k] = w[i], s.radius[k] = radius[i], s.mass[k] = mass[i];
    s.inv_mass[k] = inv_mass[i], s.inv_inertia[k] = inv_inertia[i], s.id[k] = id[i];
  }
  x.swap(s.x), v.swap(s.v), w.swap(s.w), radius.swap(s.radius), mass.swap(s.mass);
  inv_mass.swap(s.inv_mass), inv_inertia.swap(s.inv_inertia), id.swap(s.id);
}

void SphereBodies::reserve(int n) {
  x.reserve(n), v.reserve(n), w.reserve(n), radius.reserve(n), mass.reserve(n);
  inv_mass.reserve(n), inv_inertia.reserve(n), id.reserve(n);
}

double kinetic_energy(const SphereBodies& b) {
  double e = 0.0;
  for (int i = 0; i < b.size(); ++i) {
    if (b.inv_mass[i] == 0.0) continue;
    e += 0.5 * b.mass[i] * b.v[i].squaredNorm() + 0.5 / b.inv_inertia[i] * b.w[i].squaredNorm();
  }
  return e;
}

std::uint64_t state_hash(const SphereBodies& b) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the raw bytes
  auto mix = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t k = 0; k < n; ++k) h = (h ^ c[k]) * 1099511628211ull;
  };
  for (int i = 0; i < b.size(); ++i) {
    mix(b.x[i].data(), 3 * sizeof(double));
    mix(b.v[i].data(), 3 * sizeof(double));
    mix(b.w[i].data(), 3 * sizeof(double));
    mix(&b.id[i], sizeof(std::uint32_t));
  }
  return h;
}

}  // namespace talus::granular
