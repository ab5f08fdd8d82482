#pragma once
// Files of a granular run (issue 4 item 6): ParaView series (the restart archive: apps/LargePathRestart.hpp).
//   beads_NNNNN.vtp     PolyData points at the bead centres, point data: radius, velocity, angular_velocity,
//                       contact_force (sum of the contact forces on the bead, impulses / h), id, and
//                       material (the id into the scene's table) when some bead is not "bead"
//   contacts_NNNNN.vtp  the contact network: one line per active contact between the centres (walls: from the
//                       contact point), cell data: normal_force, force (vector)
//   capsules_NNNNN.vtp  (scenes with capsules) PolyData points at the capsule centres, point data: radius,
//                       half_length (of the axis segment; the capsule is 2 (half_length + radius) long), axis
//                       (unit vector), orientation (quaternion w, x, y, z; body z = axis), velocity,
//                       angular_velocity, contact_force, id — glyph them in ParaView (Glyph: cylinder, oriented
//                       by axis)
//   meshes.vtp          (scenes with meshes) their triangles, once: cell data mesh (its index in the scene);
//                       with a moving mesh, meshes_NNNNN.vtp per frame and meshes.pvd instead
//   bodies_NNNNN.vtp    (small-path scenes with rigid bodies) PolyData points at the bodies' centres of mass, point
//                       data: radius, orientation, velocity, angular_velocity, id
//   beams_NNNNN.vtp     (small-path scenes with FE beams) each beam's deformed centreline, a polyline with point data
//                       deflection and deflection_velocity
//   beads.pvd, contacts.pvd, capsules.pvd, bodies.pvd, beams.pvd  collections indexing the frames by time (open these in
//                       ParaView); apps/FrameSeries.hpp writes them
//   restart.h5          the restart archive: apps/RestartArchive.hpp (the layout), apps/LargePathRestart.hpp
// Every file is written under a temporary name (.NAME.tmp beside it) and renamed when complete: a killed run
// leaves either the previous complete version or the new one, never half a file.
// Contacts touching a capsule (GeneralContacts.hpp) enter the contact network and the contact_force arrays
// like the bead contacts.
// VTK XML is written in ASCII: readable everywhere and small enough at the frame rates of a run.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "apps/FramePiece.hpp"
#include "contact/ContactCache.hpp"
#include "engine/granular/GeneralContacts.hpp"
#include "engine/Model.hpp"
#include "engine/granular/GranularFailure.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/matrixfree/SweepContact.hpp"

namespace talus::app {

// The last step's contacts: bead contacts (closed-form kernel) and the general ones touching a capsule, both
// indexing the bodies as they are now.
struct FrameContacts {
  const std::vector<granular::SweepContact>& beads;
  const std::vector<granular::GeneralContact>& general;
  const std::vector<matrixfree::FlexibleContact>& beams;  // beads against FE beams
  // A partitioned model (ModelPartition.hpp): the bead contacts this process reports (the contact network's piece);
  // null: all of them.
  const std::vector<char>* counted = nullptr;
};

// The stepper's last contacts, or none (no stepper: the small path, whose contacts are interactions; or
// contacts that no longer index the bodies as they are).
FrameContacts frame_contacts(const granular::GranularStepper* stepper);

// Throws std::runtime_error naming the file on any write failure.
void write_beads_vtp(const std::filesystem::path& file, const talus::Model& model,
                     const FrameContacts& contacts, double h, FramePiece piece = {});
void write_capsules_vtp(const std::filesystem::path& file, const talus::Model& model,
                        const FrameContacts& contacts, double h);
void write_contacts_vtp(const std::filesystem::path& file, const talus::Model& model,
                        const FrameContacts& contacts, double h, FramePiece piece = {});
// The ParaView index of a frame written in pieces (PPolyData): the arrays of the `series` ("beads" or
// "contacts") and the piece files, relative to the index.
void write_pvtp(const std::filesystem::path& file, const talus::Model& model, const std::string& series,
                const std::vector<std::string>& pieces);
void write_meshes_vtp(const std::filesystem::path& file, const talus::Model& model);
// The small path's rigid bodies (the store's general group): points at the centres of mass, point data radius
// (0 for a body that is not a sphere), orientation (w, x, y, z), velocity, angular_velocity (world), id.
void write_bodies_vtp(const std::filesystem::path& file, const talus::Model& model);
// The finite-element beams the bodies may touch (Model::detection.beams): each deformed centreline as one
// polyline, point data deflection w and its rate ẇ (along the beam's deflection direction), cell data beam (its
// index in the scene's beams).
void write_beams_vtp(const std::filesystem::path& file, const talus::Model& model);
// The small path's contact network: one line per sphere contact (with a plane, a sphere or a beam) whose last
// impulse is compressive, from the plane's or beam's contact point or the other sphere's centre to the sphere's
// centre; cell data normal_force (P_N / h) and interaction (its index in Model::interactions).
void write_interaction_contacts_vtp(const std::filesystem::path& file, const talus::Model& model, double h);
// (time, file name relative to the .pvd) pairs.
void write_pvd(const std::filesystem::path& file, const std::vector<std::pair<double, std::string>>& frames);

// "" when every body's position, velocity, angular velocity (and capsule orientation) is finite; otherwise
// which one is not, e.g. "bead id 17 (index 3): velocity (nan, 0, 0)" (engine/granular/GranularFailure.hpp).
using granular::non_finite_body;

// The temporary name a file is written under before it is renamed to `file`: .NAME.tmp in the same folder.
std::filesystem::path temporary_name(const std::filesystem::path& file);
// Renames `tmp` to `file` (same folder, atomic on POSIX); throws std::runtime_error naming `file`.
void commit_file(const std::filesystem::path& tmp, const std::filesystem::path& file);

}  // namespace talus::app
