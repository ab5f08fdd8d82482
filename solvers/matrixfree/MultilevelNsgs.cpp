#include "solvers/matrixfree/MultilevelNsgs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "solvers/matrixfree/GeneralContactSweep.hpp"
#include "solvers/matrixfree/IsotropicContactSolve.hpp"

namespace talus::matrixfree {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int find_root(std::vector<std::int32_t>& uf, int i) {
  while (uf[i] != i) {
    uf[i] = uf[uf[i]];
    i = uf[i];
  }
  return i;
}

// The smaller root wins, so the aggregates' numbering follows the nodes' order whatever the union order.
void unite(std::vector<std::int32_t>& uf, int a, int b) {
  a = find_root(uf, a), b = find_root(uf, b);
  if (a == b) return;
  if (a < b) std::swap(a, b);
  uf[a] = b;
}

Eigen::Matrix3d skew(const Eigen::Vector3d& l) {
  Eigen::Matrix3d s;
  s << 0.0, -l.z(), l.y(), l.z(), 0.0, -l.x(), -l.y(), l.x(), 0.0;
  return s;
}

// Velocity of the contact point per unit world impulse at it: 1/m − [l]× I⁻¹ [l]×.
Eigen::Matrix3d point_compliance(double inv_mass, const Eigen::Matrix3d& inv_inertia, const Eigen::Vector3d& l) {
  const Eigen::Matrix3d s = skew(l);
  return inv_mass * Eigen::Matrix3d::Identity() - s * inv_inertia * s;
}

// A contact whose beads are farther apart than any touching pair could be crosses a periodic seam: it joins no
// aggregate (an aggregate's beads must sit together in space for its centre and inertia to mean anything).
bool local_pair(const SweepContact& c, const BodyArrays& b) {
  return c.a >= 0 && (b.x[c.b] - b.x[c.a]).norm() <= 1.5 * (c.ra + c.rb);
}

// Only closed contacts bind beads into an aggregate: beads that merely come within the detection margin (a
// bead landing on the pile during the step, beads flying apart) are not one rigid body at the solution, and
// forcing them to move together makes the cycle's fixed point a wrong one.
bool binds(const SweepContact& c, double gap, const BodyArrays& b) {
  return local_pair(c, b) && gap <= 1e-3 * std::min(c.ra, c.rb);
}

std::int64_t cell_key(const Eigen::Vector3d& x, double side) {
  // 21 bits per axis around the origin: enough for 2^20 cells each way; farther cells alias, which only makes
  // two distant nodes share a key — they still need a contact to be joined.
  auto k = [&](double v) { return static_cast<std::int64_t>(std::floor(v / side)) & 0x1FFFFF; };
  return (k(x.x()) << 42) | (k(x.y()) << 21) | k(x.z());
}

void build_level(AggregateLevel& L, int nodes, const std::vector<std::int32_t>& node_of_bead,
                 const std::vector<Eigen::Vector3d>& node_centre, const std::vector<std::int32_t>& candidates,
                 const std::vector<SweepContact>& contacts, const double* gaps, const BodyArrays& beads,
                 double side, MultilevelWorkspace& w) {
  const int n = beads.spheres;
  w.uf.resize(nodes);
  w.cell.resize(nodes);
  for (int i = 0; i < nodes; ++i) w.uf[i] = i, w.cell[i] = cell_key(node_centre[i], side);
  for (std::int32_t k : candidates) {
    const SweepContact& c = contacts[k];
    if (!binds(c, gaps[k], beads)) continue;
    const int na = node_of_bead[c.a], nb = node_of_bead[c.b];
    if (na < 0 || nb < 0 || na == nb || w.cell[na] != w.cell[nb]) continue;
    unite(w.uf, na, nb);
  }
  // Aggregate numbers in node order.
  w.node_of.assign(nodes, -1);
  int count = 0;
  for (int i = 0; i < nodes; ++i) {
    const int r = find_root(w.uf, i);
    if (w.node_of[r] < 0) w.node_of[r] = count++;
    w.node_of[i] = w.node_of[r];
  }
  L.count = count;
  L.bead_aggregate.resize(n);
  for (int i = 0; i < n; ++i) L.bead_aggregate[i] = node_of_bead[i] >= 0 ? w.node_of[node_of_bead[i]] : -1;

  // Mass properties from the beads (parallel-axis sums of the spheres' isotropic inertia).
  std::vector<double> mass(count, 0.0);
  L.centre.assign(count, Eigen::Vector3d::Zero());
  for (int i = 0; i < n; ++i) {
    const int A = L.bead_aggregate[i];
    if (A < 0) continue;
    mass[A] += beads.mass[i];
    L.centre[A] += beads.mass[i] * beads.x[i];
  }
  L.inv_mass.resize(count);
  for (int A = 0; A < count; ++A) L.centre[A] /= mass[A], L.inv_mass[A] = 1.0 / mass[A];
  std::vector<Eigen::Matrix3d> inertia(count, Eigen::Matrix3d::Zero());
  for (int i = 0; i < n; ++i) {
    const int A = L.bead_aggregate[i];
    if (A < 0) continue;
    const Eigen::Vector3d d = beads.x[i] - L.centre[A];
    inertia[A] += (1.0 / beads.inv_inertia[i] + beads.mass[i] * d.squaredNorm()) * Eigen::Matrix3d::Identity() -
                  beads.mass[i] * d * d.transpose();
  }
  L.inv_inertia.resize(count);
  for (int A = 0; A < count; ++A) L.inv_inertia[A] = inertia[A].inverse();
  L.dv.assign(count, Eigen::Vector3d::Zero());
  L.dw.assign(count, Eigen::Vector3d::Zero());
  L.v0.assign(count, Eigen::Vector3d::Zero());
  L.w0.assign(count, Eigen::Vector3d::Zero());

  // Boundary contacts (a subset of the level below's) with their blocks' Gershgorin majorant.
  L.contacts.clear();
  for (std::int32_t k : candidates) {
    const SweepContact& c = contacts[k];
    const int A = c.a >= 0 ? L.bead_aggregate[c.a] : -1, B = L.bead_aggregate[c.b];
    if (A == B) continue;  // internal (or between two fixed bodies)
    AggregateLevel::Contact cc;
    cc.fine = k, cc.A = A, cc.B = B;
    set_coarse_block(L, c, A >= 0 ? Eigen::Vector3d(beads.x[c.a] + c.ra * c.n) : Eigen::Vector3d::Zero(),
                     beads.x[c.b] - c.rb * c.n, cc);
    L.contacts.push_back(cc);
  }

  // Spanning forest of the internal contacts, breadth first from the bead nearest each aggregate's centre.
  w.adjacency_start.assign(n + 1, 0);
  const int nc = static_cast<int>(contacts.size());
  auto internal = [&](int k) {
    const SweepContact& c = contacts[k];
    return binds(c, gaps[k], beads) && L.bead_aggregate[c.a] >= 0 && L.bead_aggregate[c.a] == L.bead_aggregate[c.b];
  };
  for (int k = 0; k < nc; ++k)
    if (internal(k)) ++w.adjacency_start[contacts[k].a + 1], ++w.adjacency_start[contacts[k].b + 1];
  for (int i = 0; i < n; ++i) w.adjacency_start[i + 1] += w.adjacency_start[i];
  w.adjacency.resize(w.adjacency_start[n]);
  w.head.assign(w.adjacency_start.begin(), w.adjacency_start.end() - 1);
  for (int k = 0; k < nc; ++k)
    if (internal(k)) w.adjacency[w.head[contacts[k].a]++] = k, w.adjacency[w.head[contacts[k].b]++] = k;
  std::vector<double> best(count, INFINITY);
  w.head.assign(count, -1);  // reused: each aggregate's root bead
  for (int i = 0; i < n; ++i) {
    const int A = L.bead_aggregate[i];
    if (A < 0) continue;
    const double d = (beads.x[i] - L.centre[A]).squaredNorm();
    if (d < best[A]) best[A] = d, w.head[A] = i;
  }
  L.order.clear();
  L.tree_parent.assign(n, -1);
  L.tree_contact.assign(n, -1);
  w.depth.assign(n, -1);
  for (int A = 0; A < count; ++A) {
    std::size_t q = L.order.size();
    L.order.push_back(w.head[A]);
    w.depth[w.head[A]] = 0;
    for (; q < L.order.size(); ++q) {
      const int i = L.order[q];
      for (int e = w.adjacency_start[i]; e < w.adjacency_start[i + 1]; ++e) {
        const int k = w.adjacency[e];
        const int j = contacts[k].a == i ? contacts[k].b : contacts[k].a;
        if (w.depth[j] >= 0) continue;
        w.depth[j] = w.depth[i] + 1;
        L.tree_parent[j] = i, L.tree_contact[j] = k;
        L.order.push_back(j);
      }
    }
  }
  // Every internal contact toward the root, per bead (the tree contact among them), for the spread routing.
  L.route_start.assign(n + 1, 0);
  auto toward_root = [&](int i, int k) {
    const int j = contacts[k].a == i ? contacts[k].b : contacts[k].a;
    return w.depth[j] < w.depth[i];
  };
  for (int i = 0; i < n; ++i) {
    int m = 0;
    for (int e = w.adjacency_start[i]; e < w.adjacency_start[i + 1]; ++e) m += toward_root(i, w.adjacency[e]);
    L.route_start[i + 1] = L.route_start[i] + m;
  }
  L.route_contacts.resize(L.route_start[n]);
  for (int i = 0, o = 0; i < n; ++i)
    for (int e = w.adjacency_start[i]; e < w.adjacency_start[i + 1]; ++e)
      if (toward_root(i, w.adjacency[e])) L.route_contacts[o++] = w.adjacency[e];
}

// One visit of a level (see the header): the aggregates' mean rigid velocities (momentum averages),
// `sweeps` coarse sweeps from them, then the correction carried back to the beads.
void visit_level(AggregateLevel& L, int sweeps, double weight, Routing routing, std::vector<SweepContact>& contacts,
                 const BodyArrays& beads, MultilevelWorkspace& w) {
  if (L.contacts.empty()) return;
  mean_velocities(L, beads);
  // The coarse reactions live in the fine contacts' r during the sweeps; r0 keeps the start.
  for (AggregateLevel::Contact& cc : L.contacts) cc.r0 = contacts[cc.fine].r;
  coarse_sweeps(L, contacts, sweeps);
  // Back to the beads: the boundary reaction changes (weighted), then the internal impulses that give each
  // bead its aggregate's new rigid velocity, routed leaves first through the spanning forest.
  start_deficits(&L, L, 0, weight, beads, w);
  for (AggregateLevel::Contact& cc : L.contacts) {
    SweepContact& c = contacts[cc.fine];
    const Eigen::Vector3d d = weight * (c.r - cc.r0);  // r0 and c.r lie in the cone: so does r0 + d
    c.r = cc.r0;
    add_boundary_change(cc.fine, d, contacts, w);
  }
  route_and_apply(&L, routing, contacts, beads, w);
}

}  // namespace

