#pragma once
// Triangle-mesh walls (issue 14 item 1): a fixed surface given as triangles (a chute, a hopper, a plant's part
// read from STL or OBJ by apps/MeshFile.hpp), with the topology that contact needs and a bounding-volume
// hierarchy over its triangles.
// Contacts are made with the mesh's features, not its triangles: a face's interior, an edge or a vertex
// (contact/MeshContact.hpp). A bead rolling over a shared edge touches that edge once, not each of its two
// triangles, so the features are numbered once per mesh: face t is t, edge e is T + e, vertex v is T + E + v
// (T triangles, E edges).
// The surface is two-sided (like Cone): a bead touches whichever side its centre is on, so an open mesh (a
// chute's floor) and a closed one (an obstacle) are both walls. A triangle's vertices are ordered
// counter-clockwise seen from the side its normal points to; neighbours must agree (consistent orientation).
#include <Eigen/Dense>
#include <array>
#include <limits>
#include <string>
#include <vector>

namespace talus::contact {

// A node of the hierarchy: the box around its triangles; a leaf holds `count` > 0 triangles from `first` in
// TriangleMesh::bvh_triangles, an inner node has count 0 and its children at `first` and `first` + 1.
struct BvhNode {
  Eigen::Vector3d lo, hi;
  int first = 0, count = 0;
};

struct TriangleMesh {
  std::string name;  // for messages (the scene's name or the file)
  std::vector<Eigen::Vector3d> vertices;
  std::vector<std::array<int, 3>> triangles;
  std::vector<Eigen::Vector3d> normals;                // unit, one per triangle
  std::vector<std::array<int, 2>> edge_vertices;       // lower index first
  std::vector<std::array<int, 2>> edge_triangles;      // the second is −1 on a boundary edge
  std::vector<std::array<int, 3>> triangle_edges;      // edge k of a triangle joins its vertices k and k + 1 (mod 3)
  std::vector<int> vertex_triangle_start, vertex_triangles;  // the triangles around each vertex (CSR)
  std::vector<BvhNode> bvh;                             // root at 0
  std::vector<int> bvh_triangles;
  int boundary_edges = 0;  // edges with one triangle: 0 for a closed surface

  int faces() const { return static_cast<int>(triangles.size()); }
  int edges() const { return static_cast<int>(edge_vertices.size()); }
  int feature_count() const { return faces() + edges() + static_cast<int>(vertices.size()); }
  double area() const;
};

// Builds a mesh from vertices and triangles (indices into them). Vertices at exactly the same position are
// merged first (an STL file repeats them per triangle) and unused ones dropped. Throws std::invalid_argument,
// starting with `name`, when an index is out of range, a triangle is degenerate (area below 1e-10 of the square of
// its longest edge, or a repeated vertex), an edge is shared by more than two triangles, two neighbours are
// oriented inconsistently, or, with require_closed, the surface has a boundary.
TriangleMesh build_triangle_mesh(std::string name, std::vector<Eigen::Vector3d> vertices,
                                 const std::vector<std::array<int, 3>>& triangles, bool require_closed = false);

// Calls f(t) for each triangle t whose bounding box meets the cube of half side `reach` around x (no
// allocation: an explicit stack as deep as the hierarchy, built at most 64 deep).
template <class F>
void for_each_triangle_near(const TriangleMesh& m, const Eigen::Vector3d& x, double reach, F&& f) {
  if (m.bvh.empty()) return;
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  const Eigen::Vector3d lo = x.array() - reach, hi = x.array() + reach;
  while (top > 0) {
    const BvhNode& node = m.bvh[stack[--top]];
    if ((node.lo.array() > hi.array()).any() || (node.hi.array() < lo.array()).any()) continue;
    if (node.count > 0) {
      for (int k = node.first; k < node.first + node.count; ++k) f(m.bvh_triangles[k]);
    } else {
      stack[top++] = node.first + 1;
      stack[top++] = node.first;
    }
  }
}

}  // namespace talus::contact
