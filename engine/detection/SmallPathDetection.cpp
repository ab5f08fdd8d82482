// The detection stage of the small path (SmallPathDetection.hpp): broad phase on the granular path's cell
// grid, then the detected list rebuilt in the loader's order, keeping the objects of persisting pairs.
#include "engine/detection/SmallPathDetection.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

namespace talus {

namespace {

contact::ContactKey sphere_pair_key(const RigidBodies& b, int i, int j) {
  const std::uint32_t a = b.id[i], c = b.id[j];
  return contact::bead_pair_key(std::min(a, c), std::max(a, c));
}

// Pairs of rigid bodies joined by a listed interaction: joints, listed sphere–sphere contacts.
void collect_excluded(const Model& model, std::vector<contact::ContactKey>& out) {
  out.clear();
  for (std::size_t i = 0; i < model.listed_interactions(); ++i) {
    const Interaction& in = model.interactions[i];
    if (in.systems.size() == 2 && in.systems[0].family == SystemFamily::Rigid &&
        in.systems[1].family == SystemFamily::Rigid)
      out.push_back(sphere_pair_key(model.bodies, static_cast<int>(in.systems[0].index),
                                    static_cast<int>(in.systems[1].index)));
  }
  std::sort(out.begin(), out.end());
}

// The key of a detected interaction from its bodies (and its plane, found among the detection's planes).
contact::ContactKey existing_key(const Model& model, const Interaction& in) {
  const int a = static_cast<int>(in.systems[0].index);
  if (in.systems.size() == 2) return sphere_pair_key(model.bodies, a, static_cast<int>(in.systems[1].index));
  const auto& rel = std::get<SphereContactRelation>(in.relation);
  int plane = 0;
  for (std::size_t p = 0; p < model.detection.planes.size(); ++p)
    if (model.detection.planes[p].normal == rel.plane_normal &&
        model.detection.planes[p].offset == rel.plane_offset)
      plane = static_cast<int>(p);
  return contact::bead_wall_key(plane, 0, model.bodies.id[a]);
}

// An Interaction object for a new pair: a recycled one when there is one. Its outputs start at zero.
Interaction take_object(SmallPathDetection& ws, const NonsmoothLaw& law) {
  Interaction in;
  if (!ws.spare.empty()) {
    in = std::move(ws.spare.back());
    ws.spare.pop_back();
  } else {
    in.name = "detected";
  }
  const int rows = law_rows(law);
  in.law = law;
  in.gap.setZero(rows);
  in.velocity.setZero(rows);
  in.impulse.setZero(rows);
  return in;
}

}  // namespace

bool detect_contacts(Model& model, SmallPathDetection& ws, double h) {
  ContactDetectionSettings& d = model.detection;
  if (!d.enabled) return false;
  if (d.first < 0) d.first = static_cast<int>(model.interactions.size());
  const RigidBodies& b = model.bodies;
  const int n = static_cast<int>(d.spheres.size());
  if (!ws.ready) {
    collect_excluded(model, ws.excluded);
    // A workspace new to a model that another one already stepped (an integrator built again on the same
    // model): the keys of the detected contacts it finds there, so that they persist too.
    ws.keys.clear();
    for (std::size_t i = static_cast<std::size_t>(d.first); i < model.interactions.size(); ++i)
      ws.keys.push_back(existing_key(model, model.interactions[i]));
    ws.ready = true;
  }

  // The last step's detected interactions leave the model; their keys, sorted, find them again.
  ws.previous.clear();
  for (std::size_t i = static_cast<std::size_t>(d.first); i < model.interactions.size(); ++i)
    ws.previous.push_back(std::move(model.interactions[i]));
  model.interactions.resize(static_cast<std::size_t>(d.first));
  ws.old_keys.swap(ws.keys);
  ws.keys.clear();
  ws.old_sorted.clear();
  for (std::size_t i = 0; i < ws.old_keys.size(); ++i)
    ws.old_sorted.emplace_back(ws.old_keys[i], static_cast<int>(i));
  std::sort(ws.old_sorted.begin(), ws.old_sorted.end());
  ws.taken.assign(ws.previous.size(), 0);

  ws.x.resize(n);
  ws.radius.resize(n);
  double vmax = 0.0, rmin = n ? b.radius[d.spheres[0]] : 0.0, rmax = 0.0;
  for (int k = 0; k < n; ++k) {
    const int i = d.spheres[k];
    ws.x[k] = b.x[i];
    ws.radius[k] = b.radius[i];
    vmax = std::max(vmax, b.v[i].norm());
    rmin = std::min(rmin, b.radius[i]);
    rmax = std::max(rmax, b.radius[i]);
  }
  const double margin = d.margin >= 0.0 ? d.margin : 0.1 * rmin;
  ws.reach = margin + 2.0 * h * vmax;

  const auto append = [&](contact::ContactKey key, int body, const ContactPlane* plane, int other) {
    ws.keys.push_back(key);
    const auto it = std::lower_bound(ws.old_sorted.begin(), ws.old_sorted.end(), std::make_pair(key, -1));
    if (it != ws.old_sorted.end() && it->first == key) {
      ws.taken[it->second] = 1;
      model.interactions.push_back(std::move(ws.previous[it->second]));
      return;
    }
    Interaction in = take_object(ws, d.law);
    in.systems.resize(plane ? 1 : 2);
    in.systems[0] = {SystemFamily::Rigid, body};
    SphereContactRelation rel;
    if (plane) {
      rel.plane_normal = plane->normal;
      rel.plane_offset = plane->offset;
    } else {
      in.systems[1] = {SystemFamily::Rigid, other};
    }
    in.relation = rel;
    model.interactions.push_back(std::move(in));
  };

  for (int k = 0; k < n; ++k)
    for (std::size_t p = 0; p < d.planes.size(); ++p) {
      const ContactPlane& pl = d.planes[p];
      if (pl.normal.dot(ws.x[k]) - pl.offset - ws.radius[k] <= ws.reach)
        append(contact::bead_wall_key(static_cast<int>(p), 0, b.id[d.spheres[k]]), d.spheres[k], &pl, -1);
    }

  ws.pairs.clear();
  ws.candidates = 0;
  if (n > 1) {
    contact::size_cell_grid(ws.grid, ws.x.data(), n, 2.0 * rmax + ws.reach);
    contact::assign_cells(ws.grid, ws.x.data(), 0, n);
    contact::sort_into_cells(ws.grid);
    contact::find_sphere_pairs(ws.grid, ws.x.data(), ws.radius.data(), ws.reach, 0, ws.grid.cells(),
                               ws.pairs);
    ws.candidates = static_cast<long>(ws.pairs.size());
    // Spheres are listed in increasing body index, so (a, b) order on positions is the loader's order.
    std::sort(ws.pairs.begin(), ws.pairs.end(), [](const contact::BodyPair& l, const contact::BodyPair& r) {
      return l.a != r.a ? l.a < r.a : l.b < r.b;
    });
  }
  for (const contact::BodyPair& pr : ws.pairs) {
    const int i = d.spheres[pr.a], j = d.spheres[pr.b];
    const contact::ContactKey key = sphere_pair_key(b, i, j);
    if (std::binary_search(ws.excluded.begin(), ws.excluded.end(), key)) continue;
    append(key, std::min(i, j), nullptr, std::max(i, j));
  }

  for (std::size_t i = 0; i < ws.previous.size(); ++i)
    if (!ws.taken[i]) ws.spare.push_back(std::move(ws.previous[i]));
  return ws.keys != ws.old_keys;
}

}  // namespace talus
