// Moreau–Jean on rigid spheres (seed 000 eqs 41a–e; seed 004 eq 31): a sphere bouncing on a plane, a spinning
// sphere in free flight, two spheres colliding head-on, and a sphere launched sliding on a plane with Coulomb
// friction until it rolls. Each is checked against an analytic solution or an exact discrete law.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/DiscreteEnergy.hpp"
#include "engine/MoreauJean.hpp"

using namespace talus;

namespace {

constexpr double kG = 9.81;

Model sphere_over_plane(double z0, double e, double r = 0.1) {
  Model model;
  model.gravity = Eigen::Vector3d(0, 0, -kG);
  add_general_sphere(model.bodies, Eigen::Vector3d(0, 0, z0), r, 1000.0);
  Interaction in;
  in.name = "ground";
  in.systems = {SystemRef{SystemFamily::Rigid, 0}};
  in.relation = SphereContactRelation{Eigen::Vector3d::UnitZ(), 0.0};
  in.law = NewtonImpactLaw{e};
  model.interactions.push_back(in);
  return model;
}

}  // namespace

TEST_CASE("a rigid sphere bounces on a plane with Newton's law", "[mj][rigid]") {
  for (double e : {0.5, 1.0}) {
    INFO("e = " << e);
    const double r = 0.1, z0 = 1.0, h = 1e-3;
    Model model = sphere_over_plane(z0, e, r);
    MoreauJeanParameters params;
    params.h = h;
    MoreauJean mj(model, params);
    double E = total_energy(model);
    double min_gap = 1e300, max_identity_error = 0.0, impact_velocity = 0.0, max_height_after = 0.0;
    int impacts = 0;
    bool bounced = false;
    for (int k = 0; k < 1100; ++k) {
      const double vz0 = model.bodies.v[0][2];
      const StepReport& rep = mj.step();
      const double vz1 = model.bodies.v[0][2];
      const EnergyReport& en = rep.energy;
      max_identity_error = std::max(max_identity_error, std::abs(en.total() - E - en.external_work -
                                                                 en.numerical_dissipation - en.contact_work));
      E = en.total();
      min_gap = std::min(min_gap, model.interactions[0].gap[0]);
      if (model.interactions[0].impulse[0] > 0.0) {
        ++impacts;
        CHECK(std::abs(vz1 + e * vz0) <= 1e-12);  // U_{k+1} + e U_k = 0 where P > 0
        if (!bounced) impact_velocity = vz0;
        bounced = true;
      } else if (bounced) {
        max_height_after = std::max(max_height_after, model.bodies.x[0][2]);
      }
    }
    CHECK(impacts >= 1);
    CHECK(max_identity_error <= 1e-12);
    // Free fall from 0.9 above contact: impact speed sqrt(2 g 0.9), exact for the trapezoidal θ = 1/2 flight up
    // to the step that crosses the plane.
    const double v_exact = -std::sqrt(2.0 * kG * (z0 - r));
    CHECK(std::abs(impact_velocity - v_exact) <= kG * h);
    // The rebound reaches e² of the drop height (the apex is within the run for both e).
    CHECK(std::abs((max_height_after - r) - e * e * (z0 - r)) <= 5e-3);
    CHECK(min_gap >= -h * std::abs(v_exact));
  }
}

TEST_CASE("a spinning sphere keeps its angular velocity and a unit quaternion", "[mj][rigid]") {
  Model model;
  add_general_sphere(model.bodies, Eigen::Vector3d::Zero(), 0.5, 100.0);
  const Eigen::Vector3d w(1.0, -2.0, 3.0);
  model.bodies.w[0] = w;  // identity orientation: body and world frames coincide
  MoreauJeanParameters params;
  params.h = 1e-2;
  MoreauJean mj(model, params);
  for (int k = 0; k < 500; ++k) mj.step();
  const double t = 500 * params.h;
  CHECK((model.bodies.q[0].conjugate() * model.bodies.w[0] - w).norm() <= 1e-13);  // body frame
  CHECK(std::abs(model.bodies.q[0].norm() - 1.0) <= 1e-14);
  // Constant body-frame ω: the orientation is exp(t ω / 2), which the exponential-map update composes exactly.
  const Eigen::Quaterniond exact(Eigen::AngleAxisd(t * w.norm(), w.normalized()));
  const Eigen::Quaterniond& q = model.bodies.q[0];
  const double dot = std::abs(q.w() * exact.w() + q.x() * exact.x() + q.y() * exact.y() + q.z() * exact.z());
  CHECK(dot >= 1.0 - 1e-12);
}

