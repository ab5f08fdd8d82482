// Nonsmooth Newmark / HHT (seed 000 eqs 68–73) with the energy terms of eqs 93–104 (see the header).
#include "engine/schemes/NonsmoothNewmark.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/Integrator.hpp"
#include "engine/detection/SmallPathDetection.hpp"
#include "engine/schemes/IterationMatrix.hpp"
#include "engine/schemes/SecondOrderSystem.hpp"
#include "engine/schemes/StepKernels.hpp"

namespace talus {

namespace {

constexpr const char* kScheme = "nonsmooth Newmark/HHT";

void validate(const NonsmoothNewmarkParameters& p) {
  auto fail = [](const std::string& what) { throw std::invalid_argument(std::string(kScheme) + ": " + what); };
  if (!(p.h > 0.0 && std::isfinite(p.h))) fail("time step h must be > 0");
  if (!(p.gamma > 0.0 && p.beta > 0.0)) fail("gamma and beta must be > 0 (implicit scheme)");
  if (!(p.alpha >= 0.0 && p.alpha < 1.0)) fail("alpha must be in [0, 1) (HHT uses [0, 1/3])");
  if (!(p.newton_tolerance > 0.0) || p.newton_max_iterations < 1) fail("Newton tolerance and iterations must be > 0");
}

}  // namespace

NonsmoothNewmarkParameters hht_parameters(double h, double alpha) {
  if (!(alpha >= 0.0 && alpha <= 1.0 / 3.0)) throw std::invalid_argument("HHT: alpha must be in [0, 1/3]");
  NonsmoothNewmarkParameters p;
  p.h = h;
  p.alpha = alpha;
  p.gamma = 0.5 + alpha;
  p.beta = 0.25 * (1.0 + alpha) * (1.0 + alpha);
  return p;
}

struct NonsmoothNewmark::Impl {
  SecondOrderSystem sys;
  NonsmoothNewmarkParameters p;
  StepReport report;

  // State at t_k and what the HHT collocation and the energy terms need from t_{k−1}.
  double t = 0.0;
  long steps = 0;
  Vector q, v, a;
  Vector f_prev;           // f(t_k, q_k, v_k), the α-weighted force of the collocation
  Vector U_prev;           // J_U(q_k) v_k
  Vector F_prev, Fhat_prev, Cv_prev, Cvhat_prev, dq_prev;  // F_ext, F̂, C v, (C v)^ at t_k; q_k − q_{k−1}

  SparseMatrix M, Kt, Ct;
  IterationMatrix S_factor, M_factor;
  bool factors_constant = false;

  ConstraintRows rows;
  SparseMatrix J_V;  // velocity rows in the MLCP: bilateral, then active unilateral
  SparseMatrix J_U;
  std::vector<Index> v_rows, u_rows;
  SmallPathDetection detection;
  // With rigid bodies the position unknowns are increments Δ from q_k in velocity coordinates (origin 0) and the
  // coordinates are q_k ∘ exp(Δ) (at()); without, they are the coordinates themselves (origin q_k).
  Vector origin, qk_at, q_new_at;
  Vector qb, vb, qk, vk, ak, gpred, f, r, d0, q0, v0, z, w, a_new, q_new, v_new, impulse, F_new, Cv_new, Fhat_new,
      Cvhat_new, dq;
  Matrix Jt, W_cols, tmp, D, R_q, R_v, A;
  solvers::LcpProblem problem;
  solvers::LcpWorkspace lcp_workspace;

  Impl(Model& model, const NonsmoothNewmarkParameters& params)
      : sys(model, FrictionSupport::None, BodySupport::LieGroup), p(params) {
    validate(p);
    sys.gather(q, v);
    t = model.time;
    index_unilateral_rows();
    update_matrices(t, q, v);
    sys.force(t, q, v, f_prev);
    M_factor.solve(f_prev, a);
    sys.external_force(t, q, v, F_prev);
    Fhat_prev = F_prev;
    Cv_prev = sys.damping() * v;
    Cvhat_prev = Cv_prev;
    dq_prev.setZero(sys.dofs());
  }

