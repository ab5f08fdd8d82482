#pragma once
// Relations: the gap g(q) of an interaction and its Jacobian J(q) = ∇g(q)ᵀ (so U = J v and the reaction's
// generalised impulse is p = Jᵀ P; J is Hᵀ in the notation of seed 000 eq 40). Scleronomous only.
// An interaction's relation outputs as many rows as its law has (1 for Newton impact and 1-D equality,
// 2 or 3 for 2-D / 3-D friction): row 0 is the normal gap, rows 1.. are tangential directions whose
// "gap" entry is not used (only their velocity J v is).
// `q` below is the concatenation of the coordinates of the interaction's systems, in order.
#include <functional>
#include <variant>

#include "engine/detection/BeamSphereContact.hpp"
#include "engine/joints/RigidJoint.hpp"
#include "solvers/core/SparseTypes.hpp"

namespace talus {

// g = C q + b: point-masses against a wall, chains of beads, nodes of a bar against a stop.
struct LinearRelation {
  Matrix C;  // rows × (coordinates of the attached systems)
  Vector b;  // rows
};

// g(q) and J(q) from user callbacks: rocking block corners, pendulum constraints, cams.
struct NonlinearRelation {
  int rows = 1;
  std::function<void(const Vector& q, Vector& g)> gap;       // writes `rows` entries
  std::function<void(const Vector& q, Matrix& J)> jacobian;  // rows × coordinates
};

// Contact of a rigid sphere (system 0, a body of Model::bodies) with a fixed plane {x : n·x = offset}
// (one system), or with another sphere (two systems). Frames (n, t1, t2) are built from the geometry.
struct SphereContactRelation {
  Eigen::Vector3d plane_normal = Eigen::Vector3d::UnitZ();  // unit, pointing into the free side
  double plane_offset = 0.0;                                  // used when there is one system
};

// Contact of a rigid sphere (system 0, a body of Model::bodies) with a linear Euler–Bernoulli beam (system 1, an
// LTI system built by make_euler_bernoulli_beam) placed in space by `beam`; gap, normal and Jacobian from the
// element's shape functions (engine/detection/BeamSphereContact.hpp). `side` (±1) is the side of the
// centreline the sphere was on when the pair was first listed.
struct BeamSphereContactRelation {
  BeamContactGeometry beam;
  double side = 1.0;
};

// JointRelation (engine/joints/RigidJoint.hpp): a spherical, revolute or prismatic joint, or a driver, between
// two bodies of Model::bodies or a body and the world; every row is a gap, to be used with an EqualityLaw.
using Relation =
    std::variant<LinearRelation, NonlinearRelation, SphereContactRelation, JointRelation, BeamSphereContactRelation>;

}  // namespace talus
