#include "engine/granular/BeamContacts.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "contact/NarrowPhase.hpp"
#include "engine/detection/BeamSphereContact.hpp"
#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::granular {

namespace {

double side_of(const BeamContacts& s, contact::ContactKey key) {
  const auto it = std::lower_bound(s.sides.begin(), s.sides.end(), std::make_pair(key, -2.0));
  return it != s.sides.end() && it->first == key ? it->second : 0.0;
}

}  // namespace

void prepare_beam_contacts(BeamContacts& s, const Model& m, double h, double theta) {
  if (!(theta >= 0.0 && theta <= 1.0))
    throw std::invalid_argument("granular: the beams' theta is " + std::to_string(theta) + " (expected 0 <= theta <= 1)");
  s.beams.clear();
  s.h = h, s.theta = theta;
  const std::vector<ContactBeam>& listed = m.detection.beams;
  for (std::size_t i = 0; i < m.lti.size(); ++i) {
    const auto it = std::find_if(listed.begin(), listed.end(), [&](const ContactBeam& b) { return b.lti == Index(i); });
    if (it == listed.end())
      throw std::invalid_argument("granular: LTI system '" + m.lti[i].name +
                                  "' is not a beam the beads touch (Model::detection.beams): the granular stepper "
                                  "steps FE beams only among the LTI systems");
    const LagrangianLti& sys = m.lti[i];
    if (const std::string why = beam_geometry_problem(it->geometry); !why.empty())
      throw std::invalid_argument("granular: beam '" + sys.name + "': " + why);
    if (it->geometry.dofs() != sys.dofs() || sys.q.size() != sys.dofs() || sys.v.size() != sys.dofs())
      throw std::invalid_argument("granular: beam '" + sys.name + "' has " + std::to_string(sys.dofs()) +
                                  " unknowns, but its geometry gives " + std::to_string(it->geometry.dofs()));
    BeamContacts::Beam b;
    b.lti = static_cast<int>(i);
    b.detection = static_cast<int>(it - listed.begin());
    Eigen::MatrixXd Mhat = Eigen::MatrixXd(sys.M);
    if (sys.C.size()) Mhat += h * theta * Eigen::MatrixXd(sys.C);
    if (sys.K.size()) Mhat += h * h * theta * theta * Eigen::MatrixXd(sys.K);
    const Eigen::LLT<Eigen::MatrixXd> llt(Mhat);
    if (llt.info() != Eigen::Success)
      throw std::invalid_argument("granular: beam '" + sys.name + "': M + h theta C + h^2 theta^2 K is not positive definite");
    b.inverse = llt.solve(Eigen::MatrixXd::Identity(sys.dofs(), sys.dofs()));
    s.beams.push_back(std::move(b));
  }
  for (const ContactBeam& b : listed)
    if (b.lti < 0 || b.lti >= Index(m.lti.size()))
      throw std::invalid_argument("granular: a beam of Model::detection.beams names LTI system " + std::to_string(b.lti) +
                                  ", which the model does not have");
}

