#pragma once
// Files of a granular run (issue 4 item 6): ParaView series and an HDF5 restart archive.
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
//   restart.h5          /beads/{x, v, w, radius, mass, inv_mass, inv_inertia, id, [material]} (N×3 or N),
//                       /capsules/{x, v, w, q (N×4, w x y z), radius, half_length, mass, inv_mass, inertia (N×3,
//                       principal), id, [material]} when
//                       there are capsules, /clock (time, step, next bead id, next capsule id), /contacts/{beads,
//                       capsules}/{keys (uint64), impulses (K×3, world)}: the solver's warm start, /run/{removed,
//                       dropped, discharge (K×2), discharge_mass (K)}: the runner's counters, /joints/{impulses,
//                       [position_impulses]} (rows): the joints' warm start; every dataset carries `units` and
//                       `description` attributes. read_restart gives all of it back, so that a run to T and a run
//                       to T/2 + restart to T end bitwise equal (tests/apps/test_granular_restart.cpp).
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

// The runner's state besides the model that the next steps read (apps/GranularRun.cpp).
struct RunCounters {
  long removed = 0;      // beads that left the container so far
  bool dropped = false;  // perturbed_stack: the ball has been added
  std::vector<std::pair<double, long>> discharge;  // (time, beads removed so far)
  // Mass removed so far at each discharge entry [kg] (beads of any size; capsules too). Empty when read from an
  // archive written before it existed: the rate then falls back to a bead count times one bead's mass.
  std::vector<double> discharge_mass;
};

// The solver's warm start as archived: keys in increasing order, world impulses.
struct CacheContent {
  std::vector<contact::ContactKey> keys;
  std::vector<Eigen::Vector3d> impulses;
  void load_into(contact::ContactCache& cache) const { cache.store(keys.data(), impulses.data(), keys.size()); }
};

// What read_restart gives back besides the model. has_contacts / has_counters are false for archives written
// before those groups existed (the run then starts cold, and is not a bitwise continuation).
struct RestartExtras {
  // The one contact cache (GranularStepper::contact_cache; contact/ContactKey.hpp). Archives written before it
  // held a bead cache and a capsule cache under older keys: they are translated and merged.
  CacheContent cache;
  // Generalized-α's position-correction cache (GranularStepper::position_cache), when the run archived it.
  CacheContent position_cache;
  bool has_position_cache = false;
  // The rolling resistance warm start (GranularStepper::rolling_cache), when the run had it.
  CacheContent rolling_cache;
  bool has_rolling_cache = false;
  RunCounters counters;
  bool has_contacts = false, has_counters = false;
  // The joints' warm start (GranularStepper::joint_impulses, joint_position_impulses), when the run had joints.
  std::vector<double> joint_impulses, joint_position_impulses;
  bool has_joints = false;
  // Generalized-α's a_n and ṽ̇_n of the FE beams (GranularStepper::beam_accelerations), when the run had them.
  std::vector<double> beam_a, beam_vdot;
  bool has_beam_accelerations = false;
};

// Refuses (std::runtime_error naming the file) a model with a non-finite value: a restart archive never holds NaN.
// A group's material dataset (uint8, ids into the scene's Model::materials) is written only when one of its
// bodies is not "bead", so the archive of a scene without materials is what it was before they existed; read
// back, an absent one means "bead", and the scene's table must hold every id.
void write_restart(const std::filesystem::path& file, const talus::Model& model,
                   const contact::ContactCache* cache = nullptr, const RunCounters* counters = nullptr,
                   const contact::ContactCache* position_cache = nullptr,
                   const std::vector<double>* joint_impulses = nullptr,
                   const std::vector<double>* joint_position_impulses = nullptr,
                   const contact::ContactCache* rolling_cache = nullptr,
                   const std::vector<double>* beam_a = nullptr, const std::vector<double>* beam_vdot = nullptr);
// Replaces model's beads, capsules (none when the archive has none), time and step by the archive's, and
// fills `extras` when given. The archive is validated before anything is replaced: finite values, positive
// radii and masses, consistent sizes, unique ids below the next id, a finite clock >= 0, strictly increasing
// cache keys; every error is a std::runtime_error naming the file and the dataset.
void read_restart(const std::filesystem::path& file, talus::Model& model, RestartExtras* extras = nullptr);

// "" when every body's position, velocity, angular velocity (and capsule orientation) is finite; otherwise
// which one is not, e.g. "bead id 17 (index 3): velocity (nan, 0, 0)" (engine/granular/GranularFailure.hpp).
using granular::non_finite_body;

// The temporary name a file is written under before it is renamed to `file`: .NAME.tmp in the same folder.
std::filesystem::path temporary_name(const std::filesystem::path& file);
// Renames `tmp` to `file` (same folder, atomic on POSIX); throws std::runtime_error naming `file`.
void commit_file(const std::filesystem::path& tmp, const std::filesystem::path& file);

}  // namespace talus::app
