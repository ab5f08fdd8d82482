#include "engine/granular/GranularStepper.hpp"

#include "engine/granular/ObstacleBodies.hpp"
#include "engine/granular/MovingMeshContacts.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <variant>

#include "contact/ContactFrame.hpp"
#include "contact/NarrowPhase.hpp"
#include "engine/granular/AssembledProblem.hpp"
#include "engine/granular/SpaceFillingCurve.hpp"
#include "engine/joints/RigidJoint.hpp"
#include "solvers/fc/Nsgs.hpp"

namespace talus::granular {

const std::vector<std::string>& granular_solver_names() {
  static const std::vector<std::string> names{"matrix_free", "assembled", "multilevel", "nncg", "anderson"};
  return names;
}

const std::string& granular_solver_name(GranularSolver solver) {
  return granular_solver_names().at(static_cast<std::size_t>(solver));
}

GranularSolver granular_solver_from_name(const std::string& name) {
  const auto& names = granular_solver_names();
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<GranularSolver>(k);
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("granular: unknown solver '" + name + "' (known: " + known + ")");
}

namespace {

using Clock = ProfileClock;

template <class T>
std::size_t bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

// The largest bead (sphere group): the cell grid and the Morton cells are sized by it.
double max_radius(const RigidBodies& b) {
  double r = 0.0;
  for (int i = 0; i < b.spheres(); ++i) r = std::max(r, b.radius[i]);
  return r;
}

}  // namespace

namespace {

// A joint's k-th body: a capsule, or (the second body) a static or kinematic obstacle body, whose velocity the
// joint's rows then read as prescribed (it has no mass: the joint's impulses leave it as its law moves it). A mesh
// carried by a capsule is not one: its body only mirrors the capsule's pose at the step's start.
bool jointed_body_ok(const Model& m, const SystemRef& r, std::size_t k) {
  const RigidBodies& b = m.bodies;
  if (r.family != SystemFamily::Rigid || r.index < 0 || r.index >= b.stored()) return false;
  const int i = static_cast<int>(r.index);
  if (b.kind(i) == ShapeKind::Capsule) return true;
  if (k == 0 || b.kind(i) != ShapeKind::Obstacle) return false;
  const ObstacleRef& o = b.obstacle_of(i);
  return !(o.kind == ObstacleKind::Mesh && m.mesh_carrier(o.index) >= 0);
}

}  // namespace

GranularStepper::GranularStepper(Model& model, const GranularParameters& params, PhaseProfile* profile)
    : m_(model), params_(params), profile_(profile) {
  if (!(params_.h > 0.0)) throw std::invalid_argument("granular: time step h must be positive");
  if (!(params_.tolerance > 0.0)) throw std::invalid_argument("granular: tolerance must be positive");
  if (params_.max_sweeps < 1) throw std::invalid_argument("granular: max_sweeps must be >= 1");
  if (!(params_.relaxation > 0.0 && params_.relaxation < 2.0))
    throw std::invalid_argument("granular: relaxation must be in (0, 2)");
  if (params_.anderson_every < 1 || params_.anderson_every > 4)
    throw std::invalid_argument("granular: anderson_every must be in [1, 4]");
  if (params_.anderson_memory < 1 || params_.anderson_memory > AndersonWorkspace::kMaxMemory)
    throw std::invalid_argument("granular: anderson_memory must be in [1, " +
                                std::to_string(AndersonWorkspace::kMaxMemory) + "]");
  if (params_.partitions < 0) throw std::invalid_argument("granular: partitions must be >= 0 (0 = automatic)");
  if (params_.threads < 1) throw std::invalid_argument("granular: threads must be >= 1");
  // The contact keys (contact/ContactKey.hpp) hold body ids below 2^28 and obstacle indices below 2^20.
  for (int kind = 0; kind < kShapeKinds; ++kind)
    if (m_.bodies.next_id[kind] > contact::kKeyBodyIds)
      throw std::invalid_argument("granular: body ids reach " + std::to_string(m_.bodies.next_id[kind]) +
                                  ": the contact cache's keys hold ids below 2^28");
  if (m_.walls.size() + m_.boxes.size() + m_.cones.size() + m_.drums.size() >= contact::kKeyObstacleIndices)
    throw std::invalid_argument("granular: more than 2^20 walls, boxes, cones or drums (the contact cache's keys "
                                "hold obstacle indices below 2^20)");
  // One model for every integrator, but not yet one step for all of it: this stepper integrates the sphere and
  // capsule groups against obstacles and each other; systems and bodies of the small-system path are refused.
  // Joints between capsules (or a capsule and the world) are stepped with the contacts (header).
  std::size_t others = 0;
  for (const Interaction& in : m_.interactions) others += !std::holds_alternative<JointRelation>(in.relation);
  if (!m_.nonlinear.empty() || others > 0 || m_.bodies.general() > 0)
    throw std::invalid_argument("granular: the model holds " + std::to_string(m_.nonlinear.size()) +
                                " nonlinear systems, " + std::to_string(others) +
                                " user interactions other than joints and " + std::to_string(m_.bodies.general()) +
                                " general rigid bodies: the granular stepper integrates beads, capsules and FE beams "
                                "with detected contacts and joints only (use a small-system scheme for those)");
  // FE beams the beads touch (BeamContacts.hpp), with the sweeps that take general contacts.
  if (!m_.lti.empty()) {
    if (params_.solver != GranularSolver::MatrixFree && params_.solver != GranularSolver::Anderson)
      throw std::invalid_argument("granular: the " + granular_solver_name(params_.solver) +
                                  " solver does not step FE beams: use matrix_free or anderson");
    const GeneralizedAlphaCoefficients ga = generalized_alpha_coefficients(params_.rho_infinity);
    prepare_beam_contacts(beams_, m_, params_.h, params_.beam_theta, generalized_alpha() ? &ga : nullptr);
  }
  if (!m_.interactions.empty() && params_.solver != GranularSolver::MatrixFree &&
      params_.solver != GranularSolver::Anderson)
    throw std::invalid_argument("granular: the " + granular_solver_name(params_.solver) +
                                " solver does not step joints (the model has " +
                                std::to_string(m_.interactions.size()) + "): use matrix_free or anderson");
  // The obstacle bodies first: a joint may hold one (jointed_body_ok).
  place_obstacle_bodies(m_, m_.time, params_.h);
  for (const Interaction& in : m_.interactions) {
    const auto& j = std::get<JointRelation>(in.relation);
    const auto* law = std::get_if<EqualityLaw>(&in.law);
    if (!law || law->rows != joint_rows(j.kind) || in.systems.empty() || in.systems.size() > 2)
      throw std::invalid_argument("granular: joint '" + in.name + "' needs an equality law of " +
                                  std::to_string(joint_rows(j.kind)) + " rows between one or two bodies");
    for (std::size_t k = 0; k < in.systems.size(); ++k)
      if (!jointed_body_ok(m_, in.systems[k], k))
        throw std::invalid_argument("granular: joint '" + in.name + "' holds body " + std::to_string(in.systems[k].index) +
                                    ", which is not a capsule (nor, as its second body, an obstacle other than a "
                                    "carried mesh): the granular stepper joints capsules to each other, to the world "
                                    "or to a wall, box, cone, drum or mesh (a bead's index changes when the beads are "
                                    "re-sorted)");
  }
  // The contact laws and material ids the narrow phases index without checking (engine/Materials.hpp).
  {
    const MaterialTable& t = m_.materials;
    if (t.count() < 1 || t.laws.size() != MaterialTable::pair_index(t.count() - 1, t.count() - 1) + 1)
      throw std::invalid_argument("granular: the material table has not one law per pair of materials");
    for (const ContactLaw& l : t.laws) {
      if (!(l.mu >= 0.0) || !std::isfinite(l.mu)) throw std::invalid_argument("granular: friction coefficients must be >= 0");
      if (!(l.e >= 0.0 && l.e <= 1.0)) throw std::invalid_argument("granular: restitution must be in [0, 1]");
      if (!(l.rolling >= 0.0) || !std::isfinite(l.rolling))
        throw std::invalid_argument("granular: rolling resistance coefficients must be >= 0");
      has_rolling_ = has_rolling_ || l.rolling > 0.0;
    }
    if (has_rolling_ && params_.solver != GranularSolver::MatrixFree && params_.solver != GranularSolver::Anderson)
      throw std::invalid_argument("granular: rolling resistance is solved by the matrix_free and anderson solvers only "
                                  "(solver '" + granular_solver_name(params_.solver) + "' given)");
    auto ids_ok = [&](const std::vector<MaterialId>& ids, std::size_t count, bool may_be_empty) {
      if (ids.size() != count && !(may_be_empty && ids.empty())) return false;
      for (MaterialId k : ids)
        if (k >= t.count()) return false;
      return true;
    };
    if (!ids_ok(m_.bodies.material, m_.bodies.x.size(), false) || !ids_ok(m_.wall_material, m_.walls.size(), true) ||
        !ids_ok(m_.box_material, m_.boxes.size(), true) || !ids_ok(m_.drum_material, m_.drums.size(), true) ||
        !ids_ok(m_.cone_material, m_.cones.size(), true) || !ids_ok(m_.mesh_material, m_.meshes.size(), true))
      throw std::invalid_argument("granular: a body or obstacle names a material the table does not hold (or the "
                                  "obstacles' material lists do not match the obstacles)");
  }
  pair_buffers_.resize(params_.threads);
  wall_buffers_.resize(params_.threads);
  mesh_scratch_.resize(params_.threads);
  // Every mesh's features get their own range of cache keys (contact/ContactCache.hpp bead_mesh_key).
  std::uint64_t features = 0;
  for (const auto& mesh : m_.meshes) {
    if (!mesh) throw std::invalid_argument("granular: an empty mesh entry");
    mesh_feature_offset_.push_back(static_cast<std::uint32_t>(features));
    features += static_cast<std::uint64_t>(mesh->feature_count());
  }
  if (features >= (1u << 28))
    throw std::invalid_argument("granular: the meshes have " + std::to_string(features) +
                                " faces, edges and vertices in all (at most 2^28 can be told apart by the contact cache)");
  // A capsule's contacts with a mesh are general contacts, whose keys hold 2^25 features (MovingMeshContacts.hpp).
  if (m_.bodies.capsules() > 0 && features >= kMovingMeshKeyBase)
    throw std::invalid_argument("granular: the meshes have " + std::to_string(features) +
                                " faces, edges and vertices in all: with capsules, at most 2^25 can be told apart");
  // A moving mesh's contacts are general contacts, whose keys hold 2^25 features (MovingMeshContacts.hpp).
  mesh_travel_.assign(m_.meshes.size(), 0.0);
  for (int k = 0; k < static_cast<int>(m_.meshes.size()); ++k)
    if (!m_.mesh_fixed(k) &&
        mesh_feature_offset_[k] + static_cast<std::uint64_t>(m_.meshes[k]->feature_count()) >= kMovingMeshKeyBase)
      throw std::invalid_argument("granular: moving or carried mesh " + std::to_string(k) + " ('" + m_.meshes[k]->name +
                                  "') ends past 2^25 faces, edges and vertices counted over the meshes (put the "
                                  "moving meshes first, or use fewer triangles)");
  work_.record_history = params_.record_history;
  multilevel_.fine.record_history = params_.record_history;
}


std::size_t GranularStepper::memory_bytes() const {
  std::size_t s = m_.bodies.capacity_bytes();
  s += bytes(grid_.cell_start) + bytes(grid_.sorted) + bytes(grid_.body_cell);
  for (const auto& v : pair_buffers_) s += bytes(v);
  for (const auto& v : wall_buffers_) s += bytes(v);
  s += bytes(pairs_) + bytes(wall_hits_) + bytes(cand_a_) + bytes(cand_b_);
  s += bytes(layout_.part_start) + bytes(layout_.slot) + bytes(layout_.scratch_a) + bytes(layout_.scratch_b) +
       bytes(layout_.scratch_index) + bytes(layout_.interface.colour) + bytes(layout_.interface.slot) +
       bytes(layout_.interface.colour_start) + bytes(layout_.interface.body_mask);
  s += bytes(contacts_) + bytes(keys_) + bytes(gaps_) + bytes(world_impulses_) + bytes(work_.block_sums);
  // The cache: a key, a world impulse and a sort index per contact, twice (its rebuild buffers).
  s += 2 * cache_.size() * (sizeof(contact::ContactKey) + sizeof(Eigen::Vector3d) + sizeof(std::uint32_t));
  s += rolling_.capacity() * sizeof(RollingContact) +
       rolling_cache_.size() * (sizeof(contact::ContactKey) + sizeof(Eigen::Vector3d) + sizeof(std::uint32_t));
  s += bytes(order_) + bytes(sort_scratch_) + bytes(permute_scratch_);
  s += bytes(candidate_order_) + bytes(height_) + bytes(layer_count_) + bytes(layer_of_);
  return s;
}

void GranularStepper::resort() {
  morton_order(m_.bodies.x.data(), m_.bodies.spheres(), 2.0 * std::max(max_radius(m_.bodies), 1e-12), order_, sort_scratch_);
  m_.bodies.permute_spheres(order_, permute_scratch_);
}

void GranularStepper::wrap_positions() {
  if (!m_.periodic.any()) return;
  RigidBodies& b = m_.bodies;
  const int T = params_.threads;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int i = 0; i < b.spheres(); ++i) m_.periodic.wrap(b.x[i]);
  for (int i = b.spheres(); i < b.count(); ++i) m_.periodic.wrap(b.x[i]);
}

