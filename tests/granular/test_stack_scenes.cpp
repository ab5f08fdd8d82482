// The stack-height scenes of issue 10 (GranularScenes.hpp: bead_column, packed_box, lattice_stack, pyramid) give what
// bench/stack_height claims to measure: the bead counts, every neighbour exactly touching (gap 0 to round-off,
// no overlap, no near miss), beads inside their box, a column on one vertical line; and the column's first step
// solved by plain matrix-free NSGS carries the exact weights (the contact k beads from the top: k m g h).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus::granular;
using talus::Model;

namespace {

// Bead pairs whose gap is within `tol` of 0, and the smallest gap of every other pair (both over r).
struct PairCount {
  long touching = 0;
  double worst_touching = 0.0;  // max |gap| / r over the touching pairs
  double nearest_other = INFINITY;
};

PairCount count_pairs(const talus::RigidBodies& b, double tol) {
  PairCount c;
  for (int i = 0; i < b.spheres(); ++i)
    for (int j = i + 1; j < b.spheres(); ++j) {
      const double gap = ((b.x[i] - b.x[j]).norm() - b.radius[i] - b.radius[j]) / b.radius[i];
      if (std::abs(gap) < tol)
        ++c.touching, c.worst_touching = std::max(c.worst_touching, std::abs(gap));
      else
        c.nearest_other = std::min(c.nearest_other, gap);
    }
  return c;
}

// Signed distance of bead i's surface from each wall, over r: its minimum, and how many walls it touches.
std::pair<double, int> wall_gaps(const Model& m, int i, double tol) {
  double least = INFINITY;
  int touching = 0;
  for (const auto& w : m.walls) {
    const double gap = (w.normal.dot(m.bodies.x[i]) - w.offset - m.bodies.radius[i]) / m.bodies.radius[i];
    least = std::min(least, gap);
    touching += std::abs(gap) < tol ? 1 : 0;
  }
  return {least, touching};
}

}  // namespace

TEST_CASE("bead_column: L beads on one vertical line, each touching the next and the bottom one the floor") {
  BeadSpec spec;
  GranularScene sc = bead_column(spec, 10);
  const talus::RigidBodies& b = sc.model.bodies;
  REQUIRE(b.spheres() == 10);
  REQUIRE(sc.model.walls.size() == 1);
  const double r = spec.radius;
  for (int i = 0; i < b.spheres(); ++i) {
    CHECK(b.x[i].x() == b.x[0].x());
    CHECK(b.x[i].y() == b.x[0].y());
    CHECK(b.radius[i] == r);
  }
  std::vector<double> z;
  for (const auto& x : b.x) z.push_back(x.z());
  std::sort(z.begin(), z.end());
  CHECK(std::abs(z[0] - r - sc.model.walls[0].offset) < 1e-14 * r);
  for (std::size_t i = 1; i < z.size(); ++i) CHECK(std::abs(z[i] - z[i - 1] - 2.0 * r) < 1e-12 * r);
  const PairCount c = count_pairs(b, 1e-9);
  CHECK(c.touching == 9);
  CHECK(c.nearest_other > 1.9);  // next-nearest: 2 r of gap
  CHECK_THROWS_AS(bead_column(spec, 0), std::invalid_argument);
  spec.polydispersity = 0.05;
  CHECK_THROWS_AS(bead_column(spec, 10), std::invalid_argument);
}

