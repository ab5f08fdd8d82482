// The event-driven scheme (see EventDriven.hpp; thresholds in docs/event-driven.md).
#include "engine/eventdriven/EventDriven.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "engine/eventdriven/ContactProblems.hpp"
#include "engine/eventdriven/ModelSystem.hpp"
#include "engine/eventdriven/RootFinding.hpp"

namespace talus::eventdriven {

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::Impact: return "impact";
    case EventKind::Closing: return "closing";
    case EventKind::Release: return "release";
    case EventKind::Rest: return "rest";
  }
  return "?";
}

namespace {

// How an inactive unilateral row is watched during a smooth phase. φ = g − g_ref must stay positive:
//  - Open:    the contact is apart, g_ref = 0;
//  - LiftOff: it has just left with U > 0 from g ≈ g₀, g_ref = g₀; on the phase's first step φ(0) = 0, so the
//             deflated φ/θ (limit h U₀ > 0 at θ = 0) is searched instead, which finds the return to g₀ even
//             when the whole flight is much shorter than the step (accumulation);
//  - Grazing: it left with U ≈ 0 (release, undetermined case), g_ref = −ε_g: only a penetration beyond the
//             gap tolerance re-closes it, so round-off cannot re-trigger the same event.
enum class Watch { Open, LiftOff, Grazing };

}  // namespace

struct EventDriven::Impl {
  Model& model;
  EventDrivenParameters p;
  ModelSystem ms;
  AdaptiveDae dae;
  EventDrivenReport report;

  DaeState state;
  DenseSegment seg;
  bool started = false;

  // per system row
  std::vector<char> closed;   // unilateral rows in I₂
  std::vector<Watch> watch;
  Vector g_ref, U_start;
  bool first_step = true;

  double L = 1.0, T = 1.0, eps_g = 0.0, eps_v = 0.0, dt_min = 0.0;
  double last_event_time = -std::numeric_limits<double>::infinity();
  int events_without_progress = 0;

  // workspaces
  Vector g_all, U_all, c_all, F, a_tmp, lam_tmp, q_tmp, v_tmp;
  Matrix G_all, M;
  Eigen::LLT<Matrix> mass_llt;

  Impl(Model& m, const EventDrivenParameters& params)
      : model(m), p(params), ms(make_model_system(m)), dae(ms.system, params.dae) {
    if (p.samples_per_step < 1) throw std::invalid_argument("EventDriven: samples_per_step must be >= 1");
    if (!(p.gap_tolerance > 0.0 && p.velocity_tolerance > 0.0 && p.min_flight_time > 0.0 &&
          p.multiplier_tolerance > 0.0))
      throw std::invalid_argument("EventDriven: tolerances must be positive");
  }

  const MechanicalSystem& sys() const { return ms.system; }

  std::vector<Index> active_rows() const {
    std::vector<Index> rows = ms.bilateral_rows;
    for (Index r : ms.unilateral_rows)
      if (closed[r]) rows.push_back(r);
    return rows;
  }

  void evaluate_kinematics(const Vector& q, const Vector& v) {
    g_all.setZero(sys().rows);
    sys().gap(q, g_all);
    G_all.setZero(sys().rows, sys().nv);
    sys().jacobian(q, G_all);
    U_all = G_all * v;
  }

  void factor_mass(const Vector& q) {
    M.setZero(sys().nv, sys().nv);
    sys().mass(q, M);
    mass_llt.compute(M);
    if (mass_llt.info() != Eigen::Success) throw StepFailure("event-driven: mass matrix not positive definite");
  }

  ContactOperator make_operator(const std::vector<Index>& rows) const {
    ContactOperator op;
    op.n_equality = 0;
    for (Index r : rows)
      if (!ms.rows[r].unilateral) ++op.n_equality;
    op.G.resize(static_cast<Index>(rows.size()), sys().nv);
    for (size_t i = 0; i < rows.size(); ++i) op.G.row(static_cast<Index>(i)) = G_all.row(rows[i]);
    op.MinvGt = op.G.transpose();
    mass_llt.solveInPlace(op.MinvGt);
    op.W = op.G * op.MinvGt;
    return op;
  }

