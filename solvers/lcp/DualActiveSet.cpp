// The dual active-set method for symmetric positive semidefinite LCPs; see DualActiveSet.hpp.
//
// w is recomputed from the sparse matrix after every step (O(nnz)), so the choice of the next row never reads
// drifted values; only G_AA⁻¹ is updated in place (bordering on an add, the Schur-complement formula on a drop),
// refactorised from G_AA every kRefactorInterval updates or as soon as w_A drifts from 0 (z_A is then corrected
// back onto w_A = 0), and each direction s = −G_AA⁻¹G_Ap is refined twice on G_AA itself. z is recomputed at
// the end from an LDLT of G_AA (kept only if its residual beats the path's).
#include "solvers/lcp/DualActiveSet.hpp"

#include <Eigen/Cholesky>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "solvers/core/AcceptProblem.hpp"
#include "solvers/core/NumberText.hpp"
#include "solvers/lcp/LcpResidualInPlace.hpp"
#include "solvers/lcp/RoundoffScale.hpp"

namespace talus::solvers {
namespace {

constexpr int kRefactorInterval = 64;
// A row is violated when w_i < −kViolation · (‖G‖∞‖z‖∞ + ‖q‖∞): round-off in w = G z + q is about n ε times
// that scale, and the acceptance test (RoundoffScale.hpp) allows 10⁻¹⁰ times it.
constexpr double kViolation = 1e-12;
// A multiplier of A blocks the step only if it decreases at a rate above this (scaled by √(G_jj/G_pp), so that
// the rate is dimensionless): slower rates are round-off in G_AA⁻¹G_Ap.
constexpr double kBlockingRate = 1e-12;

class DualActiveSet {
 public:
  DualActiveSet(const LcpProblem& p, const DualActiveSetParameters& params, DualActiveSetWorkspace& ws, Vector& z)
      : p_(p), params_(params), G_(ws.G), H_(ws.H), w_(ws.w), s_(ws.s), g_(ws.g), active_(ws.active),
        in_active_(ws.in_active), tolerated_(ws.tolerated), certificate_(ws.certificate), z_(z), n_(p.size()) {}

  // Rows left violated within the data tolerance, counted on the final w.
  Index tolerated_rows(const Vector& w) const {
    Index count = 0;
    for (Index i = 0; i < n_; ++i) count += tolerated_[i] && w[i] < 0.0;
    return count;
  }

