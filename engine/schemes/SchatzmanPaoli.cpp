// Schatzman–Paoli two-step position scheme (seed 000 eqs 42–43; seed 004 eqs 32–33); see the header.
#include "engine/schemes/SchatzmanPaoli.hpp"

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

constexpr const char* kScheme = "Schatzman–Paoli";

void validate(const SchatzmanPaoliParameters& p) {
  auto fail = [](const std::string& what) { throw std::invalid_argument(std::string(kScheme) + ": " + what); };
  if (!(p.h > 0.0 && std::isfinite(p.h))) fail("time step h must be > 0");
  if (!(p.theta >= 0.0 && p.theta <= 0.5)) fail("theta must be in [0, 1/2]");
  if (!(p.newton_tolerance > 0.0) || p.newton_max_iterations < 1) fail("Newton tolerance and iterations must be > 0");
}

}  // namespace

struct SchatzmanPaoli::Impl {
  SecondOrderSystem sys;
  SchatzmanPaoliParameters p;
  StepReport report;

  double t = 0.0;
  long steps = 0;
  Vector q_prev, q, v;      // q_{k−1}, q_k, v_k
  Vector F_prev, F_now;     // LTI external force at t_{k−1}, t_k
  double energy_prev = 0.0; // E_{k−1/2}

  SparseMatrix M;
  IterationMatrix S_factor;
  bool factors_constant = false;

  ConstraintRows rows, one;
  std::vector<Triplet> jt;
  SparseMatrix J_all;
  std::vector<int> single{0};
  // Positions are advanced by increments in velocity coordinates, q_{k+1} = q_k ∘ exp(Δ_{k+1}) (q_k + Δ_{k+1}
  // without rigid bodies), Δ_k = q_k ⊖ q_{k−1}: the scheme's q_{k+1} − 2q_k + q_{k−1} is Δ_{k+1} − Δ_k, which is
  // what quaternion coordinates need. The state stays (q_{k−1}, q_k) in coordinates (restart archives).
  Vector vhalf, F_next, Fth, fnl, ext_nl, rhs, q_free, qk, qhat, g_lin, scale, z, w, q_new, v_new, impulse, tmpv;
  Vector dk, d_new, dhat, span, Kq, Kq_prev, coords, v_force;
  // v_k is the state's own velocity (the start, not yet a step's (q_{k+1} − q_{k−1})/(2h), centred one step back).
  bool velocity_is_current = true;
  SmallPathDetection detection;
  Matrix Jt, R, A;
  solvers::LcpProblem problem;
  solvers::LcpWorkspace lcp_workspace;

  Impl(Model& model, const SchatzmanPaoliParameters& params)
      : sys(model, FrictionSupport::None, BodySupport::LieGroup), p(params) {
    validate(p);
    sys.gather(q, v);
    t = model.time;
    sys.mass(q, M);
    IterationMatrix mass_factor;
    mass_factor.factorize(M, true, std::string(kScheme) + " mass matrix");
    Vector f0, a0;
    sys.force(t, q, v, f0);
    mass_factor.solve(f0, a0);
    sys.retract(q, (-p.h) * v + (0.5 * p.h * p.h) * a0, q_prev);
    sys.lti_external_force(t - p.h, F_prev);
    sys.lti_external_force(t, F_now);
    sys.difference(q, q_prev, dk);
    energy_prev = half_step_energy(q, q_prev, dk);
  }

  // E_{k+1/2} of the header, for (q_{k+1}, q_k) = (a, b) and their increment d_ab = a ⊖ b.
  double half_step_energy(const Vector& qa, const Vector& qb, const Vector& d_ab) const {
    const Vector d = d_ab / p.h;
    double e = 0.5 * d.dot(M * d);
    const SparseMatrix& K = sys.stiffness();
    if (K.nonZeros()) {
      const double th = p.theta;
      // K lives on the LTI block, where coordinates and velocities share offsets.
      const Index lin = sys.layout().rigid_coord_offset;
      Vector ka, kb;
      sys.stiffness_times(qa, ka);
      sys.stiffness_times(qb, kb);
      const double aa = qa.head(lin).dot(ka.head(lin)), bb = qb.head(lin).dot(kb.head(lin)),
                   ab = qa.head(lin).dot(kb.head(lin));
      e += 0.5 * (th * (aa + bb) + (1.0 - 2.0 * th) * ab);
      // potential_energy() includes ½qᵀKq; the nonlinear potentials are averaged over the two positions.
      e += 0.5 * (sys.potential_energy(qa) + sys.potential_energy(qb)) - 0.25 * (aa + bb);
    } else {
      e += 0.5 * (sys.potential_energy(qa) + sys.potential_energy(qb));
    }
    return e;
  }

  void update_matrices() {
    if (factors_constant) return;
    const double h = p.h;
    sys.mass(q, M);
    SparseMatrix S = M;
    if (sys.stiffness().nonZeros()) S += (h * h * p.theta) * sys.stiffness();
    if (sys.damping().nonZeros()) S += (0.5 * h) * sys.damping();
    S_factor.factorize(S, true, std::string(kScheme) + " iteration matrix M + h²θK + (h/2)C");
    factors_constant = sys.linear_dynamics();
  }

