// Moreau–Jean θ-scheme and its two variants (seed 000 eqs 36–41 and 87; seed 001; seed 004 eq 31), as one
// scheme with three weights:
//
//   M_J (v_{k+1} − v_k) = h f̄ + Jᵀ P,    f̄ = θ_f f(t_{k+1}, q_{k+1}, v_{k+1}) + (1 − θ_f) f(t_k, q_k, v_k)
//   q_{k+1} = q_k + h [w v_{k+1} + (1 − w) v_k]      (rigid bodies: the exponential map, DofLayout.hpp)
//   U_{k+1} = J v_{k+1},  law(U_{k+1} + e U_k, P) on the active set            (OneStepSolve.hpp)
//
//   Standard     θ_f = θ, w = θ     eq 41a–e (M̂ = M + hθC + h²θ²K, eq 36)
//   Dissipative  θ_f = θ, w = ½     eq 87    (M̂ = M + hθC + ½h²θK)
//   Paoli        θ_f = 1, w = 0     seed 001: q_{i+1} = q_i + h u_i first; then M(u_{i+1} − u_i) = h f(t_{i+1},
//                q_{i+1}, u_{i+1}) + p with (u_{i+1} + e u_i)/(1+e) ∈ V(q_{i+1}): the one-step LCP with J, M and
//                the activation g ≤ 0 taken at q_{i+1}, which is the projection formula of the seed.
//
// M_J and J are evaluated at the linearisation point q_J = q_k (q_{k+1} for Paoli), as in the one-step
// summary after seed 000 eq 40 (H(q_k)); eq 41a's M(q_{k+θ}) coincides for constant mass matrices.
// Rheonomous rows (the joints' driver): U = J v + ∂g/∂t everywhere a constraint velocity is formed, so an
// equality row holds J v_{k+1} + ∂g/∂t = 0.
// Activation (eq 41e): interaction α enters the one-step problem when ḡ = g_k + γ h U_k ≤ 0 (Paoli:
// g(q_{k+1}) ≤ 0), equalities always; "≤ 0" is "≤ activation_tolerance" (MoreauJean.hpp) against round-off.
// Joints: after the step, the positions are projected onto the joints' g = 0 (engine/joints/JointProjection.hpp;
// MoreauJeanParameters::project_joints), which the energy balance below does not count.
// Rigid bodies: diagonal mass, the gyroscopic term −ω×Iω taken explicitly
// at ω_k (so f̄ is constant for them and no Newton iteration is needed).
// Nonlinear systems: Newton on the residual R(v) = M_J (v − v_k) − h f̄(v) − Jᵀ P with the iteration matrix
// M_J − hθ_f ∂f/∂v − h²θ_f w ∂f/∂q (finite differences when the Jacobian callbacks are empty); the one-step
// problem is re-solved at every Newton iteration with v_free = v − M̂⁻¹ R_free(v). LTI systems and rigid
// bodies are linear in v, so without nonlinear systems one iteration is exact.
//
// Energy (seed 000 eqs 83–88), with Δv = v_{k+1} − v_k, Δq = q_{k+1} − q_k = h v_w and a work velocity v_s
// (s = θ for Standard, ½ for Dissipative and Paoli), for LTI systems and rigid bodies exactly:
//   ΔE − h v_sᵀ F_{θ_f} = (½ − s)‖Δv‖²_M + h [v_wᵀ K q_{k+1/2} − v_sᵀ K q_{θ_f}] + h v_sᵀ G_k
//                         + (J v_s)ᵀ P − h v_sᵀ C v_{θ_f},
// G_k the explicit gyroscopic torque. For Standard this is eq 84 ((½ − θ)[‖Δv‖²_M + ‖Δq‖²_K] + U_{k+θ}ᵀ P),
// for Dissipative eq 88 ((½ − θ)‖Δq‖²_K + U_{k+1/2}ᵀ P). Nonlinear systems report h v_sᵀ f̄ + ΔV as external
// work (f minus its potential part, when a potential is given) and the balance holds only to O(h²) there.
#include "engine/MoreauJean.hpp"

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <variant>

#include "engine/ConstraintAssembly.hpp"
#include "engine/DiscreteEnergy.hpp"
#include "engine/Integrator.hpp"
#include "engine/BlockIterationMatrix.hpp"
#include "engine/OneStepSolve.hpp"
#include "engine/detection/SmallPathDetection.hpp"
#include "engine/joints/JointProjection.hpp"

