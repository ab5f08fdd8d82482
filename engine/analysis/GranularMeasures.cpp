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

double packing_fraction(const RigidBodies& bodies, const Region& region, SpreadBodies* spread) {
  const double V = region.volume();
  if (!(V > 0.0) || !std::isfinite(V))
    throw std::invalid_argument("packing_fraction: the region is empty or not finite (lo must be below hi)");
  double solid = 0.0;
  const int spheres_end = spread ? spread->own_spheres() : bodies.group_end(ShapeKind::Sphere);
  for (int i = bodies.group_begin(ShapeKind::Sphere); i < spheres_end; ++i)
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
  if (spread) spread->sum(&solid, 1);
  return solid / V;
}

namespace {

bool reported(const SpreadBodies* spread, std::size_t k) { return !spread || spread->reports(static_cast<int>(k)); }

// Over the contacts this process reports (all of them without `spread`).
double mean_pushing_force(const std::vector<ContactForce>& contacts, SpreadBodies* spread) {
  double sum[2] = {0.0, 0.0};  // force, contacts
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const double f = contacts[k].normal_force();
    if (f > 0.0 && reported(spread, k)) sum[0] += f, sum[1] += 1.0;
  }
  if (spread) spread->sum(sum, 2);
  return sum[1] > 0.0 ? sum[0] / sum[1] : 0.0;
}

}  // namespace

Coordination coordination(const RigidBodies& bodies, const std::vector<ContactForce>& contacts,
                          const CoordinationOptions& options, SpreadBodies* spread) {
  Coordination z;
  const int n = bodies.count();
  // Spread: the spheres [own, group end) are copies of other processes' beads, counted by their owners.
  const int copies_begin = spread ? spread->own_spheres() : n, copies_end = spread ? bodies.group_end(ShapeKind::Sphere) : n;
  auto mine = [&](int i) { return i < copies_begin || i >= copies_end; };
  const double threshold = options.force_fraction * mean_pushing_force(contacts, spread);
  std::vector<char> dynamic(n, 0);
  for (int i = 0; i < n; ++i) dynamic[i] = bodies.inv_mass[i] > 0.0;
  // Counted contacts: pushing above the threshold. A contact with a fixed body counts as an obstacle contact.
  // Spread, every contact here gives its own beads their degree (a bead's contacts are all on its process), and
  // the reported ones make the counts.
  std::vector<std::size_t> counted;
  for (std::size_t k = 0; k < contacts.size(); ++k)
    if (contacts[k].normal_force() > threshold && contacts[k].b >= 0 && contacts[k].b < n) counted.push_back(k);
  auto is_body = [&](int i) { return i >= 0 && i < n && dynamic[i]; };
  std::vector<int> degree(n, 0);
  double sums[4] = {0.0, 0.0, 0.0, 0.0};  // bodies, body contacts, obstacle contacts, touching pairs
  for (const std::size_t k : counted) {
    const ContactForce* c = &contacts[k];
    if (is_body(c->b)) ++degree[c->b];
    if (is_body(c->a)) ++degree[c->a];
    if (!reported(spread, k)) continue;
    if (is_body(c->a) && is_body(c->b))
      sums[1] += 1.0;
    else if (is_body(c->a) || is_body(c->b))
      sums[2] += 1.0;
  }
  for (int i = 0; i < n; ++i) sums[0] += dynamic[i] && mine(i);
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const ContactForce& c = contacts[k];
    sums[3] += reported(spread, k) && is_body(c.a) && is_body(c.b) && std::isfinite(c.gap) && c.gap <= options.gap_tolerance;
  }
  if (spread) spread->sum(sums, 4);
  z.bodies = static_cast<long>(sums[0]), z.body_contacts = static_cast<long>(sums[1]);
  z.obstacle_contacts = static_cast<long>(sums[2]);
  const long touching = static_cast<long>(sums[3]);
  z.geometric = z.bodies > 0 ? 2.0 * touching / static_cast<double>(z.bodies) : 0.0;
  z.mean = z.bodies > 0 ? (2.0 * z.body_contacts + z.obstacle_contacts) / static_cast<double>(z.bodies) : 0.0;
  // Rattlers: removed one wave at a time until every remaining body has enough contacts. Spread, each process
  // decides for its own beads and hands the verdicts to their copies before the next wave counts again.
  std::vector<double> rattler(n, 0.0);
  for (;;) {
    double dropped = 0.0;
    for (int i = 0; i < n; ++i)
      if (mine(i) && dynamic[i] && rattler[i] == 0.0 && degree[i] < options.rattler_below) rattler[i] = 1.0, dropped += 1.0;
    if (spread) {
      spread->sum(&dropped, 1);
      spread->to_copies(rattler.data(), rattler.data());
    }
    if (dropped == 0.0) break;
    std::fill(degree.begin(), degree.end(), 0);
    for (const std::size_t k : counted) {
      const ContactForce* c = &contacts[k];
      const bool a_in = c->a < 0 || rattler[c->a] == 0.0, b_in = rattler[c->b] == 0.0;
      if (!(a_in && b_in)) continue;
      if (is_body(c->b)) ++degree[c->b];
      if (is_body(c->a)) ++degree[c->a];
    }
  }
  double kept[4] = {0.0, 0.0, 0.0, 0.0};  // rattlers, bodies, body contacts, obstacle contacts
  for (int i = 0; i < n; ++i) {
    if (!dynamic[i] || !mine(i)) continue;
    kept[rattler[i] != 0.0 ? 0 : 1] += 1.0;
  }
  for (const std::size_t k : counted) {
    const ContactForce* c = &contacts[k];
    const bool a_in = c->a < 0 || rattler[c->a] == 0.0, b_in = rattler[c->b] == 0.0;
    if (!(a_in && b_in) || !reported(spread, k)) continue;
    if (is_body(c->a) && is_body(c->b))
      kept[2] += 1.0;
    else if (is_body(c->a) || is_body(c->b))
      kept[3] += 1.0;
  }
  if (spread) spread->sum(kept, 4);
  z.rattlers = static_cast<long>(kept[0]);
  z.mechanical = kept[1] > 0 ? (2.0 * kept[2] + kept[3]) / kept[1] : 0.0;
  return z;
}

