// One problem, two operators (issue 11 item 2): the factored Delassus operator (H and X = M⁻¹H, W never
// formed) against the condensed, assembled W of the same global problem, on rigid bodies (block-diagonal M)
// and on a banded SPD mass matrix with full FE-like coupling; NSGS, APGD and the semismooth Newton solver run
// on both forms and reach the same solution; a granular step's global problem solves on the factored form to
// the tolerance of the independent residual.
#include <catch2/catch.hpp>
#include <random>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/core/DelassusOperator.hpp"
#include "solvers/fc/Apgd.hpp"
#include "solvers/fc/FactoredDelassus.hpp"
#include "solvers/fc/GlobalFrictionContactProblem.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "solvers/fc/SemismoothNewton.hpp"

using namespace talus;
using namespace talus::solvers;
using Eigen::Vector3d;

namespace {

// Rigid bodies (mass, principal inertia) in contact pairwise along random frames with random lever arms; each
// body rests on the ground (a contact with one body), so W is positive definite on the normal rows. The free
// velocity pushes the bodies into their contacts.
GlobalFrictionContactProblem rigid_problem(int bodies, int pairs, double mu, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), pos(0.5, 2.0);
  GlobalFrictionContactProblem g;
  g.dim = 3;
  const int n = 6 * bodies;
  std::vector<Triplet> mt;
  for (int b = 0; b < bodies; ++b) {
    const double m = pos(rng);
    for (int k = 0; k < 3; ++k) mt.emplace_back(6 * b + k, 6 * b + k, m);
    for (int k = 0; k < 3; ++k) mt.emplace_back(6 * b + 3 + k, 6 * b + 3 + k, 0.1 * m * pos(rng));
  }
  g.M.resize(n, n);
  g.M.setFromTriplets(mt.begin(), mt.end());
  std::vector<std::pair<int, int>> contacts;
  for (int b = 0; b < bodies; ++b) contacts.emplace_back(-1, b);
  std::uniform_int_distribution<int> pick(0, bodies - 1);
  while (static_cast<int>(contacts.size()) < bodies + pairs) {
    const int a = pick(rng), b = pick(rng);
    if (a != b) contacts.emplace_back(a, b);
  }
  const int nc = static_cast<int>(contacts.size());
  std::vector<Triplet> ht;
  for (int c = 0; c < nc; ++c) {
    const Vector3d nrm = Vector3d(u(rng), u(rng), 2.0 + u(rng)).normalized();
    const Vector3d t1 = nrm.unitOrthogonal(), t2 = nrm.cross(t1);
    const Vector3d frame[3] = {nrm, t1, t2};
    const Vector3d pa(u(rng), u(rng), u(rng)), pb(u(rng), u(rng), u(rng));
    for (int k = 0; k < 3; ++k) {
      const int col = 3 * c + k;
      const Vector3d lb = pb.cross(frame[k]), la = pa.cross(frame[k]);
      for (int e = 0; e < 3; ++e) {
        ht.emplace_back(6 * contacts[c].second + e, col, frame[k][e]);
        ht.emplace_back(6 * contacts[c].second + 3 + e, col, lb[e]);
        if (contacts[c].first >= 0) {
          ht.emplace_back(6 * contacts[c].first + e, col, -frame[k][e]);
          ht.emplace_back(6 * contacts[c].first + 3 + e, col, -la[e]);
        }
      }
    }
  }
  g.H.resize(n, 3 * nc);
  g.H.setFromTriplets(ht.begin(), ht.end());
  g.f = Vector::Zero(n);
  for (int b = 0; b < bodies; ++b) g.f[6 * b + 2] = -9.81 * g.M.coeff(6 * b, 6 * b);
  g.w = Vector::Zero(3 * nc);
  for (int c = 0; c < nc; ++c) g.w[3 * c] = 0.01 * (1.0 + u(rng));
  g.mu = Vector::Constant(nc, mu);
  return g;
}

// A banded SPD mass matrix (an FE body's coupling), contacts touching four random degrees of freedom each.
GlobalFrictionContactProblem banded_problem(int n, int nc, double mu, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> dof(0, n - 1);
  GlobalFrictionContactProblem g;
  g.dim = 3;
  std::vector<Triplet> mt;
  for (int i = 0; i < n; ++i) {
    mt.emplace_back(i, i, 4.0);
    for (int off : {1, 6})
      if (i + off < n) mt.emplace_back(i, i + off, -0.9), mt.emplace_back(i + off, i, -0.9);
  }
  g.M.resize(n, n);
  g.M.setFromTriplets(mt.begin(), mt.end());
  std::vector<Triplet> ht;
  for (int col = 0; col < 3 * nc; ++col)
    for (int k = 0; k < 4; ++k) ht.emplace_back(dof(rng), col, u(rng));
  g.H.resize(n, 3 * nc);
  g.H.setFromTriplets(ht.begin(), ht.end());
  g.f = Vector::Zero(n);
  for (int i = 0; i < n; ++i) g.f[i] = u(rng);
  g.w = Vector::Zero(3 * nc);
  for (int c = 0; c < nc; ++c) g.w[3 * c] = 0.5 * u(rng);
  g.mu = Vector::Constant(nc, mu);
  return g;
}

