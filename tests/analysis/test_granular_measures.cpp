// Granular measurements (engine/analysis/GranularMeasures.hpp) against what they cannot fake: the packing
// fractions of the simple cubic, face-centred cubic and hexagonal close packings cut by boxes in general
// position; their coordination numbers from the contacts the granular stepper detects; cap volumes; a resting
// column's stress (r m g n²); the virial identity of a settled pile against its dynamics (Σ m (Δv/h − g) z);
// the contact forces against each bead's momentum balance.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "engine/analysis/ContactForces.hpp"
#include "engine/analysis/GranularMeasures.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus;
using namespace talus::granular;
using Eigen::Vector3d;

namespace {

constexpr double kPi = 3.14159265358979323846;

double ball_volume(double r) { return 4.0 / 3.0 * kPi * r * r * r; }
double cap_volume(double r, double height) { return kPi * height * height * (3.0 * r - height) / 3.0; }

// Centres of a lattice given by a basis in a unit cell (cell vectors along the axes), cells [0, n)³.
std::vector<Vector3d> lattice(const Vector3d& cell, const std::vector<Vector3d>& basis, int nx, int ny,
                              int nz) {
  std::vector<Vector3d> x;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k)
        for (const Vector3d& b : basis)
          x.push_back(Vector3d(i, j, k).cwiseProduct(cell) + b.cwiseProduct(cell));
  return x;
}

RigidBodies beads_at(const std::vector<Vector3d>& x, double r) {
  RigidBodies b;
  for (const Vector3d& c : x) b.add_sphere(c, r, 2500.0);
  return b;
}

struct Packing {
  const char* name;
  Vector3d cell;                // in units of r
  std::vector<Vector3d> basis;  // fractions of the cell
  double fraction;
  double coordination;
};

std::vector<Packing> packings() {
  const double s3 = std::sqrt(3.0), h = 2.0 * std::sqrt(2.0 / 3.0);
  return {
      {"simple cubic", Vector3d(2, 2, 2), {Vector3d(0, 0, 0)}, kPi / 6.0, 6.0},
      {"face-centred cubic",
       Vector3d::Constant(2.0 * std::sqrt(2.0)),
       {Vector3d(0, 0, 0), Vector3d(0.5, 0.5, 0), Vector3d(0.5, 0, 0.5), Vector3d(0, 0.5, 0.5)},
       kPi / (3.0 * std::sqrt(2.0)),
       12.0},
      // Triangular layers A (two sites per rectangle 2 × 2√3) and B shifted by (1, 1/√3), stacked ABAB at
      // 2√(2/3).
      {"hexagonal close",
       Vector3d(2.0, 2.0 * s3, 2.0 * h),
       {Vector3d(0, 0, 0), Vector3d(0.5, 0.5, 0), Vector3d(0.5, 1.0 / 6.0, 0.5),
        Vector3d(0.0, 2.0 / 3.0, 0.5)},
       kPi / (3.0 * std::sqrt(2.0)),
       12.0},
  };
}

// Steps `steps` times; v_start gets the velocities before the last step, and the last step's contacts are
// returned as forces.
std::vector<ContactForce> step_and_collect(Model& m, GranularStepper& stepper, int steps,
                                           std::vector<Vector3d>& v_start) {
  for (int k = 0; k < steps; ++k) {
    v_start = m.bodies.v;
    stepper.step();
  }
  std::vector<ContactForce> contacts;
  granular_contact_forces(m, stepper, contacts);
  return contacts;
}

}  // namespace

