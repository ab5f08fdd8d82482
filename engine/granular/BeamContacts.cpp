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

// Generalized-α's constant matrices (header): S = M + hγc C + h²βc K, the two responses and Z's two parts.
void prepare_generalized_alpha(BeamContacts::Beam& b, const LagrangianLti& sys, double h,
                               const GeneralizedAlphaCoefficients& k) {
  const int n = static_cast<int>(sys.dofs());
  const double c = (1.0 - k.alpha_f) / (1.0 - k.alpha_m);
  const Eigen::MatrixXd M(sys.M);
  const Eigen::MatrixXd K = sys.K.size() ? Eigen::MatrixXd(sys.K) : Eigen::MatrixXd::Zero(n, n);
  const Eigen::MatrixXd C = sys.C.size() ? Eigen::MatrixXd(sys.C) : Eigen::MatrixXd::Zero(n, n);
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
  const Eigen::LLT<Eigen::MatrixXd> mass(M);
  const Eigen::LLT<Eigen::MatrixXd> S(M + h * k.gamma * c * C + h * h * k.beta * c * K);
  if (mass.info() != Eigen::Success || S.info() != Eigen::Success)
    throw std::invalid_argument("granular: beam '" + sys.name + "': M or M + h gamma c C + h^2 beta c K is not positive definite");
  b.mass_inverse = mass.solve(I);
  const Eigen::MatrixXd& Minv = b.mass_inverse;
  b.smooth_inverse = S.solve(I);
  b.stiffness_coupling = h * (b.smooth_inverse * K * Minv);
  if (sys.C.size())
    b.damping_coupling = b.smooth_inverse * C * Minv;
  else
    b.damping_coupling.resize(0, 0);
  // Both responses are symmetric for Rayleigh damping (C, K and M commute through M⁻¹); symmetrised so that every
  // contact block of W is exactly symmetric.
  auto symmetric = [](const Eigen::MatrixXd& A) { return Eigen::MatrixXd(0.5 * (A + A.transpose())); };
  b.inverse = symmetric(sys.C.size() ? Eigen::MatrixXd(Minv - (h * k.gamma * c) * b.damping_coupling) : Minv);
  b.position_inverse = symmetric(Minv - (h * k.beta * c) * b.stiffness_coupling);
  b.position = Vector::Zero(n);
  b.a.resize(0), b.vdot.resize(0);
}

// A contact's response columns inverse · Jᵀ e_r (rows r = n, t1, t2) over the beam's n unknowns, appended to
// `response` (c.response is set to their offset).
void add_response(matrixfree::FlexibleContact& c, const Eigen::MatrixXd& inverse, int n, std::vector<double>& response) {
  c.response = static_cast<std::int32_t>(response.size());
  response.resize(response.size() + 3 * static_cast<std::size_t>(n), 0.0);
  for (int row = 0; row < 3; ++row) {
    double* col = response.data() + c.response + static_cast<std::size_t>(row) * n;
    for (int j = 0; j < 4; ++j)
      if (c.dof[j] >= 0) {
        const double a = c.J(row, j);
        for (int d = 0; d < n; ++d) col[d] += inverse(d, c.dof[j]) * a;
      }
  }
}

// Jᵀ r over the contacts of `set` on its body `body` (n unknowns).
void generalized_impulse(const matrixfree::FlexibleContactSweep& set, int body, int n, Vector& out) {
  out.setZero(n);
  for (const matrixfree::FlexibleContact& c : set.contacts)
    if (c.body == body)
      for (int j = 0; j < 4; ++j)
        if (c.dof[j] >= 0) out[c.dof[j]] += c.J.col(j).dot(c.r);
}

// ṽ̇_n and a_n of a beam that has none yet (the first step, or a restart from an archive without them):
// ṽ̇_0 = M⁻¹ f(t, q, v) = a_0, the small path's start (NonsmoothGeneralizedAlpha.cpp).
void start_accelerations(BeamContacts::Beam& beam, const LagrangianLti& sys, double t) {
  if (beam.a.size() == sys.dofs() && beam.vdot.size() == sys.dofs()) return;
  sys.external_force(t, beam.force);
  if (sys.C.size()) beam.force -= sys.C * sys.v;
  if (sys.K.size()) beam.force -= sys.K * sys.q;
  beam.vdot.noalias() = beam.mass_inverse * beam.force;
  beam.a = beam.vdot;
}

}  // namespace

