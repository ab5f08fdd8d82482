// Coloured (parallel) NSGS: the colouring separates every coupled pair of contacts, a coloured sweep gives
// bit-identical reactions on any number of threads (STYLE.md practice 10), and it reaches the same answer as the
// serial sweep where that answer is unique.
#include <catch2/catch.hpp>
#include <random>

#include "solvers/fc/BlockCsrMatrix.hpp"
#include "solvers/fc/ContactColouring.hpp"
#include "solvers/fc/LatticeStackProblem.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "tests/solvers_fc/RandomFrictionProblem.hpp"

using namespace talus;
using namespace talus::solvers;

namespace {

FrictionContactProblem small_stack(double noise) {
  LatticeStackParameters lp;
  lp.nx = 7;
  lp.ny = 6;
  lp.nz = 4;
  lp.velocity_noise = noise;
  lp.seed = 5;
  return make_lattice_stack_problem(lp);
}

}  // namespace

TEST_CASE("Lattice stack: contact count, symmetric PSD W, gravity in q", "[fc][lattice]") {
  LatticeStackParameters lp;
  lp.nx = 3;
  lp.ny = 2;
  lp.nz = 2;
  const FrictionContactProblem p = make_lattice_stack_problem(lp);
  // floor 6 + vertical 6 + along x 2·2·2 + along y 3·1·2 = 26
  CHECK(p.contacts() == 26);
  CHECK(lattice_stack_contacts(lp) == 26);
  const Matrix W = Matrix(p.W);
  CHECK((W - W.transpose()).norm() <= 1e-12 * W.norm());
  CHECK(Eigen::SelfAdjointEigenSolver<Matrix>(W).eigenvalues().minCoeff() >= -1e-10 * W.norm());
  // Without noise only the floor contacts see the free fall h g in their normal velocity; everything else is 0.
  const double hg = lp.time_step * lp.gravity;
  CHECK(p.q[0] == Approx(-hg));
  CHECK(p.q.cwiseAbs().sum() == Approx(6 * hg));
  // A floor contact's diagonal block: normal 1/m, tangents 1/m + R²/I = 3.5/m.
  const double m = lp.density * 4.0 / 3.0 * M_PI * std::pow(lp.radius, 3);
  CHECK(W(0, 0) == Approx(1.0 / m));
  CHECK(W(1, 1) == Approx(3.5 / m));
}

TEST_CASE("Greedy colouring separates every pair of coupled contacts", "[fc][parallel]") {
  const FrictionContactProblem p = small_stack(0.0);
  const ContactGraph graph = make_contact_graph(p.W, 3);
  const ContactColouring colouring = colour_contacts(graph);
  CHECK(is_valid_colouring(graph, colouring));
  int max_degree = 0;
  for (Index i = 0; i < graph.contacts(); ++i) max_degree = std::max(max_degree, graph.start[i + 1] - graph.start[i]);
  CHECK(colouring.colours() <= max_degree + 1);
  CHECK(colouring.colours() >= 2);
  // order is a permutation grouped by colour
  std::vector<int> seen(p.contacts(), 0);
  for (int k = 0; k < colouring.colours(); ++k)
    for (int s = colouring.colour_start[k]; s < colouring.colour_start[k + 1]; ++s) {
      CHECK(colouring.colour[colouring.order[s]] == k);
      ++seen[colouring.order[s]];
    }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  // A wrong colouring is caught: give two neighbours the same colour.
  ContactColouring broken = colouring;
  broken.colour[graph.neighbour[graph.start[0]]] = broken.colour[0];
  CHECK_FALSE(is_valid_colouring(graph, broken));
}

