#include "engine/granular/GranularScenes.hpp"

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

#include "contact/Shapes.hpp"

namespace talus::granular {

namespace {

void check(const BeadSpec& s) {
  if (s.n < 1) throw std::invalid_argument("granular scene: n must be >= 1");
  if (!(s.radius > 0.0) || !(s.density > 0.0)) throw std::invalid_argument("granular scene: radius and density must be > 0");
  if (s.polydispersity < 0.0 || s.polydispersity >= 0.1)
    throw std::invalid_argument("granular scene: polydispersity must be in [0, 0.1) (beads must fit the lattice)");
  if (s.spacing < 2.0 * (1.0 + s.polydispersity) + 2.0 * s.jitter)
    throw std::invalid_argument("granular scene: lattice spacing too small for the radii and jitter");
  if (s.capsule_fraction < 0.0 || s.capsule_fraction > 1.0)
    throw std::invalid_argument("granular scene: capsule_fraction must be in [0, 1]");
}

// Uniform in [−1, 1] from a fixed generator: the same scene on every platform.
double symmetric(std::mt19937_64& g) { return 2.0 * static_cast<double>(g() >> 11) * 0x1.0p-53 - 1.0; }

// Adds the generated sphere number `index` (its place in the generator's order, and its id) when the spec keeps
// it (BeadSpec::keep_begin, keep_end).
void add_generated_sphere(Model& m, const BeadSpec& s, long index, const Eigen::Vector3d& x, double radius) {
  if (index < s.keep_begin || index >= s.keep_end) return;
  m.bodies.next_id[static_cast<int>(ShapeKind::Sphere)] = static_cast<std::uint32_t>(index);
  m.bodies.add_sphere(x, radius, s.density);
}

// After a generator's last sphere: the next id is the whole scene's count, whichever share was kept (beads added
// later, by pours or the dropped ball, take the same ids on every process).
void end_generated_spheres(Model& m, long generated) {
  m.bodies.next_id[static_cast<int>(ShapeKind::Sphere)] = static_cast<std::uint32_t>(generated);
}

// The share [keep_begin, keep_end) of `total` generated beads, clamped: what a generator reserves.
int kept_count(const BeadSpec& s, long total) {
  return static_cast<int>(std::max(0L, std::min(total, s.keep_end) - std::max(0L, s.keep_begin)));
}

// n beads on a lattice of `per_side` × `per_side` columns starting at `corner` (lower corner of the block).
void fill_lattice(Model& m, const BeadSpec& s, long n, int per_side, const Eigen::Vector3d& corner) {
  if (s.capsule_fraction > 0.0) {
    if (!s.keeps_all()) throw std::invalid_argument("granular scene: a share of the beads cannot be kept with capsules");
    const std::vector<LatticeSite> sites = lattice_sites(s, n, per_side, per_side, corner);
    m.bodies.reserve(static_cast<int>(m.bodies.count() + n));
    // Capsules are added after the beads: each kind keeps its own id sequence, so ids are those of adding them
    // in lattice order, and no bead insertion has to shift the capsule group.
    for (const LatticeSite& site : sites)
      if (!site.capsule) m.bodies.add_sphere(site.x, site.radius, s.density);
    for (const LatticeSite& site : sites)
      if (site.capsule) m.bodies.add_capsule(site.x, site.axis, 0.5 * s.radius, 0.5 * s.radius, s.density);
    return;
  }
  // Beads only: streamed, so that a process keeping a share never holds the whole lattice.
  m.bodies.reserve(m.bodies.count() + kept_count(s, n));
  for_each_lattice_site(s, n, per_side, per_side, corner,
                        [&](long k, const LatticeSite& site) { add_generated_sphere(m, s, k, site.x, site.radius); });
  end_generated_spheres(m, n);
}

Model base_model(const BeadSpec& s) {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  m.materials.set_defaults(s.mu, s.mu, s.restitution);
  return m;
}

}  // namespace

void for_each_lattice_site(const BeadSpec& s, long n, int nx, int ny, const Eigen::Vector3d& corner,
                           const std::function<void(long, const LatticeSite&)>& visit) {
  check(s);
  if (nx < 1 || ny < 1) throw std::invalid_argument("lattice: the footprint needs at least one column each way");
  std::mt19937_64 gen(s.seed), shapes(s.seed ^ 0x9e3779b97f4a7c15ull);
  const double a = s.spacing * s.radius;
  const long per_layer = static_cast<long>(nx) * ny;
  for (long k = 0; k < n; ++k) {
    const long layer = k / per_layer, in = k % per_layer;
    const double jx = s.jitter * s.radius * symmetric(gen), jy = s.jitter * s.radius * symmetric(gen);
    LatticeSite site;
    site.radius = s.radius * (1.0 + s.polydispersity * symmetric(gen));
    site.x = corner + Eigen::Vector3d((in % nx + 0.5) * a + jx, (in / nx + 0.5) * a + jy, (layer + 0.5) * a);
    // A capsule of total length 2 r fits the site like the bead it replaces (its own generator: the beads'
    // sequence, and so the plain scene, does not change with the fraction).
    if (s.capsule_fraction > 0.0 && 0.5 * (symmetric(shapes) + 1.0) < s.capsule_fraction) {
      const Eigen::Vector3d axis(symmetric(shapes), symmetric(shapes), symmetric(shapes));
      site.capsule = true;
      site.axis = axis.norm() > 1e-3 ? axis : Eigen::Vector3d::UnitZ();
    }
    visit(k, site);
  }
}

std::vector<LatticeSite> lattice_sites(const BeadSpec& s, long n, int nx, int ny, const Eigen::Vector3d& corner) {
  std::vector<LatticeSite> sites;
  sites.reserve(static_cast<std::size_t>(std::max(0L, n)));
  for_each_lattice_site(s, n, nx, ny, corner, [&](long, const LatticeSite& site) { sites.push_back(site); });
  return sites;
}

double remove_escaped_bodies(Model& m, const SceneEvents& ev, std::vector<char>& flags) {
  auto gone = [&](const Eigen::Vector3d& x) {
    return x.z() < ev.remove_below_z || (!m.periodic.axis[0] && x.x() > ev.remove_beyond_x);
  };
  double mass = 0.0;
  bool any = false;
  flags.assign(m.bodies.count(), 0);
  for (int i = 0; i < m.bodies.count(); ++i)
    if (gone(m.bodies.x[i])) flags[i] = 1, mass += m.bodies.mass[i], any = true;
  if (any) m.bodies.remove(flags);
  return mass;
}

void assign_bead_materials(Model& m, const std::vector<BeadMaterialRule>& rules, std::uint64_t seed) {
  for (const BeadMaterialRule& r : rules)
    if (r.material >= m.materials.count() || !(r.fraction >= 0.0 && r.fraction <= 1.0) || !(r.r_min <= r.r_max))
      throw std::invalid_argument("granular scene: a bead material rule names an unknown material, a fraction "
                                  "outside [0, 1] or an empty radius range");
  // Its own generator: the lattice's sequences, and so the plain scene, do not change with the rules.
  std::mt19937_64 gen(seed ^ 0x6a09e667f3bcc909ull);
  RigidBodies& b = m.bodies;
  // Draw number id for the bead of that id while ids ascend (a generated scene, or a process's share of one: the
  // same material whichever process holds the bead); in the group's order otherwise.
  std::uint64_t drawn = 0;
  for (int i = 0; i < b.spheres(); ++i) {
    if (b.id[i] >= drawn) gen.discard(b.id[i] - drawn), drawn = b.id[i];
    ++drawn;
    const double u = 0.5 * (symmetric(gen) + 1.0);
    double share = 0.0;
    for (const BeadMaterialRule& r : rules) {
      if (b.radius[i] < r.r_min || b.radius[i] > r.r_max) continue;
      share += r.fraction;
      if (u < share) {
        b.material[i] = r.material;
        break;
      }
    }
  }
}

GranularScene bead_stack(const BeadSpec& s) {
  check(s);
  GranularScene sc;
  sc.kind = "bead_stack";
  sc.model = base_model(s);
  const int k = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(s.n)) - 1e-9));
  const double width = k * s.spacing * s.radius;
  const double height = std::ceil(static_cast<double>(s.n) / (static_cast<double>(k) * k)) * s.spacing * s.radius;
  sc.model.walls = contact::box_walls(Eigen::Vector3d::Zero(), Eigen::Vector3d(width, width, height));
  fill_lattice(sc.model, s, s.n, k, Eigen::Vector3d::Zero());
  sc.t_end = 1.0;
  return sc;
}