namespace talus {

namespace {

struct SchemeWeights {
  double force;      // θ_f
  double position;   // w
  double work;       // s
  bool positions_first;
};

SchemeWeights scheme_weights(const MoreauJeanParameters& p) {
  switch (p.variant) {
    case MoreauJeanVariant::Standard: return {p.theta, p.theta, p.theta, false};
    case MoreauJeanVariant::Dissipative: return {p.theta, 0.5, 0.5, false};
    case MoreauJeanVariant::Paoli: return {1.0, 0.0, 0.5, true};
  }
  return {p.theta, p.theta, p.theta, false};
}

void check_parameters(const MoreauJeanParameters& p) {
  auto bad = [](const std::string& what) { throw std::invalid_argument("Moreau-Jean parameters: " + what); };
  if (!(p.h > 0.0) || !std::isfinite(p.h)) bad("h must be > 0 and finite");
  if (!(p.theta >= 0.0 && p.theta <= 1.0)) bad("theta must be in [0, 1]");
  if (!(p.gamma >= 0.0 && p.gamma <= 1.0)) bad("gamma must be in [0, 1]");
  if (!(p.activation_tolerance >= 0.0)) bad("activation_tolerance must be >= 0");
  if (!(p.solver_tolerance > 0.0)) bad("solver_tolerance must be > 0");
  if (p.solver_max_iterations < 1) bad("solver_max_iterations must be >= 1");
  if (!(p.newton_tolerance > 0.0)) bad("newton_tolerance must be > 0");
  if (p.newton_max_iterations < 1) bad("newton_max_iterations must be >= 1");
  if (!(p.joint_projection_tolerance > 0.0)) bad("joint_projection_tolerance must be > 0");
}

// Forces of one nonlinear system and their Jacobians (callbacks or forward differences).
struct NonlinearJacobians {
  Vector q, v, f, fp, qp;
  Matrix dfdq, dfdv, M, A;

  void compute(const LagrangianNonlinear& s, double t) {
    const Index n = s.n;
    dfdq.setZero(n, n);
    dfdv.setZero(n, n);
    if (!s.force_jacobian_q || !s.force_jacobian_v) {
      f.setZero(n);
      s.force(t, q, v, f);
    }
    if (s.force_jacobian_q) {
      s.force_jacobian_q(t, q, v, dfdq);
    } else {
      for (Index j = 0; j < n; ++j) {
        qp = q;
        const double eps = 1.4901161193847656e-08 * std::max(1.0, std::abs(q[j]));
        qp[j] += eps;
        fp.setZero(n);
        s.force(t, qp, v, fp);
        dfdq.col(j) = (fp - f) / eps;
      }
    }
    if (s.force_jacobian_v) {
      s.force_jacobian_v(t, q, v, dfdv);
    } else {
      for (Index j = 0; j < n; ++j) {
        qp = v;
        const double eps = 1.4901161193847656e-08 * std::max(1.0, std::abs(v[j]));
        qp[j] += eps;
        fp.setZero(n);
        s.force(t, q, qp, fp);
        dfdv.col(j) = (fp - f) / eps;
      }
    }
  }
};

}  // namespace

struct MoreauJean::Impl {
  Model& model;
  MoreauJeanParameters p;
  SchemeWeights wt;
  StepReport report;

  std::vector<Index> signature, sig;  // system sizes of the last validated model, and of the current one
  Index validated_interactions = -1;
  DofLayout layout;
  BlockIterationMatrix Mhat;
  SparseMatrix M_J, K, C;
  Index lin = 0;  // LTI + nonlinear velocities (the rigid bodies follow)

  std::vector<int> everything, joints;
  JointProjectionWorkspace projection;
  SmallPathDetection detection;
  std::vector<Index> active_positions;
  ConstraintRows all, active;
  SparseMatrix W;
  OneStepWorkspace ws;
  NonlinearJacobians nj;
  bool keep_problem = false;                 // keep_next_problem(): this step keeps its problem …
  std::optional<solvers::FrictionContactProblem> kept;  // … here, when it is a friction-contact problem

  Vector q0, v0, q1, v, vw, f0, f1, fbar, R, vfree, U_all, U_k, Jv_free, P, jtp, pgen, residual, g1;
  Vector dv, vs, vtf, q_half, q_tf, F0, F1;  // energy terms

  Impl(Model& m, const MoreauJeanParameters& params) : model(m), p(params), wt(scheme_weights(params)) {
    check_parameters(p);
    report.time = model.time;
  }

  // The step's one-step problem, when it was a pure friction-contact one (solve_one_step filled ws.fc for it).
  void keep_one_step_problem() {
    bool friction = false, equality = false;
    for (int a : active.interactions) {
      friction = friction || std::holds_alternative<NewtonImpactFrictionLaw>(model.interactions[a].law);
      equality = equality || std::holds_alternative<EqualityLaw>(model.interactions[a].law);
    }
    if (friction && !equality) kept = ws.fc;
  }