void prepare_beam_contacts(BeamContacts& s, const Model& m, double h, double theta,
                           const GeneralizedAlphaCoefficients* generalized_alpha) {
  if (!(theta >= 0.0 && theta <= 1.0))
    throw std::invalid_argument("granular: the beams' theta is " + std::to_string(theta) + " (expected 0 <= theta <= 1)");
  s.beams.clear();
  s.h = h, s.theta = theta;
  s.generalized_alpha = generalized_alpha != nullptr;
  if (generalized_alpha) s.coefficients = *generalized_alpha;
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
    if (s.generalized_alpha) {
      prepare_generalized_alpha(b, sys, h, s.coefficients);
    } else {
      Eigen::MatrixXd Mhat = Eigen::MatrixXd(sys.M);
      if (sys.C.size()) Mhat += h * theta * Eigen::MatrixXd(sys.C);
      if (sys.K.size()) Mhat += h * h * theta * theta * Eigen::MatrixXd(sys.K);
      const Eigen::LLT<Eigen::MatrixXd> llt(Mhat);
      if (llt.info() != Eigen::Success)
        throw std::invalid_argument("granular: beam '" + sys.name + "': M + h theta C + h^2 theta^2 K is not positive definite");
      b.inverse = llt.solve(Eigen::MatrixXd::Identity(sys.dofs(), sys.dofs()));
    }
    s.beams.push_back(std::move(b));
  }
  for (const ContactBeam& b : listed)
    if (b.lti < 0 || b.lti >= Index(m.lti.size()))
      throw std::invalid_argument("granular: a beam of Model::detection.beams names LTI system " + std::to_string(b.lti) +
                                  ", which the model does not have");
}