GranularScene perturbed_stack(const BeadSpec& s, double ball_factor, double ball_density, double drop_time,
                              double impact_speed) {
  GranularScene sc = bead_stack(s);
  sc.kind = "perturbed_stack";
  // The top layer's centres, from the lattice rather than the beads (a process may hold only a share of them;
  // the jitter is horizontal, so this is every top bead's height to the bit).
  const int k = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(s.n)) - 1e-9));
  const long top_layer = (s.n - 1) / (static_cast<long>(k) * k);
  const double top = (static_cast<double>(top_layer) + 0.5) * (s.spacing * s.radius);
  const double width = k * s.spacing * s.radius;
  sc.events.drop_time = drop_time;
  sc.events.drop_radius = ball_factor * s.radius;
  sc.events.drop_density = ball_density;
  sc.events.drop_position = Eigen::Vector3d(0.5 * width, 0.5 * width, top + 2.0 * s.radius + sc.events.drop_radius);
  sc.events.drop_velocity = Eigen::Vector3d(0.0, 0.0, -impact_speed);
  sc.t_end = drop_time + 0.5;
  return sc;
}

GranularScene silo(const BeadSpec& s, double orifice_diameters) {
  check(s);
  if (!(orifice_diameters > 0.0)) throw std::invalid_argument("silo: orifice diameter must be > 0");
  GranularScene sc;
  sc.kind = "silo";
  sc.model = base_model(s);
  const int k = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(s.n)) - 1e-9));
  const double width = k * s.spacing * s.radius;
  sc.model.walls = contact::box_walls(Eigen::Vector3d::Zero(), Eigen::Vector3d(width, width, 1.0));
  sc.model.walls[0].hole_centre = Eigen::Vector3d(0.5 * width, 0.5 * width, 0.0);
  sc.model.walls[0].hole_radius = 0.5 * orifice_diameters * 2.0 * s.radius;
  if (sc.model.walls[0].hole_radius > 0.5 * width) throw std::invalid_argument("silo: orifice wider than the box");
  fill_lattice(sc.model, s, s.n, k, Eigen::Vector3d(0.0, 0.0, 0.0));
  sc.events.remove_below_z = -10.0 * s.radius;
  sc.t_end = 2.0;
  return sc;
}

