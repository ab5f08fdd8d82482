#pragma once
// The one-contact friction problem that block Gauss–Seidel solves for each contact in turn (issue 3 item 3,
// NSGS local solvers; seed 004, Coulomb's law (29) with the cone K = {‖R_T‖ <= μ R_N}):
//
//   u = W r + b,   r ∈ K_μ,   û = u + μ‖u_T‖ n ∈ K*_μ,   r ⟂ û
//
// where W is the contact's diagonal block of the Delassus matrix and b = q_i + Σ_{j≠i} W_ij r_j.
// Local solvers, from cheapest to most robust:
//   Projection   one step r ← proj_K(r − ρ û(r)) of the De Saxcé fixed point, ρ from the diagonal block;
//   Analytic     the exact solution by cases: taking off (b_N >= 0 ⇒ r = 0), frictionless (μ = 0), sticking
//                (u = 0, r = −W⁻¹b inside the cone), and sliding in closed form where one exists (dim 2 always;
//                dim 3 when W's tangential part is isotropic and uncoupled from the normal one); any other sliding
//                contact falls back to the Alart–Curnier Newton below;
//   AlartCurnierNewton  Newton on the Alart–Curnier function Φ(r) = [r_N − max(0, r_N − ρ_N u_N);
//                r_T − proj_{D(μ max(0, r_N − ρ_N u_N))}(r_T − ρ_T u_T)] with an Armijo line search on ½‖Φ‖².
//                Φ(r) = 0 iff (r, u) solves the local problem (the De Saxcé and Coulomb forms agree there).
// Everything is fixed-size and inline: these run once per contact per sweep.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::solvers {

enum class LocalSolverKind { Projection, Analytic, AlartCurnierNewton };

const char* to_string(LocalSolverKind kind);

struct LocalSolveSettings {
  int max_iterations = 20;   // local Newton iterations per contact and sweep
  double tolerance = 1e-14;  // on ‖Φ‖, relative to ‖r‖ + ρ_N ‖b‖
};

// A contact's diagonal block and what the local solvers derive from it once per solve. Fields are ordered by
// use: the take-off / stick / isotropic-slide path of a 3-D sweep reads only the first two cache lines.
template <int D>
struct LocalContact {
  using Mat = Eigen::Matrix<double, D, D>;
  Mat W_inverse;  // valid when `invertible`
  double mu = 0.0;
  bool invertible = false;
  bool isotropic = false;  // W_nT = W_Tn = 0 and W_TT = α I
  Mat W;
  double rho_n = 1.0;  // Alart–Curnier parameters: inverse diagonal entries (normal, mean tangential)
  double rho_t = 1.0;
  double rho_projection = 1.0;  // projection step: inverse of the largest diagonal entry
};

template <int D>
LocalContact<D> prepare_local_contact(const double* block_row_major, double mu) {
  LocalContact<D> c;
  for (int a = 0; a < D; ++a)
    for (int b = 0; b < D; ++b) c.W(a, b) = block_row_major[a * D + b];
  c.mu = mu;
  const double scale = c.W.cwiseAbs().maxCoeff();
  const double dmax = c.W.diagonal().maxCoeff();
  c.rho_n = c.W(0, 0) > 0.0 ? 1.0 / c.W(0, 0) : (dmax > 0.0 ? 1.0 / dmax : 1.0);
  const double wt = c.W.diagonal().tail(D - 1).mean();
  c.rho_t = wt > 0.0 ? 1.0 / wt : c.rho_n;
  c.rho_projection = dmax > 0.0 ? 1.0 / dmax : 1.0;
  if (scale > 0.0) {
    double det = 0.0;
    // Eigen's own singularity threshold is absolute; blocks of W can be 1e-5 in size, so test relatively.
    c.W.computeInverseAndDetWithCheck(c.W_inverse, det, c.invertible, 0.0);
    c.invertible = c.invertible && std::abs(det) > 1e-13 * std::pow(scale, D);
    const double eps = 1e-12 * scale;
    bool iso = true;
    for (int k = 1; k < D; ++k) iso = iso && std::abs(c.W(0, k)) <= eps && std::abs(c.W(k, 0)) <= eps;
    if constexpr (D == 3)
      iso = iso && std::abs(c.W(1, 2)) <= eps && std::abs(c.W(2, 1)) <= eps && std::abs(c.W(1, 1) - c.W(2, 2)) <= eps;
    c.isotropic = iso && c.W(0, 0) > 0.0 && c.W(1, 1) > 0.0;
  }
  return c;
}

