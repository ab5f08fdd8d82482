// HEM5 (see Hem5.hpp). Coefficients: V. Brasey, HEM5 (Université de Genève, version of June 8, 1994),
// subroutine COEF, as distributed with Siconos in externals/hairer/hem5.f; the method is described in
// V. Brasey, E. Hairer, "Half-explicit Runge–Kutta methods for differential-algebraic systems of index 2",
// SIAM J. Numer. Anal. 30 (1993), and Brasey's thesis (Geneva, 1994). The error estimate combines the
// embedded solutions of orders 4 (Q_8) and 3 (with Q̇_7, Q̇_8) exactly as that code does (seed 002 eqs 16–17).
// tests/eventdriven/Hem5Test.cpp measures order 5 on a constrained pendulum.
#include "engine/eventdriven/Hem5.hpp"

#include <cmath>

namespace talus::eventdriven {

namespace {

// Row i (0-based) holds a_{i+1, j}; row 8 holds the weights b (b_1 = b_2 = b_3 = 0).
constexpr double kA[9][8] = {
    {0, 0, 0, 0, 0, 0, 0, 0},
    {0.1000000000000000e+00, 0, 0, 0, 0, 0, 0, 0},
    {0.3749999999999999e-01, 0.1125000000000000e+00, 0, 0, 0, 0, 0, 0},
    {0.3222169236216038e+00, -0.1188883322987607e+01, 0.1228145134023366e+01, 0, 0, 0, 0, 0},
    {-0.3501123898129943e-01, 0.3725420601086163e+00, -0.2721053535582034e+00, 0.1993037578575077e-01, 0, 0,
     0, 0},
    {-0.5576547055042005e+00, 0.1367307289645883e+01, -0.1732236360460725e+01, 0.4587772007467548e+00,
     0.9638065755722880e+00, 0, 0, 0},
    {0.8654517193566155e-01, -0.8810082847945416e-01, 0.1981275547329404e+00, -0.4645422679331083e+00,
     0.1615170091109488e+00, 0.9064533606330119e+00, 0, 0},
    {0.0, 0.0, 0.0, 0.3624477248753816e+01, -0.4617724189181256e+00, -0.3198024628164272e+01,
     0.1035319798328740e+01, 0},
    {0.0, 0.0, 0.0, 0.2467760667636791e+00, 0.2106594087489728e+00, 0.1769218149125021e+00,
     0.3064446444147922e+00, 0.5919806516005373e-01},
};
constexpr double kC[9] = {0.0,
                          0.1000000000000000e+00,
                          0.1500000000000000e+00,
                          0.3614787346573635e+00,
                          0.8535584335486351e-01,
                          0.5000000000000000e+00,
                          0.8000000000000000e+00,
                          1.0,
                          1.0};

}  // namespace

StepAttempt Hem5::attempt(const DaeState& s0, double h, double tol, DaeState& s1) {
  StepAttempt out;
  const Index m = ev_.active_rows();
  Q_[0] = s0.q;
  V_[0] = s0.v;
  if (cache_valid_ && cached_q_.size() == s0.q.size() && cached_q_ == s0.q && cached_G_.rows() == m) {
    G_[0] = cached_G_;
  } else {
    ev_.jacobian(s0.q, G_[0]);
  }
  for (int i = 0; i < 8; ++i) {
    // Q_{i+1} explicitly from the coordinate rates known so far.
    ev_.coordinate_rate(Q_[i], V_[i], Qd_[i]);
    Q_[i + 1] = s0.q;
    for (int j = 0; j <= i; ++j)
      if (kA[i + 1][j] != 0.0) Q_[i + 1] += (h * kA[i + 1][j]) * Qd_[j];
    if (i == 7 && ev_.system().normalize) ev_.system().normalize(Q_[8]);
    ev_.jacobian(Q_[i + 1], G_[i + 1]);
    // tmp = v_n + h Σ_{j<i} a_{i+1,j} V̇_j ; r = −G(Q_{i+1}) tmp / (h a_{i+1,i})  (seed 002 eq 14)
    tmp_ = s0.v;
    for (int j = 0; j < i; ++j)
      if (kA[i + 1][j] != 0.0) tmp_ += (h * kA[i + 1][j]) * Vd_[j];
    const double aii = kA[i + 1][i];
    if (m) r_ = -(G_[i + 1] * tmp_) / (h * aii);
    out.status = ev_.stage(s0.t + kC[i] * h, Q_[i], V_[i], G_[i], G_[i + 1], r_, Vd_[i], Lam_);
    if (out.status != SaddleStatus::Ok) return out;
    V_[i + 1] = tmp_ + (h * aii) * Vd_[i];
  }
  s1.t = s0.t + h;
  s1.q = Q_[8];
  s1.v = V_[8];

  // Error estimate, seed 002 eqs 16–17: err1 against the order-4 stage (Q_8, V_8) — index 7 here —,
  // err2 against the order-3 combination q_n + h (5/2 Q̇_7 − 3/2 Q̇_8).
  eq1_ = s1.q - Q_[7];
  ev1_ = s1.v - V_[7];
  eq2_ = s1.q - s0.q - h * (2.5 * Qd_[6] - 1.5 * Qd_[7]);
  ev2_ = s1.v - s0.v - h * (2.5 * Vd_[6] - 1.5 * Vd_[7]);
  const double err1 = weighted_rms(eq1_, ev1_, s0, s1, tol);
  const double err2 = weighted_rms(eq2_, ev2_, s0, s1, tol);
  const double den = err1 + 0.01 * err2;
  out.error = den > 1e-13 ? err1 * err1 / den : 0.0;

  // Accelerations and multipliers at the end (eq 15), reusing G(q_{n+1}).
  out.status = ev_.accelerations(s1.t, s1.q, s1.v, s1.a, s1.lambda, &G_[8]);
  s1.alpha_acceleration.resize(0);
  cached_q_ = s1.q;
  cached_G_ = G_[8];
  cache_valid_ = true;
  return out;
}

}  // namespace talus::eventdriven
