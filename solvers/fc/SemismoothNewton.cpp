#include "solvers/fc/SemismoothNewton.hpp"

#include "solvers/core/AcceptProblem.hpp"

#include <Eigen/KLUSupport>
#include <Eigen/UmfPackSupport>
#include <algorithm>
#include <chrono>
#include <iterator>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/fc/Apgd.hpp"

namespace talus::solvers {
namespace {

using Clock = std::chrono::steady_clock;

// ρ multipliers tried at successive stagnation escapes, cycling.
constexpr double kRhoEscapeScales[] = {10.0, 0.1, 100.0, 0.01, 1.0};
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// W in column-major storage with every touched dim × dim block stored in full, diagonal blocks included.
// In each column the stored rows then come in runs of `dim` consecutive rows, one run per block row, so the
// Jacobian A + B W — which has exactly this pattern — is refreshed in place block by block.
SparseMatrixCol block_completed_column_copy(const FrictionContactProblem& p) {
  const int d = p.dim;
  const Index nc = p.contacts();
  std::vector<std::vector<int>> block_rows(nc);  // per block column: the block rows present
  for (Index i = 0; i < p.W.outerSize(); ++i)
    for (SparseMatrix::InnerIterator it(p.W, i); it; ++it) block_rows[it.col() / d].push_back(int(i / d));
  for (Index b = 0; b < nc; ++b) {
    auto& rows = block_rows[b];
    rows.push_back(int(b));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  }
  Index nnz = 0;
  for (const auto& rows : block_rows) nnz += Index(rows.size()) * d * d;
  SparseMatrixCol wc(p.W.rows(), p.W.cols());
  std::vector<Triplet> triplets;
  triplets.reserve(std::size_t(nnz + p.W.nonZeros()));
  for (Index b = 0; b < nc; ++b)
    for (int br : block_rows[b])
      for (int a = 0; a < d; ++a)
        for (int c = 0; c < d; ++c) triplets.emplace_back(br * d + a, int(b) * d + c, 0.0);
  for (Index i = 0; i < p.W.outerSize(); ++i)
    for (SparseMatrix::InnerIterator it(p.W, i); it; ++it) triplets.emplace_back(int(i), int(it.col()), it.value());
  wc.setFromTriplets(triplets.begin(), triplets.end());
  wc.makeCompressed();
  return wc;
}

// Both SuiteSparse back ends behind one switch: analyse once, factorise per step.
struct SparseLu {
  NewtonLinearSolver kind;
  Eigen::UmfPackLU<SparseMatrixCol> umfpack;
  Eigen::KLU<SparseMatrixCol> klu;

