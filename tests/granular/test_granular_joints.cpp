// Joints on the large path (issue 11: a mechanism meets beads): the granular stepper steps the bilateral
// joints of the model (engine/joints/RigidJoint.hpp) between capsules of its store, or a capsule and the
// world, beside its detected contacts, with the exact block solve of solvers/matrixfree/JointSweep.hpp.
// Checks: a capsule pendulum's small-oscillation period against the compound pendulum's 2π √(I_O / (m g d))
// and its joint gap, which must not drift over many periods, under both schemes; a driven capsule turning
// exactly at the driver's rate, its driver torque 0 about a vertical axis and the gravity torque −m g x_c
// about a horizontal one; the same pendulum on the small path (engine/MoreauJean) against the granular
// stepper; a driven paddle in a loose bead bed, whose torque is 0 above the bed and grows like the depth
// squared (the granular drag F ∝ ρ g μ w z²), and about the same under generalized-α; 1 against 2 threads,
// bit for bit; the joints the stepper refuses.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <numbers>

#include "engine/MoreauJean.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "engine/granular/ObstacleBodies.hpp"
#include "engine/joints/RigidJoint.hpp"

using namespace talus::granular;
using talus::JointKind;
using talus::Model;

namespace {

constexpr double kG = 9.81, kRho = 2500.0;
constexpr double kHalf = 0.04, kRadius = 0.01;  // capsule half length and radius [m]

void add_joint(Model& m, JointKind kind, int a, int b, const Eigen::Vector3d& anchor,
               const Eigen::Vector3d& axis, double rate = 0.0) {
  talus::Interaction in;
  in.name = std::string(talus::to_string(kind)) + std::to_string(m.interactions.size());
  in.systems.push_back({talus::SystemFamily::Rigid, a});
  if (b >= 0) in.systems.push_back({talus::SystemFamily::Rigid, b});
  in.relation = talus::make_joint(kind, m.bodies, a, b, anchor, axis, rate, m.time);
  in.law = talus::EqualityLaw{talus::joint_rows(kind)};
  m.interactions.push_back(in);
}

// Max |g| of the model's joints at its present state.
double joint_gap(const Model& m) {
  double worst = 0.0;
  for (const talus::Interaction& in : m.interactions) {
    const auto& j = std::get<talus::JointRelation>(in.relation);
    const int rows = talus::joint_rows(j.kind);
    Eigen::VectorXd g(rows), dgdt(rows);
    Eigen::MatrixXd Ja(rows, 6), Jb(rows, 6);
    const int a = static_cast<int>(in.systems[0].index);
    const talus::JointPose pa{m.bodies.x[a], m.bodies.q[a]};
    talus::JointPose pb;
    if (in.systems.size() > 1) pb = {m.bodies.x[in.systems[1].index], m.bodies.q[in.systems[1].index]};
    talus::evaluate_joint(j, pa, in.systems.size() > 1 ? &pb : nullptr, m.time, g, Ja, Jb, dgdt);
    worst = std::max(worst, g.cwiseAbs().maxCoeff());
  }
  return worst;
}

// A capsule hanging along −z from a revolute joint (axis y) at the origin, its centre d below, displaced by
// θ0.
Model pendulum(double d, double theta0) {
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  const Eigen::Vector3d down(std::sin(theta0), 0.0, -std::cos(theta0));
  m.bodies.add_capsule(d * down, down, kHalf, kRadius, kRho);
  add_joint(m, JointKind::Revolute, m.bodies.capsule(0), -1, Eigen::Vector3d::Zero(),
            Eigen::Vector3d::UnitY());
  return m;
}

// Plain matrix-free sweeps (the joints' own solver path) to a tight tolerance.
GranularParameters sweep_parameters(GranularScheme scheme, double h, double tolerance) {
  GranularParameters p;
  p.h = h;
  p.tolerance = tolerance;
  p.scheme = scheme;
  p.solver = GranularSolver::MatrixFree;
  return p;
}

struct Swing {
  double period = 0.0, gap_early = 0.0, gap_late = 0.0;
};

// Period from the upward zero crossings of x_c (linear interpolation), over `periods` periods.
Swing swing(GranularScheme scheme, double h, double d, double theta0, int periods) {
  Model m = pendulum(d, theta0);
  GranularStepper s(m, sweep_parameters(scheme, h, 1e-10));
  double mass;
  Eigen::Vector3d I;
  talus::capsule_mass_properties(kHalf, kRadius, kRho, mass, I);
  const double T = 2.0 * std::numbers::pi * std::sqrt((I.x() + mass * d * d) / (mass * kG * d));
  const int steps = static_cast<int>(std::ceil(periods * T / h));
  std::vector<double> crossings;
  Swing out;
  double x_prev = m.bodies.x[0].x();
  for (int k = 0; k < steps; ++k) {
    s.step();
    const double x = m.bodies.x[0].x();
    if (x_prev < 0.0 && x >= 0.0) crossings.push_back(m.time - h * x / (x - x_prev));
    x_prev = x;
    const double g = joint_gap(m);
    (k < steps / periods ? out.gap_early : out.gap_late) =
        std::max(k < steps / periods ? out.gap_early : out.gap_late, g);
  }
  REQUIRE(crossings.size() >= 2);
  out.period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  INFO("analytic period " << T);
  CHECK(out.period == Approx(T).epsilon(2e-3));
  return out;
}

}  // namespace

