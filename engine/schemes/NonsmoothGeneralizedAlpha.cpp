// Nonsmooth generalized-α scheme with position correction (seed 004 eqs 34–42); the derivation of the one-step
// MLCP is in the header and in docs/schemes.md.
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/detection/SmallPathDetection.hpp"
#include "engine/schemes/IterationMatrix.hpp"
#include "engine/schemes/SecondOrderSystem.hpp"
#include "engine/schemes/StepKernels.hpp"

namespace talus {

namespace {

constexpr const char* kScheme = "nonsmooth generalized-α";

void validate(const NonsmoothGeneralizedAlphaParameters& p) {
  const GeneralizedAlphaCoefficients& c = p.coefficients;
  auto fail = [](const std::string& what) { throw std::invalid_argument(std::string(kScheme) + ": " + what); };
  if (!(p.h > 0.0 && std::isfinite(p.h))) fail("time step h must be > 0");
  if (!(c.alpha_m < 1.0 && c.alpha_f < 1.0)) fail("alpha_m and alpha_f must be < 1");
  if (!(c.gamma > 0.0 && c.beta > 0.0)) fail("gamma and beta must be > 0 (implicit scheme)");
  if (!(p.newton_tolerance > 0.0) || p.newton_max_iterations < 1) fail("Newton tolerance and iterations must be > 0");
}

}  // namespace

GeneralizedAlphaCoefficients generalized_alpha_coefficients(double rho) {
  if (!(rho >= 0.0 && rho <= 1.0))
    throw std::invalid_argument("generalized-α: spectral radius at infinity must be in [0, 1]");
  GeneralizedAlphaCoefficients c;
  c.alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
  c.alpha_f = rho / (rho + 1.0);
  c.gamma = 0.5 + c.alpha_f - c.alpha_m;
  c.beta = 0.25 * (c.gamma + 0.5) * (c.gamma + 0.5);
  return c;
}

struct NonsmoothGeneralizedAlpha::Impl {
  SecondOrderSystem sys;
  NonsmoothGeneralizedAlphaParameters p;
  StepReport report;

  // State at t_n.
  double t = 0.0;
  long steps = 0;
  Vector q, v, a, vdot;
  Vector U_prev;   // J_U(q_n) v_n, the pre-step relative velocities of the unilateral rows (eq 40h)
  Vector F_prev;   // external force at t_n
  double energy_prev = 0.0;

  // Iteration matrices: constant (factorised once) for LTI systems.
  SparseMatrix M, Kt, Ct;
  IterationMatrix S_factor, M_factor;
  bool factors_constant = false;

  // Buffers reused across steps.
  ConstraintRows rows, rows_mid;
  SparseMatrix J_B, J_U, J_A, J_T, J_T_mid;
  std::vector<Index> active_rows, b_rows, u_rows, t_rows, friction_rows, friction_active;
  Vector origin, qc, qc_mid;  // the origin of the position unknowns, and coordinates from at()
  Vector astar, qbase, vbase, qk, vk, q_mid, f, r, d0, q0, v0, gpred, gU, z, w, vdot_new, q_new, v_new, v_sum, impulse,
      F_new;
  Matrix Jt, MinvJt, U_cols, W_cols, tmp, D_nu, D_la, D_lam, R_d, R_q, R_v, A;
  solvers::LcpProblem problem;
  solvers::LcpWorkspace lcp_workspace;
  SmallPathDetection detection;

  Impl(Model& model, const NonsmoothGeneralizedAlphaParameters& params)
      : sys(model, FrictionSupport::Planar, BodySupport::LieGroup), p(params) {
    validate(p);
    sys.gather(q, v);
    t = model.time;
    const Index mB = sys.bilateral_rows();
    for (Index i = 0; i < mB; ++i) b_rows.push_back(i);
    index_unilateral_rows();
    F_prev.resize(0);
    sys.external_force(t, q, v, F_prev);

    update_matrices(t, q, v);
    sys.force(t, q, v, f);
    M_factor.solve(f, vdot);
    if (mB > 0) {
      select_rows(rows.J, b_rows, J_B);
      Jt = Matrix(J_B.transpose());
      M_factor.solve(Jt, MinvJt);
      const Matrix G = J_B * MinvJt;
      const Eigen::FullPivLU<Matrix> lu(G);
      if (!lu.isInvertible())
        throw std::invalid_argument(std::string(kScheme) + ": bilateral constraints are redundant (J_B M⁻¹ J_Bᵀ singular)");
      const Vector lambda = lu.solve(-(J_B * vdot));
      vdot += MinvJt * lambda;
    }
    a = vdot;
    energy_prev = 0.5 * v.dot(M * v) + sys.potential_energy(q);
  }