void set_coarse_block(const AggregateLevel& L, const SweepContact& c, const Eigen::Vector3d& pa,
                      const Eigen::Vector3d& pb, AggregateLevel::Contact& cc) {
  Eigen::Matrix3d K = Eigen::Matrix3d::Zero();
  if (cc.A >= 0) {
    cc.la = pa - L.centre[cc.A];
    K += point_compliance(L.inv_mass[cc.A], L.inv_inertia[cc.A], cc.la);
  }
  if (cc.B >= 0) {
    cc.lb = pb - L.centre[cc.B];
    K += point_compliance(L.inv_mass[cc.B], L.inv_inertia[cc.B], cc.lb);
  }
  Eigen::Matrix3d F;
  F << c.n, c.t1, c.t2;
  const Eigen::Matrix3d W = F.transpose() * K * F;
  const Eigen::Matrix3d Wa = W.cwiseAbs();
  cc.wn = Wa.row(0).sum();
  cc.wt = std::max(Wa.row(1).sum(), Wa.row(2).sum());
}

void mean_velocities(AggregateLevel& L, const BodyArrays& beads) {
  // What the coarse problem sees of its aggregates. A boundary bead's own velocity may already point away from a
  // contact that its aggregate as a whole still closes (a column's bottom bead, pushed up by the floor while the
  // beads above still fall).
  for (int A = 0; A < L.count; ++A) L.v0[A].setZero(), L.w0[A].setZero(), L.dv[A].setZero(), L.dw[A].setZero();
  for (int i = 0; i < beads.spheres; ++i) {
    const int A = L.bead_aggregate[i];
    if (A < 0) continue;
    const Eigen::Vector3d p = beads.mass[i] * beads.v[i];
    L.v0[A] += p;
    L.w0[A] += (beads.x[i] - L.centre[A]).cross(p) + beads.w[i] / beads.inv_inertia[i];
  }
  for (int A = 0; A < L.count; ++A) L.v0[A] *= L.inv_mass[A], L.w0[A] = L.inv_inertia[A] * L.w0[A];
}

