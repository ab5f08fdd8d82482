// The large path's part of the restart archive (LargePathRestart.hpp; the layout: RestartArchive.hpp).
#include "apps/LargePathRestart.hpp"

#include "engine/granular/ObstacleBodies.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "engine/granular/GranularFailure.hpp"

namespace talus::app {

namespace {

using Path = std::filesystem::path;
using contact::ContactKey;

constexpr const char* kCacheWhat = "contacts, every kind (contact/ContactKey.hpp)";
constexpr const char* kRollingWhat = "contacts' rolling impulses (torque impulse / R*, world vectors in the tangent plane)";
constexpr const char* kPositionWhat = "contacts' position corrections (generalized-α)";

// The optional warm starts (OptionalWarmStart): their group under /contacts, their rows per piece under /pieces.
struct OptionalCacheNames {
  const char* group;
  const char* entries;
  const char* what;
};
constexpr std::array<OptionalCacheNames, kOptionalWarmStarts> kOptionalCaches = {
    {{"position_cache", "position_entries", kPositionWhat}, {"rolling_cache", "rolling_entries", kRollingWhat}}};

std::string keys_description(const char* what) {
  return std::string("cache keys of the ") + what + " (contact/ContactCache.hpp), strictly increasing";
}
constexpr const char* kImpulsesUnits = "N s";
constexpr const char* kImpulsesDescription = "impulse of each contact over the last step, world frame";

void write_cache_rows(hid_t parent, const char* name, const ContactKey* keys, const std::vector<Eigen::Vector3d>& impulses,
                      const char* what, const Path& f) {
  ArchiveGroup g(parent, name, true, f, "/contacts/");
  ArchiveWriter w{g.id, std::string("/contacts/") + name + "/", f, {}};
  w.dataset("keys", H5T_STD_U64LE, H5T_NATIVE_UINT64, keys, impulses.size(), 1, "1", keys_description(what));
  w.vectors("impulses", impulses, kImpulsesUnits, kImpulsesDescription);
}

void write_cache(hid_t parent, const char* name, const contact::ContactCache& cache, const char* what, const Path& f) {
  write_cache_rows(parent, name, cache.keys().data(), cache.impulses(), what, f);
}

// `pieced`: an archive in pieces, whose entries follow one another piece by piece: put in key order first (the
// pieces hold disjoint entries, so the keys must still be distinct).
CacheContent read_cache_content(const ArchiveReader& r, bool pieced = false) {
  CacheContent c;
  const hsize_t all = r.rows("keys"), k = r.window_rows(all);
  r.read("keys", all, 1, H5T_NATIVE_UINT64, c.keys);
  const std::vector<double> x = r.finite_doubles("impulses", all, 3);
  c.impulses.resize(k);
  for (hsize_t i = 0; i < k; ++i) c.impulses[i] = {x[3 * i], x[3 * i + 1], x[3 * i + 2]};
  if (pieced) {
    std::vector<std::pair<ContactKey, hsize_t>> order(k);
    for (hsize_t i = 0; i < k; ++i) order[i] = {c.keys[i], i};
    std::sort(order.begin(), order.end());
    CacheContent sorted;
    sorted.keys.resize(k), sorted.impulses.resize(k);
    for (hsize_t i = 0; i < k; ++i) sorted.keys[i] = order[i].first, sorted.impulses[i] = c.impulses[order[i].second];
    c = std::move(sorted);
  }
  for (hsize_t i = 1; i < k; ++i)
    if (!(c.keys[i - 1] < c.keys[i]))
      r.fail("keys", (pieced ? "key " + std::to_string(c.keys[i]) + " appears twice (expected each contact in one piece)"
                             : "row " + std::to_string(r.window.first + i) +
                                   " is not above the previous one (expected strictly increasing keys)"));
  return c;
}

// An archive in pieces: every piece named by /pieces is beside the index, belongs to it (the same clock) and holds
// the rows the index maps (a missing piece would read as fill values). Returns whether the archive is in pieces.
// `share`: a process reading its share of the rows checks only the pieces it reads from (each piece is then
// checked by the processes reading it, not by every process: R² files opened otherwise).
bool check_pieces(hid_t f, const Path& file, ArchiveShare share) {
  if (!has_link(f, "pieces")) return false;
  ArchiveGroup g(f, "pieces", false, file);
  const ArchiveReader r{g.id, "/pieces/", file};
  const std::vector<std::string> files = read_text_list(g.id, "files", file);
  const auto beads = r.integers("beads", files.size(), "one per piece (/pieces/files)");
  const auto entries = r.integers("entries", files.size(), "one per piece (/pieces/files)");
  std::array<bool, kOptionalWarmStarts> optional{};
  std::array<std::vector<long long>, kOptionalWarmStarts> optional_entries;
  for (int j = 0; j < kOptionalWarmStarts; ++j)
    if ((optional[j] = r.has(kOptionalCaches[j].entries)))
      optional_entries[j] = r.integers(kOptionalCaches[j].entries, files.size(), "one per piece (/pieces/files)");
  const ArchiveReader root{f, "/", file};
  const auto clock = root.doubles("clock", root.rows("clock"), 1);
  // The rows of each kind this process reads, and where each piece's rows start.
  auto total = [](const std::vector<long long>& rows) {
    long long t = 0;
    for (long long n : rows) t += std::max(0LL, n);
    return static_cast<hsize_t>(t);
  };
  constexpr int kKinds = 2 + kOptionalWarmStarts;
  const std::vector<long long>* kinds[kKinds] = {&beads, &entries};
  for (int j = 0; j < kOptionalWarmStarts; ++j) kinds[2 + j] = &optional_entries[j];
  RowWindow read[kKinds];
  for (int j = 0; j < kKinds; ++j)
    if (share.shares > 1) read[j] = RowWindow::share(total(*kinds[j]), share.share, share.shares);
  hsize_t start[kKinds] = {};
  for (std::size_t k = 0; k < files.size(); ++k) {
    bool reads = share.shares <= 1;
    for (int j = 0; j < kKinds; ++j) {
      if (kinds[j]->size() != files.size()) continue;
      const hsize_t n = static_cast<hsize_t>(std::max(0LL, (*kinds[j])[k]));
      reads = reads || (start[j] < read[j].first + read[j].count && read[j].first < start[j] + n);
      start[j] += n;
    }
    if (!reads) continue;
    const std::string what = "piece " + std::to_string(k) + " (" + files[k] + ")";
    const Path name(files[k]);
    if (name.empty() || name.has_parent_path() || name.is_absolute())
      r.fail("files", what + " is not a file name beside the index");
    const Path piece = file.parent_path() / name;
    if (!std::filesystem::is_regular_file(piece))
      r.fail("files", what + ": no such file beside the index (an archive in pieces is restart.h5 with every piece it "
                             "names, copied together)");
    read_archive(piece, [&](hid_t pf) {
      const ArchiveReader pr{pf, "/", piece};
      const auto pc = pr.doubles("clock", pr.rows("clock"), 1);
      if (pc.size() < 2 || clock.size() < 2 || pc[0] != clock[0] || pc[1] != clock[1])
        r.fail("files", what + " holds step " + (pc.size() > 1 ? ArchiveReader::num(pc[1]) : "?") + " at t = " +
                            (pc.empty() ? "?" : ArchiveReader::num(pc[0])) + ", the index step " +
                            (clock.size() > 1 ? ArchiveReader::num(clock[1]) : "?") +
                            " (expected the pieces written with this index)");
      ArchiveGroup b(pf, "beads", false, piece);
      const hsize_t n = ArchiveReader{b.id, "/beads/", piece}.rows("radius");
      ArchiveGroup c(pf, "contacts", false, piece);
      ArchiveGroup cc(c.id, "cache", false, piece, "/contacts/");
      const hsize_t e = ArchiveReader{cc.id, "/contacts/cache/", piece}.rows("keys");
      if (n != static_cast<hsize_t>(beads[k]) || e != static_cast<hsize_t>(entries[k]))
        r.fail("files", what + " holds " + std::to_string(n) + " beads and " + std::to_string(e) +
                            " contacts, the index " + std::to_string(beads[k]) + " and " + std::to_string(entries[k]) +
                            " (expected the pieces written with this index)");
      for (int j = 0; j < kOptionalWarmStarts; ++j) {
        if (!optional[j]) continue;
        const OptionalCacheNames& o = kOptionalCaches[j];
        if (!has_link(c.id, o.group))
          r.fail(o.entries, what + " has no /contacts/" + o.group + " (expected the pieces written with this index)");
        ArchiveGroup oc(c.id, o.group, false, piece, "/contacts/");
        const hsize_t oe = ArchiveReader{oc.id, std::string("/contacts/") + o.group + "/", piece}.rows("keys");
        if (oe != static_cast<hsize_t>(optional_entries[j][k]))
          r.fail(o.entries, what + " holds " + std::to_string(oe) + " rows of /contacts/" + o.group + ", the index " +
                                std::to_string(optional_entries[j][k]) + " (expected the pieces written with this index)");
      }
    });
  }
  return true;
}

Eigen::Vector3d row3(const std::vector<double>& a, hsize_t i) { return {a[3 * i], a[3 * i + 1], a[3 * i + 2]}; }

// Elements [begin, end) of one of the store's arrays: a kind's group as the archive stores it.
template <class T>
std::vector<T> slice(const std::vector<T>& a, int begin, int end) {
  return std::vector<T>(a.begin() + begin, a.begin() + end);
}

// The material ids of bodies [begin, end), only when one is not the default "bead" (or `always`: every piece of
// an archive in pieces writes them when one piece has to): an archive of a scene without materials stays what it
// was before materials existed (and an archive without them reads back as all "bead"). The description names the
// table the ids index.
std::string material_description(const std::vector<std::string>& names) {
  std::string table;
  for (std::size_t k = 0; k < names.size(); ++k) table += (k ? ", " : "") + std::to_string(k) + " " + names[k];
  return "material ids into the scene's table (" + table + ")";
}

void write_materials(ArchiveWriter& w, const RigidBodies& all, int begin, int end, const std::vector<std::string>& names,
                     bool always = false) {
  bool any = always;
  for (int i = begin; i < end; ++i) any = any || all.material[i] != kBeadMaterial;
  if (!any) return;
  w.dataset("material", H5T_STD_U8LE, H5T_NATIVE_UINT8, all.material.data() + begin, end - begin, 1, "1",
            material_description(names));
}

// The bead group's datasets (the sphere group of the store): name, columns, units, what it holds.
struct BeadDataset {
  const char* name;
  int cols;
  const char* units;
  const char* description;
};
constexpr BeadDataset kBeadDatasets[] = {
    {"x", 3, "m", "bead centres, world frame"},
    {"v", 3, "m/s", "bead velocities, world frame"},
    {"w", 3, "rad/s", "bead angular velocities, world frame"},
    {"radius", 1, "m", "bead radii"},
    {"mass", 1, "kg", "bead masses"},
    {"inv_mass", 1, "1/kg", "inverse masses (0: fixed bead)"},
    {"inv_inertia", 1, "1/(kg m^2)", "inverse moments of inertia (0: fixed bead)"},
    {"id", 1, "1", "stable bead ids (contact cache keys use them)"},
};

// The first `count` spheres of the one store (all of them, or a partitioned model's own beads).
void write_bead_group(ArchiveWriter& w, const RigidBodies& all, int count, const std::vector<std::string>& names,
                      bool always_materials = false) {
  for (const BeadDataset& d : kBeadDatasets) {
    const std::string name = d.name;
    std::vector<double>& buf = w.buf;
    buf.resize(static_cast<std::size_t>(d.cols) * count);
    for (int i = 0; i < count; ++i) {
      const double* row = name == "x"   ? all.x[i].data()
                          : name == "v" ? all.v[i].data()
                          : name == "w" ? all.w[i].data()
                                        : nullptr;
      if (row) {
        for (int c = 0; c < 3; ++c) buf[3 * static_cast<std::size_t>(i) + c] = row[c];
      } else {
        buf[i] = name == "radius"     ? all.radius[i]
                 : name == "mass"     ? all.mass[i]
                 : name == "inv_mass" ? all.inv_mass[i]
                 : name == "inv_inertia" ? all.inv_inertia[i]
                                         : static_cast<double>(all.id[i]);
      }
    }
    w.matrix(d.name, buf.data(), static_cast<hsize_t>(count), static_cast<hsize_t>(d.cols), d.units, d.description);
  }
  write_materials(w, all, 0, count, names, always_materials);
}

// The index's bead group: every dataset virtual, over the pieces.
void write_virtual_beads(ArchiveWriter& w, const ArchivePieces& p, const std::vector<std::string>& names) {
  for (const BeadDataset& d : kBeadDatasets)
    w.virtual_rows(d.name, H5T_IEEE_F64LE, p.files, p.beads, static_cast<hsize_t>(d.cols), d.units, d.description);
  if (p.material) w.virtual_rows("material", H5T_STD_U8LE, p.files, p.beads, 1, "1", material_description(names));
}

// The capsule group of the one store.
void write_capsule_group(ArchiveWriter& w, const RigidBodies& all, const std::vector<std::string>& names) {
  RigidBodies k;
  const int s = all.group_begin(ShapeKind::Capsule), e = all.group_end(ShapeKind::Capsule);
  k.x = slice(all.x, s, e), k.v = slice(all.v, s, e), k.w = slice(all.w, s, e), k.q = slice(all.q, s, e);
  k.radius = slice(all.radius, s, e), k.half_length = slice(all.half_length, s, e), k.mass = slice(all.mass, s, e);
  k.inv_mass = slice(all.inv_mass, s, e), k.inertia = slice(all.inertia, s, e), k.id = slice(all.id, s, e);
  w.vectors("x", k.x, "m", "capsule centres of mass, world frame");
  w.vectors("v", k.v, "m/s", "capsule velocities, world frame");
  w.vectors("w", k.w, "rad/s", "capsule angular velocities, world frame");
  w.rows("q", k.q, 4, [](const Eigen::Quaterniond& q, int c) { return c == 0 ? q.w() : q.vec()[c - 1]; }, "1",
         "orientations, unit quaternions (w, x, y, z), body to world; body z is the axis");
  w.scalars("radius", k.radius, "m", "capsule radii");
  w.scalars("half_length", k.half_length, "m", "half lengths of the axis segments");
  w.scalars("mass", k.mass, "kg", "capsule masses");
  w.scalars("inv_mass", k.inv_mass, "1/kg", "inverse masses (0: fixed)");
  w.vectors("inertia", k.inertia, "kg m^2", "principal moments of inertia (body x, y, z)");
  w.ids("id", k.id, "stable capsule ids");
  write_materials(w, all, s, e, names);
}

// Beads keep the archive's masses and inverses (not recomputed from a density) so that the state comes back
// bitwise.
// Appends the archive's beads to the sphere group of `b` (read before any capsule).
// The material ids of the n bodies of a group (all "bead" when the archive has none), each below `count`.
std::vector<std::uint8_t> read_materials(const ArchiveReader& r, hsize_t n, int count) {
  std::vector<std::uint8_t> id(r.window_rows(n), kBeadMaterial);
  if (!r.has("material")) return id;
  r.read("material", n, 1, H5T_NATIVE_UINT8, id);
  for (hsize_t i = 0; i < id.size(); ++i)
    if (id[i] >= count)
      r.fail("material", "row " + std::to_string(r.window.first + i) + " is " + std::to_string(id[i]) + " (expected a material id below the " +
                             std::to_string(count) + " materials of the scene)");
  return id;
}

// With a window (a process's share of the archive), its rows only.
void read_bead_group(const ArchiveReader& r, RigidBodies& b, int materials) {
  const hsize_t all = r.rows("radius"), n = r.window_rows(all);
  const auto x = r.doubles("x", all, 3), v = r.doubles("v", all, 3), w = r.doubles("w", all, 3);
  const auto radius = r.doubles("radius", all, 1), mass = r.doubles("mass", all, 1);
  r.finite("x", x, 3), r.finite("v", v, 3), r.finite("w", w, 3);
  r.positive("radius", radius), r.positive("mass", mass);
  std::vector<double> inv_mass(n), inv_inertia(n);
  for (hsize_t i = 0; i < n; ++i) inv_mass[i] = 1.0 / mass[i], inv_inertia[i] = 1.0 / (0.4 * mass[i] * radius[i] * radius[i]);
  if (r.has("inv_mass")) inv_mass = r.doubles("inv_mass", all, 1), r.non_negative("inv_mass", inv_mass);
  if (r.has("inv_inertia")) {
    inv_inertia = r.doubles("inv_inertia", all, 1), r.non_negative("inv_inertia", inv_inertia);
    // Radius, mass and inertia of a free bead agree (I = 2/5 m r²): a radius scaled alone (a corrupt or edited
    // archive) would otherwise pass as a valid, much larger bead.
    for (hsize_t i = 0; i < n; ++i) {
      if (inv_mass[i] == 0.0 && inv_inertia[i] == 0.0) continue;  // a fixed bead
      if (std::abs(inv_mass[i] * mass[i] - 1.0) > 1e-12)
        r.fail("inv_mass", "row " + std::to_string(r.window.first + i) + " is " + ArchiveReader::num(inv_mass[i]) + " (expected 1 / mass = " +
                               ArchiveReader::num(1.0 / mass[i]) + ", or 0 for a fixed bead)");
      const double from_inertia = std::sqrt(1.0 / (0.4 * mass[i] * inv_inertia[i]));
      if (!(std::abs(from_inertia / radius[i] - 1.0) <= 1e-9))
        r.fail("radius", "row " + std::to_string(r.window.first + i) + " is " + ArchiveReader::num(radius[i]) + " but the bead's mass and inverse "
                             "inertia (/beads/mass, /beads/inv_inertia) give " + ArchiveReader::num(from_inertia) +
                             " (expected radius, mass and inertia to agree: I = 2/5 m r^2)");
    }
  }
  const std::vector<std::uint32_t> id = r.ids("id", all);
  const std::vector<std::uint8_t> material = read_materials(r, all, materials);
  b.reserve(b.count() + static_cast<int>(n));
  for (hsize_t k = 0; k < n; ++k) {
    b.add_sphere(row3(x, k), radius[k], 1.0, row3(v, k));
    const int i = b.spheres() - 1;
    b.w[i] = row3(w, k);
    b.mass[i] = mass[k];
    b.inv_mass[i] = inv_mass[k];
    b.inv_inertia[i] = inv_inertia[k];
    b.inertia[i] = Eigen::Vector3d::Constant(inv_inertia[k] > 0.0 ? 1.0 / inv_inertia[k] : 0.4 * mass[k] * radius[k] * radius[k]);
    b.id[i] = id[k];
    b.material[i] = material[k];
  }
}

// Appends the archive's capsules to the capsule group of `k`.
void read_capsule_group(const ArchiveReader& r, RigidBodies& k, int materials) {
  const hsize_t n = r.rows("radius");
  const auto x = r.doubles("x", n, 3), v = r.doubles("v", n, 3), w = r.doubles("w", n, 3);
  const auto q = r.doubles("q", n, 4), radius = r.doubles("radius", n, 1);
  const auto half = r.doubles("half_length", n, 1), mass = r.doubles("mass", n, 1);
  const auto inv_mass = r.doubles("inv_mass", n, 1), inertia = r.doubles("inertia", n, 3);
  r.finite("x", x, 3), r.finite("v", v, 3), r.finite("w", w, 3), r.finite("q", q, 4);
  r.positive("radius", radius), r.positive("half_length", half), r.positive("mass", mass);
  r.non_negative("inv_mass", inv_mass);
  r.each("inertia", inertia, 3, [](double s) { return std::isfinite(s) && s > 0.0; }, "a positive finite number");
  // The shape (radius, half length) and the mass give the principal inertia (RigidBodies.hpp); a dimension
  // changed alone is refused.
  for (hsize_t i = 0; i < n; ++i) {
    double m1 = 0.0;
    Eigen::Vector3d I1;
    capsule_mass_properties(half[i], radius[i], 1.0, m1, I1);
    const Eigen::Vector3d expected = I1 * (mass[i] / m1);
    for (int c = 0; c < 3; ++c)
      if (!(std::abs(inertia[3 * i + c] / expected[c] - 1.0) <= 1e-9))
        r.fail("inertia", "row " + std::to_string(i) + " column " + std::to_string(c) + " is " +
                              ArchiveReader::num(inertia[3 * i + c]) + " but the capsule's radius, half length and mass give " +
                              ArchiveReader::num(expected[c]) + " (expected them to agree)");
  }
  for (hsize_t i = 0; i < n; ++i) {
    const double norm = Eigen::Vector4d(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]).norm();
    if (std::abs(norm - 1.0) > 1e-6)
      r.fail("q", "row " + std::to_string(i) + " has norm " + ArchiveReader::num(norm) + " (expected a unit quaternion)");
  }
  const std::vector<std::uint32_t> id = r.ids("id", n);
  const std::vector<std::uint8_t> material = read_materials(r, n, materials);
  for (hsize_t j = 0; j < n; ++j) {
    const int i = k.capsule(k.capsules());
    k.add_capsule(row3(x, j), Eigen::Vector3d::UnitZ(), half[j], radius[j], 1.0, row3(v, j));
    k.w[i] = row3(w, j);
    k.q[i] = Eigen::Quaterniond(q[4 * j], q[4 * j + 1], q[4 * j + 2], q[4 * j + 3]);
    k.mass[i] = mass[j];
    k.inv_mass[i] = inv_mass[j];
    k.inertia[i] = row3(inertia, j);
    k.id[i] = id[j];
    k.material[i] = material[j];
  }
  refresh_world_inertia(k);
}

}  // namespace