void GranularStepper::detect(double margin) {
  RigidBodies& b = m_.bodies;
  wrap_positions();
  const int n = b.spheres();
  const int T = params_.threads;
  const double rmax = max_radius(b);
  // Walls where they are at the start of the step, and their mean normal velocity over it (a moving wall's
  // contact must close exactly at the end of the step, like a static one).
  const double h = params_.h, now = m_.time;
  place_obstacle_bodies(m_, now, h);
  const int nw = static_cast<int>(m_.walls.size());
  const int nobs = nw + static_cast<int>(m_.boxes.size()) + static_cast<int>(m_.cones.size());
  walls_now_.resize(nw);
  wall_speed_.resize(nw);
  wall_margin_.resize(nw);
  for (int w = 0; w < nw; ++w) {
    walls_now_[w] = m_.walls[w].at(now);
    wall_speed_[w] = (m_.walls[w].displacement(now + h) - m_.walls[w].displacement(now)) / h;
    wall_margin_[w] = margin + h * std::abs(wall_speed_[w]);
  }
  // How far each moving or carried mesh's surface may move in the step (a carried one: with its capsule's v_k).
  for (int k = 0; k < static_cast<int>(m_.meshes.size()); ++k)
    mesh_travel_[k] = m_.mesh_fixed(k) ? 0.0 : mesh_surface_travel(m_, k, h);
  const double travel = m_.meshes.empty() ? 0.0 : *std::max_element(mesh_travel_.begin(), mesh_travel_.end());
  if (!m_.meshes.empty() && rmax + margin + travel > mesh_grid_pad_) {
    mesh_grid_pad_ = 1.25 * (rmax + margin + travel);
    // A bead's image nearest to a mesh's centre is the one that may touch it (mesh_position) only while the mesh
    // and the beads' reach on both sides fit in one period.
    if (m_.periodic.any())
      for (int k = 0; k < static_cast<int>(m_.meshes.size()); ++k) {
        const contact::TriangleMesh& mesh = *m_.meshes[k];
        Eigen::Vector3d extent = mesh.bvh[0].hi - mesh.bvh[0].lo;
        if (!m_.mesh_fixed(k)) {
          // Turning, it may span its arm about the centre of rotation both ways.
          const Eigen::Vector3d centre = m_.mesh_moves(k) ? m_.mesh_motion[k].centre : Eigen::Vector3d::Zero();
          double arm = 0.0;
          for (const Eigen::Vector3d& v : mesh.vertices) arm = std::max(arm, (v - centre).norm());
          extent = Eigen::Vector3d::Constant(2.0 * arm);
        }
        for (int a = 0; a < 3; ++a)
          if (m_.periodic.axis[a] && extent[a] + 2.0 * mesh_grid_pad_ >= m_.periodic.length[a])
            throw std::invalid_argument(
                "granular: mesh " + std::to_string(k) + " ('" + mesh.name + "') spans " + std::to_string(extent[a]) +
                " m along the periodic axis " + std::string(1, "xyz"[a]) + ", which with the beads' reach of " +
                std::to_string(mesh_grid_pad_) + " m on both sides does not fit in the period of " +
                std::to_string(m_.periodic.length[a]) + " m (a mesh must lie within one period: a floor along it is "
                "a plane)");
      }
    mesh_grids_.clear();
    for (const auto& mesh : m_.meshes) mesh_grids_.push_back(contact::build_proximity_grid(*mesh, mesh_grid_pad_));
  }
  contact::size_cell_grid(grid_, b.x.data(), n, std::max(2.0 * rmax + margin, 1e-12), m_.periodic);
#pragma omp parallel num_threads(T) if (T > 1)
  {
    const int t = omp_get_thread_num();
    contact::assign_cells(grid_, b.x.data(), static_cast<int>(static_cast<long>(n) * t / T),
                          static_cast<int>(static_cast<long>(n) * (t + 1) / T));
#pragma omp barrier
#pragma omp single
    contact::sort_into_cells(grid_);
    long begin, end;
    contact::cell_range(grid_, t, T, begin, end);
    pair_buffers_[t].clear();
    contact::find_sphere_pairs(grid_, b.x.data(), b.radius.data(), margin, begin, end, pair_buffers_[t], m_.periodic);
    // Bead–wall, bead–box and bead–cone candidates over a contiguous bead range per thread: concatenated in order
    // below.
    wall_buffers_[t].clear();
    const int lo = static_cast<int>(static_cast<long>(n) * t / T), hi = static_cast<int>(static_cast<long>(n) * (t + 1) / T);
    contact::ContactPoint cp;
    const int nm = static_cast<int>(m_.meshes.size());
    for (int i = lo; i < hi; ++i) {
      for (int w = 0; w < nobs; ++w)
        if ((w >= nw || m_.walls[w].present(now)) && obstacle_point(w, i, cp) &&
            cp.gap <= (w < nw ? wall_margin_[w] : margin))
          wall_buffers_[t].push_back({i, w, cp.feature});
      // A bead may touch several features of one mesh (a valley's two faces): one hit each.
      for (int k = 0; k < nm; ++k) {
        if (!m_.mesh_fixed(k)) continue;  // a general contact (below)
        const Eigen::Vector3d x = mesh_position(k, i);
        // Every bead reaches no farther than the grid's pad (built above): a far one is told in one lookup.
        if (!mesh_grids_[k].may_be_near(x)) continue;
        contact::sphere_mesh_features(*m_.meshes[k], x, b.radius[i], margin, mesh_scratch_[t],
                                      [&](int f) { wall_buffers_[t].push_back({i, nobs + k, f}); });
      }
    }
  }
  pairs_.clear();
  wall_hits_.clear();
  for (int t = 0; t < T; ++t) {
    pairs_.insert(pairs_.end(), pair_buffers_[t].begin(), pair_buffers_[t].end());
    wall_hits_.insert(wall_hits_.end(), wall_buffers_[t].begin(), wall_buffers_[t].end());
  }
  refresh_world_inertia(m_.bodies);
  detect_general_contacts(m_, grid_, walls_now_, wall_speed_, mesh_feature_offset_, margin, h, T, general_buffers_);
  bool moving = false;
  for (int k = 0; k < static_cast<int>(m_.meshes.size()); ++k) moving |= !m_.mesh_fixed(k);
  if (moving)
    detect_moving_mesh_contacts(m_, mesh_grids_, mesh_feature_offset_, margin, h, T, general_buffers_);
  // A partitioned model: a bead's contacts with drums and moving meshes are its owner's alone (PartitionedSolve.hpp);
  // the ghosts' belong to their owners.
  if (params_.distributed && params_.distributed->spreads_general()) {
    const int own = params_.distributed->own_spheres(b.spheres());
    std::vector<GeneralCandidate>& all = general_buffers_.all;
    all.erase(std::remove_if(all.begin(), all.end(), [&](const GeneralCandidate& g) { return g.a >= own || g.b >= own; }),
              all.end());
  }
}

