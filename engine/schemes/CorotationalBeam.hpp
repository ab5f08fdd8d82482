#pragma once
// A geometrically nonlinear planar beam for the flexible rotating beam that strikes a stop (seed 000 fig. 10,
// issue 5). The linear FE beams of FiniteElementBeams.hpp hold only for small rotations; a beam swinging about
// a hinge needs large ones. This is the 2-D co-rotational Euler–Bernoulli element (Crisfield 1991; Battini
// 2002): each element's rigid motion is carried by its chord, and in the chord frame the element is the linear
// bar + Hermite beam. With the chord length ℓ, its rotation α since the initial configuration, and the nodal
// rotations θ_a, θ_b,
//   u = ℓ − ℓ₀,  θ̄_a = θ_a − α,  θ̄_b = θ_b − α,
//   N = EA u/ℓ₀,  (M_a, M_b) = EI/ℓ₀ [4 2; 2 4] (θ̄_a, θ̄_b),
//   f_int = Bᵀ(N, M_a, M_b),  B = [r; e_θa − z/ℓ; e_θb − z/ℓ],
//   K_t = Bᵀ D B + N z zᵀ/ℓ + (M_a + M_b)(r zᵀ + z rᵀ)/ℓ²,
// r = (−c, −s, 0, c, s, 0), z = (s, −c, 0, −s, c, 0), (c, s) the chord direction. The strain energy is exactly
// invariant under rigid motions, so a freely rotating beam keeps its energy and angular momentum up to the time
// discretisation. K_t is the Jacobian the schemes' Newton iterations use (iteration matrix β′M + γ′C_t + K_t
// of seed 002 eq 10).
//
// Mass: HRZ lumping (ρAℓ₀/2 per element end for translations, ρAℓ₀³/78 for rotations): constant and invariant
// under rotations, so M(q) = M and no ∂(M a)/∂q term is missing from the iteration matrices.
//
// Coordinates: node 0 is pinned at the hinge (its translations are removed from the unknowns, as the clamped
// end of FiniteElementBeams.hpp, so every scheme keeps it exactly in place); q = (θ₀, x₁, y₁, θ₁, …, x_N, y_N,
// θ_N) are absolute positions and rotations measured from the initial straight configuration.
#include <string>

#include "engine/Model.hpp"

namespace talus {

struct CorotationalBeam {
  std::string name = "beam";
  double length = 1.0;             // L [m]
  int elements = 10;               // N >= 1
  double axial_stiffness = 1e3;    // EA [N]
  double bending_stiffness = 1.0;  // EI [N m²]
  double mass_per_length = 1.0;    // ρA [kg/m]
  Eigen::Vector2d hinge = Eigen::Vector2d::Zero();    // pinned end (node 0) [m]
  double angle = 0.0;              // initial direction of the straight beam, from +x [rad]
  double angular_velocity = 0.0;   // initial rigid rotation rate about the hinge, counter-clockwise [rad/s]
  Eigen::Vector2d gravity = Eigen::Vector2d::Zero();  // uniform field in the plane of motion [m/s²]
};

// Throws std::invalid_argument naming the parameter.
void validate(const CorotationalBeam& beam);

// Index of x (then y) of node k >= 1, and of θ of node k >= 0, in the beam's coordinates.
Index corotational_position_dof(const CorotationalBeam& beam, int node);
Index corotational_rotation_dof(const CorotationalBeam& beam, int node);

// The beam as a LagrangianNonlinear: constant lumped M, f = −f_int(q) + gravity loads, ∂f/∂q = −K_t, ∂f/∂v = 0,
// potential = strain energy + gravity potential (so the energy output is the mechanical energy). q, v: the
// straight beam at `angle` rotating rigidly at `angular_velocity`.
LagrangianNonlinear make_corotational_beam(const CorotationalBeam& beam);
// Appends it to the model; returns its index in Model::nonlinear.
Index add_corotational_beam(Model& model, const CorotationalBeam& beam);

// A rigid stop for the tip: the straight wall through the hinge at `stop_angle`, touched by the tip node only
// (a peg at the tip's radius: the other nodes are not checked), on the side where the initial tip lies:
// g = n·(p_tip − hinge) ≥ 0, a LinearRelation. Appends the interaction `name` with `law` (a Newton impact law)
// and returns its index. Throws std::invalid_argument when the beam starts on the wall or the law has friction.
Index add_corotational_tip_stop(Model& model, Index system, const CorotationalBeam& beam, double stop_angle,
                                const NonsmoothLaw& law, const std::string& name);

// Internal force f_int(q) and, when Kt is not null, the tangent stiffness K_t = ∂f_int/∂q (dense, n × n).
void corotational_internal_force(const CorotationalBeam& beam, const Vector& q, Vector& f_int, Matrix* Kt);
double corotational_strain_energy(const CorotationalBeam& beam, const Vector& q);
// Diagonal of the lumped mass matrix.
Vector corotational_lumped_mass(const CorotationalBeam& beam);
// Position of node k (node 0 is the hinge).
Eigen::Vector2d corotational_node_position(const CorotationalBeam& beam, const Vector& q, int node);
// Angular momentum about the hinge: Σ m_k (p_k − hinge) × ṗ_k + Σ J_k θ̇_k.
double corotational_angular_momentum(const CorotationalBeam& beam, const Vector& q, const Vector& v);
// Length of the deformed centreline's chords, Σ ℓ_e (L when unstretched).
double corotational_chord_length(const CorotationalBeam& beam, const Vector& q);

}  // namespace talus