StepperArchive stepper_archive(granular::GranularStepper& s) {
  const bool ga = s.parameters().scheme == granular::GranularScheme::GeneralizedAlpha;
  StepperArchive a;
  a.cache = &s.contact_cache();
  if (s.has_rolling_resistance()) a.rolling_cache = &s.rolling_cache();
  a.joint_impulses = &s.joint_impulses();
  if (ga) {
    a.position_cache = &s.position_cache();
    a.joint_position_impulses = &s.joint_position_impulses();
    s.beam_accelerations(a.beam_a, a.beam_vdot);
  }
  return a;
}

ArchiveHeader large_path_header(const std::string& scene, const granular::GranularParameters& p) {
  const bool ga = p.scheme == granular::GranularScheme::GeneralizedAlpha;
  ArchiveHeader h;
  h.path = "large";
  h.scene = scene;
  h.scheme = ga ? "generalized_alpha" : "moreau_jean";
  std::ostringstream o;
  o.precision(17);
  o << h.scheme << " h=" << p.h << " solver=" << granular::granular_solver_name(p.solver)
    << " tolerance=" << p.tolerance << " max_sweeps=" << p.max_sweeps;
  if (ga) o << " rho_infinity=" << p.rho_infinity;
  else o << " beam_theta=" << p.beam_theta;
  h.settings = o.str();
  return h;
}