  // Runs the method; `message` says why it stopped when it did not converge.
  SolverStatus run(int max_steps, int& steps, std::string& message) {
    G_ = p_.M;
    const double g_max = G_.cwiseAbs().maxCoeff();
    if ((G_ - G_.transpose()).cwiseAbs().maxCoeff() > params_.symmetry_tolerance * g_max) {
      message = "dual active set: the matrix is not symmetric";
      return SolverStatus::InvalidInput;
    }
    for (Index i = 0; i < n_; ++i)
      if (G_(i, i) < 0.0) {
        message = "dual active set: M(" + std::to_string(i) + "," + std::to_string(i) +
                  ") < 0, the matrix is not positive semidefinite";
        return SolverStatus::InvalidInput;
      }
    g_norm_ = max_row_abs_sum(p_.M);
    q_norm_ = p_.q.lpNorm<Eigen::Infinity>();
    z_.setZero(n_);
    w_ = p_.q;
    H_.resize(n_, n_);
    active_.clear();
    in_active_.assign(n_, 0);
    tolerated_.assign(n_, 0);
    certificate_.clear();
    steps = 0;
    int updates = 0;
    while (true) {
      const Index p = most_violated();
      if (p == -2) {
        certificate_.assign(1, zero_row_);
        message = "dual active set: the LCP is infeasible: row " + std::to_string(zero_row_) +
                  " has no entry in the matrix and q < 0";
        return SolverStatus::Infeasible;
      }
      if (p < 0) return SolverStatus::Converged;
      // Raise z_p until w_p = 0, keeping w_A = 0; drop the rows of A whose multipliers reach 0 on the way.
      while (true) {
        if (++steps > max_steps) {
          message = "dual active set: " + std::to_string(max_steps) + " steps spent (active rows " +
                    std::to_string(active_.size()) + ")";
          return SolverStatus::MaxIterations;
        }
        const Index k = Index(active_.size());
        g_.resize(k);
        for (Index j = 0; j < k; ++j) g_[j] = G_(active_[j], p);
        direction(k);  // s = dz_A / dz_p = −G_AA⁻¹ G_Ap
        const double gpp = G_(p, p);
        double d = gpp + g_.dot(s_);
        // Dependence is judged on the Rayleigh quotient of y = (s, 1): d = yᵀGy ≤ τ G_pp ‖y‖² says that y is a
        // near null vector of G (a near self-stress of A ∪ {p}), and d's round-off is about ε G_pp ‖y‖².
        double scale = gpp * (1.0 + s_.squaredNorm());
        if (d < -params_.dependence_tolerance * scale && updates > 0) {
          // G_AA⁻¹ drifted (a nearly dependent row of A amplifies round-off): refactorise and recompute.
          updates = 0;
          if (!refactor()) {
            message = "dual active set: the active block lost positive definiteness (round-off)";
            return SolverStatus::Diverged;
          }
          direction(k);
          d = gpp + g_.dot(s_);
          scale = gpp * (1.0 + s_.squaredNorm());
        }
        if (d < -params_.dependence_tolerance * scale) {
          char buf[96];
          std::snprintf(buf, sizeof buf, "%.3g of the diagonal, ‖s‖∞ %.3g, %ld active rows", d / gpp,
                        s_.lpNorm<Eigen::Infinity>(), long(k));
          message = "dual active set: a negative Schur complement (" + std::string(buf) + ") at row " +
                    std::to_string(p) + ": the matrix is not positive semidefinite";
          return SolverStatus::Diverged;
        }
        const bool independent = d > params_.dependence_tolerance * scale;
        const double full = independent ? -w_[p] / d : std::numeric_limits<double>::infinity();
        double partial = std::numeric_limits<double>::infinity();
        Index block = -1;
        for (Index j = 0; j < k; ++j) {
          const Index a = active_[j];
          if (s_[j] * std::sqrt(G_(a, a) / gpp) < -kBlockingRate) {
            const double t = z_[a] / -s_[j];
            if (t < partial) {
              partial = t;
              block = j;
            }
          }
        }
        if (!independent && block < 0) {
          if (w_[p] >= -params_.data_tolerance) {
            tolerated_[p] = 1;  // no z can raise it, and the data cannot tell it from 0: leave it
            break;
          }
          message = infeasibility(p);
          return SolverStatus::Infeasible;
        }
        const double t = std::min(full, partial);
        for (Index j = 0; j < k; ++j) z_[active_[j]] += t * s_[j];
        z_[p] += t;
        if (full <= partial) {
          add(p, d);
          z_[p] = std::max(0.0, z_[p]);
          ++updates;
          if (!restore(updates)) {
            message = "dual active set: the active block lost positive definiteness (round-off)";
            return SolverStatus::Diverged;
          }
          break;
        }
        drop(block);
        ++updates;
        if (!restore(updates)) {
          message = "dual active set: the active block lost positive definiteness (round-off)";
          return SolverStatus::Diverged;
        }
      }
    }
  }

  // z_A from a fresh factorisation of G_AA (backward stable whatever the path), given the multipliers outside A
  // (0, except a tolerated row raised by partial steps before it was found dependent).
  bool polish() {
    const Index k = Index(active_.size());
    if (k == 0) return true;
    for (Index j : active_) z_[j] = 0.0;
    w_.noalias() = p_.M * z_;
    w_ += p_.q;
    Matrix GA(k, k);
    Vector qA(k);
    for (Index i = 0; i < k; ++i) {
      qA[i] = -w_[active_[i]];
      for (Index j = 0; j < k; ++j) GA(i, j) = G_(active_[i], active_[j]);
    }
    const Eigen::LDLT<Matrix> ldlt(GA);
    if (ldlt.info() != Eigen::Success) return false;
    const Vector zA = ldlt.solve(qA);
    if (!zA.allFinite()) return false;
    for (Index i = 0; i < k; ++i) z_[active_[i]] = std::max(0.0, zA[i]);
    return true;
  }

 private:
  // The non-active row with the most negative w_i/√G_ii below the round-off threshold; −1 when none; −2 when
  // a row with a zero diagonal (and so, G being semidefinite, a zero row) has q_i < 0.
  Index most_violated() {
    const double threshold = -kViolation * (g_norm_ * z_.lpNorm<Eigen::Infinity>() + q_norm_);
    Index p = -1;
    double worst = 0.0;
    for (Index i = 0; i < n_; ++i) {
      if (in_active_[i] || !(w_[i] < threshold)) continue;
      // A tolerated row stays out while it is within the data's accuracy (a later drop from A can lower it).
      if (tolerated_[i] && w_[i] >= -params_.data_tolerance) continue;
      if (G_(i, i) <= 0.0) {
        zero_row_ = i;
        return -2;
      }
      const double v = w_[i] / std::sqrt(G_(i, i));
      if (v < worst) {
        worst = v;
        p = i;
      }
    }
    return p;
  }

