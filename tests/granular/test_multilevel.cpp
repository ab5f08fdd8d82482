// The multilevel solver of issue 10 (MultilevelNsgs.hpp) and the NNCG-accelerated sweep, against answers they
// cannot fake: a column's exact weights (the contact k beads from the top carries k m g h, the floor all of
// them), reached by one V-cycle where plain Gauss–Seidel needs ~L² sweeps; agreement with plain NSGS at 1e-10 on
// small piles; the same state for 1 and 2 threads; and no worse than plain sweeps where rigid aggregates do not
// help (the checkpoint takes a harmful cycle back).
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/granular/SolverTestParameters.hpp"

using namespace talus::granular;

namespace {

using test::solver_parameters;

// Normal impulse of the contact between beads ia and ib (ib = −1: the floor), −1 when absent.
double normal_impulse(const GranularStepper& s, int ia, int ib) {
  for (const SweepContact& c : s.contacts()) {
    const bool floor = ib < 0 && c.a < 0 && c.b == ia;
    const bool pair = (c.a == ia && c.b == ib) || (c.a == ib && c.b == ia);
    if (floor || pair) return c.r[0];
  }
  return -1.0;
}

void check_column_weights(int layers) {
  BeadSpec spec;
  GranularScene sc = bead_column(spec, layers);
  GranularParameters p = solver_parameters(GranularSolver::Multilevel, 1e-10);
  p.resort_every = 0;  // keep the beads in column order (bottom first)
  // Plain sweeps before the cycle, so that the weights are the coarse correction's work (with Anderson on them,
  // the default, a two-bead column is solved before any cycle).
  p.multilevel.anderson = 0;
  GranularStepper s(sc.model, p);
  const GranularStepReport& r = s.step();
  REQUIRE(r.solver.converged());
  const talus::RigidBodies& b = sc.model.bodies;
  const double w = b.mass[0] * 9.81 * p.h;
  CHECK(normal_impulse(s, 0, -1) == Approx(layers * w).epsilon(1e-9));
  for (int k = 0; k + 1 < layers; ++k) {
    INFO("contact between beads " << k << " and " << k + 1);
    CHECK(normal_impulse(s, k, k + 1) == Approx((layers - 1 - k) * w).epsilon(1e-9));
  }
  // One cycle after the plain sweeps that come first, where plain NSGS needs 163 sweeps for ten beads.
  CHECK(r.cycles == 1);
  CHECK(r.solver.counters.sweeps <= p.multilevel.plain_first + p.multilevel.pre_sweeps + p.multilevel.post_sweeps);
  for (int i = 0; i < b.spheres(); ++i) CHECK(b.v[i].norm() < 1e-9);
}

}  // namespace

TEST_CASE("multilevel: a two-bead and a ten-bead column carry their exact weights after one cycle") {
  check_column_weights(2);
  check_column_weights(10);
}

TEST_CASE("multilevel: a column standing on a fixed bead carries the weights above it") {
  // A fixed bead (Python's Model.fix, or a sphere added fixed) belongs to no aggregate. The levels used to number
  // it as an aggregate without beads (no mass, no root bead), which wrote before the start of the trees' arrays.
  const int layers = 10;
  BeadSpec spec;
  GranularScene sc = bead_column(spec, layers);
  talus::RigidBodies& b = sc.model.bodies;
  b.inv_mass[0] = 0.0, b.inv_inertia[0] = 0.0, b.v[0].setZero();
  GranularParameters p = solver_parameters(GranularSolver::Multilevel, 1e-10);
  p.resort_every = 0;
  p.multilevel.anderson = 0;
  GranularStepper s(sc.model, p);
  const GranularStepReport& r = s.step();
  REQUIRE(r.solver.converged());
  CHECK(r.levels >= 1);
  const double w = b.mass[1] * 9.81 * p.h;
  for (int k = 0; k + 1 < layers; ++k) {
    INFO("contact between beads " << k << " and " << k + 1);
    CHECK(normal_impulse(s, k, k + 1) == Approx((layers - 1 - k) * w).epsilon(1e-9));
  }
  for (int i = 0; i < b.spheres(); ++i) CHECK(b.v[i].norm() < 1e-9);
}

TEST_CASE("multilevel: a 160-bead column is still one cycle (plain NSGS: about 25 000 sweeps)") {
  BeadSpec spec;
  GranularScene sc = bead_column(spec, 160);
  const GranularParameters p = solver_parameters(GranularSolver::Multilevel, 1e-8);
  GranularStepper s(sc.model, p);
  const GranularStepReport& r = s.step();
  REQUIRE(r.solver.converged());
  CHECK(r.cycles == 1);
  CHECK(r.solver.counters.sweeps <= p.multilevel.plain_first + p.multilevel.pre_sweeps + p.multilevel.post_sweeps);
  CHECK(r.levels >= 6);
}