  void analyze(const SparseMatrixCol& a) {
    if (kind == NewtonLinearSolver::Umfpack)
      umfpack.analyzePattern(a);
    else
      klu.analyzePattern(a);
  }
  bool factorize(const SparseMatrixCol& a) {
    if (kind == NewtonLinearSolver::Umfpack) {
      umfpack.factorize(a);
      return umfpack.info() == Eigen::Success;
    }
    klu.factorize(a);
    return klu.info() == Eigen::Success;
  }
  bool solve(const Vector& b, Vector& x) {
    if (kind == NewtonLinearSolver::Umfpack) {
      x = umfpack.solve(b);
      return umfpack.info() == Eigen::Success;
    }
    x = klu.solve(b);
    return klu.info() == Eigen::Success;
  }
};

// Φ(W r + q, r) for all contacts, optionally with the blocks A, B; returns ψ = ½‖Φ‖².
double evaluate_alart_curnier(const FrictionContactProblem& p, const Vector& r, const Vector& u,
                              const std::vector<AlartCurnierRho>& rho, AlartCurnierVariant variant, Vector& phi,
                              std::vector<double>* a_blocks, std::vector<double>* b_blocks) {
  const int d = p.dim;
  for (Index c = 0; c < p.contacts(); ++c) {
    double* da = a_blocks ? a_blocks->data() + c * d * d : nullptr;
    double* db = b_blocks ? b_blocks->data() + c * d * d : nullptr;
    alart_curnier(d, p.mu[c], u.data() + c * d, r.data() + c * d, rho[c], variant, phi.data() + c * d, da, db);
  }
  return 0.5 * phi.squaredNorm();
}

double common_residual(const FrictionContactProblem& p, const Vector& r, const Vector& u, double q_norm) {
  double s = 0.0;
  for (Index c = 0; c < p.contacts(); ++c)
    s += contact_residual_squared(r.data() + c * p.dim, u.data() + c * p.dim, p.dim, p.mu[c]);
  return std::sqrt(s) / (1.0 + q_norm);
}

// J = A + B W_c + λ I written into jac's value array, which shares w_c's pattern.
void assemble_jacobian(int d, const SparseMatrixCol& w_c, const std::vector<double>& a_blocks,
                       const std::vector<double>& b_blocks, double lambda, SparseMatrixCol& jac) {
  const int* outer = w_c.outerIndexPtr();
  const int* inner = w_c.innerIndexPtr();
  const double* w = w_c.valuePtr();
  double* j = jac.valuePtr();
  for (Index col = 0; col < w_c.outerSize(); ++col) {
    const Index col_block = col / d;
    const int col_in_block = int(col % d);
    for (int k = outer[col]; k < outer[col + 1]; k += d) {
      const Index row_block = inner[k] / d;
      const double* bb = b_blocks.data() + row_block * d * d;
      for (int a = 0; a < d; ++a) {
        double s = 0.0;
        for (int c = 0; c < d; ++c) s += bb[a * d + c] * w[k + c];
        if (row_block == col_block) {
          s += a_blocks[row_block * d * d + a * d + col_in_block];
          if (a == col_in_block) s += lambda;
        }
        j[k + a] = s;
      }
    }
  }
}

}  // namespace

SolverStats semismooth_newton(const FrictionContactProblem& p, Vector& r, Vector& u,
                              const SemismoothNewtonParameters& params) {
  const auto t_start = Clock::now();
  SolverStats stats;
  if (!accept_problem(p, stats)) return stats;
  const int d = p.dim;
  const Index m = p.q.size();
  const Index nc = p.contacts();
  if (r.size() != m) r = Vector::Zero(m);
  const double q_norm = p.q.norm();

  // Set-up (outside the iteration): pattern, ρ, buffers, symbolic analysis.
  const SparseMatrixCol w_c = block_completed_column_copy(p);
  SparseMatrixCol jac = w_c;
  std::vector<AlartCurnierRho> rho(static_cast<std::size_t>(nc));
  {
    double diag_mean = 0.0;
    for (Index i = 0; i < m; ++i) diag_mean += std::abs(w_c.coeff(i, i));
    diag_mean = diag_mean > 0.0 ? diag_mean / double(m) : 1.0;
    std::vector<double> block(std::size_t(d * d));
    for (Index c = 0; c < nc; ++c) {
      if (params.rho_scaling == AlartCurnierRhoScaling::Unit) {
        rho[c] = AlartCurnierRho{1.0, 1.0};
      } else {
        for (int a = 0; a < d; ++a)
          for (int b = 0; b < d; ++b) block[a * d + b] = w_c.coeff(c * d + a, c * d + b);
        rho[c] = alart_curnier_rho_from_block(d, block.data(), 1.0 / diag_mean);
      }
      rho[c].normal *= params.rho_factor;
      rho[c].tangent *= params.rho_factor;
    }
  }
  const std::vector<AlartCurnierRho> rho_base = rho;
  std::vector<double> a_blocks(static_cast<std::size_t>(nc * d * d)), b_blocks(a_blocks.size());
  Vector phi(m), phi_trial(m), rhs(m), dir(m), w_dir(m), j_dir(m), r_trial(m), u_trial(m), best_r = r;
  const int memory = std::max(1, params.line_search_memory);
  std::vector<double> merits(std::size_t(memory), 0.0);

  SparseLu lu{params.linear_solver, {}, {}};
  auto& counters = stats.counters;
  {
    const auto t0 = Clock::now();
    lu.analyze(jac);
    counters.linear_seconds += seconds_since(t0);
  }

  auto t0 = Clock::now();
  u.noalias() = p.W * r;
  u += p.q;
  counters.matvec_seconds += seconds_since(t0);
  double psi = evaluate_alart_curnier(p, r, u, rho, params.variant, phi, &a_blocks, &b_blocks);
  double err = common_residual(p, r, u, q_norm);
  double best_err = err;
  std::fill(merits.begin(), merits.end(), psi);
  if (params.record_history) stats.residual_history.push_back(err);

  double boost = 1.0;  // multiplies λ after failures, relaxed after accepted full steps
  long failed_factorizations = 0, failed_line_searches = 0, gradient_steps = 0, escapes = 0, escape_iterations = 0;
  double window_best = err;  // stagnation test: best residual when the current window opened
  int window_start = 0;
  // λ_k; a raised boost must act even when regularization_min is 0.
  auto regularization = [&]() {
    double base = std::clamp(params.regularization_factor * err, params.regularization_min, params.regularization_max);
    if (boost > 1.0) base = std::max(base, 1e-12);
    return base * boost;
  };
  auto raise_boost = [&]() { boost = std::min(boost * 100.0, 1e12); };
  stats.status = SolverStatus::MaxIterations;
  int it = 0;
  for (; it < params.max_iterations; ++it) {
    if (err <= params.tolerance) {
      stats.status = SolverStatus::Converged;
      break;
    }
    if (!std::isfinite(psi)) {
      stats.status = SolverStatus::Diverged;
      stats.message = "Alart-Curnier function is not finite";
      break;
    }
    if (params.time_cap_seconds > 0.0 && seconds_since(t_start) > params.time_cap_seconds) {
      stats.message = "time cap reached";
      break;
    }

    // Newton direction, regularised until the factorisation succeeds and the direction is usable.
    bool have_direction = false;
    double slope = 0.0;
    for (int attempt = 0; attempt < 12 && !have_direction; ++attempt) {
      const double lambda = regularization();
      t0 = Clock::now();
      assemble_jacobian(d, w_c, a_blocks, b_blocks, lambda, jac);
      const bool factorized = lu.factorize(jac);
      ++counters.factorizations;
      bool solved = false;
      if (factorized) {
        rhs = -phi;
        solved = lu.solve(rhs, dir) && dir.allFinite();
        ++counters.linear_solves;
      }
      counters.linear_seconds += seconds_since(t0);
      if (!solved) {
        ++failed_factorizations;
        raise_boost();
        continue;
      }
      // ∇ψ·d = Φᵀ J₀ d with J₀ = J − λ I the unregularised Jacobian.
      j_dir.noalias() = jac * dir;
      j_dir -= lambda * dir;
      slope = phi.dot(j_dir);
      if (slope < 0.0)
        have_direction = true;
      else
        raise_boost();  // a larger λ turns d towards −Φ / λ
    }
    if (!have_direction) {
      // Steepest descent on ψ as the last resort: d = −J₀ᵀ Φ.
      const double lambda = regularization();
      dir.noalias() = -(jac.transpose() * phi);
      dir += lambda * phi;
      slope = -dir.squaredNorm();
      ++gradient_steps;
      if (!(slope < 0.0)) {
        stats.message = "no descent direction (merit gradient vanishes at a non-solution)";
        break;
      }
    }

    // Non-monotone Armijo backtracking on ψ; u moves linearly with r, so one product with W per step.
    t0 = Clock::now();
    w_dir.noalias() = p.W * dir;
    counters.matvec_seconds += seconds_since(t0);
    const double reference = *std::max_element(merits.begin(), merits.end());
    double step = 1.0;
    double psi_trial = 0.0;
    bool accepted = false;
    while (step >= params.min_step) {
      r_trial = r + step * dir;
      u_trial = u + step * w_dir;
      psi_trial = evaluate_alart_curnier(p, r_trial, u_trial, rho, params.variant, phi_trial, nullptr, nullptr);
      if (psi_trial <= reference + params.armijo_sigma * step * slope) {
        accepted = true;
        break;
      }
      step *= params.backtrack_factor;
    }
    if (!accepted) {
      ++failed_line_searches;
      raise_boost();
      continue;
    }
    if (step == 1.0) boost = std::max(1.0, boost / 10.0);
    r.swap(r_trial);
    u.swap(u_trial);
    psi = evaluate_alart_curnier(p, r, u, rho, params.variant, phi, &a_blocks, &b_blocks);
    merits[std::size_t((it + 1) % memory)] = psi;
    err = common_residual(p, r, u, q_norm);
    if (params.record_history) stats.residual_history.push_back(err);
    if (err < best_err) {
      best_err = err;
      best_r = r;
    }
    if (err < params.stagnation_ratio * window_best) {
      window_best = err;
      window_start = it + 1;
    } else if (params.stagnation_window > 0 && it + 1 - window_start >= params.stagnation_window &&
               err > params.tolerance) {
      // Stuck near a non-zero stationary point of ψ: a first-order method is not attracted there.
      r = best_r;
      if (params.escape_iterations > 0) {
        ApgdParameters ap;
        ap.tolerance = params.tolerance;
        ap.max_iterations = params.escape_iterations;
        if (params.time_cap_seconds > 0.0)
          ap.time_cap_seconds = std::max(1e-9, params.time_cap_seconds - seconds_since(t_start));
        const SolverStats escape = apgd(p, r, u, ap);
        escape_iterations += escape.iterations;
        counters.matvec_seconds += escape.counters.matvec_seconds;
      } else {
        u.noalias() = p.W * r;
        u += p.q;
      }
      // ρ shapes ψ (not its zeros): a stationary point for one scale is usually not one for another.
      const double scale = kRhoEscapeScales[escapes % std::size(kRhoEscapeScales)];
      for (Index c = 0; c < nc; ++c) {
        rho[c].normal = rho_base[c].normal * scale;
        rho[c].tangent = rho_base[c].tangent * scale;
      }
      ++escapes;
      psi = evaluate_alart_curnier(p, r, u, rho, params.variant, phi, &a_blocks, &b_blocks);
      std::fill(merits.begin(), merits.end(), psi);
      err = common_residual(p, r, u, q_norm);
      if (params.record_history) stats.residual_history.push_back(err);
      if (err < best_err) {
        best_err = err;
        best_r = r;
      }
      boost = 1.0;
      window_best = err;
      window_start = it + 1;
    }
  }
  if (stats.status == SolverStatus::MaxIterations && err <= params.tolerance) stats.status = SolverStatus::Converged;
  if (stats.status != SolverStatus::Converged && err > best_err) r = best_r;

  t0 = Clock::now();
  u.noalias() = p.W * r;
  u += p.q;
  counters.matvec_seconds += seconds_since(t0);
  stats.iterations = it;
  counters.sweeps = it;
  stats.residual = friction_residual(p, r);
  if (stats.status == SolverStatus::Converged && stats.residual > params.tolerance) {
    // The incremental u drifted from W r + q; the independent residual has the last word.
    stats.status = SolverStatus::MaxIterations;
    stats.message = "independent residual above tolerance";
  }
  if (failed_factorizations + failed_line_searches + gradient_steps > 0) {
    if (!stats.message.empty()) stats.message += "; ";
    stats.message += std::to_string(failed_factorizations) + " failed factorisations, " +
                     std::to_string(failed_line_searches) + " failed line searches, " +
                     std::to_string(gradient_steps) + " gradient steps (handled by raising the regularisation)";
  }
  if (escapes > 0) {
    if (!stats.message.empty()) stats.message += "; ";
    stats.message += std::to_string(escapes) + " stagnation escapes through APGD (" +
                     std::to_string(escape_iterations) + " APGD iterations)";
  }
  stats.seconds = seconds_since(t_start);
  return stats;
}

SolverStats semismooth_newton(const DelassusOperator& op, Vector& r, Vector& u,
                              const SemismoothNewtonParameters& params) {
  const bool formed_here = std::string(op.form()) != "assembled";
  SolverStats stats = semismooth_newton(op.assembled(), r, u, params);
  if (formed_here) stats.message += std::string(stats.message.empty() ? "" : "; ") + "W formed from the " +
                                    op.form() + " operator";
  return stats;
}

}  // namespace talus::solvers