  std::string context(double t1) const { return step_context(kScheme, steps + 1, t, t1); }

  // The rows of the unilateral interactions and their pre-step velocities U_k = J_U(q_k) v_k: at the start, and
  // again when the detection stage changed the list (a pair that persists gets the value the last step left).
  void index_unilateral_rows() {
    u_rows.clear();
    for (Index i = 0; i < Index(sys.unilateral().size()); ++i) u_rows.push_back(sys.bilateral_rows() + i);
    sys.constraints(q, t, rows);
    select_rows(rows.J, u_rows, J_U);
    U_prev = J_U * v;
  }

  // Coordinates of the position unknown x (into buf with rigid bodies).
  const Vector& at(const Vector& x, Vector& buf) const {
    if (!sys.has_bodies()) return x;
    sys.retract(q, x, buf);
    return buf;
  }

  // The interactions behind the MLCP's rows: the bilateral ones, then the active unilateral ones.
  std::vector<int> mlcp_interactions(const std::vector<Index>& active) const {
    std::vector<int> ids = sys.bilateral();
    for (Index j : active) ids.push_back(sys.unilateral()[j]);
    return ids;
  }

  double algorithmic_energy(const Vector& acc, const Vector& dq_last) const {
    const double h = p.h;
    double e = 0.25 * h * h * (2.0 * p.beta - p.gamma) * acc.dot(M * acc);
    if (p.alpha != 0.0 && sys.stiffness().nonZeros())
      e += 0.5 * p.alpha * (1.0 - p.gamma) * dq_last.dot(sys.stiffness() * dq_last);
    return e;
  }

  void update_matrices(double time, const Vector& qq, const Vector& vv) {
    if (factors_constant) return;
    const double h = p.h;
    sys.mass(qq, M);
    sys.tangent(time, qq, vv, Kt, Ct);
    SparseMatrix S = M;
    if (Kt.nonZeros()) S += ((1.0 - p.alpha) * h * h * p.beta) * Kt;
    if (Ct.nonZeros()) S += ((1.0 - p.alpha) * h * p.gamma) * Ct;
    const bool lti = sys.linear_dynamics();
    S_factor.factorize(S, lti, std::string(kScheme) + " iteration matrix M + (1 − α)(h²βK_t + hγC_t)");
    M_factor.factorize(M, true, std::string(kScheme) + " mass matrix");
    factors_constant = lti;
  }