void restore_stepper(const RestartExtras& x, granular::GranularStepper& s) {
  if (x.has_contacts) x.cache.load_into(s.contact_cache());
  if (x.has_position_cache) x.position_cache.load_into(s.position_cache());
  if (x.has_rolling_cache) x.rolling_cache.load_into(s.rolling_cache());
  if (x.has_joints) s.restore_joint_impulses(x.joint_impulses, x.joint_position_impulses);
  if (x.has_beam_accelerations && s.parameters().scheme == granular::GranularScheme::GeneralizedAlpha)
    s.restore_beam_accelerations(x.beam_a, x.beam_vdot);
}

std::string restart_piece_name(long step, int rank) {
  return "restart_s" + std::to_string(step) + "_p" + std::to_string(rank) + ".h5";
}

void write_restart_piece(const Path& file, const talus::Model& local, int own, const CacheContent& cache,
                         const std::array<const CacheContent*, kOptionalWarmStarts>& optional, bool material,
                         const ArchiveHeader& header, double h) {
  for (int i = 0; i < own; ++i)
    if (!local.bodies.x[i].allFinite() || !local.bodies.v[i].allFinite() || !local.bodies.w[i].allFinite())
      throw std::runtime_error("restart archive " + file.string() + ": not written: the state is not finite (bead " +
                               std::to_string(local.bodies.id[i]) + ")");
  write_archive(file, [&](hid_t f) {
    ArchiveHeader head = header;
    head.path = "large";
    write_header(f, head, file);
    write_text_list(f, "piece_of", {kRestartFile},
                    "this file is one process's piece of the archive named here (read that archive, not this piece)", file);
    {
      ArchiveGroup g(f, "beads", true, file);
      ArchiveWriter w{g.id, "/beads/", file, {}};
      write_bead_group(w, local.bodies, own, local.materials.names, material);
    }
    write_clock(f, file, local.time, local.step, h, local.bodies.next_id[0], local.bodies.next_id[1]);
    ArchiveGroup g(f, "contacts", true, file);
    write_cache_rows(g.id, "cache", cache.keys.data(), cache.impulses, kCacheWhat, file);
    for (int j = 0; j < kOptionalWarmStarts; ++j)
      if (optional[j])
        write_cache_rows(g.id, kOptionalCaches[j].group, optional[j]->keys.data(), optional[j]->impulses,
                         kOptionalCaches[j].what, file);
  });
}

