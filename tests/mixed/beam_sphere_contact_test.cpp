// The beam–sphere narrow phase (engine/detection/BeamSphereContact.hpp) on its own: the gap is the distance from
// the centre to the deformed centreline (checked against a brute-force search), less r and the half thickness;
// the normal row of J is the gap's derivative (finite differences in every coordinate); the beam's columns are
// the Hermite interpolation, so Jᵀ of a unit force is a load with the force's resultant and moment.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/detection/BeamSphereContact.hpp"

using namespace talus;

namespace {

BeamContactGeometry strip() {
  BeamContactGeometry g;
  g.origin = Eigen::Vector3d(0.1, -0.2, 0.3);
  g.axis = Eigen::Vector3d(1.0, 1.0, 0.0).normalized();
  g.deflection = Eigen::Vector3d(0.0, 0.0, 1.0);
  g.length = 0.4;
  g.elements = 5;
  g.half_thickness = 0.002;
  g.half_width = 0.02;
  return g;
}

// A smooth deflection (w = 0.02 (s/L)², θ = w′) sampled at the free nodes.
Vector bent(const BeamContactGeometry& g) {
  Vector q(g.dofs());
  const double l = g.length / g.elements;
  for (int node = 1; node <= g.elements; ++node) {
    const double s = node * l;
    q[g.dof(node, 0)] = 0.02 * (s / g.length) * (s / g.length) + 0.003 * std::sin(9.0 * s);
    q[g.dof(node, 1)] = 0.04 * s / (g.length * g.length) + 0.027 * std::cos(9.0 * s);
  }
  return q;
}

Eigen::Vector3d point_at(const BeamContactGeometry& g, const Vector& q, double s) {
  return g.origin + s * g.axis + beam_deflection_at(g, q, s)[0] * g.deflection;
}

contact::SpherePose sphere(const Eigen::Vector3d& x, double r) { return {x, Eigen::Vector4d(1, 0, 0, 0), r}; }

}  // namespace

TEST_CASE("beam-sphere gap: distance to the deformed centreline, by brute force", "[mixed][beam-contact]") {
  const BeamContactGeometry g = strip();
  const Vector q = bent(g);
  const Eigen::Vector3d b = g.axis.cross(g.deflection);
  for (double s0 : {0.03, 0.11, 0.2, 0.33, 0.39})
    for (double above : {0.012, -0.015}) {
      const double r = 0.01;
      const Eigen::Vector3d x = point_at(g, q, s0) + above * g.deflection + 0.004 * g.axis + 0.01 * b;
      // The strip spans its width: the distance is taken in the beam's plane (the offset along b left out).
      const Eigen::Vector3d in_plane = x - (x - g.origin).dot(b) * b;
      double best = INFINITY;
      for (int k = 0; k <= 400000; ++k)
        best = std::min(best, (in_plane - point_at(g, q, g.length * k / 400000.0)).norm());
      const double side = beam_sphere_side(g, q, x);
      const BeamSphereContact c = beam_sphere_contact(g, side, q, sphere(x, r));
      INFO("s0 " << s0 << ", above " << above);
      CHECK(side == (above > 0 ? 1.0 : -1.0));
      CHECK(c.over_strip);
      CHECK(c.gap == Approx(best - r - g.half_thickness).margin(1e-9));
      // The normal lies in the beam's plane and points from the beam to the sphere.
      CHECK(std::abs(c.frame.n.dot(b)) < 1e-14);
      CHECK(c.frame.n.dot(x - point_at(g, q, c.s)) > 0.0);
    }
}

TEST_CASE("beam-sphere normal row: the derivative of the gap in every coordinate", "[mixed][beam-contact]") {
  const BeamContactGeometry g = strip();
  const Vector q = bent(g);
  const double r = 0.008;
  const Eigen::Vector3d x = point_at(g, q, 0.23) + 0.013 * g.deflection + 0.002 * g.axis;
  const double side = beam_sphere_side(g, q, x);
  const BeamSphereContact c = beam_sphere_contact(g, side, q, sphere(x, r));
  const double d = 1e-6;
  double worst = 0.0;
  for (int k = 0; k < 3; ++k) {
    Eigen::Vector3d xp = x, xm = x;
    xp[k] += d;
    xm[k] -= d;
    const double fd = (beam_sphere_contact(g, side, q, sphere(xp, r)).gap -
                       beam_sphere_contact(g, side, q, sphere(xm, r)).gap) / (2 * d);
    worst = std::max(worst, std::abs(fd - c.J_sphere(0, k)));
  }
  CHECK(c.J_sphere.block<1, 3>(0, 3).norm() == 0.0);  // the normal goes through the centre: no spin
  for (Index j = 0; j < q.size(); ++j) {
    Vector qp = q, qm = q;
    qp[j] += d;
    qm[j] -= d;
    const double fd = (beam_sphere_contact(g, side, qp, sphere(x, r)).gap -
                       beam_sphere_contact(g, side, qm, sphere(x, r)).gap) / (2 * d);
    double jac = 0.0;
    for (int e = 0; e < 4; ++e)
      if (c.beam_dof[e] == j) jac = c.J_beam(0, e);
    worst = std::max(worst, std::abs(fd - jac));
  }
  WARN("largest |finite difference − J| over the 3 + " << q.size() << " coordinates: " << worst);
  CHECK(worst < 1e-8);
}