double relative(const Vector& a, const Vector& b) { return (a - b).norm() / std::max(1e-300, b.norm()); }

}  // namespace

TEST_CASE("the factored operator is the condensed W: products, q, diagonal blocks, W itself") {
  for (const GlobalFrictionContactProblem& g :
       {rigid_problem(30, 60, 0.4, 1), banded_problem(60, 12, 0.3, 2)}) {
    const FrictionContactProblem p = condense_to_local(g);
    const FactoredDelassus op(g);
    const AssembledDelassus assembled(p);
    CHECK(op.contacts() == p.contacts());
    CHECK(relative(op.q(), p.q) < 1e-13);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Vector x(p.q.size()), y, z;
    for (Index k = 0; k < x.size(); ++k) x[k] = u(rng);
    op.multiply(x, y);
    assembled.multiply(x, z);
    CHECK(relative(y, z) < 1e-13);
    double a[9], b[9];
    for (Index i = 0; i < p.contacts(); ++i) {
      op.diagonal_block(i, a);
      assembled.diagonal_block(i, b);
      for (int k = 0; k < 9; ++k) CHECK(a[k] == Approx(b[k]).margin(1e-13));
    }
    CHECK((op.assembled().W - p.W).norm() < 1e-13 * p.W.norm());
    CHECK(std::string(op.form()) == "factored");
  }
  // On rigid bodies X keeps H's pattern: the factored form stores far less than W.
  const GlobalFrictionContactProblem g = rigid_problem(200, 600, 0.3, 4);
  const FactoredDelassus op(g);
  CHECK(op.X().nonZeros() <= g.H.nonZeros());
  CHECK(op.stored_entries() < op.assembled().W.nonZeros());
}

TEST_CASE("NSGS makes the same iterates on both forms, and converges on both") {
  for (const GlobalFrictionContactProblem& g :
       {rigid_problem(20, 40, 0.5, 5), banded_problem(40, 10, 0.3, 6)}) {
    const FrictionContactProblem p = condense_to_local(g);
    const FactoredDelassus factored(g);
    const AssembledDelassus assembled(p);
    NsgsParameters prm;
    prm.anderson_memory = 0;  // the factored sweep is plain
    prm.tolerance = 0.0;
    prm.max_iterations = 7;
    Vector ra, rf, ua, uf;
    const SolverStats sa = nsgs(assembled, ra, ua, prm);
    const SolverStats sf = nsgs(factored, rf, uf, prm);
    CHECK(sa.iterations == 7);
    CHECK(sf.iterations == 7);
    CHECK(relative(rf, ra) < 1e-10);
    CHECK(relative(uf, ua) < 1e-10);
    prm.tolerance = 1e-10;
    prm.max_iterations = 20000;
    rf.resize(0);
    const SolverStats converged = nsgs(factored, rf, uf, prm);
    CHECK(converged.converged());
    CHECK(friction_residual(p, rf) <= 1e-10);  // the assembled problem's own residual
  }
}

TEST_CASE("APGD and the semismooth Newton solver run on the factored form and solve the assembled problem") {
  for (const GlobalFrictionContactProblem& g :
       {rigid_problem(20, 40, 0.3, 7), banded_problem(40, 10, 0.3, 8)}) {
    const FrictionContactProblem p = condense_to_local(g);
    const FactoredDelassus factored(g);
    ApgdParameters ap;
    ap.tolerance = 1e-8;
    ap.max_iterations = 100000;
    Vector r, u;
    const SolverStats sa = apgd(factored, r, u, ap);
    CHECK(sa.converged());
    CHECK(friction_residual(p, r) <= 1e-8);
    Vector ra, ua;
    const SolverStats sb = apgd(p, ra, ua, ap);  // the assembled form, for the iteration count
    CHECK(sb.converged());
    CHECK(std::abs(sa.iterations - sb.iterations) <= sb.iterations / 10 + 2);
    SemismoothNewtonParameters np;
    np.tolerance = 1e-10;
    Vector rn, un;
    const SolverStats sn = semismooth_newton(factored, rn, un, np);
    CHECK(sn.converged());
    CHECK(friction_residual(p, rn) <= 1e-10);
    CHECK(sn.message.find("W formed from the factored operator") != std::string::npos);
  }
}

TEST_CASE("a granular step's global problem solves on the factored form") {
  granular::BeadSpec spec;
  spec.n = 64;
  granular::GranularScene sc = granular::bead_stack(spec);
  granular::GranularParameters params;
  granular::GranularStepper stepper(sc.model, params);
  for (int k = 0; k < 150; ++k) stepper.step();
  stepper.keep_next_problem();
  stepper.step();
  const GlobalFrictionContactProblem& g = stepper.last_global_problem();
  REQUIRE(g.contacts() > 50);
  const FactoredDelassus factored(g);
  const FrictionContactProblem p = condense_to_local(g);
  NsgsParameters prm;
  prm.anderson_memory = 0;
  prm.tolerance = 1e-6;
  prm.max_iterations = 100000;
  Vector r, u;
  const SolverStats s = nsgs(factored, r, u, prm);
  CHECK(s.converged());
  CHECK(friction_residual(p, r) <= 1e-6);
  CHECK(factored.stored_entries() < factored.assembled().W.nonZeros());
}
