// Nonsmooth generalized-α scheme with position correction (seed 004 eqs 34–42); the derivation of the one-step
// MLCP is in the header and in docs/schemes.md.
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/Integrator.hpp"
#include "engine/detection/SmallPathDetection.hpp"
#include "engine/schemes/BlockInverse.hpp"
#include "engine/schemes/IterationMatrix.hpp"
#include "engine/schemes/SecondOrderSystem.hpp"
#include "engine/schemes/StepKernels.hpp"
#include "solvers/core/NumberText.hpp"
#include "solvers/fc/MixedNsgs.hpp"

namespace talus {

namespace {

constexpr const char* kScheme = "nonsmooth generalized-α";

// One unknown of the friction-contact form of the step's problem (solve_with_friction) and the law of its row:
// that problem's W is square, row i holding the relation that unknown i is complementary to.
struct Unknown {
  enum Kind : unsigned char {
    Padding,          // a frictionless contact's tangential slot: unit diagonal, q = 0, so its reaction is 0
    Smooth,           // λ̃ on a bilateral row: J_B ṽ_{n+1} + ∂g/∂t = 0
    Position,         // ν on a bilateral or normal row: g(q_{n+1}) = 0, or 0 ≤ g(q_{n+1}) ⟂ ν_N ≥ 0
    PositionTangent,  // ν_T: Coulomb on the step's tangential displacement d_T = J_T(q_{n+½})(q_{n+1} − q_n)
    Velocity          // Λ: J_B v + ∂g/∂t = 0, or Coulomb + Newton on U = J v_{n+1} (+ e U_n on the normal)
  };
  Kind kind;
  Index row;      // constraint row (rows.J); −1 for padding
  double offset;  // added to the row's q: e J_N(q_n) v_n on a normal velocity row, 0 otherwise
};

void validate(const NonsmoothGeneralizedAlphaParameters& p) {
  const GeneralizedAlphaCoefficients& c = p.coefficients;
  auto fail = [](const std::string& what) { throw std::invalid_argument(std::string(kScheme) + ": " + what); };
  if (!(p.h > 0.0 && std::isfinite(p.h))) fail("time step h must be > 0");
  if (!(c.alpha_m < 1.0 && c.alpha_f < 1.0)) fail("alpha_m and alpha_f must be < 1");
  if (!(c.gamma > 0.0 && c.beta > 0.0)) fail("gamma and beta must be > 0 (implicit scheme)");
  if (!(p.newton_tolerance > 0.0) || p.newton_max_iterations < 1) fail("Newton tolerance and iterations must be > 0");
}

}  // namespace

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
  SparseMatrix J_B, J_U, J_A;
  std::vector<Index> active_rows, b_rows, u_rows, t_rows;
  Vector origin, qc, qc_mid;  // the origin of the position unknowns, and coordinates from at()
  Vector astar, qbase, vbase, qk, vk, q_mid, f, r, d0, q0, v0, gpred, gU, z, w, vdot_new, q_new, v_new, v_sum, impulse,
      F_new;
  Matrix Jt, MinvJt, U_cols, W_cols, tmp, D_nu, D_la, D_lam, R_d, R_q, R_v, A;
  solvers::LcpProblem problem;
  solvers::LcpWorkspace lcp_workspace;
  solvers::DualActiveSetWorkspace active_set_workspace;
  // The friction-contact form of the step's problem (solve_with_friction): what each unknown is, and buffers.
  std::vector<Unknown> unknowns;
  std::vector<char> forecast;  // per unilateral interaction: in this step's forecast set
  std::vector<Index> velocity_contacts;
  bool midpoint_slip = false;  // d_T's rows at q_{n+½} (see step())  // the forecast set, the velocity contacts' interactions
  Matrix L_cols, P_cols, V_cols;
  // The friction path's responses as sparse matrices (BlockInverse.hpp), used when S and M split into blocks of
  // at most kMaxInverseBlock velocities (rigid bodies, FE beams): the dense responses above are n × rows.
  static constexpr Index kMaxInverseBlock = 512;
  // Entries of one dense response (velocities × unknowns of the Lemke form) above which a scene with friction
  // leaves that form: 8 MB per matrix, and the form holds about ten of them.
  static constexpr double kLargeResponses = 1e6;
  SparseMatrix S_matrix, S_inverse, M_inverse;
  bool inverses_current = false, sparse_responses = false;
  SparseMatrixCol Jt_s, MinvJt_s;  // by columns: the assembly reads one row's column
  SparseMatrix L_s, P_s, V_s, tmp_s, Rs_d, Rs_q, Rs_v, sel_d, sel_q, sel_v, A_s;
  std::vector<Triplet> triplets_l, triplets_p, triplets_v, triplets_d, triplets_q, triplets_sel_v, padding;
  Vector dq_iterate, dq_origin;
  solvers::MixedFrictionContactProblem fc;
  Vector fc_r, fc_u;
  SmallPathDetection detection;