TEST_CASE(
    "a capsule pendulum on a revolute joint swings with the compound pendulum's period, without drift") {
  for (GranularScheme scheme : {GranularScheme::MoreauJean, GranularScheme::GeneralizedAlpha}) {
    INFO((scheme == GranularScheme::MoreauJean ? "Moreau–Jean" : "generalized-α"));
    const Swing s = swing(scheme, 1e-3, 0.06, 0.05, 8);
    // The gap after a step is O(h²) of the curvature (target g/h: no accumulation); the last periods no worse
    // than the first.
    CHECK(s.gap_early < 1e-7);
    CHECK(s.gap_late < 1e-7);
    CHECK(s.gap_late <= 2.0 * s.gap_early + 1e-12);
  }
}

TEST_CASE("a spherical joint holds a swinging capsule at its anchor") {
  Model m = pendulum(0.06, 0.3);
  m.interactions.clear();
  add_joint(m, JointKind::Spherical, m.bodies.capsule(0), -1, Eigen::Vector3d::Zero(),
            Eigen::Vector3d::UnitZ());
  m.bodies.w[0] = Eigen::Vector3d(0.0, 0.0, 2.0);  // a conical swing
  GranularParameters p;
  p.tolerance = 1e-10;
  p.solver = GranularSolver::MatrixFree;
  GranularStepper s(m, p);
  double worst = 0.0;
  for (int k = 0; k < 2000; ++k) {
    s.step();
    worst = std::max(worst, joint_gap(m));
  }
  CHECK(worst < 1e-6);
}