// Bead i's centre as mesh k sees it: in a periodic domain, the image nearest to the centre of the mesh's box.
Eigen::Vector3d GranularStepper::mesh_position(int k, int i) const {
  const Eigen::Vector3d& x = m_.bodies.x[i];
  if (!m_.periodic.any()) return x;
  const contact::BvhNode& root = m_.meshes[k]->bvh[0];
  const Eigen::Vector3d centre = 0.5 * (root.lo + root.hi);
  return centre + m_.periodic.minimum_image(x - centre);
}

// The warm start of a bead–mesh contact: its own feature's impulse, or else that of a neighbouring feature the
// bead touched last step (a bead rolling from a face over an edge onto the next face keeps its impulse).
Eigen::Vector3d GranularStepper::mesh_warm_start(int k, int feature, std::uint32_t id) const {
  const contact::TriangleMesh& m = *m_.meshes[k];
  const std::uint32_t off = mesh_feature_offset_[k];
  const auto find = [&](int f) {
    return cache_.find(contact::mesh_key(off + static_cast<std::uint32_t>(f), contact::KeyBody::Sphere, id));
  };
  Eigen::Vector3d r = find(feature);
  if (r != Eigen::Vector3d::Zero()) return r;
  const int T = m.faces(), E = m.edges();
  if (feature < T) {
    for (int e : m.triangle_edges[feature])
      if ((r = find(T + e)) != Eigen::Vector3d::Zero()) return r;
    for (int v : m.triangles[feature])
      if ((r = find(T + E + v)) != Eigen::Vector3d::Zero()) return r;
  } else if (feature < T + E) {
    for (int t : m.edge_triangles[feature - T])
      if (t >= 0 && (r = find(t)) != Eigen::Vector3d::Zero()) return r;
    for (int v : m.edge_vertices[feature - T])
      if ((r = find(T + E + v)) != Eigen::Vector3d::Zero()) return r;
  } else {
    const int v = feature - T - E;
    for (int j = m.vertex_triangle_start[v]; j < m.vertex_triangle_start[v + 1]; ++j) {
      const int t = m.vertex_triangles[j];
      if ((r = find(t)) != Eigen::Vector3d::Zero()) return r;
      for (int e : m.triangle_edges[t])
        if ((m.edge_vertices[e][0] == v || m.edge_vertices[e][1] == v) && (r = find(T + e)) != Eigen::Vector3d::Zero())
          return r;
    }
  }
  return Eigen::Vector3d::Zero();
}

bool GranularStepper::obstacle_point(int obstacle, int bead, contact::ContactPoint& cp) const {
  const RigidBodies& b = m_.bodies;
  const int nw = static_cast<int>(m_.walls.size());
  if (obstacle < nw) return contact::sphere_wall_point(walls_now_[obstacle], b.x[bead], b.radius[bead], cp);
  const int nb = static_cast<int>(m_.boxes.size());
  if (obstacle < nw + nb) {
    const contact::Box& box = m_.boxes[obstacle - nw];
    // In a periodic domain the bead image nearest to the box is the one that may touch it.
    const Eigen::Vector3d x = m_.periodic.any() ? Eigen::Vector3d(box.centre + m_.periodic.minimum_image(b.x[bead] - box.centre))
                                                : b.x[bead];
    return contact::sphere_box_point(box, x, b.radius[bead], cp);
  }
  const contact::Cone& cone = m_.cones[obstacle - nw - nb];
  const Eigen::Vector3d x = m_.periodic.any() ? Eigen::Vector3d(cone.base + m_.periodic.minimum_image(b.x[bead] - cone.base))
                                              : b.x[bead];
  return contact::sphere_cone_point(cone, x, b.radius[bead], cp);
}

// The order of the detected contacts inside each sweep block (GranularParameters::contact_order): candidate k
// of the layout is detected contact candidate_order_[k] (pairs first, then wall hits). Bottom-up sorts by the
// height of the contact point against gravity (a pair's midpoint, a wall contact's lowest bead point), binned in
// layers of order_layer radii with detection order kept inside a layer (a stable counting sort, O(n)), or
// exactly (order_layer = 0). docs/stack-height.md ("Sweep order by height"): on the settling pile's states a
// bottom-up sweep needs fewer sweeps and each costs less, but it changes every trajectory, so it is opt-in.
void GranularStepper::order_candidates(int np, int n) {
  const RigidBodies& b = m_.bodies;
  candidate_order_.resize(n);
  for (int k = 0; k < n; ++k) candidate_order_[k] = k;
  const double g = m_.gravity.norm();
  if (params_.contact_order == GranularParameters::ContactOrder::Detection || n == 0 || !(g > 0.0)) return;
  const Eigen::Vector3d up = (params_.contact_order == GranularParameters::ContactOrder::TopDown ? 1.0 : -1.0) *
                             m_.gravity / g;  // sorted ascending along −g (bottom-up) or along g (top-down)
  height_.resize(n);
  for (int k = 0; k < np; ++k) height_[k] = {0.5 * up.dot(b.x[pairs_[k].a] + b.x[pairs_[k].b]), k};
  for (int k = np; k < n; ++k) {
    const int i = wall_hits_[k - np].bead;
    height_[k] = {up.dot(b.x[i]) - b.radius[i], k};
  }
  if (!(params_.order_layer > 0.0)) {
    std::sort(height_.begin(), height_.end());
    for (int k = 0; k < n; ++k) candidate_order_[k] = height_[k].second;
    return;
  }
  double lo = height_[0].first, hi = lo;
  for (int k = 1; k < n; ++k) lo = std::min(lo, height_[k].first), hi = std::max(hi, height_[k].first);
  const double dz = params_.order_layer * std::max(max_radius(b), 1e-12);
  const int layers = static_cast<int>(std::min((hi - lo) / dz, 1e6)) + 1;
  layer_count_.assign(layers + 1, 0);
  layer_of_.resize(n);
  for (int k = 0; k < n; ++k) {
    layer_of_[k] = static_cast<int>(std::clamp((height_[k].first - lo) / dz, 0.0, layers - 1.0));
    ++layer_count_[layer_of_[k] + 1];
  }
  for (int l = 0; l < layers; ++l) layer_count_[l + 1] += layer_count_[l];
  for (int k = 0; k < n; ++k) candidate_order_[layer_count_[layer_of_[k]]++] = k;
}

