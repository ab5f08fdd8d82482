// Granular measurements (see the header).
#include "engine/analysis/GranularMeasures.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace talus {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Area of the disc of radius rho centred at the origin inside {x <= X, y <= Y}. The integrand over x is
// clamp(Y, −s, s) + s with s = √(ρ² − x²); its pieces are split where |Y| = s, i.e. |x| = w = √(ρ² − Y²).
double disc_quadrant_area(double rho, double X, double Y) {
  if (rho <= 0.0 || X <= -rho || Y <= -rho) return 0.0;
  X = std::min(X, rho);
  const double r2 = rho * rho;
  // ∫ s dx = ½ (x s + ρ² asin(x/ρ))
  auto S = [&](double x) {
    x = std::clamp(x, -rho, rho);
    return 0.5 * (x * std::sqrt(std::max(0.0, r2 - x * x)) + r2 * std::asin(x / rho));
  };
  auto integral_s = [&](double a, double b) { return b > a ? S(b) - S(a) : 0.0; };
  if (Y >= rho) return 2.0 * integral_s(-rho, X);
  const double w = std::sqrt(r2 - Y * Y);
  double area = 0.0;
  if (Y >= 0.0) area += 2.0 * integral_s(-rho, std::min(X, -w));  // s <= Y: the whole chord
  const double a = -w, b = std::min(X, w);
  if (b > a) area += Y * (b - a) + integral_s(a, b);  // chord from −s to Y
  if (Y >= 0.0 && X > w) area += 2.0 * integral_s(w, X);
  return area;
}

// Area of the disc (centre c, radius rho) inside the rectangle [x0, x1] × [y0, y1].
double disc_rectangle_area(double cx, double cy, double rho, double x0, double x1, double y0, double y1) {
  x0 -= cx, x1 -= cx, y0 -= cy, y1 -= cy;
  return disc_quadrant_area(rho, x1, y1) - disc_quadrant_area(rho, x0, y1) - disc_quadrant_area(rho, x1, y0) +
         disc_quadrant_area(rho, x0, y0);
}

// 16-point Gauss–Legendre nodes and weights on [−1, 1] (the positive half; the rule is symmetric).
constexpr std::array<double, 8> kGaussX = {0.0950125098376374, 0.2816035507792589, 0.4580167776572274,
                                           0.6178762444026438, 0.7554044083550030, 0.8656312023878318,
                                           0.9445750230732326, 0.9894009349916499};
constexpr std::array<double, 8> kGaussW = {0.1894506104550685, 0.1826034150449236, 0.1691565193950025,
                                           0.1495959888165767, 0.1246289712555339, 0.0951585116824928,
                                           0.0622535239386479, 0.0271524594117541};

std::uint64_t body_key(const RigidBodies& b, int i) {
  std::uint64_t kind = 0;
  while (kind + 1 < static_cast<std::uint64_t>(kShapeKinds) && i >= b.group_start[kind + 1]) ++kind;
  return (kind << 32) | b.id[i];
}

}  // namespace