ForceDistribution normal_force_distribution(const std::vector<ContactForce>& contacts, int bins,
                                            double max_ratio, double force_fraction, SpreadBodies* spread) {
  if (bins < 1 || !(max_ratio > 0.0))
    throw std::invalid_argument("normal_force_distribution: bins must be >= 1 and max_ratio > 0");
  ForceDistribution d;
  const double threshold = force_fraction * mean_pushing_force(contacts, spread);
  std::vector<double> f;
  for (std::size_t k = 0; k < contacts.size(); ++k)
    if (contacts[k].normal_force() > threshold && reported(spread, k)) f.push_back(contacts[k].normal_force());
  double count_sum[2] = {static_cast<double>(f.size()), 0.0}, largest = 0.0;
  for (double x : f) count_sum[1] += x, largest = std::max(largest, x);
  if (spread) spread->sum(count_sum, 2), spread->max(&largest, 1);
  d.contacts = static_cast<long>(count_sum[0]);
  d.edges.resize(bins + 1);
  for (int k = 0; k <= bins; ++k) d.edges[k] = max_ratio * k / bins;
  d.density.assign(bins, 0.0);
  if (d.contacts == 0) return d;
  d.max = largest;
  d.mean = count_sum[1] / count_sum[0];
  const double width = max_ratio / bins;
  std::vector<double> tally(bins + 1, 0.0);  // the bins, then the contacts above the mean
  for (double x : f) {
    const double ratio = x / d.mean;
    tally[bins] += ratio > 1.0;
    const int k = static_cast<int>(ratio / width);
    if (k < bins) tally[k] += 1.0;
  }
  if (spread) spread->sum(tally.data(), bins + 1);
  for (int k = 0; k < bins; ++k) d.density[k] = tally[k] / (count_sum[0] * width);
  d.above_mean = tally[bins] / count_sum[0];
  return d;
}

Eigen::Matrix3d love_weber_stress(const RigidBodies& bodies, const std::vector<ContactForce>& contacts,
                                  const Region& region, SpreadBodies* spread, const contact::Periodicity* periodic) {
  const double V = region.volume();
  if (!(V > 0.0)) throw std::invalid_argument("love_weber_stress: the region is empty (lo must be below hi)");
  const bool images = periodic && periodic->any();
  auto branch = [&](int i, const Eigen::Vector3d& point) -> Eigen::Vector3d {
    const Eigen::Vector3d d = bodies.x[i] - point;
    return images ? periodic->minimum_image(d) : d;
  };
  Eigen::Matrix3d sigma = Eigen::Matrix3d::Zero();
  const int n = bodies.count();
  auto counts = [&](int i) {
    return i >= 0 && i < n && bodies.inv_mass[i] > 0.0 && region.contains(bodies.x[i]);
  };
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const ContactForce& c = contacts[k];
    if (!reported(spread, k)) continue;
    // The force on b is f, on a −f; each body's branch runs from the contact point to its centre.
    if (counts(c.b)) sigma += c.force * branch(c.b, c.point).transpose();
    if (counts(c.a)) sigma -= c.force * branch(c.a, c.point).transpose();
  }
  if (spread) spread->sum(sigma.data(), 9);
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

KineticEnergy kinetic_energy_parts(const RigidBodies& bodies, SpreadBodies* spread) {
  KineticEnergy e;
  const int spheres_end = bodies.group_end(ShapeKind::Sphere);
  const int copies_begin = spread ? spread->own_spheres() : spheres_end;
  for (int i = 0; i < bodies.count(); ++i) {
    if (!(bodies.inv_mass[i] > 0.0) || (i >= copies_begin && i < spheres_end)) continue;
    e.translation += 0.5 * bodies.mass[i] * bodies.v[i].squaredNorm();
    if (i < spheres_end) {
      if (bodies.inv_inertia[i] > 0.0) e.rotation += 0.5 * bodies.w[i].squaredNorm() / bodies.inv_inertia[i];
    } else {
      // ½ ωᵀ R diag(I) Rᵀ ω with the body-frame principal moments.
      const Eigen::Vector3d body_w = bodies.q[i].conjugate() * bodies.w[i];
      e.rotation += 0.5 * body_w.dot(bodies.inertia[i].cwiseProduct(body_w));
    }
  }
  if (spread) {
    double parts[2] = {e.translation, e.rotation};
    spread->sum(parts, 2);
    e.translation = parts[0], e.rotation = parts[1];
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