void GranularStepper::narrow() {
  // Narrow phase, frames, colouring, diagonal blocks and warm start: the contacts go to their slot in sweep order.
  RigidBodies& b = m_.bodies;
  const BodyArrays view = body_arrays(b);
  const int np = static_cast<int>(pairs_.size());
  const int n = np + static_cast<int>(wall_hits_.size());
  order_candidates(np, n);
  cand_a_.resize(n);
  cand_b_.resize(n);
  for (int k = 0; k < n; ++k) {
    const int src = candidate_order_[k];
    if (src < np)
      cand_a_[k] = pairs_[src].a, cand_b_[k] = pairs_[src].b;
    else
      cand_a_[k] = -1, cand_b_[k] = wall_hits_[src - np].bead;
  }
  int partitions = params_.partitions > 0 ? params_.partitions : automatic_partitions(b.spheres(), params_.threads);
  if (params_.distributed && params_.partitions <= 0)
    partitions = std::max(partitions, params_.distributed->min_sweep_blocks());
  build_sweep_layout(cand_a_.data(), cand_b_.data(), n, b.spheres(), partitions, layout_);
  contacts_.resize(n);
  keys_.resize(n);
  gaps_.resize(n);
  if (has_rolling_) rolling_.resize(n);
  const bool ga = generalized_alpha();
  if (ga) position_extra_.resize(n);
  const Eigen::Vector3d g = m_.gravity;
  const double h = params_.h;
  const MaterialTable& laws = m_.materials;
  const int T = params_.threads;
  const int nw = static_cast<int>(m_.walls.size());
  const bool periodic = m_.periodic.any();
  const int nobs_before_meshes = nw + static_cast<int>(m_.boxes.size()) + static_cast<int>(m_.cones.size());
  double max_pen = 0.0;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static) reduction(max : max_pen)
  for (int k = 0; k < n; ++k) {
    const int s = layout_.slot[k];
    const int src = candidate_order_[k];
    SweepContact& c = contacts_[s];
    contact::ContactPoint cp;
    double wall_speed = 0.0;
    // Inside a cone's shell a straight path leaves the surface (it is concave about the axis), so a bead moving
    // along it closes the gap by ~(v_T h)²/2ρ in a step besides h u_N: that closing part, predicted from v_k as
    // for drums (GeneralDetection.cpp), joins the normal target. 0 for every other contact.
    // (Added only where non-zero, so that every other contact's target keeps its bits, signed zeros included.)
    double curvature = 0.0;
    // The pair's law, looked up here once per contact: the sweeps read c.mu and the Newton target in c.extra.
    ContactLaw law;
    if (src < np) {
      // a = the bead with the smaller id, so that the cache key and the normal's orientation agree across steps.
      int ia = pairs_[src].a, ib = pairs_[src].b;
      if (b.id[ia] > b.id[ib]) std::swap(ia, ib);
      const Eigen::Vector3d xb = periodic ? Eigen::Vector3d(b.x[ia] + m_.periodic.minimum_image(b.x[ib] - b.x[ia])) : b.x[ib];
      if (!contact::sphere_sphere_point(b.x[ia], b.radius[ia], xb, b.radius[ib], cp)) {
        cp.n = Eigen::Vector3d::UnitZ(), cp.gap = -b.radius[ia] - b.radius[ib];
      }
      law = laws.law(b.material[ia], b.material[ib]);
      c.a = ia, c.b = ib, c.ra = b.radius[ia], c.rb = b.radius[ib], c.mu = law.mu;
      keys_[s] = contact::pair_key(contact::KeyBody::Sphere, b.id[ia], contact::KeyBody::Sphere, b.id[ib]);
    } else {
      const WallHit& w = wall_hits_[src - np];
      const int nb = static_cast<int>(m_.boxes.size());
      const int nc = static_cast<int>(m_.cones.size());
      const bool mesh = w.wall >= nw + nb + nc;
      if (mesh) {
        const int k = w.wall - nw - nb - nc;
        if (!contact::sphere_mesh_feature_point(*m_.meshes[k], w.feature, mesh_position(k, w.bead), b.radius[w.bead], cp))
          cp.n = Eigen::Vector3d::UnitZ(), cp.gap = -b.radius[w.bead];
      } else {
        obstacle_point(w.wall, w.bead, cp);
      }
      law = laws.law(b.material[w.bead], w.wall < nw        ? m_.material_of_wall(w.wall)
                                         : w.wall < nw + nb ? m_.material_of_box(w.wall - nw)
                                         : !mesh            ? m_.material_of_cone(w.wall - nw - nb)
                                                            : m_.material_of_mesh(w.wall - nw - nb - nc));
      c.a = -1, c.b = w.bead, c.ra = 0.0, c.rb = b.radius[w.bead], c.mu = law.mu;
      if (w.wall < nw) {
        keys_[s] = contact::obstacle_key(contact::KeyObstacle::Plane, w.wall, w.feature, contact::KeyBody::Sphere,
                                         b.id[w.bead]);
        wall_speed = wall_speed_[w.wall];
      } else if (w.wall < nw + nb) {
        keys_[s] = contact::obstacle_key(contact::KeyObstacle::Box, w.wall - nw, 0, contact::KeyBody::Sphere, b.id[w.bead]);
      } else if (mesh) {
        const int k = w.wall - nw - nb - nc;
        keys_[s] = contact::mesh_key(mesh_feature_offset_[k] + static_cast<std::uint32_t>(w.feature),
                                     contact::KeyBody::Sphere, b.id[w.bead]);
      } else {
        const int k = w.wall - nw - nb;
        keys_[s] = contact::obstacle_key(contact::KeyObstacle::Cone, k, 0, contact::KeyBody::Sphere, b.id[w.bead]);
        const contact::Cone& cone = m_.cones[k];
        const Eigen::Vector3d& v = b.v[w.bead];
        const Eigen::Vector3d x = (periodic ? Eigen::Vector3d(cone.base + m_.periodic.minimum_image(b.x[w.bead] - cone.base))
                                            : b.x[w.bead]) + h * v;
        contact::ContactPoint next;
        if (contact::sphere_cone_point(cone, x, b.radius[w.bead], next) && next.feature == cp.feature)
          curvature = std::min(0.0, next.gap - cp.gap - h * cp.n.dot(v));
      }
    }
    const double e = law.e;
    const contact::ContactFrame f = contact::make_frame(cp.n);
    c.n = f.n, c.t1 = f.t1, c.t2 = f.t2;
    gaps_[s] = cp.gap;
    max_pen = std::max(max_pen, -cp.gap);
    const double ima = c.a >= 0 ? b.inv_mass[c.a] : 0.0, iia = c.a >= 0 ? b.inv_inertia[c.a] : 0.0;
    c.wn = ima + b.inv_mass[c.b];
    c.wt = c.wn + iia * c.ra * c.ra + b.inv_inertia[c.b] * c.rb * c.rb;
    // Normal target from the start-of-step state (velocities are still v_k here). A moving wall's normal
    // velocity is part of the relative velocity: u_N = n·v_b − wall_speed.
    if (ga) {
      // Generalized-α (header): Newton's law when the smooth prediction q* = q_k + h v_k + ½h² g closes the
      // contact, the open law otherwise; the position problem's target is g(q_{k+1}) >= 0.
      c.extra = -wall_speed;
      const double un_k = contact_velocity(c, view)[0];
      const double dg = c.n.dot((b.inv_mass[c.b] > 0.0 ? g : Eigen::Vector3d::Zero()) -
                                (c.a >= 0 && b.inv_mass[c.a] > 0.0 ? g : Eigen::Vector3d::Zero()));
      const double g_star = cp.gap + h * un_k + 0.5 * h * h * dg;
      const double closing = curvature != 0.0 ? cp.gap + curvature : cp.gap;
      if (g_star > 0.0)
        c.extra = closing / h - wall_speed;
      else if (e > 0.0)
        c.extra += e * std::min(0.0, un_k);
      if (g_star <= 0.0 && curvature != 0.0) c.extra += curvature / h;
      position_extra_[s] = closing / h - wall_speed;
    } else if (const double un_k = e > 0.0 ? (c.extra = -wall_speed, contact_velocity(c, view)[0]) : 0.0;
               cp.gap > (e > 0.0 ? contact::kClosedGapFraction * (c.ra + c.rb) : 0.0) &&
               !(e > 0.0 && cp.gap + h * un_k <= 0.0)) {
      // Open: the target u_N >= -g/h lets the gap close exactly within the step (e = 0: a plastic landing).
      // (u_k, read with extra = -wall_speed, is the normal velocity relative to a moving wall.)
      c.extra = (curvature != 0.0 ? cp.gap + curvature : cp.gap) / h - wall_speed;
    } else {
      // Closed, or (e > 0) closed within the step by the start-of-step velocity: Moreau–Jean's impact law
      // u_{k+1} >= -e u_k (seed 000, the index set of the forecast g + h u_k with gamma = 1); the bead turns round
      // up to h |u_k| short of the surface. Before, a bead reaching a wall mid-step was stopped on it by the gap
      // target and bounced, the next step, with e times that landing speed only: a dropped ball hardly rose.
      c.extra = -wall_speed;
      if (e > 0.0) c.extra += e * std::min(0.0, un_k);
      if (curvature != 0.0) c.extra += curvature / h;
    }
    const Eigen::Vector3d R = src >= np && wall_hits_[src - np].wall >= nobs_before_meshes
                                  ? mesh_warm_start(wall_hits_[src - np].wall - nobs_before_meshes,
                                                    wall_hits_[src - np].feature, b.id[c.b])
                                  : cache_.find(keys_[s]);
    Eigen::Vector3d r(R.dot(c.n), R.dot(c.t1), R.dot(c.t2));
    solvers::project_on_cone(r.data(), 3, c.mu);
    c.r = r;
    if (has_rolling_) {
      // R* = r_a r_b / (r_a + r_b), the bead's radius against an obstacle; warm start from the rolling cache.
      RollingContact& k = rolling_[s];
      k.radius = c.a >= 0 ? b.radius[c.a] * b.radius[c.b] / (b.radius[c.a] + b.radius[c.b]) : b.radius[c.b];
      k.mu = law.rolling;
      k.w = k.radius * k.radius * (iia + b.inv_inertia[c.b]);
      const Eigen::Vector3d P = k.mu > 0.0 ? rolling_cache_.find(keys_[s]) : Eigen::Vector3d::Zero();
      k.rho = project_on_disk(Eigen::Vector2d(P.dot(c.t1), P.dot(c.t2)), k.mu * r[0]);
    }
  }
  // The bead contacts against an obstacle, for its loads once the step is solved (set_obstacle_loads).
  obstacle_slots_.clear();
  for (int k = 0; k < n; ++k)
    if (candidate_order_[k] >= np) obstacle_slots_.push_back(layout_.slot[k]);
  report_.max_penetration =
      std::max(max_pen, build_general_contacts(general_buffers_, m_, walls_now_, h, general_, cache_, rolling_cache_, ga));
  if (!beams_.empty())
    report_.max_penetration =
        std::max(report_.max_penetration, build_beam_contacts(beams_, m_, margin_, cache_, general_.flexible,
                                                              ga ? &position_cache_ : nullptr));
  if (!m_.interactions.empty()) build_joints();
  // Anderson sweeps them too, without extrapolating (MatrixFreeNsgs.hpp).
  if (!general_.empty() && params_.solver != GranularSolver::MatrixFree && params_.solver != GranularSolver::Anderson)
    throw std::invalid_argument(
        "granular: the assembled, multilevel and nncg solvers handle bead contacts only (capsules, drums or moving "
        "meshes present)");
}

