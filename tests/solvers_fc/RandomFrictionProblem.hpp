#pragma once
// Random friction-contact problems with the structure of real ones, shared by the solvers_fc tests:
// W = Hᵀ H from `bodies` rigid bodies (6 dofs, unit mass) and contacts between random pairs (or a body and the
// ground), so W is symmetric PSD with contact-block sparsity, and singular when dim·contacts > 6·bodies.
#include <random>
#include <vector>

#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::solvers::testing {

inline FrictionContactProblem random_friction_problem(int dim, int bodies, int contacts, double mu, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> pick(0, bodies - 1);
  std::vector<Triplet> h;
  for (int c = 0; c < contacts; ++c) {
    const int a = pick(rng);
    int b = pick(rng);
    if (b == a) b = -1;  // a contact with the ground
    for (int k = 0; k < dim; ++k)
      for (int body : {a, b})
        if (body >= 0)
          for (int dof = 0; dof < 6; ++dof) h.emplace_back(6 * body + dof, dim * c + k, normal(rng));
  }
  SparseMatrixCol H(6 * bodies, dim * contacts);
  H.setFromTriplets(h.begin(), h.end());
  FrictionContactProblem p;
  p.dim = dim;
  p.W = SparseMatrixCol(H.transpose() * H);
  p.q = Vector::NullaryExpr(dim * contacts, [&] { return normal(rng); });
  p.mu = Vector::Constant(contacts, mu);
  return p;
}

}  // namespace talus::solvers::testing