TEST_CASE("ball_box_volume: whole balls, halves, octants and caps exactly, a corner cut against sampling") {
  const double r = 0.7;
  const Vector3d c(0.3, -0.2, 1.1);
  const Region big{c - Vector3d::Constant(5), c + Vector3d::Constant(5)};
  CHECK(ball_box_volume(c, r, big) == Approx(ball_volume(r)).epsilon(1e-14));
  Region half = big;
  half.lo.z() = c.z();
  CHECK(ball_box_volume(c, r, half) == Approx(0.5 * ball_volume(r)).epsilon(1e-13));
  Region octant{c, c + Vector3d::Constant(5)};
  CHECK(ball_box_volume(c, r, octant) == Approx(ball_volume(r) / 8.0).epsilon(1e-13));
  for (double t : {0.1, 0.5, 0.9, 1.3, 1.9}) {  // caps cut at height t r, along each axis
    for (int axis = 0; axis < 3; ++axis) {
      Region cap = big;
      cap.lo[axis] = c[axis] + (t - 1.0) * r;  // keeps the part above: a cap of height (2 − t) r
      CHECK(ball_box_volume(c, r, cap) == Approx(cap_volume(r, (2.0 - t) * r)).epsilon(1e-12));
    }
  }
  // Two cuts whose caps do not overlap: the ball minus both caps.
  Region two = big;
  two.hi.x() = c.x() + 0.75 * r, two.hi.y() = c.y() + 0.7 * r;  // 0.75² + 0.7² > 1
  CHECK(ball_box_volume(c, r, two) ==
        Approx(ball_volume(r) - cap_volume(r, 0.25 * r) - cap_volume(r, 0.3 * r)).epsilon(1e-12));
  // A box corner inside the ball: against sampling the ball with 2·10⁶ points (3σ ≈ 2e-3 relative).
  const Region corner{c + Vector3d(-0.2, 0.1, -0.35) * r, c + Vector3d(2, 2, 2) * r};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  long inside = 0, in_ball = 0;
  for (int k = 0; k < 2000000; ++k) {
    const Vector3d p(u(rng), u(rng), u(rng));
    if (p.squaredNorm() > 1.0) continue;
    ++in_ball;
    inside += corner.contains(c + r * p);
  }
  CHECK(ball_box_volume(c, r, corner) / ball_volume(r) == Approx(double(inside) / in_ball).margin(2.5e-3));
  CHECK(ball_box_volume(c, r, Region{c + Vector3d::Constant(r), c + Vector3d::Constant(2 * r)}) == 0.0);
}

TEST_CASE(
    "packing_fraction gives the simple cubic, fcc and hcp fractions for boxes of whole cells anywhere") {
  const double r = 0.01;
  for (const Packing& p : packings()) {
    INFO(p.name);
    const Vector3d cell = p.cell * r;
    const RigidBodies b = beads_at(lattice(cell, p.basis, 6, 6, 6), r);
    // Boxes of 1 … 3 whole cells per side, shifted off the lattice: the fraction is the packing's, exactly.
    for (const Vector3d& shift : {Vector3d(0, 0, 0), Vector3d(0.37, 0.21, 0.13), Vector3d(0.5, 0.5, 0.5)}) {
      for (int cells : {1, 2, 3}) {
        const Vector3d lo = cell + shift.cwiseProduct(cell);
        const Region region{lo, lo + cells * cell};
        CHECK(packing_fraction(b, region) == Approx(p.fraction).epsilon(1e-11));
      }
    }
  }
  CHECK_THROWS_AS(packing_fraction(RigidBodies{}, Region{Vector3d::Ones(), Vector3d::Zero()}),
                  std::invalid_argument);
}

TEST_CASE("coordination of the simple cubic, fcc and hcp lattices from the contacts the stepper detects") {
  const double r = 0.01;
  for (const Packing& p : packings()) {
    INFO(p.name);
    const Vector3d cell = p.cell * r;
    Model m;
    m.bodies = beads_at(lattice(cell, p.basis, 3, 3, 3), r);
    m.gravity = Vector3d(0, 0, -9.81);  // a margin of h²g: every touching pair is in the step's problem
    // Touching pairs counted directly from the positions, the independent figure.
    const int n = m.bodies.count();
    long pairs = 0;
    std::vector<int> neighbours(n, 0);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (std::abs((m.bodies.x[i] - m.bodies.x[j]).norm() - 2 * r) < 1e-12)
          ++pairs, ++neighbours[i], ++neighbours[j];
    int interior_max = 0;
    for (int k : neighbours) interior_max = std::max(interior_max, k);
    CHECK(interior_max == p.coordination);  // an interior bead has the lattice's neighbours
    GranularParameters params;
    GranularStepper stepper(m, params);
    stepper.step();
    std::vector<ContactForce> contacts;
    granular_contact_forces(m, stepper, contacts);
    const Coordination z = coordination(m.bodies, contacts, CoordinationOptions{1e-6, 1, 1e-6 * r});
    CHECK(z.bodies == n);
    CHECK(z.geometric == Approx(2.0 * pairs / n).epsilon(1e-12));
  }
}

