#include "solvers/fc/Apgd.hpp"

#include "solvers/core/AcceptProblem.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "solvers/fc/AlartCurnier.hpp"

namespace talus::solvers {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The iteration runs in scaled variables z = S⁻¹ r, u_s = S u = W_s z + q_s with W_s = S W S, q_s = S q and
// S = diag(σ_i I_dim). Both measures below are evaluated in the problem's own units.
struct Measures {
  double de_saxce;  // the common residual (friction_residual), already divided by 1 + ‖q‖
  double convex;    // natural map of the convex subproblem with s frozen, same normalisation
};

Measures measure(int d, const Vector& mu, const Vector& sigma, const Vector& z, const Vector& us,
                 const Vector& s_rows, double q_norm) {
  double sd = 0.0, sc = 0.0;
  double r[3], u[3], x[3];
  for (Index c = 0; c < mu.size(); ++c) {
    const double sg = sigma[c];
    for (int k = 0; k < d; ++k) {
      r[k] = sg * z[c * d + k];
      u[k] = us[c * d + k] / sg;
    }
    sd += contact_residual_squared(r, u, d, mu[c]);
    for (int k = 0; k < d; ++k) x[k] = r[k] - u[k];
    x[0] -= s_rows[c * d] / sg;
    project_on_cone(x, d, mu[c]);
    for (int k = 0; k < d; ++k) sc += (r[k] - x[k]) * (r[k] - x[k]);
  }
  return {std::sqrt(sd) / (1.0 + q_norm), std::sqrt(sc) / (1.0 + q_norm)};
}

// The De Saxcé shift in scaled rows: S s has normal entry σ_i μ_i ‖u_T,i‖ = μ_i ‖u_s,T,i‖ (u_s = S u).
void update_de_saxce_shift(int d, const Vector& mu, const Vector& us, Vector& s_rows) {
  for (Index c = 0; c < mu.size(); ++c) {
    double ut = 0.0;
    for (int k = 1; k < d; ++k) ut += us[c * d + k] * us[c * d + k];
    s_rows[c * d] = mu[c] * std::sqrt(ut);
  }
}

void project_all(int d, const Vector& mu, Vector& z) {
  for (Index c = 0; c < mu.size(); ++c) project_on_cone(z.data() + c * d, d, mu[c]);
}

// APGD on the operator, with the products by W_s = S W S given by `scaled_product(x, y)` (y = W_s x).
template <class ScaledProduct>
SolverStats apgd_scaled(const DelassusOperator& op, const Vector& sigma, const Vector& sigma_rows,
                        ScaledProduct&& scaled_product, Vector& r, Vector& u, const ApgdParameters& params,
                        Clock::time_point t_start) {
  SolverStats stats;
  const int d = op.dim();
  const Vector& mu = op.mu();
  const Index m = op.rows();
  const double q_norm = op.q().norm();
  auto& counters = stats.counters;
  const Vector qs = sigma_rows.cwiseProduct(op.q());

  // Initial L: power iteration on W_s (an estimate of ‖W_s‖₂; backtracking repairs an underestimate).
  Vector v = Vector::Ones(m) / std::sqrt(double(m)), wv(m);
  double lipschitz = 0.0;
  {
    const auto t0 = Clock::now();
    for (int k = 0; k < std::max(1, params.power_iterations); ++k) {
      scaled_product(v, wv);
      lipschitz = wv.norm();
      if (!(lipschitz > 0.0)) break;
      v = wv / lipschitz;
    }
    counters.matvec_seconds += seconds_since(t0);
  }
  if (!(lipschitz > 0.0) || !std::isfinite(lipschitz)) lipschitz = 1.0;

  Vector z = r.cwiseQuotient(sigma_rows);
  project_all(d, mu, z);
  Vector wz(m), wz_new(m), y(m), wy(m), g(m), z_new(m), delta(m), wdelta(m), us(m);
  Vector s_rows = Vector::Zero(m), best_z = z;
  auto t0 = Clock::now();
  scaled_product(z, wz);
  counters.matvec_seconds += seconds_since(t0);
  us = wz + qs;
  const bool de_saxce = params.mode == ApgdCoulombMode::DeSaxceFixedPoint;
  if (de_saxce) update_de_saxce_shift(d, mu, us, s_rows);
  Measures meas = measure(d, mu, sigma, z, us, s_rows, q_norm);
  double best = meas.de_saxce;
  if (params.record_history) stats.residual_history.push_back(meas.de_saxce);
  y = z;
  wy = wz;
  double theta = 1.0;
  long shift_updates = 0, restarts = 0;
  int inner = 0;

  stats.status = SolverStatus::MaxIterations;
  int it = 0;
  for (; it < params.max_iterations; ++it) {
    if (meas.de_saxce <= params.tolerance) {
      stats.status = SolverStatus::Converged;
      break;
    }
    if (!std::isfinite(meas.de_saxce)) {
      stats.status = SolverStatus::Diverged;
      stats.message = "iterate is not finite";
      break;
    }
    if (params.time_cap_seconds > 0.0 && seconds_since(t_start) > params.time_cap_seconds) {
      stats.message = "time cap reached";
      break;
    }
    g = wy + qs + s_rows;
    // Backtracking on the quadratic: f(z⁺) ≤ f(y) + gᵀδ + ½ L ‖δ‖²  ⇔  δᵀ W_s δ ≤ L ‖δ‖², δ = z⁺ − y.
    for (int bt = 0; bt < 60; ++bt) {
      z_new = y - g / lipschitz;
      project_all(d, mu, z_new);
      delta = z_new - y;
      t0 = Clock::now();
      scaled_product(delta, wdelta);
      counters.matvec_seconds += seconds_since(t0);
      if (delta.dot(wdelta) <= lipschitz * delta.squaredNorm()) break;
      lipschitz *= params.backtrack_factor;
    }
    wz_new = wy + wdelta;
    const double theta_new = 0.5 * (-theta * theta + theta * std::sqrt(theta * theta + 4.0));
    const double beta = theta * (1.0 - theta) / (theta * theta + theta_new);
    const bool restart = params.adaptive_restart && g.dot(z_new - z) > 0.0;
    if (restart) {
      y = z_new;
      wy = wz_new;
      theta = 1.0;
      ++restarts;
    } else {
      y = z_new + beta * (z_new - z);
      wy = wz_new + beta * (wz_new - wz);
      theta = theta_new;
    }
    z.swap(z_new);
    wz.swap(wz_new);
    us = wz + qs;
    lipschitz *= params.step_relaxation;
    ++inner;

    meas = measure(d, mu, sigma, z, us, s_rows, q_norm);
    if (params.record_history) stats.residual_history.push_back(meas.de_saxce);
    if (meas.de_saxce < best) {
      best = meas.de_saxce;
      best_z = z;
    }
    if (de_saxce && meas.de_saxce > params.tolerance &&
        (meas.convex <= params.inner_tolerance_ratio * meas.de_saxce || inner >= params.inner_max_iterations)) {
      // New convex subproblem: refresh s, recompute W_s z exactly (no drift) and restart the momentum.
      t0 = Clock::now();
      scaled_product(z, wz);
      counters.matvec_seconds += seconds_since(t0);
      us = wz + qs;
      update_de_saxce_shift(d, mu, us, s_rows);
      y = z;
      wy = wz;
      theta = 1.0;
      inner = 0;
      ++shift_updates;
      meas = measure(d, mu, sigma, z, us, s_rows, q_norm);
    }
  }
  if (stats.status == SolverStatus::MaxIterations && meas.de_saxce <= params.tolerance)
    stats.status = SolverStatus::Converged;
  if (stats.status != SolverStatus::Converged && best < meas.de_saxce) z = best_z;

  r = sigma_rows.cwiseProduct(z);
  t0 = Clock::now();
  op.multiply(r, u);
  u += op.q();
  counters.matvec_seconds += seconds_since(t0);
  stats.iterations = it;
  counters.sweeps = it;
  stats.residual = friction_residual(op, r);
  if (stats.status == SolverStatus::Converged && stats.residual > params.tolerance) {
    stats.status = SolverStatus::MaxIterations;
    stats.message = "independent residual above tolerance";
  }
  if (!stats.message.empty()) stats.message += "; ";
  stats.message += std::to_string(restarts) + " restarts";
  if (de_saxce) stats.message += ", " + std::to_string(shift_updates) + " De Saxce updates";
  stats.seconds = seconds_since(t_start);
  return stats;
}

}  // namespace

