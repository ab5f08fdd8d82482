#include "engine/distributed/BeadDomain.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "contact/ContactKey.hpp"
#include "engine/granular/SpaceFillingCurve.hpp"
#include "solvers/distributed/FixedOrderSum.hpp"

namespace talus::distributed {

using granular::GranularParameters;
using granular::GranularStepper;

namespace {

// Along the periodic axes of `p`: the centre of `rank`'s region (its box within one period, from the bisection's
// planes); other entries 0.
Eigen::Vector3d periodic_region_centre(const RankRegions& regions, int rank, const contact::Periodicity& p) {
  Eigen::Vector3d lo = p.lower, hi = p.lower + p.length, centre = Eigen::Vector3d::Zero();
  // Down the tree to the rank's leaf, narrowing the box at each plane.
  struct Frame {
    int node;
    Eigen::Vector3d lo, hi;
  };
  std::vector<Frame> stack{{0, lo, hi}};
  while (!stack.empty() && !regions.nodes.empty()) {
    const Frame f = stack.back();
    stack.pop_back();
    const RankRegions::Node& n = regions.nodes[f.node];
    if (n.low < 0) {
      if (n.rank != rank) continue;
      for (int a = 0; a < 3; ++a)
        if (p.axis[a]) centre[a] = 0.5 * (std::max(f.lo[a], p.lower[a]) + std::min(f.hi[a], p.lower[a] + p.length[a]));
      return centre;
    }
    Frame low = f, high = f;
    low.node = n.low, high.node = n.high;
    low.hi[n.axis] = std::min(f.hi[n.axis], n.value);
    high.lo[n.axis] = std::max(f.lo[n.axis], n.value);
    stack.push_back(low), stack.push_back(high);
  }
  return centre;
}

// A bead as it travels: x, v, ω, q (w, x, y, z), mass, 1/m, inertia, 1/I, radius, half length, material, id.
constexpr int kBeadValues = 23;

void pack_bead(const RigidBodies& b, int i, double* o) {
  for (int d = 0; d < 3; ++d) o[d] = b.x[i][d], o[3 + d] = b.v[i][d], o[6 + d] = b.w[i][d];
  o[9] = b.q[i].w(), o[10] = b.q[i].x(), o[11] = b.q[i].y(), o[12] = b.q[i].z();
  o[13] = b.mass[i], o[14] = b.inv_mass[i];
  for (int d = 0; d < 3; ++d) o[15 + d] = b.inertia[i][d];
  o[18] = b.inv_inertia[i], o[19] = b.radius[i], o[20] = b.half_length[i];
  o[21] = b.material[i], o[22] = b.id[i];  // both exact in a double
}

void unpack_bead(RigidBodies& b, int i, const double* o) {
  b.x[i] = Eigen::Vector3d(o[0], o[1], o[2]);
  b.v[i] = Eigen::Vector3d(o[3], o[4], o[5]);
  b.w[i] = Eigen::Vector3d(o[6], o[7], o[8]);
  b.q[i] = Eigen::Quaterniond(o[9], o[10], o[11], o[12]);
  b.mass[i] = o[13], b.inv_mass[i] = o[14];
  b.inertia[i] = Eigen::Vector3d(o[15], o[16], o[17]);
  b.inv_inertia[i] = o[18], b.radius[i] = o[19], b.half_length[i] = o[20];
  b.material[i] = static_cast<std::uint8_t>(o[21]);
  b.id[i] = static_cast<std::uint32_t>(o[22]);
}

// The bead ids a cache key names (contact/ContactKey.hpp's layout): up to two; returns how many.
int key_beads(contact::ContactKey key, std::uint32_t out[2]) {
  constexpr std::uint64_t sphere = static_cast<std::uint64_t>(contact::KeyBody::Sphere);
  if (contact::is_obstacle_key(key)) {
    if (((key >> 30) & 3) != sphere) return 0;
    out[0] = static_cast<std::uint32_t>(key & ((1u << 30) - 1));
    return 1;
  }
  int n = 0;
  if (((key >> 61) & 3) == sphere) out[n++] = static_cast<std::uint32_t>((key >> 33) & (contact::kKeyBodyIds - 1));
  if (((key >> 31) & 3) == sphere) out[n++] = static_cast<std::uint32_t>((key >> 3) & (contact::kKeyBodyIds - 1));
  return n;
}

// Grows the sphere group to n beads, with an eighth to spare when the arrays must grow, rather than by the vectors'
// own doubling: the ghosts a refresh adds to a rank's own beads would otherwise double every bead array (a sixth of
// a rank's memory at 10⁵ beads a rank: 17 MB of 134, measured 2026-12-07).
void grow_spheres(RigidBodies& b, int n) {
  const int others = b.count() - b.spheres();
  if (static_cast<std::size_t>(n + others) > b.x.capacity()) b.reserve(n + others + n / 8);
  b.resize_spheres(n);
}

double max_sphere_radius(const RigidBodies& b, int n) {
  double r = 0.0;
  for (int i = 0; i < n; ++i) r = std::max(r, b.radius[i]);
  return r;
}

// Exchanges variable-length blocks of T with every process: send[offsets[r], +counts[r]) to r.
template <class T>
void all_to_all(MPI_Comm comm, MPI_Datatype type, const std::vector<T>& send, const std::vector<int>& counts,
                std::vector<T>& recv, std::vector<int>& recv_counts) {
  const int size = static_cast<int>(counts.size());
  recv_counts.assign(size, 0);
  MPI_Alltoall(counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm);
  std::vector<int> so(size, 0), ro(size, 0);
  for (int r = 1; r < size; ++r) so[r] = so[r - 1] + counts[r - 1], ro[r] = ro[r - 1] + recv_counts[r - 1];
  recv.resize(static_cast<std::size_t>(ro[size - 1] + recv_counts[size - 1]));
  MPI_Alltoallv(send.data(), counts.data(), so.data(), type, recv.data(), recv_counts.data(), ro.data(), type, comm);
}

// Every process's `send` gathered on root, in rank order (recv: resized on root only; collective).
template <class T>
void gather_to_root(MPI_Comm comm, int root, MPI_Datatype type, const std::vector<T>& send, std::vector<T>& recv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(size), offsets(size, 0);
  const int count = static_cast<int>(send.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm);
  if (rank == root) {
    for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
    recv.resize(static_cast<std::size_t>(offsets[size - 1] + counts[size - 1]));
  }
  MPI_Gatherv(send.data(), count, type, recv.data(), counts.data(), offsets.data(), type, root, comm);
}

// The beads of lists[r] packed for process r, one list after the other (counts[r]: values for r).
void pack_for_ranks(const RigidBodies& b, const std::vector<std::vector<std::int32_t>>& lists,
                    std::vector<double>& send, std::vector<int>& counts) {
  send.clear();
  counts.assign(lists.size(), 0);
  for (std::size_t r = 0; r < lists.size(); ++r) {
    counts[r] = kBeadValues * static_cast<int>(lists[r].size());
    for (const std::int32_t i : lists[r]) {
      send.resize(send.size() + kBeadValues);
      pack_bead(b, i, &send[send.size() - kBeadValues]);
    }
  }
}

}  // namespace

std::string BeadDomain::unsupported(const Model& m, const GranularParameters& p) {
  const RigidBodies& b = m.bodies;
  if (b.capsules() > 0 || b.general() > 0) return "capsules or other non-spherical bodies";
  if (!m.interactions.empty()) return "joints or user interactions";
  if (!m.lti.empty()) return "FE beams";
  // Drums and moving meshes (carried meshes need capsules, refused above) put contacts of other shapes on the beads
  // near them, which the owner of each bead solves (InterfaceNsgs.hpp) with the plain or Anderson sweep only, as the
  // one-process model does.
  bool others = !m.drums.empty();
  for (int k = 0; k < static_cast<int>(m.meshes.size()); ++k) others = others || !m.mesh_fixed(k);
  const bool sweeps = p.solver == granular::GranularSolver::MatrixFree || p.solver == granular::GranularSolver::Anderson;
  if (others && !sweeps)
    return "the " + granular::granular_solver_name(p.solver) + " solver with a drum or a moving mesh (matrix_free and "
           "anderson only)";
  if (!sweeps && p.solver != granular::GranularSolver::Multilevel)
    return "the " + granular::granular_solver_name(p.solver) + " solver (matrix_free, anderson and multilevel only)";
  return {};
}

GranularParameters BeadDomain::stepper_parameters(GranularParameters p) const {
  if (const std::string why = unsupported(model_, p); !why.empty())
    throw std::invalid_argument("partitioned model: " + why + " cannot be partitioned yet (docs/distributed.md)");
  p.distributed = &solve_;
  p.resort_every = 0;  // the domain sorts its own beads when they migrate
  return p;
}

BeadDomain::BeadDomain(Model& model, InterfaceNsgs& solve, int rebalance_every, MPI_Comm comm, bool shares)
    : model_(model), solve_(solve), comm_(comm), rebalance_every_(std::max(1, rebalance_every)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  RigidBodies& b = model_.bodies;
  if (b.capsules() > 0 || b.general() > 0)
    throw std::invalid_argument("partitioned model: capsules or other non-spherical bodies are not partitioned");
  if (shares) {
    // Each process holds a share: the first rebalance (equal weights, planes from reductions) cuts the regions
    // and moves every bead to its owner.
    owned_ = b.spheres();
    rebalance(nullptr);
    times_.migrated = 0;  // the start-up's moves are not the flow's
    steps_ = 0;
    return;
  }
  // Every process holds the same beads: the same regions without a message; keep this process's.
  const int n = b.spheres();
  beads_at_rebalance_ = n;
  for (int i = 0; i < n; ++i) model_.periodic.wrap(b.x[i]);  // the regions cut one period
  std::vector<double> w(n, 1.0);
  WholeReductions whole;
  regions_ = bisect(b.x.data(), w.data(), n, size_, whole);
  region_centre_ = periodic_region_centre(regions_, rank_, model_.periodic);
  std::vector<char> leave(b.count(), 0);
  for (int i = 0; i < n; ++i) leave[i] = regions_.owner(b.x[i]) != rank_;
  b.remove(leave);
  // Give back the room of the others' beads: the point of partitioning is that no process holds them all.
  b.x.shrink_to_fit(), b.v.shrink_to_fit(), b.w.shrink_to_fit(), b.q.shrink_to_fit(), b.mass.shrink_to_fit();
  b.inv_mass.shrink_to_fit(), b.inertia.shrink_to_fit(), b.inv_inertia.shrink_to_fit(), b.radius.shrink_to_fit();
  b.half_length.shrink_to_fit(), b.material.shrink_to_fit(), b.id.shrink_to_fit();
  owned_ = b.spheres();
  morton_sort();
  ++times_.rebalances;
  steps_ = 0;
}

long BeadDomain::total_beads() {
  long mine = owned_, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, comm_);
  return all;
}