TEST_CASE("coordination counts force-carrying contacts and removes rattlers wave by wave") {
  RigidBodies b = beads_at({Vector3d(0, 0, 0), Vector3d(0, 0, 2), Vector3d(0, 0, 4), Vector3d(5, 0, 0)}, 1.0);
  auto contact = [](int a, int bb, double f) {
    ContactForce c;
    c.a = a, c.b = bb, c.normal = Vector3d::UnitZ(), c.force = f * Vector3d::UnitZ(), c.gap = 0.0;
    return c;
  };
  // A column of three on a floor, and a fourth bead touching nothing with force.
  std::vector<ContactForce> list = {contact(-1, 0, 3.0), contact(0, 1, 2.0), contact(1, 2, 1.0),
                                    contact(-1, 3, 0.0)};
  Coordination z = coordination(b, list);
  CHECK(z.body_contacts == 2);
  CHECK(z.obstacle_contacts == 1);
  CHECK(z.rattlers == 1);  // the bead without force
  CHECK(z.mean == Approx((2.0 * 2 + 1) / 4.0));
  CHECK(z.mechanical == Approx((2.0 * 2 + 1) / 3.0));
  // With the zero-gravity rule "fewer than 2", the top bead goes, then the one under it, then the bottom one.
  CoordinationOptions two;
  two.rattler_below = 2;
  z = coordination(b, list, two);
  CHECK(z.rattlers == 4);
  CHECK(z.mechanical == 0.0);
}

TEST_CASE("normal_force_distribution: mean, share above the mean, a density that integrates to one") {
  std::vector<ContactForce> list;
  for (int k = 1; k <= 100; ++k) {
    ContactForce c;
    c.b = 0, c.normal = Vector3d::UnitZ(), c.force = double(k) * Vector3d::UnitZ();
    list.push_back(c);
  }
  ContactForce pulling;  // never counted
  pulling.b = 0, pulling.force = -Vector3d::UnitZ();
  list.push_back(pulling);
  const ForceDistribution d = normal_force_distribution(list, 10, 2.0);
  CHECK(d.contacts == 100);
  CHECK(d.mean == Approx(50.5));
  CHECK(d.max == 100.0);
  CHECK(d.above_mean == Approx(0.5));
  double integral = 0.0;
  for (std::size_t k = 0; k < d.density.size(); ++k) integral += d.density[k] * (d.edges[k + 1] - d.edges[k]);
  CHECK(integral == Approx(1.0));                        // every force is below 2 ⟨f⟩ = 101
  CHECK(d.density.front() == Approx(10.0 / 100 / 0.2));  // f = 1 … 10 lie below 0.2 ⟨f⟩ = 10.1
  CHECK_THROWS_AS(normal_force_distribution(list, 0), std::invalid_argument);
}