TEST_CASE(
    "a driven capsule turns at the driver's rate, its torque is 0 about a vertical axis, the gravity torque "
    "about a horizontal one") {
  const double omega = 3.0, h = 1e-3;
  SECTION("vertical axis through the centre") {
    for (GranularScheme scheme : {GranularScheme::MoreauJean, GranularScheme::GeneralizedAlpha}) {
      INFO((scheme == GranularScheme::MoreauJean ? "Moreau–Jean" : "generalized-α"));
      Model m;
      m.gravity = Eigen::Vector3d(0, 0, -kG);
      m.bodies.add_capsule(Eigen::Vector3d(0, 0, 0.1), Eigen::Vector3d::UnitX(), kHalf, kRadius, kRho);
      add_joint(m, JointKind::Revolute, 0, -1, Eigen::Vector3d(0, 0, 0.1), Eigen::Vector3d::UnitZ());
      add_joint(m, JointKind::Driver, 0, -1, Eigen::Vector3d(0, 0, 0.1), Eigen::Vector3d::UnitZ(), omega);
      const GranularParameters p = sweep_parameters(scheme, h, 1e-12);
      GranularStepper s(m, p);
      double angle_error = 0.0, torque = 0.0;
      for (int k = 0; k < 2500; ++k) {
        s.step();
        const Eigen::Vector3d a = m.bodies.axis(0);
        angle_error = std::max(angle_error, std::abs(std::remainder(std::atan2(a.y(), a.x()) - omega * m.time,
                                                                    2 * std::numbers::pi)));
        if (k > 0) torque = std::max(torque, std::abs(s.joint_impulses()[s.joint_row_start()[1]] / h));
      }
      CHECK(angle_error < 1e-9);
      CHECK(torque < 1e-9);
      CHECK(m.bodies.x[0].isApprox(Eigen::Vector3d(0, 0, 0.1), 1e-9));
    }
  }
  SECTION("horizontal axis, off-centre capsule: the driver carries the gravity torque") {
    for (GranularScheme scheme : {GranularScheme::MoreauJean, GranularScheme::GeneralizedAlpha}) {
      INFO((scheme == GranularScheme::MoreauJean ? "Moreau–Jean" : "generalized-α"));
      const double d = 0.05;
      Model m;
      m.gravity = Eigen::Vector3d(0, 0, -kG);
      m.bodies.add_capsule(Eigen::Vector3d(d, 0, 0), Eigen::Vector3d::UnitX(), kHalf, kRadius, kRho);
      add_joint(m, JointKind::Revolute, 0, -1, Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY());
      add_joint(m, JointKind::Driver, 0, -1, Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY(), omega);
      const GranularParameters p = sweep_parameters(scheme, h, 1e-12);
      GranularStepper s(m, p);
      const double mg_d = m.bodies.mass[0] * kG * d;
      double worst = 0.0;
      for (int k = 0; k < 2500; ++k) {
        // The step holds ω against the gravity impulse applied with the lever of the step's start (J(q_k)).
        const double t_k = m.time;
        s.step();
        if (k == 0) continue;  // the first step also starts the rotation
        // Rotation about +y by ωt takes x to (cos, 0, −sin): x_c = d cos ωt, gravity torque about y = m g
        // x_c.
        const double expected = -mg_d * std::cos(omega * t_k);
        worst = std::max(worst, std::abs(s.joint_impulses()[s.joint_row_start()[1]] / h - expected));
      }
      INFO("m g d = " << mg_d);
      CHECK(worst < 1e-3 * mg_d);
    }
  }
}

TEST_CASE("the granular stepper's pendulum follows the small path's (engine/MoreauJean)") {
  // The same capsule as a general body of the small path, the same revolute joint; both θ = 1. The two differ
  // in how they keep g = 0: the small path projects the positions after the step, the granular stepper closes
  // g(q_k) within the step (target g/h). Both are first order, so the trajectories agree to O(h) of the
  // swing's amplitude: checked at h and h/2, the difference must fall by about half.
  const double d = 0.06, theta0 = 0.2;
  auto difference = [&](double h) {
    Model big = pendulum(d, theta0);
    Model small;
    small.gravity = big.gravity;
    const int body = small.bodies.add_general(big.bodies.x[0], big.bodies.q[0], big.bodies.mass[0],
                                              big.bodies.inertia[0], kHalf + kRadius);
    add_joint(small, JointKind::Revolute, body, -1, Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY());
    GranularParameters p;
    p.h = h;
    p.tolerance = 1e-12;
    p.solver = GranularSolver::MatrixFree;
    GranularStepper s(big, p);
    talus::MoreauJeanParameters q;
    q.h = h;
    q.theta = 1.0;
    talus::MoreauJean mj(small, q);
    double worst = 0.0;
    for (int k = 0; k < static_cast<int>(std::lround(0.5 / h)); ++k) {
      s.step();
      mj.step();
      worst = std::max(worst, (big.bodies.x[0] - small.bodies.x[body]).norm());
    }
    return worst;
  };
  const double coarse = difference(2e-3), fine = difference(1e-3);
  INFO("max |Δx| at h = 2e-3: " << coarse << " m, at 1e-3: " << fine << " m");
  CHECK(fine < 2e-3 * d);
  CHECK(fine < 0.7 * coarse);
}