  Index n_vel() const { return sys.dofs(); }

  // The rows of the unilateral interactions, and their pre-step velocities U_prev = J_U(q_n) v_n: at the start,
  // and again whenever the detection stage changed the list. A pair that persists gets the value the step that
  // listed it left, J_U(q_n) v_n with the same q_n and v_n, so the result does not depend on the change.
  void index_unilateral_rows() {
    const Index mB = sys.bilateral_rows();
    u_rows.clear();
    t_rows.clear();
    // Normal row of each unilateral interaction, and its tangent row when it has friction (μ > 0), else −1.
    Index row = mB;
    for (Index i = 0; i < Index(sys.unilateral().size()); ++i) {
      u_rows.push_back(row);
      t_rows.push_back(sys.friction(i) > 0.0 ? row + 1 : -1);
      row += sys.unilateral_row_count(i);
    }
    sys.constraints(q, t, rows);
    select_rows(rows.J, u_rows, J_U);
    U_prev = J_U * v;  // unilateral rows are scleronomous
  }

  // Coordinates of the position unknown x: x itself without rigid bodies, q_n ∘ exp(x) with them (into buf).
  const Vector& at(const Vector& x, Vector& buf) const {
    if (!sys.has_bodies()) return x;
    sys.retract(q, x, buf);
    return buf;
  }

  // M, K_t, C_t and the factorisations of S and M at (t, q, v); once only for LTI systems.
  void update_matrices(double time, const Vector& qq, const Vector& vv) {
    if (factors_constant) return;
    const GeneralizedAlphaCoefficients& c = p.coefficients;
    const double c1 = (1.0 - c.alpha_f) / (1.0 - c.alpha_m), h = p.h;
    sys.mass(qq, M);
    sys.tangent(time, qq, vv, Kt, Ct);
    SparseMatrix S = M;
    if (Kt.nonZeros()) S += (c1 * h * h * c.beta) * Kt;
    if (Ct.nonZeros()) S += (c1 * h * c.gamma) * Ct;
    const bool lti = sys.linear_dynamics();
    S_factor.factorize(S, lti, std::string(kScheme) + " iteration matrix M + c₁(h²βK_t + hγC_t)");
    M_factor.factorize(M, true, std::string(kScheme) + " mass matrix");
    factors_constant = lti;
  }