void coarse_sweeps(AggregateLevel& L, std::vector<SweepContact>& contacts, int sweeps) {
  for (int s = 0; s < sweeps; ++s) {
    double changed = 0.0, size = 0.0;
    for (AggregateLevel::Contact& cc : L.contacts) {
      SweepContact& c = contacts[cc.fine];
      Eigen::Vector3d rel = Eigen::Vector3d::Zero();
      if (cc.B >= 0) rel += L.v0[cc.B] + L.dv[cc.B] + (L.w0[cc.B] + L.dw[cc.B]).cross(cc.lb);
      if (cc.A >= 0) rel -= L.v0[cc.A] + L.dv[cc.A] + (L.w0[cc.A] + L.dw[cc.A]).cross(cc.la);
      const Eigen::Vector3d u(c.n.dot(rel) + c.extra, c.t1.dot(rel), c.t2.dot(rel));
      Eigen::Vector3d r = c.r;
      isotropic_local_solve(cc.wn, cc.wt, c.mu, u, r);
      const Eigen::Vector3d d = r - c.r;
      c.r = r;
      changed += d.squaredNorm(), size += r.squaredNorm();
      const Eigen::Vector3d R = d[0] * c.n + d[1] * c.t1 + d[2] * c.t2;
      if (cc.B >= 0) L.dv[cc.B] += L.inv_mass[cc.B] * R, L.dw[cc.B] += L.inv_inertia[cc.B] * cc.lb.cross(R);
      if (cc.A >= 0) L.dv[cc.A] -= L.inv_mass[cc.A] * R, L.dw[cc.A] -= L.inv_inertia[cc.A] * cc.la.cross(R);
    }
    if (changed <= 1e-12 * size) break;
  }
}

