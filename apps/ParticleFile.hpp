#pragma once
// Particle sets read from a file (issue 14 item 3): the beads of a packing made elsewhere (another DEM code, a
// tomography, an earlier run) placed into a scene as they are. Two forms:
//   CSV   a header line naming the columns, then one particle per line: x, y, z, radius (required), vx, vy, vz
//         (optional, all three or none); other columns are ignored; '#' starts a comment line.
//   HDF5  datasets x (N × 3) and radius (N), optionally v (N × 3), at the file's root.
// Every problem is one std::runtime_error naming the file and where: "FILE:LINE: column 'radius': ..." for CSV,
// "FILE: dataset radius: ..." for HDF5 (non-numbers, missing columns or datasets, sizes, radii <= 0, values that
// are not finite).
#include <Eigen/Dense>
#include <filesystem>
#include <vector>

namespace talus::app {

struct ParticleSet {
  std::vector<Eigen::Vector3d> x, v;  // v empty: the file gives no velocities
  std::vector<double> radius;
};

// By the extension: .csv (or .txt) as CSV, .h5 / .hdf5 as HDF5; anything else is refused naming the forms.
ParticleSet read_particles(const std::filesystem::path& file);
ParticleSet read_particles_csv(const std::filesystem::path& file);
ParticleSet read_particles_hdf5(const std::filesystem::path& file);

}  // namespace talus::app
