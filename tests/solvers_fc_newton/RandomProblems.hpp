#pragma once
// Random friction-contact problems with a known structure, for the solver-agreement tests: W = H M⁻¹ Hᵀ and
// q = H v_free + w as a multibody step builds them, with H of full row rank (W positive definite, unique
// solution for small μ) or with fewer degrees of freedom than contact rows (W singular, r not unique, the usual
// granular case). w_N ≥ 0 (open gaps, Moreau–Jean's restitution term) and w_T = 0 make v = −v_free strictly
// feasible, so a solution exists (Acary, Cadoux, Lemaréchal & Malick 2011); a random q could make a singular
// problem infeasible.
#include <random>

#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::test {

struct RandomProblemSpec {
  int dim = 3;
  int contacts = 8;
  int dofs = 30;          // ≥ dim·contacts gives a positive definite W
  double mu_min = 0.1;
  double mu_max = 0.3;
  double max_gap_velocity = 0.3;  // w_N drawn in [0, max_gap_velocity]
  unsigned seed = 1;
};

inline solvers::FrictionContactProblem random_problem(const RandomProblemSpec& s) {
  std::mt19937 gen(s.seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0), pos(0.5, 2.0), muu(s.mu_min, s.mu_max),
      gap(0.0, s.max_gap_velocity);
  const int m = s.dim * s.contacts;
  Matrix h(m, s.dofs);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < s.dofs; ++j) h(i, j) = uni(gen);
  Vector inv_mass(s.dofs);
  for (int j = 0; j < s.dofs; ++j) inv_mass[j] = 1.0 / pos(gen);
  const Matrix w = h * inv_mass.asDiagonal() * h.transpose();
  solvers::FrictionContactProblem p;
  p.dim = s.dim;
  p.W = w.sparseView();
  Vector v_free(s.dofs);
  for (int j = 0; j < s.dofs; ++j) v_free[j] = uni(gen);
  p.q = h * v_free;
  p.mu.resize(s.contacts);
  for (int c = 0; c < s.contacts; ++c) {
    p.mu[c] = muu(gen);
    p.q[s.dim * c] += gap(gen);
  }
  return p;
}

// One contact with a diagonal W = diag(w_n, w_t, …): the cases of Coulomb's law have closed forms.
inline solvers::FrictionContactProblem single_contact(int dim, double mu, double wn, double wt, const Vector& q) {
  solvers::FrictionContactProblem p;
  p.dim = dim;
  Matrix w = Matrix::Zero(dim, dim);
  w(0, 0) = wn;
  for (int k = 1; k < dim; ++k) w(k, k) = wt;
  p.W = w.sparseView();
  p.q = q;
  p.mu = Vector::Constant(1, mu);
  return p;
}

}  // namespace talus::test