namespace {

struct PaddleRun {
  double torque = 0.0;  // mean driver torque over the last half [N m]
  int sweeps = 0;       // the most sweeps a step took
  std::uint64_t hash = 0;
};

// A bed of 2.5 mm beads (radii ± 5 %, μ = 0.4), lattice_stack's 16 × 16 columns `layers` high, dropped from
// the lattice (gaps of 0.2 r) so that they settle into a loose bed within the first 50 ms, and a vertical
// capsule paddle (radius 2.5 mm, 6.5 cm long) on an arm of 2 cm about the box's vertical centre line, its
// lower end `lift` above the floor, driven at 3 rad/s for `steps` steps of 1 ms; the torque is the mean over
// the second half. Beads overlapping the paddle at the start are removed. A packed_box crystal would not do:
// its walls touch it and every bead touches its neighbours, so nothing can enter it and a driven paddle's
// step has no solution (NSGS stalls at a residual of 1e-2 once the paddle has closed the hole it started in).
PaddleRun paddle(int layers, double lift, int threads, int steps = 300, double mu = 0.4,
                 GranularScheme scheme = GranularScheme::MoreauJean) {
  BeadSpec spec;
  spec.radius = 0.0025;
  spec.density = kRho;
  spec.mu = mu;
  spec.restitution = 0.0;
  spec.polydispersity = 0.05;
  const int width = 16;
  GranularScene sc = lattice_stack(spec, width, layers);
  Model& m = sc.model;
  const double r = spec.radius, side = width * spec.spacing * r;
  const double pr = 0.0025, half = 0.03, arm = 0.02;
  const Eigen::Vector3d centre(side / 2 + arm, side / 2, lift + pr + half);
  std::vector<char> flags(m.bodies.count(), 0);
  for (int i = 0; i < m.bodies.spheres(); ++i) {
    const Eigen::Vector3d e = m.bodies.x[i] - centre;
    const double along = std::clamp(e.z(), -half, half);
    flags[i] = (e - Eigen::Vector3d(0, 0, along)).norm() < pr + r + 1e-4;
  }
  m.bodies.remove(flags);
  m.bodies.add_capsule(centre, Eigen::Vector3d::UnitZ(), half, pr, kRho);
  const int paddle_index = m.bodies.capsule(0);
  const Eigen::Vector3d pivot(side / 2, side / 2, centre.z());
  add_joint(m, JointKind::Revolute, paddle_index, -1, pivot, Eigen::Vector3d::UnitZ());
  add_joint(m, JointKind::Driver, paddle_index, -1, pivot, Eigen::Vector3d::UnitZ(), 3.0);
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-4;
  p.threads = threads;
  p.scheme = scheme;
  p.solver = GranularSolver::MatrixFree;
  GranularStepper s(m, p);
  PaddleRun out;
  int counted = 0;
  for (int k = 0; k < steps; ++k) {
    const GranularStepReport& rep = s.step();
    out.sweeps = std::max(out.sweeps, rep.solver.iterations);
    if (k >= steps / 2) out.torque += s.joint_impulses()[s.joint_row_start()[1]] / p.h, ++counted;
  }
  out.torque /= counted;
  out.hash = talus::state_hash(m.bodies);
  for (int i = m.bodies.spheres(); i < m.bodies.count(); ++i) {
    std::uint64_t bits[7];
    std::memcpy(bits, m.bodies.x[i].data(), 24);
    std::memcpy(bits + 3, m.bodies.q[i].coeffs().data(), 32);
    for (std::uint64_t b : bits) out.hash = (out.hash ^ b) * 1099511628211ull;
  }
  for (double l : s.joint_impulses()) {
    std::uint64_t b;
    std::memcpy(&b, &l, 8);
    out.hash = (out.hash ^ b) * 1099511628211ull;
  }
  return out;
}

}  // namespace