  Impl(Model& model, const NonsmoothGeneralizedAlphaParameters& params)
      : sys(model, FrictionSupport::Coulomb, BodySupport::LieGroup), p(params) {
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
    // Normal row of each unilateral interaction, and its first tangent row when it has friction (μ > 0), else −1
    // (the dim − 1 tangent rows follow the normal one).
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
    S_matrix = std::move(S);
    inverses_current = false;
    factors_constant = lti;
  }

  // The unknowns of the friction-contact form, in W's order: the equality blocks first (λ̃, then ν_B, then Λ_B,
  // one block per bilateral interaction and kind), then one position contact per unilateral interaction
  // (ν_N, ν_T; the tangential slots padded where the contact is not in the forecast set or has no friction, as
  // the Lemke form has ν_T only there), then one velocity contact per forecast contact (Λ_N, Λ_T).
  void index_unknowns(const std::vector<Index>& active) {
    const int D = sys.friction_dim();
    const Index nb = Index(sys.bilateral().size()), mU = Index(sys.unilateral().size()), mA = Index(active.size());
    unknowns.clear();
    fc.equality_start.assign(1, 0);
    for (Unknown::Kind kind : {Unknown::Smooth, Unknown::Position, Unknown::Velocity})
      for (Index b = 0; b < nb; ++b) {
        for (Index r = rows.row_offset[b]; r < rows.row_offset[b + 1]; ++r) unknowns.push_back({kind, r, 0.0});
        fc.equality_start.push_back(Index(unknowns.size()));
      }
    if (nb == 0) fc.equality_start.clear();
    fc.dim = D;
    fc.mu.setZero(mU + mA);
    velocity_contacts = active;
    forecast.assign(mU, 0);
    for (Index j : active) forecast[j] = 1;
    for (Index j = 0; j < mU; ++j) {
      const bool rubbing = forecast[j] && t_rows[j] >= 0;
      unknowns.push_back({Unknown::Position, u_rows[j], 0.0});
      for (int k = 1; k < D; ++k)
        unknowns.push_back(rubbing ? Unknown{Unknown::PositionTangent, t_rows[j] + k - 1, 0.0}
                                   : Unknown{Unknown::Padding, -1, 0.0});
      if (rubbing) fc.mu[j] = sys.friction(j);
    }
    for (Index i = 0; i < mA; ++i) {
      const Index j = active[i];
      unknowns.push_back({Unknown::Velocity, u_rows[j], sys.restitution(j) * U_prev[j]});
      for (int k = 1; k < D; ++k)
        unknowns.push_back(t_rows[j] >= 0 ? Unknown{Unknown::Velocity, t_rows[j] + k - 1, 0.0}
                                          : Unknown{Unknown::Padding, -1, 0.0});
      if (t_rows[j] >= 0) fc.mu[mU + i] = sys.friction(j);
    }
  }

  // The step's problem when a forecast contact has friction, as a friction-contact problem with equality
  // blocks (solvers/core/FrictionContactProblem.hpp) solved by the mixed NSGS (solvers/fc/MixedNsgs.hpp):
  // the same unknowns, responses and relations as the Lemke form below (eq 40 with the friction of the header),
  // but each contact's Coulomb law, 2-D or 3-D, is solved exactly on its cone instead of as the LCP
  // Λ_T = Λ_T⁺ − Λ_T⁻ with a slack σ. Why: that LCP is not copositive-plus, and on a bead bed with joints Lemke
  // ends on a secondary ray (docs/friction-solvers.md §3b); and it has no 3-D form. The velocity contact is
  // (U_N + e U_n, U_T) against (Λ_N, Λ_T), the position contact (g_N, d_T) against (ν_N, ν_T): in the De Saxcé
  // form the normal complementarity is Signorini's (r_N > 0 ⇒ u_N = 0, r_N = 0 ⇒ u_N ≥ 0), so the law is the
  // header's. W is not symmetric (a ν or Λ row reads λ̃ through the smooth response, not the converse, and K_t,
  // C_t couple the three parts); the mixed NSGS solves each mechanism's equality group by its true block.
  // Fills R_d, R_q, R_v (responses to the unknowns) and fc_r (the unknowns).
  std::string context(double t1) const { return step_context(kScheme, steps + 1, t, t1); }