void write_restart(const Path& file, const talus::Model& m, const StepperArchive* st, const RunCounters* counters,
                   const ArchiveHeader* header, double h, const ArchivePieces* pieces) {
  if (const std::string bad = granular::non_finite_body(m); !bad.empty())
    throw std::runtime_error("restart archive " + file.string() + ": not written: the state is not finite (" + bad + ")");
  write_archive(file, [&](hid_t f) {
    ArchiveHeader head = header ? *header : ArchiveHeader{};
    head.path = "large";
    write_header(f, head, file);
    {
      ArchiveGroup g(f, "beads", true, file);
      ArchiveWriter w{g.id, "/beads/", file, {}};
      if (pieces) write_virtual_beads(w, *pieces, m.materials.names);
      else write_bead_group(w, m.bodies, m.bodies.spheres(), m.materials.names);
    }
    if (m.bodies.capsules() > 0) {
      ArchiveGroup g(f, "capsules", true, file);
      ArchiveWriter w{g.id, "/capsules/", file, {}};
      write_capsule_group(w, m.bodies, m.materials.names);
    }
    write_clock(f, file, m.time, m.step, h, m.bodies.next_id[0], m.bodies.next_id[1]);
    if (pieces) {
      ArchiveGroup g(f, "contacts", true, file);
      ArchiveGroup c(g.id, "cache", true, file, "/contacts/");
      ArchiveWriter w{c.id, "/contacts/cache/", file, {}};
      w.virtual_rows("keys", H5T_STD_U64LE, pieces->files, pieces->entries, 1, "1",
                     keys_description(kCacheWhat) + " within each piece (/pieces)");
      w.virtual_rows("impulses", H5T_IEEE_F64LE, pieces->files, pieces->entries, 3, kImpulsesUnits, kImpulsesDescription);
      for (int j = 0; j < kOptionalWarmStarts; ++j) {
        if (!pieces->optional[j]) continue;
        const OptionalCacheNames& o = kOptionalCaches[j];
        ArchiveGroup oc(g.id, o.group, true, file, "/contacts/");
        ArchiveWriter ow{oc.id, std::string("/contacts/") + o.group + "/", file, {}};
        ow.virtual_rows("keys", H5T_STD_U64LE, pieces->files, pieces->optional_entries[j], 1, "1",
                        keys_description(o.what) + " within each piece (/pieces)");
        ow.virtual_rows("impulses", H5T_IEEE_F64LE, pieces->files, pieces->optional_entries[j], 3, kImpulsesUnits,
                        kImpulsesDescription);
      }
      ArchiveGroup pg(f, "pieces", true, file);
      ArchiveWriter pw{pg.id, "/pieces/", file, {}};
      write_text_list(pg.id, "files", pieces->files, "the pieces of this archive, one per process, beside it", file);
      std::vector<long long> beads(pieces->beads.begin(), pieces->beads.end()),
          entries(pieces->entries.begin(), pieces->entries.end());
      pw.integers("beads", beads, "1", "rows of /beads in each piece");
      pw.integers("entries", entries, "1", "rows of /contacts/cache in each piece");
      for (int j = 0; j < kOptionalWarmStarts; ++j) {
        if (!pieces->optional[j]) continue;
        const OptionalCacheNames& o = kOptionalCaches[j];
        std::vector<long long> rows(pieces->optional_entries[j].begin(), pieces->optional_entries[j].end());
        pw.integers(o.entries, rows, "1", std::string("rows of /contacts/") + o.group + " in each piece");
      }
    } else if (st && st->cache) {
      ArchiveGroup g(f, "contacts", true, file);
      write_cache(g.id, "cache", *st->cache, kCacheWhat, file);
      if (st->position_cache)
        write_cache(g.id, "position_cache", *st->position_cache, kPositionWhat, file);
      if (st->rolling_cache && st->rolling_cache->size() > 0)
        write_cache(g.id, "rolling_cache", *st->rolling_cache, kRollingWhat, file);
    }
    std::size_t beam_unknowns = 0;
    if (!m.lti.empty()) {
      // The FE beams' state (engine/granular/BeamContacts.hpp), system after system in the model's order.
      ArchiveGroup g(f, "beams", true, file);
      ArchiveWriter w{g.id, "/beams/", file, {}};
      std::vector<double> q, v, dofs;
      for (const LagrangianLti& s : m.lti) {
        q.insert(q.end(), s.q.data(), s.q.data() + s.q.size());
        v.insert(v.end(), s.v.data(), s.v.data() + s.v.size());
        dofs.push_back(static_cast<double>(s.dofs()));
      }
      w.matrix("dofs", dofs.data(), dofs.size(), 1, "1", "unknowns of each beam (the model's LTI systems, in order)");
      w.matrix("q", q.data(), q.size(), 1, "m, rad", "the beams' coordinates (nodal deflections and slopes)");
      w.matrix("v", v.data(), v.size(), 1, "m/s, rad/s", "the beams' velocities");
      beam_unknowns = q.size();
    }
    if (st && beam_unknowns > 0 && st->beam_a.size() == beam_unknowns && st->beam_vdot.size() == beam_unknowns) {
      ArchiveGroup g(f, "generalized_alpha", true, file);
      ArchiveWriter w{g.id, "/generalized_alpha/", file, {}};
      w.matrix("acceleration", st->beam_a.data(), beam_unknowns, 1, "m/s^2, rad/s^2",
               "the beams' acceleration-like variable a_n (seed 004 eq 41e), in the order of /beams");
      w.matrix("smooth_acceleration", st->beam_vdot.data(), beam_unknowns, 1, "m/s^2, rad/s^2",
               "the beams' smooth acceleration ṽ̇_n (seed 004 eq 40d), in the order of /beams");
    }
    if (st && st->joint_impulses && !st->joint_impulses->empty()) {
      const std::vector<double>& ji = *st->joint_impulses;
      ArchiveGroup g(f, "joints", true, file);
      ArchiveWriter w{g.id, "/joints/", file, {}};
      w.matrix("impulses", ji.data(), ji.size(), 1, "N s or N m s",
               "the joints' row impulses of the last step, in the order of the model's joints (their warm start)");
      if (st->joint_position_impulses && st->joint_position_impulses->size() == ji.size())
        w.matrix("position_impulses", st->joint_position_impulses->data(), ji.size(), 1, "N s or N m s",
                 "the same for generalized-α's position correction");
    }
    if (counters) {
      ArchiveGroup g(f, "run", true, file);
      ArchiveWriter w{g.id, "/run/", file, {}};
      const double removed = static_cast<double>(counters->removed), dropped = counters->dropped ? 1.0 : 0.0;
      w.matrix("removed", &removed, 1, 1, "1", "beads that left the container so far (outflow)");
      w.matrix("dropped", &dropped, 1, 1, "1", "perturbed_stack: 1 once the ball has been added");
      w.rows("discharge", counters->discharge, 2,
             [](const std::pair<double, long>& p, int c) { return c == 0 ? p.first : static_cast<double>(p.second); },
             "s, 1", "(time, beads removed so far) after each step with an outflow");
      if (!counters->discharge_mass.empty() && counters->discharge_mass.size() == counters->discharge.size())
        w.matrix("discharge_mass", counters->discharge_mass.data(), counters->discharge_mass.size(), 1, "kg",
                 "mass removed so far, at each row of discharge");
    }
  });
}

