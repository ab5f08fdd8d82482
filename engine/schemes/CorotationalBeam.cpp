// The 2-D co-rotational Euler–Bernoulli beam (see the header for the element and its tangent).
#include "engine/schemes/CorotationalBeam.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace talus {

namespace {

constexpr double kTwoPi = 6.283185307179586476925;
// HRZ lumping of the Hermite element's rotary inertia: ρAℓ³/78 at each end.
constexpr double kRotaryLumping = 1.0 / 78.0;

bool positive(double x) { return std::isfinite(x) && x > 0.0; }

double element_length(const CorotationalBeam& b) { return b.length / b.elements; }

// Global indices of the element's local dofs (x_a, y_a, θ_a, x_b, y_b, θ_b); −1 for the pinned translations.
std::array<Index, 6> element_dofs(const CorotationalBeam& b, int e) {
  std::array<Index, 6> d{};
  for (int k = 0; k < 2; ++k) {
    const int node = e + k;
    d[3 * k] = node == 0 ? -1 : corotational_position_dof(b, node);
    d[3 * k + 1] = node == 0 ? -1 : corotational_position_dof(b, node) + 1;
    d[3 * k + 2] = corotational_rotation_dof(b, node);
  }
  return d;
}

struct ElementState {
  double l, c, s;        // current chord length and direction
  double u, ta, tb;      // local elongation and rotations
  double N, Ma, Mb;      // local forces
  Eigen::Matrix<double, 6, 1> r, z;
};

ElementState element_state(const CorotationalBeam& b, const Vector& q, const std::array<Index, 6>& d) {
  std::array<double, 6> x{};
  for (int i = 0; i < 6; ++i) x[i] = d[i] >= 0 ? q[d[i]] : (i % 3 == 0 ? b.hinge.x() : b.hinge.y());
  ElementState st;
  const double dx = x[3] - x[0], dy = x[4] - x[1];
  st.l = std::hypot(dx, dy);
  st.c = dx / st.l;
  st.s = dy / st.l;
  const double c0 = std::cos(b.angle), s0 = std::sin(b.angle);
  // Chord rotation since the initial configuration, and local rotations reduced to (−π, π]: θ_a accumulates
  // whole turns while α is an angle between two directions.
  const double alpha = std::atan2(c0 * st.s - s0 * st.c, c0 * st.c + s0 * st.s);
  st.ta = std::remainder(x[2] - alpha, kTwoPi);
  st.tb = std::remainder(x[5] - alpha, kTwoPi);
  const double l0 = element_length(b), ea = b.axial_stiffness, ei = b.bending_stiffness;
  st.u = st.l - l0;
  st.N = ea * st.u / l0;
  st.Ma = ei / l0 * (4.0 * st.ta + 2.0 * st.tb);
  st.Mb = ei / l0 * (2.0 * st.ta + 4.0 * st.tb);
  st.r << -st.c, -st.s, 0.0, st.c, st.s, 0.0;
  st.z << st.s, -st.c, 0.0, -st.s, st.c, 0.0;
  return st;
}

void require(bool ok, const std::string& name, const std::string& msg) {
  if (!ok) throw std::invalid_argument("co-rotational beam '" + name + "': " + msg);
}

}  // namespace

void validate(const CorotationalBeam& b) {
  require(positive(b.length), b.name, "length must be > 0");
  require(b.elements >= 1, b.name, "elements must be >= 1");
  require(positive(b.axial_stiffness), b.name, "axial stiffness EA must be > 0");
  require(positive(b.bending_stiffness), b.name, "bending stiffness EI must be > 0");
  require(positive(b.mass_per_length), b.name, "mass per length rho_A must be > 0");
  require(b.hinge.allFinite() && b.gravity.allFinite() && std::isfinite(b.angle) &&
              std::isfinite(b.angular_velocity),
          b.name, "hinge, gravity, angle and angular velocity must be finite");
}

Index corotational_position_dof(const CorotationalBeam& b, int node) {
  if (node < 1 || node > b.elements)
    throw std::invalid_argument("co-rotational beam '" + b.name + "': node " + std::to_string(node) +
                                " has no free position (nodes 1.." + std::to_string(b.elements) + ")");
  return 3 * Index(node) - 2;
}