  std::string context() const { return step_context("Moreau-Jean", report.step + 1, model.time, model.time + p.h); }

  // Re-validates when systems or interactions were added or removed; re-factorises only for systems.
  void prepare() {
    sig.assign({static_cast<Index>(model.lti.size()), static_cast<Index>(model.nonlinear.size()),
                model.bodies.count()});
    for (const auto& s : model.lti) sig.push_back(s.dofs());
    for (const auto& s : model.nonlinear) sig.push_back(s.dofs());
    const Index n_interactions = static_cast<Index>(model.interactions.size());
    if (sig == signature && n_interactions == validated_interactions) return;
    model.validate();
    validated_interactions = n_interactions;
    everything = all_interactions(model);
    joints.clear();
    for (int i : everything)
      if (std::holds_alternative<JointRelation>(model.interactions[i].relation)) joints.push_back(i);
    if (sig == signature) return;
    signature = sig;
    layout = make_dof_layout(model);
    lin = layout.rigid_vel_offset;
    Mhat.reset(model, layout);
    K = global_stiffness(model, layout);
    C = global_damping(model, layout);
    if (model.nonlinear.empty()) {
      gather_coordinates(model, layout, q0);
      M_J = global_mass(model, layout, q0);
    }
  }

  // Sets the nonlinear blocks of M̂ at (t, q1, v) and returns nothing; M_J holds M(q_J).
  void set_nonlinear_blocks(double t) {
    const double h = p.h;
    for (size_t i = 0; i < model.nonlinear.size(); ++i) {
      const LagrangianNonlinear& s = model.nonlinear[i];
      const Index o = layout.nonlinear_offset[i];
      nj.q = q1.segment(o, s.n);
      nj.v = v.segment(o, s.n);
      nj.compute(s, t);
      nj.A = Matrix(M_J.block(o, o, s.n, s.n)) - h * wt.force * nj.dfdv - h * h * wt.force * wt.position * nj.dfdq;
      Mhat.set_nonlinear(static_cast<Index>(i), nj.A);
    }
  }

  void choose_active_set(const Vector& qJ, double tJ) {
    assemble_constraints(model, layout, qJ, everything, all, tJ);
    U_all = all.J * v0 + all.rate;
    active_positions.clear();
    for (size_t i = 0; i < all.interactions.size(); ++i) {
      const Interaction& in = model.interactions[all.interactions[i]];
      const Index r0 = all.row_offset[i];
      const double forecast = wt.positions_first ? all.gap[r0] : all.gap[r0] + p.gamma * p.h * U_all[r0];
      if (std::holds_alternative<EqualityLaw>(in.law) || forecast <= p.activation_tolerance)
        active_positions.push_back(static_cast<Index>(i));
    }
    select_interactions(all, active_positions, active);
    U_k = active.J * v0 + active.rate;
  }

  double nonlinear_residual_scale() const {
    double s = 1.0;
    if (lin > 0) s += (M_J.topRows(lin) * (v - v0)).norm() + p.h * fbar.head(lin).norm();
    return s;
  }

