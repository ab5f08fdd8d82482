// Builds the one-step LCP / friction-contact problem from the active rows and solves it (see OneStepSolve.hpp).
#include "engine/OneStepSolve.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "engine/Integrator.hpp"
#include "engine/StepReport.hpp"
#include "solvers/fc/MixedNsgs.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "solvers/lcp/Fc2dAsLcp.hpp"
#include "solvers/lcp/LcpSolver.hpp"

namespace talus {

namespace {

double restitution(const NonsmoothLaw& law) {
  if (const auto* l = std::get_if<NewtonImpactLaw>(&law)) return l->e;
  if (const auto* l = std::get_if<NewtonImpactFrictionLaw>(&law)) return l->e;
  return 0.0;
}

// A = S W Sᵀ where S selects constraint row order[i] into problem row i (order[i] = −1: a padding row with a
// unit diagonal).
void select_symmetric(const SparseMatrix& W, const std::vector<Index>& order, std::vector<Index>& inverse,
                      std::vector<Triplet>& t, SparseMatrix& A) {
  const Index n = static_cast<Index>(order.size());
  inverse.assign(W.rows(), -1);
  for (Index i = 0; i < n; ++i)
    if (order[i] >= 0) inverse[order[i]] = i;
  t.clear();
  for (Index i = 0; i < n; ++i) {
    if (order[i] < 0) {
      t.emplace_back(static_cast<int>(i), static_cast<int>(i), 1.0);
      continue;
    }
    for (SparseMatrix::InnerIterator it(W, order[i]); it; ++it)
      if (inverse[it.col()] >= 0) t.emplace_back(static_cast<int>(i), static_cast<int>(inverse[it.col()]), it.value());
  }
  A.resize(n, n);
  A.setFromTriplets(t.begin(), t.end());
}

std::string context(const OneStepSolveSettings& s) { return step_context(s.scheme, s.step, s.time, s.time + s.h); }

// Under Keep, st.message becomes the failure's message and the caller goes on with the solver's last iterate.
// `worst` (optional) names the contacts where the residual is left, largest first.
void fail(const Model& model, const ConstraintRows& rows, const OneStepSolveSettings& s, const char* what,
          solvers::SolverStats& st, const std::string& worst = "") {
  std::ostringstream os;
  os << context(s) << ": one-step " << what << " not solved: status " << solvers::to_string(st.status)
     << ", residual " << st.residual << " (tolerance " << s.tolerance << "), " << st.iterations << " iterations";
  if (!st.message.empty()) os << " (" << st.message << ")";
  if (!worst.empty()) os << "; " << worst;
  os << "; active interactions: " << interaction_names(model, rows.interactions);
  solve_failed(s.on_failure, st, os.str());
}

// "largest contact residuals: 12 'detected' (body 431 at (…) with body 502) 3.1e-06, …": the kListed contacts of
// a friction-contact problem (contact c = interaction rows.interactions[c]) whose natural-map error at r is the
// largest. A solve that did not converge over thousands of contacts is then named where it is stuck.
std::string worst_contacts(const Model& model, const ConstraintRows& rows, const solvers::FrictionContactProblem& fc,
                           const Vector& r) {
  constexpr size_t kListed = 3;
  const Vector u = fc.W * r + fc.q;
  const int d = fc.dim;
  std::vector<std::pair<double, Index>> err;
  for (Index c = 0; c < fc.contacts(); ++c)
    err.emplace_back(std::sqrt(solvers::contact_residual_squared(r.data() + d * c, u.data() + d * c, d, fc.mu[c])), c);
  const size_t k = std::min(kListed, err.size());
  std::partial_sort(err.begin(), err.begin() + static_cast<std::ptrdiff_t>(k), err.end(),
                    [](const auto& x, const auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
  std::ostringstream os;
  os.precision(3);
  os << "largest contact residuals:";
  for (size_t i = 0; i < k; ++i)
    os << (i ? ", " : " ") << interaction_label(model, rows.interactions[err[i].second]) << " " << err[i].first;
  return os.str();
}

solvers::SolverStats solve_frictionless(const Model& model, const ConstraintRows& rows, const SparseMatrix& W,
                                        const Vector& Jv_free, const Vector& U_k, const OneStepSolveSettings& s,
                                        OneStepWorkspace& ws, Vector& P) {
  const Index m = rows.rows();
  ws.order.clear();
  // Equality rows first (the MLCP's free block), then the unilateral normal rows.
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < rows.interactions.size(); ++i) {
      const bool eq = std::holds_alternative<EqualityLaw>(model.interactions[rows.interactions[i]].law);
      if (eq == (pass == 0))
        for (Index r = rows.row_offset[i]; r < rows.row_offset[i + 1]; ++r) ws.order.push_back(r);
    }
  Index n_eq = 0;
  for (size_t i = 0; i < rows.interactions.size(); ++i)
    if (std::holds_alternative<EqualityLaw>(model.interactions[rows.interactions[i]].law))
      n_eq += rows.row_offset[i + 1] - rows.row_offset[i];

  solvers::LcpProblem& lcp = ws.lcp;
  select_symmetric(W, ws.order, ws.problem_row, ws.triplets, lcp.M);
  lcp.n_equality = static_cast<int>(n_eq);
  lcp.q.resize(m);
  ws.z.setZero(m);
  for (size_t i = 0; i < rows.interactions.size(); ++i) {
    const Interaction& in = model.interactions[rows.interactions[i]];
    const double e = restitution(in.law);
    const Index r0 = rows.row_offset[i], nr = rows.row_offset[i + 1] - r0;
    const bool warm = in.impulse.size() == nr;
    for (Index k = 0; k < nr; ++k) {
      const Index pr = ws.problem_row[r0 + k];
      lcp.q[pr] = Jv_free[r0 + k] + e * U_k[r0 + k];
      if (warm) ws.z[pr] = in.impulse[k];
    }
  }

  solvers::LcpSolverOptions opt;
  opt.method = s.kind == OneStepSolverKind::Lemke ? solvers::LcpMethod::Lemke : solvers::LcpMethod::Psor;
  opt.tolerance = s.tolerance;
  opt.max_iterations = s.max_iterations;
  solvers::SolverStats st = solvers::solve_lcp(lcp, ws.z, ws.w, opt);
  if (!st.converged()) {
    fail(model, rows, s, "LCP", st);
    if (ws.z.size() != m) ws.z.setZero(m);  // Keep: no iterate, no impulse
  }
  P.resize(m);
  for (Index i = 0; i < m; ++i) P[ws.order[i]] = ws.z[i];
  return st;
}

// The contacts' friction dim (2 or 3) of the active rows; a mix of dims is refused, naming the interaction.
int friction_dim(const Model& model, const ConstraintRows& rows, const OneStepSolveSettings& s) {
  int dim = 0;
  for (int a : rows.interactions)
    if (const auto* f = std::get_if<NewtonImpactFrictionLaw>(&model.interactions[a].law)) {
      if (dim != 0 && f->dim != dim)
        throw std::invalid_argument(context(s) + ": interaction " + std::to_string(a) + " '" +
                                    model.interactions[a].name + "' has friction dim " + std::to_string(f->dim) +
                                    " but other active contacts have dim " + std::to_string(dim));
      dim = f->dim;
    }
  return dim;
}

// Equalities with Coulomb contacts: the friction-contact problem with equality blocks (MixedNsgs.hpp). Problem
// rows: each equality interaction's rows as one block (in the order of `rows`), then each contact's `dim` rows
// (a frictionless contact's tangential rows padded with a unit diagonal and q = 0, as in solve_frictional).
solvers::SolverStats solve_mixed(const Model& model, const ConstraintRows& rows, const SparseMatrix& W,
                                 const Vector& Jv_free, const Vector& U_k, int dim, const OneStepSolveSettings& s,
                                 OneStepWorkspace& ws, Vector& P) {
  solvers::MixedFrictionContactProblem& fc = ws.mixed;
  fc.dim = dim;
  fc.equality_start.assign(1, 0);
  ws.equalities.clear();
  Index contacts = 0;
  for (size_t i = 0; i < rows.interactions.size(); ++i) {
    const Index nr = rows.row_offset[i + 1] - rows.row_offset[i];
    if (std::holds_alternative<EqualityLaw>(model.interactions[rows.interactions[i]].law)) {
      fc.equality_start.push_back(fc.equality_start.back() + nr);
      ws.equalities.push_back(rows.interactions[i]);
    } else {
      ++contacts;
    }
  }
  const Index me = fc.equality_start.back(), m = me + dim * contacts;
  fc.mu.resize(contacts);
  ws.order.assign(m, -1);
  fc.q.setZero(m);
  ws.r.setZero(m);
  Index e_row = 0, c = 0;
  for (size_t i = 0; i < rows.interactions.size(); ++i) {
    const Interaction& in = model.interactions[rows.interactions[i]];
    const Index r0 = rows.row_offset[i], nr = rows.row_offset[i + 1] - r0;
    const bool warm = in.impulse.size() == nr;
    Index first;
    if (std::holds_alternative<EqualityLaw>(in.law)) {
      first = e_row;
      e_row += nr;
    } else {
      const auto* f = std::get_if<NewtonImpactFrictionLaw>(&in.law);
      fc.mu[c] = f ? f->mu : 0.0;
      first = me + dim * c++;
    }
    for (Index k = 0; k < nr; ++k) {
      ws.order[first + k] = r0 + k;
      fc.q[first + k] = Jv_free[r0 + k];
      if (warm) ws.r[first + k] = in.impulse[k];
    }
    fc.q[first] += restitution(in.law) * U_k[r0];  // 0 for equalities
  }
  select_symmetric(W, ws.order, ws.problem_row, ws.triplets, fc.W);

  solvers::NsgsParameters np;
  np.tolerance = s.tolerance;
  np.max_iterations = s.max_iterations;
  solvers::SolverStats st = solvers::nsgs(fc, ws.r, ws.u, np);
  if (!st.converged()) {
    // Name the equality blocks the solver's message refers to by their interactions.
    solvers::SolverStats named = st;
    for (size_t e = 0; e < ws.equalities.size(); ++e)
      named.message += (e == 0 ? "; equality blocks: " : ", ") + std::to_string(e) + " = interaction " +
                       std::to_string(ws.equalities[e]) + " '" + model.interactions[ws.equalities[e]].name + "'";
    fail(model, rows, s, "friction-contact problem with equality rows (NSGS)", named);
    st = named;
  }
  P.setZero(rows.rows());
  for (Index i = 0; i < m; ++i)
    if (ws.order[i] >= 0) P[ws.order[i]] = ws.r[i];
  return st;
}

solvers::SolverStats solve_frictional(const Model& model, const ConstraintRows& rows, const SparseMatrix& W,
                                      const Vector& Jv_free, const Vector& U_k, const OneStepSolveSettings& s,
                                      OneStepWorkspace& ws, Vector& P) {
  const int dim = friction_dim(model, rows, s);
  for (int a : rows.interactions)
    if (std::holds_alternative<EqualityLaw>(model.interactions[a].law))
      return solve_mixed(model, rows, W, Jv_free, U_k, dim, s, ws, P);
  const Index contacts = static_cast<Index>(rows.interactions.size());
  solvers::FrictionContactProblem& fc = ws.fc;
  fc.dim = dim;
  fc.mu.resize(contacts);
  ws.order.assign(dim * contacts, -1);
  fc.q.setZero(dim * contacts);
  ws.r.setZero(dim * contacts);
  for (Index c = 0; c < contacts; ++c) {
    const Interaction& in = model.interactions[rows.interactions[c]];
    const auto* f = std::get_if<NewtonImpactFrictionLaw>(&in.law);
    fc.mu[c] = f ? f->mu : 0.0;
    const Index r0 = rows.row_offset[c], nr = rows.row_offset[c + 1] - r0;
    const bool warm = in.impulse.size() == nr;
    for (Index k = 0; k < nr; ++k) {
      ws.order[dim * c + k] = r0 + k;
      fc.q[dim * c + k] = Jv_free[r0 + k];
      if (warm) ws.r[dim * c + k] = in.impulse[k];
    }
    fc.q[dim * c] += restitution(in.law) * U_k[r0];
  }
  select_symmetric(W, ws.order, ws.problem_row, ws.triplets, fc.W);

  solvers::SolverStats st;
  if (dim == 2 && s.kind == OneStepSolverKind::Lemke) {
    ws.lcp = solvers::fc2d_to_lcp(fc);
    solvers::LcpSolverOptions opt;
    opt.method = s.kind == OneStepSolverKind::Lemke ? solvers::LcpMethod::Lemke : solvers::LcpMethod::Psor;
    opt.tolerance = s.tolerance;
    opt.max_iterations = s.max_iterations;
    ws.z.resize(0);
    st = solvers::solve_lcp(ws.lcp, ws.z, ws.w, opt);
    if (!st.converged()) {
      fail(model, rows, s, "2-D friction LCP", st);
      if (ws.z.size() != ws.lcp.size()) ws.z.setZero(ws.lcp.size());  // Keep: no iterate, no impulse
    }
    solvers::fc2d_reaction_from_lcp(fc, ws.z, ws.r);
  } else {
    solvers::NsgsParameters np;
    np.tolerance = s.tolerance;
    np.max_iterations = s.max_iterations;
    st = solvers::nsgs(fc, ws.r, ws.u, np);
    if (!st.converged()) fail(model, rows, s, "friction-contact problem (NSGS)", st, worst_contacts(model, rows, fc, ws.r));
  }
  P.setZero(rows.rows());
  for (Index i = 0; i < static_cast<Index>(ws.order.size()); ++i)
    if (ws.order[i] >= 0) P[ws.order[i]] = ws.r[i];
  return st;
}

}  // namespace

solvers::SolverStats solve_one_step(const Model& model, const ConstraintRows& rows, const SparseMatrix& W,
                                    const Vector& Jv_free, const Vector& U_k, const OneStepSolveSettings& settings,
                                    OneStepWorkspace& ws, Vector& P) {
  bool friction = false;
  for (int a : rows.interactions)
    friction = friction || std::holds_alternative<NewtonImpactFrictionLaw>(model.interactions[a].law);
  return friction ? solve_frictional(model, rows, W, Jv_free, U_k, settings, ws, P)
                  : solve_frictionless(model, rows, W, Jv_free, U_k, settings, ws, P);
}

}  // namespace talus
