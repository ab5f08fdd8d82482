#pragma once
// Problem generators shared by the LCP solver tests: random P-matrix LCPs, LCPs built around a chosen
// (possibly degenerate) solution, and the chain-of-beads impact LCP with its closed form.
#include <random>
#include <vector>

#include "solvers/core/LcpProblem.hpp"

namespace talus::solvers::testing {

inline Matrix random_matrix(Index rows, Index cols, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Matrix A(rows, cols);
  for (Index j = 0; j < cols; ++j)
    for (Index i = 0; i < rows; ++i) A(i, j) = u(rng);
  return A;
}

inline Vector random_vector(Index n, std::mt19937& rng) { return random_matrix(n, 1, rng).col(0); }

inline LcpProblem make_lcp(const Matrix& M, const Vector& q, int n_equality = 0) {
  LcpProblem p;
  p.M = M.sparseView();
  p.q = q;
  p.n_equality = n_equality;
  return p;
}

// Symmetric positive definite: AᵀA + I.
inline Matrix spd_matrix(Index n, std::mt19937& rng) {
  const Matrix A = random_matrix(n, n, rng);
  return A.transpose() * A + Matrix::Identity(n, n);
}

// Nonsymmetric, strictly row diagonally dominant with a positive diagonal (hence a P-matrix, and PSOR
// converges on it).
inline Matrix diagonally_dominant_matrix(Index n, std::mt19937& rng) {
  Matrix M = random_matrix(n, n, rng);
  for (Index i = 0; i < n; ++i) M(i, i) = M.row(i).cwiseAbs().sum() + 0.5;
  return M;
}

// Nonsymmetric positive definite (symmetric part SPD plus a skew part): a P-matrix that is far from
// diagonally dominant.
inline Matrix skew_perturbed_matrix(Index n, std::mt19937& rng) {
  const Matrix K = 3.0 * random_matrix(n, n, rng);
  return spd_matrix(n, rng) + (K - K.transpose());
}

// Makes q so that (z*, w*) solves LCP(M, q): q = w* − M z*. `degenerate` rows get z*_i = w*_i = 0.
struct PlantedLcp {
  Vector q, z, w;
};
inline PlantedLcp plant_solution(const Matrix& M, std::mt19937& rng, double degenerate_fraction,
                                 bool integer_values = false) {
  const Index n = M.rows();
  std::uniform_real_distribution<double> u(0.0, 1.0);
  PlantedLcp s;
  s.z.setZero(n);
  s.w.setZero(n);
  for (Index i = 0; i < n; ++i) {
    if (u(rng) < degenerate_fraction) continue;
    const double value = integer_values ? 1.0 + std::floor(3.0 * u(rng)) : 0.1 + u(rng);
    (u(rng) < 0.5 ? s.z : s.w)[i] = value;
  }
  s.q = s.w - M * s.z;
  return s;
}

// A 1D chain of beads (masses m) to the right of a wall: contact 0 is wall–bead 0 (gap velocity v_0),
// contact k is bead k−1–bead k (gap velocity v_k − v_{k−1}). With u = D v and v = v_free + M⁻¹ Dᵀ λ, the
// inelastic impact LCP is 0 ≤ u = W λ + q ⟂ λ ≥ 0 with W = D M⁻¹ Dᵀ (tridiagonal: the 1D "−1, 2, −1"
// Delassus operator for equal masses) and q = D v_free.
struct BeadChain {
  Matrix D;  // contacts × beads, u = D v
  Vector inverse_mass;
  Vector v_free;
  LcpProblem lcp;
};
inline BeadChain bead_chain(const Vector& masses, const Vector& v_free) {
  const Index n = masses.size();
  BeadChain c;
  c.D.setZero(n, n);
  for (Index k = 0; k < n; ++k) {
    c.D(k, k) = 1.0;
    if (k > 0) c.D(k, k - 1) = -1.0;
  }
  c.inverse_mass = masses.cwiseInverse();
  c.v_free = v_free;
  const Matrix W = c.D * c.inverse_mass.asDiagonal() * c.D.transpose();
  c.lcp = make_lcp(W, c.D * v_free);
  return c;
}

}  // namespace talus::solvers::testing
