// Builders of the second-order schemes' verification scenes (see the header).
#include "engine/schemes/SchemeBenchmarkModels.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace talus {

namespace {

void require(bool ok, const char* what, const std::string& msg) {
  if (!ok) throw std::invalid_argument(std::string(what) + ": " + msg);
}

bool finite_positive(double x) { return std::isfinite(x) && x > 0.0; }

SparseMatrix diagonal(std::initializer_list<double> d) {
  SparseMatrix A(Index(d.size()), Index(d.size()));
  int i = 0;
  for (double x : d) {
    A.insert(i, i) = x;
    ++i;
  }
  A.makeCompressed();
  return A;
}

Interaction single_system_interaction(const char* name, LinearRelation relation, double restitution) {
  Interaction in;
  in.name = name;
  in.systems = {SystemRef{SystemFamily::Lti, 0}};
  in.relation = std::move(relation);
  in.law = NewtonImpactLaw{restitution};
  return in;
}

// g = gap_offset + q[dof] on a system of n coordinates.
LinearRelation coordinate_gap(Index n, Index dof, double gap_offset) {
  LinearRelation r;
  r.C = Matrix::Zero(1, n);
  r.C(0, dof) = 1.0;
  r.b = Vector::Constant(1, gap_offset);
  return r;
}

}  // namespace

void validate(const BouncingPendulumParameters& p) {
  constexpr const char* what = "bouncing pendulum";
  require(finite_positive(p.mass) && finite_positive(p.inertia), what, "mass and inertia must be > 0");
  require(finite_positive(p.length), what, "length must be > 0");
  require(std::isfinite(p.gravity), what, "gravity must be finite");
  require(p.restitution >= 0.0 && p.restitution <= 1.0, what, "restitution must be in [0, 1]");
  require(std::isfinite(p.stop) && std::isfinite(p.theta0) && std::isfinite(p.omega0), what, "data must be finite");
  require(p.length * std::cos(p.theta0) >= p.stop, what, "the initial position must satisfy x >= stop");
}

void validate(const TwoBallOscillatorParameters& p) {
  constexpr const char* what = "two-ball oscillator";
  require(finite_positive(p.mass_lower) && finite_positive(p.mass_upper), what, "masses must be > 0");
  require(finite_positive(p.stiffness) && finite_positive(p.rest_length), what, "stiffness, rest_length > 0");
  require(std::isfinite(p.gravity) && std::isfinite(p.velocity), what, "data must be finite");
  require(std::isfinite(p.height) && p.height >= 0.0, what, "height must be >= 0");
  require(p.restitution >= 0.0 && p.restitution <= 1.0, what, "restitution must be in [0, 1]");
}

void validate(const ImpactingBarParameters& p) {
  validate(p.bar);
  constexpr const char* what = "impacting bar";
  require(std::isfinite(p.height) && p.height >= 0.0, what, "height must be >= 0");
  require(std::isfinite(p.velocity), what, "velocity must be finite");
  require(p.restitution >= 0.0 && p.restitution <= 1.0, what, "restitution must be in [0, 1]");
}

void validate(const BeamStopParameters& p) {
  validate(p.beam);
  constexpr const char* what = "beam against a stop";
  require(p.beam.clamped_left, what, "the beam must be a cantilever (clamped_left)");
  require(std::isfinite(p.tip_velocity), what, "tip_velocity must be finite");
  require(std::isfinite(p.gap) && p.gap >= 0.0, what, "gap must be >= 0");
  require(p.restitution >= 0.0 && p.restitution <= 1.0, what, "restitution must be in [0, 1]");
}

Model make_bouncing_pendulum(const BouncingPendulumParameters& p) {
  validate(p);
  LagrangianLti body;
  body.name = "pendulum";
  body.M = diagonal({p.mass, p.mass, p.inertia});
  body.f_const = Vector(3);
  body.f_const << 0.0, -p.mass * p.gravity, 0.0;
  const double l = p.length, c = std::cos(p.theta0), s = std::sin(p.theta0);
  body.q = Vector(3);
  body.q << l * c, l * s, p.theta0;
  body.v = Vector(3);
  body.v << -l * s * p.omega0, l * c * p.omega0, p.omega0;

  Model model;
  model.lti.push_back(std::move(body));
  Interaction hinge;
  hinge.name = "hinge";
  hinge.systems = {SystemRef{SystemFamily::Lti, 0}};
  NonlinearRelation rel;
  rel.rows = 2;
  rel.gap = [l](const Vector& q, Vector& g) {
    g[0] = q[0] - l * std::cos(q[2]);
    g[1] = q[1] - l * std::sin(q[2]);
  };
  rel.jacobian = [l](const Vector& q, Matrix& J) {
    J.setZero(2, 3);
    J(0, 0) = 1.0;
    J(0, 2) = l * std::sin(q[2]);
    J(1, 1) = 1.0;
    J(1, 2) = -l * std::cos(q[2]);
  };
  hinge.relation = std::move(rel);
  hinge.law = EqualityLaw{2};
  model.interactions.push_back(std::move(hinge));
  model.interactions.push_back(single_system_interaction("stop", coordinate_gap(3, 0, -p.stop), p.restitution));
  return model;
}