// The joints' rows at q_k, t_k (header): world-frame Jacobians, both problems' targets, blocks and W⁺.
void GranularStepper::build_joints() {
  RigidBodies& b = m_.bodies;
  const int nj = static_cast<int>(m_.interactions.size());
  joint_rows_.resize(nj);
  for (int k = 0; k < nj; ++k) {
    const Interaction& in = m_.interactions[k];
    joint_rows_[k] = joint_rows(std::get<JointRelation>(in.relation).kind);
    // Bodies removed between steps shift the capsules' indices: a joint must still hold a capsule (or an obstacle).
    for (std::size_t s = 0; s < in.systems.size(); ++s)
      if (!jointed_body_ok(m_, in.systems[s], s))
        throw std::invalid_argument("granular: joint '" + in.name + "' holds body " + std::to_string(in.systems[s].index) +
                                    ", which is no longer a capsule or an obstacle (bodies were removed)");
  }
  joints_.set_layout(joint_rows_);
  const int rows = joints_.rows();
  joint_velocity_target_.resize(rows);
  joint_position_target_.resize(rows);
  if (static_cast<int>(joint_position_impulse_.size()) != rows) joint_position_impulse_.assign(rows, 0.0);
  if (!pending_joint_impulse_.empty()) {
    if (static_cast<int>(pending_joint_impulse_.size()) == rows) joints_.impulse = pending_joint_impulse_;
    if (static_cast<int>(pending_joint_position_impulse_.size()) == rows)
      joint_position_impulse_ = pending_joint_position_impulse_;
    pending_joint_impulse_.clear(), pending_joint_position_impulse_.clear();
  }
  const double h = params_.h;
  const bool ga = generalized_alpha();
  for (int k = 0; k < nj; ++k) {
    const Interaction& in = m_.interactions[k];
    const JointRelation& j = std::get<JointRelation>(in.relation);
    const int n = joint_rows_[k], a = static_cast<int>(in.systems[0].index);
    const int c = in.systems.size() > 1 ? static_cast<int>(in.systems[1].index) : -1;
    joints_.body_a[k] = a, joints_.body_b[k] = c;
    const JointPose pa{b.x[a], b.q[a]};
    JointPose pc;
    if (c >= 0) pc = {b.x[c], b.q[c]};
    auto g = joint_g_.head(n), dgdt = joint_dgdt_.head(n);
    auto Ja = joint_ja_.topRows(n), Jb = joint_jb_.topRows(n);
    evaluate_joint(j, pa, c >= 0 ? &pc : nullptr, m_.time, g, Ja, Jb, dgdt);
    // [v, Ω_body] → [v, ω_world]: Ω = Rᵀ ω.
    const Eigen::Matrix3d Ra_t = b.q[a].toRotationMatrix().transpose();
    const Eigen::Matrix3d Rc_t = c >= 0 ? Eigen::Matrix3d(b.q[c].toRotationMatrix().transpose()) : Eigen::Matrix3d::Identity();
    for (int i = 0; i < n; ++i) {
      const int r = joints_.row_start[k] + i;
      joints_.jac_a[r].head<3>() = Ja.block<1, 3>(i, 0);
      joints_.jac_a[r].tail<3>() = Ja.block<1, 3>(i, 3) * Ra_t;
      if (c >= 0) {
        joints_.jac_b[r].head<3>() = Jb.block<1, 3>(i, 0);
        joints_.jac_b[r].tail<3>() = Jb.block<1, 3>(i, 3) * Rc_t;
      } else {
        joints_.jac_b[r].setZero();
      }
      joint_position_target_[r] = dgdt[i] + g[i] / h;
      joint_velocity_target_[r] = ga ? dgdt[i] : joint_position_target_[r];
    }
  }
  joints_.target = joint_velocity_target_;
  joints_.bodies = body_arrays(b);
  prepare_joint_blocks(joints_);
}

void GranularStepper::assemble() {
  RigidBodies& b = m_.bodies;
  const double h = params_.h;
  const int T = params_.threads;
  // Generalized-α keeps v_k, ω_k: the position problem's prediction starts from them.
  // (and a failed step restores them under FailurePolicy::RollBack).
  if (generalized_alpha() || params_.on_failure == FailurePolicy::RollBack) v_start_ = b.v, w_start_ = b.w;
  // Free velocities, then q = H v* + extra (its norm scales the residual).
  const Eigen::Vector3d dv = h * m_.gravity;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int i = 0; i < b.spheres(); ++i)
    if (b.inv_mass[i] > 0.0) b.v[i] += dv;
  add_capsule_free_velocities(b, m_.gravity, h);
  if (!beams_.empty()) {
    beam_free_velocities(beams_, m_);
    if (generalized_alpha()) v_free_ = b.v, w_free_ = b.w;
  }
  general_.bodies = body_arrays(b);
  if (!beams_.empty() && generalized_alpha())
    beam_velocity_scale_ = std::sqrt(flexible_squared_velocity(general_.flexible, general_.bodies));
  const double general_qq = general_squared_velocity(general_);
  double qq = general_qq + squared_contact_velocities(contacts_, general_.bodies, T, work_);
  if (!joints_.empty()) {
    joints_.bodies = general_.bodies;
    qq += joint_squared_velocity(joints_);
    joint_start_impulse_ = joints_.impulse;
  }
  q_norm_ = std::sqrt(qq);
  if (params_.distributed)
    q_norm_ = params_.distributed->contact_velocity_norm(contacts_, general_.bodies, q_norm_, general_qq);
  if (keep_problem_) {
    problem_ = assemble_problem(contacts_, b);
    global_problem_ = assemble_global_problem(contacts_, b);
    keep_problem_ = false;
  }
}