GranularScene chute(const BeadSpec& s, double angle_degrees, double length_diameters, bool periodic,
                    double obstacle_diameters) {
  check(s);
  if (!(length_diameters > 0.0) || obstacle_diameters < 0.0)
    throw std::invalid_argument("chute: length must be > 0 and the obstacle height >= 0");
  GranularScene sc;
  sc.kind = "chute";
  sc.model = base_model(s);
  const double th = angle_degrees * std::numbers::pi / 180.0;
  sc.model.gravity = 9.81 * Eigen::Vector3d(std::sin(th), 0.0, -std::cos(th));
  const int across = static_cast<int>(std::ceil(std::sqrt(std::cbrt(static_cast<double>(s.n)) * 2.0)));
  const double width = across * s.spacing * s.radius;
  const double length = length_diameters * 2.0 * s.radius;
  if (periodic && length < across * s.spacing * s.radius)
    throw std::invalid_argument("chute: the period is shorter than the initial block of beads");
  // Floor and side walls; periodic: the flow direction wraps, else a back wall at x = 0 and the end x = length
  // is open (beads beyond it are removed).
  const auto box = contact::box_walls(Eigen::Vector3d::Zero(), Eigen::Vector3d(length, width, 1.0));
  if (periodic) {
    sc.model.walls = {box[0], box[3], box[4]};
    sc.model.periodic.axis[0] = true;
    sc.model.periodic.lower = Eigen::Vector3d::Zero();
    sc.model.periodic.length = Eigen::Vector3d(length, 0.0, 0.0);
  } else {
    sc.model.walls = {box[0], box[1], box[3], box[4]};
    sc.events.remove_beyond_x = length + 2.0 * s.radius;
  }
  if (obstacle_diameters > 0.0) {
    const double d = 2.0 * s.radius;
    contact::Box b;
    b.half_extent = Eigen::Vector3d(2.0 * d, 0.5 * width, 0.5 * obstacle_diameters * d);
    b.centre = Eigen::Vector3d(0.5 * length, 0.5 * width, b.half_extent.z());
    sc.model.boxes.push_back(b);
  }
  fill_lattice(sc.model, s, s.n, across, Eigen::Vector3d::Zero());
  sc.t_end = 1.0;
  return sc;
}