TEST_CASE("two spheres collide head-on: momentum is conserved and Newton's law holds", "[mj][rigid]") {
  const double e = 0.7;
  Model model;
  const Index a = add_general_sphere(model.bodies, Eigen::Vector3d(-1.0, 0, 0), 0.2, 1000.0);
  const Index b = add_general_sphere(model.bodies, Eigen::Vector3d(1.0, 0, 0), 0.3, 1000.0);
  model.bodies.v[a] = Eigen::Vector3d(1.0, 0, 0);
  model.bodies.v[b] = Eigen::Vector3d(-0.5, 0, 0);
  Interaction in;
  in.name = "a-b";
  in.systems = {SystemRef{SystemFamily::Rigid, a}, SystemRef{SystemFamily::Rigid, b}};
  in.relation = SphereContactRelation{};
  in.law = NewtonImpactLaw{e};
  model.interactions.push_back(in);

  const double ma = model.bodies.mass[a], mb = model.bodies.mass[b];
  const Eigen::Vector3d p0 = ma * model.bodies.v[a] + mb * model.bodies.v[b];
  MoreauJeanParameters params;
  params.h = 1e-3;
  MoreauJean mj(model, params);
  int impacts = 0;
  for (int k = 0; k < 2000; ++k) {
    const double U0 = model.bodies.v[b][0] - model.bodies.v[a][0];
    mj.step();
    const double U1 = model.bodies.v[b][0] - model.bodies.v[a][0];
    const Eigen::Vector3d p = ma * model.bodies.v[a] + mb * model.bodies.v[b];
    REQUIRE((p - p0).norm() <= 1e-12 * p0.norm());
    if (model.interactions[0].impulse[0] > 0.0) {
      ++impacts;
      CHECK(std::abs(U1 + e * U0) <= 1e-12);
    }
  }
  CHECK(impacts == 1);
  const double va = 1.0, vb = -0.5;
  const double va_exact = (ma * va + mb * vb + mb * e * (vb - va)) / (ma + mb);
  const double vb_exact = (ma * va + mb * vb + ma * e * (va - vb)) / (ma + mb);
  CHECK(std::abs(model.bodies.v[a][0] - va_exact) <= 1e-12);
  CHECK(std::abs(model.bodies.v[b][0] - vb_exact) <= 1e-12);
  CHECK(model.bodies.v[a].tail<2>().norm() == 0.0);
}

TEST_CASE("a sphere launched sliding on a plane with friction ends rolling at 5/7 of its speed", "[mj][rigid][friction]") {
  // Solid sphere (I = 2/5 m r²), v0 along x, μ: it slides with deceleration μ g while the friction torque spins
  // it up, until v = ω r = 5/7 v0 at t = 2 v0 / (7 μ g); then it rolls at constant speed.
  struct Case {
    int dim;
    OneStepSolverKind solver;
  };
  for (const Case c : {Case{3, OneStepSolverKind::Nsgs}, Case{2, OneStepSolverKind::Lemke}, Case{2, OneStepSolverKind::Nsgs}}) {
    INFO("friction dim " << c.dim << ", solver " << to_string(c.solver));
    const double r = 0.1, mu = 0.3, v0 = 2.0, h = 1e-3;
    Model model = sphere_over_plane(r, 0.0, r);
    model.interactions[0].law = NewtonImpactFrictionLaw{0.0, mu, c.dim};
    model.bodies.v[0] = Eigen::Vector3d(v0, 0, 0);
    MoreauJeanParameters params;
    params.h = h;
    params.theta = 0.5;
    params.solver = c.solver;
    MoreauJean mj(model, params);
    const double t_roll = 2.0 * v0 / (7.0 * mu * kG);
    const int steps_sliding = static_cast<int>(std::floor(t_roll / h)) - 1;
    for (int k = 0; k < steps_sliding; ++k) mj.step();
    // While sliding the friction impulse is μ m g h per step: the velocity is exact.
    CHECK(std::abs(model.bodies.v[0][0] - (v0 - mu * kG * steps_sliding * h)) <= 1e-9);
    for (int k = steps_sliding; k < 400; ++k) mj.step();
    CHECK(std::abs(model.bodies.v[0][0] - 5.0 / 7.0 * v0) <= 1e-9);
    // Rolling about y: the world and body y components of ω coincide.
    CHECK(std::abs(model.bodies.w[0][1] * r - model.bodies.v[0][0]) <= 1e-9);
    CHECK(std::abs(model.bodies.v[0][2]) <= 1e-12);
    CHECK(std::abs(model.bodies.x[0][2] - r) <= 1e-12);
  }
}

TEST_CASE("frictionless contacts among frictional ones act as mu = 0 blocks", "[mj][rigid][friction]") {
  // Two spheres launched sliding on the same plane in one model: the frictional one ends rolling at 5/7 v0, the
  // frictionless one (a one-row Newton law, padded to a μ = 0 block) keeps sliding at v0 without spinning.
  for (int dim : {2, 3}) {
    INFO("friction dim " << dim);
    const double r = 0.1, v0 = 2.0;
    Model model = sphere_over_plane(r, 0.0, r);
    model.interactions[0].law = NewtonImpactFrictionLaw{0.0, 0.3, dim};
    const Index b = add_general_sphere(model.bodies, Eigen::Vector3d(0, 1.0, r), r, 1000.0);
    Interaction smooth = model.interactions[0];
    smooth.name = "smooth ground";
    smooth.systems = {SystemRef{SystemFamily::Rigid, b}};
    smooth.law = NewtonImpactLaw{0.0};
    model.interactions.push_back(smooth);
    model.bodies.v[0] = Eigen::Vector3d(v0, 0, 0);
    model.bodies.v[b] = Eigen::Vector3d(v0, 0, 0);
    MoreauJeanParameters params;
    params.h = 1e-3;
    params.solver = dim == 3 ? OneStepSolverKind::Nsgs : OneStepSolverKind::Lemke;
    MoreauJean mj(model, params);
    for (int k = 0; k < 400; ++k) REQUIRE(mj.step().active == 2);
    CHECK(std::abs(model.bodies.v[0][0] - 5.0 / 7.0 * v0) <= 1e-9);
    CHECK((model.bodies.v[b] - Eigen::Vector3d(v0, 0, 0)).norm() <= 1e-12);
    CHECK(model.bodies.w[b].norm() <= 1e-12);
    CHECK(std::abs(model.bodies.x[b][2] - r) <= 1e-12);
  }
}