void start_deficits(const AggregateLevel* tree, const AggregateLevel& motion, int offset, double weight,
                    const BodyArrays& beads, MultilevelWorkspace& w) {
  const int n = beads.spheres;
  w.deficit.resize(n);
  for (int i = 0; i < n; ++i) {
    const int A = tree ? tree->bead_aggregate[i] : -1;
    if (A < 0) {
      w.deficit[i].setZero();
      continue;
    }
    const int G = offset + A;
    const Eigen::Vector3d target =
        motion.v0[G] + motion.dv[G] + (motion.w0[G] + motion.dw[G]).cross(beads.x[i] - motion.centre[G]);
    w.deficit[i] = (weight * beads.mass[i]) * (target - beads.v[i]);
  }
  w.touched.clear();
}

void add_boundary_change(int k, const Eigen::Vector3d& d, const std::vector<SweepContact>& contacts,
                         MultilevelWorkspace& w) {
  const SweepContact& c = contacts[k];
  const Eigen::Vector3d R = d[0] * c.n + d[1] * c.t1 + d[2] * c.t2;
  w.deficit[c.b] -= R;
  if (c.a >= 0) w.deficit[c.a] += R;
  w.touched.push_back({k, d});
}

namespace {

// Bead i's need N (world impulse) shared by its contacts toward the root. A single oblique contact cannot carry a
// vertical load within a Coulomb cone (a bead of a face-centred pack rests on four contacts at 45°, μ = 0.3), but
// the normals of all of them can: the change of each contact's reaction is the least-squares one,
//   min Σ_k (Δn_k² + κ |Δt_k|²)  subject to  Σ_k s_k F_k Δr_k = N   (F_k = [n t1 t2], s_k = ±1 as i is b or a),
// Δr_k = s_k D⁻¹ F_kᵀ Λ with D = diag(1, κ, κ) and G Λ = N, G = Σ_k F_k D⁻¹ F_kᵀ = (1 − 1/κ) Σ n_k n_kᵀ + (m/κ) I.
// A contact whose normal change would pull (its reaction leaving the cone's base) is left out and the rest solved
// again. With one contact this is its whole need, the tree routing (a column's exact load path).
// Returns how many contacts take a share; their changes are in `change`.
int share_need(int i, const Eigen::Vector3d& N, const AggregateLevel& tree, const std::vector<SweepContact>& contacts,
               bool normal_only, std::vector<Eigen::Vector3d>& change, std::vector<char>& active) {
  constexpr double kappa = 10.0;
  const int start = tree.route_start[i], m = tree.route_start[i + 1] - start;
  change.resize(std::max<std::size_t>(change.size(), m));
  active.assign(std::max<std::size_t>(active.size(), m), 1);
  for (int pass = 0; pass < 4; ++pass) {
    Eigen::Matrix3d G = Eigen::Matrix3d::Zero();
    int used = 0;
    for (int e = 0; e < m; ++e) {
      if (!active[e]) continue;
      const Eigen::Vector3d& n = contacts[tree.route_contacts[start + e]].n;
      G += (1.0 - 1.0 / kappa) * n * n.transpose();
      ++used;
    }
    if (used == 0) return 0;
    G.diagonal().array() += used / kappa;
    const Eigen::Vector3d lambda = G.inverse() * N;  // symmetric positive definite 3×3: cofactors
    bool pulls = false;
    for (int e = 0; e < m; ++e) {
      if (!active[e]) continue;
      const SweepContact& c = contacts[tree.route_contacts[start + e]];
      const double s = c.b == i ? 1.0 : -1.0;
      change[e] = s * Eigen::Vector3d(c.n.dot(lambda), normal_only ? 0.0 : c.t1.dot(lambda) / kappa,
                                      normal_only ? 0.0 : c.t2.dot(lambda) / kappa);
      if (used > 1 && c.r[0] + change[e][0] < 0.0) active[e] = 0, pulls = true;
    }
    if (!pulls) return used;
  }
  return 0;
}

}  // namespace