std::string GranularStepper::unkeepable_problem() const {
  if (has_rolling_) return "rolling resistance (rolling_friction), which FCLIB's form has no rows for";
  // The kept problem is the bead contacts' (AssembledProblem.hpp): a model whose steps may hold general or beam
  // contacts would be dumped without them.
  bool moving_mesh = false;
  for (int k = 0; k < static_cast<int>(m_.meshes.size()); ++k) moving_mesh = moving_mesh || !m_.mesh_fixed(k);
  if (m_.bodies.capsules() > 0) return "capsules, whose contacts the kept problem (bead contacts only) would leave out";
  if (!m_.drums.empty() || moving_mesh)
    return "a drum or a moving mesh, whose contacts the kept problem (bead contacts only) would leave out";
  if (!m_.lti.empty()) return "FE beams, whose contacts the kept problem (bead contacts only) would leave out";
  return {};
}

void GranularStepper::keep_next_problem() {
  if (const std::string why = unkeepable_problem(); !why.empty())
    throw std::invalid_argument("granular: the step's problem cannot be kept in FCLIB's form: the model has " + why);
  keep_problem_ = true;
}

void GranularStepper::solve(bool with_rolling) {
  // A fresh view: generalized-α swaps the velocity arrays between its two solves.
  general_.bodies = body_arrays(m_.bodies);
  const BodyArrays& b = general_.bodies;
  RollingContacts* rolling = has_rolling_ && with_rolling ? &rolling_ : nullptr;
  general_.rolling = rolling != nullptr;
  if (params_.solver == GranularSolver::Multilevel) {
    apply_impulses(contacts_, layout_, b, params_.threads);
    apply_general_impulses(general_);
    MatrixFreeParameters p;
    p.tolerance = params_.tolerance;
    p.max_sweeps = params_.max_sweeps;
    p.threads = params_.threads;
    // The steps that solve plainly after a solve gave its levels up (MultilevelParameters::retry_after) build none.
    const bool levels = multilevel_.cooldown == 0;
    if (params_.distributed && params_.distributed->spreads_multilevel() && general_.empty()) {
      report_.solver = params_.distributed->solve_multilevel(contacts_, layout_, b, q_norm_, p, params_.multilevel,
                                                             multilevel_, gaps_.data());
    } else {
      if (levels) build_aggregate_levels(contacts_, gaps_.data(), b, params_.multilevel, multilevel_);
      report_.solver = solve_multilevel(contacts_, layout_, b, q_norm_, p, params_.multilevel, multilevel_, &general_);
    }
    report_.residual_checks = multilevel_.fine.residual_checks;
    report_.cycles = multilevel_.cycles;
    report_.levels = levels ? static_cast<int>(multilevel_.levels.size()) : 0;
    return;
  }
  if (params_.solver == GranularSolver::MatrixFree || params_.solver == GranularSolver::Nncg ||
      params_.solver == GranularSolver::Anderson) {
    JointSweep* joints = joints_.empty() ? nullptr : &joints_;
    // A cold retry needs the free velocities the warm start is applied to (bead contacts only: the capsules'
    // contacts and the joints keep warm starts of their own). Nothing here may depend on this process's own
    // contacts: a partitioned model's processes retry together (one may hold none).
    // (A partitioned model's contacts of other shapes are on some processes only: the test is over all of them.)
    const bool others = params_.distributed ? params_.distributed->any_over_processes(!general_.empty()) : !general_.empty();
    const bool retry = params_.cold_retry && params_.solver != GranularSolver::Nncg && !others && !joints;
    if (retry) free_v_ = m_.bodies.v, free_w_ = m_.bodies.w;
    apply_impulses(contacts_, layout_, b, params_.threads, rolling);
    apply_general_impulses(general_);
    if (joints) {
      joints_.bodies = b;
      apply_joint_impulses(joints_);
    }
    MatrixFreeParameters p;
    p.tolerance = params_.tolerance;
    p.max_sweeps = params_.max_sweeps;
    p.check_every = params_.check_every;
    p.check_first = params_.check_first;
    p.relaxation = params_.relaxation;
    p.symmetric = params_.symmetric;
    p.nncg = params_.solver == GranularSolver::Nncg;
    p.anderson = params_.solver == GranularSolver::Anderson ? params_.anderson_memory : 0;
    p.anderson_every = params_.anderson_every;
    p.anderson_restarts = params_.anderson_restarts;
    p.anderson_stall = params_.anderson_stall;
    p.anderson_warm = params_.anderson_warm;
    p.threads = params_.threads;
    const bool spread = params_.distributed && !p.nncg && (general_.empty() || params_.distributed->spreads_general()) &&
                        !joints && (!rolling || params_.distributed->spreads_rolling());
    auto run = [&] {
      if (spread)
        return params_.distributed->solve(contacts_, layout_, b, q_norm_, p, rolling,
                                          params_.distributed->spreads_general() ? &general_ : nullptr);
      solvers::SolverStats stats = solve_matrix_free(contacts_, layout_, b, q_norm_, p, work_, &general_, joints, rolling);
      report_.residual_checks += work_.residual_checks;
      return stats;
    };
    report_.residual_checks = 0;
    report_.solver = run();
    // A solve over processes fails on every process alike, so all of them retry together.
    if (retry && !report_.solver.converged() && std::isfinite(report_.solver.residual)) {
      std::copy(free_v_.begin(), free_v_.end(), m_.bodies.v.begin());
      std::copy(free_w_.begin(), free_w_.end(), m_.bodies.w.begin());
      for (SweepContact& c : contacts_) c.r.setZero();
      if (rolling)
        for (auto& k : *rolling) k.rho.setZero();
      const solvers::SolverStats warm = report_.solver;
      report_.solver = run();
      report_.solver.iterations += warm.iterations;
      report_.solver.counters.sweeps += warm.counters.sweeps;
      report_.solver.seconds += warm.seconds;
      if (!report_.solver.converged())
        report_.solver.message += " (and " + std::to_string(warm.iterations) + " sweeps from the warm start before)";
      ++report_.cold_retries;
    }
    return;
  }
  const solvers::FrictionContactProblem prob = assemble_problem(contacts_, m_.bodies);
  Vector r(3 * contacts_.size()), u;
  for (std::size_t k = 0; k < contacts_.size(); ++k) r.segment<3>(3 * k) = contacts_[k].r;
  solvers::NsgsParameters p;
  p.tolerance = params_.tolerance;
  p.max_iterations = params_.max_sweeps;
  p.threads = params_.threads;
  p.coloured = params_.threads > 1;
  report_.solver = solvers::nsgs(prob, r, u, p);
  for (std::size_t k = 0; k < contacts_.size(); ++k) contacts_[k].r = r.segment<3>(3 * k);
  apply_impulses(contacts_, layout_, b, params_.threads);
}

namespace {

// Adds a further solve of the same problem to a step's statistics: sweeps and time summed, its residual and its
// status (the last solve is the one that stands).
void add_solve(solvers::SolverStats& into, const solvers::SolverStats& more) {
  into.iterations += more.iterations;
  into.counters.sweeps += more.counters.sweeps;
  into.seconds += more.seconds;
  into.residual = more.residual;
  into.status = more.status;
  into.message = more.message;
}

}  // namespace

