#pragma once
// The detection stage of the small-system integrators (issue 11): each step, before the one-step problem is
// built, the sphere–sphere pairs and sphere–plane pairs of Model::detection whose gap is below a margin
// become SphereContactRelation interactions with the detected contacts' law, appended after the listed
// interactions (Model::detection.first). So beads and a jointed mechanism share one model under Moreau–Jean
// and generalized-α with O(N) interactions, where `contacts: {sphere_sphere: true}` lists all N² pairs.
//
// Broad phase: the granular path's cell grid (contact/CellGrid.hpp, contact/BroadPhase.hpp), serial.
// Margin: a pair is listed when its gap is at most margin + 2 h max|v|. Moreau–Jean activates a contact when
// g + γ h U_N <= 0 (seed 000 eq 41e), and |U_N| = |n·(v_b − v_a)| <= 2 max|v| (the normal of two spheres goes
// through both centres, so spin does not enter it): every contact the full list would activate is listed, and
// the active sets, hence the one-step problems, are those of the full list.
// Order: sphere–plane pairs by (body, plane), then sphere–beam pairs by (body, beam), then sphere–sphere pairs by
// (a, b): the order in which the scene loader generates the full list, so that the rows of the one-step
// problem come in the same order.
// Beams (Model::detection.beams; engine/detection/BeamSphereContact.hpp): each element's box along the beam's
// deflection axis (nodal deflections, the Hermite cubic's bound between nodes, the half thickness) is the broad
// phase; a sphere over the strip whose axial extent meets a box is a candidate, and it is listed when its gap
// is at most margin + h (max|v| + the beam's speed bound), the bound of |U_N| for that pair. Key: the beam's
// index as a wall with feature 1. A persisting pair keeps its side of the centreline.
// Persistence (STYLE.md practice 5): a pair listed in two successive steps keeps its Interaction object,
// hence its gap, velocity and impulse (the warm start of the next solve and the writers' output), matched by
// the key of contact/ContactCache.hpp built from the bodies' stable ids. A new pair starts from a zero
// impulse, as an inactive pair of the full list does. Pairs joined by a listed interaction (a joint, or a
// listed sphere contact) are never detected: a jointed link overlapping its neighbour at the hinge is not a
// contact. No allocation once the contact count has settled: Interaction objects of vanished pairs are
// recycled.
#include <vector>

#include "contact/BroadPhase.hpp"
#include "contact/CellGrid.hpp"
#include "contact/ContactCache.hpp"
#include "engine/Model.hpp"

namespace talus {

struct SmallPathDetection {
  contact::CellGrid grid;
  std::vector<Eigen::Vector3d> x;  // centres of Model::detection.spheres, in that order
  std::vector<double> radius;
  std::vector<contact::BodyPair> pairs;       // indices into `x`
  std::vector<contact::ContactKey> excluded;  // pairs joined by a listed interaction, sorted
  std::vector<contact::ContactKey> keys;      // of the detected interactions, in their order
  std::vector<contact::ContactKey> old_keys;  // the last step's, and their sorted copy with positions
  std::vector<std::pair<contact::ContactKey, int>> old_sorted;
  std::vector<Interaction> previous, spare;  // the last step's detected interactions; recycled objects
  std::vector<char> taken;
  bool ready = false;   // `excluded` collected, `keys` those of the model's detected contacts
  std::vector<int> beam_box_begin;           // per beam of Model::detection.beams: its first element box
  std::vector<double> box_low, box_high;     // element boxes along each beam's deflection axis [m]
  double reach = 0.0;   // the last call's margin + 2 h max|v| [m]
  double beam_reach = 0.0;  // the last call's margin + h (max|v| + the beams' speed bound) [m]
  long candidates = 0;  // pairs the broad phase returned in the last call
};

// A detected contact as restart archives record it (apps/SceneRestart.cpp): its sphere (a store index), what
// it touches (a plane or a beam of Model::detection by index, or another sphere by store index) and, for a
// beam, the side of the centreline the pair was first listed on.
struct DetectedContact {
  enum class With : int { Plane = 0, Sphere = 1, Beam = 2 };
  With with = With::Plane;
  int body = 0, other = 0;
  double side = 1.0;
};
// What a detected interaction (Model::interactions[detection.first, end)) touches.
DetectedContact describe_detected_contact(const Model& model, const Interaction& in);
// The interaction detect_contacts lists for that contact, with zero gap, velocity and impulse: a restored model
// then holds the contacts its last step had, and the next detection keeps them (and their warm starts) as it
// would have. Throws std::invalid_argument naming what the model lacks (a sphere, plane or beam).
Interaction make_detected_contact(const Model& model, const DetectedContact& c);

// Rebuilds Model::interactions[first, end) from the spheres' positions and velocities. h: the step the
// integrator is about to take. Returns true when the list of detected pairs changed (an integrator that
// classifies interactions once must then do it again). Does nothing and returns false when detection is off.
bool detect_contacts(Model& model, SmallPathDetection& ws, double h);

}  // namespace talus