  void check(const solvers::SolverStats& st, const char* what, double t) {
    ++report.lcp_solves;
    if (!st.converged()) {
      std::ostringstream os;
      os << "event-driven: " << what << " LCP at t = " << t << " not solved (" << solvers::to_string(st.status)
         << (st.message.empty() ? "" : ": " + st.message) << ")";
      throw StepFailure(os.str());
    }
  }

  void emit(const EventRecord& r, const std::function<void(const EventRecord&)>& cb) {
    report.log.push_back(r);
    if (cb) cb(r);
  }

  // Scales of docs/event-driven.md: L from the initial gaps and coordinates, A from the free accelerations,
  // T = sqrt(L / A), V = L / T.
  void compute_scales() {
    evaluate_kinematics(state.q, state.v);
    L = p.length_scale;
    if (!(L > 0.0)) {
      L = 0.0;
      for (Index r : ms.unilateral_rows) L = std::max(L, std::abs(g_all[r]));
      if (!(L > 0.0)) L = state.q.lpNorm<Eigen::Infinity>();
      if (!(L > 0.0)) L = 1.0;
    }
    T = p.time_scale;
    if (!(T > 0.0)) {
      factor_mass(state.q);
      F.setZero(sys().nv);
      sys().force(state.t, state.q, state.v, F);
      const double A = mass_llt.solve(F).lpNorm<Eigen::Infinity>();
      const double V0 = state.v.lpNorm<Eigen::Infinity>();
      // The faster of the two motions sets the time scale; a system at rest without forces gets T = 1 s.
      double rate = 0.0;
      if (A > 0.0) rate = std::max(rate, std::sqrt(A / L));
      if (V0 > 0.0) rate = std::max(rate, V0 / L);
      T = rate > 0.0 ? 1.0 / rate : 1.0;
    }
    eps_g = p.gap_tolerance * L;
    eps_v = p.velocity_tolerance * L / T;
    dt_min = p.min_flight_time * T;
  }

  void start() {
    const Index nq = ms.layout.n_coords, nv = ms.layout.n_vels;
    state = DaeState{};
    state.t = model.time;
    gather_coordinates(model, ms.layout, state.q);
    gather_velocities(model, ms.layout, state.v);
    if (state.q.size() != nq || state.v.size() != nv) throw std::logic_error("event-driven: layout mismatch");
    closed.assign(static_cast<size_t>(sys().rows), 0);
    watch.assign(static_cast<size_t>(sys().rows), Watch::Open);
    g_ref.setZero(sys().rows);
    U_start.setZero(sys().rows);
    compute_scales();
    handle_event(state.t, state.q, state.v, {}, {}, nullptr, /*initial=*/true);
    started = true;
  }

  // ---------------------------------------------------------------- event location in one step
  struct Crossing {
    double theta = 2.0;
    std::vector<Index> gap_rows, release_rows;
  };

  double watched_value(Index r, const Vector& g, double theta) const {
    const double phi = g[r] - g_ref[r];
    if (first_step && watch[r] == Watch::LiftOff) return phi / theta;
    return phi;
  }

  double value_at_start(Index r) const {
    if (first_step && watch[r] == Watch::LiftOff) return seg.h * U_start[r];
    return g_all_start[r] - g_ref[r];
  }
  Vector g_all_start;

  void multipliers_at(double theta, Vector& lambda) {
    seg.coordinates(theta, q_tmp);
    seg.velocities(theta, v_tmp);
    ++report.event_function_evaluations;
    const SaddleStatus st = dae.evaluator().accelerations(seg.time(theta), q_tmp, v_tmp, a_tmp, lambda);
    if (st != SaddleStatus::Ok)
      throw StepFailure(std::string("event-driven: multipliers inside a step: ") + to_string(st));
  }

  void gaps_at(double theta, Vector& g) {
    seg.coordinates(theta, q_tmp);
    ++report.event_function_evaluations;
    g.setZero(sys().rows);
    sys().gap(q_tmp, g);
  }