TEST_CASE("multilevel, NNCG and Anderson agree with plain NSGS at 1e-10 on a small packed box and a falling lattice") {
  BeadSpec spec;
  for (int family = 0; family < 2; ++family) {
    INFO((family == 0 ? "packed_box(3, 4)" : "lattice_stack(3, 5), 40 steps"));
    auto scene = [&] { return family == 0 ? packed_box(spec, 3, 4) : lattice_stack(spec, 3, 5); };
    const int steps = family == 0 ? 1 : 40;
    GranularScene ref = scene();
    GranularStepper plain(ref.model, solver_parameters(GranularSolver::MatrixFree, 1e-10));
    for (int k = 0; k < steps; ++k) REQUIRE(plain.step().solver.converged());
    for (GranularSolver solver : {GranularSolver::Multilevel, GranularSolver::Nncg, GranularSolver::Anderson}) {
      GranularScene sc = scene();
      GranularStepper s(sc.model, solver_parameters(solver, 1e-10));
      for (int k = 0; k < steps; ++k) REQUIRE(s.step().solver.converged());
      double worst = 0.0, scale = 0.0;
      for (int i = 0; i < sc.model.bodies.spheres(); ++i) {
        worst = std::max(worst, (sc.model.bodies.v[i] - ref.model.bodies.v[i]).norm());
        worst = std::max(worst, 0.01 * (sc.model.bodies.w[i] - ref.model.bodies.w[i]).norm());  // r ω
        scale = std::max(scale, ref.model.bodies.v[i].norm());
      }
      INFO("solver " << static_cast<int>(solver) << ": worst velocity difference " << worst << " m/s");
      CHECK(worst <= 1e-6 * std::max(scale, 9.81e-3));
    }
  }
}

TEST_CASE("multilevel, NNCG and Anderson: the same state for 1 and 2 threads") {
  BeadSpec spec;
  for (GranularSolver solver : {GranularSolver::Multilevel, GranularSolver::Nncg, GranularSolver::Anderson}) {
    std::uint64_t hash[2];
    for (int t = 0; t < 2; ++t) {
      GranularScene sc = lattice_stack(spec, 4, 6);
      GranularParameters p = solver_parameters(solver, 1e-4);
      p.threads = t + 1;
      GranularStepper s(sc.model, p);
      for (int k = 0; k < 60; ++k) REQUIRE(s.step().solver.converged());
      hash[t] = state_hash(sc.model.bodies);
    }
    CHECK(hash[0] == hash[1]);
  }
}