  // s = −G_AA⁻¹ g with two steps of iterative refinement on G_AA itself: the Schur complement d = G_pp + gᵀs
  // that decides whether p depends on A is a difference of O(G_pp) terms, so s must be accurate to round-off,
  // not to ε cond(G_AA) as the updated G_AA⁻¹ alone gives it on a nearly dependent active set.
  void direction(Index k) {
    s_.noalias() = -H_.topLeftCorner(k, k) * g_;
    for (int refinement = 0; refinement < 2 && k > 0; ++refinement) {
      refinement_residual_ = g_;
      for (Index j = 0; j < k; ++j)
        for (Index i = 0; i < k; ++i) refinement_residual_[i] += G_(active_[i], active_[j]) * s_[j];
      s_.noalias() -= H_.topLeftCorner(k, k) * refinement_residual_;
    }
  }

  // Bordering: G_AA⁻¹ of A ∪ {p} from that of A, s = −G_AA⁻¹G_Ap and d the Schur complement.
  void add(Index p, double d) {
    const Index k = Index(active_.size());
    H_.topLeftCorner(k, k).noalias() += (s_ / d) * s_.transpose();
    H_.col(k).head(k) = s_ / d;
    H_.row(k).head(k) = s_.transpose() / d;
    H_(k, k) = 1.0 / d;
    active_.push_back(p);
    in_active_[p] = 1;
  }

  // Removes the j-th row of A: (G_A'A')⁻¹ = H_A'A' − H_A'j H_jA' / H_jj, with j first swapped to the end.
  void drop(Index j) {
    const Index k = Index(active_.size()), last = k - 1;
    z_[active_[j]] = 0.0;
    in_active_[active_[j]] = 0;
    if (j != last) {
      H_.topLeftCorner(k, k).row(j).swap(H_.topLeftCorner(k, k).row(last));
      H_.topLeftCorner(k, k).col(j).swap(H_.topLeftCorner(k, k).col(last));
      std::swap(active_[j], active_[last]);
    }
    const double hjj = H_(last, last);
    g_ = H_.col(last).head(last);
    H_.topLeftCorner(last, last).noalias() -= (g_ / hjj) * g_.transpose();
    active_.pop_back();
  }

  // w = G z + q afresh, and the invariant w_A = 0 checked: when G_AA⁻¹'s updates have drifted (w_A above the
  // round-off threshold) or kRefactorInterval updates have passed, G_AA⁻¹ is refactorised and z_A corrected by
  // −G_AA⁻¹ w_A, which puts the path back on w_A = 0 exactly.
  bool restore(int& updates) {
    w_.noalias() = p_.M * z_;
    w_ += p_.q;
    const double threshold = kViolation * (g_norm_ * z_.lpNorm<Eigen::Infinity>() + q_norm_);
    double drift = 0.0;
    for (Index j : active_) drift = std::max(drift, std::abs(w_[j]));
    if (drift <= threshold && updates < kRefactorInterval) return true;
    updates = 0;
    if (!refactor()) return false;
    const Index k = Index(active_.size());
    g_.resize(k);
    for (Index j = 0; j < k; ++j) g_[j] = w_[active_[j]];
    s_.noalias() = H_.topLeftCorner(k, k) * g_;
    for (Index j = 0; j < k; ++j) z_[active_[j]] -= s_[j];
    w_.noalias() = p_.M * z_;
    w_ += p_.q;
    return true;
  }

  // G_AA⁻¹ afresh.
  bool refactor() {
    const Index k = Index(active_.size());
    Matrix GA(k, k);
    for (Index i = 0; i < k; ++i)
      for (Index j = 0; j < k; ++j) GA(i, j) = G_(active_[i], active_[j]);
    const Eigen::LLT<Matrix> llt(GA);
    if (llt.info() != Eigen::Success) return false;
    H_.topLeftCorner(k, k) = llt.solve(Matrix::Identity(k, k));
    return true;
  }