  Crossing locate() {
    Crossing out;
    std::vector<Index> watched, active_uni;
    for (Index r : ms.unilateral_rows) (closed[r] ? active_uni : watched).push_back(r);
    if (watched.empty() && active_uni.empty()) return out;
    const std::vector<Index> active = active_rows();
    auto lambda_index = [&](Index r) {
      return static_cast<Index>(std::find(active.begin(), active.end(), r) - active.begin());
    };

    const int N = p.samples_per_step;
    Vector prev_phi(sys().rows), prev_lam(sys().rows), g, lam;
    for (Index r : watched) prev_phi[r] = value_at_start(r);
    if (!active_uni.empty()) {
      // λ at the step start is the phase's (positive) multiplier; take it from the segment's start state.
      multipliers_at(0.0, lam);
      for (Index r : active_uni) prev_lam[r] = lam[lambda_index(r)];
    }
    // Time resolution of the located events: a few ulps of t, in units of θ.
    const double tol_theta =
        4.0 * std::numeric_limits<double>::epsilon() * std::max({std::abs(seg.t0), std::abs(seg.t0 + seg.h), T}) /
        seg.h;
    for (int k = 1; k <= N; ++k) {
      const double th0 = static_cast<double>(k - 1) / N, th1 = static_cast<double>(k) / N;
      std::vector<std::pair<Index, double>> gap_cross, lam_cross;
      if (!watched.empty()) {
        gaps_at(th1, g);
        for (Index r : watched) {
          const double phi = watched_value(r, g, th1);
          if (prev_phi[r] > 0.0 && phi <= 0.0) gap_cross.emplace_back(r, phi);
          prev_phi[r] = phi;
        }
      }
      if (!active_uni.empty()) {
        multipliers_at(th1, lam);
        for (Index r : active_uni) {
          const double l = lam[lambda_index(r)];
          if (prev_lam[r] > 0.0 && l < 0.0) lam_cross.emplace_back(r, l);
          prev_lam[r] = l;
        }
      }
      if (gap_cross.empty() && lam_cross.empty()) continue;
      // Refine every crossing of this sample interval; the earliest is the event.
      std::vector<std::pair<Index, double>> roots;
      for (auto [r, f1] : gap_cross) {
        Vector gg;
        auto f = [&, r = r](double th) {  // a structured binding is not capturable before C++20 in clang 14
          gaps_at(th, gg);
          return watched_value(r, gg, th);
        };
        const double f0 = k == 1 ? value_at_start(r) : f(th0);
        const Root root = find_first_crossing(f, th0, f0, th1, f1, tol_theta);
        roots.emplace_back(r, root.x);
      }
      for (auto [r, l1] : lam_cross) {
        Vector ll;
        const Index i = lambda_index(r);
        auto f = [&](double th) {
          multipliers_at(th, ll);
          return ll[i];
        };
        const double f0 = f(th0);
        const Root root = f0 > 0.0 ? find_first_crossing(f, th0, f0, th1, l1, tol_theta) : Root{th0, 0};
        roots.emplace_back(-1 - r, root.x);  // negative: a release
      }
      for (auto& [r, th] : roots) out.theta = std::min(out.theta, th);
      for (auto& [r, th] : roots) {
        if (th > out.theta + 10.0 * tol_theta) continue;
        if (r >= 0) out.gap_rows.push_back(r);
        else out.release_rows.push_back(-1 - r);
      }
      return out;
    }
    return out;
  }

