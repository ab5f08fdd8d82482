// Linear bar and Euler–Bernoulli beam elements assembled into sparse M, K, C (see the header).
#include "engine/schemes/FiniteElementBeams.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace talus {

namespace {

void require(bool ok, const char* what, const std::string& msg) {
  if (!ok) throw std::invalid_argument(std::string(what) + ": " + msg);
}

bool positive(double x) { return std::isfinite(x) && x > 0.0; }

SparseMatrix from_triplets(Index n, const std::vector<Triplet>& t) {
  SparseMatrix A(n, n);
  A.setFromTriplets(t.begin(), t.end());
  A.makeCompressed();
  return A;
}

void finish(LagrangianLti& s, double a_m, double a_k) {
  const Index n = s.dofs();
  if (a_m != 0.0 || a_k != 0.0) {
    s.C = a_m * s.M + a_k * s.K;
    s.C.makeCompressed();
  }
  s.q = Vector::Zero(n);
  s.v = Vector::Zero(n);
}

// Global index of local dof d of a beam node, or −1 when clamped.
Index beam_global(const EulerBernoulliBeamParameters& p, int node, int d) {
  if (p.clamped_left) return node == 0 ? -1 : 2 * Index(node - 1) + d;
  return 2 * Index(node) + d;
}

}  // namespace

void validate(const ElasticBarParameters& p) {
  constexpr const char* what = "elastic bar";
  require(positive(p.young), what, "young must be > 0");
  require(positive(p.density), what, "density must be > 0");
  require(positive(p.area), what, "area must be > 0");
  require(positive(p.length), what, "length must be > 0");
  require(p.elements >= 1, what, "elements must be >= 1");
  require(p.rayleigh_mass >= 0.0 && p.rayleigh_stiffness >= 0.0, what, "Rayleigh coefficients must be >= 0");
  require(std::isfinite(p.axial_load), what, "axial_load must be finite");
}

void validate(const EulerBernoulliBeamParameters& p) {
  constexpr const char* what = "Euler–Bernoulli beam";
  require(positive(p.young), what, "young must be > 0");
  require(positive(p.second_moment), what, "second_moment must be > 0");
  require(positive(p.density), what, "density must be > 0");
  require(positive(p.area), what, "area must be > 0");
  require(positive(p.length), what, "length must be > 0");
  require(p.elements >= 1, what, "elements must be >= 1");
  require(p.rayleigh_mass >= 0.0 && p.rayleigh_stiffness >= 0.0, what, "Rayleigh coefficients must be >= 0");
  require(std::isfinite(p.transverse_load), what, "transverse_load must be finite");
}

LagrangianLti make_elastic_bar(const ElasticBarParameters& p) {
  validate(p);
  const Index n = p.elements + 1;
  const double le = p.length / p.elements;
  const double k = p.young * p.area / le, m = p.density * p.area * le;
  std::vector<Triplet> tk, tm;
  LagrangianLti bar;
  bar.name = "bar";
  bar.f_const = Vector::Zero(n);
  for (int e = 0; e < p.elements; ++e) {
    const int i = e, j = e + 1;
    tk.insert(tk.end(), {{i, i, k}, {i, j, -k}, {j, i, -k}, {j, j, k}});
    if (p.mass == MassMatrixKind::Consistent)
      tm.insert(tm.end(), {{i, i, m / 3.0}, {i, j, m / 6.0}, {j, i, m / 6.0}, {j, j, m / 3.0}});
    else
      tm.insert(tm.end(), {{i, i, m / 2.0}, {j, j, m / 2.0}});
    bar.f_const[i] += 0.5 * p.axial_load * le;
    bar.f_const[j] += 0.5 * p.axial_load * le;
  }
  bar.K = from_triplets(n, tk);
  bar.M = from_triplets(n, tm);
  if (p.axial_load == 0.0) bar.f_const.resize(0);
  finish(bar, p.rayleigh_mass, p.rayleigh_stiffness);
  return bar;
}

LagrangianLti make_euler_bernoulli_beam(const EulerBernoulliBeamParameters& p) {
  validate(p);
  const double l = p.length / p.elements;
  const double ks = p.young * p.second_moment / (l * l * l), ms = p.density * p.area * l / 420.0;
  const double Ke[4][4] = {{12, 6 * l, -12, 6 * l},
                           {6 * l, 4 * l * l, -6 * l, 2 * l * l},
                           {-12, -6 * l, 12, -6 * l},
                           {6 * l, 2 * l * l, -6 * l, 4 * l * l}};
  const double Me[4][4] = {{156, 22 * l, 54, -13 * l},
                           {22 * l, 4 * l * l, 13 * l, -3 * l * l},
                           {54, 13 * l, 156, -22 * l},
                           {-13 * l, -3 * l * l, -22 * l, 4 * l * l}};
  const double pe[4] = {p.transverse_load * l / 2, p.transverse_load * l * l / 12, p.transverse_load * l / 2,
                        -p.transverse_load * l * l / 12};
  const Index n = 2 * Index(p.elements + 1) - (p.clamped_left ? 2 : 0);
  std::vector<Triplet> tk, tm;
  LagrangianLti beam;
  beam.name = "beam";
  beam.f_const = Vector::Zero(n);
  for (int e = 0; e < p.elements; ++e) {
    const Index g[4] = {beam_global(p, e, 0), beam_global(p, e, 1), beam_global(p, e + 1, 0),
                        beam_global(p, e + 1, 1)};
    for (int a = 0; a < 4; ++a) {
      if (g[a] < 0) continue;
      beam.f_const[g[a]] += pe[a];
      for (int b = 0; b < 4; ++b) {
        if (g[b] < 0) continue;
        tk.emplace_back(int(g[a]), int(g[b]), ks * Ke[a][b]);
        tm.emplace_back(int(g[a]), int(g[b]), ms * Me[a][b]);
      }
    }
  }
  beam.K = from_triplets(n, tk);
  beam.M = from_triplets(n, tm);
  if (p.transverse_load == 0.0) beam.f_const.resize(0);
  finish(beam, p.rayleigh_mass, p.rayleigh_stiffness);
  return beam;
}

Index beam_deflection_dof(const EulerBernoulliBeamParameters& p, int node) {
  require(node >= 0 && node <= p.elements, "Euler–Bernoulli beam", "node " + std::to_string(node) + " does not exist");
  const Index g = beam_global(p, node, 0);
  require(g >= 0, "Euler–Bernoulli beam", "node " + std::to_string(node) + " is clamped");
  return g;
}

Index beam_rotation_dof(const EulerBernoulliBeamParameters& p, int node) {
  return beam_deflection_dof(p, node) + 1;
}

}  // namespace talus
