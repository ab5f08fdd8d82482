#pragma once
// Whether a point lies inside a closed triangle mesh, and in its material (issue 14: a pour must not place a bead
// inside a solid given as a mesh, nor outside a container, where the walls around it would hold it). The parity of the crossings of a ray from the point, along
// a fixed direction that no axis-aligned or 45° geometry contains, with the triangles (Möller–Trumbore), the
// triangles found through the mesh's bounding-volume hierarchy.
#include <Eigen/Dense>

#include "contact/TriangleMesh.hpp"

namespace talus::contact {

// False for an open mesh (TriangleMesh::boundary_edges > 0): it has no inside.
bool inside_closed_mesh(const TriangleMesh& mesh, const Eigen::Vector3d& x);

// The volume the mesh encloses, positive when its normals point out of it (a solid: a rock), negative when they
// point into it (a container: a drum whose beads are inside); 0 for an open mesh.
double signed_volume(const TriangleMesh& mesh);

// Whether x lies in the mesh's material, the side its normals point away from: inside a closed mesh of positive
// volume, outside one of negative volume (given signed_volume(mesh)); false for an open mesh.
inline bool in_material(const TriangleMesh& mesh, double volume, const Eigen::Vector3d& x) {
  return mesh.boundary_edges == 0 && inside_closed_mesh(mesh, x) != (volume < 0.0);
}

}  // namespace talus::contact