void BeadDomain::morton_sort() {
  RigidBodies& b = model_.bodies;
  // Ties in bead id order: the beads' order, and so the run, depends on which beads a process holds, not on the
  // order they arrived in (a scene built in shares and one built whole step alike, bit for bit).
  granular::morton_order(b.x.data(), owned_, 2.0 * std::max(max_sphere_radius(b, owned_), 1e-12), order_, sort_scratch_,
                         b.id.data());
  b.permute_spheres(order_, permute_scratch_);
}

void BeadDomain::prepare_step(GranularStepper& stepper) {
  if (stepper.parameters().distributed != &solve_ || stepper.parameters().resort_every != 0)
    throw std::invalid_argument("partitioned model: the stepper must be built with the domain's stepper_parameters()");
  // Scheduled, or filling: the counts are the same on every process, so all rebalance together.
  const bool filling = added_since_rebalance_ >= std::max(kFillRebalance, beads_at_rebalance_ / 4);
  if (steps_ > 0 && (steps_ % rebalance_every_ == 0 || filling)) rebalance(&stepper);
  refresh_ghosts(stepper);
  layout_changed_ = false;  // the next step's contacts index the beads as they are now
  ++steps_;
}

void BeadDomain::rebalance(GranularStepper* stepper) {
  const double t0 = MPI_Wtime();
  RigidBodies& b = model_.bodies;
  b.resize_spheres(owned_);  // drop the ghosts: only own beads move
  // Weights: 1 + the last step's contacts per own bead (the solve's work follows the contacts). The planes come
  // from reductions over the processes (RecursiveBisection.hpp): no centre is sent. The step's contacts index its
  // own beads, then its ghosts; after beads were added or removed those own beads are found by id (a ghost's index
  // may now be a new bead's).
  std::vector<double> weight(owned_, 1.0);
  if (stepper) {
    const int stepped = layout_changed_ ? static_cast<int>(stepped_ids_.size()) : owned_;
    std::vector<int> now;  // a stepped own bead's index now (−1: removed); only after beads were added or removed
    if (layout_changed_) {
      std::unordered_map<std::uint32_t, int> at;
      for (int i = 0; i < owned_; ++i) at.emplace(b.id[i], i);
      now.assign(stepped, -1);
      for (int j = 0; j < stepped; ++j)
        if (const auto it = at.find(stepped_ids_[j]); it != at.end()) now[j] = it->second;
    }
    auto own = [&](int j) { return j < 0 || j >= stepped ? -1 : layout_changed_ ? now[j] : j; };
    for (const matrixfree::SweepContact& c : stepper->contacts())
      for (const int j : {own(c.a), own(c.b)})
        if (j >= 0) weight[j] += 1.0;
  }
  times_.balance_weight = 0.0;
  for (const double w : weight) times_.balance_weight += w;
  for (int i = 0; i < owned_; ++i) model_.periodic.wrap(b.x[i]);  // the regions cut one period
  regions_ = bisect(b.x.data(), weight.data(), owned_, size_, *this);
  region_centre_ = periodic_region_centre(regions_, rank_, model_.periodic);

  // The beads that leave, by destination, with the cache entries that name them (an entry naming beads bound for
  // two processes goes to both).
  std::vector<std::vector<std::int32_t>> leaving(size_);
  std::unordered_map<std::uint32_t, int> destination;
  std::vector<char> leave(b.count(), 0);
  for (int i = 0; i < owned_; ++i) {
    const int r = regions_.owner(b.x[i]);
    if (r == rank_) continue;
    leaving[r].push_back(i);
    destination[b.id[i]] = r;
    leave[i] = 1;
  }
  std::vector<int> bead_counts;
  pack_for_ranks(b, leaving, send_, bead_counts);
  times_.migrated += static_cast<std::int64_t>(send_.size() / kBeadValues);
  std::vector<double> incoming;
  std::vector<int> incoming_counts;
  all_to_all(comm_, MPI_DOUBLE, send_, bead_counts, incoming, incoming_counts);
  times_.bytes_sent += static_cast<std::int64_t>(send_.size() * sizeof(double));
  // The warm starts that name a leaving bead go with it: the contact impulses and the rolling impulses.
  migrate_cache_entries(stepper ? &stepper->contact_cache() : nullptr, destination);
  migrate_cache_entries(stepper ? &stepper->rolling_cache() : nullptr, destination);
  // Generalized-α's position problem keeps its own warm start (GranularStepper::position_cache). The scheme is
  // every process's, so all of them take part in this exchange or none.
  if (stepper && stepper->parameters().scheme == granular::GranularScheme::GeneralizedAlpha)
    migrate_cache_entries(&stepper->position_cache(), destination);

  b.remove(leave);
  const int kept = b.spheres(), arrived = static_cast<int>(incoming.size() / kBeadValues);
  grow_spheres(b, kept + arrived);
  for (int k = 0; k < arrived; ++k) unpack_bead(b, kept + k, &incoming[static_cast<std::size_t>(kBeadValues) * k]);
  owned_ = kept + arrived;
  morton_sort();
  ++times_.rebalances;
  long own = owned_;
  MPI_Allreduce(&own, &beads_at_rebalance_, 1, MPI_LONG, MPI_SUM, comm_);
  added_since_rebalance_ = 0;
  times_.rebalance += MPI_Wtime() - t0;
}