  const StepReport& step() {
    const double h = p.h, al = p.alpha, ga = p.gamma, be = p.beta, t1 = t + h;
    report = StepReport{};
    StageTimer stages(report.phase_seconds, report.phase_cpu_seconds);
    report.time = t1;
    report.h = h;
    if (detect_contacts(sys.model(), detection, h)) {
      sys.classify_interactions();
      index_unilateral_rows();
    }
    stages.stamp(Phase::Broad);

    if (sys.has_bodies())
      origin.setZero(sys.dofs());
    else
      origin = q;
    qb = origin + h * v + (h * h * (0.5 - be)) * a;
    vb = v + (h * (1.0 - ga)) * a;

    // Forecast for the activation of Newton's law: the Taylor prediction with a_{k+1} = a_k.
    qk = qb + (h * h * be) * a;
    vk = vb + (h * ga) * a;
    ak = a;
    sys.unilateral_gaps(at(qk, qk_at), t1, gpred);
    const Index mB = sys.bilateral_rows();
    v_rows.clear();
    for (Index i = 0; i < mB; ++i) v_rows.push_back(i);
    std::vector<Index> active;
    for (Index j = 0; j < gpred.size(); ++j)
      if (gpred[j] <= 0.0) {
        active.push_back(j);
        v_rows.push_back(mB + j);
      }
    const Index n = sys.dofs(), N = Index(v_rows.size());
    const bool exact_in_one = sys.linear_dynamics() && sys.linear_relations();

    int it = 0;
    bool newton_failed = false;
    stages.stamp(Phase::Narrow);  // the activation forecast: which contacts enter the step
    for (;; ++it) {
      if (it >= p.newton_max_iterations) {
        step_failed(p.on_failure, report, solvers::SolverStatus::MaxIterations,
                    context(t1) + ": Newton did not converge in " + std::to_string(p.newton_max_iterations) +
                        " iterations");
        newton_failed = true;  // Keep: the last iterate is the step
        break;
      }
      const Vector& qk_c = at(qk, qk_at);
      sys.constraints(qk_c, t1, rows);
      select_rows(rows.J, v_rows, J_V);
      update_matrices(t1, qk_c, vk);

      // a with Λ = 0: S a = (1 − α) [f + K_t (q_k − q_b) + C_t (v_k − v_b)] + α f(t_k) (f linearised at the iterate).
      sys.force(t1, qk_c, vk, f);
      r = f;
      if (Kt.nonZeros()) r.noalias() += Kt * (qk - qb);
      if (Ct.nonZeros()) r.noalias() += Ct * (vk - vb);
      r = (1.0 - al) * r + al * f_prev;
      S_factor.solve(r, d0);
      q0 = qb + (h * h * be) * d0;
      v0 = vb + (h * ga) * d0;

      // Response of (a, q, v) to each impulse Λ_j: Δv^con = M⁻¹J_jᵀ, a feels it through f(q_{k+1}, v_{k+1}).
      Jt = J_V.transpose();
      M_factor.solve(Jt, W_cols);
      tmp.setZero(n, N);
      if (Kt.nonZeros()) tmp.noalias() -= (0.5 * h) * (Kt * W_cols);
      if (Ct.nonZeros()) tmp.noalias() -= Ct * W_cols;
      tmp *= (1.0 - al);
      S_factor.solve(tmp, D);
      R_q = (h * h * be) * D + (0.5 * h) * W_cols;
      R_v = (h * ga) * D + W_cols;

      // MLCP rows: J_B v_{k+1} = 0, then 0 ≤ J_A v_{k+1} + e U_k ⟂ Λ_A ≥ 0.
      A = J_V * R_v;
      problem.q = J_V * v0;
      for (size_t i = 0; i < active.size(); ++i) problem.q[mB + Index(i)] += sys.restitution(active[i]) * U_prev[active[i]];
      problem.M = A.sparseView();
      problem.n_equality = int(mB);
      stages.stamp(Phase::Assembly);
      if (!solve_step_mlcp(problem, p.lcp, lcp_workspace, z, w, report))
        solve_failed(p.on_failure, report.solver,
                     context(t1) + ": " + unsolved_mlcp(problem, report.solver) + "; interactions " +
                         interaction_names(sys.model(), mlcp_interactions(active)));
      stages.stamp(Phase::Solve);

      a_new = d0;
      q_new = q0;
      v_new = v0;
      if (N > 0) {
        a_new.noalias() += D * z;
        q_new.noalias() += R_q * z;
        v_new.noalias() += R_v * z;
      }
      if (exact_in_one) break;
      const double change = increment_measure(qk, q_new, vk, v_new);
      qk = q_new;
      vk = v_new;
      if (change <= p.newton_tolerance) break;
    }
    report.newton_iterations = newton_failed ? it : it + 1;
    const Vector& q_end = at(q_new, q_new_at);
    if (!q_end.allFinite() || !v_new.allFinite())
      step_failed(p.on_failure, report, solvers::SolverStatus::Diverged,
                  context(t1) + ": the new state is not finite (NaN/Inf) in " +
                      non_finite_dof(sys.model(), sys.layout(), q_end, v_new));

    impulse.setZero(rows.rows());
    for (Index i = 0; i < N; ++i) impulse[v_rows[i]] = z[i];
    sys.constraints(q_end, t1, rows);
    select_rows(rows.J, u_rows, J_U);

    // Energy terms (header; docs/schemes.md for the derivation). Δq in velocity coordinates.
    if (!sys.linear_dynamics()) sys.mass(q_end, M);
    dq = q_new - origin;
    sys.external_force(t1, q_end, v_new, F_new);
    Cv_new = sys.damping() * v_new;
    Fhat_new = (1.0 - al) * F_new + al * F_prev;
    Cvhat_new = (1.0 - al) * Cv_new + al * Cv_prev;
    EnergyReport& e = report.energy;
    e.kinetic = 0.5 * v_new.dot(M * v_new);
    e.potential = sys.potential_energy(q_end);
    e.algorithmic = algorithmic_energy(a_new, dq);
    e.external_work = dq.dot((1.0 - ga) * Fhat_prev + ga * Fhat_new);
    e.damping_work = -dq.dot((1.0 - ga) * Cvhat_prev + ga * Cvhat_new);
    e.contact_work = rows.rows() ? 0.5 * (rows.J * (v + v_new)).dot(impulse) : 0.0;
    const Vector da = a_new - a;
    double diss = -(ga - 0.5) * 0.5 * h * h * (2.0 * be - ga) * da.dot(M * da);
    if (sys.stiffness().nonZeros()) {
      const SparseMatrix& K = sys.stiffness();
      const Vector ddq = dq - dq_prev;
      diss -= (ga - 0.5 - al) * dq.dot(K * dq) + 0.5 * al * (1.0 - ga) * ddq.dot(K * ddq);
    }
    e.numerical_dissipation = diss;
    report.active = int(sys.bilateral().size() + active.size());

    U_prev = J_U * v_new;
    sys.store_interaction_outputs(rows, v_new, impulse);
    if (al != 0.0) sys.force(t1, q_end, v_new, f_prev);
    if (sys.has_bodies())
      q = q_new_at;
    else
      q.swap(q_new);
    v.swap(v_new);
    a.swap(a_new);
    F_prev.swap(F_new);
    Fhat_prev.swap(Fhat_new);
    Cv_prev.swap(Cv_new);
    Cvhat_prev.swap(Cvhat_new);
    dq_prev.swap(dq);
    t = t1;
    report.step = ++steps;
    sys.scatter(q, v);
    sys.model().time = t;
    stages.stamp(Phase::Integration);
    return report;
  }
};

NonsmoothNewmark::CarriedState NonsmoothNewmark::carried_state() const {
  return {impl_->a, impl_->Fhat_prev, impl_->Cvhat_prev, impl_->dq_prev};
}

void NonsmoothNewmark::restore_carried_state(const CarriedState& s) {
  const Index n = impl_->sys.dofs();
  for (const auto& [x, what] : {std::pair{&s.acceleration, "acceleration"},
                                std::pair{&s.weighted_external_force, "weighted external force"},
                                std::pair{&s.weighted_damping_force, "weighted damping force"},
                                std::pair{&s.last_increment, "last increment"}}) {
    if (x->size() != n)
      throw std::invalid_argument(std::string(kScheme) + ": restored " + what + " has " + std::to_string(x->size()) +
                                  " entries (expected one per velocity: " + std::to_string(n) + ")");
    if (!x->allFinite()) throw std::invalid_argument(std::string(kScheme) + ": restored " + what + " is not finite");
  }
  impl_->a = s.acceleration;
  impl_->Fhat_prev = s.weighted_external_force;
  impl_->Cvhat_prev = s.weighted_damping_force;
  impl_->dq_prev = s.last_increment;
}

NonsmoothNewmark::NonsmoothNewmark(Model& model, const NonsmoothNewmarkParameters& params)
    : impl_(new Impl(model, params)) {}
NonsmoothNewmark::~NonsmoothNewmark() { delete impl_; }
const StepReport& NonsmoothNewmark::step() { return impl_->step(); }
const StepReport& NonsmoothNewmark::last_report() const { return impl_->report; }
const NonsmoothNewmarkParameters& NonsmoothNewmark::parameters() const { return impl_->p; }
const Vector& NonsmoothNewmark::acceleration() const { return impl_->a; }

}  // namespace talus
