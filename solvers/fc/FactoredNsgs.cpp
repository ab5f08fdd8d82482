// NSGS on either form of the Delassus operator (Nsgs.hpp): the assembled form goes to the block-row sweep,
// the factored form (FactoredDelassus.hpp) to the velocity-carrying sweep below.
//
// Factored sweep: the velocities v = M⁻¹ f + X r carry every contact's u_i = H_iᵀ v + w_i, so contact i's
// update reads its dim columns of H, solves its local problem with b = u_i − W_ii r_i (the same local solver
// and b as the assembled sweep's q_i + Σ_{j≠i} W_ij r_j) and moves v by X_i Δr_i. In exact arithmetic it
// makes the assembled sweep's iterates in the same contact order (the test compares them). It is a plain
// serial sweep in contact order: Anderson acceleration, shuffling and colouring are the assembled sweep's,
// and the report says so when they were asked for. The residual is evaluated exactly after every sweep from v
// (one product with Hᵀ, cheaper than a sweep).
#include <chrono>
#include <cmath>
#include <string>

#include "solvers/core/AcceptProblem.hpp"
#include "solvers/fc/FactoredDelassus.hpp"
#include "solvers/fc/LocalContactSolvers.hpp"
#include "solvers/fc/Nsgs.hpp"

namespace talus::solvers {

namespace {

using Clock = std::chrono::steady_clock;

template <int D>
SolverStats factored_sweeps(const FactoredDelassus& op, Vector& r, Vector& u, const NsgsParameters& prm) {
  using Vec = Eigen::Matrix<double, D, 1>;
  const auto t_start = Clock::now();
  SolverStats stats;
  const Index nc = op.contacts();
  const SparseMatrixCol& H = op.H();
  const SparseMatrixCol& X = op.X();
  const Vector& w = op.w();
  std::vector<LocalContact<D>> local(nc);
  double block[D * D];
  for (Index i = 0; i < nc; ++i) {
    op.diagonal_block(i, block);
    local[i] = prepare_local_contact<D>(block, op.mu()[i]);
  }
  Vector v;
  op.velocity(r, v);
  const double q_norm = op.q().norm();
  LocalSolveSettings ls;
  ls.max_iterations = prm.local_max_iterations;
  ls.tolerance = prm.local_tolerance;
  auto contact_velocity = [&](Index i) {
    Vec ui;
    for (int a = 0; a < D; ++a) {
      double s = w[i * D + a];
      for (SparseMatrixCol::InnerIterator it(H, i * D + a); it; ++it) s += it.value() * v[it.row()];
      ui[a] = s;
    }
    return ui;
  };
  auto residual = [&]() {
    double s = 0.0;
    for (Index i = 0; i < nc; ++i) {
      const Vec ui = contact_velocity(i);
      s += contact_residual_squared(r.data() + i * D, ui.data(), D, op.mu()[i]);
    }
    return std::sqrt(s) / (1.0 + q_norm);
  };
  double res = residual();
  if (prm.record_history) stats.residual_history.push_back(res);
  stats.status = SolverStatus::MaxIterations;
  int sweep = 0;
  for (; sweep < prm.max_iterations && res > prm.tolerance; ++sweep) {
    if (prm.time_cap_seconds > 0.0 &&
        std::chrono::duration<double>(Clock::now() - t_start).count() > prm.time_cap_seconds) {
      stats.message = "time cap reached";
      break;
    }
    for (Index i = 0; i < nc; ++i) {
      Eigen::Map<Vec> ri(r.data() + i * D);
      const Vec old = ri;
      const Vec b = contact_velocity(i) - local[i].W * old;
      Vec next = old;
      stats.counters.local_iterations += solve_local_contact<D>(prm.local, local[i], b, next, ls);
      if (prm.relaxation != 1.0) {
        next = old + prm.relaxation * (next - old);
        if (prm.relaxation > 1.0) local_detail::project_on_cone<D>(next, local[i].mu);
      }
      const Vec delta = next - old;
      ri = next;
      for (int a = 0; a < D; ++a)
        if (delta[a] != 0.0)
          for (SparseMatrixCol::InnerIterator it(X, i * D + a); it; ++it)
            v[it.row()] += it.value() * delta[a];
    }
    res = residual();
    if (prm.record_history) stats.residual_history.push_back(res);
    if (!std::isfinite(res)) {
      stats.status = SolverStatus::Diverged;
      stats.message = "nsgs (factored): the residual is not finite after sweep " + std::to_string(sweep + 1);
      ++sweep;
      break;
    }
  }
  if (res <= prm.tolerance) stats.status = SolverStatus::Converged;
  stats.iterations = sweep;
  stats.counters.sweeps = sweep;
  op.multiply(r, u);
  u += op.q();
  stats.residual = friction_residual(op, r);  // independent of the sweep's velocities
  if (stats.status == SolverStatus::Converged && stats.residual > prm.tolerance) {
    stats.status = SolverStatus::MaxIterations;
    stats.message = "independent residual above tolerance";
  }
  if (prm.anderson_memory > 0 || prm.shuffle || prm.coloured || prm.threads > 1) {
    if (!stats.message.empty()) stats.message += "; ";
    stats.message +=
        "factored operator: plain serial sweep (Anderson, shuffle and colouring need assembled W)";
  }
  stats.seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  return stats;
}

}  // namespace

SolverStats nsgs(const DelassusOperator& op, Vector& r, Vector& u, const NsgsParameters& params) {
  const auto* factored = dynamic_cast<const FactoredDelassus*>(&op);
  if (!factored) return nsgs(op.assembled(), r, u, params);
  SolverStats stats;
  const Index m = op.rows();
  if (!accept_nsgs_start(m, r, params, stats)) return stats;
  if (m == 0) {
    u = op.q();
    stats.status = SolverStatus::Converged;
    return stats;
  }
  return op.dim() == 3 ? factored_sweeps<3>(*factored, r, u, params)
                       : factored_sweeps<2>(*factored, r, u, params);
}

}  // namespace talus::solvers