GranularScene drum(const BeadSpec& s, double radius_diameters, double thickness_diameters, double fill,
                   double froude) {
  check(s);
  if (!(radius_diameters >= 4.0) || !(thickness_diameters >= 4.0))
    throw std::invalid_argument("drum: radius_diameters and thickness_diameters must be >= 4 (the period spans at least 3 contact cells)");
  if (!(froude >= 0.0 && froude < 1.0)) throw std::invalid_argument("drum: froude must be in [0, 1)");
  if (s.capsule_fraction != 0.0) throw std::invalid_argument("drum: beads only (capsule_fraction must be 0)");
  GranularScene sc;
  sc.kind = "drum";
  sc.model = base_model(s);
  const double r = s.radius, d = 2.0 * r, R = radius_diameters * d, L = thickness_diameters * d;
  contact::Drum drum;
  drum.radius = R;
  drum.angular_velocity = std::sqrt(froude * sc.model.gravity.norm() / R);
  sc.model.drums.push_back(drum);
  sc.model.periodic.axis[1] = true;
  sc.model.periodic.lower = Eigen::Vector3d::Zero();
  sc.model.periodic.length = Eigen::Vector3d(0.0, L, 0.0);
  const std::vector<LatticeSite> sites = drum_bed_sites(sc.model, 0, s, fill);
  for (std::size_t k = 0; k < sites.size(); ++k)
    add_generated_sphere(sc.model, s, static_cast<long>(k), sites[k].x, sites[k].radius);
  end_generated_spheres(sc.model, static_cast<long>(sites.size()));
  sc.t_end = 2.0;
  return sc;
}