// Cache entries bound for other processes: keys_to[r] and impulses_to[r] (3 values an entry) go to r; what
// arrives, from every process in rank order, is left in keys and impulses (3 values an entry). Collective.
void BeadDomain::exchange_entries(const std::vector<std::vector<std::uint64_t>>& keys_to,
                                  const std::vector<std::vector<double>>& impulses_to, std::vector<std::uint64_t>& keys,
                                  std::vector<double>& impulses) {
  std::vector<std::uint64_t> key_send;
  std::vector<double> imp_send;
  std::vector<int> key_counts(size_), imp_counts(size_), rc;
  for (int r = 0; r < size_; ++r) {
    key_counts[r] = static_cast<int>(keys_to[r].size());
    imp_counts[r] = static_cast<int>(impulses_to[r].size());
    key_send.insert(key_send.end(), keys_to[r].begin(), keys_to[r].end());
    imp_send.insert(imp_send.end(), impulses_to[r].begin(), impulses_to[r].end());
  }
  all_to_all(comm_, MPI_UINT64_T, key_send, key_counts, keys, rc);
  all_to_all(comm_, MPI_DOUBLE, imp_send, imp_counts, impulses, rc);
  times_.bytes_sent += static_cast<std::int64_t>(key_send.size() * 8 + imp_send.size() * sizeof(double));
}

