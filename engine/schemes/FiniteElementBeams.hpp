#pragma once
// Linear finite elements for the flexible bodies of issue 5 item 5 (seed 004: impacting elastic bar; seed 000
// slide 71: flexible beam impacting a stop): sparse M and K, Rayleigh damping C = a_M M + a_K K, assembled into a
// LagrangianLti so that every integrator (Moreau–Jean, Newmark / HHT / generalized-α, Schatzman–Paoli) runs
// them unchanged, and unilateral contact is a LinearRelation on nodal coordinates.
//  - Bar: axial displacement u at nodes 0..N (node 0 at x = 0), linear elements,
//    K_e = EA/ℓ [1 −1; −1 1], M_e = ρAℓ/6 [2 1; 1 2] (consistent) or ρAℓ/2 I (lumped).
//  - Euler–Bernoulli beam: transverse deflection w and rotation θ = w′ at each node, Hermite cubic elements,
//    K_e = EI/ℓ³ [12 6ℓ −12 6ℓ; 6ℓ 4ℓ² −6ℓ 2ℓ²; …], M_e = ρAℓ/420 [156 22ℓ 54 −13ℓ; …] (consistent).
//    A clamped end (w = θ = 0) is removed from the unknowns rather than constrained.
#include "engine/LagrangianLti.hpp"

namespace talus {

enum class MassMatrixKind { Consistent, Lumped };

struct ElasticBarParameters {
  double young = 900.0;       // E [Pa]
  double density = 1.0;       // ρ [kg/m³]
  double area = 1.0;          // A [m²]
  double length = 10.0;       // L [m]
  int elements = 200;         // N >= 1
  MassMatrixKind mass = MassMatrixKind::Consistent;
  double rayleigh_mass = 0.0;       // a_M [1/s]
  double rayleigh_stiffness = 0.0;  // a_K [s]
  double axial_load = 0.0;    // uniform load per unit length along +x [N/m] (gravity: −ρ A g), consistent nodal forces
};

struct EulerBernoulliBeamParameters {
  double young = 2.1e11;        // E [Pa]
  double second_moment = 1e-8;  // I [m⁴]
  double density = 7800.0;      // ρ [kg/m³]
  double area = 1e-4;           // A [m²]
  double length = 1.0;          // L [m]
  int elements = 20;            // N >= 1
  bool clamped_left = true;     // node 0 clamped (cantilever); otherwise free-free
  double rayleigh_mass = 0.0;
  double rayleigh_stiffness = 0.0;
  double transverse_load = 0.0;  // uniform load per unit length [N/m], consistent nodal forces and moments
};

// Throw std::invalid_argument naming the parameter.
void validate(const ElasticBarParameters& p);
void validate(const EulerBernoulliBeamParameters& p);

// N + 1 axial displacements, q = v = 0.
LagrangianLti make_elastic_bar(const ElasticBarParameters& p);

// Unknowns (w_i, θ_i) of the nodes that are not clamped, q = v = 0.
LagrangianLti make_euler_bernoulli_beam(const EulerBernoulliBeamParameters& p);
// Index of the deflection w (resp. rotation θ) of `node` in the beam's coordinates (node 0 is the left end).
// Throws std::invalid_argument for a clamped or non-existent node.
Index beam_deflection_dof(const EulerBernoulliBeamParameters& p, int node);
Index beam_rotation_dof(const EulerBernoulliBeamParameters& p, int node);

}  // namespace talus