  // The Farkas certificate y = (−G_AA⁻¹G_Ap, 1) ≥ 0, G y = 0, yᵀq = w_p < 0, named by its rows.
  // Weights below kBlockingRate (scaled as in run()) are round-off, not part of the certificate.
  std::string infeasibility(Index p) {
    certificate_.assign(1, p);
    std::string rows = std::to_string(p);
    const double s_max = s_.size() ? s_.lpNorm<Eigen::Infinity>() : 0.0;
    for (Index j = 0; j < Index(active_.size()); ++j)
      if (s_[j] > kBlockingRate * s_max) {
        certificate_.push_back(active_[j]);
        rows += " " + std::to_string(active_[j]);
      }
    char w[32];
    std::snprintf(w, sizeof w, "%.3g", w_[p]);
    return "dual active set: the LCP is infeasible: row " + std::to_string(p) + " (w = " + w +
           ") depends on the active rows with nonnegative weights, a certificate y ≥ 0 with G y = 0 and yᵀq < 0 on "
           "rows " + rows;
  }

  const LcpProblem& p_;
  const DualActiveSetParameters& params_;
  Matrix& G_;
  Matrix& H_;
  Vector& w_;
  Vector& s_;
  Vector& g_;
  std::vector<Index>& active_;
  std::vector<char>& in_active_;
  std::vector<char>& tolerated_;
  std::vector<Index>& certificate_;
  Vector& z_;
  const Index n_;
  Vector refinement_residual_;
  double g_norm_ = 0.0, q_norm_ = 0.0;
  Index zero_row_ = -1;
};

}  // namespace

SolverStats solve_dual_active_set(const LcpProblem& p, Vector& z, Vector& w, const DualActiveSetParameters& params,
                                  DualActiveSetWorkspace& workspace) {
  const auto start = std::chrono::steady_clock::now();
  SolverStats stats;
  z.setZero(p.q.size());
  if (!accept_problem(p, stats)) {
    w = p.q;
    return stats;
  }
  if (p.n_equality != 0) {
    stats.status = SolverStatus::InvalidInput;
    stats.message = "dual active set: equality rows are not supported (eliminate them first)";
    w = p.q;
    return stats;
  }
  const Index n = p.size();
  const int max_steps = params.max_steps > 0 ? params.max_steps : int(10 * (n + 10));
  DualActiveSet method(p, params, workspace, z);
  stats.status = method.run(max_steps, stats.iterations, stats.message);
  if (stats.status == SolverStatus::Converged) {
    // The polished z unless the path's own is the better one (a nearly dependent active block, where the
    // factorisation's backward error beats neither).
    workspace.path_z = z;
    const double path_residual = lcp_residual_into(p, z, w);
    if (!method.polish() || !(lcp_residual_into(p, z, w) <= path_residual)) z = workspace.path_z;
  }
  stats.residual = lcp_residual_into(p, z, w);
  if (!std::isfinite(stats.residual)) {
    stats.status = SolverStatus::Diverged;
    stats.message = "dual active set: the solution contains NaN or Inf";
  } else if (stats.status == SolverStatus::Converged) {
    const double accepted = params.acceptance_tolerance * roundoff_scale(max_row_abs_sum(p.M), z, p.q) +
                            params.data_tolerance * std::sqrt(double(method.tolerated_rows(w))) / (1.0 + p.q.norm());
    // The complementarity gap zᵀw = qᵀz + zᵀGz vanishes at a solution. The residual bound above grows with ‖z‖, so
    // a path that inflated z along a near self-stress (G z ≈ 0) can meet it with a wrong z (on a packing:
    // z_max 172 where the solution's is 2e-5, residual 3.5e-6, ½zᵀGz + qᵀz = +3e-4 > 0, which no solution has);
    // the gap, relative to its two terms, exposes that. 1e-8: a backward-stable z leaves n ε cond, far below.
    const double gap = z.dot(w), terms = std::abs(p.q.dot(z)) + std::abs(z.dot(w - p.q));
    if (stats.residual > accepted) {
      stats.status = SolverStatus::Diverged;
      stats.message = "dual active set: the recomputed residual " + number_text(stats.residual) +
                      " exceeds the round-off bound " + number_text(accepted) + " (ill-conditioned active block)";
    } else if (std::abs(gap) > 1e-8 * terms + params.data_tolerance * z.lpNorm<1>()) {
      stats.status = SolverStatus::Diverged;
      stats.message = "dual active set: the complementarity gap zᵀw = " + std::to_string(gap) + " is not 0 (terms " +
                      std::to_string(terms) + "): the path lost accuracy along a near self-stress";
    }
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

SolverStats solve_dual_active_set(const LcpProblem& p, Vector& z, Vector& w, const DualActiveSetParameters& params) {
  DualActiveSetWorkspace workspace;
  return solve_dual_active_set(p, z, w, params, workspace);
}

}  // namespace talus::solvers