std::vector<LatticeSite> drum_bed_sites(const Model& m, int d, const BeadSpec& s, double fill) {
  if (d < 0 || d >= static_cast<int>(m.drums.size())) throw std::invalid_argument("drum bed: no drum " + std::to_string(d));
  if (!(fill > 0.0 && fill <= 0.6)) throw std::invalid_argument("drum: fill must be in (0, 0.6]");
  BeadSpec spec = s;
  spec.n = 1, spec.capsule_fraction = 0.0;
  check(spec);
  const contact::Drum& drum = m.drums[d];
  int along = -1;
  for (int a = 0; a < 3; ++a)
    if (std::abs(drum.axis[a]) > 1.0 - 1e-12) along = a;
  if (along < 0 || !m.periodic.axis[along])
    throw std::invalid_argument("drum bed: the drum's axis must be a coordinate axis that the periodic bounds wrap");
  // Up is against gravity's part across the axis; the columns run along axis × up (x for the scene's y axis).
  const Eigen::Vector3d g_across = m.gravity - m.gravity.dot(drum.axis) * drum.axis;
  if (!(g_across.norm() > 0.0)) throw std::invalid_argument("drum bed: gravity has no part across the drum's axis (no bottom to fill)");
  const Eigen::Vector3d up = -g_across.normalized(), across = drum.axis.cross(up);
  const double r = s.radius, R = drum.radius, L = m.periodic.length[along];
  if (!(R >= 8.0 * r) || !(L >= 8.0 * r))
    throw std::invalid_argument("drum: radius_diameters and thickness_diameters must be >= 4 (the period spans at least 3 contact cells)");
  // The chord height z_f below which the disc's area is the fill fraction: A(z) = R² acos(−z/R) + z √(R² − z²).
  double lo = -R, hi = R;
  for (int it = 0; it < 100; ++it) {
    const double z = 0.5 * (lo + hi);
    const double area = R * R * std::acos(-z / R) + z * std::sqrt(R * R - z * z);
    (area < fill * std::numbers::pi * R * R ? lo : hi) = z;
  }
  const double z_fill = 0.5 * (lo + hi);
  std::mt19937_64 gen(s.seed);
  const double a = s.spacing * r;
  const int ny = std::max(1, static_cast<int>(std::floor(L / a)));
  const double reach = R - r * (1.0 + s.polydispersity) - s.jitter * r - 1e-3 * r;
  // Columns symmetric about the axis, so that a bed at rest is symmetric but for the jitter.
  const int nx = static_cast<int>(std::floor(2.0 * R / a));
  std::vector<LatticeSite> sites;
  for (double z = -R + a * 0.5; z <= z_fill; z += a)
    for (int i = 0; i < nx; ++i)
      for (int j = 0; j < ny; ++j) {
        const double x = (i - 0.5 * (nx - 1)) * a + s.jitter * r * symmetric(gen);
        const double radius = r * (1.0 + s.polydispersity * symmetric(gen));
        if (!(std::hypot(x, z) <= reach)) continue;
        // For the scene's drum (centre 0, axis y, up z) this is (x, y, z) bit for bit: the other terms add zeros.
        LatticeSite site;
        site.x = drum.centre + x * across + z * up;
        site.x[along] = m.periodic.lower[along] + (j + 0.5) * L / ny;
        site.radius = radius;
        sites.push_back(site);
      }
  if (sites.empty()) throw std::invalid_argument("drum: no bead fits the filled part (raise fill)");
  return sites;
}

double drum_repose_angle(const Model& m) {
  if (m.drums.empty() || m.bodies.spheres() == 0) throw std::invalid_argument("drum_repose_angle: no drum or no beads");
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  for (int i = 0; i < m.bodies.spheres(); ++i) c += m.bodies.x[i] - m.drums.front().centre;
  return drum_repose_angle(m, c / m.bodies.spheres() + m.drums.front().centre);
}

double drum_repose_angle(const Model& m, const Eigen::Vector3d& centroid) {
  if (m.drums.empty()) throw std::invalid_argument("drum_repose_angle: no drum");
  const contact::Drum& drum = m.drums.front();
  // Two directions across the axis: "down" (gravity's part across it) and "ahead" (where a positive rotation
  // carries the bottom of the drum).
  const Eigen::Vector3d g = m.gravity - m.gravity.dot(drum.axis) * drum.axis;
  const Eigen::Vector3d down = g.normalized(), ahead = drum.axis.cross(down);
  const Eigen::Vector3d c = centroid - drum.centre;
  // Dragged by the bottom, the bed climbs the wall that the bottom moves towards: its centroid moves "ahead".
  return std::atan2(c.dot(ahead), c.dot(down)) * 180.0 / std::numbers::pi;
}

namespace {

void check_stack(const BeadSpec& s, int width, int layers, const char* what, bool exact) {
  if (width < 1 || layers < 1) throw std::invalid_argument(std::string(what) + ": width and layers must be >= 1");
  if (!(s.radius > 0.0) || !(s.density > 0.0))
    throw std::invalid_argument(std::string(what) + ": radius and density must be > 0");
  if (exact && (s.polydispersity != 0.0 || s.capsule_fraction != 0.0))
    throw std::invalid_argument(std::string(what) + ": beads must be monodisperse spheres (polydispersity 0, "
                                "capsule_fraction 0) for every contact to close exactly");
}

}  // namespace