Index corotational_rotation_dof(const CorotationalBeam& b, int node) {
  if (node < 0 || node > b.elements)
    throw std::invalid_argument("co-rotational beam '" + b.name + "': no node " + std::to_string(node));
  return node == 0 ? 0 : 3 * Index(node);
}

void corotational_internal_force(const CorotationalBeam& b, const Vector& q, Vector& f, Matrix* Kt) {
  const Index n = 3 * Index(b.elements) + 1;
  f.setZero(n);
  if (Kt) Kt->setZero(n, n);
  const double l0 = element_length(b), ea = b.axial_stiffness, ei = b.bending_stiffness;
  Eigen::Matrix3d D;
  D << ea / l0, 0, 0, 0, 4 * ei / l0, 2 * ei / l0, 0, 2 * ei / l0, 4 * ei / l0;
  for (int e = 0; e < b.elements; ++e) {
    const auto d = element_dofs(b, e);
    const ElementState st = element_state(b, q, d);
    Eigen::Matrix<double, 3, 6> B;
    B.row(0) = st.r.transpose();
    B.row(1) = -st.z.transpose() / st.l;
    B.row(2) = -st.z.transpose() / st.l;
    B(1, 2) += 1.0;
    B(2, 5) += 1.0;
    const Eigen::Matrix<double, 6, 1> fe = B.transpose() * Eigen::Vector3d(st.N, st.Ma, st.Mb);
    for (int i = 0; i < 6; ++i)
      if (d[i] >= 0) f[d[i]] += fe[i];
    if (!Kt) continue;
    const Eigen::Matrix<double, 6, 6> Ke = B.transpose() * D * B + st.N / st.l * st.z * st.z.transpose() +
                                           (st.Ma + st.Mb) / (st.l * st.l) *
                                               (st.r * st.z.transpose() + st.z * st.r.transpose());
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        if (d[i] >= 0 && d[j] >= 0) (*Kt)(d[i], d[j]) += Ke(i, j);
  }
}

double corotational_strain_energy(const CorotationalBeam& b, const Vector& q) {
  const double l0 = element_length(b);
  double e = 0.0;
  for (int k = 0; k < b.elements; ++k) {
    const ElementState st = element_state(b, q, element_dofs(b, k));
    e += 0.5 * b.axial_stiffness / l0 * st.u * st.u +
         2.0 * b.bending_stiffness / l0 * (st.ta * st.ta + st.ta * st.tb + st.tb * st.tb);
  }
  return e;
}

Vector corotational_lumped_mass(const CorotationalBeam& b) {
  const double l0 = element_length(b);
  const double m = 0.5 * b.mass_per_length * l0, J = kRotaryLumping * b.mass_per_length * l0 * l0 * l0;
  Vector diag = Vector::Zero(3 * Index(b.elements) + 1);
  for (int e = 0; e < b.elements; ++e)
    for (Index i : element_dofs(b, e))
      if (i >= 0) diag[i] += (i % 3 == 0) ? J : m;  // θ dofs are 0, 3, 6, …
  return diag;
}

Eigen::Vector2d corotational_node_position(const CorotationalBeam& b, const Vector& q, int node) {
  if (node == 0) return b.hinge;
  const Index i = corotational_position_dof(b, node);
  return Eigen::Vector2d(q[i], q[i + 1]);
}

double corotational_angular_momentum(const CorotationalBeam& b, const Vector& q, const Vector& v) {
  const Vector m = corotational_lumped_mass(b);
  double L = m[0] * v[0];
  for (int k = 1; k <= b.elements; ++k) {
    const Index i = corotational_position_dof(b, k), t = corotational_rotation_dof(b, k);
    const Eigen::Vector2d r = corotational_node_position(b, q, k) - b.hinge;
    L += m[i] * (r.x() * v[i + 1] - r.y() * v[i]) + m[t] * v[t];
  }
  return L;
}

double corotational_chord_length(const CorotationalBeam& b, const Vector& q) {
  double l = 0.0;
  for (int k = 0; k < b.elements; ++k)
    l += (corotational_node_position(b, q, k + 1) - corotational_node_position(b, q, k)).norm();
  return l;
}

