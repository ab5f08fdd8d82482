// Lemke's complementary pivoting (see Lemke.hpp for the algorithm and docs/lcp-solvers.md for the choices).
//
// Implementation choice: a revised method with an explicit basis inverse B⁻¹ (n × n) rather than the full
// n × (2n + 1) tableau. Both cost O(n²) per pivot, but B⁻¹ is exactly what the lexicographic ratio test reads
// (the rows of [B⁻¹q | B⁻¹]), and an entering w-column costs nothing (B⁻¹ e_i is a column of B⁻¹). Drift from
// the rank-one updates is bounded by re-factorising B from its columns every max(n, 50) pivots (O(n³) over
// ≥ n pivots keeps the amortised cost O(n²)) and, once z0 has left, the final basic solution is recomputed
// from a fresh LU of B, so the returned z is backward stable whatever the pivot path. The pivoting runs on
// (M / max|M_ij|, q / max|q_i|), which leaves the path unchanged and puts the pivot tolerance in fixed units.
#include "solvers/lcp/Lemke.hpp"

#include "solvers/core/AcceptProblem.hpp"
#include "solvers/core/NumberText.hpp"

#include <Eigen/LU>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/lcp/LcpResidualInPlace.hpp"
#include "solvers/lcp/RoundoffScale.hpp"

namespace talus::solvers {
namespace {

// Relative width within which two ratios count as tied; ties are then broken lexicographically.
constexpr double kTieTolerance = 1e-12;

// The augmented system  I w − M z − d z0 = q  with variables numbered w_i = i, z_i = n + i, z0 = 2n.
// All state lives in the caller's LemkeWorkspace; resizing to an unchanged size does not allocate.
class LemkePivoting {
 public:
  LemkePivoting(const Matrix& M, const Vector& q, const LemkeParameters& params, LemkeWorkspace& ws)
      : M_(M),
        q_(q),
        n_(q.size()),
        params_(params),
        basis_(ws.basis),
        row_of_(ws.row_of),
        candidates_(ws.candidates),
        kept_(ws.kept),
        binv_(ws.inverse_basis),
        x_(ws.basic_values),
        column_(ws.column),
        pivot_row_(ws.pivot_row),
        basis_matrix_(ws.basis_matrix),
        lu_(ws.basis_lu) {
    basis_.resize(n_);
    row_of_.assign(2 * n_ + 1, -1);
    for (Index i = 0; i < n_; ++i) {
      basis_[i] = i;
      row_of_[i] = i;
    }
    binv_.setIdentity(n_, n_);
    x_ = q_;
    column_.resize(n_);
    pivot_row_.resize(n_);
    candidates_.reserve(n_);
    kept_.reserve(n_);
    basis_matrix_.resize(n_, n_);
  }

  // Runs the pivoting; returns the status and the number of pivots.
  SolverStatus run(int max_pivots, int& pivots) {
    pivots = 0;
    const Index z0 = 2 * n_;
    // First pivot: z0 enters at the value that makes every w_i = q_i + z0 ≥ 0; the leaving row is the
    // lexicographic minimum of (q_i, e_i), i.e. the most negative q_i, ties going to the largest index, which
    // leaves every row of [B⁻¹q | B⁻¹] lexicographically positive.
    const double q_min = q_.minCoeff();
    Index r = 0;
    for (Index i = 0; i < n_; ++i)
      if (q_[i] <= q_min + kTieTolerance * std::abs(q_min)) r = i;
    load_column(z0);
    pivot(r, z0);
    ++pivots;
    Index entering = n_ + r;  // the complement of the w_r that just left
    const Index refactor_interval = std::max<Index>(n_, 50);
    while (true) {
      if (pivots >= max_pivots) return SolverStatus::MaxIterations;
      if (pivots % refactor_interval == 0) refactor();
      load_column(entering);
      const double column_norm = column_.lpNorm<Eigen::Infinity>();
      r = lexicographic_ratio_test(params_.pivot_tolerance * std::max(1.0, column_norm), column_norm);
      if (r < 0) return SolverStatus::RayTermination;
      const Index leaving = basis_[r];
      pivot(r, entering);
      ++pivots;
      if (leaving == z0) return SolverStatus::Converged;
      entering = leaving < n_ ? leaving + n_ : leaving - n_;
    }
  }