  const StepReport& step() {
    StageTimer stages(report.phase_seconds, report.phase_cpu_seconds);
    // Detected contacts come and go between steps; prepare() re-validates when their number changes, and the
    // rows are re-assembled from the list every step anyway. Persisting pairs keep their impulses (warm start).
    detect_contacts(model, detection, p.h);
    stages.stamp(Phase::Broad);
    prepare();
    const double h = p.h, t0 = model.time, t1 = t0 + h;
    gather_coordinates(model, layout, q0);
    gather_velocities(model, layout, v0);
    if (wt.positions_first) advance_coordinates(layout, q0, v0, h, q1);
    const Vector& qJ = wt.positions_first ? q1 : q0;
    if (!model.nonlinear.empty()) M_J = global_mass(model, layout, qJ);
    Mhat.set_lti(model, h * wt.force, h * h * wt.force * wt.position);
    stages.stamp(Phase::Assembly);
    choose_active_set(qJ, wt.positions_first ? t1 : t0);
    stages.stamp(Phase::Narrow);
    smooth_force(model, layout, t0, q0, v0, f0);

    OneStepSolveSettings settings;
    settings.kind = p.solver;
    settings.tolerance = p.solver_tolerance;
    settings.max_iterations = p.solver_max_iterations;
    settings.scheme = "Moreau-Jean";
    settings.step = report.step + 1;
    settings.time = t0;
    settings.h = h;
    settings.on_failure = p.on_failure;

    const bool newton = !model.nonlinear.empty();
    const Index n_rigid = 6 * layout.bodies;
    v = v0;
    P.setZero(active.rows());
    jtp.setZero(layout.n_vels);
    solvers::SolverStats stats;
    stats.status = solvers::SolverStatus::Converged;
    int iterations = 0;
    bool converged = !newton;
    for (;;) {
      if (!wt.positions_first) {
        vw = wt.position * v + (1.0 - wt.position) * v0;
        advance_coordinates(layout, q0, vw, h, q1);
      }
      smooth_force(model, layout, t1, q1, v, f1);
      fbar = wt.force * f1 + (1.0 - wt.force) * f0;
      fbar.tail(n_rigid) = f0.tail(n_rigid);
      R = M_J * (v - v0) - h * fbar;
      if (iterations > 0) {
        residual = R.head(lin) - jtp.head(lin);  // the Newton residual R − Jᵀ P of the nonlinear systems
        if (residual.norm() <= p.newton_tolerance * nonlinear_residual_scale()) {
          converged = true;
          break;
        }
        if (iterations >= p.newton_max_iterations) break;
      }
      if (newton) set_nonlinear_blocks(t1);
      vfree = R;
      Mhat.solve_in_place(vfree);
      vfree = v - vfree;
      if (active.rows() > 0) {
        if (iterations == 0 || newton) Mhat.delassus(active.J, W);
        // U_{k+1} = J v_{k+1} + ∂g/∂t: the driver's ∂g/∂t (constant in t) joins the free constraint velocity.
        Jv_free = active.J * vfree + active.rate;
        stages.stamp(Phase::Assembly);
        stats = solve_one_step(model, active, W, Jv_free, U_k, settings, ws, P);
        if (keep_problem) keep_one_step_problem();
        jtp = active.J.transpose() * P;
        pgen = jtp;
        Mhat.solve_in_place(pgen);
        v = vfree + pgen;
        stages.stamp(Phase::Solve);
      } else {
        v = vfree;
        stages.stamp(Phase::Assembly);
      }
      ++iterations;
      if (!newton) break;
    }
    // Every failure below is checked before the model is written: RollBack leaves it as it was.
    report.solver = stats;
    if (!converged) {
      std::ostringstream os;
      os << context() << ": Newton iterations on the nonlinear systems did not converge in " << iterations
         << " iterations (residual " << residual.norm() << ", tolerance " << p.newton_tolerance << " x "
         << nonlinear_residual_scale() << ")";
      step_failed(p.on_failure, report, solvers::SolverStatus::MaxIterations, os.str());
    }
    if (!wt.positions_first) {
      vw = wt.position * v + (1.0 - wt.position) * v0;
      advance_coordinates(layout, q0, vw, h, q1);
    }
    if (p.project_joints && !joints.empty() && q1.allFinite() &&
        project_onto_joints(model, layout, joints, t1, p.joint_projection_tolerance, 20, q1, projection) < 0) {
      std::ostringstream os;
      os << context() << ": the projection onto the joints did not reach |g| <= " << p.joint_projection_tolerance
         << " in 20 Newton iterations (max |g| " << projection.rows.gap.cwiseAbs().maxCoeff() << "; joints "
         << interaction_names(model, joints) << ")";
      step_failed(p.on_failure, report, solvers::SolverStatus::MaxIterations, os.str());
    }
    if (!v.allFinite() || !q1.allFinite())
      step_failed(p.on_failure, report, solvers::SolverStatus::Diverged,
                  context() + ": the new state is not finite (NaN/Inf) in " + non_finite_dof(model, layout, q1, v));

    fill_energy(t0, t1);
    scatter_state(layout, q1, v, model);  // q1 first: ω_world = R(q1) ω_body (DofLayout.hpp)
    model.time = t1;
    store_interactions();

    report.time = t1;
    ++report.step;
    report.h = h;
    keep_problem = false;

    report.active = static_cast<int>(active.interactions.size());
    report.newton_iterations = iterations;
    stages.stamp(Phase::Integration);
    return report;
  }

