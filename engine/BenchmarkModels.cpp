// Builders of the bouncing ball and the linear impacting oscillator of seed 000 (slides 38–40, eq 122).
#include "engine/BenchmarkModels.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace talus {

namespace {

void require(bool ok, const char* benchmark, const std::string& what) {
  if (!ok) throw std::invalid_argument(std::string(benchmark) + ": " + what);
}

SparseMatrix scalar_matrix(double value) {
  SparseMatrix m(1, 1);
  m.insert(0, 0) = value;
  m.makeCompressed();
  return m;
}

// One coordinate, gap g = q, Newton impact with restitution e.
Model single_dof_against_ground(LagrangianLti system, const char* interaction_name, double restitution) {
  Model model;
  model.lti.push_back(std::move(system));
  Interaction contact;
  contact.name = interaction_name;
  contact.systems = {SystemRef{SystemFamily::Lti, 0}};
  contact.relation = LinearRelation{Matrix::Ones(1, 1), Vector::Zero(1)};
  contact.law = NewtonImpactLaw{restitution};
  model.interactions.push_back(std::move(contact));
  model.time = 0.0;
  return model;
}

}  // namespace

void validate(const BouncingBallParameters& p) {
  constexpr const char* name = "bouncing ball";
  require(std::isfinite(p.mass) && p.mass > 0.0, name, "mass must be > 0");
  require(std::isfinite(p.force) && p.force < 0.0, name, "force must be < 0 (towards the ground)");
  require(p.restitution >= 0.0 && p.restitution < 1.0, name, "restitution must be in [0, 1)");
  require(std::isfinite(p.q0) && p.q0 >= 0.0, name, "q0 must be >= 0");
  require(std::isfinite(p.v0), name, "v0 must be finite");
}

void validate(const LinearOscillatorParameters& p) {
  constexpr const char* name = "linear oscillator";
  require(std::isfinite(p.mass) && p.mass > 0.0, name, "mass must be > 0");
  require(std::isfinite(p.stiffness) && p.stiffness > 0.0, name, "stiffness must be > 0");
  require(std::isfinite(p.spring_rest) && p.spring_rest > 0.0, name, "spring_rest must be > 0 (above the stop)");
  require(std::isfinite(p.forcing_amplitude) && std::abs(p.forcing_amplitude) < p.stiffness * p.spring_rest, name,
          "|forcing_amplitude| must be < stiffness * spring_rest (the force at the stop must push the mass away)");
  const double omega2 = p.stiffness / p.mass;
  const double Omega2 = p.forcing_frequency * p.forcing_frequency;
  require(std::isfinite(p.forcing_frequency) && std::abs(Omega2 - omega2) > 1e-6 * omega2, name,
          "forcing_frequency must differ from the natural frequency sqrt(stiffness / mass)");
  require(p.restitution > 0.0 && p.restitution <= 1.0, name, "restitution must be in (0, 1]");
  require(std::isfinite(p.q0) && p.q0 >= 0.0, name, "q0 must be >= 0");
  require(std::isfinite(p.v0) && (p.q0 > 0.0 || p.v0 > 0.0), name, "v0 must be > 0 when q0 = 0");
}

Model make_bouncing_ball(const BouncingBallParameters& p) {
  validate(p);
  LagrangianLti ball;
  ball.name = "ball";
  ball.M = scalar_matrix(p.mass);
  ball.f_const = Vector::Constant(1, p.force);
  ball.q = Vector::Constant(1, p.q0);
  ball.v = Vector::Constant(1, p.v0);
  return single_dof_against_ground(std::move(ball), "ground", p.restitution);
}

Model make_linear_oscillator(const LinearOscillatorParameters& p) {
  validate(p);
  LagrangianLti oscillator;
  oscillator.name = "oscillator";
  oscillator.M = scalar_matrix(p.mass);
  oscillator.K = scalar_matrix(p.stiffness);
  oscillator.f_const = Vector::Constant(1, p.stiffness * p.spring_rest);
  const double F = p.forcing_amplitude, Omega = p.forcing_frequency;
  oscillator.f_time = [F, Omega](double t, Eigen::Ref<Vector> out) { out[0] += F * std::cos(Omega * t); };
  oscillator.q = Vector::Constant(1, p.q0);
  oscillator.v = Vector::Constant(1, p.v0);
  return single_dof_against_ground(std::move(oscillator), "stop", p.restitution);
}

GridTrajectory integrate_on_grid(Model& model, const MoreauJeanParameters& params, double horizon) {
  return integrate_scheme_on_grid<MoreauJean>(model, params, horizon);
}

}  // namespace talus
