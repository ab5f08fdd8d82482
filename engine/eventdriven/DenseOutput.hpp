#pragma once
// Continuous extension of one accepted step, shared by all three DAE integrators so that events are located
// the same way whatever the integrator (seed 000 slides 20–24: root finding on g and λ needs the state inside
// the step). q(θ) is the quintic Hermite interpolant of (q, q̇, q̈) at both ends — exact for polynomials of
// degree 5, so free flights under constant forces (the bouncing ball) are reproduced to round-off, and
// O(h⁶) otherwise, below the local error of every integrator here. v(θ) is its derivative when q̇ = v, and
// the cubic Hermite interpolant of (v, v̇) otherwise.
#include "engine/eventdriven/DaeStep.hpp"

namespace talus::eventdriven {

struct DenseSegment {
  double t0 = 0.0;
  double h = 0.0;
  bool identity_kinematics = true;
  Vector q0, qd0, qdd0, q1, qd1, qdd1;  // coordinates and their first two derivatives
  Vector v0, a0, v1, a1;

  double time(double theta) const { return t0 + theta * h; }
  void coordinates(double theta, Vector& q) const;
  void velocities(double theta, Vector& v) const;
};

// Builds the segment between two consistent states (accelerations filled).
void make_segment(const ConstrainedEvaluator& ev, const DaeState& s0, const DaeState& s1, DenseSegment& seg);

}  // namespace talus::eventdriven