  // The frictionless MLCP without bilateral rows and with K_t = C_t = 0: W = diag(J_U M⁻¹J_Uᵀ, J_A M⁻¹J_Aᵀ),
  // symmetric positive semidefinite, singular when contacts are redundant. The dual active-set method solves it,
  // or proves it infeasible, whatever the redundancy; violations of dependent rows within newton_tolerance (the
  // accuracy of the gaps and velocities the previous step delivered) are left, not called infeasible.
  bool solve_symmetric_mlcp() {
    if (problem.size() == 0) {
      z.resize(0);
      w.resize(0);
      report.solver.status = solvers::SolverStatus::Converged;
      return true;
    }
    solvers::DualActiveSetParameters params;
    params.data_tolerance = p.newton_tolerance;
    params.acceptance_tolerance = p.lcp.tolerance;
    const double previous_seconds = report.solver.seconds;
    const int previous_iterations = report.solver.iterations;
    report.solver = solvers::solve_dual_active_set(problem, z, w, params, active_set_workspace);
    report.solver.seconds += previous_seconds;
    report.solver.iterations += previous_iterations;
    if (report.solver.converged()) return true;
    // Not a silent fallback: the active-set method's failure (a nearly dependent active block that round-off
    // ruined, or a certificate of infeasibility) stays in the report's message, and Lemke's outcome follows it.
    const std::string first = "dual active set " + std::string(solvers::to_string(report.solver.status)) + ": " +
                              report.solver.message;
    const bool solved = solve_step_mlcp(problem, p.lcp, lcp_workspace, z, w, report);
    report.solver.message = first + "; then " + (solved ? "solved by Lemke" : report.solver.message);
    return solved;
  }

  // The interactions of an infeasibility certificate (rows ν_U: position rows of every unilateral interaction,
  // then Λ_A: velocity rows of the forecast ones), or of every unilateral interaction when there is none.
  std::string certificate_interactions(const std::vector<Index>& active) const {
    const std::vector<Index>& rows = active_set_workspace.certificate;
    const Index mU = Index(sys.unilateral().size());
    std::vector<int> ids;
    std::string levels;
    for (Index r : rows) {
      ids.push_back(sys.unilateral()[r < mU ? r : active[r - mU]]);
      levels += r < mU ? 'p' : 'v';
    }
    if (ids.empty()) return "interactions " + interaction_names(sys.model(), sys.unilateral());
    return "the certificate's interactions (position rows first: " + levels + ") " +
           interaction_names(sys.model(), ids);
  }

