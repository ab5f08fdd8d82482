#pragma once
// Triangle meshes read from a file (issue 14 item 1): STL (ASCII or binary), OBJ and the other formats Assimp
// reads, through Assimp (Debian's libassimp-dev). Every mesh of the file is taken, with its nodes' transforms
// applied; polygons are split into triangles, and points and lines are refused. A placement (scale, then
// rotation, then translation) puts the file's coordinates into the scene's, and contact::build_triangle_mesh
// welds and checks the result.
// Every problem is one std::runtime_error starting with the file: Assimp's own message for a file it cannot
// parse, or the mesh check's (degenerate triangle, non-manifold or inconsistently oriented edge, open surface).
#include <Eigen/Dense>
#include <filesystem>
#include <string>

#include "contact/TriangleMesh.hpp"

namespace talus::app {

struct MeshPlacement {
  double scale = 1.0;  // file units to metres (an STL in millimetres: 0.001)
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
};

contact::TriangleMesh read_mesh(const std::filesystem::path& file, const MeshPlacement& placement = {},
                                bool require_closed = false);

// Writes a mesh as an ASCII STL (examples and tests make their meshes with it).
void write_stl(const std::filesystem::path& file, const contact::TriangleMesh& mesh, const std::string& solid_name);

}  // namespace talus::app