  const StepReport& step() {
    const GeneralizedAlphaCoefficients& c = p.coefficients;
    const double h = p.h, c1 = (1.0 - c.alpha_f) / (1.0 - c.alpha_m);
    const double cq = h * h * c.beta * c1, cv = h * c.gamma * c1;
    const double t1 = t + h;
    report = StepReport{};
    StageTimer stages(report.phase_seconds, report.phase_cpu_seconds);
    report.time = t1;
    if (detect_contacts(sys.model(), detection, h)) {
      sys.classify_interactions();
      index_unilateral_rows();
    }
    stages.stamp(Phase::Broad);

    astar = (c.alpha_f * vdot - c.alpha_m * a) / (1.0 - c.alpha_m);
    // With rigid bodies the position unknowns are increments Δ from q_n in velocity coordinates (origin 0), and
    // coordinates are q_n ∘ exp(Δ) (at()); without, they are the coordinates themselves (origin q_n).
    if (sys.has_bodies())
      origin.setZero(n_vel());
    else
      origin = q;
    qbase = origin + h * v + (h * h * (0.5 - c.beta)) * a + (h * h * c.beta) * astar;
    vbase = v + (h * (1.0 - c.gamma)) * a + (h * c.gamma) * astar;

    // Activation of the impact law on the smooth prediction (ṽ̇_{n+1} = ṽ̇_n).
    qk = qbase + cq * vdot;
    vk = vbase + cv * vdot;
    sys.unilateral_gaps(at(qk, qc), t1, gpred);
    active_rows.clear();
    friction_rows.clear();
    friction_active.clear();
    std::vector<Index> active;
    for (Index j = 0; j < gpred.size(); ++j)
      if (gpred[j] <= 0.0) {
        if (t_rows[j] >= 0) {
          friction_rows.push_back(t_rows[j]);
          friction_active.push_back(Index(active.size()));
        }
        active.push_back(j);
        active_rows.push_back(u_rows[j]);
      }

    const Index n = sys.dofs(), mB = sys.bilateral_rows(), mU = Index(sys.unilateral().size());
    const Index mA = Index(active.size()), mF = Index(friction_rows.size()), m = mB + mU;
    // Unknowns [λ̃ | ν_B | Λ_B | ν_U | Λ_A | Λ_T⁺ | Λ_T⁻ | σ | ν_T⁺ | ν_T⁻ | σ_p]. Each active contact with friction
    // has the planar Coulomb law twice, in the same LCP form:
    // - on the velocity jump (with the impact law): Λ_T = Λ_T⁺ − Λ_T⁻, 0 ≤ U_T + σ ⟂ Λ_T⁺ ≥ 0,
    //   0 ≤ −U_T + σ ⟂ Λ_T⁻ ≥ 0, 0 ≤ μΛ_N − Λ_T⁺ − Λ_T⁻ ⟂ σ ≥ 0 with U_T = J_T v_{n+1} (σ = |U_T| when sliding);
    // - on the position correction: ν_T = ν_T⁺ − ν_T⁻ enters U = M⁻¹(… + J_Tᵀν_T), and 0 ≤ d_T + σ_p ⟂ ν_T⁺ ≥ 0,
    //   0 ≤ −d_T + σ_p ⟂ ν_T⁻ ≥ 0, 0 ≤ μν_N − ν_T⁺ − ν_T⁻ ⟂ σ_p ≥ 0 with d_T ≈ J_T(q_{n+1} − q_n) the tangential
    //   displacement of the step (J_T at the midpoint, below). ν is the time integral of the impulse measure over the step (eq 38b), so its
    //   tangential part obeys the cone of its normal part. Without these rows the correction is normal only
    //   (eq 40a–c) and the tangential part of the smooth displacement h²β a (gravity along a slope: λ̃_U = 0,
    //   eq 35d) is never undone: a body sticking at zero velocity crept by O(h). With them, sticking gives
    //   d_T = 0 exactly, and sliding moves by h v_n + ½h²(a_smooth + friction): the friction's O(h²) share of
    //   the displacement. ν_Tᵀ d_T = −σ_p(ν_T⁺ + ν_T⁻) ≤ 0: it never does positive work.
    //   The rows are those of the forecast set, like Λ_T's: the correction pushes out (ν_N > 0) the contacts that
    //   the smooth prediction closes, which are essentially those with g(q*) ≤ 0; elsewhere the cone would force
    //   ν_T = 0 anyway.
    const Index oA = 3 * mB + mU, oT = oA + mA, oP = oT + 3 * mF, N = oP + 3 * mF;
    const bool exact_in_one = sys.linear_dynamics() && sys.linear_relations();

    int it = 0;
    stages.stamp(Phase::Narrow);  // the activation forecast: which contacts enter the step
    for (;; ++it) {
      if (it >= p.newton_max_iterations)
        throw StepFailure(std::string(kScheme) + ": Newton did not converge in " +
                          std::to_string(p.newton_max_iterations) + " iterations at t = " + std::to_string(t1));
      const Vector& qk_at = at(qk, qc);
      sys.constraints(qk_at, t1, rows);
      select_rows(rows.J, b_rows, J_B);
      select_rows(rows.J, u_rows, J_U);
      select_rows(rows.J, active_rows, J_A);
      select_rows(rows.J, friction_rows, J_T);
      update_matrices(t1, qk_at, vk);

      // Smooth part with the multipliers at zero: S ṽ̇ = r (f linearised at the iterate).
      sys.force(t1, qk_at, vk, f);
      r = f;
      if (Kt.nonZeros()) r.noalias() += Kt * (qk - qbase);
      if (Ct.nonZeros()) r.noalias() += Ct * (vk - vbase);
      S_factor.solve(r, d0);
      q0 = qbase + cq * d0;
      v0 = vbase + cv * d0;

      // Responses of (ṽ̇, q, v) to each multiplier; columns [λ̃ | ν_B | Λ_B | ν_U | Λ_A | Λ_T⁺ | Λ_T⁻ | σ | ν_T⁺ |
      // ν_T⁻ | σ_p].
      Jt = rows.J.transpose();
      M_factor.solve(Jt, MinvJt);  // U = M⁻¹Jᵀν, W = M⁻¹JᵀΛ
      U_cols.resize(n, m + mF);
      U_cols.leftCols(mB) = MinvJt.leftCols(mB);
      for (Index i = 0; i < mU; ++i) U_cols.col(mB + i) = MinvJt.col(u_rows[i]);
      for (Index k = 0; k < mF; ++k) U_cols.col(m + k) = MinvJt.col(friction_rows[k]);
      W_cols.resize(n, mB + mA + mF);
      W_cols.leftCols(mB) = MinvJt.leftCols(mB);
      for (Index i = 0; i < mA; ++i) W_cols.col(mB + i) = MinvJt.col(active_rows[i]);
      for (Index k = 0; k < mF; ++k) W_cols.col(mB + mA + k) = MinvJt.col(friction_rows[k]);
      if (Kt.nonZeros()) {
        tmp = -(Kt * U_cols);
        S_factor.solve(tmp, D_nu);
      } else {
        D_nu.setZero(n, m + mF);
      }
      if (Ct.nonZeros()) {
        tmp = -(Ct * W_cols);
        S_factor.solve(tmp, D_la);
      } else {
        D_la.setZero(n, mB + mA + mF);
      }
      tmp = Jt.leftCols(mB);
      S_factor.solve(tmp, D_lam);

      R_d.setZero(n, N);
      R_d.leftCols(mB) = D_lam;
      R_d.middleCols(mB, mB) = D_nu.leftCols(mB);
      R_d.middleCols(2 * mB, mB) = D_la.leftCols(mB);
      R_d.middleCols(3 * mB, mU) = D_nu.middleCols(mB, mU);
      R_d.middleCols(oA, mA) = D_la.middleCols(mB, mA);
      R_d.middleCols(oT, mF) = D_la.rightCols(mF);
      R_d.middleCols(oT + mF, mF) = -D_la.rightCols(mF);
      R_d.middleCols(oP, mF) = D_nu.rightCols(mF);
      R_d.middleCols(oP + mF, mF) = -D_nu.rightCols(mF);
      R_q = cq * R_d;
      R_v = cv * R_d;
      R_q.middleCols(mB, mB) += U_cols.leftCols(mB);
      R_q.middleCols(3 * mB, mU) += U_cols.middleCols(mB, mU);
      R_q.middleCols(oP, mF) += U_cols.rightCols(mF);
      R_q.middleCols(oP + mF, mF) -= U_cols.rightCols(mF);
      R_v.middleCols(2 * mB, mB) += W_cols.leftCols(mB);
      R_v.middleCols(oA, mA) += W_cols.middleCols(mB, mA);
      R_v.middleCols(oT, mF) += W_cols.rightCols(mF);
      R_v.middleCols(oT + mF, mF) -= W_cols.rightCols(mF);

      // MLCP rows: [J_B ṽ = 0 | g_B(q) = 0 | J_B v = 0 | 0 ≤ g_U(q) ⟂ ν_U | 0 ≤ J_A v + e U_n ⟂ Λ_A | Coulomb on
      // U_T | Coulomb on d_T].
      A.resize(N, N);
      problem.q.resize(N);
      // The bilateral velocity rows hold J_B v + ∂g_B/∂t = 0 (the driver's ∂g/∂t; zero for the other rows).
      A.topRows(mB) = J_B * (cv * R_d);
      problem.q.head(mB) = J_B * v0 + rows.rate.head(mB);
      A.middleRows(mB, mB) = J_B * R_q;
      problem.q.segment(mB, mB) = rows.gap.head(mB) + J_B * (q0 - qk);
      A.middleRows(2 * mB, mB) = J_B * R_v;
      problem.q.segment(2 * mB, mB) = J_B * v0 + rows.rate.head(mB);
      A.middleRows(3 * mB, mU) = J_U * R_q;
      gU.resize(mU);
      for (Index i = 0; i < mU; ++i) gU[i] = rows.gap[u_rows[i]];
      problem.q.segment(3 * mB, mU) = gU + J_U * (q0 - qk);
      A.middleRows(oA, mA) = J_A * R_v;
      problem.q.segment(oA, mA) = J_A * v0;
      for (Index i = 0; i < mA; ++i) problem.q[oA + i] += sys.restitution(active[i]) * U_prev[active[i]];
      if (mF) {
        A.middleRows(oT, mF) = J_T * R_v;
        problem.q.segment(oT, mF) = J_T * v0;
        A.middleRows(oT + mF, mF) = -A.middleRows(oT, mF);
        problem.q.segment(oT + mF, mF) = -problem.q.segment(oT, mF);
        A.middleRows(oT + 2 * mF, mF).setZero();
        problem.q.segment(oT + 2 * mF, mF).setZero();
        // d_T = J_T(q_{n+½})(q_{n+1} − q_n), with q_{n+½} = ½(q_n + q_k) at the iterate: the midpoint rule for the
        // tangential slip, exact to O(‖Δq‖³) when J_T depends on q. J_T(q_k) in its place would let a contact
        // held by friction on a rotating body slip by ½ J_T′ Δq Δq = O(h²) per step (the rocking block's pivot:
        // 1.5e−4 m up to t = 0.9 s at h = 1e−3, 3.8e−8 m with J_T(q_{n+½}), 1.7e−3 m with no position-level
        // friction at all).
        const SparseMatrix* Jd = &J_T;
        if (!sys.linear_relations()) {
          q_mid = 0.5 * (origin + qk);
          sys.constraints(at(q_mid, qc_mid), t + 0.5 * h, rows_mid);
          select_rows(rows_mid.J, friction_rows, J_T_mid);
          Jd = &J_T_mid;
        }
        A.middleRows(oP, mF) = *Jd * R_q;
        problem.q.segment(oP, mF) = *Jd * (q0 - origin);
        A.middleRows(oP + mF, mF) = -A.middleRows(oP, mF);
        problem.q.segment(oP + mF, mF) = -problem.q.segment(oP, mF);
        A.bottomRows(mF).setZero();
        problem.q.tail(mF).setZero();
        for (Index k = 0; k < mF; ++k) {
          const Index j = active[friction_active[k]];
          const double mu = sys.friction(j);
          A(oT + k, oT + 2 * mF + k) = 1.0;
          A(oT + mF + k, oT + 2 * mF + k) = 1.0;
          A(oT + 2 * mF + k, oA + friction_active[k]) = mu;
          A(oT + 2 * mF + k, oT + k) = -1.0;
          A(oT + 2 * mF + k, oT + mF + k) = -1.0;
          A(oP + k, oP + 2 * mF + k) = 1.0;
          A(oP + mF + k, oP + 2 * mF + k) = 1.0;
          A(oP + 2 * mF + k, 3 * mB + j) = mu;  // the cone of ν_N, the position multiplier of the same contact
          A(oP + 2 * mF + k, oP + k) = -1.0;
          A(oP + 2 * mF + k, oP + mF + k) = -1.0;
        }
      }
      problem.M = A.sparseView();
      problem.n_equality = int(3 * mB);
      stages.stamp(Phase::Assembly);
      // z is the last solve's solution, PSOR's warm start; when the active set (or the detected contacts) changed
      // the problem's size, its entries no longer line up with the unknowns, so PSOR starts cold.
      if (z.size() != problem.size()) z.resize(0);
      solve_step_mlcp(problem, p.lcp, lcp_workspace, kScheme, z, w, report);
      stages.stamp(Phase::Solve);

      vdot_new = d0;
      q_new = q0;
      v_new = v0;
      if (N > 0) {
        vdot_new.noalias() += R_d * z;
        q_new.noalias() += R_q * z;
        v_new.noalias() += R_v * z;
      }
      if (exact_in_one) break;
      const double change = increment_measure(qk, q_new, vk, v_new);
      qk = q_new;
      vk = v_new;
      if (change <= p.newton_tolerance) break;
    }
    report.newton_iterations = it + 1;
    require_finite_state(q_new, v_new, t1, kScheme);

    // Impulses per row (Λ; the position multipliers ν, ν_T included, are not impulses and are not reported).
    impulse.setZero(rows.rows());
    if (mB) impulse.head(mB) = z.segment(2 * mB, mB);
    for (Index i = 0; i < mA; ++i) impulse[active_rows[i]] = z[oA + i];
    for (Index k = 0; k < mF; ++k) impulse[friction_rows[k]] = z[oT + k] - z[oT + mF + k];

    const Vector& q_new_at = at(q_new, qc);
    sys.constraints(q_new_at, t1, rows);
    select_rows(rows.J, u_rows, J_U);

    // Energy terms (see the header for their definitions).
    if (!sys.linear_dynamics()) sys.mass(q_new_at, M);
    EnergyReport& e = report.energy;
    // Work of the velocity jump W = v_{n+1} − ṽ_{n+1}: ½ (ṽ + v)ᵀ Jᵀ Λ, eq 81 with v⁻ = ṽ_{n+1}.
    if (m) {
      v_sum = vbase + cv * vdot_new + v_new;
      e.contact_work = 0.5 * (rows.J * v_sum).dot(impulse);
    } else {
      e.contact_work = 0.0;
    }
    sys.external_force(t1, q_new_at, v_new, F_new);
    e.kinetic = 0.5 * v_new.dot(M * v_new);
    e.potential = sys.potential_energy(q_new_at);
    const double energy = e.total();
    e.external_work = 0.5 * (F_prev + F_new).dot(q_new - origin);
    e.damping_work = sys.damping().nonZeros() ? -0.5 * (q_new - origin).dot(sys.damping() * (v + v_new)) : 0.0;
    e.numerical_dissipation = energy - energy_prev - e.external_work - e.contact_work - e.damping_work;
    report.active = int(sys.bilateral().size() + active.size());

    U_prev = J_U * v_new;
    sys.store_interaction_outputs(rows, v_new, impulse);
    if (sys.has_bodies())
      q = q_new_at;
    else
      q.swap(q_new);
    v.swap(v_new);
    vdot.swap(vdot_new);
    a = astar + c1 * vdot;
    F_prev.swap(F_new);
    energy_prev = energy;
    t = t1;
    ++steps;
    report.step = steps;
    sys.scatter(q, v);
    sys.model().time = t;
    stages.stamp(Phase::Integration);
    return report;
  }
};

NonsmoothGeneralizedAlpha::NonsmoothGeneralizedAlpha(Model& model, const NonsmoothGeneralizedAlphaParameters& params)
    : impl_(new Impl(model, params)) {}
NonsmoothGeneralizedAlpha::~NonsmoothGeneralizedAlpha() { delete impl_; }
const StepReport& NonsmoothGeneralizedAlpha::step() { return impl_->step(); }
const StepReport& NonsmoothGeneralizedAlpha::last_report() const { return impl_->report; }
const NonsmoothGeneralizedAlphaParameters& NonsmoothGeneralizedAlpha::parameters() const { return impl_->p; }
const Vector& NonsmoothGeneralizedAlpha::acceleration() const { return impl_->a; }
const Vector& NonsmoothGeneralizedAlpha::smooth_acceleration() const { return impl_->vdot; }

void NonsmoothGeneralizedAlpha::restore_accelerations(const Vector& a, const Vector& smooth_a) {
  const Index n = impl_->sys.dofs();
  const auto check = [n](const Vector& x, const char* what) {
    if (x.size() != n)
      throw std::invalid_argument(std::string(kScheme) + ": restored " + what + " has " + std::to_string(x.size()) +
                                  " entries (expected one per velocity: " + std::to_string(n) + ")");
    for (Index i = 0; i < n; ++i)
      if (!std::isfinite(x[i]))
        throw std::invalid_argument(std::string(kScheme) + ": restored " + what + " entry " + std::to_string(i) +
                                    " is not finite");
  };
  check(a, "acceleration-like variable a_n");
  check(smooth_a, "smooth acceleration");
  impl_->a = a;
  impl_->vdot = smooth_a;
}

}  // namespace talus
