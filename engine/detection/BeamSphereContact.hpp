#pragma once
// Narrow phase of a rigid sphere against a linear Euler–Bernoulli beam (engine/schemes/FiniteElementBeams.hpp):
// the gap and the Jacobian rows of one contact, so that a bead and a flexible body share one interaction list
// (issue 11, "an FE cantilever struck by beads").
//
// Why this beam. The linear Hermite beam of FiniteElementBeams is a LagrangianLti: constant M, K, C, which both
// Moreau–Jean (seed 000 eqs 32–41) and the nonsmooth generalized-α (seed 004 eqs 34–42) step exactly, and
// whose discrete energy balance (seed 000 eqs 77, 84) holds to round-off, so the balance of a bead striking it
// can be checked. Its static deflection under a point load is the textbook P a²(3L − a)/(6 EI) (Hermite cubics
// reproduce it exactly at the nodes). The co-rotational beam (CorotationalBeam.hpp) is nonlinear, planar in its
// own (x, y) and pinned by a hinge: it is the one for large rotations, not needed for a struck cantilever.
//
// Geometry. The beam's coordinates are the nodal deflections w_i and slopes θ_i = w′ (Hermite cubic elements of
// length ℓ, node 0 at `origin`, clamped when `clamped_left`). In space its undeformed centreline runs from
// `origin` along the unit `axis`; w is measured along the unit `deflection` (⟂ axis). The beam is planar: it
// bends in the plane (axis, deflection) only and has no axial or out-of-plane unknowns. Its section is a
// rectangle: `2 half_thickness` along `deflection`, `2 half_width` along b = axis × deflection.
// A 3-D sphere meets it as a strip of that width. Over the strip (|y| <= half_width, y the centre's offset along
// b) the contact normal lies in the beam's plane. Beside it the section's long edges are lines and its sides
// planes: the normal then has a component along b, from the edge line (centre beyond a face) or the side (centre
// within the thickness) to the centre, so a bead sliding off the edge keeps a continuous gap. The beam has no
// out-of-plane unknowns: the b component of a force does not load it (it is rigid across its plane).
//
// Gap. With c the sphere's centre in the beam frame (a along axis, z along deflection), the closest point of the
// deformed centreline s ↦ (s, w(s)) is found by Newton's method on (c − x(s))·x′(s) = 0, s in [0, L]. Inside,
// the normal is the centreline's normal on the sphere's side (`side` = ±1: +1 when the sphere is on the side
// `deflection` points to; set by the detection when the pair is first listed and kept, so that a sphere
// pushed past the centreline reads a negative gap rather than a contact on the other face). Beyond an end (the
// centre past it along the tangent) the closest point is the end itself and the normal points from it to the
// centre, on either side (a rounded end, so a bead can roll over the free tip and fall past it).
// gap = signed distance − r − half_thickness.
//
// Frame: n, then t1 = n × b in the beam's plane and t2 = n × t1 (so a 2-row friction law acts along the beam).
// Jacobian (rows n, t1, t2 as contact/SphereContact.hpp; U = J v is the velocity of the sphere's contact point
// relative to the beam's). The beam's material point under the contact moves as the element interpolates
// displacement: ẇ(s) = Σ N_j(s) q̇_j along `deflection` with the Hermite functions N_j of the element
// (FiniteElementBeams.hpp), and its section turns by θ̇(s) = Σ N′_j(s) q̇_j about b. The surface point at
// half_thickness ν from the centreline (or, facing a side, at the centre's depth) thus moves with
// ẇ(s) deflection + θ̇(s) b × (half_thickness ν) (its offset along b adds nothing: b × b = 0): the
// second term has no normal component, so the normal row is the exact rate of the gap (the closest point is
// stationary), and the tangential rows carry the bending moment of friction. So p = Jᵀ P puts the contact
// force on the element's four nodal unknowns by the same shape functions (the consistent nodal load).
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "contact/ContactFrame.hpp"
#include "contact/SphereContact.hpp"
#include "solvers/core/SparseTypes.hpp"

