#pragma once
// Files of a granular run (issue 4 item 6): ParaView series and an HDF5 restart archive.
//   beads_NNNNN.vtp     PolyData points at the bead centres, point data: radius, velocity, angular_velocity,
//                       contact_force (sum of the contact forces on the bead, impulses / h), id
//   contacts_NNNNN.vtp  the contact network: one line per active contact between the centres (walls: from the
//                       contact point), cell data: normal_force, force (vector)
//   capsules_NNNNN.vtp  (scenes with capsules) PolyData points at the capsule centres, point data: radius,
//                       half_length (of the axis segment; the capsule is 2 (half_length + radius) long), axis
//                       (unit vector), orientation (quaternion w, x, y, z; body z = axis), velocity,
//                       angular_velocity, contact_force, id — glyph them in ParaView (Glyph: cylinder, oriented
//                       by axis)
//   beads.pvd, contacts.pvd, capsules.pvd  collections indexing the frames by time (open these in ParaView)
//   restart.h5          /beads/{x, v, w, radius, mass, id} (N×3 or N), /capsules/{x, v, w, q (N×4, w x y z),
//                       radius, half_length, mass, inv_mass, inertia (N×3, principal), id} when there are capsules,
//                       /clock (time, step, next bead id, next capsule id); read back by read_restart to continue
//                       a run (the bodies' state bitwise)
// Contacts touching a capsule (GeneralContacts.hpp) enter the contact network and the contact_force arrays
// like the bead contacts.
// VTK XML is written in ASCII: readable everywhere and small enough at the frame rates of a run.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/granular/GeneralContacts.hpp"
#include "engine/granular/GranularModel.hpp"
#include "engine/granular/SweepContact.hpp"

namespace talus::app {

// The last step's contacts: bead contacts (closed-form kernel) and the general ones touching a capsule, both
// indexing the bodies as they are now.
struct FrameContacts {
  const std::vector<granular::SweepContact>& beads;
  const std::vector<granular::GeneralContact>& general;
};

// Throws std::runtime_error naming the file on any write failure.
void write_beads_vtp(const std::filesystem::path& file, const granular::GranularModel& model,
                     const FrameContacts& contacts, double h);
void write_capsules_vtp(const std::filesystem::path& file, const granular::GranularModel& model,
                        const FrameContacts& contacts, double h);
void write_contacts_vtp(const std::filesystem::path& file, const granular::GranularModel& model,
                        const FrameContacts& contacts, double h);
// (time, file name relative to the .pvd) pairs.
void write_pvd(const std::filesystem::path& file, const std::vector<std::pair<double, std::string>>& frames);

void write_restart(const std::filesystem::path& file, const granular::GranularModel& model);
// Replaces model's beads, capsules (none when the archive has none), time and step by the archive's. Throws std::runtime_error.
void read_restart(const std::filesystem::path& file, granular::GranularModel& model);

}  // namespace talus::app
