// Planar Coulomb friction as an LCP; see Fc2dAsLcp.hpp for the formulation.
#include "solvers/lcp/Fc2dAsLcp.hpp"

#include <cassert>
#include <stdexcept>
#include <string>
#include <vector>

namespace talus::solvers {
namespace {

// G (2c × 4c): r = G z with z = (r_N, β⁺, β⁻, s) per contact.
SparseMatrix reaction_map(Index contacts) {
  std::vector<Triplet> t;
  t.reserve(3 * contacts);
  for (Index i = 0; i < contacts; ++i) {
    const int row = static_cast<int>(2 * i), col = static_cast<int>(4 * i);
    t.emplace_back(row, col, 1.0);
    t.emplace_back(row + 1, col + 1, 1.0);
    t.emplace_back(row + 1, col + 2, -1.0);
  }
  SparseMatrix G(2 * contacts, 4 * contacts);
  G.setFromTriplets(t.begin(), t.end());
  return G;
}

}  // namespace

LcpProblem fc2d_to_lcp(const FrictionContactProblem& p) {
  validate(p);
  if (p.dim != 2)
    throw std::invalid_argument("fc2d_to_lcp: the problem has dim = " + std::to_string(p.dim) +
                                ", expected 2");
  const Index c = p.contacts();
  const SparseMatrix G = reaction_map(c);
  const SparseMatrix Gt = G.transpose();
  // Slack and cone rows: w_{β⁺} += s, w_{β⁻} += s, w_s = μ r_N − β⁺ − β⁻.
  std::vector<Triplet> t;
  t.reserve(5 * c);
  for (Index i = 0; i < c; ++i) {
    const int k = static_cast<int>(4 * i);
    t.emplace_back(k + 1, k + 3, 1.0);
    t.emplace_back(k + 2, k + 3, 1.0);
    t.emplace_back(k + 3, k, p.mu[i]);
    t.emplace_back(k + 3, k + 1, -1.0);
    t.emplace_back(k + 3, k + 2, -1.0);
  }
  SparseMatrix C(4 * c, 4 * c);
  C.setFromTriplets(t.begin(), t.end());
  LcpProblem lcp;
  lcp.M = Gt * p.W * G + C;
  lcp.M.prune(0.0);
  lcp.q = Gt * p.q;
  return lcp;
}

void fc2d_reaction_from_lcp(const FrictionContactProblem& p, const Vector& z, Vector& r) {
  const Index c = p.contacts();
  assert(z.size() == 4 * c);
  r.resize(2 * c);
  for (Index i = 0; i < c; ++i) {
    r[2 * i] = z[4 * i];
    r[2 * i + 1] = z[4 * i + 1] - z[4 * i + 2];
  }
}

}  // namespace talus::solvers