Model make_two_ball_oscillator(const TwoBallOscillatorParameters& p) {
  validate(p);
  LagrangianLti balls;
  balls.name = "two balls";
  balls.M = diagonal({p.mass_lower, p.mass_upper});
  std::vector<Triplet> t = {{0, 0, p.stiffness}, {0, 1, -p.stiffness}, {1, 0, -p.stiffness}, {1, 1, p.stiffness}};
  balls.K.resize(2, 2);
  balls.K.setFromTriplets(t.begin(), t.end());
  // Spring force k (y₂ − y₁ − ℓ) on the lower ball = −(K y)₁ − kℓ, and its opposite on the upper one.
  balls.f_const = Vector(2);
  balls.f_const << -p.stiffness * p.rest_length - p.mass_lower * p.gravity,
      p.stiffness * p.rest_length - p.mass_upper * p.gravity;
  balls.q = Vector(2);
  balls.q << p.height, p.height + p.rest_length;
  balls.v = Vector::Constant(2, p.velocity);
  Model model;
  model.lti.push_back(std::move(balls));
  model.interactions.push_back(single_system_interaction("ground", coordinate_gap(2, 0, 0.0), p.restitution));
  return model;
}

Model make_impacting_bar(const ImpactingBarParameters& p) {
  validate(p);
  LagrangianLti bar = make_elastic_bar(p.bar);
  bar.v.setConstant(-p.velocity);
  const Index n = bar.dofs();
  Model model;
  model.lti.push_back(std::move(bar));
  model.interactions.push_back(single_system_interaction("ground", coordinate_gap(n, 0, p.height), p.restitution));
  return model;
}

Model make_beam_against_stop(const BeamStopParameters& p) {
  validate(p);
  LagrangianLti beam = make_euler_bernoulli_beam(p.beam);
  const double le = p.beam.length / p.beam.elements;
  for (int node = 1; node <= p.beam.elements; ++node) {
    const double xi = node * le / p.beam.length;
    beam.v[beam_deflection_dof(p.beam, node)] = p.tip_velocity * xi * xi;
    beam.v[beam_rotation_dof(p.beam, node)] = p.tip_velocity * 2.0 * xi / p.beam.length;
  }
  const Index n = beam.dofs(), tip = beam_deflection_dof(p.beam, p.beam.elements);
  Model model;
  model.lti.push_back(std::move(beam));
  model.interactions.push_back(single_system_interaction("stop", coordinate_gap(n, tip, p.gap), p.restitution));
  return model;
}

Model make_rotating_beam(const RotatingBeamParameters& p) {
  require(p.restitution >= 0.0 && p.restitution <= 1.0, "rotating beam", "restitution must be in [0, 1]");
  Model model;
  const Index beam = add_corotational_beam(model, p.beam);
  add_corotational_tip_stop(model, beam, p.beam, p.stop_angle, NewtonImpactLaw{p.restitution}, "stop");
  return model;
}

double pendulum_energy(const Model& model, const BouncingPendulumParameters& p) {
  const LagrangianLti& s = model.lti.at(0);
  return 0.5 * s.v.dot(s.M * s.v) + p.mass * p.gravity * s.q[1];
}

double two_ball_energy(const Model& model, const TwoBallOscillatorParameters& p) {
  const LagrangianLti& s = model.lti.at(0);
  const double stretch = s.q[1] - s.q[0] - p.rest_length;
  return 0.5 * s.v.dot(s.M * s.v) + 0.5 * p.stiffness * stretch * stretch +
         p.gravity * (p.mass_lower * s.q[0] + p.mass_upper * s.q[1]);
}

}  // namespace talus