LagrangianNonlinear make_corotational_beam(const CorotationalBeam& beam) {
  validate(beam);
  const Index n = 3 * Index(beam.elements) + 1;
  const Vector mass = corotational_lumped_mass(beam);
  // Gravity loads on the translations (lumped like the mass).
  Vector weight = Vector::Zero(n);
  for (int k = 1; k <= beam.elements; ++k) {
    const Index i = corotational_position_dof(beam, k);
    weight.segment<2>(i) = mass[i] * beam.gravity;
  }

  LagrangianNonlinear sys;
  sys.name = beam.name;
  sys.n = n;
  sys.mass = [mass](const Vector&, Matrix& M) { M = mass.asDiagonal(); };
  sys.force = [beam, weight](double, const Vector& q, const Vector&, Vector& f) {
    corotational_internal_force(beam, q, f, nullptr);
    f = weight - f;
  };
  // The force buffer lives in the callback so that Newton iterations do not allocate.
  sys.force_jacobian_q = [beam, f = Vector()](double, const Vector& q, const Vector&, Matrix& J) mutable {
    corotational_internal_force(beam, q, f, &J);
    J = -J;
  };
  sys.force_jacobian_v = [n](double, const Vector&, const Vector&, Matrix& J) { J.setZero(n, n); };
  sys.potential = [beam, weight](const Vector& q) {
    double e = corotational_strain_energy(beam, q);
    for (int k = 1; k <= beam.elements; ++k) {
      const Index i = corotational_position_dof(beam, k);
      e -= weight.segment<2>(i).dot(q.segment<2>(i));
    }
    return e;
  };

  const Eigen::Vector2d dir(std::cos(beam.angle), std::sin(beam.angle));
  const Eigen::Vector2d normal(-dir.y(), dir.x());
  sys.q = Vector::Zero(n);
  sys.v = Vector::Zero(n);
  sys.v[0] = beam.angular_velocity;
  for (int k = 1; k <= beam.elements; ++k) {
    const Index i = corotational_position_dof(beam, k);
    const double r = k * element_length(beam);
    sys.q.segment<2>(i) = beam.hinge + r * dir;
    sys.v.segment<2>(i) = beam.angular_velocity * r * normal;
    sys.v[corotational_rotation_dof(beam, k)] = beam.angular_velocity;
  }
  return sys;
}

Index add_corotational_beam(Model& model, const CorotationalBeam& beam) {
  model.nonlinear.push_back(make_corotational_beam(beam));
  return static_cast<Index>(model.nonlinear.size()) - 1;
}

Index add_corotational_tip_stop(Model& model, Index system, const CorotationalBeam& beam, double stop_angle,
                                const NonsmoothLaw& law, const std::string& name) {
  if (!std::holds_alternative<NewtonImpactLaw>(law))
    throw std::invalid_argument("co-rotational beam '" + beam.name +
                                "': the tip stop needs a Newton impact law (frictionless)");
  // Side of the wall the initial tip lies on: sin(angle − stop_angle) > 0 for the normal (−sin, cos).
  const double side = std::sin(beam.angle - stop_angle);
  if (!(std::abs(side) > 1e-9))
    throw std::invalid_argument("co-rotational beam '" + beam.name +
                                "': the tip starts on the stop (stop angle = initial angle modulo π)");
  const Eigen::Vector2d n = (side > 0.0 ? 1.0 : -1.0) * Eigen::Vector2d(-std::sin(stop_angle), std::cos(stop_angle));
  const Index tip = corotational_position_dof(beam, beam.elements);
  LinearRelation rel;
  rel.C = Matrix::Zero(1, 3 * Index(beam.elements) + 1);
  rel.C(0, tip) = n.x();
  rel.C(0, tip + 1) = n.y();
  rel.b = Vector::Constant(1, -n.dot(beam.hinge));
  Interaction in;
  in.name = name;
  in.systems.push_back({SystemFamily::Nonlinear, system});
  in.relation = std::move(rel);
  in.law = law;
  model.interactions.push_back(std::move(in));
  return static_cast<Index>(model.interactions.size()) - 1;
}

}  // namespace talus
