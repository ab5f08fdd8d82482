#include "contact/TriangleMesh.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace talus::contact {

namespace {

std::string at(const Eigen::Vector3d& p) {
  std::ostringstream s;
  s << '(' << p.x() << ", " << p.y() << ", " << p.z() << ')';
  return s.str();
}

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw std::invalid_argument("mesh '" + name + "': " + what);
}

// Merges vertices at exactly the same position and drops those no triangle uses; `tri` is renumbered.
void weld(std::vector<Eigen::Vector3d>& v, std::vector<std::array<int, 3>>& tri) {
  std::vector<int> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  const auto key = [&](int i) { return std::make_tuple(v[i].x(), v[i].y(), v[i].z()); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  std::vector<int> rep(v.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    rep[order[k]] = (k > 0 && key(order[k]) == key(order[k - 1])) ? rep[order[k - 1]] : order[k];
  std::vector<int> used(v.size(), -1);
  std::vector<Eigen::Vector3d> out;
  for (auto& t : tri)
    for (int& i : t) {
      const int r = rep[i];
      if (used[r] < 0) used[r] = static_cast<int>(out.size()), out.push_back(v[r]);
      i = used[r];
    }
  v = std::move(out);
}

// Median split along the longest axis of the triangles' centroids, down to leaves of at most 4 triangles:
// depth ⌈log2(T/4)⌉ + 1, far below the query stack's 64.
void build_bvh(TriangleMesh& m) {
  const int T = m.faces();
  m.bvh.clear();
  m.bvh_triangles.resize(T);
  std::iota(m.bvh_triangles.begin(), m.bvh_triangles.end(), 0);
  if (T == 0) return;
  std::vector<Eigen::Vector3d> centroid(T), lo(T), hi(T);
  for (int t = 0; t < T; ++t) {
    const auto& [a, b, c] = m.triangles[t];
    lo[t] = m.vertices[a].cwiseMin(m.vertices[b]).cwiseMin(m.vertices[c]);
    hi[t] = m.vertices[a].cwiseMax(m.vertices[b]).cwiseMax(m.vertices[c]);
    centroid[t] = (m.vertices[a] + m.vertices[b] + m.vertices[c]) / 3.0;
  }
  m.bvh.reserve(2 * T / 4 + 2);
  struct Task { int node, begin, end; };
  std::vector<Task> todo{{0, 0, T}};
  const BvhNode empty{Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), 0, 0};
  m.bvh.push_back(empty);
  while (!todo.empty()) {
    const Task task = todo.back();
    todo.pop_back();
    Eigen::Vector3d blo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), bhi = -blo;
    Eigen::Vector3d clo = blo, chi = bhi;
    for (int k = task.begin; k < task.end; ++k) {
      const int t = m.bvh_triangles[k];
      blo = blo.cwiseMin(lo[t]), bhi = bhi.cwiseMax(hi[t]);
      clo = clo.cwiseMin(centroid[t]), chi = chi.cwiseMax(centroid[t]);
    }
    m.bvh[task.node].lo = blo, m.bvh[task.node].hi = bhi;
    if (task.end - task.begin <= 4) {
      m.bvh[task.node].first = task.begin, m.bvh[task.node].count = task.end - task.begin;
      continue;
    }
    int axis;
    (chi - clo).maxCoeff(&axis);
    const int mid = (task.begin + task.end) / 2;
    // Ties broken by index, so that the hierarchy does not depend on the sort's implementation.
    std::nth_element(m.bvh_triangles.begin() + task.begin, m.bvh_triangles.begin() + mid,
                     m.bvh_triangles.begin() + task.end, [&](int a, int b) {
                       return centroid[a][axis] < centroid[b][axis] ||
                              (centroid[a][axis] == centroid[b][axis] && a < b);
                     });
    const int left = static_cast<int>(m.bvh.size());
    m.bvh.push_back(empty);
    m.bvh.push_back(empty);
    m.bvh[task.node].first = left, m.bvh[task.node].count = 0;
    todo.push_back({left + 1, mid, task.end});
    todo.push_back({left, task.begin, mid});
  }
}

}  // namespace

double TriangleMesh::area() const {
  double a = 0.0;
  for (const auto& [i, j, k] : triangles) a += 0.5 * (vertices[j] - vertices[i]).cross(vertices[k] - vertices[i]).norm();
  return a;
}