// Generalized-α's position correction (header): the contacts take their position targets and warm starts, the
// bodies the smooth prediction (q̃_{k+1} − q_k)/h = v_k + ½h g (ω_k for rotations); the solve turns it into
// (q_{k+1} − q_k)/h, with which the positions move. Then the velocity solve's impulses and v_{k+1} come back.
void GranularStepper::correct_positions() {
  RigidBodies& b = m_.bodies;
  const double h = params_.h;
  const int T = params_.threads;
  const int nc = static_cast<int>(contacts_.size());
  solvers::SolverStats velocity = report_.solver;
  const int velocity_checks = report_.residual_checks, velocity_cycles = report_.cycles;
  v_end_ = b.v, w_end_ = b.w;
  velocity_r_.resize(nc);
  // (The velocity problem's targets are kept where the position targets were: the FE beams' coupling may solve
  // it again, swap_problems.)
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int k = 0; k < nc; ++k) {
    SweepContact& c = contacts_[k];
    velocity_r_[k] = c.r;
    std::swap(c.extra, position_extra_[k]);
    const Eigen::Vector3d R = position_cache_.find(keys_[k]);
    Eigen::Vector3d r(R.dot(c.n), R.dot(c.t1), R.dot(c.t2));
    solvers::project_on_cone(r.data(), 3, c.mu);
    c.r = r;
  }
  position_free_velocities();
  const int ng = static_cast<int>(general_.contacts.size());
  general_.velocity_r.resize(ng);
  for (int k = 0; k < ng; ++k) {
    GeneralContact& c = general_.contacts[k];
    general_.velocity_r[k] = c.r;
    std::swap(c.extra, general_.position_extra[k]);
    const Eigen::Vector3d R = position_cache_.find(general_.keys[k]);
    Eigen::Vector3d r(R.dot(c.n), R.dot(c.t1), R.dot(c.t2));
    solvers::project_on_cone(r.data(), 3, c.local.mu);
    c.r = r;
  }
  if (!beams_.empty()) {
    std::swap(general_.flexible, beams_.position_set);
    set_beam_position_problem(beams_, beams_.position_set);
    beam_position_scale_ = std::sqrt(flexible_squared_velocity(general_.flexible, general_.bodies));
  }
  const double general_qq = general_squared_velocity(general_);
  double qq = general_qq + squared_contact_velocities(contacts_, general_.bodies, T, work_);
  if (!joints_.empty()) {
    joint_velocity_impulse_ = joints_.impulse;
    joints_.impulse = joint_position_impulse_;
    joints_.target = joint_position_target_;
    joints_.bodies = general_.bodies;
    qq += joint_squared_velocity(joints_);
  }
  other_q_norm_ = q_norm_;
  q_norm_ = std::sqrt(qq);
  // A partitioned model's ‖q‖ counts each contact once over the processes, as the velocity problem's does.
  if (params_.distributed)
    q_norm_ = params_.distributed->contact_velocity_norm(contacts_, general_.bodies, q_norm_, general_qq);
  // Rolling resistance acts in the velocity problem only: the position problem turns no bead.
  solve(false);
  solve_failed("position correction");
  solvers::SolverStats position = report_.solver;
  if (!beams_.empty()) couple_beam_problems(velocity, position);
  if (!joints_.empty()) {
    joint_position_impulse_ = joints_.impulse;
    joints_.impulse = joint_velocity_impulse_;
    joints_.target = joint_velocity_target_;
  }
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int i = 0; i < b.spheres(); ++i) b.x[i] += h * b.v[i];
  integrate_capsules(b, h);
  world_impulses_.resize(nc);
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int k = 0; k < nc; ++k) {
    SweepContact& c = contacts_[k];
    world_impulses_[k] = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
    c.r = velocity_r_[k];
  }
  general_world_impulses(general_);
  store_impulses(position_cache_);
  if (!beams_.empty()) std::swap(general_.flexible, beams_.position_set);
  for (int k = 0; k < ng; ++k) general_.contacts[k].r = general_.velocity_r[k];
  b.v.swap(v_end_), b.w.swap(w_end_);
  // The beams move with the position problem's velocity once both problems are solved.
  if (!beams_.empty()) finish_beams_generalized_alpha(beams_, m_);
  // One report for the two solves: sweeps and time summed, the larger residual, the first failure.
  report_.position_sweeps = position.iterations;
  report_.residual_checks += velocity_checks;
  report_.cycles += velocity_cycles;
  solvers::SolverStats both = velocity;
  both.iterations += position.iterations;
  both.counters.sweeps += position.counters.sweeps;
  both.seconds += position.seconds;
  both.residual = std::max(velocity.residual, position.residual);
  if (velocity.converged() && !position.converged()) {
    both.status = position.status;
    both.message = "position correction: " + position.message;
  }
  report_.solver = both;
}

// The position problem's free velocities (q̃_{k+1} − q_k)/h = v_k + ½h g of the bodies (ω_k for rotations).
void GranularStepper::position_free_velocities() {
  RigidBodies& b = m_.bodies;
  const Eigen::Vector3d half_step = 0.5 * params_.h * m_.gravity;
  const int T = params_.threads;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int i = 0; i < b.count(); ++i) {
    b.v[i] = b.inv_mass[i] > 0.0 ? Eigen::Vector3d(v_start_[i] + half_step) : v_start_[i];
    b.w[i] = w_start_[i];
  }
  general_.bodies = body_arrays(b);
}

// From one of generalized-α's two problems to the other (correct_positions has set up the position problem):
// the bodies' velocities, the contacts' impulses and targets, the FE beams' contact sets, the joints and ‖q‖.
void GranularStepper::swap_problems() {
  RigidBodies& b = m_.bodies;
  const int T = params_.threads;
  b.v.swap(v_end_), b.w.swap(w_end_);
  const int nc = static_cast<int>(contacts_.size());
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int k = 0; k < nc; ++k) {
    std::swap(contacts_[k].r, velocity_r_[k]);
    std::swap(contacts_[k].extra, position_extra_[k]);
  }
  for (std::size_t k = 0; k < general_.contacts.size(); ++k) {
    std::swap(general_.contacts[k].r, general_.velocity_r[k]);
    std::swap(general_.contacts[k].extra, general_.position_extra[k]);
  }
  std::swap(general_.flexible, beams_.position_set);
  in_position_problem_ = !in_position_problem_;
  if (!joints_.empty()) {
    std::swap(joints_.impulse, joint_velocity_impulse_);
    joints_.target = in_position_problem_ ? joint_position_target_ : joint_velocity_target_;
  }
  std::swap(q_norm_, other_q_norm_);
  general_.bodies = body_arrays(b);
  joints_.bodies = general_.bodies;
}

// The FE beams' two problems under generalized-α (BeamContacts.hpp): the velocity problem was solved with the
// previous step's ν, the position problem with the new Λ. Each is solved again, from its free velocities and
// warm-started with its own impulses, while the other's last solution moves its coupling term by more than its
// tolerance on the beams' contacts (against the norm of their free velocities, as the residual is against ‖q‖).
// Without damping the position problem does not see Λ, so one velocity re-solve at most ends it. With damping
// the rounds are a fixed-point iteration on the ν the velocity problem is set with, whose plain rate tends to 1 on
// the beam's stiff modes: Anderson's extrapolation (memory 4, restarted when the mismatch grows) takes the next ν
// from the last rounds. Called in the position problem, which it leaves active.
void GranularStepper::couple_beam_problems(solvers::SolverStats& velocity, solvers::SolverStats& position) {
  constexpr int kMaxRounds = 100, kMemory = 4;
  RigidBodies& b = m_.bodies;
  in_position_problem_ = true;
  const double tol = params_.tolerance;
  double change = 0.0;
  Vector& x = beam_nu_used_;
  Vector& g = beam_nu_found_;
  beam_nu(beams_, x);
  int history = 0;
  double last_mismatch = INFINITY;
  for (int round = 0; round < kMaxRounds; ++round) {
    change = beam_velocity_coupling_change(beams_, beams_.position_set, general_.flexible);
    if (!(change > tol * beam_velocity_scale_)) return;
    beam_generalized_impulses(beams_, general_.flexible, g);
    // Anderson (type II) on x ↦ g(x): x' = g − ΔG γ, γ minimising ‖f − ΔF γ‖, f = g − x.
    const Vector f = g - x;
    const double mismatch = f.norm();
    if (!(mismatch < last_mismatch)) history = 0;
    last_mismatch = mismatch;
    Vector next = g;
    if (history > 0) {
      const int k = std::min(history, kMemory);
      Eigen::MatrixXd dF(f.size(), k), dG(f.size(), k);
      for (int j = 0; j < k; ++j) {
        dF.col(j) = f - anderson_f_[j];
        dG.col(j) = g - anderson_g_[j];
      }
      const Eigen::VectorXd gamma = dF.colPivHouseholderQr().solve(f);
      if (gamma.allFinite()) next = g - dG * gamma;
    }
    // The history, newest first.
    if (static_cast<int>(anderson_f_.size()) < kMemory) anderson_f_.resize(kMemory), anderson_g_.resize(kMemory);
    for (int j = std::min(history, kMemory - 1); j > 0; --j)
      anderson_f_[j] = anderson_f_[j - 1], anderson_g_[j] = anderson_g_[j - 1];
    anderson_f_[0] = f, anderson_g_[0] = g;
    ++history;
    x = next;
    set_beam_nu(beams_, x);
    swap_problems();
    b.v = v_free_, b.w = w_free_;
    general_.bodies = body_arrays(b);
    set_beam_velocity_problem(beams_, m_, nullptr);
    solve();
    add_solve(velocity, report_.solver);
    ++report_.beam_resolves;
    solve_failed("velocity problem, solved again for the FE beams' coupling");
    const double position_change = beam_position_coupling_change(beams_, general_.flexible, beams_.position_set);
    swap_problems();
    if (!(position_change > tol * beam_position_scale_)) {
      history = 0;  // the position problem stands: the next ν is its own, not an extrapolation
      continue;
    }
    position_free_velocities();
    set_beam_position_problem(beams_, beams_.position_set);
    solve(false);
    add_solve(position, report_.solver);
    solve_failed("position correction, solved again for the FE beams' coupling");
  }
  char what[200];
  std::snprintf(what, sizeof what,
                "the FE beams' velocity and position problems still disagree after %d rounds (the coupling moves "
                "their contact velocities by %.3g m/s, the tolerance allows %.3g m/s)",
                kMaxRounds, change, tol * beam_velocity_scale_);
  report_.solver.status = solvers::SolverStatus::MaxIterations;
  report_.solver.message = what;
  position.status = report_.solver.status;
  position.message = what;
  solve_failed("FE beams");
}