// A contact delivers what its cone allows; the rest of the need is dropped, not passed on.
void route_and_apply(const AggregateLevel* tree, Routing routing, std::vector<SweepContact>& contacts,
                     const BodyArrays& beads, MultilevelWorkspace& w) {
  for (int q = tree ? static_cast<int>(tree->order.size()) - 1 : -1; q >= 0; --q) {
    const int i = tree->order[q];
    if (tree->tree_parent[i] < 0) continue;
    if (routing.spread) {
      const Eigen::Vector3d N = w.deficit[i];
      if (N.isZero()) continue;
      const int start = tree->route_start[i], m = tree->route_start[i + 1] - start;
      if (share_need(i, N, *tree, contacts, routing.normal_only, w.share, w.share_active) == 0) continue;
      for (int e = 0; e < m; ++e) {
        if (!w.share_active[e]) continue;
        const int k = tree->route_contacts[start + e];
        const SweepContact& c = contacts[k];
        Eigen::Vector3d r = c.r + w.share[e];
        project_isotropic(r, c.mu);
        const Eigen::Vector3d d = r - c.r;
        const Eigen::Vector3d R = d[0] * c.n + d[1] * c.t1 + d[2] * c.t2;  // +R on b, −R on a
        const int j = c.b == i ? c.a : c.b;
        w.deficit[j] += c.b == i ? R : Eigen::Vector3d(-R);
        // Applied at once (routing reads no velocity, and each internal contact is routed once, by its bead
        // farther from the root).
        contacts[k].r = r;
        push_impulse(contacts[k], d, beads);
      }
      continue;
    }
    const int p = tree->tree_parent[i], k = tree->tree_contact[i];
    const SweepContact& c = contacts[k];
    const double sign = c.b == i ? 1.0 : -1.0;  // the contact's impulse R acts +R on b, −R on a
    const Eigen::Vector3d R = sign * w.deficit[i];
    Eigen::Vector3d r = c.r + Eigen::Vector3d(R.dot(c.n), routing.normal_only ? 0.0 : R.dot(c.t1),
                                              routing.normal_only ? 0.0 : R.dot(c.t2));
    project_isotropic(r, c.mu);
    const Eigen::Vector3d d = r - c.r;
    w.deficit[p] += sign * (d[0] * c.n + d[1] * c.t1 + d[2] * c.t2);
    w.touched.push_back({k, d});
  }
  for (const auto& [k, d] : w.touched) {
    SweepContact& c = contacts[k];
    c.r += d;
    push_impulse(c, d, beads);
  }
}