double build_beam_contacts(BeamContacts& s, Model& m, double margin, const contact::ContactCache& cache,
                           matrixfree::FlexibleContactSweep& out, const contact::ContactCache* position_cache) {
  using matrixfree::FlexibleContact;
  const RigidBodies& b = m.bodies;
  const double h = s.h;
  out.contacts.clear();
  out.bodies.resize(s.beams.size());
  out.response.clear();
  s.keys.clear();
  s.next_sides.clear();
  s.low.clear(), s.high.clear(), s.box_begin.clear();
  const bool ga = s.generalized_alpha;
  if (ga && !position_cache) throw std::logic_error("build_beam_contacts: generalized-alpha needs the position cache");
  matrixfree::FlexibleContactSweep& pos = s.position_set;
  pos.contacts.clear();
  pos.bodies.resize(ga ? s.beams.size() : 0);
  pos.response.clear();
  const GeneralizedAlphaCoefficients& co = s.coefficients;
  double max_pen = 0.0;
  const matrixfree::BodyArrays view = body_arrays(b);
  for (std::size_t k = 0; k < s.beams.size(); ++k) {
    BeamContacts::Beam& beam = s.beams[k];
    LagrangianLti& sys = m.lti[beam.lti];
    out.bodies[k] = {sys.v.data(), static_cast<int>(sys.dofs())};
    // Generalized-α: a⁰ and the beam's predicted displacement q* − q_k − h v_k (header), for the activation.
    Vector predicted;
    if (ga) {
      pos.bodies[k] = {beam.position.data(), static_cast<int>(sys.dofs())};
      start_accelerations(beam, sys, m.time);
      beam.a0 = (co.alpha_f * beam.vdot - co.alpha_m * beam.a) / (1.0 - co.alpha_m);
      predicted = h * h * ((0.5 - co.beta) * beam.a + co.beta * beam.a0);
    }
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
      add_response(c, beam.inverse, n, out.response);
      const ContactLaw& law = m.materials.law(b.material[i], kWallMaterial);
      const Eigen::Vector3d p = offset - r * bc.frame.n;
      matrixfree::prepare_flexible_contact(c, bc.frame.n, bc.frame.t1, bc.frame.t2, p, law.mu, view, out.response, n);
      // Normal target from the start-of-step state, as for a bead and a wall (GranularStepper.cpp).
      c.extra = 0.0;
      const double e = law.e;
      const double un_k = matrixfree::flexible_contact_velocity(c, out, view)[0];
      if (ga) {
        // Generalized-α (header): Newton's law when the predicted gap g(q*) is closed, the open law otherwise.
        double g_star = bc.gap + h * un_k + (b.inv_mass[i] > 0.0 ? 0.5 * h * h * bc.frame.n.dot(m.gravity) : 0.0);
        for (int j = 0; j < 4; ++j)
          if (c.dof[j] >= 0) g_star += c.J(0, j) * predicted[c.dof[j]];
        if (g_star > 0.0)
          c.extra = bc.gap / h;
        else if (e > 0.0)
          c.extra = e * std::min(0.0, un_k);
      } else if (bc.gap > (e > 0.0 ? contact::kClosedGapFraction * r : 0.0) && !(e > 0.0 && bc.gap + h * un_k <= 0.0)) {
        c.extra = bc.gap / h;
      } else if (e > 0.0) {
        c.extra = e * std::min(0.0, un_k);
      }
      max_pen = std::max(max_pen, -bc.gap);
      auto warm = [&](const contact::ContactCache& from) {
        const Eigen::Vector3d R = from.find(key);
        Eigen::Vector3d rr(R.dot(c.n), R.dot(c.t1), R.dot(c.t2));
        solvers::project_on_cone(rr.data(), 3, law.mu);
        return rr;
      };
      c.r = warm(cache);
      if (!ga) return;
      // The position problem's contact: the same geometry, the response S⁻¹(M + hγc C) M⁻¹ Jᵀ, the target
      // g(q_{k+1}) = gap + h V_N >= 0, its own warm start.
      FlexibleContact& d = pos.contacts.emplace_back(c);
      add_response(d, beam.position_inverse, n, pos.response);
      matrixfree::prepare_flexible_contact(d, c.n, c.t1, c.t2, c.p, law.mu, view, pos.response, n);
      d.extra = bc.gap / h;
      d.r = warm(*position_cache);
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
  if (s.generalized_alpha) {
    const GeneralizedAlphaCoefficients& k = s.coefficients;
    const double c = (1.0 - k.alpha_f) / (1.0 - k.alpha_m);
    for (BeamContacts::Beam& beam : s.beams) {
      LagrangianLti& sys = m.lti[beam.lti];
      beam.v_start = sys.v;
      start_accelerations(beam, sys, t0);  // (build_beam_contacts has done it, unless it was not called)
      beam.a0 = (k.alpha_f * beam.vdot - k.alpha_m * beam.a) / (1.0 - k.alpha_m);
      // v*, and q* − q_k in `position` for now (header).
      beam.v_free = sys.v + h * (1.0 - k.gamma) * beam.a + h * k.gamma * beam.a0;
      beam.position = h * sys.v + h * h * ((0.5 - k.beta) * beam.a + k.beta * beam.a0);
      sys.external_force(t1, beam.force);
      if (sys.C.size()) beam.force -= sys.C * beam.v_free;
      if (sys.K.size()) {
        beam.scratch = sys.q + beam.position;
        beam.force -= sys.K * beam.scratch;
      }
      beam.smooth_free.noalias() = beam.smooth_inverse * beam.force;  // S⁻¹(F − C v* − K q*)
      beam.v_free += (h * k.gamma * c) * beam.smooth_free;
      beam.position_free = beam.position / h + (h * k.beta * c) * beam.smooth_free;
      beam.position = beam.position_free;
      beam.lambda.setZero(sys.dofs());
    }
    set_beam_velocity_problem(s, m, &s.position_set);
    return;
  }
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

void set_beam_velocity_problem(BeamContacts& s, Model& m, const matrixfree::FlexibleContactSweep* position) {
  const GeneralizedAlphaCoefficients& k = s.coefficients;
  const double hgc = s.h * k.gamma * (1.0 - k.alpha_f) / (1.0 - k.alpha_m);
  for (std::size_t b = 0; b < s.beams.size(); ++b) {
    BeamContacts::Beam& beam = s.beams[b];
    LagrangianLti& sys = m.lti[beam.lti];
    if (position) generalized_impulse(*position, static_cast<int>(b), static_cast<int>(sys.dofs()), beam.nu);
    beam.scratch.noalias() = beam.stiffness_coupling * beam.nu;
    sys.v = beam.v_free - hgc * beam.scratch;
  }
}

void set_beam_position_problem(BeamContacts& s, const matrixfree::FlexibleContactSweep& velocity) {
  const GeneralizedAlphaCoefficients& k = s.coefficients;
  const double hbc = s.h * k.beta * (1.0 - k.alpha_f) / (1.0 - k.alpha_m);
  for (std::size_t b = 0; b < s.beams.size(); ++b) {
    BeamContacts::Beam& beam = s.beams[b];
    generalized_impulse(velocity, static_cast<int>(b), static_cast<int>(beam.position_free.size()), beam.lambda);
    beam.position = beam.position_free;
    if (beam.damping_coupling.size()) {
      beam.scratch.noalias() = beam.damping_coupling * beam.lambda;
      beam.position -= hbc * beam.scratch;
    }
  }
}

void beam_generalized_impulses(const BeamContacts& s, const matrixfree::FlexibleContactSweep& set, Vector& out) {
  Index total = 0;
  for (const BeamContacts::Beam& beam : s.beams) total += beam.v_free.size();
  out.resize(total);
  Vector g;
  Index at = 0;
  for (std::size_t b = 0; b < s.beams.size(); ++b) {
    const Index n = s.beams[b].v_free.size();
    generalized_impulse(set, static_cast<int>(b), static_cast<int>(n), g);
    out.segment(at, n) = g;
    at += n;
  }
}

void beam_nu(const BeamContacts& s, Vector& out) {
  Index total = 0;
  for (const BeamContacts::Beam& beam : s.beams) total += beam.nu.size();
  out.resize(total);
  Index at = 0;
  for (const BeamContacts::Beam& beam : s.beams) out.segment(at, beam.nu.size()) = beam.nu, at += beam.nu.size();
}

void set_beam_nu(BeamContacts& s, const Vector& nu) {
  Index at = 0;
  for (BeamContacts::Beam& beam : s.beams) beam.nu = nu.segment(at, beam.nu.size()), at += beam.nu.size();
}

namespace {

// √Σ‖J δ‖² over the contacts of `set` on its body `body`, squared.
double squared_contact_change(const matrixfree::FlexibleContactSweep& set, int body, const Vector& delta) {
  double sum = 0.0;
  for (const matrixfree::FlexibleContact& c : set.contacts) {
    if (c.body != body) continue;
    Eigen::Vector3d u = Eigen::Vector3d::Zero();
    for (int j = 0; j < 4; ++j)
      if (c.dof[j] >= 0) u += c.J.col(j) * delta[c.dof[j]];
    sum += u.squaredNorm();
  }
  return sum;
}

}  // namespace

namespace {

// √Σ‖J δ‖² over `target`'s contacts, beam by beam, with δ = scale · coupling · (Jᵀ r of `source` − the Jᵀ r the
// target problem was set with); beams without that coupling are skipped.
double coupling_change(const BeamContacts& s, Eigen::MatrixXd BeamContacts::Beam::*coupling,
                       Vector BeamContacts::Beam::*used, double scale, const matrixfree::FlexibleContactSweep& source,
                       const matrixfree::FlexibleContactSweep& target) {
  double sum = 0.0;
  Vector g, delta;
  for (std::size_t b = 0; b < s.beams.size(); ++b) {
    const BeamContacts::Beam& beam = s.beams[b];
    if (!(beam.*coupling).size()) continue;
    generalized_impulse(source, static_cast<int>(b), static_cast<int>((beam.*used).size()), g);
    delta.noalias() = scale * ((beam.*coupling) * (g - beam.*used));
    sum += squared_contact_change(target, static_cast<int>(b), delta);
  }
  return std::sqrt(sum);
}

}  // namespace

double beam_velocity_coupling_change(const BeamContacts& s, const matrixfree::FlexibleContactSweep& velocity,
                                     const matrixfree::FlexibleContactSweep& position) {
  const GeneralizedAlphaCoefficients& k = s.coefficients;
  const double hgc = s.h * k.gamma * (1.0 - k.alpha_f) / (1.0 - k.alpha_m);
  return coupling_change(s, &BeamContacts::Beam::stiffness_coupling, &BeamContacts::Beam::nu, hgc, position, velocity);
}

double beam_position_coupling_change(const BeamContacts& s, const matrixfree::FlexibleContactSweep& velocity,
                                     const matrixfree::FlexibleContactSweep& position) {
  const GeneralizedAlphaCoefficients& k = s.coefficients;
  const double hbc = s.h * k.beta * (1.0 - k.alpha_f) / (1.0 - k.alpha_m);
  return coupling_change(s, &BeamContacts::Beam::damping_coupling, &BeamContacts::Beam::lambda, hbc, velocity, position);
}

void finish_beams_generalized_alpha(BeamContacts& s, Model& m) {
  const double c = (1.0 - s.coefficients.alpha_f) / (1.0 - s.coefficients.alpha_m);
  for (BeamContacts::Beam& beam : s.beams) {
    LagrangianLti& sys = m.lti[beam.lti];
    sys.q += s.h * beam.position;
    // ṽ̇ = ṽ̇_free − Z, Z = S⁻¹(C M⁻¹ Jᵀ Λ + h K M⁻¹ Jᵀ ν) (header), with the impulses the two problems were set with.
    beam.vdot = beam.smooth_free;
    beam.vdot.noalias() -= beam.stiffness_coupling * beam.nu;
    if (beam.damping_coupling.size()) beam.vdot.noalias() -= beam.damping_coupling * beam.lambda;
    beam.a = beam.a0 + c * beam.vdot;
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