TEST_CASE(
    "a driven paddle in a bead bed: no torque above it, a torque growing like the depth squared in it") {
  // Above a bed of 2 layers (the paddle's lower end 2 cm above the floor), then through beds of 2, 3 and 4
  // layers, which settle into columns about 2 r L deep: doubling the layers doubles the depth.
  const double above = paddle(2, 0.02, 1).torque;
  const double t2 = paddle(2, 0.001, 1).torque, t3 = paddle(3, 0.001, 1).torque,
               t4 = paddle(4, 0.001, 1).torque;
  INFO("driver torque above the bed " << above << ", through 2, 3, 4 layers: " << t2 << ", " << t3 << ", "
                                      << t4 << " N m");
  CHECK(std::abs(above) < 1e-9);
  // The drag resists the rotation: the driver pushes forward, positive about +z.
  CHECK(t2 > 0.0);
  CHECK(t3 > t2);
  CHECK(t4 > t3);
  // F ∝ z² gives ×4 from 2 to 4 layers, a drag ∝ z ×2: the ratio must sit near the first.
  CHECK(t4 / t2 > 2.6);
  CHECK(t4 / t2 < 5.5);
}

TEST_CASE("under generalized-alpha the paddle needs the torque it needs under Moreau-Jean") {
  // The same bed (2 layers) and paddle: the two schemes differ by O(h) in the bed's motion, and the torque is
  // a mean over 0.15 s of a granular flow, so only its size is compared.
  const double mj = paddle(2, 0.001, 1).torque,
               ga = paddle(2, 0.001, 1, 300, 0.4, GranularScheme::GeneralizedAlpha).torque;
  INFO("Moreau–Jean " << mj << " N m, generalized-α " << ga << " N m");
  CHECK(ga > 0.5 * mj);
  CHECK(ga < 2.0 * mj);
}

TEST_CASE("granular steps with joints are identical for 1 and 2 threads") {
  const PaddleRun one = paddle(4, 0.001, 1, 80), two = paddle(4, 0.001, 2, 80);
  CHECK(one.hash == two.hash);
  CHECK(one.torque == two.torque);
}

TEST_CASE("the granular stepper refuses joints it cannot step, naming them") {
  Model m = pendulum(0.06, 0.1);
  GranularParameters p;
  p.solver = GranularSolver::Multilevel;
  CHECK_THROWS_WITH(GranularStepper(m, p), Catch::Contains("joints"));
  p.solver = GranularSolver::Assembled;
  CHECK_THROWS_WITH(GranularStepper(m, p), Catch::Contains("joints"));
  p.solver = GranularSolver::MatrixFree;
  Model beads = pendulum(0.06, 0.1);
  beads.bodies.add_sphere(Eigen::Vector3d(1, 1, 1), 0.01, kRho);
  beads.interactions.clear();
  add_joint(beads, JointKind::Spherical, 0, -1, Eigen::Vector3d(1, 1, 1.02), Eigen::Vector3d::UnitZ());
  CHECK_THROWS_WITH(GranularStepper(beads, p), Catch::Contains("bead"));
}