  // z from a fresh LU of the final basis (see the file comment); negative round-off is clamped to 0.
  void extract_solution(Vector& z, bool refine) {
    if (refine) {
      assemble_basis_matrix();
      lu_.compute(basis_matrix_);
      x_ = lu_.solve(q_);
    }
    z.setZero(n_);
    for (Index i = 0; i < n_; ++i)
      if (basis_[i] >= n_ && basis_[i] < 2 * n_) z[basis_[i] - n_] = std::max(0.0, x_[i]);
  }

 private:
  // column_ = B⁻¹ a_var, a being the column of var in [I | −M | −d].
  void load_column(Index var) {
    if (var < n_) {
      column_ = binv_.col(var);
    } else if (var < 2 * n_) {
      column_.noalias() = -binv_ * M_.col(var - n_);
    } else {
      column_ = -binv_.rowwise().sum();
    }
  }

  void assemble_basis_matrix() {
    for (Index i = 0; i < n_; ++i) {
      const Index var = basis_[i];
      if (var < n_) {
        basis_matrix_.col(i).setZero();
        basis_matrix_(var, i) = 1.0;
      } else if (var < 2 * n_) {
        basis_matrix_.col(i) = -M_.col(var - n_);
      } else {
        basis_matrix_.col(i).setConstant(-1.0);
      }
    }
  }

  void refactor() {
    assemble_basis_matrix();
    lu_.compute(basis_matrix_);
    binv_ = lu_.inverse();  // evaluated straight into binv_'s storage
    x_.noalias() = binv_ * q_;
  }

  // Row r leaves; `entering` takes its place. column_ holds B⁻¹ a_entering.
  void pivot(Index r, Index entering) {
    const double p = column_[r];
    pivot_row_ = binv_.row(r).transpose() / p;
    const double xr = x_[r] / p;
    binv_.noalias() -= column_ * pivot_row_.transpose();
    x_ -= xr * column_;
    binv_.row(r) = pivot_row_.transpose();
    x_[r] = xr;
    row_of_[basis_[r]] = -1;
    basis_[r] = entering;
    row_of_[entering] = r;
  }

  // Row minimising x_i / c_i over c_i > threshold, ties broken by the lexicographic minimum of
  // B⁻¹(i, :) / c_i (unique since B⁻¹ is invertible), preferring z0's row when it ties at the first level
  // (it ends the run). Returns −1 when no entry is positive: a secondary ray.
  // Ties are judged relative to the scale of each level (‖x‖∞ / ‖c‖∞ for the ratios, the largest candidate
  // entry for a B⁻¹ column) so that the rule does not depend on the units of q and M.
  Index lexicographic_ratio_test(double threshold, double column_norm) {
    candidates_.clear();
    for (Index i = 0; i < n_; ++i)
      if (column_[i] > threshold) candidates_.push_back(i);
    if (candidates_.empty()) return -1;
    keep_ties([&](Index i) { return std::max(0.0, x_[i]) / column_[i]; },
              x_.lpNorm<Eigen::Infinity>() / column_norm);
    if (candidates_.size() == 1) return candidates_[0];
    const Index z0_row = row_of_[2 * n_];
    for (Index i : candidates_)
      if (i == z0_row) return i;
    for (Index k = 0; k < n_ && candidates_.size() > 1; ++k) {
      const auto entry = [&](Index i) { return binv_(i, k) / column_[i]; };
      double level_scale = 0.0;
      for (Index i : candidates_) level_scale = std::max(level_scale, std::abs(entry(i)));
      keep_ties(entry, level_scale);
    }
    Index chosen = candidates_[0];
    for (Index i : candidates_)
      if (column_[i] > column_[chosen]) chosen = i;
    return chosen;
  }

  // Keeps the candidates whose value is within kTieTolerance · max(|smallest|, scale) of the smallest.
  template <class Value>
  void keep_ties(Value value, double scale) {
    double best = std::numeric_limits<double>::infinity();
    for (Index i : candidates_) best = std::min(best, value(i));
    const double width = kTieTolerance * std::max(std::abs(best), scale);
    kept_.clear();
    for (Index i : candidates_)
      if (value(i) <= best + width) kept_.push_back(i);
    candidates_.swap(kept_);
  }