  void fill_energy(double t0, double t1) {
    const double h = p.h, s = wt.work, w = wt.position, tf = wt.force;
    EnergyReport& e = report.energy;
    dv = v - v0;
    vs = s * v + (1.0 - s) * v0;
    vtf = tf * v + (1.0 - tf) * v0;
    // Coordinates of the linear part (LTI and nonlinear share offsets with the velocities), zero elsewhere.
    q_half.setZero(layout.n_vels);
    q_tf.setZero(layout.n_vels);
    q_half.head(lin) = 0.5 * (q0.head(lin) + q1.head(lin));
    q_tf.head(lin) = tf * q1.head(lin) + (1.0 - tf) * q0.head(lin);
    vw = w * v + (1.0 - w) * v0;

    double dissipation = (0.5 - s) * dv.dot(M_J * dv);
    if (K.nonZeros()) dissipation += h * (vw.dot(K * q_half) - vs.dot(K * q_tf));
    double external = 0.0;
    for (size_t i = 0; i < model.lti.size(); ++i) {
      const LagrangianLti& sys = model.lti[i];
      sys.external_force(t1, F1);
      sys.external_force(t0, F0);
      external += h * vs.segment(layout.lti_offset[i], sys.dofs()).dot(tf * F1 + (1.0 - tf) * F0);
    }
    for (size_t i = 0; i < model.nonlinear.size(); ++i) {
      const LagrangianNonlinear& sys = model.nonlinear[i];
      const Index o = layout.nonlinear_offset[i];
      external += h * vs.segment(o, sys.n).dot(fbar.segment(o, sys.n));
      if (sys.potential) external += sys.potential(q1.segment(o, sys.n)) - sys.potential(q0.segment(o, sys.n));
    }
    const RigidBodies& b = model.bodies;
    for (Index k = 0; k < layout.bodies; ++k) {
      if (b.inv_mass[k] == 0.0) continue;
      const Index o = layout.rigid_vel_offset + 6 * k;
      // f̄ of a rigid body is f0 (taken at q_k): its torque is the world torque in the body frame of q_k.
      const Eigen::Vector3d torque = body_torque(model, layout, q0, k);
      external += h * vs.segment<3>(o).dot(b.force_of(static_cast<int>(k)) + b.mass[k] * model.gravity);
      external += h * vs.segment<3>(o + 3).dot(torque);
      dissipation += h * vs.segment<3>(o + 3).dot(f0.segment<3>(o + 3) - torque);
    }
    e.external_work = external;
    e.numerical_dissipation = dissipation;
    e.damping_work = C.nonZeros() ? -h * vs.dot(C * vtf) : 0.0;
    e.contact_work = active.rows() ? (active.J * vs).dot(P) : 0.0;
    e.kinetic = kinetic_energy(model, layout, q1, v);
    e.potential = potential_energy(model, layout, q1);
  }

  void store_interactions() {
    U_all = all.J * v + all.rate;
    evaluate_normal_gaps(model, layout, q1, everything, g1, model.time);
    size_t a = 0;
    for (size_t i = 0; i < all.interactions.size(); ++i) {
      Interaction& in = model.interactions[all.interactions[i]];
      const Index r0 = all.row_offset[i], nr = all.row_offset[i + 1] - r0;
      in.gap.setZero(nr);
      in.gap[0] = g1[static_cast<Index>(i)];
      in.velocity = U_all.segment(r0, nr);
      if (a < active_positions.size() && active_positions[a] == static_cast<Index>(i)) {
        in.impulse = P.segment(active.row_offset[a], nr);
        ++a;
      } else {
        in.impulse.setZero(nr);
      }
    }
  }
};

MoreauJean::MoreauJean(Model& model, const MoreauJeanParameters& params) : impl_(new Impl(model, params)) {}
MoreauJean::~MoreauJean() { delete impl_; }
const StepReport& MoreauJean::step() { return impl_->step(); }
const StepReport& MoreauJean::last_report() const { return impl_->report; }
const MoreauJeanParameters& MoreauJean::parameters() const { return impl_->p; }
void MoreauJean::keep_next_problem() {
  impl_->keep_problem = true;
  impl_->kept.reset();
}
const solvers::FrictionContactProblem* MoreauJean::kept_problem() const {
  return impl_->kept ? &*impl_->kept : nullptr;
}
void MoreauJean::set_step_size(double h) {
  if (!(h > 0.0) || !std::isfinite(h))
    throw std::invalid_argument("Moreau-Jean: the step size h must be > 0 and finite");
  impl_->p.h = h;
}

const char* to_string(MoreauJeanVariant v) {
  switch (v) {
    case MoreauJeanVariant::Standard: return "standard";
    case MoreauJeanVariant::Dissipative: return "dissipative";
    case MoreauJeanVariant::Paoli: return "paoli";
  }
  return "unknown";
}

const char* to_string(OneStepSolverKind s) {
  switch (s) {
    case OneStepSolverKind::Lemke: return "lemke";
    case OneStepSolverKind::Psor: return "psor";
    case OneStepSolverKind::Nsgs: return "nsgs";
  }
  return "unknown";
}

}  // namespace talus