double ball_box_volume(const Eigen::Vector3d& c, double r, const Region& region) {
  const Eigen::Vector3d& lo = region.lo;
  const Eigen::Vector3d& hi = region.hi;
  if (r <= 0.0) return 0.0;
  for (int k = 0; k < 3; ++k)
    if (c[k] + r <= lo[k] || c[k] - r >= hi[k]) return 0.0;
  if (((c.array() - r) >= lo.array()).all() && ((c.array() + r) <= hi.array()).all())
    return 4.0 / 3.0 * kPi * r * r * r;
  // z = c_z + r sin θ: the slice's radius is r cos θ and dz = r cos θ dθ, both analytic in θ. The slice area
  // is analytic in θ except where the disc reaches an edge line (distance d from the centre) or a corner:
  // there r cos θ = d, so those θ split the range into pieces each integrated by Gauss–Legendre.
  const double s0 = std::max(-1.0, (lo.z() - c.z()) / r), s1 = std::min(1.0, (hi.z() - c.z()) / r);
  const double t0 = std::asin(s0), t1 = std::asin(s1);
  std::vector<double> cuts = {t0, t1};
  const double dx[2] = {lo.x() - c.x(), hi.x() - c.x()}, dy[2] = {lo.y() - c.y(), hi.y() - c.y()};
  auto add_cut = [&](double d) {
    if (d >= r) return;
    const double t = std::acos(d / r);  // r cos θ = d at θ = ±t
    for (double s : {t, -t})
      if (s > t0 && s < t1) cuts.push_back(s);
  };
  for (int i = 0; i < 2; ++i) {
    add_cut(std::abs(dx[i]));
    add_cut(std::abs(dy[i]));
    for (int j = 0; j < 2; ++j) add_cut(std::hypot(dx[i], dy[j]));
  }
  std::sort(cuts.begin(), cuts.end());
  double volume = 0.0;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const double a = cuts[k], b = cuts[k + 1];
    if (b <= a) continue;
    // At a cut the area behaves like (θ − θ_c)^{3/2}; θ = a + (b − a)(3u² − 2u³) turns that into a power
    // series in u (the step's derivative 6u(1 − u) vanishes at both ends), which Gauss–Legendre integrates to
    // round-off.
    constexpr int kPanels = 4;  // in u, so that the series converges within each panel
    double sum = 0.0;
    for (int panel = 0; panel < kPanels; ++panel)
      for (std::size_t g = 0; g < kGaussX.size(); ++g)
        for (double sign : {-1.0, 1.0}) {
          const double u = (panel + 0.5 * (1.0 + sign * kGaussX[g])) / kPanels;
          const double theta = a + (b - a) * u * u * (3.0 - 2.0 * u);
          const double rho = r * std::cos(theta);
          sum += kGaussW[g] * 0.5 / kPanels * (b - a) * 6.0 * u * (1.0 - u) *
                 disc_rectangle_area(c.x(), c.y(), rho, lo.x(), hi.x(), lo.y(), hi.y()) * rho;
        }
    volume += sum;
  }
  return volume;
}

double packing_fraction(const RigidBodies& bodies, const Region& region) {
  const double V = region.volume();
  if (!(V > 0.0) || !std::isfinite(V))
    throw std::invalid_argument("packing_fraction: the region is empty or not finite (lo must be below hi)");
  double solid = 0.0;
  for (int i = bodies.group_begin(ShapeKind::Sphere); i < bodies.group_end(ShapeKind::Sphere); ++i)
    solid += ball_box_volume(bodies.x[i], bodies.radius[i], region);
  for (int i = bodies.group_begin(ShapeKind::Capsule); i < bodies.group_end(ShapeKind::Capsule); ++i) {
    const double r = bodies.radius[i], l = bodies.half_length[i];
    const double volume = kPi * r * r * (2.0 * l) + 4.0 / 3.0 * kPi * r * r * r;
    // The share of the axis segment x ± l u inside the box: clip the parameter s ∈ [−l, l].
    const Eigen::Vector3d u = bodies.axis(i);
    double s_lo = -l, s_hi = l;
    for (int k = 0; k < 3 && s_lo <= s_hi; ++k) {
      if (std::abs(u[k]) < 1e-15) {
        if (bodies.x[i][k] < region.lo[k] || bodies.x[i][k] > region.hi[k]) s_hi = s_lo - 1.0;
        continue;
      }
      double a = (region.lo[k] - bodies.x[i][k]) / u[k], b = (region.hi[k] - bodies.x[i][k]) / u[k];
      if (a > b) std::swap(a, b);
      s_lo = std::max(s_lo, a), s_hi = std::min(s_hi, b);
    }
    if (l == 0.0)
      solid += region.contains(bodies.x[i]) ? volume : 0.0;
    else if (s_hi > s_lo)
      solid += volume * (s_hi - s_lo) / (2.0 * l);
  }
  return solid / V;
}