void build_aggregate_levels(const std::vector<SweepContact>& contacts, const double* gaps, const BodyArrays& beads,
                            const MultilevelParameters& p, MultilevelWorkspace& w, const std::uint8_t* joinable,
                            int own) {
  const auto start = Clock::now();
  const int n = beads.spheres;
  const int nc = static_cast<int>(contacts.size());
  double rmax = 0.0;
  for (int i = 0; i < n; ++i) rmax = std::max(rmax, beads.radius[i]);
  // Level 0: the movable beads, numbered in bead order (a node without beads would be an aggregate without mass).
  std::vector<std::int32_t> node_of_bead(n), candidates;
  std::vector<Eigen::Vector3d> centre;
  centre.reserve(n);
  const int movable = own < 0 ? n : std::min(own, n);
  int nodes = 0, used = 0;
  for (int i = 0; i < n; ++i) {
    node_of_bead[i] = i < movable && beads.inv_mass[i] > 0.0 ? nodes++ : -1;
    if (node_of_bead[i] >= 0) centre.push_back(beads.x[i]);
  }
  candidates.reserve(nc);
  for (int k = 0; k < nc; ++k)
    if (!joinable || joinable[k]) candidates.push_back(k);
  double side = std::max(p.aggregate_diameters, 1e-3) * 2.0 * std::max(rmax, 1e-12);
  for (int level = 0; level < p.max_levels; ++level, side *= 2.0) {
    if (static_cast<int>(w.levels.size()) <= used) w.levels.emplace_back();
    AggregateLevel& L = w.levels[used];
    build_level(L, nodes, node_of_bead, centre, candidates, contacts, gaps, beads, side, w);
    if (own < 0) {
      // Coarsening that no longer removes contacts, or a level without contacts, ends the hierarchy.
      if (L.contacts.empty() || L.contacts.size() > 0.9 * candidates.size() || L.count == nodes) break;
    } else if (L.count == nodes) {
      // A process's coarsest aggregates are gathered (InterfaceNsgs.hpp): the fewer, the better the gathered
      // level. The cells' faces lie at multiples of their side, so a region straddles a face at many scales (a
      // column's part from 1.6 to 3.2 m, at every side up to 2.56 m): cells that merge nothing end its hierarchy
      // only once they are larger than the nodes' distance from the origin, where one cell holds them all
      // unless they straddle the origin or never touch.
      double reach = 0.0;
      for (int i = 0; i < nodes; ++i) reach = std::max(reach, centre[i].cwiseAbs().maxCoeff());
      if (nodes > 1 && side <= 2.0 * reach) continue;
      break;
    }
    ++used;
    nodes = L.count;
    node_of_bead = L.bead_aggregate;
    centre = L.centre;
    candidates.clear();
    for (const AggregateLevel::Contact& cc : L.contacts) candidates.push_back(cc.fine);
    if (candidates.empty()) break;  // (a process's level bounded only by pair contacts: nothing left to bind)
  }
  w.levels.resize(used);
  w.setup_seconds = seconds_since(start);
}