  // ---------------------------------------------------------------- one event
  void handle_event(double t, Vector q, Vector v, const std::vector<Index>& triggered,
                    const std::vector<Index>& released, const std::function<void(const EventRecord&)>* cb,
                    bool initial = false) {
    if (!initial) {
      ++report.events;
      if (t - last_event_time <= dt_min) {
        if (++events_without_progress > p.max_events_without_progress) {
          std::ostringstream os;
          os << "event-driven: " << events_without_progress << " events within " << dt_min << " s up to t = " << t
             << " (Zeno behaviour the rest switch did not resolve, or an undetermined contact oscillating)";
          throw StepFailure(os.str());
        }
      } else {
        events_without_progress = 0;
      }
      last_event_time = t;
    }
    if (sys().normalize) sys().normalize(q);
    evaluate_kinematics(q, v);
    factor_mass(q);
    auto is_in = [](const std::vector<Index>& s, Index r) { return std::find(s.begin(), s.end(), r) != s.end(); };

    // I₁: contacts closed in position.
    std::vector<Index> I1;
    for (Index r : ms.unilateral_rows)
      if (closed[r] || is_in(triggered, r) || g_all[r] <= eps_g) I1.push_back(r);

    // Free normal accelerations G M⁻¹ F + c, for the rest test and the acceleration LCP.
    F.setZero(sys().nv);
    sys().force(t, q, v, F);
    const Vector MinvF = mass_llt.solve(F);
    Vector free_acc = G_all * MinvF;
    {
      DaeWork scratch;
      ConstrainedEvaluator ev(sys(), scratch);
      std::vector<Index> all(static_cast<size_t>(sys().rows));
      for (Index r = 0; r < sys().rows; ++r) all[static_cast<size_t>(r)] = r;
      if (!all.empty()) {
        ev.set_active(all);
        ev.curvature(q, v, c_all);
        free_acc += c_all;
      }
    }

    // Impact (seed 000 eq 27) when a contact of I₁ approaches.
    bool impacting = false;
    for (Index r : I1) impacting |= U_all[r] < -eps_v;
    if (impacting) {
      std::vector<Index> rows = ms.bilateral_rows;
      rows.insert(rows.end(), I1.begin(), I1.end());
      const ContactOperator op = make_operator(rows);
      Vector Um(static_cast<Index>(rows.size())), e(static_cast<Index>(rows.size()));
      for (size_t i = 0; i < rows.size(); ++i) {
        Um[static_cast<Index>(i)] = U_all[rows[i]];
        e[static_cast<Index>(i)] = ms.rows[rows[i]].restitution;
      }
      Vector P, Up, vp;
      check(solve_impact(op, Um, e, v, p.lcp, P, Up, vp), "impact", t);
      // Accumulation: a lift-off whose flight (about 2 U⁺ / |Γ_free|) would be shorter than dt_min rests.
      std::vector<char> rest(rows.size(), 0);
      bool any_rest = false;
      for (size_t i = op.n_equality; i < rows.size(); ++i) {
        const Index r = rows[i];
        const double Uplus = Up[static_cast<Index>(i)];
        const double threshold = std::max(eps_v, 0.5 * std::max(-free_acc[r], 0.0) * dt_min);
        if (Um[static_cast<Index>(i)] < -eps_v && Uplus > eps_v && Uplus <= threshold) {
          rest[i] = 1;
          any_rest = true;
          e[static_cast<Index>(i)] = 0.0;
        }
      }
      if (any_rest) check(solve_impact(op, Um, e, v, p.lcp, P, Up, vp), "impact (rest)", t);
      for (size_t i = op.n_equality; i < rows.size(); ++i) {
        const Index ii = static_cast<Index>(i);
        if (!(Um[ii] < -eps_v || P[ii] > 0.0)) continue;
        EventRecord rec{t, rest[i] ? EventKind::Rest : EventKind::Impact, ms.rows[rows[i]].interaction, Um[ii],
                        Up[ii], P[ii]};
        ++report.impacts;
        if (rest[i]) ++report.rest_switches;
        if (cb) emit(rec, *cb); else report.log.push_back(rec);
      }
      v = vp;
      U_all = G_all * v;
    }

    // I₂ candidates: contacts of I₁ at rest.
    std::vector<Index> cand;
    for (Index r : I1)
      if (U_all[r] <= eps_v) cand.push_back(r);
    std::vector<char> now_closed(static_cast<size_t>(sys().rows), 0);
    bool at_edge = false;
    if (!cand.empty()) {
      std::vector<Index> rows = ms.bilateral_rows;
      rows.insert(rows.end(), cand.begin(), cand.end());
      const ContactOperator op = make_operator(rows);
      // Geometric singularity (seed 002 §4): rows with (nearly) dependent normals meet at an edge, the
      // saddle systems of the smooth phase are ill-posed there and the curvature term jumps. Fallback of
      // §4.2.1: the acceleration LCP solved by Lemke (which copes with a singular W) relaxes the rows that
      // leave, with the curvature of the side the motion goes to (the central value would average both).
      const Vector w_eig = Eigen::SelfAdjointEigenSolver<Matrix>(op.W, Eigen::EigenvaluesOnly).eigenvalues();
      if (!(w_eig[0] >= p.edge_rcond * w_eig[w_eig.size() - 1])) {
        ++report.edge_fallbacks;
        at_edge = true;
        DaeWork scratch;
        ConstrainedEvaluator ev(sys(), scratch);
        std::vector<Index> all(static_cast<size_t>(sys().rows));
        for (Index r = 0; r < sys().rows; ++r) all[static_cast<size_t>(r)] = r;
        ev.set_active(all);
        ev.curvature_ahead(q, v, c_all);
        free_acc = G_all * MinvF + c_all;
      }
      // Acceleration LCP (seed 000 eq 28) decides which of them stay closed.
      Vector qa(static_cast<Index>(rows.size()));
      for (size_t i = 0; i < rows.size(); ++i) qa[static_cast<Index>(i)] = free_acc[rows[i]];
      Vector lambda, Gamma;
      check(solve_acceleration_lcp(op, qa, p.lcp, lambda, Gamma), "acceleration", t);
      double lam_scale = 0.0, acc_scale = 0.0;
      for (Index i = 0; i < qa.size(); ++i) {
        acc_scale = std::max(acc_scale, std::abs(qa[i]));
        if (op.W(i, i) > 0.0) lam_scale = std::max(lam_scale, std::abs(qa[i]) / op.W(i, i));
      }
      const double eps_lam = p.multiplier_tolerance * lam_scale, eps_acc = p.multiplier_tolerance * acc_scale;
      for (size_t i = op.n_equality; i < rows.size(); ++i) {
        const Index r = rows[i], ii = static_cast<Index>(i);
        bool stays;
        if (is_in(released, r)) {
          stays = false;  // λ crossed zero downwards: the root finder saw the sign of λ̇
        } else if (lambda[ii] > eps_lam) {
          stays = true;
        } else if (Gamma[ii] > eps_acc) {
          stays = false;
        } else {
          ++report.undetermined;  // λ = Γ = 0: needs Γ̇ (slide 19); resolved as leaving, watched as grazing
          stays = false;
        }
        now_closed[static_cast<size_t>(r)] = stays;
        if (stays && !closed[r]) {
          ++report.closings;
          EventRecord rec{t, EventKind::Closing, ms.rows[r].interaction, U_all[r], U_all[r], lambda[ii]};
          if (cb) emit(rec, *cb); else report.log.push_back(rec);
        }
      }
    }
    for (Index r : ms.unilateral_rows) {
      if (closed[r] && !now_closed[static_cast<size_t>(r)]) {
        ++report.releases;
        EventRecord rec{t, EventKind::Release, ms.rows[r].interaction, U_all[r], U_all[r], 0.0};
        if (cb) emit(rec, *cb); else report.log.push_back(rec);
      }
      closed[r] = now_closed[static_cast<size_t>(r)];
      if (closed[r]) continue;
      if (g_all[r] > eps_g) {
        watch[r] = Watch::Open;
        g_ref[r] = 0.0;
      } else if (U_all[r] > eps_v) {
        watch[r] = Watch::LiftOff;
        g_ref[r] = g_all[r];
      } else {
        watch[r] = Watch::Grazing;
        g_ref[r] = -eps_g;
      }
      U_start[r] = U_all[r];
    }

    // The smooth phase starts exactly on the velocity constraint of its active rows: v is projected in the
    // metric of M (a change of at most ε_v in U, since the closed rows had |U| <= ε_v).
    {
      const std::vector<Index> rows = active_rows();
      if (!rows.empty()) {
        const ContactOperator op = make_operator(rows);
        Eigen::PartialPivLU<Matrix> lu(op.W);
        if (!(lu.rcond() > 1e-13)) {
          std::ostringstream os;
          os << "event-driven: active constraints singular at t = " << t
             << " (incompatible or redundant bilateral / closed rows)";
          throw StepFailure(os.str());
        }
        v -= op.MinvGt * lu.solve(op.G * v);
        U_all = G_all * v;
      }
    }

    // Restart the smooth phase.
    state = DaeState{};
    state.t = t;
    state.q = q;
    state.v = v;
    dae.set_active(active_rows());
    dae.evaluator().look_ahead = at_edge;
    const SaddleStatus st = dae.initialize(state);
    dae.evaluator().look_ahead = false;
    if (st != SaddleStatus::Ok) {
      std::ostringstream os;
      os << "event-driven: smooth phase cannot start at t = " << t << ": " << to_string(st);
      throw StepFailure(os.str());
    }
    first_step = true;
    write_back();
  }