namespace {

double mean_pushing_force(const std::vector<ContactForce>& contacts) {
  double sum = 0.0;
  long n = 0;
  for (const ContactForce& c : contacts) {
    const double f = c.normal_force();
    if (f > 0.0) sum += f, ++n;
  }
  return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

}  // namespace

Coordination coordination(const RigidBodies& bodies, const std::vector<ContactForce>& contacts,
                          const CoordinationOptions& options) {
  Coordination z;
  const int n = bodies.count();
  const double threshold = options.force_fraction * mean_pushing_force(contacts);
  std::vector<char> dynamic(n, 0);
  for (int i = 0; i < n; ++i) dynamic[i] = bodies.inv_mass[i] > 0.0;
  // Counted contacts: pushing above the threshold. A contact with a fixed body counts as an obstacle contact.
  std::vector<const ContactForce*> counted;
  for (const ContactForce& c : contacts)
    if (c.normal_force() > threshold && c.b >= 0 && c.b < n) counted.push_back(&c);
  auto is_body = [&](int i) { return i >= 0 && i < n && dynamic[i]; };
  std::vector<int> degree(n, 0);
  for (const ContactForce* c : counted) {
    if (is_body(c->b)) ++degree[c->b];
    if (is_body(c->a)) ++degree[c->a];
    if (is_body(c->a) && is_body(c->b))
      ++z.body_contacts;
    else if (is_body(c->a) || is_body(c->b))
      ++z.obstacle_contacts;
  }
  for (int i = 0; i < n; ++i) z.bodies += dynamic[i];
  long touching = 0;
  for (const ContactForce& c : contacts)
    touching += is_body(c.a) && is_body(c.b) && std::isfinite(c.gap) && c.gap <= options.gap_tolerance;
  z.geometric = z.bodies > 0 ? 2.0 * touching / static_cast<double>(z.bodies) : 0.0;
  z.mean = z.bodies > 0 ? (2.0 * z.body_contacts + z.obstacle_contacts) / static_cast<double>(z.bodies) : 0.0;
  // Rattlers: removed one wave at a time until every remaining body has enough contacts.
  std::vector<char> rattler(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<int> drop;
    for (int i = 0; i < n; ++i)
      if (dynamic[i] && !rattler[i] && degree[i] < options.rattler_below) drop.push_back(i);
    for (int i : drop) rattler[i] = 1, changed = true;
    if (!changed) break;
    std::fill(degree.begin(), degree.end(), 0);
    for (const ContactForce* c : counted) {
      const bool a_in = c->a < 0 || !rattler[c->a], b_in = !rattler[c->b];
      if (!(a_in && b_in)) continue;
      if (is_body(c->b)) ++degree[c->b];
      if (is_body(c->a)) ++degree[c->a];
    }
  }
  long kept_bodies = 0, kept_body_contacts = 0, kept_obstacle_contacts = 0;
  for (int i = 0; i < n; ++i) {
    if (!dynamic[i]) continue;
    if (rattler[i])
      ++z.rattlers;
    else
      ++kept_bodies;
  }
  for (const ContactForce* c : counted) {
    const bool a_in = c->a < 0 || !rattler[c->a], b_in = !rattler[c->b];
    if (!(a_in && b_in)) continue;
    if (is_body(c->a) && is_body(c->b))
      ++kept_body_contacts;
    else if (is_body(c->a) || is_body(c->b))
      ++kept_obstacle_contacts;
  }
  z.mechanical = kept_bodies > 0
                     ? (2.0 * kept_body_contacts + kept_obstacle_contacts) / static_cast<double>(kept_bodies)
                     : 0.0;
  return z;
}

ForceDistribution normal_force_distribution(const std::vector<ContactForce>& contacts, int bins,
                                            double max_ratio, double force_fraction) {
  if (bins < 1 || !(max_ratio > 0.0))
    throw std::invalid_argument("normal_force_distribution: bins must be >= 1 and max_ratio > 0");
  ForceDistribution d;
  const double threshold = force_fraction * mean_pushing_force(contacts);
  std::vector<double> f;
  for (const ContactForce& c : contacts)
    if (c.normal_force() > threshold) f.push_back(c.normal_force());
  d.contacts = static_cast<long>(f.size());
  d.edges.resize(bins + 1);
  for (int k = 0; k <= bins; ++k) d.edges[k] = max_ratio * k / bins;
  d.density.assign(bins, 0.0);
  if (f.empty()) return d;
  double sum = 0.0;
  for (double x : f) sum += x, d.max = std::max(d.max, x);
  d.mean = sum / static_cast<double>(f.size());
  const double width = max_ratio / bins;
  long above = 0;
  for (double x : f) {
    const double ratio = x / d.mean;
    above += ratio > 1.0;
    const int k = static_cast<int>(ratio / width);
    if (k < bins) d.density[k] += 1.0;
  }
  for (double& p : d.density) p /= static_cast<double>(f.size()) * width;
  d.above_mean = static_cast<double>(above) / static_cast<double>(f.size());
  return d;
}

Eigen::Matrix3d love_weber_stress(const RigidBodies& bodies, const std::vector<ContactForce>& contacts,
                                  const Region& region) {
  const double V = region.volume();
  if (!(V > 0.0)) throw std::invalid_argument("love_weber_stress: the region is empty (lo must be below hi)");
  Eigen::Matrix3d sigma = Eigen::Matrix3d::Zero();
  const int n = bodies.count();
  auto counts = [&](int i) {
    return i >= 0 && i < n && bodies.inv_mass[i] > 0.0 && region.contains(bodies.x[i]);
  };
  for (const ContactForce& c : contacts) {
    // The force on b is f, on a −f; each body's branch runs from the contact point to its centre.
    if (counts(c.b)) sigma += c.force * (bodies.x[c.b] - c.point).transpose();
    if (counts(c.a)) sigma -= c.force * (bodies.x[c.a] - c.point).transpose();
  }
  return sigma / V;
}

Eigen::Matrix3d kinetic_stress(const RigidBodies& bodies, const Region& region) {
  const double V = region.volume();
  if (!(V > 0.0)) throw std::invalid_argument("kinetic_stress: the region is empty (lo must be below hi)");
  double mass = 0.0;
  Eigen::Vector3d momentum = Eigen::Vector3d::Zero();
  for (int i = 0; i < bodies.count(); ++i)
    if (bodies.inv_mass[i] > 0.0 && region.contains(bodies.x[i]))
      mass += bodies.mass[i], momentum += bodies.mass[i] * bodies.v[i];
  Eigen::Matrix3d sigma = Eigen::Matrix3d::Zero();
  if (mass <= 0.0) return sigma;
  const Eigen::Vector3d mean = momentum / mass;
  for (int i = 0; i < bodies.count(); ++i)
    if (bodies.inv_mass[i] > 0.0 && region.contains(bodies.x[i])) {
      const Eigen::Vector3d d = bodies.v[i] - mean;
      sigma += bodies.mass[i] * d * d.transpose();
    }
  return sigma / V;
}

KineticEnergy kinetic_energy_parts(const RigidBodies& bodies) {
  KineticEnergy e;
  const int spheres_end = bodies.group_end(ShapeKind::Sphere);
  for (int i = 0; i < bodies.count(); ++i) {
    if (!(bodies.inv_mass[i] > 0.0)) continue;
    e.translation += 0.5 * bodies.mass[i] * bodies.v[i].squaredNorm();
    if (i < spheres_end) {
      if (bodies.inv_inertia[i] > 0.0) e.rotation += 0.5 * bodies.w[i].squaredNorm() / bodies.inv_inertia[i];
    } else {
      // ½ ωᵀ R diag(I) Rᵀ ω with the body-frame principal moments.
      const Eigen::Vector3d body_w = bodies.q[i].conjugate() * bodies.w[i];
      e.rotation += 0.5 * body_w.dot(bodies.inertia[i].cwiseProduct(body_w));
    }
  }
  return e;
}

MassFlowMeter::MassFlowMeter(const Eigen::Vector3d& point, const Eigen::Vector3d& normal) : point_(point) {
  const double len = normal.norm();
  if (!(len > 0.0) || !std::isfinite(len) || !point.allFinite())
    throw std::invalid_argument(
        "MassFlowMeter: the plane needs a finite point and a finite, non-zero normal");
  normal_ = normal / len;
}

void MassFlowMeter::record(const RigidBodies& bodies, double time) {
  if (!started_) t_first_ = time, started_ = true;
  t_last_ = time;
  for (int i = 0; i < bodies.count(); ++i) {
    if (!(bodies.inv_mass[i] > 0.0)) continue;
    const std::int8_t side = (bodies.x[i] - point_).dot(normal_) >= 0.0 ? 1 : -1;
    auto [it, inserted] = side_.try_emplace(body_key(bodies, i), side);
    if (inserted || it->second == side) continue;
    mass_ += side < 0 ? bodies.mass[i] : -bodies.mass[i];
    it->second = side;
  }
}

}  // namespace talus