  // Gaps and Jacobian rows at the iterate Δ_it: bilateral rows at q_k ∘ exp(Δ_it), unilateral row j at its
  // weighted position q̂ = (q_{k+1} + e q_{k−1})/(1 + e) = q_k ∘ exp((Δ_it − e Δ_k)/(1 + e)).
  void linearise(const Vector& dit) {
    const Index mB = sys.bilateral_rows(), mU = Index(sys.unilateral().size()), n = sys.dofs();
    g_lin.resize(mB + mU);
    jt.clear();
    if (mB) {
      sys.retract(q, dit, coords);
      sys.constraints(coords, sys.model().time + p.h, rows, true);
      g_lin.head(mB) = rows.gap;
      for (Index r = 0; r < mB; ++r)
        for (SparseMatrix::InnerIterator it(rows.J, r); it; ++it) jt.emplace_back(int(r), int(it.col()), it.value());
    }
    for (Index j = 0; j < mU; ++j) {
      const double e = sys.restitution(j);
      dhat = (dit - e * dk) / (1.0 + e);
      sys.retract(q, dhat, qhat);
      single[0] = sys.unilateral()[j];
      assemble_constraints(sys.model(), sys.layout(), qhat, single, one, sys.model().time + p.h);
      g_lin[mB + j] = one.gap[0];
      for (SparseMatrix::InnerIterator it(one.J, 0); it; ++it) jt.emplace_back(int(mB + j), int(it.col()), it.value());
    }
    J_all.resize(mB + mU, n);
    J_all.setFromTriplets(jt.begin(), jt.end());
  }