TEST_CASE("packed_box: FCC (100) layers in a box, every neighbour and the outer beads touching exactly") {
  BeadSpec spec;
  const double r = spec.radius;
  for (auto [k, L] : {std::pair{2, 1}, std::pair{3, 4}, std::pair{4, 5}}) {
    CAPTURE(k, L);
    GranularScene sc = packed_box(spec, k, L);
    const talus::RigidBodies& b = sc.model.bodies;
    const long odd = L / 2, even = L - odd;
    REQUIRE(b.spheres() == even * k * k + odd * (k - 1) * (k - 1));
    REQUIRE(b.spheres() == packed_box_beads(k, L));
    // In a square layer of n × n beads 2 n (n − 1) pairs touch; a bead of an odd layer touches four below and
    // four above.
    const long in_layers = even * 2L * k * (k - 1) + odd * 2L * (k - 1) * (k - 2);
    const long across = (L - 1) * 4L * (k - 1) * (k - 1);
    const PairCount c = count_pairs(b, 1e-9);
    CHECK(c.touching == in_layers + across);
    CHECK(c.worst_touching < 1e-12);
    // Every other pair is clearly open (the next neighbours of FCC are 2√2 r apart: a gap of 0.83 r).
    CHECK(c.nearest_other > 0.8);
    const double side = 2.0 * r * k;
    int on_floor = 0, on_walls = 0;
    for (int i = 0; i < b.spheres(); ++i) {
      const auto [least, touching] = wall_gaps(sc.model, i, 1e-9);
      CHECK(least > -1e-12);  // inside the box
      CHECK(b.x[i].x() - r > -1e-12 * r);
      CHECK(b.x[i].x() + r < side + 1e-12 * r);
      on_floor += std::abs(b.x[i].z() - r) < 1e-12 * r ? 1 : 0;
      on_walls += touching;
    }
    CHECK(on_floor == k * k);
    // The outer ring of each even layer touches the side walls (corners touch two), plus the floor contacts.
    CHECK(on_walls == even * 4 * k + k * k);
  }
  CHECK_THROWS_AS(packed_box(spec, 1, 5), std::invalid_argument);
  CHECK_THROWS_AS(packed_box(spec, 3, 0), std::invalid_argument);
}

TEST_CASE("lattice_stack: bead_stack's lattice with a k x k footprint and L layers, inside its box") {
  BeadSpec spec;  // spacing 2.2 r, jitter 0.05 r
  const int k = 3, L = 7;
  GranularScene sc = lattice_stack(spec, k, L);
  const talus::RigidBodies& b = sc.model.bodies;
  REQUIRE(b.spheres() == k * k * L);
  REQUIRE(sc.model.walls.size() == 5);
  const double r = spec.radius, a = spec.spacing * r;
  std::vector<double> z;
  for (int i = 0; i < b.spheres(); ++i) {
    CHECK(wall_gaps(sc.model, i, 0.0).first > 0.0);
    CHECK(b.x[i].x() + r < k * a);
    CHECK(b.x[i].y() + r < k * a);
    z.push_back(b.x[i].z());
  }
  std::sort(z.begin(), z.end());
  z.erase(std::unique(z.begin(), z.end()), z.end());
  CHECK(z.size() == static_cast<std::size_t>(L));
  CHECK(std::abs(z.back() - (L - 0.5) * a) < 1e-12);
  // The lattice is loose: nothing touches before the collapse.
  CHECK(count_pairs(b, 1e-9).touching == 0);
  CHECK(count_pairs(b, 1e-9).nearest_other > 0.05);
}

TEST_CASE("a 10-bead column's first step, plain matrix-free NSGS from zero reactions: the exact weights") {
  BeadSpec spec;
  const int L = 10;
  GranularScene sc = bead_column(spec, L);
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-10;
  p.solver = GranularSolver::MatrixFree;
  GranularStepper stepper(sc.model, p);
  const GranularStepReport& rep = stepper.step();
  REQUIRE(rep.solver.converged());
  REQUIRE(rep.contacts == L);
  const talus::RigidBodies& b = sc.model.bodies;
  const double mgh = b.mass[0] * 9.81 * p.h;
  // The stepper re-sorts the beads, so contacts are told apart by height: the contact under the bead with
  // k − 1 beads above it carries k m g h.
  std::vector<double> z(b.x.size());
  for (int i = 0; i < b.spheres(); ++i) z[i] = b.x[i].z();
  int floor_contacts = 0;
  for (const SweepContact& c : stepper.contacts()) {
    const int upper = c.a < 0 ? c.b : (z[c.a] > z[c.b] ? c.a : c.b);
    const long k = std::count_if(z.begin(), z.end(), [&](double zz) { return zz >= z[upper]; });
    CAPTURE(k);
    // The impulse pushes the upper bead up: along +n when it is b (n points from a to b), −n when it is a.
    const double up = c.r[0] * (upper == c.b ? c.n.z() : -c.n.z());
    CHECK(std::abs(up - k * mgh) <= 1e-4 * k * mgh);
    CHECK(std::hypot(c.r[1], c.r[2]) <= 1e-8 * mgh);
    if (c.a < 0) {
      ++floor_contacts;
      CHECK(k == L);
      CHECK(std::abs(c.r[0] - L * mgh) <= 1e-4 * L * mgh);
    }
  }
  CHECK(floor_contacts == 1);
  for (const auto& v : b.v) CHECK(v.norm() < 1e-8);
}