  void write_back() {
    scatter_state(ms.layout, state.q, state.v, model);  // coordinates first (DofLayout.hpp)
    model.time = state.t;
    evaluate_kinematics(state.q, state.v);
    for (size_t r = 0; r < ms.rows.size(); ++r) {
      const ConstraintRow& row = ms.rows[r];
      Interaction& in = model.interactions[static_cast<size_t>(row.interaction)];
      const int n = law_rows(in.law);
      if (in.gap.size() != n) in.gap = Vector::Zero(n);
      if (in.velocity.size() != n) in.velocity = Vector::Zero(n);
      in.gap[row.local_row] = g_all[static_cast<Index>(r)];
      in.velocity[row.local_row] = U_all[static_cast<Index>(r)];
    }
  }

  void advance_to(double t_end, const std::function<void(const EventRecord&)>& cb) {
    if (!started) start();
    while (state.t < t_end) {
      g_all_start.setZero(sys().rows);
      sys().gap(state.q, g_all_start);
      const DaeStepResult r = dae.step(state, t_end, &seg);
      if (r.status != DaeStepStatus::Accepted) throw StepFailure("event-driven smooth phase: " + r.message);
      ++report.smooth_steps;
      const Crossing c = locate();
      if (c.theta > 1.0) {
        first_step = false;
        continue;
      }
      const double t = seg.time(c.theta);
      Vector q, v;
      seg.coordinates(c.theta, q);
      seg.velocities(c.theta, v);
      handle_event(t, q, v, c.gap_rows, c.release_rows, &cb);
    }
    write_back();
    report.work = dae.work();
  }
};

