#pragma once
// Elimination of the equality rows of a mixed LCP by a dense Schur complement, so that a pure-LCP method
// (Lemke's pivoting) can solve what remains. With E the leading n_equality rows and I the rest:
//   w_E = M_EE z_E + M_EI z_I + q_E = 0   ⇒   z_E = −M_EE⁻¹ (M_EI z_I + q_E),
//   w_I = (M_II − M_IE M_EE⁻¹ M_EI) z_I + (q_I − M_IE M_EE⁻¹ q_E)   with 0 ≤ w_I ⟂ z_I ≥ 0.
// Dense on purpose: this is the small-system path (bilateral constraints of a few bodies).
#include <string>

#include <Eigen/LU>

#include "solvers/core/LcpProblem.hpp"

namespace talus::solvers {

struct MlcpReduction {
  Eigen::FullPivLU<Matrix> equality_lu;  // of M_EE; rank-revealing so a singular block is reported
  Matrix M_EI;                           // n_equality × n_inequality
  Vector q_E;
  Matrix M_reduced;                      // Schur complement, n_inequality × n_inequality
  Vector q_reduced;
};

// Fills `out` from the dense M. Returns false, with `message` naming the problem, when M_EE is singular.
bool reduce_mlcp(const Matrix& M, const Vector& q, int n_equality, MlcpReduction& out, std::string& message);

// Full unknown z = (z_E, z_I) from the reduced solution z_I.
void recover_equality_unknowns(const MlcpReduction& reduction, const Vector& z_inequality, Vector& z);

}  // namespace talus::solvers