namespace talus {

struct BeamContactGeometry {
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();        // node 0 (the clamped end of a cantilever) [m]
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();         // unit, along the undeformed beam
  Eigen::Vector3d deflection = Eigen::Vector3d::UnitZ();   // unit, ⟂ axis: the direction of w
  double length = 1.0;                                     // L [m]
  int elements = 1;                                        // N >= 1
  bool clamped_left = true;                                // node 0's w and θ are not unknowns
  double half_thickness = 0.0;                             // [m], along deflection
  double half_width = 0.0;                                 // [m], along axis × deflection

  // Number of the beam's coordinates: 2 (N + 1), less the clamped node's two.
  Index dofs() const { return 2 * Index(elements + 1) - (clamped_left ? 2 : 0); }
  // Index of dof d (0: w, 1: θ) of `node` in the beam's coordinates, −1 when clamped (FiniteElementBeams.cpp's
  // numbering; repeated here because the engine core does not link the schemes library).
  Index dof(int node, int d) const {
    if (clamped_left) return node == 0 ? -1 : 2 * Index(node - 1) + d;
    return 2 * Index(node) + d;
  }
};

// What is wrong with g (naming the field), or an empty string: unit and orthogonal axis and deflection, finite
// origin, L > 0, N >= 1, half thickness and half width > 0.
std::string beam_geometry_problem(const BeamContactGeometry& g);

struct BeamSphereContact {
  double gap = 0.0;
  contact::ContactFrame frame;
  contact::JacobianBlock J_sphere;        // w.r.t. the sphere's [v_world, ω_body]
  Eigen::Matrix<double, 3, 4> J_beam;     // w.r.t. the element's (w_a, θ_a, w_b, θ_b) velocities
  Index beam_dof[4] = {-1, -1, -1, -1};   // their indices in the beam's coordinates (−1: clamped, no column)
  double s = 0.0;                         // arc abscissa of the closest point [m]
  double y = 0.0;                         // the centre's offset along axis × deflection [m]
  bool over_strip = false;                // |y| <= half_width (otherwise the contact is with an edge or a side)
};

// The sphere's side of the undeformed-and-deformed centreline: +1 when its centre is on the side `deflection`
// points to (or on the centreline), −1 otherwise. q_beam: the beam's coordinates.
double beam_sphere_side(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q_beam,
                        const Eigen::Vector3d& centre);

// The contact of `sphere` with the beam at coordinates q_beam (side as above), over the strip or beside it.
BeamSphereContact beam_sphere_contact(const BeamContactGeometry& g, double side,
                                      const Eigen::Ref<const Vector>& q_beam, const contact::SpherePose& sphere);

// Broad phase of the sphere–beam pairs, shared by both paths' detection. Appends to low/high one box per element
// along the beam's deflection axis, in its own frame (element e spans [e ℓ, (e + 1) ℓ] along the axis): the nodal
// deflections, widened by the Hermite cubic's bound between nodes and the half thickness. Returns the bound of
// the beam's material speed |ẇ| (the same bound on v_beam), with which a detection widens its reach.
// Between nodes a Hermite cubic leaves its chord by at most (4/27) ℓ (|θ_a − m| + |θ_b − m|), m the chord's
// slope (ξ(1 − ξ)² <= 4/27), for w as for ẇ.
double beam_element_boxes(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q_beam,
                          const Eigen::Ref<const Vector>& v_beam, std::vector<double>& low, std::vector<double>& high);

// Whether a sphere (centre x, radius r) may come within `reach` of the beam whose element boxes are
// low[0, elements), high[0, elements): its centre within half_width + r + reach of the beam's plane, and the boxes
// its axial extent meets, rounded ends included.
bool beam_sphere_near(const BeamContactGeometry& g, const double* low, const double* high, const Eigen::Vector3d& x,
                      double r, double reach);

// The largest nodal deflection |w| of the beam over its length (the linear beam's small-deflection theory, on
// which its stiffness and this contact geometry rest, holds to a few per cent up to about 0.2: apps/LinearBeamCheck.hpp).
double beam_deflection_ratio(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q_beam);

// Deflection w(s) and slope w′(s) of the beam at abscissa s in [0, L] (Hermite interpolation).
Eigen::Vector2d beam_deflection_at(const BeamContactGeometry& g, const Eigen::Ref<const Vector>& q_beam, double s);

}  // namespace talus