void BeadDomain::migrate_cache_entries(contact::ContactCache* cache,
                                       const std::unordered_map<std::uint32_t, int>& destination) {
  // The entries naming beads that leave, by destination (an entry naming beads bound for two processes goes to
  // both). Collective: every process takes part, with or without entries to send.
  std::vector<std::vector<std::uint64_t>> keys_to(size_);
  std::vector<std::vector<double>> impulses_to(size_);
  if (cache && !destination.empty())
    for (std::size_t k = 0; k < cache->size(); ++k) {
      std::uint32_t ids[2];
      const int m = key_beads(cache->keys()[k], ids);
      int sent_to = -1;
      for (int j = 0; j < m; ++j) {
        const auto it = destination.find(ids[j]);
        if (it == destination.end() || it->second == sent_to) continue;
        sent_to = it->second;
        keys_to[sent_to].push_back(cache->keys()[k]);
        for (int d = 0; d < 3; ++d) impulses_to[sent_to].push_back(cache->impulses()[k][d]);
      }
    }
  std::vector<std::uint64_t> key_recv;
  std::vector<double> imp_recv;
  exchange_entries(keys_to, impulses_to, key_recv, imp_recv);
  if (!cache || key_recv.empty()) return;
  // The arriving entries join the cache and win over this process's entries of the same key: those were its
  // copies of contacts between ghosts, or of a ghost and an obstacle, which it never solved (their stored
  // impulse is a stale warm start); the sender owned the bead and solved its contacts (a pair contact shared with
  // this process carries the same impulse on both sides).
  std::vector<std::pair<std::uint64_t, Eigen::Vector3d>> merged;
  merged.reserve(cache->size() + key_recv.size());
  for (std::size_t k = 0; k < key_recv.size(); ++k)
    merged.emplace_back(key_recv[k], Eigen::Vector3d(imp_recv[3 * k], imp_recv[3 * k + 1], imp_recv[3 * k + 2]));
  for (std::size_t k = 0; k < cache->size(); ++k) merged.emplace_back(cache->keys()[k], cache->impulses()[k]);
  std::stable_sort(merged.begin(), merged.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
  merged.erase(std::unique(merged.begin(), merged.end(), [](const auto& p, const auto& q) { return p.first == q.first; }),
               merged.end());
  std::vector<contact::ContactKey> keys(merged.size());
  std::vector<Eigen::Vector3d> impulses(merged.size());
  for (std::size_t k = 0; k < merged.size(); ++k) keys[k] = merged[k].first, impulses[k] = merged[k].second;
  cache->store(keys.data(), impulses.data(), keys.size());
}

void BeadDomain::route_warm_start(std::vector<contact::ContactKey>& keys, std::vector<Eigen::Vector3d>& impulses,
                                  std::uint32_t ids_below) {
  if (keys.size() != impulses.size())
    throw std::invalid_argument("partitioned model: " + std::to_string(keys.size()) + " cache keys for " +
                                std::to_string(impulses.size()) + " impulses");
  // A directory of the owners, spread by id: process r keeps the owner of every bead id in [lo(r), lo(r + 1)),
  // learnt from the owners themselves. Each entry goes to the directory of each bead it names, which passes it
  // on to that bead's owner: two exchanges, and no process ever holds a table of all beads.
  const std::uint64_t n_ids = std::max<std::uint32_t>(ids_below, 1);
  auto directory = [&](std::uint32_t id) { return static_cast<int>(static_cast<std::uint64_t>(id) * size_ / n_ids); };
  auto first_id = [&](int r) { return static_cast<std::uint32_t>((static_cast<std::uint64_t>(r) * n_ids + size_ - 1) / size_); };
  const RigidBodies& b = model_.bodies;
  std::vector<std::vector<std::uint64_t>> ids_to(size_);
  long above = -1;  // an id at or above ids_below, which no directory takes (all fail together)
  for (int i = 0; i < owned_; ++i) {
    if (b.id[i] >= ids_below) above = std::max(above, static_cast<long>(b.id[i]));
    else ids_to[directory(b.id[i])].push_back(b.id[i]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &above, 1, MPI_LONG, MPI_MAX, comm_);
  if (above >= 0)
    throw std::invalid_argument("partitioned model: bead id " + std::to_string(above) + " is not below the next id " +
                                std::to_string(ids_below));
  std::vector<std::uint64_t> send, registered;
  std::vector<int> counts(size_), from;
  for (int r = 0; r < size_; ++r) counts[r] = static_cast<int>(ids_to[r].size()), send.insert(send.end(), ids_to[r].begin(), ids_to[r].end());
  all_to_all(comm_, MPI_UINT64_T, send, counts, registered, from);
  const std::uint32_t lo = first_id(rank_), hi = rank_ + 1 < size_ ? first_id(rank_ + 1) : static_cast<std::uint32_t>(n_ids);
  std::vector<int> owner(hi - lo, -1);
  // Ids are unique over all processes (an archive read in shares is checked here, where both copies meet); every
  // process learns of a duplicate, so that all fail together.
  long duplicate = -1;
  for (int r = 0, k = 0; r < size_; ++r)
    for (int j = 0; j < from[r]; ++j, ++k) {
      int& o = owner[registered[k] - lo];
      if (o >= 0) duplicate = std::max(duplicate, static_cast<long>(registered[k]));
      o = r;
    }
  MPI_Allreduce(MPI_IN_PLACE, &duplicate, 1, MPI_LONG, MPI_MAX, comm_);
  if (duplicate >= 0)
    throw std::runtime_error("partitioned model: bead id " + std::to_string(duplicate) +
                             " is held by two processes (expected each bead once)");
  // Each entry to the directories of the beads it names (once per directory), then on to the owners.
  std::vector<std::vector<std::uint64_t>> keys_to(size_);
  std::vector<std::vector<double>> impulses_to(size_);
  auto send_entry = [&](int r, std::uint64_t key, const double* impulse) {
    keys_to[r].push_back(key);
    impulses_to[r].insert(impulses_to[r].end(), impulse, impulse + 3);
  };
  for (std::size_t k = 0; k < keys.size(); ++k) {
    std::uint32_t ids[2];
    int m = key_beads(keys[k], ids);
    if (m == 2 && ids[1] >= ids_below) m = 1;  // an id no bead has (a corrupt archive's key): no directory
    if (m >= 1 && ids[0] >= ids_below) ids[0] = ids[m - 1], --m;
    for (int j = 0; j < m; ++j)
      if (j == 0 || directory(ids[j]) != directory(ids[0])) send_entry(directory(ids[j]), keys[k], impulses[k].data());
  }
  std::vector<std::uint64_t> at_directory;
  std::vector<double> at_directory_impulses;
  exchange_entries(keys_to, impulses_to, at_directory, at_directory_impulses);
  for (auto& v : keys_to) v.clear();
  for (auto& v : impulses_to) v.clear();
  for (std::size_t k = 0; k < at_directory.size(); ++k) {
    std::uint32_t ids[2];
    const int m = key_beads(at_directory[k], ids);
    int sent_to = -1;
    for (int j = 0; j < m; ++j) {
      if (ids[j] < lo || ids[j] >= hi) continue;  // the other bead's directory passes it on to its owner
      const int o = owner[ids[j] - lo];
      if (o < 0 || o == sent_to) continue;  // a bead no longer in the model: its contacts' warm start is dropped
      sent_to = o;
      send_entry(o, at_directory[k], &at_directory_impulses[3 * k]);
    }
  }
  std::vector<std::uint64_t> arrived;
  std::vector<double> arrived_impulses;
  exchange_entries(keys_to, impulses_to, arrived, arrived_impulses);
  // A pair contact whose beads have two directories reaches a process holding both beads twice, the same entry.
  std::vector<std::pair<std::uint64_t, std::size_t>> order(arrived.size());
  for (std::size_t k = 0; k < arrived.size(); ++k) order[k] = {arrived[k], k};
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end(), [](const auto& p, const auto& q) { return p.first == q.first; }),
              order.end());
  keys.resize(order.size()), impulses.resize(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    keys[k] = order[k].first;
    const double* r = &arrived_impulses[3 * order[k].second];
    impulses[k] = Eigen::Vector3d(r[0], r[1], r[2]);
  }
}