TEST_CASE("multilevel routing: a bead resting on four oblique contacts gets its whole need, within the cones") {
  // A bead in the hollow of four (a face-centred pack's (100) layers: contacts 45° off vertical, μ = 0.3). Its
  // need, the impulse that makes it move with its aggregate, is vertical here. One contact alone could carry it only
  // with |r_T| = r_N > μ r_N: through the tree contact the cone cuts it to 78 % and turns it 28° sideways (an error
  // of 47 % of the need; along a path of such contacts little arrives). Shared by the four (Routing::spread), it is
  // delivered whole, every contact pushing and inside its cone.
  using namespace talus::matrixfree;
  const double r = 0.01, m = 2500.0 * 4.0 / 3.0 * M_PI * r * r * r, inv_i = 1.0 / (0.4 * m * r * r);
  std::vector<Eigen::Vector3d> x = {{-r, -r, r}, {r, -r, r}, {-r, r, r}, {r, r, r}, {0.0, 0.0, r + std::sqrt(2.0) * r}};
  const int n = 5, top = 4;
  std::vector<double> inv_mass(n, 1.0 / m), inv_inertia(n, inv_i), mass(n, m), radius(n, r);
  for (int variant = 0; variant < 2; ++variant) {
    const bool spread = variant == 1;
    INFO((spread ? "spread routing" : "tree routing"));
    std::vector<Eigen::Vector3d> v(n, Eigen::Vector3d::Zero()), w(n, Eigen::Vector3d::Zero());
    BodyArrays beads;
    beads.v = v.data(), beads.w = w.data(), beads.inv_mass = inv_mass.data(), beads.inv_inertia = inv_inertia.data();
    beads.x = x.data(), beads.mass = mass.data(), beads.radius = radius.data(), beads.count = beads.spheres = n;
    std::vector<SweepContact> contacts(4);
    for (int k = 0; k < 4; ++k) {
      SweepContact& c = contacts[k];
      c.a = k, c.b = top, c.ra = c.rb = r, c.mu = 0.3;
      c.n = (x[top] - x[k]).normalized();
      c.t1 = c.n.unitOrthogonal(), c.t2 = c.n.cross(c.t1);
    }
    // One aggregate, the base beads its roots (nothing routed on from them), the top bead's tree contact the first.
    AggregateLevel L;
    L.count = 1;
    L.bead_aggregate.assign(n, 0);
    L.order = {0, 1, 2, 3, top};
    L.tree_parent = {-1, -1, -1, -1, 0};
    L.tree_contact = {-1, -1, -1, -1, 0};
    L.route_start = {0, 0, 0, 0, 0, 4};
    L.route_contacts = {0, 1, 2, 3};
    MultilevelWorkspace work;
    work.deficit.assign(n, Eigen::Vector3d::Zero());
    const Eigen::Vector3d need(0.0, 0.0, m * 9.81e-3);  // its weight over a step of 1 ms
    work.deficit[top] = need;
    route_and_apply(&L, Routing{false, spread}, contacts, beads, work);
    const Eigen::Vector3d got = v[top] / inv_mass[top];
    if (spread) {
      CHECK((got - need).norm() <= 1e-12 * need.norm());
      Eigen::Vector3d base = Eigen::Vector3d::Zero();
      for (int k = 0; k < 4; ++k) {
        const SweepContact& c = contacts[k];
        INFO("contact " << k << ": r = " << c.r.transpose());
        CHECK(c.r[0] > 0.0);
        CHECK(std::hypot(c.r[1], c.r[2]) <= c.mu * c.r[0] * (1.0 + 1e-12));
        CHECK(c.r[0] == Approx(contacts[0].r[0]).epsilon(1e-12));  // the four alike, by symmetry
        base += v[k] / inv_mass[k];
      }
      CHECK((base + need).norm() <= 1e-12 * need.norm());  // the base beads take the reaction
      for (int k = 0; k < 4; ++k) CHECK(work.deficit[k].isApprox(-v[k] / inv_mass[k], 1e-12));  // to pass on
    } else {
      CHECK((got - need).norm() > 0.4 * need.norm());
    }
  }
}

TEST_CASE("multilevel: each solve in a row that gives its levels up doubles the plain stretch after it") {
  // A fine problem on which no cycle ever lowers the residual (a flow where aggregates are not rigid, at its worst):
  // every solve that tries cycles takes three trials back and gives the levels up. The steps between such tries are
  // 25, 50, 100, ... (retry_after doubled per give-up in a row, up to 32 ×), and one solve whose cycles work resets
  // the count.
  using namespace talus::matrixfree;
  struct Stuck final : MultilevelFine {
    bool works = false;
    int tried = 0;
    double res = 1.0;
    double residual(int) override { return res; }
    talus::solvers::SolverStats plain(const MatrixFreeParameters& p, int) override {
      talus::solvers::SolverStats s;
      s.counters.sweeps = p.max_sweeps, s.iterations = p.max_sweeps, s.residual = res;
      return s;
    }
    void sweep(int) override {
      if (works) res *= 0.5;
    }
    bool coarse() const override { return true; }
    int top_levels() const override { return 1; }
    void visit_top(int, int, double, Routing) override { ++tried; }
  } fine;
  std::vector<SweepContact> contacts;
  BodyArrays beads;
  MatrixFreeParameters fp;
  fp.max_sweeps = 1000;
  MultilevelParameters p;
  MultilevelWorkspace w;
  std::vector<int> tries;  // the solves (steps) that tried cycles
  for (int step = 0; step < 25 + 50 + 100 + 200 + 5; ++step) {
    const int before = fine.tried;
    multilevel_cycles(fine, contacts, beads, fp, p, w, false, "test");
    if (fine.tried > before) tries.push_back(step);
  }
  REQUIRE(tries.size() == 5);
  CHECK(tries[0] == 0);
  for (int k = 1; k < 5; ++k) CHECK(tries[k] - tries[k - 1] == 1 + (p.retry_after << (k - 1)));
  CHECK(w.give_ups == 5);
  while (w.cooldown > 0) multilevel_cycles(fine, contacts, beads, fp, p, w, false, "test");
  fine.works = true, fine.res = 1.0;
  fp.tolerance = 1e-3;
  const talus::solvers::SolverStats s = multilevel_cycles(fine, contacts, beads, fp, p, w, false, "test");
  CHECK(s.converged());
  CHECK(w.give_ups == 0);
  CHECK(w.cooldown == 0);
}
