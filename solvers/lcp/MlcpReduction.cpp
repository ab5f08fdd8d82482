#include "solvers/lcp/MlcpReduction.hpp"

namespace talus::solvers {

bool reduce_mlcp(const Matrix& M, const Vector& q, int n_equality, MlcpReduction& out, std::string& message) {
  const Index ne = n_equality;
  const Index ni = q.size() - ne;
  out.equality_lu.compute(M.topLeftCorner(ne, ne));
  if (!out.equality_lu.isInvertible()) {
    message = "MLCP: the " + std::to_string(ne) + "x" + std::to_string(ne) +
              " equality block M_EE is singular (rank " + std::to_string(out.equality_lu.rank()) +
              "): redundant or inconsistent bilateral constraints";
    return false;
  }
  out.M_EI = M.topRightCorner(ne, ni);
  out.q_E = q.head(ne);
  const Matrix Einv_M_EI = out.equality_lu.solve(out.M_EI);
  const Vector Einv_q_E = out.equality_lu.solve(out.q_E);
  out.M_reduced = M.bottomRightCorner(ni, ni) - M.bottomLeftCorner(ni, ne) * Einv_M_EI;
  out.q_reduced = q.tail(ni) - M.bottomLeftCorner(ni, ne) * Einv_q_E;
  return true;
}

void recover_equality_unknowns(const MlcpReduction& r, const Vector& z_inequality, Vector& z) {
  const Index ne = r.q_E.size();
  z.resize(ne + z_inequality.size());
  z.tail(z_inequality.size()) = z_inequality;
  z.head(ne) = -r.equality_lu.solve(r.M_EI * z_inequality + r.q_E);
}

}  // namespace talus::solvers