void BeadDomain::refresh_ghosts(const GranularStepper& stepper) {
  const double t0 = MPI_Wtime();
  RigidBodies& b = model_.bodies;
  b.resize_spheres(owned_);
  // The bounding box of every process's centres, and the largest radius and speed over all beads. Along a periodic
  // axis a bead is taken at its image nearest to the centre of its process's region: a bead that crossed the seam
  // since the last rebalance then stretches the box by its step, not across the whole period.
  const contact::Periodicity& period = model_.periodic;
  double mine[8] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY, 0.0, 0.0};
  for (int i = 0; i < owned_; ++i) {
    Eigen::Vector3d y = b.x[i];
    for (int a = 0; a < 3; ++a)
      if (period.axis[a]) y[a] = region_centre_[a] + period.minimum_image(y - region_centre_)[a];
    for (int d = 0; d < 3; ++d) mine[d] = std::min(mine[d], y[d]), mine[3 + d] = std::max(mine[3 + d], y[d]);
    mine[6] = std::max(mine[6], b.radius[i]);
    mine[7] = std::max(mine[7], b.v[i].norm());
  }
  boxes_.resize(8 * static_cast<std::size_t>(size_));
  MPI_Allgather(mine, 8, MPI_DOUBLE, boxes_.data(), 8, MPI_DOUBLE, comm_);
  double rmax = 0.0, vmax = 0.0;
  for (int r = 0; r < size_; ++r) rmax = std::max(rmax, boxes_[8 * r + 6]), vmax = std::max(vmax, boxes_[8 * r + 7]);
  // The stepper's activation margin (GranularStepper::step) over all beads, with room for its rounding.
  const double h = stepper.parameters().h;
  const double margin = h * (2.0 * vmax + h * model_.gravity.norm()) + 1e-9 * rmax;
  const double slack = 1e-9 * (rmax + margin) + 1e-15;
  send_lists_.resize(size_);
  for (int r = 0; r < size_; ++r) send_lists_[r].clear();
  for (int i = 0; i < owned_; ++i) {
    const double reach = b.radius[i] + rmax + margin + slack;
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      const double* box = &boxes_[8 * r];
      double d2 = 0.0;
      for (int d = 0; d < 3; ++d) {
        auto gap = [&](double x) { return std::max({box[d] - x, x - box[3 + d], 0.0}); };
        double e = gap(b.x[i][d]);
        if (period.axis[d])  // the box may reach past either end of the period: the nearest image counts
          e = std::min({e, gap(b.x[i][d] - period.length[d]), gap(b.x[i][d] + period.length[d])});
        d2 += e * e;
      }
      if (d2 <= reach * reach) send_lists_[r].push_back(i);
    }
  }
  pack_for_ranks(b, send_lists_, send_, send_counts_);
  all_to_all(comm_, MPI_DOUBLE, send_, send_counts_, recv_, recv_counts_);
  times_.bytes_sent += static_cast<std::int64_t>(send_.size() * sizeof(double));
  const int arrived = static_cast<int>(recv_.size() / kBeadValues);
  grow_spheres(b, owned_ + arrived);
  BeadOwnership& own = solve_.ownership();
  own.owned = owned_;
  own.ghost_rank.resize(arrived);
  int k = 0;
  for (int r = 0; r < size_; ++r)
    for (int j = 0; j < recv_counts_[r] / kBeadValues; ++j, ++k) {
      unpack_bead(b, owned_ + k, &recv_[static_cast<std::size_t>(kBeadValues) * k]);
      own.ghost_rank[k] = r;
    }
  own.id = b.id.data();
  times_.ghost_beads += arrived;
  times_.ghosts += MPI_Wtime() - t0;
}

