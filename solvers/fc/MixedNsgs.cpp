// NSGS with equality blocks (see MixedNsgs.hpp for the method and the stopping rule).
#include "solvers/fc/MixedNsgs.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/fc/LocalContactSolvers.hpp"
#include "solvers/core/AcceptProblem.hpp"

namespace talus::solvers {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Eigenvalues of a diagonal block below this fraction of its largest are treated as zero by the
// pseudo-inverse: W_ee = J_e M⁻¹ J_eᵀ is formed in floating point, so a dependent row leaves an eigenvalue of
// round-off size.
constexpr double kRankTolerance = 1e-12;

// Row i of W r, skipping the columns [skip_begin, skip_end) (the visited block's own columns).
inline double row_product(const SparseMatrix& W, const double* r, Index i, Index skip_begin, Index skip_end) {
  double s = 0.0;
  for (SparseMatrix::InnerIterator it(W, i); it; ++it)
    if (it.col() < skip_begin || it.col() >= skip_end) s += it.value() * r[it.col()];
  return s;
}

// Union–find root of block e (path halving).
Index root(std::vector<Index>& parent, Index e) {
  while (parent[e] != e) e = parent[e] = parent[parent[e]];
  return e;
}

// What the sweep reads, prepared once per solve (the only allocations of a solve).
template <int D>
struct Prepared {
  // Mechanisms: groups of equality blocks coupled through W (sharing a body), each solved as one block.
  std::vector<Index> group_rows;  // the groups' rows, group g's at [group_row_start[g], group_row_start[g+1])
  std::vector<Index> group_row_start;
  std::vector<Index> group_blocks;  // the groups' blocks, group g's at [group_block_start[g], …[g+1])
  std::vector<Index> group_block_start;
  std::vector<double> group_inverse;  // row-major pseudo-inverses of the groups' diagonal blocks, packed
  std::vector<Index> group_inverse_start;
  std::vector<int> group_rank;           // rank of each group's diagonal block
  std::vector<LocalContact<D>> contact;  // the contacts' diagonal blocks and local-solver data
  Vector u_group;                        // u of the group being visited, sized for the largest group
};

template <int D>
Prepared<D> prepare(const MixedFrictionContactProblem& p) {
  Prepared<D> out;
  const Index E = p.equality_blocks(), me = p.equality_rows();
  // Block of each equality row, then the groups: blocks joined by a non-zero W entry between their rows.
  std::vector<Index> block_of(me);
  for (Index e = 0; e < E; ++e)
    for (Index i = p.equality_start[e]; i < p.equality_start[e + 1]; ++i) block_of[i] = e;
  std::vector<Index> parent(E);
  for (Index e = 0; e < E; ++e) parent[e] = e;
  for (Index i = 0; i < me; ++i)
    for (SparseMatrix::InnerIterator it(p.W, i); it; ++it)
      if (it.col() < me && it.value() != 0.0) {
        const Index a = root(parent, block_of[i]), b = root(parent, block_of[it.col()]);
        if (a != b)
          parent[std::max(a, b)] = std::min(a, b);  // the smallest block names the group: deterministic
      }
  std::vector<Index> group_of_root(E, -1);
  std::vector<std::vector<Index>> members;
  for (Index e = 0; e < E; ++e) {
    const Index r = root(parent, e);
    if (group_of_root[r] < 0) {
      group_of_root[r] = static_cast<Index>(members.size());
      members.emplace_back();
    }
    members[group_of_root[r]].push_back(e);
  }
  const Index G = static_cast<Index>(members.size());
  out.group_row_start.assign(1, 0);
  out.group_block_start.assign(1, 0);
  out.group_inverse_start.assign(1, 0);
  Index largest = 0;
  for (Index g = 0; g < G; ++g) {
    for (Index e : members[g]) {
      out.group_blocks.push_back(e);
      for (Index i = p.equality_start[e]; i < p.equality_start[e + 1]; ++i) out.group_rows.push_back(i);
    }
    out.group_block_start.push_back(static_cast<Index>(out.group_blocks.size()));
    out.group_row_start.push_back(static_cast<Index>(out.group_rows.size()));
    const Index n = out.group_row_start[g + 1] - out.group_row_start[g];
    largest = std::max(largest, n);
    out.group_inverse_start.push_back(out.group_inverse_start.back() + n * n);
  }
  out.group_inverse.assign(out.group_inverse_start.back(), 0.0);
  out.group_rank.resize(G);
  for (Index g = 0; g < G; ++g) {
    const Index* rows = out.group_rows.data() + out.group_row_start[g];
    const Index n = out.group_row_start[g + 1] - out.group_row_start[g];
    Matrix raw(n, n);
    for (Index a = 0; a < n; ++a)
      for (Index b = 0; b < n; ++b) raw(a, b) = p.W.coeff(rows[a], rows[b]);
    Matrix inverse = Matrix::Zero(n, n);
    int rank = 0;
    const double size = raw.cwiseAbs().maxCoeff();
    if ((raw - raw.transpose()).cwiseAbs().maxCoeff() <= kRankTolerance * size) {
      // Symmetric up to round-off (Moreau–Jean's J M⁻¹ Jᵀ): eigen-decomposition of the symmetrised block, the
      // dropped eigenvalues being round-off.
      const Matrix A = 0.5 * (raw + raw.transpose());
      const Eigen::SelfAdjointEigenSolver<Matrix> eig(A);
      const Vector& lambda = eig.eigenvalues();
      const double top = lambda.cwiseAbs().maxCoeff();
      for (Index k = 0; k < n; ++k)
        if (top > 0.0 && lambda[k] > kRankTolerance * top) {
          inverse += eig.eigenvectors().col(k) * (1.0 / lambda[k]) * eig.eigenvectors().col(k).transpose();
          ++rank;
        }
    } else {
      // Not symmetric (generalized-α's block of smooth, position and velocity multipliers, where the position
      // and velocity rows read the smooth multipliers but not the converse): its own pseudo-inverse, by SVD with
      // the same relative threshold, so that u_E = 0 is solved exactly; a symmetrised block would not.
      const Eigen::JacobiSVD<Matrix> svd(raw, Eigen::ComputeFullU | Eigen::ComputeFullV);
      const Vector& sigma = svd.singularValues();
      const double top = n > 0 ? sigma[0] : 0.0;
      for (Index k = 0; k < n; ++k)
        if (top > 0.0 && sigma[k] > kRankTolerance * top) {
          inverse += svd.matrixV().col(k) * (1.0 / sigma[k]) * svd.matrixU().col(k).transpose();
          ++rank;
        }
    }
    out.group_rank[g] = rank;
    double* dst = out.group_inverse.data() + out.group_inverse_start[g];
    for (Index a = 0; a < n; ++a)
      for (Index b = 0; b < n; ++b) dst[a * n + b] = inverse(a, b);
  }
  out.u_group.resize(largest);
  out.contact.reserve(p.contacts());
  for (Index i = 0; i < p.contacts(); ++i) {
    const Index s = me + D * i;
    double block[D * D];
    for (int a = 0; a < D; ++a)
      for (int b = 0; b < D; ++b) block[a * D + b] = p.W.coeff(s + a, s + b);
    out.contact.push_back(prepare_local_contact<D>(block, p.mu[i]));
  }
  return out;
}

// One sweep; returns Σ ‖Δr_block‖² and adds the local Newton iterations to `local_iterations`.
template <int D>
double sweep(const MixedFrictionContactProblem& p, Prepared<D>& prep, const NsgsParameters& prm,
             const LocalSolveSettings& ls, Vector& r, long& local_iterations) {
  using Vec = Eigen::Matrix<double, D, 1>;
  const double omega = prm.relaxation;
  double change = 0.0;
  double* x = r.data();
  double* u = prep.u_group.data();
  const Index G = static_cast<Index>(prep.group_rank.size());
  for (Index g = 0; g < G; ++g) {
    const Index* rows = prep.group_rows.data() + prep.group_row_start[g];
    const Index n = prep.group_row_start[g + 1] - prep.group_row_start[g];
    for (Index a = 0; a < n; ++a)
      u[a] = p.q[rows[a]] + row_product(p.W, x, rows[a], 0, 0);  // whole rows: u_E
    const double* inverse = prep.group_inverse.data() + prep.group_inverse_start[g];
    for (Index a = 0; a < n; ++a) {
      double d = 0.0;
      for (Index b = 0; b < n; ++b) d -= inverse[a * n + b] * u[b];
      d *= omega;
      x[rows[a]] += d;
      change += d * d;
    }
  }
  const Index me = p.equality_rows();
  for (Index i = 0; i < p.contacts(); ++i) {
    const Index s = me + D * i;
    Vec b;
    for (int a = 0; a < D; ++a) b[a] = p.q[s + a] + row_product(p.W, x, s + a, s, s + D);
    Eigen::Map<Vec> ri(x + s);
    const Vec old = ri;
    Vec next = old;
    local_iterations += solve_local_contact<D>(prm.local, prep.contact[i], b, next, ls);
    if (omega != 1.0) {
      next = old + omega * (next - old);
      if (omega > 1.0) local_detail::project_on_cone<D>(next, prep.contact[i].mu);
    }
    ri = next;
    change += (next - old).squaredNorm();
  }
  return change;
}

// The extended residual (FrictionContactProblem.hpp) at r, with u = W r + q written into u (preallocated).
template <int D>
double residual(const MixedFrictionContactProblem& p, const Vector& r, Vector& u, double normaliser) {
  for (Index i = 0; i < u.size(); ++i) u[i] = p.q[i] + row_product(p.W, r.data(), i, 0, 0);
  const Index me = p.equality_rows();
  double s = 0.0;
  for (Index i = 0; i < me; ++i) s += u[i] * u[i];
  for (Index i = 0; i < p.contacts(); ++i)
    s += contact_residual_squared(r.data() + me + D * i, u.data() + me + D * i, D, p.mu[i]);
  return std::sqrt(s) / normaliser;
}

template <int D>
SolverStats run(const MixedFrictionContactProblem& p, Vector& r, Vector& u, const NsgsParameters& prm) {
  const Clock::time_point start = Clock::now();
  SolverStats stats;
  Prepared<D> prep = prepare<D>(p);
  LocalSolveSettings ls;
  ls.max_iterations = prm.local_max_iterations;
  ls.tolerance = prm.local_tolerance;
  const double normaliser = 1.0 + p.q.norm();
  u.resize(p.rows());

  int sweeps = 0;
  bool diverged = false, timed_out = false;
  double res = NAN;
  while (sweeps < prm.max_iterations) {
    const double change = sweep<D>(p, prep, prm, ls, r, stats.counters.local_iterations);
    ++sweeps;
    if (!std::isfinite(change)) {
      diverged = true;
      break;
    }
    res = residual<D>(p, r, u, normaliser);
    if (prm.record_history) stats.residual_history.push_back(res);
    if (!std::isfinite(res)) {
      diverged = true;
      break;
    }
    if (res <= prm.tolerance) break;
    if (prm.time_cap_seconds > 0.0 && seconds_since(start) > prm.time_cap_seconds) {
      timed_out = true;
      break;
    }
  }

  u = p.W * r + p.q;
  stats.iterations = sweeps;
  stats.counters.sweeps = sweeps;
  stats.residual = friction_residual(p, r);
  if (diverged || !std::isfinite(stats.residual)) {
    stats.status = SolverStatus::Diverged;
    stats.message = "NaN or Inf in the reactions after sweep " + std::to_string(sweeps);
  } else if (stats.residual <= prm.tolerance) {
    stats.status = SolverStatus::Converged;
  } else {
    stats.status = SolverStatus::MaxIterations;
    stats.message = timed_out ? "time cap reached" : "iteration budget spent";
    for (size_t g = 0; g < prep.group_rank.size(); ++g) {
      const Index n = prep.group_row_start[g + 1] - prep.group_row_start[g];
      if (prep.group_rank[g] == n) continue;
      stats.message += "; equality blocks {";
      for (Index k = prep.group_block_start[g]; k < prep.group_block_start[g + 1]; ++k)
        stats.message += (k == prep.group_block_start[g] ? "" : ", ") + std::to_string(prep.group_blocks[k]);
      stats.message += "} (one mechanism) have rank " + std::to_string(prep.group_rank[g]) + " of " +
                       std::to_string(n) + " (dependent rows: redundant or contradictory constraints)";
    }
  }
  stats.seconds = seconds_since(start);
  return stats;
}

}  // namespace

SolverStats nsgs(const MixedFrictionContactProblem& p, Vector& r, Vector& u, const NsgsParameters& params) {
  SolverStats stats;
  if (!accept_problem(p, stats)) return stats;
  const Index m = p.rows();
  if (!accept_nsgs_start(m, r, params, stats)) return stats;
  if (m == 0) {
    u = p.q;
    stats.status = SolverStatus::Converged;
    return stats;
  }
  return p.dim == 3 ? run<3>(p, r, u, params) : run<2>(p, r, u, params);
}

}  // namespace talus::solvers