GranularScene bead_column(const BeadSpec& s, int layers) {
  check_stack(s, 1, layers, "bead_column", true);
  GranularScene sc;
  sc.kind = "bead_column";
  sc.model = base_model(s);
  // The floor alone: a column exactly on its axis needs no side support, and side walls at zero gap would add
  // contacts whose exact reactions are all zero.
  sc.model.walls = {contact::box_walls(Eigen::Vector3d::Zero(), Eigen::Vector3d::Ones())[0]};
  const double r = s.radius;
  sc.model.bodies.reserve(kept_count(s, layers));
  for (int j = 0; j < layers; ++j) add_generated_sphere(sc.model, s, j, Eigen::Vector3d(0.0, 0.0, r + 2.0 * r * j), r);
  end_generated_spheres(sc.model, layers);
  sc.t_end = 1.0;
  return sc;
}

long packed_box_beads(int width, int layers) {
  const long k = width;
  return (layers + 1) / 2 * k * k + layers / 2 * (k - 1) * (k - 1);
}

GranularScene packed_box(const BeadSpec& s, int width, int layers) {
  check_stack(s, width, layers, "packed_box", true);
  // One bead across leaves the odd layers empty and the even ones 2√2 r apart: not a pack.
  if (width < 2) throw std::invalid_argument("packed_box: width must be >= 2");
  GranularScene sc;
  sc.kind = "packed_box";
  sc.model = base_model(s);
  const double r = s.radius, side = 2.0 * r * width;
  sc.model.walls = contact::box_walls(Eigen::Vector3d::Zero(), Eigen::Vector3d(side, side, 1.0));
  sc.model.bodies.reserve(kept_count(s, packed_box_beads(width, layers)));
  long index = 0;
  // Layer j at height r + √2 r j: a bead of an odd layer sits over the centre of four beads 2 r apart, at
  // horizontal offset √2 r from each, so the centres are √(2 r² + 2 r²) = 2 r apart: touching.
  for (int j = 0; j < layers; ++j) {
    const bool odd = j % 2 == 1;
    const int n = odd ? width - 1 : width;
    const double z = r + std::numbers::sqrt2 * r * j, x0 = odd ? 2.0 * r : r;
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < n; ++l)
        add_generated_sphere(sc.model, s, index++, Eigen::Vector3d(x0 + 2.0 * r * i, x0 + 2.0 * r * l, z), r);
  }
  end_generated_spheres(sc.model, index);
  sc.t_end = 1.0;
  return sc;
}

GranularScene pyramid(const BeadSpec& s, int layers) {
  check_stack(s, 1, layers, "pyramid", true);
  GranularScene sc;
  sc.kind = "pyramid";
  sc.model = base_model(s);
  sc.model.walls = {contact::box_walls(Eigen::Vector3d::Zero(), Eigen::Vector3d::Ones())[0]};  // the floor alone
  const double r = s.radius;
  long beads = 0;
  for (long k = 1; k <= layers; ++k) beads += k * k;
  sc.model.bodies.reserve(kept_count(s, beads));
  long index = 0;
  // Layer j (L − j beads a side) at height r + √2 r j, shifted by j r: each bead over the centre of four below,
  // √2 r from each horizontally, so 2 r apart (packed_box's packing, each layer one bead narrower).
  for (int j = 0; j < layers; ++j) {
    const int n = layers - j;
    const double z = r + std::numbers::sqrt2 * r * j, x0 = r + r * j;
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < n; ++l)
        add_generated_sphere(sc.model, s, index++, Eigen::Vector3d(x0 + 2.0 * r * i, x0 + 2.0 * r * l, z), r);
  }
  end_generated_spheres(sc.model, index);
  sc.t_end = 1.0;
  return sc;
}

GranularScene lattice_stack(const BeadSpec& spec, int width, int layers) {
  check_stack(spec, width, layers, "lattice_stack", false);
  BeadSpec s = spec;
  s.n = static_cast<long>(width) * width * layers;
  check(s);
  GranularScene sc;
  sc.kind = "lattice_stack";
  sc.model = base_model(s);
  const double a = s.spacing * s.radius;
  sc.model.walls = contact::box_walls(Eigen::Vector3d::Zero(), Eigen::Vector3d(width * a, width * a, layers * a));
  fill_lattice(sc.model, s, s.n, width, Eigen::Vector3d::Zero());
  sc.t_end = 1.0;
  return sc;
}

}  // namespace talus::granular