GatheredBeads BeadDomain::gather(int root) {
  const RigidBodies& b = model_.bodies;
  std::vector<double> mine(10 * static_cast<std::size_t>(owned_));
  for (int i = 0; i < owned_; ++i) {
    double* o = &mine[10 * static_cast<std::size_t>(i)];
    o[0] = b.id[i];
    for (int d = 0; d < 3; ++d) o[1 + d] = b.x[i][d], o[4 + d] = b.v[i][d], o[7 + d] = b.w[i][d];
  }
  std::vector<double> all;
  gather_to_root(comm_, root, MPI_DOUBLE, mine, all);
  GatheredBeads g;
  if (rank_ != root) return g;
  const int n = static_cast<int>(all.size() / 10);
  std::vector<std::pair<std::uint32_t, int>> order(n);
  for (int k = 0; k < n; ++k) order[k] = {static_cast<std::uint32_t>(all[10 * k]), k};
  std::sort(order.begin(), order.end());
  for (const auto& [bead, k] : order) {
    const double* o = &all[10 * static_cast<std::size_t>(k)];
    g.id.push_back(bead);
    g.x.emplace_back(o[1], o[2], o[3]);
    g.v.emplace_back(o[4], o[5], o[6]);
    g.w.emplace_back(o[7], o[8], o[9]);
  }
  return g;
}