TEST_CASE("a capsule on a prismatic joint to a rising floor rides it (a joint to a kinematic obstacle body)",
          "[granular][joints][obstacles]") {
  // The floor rises at 5 cm/s; gravity leans along x. The capsule, jointed to the floor's obstacle body by a
  // prismatic joint along x, keeps its height above the floor and its orientation, and slides along x at exactly
  // g_x (no contact: it is 2 radii above the floor). The joint carries the capsule's weight across x: its reaction
  // on the capsule is −m g_z (the floor does not accelerate).
  Model m;
  const double gx = 1.5;
  m.gravity = Eigen::Vector3d(gx, 0.0, -kG);
  talus::contact::Wall floor;
  floor.speed = 0.05;
  m.walls.push_back(floor);
  const Eigen::Vector3d start(0.0, 0.0, 3.0 * kRadius);
  m.bodies.add_capsule(start, Eigen::Vector3d::UnitX(), kHalf, kRadius, kRho);
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-10;
  p.solver = GranularSolver::Anderson;
  talus::granular::place_obstacle_bodies(m, 0.0, p.h);  // the floor's body, which the joint names
  const int c = m.bodies.capsule(0), wall = m.bodies.obstacle_body(0);
  REQUIRE(m.bodies.kind(wall) == talus::ShapeKind::Obstacle);
  add_joint(m, JointKind::Prismatic, c, wall, start, Eigen::Vector3d::UnitX());
  m.validate();
  GranularStepper s(m, p);
  const double mass = m.bodies.mass[c];
  for (int k = 0; k < 400; ++k) {
    const GranularStepReport& r = s.step();
    INFO("step " << k << ": " << r.solver.message);
    REQUIRE(r.solver.converged());
    REQUIRE(r.contacts == 0);
  }
  const double t = m.time;
  INFO("t = " << t << ": capsule at " << m.bodies.x[c].transpose() << ", floor body at "
              << m.bodies.x[wall].transpose());
  CHECK(m.bodies.x[c].z() - m.bodies.x[wall].z() == Approx(start.z()).epsilon(1e-9));
  CHECK(m.bodies.v[c].z() == Approx(0.05).epsilon(1e-9));
  CHECK(m.bodies.x[c].x() == Approx(0.5 * gx * t * t).epsilon(1e-2));  // Moreau–Jean: x_k = g h² k(k+1)/2
  CHECK(m.bodies.v[c].x() == Approx(gx * t).epsilon(1e-9));
  CHECK(std::abs(m.bodies.x[c].y()) < 1e-12);
  CHECK(m.bodies.w[c].norm() < 1e-9);
  CHECK(joint_gap(m) < 1e-9);
  // The reaction on the capsule over the last step, from the joint's rows (force = Σ λ J_a[0:3] / h).
  const auto& js = s.joint_sweep();
  Eigen::Vector3d force = Eigen::Vector3d::Zero();
  for (int row = js.row_start[0]; row < js.row_start[1]; ++row) force += js.impulse[row] * js.jac_a[row].head<3>() / p.h;
  CHECK(force.z() == Approx(mass * kG).epsilon(1e-6));
  CHECK(std::abs(force.x()) < 1e-9 * mass * kG);
  // The floor body is not moved by the joint: it stays where its law puts it.
  CHECK(m.bodies.x[wall].z() == Approx(0.05 * t).epsilon(1e-12));
}

TEST_CASE("a joint's first body cannot be an obstacle", "[granular][joints][obstacles]") {
  Model m;
  m.walls.push_back(talus::contact::Wall{});
  m.bodies.add_capsule(Eigen::Vector3d(0, 0, 0.1), Eigen::Vector3d::UnitX(), kHalf, kRadius, kRho);
  talus::granular::place_obstacle_bodies(m, 0.0, 1e-3);
  const int c = m.bodies.capsule(0), wall = m.bodies.obstacle_body(0);
  CHECK_THROWS_WITH(add_joint(m, JointKind::Spherical, wall, c, Eigen::Vector3d(0, 0, 0.1), Eigen::Vector3d::UnitZ()),
                    Catch::Contains("body 1 does not exist"));
  // An interaction written by hand with the obstacle first is refused by the stepper.
  add_joint(m, JointKind::Spherical, c, wall, Eigen::Vector3d(0, 0, 0.1), Eigen::Vector3d::UnitZ());
  std::swap(m.interactions[0].systems[0], m.interactions[0].systems[1]);
  GranularParameters p;
  p.solver = GranularSolver::Anderson;
  CHECK_THROWS_WITH(GranularStepper(m, p), Catch::Contains("which is not a capsule"));
}
