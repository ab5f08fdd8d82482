// The detection stage of the small path (SmallPathDetection.hpp): broad phase on the granular path's cell
// grid, then the detected list rebuilt in the loader's order, keeping the objects of persisting pairs.
#include "engine/detection/SmallPathDetection.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <variant>

namespace talus {

namespace {

// The keys of contact/ContactKey.hpp, with the bodies' kinds (their shape groups) and ids: a pair in id order.
contact::KeyBody key_kind(const RigidBodies& b, int i) { return static_cast<contact::KeyBody>(b.kind(i)); }

contact::ContactKey sphere_pair_key(const RigidBodies& b, int i, int j) {
  if (b.id[i] > b.id[j]) std::swap(i, j);
  return contact::pair_key(key_kind(b, i), b.id[i], key_kind(b, j), b.id[j]);
}

// A sphere against the beam of index `beam` in Model::detection.beams, or the plane of index `plane`.
contact::ContactKey beam_key(const RigidBodies& b, int beam, int sphere) {
  return contact::obstacle_key(contact::KeyObstacle::Beam, static_cast<std::uint32_t>(beam), 0, key_kind(b, sphere),
                               b.id[sphere]);
}
contact::ContactKey plane_key(const RigidBodies& b, int plane, int sphere) {
  return contact::obstacle_key(contact::KeyObstacle::Plane, static_cast<std::uint32_t>(plane), 0, key_kind(b, sphere),
                               b.id[sphere]);
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

// The key of a detected interaction from its bodies (and its plane or beam).
contact::ContactKey existing_key(const Model& model, const Interaction& in) {
  const DetectedContact c = describe_detected_contact(model, in);
  switch (c.with) {
    case DetectedContact::With::Beam: return beam_key(model.bodies, c.other, c.body);
    case DetectedContact::With::Sphere: return sphere_pair_key(model.bodies, c.body, c.other);
    case DetectedContact::With::Plane: break;
  }
  return plane_key(model.bodies, c.other, c.body);
}

// Position of the last step's interaction with this key in ws.previous, or −1.
int previous_of(const SmallPathDetection& ws, contact::ContactKey key) {
  const auto it = std::lower_bound(ws.old_sorted.begin(), ws.old_sorted.end(), std::make_pair(key, -1));
  return it != ws.old_sorted.end() && it->first == key ? it->second : -1;
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

// Element boxes of every beam (beam_element_boxes) and the bound of their material speed.
double beam_boxes(const Model& model, SmallPathDetection& ws) {
  double speed = 0.0;
  ws.beam_box_begin.clear();
  ws.box_low.clear();
  ws.box_high.clear();
  for (const ContactBeam& beam : model.detection.beams) {
    const LagrangianLti& s = model.lti[beam.lti];
    ws.beam_box_begin.push_back(static_cast<int>(ws.box_low.size()));
    speed = std::max(speed, beam_element_boxes(beam.geometry, s.q, s.v, ws.box_low, ws.box_high));
  }
  return speed;
}

// Sphere–beam pairs by (sphere, beam), appended with their keys (BeamSphereContact.hpp for the relation).
void detect_beam_pairs(Model& model, SmallPathDetection& ws, double h, double margin, double sphere_speed) {
  const ContactDetectionSettings& d = model.detection;
  const RigidBodies& b = model.bodies;
  // |U_N| <= |v_sphere| + |ẇ| at the contact point: the beam analogue of the sphere pairs' 2 max|v|.
  ws.beam_reach = margin + h * (sphere_speed + beam_boxes(model, ws));
  const double reach = ws.beam_reach;
  for (std::size_t k = 0; k < d.spheres.size(); ++k) {
    const int i = d.spheres[k];
    const double r = ws.radius[k];
    for (std::size_t p = 0; p < d.beams.size(); ++p) {
      const BeamContactGeometry& g = d.beams[p].geometry;
      const int box = ws.beam_box_begin[p];
      if (!beam_sphere_near(g, &ws.box_low[box], &ws.box_high[box], ws.x[k], r, reach)) continue;
      // Narrow phase: the gap on the sphere's side, the side of a persisting pair kept (BeamSphereContact.hpp).
      const contact::ContactKey key = beam_key(b, static_cast<int>(p), i);
      const int old = previous_of(ws, key);
      const Vector& q = model.lti[d.beams[p].lti].q;
      const double side = old >= 0 ? std::get<BeamSphereContactRelation>(ws.previous[old].relation).side
                                   : beam_sphere_side(g, q, ws.x[k]);
      const contact::SpherePose pose{ws.x[k], Eigen::Vector4d(1.0, 0.0, 0.0, 0.0), r};
      if (beam_sphere_contact(g, side, q, pose).gap > reach) continue;
      ws.keys.push_back(key);
      if (old >= 0) {
        ws.taken[old] = 1;
        model.interactions.push_back(std::move(ws.previous[old]));
        continue;
      }
      Interaction in = take_object(ws, d.law);
      in.systems.resize(2);
      in.systems[0] = {SystemFamily::Rigid, i};
      in.systems[1] = {SystemFamily::Lti, d.beams[p].lti};
      in.relation = BeamSphereContactRelation{g, side};
      model.interactions.push_back(std::move(in));
    }
  }
}

}  // namespace

DetectedContact describe_detected_contact(const Model& model, const Interaction& in) {
  DetectedContact c;
  c.body = static_cast<int>(in.systems[0].index);
  if (const auto* beam = std::get_if<BeamSphereContactRelation>(&in.relation)) {
    c.with = DetectedContact::With::Beam;
    c.side = beam->side;
    for (std::size_t p = 0; p < model.detection.beams.size(); ++p)
      if (model.detection.beams[p].lti == in.systems[1].index) c.other = static_cast<int>(p);
    return c;
  }
  if (in.systems.size() == 2) {
    c.with = DetectedContact::With::Sphere;
    c.other = static_cast<int>(in.systems[1].index);
    return c;
  }
  const auto& rel = std::get<SphereContactRelation>(in.relation);
  for (std::size_t p = 0; p < model.detection.planes.size(); ++p)
    if (model.detection.planes[p].normal == rel.plane_normal && model.detection.planes[p].offset == rel.plane_offset)
      c.other = static_cast<int>(p);
  return c;
}

Interaction make_detected_contact(const Model& model, const DetectedContact& c) {
  const ContactDetectionSettings& d = model.detection;
  const auto is_sphere = [&](int i) { return std::find(d.spheres.begin(), d.spheres.end(), i) != d.spheres.end(); };
  if (!is_sphere(c.body))
    throw std::invalid_argument("body " + std::to_string(c.body) + " is not one of the spheres the detection looks at");
  Interaction in;
  in.name = "detected";
  in.law = d.law;
  const int rows = law_rows(d.law);
  in.gap.setZero(rows);
  in.velocity.setZero(rows);
  in.impulse.setZero(rows);
  switch (c.with) {
    case DetectedContact::With::Plane: {
      if (c.other < 0 || c.other >= static_cast<int>(d.planes.size()))
        throw std::invalid_argument("plane " + std::to_string(c.other) + " is not one of the detection's " +
                                    std::to_string(d.planes.size()) + " planes");
      SphereContactRelation rel;
      rel.plane_normal = d.planes[c.other].normal;
      rel.plane_offset = d.planes[c.other].offset;
      in.systems = {{SystemFamily::Rigid, c.body}};
      in.relation = rel;
      break;
    }
    case DetectedContact::With::Sphere:
      if (!is_sphere(c.other) || c.other <= c.body)
        throw std::invalid_argument("body " + std::to_string(c.other) + " is not a sphere the detection pairs with body " +
                                    std::to_string(c.body) + " (pairs name the lower index first)");
      in.systems = {{SystemFamily::Rigid, c.body}, {SystemFamily::Rigid, c.other}};
      in.relation = SphereContactRelation{};
      break;
    case DetectedContact::With::Beam:
      if (c.other < 0 || c.other >= static_cast<int>(d.beams.size()))
        throw std::invalid_argument("beam " + std::to_string(c.other) + " is not one of the detection's " +
                                    std::to_string(d.beams.size()) + " beams");
      if (c.side != 1.0 && c.side != -1.0)
        throw std::invalid_argument("a beam contact's side is +1 or -1, not " + std::to_string(c.side));
      in.systems = {{SystemFamily::Rigid, c.body}, {SystemFamily::Lti, d.beams[c.other].lti}};
      in.relation = BeamSphereContactRelation{d.beams[c.other].geometry, c.side};
      break;
  }
  return in;
}

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
    if (const int old = previous_of(ws, key); old >= 0) {
      ws.taken[old] = 1;
      model.interactions.push_back(std::move(ws.previous[old]));
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
        append(plane_key(b, static_cast<int>(p), d.spheres[k]), d.spheres[k], &pl, -1);
    }

  if (!d.beams.empty()) detect_beam_pairs(model, ws, h, margin, vmax);

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
