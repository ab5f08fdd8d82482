// Triangle meshes and sphere–mesh features (contact/TriangleMesh.hpp, contact/MeshContact.hpp; issue 14 item 1),
// against answers they cannot fake:
//   - topology: a grid's edge and boundary counts (Euler), welding of a triangle soup, a UV sphere closed;
//   - the hierarchy finds every triangle a brute-force scan finds within reach, on random queries;
//   - features: one contact on a flat tessellation wherever the bead is (face, shared edge, shared vertex, on the
//     exact diagonal), with the plane's gap and normal; two on a valley (both faces), one on a ridge (its edge),
//     one at a convex corner (its vertex); either side of the surface;
//   - the proximity grid never calls a point far when a triangle lies within its pad;
//   - the mesh checks refuse what they name (degenerate, non-manifold, inconsistently oriented, open when
//     closed is asked, an index out of range).
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "contact/MeshContact.hpp"
#include "contact/MeshInside.hpp"
#include "contact/MeshProximityGrid.hpp"
#include "tests/contact/MeshShapes.hpp"

using namespace talus::contact;
using talus::test::flat_grid;
using talus::test::folded_sheet;
using talus::test::uv_sphere;

namespace {

std::vector<int> features_of(const TriangleMesh& m, const Eigen::Vector3d& x, double r, double margin = 0.0) {
  std::vector<MeshCandidate> scratch;
  std::vector<int> f;
  sphere_mesh_features(m, x, r, margin, scratch, [&](int k) { f.push_back(k); });
  return f;
}

std::string message_of(const std::vector<Eigen::Vector3d>& v, const std::vector<std::array<int, 3>>& t,
                       bool closed = false) {
  try {
    build_triangle_mesh("m", v, t, closed);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("mesh topology: a grid's edges and boundary, welding, a closed sphere") {
  const TriangleMesh g = flat_grid(-1, 1, -1, 1, 4, 3);
  CHECK(g.faces() == 24);
  CHECK(g.vertices.size() == 20);
  // Euler for a disc: V − E + F = 1.
  CHECK(static_cast<int>(g.vertices.size()) - g.edges() + g.faces() == 1);
  CHECK(g.boundary_edges == 2 * (4 + 3));
  CHECK(g.area() == Approx(4.0).epsilon(1e-14));
  // A triangle soup (each triangle its own vertices, as in an STL) welds into the same mesh.
  std::vector<Eigen::Vector3d> soup;
  std::vector<std::array<int, 3>> tri;
  for (const auto& t : g.triangles) {
    const int base = static_cast<int>(soup.size());
    for (int i : t) soup.push_back(g.vertices[i]);
    tri.push_back({base, base + 1, base + 2});
  }
  const TriangleMesh w = build_triangle_mesh("soup", soup, tri);
  CHECK(w.vertices.size() == g.vertices.size());
  CHECK(w.edges() == g.edges());
  CHECK(w.boundary_edges == g.boundary_edges);
  const TriangleMesh s = uv_sphere(Eigen::Vector3d(1, 2, 3), 0.5, 8, 12);
  CHECK(s.boundary_edges == 0);
  CHECK(static_cast<int>(s.vertices.size()) - s.edges() + s.faces() == 2);
  // Outward normals: each points away from the centre.
  for (int t = 0; t < s.faces(); ++t) CHECK(s.normals[t].dot(s.vertices[s.triangles[t][0]] - Eigen::Vector3d(1, 2, 3)) > 0);
}

TEST_CASE("mesh hierarchy: every triangle within reach is visited") {
  const TriangleMesh s = uv_sphere(Eigen::Vector3d::Zero(), 1.0, 24, 48);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.3, 1.3);
  int found = 0;
  for (int q = 0; q < 400; ++q) {
    const Eigen::Vector3d x(u(rng), u(rng), u(rng));
    const double reach = 0.05 + 0.1 * (q % 3);
    std::set<int> near, visited;
    for (int t = 0; t < s.faces(); ++t) {
      int f;
      if ((x - nearest_on_triangle(s, t, x, f)).norm() <= reach) near.insert(t);
    }
    for_each_triangle_near(s, x, reach, [&](int t) { visited.insert(t); });
    for (int t : near) CHECK(visited.count(t) == 1);
    found += static_cast<int>(near.size());
  }
  CHECK(found > 100);  // the queries did meet the surface
}

TEST_CASE("sphere–mesh features: one on a flat tessellation, wherever the bead is") {
  const TriangleMesh g = flat_grid(-1, 1, -1, 1, 4, 4);
  const double r = 0.1;
  // Over a face's interior, over a shared edge (x = 0 is a grid line), over a vertex of valence 8 and of 4, on the
  // exact diagonal of a cell, and just beside each: one contact, the plane's gap and normal.
  const double h = 0.0999;
  for (const Eigen::Vector3d& p : {Eigen::Vector3d(0.1, 0.13, h), Eigen::Vector3d(0.0, 0.13, h), Eigen::Vector3d(0.0, 0.0, h),
                                   Eigen::Vector3d(0.5, 0.0, h), Eigen::Vector3d(0.2, 0.2, h),
                                   Eigen::Vector3d(1e-12, 0.13, h), Eigen::Vector3d(-1e-12, 1e-12, h),
                                   Eigen::Vector3d(0.25 + 1e-15, 0.25, h), Eigen::Vector3d(0.1, 0.13, -h)}) {
    INFO("bead at " << p.transpose());
    const std::vector<int> f = features_of(g, p, r);
    REQUIRE(f.size() == 1);
    ContactPoint c;
    REQUIRE(sphere_mesh_feature_point(g, f[0], p, r, c));
    CHECK(c.gap == Approx(-1e-4).margin(1e-15));
    // Within 1e-10: 1e-12 off a grid line the contact may be with the line (an edge), whose normal leans by
    // 1e-12 / 0.1.
    CHECK((c.n - Eigen::Vector3d(0, 0, p.z() > 0 ? 1 : -1)).norm() < 1e-10);
    CHECK((c.pb + r * c.n).norm() < 1e-15);
  }
  // Beyond the boundary: the boundary edge, with the distance to it.
  const std::vector<int> f = features_of(g, Eigen::Vector3d(1.05, 0.3, 0.05), 0.08);
  REQUIRE(f.size() == 1);
  CHECK(f[0] >= g.faces());
  CHECK(f[0] < g.faces() + g.edges());
  ContactPoint c;
  REQUIRE(sphere_mesh_feature_point(g, f[0], Eigen::Vector3d(1.05, 0.3, 0.05), 0.08, c));
  CHECK(c.gap == Approx(std::sqrt(2 * 0.05 * 0.05) - 0.08).epsilon(1e-14));
  // Beyond a corner: its vertex.
  const std::vector<int> corner = features_of(g, Eigen::Vector3d(1.05, 1.05, 0.05), 0.1);
  REQUIRE(corner.size() == 1);
  CHECK(corner[0] >= g.faces() + g.edges());
  // Out of reach: nothing; with a margin: the face.
  CHECK(features_of(g, Eigen::Vector3d(0.1, 0.13, 0.12), 0.1).empty());
  CHECK(features_of(g, Eigen::Vector3d(0.1, 0.13, 0.12), 0.1, 0.03).size() == 1);
}

TEST_CASE("sphere–mesh features: a valley's two faces, a ridge's edge, a corner's vertex") {
  const double r = 0.1;
  // A valley at 30° each side: a bead resting in it touches both faces, at the gap of each plane.
  const double s = std::tan(std::numbers::pi / 6);
  const TriangleMesh valley = folded_sheet(s, s, 1.0);
  const Eigen::Vector3d x(0, 0.2, r / std::cos(std::numbers::pi / 6) - 1e-4);
  const std::vector<int> f = features_of(valley, x, r);
  REQUIRE(f.size() == 2);
  for (int k : f) {
    CHECK(k < valley.faces());
    ContactPoint c;
    REQUIRE(sphere_mesh_feature_point(valley, k, x, r, c));
    CHECK(c.gap == Approx(-1e-4 * std::cos(std::numbers::pi / 6)).epsilon(1e-9));
  }
  // A ridge: a bead over it touches the edge once; beside it, one face.
  const TriangleMesh ridge = folded_sheet(-s, -s, 1.0);
  const std::vector<int> top = features_of(ridge, Eigen::Vector3d(0, 0.3, 0.099), r);
  REQUIRE(top.size() == 1);
  CHECK(top[0] >= ridge.faces());
  CHECK(top[0] < ridge.faces() + ridge.edges());
  const std::vector<int> side = features_of(ridge, Eigen::Vector3d(0.3, 0.3, -0.3 * s + 0.0999 / std::cos(std::numbers::pi / 6)), r);
  REQUIRE(side.size() == 1);
  CHECK(side[0] < ridge.faces());
  // A sphere mesh's vertex seen from outside along its radius (the pole: a vertex of valence 12).
  const TriangleMesh ball = uv_sphere(Eigen::Vector3d::Zero(), 1.0, 8, 12);
  const std::vector<int> pole = features_of(ball, Eigen::Vector3d(0, 0, 1.05), r);
  REQUIRE(pole.size() == 1);
  CHECK(pole[0] == ball.faces() + ball.edges() + static_cast<int>(ball.vertices.size()) - 1);
}

TEST_CASE("mesh checks name what is wrong") {
  const std::vector<Eigen::Vector3d> v = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {2, 0, 0}};
  CHECK_THAT(message_of(v, {{0, 1, 2}, {1, 3, 2}}), Catch::Equals(""));
  CHECK_THAT(message_of(v, {{0, 1, 5}}), Catch::Contains("mesh 'm': triangle 0") && Catch::Contains("degenerate"));
  CHECK_THAT(message_of(v, {{0, 1, 1}}), Catch::Contains("degenerate"));
  CHECK_THAT(message_of(v, {{0, 1, 2}, {1, 2, 3}}), Catch::Contains("runs the same way in triangles 0 and 1") &&
                                                        Catch::Contains("flipped"));
  CHECK_THAT(message_of(v, {{0, 1, 2}, {1, 0, 4}, {0, 1, 3}}), Catch::Contains("shared by 3 triangles") &&
                                                                  Catch::Contains("non-manifold"));
  CHECK_THAT(message_of(v, {{0, 1, 2}, {1, 3, 2}}, true), Catch::Contains("is open: 4 edges have one triangle"));
  CHECK_THAT(message_of(v, {{0, 1, 9}}), Catch::Contains("triangle 0 refers to vertex 9, but there are 6 vertices"));
  CHECK_THAT(message_of(v, {}), Catch::Contains("has no triangles"));
  // A closed tetrahedron passes with closed: true.
  CHECK_THAT(message_of(v, {{0, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 0, 4}}, true), Catch::Equals(""));
}

TEST_CASE("the proximity grid calls no point far that a triangle is within its pad of") {
  const TriangleMesh s = uv_sphere(Eigen::Vector3d(0.1, 0.2, 0.3), 1.0, 16, 32);
  const double pad = 0.05;
  const MeshProximityGrid g = build_proximity_grid(s, pad);
  REQUIRE_FALSE(g.near.empty());
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.3, 1.5);
  int far = 0;
  for (int q = 0; q < 3000; ++q) {
    const Eigen::Vector3d x(u(rng), u(rng), u(rng));
    double d = INFINITY;
    for (int t = 0; t < s.faces(); ++t) {
      int f;
      d = std::min(d, (x - nearest_on_triangle(s, t, x, f)).norm());
    }
    if (!g.may_be_near(x)) {
      ++far;
      CHECK(d > pad);
    }
  }
  CHECK(far > 1500);  // most points of the box are far from the shell: the grid does tell them apart
  // Too many cells: no grid, every point may be near.
  CHECK(build_proximity_grid(s, 1e-4, 1000).near.empty());
  CHECK(build_proximity_grid(s, 1e-4, 1000).may_be_near(Eigen::Vector3d(5, 5, 5)));
}

TEST_CASE("inside a closed mesh: the parity of a ray's crossings") {
  const TriangleMesh s = uv_sphere(Eigen::Vector3d(0.1, 0.2, 0.3), 1.0, 16, 32);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.2, 1.4);
  int inside = 0;
  for (int q = 0; q < 2000; ++q) {
    const Eigen::Vector3d x(u(rng), u(rng), u(rng));
    const double rho = (x - Eigen::Vector3d(0.1, 0.2, 0.3)).norm();
    // The tessellated sphere lies between radii cos(π/16)… and 1: decide only points clear of that shell.
    if (rho < 0.97) CHECK(inside_closed_mesh(s, x));
    if (rho > 1.0) CHECK_FALSE(inside_closed_mesh(s, x));
    inside += rho < 0.97;
  }
  CHECK(inside > 200);
  // An open mesh has no inside.
  CHECK_FALSE(inside_closed_mesh(talus::test::flat_grid(-1, 1, -1, 1, 2, 2), Eigen::Vector3d(0, 0, -0.1)));
}
