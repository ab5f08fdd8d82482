#pragma once
// The two academic mechanisms of seed 002 section 3.1, as MechanicalSystems with closed-form mass matrix,
// forces, constraints, Jacobians and curvature terms, so the DAE integrators are compared exactly as in
// seed 002 tables 3 and 4. Parameters are the seed's; what the seed leaves implicit (rods are uniform
// slender bars, gravity acts in the plane of the mechanism along −y) is stated in docs/mechanisms.md with
// the derivation of M(q) and F(t, q, v).
#include "engine/eventdriven/AdaptiveDae.hpp"

namespace talus::eventdriven {

// Slider-crank, q = (α₁, α₂, x): crank (m₁, l₁) pinned at the origin, connecting rod (m₂, l₂) from the
// crank tip to the slider (m₃) that moves on the x axis. Constraints (seed 002 eq 18):
//   g₁ = l₁ sin α₁ + l₂ sin α₂ = 0,  g₂ = x − l₁ cos α₁ − l₂ cos α₂ = 0.
struct SliderCrankParameters {
  double m1 = 1.0, m2 = 1.0, m3 = 1.0;  // [kg]
  double l1 = 1.0, l2 = 2.0;            // [m]
  double gravity = 9.81;                // [m/s²]
  Eigen::Vector3d q0 = Eigen::Vector3d(0.0, 0.0, 3.0);
  Eigen::Vector3d v0 = Eigen::Vector3d(8.0, -4.0, 0.0);
  double t_end = 2.0;                   // [s]
};

// Rocking block, q = (x, z, θ): a uniform L × l block (mass m) whose corner A stays on the ground z = 0
// (frictionless: A slides freely). Constraint (seed 002 eq 19): g = z − ½ L sin θ − ½ l cos θ = 0.
struct RockingBlockParameters {
  double mass = 1.0;       // [kg]
  double width = 1.0;      // L [m]
  double height = 0.5;     // l [m]
  double gravity = 9.81;   // [m/s²]
  double theta0 = M_PI / 3.0;
  double t_end = 0.5;      // [s]
};

struct MechanismCase {
  std::string name;
  MechanicalSystem system;
  DaeState initial;
  std::vector<Index> active;  // all rows: both mechanisms are bilateral in the seed's comparison
  double t_end = 0.0;
};

MechanismCase make_slider_crank(const SliderCrankParameters& p = {});
MechanismCase make_rocking_block(const RockingBlockParameters& p = {});

}  // namespace talus::eventdriven