  const StepReport& step() {
    const double h = p.h, th = p.theta, t1 = t + h;
    report = StepReport{};
    StageTimer stages(report.phase_seconds, report.phase_cpu_seconds);
    report.time = t1;
    report.h = h;
    if (detect_contacts(sys.model(), detection, h)) sys.classify_interactions();
    stages.stamp(Phase::Broad);
    update_matrices();

    // S Δ_{k+1} = M Δ_k + h² (F_{k+θ} + f) − h² K((1 − θ) q_k + θ q_{k−1}) − (h/2) C Δ_k + h Jᵀ Λ: the header's
    // equation with q_{k+1} = q_k + Δ_{k+1} (S = M + h²θK + (h/2)C).
    sys.difference(q, q_prev, dk);
    vhalf = dk / h;
    sys.lti_external_force(t1, F_next);
    Fth = th * F_next + (1.0 - 2.0 * th) * F_now + th * F_prev;
    // The rigid bodies' gyroscopic term −ω × Iω at t_k: ω_k extrapolated from ω_{k−½} = Δ_k/h and the last
    // step's ω centred at t_{k−1}, 2 ω_{k−½} − ω_{k−1} (second order; the nonlinear systems take ω_{k−½}).
    v_force = vhalf;
    const DofLayout& l = sys.layout();
    for (Index b = 0; b < l.bodies; ++b) {
      const Index o = l.rigid_vel_offset + 6 * b;
      if (velocity_is_current)
        v_force.segment<6>(o) = v.segment<6>(o);
      else
        v_force.segment<6>(o) = 2.0 * vhalf.segment<6>(o) - v.segment<6>(o);
    }
    sys.nonlinear_force(t, q, v_force, fnl);
    rhs = M * dk + (h * h) * (Fth + fnl);
    if (sys.stiffness().nonZeros()) {
      sys.stiffness_times(q, Kq);
      sys.stiffness_times(q_prev, Kq_prev);
      rhs.noalias() -= (h * h) * ((1.0 - th) * Kq + th * Kq_prev);
    }
    if (sys.damping().nonZeros()) rhs.noalias() -= (0.5 * h) * (sys.damping() * dk);
    S_factor.solve(rhs, q_free);  // Δ_free

    const Index mB = sys.bilateral_rows(), mU = Index(sys.unilateral().size()), m = mB + mU;
    scale.resize(m);
    for (Index i = 0; i < m; ++i) scale[i] = i < mB ? 1.0 : 1.0 / (1.0 + sys.restitution(i - mB));

    qk = q_free;
    int it = 0;
    bool newton_failed = false;
    stages.stamp(Phase::Narrow);  // the activation forecast: which contacts enter the step
    for (;; ++it) {
      if (it >= p.newton_max_iterations) {
        step_failed(p.on_failure, report, solvers::SolverStatus::MaxIterations,
                    step_context(kScheme, steps + 1, t, t1) + ": Newton did not converge in " +
                        std::to_string(p.newton_max_iterations) + " iterations");
        newton_failed = true;  // Keep: the last iterate is the step
        break;
      }
      linearise(qk);
      // Δ_{k+1} = Δ_free + h S⁻¹ Jᵀ Λ; row i of the MLCP: g_i + s_i J_i (Δ_{k+1} − Δ_it), s = 1/(1 + e) on
      // unilateral rows because q̂ moves by (Δ_{k+1} − Δ_it)/(1 + e).
      Jt = J_all.transpose();
      S_factor.solve(Jt, R);
      R *= h;
      A = scale.asDiagonal() * (J_all * R);
      tmpv = q_free - qk;
      problem.q = g_lin;
      problem.q.head(mB) += J_all.topRows(mB) * tmpv;
      problem.q.tail(mU) += scale.tail(mU).asDiagonal() * (J_all.bottomRows(mU) * tmpv);
      problem.M = A.sparseView();
      problem.n_equality = int(mB);
      stages.stamp(Phase::Assembly);
      if (!solve_step_mlcp(problem, p.lcp, lcp_workspace, z, w, report)) {
        std::vector<int> ids = sys.bilateral();
        ids.insert(ids.end(), sys.unilateral().begin(), sys.unilateral().end());
        solve_failed(p.on_failure, report.solver,
                     step_context(kScheme, steps + 1, t, t1) + ": " + unsolved_mlcp(problem, report.solver) +
                         "; interactions " + interaction_names(sys.model(), ids));
      }
      stages.stamp(Phase::Solve);
      q_new = q_free;
      if (m) q_new.noalias() += R * z;
      if (sys.linear_relations()) break;
      const double change = increment_measure(qk, q_new, qk, q_new);
      qk = q_new;
      if (change <= p.newton_tolerance) break;
    }
    report.newton_iterations = newton_failed ? it : it + 1;
    d_new.swap(q_new);  // the iterates are increments: Δ_{k+1}
    span = d_new + dk;  // q_{k+1} ⊖ q_{k−1} through q_k
    v_new = span / (2.0 * h);
    sys.retract(q, d_new, q_new);
    if (!q_new.allFinite() || !v_new.allFinite())
      step_failed(p.on_failure, report, solvers::SolverStatus::Diverged,
                  step_context(kScheme, steps + 1, t, t1) + ": the new state is not finite (NaN/Inf) in " +
                      non_finite_dof(sys.model(), sys.layout(), q_new, v_new));

    // Energy at t_{k+1/2} and the supplies of the header (the impulse directions are those applied, J_all).
    EnergyReport& e = report.energy;
    const double energy = half_step_energy(q_new, q, d_new);
    const Vector d = d_new / h;
    e.kinetic = 0.5 * d.dot(M * d);
    e.potential = energy - e.kinetic;
    sys.external_force(t, q, vhalf, ext_nl);
    sys.lti_external_force(t, tmpv);
    ext_nl -= tmpv;  // nonlinear rows only
    e.external_work = 0.5 * span.dot(Fth + ext_nl);
    e.damping_work = sys.damping().nonZeros() ? -span.dot(sys.damping() * span) / (4.0 * h) : 0.0;
    e.contact_work = m ? (J_all * v_new).dot(z) : 0.0;
    e.numerical_dissipation = energy - energy_prev - e.external_work - e.damping_work - e.contact_work;
    report.active = 0;
    for (Index i = 0; i < z.size(); ++i)
      if (i < mB || z[i] > 0.0) ++report.active;

    sys.constraints(q_new, t1, rows);
    impulse = m ? Vector(z) : Vector::Zero(0);
    sys.store_interaction_outputs(rows, v_new, impulse);
    q_prev.swap(q);
    q.swap(q_new);
    v.swap(v_new);
    F_prev.swap(F_now);
    F_now.swap(F_next);
    energy_prev = energy;
    velocity_is_current = false;
    t = t1;
    report.step = ++steps;
    sys.scatter(q, v);
    sys.model().time = t;
    stages.stamp(Phase::Integration);
    return report;
  }
};

SchatzmanPaoli::SchatzmanPaoli(Model& model, const SchatzmanPaoliParameters& params) : impl_(new Impl(model, params)) {}
SchatzmanPaoli::~SchatzmanPaoli() { delete impl_; }
const StepReport& SchatzmanPaoli::step() { return impl_->step(); }
const StepReport& SchatzmanPaoli::last_report() const { return impl_->report; }
const SchatzmanPaoliParameters& SchatzmanPaoli::parameters() const { return impl_->p; }
const Vector& SchatzmanPaoli::previous_position() const { return impl_->q_prev; }
const Vector& SchatzmanPaoli::previous_external_force() const { return impl_->F_prev; }

void SchatzmanPaoli::restore_previous(const Vector& q_prev, const Vector& F_prev) {
  Impl& s = *impl_;
  const auto check = [](const Vector& x, Index n, const char* what) {
    if (x.size() != n)
      throw std::invalid_argument(std::string(kScheme) + ": restored " + what + " has " + std::to_string(x.size()) +
                                  " entries (expected " + std::to_string(n) + ")");
    if (!x.allFinite()) throw std::invalid_argument(std::string(kScheme) + ": restored " + what + " is not finite");
  };
  check(q_prev, s.q.size(), "previous position");
  check(F_prev, s.F_prev.size(), "previous external force");
  s.q_prev = q_prev;
  s.F_prev = F_prev;
  s.sys.difference(s.q, s.q_prev, s.dk);
  s.energy_prev = s.half_step_energy(s.q, s.q_prev, s.dk);
  s.velocity_is_current = false;  // the archived v is a step's centred one
}

}  // namespace talus