  // fc.W and fc.q from dense responses (any S and M).
  void assemble_friction_dense(double cq, double cv) {
    const Index n = n_vel(), N = Index(unknowns.size()), mB = sys.bilateral_rows();
    // Columns: a smooth multiplier acts through S⁻¹Jᵀ (ṽ̇), a position one through U = M⁻¹Jᵀν and a velocity one
    // through W = M⁻¹JᵀΛ; the last two also move ṽ̇ by −S⁻¹(K_t U + C_t W) (f linearised at the iterate).
    L_cols.setZero(n, N);
    P_cols.setZero(n, N);
    V_cols.setZero(n, N);
    for (Index c = 0; c < N; ++c) {
      const Unknown& u = unknowns[c];
      if (u.kind == Unknown::Smooth) L_cols.col(c) = Jt.col(u.row);
      if (u.kind == Unknown::Position || u.kind == Unknown::PositionTangent) P_cols.col(c) = MinvJt.col(u.row);
      if (u.kind == Unknown::Velocity) V_cols.col(c) = MinvJt.col(u.row);
    }
    tmp = L_cols;
    if (Kt.nonZeros()) tmp.noalias() -= Kt * P_cols;
    if (Ct.nonZeros()) tmp.noalias() -= Ct * V_cols;
    S_factor.solve(tmp, R_d);
    R_q = cq * R_d;
    R_q += P_cols;
    R_v = cv * R_d;
    R_v += V_cols;
    dq_iterate = q0 - qk;
    dq_origin = q0 - origin;
    // Rows: J_B ṽ + ∂g/∂t | g(q_k) + J(q_{n+1} − q_k) | d_T = J_T(q_{n+½})(q_{n+1} − q_n) | J v_{n+1} (+ ∂g/∂t, e U_n).
    A.setZero(N, N);
    fc.q.resize(N);
    for (Index i = 0; i < N; ++i) {
      const Unknown& u = unknowns[i];
      if (u.kind == Unknown::Padding) {
        A(i, i) = 1.0;
        fc.q[i] = 0.0;
        continue;
      }
      const bool velocity = u.kind == Unknown::Smooth || u.kind == Unknown::Velocity;
      const SparseMatrix& J = u.kind == Unknown::PositionTangent && midpoint_slip ? rows_mid.J : rows.J;
      const Matrix& R = u.kind == Unknown::Smooth ? R_d : velocity ? R_v : R_q;
      const double scale = u.kind == Unknown::Smooth ? cv : 1.0;  // ṽ = v₀ + c_v ṽ̇-response
      const Vector& base = velocity ? v0 : u.kind == Unknown::Position ? dq_iterate : dq_origin;
      double qi = u.offset;
      for (SparseMatrix::InnerIterator e(J, u.row); e; ++e) {
        A.row(i) += (scale * e.value()) * R.row(e.col());
        qi += e.value() * base[e.col()];
      }
      if (u.kind == Unknown::Position) qi += rows.gap[u.row];
      if (velocity && u.row < mB) qi += rows.rate[u.row];
      fc.q[i] = qi;
    }
    fc.W = A.sparseView();
  }

  // The same from sparse responses: S⁻¹ and M⁻¹ as block inverses, every product sparse. A's row i is the unknown's
  // constraint row times the response its kind reads (R_d scaled by c_v for λ̃, R_q for ν, R_v for Λ), so
  // A = Sel_d R_d + Sel_q R_q + Sel_v R_v with row-selection matrices, plus the padding slots' unit diagonal.
  void assemble_friction_sparse(double cq, double cv) {
    const Index n = n_vel(), N = Index(unknowns.size()), mB = sys.bilateral_rows();
    // Columns of L (Jᵀ of λ̃), P (M⁻¹Jᵀ of ν) and V (M⁻¹Jᵀ of Λ): column c is unknown c's.
    triplets_l.clear(), triplets_p.clear(), triplets_v.clear();
    for (Index c = 0; c < N; ++c) {
      const Unknown& u = unknowns[c];
      const bool smooth = u.kind == Unknown::Smooth, velocity = u.kind == Unknown::Velocity;
      if (!smooth && !velocity && u.kind != Unknown::Position && u.kind != Unknown::PositionTangent) continue;
      std::vector<Triplet>& out = smooth ? triplets_l : velocity ? triplets_v : triplets_p;
      for (SparseMatrixCol::InnerIterator e(smooth ? Jt_s : MinvJt_s, u.row); e; ++e)
        out.emplace_back(int(e.row()), int(c), e.value());
    }
    L_s.resize(n, N), P_s.resize(n, N), V_s.resize(n, N);
    L_s.setFromTriplets(triplets_l.begin(), triplets_l.end());
    P_s.setFromTriplets(triplets_p.begin(), triplets_p.end());
    V_s.setFromTriplets(triplets_v.begin(), triplets_v.end());
    tmp_s = L_s;
    if (Kt.nonZeros()) tmp_s -= SparseMatrix(Kt * P_s);
    if (Ct.nonZeros()) tmp_s -= SparseMatrix(Ct * V_s);
    Rs_d = S_inverse * tmp_s;
    Rs_q = cq * Rs_d + P_s;
    Rs_v = cv * Rs_d + V_s;
    dq_iterate = q0 - qk;
    dq_origin = q0 - origin;
    fc.q.resize(N);
    triplets_d.clear(), triplets_q.clear(), triplets_sel_v.clear(), padding.clear();
    for (Index i = 0; i < N; ++i) {
      const Unknown& u = unknowns[i];
      if (u.kind == Unknown::Padding) {
        padding.emplace_back(int(i), int(i), 1.0);
        fc.q[i] = 0.0;
        continue;
      }
      const bool velocity = u.kind == Unknown::Smooth || u.kind == Unknown::Velocity;
      const SparseMatrix& J = u.kind == Unknown::PositionTangent && midpoint_slip ? rows_mid.J : rows.J;
      std::vector<Triplet>& out = u.kind == Unknown::Smooth ? triplets_d : velocity ? triplets_sel_v : triplets_q;
      const double scale = u.kind == Unknown::Smooth ? cv : 1.0;
      const Vector& base = velocity ? v0 : u.kind == Unknown::Position ? dq_iterate : dq_origin;
      double qi = u.offset;
      for (SparseMatrix::InnerIterator e(J, u.row); e; ++e) {
        out.emplace_back(int(i), int(e.col()), scale * e.value());
        qi += e.value() * base[e.col()];
      }
      if (u.kind == Unknown::Position) qi += rows.gap[u.row];
      if (velocity && u.row < mB) qi += rows.rate[u.row];
      fc.q[i] = qi;
    }
    sel_d.resize(N, n), sel_q.resize(N, n), sel_v.resize(N, n);
    sel_d.setFromTriplets(triplets_d.begin(), triplets_d.end());
    sel_q.setFromTriplets(triplets_q.begin(), triplets_q.end());
    sel_v.setFromTriplets(triplets_sel_v.begin(), triplets_sel_v.end());
    A_s.resize(N, N);
    A_s.setFromTriplets(padding.begin(), padding.end());
    A_s += SparseMatrix(sel_d * Rs_d);
    A_s += SparseMatrix(sel_q * Rs_q);
    A_s += SparseMatrix(sel_v * Rs_v);
    fc.W = A_s;
  }

