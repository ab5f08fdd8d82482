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

Measures measure(const FrictionContactProblem& p, const Vector& sigma, const Vector& z, const Vector& us,
                 const Vector& s_rows, double q_norm) {
  const int d = p.dim;
  double sd = 0.0, sc = 0.0;
  double r[3], u[3], x[3];
  for (Index c = 0; c < p.contacts(); ++c) {
    const double sg = sigma[c];
    for (int k = 0; k < d; ++k) {
      r[k] = sg * z[c * d + k];
      u[k] = us[c * d + k] / sg;
    }
    sd += contact_residual_squared(r, u, d, p.mu[c]);
    for (int k = 0; k < d; ++k) x[k] = r[k] - u[k];
    x[0] -= s_rows[c * d] / sg;
    project_on_cone(x, d, p.mu[c]);
    for (int k = 0; k < d; ++k) sc += (r[k] - x[k]) * (r[k] - x[k]);
  }
  return {std::sqrt(sd) / (1.0 + q_norm), std::sqrt(sc) / (1.0 + q_norm)};
}

// The De Saxcé shift in scaled rows: S s has normal entry σ_i μ_i ‖u_T,i‖ = μ_i ‖u_s,T,i‖ (u_s = S u).
void update_de_saxce_shift(const FrictionContactProblem& p, const Vector& us, Vector& s_rows) {
  const int d = p.dim;
  for (Index c = 0; c < p.contacts(); ++c) {
    double ut = 0.0;
    for (int k = 1; k < d; ++k) ut += us[c * d + k] * us[c * d + k];
    s_rows[c * d] = p.mu[c] * std::sqrt(ut);
  }
}

void project_all(int d, const Vector& mu, Vector& z) {
  for (Index c = 0; c < mu.size(); ++c) project_on_cone(z.data() + c * d, d, mu[c]);
}

}  // namespace

SolverStats apgd(const FrictionContactProblem& p, Vector& r, Vector& u, const ApgdParameters& params) {
  const auto t_start = Clock::now();
  SolverStats stats;
  if (!accept_problem(p, stats)) return stats;
  const int d = p.dim;
  const Index m = p.q.size();
  const Index nc = p.contacts();
  if (r.size() != m) r = Vector::Zero(m);
  const double q_norm = p.q.norm();
  auto& counters = stats.counters;

  // Per-contact scaling σ_i = 1 / sqrt(max diag of block i).
  Vector sigma = Vector::Ones(nc);
  if (params.block_scaling) {
    const Vector diag = p.W.diagonal();
    for (Index c = 0; c < nc; ++c) {
      const double w = diag.segment(c * d, d).maxCoeff();
      if (w > 0.0) sigma[c] = 1.0 / std::sqrt(w);
    }
  }
  Vector sigma_rows(m);
  for (Index c = 0; c < nc; ++c) sigma_rows.segment(c * d, d).setConstant(sigma[c]);
  const SparseMatrix ws = sigma_rows.asDiagonal() * p.W * sigma_rows.asDiagonal();
  const Vector qs = sigma_rows.cwiseProduct(p.q);

  // Initial L: power iteration on W_s (an estimate of ‖W_s‖₂; backtracking repairs an underestimate).
  Vector v = Vector::Ones(m) / std::sqrt(double(m)), wv(m);
  double lipschitz = 0.0;
  {
    const auto t0 = Clock::now();
    for (int k = 0; k < std::max(1, params.power_iterations); ++k) {
      wv.noalias() = ws * v;
      lipschitz = wv.norm();
      if (!(lipschitz > 0.0)) break;
      v = wv / lipschitz;
    }
    counters.matvec_seconds += seconds_since(t0);
  }
  if (!(lipschitz > 0.0) || !std::isfinite(lipschitz)) lipschitz = 1.0;

  Vector z = r.cwiseQuotient(sigma_rows);
  project_all(d, p.mu, z);
  Vector wz(m), wz_new(m), y(m), wy(m), g(m), z_new(m), delta(m), wdelta(m), us(m);
  Vector s_rows = Vector::Zero(m), best_z = z;
  auto t0 = Clock::now();
  wz.noalias() = ws * z;
  counters.matvec_seconds += seconds_since(t0);
  us = wz + qs;
  const bool de_saxce = params.mode == ApgdCoulombMode::DeSaxceFixedPoint;
  if (de_saxce) update_de_saxce_shift(p, us, s_rows);
  Measures meas = measure(p, sigma, z, us, s_rows, q_norm);
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
      project_all(d, p.mu, z_new);
      delta = z_new - y;
      t0 = Clock::now();
      wdelta.noalias() = ws * delta;
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

    meas = measure(p, sigma, z, us, s_rows, q_norm);
    if (params.record_history) stats.residual_history.push_back(meas.de_saxce);
    if (meas.de_saxce < best) {
      best = meas.de_saxce;
      best_z = z;
    }
    if (de_saxce && meas.de_saxce > params.tolerance &&
        (meas.convex <= params.inner_tolerance_ratio * meas.de_saxce || inner >= params.inner_max_iterations)) {
      // New convex subproblem: refresh s, recompute W_s z exactly (no drift) and restart the momentum.
      t0 = Clock::now();
      wz.noalias() = ws * z;
      counters.matvec_seconds += seconds_since(t0);
      us = wz + qs;
      update_de_saxce_shift(p, us, s_rows);
      y = z;
      wy = wz;
      theta = 1.0;
      inner = 0;
      ++shift_updates;
      meas = measure(p, sigma, z, us, s_rows, q_norm);
    }
  }
  if (stats.status == SolverStatus::MaxIterations && meas.de_saxce <= params.tolerance)
    stats.status = SolverStatus::Converged;
  if (stats.status != SolverStatus::Converged && best < meas.de_saxce) z = best_z;

  r = sigma_rows.cwiseProduct(z);
  t0 = Clock::now();
  u.noalias() = p.W * r;
  u += p.q;
  counters.matvec_seconds += seconds_since(t0);
  stats.iterations = it;
  counters.sweeps = it;
  stats.residual = friction_residual(p, r);
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

}  // namespace talus::solvers