SolverStats apgd(const FrictionContactProblem& p, Vector& r, Vector& u, const ApgdParameters& params) {
  SolverStats stats;
  if (!accept_problem(p, stats)) return stats;
  return apgd(AssembledDelassus(p), r, u, params);
}

SolverStats apgd(const DelassusOperator& op, Vector& r, Vector& u, const ApgdParameters& params) {
  const auto t_start = Clock::now();
  const int d = op.dim();
  const Index m = op.rows();
  const Index nc = op.contacts();
  if (r.size() != m) r = Vector::Zero(m);
  // Per-contact scaling σ_i = 1 / sqrt(max diag of block i).
  Vector sigma = Vector::Ones(nc);
  if (params.block_scaling) {
    double block[9];
    for (Index c = 0; c < nc; ++c) {
      op.diagonal_block(c, block);
      double w = block[0];
      for (int k = 1; k < d; ++k) w = std::max(w, block[k * d + k]);
      if (w > 0.0) sigma[c] = 1.0 / std::sqrt(w);
    }
  }
  Vector sigma_rows(m);
  for (Index c = 0; c < nc; ++c) sigma_rows.segment(c * d, d).setConstant(sigma[c]);
  if (const auto* assembled = dynamic_cast<const AssembledDelassus*>(&op)) {
    // W_s formed once: one sparse product per iteration.
    const SparseMatrix& W = assembled->assembled().W;
    const SparseMatrix ws = sigma_rows.asDiagonal() * W * sigma_rows.asDiagonal();
    return apgd_scaled(op, sigma, sigma_rows, [&](const Vector& x, Vector& y) { y.noalias() = ws * x; }, r, u, params,
                       t_start);
  }
  // Any other form: W_s x = S W (S x) through the operator's own product.
  Vector scaled(m), product(m);
  return apgd_scaled(
      op, sigma, sigma_rows,
      [&](const Vector& x, Vector& y) {
        scaled = sigma_rows.cwiseProduct(x);
        op.multiply(scaled, product);
        y = sigma_rows.cwiseProduct(product);
      },
      r, u, params, t_start);
}

}  // namespace talus::solvers