double build_beam_contacts(BeamContacts& s, Model& m, double margin, const contact::ContactCache& cache,
                           matrixfree::FlexibleContactSweep& out) {
  using matrixfree::FlexibleContact;
  const RigidBodies& b = m.bodies;
  const double h = s.h;
  out.contacts.clear();
  out.bodies.resize(s.beams.size());
  out.response.clear();
  s.keys.clear();
  s.next_sides.clear();
  s.low.clear(), s.high.clear(), s.box_begin.clear();
  double max_pen = 0.0;
  const matrixfree::BodyArrays view = body_arrays(b);
  for (std::size_t k = 0; k < s.beams.size(); ++k) {
    const BeamContacts::Beam& beam = s.beams[k];
    LagrangianLti& sys = m.lti[beam.lti];
    out.bodies[k] = {sys.v.data(), static_cast<int>(sys.dofs())};
    const BeamContactGeometry& g = m.detection.beams[beam.detection].geometry;
    const int first = static_cast<int>(s.low.size());
    s.box_begin.push_back(first);
    // |U_N| <= |v_body| + |ẇ|: the beam's speed bound widens the bodies' margin.
    const double reach = margin + h * beam_element_boxes(g, sys.q, sys.v, s.low, s.high);
    const int n = sys.dofs();
    // The gap of a sphere of radius r centred at x (a bead, or a point of a capsule's axis), on its side.
    auto gap_at = [&](const Eigen::Vector3d& x, double r) {
      const contact::SpherePose pose{x, Eigen::Vector4d(1.0, 0.0, 0.0, 0.0), r};
      return beam_sphere_contact(g, beam_sphere_side(g, sys.q, x), sys.q, pose).gap;
    };
    // One contact of body i, whose sphere of radius r centred at its point x meets the beam; `offset` = x − x_i.
    auto add = [&](int i, contact::ContactKey key, const Eigen::Vector3d& x, double r, const Eigen::Vector3d& offset) {
      double side = side_of(s, key);
      if (side == 0.0) side = beam_sphere_side(g, sys.q, x);
      const contact::SpherePose pose{x, Eigen::Vector4d(1.0, 0.0, 0.0, 0.0), r};
      const BeamSphereContact bc = beam_sphere_contact(g, side, sys.q, pose);
      if (bc.gap > reach) return;
      s.next_sides.emplace_back(key, side);
      s.keys.push_back(key);
      FlexibleContact& c = out.contacts.emplace_back();
      c.rigid = i;
      c.body = static_cast<int>(k);
      for (int j = 0; j < 4; ++j) c.dof[j] = static_cast<std::int32_t>(bc.beam_dof[j]);
      c.J = bc.J_beam;
      // The response M̂⁻¹ Jᵀ e_r of rows r = n, t1, t2 over the beam's unknowns.
      c.response = static_cast<std::int32_t>(out.response.size());
      out.response.resize(out.response.size() + 3 * static_cast<std::size_t>(n), 0.0);
      for (int row = 0; row < 3; ++row) {
        double* col = out.response.data() + c.response + static_cast<std::size_t>(row) * n;
        for (int j = 0; j < 4; ++j)
          if (c.dof[j] >= 0) {
            const double a = c.J(row, j);
            for (int d = 0; d < n; ++d) col[d] += beam.inverse(d, c.dof[j]) * a;
          }
      }
      const ContactLaw& law = m.materials.law(b.material[i], kWallMaterial);
      const Eigen::Vector3d p = offset - r * bc.frame.n;
      matrixfree::prepare_flexible_contact(c, bc.frame.n, bc.frame.t1, bc.frame.t2, p, law.mu, view, out.response, n);
      // Normal target from the start-of-step state, as for a bead and a wall (GranularStepper.cpp).
      c.extra = 0.0;
      const double e = law.e;
      const double un_k = matrixfree::flexible_contact_velocity(c, out, view)[0];
      if (bc.gap > (e > 0.0 ? contact::kClosedGapFraction * r : 0.0) && !(e > 0.0 && bc.gap + h * un_k <= 0.0))
        c.extra = bc.gap / h;
      else if (e > 0.0)
        c.extra = e * std::min(0.0, un_k);
      max_pen = std::max(max_pen, -bc.gap);
      const Eigen::Vector3d R = cache.find(key);
      Eigen::Vector3d rr(R.dot(c.n), R.dot(c.t1), R.dot(c.t2));
      solvers::project_on_cone(rr.data(), 3, law.mu);
      c.r = rr;
    };
    const auto detection = static_cast<std::uint32_t>(beam.detection);
    for (int i = 0; i < b.spheres(); ++i) {
      if (!beam_sphere_near(g, &s.low[first], &s.high[first], b.x[i], b.radius[i], reach)) continue;
      add(i, contact::obstacle_key(contact::KeyObstacle::Beam, detection, 0, contact::KeyBody::Sphere, b.id[i]), b.x[i],
          b.radius[i], Eigen::Vector3d::Zero());
    }
    // Capsules (header): their ends, the points where their axis crosses the strip's long edges, and the point
    // of the axis nearest the beam between them.
    const Eigen::Vector3d across = g.axis.cross(g.deflection);
    for (int c = 0; c < b.capsules(); ++c) {
      const int i = b.capsule(c);
      const double r = b.radius[i], hl = b.half_length[i];
      if (!beam_sphere_near(g, &s.low[first], &s.high[first], b.x[i], r + hl, reach)) continue;
      const Eigen::Vector3d axis = b.axis(i);
      auto key = [&](int feature) {
        return contact::obstacle_key(contact::KeyObstacle::Beam, detection, feature, contact::KeyBody::Capsule, b.id[i]);
      };
      auto at = [&](int feature, double t) { add(i, key(feature), b.x[i] + t * axis, r, t * axis); };
      double candidates[4] = {-hl, hl, 0.0, 0.0};
      int count = 2;
      at(0, -hl), at(1, hl);
      // The edges are the lines |y| = half_width of the strip (the beam bends in its plane only, so they do not move
      // across it): a capsule lying across the strip rests on both, whatever its tilt.
      const double y0 = (b.x[i] - g.origin).dot(across), dy = axis.dot(across);
      if (std::abs(dy) > 1e-12)
        for (int e = 0; e < 2; ++e) {
          const double t = ((e == 0 ? -g.half_width : g.half_width) - y0) / dy;
          if (std::abs(t) < hl) at(2 + e, t), candidates[count++] = t;
        }
      // The nearest point between them (a capsule on the beam's crest, its ends in the air): the gap along the axis
      // is convex where the beam is straight, so a golden-section search finds it. It is a contact when it is
      // nearer than every candidate above by more than 1e-3 r and farther than a radius from each. Below that, the
      // candidates' contacts stand for it (it then dips at most 1e-3 r into the beam, a bead's usual penetration
      // on this path): a capsule lying along a gently bent beam would otherwise bear on three nearly equal points,
      // a statically indeterminate frictional support on which Gauss–Seidel stalls.
      constexpr double phi = 0.6180339887498949;
      double lo = -hl, hi = hl;
      double u = hi - phi * (hi - lo), w = lo + phi * (hi - lo);
      double fu = gap_at(b.x[i] + u * axis, r), fw = gap_at(b.x[i] + w * axis, r);
      for (int it = 0; it < 40 && hi - lo > 1e-9 * hl; ++it) {
        if (fu < fw)
          hi = w, w = u, fw = fu, u = hi - phi * (hi - lo), fu = gap_at(b.x[i] + u * axis, r);
        else
          lo = u, u = w, fu = fw, w = lo + phi * (hi - lo), fw = gap_at(b.x[i] + w * axis, r);
      }
      const double t = 0.5 * (lo + hi), least = gap_at(b.x[i] + t * axis, r);
      bool nearest = true;
      for (int k2 = 0; k2 < count && nearest; ++k2)
        nearest = std::abs(t - candidates[k2]) > r && least < gap_at(b.x[i] + candidates[k2] * axis, r) - 1e-3 * r;
      if (nearest) at(4, t);
    }
  }
  std::sort(s.next_sides.begin(), s.next_sides.end());
  s.sides.swap(s.next_sides);
  return max_pen;
}