void BeadDomain::keep_stepped_ids() {
  if (layout_changed_) return;  // kept at the first change since the step
  const RigidBodies& b = model_.bodies;
  stepped_ids_.assign(b.id.begin(), b.id.begin() + owned_);
  layout_changed_ = true;
}

void BeadDomain::remove_own(const std::vector<char>& flags) {
  keep_stepped_ids();
  RigidBodies& b = model_.bodies;
  b.resize_spheres(owned_);
  std::vector<char> f(b.count(), 0);
  for (int i = 0; i < owned_ && i < static_cast<int>(flags.size()); ++i) f[i] = flags[i];
  b.remove(f);
  owned_ = b.spheres();
}

double BeadDomain::max_over_processes(double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return value;
}

void BeadDomain::gather_spheres(std::vector<granular::PlacedSphere>& spheres) {
  std::vector<double> mine, all;
  for (const granular::PlacedSphere& s : spheres) mine.insert(mine.end(), {s.x.x(), s.x.y(), s.x.z(), s.radius});
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size_), offsets(size_, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
  for (int r = 1; r < size_; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  all.resize(static_cast<std::size_t>(offsets[size_ - 1] + counts[size_ - 1]));
  MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, comm_);
  spheres.clear();
  for (std::size_t k = 0; k + 4 <= all.size(); k += 4)
    spheres.push_back({Eigen::Vector3d(all[k], all[k + 1], all[k + 2]), all[k + 3]});
}

std::uint32_t BeadDomain::add_sphere(const Eigen::Vector3d& centre, double radius, double density,
                                     const Eigen::Vector3d& velocity, std::uint8_t material) {
  keep_stepped_ids();
  RigidBodies& b = model_.bodies;
  b.resize_spheres(owned_);  // the ghosts go (prepare_step fetches them again): the new bead joins the own ones
  Eigen::Vector3d x = centre;
  model_.periodic.wrap(x);
  ++added_since_rebalance_;
  if (regions_.owner(x) != rank_) return b.next_id[0]++;  // another process's bead: only its id is taken here
  const std::uint32_t id = b.add_sphere(centre, radius, density, velocity);
  b.material[b.spheres() - 1] = material;
  owned_ = b.spheres();
  return id;
}

void BeadDomain::sum(double* values, int n) { fixed_order_sum(comm_, values, n, values, sum_scratch_); }

void BeadDomain::min(double* values, int n) { MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MIN, comm_); }

void BeadDomain::to_copies(const double* own_values, double* copy_values) {
  std::vector<double> out, in;
  std::vector<int> counts(size_, 0), in_counts;
  for (int r = 0; r < size_; ++r) {
    counts[r] = static_cast<int>(send_lists_.size() > static_cast<std::size_t>(r) ? send_lists_[r].size() : 0);
    if (counts[r] > 0)
      for (const std::int32_t i : send_lists_[r]) out.push_back(own_values[i]);
  }
  all_to_all(comm_, MPI_DOUBLE, out, counts, in, in_counts);
  // The ghosts arrived in rank order, each rank's in its list's order (refresh_ghosts).
  if (static_cast<int>(in.size()) != ghosts())
    throw std::logic_error("BeadDomain::to_copies: " + std::to_string(in.size()) + " values for " +
                           std::to_string(ghosts()) + " ghosts (the ghosts changed since the last refresh)");
  std::copy(in.begin(), in.end(), copy_values + owned_);
}

void BeadDomain::piece_cache_entries(const contact::ContactCache& cache_of, std::vector<contact::ContactKey>& keys,
                                     std::vector<Eigen::Vector3d>& impulses) const {
  const RigidBodies& b = model_.bodies;
  std::vector<std::uint32_t> own_ids(b.id.begin(), b.id.begin() + owned_);
  std::sort(own_ids.begin(), own_ids.end());
  keys.clear(), impulses.clear();
  for (std::size_t k = 0; k < cache_of.size(); ++k) {
    std::uint32_t ids[2];
    const int m = key_beads(cache_of.keys()[k], ids);
    if (m == 0) continue;  // no bead: not in a partitioned model
    const std::uint32_t first = m == 2 ? std::min(ids[0], ids[1]) : ids[0];
    if (!std::binary_search(own_ids.begin(), own_ids.end(), first)) continue;
    keys.push_back(cache_of.keys()[k]);
    impulses.push_back(cache_of.impulses()[k]);
  }
}

