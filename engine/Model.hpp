#pragma once
// The model: every dynamical system (three families), every interaction and the obstacles of the detected
// contacts. It owns the current state, so any integrator (Moreau–Jean, Schatzman–Paoli, generalized-α,
// event-driven, DAE, and the granular stepper of the large path) reads and writes the same data (issue 11;
// STYLE.md practice 0). Beads and capsules are the sphere and capsule groups of `bodies`; the small-system
// integrators work on the LTI, nonlinear and general-body part with user interactions. Each integrator refuses,
// naming what, a model holding parts it cannot integrate yet (make_dof_layout, GranularStepper).
#include <memory>
#include <vector>

#include "contact/MeshMotion.hpp"
#include "contact/Periodicity.hpp"
#include "contact/Shapes.hpp"
#include "contact/TriangleMesh.hpp"

#include "engine/Interaction.hpp"
#include "engine/LagrangianLti.hpp"
#include "engine/LagrangianNonlinear.hpp"
#include "engine/Materials.hpp"
#include "engine/detection/ContactDetectionSettings.hpp"
#include "engine/bodies/RigidBodies.hpp"

namespace talus {

struct Model {
  std::vector<LagrangianLti> lti;
  std::vector<LagrangianNonlinear> nonlinear;
  // Rigid bodies (the one store of engine/bodies/RigidBodies.hpp, world-frame ω and torque). The small path
  // puts its bodies in the General group (their contact geometry is given by user relations) and addresses
  // them by store index: body k of the DofLayout and of SystemRef{Rigid, k} is bodies index k.
  RigidBodies bodies;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  // applied to rigid bodies only
  std::vector<Interaction> interactions;
  // Sphere contacts the small-path integrators find each step (engine/detection/SmallPathDetection.hpp) and
  // append after the listed interactions.
  ContactDetectionSettings detection;
  // Obstacles of the detected contacts (static or moving planes with an optional orifice, fixed boxes,
  // rotating drums, conical and cylindrical shells) and periodic boundaries; no wall may cut a periodic axis.
  std::vector<contact::Wall> walls;
  std::vector<contact::Box> boxes;
  std::vector<contact::Drum> drums;
  std::vector<contact::Cone> cones;  // fixed conical and cylindrical shells (hoppers, silos)
  // Triangle-mesh walls (contact/TriangleMesh.hpp). Shared, since a model is copied (snapshots,
  // Python) and a mesh never changes once built.
  std::vector<std::shared_ptr<const contact::TriangleMesh>> meshes;
  // Their prescribed motions, one per mesh (an empty list: every mesh is fixed). A moving mesh's contacts are
  // general contacts (like a drum's: the matrix-free solvers), a fixed one's are bead contacts.
  std::vector<contact::MeshMotion> mesh_motion;
  bool mesh_moves(int k) const { return k < static_cast<int>(mesh_motion.size()) && mesh_motion[k].moves(); }
  // Meshes carried by a capsule (a blade on a driven paddle): mesh k's vertices are in the frame of body
  // mesh_body[k] (a capsule's store index; −1 or an empty list: none). Its contacts push that body back.
  std::vector<int> mesh_body;
  int mesh_carrier(int k) const { return k < static_cast<int>(mesh_body.size()) ? mesh_body[k] : -1; }
  bool mesh_fixed(int k) const { return !mesh_moves(k) && mesh_carrier(k) < 0; }
  contact::Periodicity periodic;
  // The laws of the detected contacts (engine/Materials.hpp): a (μ, e, μ_r) per pair of materials; bodies carry
  // their material in bodies.material, obstacles here, one id per wall, box and drum in their order (an empty
  // list: every obstacle of that kind is "wall"). A wall's orifice rim is part of its wall.
  MaterialTable materials;
  std::vector<MaterialId> wall_material, box_material, drum_material, cone_material, mesh_material;
  MaterialId material_of_wall(int w) const { return w < static_cast<int>(wall_material.size()) ? wall_material[w] : kWallMaterial; }
  MaterialId material_of_box(int k) const { return k < static_cast<int>(box_material.size()) ? box_material[k] : kWallMaterial; }
  MaterialId material_of_drum(int d) const { return d < static_cast<int>(drum_material.size()) ? drum_material[d] : kWallMaterial; }
  MaterialId material_of_cone(int k) const { return k < static_cast<int>(cone_material.size()) ? cone_material[k] : kWallMaterial; }
  MaterialId material_of_mesh(int k) const { return k < static_cast<int>(mesh_material.size()) ? mesh_material[k] : kWallMaterial; }
  double time = 0.0;
  long step = 0;  // steps taken since t = 0

  // The interactions given by the user (listed, joints, generated N² pairs): all but the detected ones.
  std::size_t listed_interactions() const {
    return detection.first < 0 ? interactions.size() : static_cast<std::size_t>(detection.first);
  }

  // Throws std::invalid_argument naming the system or interaction and what is wrong (sizes, references).
  void validate() const;
};

// A solid sphere of density rho at x (identity orientation, at rest) appended to the General group of `bodies`,
// with m = ρ 4/3 π r³, I = 2/5 m r² and bounding radius r; returns its index. Throws std::invalid_argument
// for r <= 0 or rho <= 0.
int add_general_sphere(RigidBodies& bodies, const Eigen::Vector3d& x, double radius, double density);

}  // namespace talus