solvers::SolverStats multilevel_cycles(MultilevelFine& f, std::vector<SweepContact>& contacts,
                                       const BodyArrays& beads, const MatrixFreeParameters& fine,
                                       const MultilevelParameters& p, MultilevelWorkspace& w, bool nothing_to_solve,
                                       const std::string& name) {
  const auto start = Clock::now();
  solvers::SolverStats stats;
  w.fine.residual_checks = 0;
  w.fine.history.clear();
  w.cycles = 0;
  w.coarse_seconds = 0.0;
  w.coarse_weight = 1.0;
  int sweeps = 0;
  double res = nothing_to_solve ? 0.0 : f.residual(sweeps);
  const int levels = static_cast<int>(w.levels.size());
  // After a solve that had to give up its coarse levels the next `retry_after` steps are plain (in a flow, where
  // beads fly apart or slide inside aggregates, each step would otherwise pay for rejected cycles), twice as many
  // after each further such solve in a row.
  bool coarse = f.coarse() && w.cooldown == 0;
  if (w.cooldown > 0) --w.cooldown;
  int rejected = 0, pending = 0;
  double saved_res = res;
  const std::size_t nc = contacts.size();
  // Plain sweeps with their own residual schedule, up to `budget` of them.
  auto plain = [&](int budget) {
    MatrixFreeParameters rest = fine;
    rest.max_sweeps = budget;
    rest.check_first = false;
    if (p.anderson > 0) rest.anderson = p.anderson, rest.anderson_every = p.anderson_every;
    const solvers::SolverStats s = f.plain(rest, sweeps);
    sweeps += s.counters.sweeps;
    res = s.residual;
  };
  // A warm-started step that plain sweeps finish quickly pays nothing for the levels.
  if (res > fine.tolerance && std::isfinite(res) && p.plain_first > 0)
    plain(std::min(p.plain_first, fine.max_sweeps));
  while (res > fine.tolerance && std::isfinite(res) && sweeps < fine.max_sweeps) {
    if (!coarse) {
      plain(fine.max_sweeps - sweeps);
      break;
    }
    // Checkpoint: a cycle that raises the residual is taken back whole (reactions and velocities) and retried
    // with half the coarse weight; after three such, the solve goes on with plain sweeps. Copying costs a
    // fraction of a sweep.
    if (pending == 0) {
      w.saved_r.resize(nc);
      for (std::size_t k = 0; k < nc; ++k) w.saved_r[k] = contacts[k].r;
      w.saved_v.assign(beads.v, beads.v + beads.count), w.saved_w.assign(beads.w, beads.w + beads.count);
      saved_res = res;
    }
    const auto coarse_start = Clock::now();
    const int tops = f.top_levels(), below = std::max(0, levels - tops);
    for (int l = 0; l < below; ++l)
      visit_level(w.levels[l], p.coarse_sweeps, w.coarse_weight, routing_of(p), contacts, beads, w);
    for (int t = 0; t < tops; ++t)
      f.visit_top(t, t == tops - 1 ? p.coarsest_sweeps : p.coarse_sweeps, w.coarse_weight, routing_of(p));
    if (p.up_leg) {
      for (int t = tops - 2; t >= 0; --t) f.visit_top(t, p.coarse_sweeps, w.coarse_weight, routing_of(p));
      for (int l = below - 1; l >= 0; --l)
        visit_level(w.levels[l], p.coarse_sweeps, w.coarse_weight, routing_of(p), contacts, beads, w);
    }
    w.coarse_seconds += seconds_since(coarse_start);
    f.sweep(p.pre_sweeps + p.post_sweeps);
    sweeps += p.pre_sweeps + p.post_sweeps;
    ++w.cycles;
    res = f.residual(sweeps);
    if (++pending < p.trial_cycles) continue;
    pending = 0;
    if (!(res < saved_res)) {
      res = saved_res;
      for (std::size_t k = 0; k < nc; ++k) contacts[k].r = w.saved_r[k];
      std::copy(w.saved_v.begin(), w.saved_v.end(), beads.v), std::copy(w.saved_w.begin(), w.saved_w.end(), beads.w);
      w.coarse_weight *= 0.5;
      if (++rejected >= 3) {
        // Each solve in a row that gives its levels up doubles the plain stretch after it (up to 32 ×): in a flow
        // the levels would otherwise be built, tried and given up again every retry_after steps.
        coarse = false;
        w.cooldown = p.retry_after << std::min(w.give_ups, 5);
        ++w.give_ups;
      }
      continue;
    }
  }
  if (coarse && w.cycles > 0) w.give_ups = 0;
  set_solve_outcome(stats, sweeps, res, fine.tolerance, name,
                    std::to_string(sweeps) + " fine sweeps (" + std::to_string(w.cycles) + " cycles)");
  stats.seconds = seconds_since(start);
  return stats;
}