TEST_CASE("Block-CSR copy reproduces W r in any row order", "[fc][parallel]") {
  const FrictionContactProblem p = small_stack(0.01);
  std::mt19937 rng(2);
  std::vector<int> order(p.contacts());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const BlockCsrMatrix B = make_block_csr(p.W, 3, order);
  const Vector r = Vector::LinSpaced(p.q.size(), -1.0, 2.0);
  const Vector expected = p.W * r;
  for (Index k = 0; k < B.block_rows; ++k) {
    Eigen::Vector3d y = Eigen::Map<const Eigen::Matrix3d>(B.diagonal_block(k)).transpose() * r.segment<3>(3 * order[k]);
    for (int e = B.row_start[k]; e < B.row_start[k + 1]; ++e)
      y += Eigen::Map<const Eigen::Matrix3d>(B.off_diagonal.data() + 9 * e).transpose() *
           r.segment<3>(3 * order[B.block_col[e]]);
    CHECK((y - expected.segment<3>(3 * order[k])).norm() <= 1e-12 * expected.norm());
  }
}

TEST_CASE("Coloured NSGS is bit-identical across runs and thread counts", "[fc][parallel]") {
  const FrictionContactProblem p = small_stack(0.01);
  SECTION("fixed number of sweeps, plain Gauss-Seidel: 1 and 2 threads agree bit for bit") {
    // (More threads than this machine's 2 cores would only measure the scheduler: spinning barriers.)
    Vector reference;
    for (int threads : {1, 2}) {
      NsgsParameters prm;
      prm.coloured = true;
      prm.threads = threads;
      prm.min_contacts_per_thread = 1;  // really use the threads on this small problem
      prm.tolerance = 0.0;
      prm.max_iterations = 30;
      prm.anderson_memory = 0;
      Vector r, u;
      const SolverStats s = nsgs(p, r, u, prm);
      CHECK(s.iterations == 30);
      CHECK(s.counters.colours >= 2);
      if (threads == 1)
        reference = r;
      else
        CHECK(r == reference);
    }
  }
  SECTION("default settings (Anderson phases included): same thread count, same result") {
    // 150 sweeps span three Anderson windows; the solve to tolerance on 2 threads is the next test's job.
    NsgsParameters prm;
    prm.threads = 2;
    prm.min_contacts_per_thread = 1;
    prm.tolerance = 1e-13;
    prm.max_iterations = 150;
    Vector r1, r2, u;
    const SolverStats s1 = nsgs(p, r1, u, prm);
    const SolverStats s2 = nsgs(p, r2, u, prm);
    CHECK(s1.iterations == 150);
    CHECK(s1.status == SolverStatus::MaxIterations);
    CHECK(s2.iterations == s1.iterations);
    CHECK(r1 == r2);
  }
}

TEST_CASE("Coloured parallel NSGS agrees with the serial sweep", "[fc][parallel]") {
  SECTION("resting stack: both converge; the velocities (unique) agree") {
    const FrictionContactProblem p = small_stack(0.0);
    NsgsParameters serial, parallel;
    parallel.threads = 2;
    parallel.min_contacts_per_thread = 1;
    Vector rs, us, rp, up;
    const SolverStats ss = nsgs(p, rs, us, serial);
    const SolverStats sp = nsgs(p, rp, up, parallel);
    REQUIRE(ss.converged());
    REQUIRE(sp.converged());
    CHECK(friction_residual(p, rp) <= 1e-8);
    CHECK((us - up).norm() <= 1e-6 * p.q.norm());
  }
  SECTION("positive definite W and small friction: the unique reactions agree") {
    // 40 bodies, 60 contacts: 180 contact rows against 240 dofs, and μ = 0.1 small enough for uniqueness.
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const FrictionContactProblem p = testing::random_friction_problem(3, 40, 60, 0.1, seed);
      NsgsParameters serial, parallel;
      serial.tolerance = parallel.tolerance = 1e-12;
      parallel.threads = 2;
      parallel.min_contacts_per_thread = 1;
      Vector rs, us, rp, up;
      REQUIRE(nsgs(p, rs, us, serial).converged());
      const SolverStats s = nsgs(p, rp, up, parallel);
      REQUIRE(s.converged());
      CHECK(s.counters.colours >= 2);
      CHECK((rs - rp).norm() <= 1e-8 * rs.norm());
    }
  }
}