TEST_CASE(
    "a resting column's Love–Weber stress is r m g n² / V, and every bead's forces balance its momentum") {
  BeadSpec spec;
  const int layers = 10;
  GranularScene sc = bead_column(spec, layers);
  Model& m = sc.model;
  GranularParameters params;
  params.tolerance = 1e-8;
  params.resort_every = 0;  // v_start is kept by index
  GranularStepper stepper(m, params);
  std::vector<Vector3d> v_start;
  const std::vector<ContactForce> contacts = step_and_collect(m, stepper, 200, v_start);
  const RigidBodies& b = m.bodies;
  // Momentum balance: m (v_{k+1} − v_k) / h = Σ contact forces + m g, bead by bead (Moreau–Jean, θ = 1).
  std::vector<Vector3d> f(b.count(), Vector3d::Zero());
  for (const ContactForce& c : contacts) {
    f[c.b] += c.force;
    if (c.a >= 0) f[c.a] -= c.force;
  }
  const double weight = b.mass[0] * 9.81;
  for (int i = 0; i < b.count(); ++i)
    CHECK((b.mass[i] * (b.v[i] - v_start[i]) / params.h - f[i] - b.mass[i] * m.gravity).norm() <
          1e-9 * weight);
  const double r = spec.radius;
  const Region all{Vector3d::Constant(-1.0), Vector3d::Constant(1.0)};  // every bead
  const Eigen::Matrix3d sigma = love_weber_stress(b, contacts, all);
  CHECK(sigma(2, 2) * all.volume() == Approx(r * weight * layers * layers).epsilon(1e-6));
  CHECK(std::abs(sigma(0, 0)) < 1e-9 * sigma(2, 2));
  CHECK(std::abs(sigma(0, 2)) < 1e-9 * sigma(2, 2));
  // At rest the kinetic part vanishes and the energy is all potential.
  CHECK(kinetic_stress(b, all).norm() < 1e-12 * sigma(2, 2));
  CHECK(kinetic_energy_parts(b).total() < 1e-12 * weight * r);
}

TEST_CASE("the virial of a settled pile equals Σ m (Δv/h − g) z minus the walls' moments") {
  BeadSpec spec;
  spec.n = 64;
  GranularScene sc = bead_stack(spec);
  Model& m = sc.model;
  GranularParameters params;
  params.resort_every = 0;  // v_start is kept by index
  GranularStepper stepper(m, params);
  std::vector<Vector3d> v_start;
  const std::vector<ContactForce> contacts = step_and_collect(m, stepper, 400, v_start);
  const RigidBodies& b = m.bodies;
  // Σ_i Σ_c f_z (x_i − p_c)_z: a bead–bead contact's point is shared, so its moments cancel but for the
  // branch; what is left is Σ_i x_i,z F_i,z with F_i from the dynamics, minus the walls' p_z f_z.
  double dynamics = 0.0, walls = 0.0;
  for (int i = 0; i < b.count(); ++i)
    dynamics += b.x[i].z() * b.mass[i] * ((b.v[i].z() - v_start[i].z()) / params.h - m.gravity.z());
  for (const ContactForce& c : contacts)
    if (c.a < 0) walls += c.point.z() * c.force.z();
  const Region all{Vector3d::Constant(-10.0), Vector3d::Constant(10.0)};
  const Eigen::Matrix3d sigma = love_weber_stress(b, contacts, all);
  CHECK(sigma(2, 2) * all.volume() == Approx(dynamics - walls).epsilon(1e-9));
  CHECK(sigma(2, 2) > 0.0);  // compression positive
}

TEST_CASE("Love-Weber stress of a pair pressed together across a periodic seam is that of the pair away from it") {
  // Two beads of radius r touching along x, a compressive force F between them: σ_xx V = 2 r F wherever the pair
  // lies. Across the seam of a period along x, a's centre sits a period away from the contact point on b.
  const double r = 0.005, L = 0.1, F = 3.0;
  contact::Periodicity periodic;
  periodic.axis[0] = true, periodic.lower = Vector3d::Zero(), periodic.length = Vector3d(L, 1.0, 1.0);
  auto pair_stress = [&](double x_b, const contact::Periodicity* p) {
    RigidBodies b;
    Vector3d xa(x_b - 2.0 * r, 0.5, 0.5), xb(x_b, 0.5, 0.5);
    periodic.wrap(xa), periodic.wrap(xb);
    b.add_sphere(xa, r, 2500.0, Vector3d::Zero());
    b.add_sphere(xb, r, 2500.0, Vector3d::Zero());
    ContactForce c;
    c.a = 0, c.b = 1, c.normal = Vector3d::UnitX(), c.force = F * Vector3d::UnitX();
    c.point = b.x[1] - r * c.normal;
    const Region box{Vector3d::Zero(), Vector3d(L, 1.0, 1.0)};
    return Eigen::Matrix3d(love_weber_stress(b, {c}, box, nullptr, p) * box.volume());
  };
  const Eigen::Matrix3d inside = pair_stress(0.05, &periodic), across = pair_stress(0.002, &periodic);
  CHECK(inside(0, 0) == Approx(2.0 * r * F).epsilon(1e-12));
  CHECK((across - inside).norm() < 1e-12 * inside.norm());
  CHECK(pair_stress(0.05, nullptr).isApprox(inside, 1e-12));  // away from the seam the images change nothing
  // Without the periodic boundaries a's branch spans the period: what the measure gave before.
  CHECK(std::abs(pair_stress(0.002, nullptr)(0, 0) - inside(0, 0)) > 0.5 * F * L);
}

