// Lattice bead-stack friction-contact problems (see LatticeStackProblem.hpp).
#include "solvers/fc/LatticeStackProblem.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace talus::solvers {

namespace {

struct LatticeContact {
  int lower;  // sphere below / behind, or −1 for the floor
  int upper;  // sphere above / in front
  int axis;   // normal direction: 0 = x, 1 = y, 2 = z
};

std::vector<LatticeContact> lattice_contacts(const LatticeStackParameters& p) {
  std::vector<LatticeContact> contacts;
  contacts.reserve(lattice_stack_contacts(p));
  for (int z = 0; z < p.nz; ++z)
    for (int y = 0; y < p.ny; ++y)
      for (int x = 0; x < p.nx; ++x) {
        const int s = x + p.nx * (y + p.ny * z);
        contacts.push_back({z == 0 ? -1 : s - p.nx * p.ny, s, 2});
        if (x > 0) contacts.push_back({s - 1, s, 0});
        if (y > 0) contacts.push_back({s - p.nx, s, 1});
      }
  return contacts;
}

void check(const LatticeStackParameters& p) {
  if (p.nx < 1 || p.ny < 1 || p.nz < 1) throw std::invalid_argument("lattice stack: nx, ny, nz must be >= 1");
  if (!(p.radius > 0.0) || !(p.density > 0.0) || !(p.time_step > 0.0) || !(p.mu >= 0.0) ||
      !(p.velocity_noise >= 0.0))
    throw std::invalid_argument("lattice stack: radius, density, time step must be > 0, mu and noise >= 0");
}

// Uniform in [−1, 1) from the raw engine output (std::uniform_real_distribution is implementation-defined).
double symmetric_unit(std::mt19937_64& rng) { return 2.0 * static_cast<double>(rng() >> 11) * 0x1.0p-53 - 1.0; }

}  // namespace

Index lattice_stack_contacts(const LatticeStackParameters& p) {
  const Index nx = p.nx, ny = p.ny, nz = p.nz;
  return nx * ny * nz + (nx - 1) * ny * nz + nx * (ny - 1) * nz;
}

LatticeStackParameters lattice_stack_for_contacts(Index contacts, int layers) {
  LatticeStackParameters p;
  p.nz = std::max(1, layers);
  const double spheres_per_layer = static_cast<double>(contacts) / (3.0 * p.nz);
  p.nx = p.ny = std::max(1, static_cast<int>(std::lround(std::sqrt(spheres_per_layer))));
  return p;
}

GlobalFrictionContactProblem make_lattice_stack_global(const LatticeStackParameters& p) {
  check(p);
  const auto contacts = lattice_contacts(p);
  const Index spheres = static_cast<Index>(p.nx) * p.ny * p.nz;
  const Index n = 6 * spheres;
  const Index m = 3 * static_cast<Index>(contacts.size());
  const double R = p.radius;
  const double mass = p.density * 4.0 / 3.0 * M_PI * R * R * R;
  const double inertia = 0.4 * mass * R * R;

  GlobalFrictionContactProblem g;
  g.dim = 3;
  std::vector<Triplet> entries;
  entries.reserve(n);
  for (Index s = 0; s < spheres; ++s)
    for (int k = 0; k < 6; ++k) entries.emplace_back(6 * s + k, 6 * s + k, k < 3 ? mass : inertia);
  g.M.resize(n, n);
  g.M.setFromTriplets(entries.begin(), entries.end());

  entries.clear();
  entries.reserve(contacts.size() * 3 * 8);
  for (size_t c = 0; c < contacts.size(); ++c) {
    const auto& con = contacts[c];
    Eigen::Vector3d normal = Eigen::Vector3d::Unit(con.axis);
    const Eigen::Vector3d frame[3] = {normal, Eigen::Vector3d::Unit((con.axis + 1) % 3),
                                      Eigen::Vector3d::Unit((con.axis + 2) % 3)};
    for (int k = 0; k < 3; ++k) {
      const int col = static_cast<int>(3 * c + k);
      // u_k = f_k · (v_upper + ω_upper × (−R n) − v_lower − ω_lower × (R n)); f·(ω × a) = ω·(a × f).
      const Eigen::Vector3d spin = (-R * normal).cross(frame[k]);
      for (int body = 0; body < 2; ++body) {
        const int s = body == 0 ? con.upper : con.lower;
        if (s < 0) continue;
        const double sign = body == 0 ? 1.0 : -1.0;
        for (int a = 0; a < 3; ++a) {
          if (frame[k][a] != 0.0) entries.emplace_back(6 * s + a, col, sign * frame[k][a]);
          if (spin[a] != 0.0) entries.emplace_back(6 * s + 3 + a, col, spin[a]);
        }
      }
    }
  }
  g.H.resize(n, m);
  g.H.setFromTriplets(entries.begin(), entries.end());

  Vector v_free = Vector::Zero(n);
  std::mt19937_64 rng(p.seed);
  for (Index s = 0; s < spheres; ++s) {
    if (p.velocity_noise > 0.0)
      for (int k = 0; k < 6; ++k) v_free[6 * s + k] = p.velocity_noise * symmetric_unit(rng) / (k < 3 ? 1.0 : R);
    v_free[6 * s + 2] -= p.time_step * p.gravity;
  }
  g.f = g.M * v_free;
  g.w = Vector::Zero(m);
  g.mu = Vector::Constant(static_cast<Index>(contacts.size()), p.mu);
  return g;
}

FrictionContactProblem make_lattice_stack_problem(const LatticeStackParameters& params) {
  const GlobalFrictionContactProblem g = make_lattice_stack_global(params);
  const Vector mass = g.M.diagonal();
  const Vector v_free = g.f.cwiseQuotient(mass);
  const SparseMatrixCol H = g.H;
  // M⁻¹ H by scaling H's entries in place: Eigen's sparse × diagonal product copies the diagonal per column.
  SparseMatrixCol MinvH = H;
  for (Index k = 0; k < MinvH.nonZeros(); ++k) MinvH.valuePtr()[k] /= mass[MinvH.innerIndexPtr()[k]];
  FrictionContactProblem p;
  p.dim = 3;
  p.W = SparseMatrixCol(H.transpose() * MinvH);
  p.W.prune(0.0, 0.0);
  p.q = H.transpose() * v_free + g.w;
  p.mu = g.mu;
  return p;
}

}  // namespace talus::solvers