namespace {

// The whole model's fine problem: every contact here, swept in colours over the threads.
class WholeFine final : public MultilevelFine {
 public:
  WholeFine(std::vector<SweepContact>& contacts, const SweepLayout& layout, const BodyArrays& beads, double q_norm,
            const MatrixFreeParameters& fine, MultilevelWorkspace& w, GeneralContactSweep* general)
      : contacts_(contacts), layout_(layout), beads_(beads), q_norm_(q_norm), fine_(fine), w_(w), general_(general) {}
  double residual(int sweeps) override {
    ++w_.fine.residual_checks;
    const double r = matrix_free_residual(contacts_, beads_, q_norm_, fine_.threads, w_.fine, general_);
    if (w_.fine.record_history) w_.fine.history.push_back({sweeps, seconds_since(start_), r});
    return r;
  }
  solvers::SolverStats plain(const MatrixFreeParameters& p, int sweeps) override {
    // The plain solve keeps its own history; it continues this one.
    std::vector<ResidualSample> history = std::move(w_.fine.history);
    const int checks = w_.fine.residual_checks;
    const solvers::SolverStats s = solve_matrix_free(contacts_, layout_, beads_, q_norm_, p, w_.fine, general_);
    const double offset = seconds_since(start_) - s.seconds;
    for (ResidualSample& h : w_.fine.history) h.sweeps += sweeps, h.seconds += offset;
    history.insert(history.end(), w_.fine.history.begin(), w_.fine.history.end());
    w_.fine.history = std::move(history);
    w_.fine.residual_checks += checks;
    return s;
  }
  void sweep(int count) override { sweep_matrix_free(contacts_, layout_, beads_, count, fine_.threads, general_); }
  // Contacts touching capsules are swept with the beads but not checkpointed: with them the solve is plain.
  bool coarse() const override { return !w_.levels.empty() && (!general_ || general_->empty()); }
  int top_levels() const override { return 1; }
  void visit_top(int, int sweeps, double weight, Routing routing) override {
    visit_level(w_.levels.back(), sweeps, weight, routing, contacts_, beads_, w_);
  }

 private:
  std::vector<SweepContact>& contacts_;
  const SweepLayout& layout_;
  const BodyArrays& beads_;
  double q_norm_;
  const MatrixFreeParameters& fine_;
  MultilevelWorkspace& w_;
  GeneralContactSweep* general_;
  Clock::time_point start_ = Clock::now();
};

}  // namespace

solvers::SolverStats solve_multilevel(std::vector<SweepContact>& contacts, const SweepLayout& layout,
                                      const BodyArrays& beads, double q_norm, const MatrixFreeParameters& fine,
                                      const MultilevelParameters& p, MultilevelWorkspace& w,
                                      GeneralContactSweep* general) {
  WholeFine f(contacts, layout, beads, q_norm, fine, w, general);
  const bool empty = contacts.empty() && (!general || general->empty());
  solvers::SolverStats stats = multilevel_cycles(f, contacts, beads, fine, p, w, empty, "multilevel NSGS");
  stats.counters.colours = layout.interface_colours();
  return stats;
}

}  // namespace talus::matrixfree