TriangleMesh build_triangle_mesh(std::string name, std::vector<Eigen::Vector3d> vertices,
                                 const std::vector<std::array<int, 3>>& triangles_in, bool require_closed) {
  TriangleMesh m;
  m.name = std::move(name);
  if (triangles_in.empty()) fail(m.name, "has no triangles");
  for (std::size_t t = 0; t < triangles_in.size(); ++t)
    for (int i : triangles_in[t])
      if (i < 0 || i >= static_cast<int>(vertices.size()))
        fail(m.name, "triangle " + std::to_string(t) + " refers to vertex " + std::to_string(i) + ", but there are " +
                         std::to_string(vertices.size()) + " vertices");
  for (const auto& p : vertices)
    if (!p.allFinite()) fail(m.name, "a vertex is not finite: " + at(p));
  std::vector<std::array<int, 3>> tri = triangles_in;
  weld(vertices, tri);
  m.vertices = std::move(vertices);
  m.triangles = std::move(tri);
  const int T = m.faces();
  m.normals.resize(T);
  for (int t = 0; t < T; ++t) {
    const auto& [a, b, c] = m.triangles[t];
    const Eigen::Vector3d &pa = m.vertices[a], &pb = m.vertices[b], &pc = m.vertices[c];
    const Eigen::Vector3d n = (pb - pa).cross(pc - pa);
    const double longest = std::max({(pb - pa).squaredNorm(), (pc - pb).squaredNorm(), (pa - pc).squaredNorm()});
    if (a == b || b == c || c == a || !(n.norm() > 1e-10 * longest))
      fail(m.name, "triangle " + std::to_string(t) + " at " + at(pa) + ", " + at(pb) + ", " + at(pc) +
                       " is degenerate (no area; expected three distinct, non-collinear vertices)");
    m.normals[t] = n.normalized();
  }
  // Edges: each triangle's three directed edges, sorted by their undirected vertex pair.
  struct Half { int lo, hi, t, k; bool forward; };
  std::vector<Half> half;
  half.reserve(3 * T);
  for (int t = 0; t < T; ++t)
    for (int k = 0; k < 3; ++k) {
      const int i = m.triangles[t][k], j = m.triangles[t][(k + 1) % 3];
      half.push_back({std::min(i, j), std::max(i, j), t, k, i < j});
    }
  std::sort(half.begin(), half.end(), [](const Half& a, const Half& b) {
    return std::tie(a.lo, a.hi, a.t, a.k) < std::tie(b.lo, b.hi, b.t, b.k);
  });
  m.triangle_edges.assign(T, {-1, -1, -1});
  for (std::size_t s = 0; s < half.size();) {
    std::size_t e = s + 1;
    while (e < half.size() && half[e].lo == half[s].lo && half[e].hi == half[s].hi) ++e;
    const std::string where = "the edge from " + at(m.vertices[half[s].lo]) + " to " + at(m.vertices[half[s].hi]);
    if (e - s > 2)
      fail(m.name, where + " is shared by " + std::to_string(e - s) + " triangles (" + std::to_string(half[s].t) +
                       ", " + std::to_string(half[s + 1].t) + ", " + std::to_string(half[s + 2].t) +
                       "; expected at most two: a non-manifold surface)");
    if (e - s == 2 && half[s].forward == half[s + 1].forward)
      fail(m.name, where + " runs the same way in triangles " + std::to_string(half[s].t) + " and " +
                       std::to_string(half[s + 1].t) +
                       " (expected neighbours ordered consistently: one of them is flipped)");
    const int id = m.edges();
    m.edge_vertices.push_back({half[s].lo, half[s].hi});
    m.edge_triangles.push_back({half[s].t, e - s == 2 ? half[s + 1].t : -1});
    for (std::size_t h = s; h < e; ++h) m.triangle_edges[half[h].t][half[h].k] = id;
    if (e - s == 1) ++m.boundary_edges;
    s = e;
  }
  if (require_closed && m.boundary_edges > 0) {
    int e = 0;
    while (m.edge_triangles[e][1] >= 0) ++e;
    fail(m.name, "is open: " + std::to_string(m.boundary_edges) + " edges have one triangle, e.g. the edge from " +
                     at(m.vertices[m.edge_vertices[e][0]]) + " to " + at(m.vertices[m.edge_vertices[e][1]]) +
                     " (expected a closed surface: closed: true)");
  }
  const int V = static_cast<int>(m.vertices.size());
  m.vertex_triangle_start.assign(V + 1, 0);
  for (const auto& t : m.triangles)
    for (int i : t) ++m.vertex_triangle_start[i + 1];
  for (int v = 0; v < V; ++v) m.vertex_triangle_start[v + 1] += m.vertex_triangle_start[v];
  m.vertex_triangles.resize(3 * T);
  std::vector<int> fill(m.vertex_triangle_start.begin(), m.vertex_triangle_start.end() - 1);
  for (int t = 0; t < T; ++t)
    for (int i : m.triangles[t]) m.vertex_triangles[fill[i]++] = t;
  build_bvh(m);
  return m;
}

}  // namespace talus::contact
