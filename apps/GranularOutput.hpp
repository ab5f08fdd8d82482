#pragma once
// Files of a granular run (issue 4 item 6): ParaView series and an HDF5 restart archive.
//   beads_NNNNN.vtp     PolyData points at the bead centres, point data: radius, velocity, angular_velocity,
//                       contact_force (sum of the contact forces on the bead, impulses / h), id
//   contacts_NNNNN.vtp  the contact network: one line per active contact between the centres (walls: from the
//                       contact point), cell data: normal_force, force (vector)
//   beads.pvd, contacts.pvd  collections indexing the frames by time (open these in ParaView)
//   restart.h5          /beads/{x, v, w, radius, mass, id} (N×3 or N), attributes time and step; read back by
//                       read_restart to continue a run
// VTK XML is written in ASCII: readable everywhere and small enough at the frame rates of a run.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/granular/GranularModel.hpp"
#include "engine/granular/SweepContact.hpp"

namespace talus::app {

// Throws std::runtime_error naming the file on any write failure.
void write_beads_vtp(const std::filesystem::path& file, const granular::SphereBodies& beads,
                     const std::vector<granular::SweepContact>& contacts, double h);
void write_contacts_vtp(const std::filesystem::path& file, const granular::SphereBodies& beads,
                        const std::vector<granular::SweepContact>& contacts, double h);
// (time, file name relative to the .pvd) pairs.
void write_pvd(const std::filesystem::path& file, const std::vector<std::pair<double, std::string>>& frames);

void write_restart(const std::filesystem::path& file, const granular::GranularModel& model);
// Replaces model's beads, time and step by the archive's. Throws std::runtime_error.
void read_restart(const std::filesystem::path& file, granular::GranularModel& model);

}  // namespace talus::app
