#pragma once
// The scenes of the second-order schemes' verification (issue 5), defined once for tests/schemes and
// bench/schemes:
//  - bouncing rigid pendulum (seed 004 "Bouncing Pendulum"): q = [x, y, θ], bilateral x = l cos θ, y = l sin θ
//    (one 2-row equality), unilateral x ≥ √2/2 (Newton impact, e = 0.8);
//  - two-ball oscillator (seed 000 slides 66–68, seed 004): two point masses on a vertical line joined by a
//    spring, the lower one impacting the ground;
//  - impacting elastic bar (seed 004, Chen et al.): a linear FE bar falling on a rigid ground, g = 0, e = 0;
//  - cantilever Euler–Bernoulli beam whose tip strikes a stop (the linear counterpart of seed 000 fig. 10);
//  - flexible rotating beam striking a stop (seed 000 fig. 10): a co-rotational beam pinned at one end,
//    spinning freely into a stop touched by its tip (the scene examples/rotating_beam.yaml).
// Parameters the seeds leave open (masses, inertia, spring stiffness, beam data) are chosen here and listed in
// docs/schemes.md.
#include "engine/Model.hpp"
#include "engine/schemes/CorotationalBeam.hpp"
#include "engine/schemes/FiniteElementBeams.hpp"

namespace talus {

struct BouncingPendulumParameters {
  double mass = 1.0;                        // m [kg] at the centre of mass (x, y)
  double inertia = 1.0 / 3.0;               // I [kg m²] about the centre of mass (uniform rod of length 2l)
  double length = 1.0;                      // l: hinge (origin) → centre of mass [m]
  double gravity = 9.81;                    // along −y [m/s²]
  double restitution = 0.8;                 // e of the stop
  double stop = 0.70710678118654752440;     // x ≥ stop (√2/2: θ = ±45°)
  double theta0 = 0.0;                      // initial angle from +x [rad]; x0 = l cos θ0, y0 = l sin θ0
  double omega0 = 0.0;                      // initial angular velocity [rad/s]
};

struct TwoBallOscillatorParameters {
  double mass_lower = 1.0, mass_upper = 1.0;  // [kg]
  double stiffness = 1e3;                     // spring k [N/m]
  double rest_length = 1.0;                   // spring rest length [m]
  double gravity = 9.81;                      // [m/s²]
  double height = 0.5;                        // initial height of the lower ball [m] (upper at height + rest_length)
  double velocity = 0.0;                      // initial velocity of both balls (upwards positive) [m/s]
  double restitution = 0.0;                   // e of the lower ball on the ground
};

struct ImpactingBarParameters {
  ElasticBarParameters bar;        // seed 004: E = 900 Pa, ρ = 1 kg/m³, L = 10 m, 200 elements
  double height = 5.0;             // initial height of the bottom end h₀ [m]
  double velocity = 10.0;          // initial downward speed v₀ [m/s] of every node
  double restitution = 0.0;        // e of the bottom node
};

struct BeamStopParameters {
  EulerBernoulliBeamParameters beam;  // cantilever, clamped at x = 0
  double tip_velocity = -1.0;         // initial velocity of the tip [m/s]; profile v(x) = tip_velocity (x/L)²
  double gap = 2e-3;                  // distance from the tip to the stop below it [m]
  double restitution = 0.0;
};

struct RotatingBeamParameters {
  CorotationalBeam beam = default_beam();  // L = 1 m, 10 elements, EA = 1e4 N, EI = 2 N m², ρA = 1 kg/m, ω₀ = 4 rad/s
  double stop_angle = 0.78539816339744830962;  // π/4: the tip strikes at t = 0.196 s
  double restitution = 0.0;

  static CorotationalBeam default_beam() {
    CorotationalBeam b;
    b.axial_stiffness = 1e4;
    b.bending_stiffness = 2.0;
    b.angular_velocity = 4.0;
    return b;
  }
};

void validate(const BouncingPendulumParameters& p);
void validate(const TwoBallOscillatorParameters& p);
void validate(const ImpactingBarParameters& p);
void validate(const BeamStopParameters& p);

// One LTI system [x, y, θ] (M = diag(m, m, I), constant gravity force), interactions "hinge" (equality,
// 2 rows, nonlinear relation) and "stop" (linear relation g = x − stop).
Model make_bouncing_pendulum(const BouncingPendulumParameters& p = {});
// One LTI system [y_lower, y_upper] (heights), interaction "ground" with g = y_lower.
Model make_two_ball_oscillator(const TwoBallOscillatorParameters& p = {});
// One LTI system (nodal axial displacements from the initial configuration, node 0 at the bottom), interaction
// "ground" with g = h₀ + u₀.
Model make_impacting_bar(const ImpactingBarParameters& p = {});
// One LTI system (the beam's free nodes), interaction "stop" on the tip deflection: g = gap + w_tip.
Model make_beam_against_stop(const BeamStopParameters& p = {});
// One nonlinear system (the beam, Model::nonlinear[0]), interaction "stop" on its tip.
Model make_rotating_beam(const RotatingBeamParameters& p = {});

// Mechanical energy of the pendulum (kinetic + gravity potential, zero at y = 0) and of the two-ball
// oscillator (kinetic + spring + gravity, zero on the ground at rest length), from the model's state.
double pendulum_energy(const Model& model, const BouncingPendulumParameters& p);
double two_ball_energy(const Model& model, const TwoBallOscillatorParameters& p);

}  // namespace talus