void BeadDomain::gather_model(Model& whole, const GranularStepper* contacts_of, std::vector<ContactForce>* forces,
                              const contact::ContactCache* cache_of, contact::ContactCache* cache, int root) {
  const RigidBodies& b = model_.bodies;
  // The beads, whole.
  std::vector<double> mine(static_cast<std::size_t>(kBeadValues) * owned_), beads;
  for (int i = 0; i < owned_; ++i) pack_bead(b, i, &mine[static_cast<std::size_t>(kBeadValues) * i]);
  gather_to_root(comm_, root, MPI_DOUBLE, mine, beads);
  std::vector<std::pair<std::uint32_t, int>> order;  // (id, record), root
  if (rank_ == root) {
    const int n = static_cast<int>(beads.size() / kBeadValues);
    for (int k = 0; k < n; ++k)
      order.emplace_back(static_cast<std::uint32_t>(beads[static_cast<std::size_t>(kBeadValues) * k + 22]), k);
    std::sort(order.begin(), order.end());
    whole = model_;
    whole.bodies.resize_spheres(0);
    whole.bodies.resize_spheres(n);
    for (int i = 0; i < n; ++i)
      unpack_bead(whole.bodies, i, &beads[static_cast<std::size_t>(kBeadValues) * order[i].second]);
  }
  if (contacts_of && forces) {
    // The forces of the contacts counted here: id a (or −1), id b, point, normal, force, gap.
    const std::vector<matrixfree::SweepContact>& c = contacts_of->contacts();
    const double inv_h = 1.0 / contacts_of->parameters().h;
    std::vector<double> f, all;
    for (int i = 0; i < static_cast<int>(c.size()); ++i) {
      if (!solve_.counts_contact(i)) continue;
      const Eigen::Vector3d R = c[i].r[0] * c[i].n + c[i].r[1] * c[i].t1 + c[i].r[2] * c[i].t2;
      const Eigen::Vector3d point = b.x[c[i].b] - c[i].rb * c[i].n, force = R * inv_h;
      const double gap = c[i].a >= 0 ? (b.x[c[i].b] - b.x[c[i].a]).norm() - b.radius[c[i].a] - b.radius[c[i].b]
                                     : std::numeric_limits<double>::quiet_NaN();
      f.insert(f.end(), {c[i].a >= 0 ? static_cast<double>(b.id[c[i].a]) : -1.0, static_cast<double>(b.id[c[i].b]),
                         point.x(), point.y(), point.z(), c[i].n.x(), c[i].n.y(), c[i].n.z(), force.x(), force.y(),
                         force.z(), gap});
    }
    gather_to_root(comm_, root, MPI_DOUBLE, f, all);
    if (rank_ == root) {
      auto index_of = [&](double id) {
        const auto it = std::lower_bound(order.begin(), order.end(), std::make_pair(static_cast<std::uint32_t>(id), -1));
        return static_cast<std::int32_t>(it - order.begin());
      };
      forces->clear();
      for (std::size_t k = 0; k + 12 <= all.size(); k += 12) {
        ContactForce cf;
        cf.a = all[k] < 0 ? -1 : index_of(all[k]);
        cf.b = index_of(all[k + 1]);
        cf.point = Eigen::Vector3d(all[k + 2], all[k + 3], all[k + 4]);
        cf.normal = Eigen::Vector3d(all[k + 5], all[k + 6], all[k + 7]);
        cf.force = Eigen::Vector3d(all[k + 8], all[k + 9], all[k + 10]);
        cf.gap = all[k + 11];
        forces->push_back(cf);
      }
    }
  }
  if (cache_of && cache) gather_cache(*cache_of, *cache, root);
}

void BeadDomain::gather_cache(const contact::ContactCache& cache_of, contact::ContactCache& cache, int root) {
  const RigidBodies& b = model_.bodies;
  // The entries naming an own bead (a pair contact comes from both of its processes, with the same impulse).
  std::vector<std::uint32_t> own_ids(b.id.begin(), b.id.begin() + owned_);
  std::sort(own_ids.begin(), own_ids.end());
  std::vector<std::uint64_t> keys, all_keys;
  std::vector<double> impulses, all_impulses;
  for (std::size_t k = 0; k < cache_of.size(); ++k) {
    std::uint32_t ids[2];
    const int m = key_beads(cache_of.keys()[k], ids);
    bool own = false;
    for (int j = 0; j < m; ++j) own = own || std::binary_search(own_ids.begin(), own_ids.end(), ids[j]);
    if (!own) continue;
    keys.push_back(cache_of.keys()[k]);
    const Eigen::Vector3d& r = cache_of.impulses()[k];
    impulses.insert(impulses.end(), {r.x(), r.y(), r.z()});
  }
  gather_to_root(comm_, root, MPI_UINT64_T, keys, all_keys);
  gather_to_root(comm_, root, MPI_DOUBLE, impulses, all_impulses);
  if (rank_ != root) return;
  std::vector<std::pair<std::uint64_t, std::size_t>> by_key(all_keys.size());
  for (std::size_t k = 0; k < all_keys.size(); ++k) by_key[k] = {all_keys[k], k};
  std::sort(by_key.begin(), by_key.end());
  by_key.erase(std::unique(by_key.begin(), by_key.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
               by_key.end());
  std::vector<contact::ContactKey> ks(by_key.size());
  std::vector<Eigen::Vector3d> rs(by_key.size());
  for (std::size_t k = 0; k < by_key.size(); ++k) {
    ks[k] = by_key[k].first;
    const std::size_t j = by_key[k].second;
    rs[k] = Eigen::Vector3d(all_impulses[3 * j], all_impulses[3 * j + 1], all_impulses[3 * j + 2]);
  }
  cache.store(ks.data(), rs.data(), ks.size());
}

}  // namespace talus::distributed
