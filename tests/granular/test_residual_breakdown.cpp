// Where a bead-contact solve's residual lies (solvers/matrixfree/ResidualBreakdown.hpp): the squares by contact
// state add up to the solver's own residual, and a bead rolling on the floor is told from one sliding on it by the
// slips of its translation and of its spin. The failure message that carries it: test_failure_policy.cpp.
#include <catch2/catch.hpp>

#include <vector>

#include "solvers/matrixfree/MatrixFreeNsgs.hpp"
#include "solvers/matrixfree/ResidualBreakdown.hpp"

using namespace talus::matrixfree;

namespace {

constexpr double kRadius = 0.01, kMass = 0.0105, kSpeed = 2e-3;

struct Beads {
  std::vector<Eigen::Vector3d> v, w, x;
  std::vector<double> inv_mass, inv_inertia, mass, radius;
  explicit Beads(int n)
      : v(n, Eigen::Vector3d::Zero()), w(n, Eigen::Vector3d::Zero()), x(n, Eigen::Vector3d::Zero()),
        inv_mass(n, 1.0 / kMass), inv_inertia(n, 1.0 / (0.4 * kMass * kRadius * kRadius)), mass(n, kMass),
        radius(n, kRadius) {}
  BodyArrays view() {
    BodyArrays b;
    b.v = v.data(), b.w = w.data(), b.x = x.data();
    b.inv_mass = inv_mass.data(), b.inv_inertia = inv_inertia.data(), b.mass = mass.data(), b.radius = radius.data();
    b.count = b.spheres = static_cast<int>(v.size());
    return b;
  }
};

SweepContact contact(int a, int b, const Eigen::Vector3d& n, const Eigen::Vector3d& t1, const Eigen::Vector3d& r) {
  SweepContact c;
  c.a = a, c.b = b;
  c.n = n, c.t1 = t1, c.t2 = n.cross(t1);
  c.ra = a >= 0 ? kRadius : 0.0, c.rb = kRadius;
  c.mu = 0.5;
  c.wn = (a >= 0 ? 2.0 : 1.0) / kMass;
  c.wt = c.wn + (a >= 0 ? 2.0 : 1.0) * 2.5 / kMass;
  c.r = r;
  return c;
}

}  // namespace

TEST_CASE("residual breakdown: the squares by contact state add up to the solver's residual, and rolling is named") {
  // Bead 0 rolls along x on the floor without slipping (v = r ω × n), pushed into the floor with a sticking
  // impulse; bead 1, on the floor beside it, slides along x with a friction impulse on the cone that pushes it
  // forward (the wrong way: an error); the two beads touch sideways, separating, with no impulse (open).
  Beads beads(2);
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ(), x = Eigen::Vector3d::UnitX(), y = Eigen::Vector3d::UnitY();
  beads.v[0] = kSpeed * x, beads.w[0] = (kSpeed / kRadius) * y;
  beads.v[1] = 3e-4 * x - 1e-5 * z;
  beads.x[1] = 2.0 * kRadius * y;
  std::vector<SweepContact> contacts = {
      contact(-1, 0, z, x, {1e-4, 2e-5, -1e-5}),   // sticking, rolling
      contact(0, 1, y, z, {0.0, 0.0, 0.0}),        // open
      contact(-1, 1, z, x, {1e-4, 0.5e-4, 0.0}),   // sliding: on the cone, along the slip
  };
  const BodyArrays view = beads.view();
  REQUIRE(contact_state(contacts[0]) == 1);
  REQUIRE(contact_state(contacts[1]) == 0);
  REQUIRE(contact_state(contacts[2]) == 2);

  const ResidualBreakdown r = residual_breakdown(contacts, view);
  CHECK(r.open.contacts == 1.0);
  CHECK(r.sticking.contacts == 1.0);
  CHECK(r.sliding.contacts == 1.0);
  MatrixFreeWorkspace work;
  const double residual = matrix_free_residual(contacts, view, 0.0, 1, work);  // √Σ / (1 + 0)
  REQUIRE(residual > 0.0);
  CHECK(r.squared() == Approx(residual * residual).epsilon(1e-12));
  CHECK(r.sliding.squared == Approx(residual * residual).epsilon(1e-9));  // the rolling and open contacts are solved
  CHECK(r.worst == 2);
  CHECK(r.worst_error == Approx(residual).epsilon(1e-9));
  // At the sticking contact the translation's slip and the spin's are each V², and they cancel.
  CHECK(r.translation_slip == Approx(kSpeed * kSpeed).epsilon(1e-12));
  CHECK(r.spin_slip == Approx(kSpeed * kSpeed).epsilon(1e-12));
  CHECK(r.slip < 1e-30);
  CHECK(r.rolling_ratio() > 1e6);

  // The same bead sliding without spinning: its slip is its translation's, and the ratio is exactly ½.
  beads.w[0].setZero();
  const ResidualBreakdown s = residual_breakdown(contacts, beads.view());
  CHECK(s.spin_slip == 0.0);
  CHECK(s.slip == Approx(kSpeed * kSpeed).epsilon(1e-12));
  CHECK(s.rolling_ratio() == Approx(0.5).epsilon(1e-12));
  CHECK(s.sticking.squared > 0.0);

  // Counting a subset (a process's own contacts): the sliding one left out.
  const ResidualBreakdown t = residual_breakdown(contacts, beads.view(), [](int i) { return i != 2; });
  CHECK(t.sliding.contacts == 0.0);
  CHECK(t.open.contacts + t.sticking.contacts == 2.0);
  CHECK(t.worst == 0);

  // The sums as one array, back and forth (a sum over processes).
  ResidualBreakdown u;
  u.set_sums(r.sums());
  CHECK(u.sums() == r.sums());
}