void beam_free_velocities(BeamContacts& s, Model& m) {
  const double h = s.h, th = s.theta, t0 = m.time, t1 = m.time + h;
  for (BeamContacts::Beam& beam : s.beams) {
    LagrangianLti& sys = m.lti[beam.lti];
    beam.v_start = sys.v;
    // h (F_θ − C v_k − K (q_k + hθ v_k)), then v_free = v_k + M̂⁻¹ of it (header).
    sys.external_force(t1, beam.scratch);
    sys.external_force(t0, beam.force);
    beam.force = th * beam.scratch + (1.0 - th) * beam.force;
    if (sys.C.size()) beam.force -= sys.C * sys.v;
    if (sys.K.size()) {
      beam.scratch = sys.q + h * th * sys.v;
      beam.force -= sys.K * beam.scratch;
    }
    sys.v.noalias() += beam.inverse * (h * beam.force);
  }
}

void integrate_beam_positions(const BeamContacts& s, Model& m) {
  for (const BeamContacts::Beam& beam : s.beams) {
    LagrangianLti& sys = m.lti[beam.lti];
    sys.q += s.h * (s.theta * sys.v + (1.0 - s.theta) * beam.v_start);
  }
}

void restore_beam_velocities(const BeamContacts& s, Model& m) {
  for (const BeamContacts::Beam& beam : s.beams)
    if (beam.v_start.size() == m.lti[beam.lti].v.size()) m.lti[beam.lti].v = beam.v_start;
}

void beam_world_impulses(BeamContacts& s, const matrixfree::FlexibleContactSweep& set) {
  s.world_impulses.resize(set.contacts.size());
  for (std::size_t k = 0; k < set.contacts.size(); ++k) {
    const matrixfree::FlexibleContact& c = set.contacts[k];
    s.world_impulses[k] = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
  }
}

}  // namespace talus::granular