  void solve_with_friction(double t1) {
    const Index N = Index(unknowns.size());
    if (fc_r.size() != N) fc_r.setZero(N);  // warm start: the previous Newton iterate of this step
    const double previous_seconds = report.solver.seconds;
    const int previous_iterations = report.solver.iterations;
    // The default tolerance (1e-14) is round-off for tens of contacts; the residual's own round-off grows like
    // ε √N, and with 12 000 unknowns no sweep gets below ~2e-14. The tolerance is therefore never taken below 2 ε √N
    // (which changes nothing under about 500 unknowns).
    solvers::NsgsParameters friction = p.friction;
    friction.tolerance = std::max(friction.tolerance, 2.0 * std::numeric_limits<double>::epsilon() * std::sqrt(double(N)));
    report.solver = solvers::nsgs(fc, fc_r, fc_u, friction);
    report.solver.seconds += previous_seconds;
    report.solver.iterations += previous_iterations;
    if (!report.solver.converged()) {
      std::string msg = context(t1) + ": friction-contact problem of size " + std::to_string(N) + " not solved (" +
                        solvers::to_string(report.solver.status) + ", residual " +
                        number_text(report.solver.residual) + ")";
      if (!report.solver.message.empty()) msg += ": " + report.solver.message;
      msg += "; forecast contacts with friction:";
      for (Index j : velocity_contacts)
        if (t_rows[j] >= 0) msg += " '" + sys.model().interactions[sys.unilateral()[j]].name + "'";
      solve_failed(p.on_failure, report.solver, msg);
    }
  }

