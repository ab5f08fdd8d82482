#include "solvers/lcp/MlcpReduction.hpp"

namespace talus::solvers {

bool reduce_mlcp(const Matrix& M, const Vector& q, int n_equality, MlcpReduction& out, std::string& message) {
  const Index ne = n_equality;
  const Index ni = q.size() - ne;
  out.equality_lu.compute(M.topLeftCorner(ne, ne));
  const auto pivots = out.equality_lu.matrixLU().diagonal().cwiseAbs();
  if (!(pivots.minCoeff() > kEqualityPivotRatio * pivots.maxCoeff())) {
    message = "MLCP: the " + std::to_string(ne) + "x" + std::to_string(ne) +
              " equality block M_EE is singular (LU pivot ratio " +
              std::to_string(pivots.minCoeff() / pivots.maxCoeff()) +
              "): redundant or inconsistent bilateral constraints";
    return false;
  }
  out.M_EI = M.topRightCorner(ne, ni);
  out.q_E = q.head(ne);
  if (ni > 0)  // Eigen's triangular solve touches coeff (0, 0) even of an empty right-hand side
    out.solved_M_EI = out.equality_lu.solve(out.M_EI);
  else
    out.solved_M_EI.resize(ne, 0);
  out.solved_q_E = out.equality_lu.solve(out.q_E);
  out.M_reduced = M.bottomRightCorner(ni, ni);
  out.M_reduced.noalias() -= M.bottomLeftCorner(ni, ne) * out.solved_M_EI;
  out.q_reduced = q.tail(ni);
  out.q_reduced.noalias() -= M.bottomLeftCorner(ni, ne) * out.solved_q_E;
  return true;
}

void recover_equality_unknowns(MlcpReduction& r, const Vector& z_inequality, Vector& z) {
  const Index ne = r.q_E.size();
  z.resize(ne + z_inequality.size());
  z.tail(z_inequality.size()) = z_inequality;
  r.solved_q_E = -r.q_E;
  r.solved_q_E.noalias() -= r.M_EI * z_inequality;
  z.head(ne) = r.equality_lu.solve(r.solved_q_E);
}

}  // namespace talus::solvers