void read_restart(const Path& file, talus::Model& m, RestartExtras* extras, ArchiveShare share) {
  if (share.shares < 1 || share.share < 0 || share.share >= share.shares)
    throw std::invalid_argument("read_restart: share " + std::to_string(share.share) + " of " + std::to_string(share.shares));
  const bool shared = share.shares > 1;
  // This process's rows of a dataset group whose first dimension is `rows` (all of them when not shared).
  auto window = [&](hsize_t rows) { return shared ? RowWindow::share(rows, share.share, share.shares) : RowWindow{}; };
  read_archive(file, [&](hid_t f) {
    const ArchiveHeader header = read_header(f, file);
    expect_path(header, "large", file);
    if (has_link(f, "piece_of"))
      throw std::runtime_error("restart archive " + file.string() + ": is one process's piece of the archive " +
                               (file.parent_path() / read_text_list(f, "piece_of", file).at(0)).string() +
                               " (expected that archive, which names all its pieces)");
    if (!has_link(f, "beads"))
      throw std::runtime_error("restart archive " + file.string() + ": no group /beads (a truncated archive)");
    const bool pieced = check_pieces(f, file, share);
    RigidBodies b;
    {
      ArchiveGroup g(f, "beads", false, file);
      ArchiveReader r{g.id, "/beads/", file};
      r.window = window(r.rows("radius"));
      read_bead_group(r, b, m.materials.count());
    }
    if (pieced) {
      // The pieces' beads follow one another process by process: id order, as a one-process archive of the same
      // state holds them (apps/RestartPieces.hpp).
      std::vector<std::int32_t> order(static_cast<std::size_t>(b.spheres()));
      for (int i = 0; i < b.spheres(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::int32_t x, std::int32_t y) { return b.id[x] < b.id[y]; });
      std::vector<char> scratch;
      b.permute_spheres(order, scratch);
    }
    if (has_link(f, "capsules")) {
      if (shared)
        throw std::runtime_error("restart archive " + file.string() + ": holds capsules, but it is read in shares for a "
                                 "partitioned run of a scene without any (expected an archive of this scene)");
      ArchiveGroup g(f, "capsules", false, file);
      read_capsule_group(ArchiveReader{g.id, "/capsules/", file}, b, m.materials.count());
    }
    const ArchiveReader root{f, "/", file};
    // Archives written before capsules existed hold 3 clock entries.
    const hsize_t entries = root.rows("clock");
    if (entries != 3 && entries != 4) root.fail("clock", std::to_string(entries) + " entries (expected 4)");
    const auto clock = root.doubles("clock", entries, 1);
    if (!(std::isfinite(clock[0]) && clock[0] >= 0.0))
      root.fail("clock", "time is " + ArchiveReader::num(clock[0]) + " (expected a finite time >= 0)");
    const double step = root.integral("clock", clock[1], 0.0, kMaxExactInteger, "step");
    const double next_bead = root.integral("clock", clock[2], 0.0, 4294967295.0, "the next bead id");
    const double next_capsule =
        entries == 4 ? root.integral("clock", clock[3], 0.0, 4294967295.0, "the next capsule id") : b.capsules();
    for (int i = 0; i < b.count(); ++i) {
      const bool bead = i < b.spheres();
      if (b.id[i] >= (bead ? next_bead : next_capsule))
        root.fail("clock", std::string("the next ") + (bead ? "bead" : "capsule") + " id " +
                               ArchiveReader::num(bead ? next_bead : next_capsule) + " is not above " +
                               (bead ? "bead" : "capsule") + " id " + std::to_string(b.id[i]));
    }
    RestartExtras x;
    x.header = header;
    if (root.has("step_size")) x.h = root.finite_doubles("step_size", 1, 1)[0];
    if (has_link(f, "contacts")) {
      ArchiveGroup g(f, "contacts", false, file);
      // Shared: this process's rows of the warm starts, which the partitioned model routes to the beads' owners.
      auto read_cache = [&](const char* name) {
        ArchiveGroup c(g.id, name, false, file, "/contacts/");
        ArchiveReader r{c.id, std::string("/contacts/") + name + "/", file};
        r.window = window(r.rows("keys"));
        return read_cache_content(r, pieced);
      };
      // An archive of the two caches with their older keys (before the one key scheme): translated and merged.
      auto read_legacy = [&](const char* beads, const char* capsules) {
        CacheContent b = read_cache(beads), k = read_cache(capsules), out;
        auto translate = [&](const CacheContent& c, const char* name, contact::ContactKey (*f)(std::uint64_t)) {
          for (std::size_t i = 0; i < c.keys.size(); ++i) {
            try {
              out.keys.push_back(f(c.keys[i]));
            } catch (const std::invalid_argument& e) {
              throw std::runtime_error("restart archive " + file.string() + ": dataset /contacts/" + name + "/keys row " + std::to_string(i) + ": " +
                                       e.what());
            }
            out.impulses.push_back(c.impulses[i]);
          }
        };
        translate(b, beads, contact::legacy_bead_key);
        translate(k, capsules, contact::legacy_general_key);
        return out;
      };
      if (has_link(g.id, "cache") || !has_link(g.id, "beads")) {
        x.cache = read_cache("cache");
        if (has_link(g.id, "position_cache"))
          x.position_cache = read_cache("position_cache"), x.has_position_cache = true;
        if (has_link(g.id, "rolling_cache"))
          x.rolling_cache = read_cache("rolling_cache"), x.has_rolling_cache = true;
      } else {
        x.cache = read_legacy("beads", "capsules");
        if (has_link(g.id, "bead_positions"))
          x.position_cache = read_legacy("bead_positions", "capsule_positions"), x.has_position_cache = true;
        if (has_link(g.id, "rolling"))
          x.rolling_cache = read_legacy("rolling", "capsule_rolling"), x.has_rolling_cache = true;
      }
      x.has_contacts = true;
    }
    if (has_link(f, "joints")) {
      ArchiveGroup g(f, "joints", false, file);
      const ArchiveReader r{g.id, "/joints/", file};
      const hsize_t n = r.rows("impulses");
      x.joint_impulses = r.doubles("impulses", n, 1);
      if (has_link(g.id, "position_impulses"))
        x.joint_position_impulses = r.doubles("position_impulses", n, 1);
      for (const std::vector<double>* v : {&x.joint_impulses, &x.joint_position_impulses})
        for (double d : *v)
          if (!std::isfinite(d)) r.fail(v == &x.joint_impulses ? "impulses" : "position_impulses", "holds a value that is not finite");
      x.has_joints = true;
    }
    // The FE beams: the archive's must be the model's (the scene gives their matrices and geometry).
    std::vector<Vector> beam_q, beam_v;
    if (has_link(f, "beams")) {
      ArchiveGroup g(f, "beams", false, file);
      const ArchiveReader r{g.id, "/beams/", file};
      const hsize_t nb = r.rows("dofs");
      if (nb != m.lti.size())
        r.fail("dofs", std::to_string(nb) + " beams, but the scene has " + std::to_string(m.lti.size()) +
                           " (expected the scene that wrote the archive)");
      const auto dofs = r.doubles("dofs", nb, 1);
      hsize_t total = 0;
      for (hsize_t k = 0; k < nb; ++k) {
        if (dofs[k] != static_cast<double>(m.lti[k].dofs()))
          r.fail("dofs", "beam " + std::to_string(k) + " ('" + m.lti[k].name + "') has " + ArchiveReader::num(dofs[k]) +
                             " unknowns, but the scene gives it " + std::to_string(m.lti[k].dofs()));
        total += static_cast<hsize_t>(m.lti[k].dofs());
      }
      const auto q = r.doubles("q", total, 1), v = r.doubles("v", total, 1);
      r.finite("q", q, 1), r.finite("v", v, 1);
      // Generalized-α's accelerations: /generalized_alpha, or /beams/{a, vdot} in archives before the one layout.
      if (has_link(f, "generalized_alpha")) {
        ArchiveGroup ga(f, "generalized_alpha", false, file);
        const ArchiveReader ra{ga.id, "/generalized_alpha/", file};
        x.beam_a = ra.finite_doubles("acceleration", total, 1);
        x.beam_vdot = ra.finite_doubles("smooth_acceleration", total, 1);
        x.has_beam_accelerations = true;
      } else if (r.has("a") && r.has("vdot")) {
        x.beam_a = r.finite_doubles("a", total, 1), x.beam_vdot = r.finite_doubles("vdot", total, 1);
        x.has_beam_accelerations = true;
      }
      hsize_t at = 0;
      for (hsize_t k = 0; k < nb; ++k) {
        const Index n = m.lti[k].dofs();
        beam_q.push_back(Eigen::Map<const Vector>(q.data() + at, n));
        beam_v.push_back(Eigen::Map<const Vector>(v.data() + at, n));
        at += static_cast<hsize_t>(n);
      }
    } else if (!m.lti.empty()) {
      throw std::runtime_error("restart archive " + file.string() + ": holds no /beams, but the scene has the beam '" + m.lti[0].name +
                               "' (expected an archive of this scene)");
    }
    if (has_link(f, "run")) {
      ArchiveGroup g(f, "run", false, file);
      const ArchiveReader r{g.id, "/run/", file};
      const double removed = r.doubles("removed", 1, 1)[0], dropped = r.doubles("dropped", 1, 1)[0];
      x.counters.removed = static_cast<long>(r.integral("removed", removed, 0.0, kMaxExactInteger, "the count"));
      x.counters.dropped = r.integral("dropped", dropped, 0.0, 1.0, "the flag") == 1.0;
      const auto d = r.doubles("discharge", r.rows("discharge"), 2);
      r.non_negative("discharge", d, 2);
      for (std::size_t i = 0; i + 1 < d.size(); i += 2) x.counters.discharge.emplace_back(d[i], static_cast<long>(d[i + 1]));
      if (has_link(g.id, "discharge_mass")) {
        x.counters.discharge_mass = r.doubles("discharge_mass", x.counters.discharge.size(), 1);
        r.non_negative("discharge_mass", x.counters.discharge_mass, 1);
      }
      x.has_counters = true;
    }
    b.next_id[0] = static_cast<std::uint32_t>(next_bead);
    b.next_id[1] = static_cast<std::uint32_t>(next_capsule);
    m.bodies = std::move(b);
    for (std::size_t k = 0; k < beam_q.size(); ++k) m.lti[k].q = beam_q[k], m.lti[k].v = beam_v[k];
    m.time = clock[0];
    m.step = static_cast<long>(step);
    // The obstacle bodies as the stepper leaves them after a step (engine/granular/ObstacleBodies.hpp): where their
    // laws put them at the archive's time, moving as the next step's contacts see them.
    if (!granular::model_obstacles(m).empty()) granular::place_obstacle_bodies(m, m.time, x.h);
    if (extras) *extras = std::move(x);
  });
}

}  // namespace talus::app