EventDriven::EventDriven(Model& model, const EventDrivenParameters& params)
    : impl_(std::make_unique<Impl>(model, params)) {}
EventDriven::~EventDriven() = default;

void EventDriven::advance_to(double t_end) { impl_->advance_to(t_end, on_event); }
double EventDriven::time() const { return impl_->started ? impl_->state.t : impl_->model.time; }
const EventDrivenReport& EventDriven::report() const { return impl_->report; }
double EventDriven::length_scale() const { return impl_->L; }
double EventDriven::time_scale() const { return impl_->T; }

double EventDriven::multiplier(int interaction) const {
  if (!impl_->started) return 0.0;
  const std::vector<Index> active = impl_->active_rows();
  for (size_t i = 0; i < active.size(); ++i)
    if (impl_->ms.rows[active[i]].interaction == interaction && impl_->ms.rows[active[i]].local_row == 0)
      return impl_->state.lambda[static_cast<Index>(i)];
  return 0.0;
}

const Vector& EventDriven::acceleration() const { return impl_->state.a; }

std::vector<int> EventDriven::closed_interactions() const {
  std::vector<int> out;
  for (Index r : impl_->ms.unilateral_rows)
    if (!impl_->closed.empty() && impl_->closed[r]) out.push_back(impl_->ms.rows[r].interaction);
  return out;
}

}  // namespace talus::eventdriven
