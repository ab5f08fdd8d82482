#include "engine/granular/RegionFill.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "contact/MeshContact.hpp"
#include "contact/MeshInside.hpp"
#include "contact/NarrowPhase.hpp"
#include "engine/granular/MovingMeshContacts.hpp"

namespace talus::granular {

namespace {

// A hash grid of cell 2 r_max over the placed spheres: a candidate is checked against the 27 cells around it.
class Grid {
 public:
  explicit Grid(double cell) : cell_(cell) {}
  void add(int i, const Eigen::Vector3d& x) { cells_[key(index(x))].push_back(i); }
  template <class F>
  bool any_near(const Eigen::Vector3d& x, F&& overlaps) const {
    const Eigen::Vector3i c = index(x);
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const auto it = cells_.find(key(c + Eigen::Vector3i(dx, dy, dz)));
          if (it == cells_.end()) continue;
          for (int i : it->second)
            if (overlaps(i)) return true;
        }
    return false;
  }

 private:
  // Clamped before the cast (a far-away region must not overflow int); cells that share a key only cost
  // checks.
  Eigen::Vector3i index(const Eigen::Vector3d& x) const {
    return (x / cell_).array().floor().max(-1e9).min(1e9).cast<int>();
  }
  static std::int64_t key(const Eigen::Vector3i& c) {
    return (static_cast<std::int64_t>(c.x() & 0x1fffff) << 42) |
           (static_cast<std::int64_t>(c.y() & 0x1fffff) << 21) | static_cast<std::int64_t>(c.z() & 0x1fffff);
  }
  double cell_;
  std::unordered_map<std::int64_t, std::vector<int>> cells_;
};

double uniform(std::mt19937_64& gen) { return (static_cast<double>(gen() >> 11) + 0.5) * 0x1.0p-53; }

}  // namespace

bool FillObstacles::clear(const Eigen::Vector3d& x, double r) const {
  if (drums)
    for (const contact::Drum& d : *drums) {
      const Eigen::Vector3d rel = x - d.centre;
      if ((rel - d.axis.dot(rel) * d.axis).norm() + r > d.radius) return false;
    }
  if (cones)
    for (const contact::Cone& k : *cones) {
      contact::ContactPoint cp;
      if (contact::sphere_cone_point(k, x, r, cp) && cp.gap < 0.0) return false;
    }
  if (meshes)
    for (std::size_t k = 0; k < meshes->size(); ++k) {
      const contact::TriangleMesh& mesh = *(*meshes)[k];
      const Eigen::Vector3d X =
          k < mesh_rotation.size() ? Eigen::Vector3d(mesh_rotation[k].transpose() * (x - mesh_translation[k])) : x;
      bool hit = false;
      contact::for_each_triangle_near(mesh, X, r, [&](int t) {
        int f;
        if (!hit && (X - contact::nearest_on_triangle(mesh, t, X, f)).norm() < r) hit = true;
      });
      // In a closed mesh's material (inside a rock, outside a drum) a bead would stay trapped.
      if (hit || (k < mesh_volume.size() && contact::in_material(mesh, mesh_volume[k], X))) return false;
    }
  return true;
}

FillObstacles obstacles_of(const Model& model) {
  FillObstacles o;
  o.cones = &model.cones, o.meshes = &model.meshes, o.drums = &model.drums;
  for (int k = 0; k < static_cast<int>(model.meshes.size()); ++k) {
    const MeshPose pose = mesh_pose(model, k, model.time);
    o.mesh_rotation.push_back(pose.R), o.mesh_translation.push_back(pose.t);
    o.mesh_volume.push_back(contact::signed_volume(*model.meshes[k]));
  }
  return o;
}

std::vector<PlacedSphere> fill_region(RegionFill fill, const std::vector<PlacedSphere>& already,
                                      const std::vector<contact::Wall>& walls, const FillObstacles& obstacles) {
  if (!fill.lower.allFinite() || !fill.upper.allFinite() || !((fill.upper - fill.lower).array() > 0.0).all())
    throw std::invalid_argument("fill: the region is empty (expected lower < upper along x, y and z)");
  if (fill.count < 0) throw std::invalid_argument("fill: the count must be >= 0");
  if (fill.tries_per_bead < 1) throw std::invalid_argument("fill: tries_per_bead must be >= 1");
  fill.sizes.check();
  const double r_max = fill.sizes.largest();
  const Eigen::Vector3d span = fill.upper - fill.lower;
  if (span.minCoeff() < 2.0 * r_max)
    throw std::invalid_argument("fill: the region is narrower than the largest bead's diameter (" +
                                std::to_string(2.0 * r_max) + " m)");
  std::mt19937_64 gen(fill.seed);
  std::vector<double> radii(static_cast<std::size_t>(fill.count));
  for (double& r : radii) r = fill.sizes.sample(gen);
  std::stable_sort(radii.begin(), radii.end(), std::greater<>());

  double cell = 2.0 * r_max;
  for (const PlacedSphere& s : already) cell = std::max(cell, 2.0 * s.radius);
  Grid grid(cell);
  std::vector<PlacedSphere> all = already;
  all.reserve(already.size() + radii.size());
  for (int i = 0; i < static_cast<int>(already.size()); ++i) grid.add(i, already[i].x);
  double volume = 0.0;
  for (double r : radii) {
    const Eigen::Vector3d lo = fill.lower.array() + r, width = span.array() - 2.0 * r;
    bool placed = false;
    for (long t = 0; t < fill.tries_per_bead && !placed; ++t) {
      const Eigen::Vector3d x =
          lo + Eigen::Vector3d(uniform(gen), uniform(gen), uniform(gen)).cwiseProduct(width);
      bool clear = true;
      for (const contact::Wall& w : walls)
        if (w.normal.dot(x) - w.offset < r) clear = false;
      if (!clear || !obstacles.clear(x, r)) continue;
      const bool hit = grid.any_near(x, [&](int j) {
        const double d = all[j].radius + r;
        return (all[j].x - x).squaredNorm() < d * d;
      });
      if (hit) continue;
      grid.add(static_cast<int>(all.size()), x);
      all.push_back({x, r});
      volume += 4.0 / 3.0 * std::numbers::pi * r * r * r;
      placed = true;
    }
    if (!placed) {
      const long done = static_cast<long>(all.size() - already.size());
      throw std::invalid_argument(
          "fill: placed " + std::to_string(done) + " of " + std::to_string(fill.count) +
          " beads (they fill " + std::to_string(volume / span.prod()) +
          " of the region) before one found no free place in " + std::to_string(fill.tries_per_bead) +
          " tries (expected a larger region or fewer beads)");
    }
  }
  return {all.begin() + static_cast<std::ptrdiff_t>(already.size()), all.end()};
}