void GranularStepper::beam_accelerations(std::vector<double>& a, std::vector<double>& vdot) const {
  a.clear(), vdot.clear();
  for (const BeamContacts::Beam& beam : beams_.beams) {
    a.insert(a.end(), beam.a.data(), beam.a.data() + beam.a.size());
    vdot.insert(vdot.end(), beam.vdot.data(), beam.vdot.data() + beam.vdot.size());
  }
}

void GranularStepper::restore_beam_accelerations(const std::vector<double>& a, const std::vector<double>& vdot) {
  std::size_t total = 0;
  for (const BeamContacts::Beam& beam : beams_.beams) total += static_cast<std::size_t>(m_.lti[beam.lti].dofs());
  if (a.size() != total || vdot.size() != total)
    throw std::invalid_argument("granular: " + std::to_string(a.size()) + " and " + std::to_string(vdot.size()) +
                                " beam accelerations given, but the beams have " + std::to_string(total) + " unknowns");
  std::size_t at = 0;
  for (BeamContacts::Beam& beam : beams_.beams) {
    const Index n = m_.lti[beam.lti].dofs();
    beam.a = Eigen::Map<const Vector>(a.data() + at, n);
    beam.vdot = Eigen::Map<const Vector>(vdot.data() + at, n);
    at += static_cast<std::size_t>(n);
  }
}

// Into `cache`: the bead contacts' world_impulses_, the general contacts' and, with FE beams, the current beam
// contact set's (general_.flexible: the velocity or the position problem's).
void GranularStepper::store_impulses(contact::ContactCache& cache) {
  if (beams_.empty()) {
    cache.store(keys_.data(), world_impulses_.data(), keys_.size(), general_.keys.data(), general_.world_impulses.data(),
                general_.keys.size());
    return;
  }
  beam_world_impulses(beams_, general_.flexible);
  other_keys_.assign(general_.keys.begin(), general_.keys.end());
  other_keys_.insert(other_keys_.end(), beams_.keys.begin(), beams_.keys.end());
  other_impulses_.assign(general_.world_impulses.begin(), general_.world_impulses.end());
  other_impulses_.insert(other_impulses_.end(), beams_.world_impulses.begin(), beams_.world_impulses.end());
  cache.store(keys_.data(), world_impulses_.data(), keys_.size(), other_keys_.data(), other_impulses_.data(),
              other_keys_.size());
}

void GranularStepper::integrate() {
  RigidBodies& b = m_.bodies;
  const double h = params_.h;
  const int T = params_.threads;
  if (!generalized_alpha()) {
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
    for (int i = 0; i < b.spheres(); ++i) b.x[i] += h * b.v[i];
    integrate_capsules(b, h);
    integrate_beam_positions(beams_, m_);
  }
  const int nc = static_cast<int>(contacts_.size());
  world_impulses_.resize(nc);
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int k = 0; k < nc; ++k) {
    const SweepContact& c = contacts_[k];
    world_impulses_[k] = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
  }
  // One cache for the bead contacts and the contacts touching a capsule or met by a drum or moving mesh.
  general_world_impulses(general_);
  store_impulses(cache_);
  if (has_rolling_) {
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
    for (int k = 0; k < nc; ++k)
      world_impulses_[k] = rolling_[k].rho[0] * contacts_[k].t1 + rolling_[k].rho[1] * contacts_[k].t2;
    general_world_rolling(general_);
    rolling_cache_.store(keys_.data(), world_impulses_.data(), keys_.size(), general_.keys.data(),
                         general_.world_impulses.data(), general_.keys.size());
  }
}

bool GranularStepper::solve_failed(const char* which) {
  const std::string bad = non_finite_after_solve(m_, contacts_, general_);
  if (bad.empty() && report_.solver.converged()) return false;
  // A solve over processes ends converged or not on every process alike, so all of them take the fastest body
  // over the processes together (collective) and say the same.
  const std::string fastest = report_.solver.converged()
                                  ? std::string()
                                  : fastest_body(m_, params_.distributed) + "; " +
                                        residual_report(m_, contacts_, general_.bodies, params_.distributed);
  char when[96];
  std::snprintf(when, sizeof when, "granular step %ld (t = %.9g s)", m_.step + 1, m_.time + params_.h);
  const std::string message = std::string(when) + (which ? std::string(", ") + which : std::string()) + ": " +
                              (!bad.empty() ? "non-finite value: " + bad : report_.solver.message + "; " + fastest);
  if (params_.on_failure == FailurePolicy::Keep) {
    if (!bad.empty()) report_.solver.status = solvers::SolverStatus::Diverged;
    report_.solver.message = message;
    return true;
  }
  // Positions, caches, the clock and the step count are written only after the solves: the velocities are all
  // the step has changed in the model (the Morton re-sort at its start only reorders it).
  m_.bodies.v.swap(v_start_), m_.bodies.w.swap(w_start_);
  restore_beam_velocities(beams_, m_);
  if (!joints_.empty()) joints_.impulse = joint_start_impulse_;
  throw StepFailure(message);
}

const GranularStepReport& GranularStepper::step() {
  RigidBodies& b = m_.bodies;
  const int T = params_.threads;
  // The stages as they happen, into the report and, when profiling, into the profile's trace.
  StageTimer stages(report_.phase_seconds, report_.phase_cpu_seconds);
  Clock::time_point t0 = stages.started();
  auto stamp = [&](Phase p, Clock::time_point start) {
    const Clock::time_point end = stages.stamp(p);
    if (profile_) profile_->record(p, start, end, m_.step + 1);
    return end;
  };
  report_.beam_resolves = 0;
  report_.cold_retries = 0;
  if (params_.resort_every > 0 && m_.step % params_.resort_every == 0) resort();
  double vmax = 0.0;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static) reduction(max : vmax)
  for (int i = 0; i < b.spheres(); ++i) vmax = std::max(vmax, b.v[i].norm());
  vmax = std::max(vmax, max_capsule_point_speed(b));
  const double h = params_.h;
  double margin = h * (2.0 * vmax + h * m_.gravity.norm()) + 1e-9 * max_radius(b);
  if (params_.distributed) margin = params_.distributed->common_margin(margin);
  margin_ = margin;
  detect(margin);
  t0 = stamp(Phase::Broad, t0);
  narrow();
  t0 = stamp(Phase::Narrow, t0);
  assemble();
  t0 = stamp(Phase::Assembly, t0);
  solve();
  solve_failed(generalized_alpha() ? "velocity problem" : nullptr);
  if (generalized_alpha()) correct_positions();
  t0 = stamp(Phase::Solve, t0);
  integrate();
  wrap_positions();
  stamp(Phase::Integration, t0);
  m_.time += h;
  ++m_.step;
  // The obstacle bodies where their laws put them now (the next step's contacts see them there), and the loads of
  // this step on them, about those positions (ObstacleBodies.hpp).
  place_obstacle_bodies(m_, m_.time, h);
  static const RollingContacts no_rolling;
  if (params_.distributed) {
    // A partitioned model holds other processes' contacts with obstacles too (ghost beads'): their owners report them.
    counted_slots_.clear();
    for (const int s : obstacle_slots_)
      if (params_.distributed->counts_contact(s)) counted_slots_.push_back(s);
  }
  set_obstacle_loads(m_, contacts_, keys_, has_rolling_ ? rolling_ : no_rolling,
                     params_.distributed ? counted_slots_ : obstacle_slots_, general_, h);
  if (profile_) profile_->count_step();
  report_.time = m_.time;
  report_.step = m_.step;
  report_.contacts = static_cast<int>(contacts_.size());
  report_.active = report_.contacts + static_cast<int>(general_.contacts.size() + general_.flexible.contacts.size());
  report_.colours = layout_.interface_colours();
  return report_;
}

}  // namespace talus::granular