namespace local_detail {

template <int D>
using Vec = Eigen::Matrix<double, D, 1>;

template <int D>
inline void project_on_cone(Vec<D>& r, double mu) {
  solvers::project_on_cone(r.data(), D, mu);
}

// Alart–Curnier function Φ at r, and (when J is given) an element of its generalised Jacobian.
template <int D>
inline void alart_curnier(const LocalContact<D>& c, const Vec<D>& b, const Vec<D>& r, Vec<D>& phi,
                          Eigen::Matrix<double, D, D>* J) {
  constexpr int T = D - 1;
  const Vec<D> u = c.W * r + b;
  const double xn = r[0] - c.rho_n * u[0];
  if (xn > 0.0) {
    phi[0] = c.rho_n * u[0];
    if (J) J->row(0) = c.rho_n * c.W.row(0);
  } else {
    phi[0] = r[0];
    if (J) J->row(0) = Vec<D>::Unit(0).transpose();
  }
  const double radius = c.mu * std::max(xn, 0.0);
  const Eigen::Matrix<double, T, 1> xt = r.template tail<T>() - c.rho_t * u.template tail<T>();
  const double nx = xt.norm();
  if (nx <= radius) {  // inside the disk: Φ_T = ρ_T u_T
    phi.template tail<T>() = c.rho_t * u.template tail<T>();
    if (J) J->template bottomRows<T>() = c.rho_t * c.W.template bottomRows<T>();
    return;
  }
  // Outside: Φ_T = r_T − radius x̂ (radius = 0 gives Φ_T = r_T).
  const Eigen::Matrix<double, T, 1> xhat = xt / nx;
  phi.template tail<T>() = r.template tail<T>() - radius * xhat;
  if (!J) return;
  Eigen::Matrix<double, T, D> dxt = -c.rho_t * c.W.template bottomRows<T>();
  dxt.template rightCols<T>() += Eigen::Matrix<double, T, T>::Identity();
  Eigen::Matrix<double, T, D> dproj =
      (radius / nx) * (Eigen::Matrix<double, T, T>::Identity() - xhat * xhat.transpose()) * dxt;
  if (xn > 0.0) {
    Vec<D> dxn = -c.rho_n * c.W.row(0).transpose();
    dxn[0] += 1.0;
    dproj += c.mu * xhat * dxn.transpose();
  }
  J->template bottomRows<T>() = -dproj;
  J->template bottomRightCorner<T, T>() += Eigen::Matrix<double, T, T>::Identity();
}

struct NewtonOutcome {
  int iterations = 0;
  bool converged = false;
};

// Newton with Armijo backtracking on ½‖Φ‖².
template <int D>
inline NewtonOutcome alart_curnier_newton(const LocalContact<D>& c, const Vec<D>& b, Vec<D>& r,
                                          const LocalSolveSettings& s) {
  using Mat = Eigen::Matrix<double, D, D>;
  Vec<D> phi, phi_trial, step, trial;
  Mat J, Jinv;
  alart_curnier<D>(c, b, r, phi, &J);
  double psi = 0.5 * phi.squaredNorm();
  const double scale = std::max(r.norm() + c.rho_n * b.norm(), 1e-300);
  NewtonOutcome out;
  for (;; ++out.iterations) {
    if (std::sqrt(2.0 * psi) <= s.tolerance * scale) {
      out.converged = true;
      break;
    }
    if (out.iterations >= s.max_iterations) break;
    bool invertible = false;
    double det = 0.0;
    J.computeInverseAndDetWithCheck(Jinv, det, invertible, 0.0);
    if (invertible && std::isfinite(det) && std::abs(det) > 1e-14 * std::pow(J.cwiseAbs().maxCoeff(), D)) {
      step = -Jinv * phi;
    } else {
      step = -J.transpose() * phi;  // steepest descent on ½‖Φ‖² where the Newton matrix is singular
    }
    constexpr double sigma = 1e-4;
    double t = 1.0;
    bool accepted = false;
    for (int k = 0; k < 30; ++k, t *= 0.5) {
      trial = r + t * step;
      alart_curnier<D>(c, b, trial, phi_trial, nullptr);
      const double psi_trial = 0.5 * phi_trial.squaredNorm();
      if (psi_trial <= (1.0 - 2.0 * sigma * t) * psi) {
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    r = trial;
    alart_curnier<D>(c, b, r, phi, &J);
    psi = 0.5 * phi.squaredNorm();
  }
  return out;
}

// 3-D sliding by the slip angle: r = r_N d(θ), d(θ) = (1, μ cos θ, μ sin θ); u_N = 0 fixes
// r_N(θ) = −b_N / (W d(θ))_N, and Coulomb asks u_T(θ) = r_N (W d)_T + b_T to point along −(cos θ, sin θ).
// The roots of g(θ) = (−sin θ, cos θ)·u_T(θ) are bracketed on a grid and refined by bisection, so every
// sliding solution with r_N > 0 is found whatever the coupling in W; the best one is returned. This is the
// exact fallback where Newton's line search stalls (strong normal–tangential coupling, large μ).
template <int D>
inline bool sliding_by_angle(const LocalContact<D>& c, const Vec<D>& b, Vec<D>& r) {
  static_assert(D == 3);
  constexpr int samples = 72;
  constexpr double two_pi = 6.283185307179586;
  struct Point {
    double theta, g, rn, along;
    bool valid;
  };
  auto eval = [&](double theta) {
    const double cs = std::cos(theta), sn = std::sin(theta);
    const Vec<D> d(1.0, c.mu * cs, c.mu * sn);
    const Vec<D> Wd = c.W * d;
    Point p{theta, 0.0, 0.0, 0.0, Wd[0] > 0.0};
    if (!p.valid) return p;
    p.rn = -b[0] / Wd[0];
    const double ut1 = p.rn * Wd[1] + b[1], ut2 = p.rn * Wd[2] + b[2];
    p.g = -sn * ut1 + cs * ut2;
    p.along = cs * ut1 + sn * ut2;  // must be <= 0: u_T opposite to r_T
    return p;
  };
  double best_residual = INFINITY;
  Vec<D> best = Vec<D>::Zero();
  Point prev = eval(0.0);
  for (int k = 1; k <= samples; ++k) {
    const Point next = eval(two_pi * k / samples);
    if (prev.valid && next.valid && (prev.g == 0.0 || (prev.g < 0.0) != (next.g < 0.0))) {
      Point lo = prev, hi = next;
      for (int it = 0; it < 60 && lo.g != 0.0; ++it) {
        const Point mid = eval(0.5 * (lo.theta + hi.theta));
        if (!mid.valid) break;
        ((mid.g < 0.0) == (lo.g < 0.0) ? lo : hi) = mid;
      }
      if (lo.rn >= 0.0 && lo.along <= 0.0) {
        const Vec<D> cand(lo.rn, lo.rn * c.mu * std::cos(lo.theta), lo.rn * c.mu * std::sin(lo.theta));
        const Vec<D> u = c.W * cand + b;
        Vec<D> v = cand - u;
        v[0] -= c.mu * u.template tail<D - 1>().norm();
        project_on_cone<D>(v, c.mu);
        const double res = (cand - v).norm();
        if (res < best_residual) best_residual = res, best = cand;
      }
    }
    prev = next;
  }
  if (!std::isfinite(best_residual)) return false;
  r = best;
  return true;
}

// Exact solution by cases; returns false when no closed form applies (3-D sliding with a coupled or
// anisotropic block, or a singular block), leaving r untouched.
template <int D>
inline bool analytic_solve(const LocalContact<D>& c, const Vec<D>& b, Vec<D>& r) {
  constexpr int T = D - 1;
  if (b[0] >= 0.0) {  // r = 0 gives û = b + μ‖b_T‖n ∈ K*_μ exactly when b_N >= 0
    r.setZero();
    return true;
  }
  if (c.mu == 0.0) {
    if (!(c.W(0, 0) > 0.0)) return false;
    r.setZero();
    r[0] = -b[0] / c.W(0, 0);
    return true;
  }
  // The sliding closed forms below are valid only once sticking has been ruled out.
  if (!c.invertible) return false;
  const Vec<D> stick = -c.W_inverse * b;
  if (stick[0] >= 0.0 && stick.template tail<T>().norm() <= c.mu * stick[0]) {
    r = stick;
    return true;
  }
  if constexpr (D == 2) {
    // Sliding in direction s = sign(u_T): r_T = −s μ r_N and u_N = 0 fix r_N; keep the sign consistent with u_T.
    for (double s : {1.0, -1.0}) {
      const double denom = c.W(0, 0) - s * c.mu * c.W(0, 1);
      if (!(denom > 0.0)) continue;
      const double rn = -b[0] / denom;
      const double ut = (c.W(1, 0) - s * c.mu * c.W(1, 1)) * rn + b[1];
      if (s * ut >= 0.0) {
        r[0] = rn;
        r[1] = -s * c.mu * rn;
        return true;
      }
    }
    return false;
  } else {
    if (!c.isotropic) return false;
    // u_N = W_NN r_N + b_N = 0; u_T = α r_T + b_T with r_T = −μ r_N u_T/‖u_T‖ puts r_T opposite to b_T.
    const double rn = -b[0] / c.W(0, 0);
    const double bt = b.template tail<T>().norm();
    if (bt == 0.0) return false;
    r[0] = rn;
    r.template tail<T>() = (-c.mu * rn / bt) * b.template tail<T>();
    return true;
  }
}

}  // namespace local_detail

// Solves contact c's local problem for the given b, starting from r (the previous sweep's reaction), and
// overwrites r. Returns the local Newton iterations spent (0 for the closed-form cases and the projection).
template <int D>
inline int solve_local_contact(LocalSolverKind kind, const LocalContact<D>& c, const Eigen::Matrix<double, D, 1>& b,
                               Eigen::Matrix<double, D, 1>& r, const LocalSolveSettings& settings) {
  using namespace local_detail;
  switch (kind) {
    case LocalSolverKind::Projection: {
      Vec<D> u = c.W * r + b;
      u[0] += c.mu * u.template tail<D - 1>().norm();
      r -= c.rho_projection * u;
      project_on_cone<D>(r, c.mu);
      return 0;
    }
    case LocalSolverKind::Analytic: {
      if (analytic_solve<D>(c, b, r)) return 0;
      // Sliding without a closed form: Newton from the previous reaction when it is active, else from the
      // sticking guess pushed onto the cone; if Newton stalls, the slip-angle search, polished by Newton.
      const Vec<D> start = r;
      if (!(r[0] > 0.0) && c.invertible) {
        r = -c.W_inverse * b;
        project_on_cone<D>(r, c.mu);
      }
      NewtonOutcome first = alart_curnier_newton<D>(c, b, r, settings);
      if constexpr (D == 3) {
        if (!first.converged) {
          Vec<D> slide;
          if (sliding_by_angle<D>(c, b, slide)) {
            r = slide;
            first.iterations += alart_curnier_newton<D>(c, b, r, settings).iterations;
          } else if (!r.allFinite()) {
            r = start;
          }
        }
      }
      return first.iterations;
    }
    case LocalSolverKind::AlartCurnierNewton:
      return alart_curnier_newton<D>(c, b, r, settings).iterations;
  }
  return 0;
}

}  // namespace talus::solvers