  const Matrix& M_;
  const Vector& q_;
  const Index n_;
  const LemkeParameters& params_;
  std::vector<Index>& basis_;   // variable basic in each row
  std::vector<Index>& row_of_;  // row of each variable, −1 when non-basic
  std::vector<Index>& candidates_;
  std::vector<Index>& kept_;
  Matrix& binv_;
  Vector& x_;  // basic values B⁻¹ q
  Vector& column_;
  Vector& pivot_row_;
  Matrix& basis_matrix_;
  Eigen::PartialPivLU<Matrix>& lu_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SolverStats solve_lemke_dense(const Matrix& M, const Vector& q, Vector& z, const LemkeParameters& params,
                              LemkeWorkspace& workspace) {
  SolverStats stats;
  const Index n = q.size();
  assert(M.rows() == n && M.cols() == n);
  if (n == 0 || q.minCoeff() >= 0.0) {
    z.setZero(n);
    stats.status = SolverStatus::Converged;
    return stats;
  }
  const int max_pivots = params.max_pivots > 0 ? params.max_pivots : static_cast<int>(100 * (n + 1));
  // Lemke's path is invariant under (M, q) → (αM, βq) (z scales by β/α), so pivoting on the normalised
  // problem makes the absolute pivot tolerance meaningful whatever the units of the data.
  const double M_scale = M.cwiseAbs().maxCoeff();
  const double q_scale = q.cwiseAbs().maxCoeff();
  const bool normalise = M_scale > 0.0;
  if (normalise) {
    workspace.M_normalised = M / M_scale;
    workspace.q_normalised = q / q_scale;
  }
  LemkePivoting pivoting(normalise ? workspace.M_normalised : M, normalise ? workspace.q_normalised : q,
                         params, workspace);
  stats.status = pivoting.run(max_pivots, stats.iterations);
  pivoting.extract_solution(z, stats.status == SolverStatus::Converged);
  if (normalise) z *= q_scale / M_scale;
  switch (stats.status) {
    case SolverStatus::RayTermination:
      stats.message = "Lemke: secondary ray after " + std::to_string(stats.iterations) +
                      " pivots: the LCP may have no solution (or M is not copositive-plus)";
      break;
    case SolverStatus::MaxIterations:
      stats.message =
          "Lemke: " + std::to_string(stats.iterations) + " pivots spent without z0 leaving the basis";
      break;
    default:
      break;
  }
  return stats;
}

SolverStats solve_lemke(const LcpProblem& p, Vector& z, Vector& w, const LemkeParameters& params,
                        LemkeWorkspace& workspace) {
  const auto start = std::chrono::steady_clock::now();
  SolverStats stats;
  if (!accept_problem(p, stats)) return stats;
  workspace.M_dense = p.M;  // dense on purpose: the small-system path
  if (p.n_equality == 0) {
    stats = solve_lemke_dense(workspace.M_dense, p.q, z, params, workspace);
  } else {
    MlcpReduction& reduction = workspace.reduction;
    if (!reduce_mlcp(workspace.M_dense, p.q, p.n_equality, reduction, stats.message)) {
      stats.status = SolverStatus::InvalidInput;
      z.setZero(p.size());
      stats.residual = lcp_residual_into(p, z, w);
      stats.seconds = seconds_since(start);
      return stats;
    }
    stats = solve_lemke_dense(reduction.M_reduced, reduction.q_reduced, workspace.z_inequality, params,
                              workspace);
    recover_equality_unknowns(reduction, workspace.z_inequality, z);
  }
  stats.residual = lcp_residual_into(p, z, w);
  if (!std::isfinite(stats.residual)) {
    stats.status = SolverStatus::Diverged;
    stats.message = "Lemke: the solution contains NaN or Inf";
  } else if (stats.status == SolverStatus::Converged) {
    const double accepted = params.acceptance_tolerance * roundoff_scale(max_row_abs_sum(p.M), z, p.q);
    if (stats.residual > accepted) {
      stats.status = SolverStatus::Diverged;
      stats.message = "Lemke: pivoting ended on a complementary basis but the recomputed residual " +
                      number_text(stats.residual) + " exceeds the round-off bound " +
                      number_text(accepted) + " (ill-conditioned basis)";
    }
  }
  stats.seconds = seconds_since(start);
  return stats;
}

SolverStats solve_lemke(const LcpProblem& p, Vector& z, Vector& w, const LemkeParameters& params) {
  LemkeWorkspace workspace;
  return solve_lemke(p, z, w, params, workspace);
}

}  // namespace talus::solvers