long TimedPour::due(double t) const {
  if (t < start) return 0;
  const double n = std::floor((t - start) * rate + 1e-9);
  return n >= static_cast<double>(fill.count) ? fill.count : static_cast<long>(n);
}

long pour_due(Model& model, TimedPour& pour, PourSpread* spread) {
  const long target = pour.due(model.time);
  if (pour.inserted >= target) return 0;  // the same on every process: time and count are
  RigidBodies& b = model.bodies;
  const int own = spread ? spread->own_spheres() : b.spheres();
  const double r_max = pour.fill.sizes.largest();
  // The beads that may touch a newcomer: centres within the region grown by two of the largest radii.
  double reach = 2.0 * r_max;
  for (int i = 0; i < own; ++i) reach = std::max(reach, r_max + b.radius[i]);
  if (spread) reach = spread->max_over_processes(reach);
  const Eigen::Vector3d lo = pour.fill.lower.array() - reach, hi = pour.fill.upper.array() + reach;
  std::vector<PlacedSphere> near;
  for (int i = 0; i < own; ++i)
    if ((b.x[i].array() >= lo.array()).all() && (b.x[i].array() <= hi.array()).all()) near.push_back({b.x[i], b.radius[i]});
  if (spread) spread->gather_spheres(near);  // every process's beads near the pour (whether one overlaps: no order)
  double cell = 2.0 * r_max;
  for (const PlacedSphere& s : near) cell = std::max(cell, 2.0 * s.radius);
  std::vector<contact::Wall> walls;
  for (const contact::Wall& w : model.walls) walls.push_back(w.at(model.time));
  const FillObstacles obstacles = obstacles_of(model);
  Grid grid(cell);
  for (int i = 0; i < static_cast<int>(near.size()); ++i) grid.add(i, near[i].x);
  const Eigen::Vector3d span = pour.fill.upper - pour.fill.lower;
  long added = 0;
  while (pour.inserted < target) {
    // Bead k's own generator: its radius, then its centres.
    const long k = pour.inserted;
    std::mt19937_64 gen(pour.fill.seed ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(k + 1)));
    const double r = pour.fill.sizes.sample(gen);
    const Eigen::Vector3d base = pour.fill.lower.array() + r, width = span.array() - 2.0 * r;
    bool placed = false;
    for (long t = 0; t < pour.fill.tries_per_bead && !placed; ++t) {
      const Eigen::Vector3d x =
          base + Eigen::Vector3d(uniform(gen), uniform(gen), uniform(gen)).cwiseProduct(width);
      bool clear = true;
      for (const contact::Wall& w : walls)
        if (w.normal.dot(x) - w.offset < r &&
            !(w.hole_radius > 0.0 && (x - w.hole_centre).norm() < w.hole_radius))
          clear = false;
      if (!clear || !obstacles.clear(x, r)) continue;
      if (grid.any_near(x, [&](int j) {
            const double d = near[j].radius + r;
            return (near[j].x - x).squaredNorm() < d * d;
          }))
        continue;
      grid.add(static_cast<int>(near.size()), x);
      near.push_back({x, r});
      if (spread) {
        spread->add_sphere(x, r, pour.density, pour.velocity, pour.material);
      } else {
        b.add_sphere(x, r, pour.density, pour.velocity);
        b.material[b.spheres() - 1] = pour.material;
      }
      placed = true;
    }
    if (!placed) break;  // the region is full for now: the rest wait for the next step
    ++pour.inserted, ++added;
  }
  if (spread) {
    // Every process must have placed the same beads (a process that placed fewer would wait in the next pour's
    // reductions while the others step): checked by one reduction, so that all fail alike if not.
    const double most = spread->max_over_processes(static_cast<double>(pour.inserted));
    const double least = -spread->max_over_processes(-static_cast<double>(pour.inserted));
    if (most != least)
      throw std::runtime_error("pour: the processes placed different beads (" + std::to_string(static_cast<long>(least)) +
                               " to " + std::to_string(static_cast<long>(most)) + " in all); their models differ near it");
  }
  return added;
}

}  // namespace talus::granular