TEST_CASE("beam-sphere load: Jᵀ of a unit force is its resultant and moment on the nodes", "[mixed][beam-contact]") {
  // A straight free-free beam (every node free), a sphere pressing down at s: the generalised force −Jᵀ e_N on
  // (w_i, θ_i) has the resultant −1 and the moment −s about node 0 (Σ f_wi x_i + Σ f_θi), as the Hermite
  // functions reproduce rigid translations and rotations.
  BeamContactGeometry g = strip();
  g.clamped_left = false;
  const Vector q = Vector::Zero(g.dofs());
  const double l = g.length / g.elements;
  for (double s : {0.0, 0.05, 0.13, 0.2, 0.31, 0.4}) {
    const Eigen::Vector3d x = g.origin + s * g.axis + 0.011 * g.deflection;
    const BeamSphereContact c = beam_sphere_contact(g, 1.0, q, sphere(x, 0.009));
    CHECK(c.gap == Approx(0.011 - 0.009 - g.half_thickness).margin(1e-15));
    double force = 0.0, moment = 0.0;
    for (int e = 0; e < 4; ++e) {
      const double f = c.J_beam(0, e);  // Jᵀ P with P = 1: the beam is pushed by −e_N, J_beam = −N
      const Index dof = c.beam_dof[e];
      REQUIRE(dof >= 0);
      const int node = static_cast<int>(dof / 2);
      if (dof % 2 == 0) {
        force += f;
        moment += f * node * l;
      } else {
        moment += f;
      }
    }
    INFO("s = " << s);
    CHECK(force == Approx(-1.0).margin(1e-14));
    CHECK(moment == Approx(-s).margin(1e-14));
  }
}

TEST_CASE("beam-sphere ends, side and strip", "[mixed][beam-contact]") {
  const BeamContactGeometry g = strip();
  const Vector q = Vector::Zero(g.dofs());
  const Eigen::Vector3d b = g.axis.cross(g.deflection);
  // Beyond the free end: the distance to the end point (a rounded end), the normal towards the centre.
  const Eigen::Vector3d tip = g.origin + g.length * g.axis;
  const Eigen::Vector3d x = tip + 0.03 * (0.6 * g.axis + 0.8 * g.deflection);
  const BeamSphereContact end = beam_sphere_contact(g, 1.0, q, sphere(x, 0.01));
  CHECK(end.s == g.length);
  CHECK(end.gap == Approx(0.03 - 0.01 - g.half_thickness).margin(1e-14));
  CHECK((end.frame.n - (0.6 * g.axis + 0.8 * g.deflection)).norm() < 1e-14);
  // Past the end and below it, seen from above (a bead that rolled over the tip and falls): still apart.
  const Eigen::Vector3d fallen = tip + 0.03 * (0.6 * g.axis - 0.8 * g.deflection);
  CHECK(beam_sphere_contact(g, 1.0, q, sphere(fallen, 0.01)).gap == Approx(0.03 - 0.01 - g.half_thickness).margin(1e-14));
  // Below the beam, seen from the side it came from: a sphere pushed through the centreline reads a negative
  // gap (it does not jump to the other face).
  const Eigen::Vector3d below = g.origin + 0.2 * g.axis - 0.005 * g.deflection;
  CHECK(beam_sphere_side(g, q, below) == -1.0);
  CHECK(beam_sphere_contact(g, 1.0, q, sphere(below, 0.01)).gap == Approx(-0.005 - 0.01 - 0.002).margin(1e-14));
  // Beside the strip: not over it.
  CHECK_FALSE(beam_sphere_contact(g, 1.0, q, sphere(below + 0.021 * b, 0.01)).over_strip);
  CHECK(beam_sphere_contact(g, 1.0, q, sphere(below + 0.019 * b, 0.01)).over_strip);
  // The planar friction direction t1 runs along the beam, t2 across it.
  const BeamSphereContact mid = beam_sphere_contact(g, 1.0, q, sphere(g.origin + 0.2 * g.axis + 0.02 * g.deflection, 0.01));
  CHECK((mid.frame.t1 - g.axis).norm() < 1e-14);
  CHECK(std::abs(mid.frame.t2.dot(b)) == Approx(1.0));
  // Bad geometry is named.
  BeamContactGeometry bad = g;
  bad.deflection = g.axis;
  CHECK(beam_geometry_problem(bad).find("not normal") != std::string::npos);
  CHECK(beam_geometry_problem(g).empty());
}

