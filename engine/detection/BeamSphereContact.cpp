// Sphere against a linear Euler–Bernoulli beam: closest point, gap and Jacobian rows (see the header).
#include "engine/detection/BeamSphereContact.hpp"

#include <algorithm>
#include <cmath>

namespace talus {

namespace {

// The Hermite cubic functions of the element holding s, and their first and second derivatives in s:
// w(s) = Σ N_j q_j over the element's (w_a, θ_a, w_b, θ_b), the interpolation under which FiniteElementBeams
// builds K_e and M_e (so the contact load Jᵀ P is that element's consistent nodal load).
struct Hermite {
  int element = 0;
  double N[4], dN[4], ddN[4];
};

Hermite hermite(const BeamContactGeometry& g, double s) {
  Hermite h;
  const double l = g.length / g.elements;
  h.element = std::clamp(static_cast<int>(std::floor(s / l)), 0, g.elements - 1);
  const double x = (s - h.element * l) / l, x2 = x * x, x3 = x2 * x;
  h.N[0] = 1.0 - 3.0 * x2 + 2.0 * x3;
  h.N[1] = l * (x - 2.0 * x2 + x3);
  h.N[2] = 3.0 * x2 - 2.0 * x3;
  h.N[3] = l * (x3 - x2);
  h.dN[0] = 6.0 * (x2 - x) / l;
  h.dN[1] = 1.0 - 4.0 * x + 3.0 * x2;
  h.dN[2] = 6.0 * (x - x2) / l;
  h.dN[3] = 3.0 * x2 - 2.0 * x;
  h.ddN[0] = (12.0 * x - 6.0) / (l * l);
  h.ddN[1] = (6.0 * x - 4.0) / l;
  h.ddN[2] = (6.0 - 12.0 * x) / (l * l);
  h.ddN[3] = (6.0 * x - 2.0) / l;
  return h;
}

// w, w′, w″ at s, and the element's dof indices.
struct Centreline {
  Hermite shape;
  Index dof[4];
  double w = 0.0, w1 = 0.0, w2 = 0.0;
};

Centreline centreline(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q, double s) {
  Centreline c;
  c.shape = hermite(g, s);
  const int e = c.shape.element;
  c.dof[0] = g.dof(e, 0);
  c.dof[1] = g.dof(e, 1);
  c.dof[2] = g.dof(e + 1, 0);
  c.dof[3] = g.dof(e + 1, 1);
  for (int j = 0; j < 4; ++j) {
    if (c.dof[j] < 0) continue;
    const double qj = q[c.dof[j]];
    c.w += c.shape.N[j] * qj;
    c.w1 += c.shape.dN[j] * qj;
    c.w2 += c.shape.ddN[j] * qj;
  }
  return c;
}

// The sphere's centre in the beam frame and the closest point of the deformed centreline.
struct Closest {
  double a = 0.0, z = 0.0, y = 0.0;  // centre along axis, deflection, axis × deflection
  double s = 0.0;
  Centreline at;
};

Closest closest_point(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q, const Eigen::Vector3d& x) {
  Closest c;
  const Eigen::Vector3d u = x - g.origin;
  c.a = u.dot(g.axis);
  c.z = u.dot(g.deflection);
  c.y = u.dot(g.axis.cross(g.deflection));
  // Newton on φ(s) = ½ d/ds |c − x(s)|² = −(a − s) − (z − w) w′, φ′ = 1 + w′² − (z − w) w″, from the
  // projection on the undeformed axis (exact for a straight beam, within O(w′²) otherwise). Where φ′ <= 0 (a
  // centre beyond the centre of curvature) the Gauss–Newton step 1 + w′² keeps the iteration descending.
  double s = std::clamp(c.a, 0.0, g.length);
  for (int it = 0; it < 20; ++it) {
    const Centreline k = centreline(g, q, s);
    const double phi = -(c.a - s) - (c.z - k.w) * k.w1;
    double dphi = 1.0 + k.w1 * k.w1 - (c.z - k.w) * k.w2;
    if (!(dphi > 0.0)) dphi = 1.0 + k.w1 * k.w1;
    const double next = std::clamp(s - phi / dphi, 0.0, g.length);
    const bool done = std::abs(next - s) <= 1e-14 * g.length;
    s = next;
    if (done) break;
  }
  c.s = s;
  c.at = centreline(g, q, s);
  return c;
}

// The centreline's unit normal (−w′, 1)/√(1 + w′²) in (axis, deflection) coordinates.
Eigen::Vector2d centreline_normal(double w1) { return Eigen::Vector2d(-w1, 1.0) / std::sqrt(1.0 + w1 * w1); }

}  // namespace

std::string beam_geometry_problem(const BeamContactGeometry& g) {
  const auto unit = [](const Eigen::Vector3d& u) { return std::abs(u.norm() - 1.0) <= 1e-9; };
  if (!g.origin.allFinite()) return "the beam's origin is not finite";
  if (!unit(g.axis) || !unit(g.deflection)) return "the beam's axis or deflection is not a unit vector";
  if (!(std::abs(g.axis.dot(g.deflection)) <= 1e-9)) return "the beam's deflection is not normal to its axis";
  if (!(g.length > 0.0) || !std::isfinite(g.length)) return "the beam's length must be > 0";
  if (g.elements < 1) return "the beam needs at least one element";
  if (!(g.half_thickness > 0.0) || !(g.half_width > 0.0) || !std::isfinite(g.half_thickness) ||
      !std::isfinite(g.half_width))
    return "the beam's thickness and width must be > 0";
  return {};
}

double beam_sphere_side(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q_beam,
                        const Eigen::Vector3d& centre) {
  const Closest c = closest_point(g, q_beam, centre);
  const Eigen::Vector2d d(c.a - c.s, c.z - c.at.w);
  return d.dot(centreline_normal(c.at.w1)) >= 0.0 ? 1.0 : -1.0;
}

BeamSphereContact beam_sphere_contact(const BeamContactGeometry& g, double side,
                                      const Eigen::Ref<const Vector>& q_beam, const contact::SpherePose& sphere) {
  const Closest c = closest_point(g, q_beam, sphere.x);
  BeamSphereContact out;
  out.s = c.s;
  out.y = c.y;
  out.over_strip = std::abs(c.y) <= g.half_width;

  const Eigen::Vector2d d(c.a - c.s, c.z - c.at.w);
  const Eigen::Vector2d sn = side * centreline_normal(c.at.w1);
  const double along = d.dot(sn), dist = d.norm();
  // Beyond an end (the closest point is the end and the centre lies past it along the tangent) the distance is to
  // the end point, along the line to the centre: a rounded end, on whichever side, so a bead rolling over the
  // free tip and falling past it stays apart. Otherwise d is along the normal and the signed distance keeps its
  // sign through the centreline. The two agree where the centre is right above the end (d ⟂ tangent).
  const double past = d.dot(Eigen::Vector2d(1.0, c.at.w1));
  const bool beyond = (c.s >= g.length && past > 0.0) || (c.s <= 0.0 && past < 0.0);
  Eigen::Vector2d nu = sn;
  double signed_distance = along;
  if (beyond && dist > 0.0) {
    nu = d / dist;
    signed_distance = dist;
  }
  const Eigen::Vector3d face = nu[0] * g.axis + nu[1] * g.deflection;
  const Eigen::Vector3d b = g.axis.cross(g.deflection);
  Eigen::Vector3d n = face;
  out.gap = signed_distance - sphere.radius - g.half_thickness;
  // The material point under the contact lies `depth` from the centreline along `face` (the face itself, or
  // where the centre faces the section's side).
  double depth = g.half_thickness;
  // Beside the strip (|y| > half width) the section's long edges are rounded off to lines and its sides are
  // planes: a corner line when the centre is beyond the face, a side otherwise. A bead sliding off the edge thus
  // keeps a continuous gap and normal instead of losing the contact and finding it again deep inside.
  const double excess = std::abs(c.y) - g.half_width;
  const double across = c.y >= 0.0 ? 1.0 : -1.0;
  if (excess > 0.0) {
    const double beyond_face = signed_distance - g.half_thickness, below_face = signed_distance + g.half_thickness;
    if (beyond_face > 0.0 || below_face < 0.0) {
      // The corner of this face, or of the opposite one (a bead passing the beam's side keeps its side).
      const double off = beyond_face > 0.0 ? beyond_face : below_face;
      const Eigen::Vector3d d3 = off * face + excess * across * b;
      const double dist3 = d3.norm();
      n = d3 / dist3;
      out.gap = dist3 - sphere.radius;
      if (off < 0.0) depth = -g.half_thickness;
    } else {
      n = across * b;
      out.gap = excess - sphere.radius;
      depth = signed_distance;
    }
  }
  out.frame.n = n;
  if (excess <= 0.0) {
    // t1 = n × b lies in the beam's plane (along the beam when n is the face normal), t2 = n × t1 across it: the
    // planar friction of a 2-row law (n, t1) then acts along the planar beam.
    out.frame.t1 = n.cross(b);
  } else {
    // The same where n × b does not vanish; along the beam on its side.
    Eigen::Vector3d t1 = n.cross(b);
    if (t1.norm() < 1e-6) t1 = g.axis - g.axis.dot(n) * n;
    out.frame.t1 = t1.normalized();
  }
  out.frame.t2 = n.cross(out.frame.t1);

  const Eigen::Matrix3d R = contact::rotation_matrix(sphere.quat_wxyz);
  const Eigen::Vector3d rho = -sphere.radius * n;
  const Eigen::Vector3d* dir[3] = {&out.frame.n, &out.frame.t1, &out.frame.t2};
  for (int k = 0; k < 3; ++k) {
    out.J_sphere.block<1, 3>(k, 0) = dir[k]->transpose();
    out.J_sphere.block<1, 3>(k, 3) = (R.transpose() * rho.cross(*dir[k])).transpose();
    // Minus the beam's surface point: ẇ deflection + θ̇ b × (half_thickness n), dotted with the row direction.
    const double along_w = dir[k]->dot(g.deflection);
    const double along_turn = depth * b.dot(face.cross(*dir[k]));
    for (int j = 0; j < 4; ++j)
      out.J_beam(k, j) = -(along_w * c.at.shape.N[j] + along_turn * c.at.shape.dN[j]);
  }
  for (int j = 0; j < 4; ++j) out.beam_dof[j] = c.at.dof[j];
  return out;
}

double beam_element_boxes(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q,
                          const Eigen::Ref<const Vector>& v, std::vector<double>& low, std::vector<double>& high) {
  const double l = g.length / g.elements;
  const auto at = [&](const Eigen::Ref<const Vector>& u, int node, int dof) {
    const Index k = g.dof(node, dof);
    return k < 0 ? 0.0 : u[k];
  };
  double speed = 0.0;
  for (int e = 0; e < g.elements; ++e) {
    const double wa = at(q, e, 0), wb = at(q, e + 1, 0), m = (wb - wa) / l;
    const double pad = 4.0 / 27.0 * l * (std::abs(at(q, e, 1) - m) + std::abs(at(q, e + 1, 1) - m));
    low.push_back(std::min(wa, wb) - pad - g.half_thickness);
    high.push_back(std::max(wa, wb) + pad + g.half_thickness);
    const double va = at(v, e, 0), vb = at(v, e + 1, 0), mv = (vb - va) / l;
    speed = std::max(speed, std::max(std::abs(va), std::abs(vb)) +
                                4.0 / 27.0 * l * (std::abs(at(v, e, 1) - mv) + std::abs(at(v, e + 1, 1) - mv)));
  }
  return speed;
}

bool beam_sphere_near(const BeamContactGeometry& g, const double* low, const double* high, const Eigen::Vector3d& x,
                      double r, double reach) {
  const Eigen::Vector3d u = x - g.origin;
  const double a = u.dot(g.axis), z = u.dot(g.deflection);
  if (std::abs(u.dot(g.axis.cross(g.deflection))) > g.half_width + r + reach) return false;
  const double l = g.length / g.elements, extent = r + g.half_thickness + reach;
  if (a + extent < 0.0 || a - extent > g.length) return false;
  const int e0 = std::clamp(static_cast<int>(std::floor((a - extent) / l)), 0, g.elements - 1);
  const int e1 = std::clamp(static_cast<int>(std::floor((a + extent) / l)), 0, g.elements - 1);
  for (int e = e0; e <= e1; ++e)
    if (z >= low[e] - r - reach && z <= high[e] + r + reach) return true;
  return false;
}

double beam_deflection_ratio(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q) {
  double w = 0.0;
  for (int node = 0; node <= g.elements; ++node)
    if (const Index k = g.dof(node, 0); k >= 0) w = std::max(w, std::abs(q[k]));
  return w / g.length;
}

Eigen::Vector2d beam_deflection_at(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q_beam, double s) {
  const Centreline c = centreline(g, q_beam, std::clamp(s, 0.0, g.length));
  return {c.w, c.w1};
}

}  // namespace talus