  const StepReport& step() {
    const GeneralizedAlphaCoefficients& c = p.coefficients;
    const double h = p.h, c1 = (1.0 - c.alpha_f) / (1.0 - c.alpha_m);
    const double cq = h * h * c.beta * c1, cv = h * c.gamma * c1;
    const double t1 = t + h;
    report = StepReport{};
    fc_r.resize(0);  // the friction solve starts cold each step: a restarted run takes the same steps
    StageTimer stages(report.phase_seconds, report.phase_cpu_seconds);
    report.time = t1;
    report.h = h;
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
    Index mF = 0;  // forecast contacts with friction
    bool rubbing_possible = false;  // some unilateral interaction has friction (forecast or not)
    std::vector<Index> active;
    for (Index j = 0; j < gpred.size(); ++j) {
      if (t_rows[j] >= 0) rubbing_possible = true;
      if (gpred[j] <= 0.0) {
        if (t_rows[j] >= 0) ++mF;
        active.push_back(j);
        active_rows.push_back(u_rows[j]);
      }
    }
    bool friction = mF > 0;  // the step's problem in the friction-contact form (below)

    const Index n = sys.dofs(), mB = sys.bilateral_rows(), mU = Index(sys.unilateral().size());
    const Index mA = Index(active.size()), m = mB + mU;
    // Without friction in the forecast set: one MLCP for Lemke, unknowns [λ̃ | ν_B | Λ_B | ν_U | Λ_A]. With it: the
    // friction-contact form (solve_with_friction), the same relations with each contact's Coulomb law, 2-D or
    // 3-D, on its cone, at the velocity level (Λ_T, on U_T = J_T v_{n+1}, with the impact law) and at the
    // position level (ν_T, on the step's tangential displacement d_T, header). ν is the time integral of the
    // impulse measure over the step (eq 38b), so its tangential part obeys the cone of its normal part. Without
    // the position rows the correction is normal only (eq 40a–c) and the tangential part of the smooth
    // displacement h²β a (gravity along a slope: λ̃_U = 0, eq 35d) is never undone: a body sticking at zero
    // velocity crept by O(h). With them, sticking gives d_T = 0 exactly, and sliding moves by
    // h v_n + ½h²(a_smooth + friction): the friction's O(h²) share of the displacement. ν_Tᵀ d_T ≤ 0: it never
    // does positive work. The rows are those of the forecast set, like Λ_T's: the correction pushes out
    // (ν_N > 0) the contacts that the smooth prediction closes, which are essentially those with g(q*) ≤ 0;
    // elsewhere the cone would force ν_T = 0 anyway.
    const Index oA = 3 * mB + mU, N = oA + mA;
    const bool exact_in_one = sys.linear_dynamics() && sys.linear_relations();
    midpoint_slip = !sys.linear_relations() && !sys.has_bodies();

    int it = 0;
    bool newton_failed = false;
    double relax = 1.0, previous_change = INFINITY;
    stages.stamp(Phase::Narrow);  // the activation forecast: which contacts enter the step
    for (;; ++it) {
      if (it >= p.newton_max_iterations) {
        step_failed(p.on_failure, report, solvers::SolverStatus::MaxIterations,
                    context(t1) + ": Newton did not converge in " + std::to_string(p.newton_max_iterations) +
                        " iterations");
        newton_failed = true;  // Keep: the last solve's state is the step
        break;
      }
      const Vector& qk_at = at(qk, qc);
      sys.constraints(qk_at, t1, rows);
      select_rows(rows.J, b_rows, J_B);
      select_rows(rows.J, u_rows, J_U);
      select_rows(rows.J, active_rows, J_A);
      update_matrices(t1, qk_at, vk);

      // Smooth part with the multipliers at zero: S ṽ̇ = r (f linearised at the iterate).
      sys.force(t1, qk_at, vk, f);
      r = f;
      if (Kt.nonZeros()) r.noalias() += Kt * (qk - qbase);
      if (Ct.nonZeros()) r.noalias() += Ct * (vk - vbase);
      S_factor.solve(r, d0);
      q0 = qbase + cq * d0;
      v0 = vbase + cv * d0;

      const bool large = double(n) * double(N) > kLargeResponses;
      if ((mF || (rubbing_possible && large)) && !inverses_current) {
        sparse_responses = block_inverse(S_matrix, kMaxInverseBlock, S_inverse) &&
                           block_inverse(M, kMaxInverseBlock, M_inverse);
        inverses_current = true;
      }
      // A large scene with friction takes the friction-contact form at every step when its responses are sparse,
      // even when no forecast contact rubs: the Lemke form's dense MLCP over every detected pair costs O(n N)
      // memory and O(N³) pivots (1 024 beads on a beam: 620 MB before the first contact). Small problems keep
      // Lemke's exact solution (and their figures).
      if (it == 0) friction = mF > 0 || (rubbing_possible && sparse_responses && large);
      if (friction && sparse_responses) {
        Jt_s = rows.J.transpose();
        MinvJt_s = M_inverse * Jt_s;  // U = M⁻¹Jᵀν, W = M⁻¹JᵀΛ
      } else {
        Jt = rows.J.transpose();
        M_factor.solve(Jt, MinvJt);
      }
      if (friction) {
        if (it == 0) index_unknowns(active);
        // d_T = J_T(q_{n+½})(q_{n+1} − q_n), with q_{n+½} = ½(q_n + q_k) at the iterate: the midpoint rule for the
        // tangential slip, exact to O(‖Δq‖³) when J_T depends on q. J_T(q_k) in its place would let a contact
        // held by friction on a rotating body slip by ½ J_T′ Δq Δq = O(h²) per step (the rocking block's pivot:
        // 1.5e−4 m up to t = 0.9 s at h = 1e−3, 3.8e−8 m with J_T(q_{n+½}), 1.7e−3 m with no position-level
        // friction at all). For linear relations J_T is constant.
        // On rigid bodies J_T(q_k) instead (the columns' own J_T): with the midpoint rows the position block of
        // W is not symmetric, and on the paddle's bead bed (3-D friction) the Newton map then cycled between two
        // iterates 1e−5 apart from step 206 on; J_T(q_k) leaves an O(h²) slip per step on a rotating body where
        // the contact point is not the centre's image (the rolling sphere's is: generalized_alpha_friction3d_test
        // holds its slip to 1e−15 m/s).
        if (midpoint_slip) {
          q_mid = 0.5 * (origin + qk);
          sys.constraints(at(q_mid, qc_mid), t + 0.5 * h, rows_mid);
        }
        stages.stamp(Phase::Assembly);
        if (sparse_responses)
          assemble_friction_sparse(cq, cv);
        else
          assemble_friction_dense(cq, cv);
        solve_with_friction(t1);
        stages.stamp(Phase::Solve);
      } else {
        // Responses of (ṽ̇, q, v) to each multiplier; columns [λ̃ | ν_B | Λ_B | ν_U | Λ_A].
        U_cols.resize(n, m);
        U_cols.leftCols(mB) = MinvJt.leftCols(mB);
        for (Index i = 0; i < mU; ++i) U_cols.col(mB + i) = MinvJt.col(u_rows[i]);
        W_cols.resize(n, mB + mA);
        W_cols.leftCols(mB) = MinvJt.leftCols(mB);
        for (Index i = 0; i < mA; ++i) W_cols.col(mB + i) = MinvJt.col(active_rows[i]);
        if (Kt.nonZeros()) {
          tmp = -(Kt * U_cols);
          S_factor.solve(tmp, D_nu);
        } else {
          D_nu.setZero(n, m);
        }
        if (Ct.nonZeros()) {
          tmp = -(Ct * W_cols);
          S_factor.solve(tmp, D_la);
        } else {
          D_la.setZero(n, mB + mA);
        }
        tmp = Jt.leftCols(mB);
        S_factor.solve(tmp, D_lam);

        R_d.setZero(n, N);
        R_d.leftCols(mB) = D_lam;
        R_d.middleCols(mB, mB) = D_nu.leftCols(mB);
        R_d.middleCols(2 * mB, mB) = D_la.leftCols(mB);
        R_d.middleCols(3 * mB, mU) = D_nu.middleCols(mB, mU);
        R_d.middleCols(oA, mA) = D_la.middleCols(mB, mA);
        R_q = cq * R_d;
        R_v = cv * R_d;
        R_q.middleCols(mB, mB) += U_cols.leftCols(mB);
        R_q.middleCols(3 * mB, mU) += U_cols.middleCols(mB, mU);
        R_v.middleCols(2 * mB, mB) += W_cols.leftCols(mB);
        R_v.middleCols(oA, mA) += W_cols.middleCols(mB, mA);

        // MLCP rows: [J_B ṽ = 0 | g_B(q) = 0 | J_B v = 0 | 0 ≤ g_U(q) ⟂ ν_U | 0 ≤ J_A v + e U_n ⟂ Λ_A].
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
        problem.M = A.sparseView();
        problem.n_equality = int(3 * mB);
        stages.stamp(Phase::Assembly);
        // z is the last solve's solution, PSOR's warm start; when the active set (or the detected contacts)
        // changed the problem's size, its entries no longer line up with the unknowns, so PSOR starts cold.
        if (z.size() != problem.size()) z.resize(0);
        if (mB == 0 && p.symmetric_by_active_set && Kt.nonZeros() == 0 && Ct.nonZeros() == 0) {
          if (!solve_symmetric_mlcp())
            solve_failed(p.on_failure, report.solver,
                         context(t1) + ": " + unsolved_mlcp(problem, report.solver) + "; " +
                             certificate_interactions(active));
        } else if (!solve_step_mlcp(problem, p.lcp, lcp_workspace, z, w, report)) {
          // Every unilateral interaction has a position row (ν_U) in the MLCP, the active ones a velocity row too.
          std::vector<int> ids = sys.bilateral();
          ids.insert(ids.end(), sys.unilateral().begin(), sys.unilateral().end());
          solve_failed(p.on_failure, report.solver,
                       context(t1) + ": " + unsolved_mlcp(problem, report.solver) + "; interactions " +
                           interaction_names(sys.model(), ids));
        }
        stages.stamp(Phase::Solve);
      }

      const Vector& sol = friction ? fc_r : z;
      vdot_new = d0;
      q_new = q0;
      v_new = v0;
      if (sol.size() > 0 && friction && sparse_responses) {
        vdot_new += Rs_d * sol;
        q_new += Rs_q * sol;
        v_new += Rs_v * sol;
      } else if (sol.size() > 0) {
        vdot_new.noalias() += R_d * sol;
        q_new.noalias() += R_q * sol;
        v_new.noalias() += R_v * sol;
      }
      if (exact_in_one) break;
      const double change = increment_measure(qk, q_new, vk, v_new);
      if (change <= p.newton_tolerance) {
        qk = q_new;
        vk = v_new;
        break;
      }
      // With friction the fixed-point map can overshoot: the contact normals move with the iterate, and a contact
      // at the edge of its cone changes between stick and slip from one iterate to the next. An increment that
      // does not shrink halves the step towards the new solution (down to 1/8), one that shrinks lengthens it
      // again (a damped fixed-point iteration, whose fixed points are the same); Lemke's frictionless path is
      // left undamped, so its figures are unchanged.
      if (friction && it > 0) relax = change >= previous_change ? std::max(0.125, 0.5 * relax) : std::min(1.0, 1.5 * relax);
      previous_change = change;
      if (relax == 1.0) {
        qk = q_new;
        vk = v_new;
      } else {
        qk += relax * (q_new - qk);
        vk += relax * (v_new - vk);
      }
    }
    report.newton_iterations = newton_failed ? it : it + 1;
    if (!q_new.allFinite() || !v_new.allFinite())
      step_failed(p.on_failure, report, solvers::SolverStatus::Diverged,
                  context(t1) + ": the new state is not finite (NaN/Inf) in " +
                      non_finite_dof(sys.model(), sys.layout(), q_new, v_new));

    // Impulses per row (Λ; the position multipliers ν, ν_T included, are not impulses and are not reported).
    impulse.setZero(rows.rows());
    if (friction) {
      for (size_t i = 0; i < unknowns.size(); ++i)
        if (unknowns[i].kind == Unknown::Velocity) impulse[unknowns[i].row] = fc_r[Index(i)];
    } else {
      if (mB) impulse.head(mB) = z.segment(2 * mB, mB);
      for (Index i = 0; i < mA; ++i) impulse[active_rows[i]] = z[oA + i];
    }

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
const Vector& NonsmoothGeneralizedAlpha::velocity() const { return impl_->v; }

void NonsmoothGeneralizedAlpha::restore_velocity(const Vector& v) {
  Impl& s = *impl_;
  const Index n = s.sys.dofs();
  if (v.size() != n)
    throw std::invalid_argument(std::string(kScheme) + ": restored velocity has " + std::to_string(v.size()) +
                                " entries (expected one per velocity: " + std::to_string(n) + ")");
  for (Index i = 0; i < n; ++i) {
    if (!std::isfinite(v[i]))
      throw std::invalid_argument(std::string(kScheme) + ": restored velocity entry " + std::to_string(i) +
                                  " is not finite");
    if (std::abs(v[i] - s.v[i]) > 1e-12 * (1.0 + std::abs(s.v[i])))
      throw std::invalid_argument(std::string(kScheme) + ": restored velocity entry " + std::to_string(i) +
                                  " is not the model's (a velocity of another state)");
  }
  s.v = v;
  // What the constructor derived from v_n, by the same expressions (a step's end computes them alike).
  s.F_prev.resize(0);
  s.sys.external_force(s.t, s.q, s.v, s.F_prev);
  s.factors_constant = false;
  s.update_matrices(s.t, s.q, s.v);
  s.index_unilateral_rows();
  s.energy_prev = 0.5 * s.v.dot(s.M * s.v) + s.sys.potential_energy(s.q);
}

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
