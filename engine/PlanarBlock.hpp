#pragma once
// The 2D rocking block (seed 002, section 3.1.2): a rectangle moving in the x–y plane with coordinates
// q = (x, y, θ) of its centre of mass and its angle, M = diag(m, m, I), under a uniform gravity field, in
// unilateral contact with a horizontal ground line y = ground through its four corners. Each corner is a
// NonlinearRelation (seed 002 eq 19 for corner A, generalised to all four): the normal gap is the corner's
// height above the ground and, when the law has friction (2-D Coulomb), the tangential row is the corner's
// velocity along +x. Being a LagrangianNonlinear with constant M, it exercises the nonlinear path of the
// integrators (Newton on the θ-scheme residual, state-dependent Jacobians) on a system whose answers are known.
//
// Gravity is part of the force f and therefore of the external work the integrators report; the block has no
// potential callback, so that its energy output is accounted for like LTI systems and rigid bodies (kinetic
// energy + cumulated external work), never counting gravity twice.
#include <array>
#include <string>

#include "engine/Model.hpp"

namespace talus {

struct PlanarBlock {
  std::string name;
  double width = 1.0;    // side along the body x axis (L in seed 002) [m]
  double height = 0.5;   // side along the body y axis (l in seed 002) [m]
  double mass = 1.0;     // [kg]
  double inertia = 0.0;  // about the centre of mass [kg m²]; 0 means a uniform rectangle, m (w² + h²) / 12
  Eigen::Vector2d gravity = Eigen::Vector2d(0.0, -9.81);  // [m/s²] in the plane of motion
  double ground = 0.0;   // the ground is the line y = ground
  Eigen::Vector3d q0 = Eigen::Vector3d::Zero();  // (x, y, θ)
  Eigen::Vector3d v0 = Eigen::Vector3d::Zero();  // (ẋ, ẏ, θ̇)
};

// Corner offsets in the body frame, counter-clockwise from (−w/2, −h/2).
std::array<Eigen::Vector2d, 4> planar_block_corners(const PlanarBlock& block);

// Appends the block (a LagrangianNonlinear named block.name) and its four corner interactions
// (named "<name>.corner0" … "<name>.corner3") to the model and returns the index of the system in
// Model::nonlinear. The law must be a NewtonImpactLaw or a NewtonImpactFrictionLaw with dim = 2.
// Throws std::invalid_argument for non-positive sizes, mass or inertia, or an unsuitable law.
Index add_planar_block(Model& model, const PlanarBlock& block, const NonsmoothLaw& corner_law);

}  // namespace talus