TEST_CASE("kinetic_energy_parts splits translation and rotation, a capsule's about its own axes") {
  RigidBodies b;
  b.add_sphere(Vector3d::Zero(), 0.01, 2500.0, Vector3d(1.0, 0.0, 0.0));
  b.w[0] = Vector3d(0.0, 0.0, 10.0);
  const double m_s = b.mass[0], I_s = 0.4 * m_s * 1e-4;
  b.add_capsule(Vector3d(1, 0, 0), Vector3d(1, 1, 0), 0.02, 0.01, 2500.0);
  const int c = b.capsule(0);
  const Vector3d axis = Vector3d(1, 1, 0).normalized();
  b.w[c] = 3.0 * axis;  // about the symmetry axis: the axial moment, the body frame's z
  KineticEnergy e = kinetic_energy_parts(b);
  CHECK(e.translation == Approx(0.5 * m_s));
  CHECK(e.rotation == Approx(0.5 * I_s * 100.0 + 0.5 * b.inertia[c].z() * 9.0).epsilon(1e-12));
  CHECK(e.total() == Approx(kinetic_energy(b)).epsilon(1e-12));
  b.w[c] = 3.0 * Vector3d::UnitZ();  // ⟂ the axis: the transverse moment
  e = kinetic_energy_parts(b);
  CHECK(e.rotation == Approx(0.5 * I_s * 100.0 + 0.5 * b.inertia[c].x() * 9.0).epsilon(1e-12));
  CHECK(b.inertia[c].x() > b.inertia[c].z());  // a long capsule turns more easily about its axis
}

TEST_CASE("MassFlowMeter counts net mass through a plane, for bodies that appear and leave") {
  RigidBodies b;
  for (int k = 0; k < 5; ++k) b.add_sphere(Vector3d(0.1 * k, 0.0, 0.5), 0.01, 1000.0);
  const double m = b.mass[0];
  MassFlowMeter outlet(Vector3d::Zero(), Vector3d(0, 0, 2));  // flow downwards through z = 0
  outlet.record(b, 0.0);
  b.x[0].z() = -0.1, b.x[1].z() = -0.1;  // two pass
  outlet.record(b, 1.0);
  CHECK(outlet.mass() == Approx(2 * m));
  CHECK(outlet.rate() == Approx(2 * m));
  b.x[1].z() = 0.2;                                 // one comes back up
  b.add_sphere(Vector3d(0, 1, 0.3), 0.01, 1000.0);  // poured in above: counted from now on
  outlet.record(b, 2.0);
  CHECK(outlet.mass() == Approx(m));
  std::vector<char> gone(b.count(), 0);
  gone[0] = 1;  // the one below leaves the domain: what it crossed stays counted
  b.remove(gone);
  for (int i = 0; i < b.count(); ++i) b.x[i].z() = -1.0;
  outlet.record(b, 4.0);
  CHECK(outlet.mass() == Approx(m + 5 * m));
  CHECK(outlet.rate() == Approx(6 * m / 4.0));
  CHECK_THROWS_AS(MassFlowMeter(Vector3d::Zero(), Vector3d::Zero()), std::invalid_argument);
}
