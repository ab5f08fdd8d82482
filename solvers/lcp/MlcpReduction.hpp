#pragma once
// Elimination of the equality rows of a mixed LCP by a dense Schur complement, so that a pure-LCP method
// (Lemke's pivoting) can solve what remains. With E the leading n_equality rows and I the rest:
//   w_E = M_EE z_E + M_EI z_I + q_E = 0   ⇒   z_E = −M_EE⁻¹ (M_EI z_I + q_E),
//   w_I = (M_II − M_IE M_EE⁻¹ M_EI) z_I + (q_I − M_IE M_EE⁻¹ q_E)   with 0 ≤ w_I ⟂ z_I ≥ 0.
// Dense on purpose: this is the small-system path (bilateral constraints of a few bodies). The struct owns
// every buffer, so reducing problems of unchanged sizes does not allocate.
#include <Eigen/LU>
#include <string>

#include "solvers/core/SparseTypes.hpp"

namespace talus::solvers {

// M_EE counts as singular when its smallest LU pivot is below this fraction of the largest one.
inline constexpr double kEqualityPivotRatio = 1e-13;

struct MlcpReduction {
  Eigen::PartialPivLU<Matrix> equality_lu;  // of M_EE
  Matrix M_EI;                              // n_equality × n_inequality
  Vector q_E;
  Matrix M_reduced;  // Schur complement, n_inequality × n_inequality
  Vector q_reduced;
  Matrix solved_M_EI;  // M_EE⁻¹ M_EI
  Vector solved_q_E;   // M_EE⁻¹ q_E, then scratch for the recovery of z_E
};

// Fills `out` from the dense M. Returns false, with `message` naming the problem, when M_EE is singular
// (smallest |U_ii| of its partial-pivoting LU ≤ kEqualityPivotRatio · largest).
bool reduce_mlcp(const Matrix& M, const Vector& q, int n_equality, MlcpReduction& out, std::string& message);

// Full unknown z = (z_E, z_I) from the reduced solution z_I.
void recover_equality_unknowns(MlcpReduction& reduction, const Vector& z_inequality, Vector& z);

}  // namespace talus::solvers
