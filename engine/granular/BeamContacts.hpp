#pragma once
// Finite-element beams on the large path (issue 11: "FE bodies on the large path"; a bead pile striking a
// flexible structure at the granular stepper's scale). The beams are the model's linear Euler–Bernoulli
// cantilevers (LTI systems placed by Model::detection.beams, engine/detection/BeamSphereContact.hpp), the beads
// touch them as the small path's detection lets them (sphere–beam contacts through element boxes, the same
// gap, frame and Jacobian), and the granular stepper solves those contacts with the bead contacts in its
// matrix-free sweeps (solvers/matrixfree/FlexibleContactSweep.hpp).
//
// Time stepping: the beads keep the stepper's Moreau–Jean scheme (θ = 1); each beam takes the θ-method of
// seed 000 (eqs 32–41) for an LTI system, whose iteration matrix M̂ = M + hθC + h²θ²K is constant:
//   v_{k+1} = v_free + M̂⁻¹ Jᵀ P,   v_free = v_k + M̂⁻¹ h (F_θ − C v_k − K (q_k + hθ v_k)),
//   q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k),   F_θ = θ F(t_{k+1}) + (1 − θ) F(t_k).
// The contact impulses P enter through the response M̂⁻¹ Jᵀ of each contact. M̂⁻¹ is formed once (dense: a beam
// has tens to hundreds of unknowns), so a step costs O(contacts × unknowns).
// Why θ = 1 by default (GranularParameters::beam_theta): the contacts' laws act on the velocities v_{k+1}, and
// the beads move with them (x_{k+1} = x_k + h v_{k+1}); a beam moving with θ v_{k+1} + (1 − θ) v_k instead lets
// a closed contact drift into it by h (1 − θ) ΔU_N per step while the beam accelerates. Measured on a bead
// settling on the steel strip (tests/granular/test_beam_contacts.cpp): 7e-4 r left in it at θ = ½, 1.4e-7 r at
// θ = 1. θ = ½ conserves a free beam's energy (seed 000 eq 84), θ = 1 damps its vibration numerically.
// Contact law: the bead-contact laws of the stepper (GranularStepper.hpp): the open target u_N + gap_k/h >= 0,
// Newton's u_N,k+1 + e u_N,k >= 0 once closed, Coulomb's cone with the (μ, e) of the pair (bead material,
// "wall"): a beam is an obstacle of the wall material. Each pair keeps its side of the centreline while it
// persists (BeamSphereContact.hpp); a new pair (and every pair after a restart) takes the side its centre is on.
// Capsules meet a beam as spheres of their radius on their axis (contact/CapsuleMeshContact.hpp's rule) at
// their two ends, at the points where their axis crosses the strip's long edges (the lines |y| = half_width, which
// do not move: the beam bends in its plane only), so that a capsule lying across the strip rests on its width
// whatever its tilt, and at the axis point nearest the beam when it is nearer than all of those (by 1e-3 r) and
// more than a radius from each (a capsule on the beam's crest), found by a golden-section search along the axis.
// Keys: the capsule with features 0, 1 (ends), 2, 3 (edges) and 4 (nearest point). Each is a contact while its
// gap is within the step's reach. The lever arm from the capsule's centre turns it with the contact's friction
// and normal force. Beams do not meet each other, nor a periodic image of a bead.
#include <Eigen/Dense>
#include <utility>
#include <vector>

#include "contact/ContactCache.hpp"
#include "engine/Model.hpp"
#include "solvers/matrixfree/FlexibleContactSweep.hpp"

namespace talus::granular {

struct BeamContacts {
  struct Beam {
    int lti = 0;              // index in Model::lti
    int detection = 0;        // index in Model::detection.beams (the contacts' keys)
    Eigen::MatrixXd inverse;  // M̂⁻¹
    Vector v_start, force, scratch;
  };
  std::vector<Beam> beams;
  double h = 0.0, theta = 0.5;
  std::vector<double> low, high;  // element boxes (beam_element_boxes), beam after beam
  std::vector<int> box_begin;
  std::vector<std::pair<contact::ContactKey, double>> sides, next_sides;  // each pair's side, sorted by key
  std::vector<contact::ContactKey> keys;          // the contacts' keys, in the sweep's order
  std::vector<Eigen::Vector3d> world_impulses;    // the contacts' impulses, world frame (beam_world_impulses)
  bool empty() const { return beams.empty(); }
};

// Takes the model's beams: every LTI system must be one of Model::detection.beams (and every beam one of the
// LTI systems), θ in [0, 1], h > 0; forms each M̂⁻¹. Throws std::invalid_argument naming the system otherwise.
void prepare_beam_contacts(BeamContacts& s, const Model& m, double h, double theta);

// The sphere–beam contacts of the step, at the start-of-step state (v_k): detection within margin + h (the
// beam's speed bound), frames, blocks of W, Newton targets, warm starts from `cache` (keyed as
// contact/ContactKey.hpp's Beam obstacles). Fills out (its bodies point at the beams' velocities) and s.keys.
// Returns the largest penetration −gap (0 when none).
double build_beam_contacts(BeamContacts& s, Model& m, double margin, const contact::ContactCache& cache,
                           matrixfree::FlexibleContactSweep& out);

// v ← v_free of every beam (header), keeping v_k for integrate_beam_positions and for a rolled-back step.
void beam_free_velocities(BeamContacts& s, Model& m);

// q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k) once the solve has set v_{k+1}.
void integrate_beam_positions(const BeamContacts& s, Model& m);

// A failed step (FailurePolicy::RollBack): the beams' velocities back to v_k.
void restore_beam_velocities(const BeamContacts& s, Model& m);

// s.world_impulses = the contacts' impulses in the world frame (what the contact cache keeps).
void beam_world_impulses(BeamContacts& s, const matrixfree::FlexibleContactSweep& set);

}  // namespace talus::granular