TEST_CASE("beam-sphere edges and sides: the distance to the section's edge line or side, and its derivative",
          "[mixed][beam-contact]") {
  // Beside the strip (|y| > half width) the section's long edges are lines and its sides planes (header): a bead
  // sliding off the edge keeps a continuous gap. Checked on the straight beam against the distances by hand,
  // and on the bent beam by finite differences of the gap in the sphere's and the beam's coordinates.
  const BeamContactGeometry g = strip();
  const Eigen::Vector3d b = g.axis.cross(g.deflection);
  const Vector flat = Vector::Zero(g.dofs());
  const Eigen::Vector3d mid = g.origin + 0.2 * g.axis;
  const double r = 0.01;
  // Beyond the edge line, above the face: the distance to the edge.
  const BeamSphereContact edge = beam_sphere_contact(g, 1.0, flat, sphere(mid + 0.023 * b + 0.006 * g.deflection, r));
  CHECK_FALSE(edge.over_strip);
  CHECK(edge.gap == Approx(std::hypot(0.003, 0.004) - r).margin(1e-14));
  CHECK((edge.frame.n - (0.6 * b + 0.8 * g.deflection)).norm() < 1e-13);
  CHECK(std::abs(edge.frame.t1.norm() - 1.0) < 1e-14);
  CHECK(std::abs(edge.frame.t1.dot(edge.frame.n)) < 1e-14);
  // Beside the section, within its thickness: the side, normal along b.
  const BeamSphereContact side = beam_sphere_contact(g, 1.0, flat, sphere(mid - 0.025 * b + 0.001 * g.deflection, r));
  CHECK(side.gap == Approx(0.005 - r).margin(1e-14));
  CHECK((side.frame.n + b).norm() < 1e-14);
  // Just inside and just outside the half width, the gap is continuous.
  const double in = beam_sphere_contact(g, 1.0, flat, sphere(mid + (0.02 - 1e-9) * b + 0.012 * g.deflection, r)).gap;
  const double out = beam_sphere_contact(g, 1.0, flat, sphere(mid + (0.02 + 1e-9) * b + 0.012 * g.deflection, r)).gap;
  CHECK(std::abs(in - out) < 1e-12);
  // Below the beam beside it (a bead passing the side keeps its side +1): the opposite face's edge.
  const BeamSphereContact under = beam_sphere_contact(g, 1.0, flat, sphere(mid + 0.023 * b - 0.006 * g.deflection, r));
  CHECK(under.gap == Approx(std::hypot(0.003, 0.004) - r).margin(1e-14));

  // The normal row is the gap's derivative at an edge and at a side contact of the bent beam.
  const Vector q = bent(g);
  for (const double lift : {0.009, 0.0005}) {
    const double y = lift > 0.001 ? 0.024 : 0.026;
    const Eigen::Vector3d x = point_at(g, q, 0.23) + lift * g.deflection + y * b;
    const BeamSphereContact c = beam_sphere_contact(g, 1.0, q, sphere(x, r));
    const double d = 1e-7;
    double worst = 0.0;
    for (int k = 0; k < 3; ++k) {
      Eigen::Vector3d xp = x, xm = x;
      xp[k] += d, xm[k] -= d;
      const double fd = (beam_sphere_contact(g, 1.0, q, sphere(xp, r)).gap - beam_sphere_contact(g, 1.0, q, sphere(xm, r)).gap) / (2 * d);
      worst = std::max(worst, std::abs(fd - c.J_sphere(0, k)));
    }
    for (Index j = 0; j < q.size(); ++j) {
      Vector qp = q, qm = q;
      qp[j] += d, qm[j] -= d;
      const double fd = (beam_sphere_contact(g, 1.0, qp, sphere(x, r)).gap - beam_sphere_contact(g, 1.0, qm, sphere(x, r)).gap) / (2 * d);
      double jac = 0.0;
      for (int e = 0; e < 4; ++e)
        if (c.beam_dof[e] == j) jac = c.J_beam(0, e);
      worst = std::max(worst, std::abs(fd - jac));
    }
    WARN((lift > 0.001 ? "edge" : "side") << " contact: largest |finite difference − J| " << worst);
    CHECK(worst < 1e-7);
  }
}