TEST_CASE("packed_box's first step: the walls carry the whole weight and the pack stays at rest") {
  BeadSpec spec;
  GranularScene sc = packed_box(spec, 3, 6);
  GranularParameters p;
  p.tolerance = 1e-10;
  p.max_sweeps = 100000;
  GranularStepper stepper(sc.model, p);
  const GranularStepReport& rep = stepper.step();
  REQUIRE(rep.solver.converged());
  const talus::RigidBodies& b = sc.model.bodies;
  double vertical = 0.0, weight = 0.0;
  for (const SweepContact& c : stepper.contacts())
    if (c.a < 0) vertical += (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2).z();
  for (int i = 0; i < b.spheres(); ++i) weight += b.mass[i] * 9.81 * p.h;
  CHECK(std::abs(vertical - weight) <= 1e-6 * weight);
  double vmax = 0.0;
  for (const auto& v : b.v) vmax = std::max(vmax, v.norm());
  CHECK(vmax < 1e-6 * 9.81 * p.h);
}

TEST_CASE("pyramid: FCC (100) layers narrowing to one bead, every neighbour touching exactly, on the floor alone") {
  BeadSpec spec;
  const double r = spec.radius;
  for (int L : {1, 2, 5, 8}) {
    CAPTURE(L);
    GranularScene sc = pyramid(spec, L);
    const talus::RigidBodies& b = sc.model.bodies;
    long beads = 0, in_layers = 0, across = 0;
    for (long n = 1; n <= L; ++n) beads += n * n, in_layers += 2 * n * (n - 1);
    for (long n = 1; n < L; ++n) across += 4 * n * n;  // each bead of a layer of n × n rests on four below
    REQUIRE(b.spheres() == beads);
    const PairCount c = count_pairs(b, 1e-9);
    CHECK(c.touching == in_layers + across);
    CHECK(c.worst_touching < 1e-12);
    if (L > 1) CHECK(c.nearest_other > 0.8);
    REQUIRE(sc.model.walls.size() == 1);
    int on_floor = 0;
    for (int i = 0; i < b.spheres(); ++i) {
      const auto [least, touching] = wall_gaps(sc.model, i, 1e-9);
      CHECK(least > -1e-12);
      on_floor += touching;
    }
    CHECK(on_floor == L * L);
    CHECK(std::abs(b.x[b.spheres() - 1].z() - (r + std::sqrt(2.0) * r * (L - 1))) < 1e-12);
  }
  CHECK_THROWS_AS(pyramid(spec, 0), std::invalid_argument);
}

TEST_CASE("pyramid's first step from zero reactions: momentum balance against the floor's impulses") {
  // Free spheres roll off a pyramid's edges (no rolling resistance holds them), so the pyramid is not at rest:
  // what the step must still honour is the balance of momentum, Σ m Δv = the floor's impulses − M g h, each bead
  // pair's impulses cancelling.
  BeadSpec spec;
  GranularScene sc = pyramid(spec, 6);
  GranularParameters p;
  p.tolerance = 1e-10;
  p.max_sweeps = 200000;
  GranularStepper stepper(sc.model, p);
  const talus::RigidBodies& b = sc.model.bodies;
  const std::vector<Eigen::Vector3d> before = b.v;
  const GranularStepReport& rep = stepper.step();
  REQUIRE(rep.solver.converged());
  Eigen::Vector3d floor = Eigen::Vector3d::Zero(), momentum = Eigen::Vector3d::Zero();
  double weight = 0.0;
  for (const SweepContact& c : stepper.contacts())
    if (c.a < 0) floor += c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
  for (int i = 0; i < b.spheres(); ++i) weight += b.mass[i] * 9.81 * p.h, momentum += b.mass[i] * (b.v[i] - before[i]);
  INFO("floor impulse " << floor.transpose() << ", M g h " << weight << ", momentum change " << momentum.transpose());
  CHECK((momentum - (floor - Eigen::Vector3d(0.0, 0.0, weight))).norm() <= 1e-9 * weight);
  CHECK(floor.z() > 0.5 * weight);  // the floor carries most of the weight within the step
}
