#include "apps/GranularSceneFile.hpp"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <cstdio>

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "apps/LargePathRestart.hpp"
#include "apps/LargePathRun.hpp"
#include "solvers/core/NumberText.hpp"
#include "apps/ResourceLimits.hpp"
#include "apps/Scene.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneReader.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "engine/joints/RigidJoint.hpp"

namespace talus::app {

namespace fs = std::filesystem;
using namespace talus::granular;

namespace {

constexpr long kMaxThreads = 1024;
constexpr long kThreadsPerCore = 16;
constexpr std::uint64_t kBytesPerBead = 2200, kBytesPerCapsule = 4400;

// Every key a granular: map may hold (docs/granular.md); a key read below but missing here is a programmer error.
const std::initializer_list<std::string_view> kKeys = {
    "scene",        "name",          "n",          "radius",         "polydispersity",     "density",
    "mu",           "restitution",   "spacing",    "jitter",         "seed",               "h",
    "t_end",        "tolerance",     "max_sweeps", "threads",        "frame_every",        "solver",
    "resort_every", "orifice_diameters", "angle",  "length_diameters", "ball_radius_factor", "ball_density",
    "drop_time",    "impact_speed",  "restart",    "dump_fclib_step", "periodic", "obstacle_diameters",
    "capsule_fraction", "scheme", "radius_diameters", "thickness_diameters", "fill", "froude", "anderson_memory", "anderson_every",
    "mu_wall", "rolling_friction", "rolling_friction_wall", "materials", "contact_laws", "wall_material", "floor_material", "width", "layers", "capsules", "joints", "measure_region", "partitions",
    "contact_order", "anderson_warm", "multilevel_pre_sweeps", "multilevel_post_sweeps", "multilevel_plain_first",
    "multilevel_routing"};

// The granular: map of a scene file with the --set overrides applied, each value kept with the reader that
// names its origin (FILE:LINE:COL for the file, "--set key=value" for an override), so that every typed read
// below reports a bad value where it came from (apps/SceneError.hpp).
class Settings {
 public:
  // A command-line flag that stands for a key (--restart FILE for restart): an override named after the flag.
  struct Flag {
    std::string origin, key, value;
  };
  Settings(const fs::path& path, const std::vector<std::string>& sets, const std::vector<Flag>& flags = {})
      : file_reader_(path.string()) {
    const Field root = file_reader_.load();
    file_reader_.expect_map(root, {"granular"});
    granular_ = file_reader_.required(root, "granular");
    file_reader_.expect_map(granular_, kKeys);
    for (auto it = granular_.node.begin(); it != granular_.node.end(); ++it) {
      const std::string key = it->first.Scalar();
      values_.insert_or_assign(key, Value{{it->second, join_path("granular", key), it->second.Mark()}, &file_reader_});
    }
    for (const std::string& kv : sets) {
      const SceneReader& reader = set_readers_.emplace_back("--set " + kv);
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        throw SceneError(reader.position(YAML::Mark::null_mark()), "", "expected key=value");
      const std::string key = kv.substr(0, eq);
      YAML::Node value;
      try {
        value = YAML::Load(kv.substr(eq + 1));
      } catch (const YAML::Exception& e) {
        throw SceneError(reader.position(YAML::Mark::null_mark()), join_path("granular", key), e.msg);
      }
      YAML::Node one(YAML::NodeType::Map);
      one[key] = value;
      reader.expect_map({one, "granular", YAML::Mark::null_mark()}, kKeys);
      values_.insert_or_assign(key, Value{{value, join_path("granular", key), YAML::Mark::null_mark()}, &reader});
    }
    for (const Flag& f : flags) {
      const SceneReader& reader = set_readers_.emplace_back(f.origin);
      values_.insert_or_assign(f.key, Value{{YAML::Node(f.value), join_path("granular", f.key),
                                             YAML::Mark::null_mark()}, &reader});
    }
  }

  const std::string& file() const { return file_reader_.file(); }
  // Where a failure of the scene as a whole (a generator's own check) is reported: the granular: map.
  [[noreturn]] void fail_scene(std::string_view what) const { file_reader_.fail(granular_, what); }
  [[noreturn]] void fail(const char* key, std::string_view what) const {
    const Value& v = values_.at(key);
    v.reader->fail(v.field, what);
  }
  bool has(const char* key) const { return find(key) != nullptr; }
  // A structured value (a list or a map) with the reader that names its origin, or nullptr when absent.
  struct Value {
    Field field;
    const SceneReader* reader;
  };
  const Value* value(const char* key) const { return find(key); }

  double number(const char* key, double fallback) const {
    const Value* v = find(key);
    return v ? v->reader->number(v->field) : fallback;
  }
  double positive(const char* key, double fallback) const {
    const Value* v = find(key);
    return v ? v->reader->positive(v->field) : fallback;
  }
  double non_negative(const char* key, double fallback) const {
    const Value* v = find(key);
    return v ? v->reader->non_negative(v->field) : fallback;
  }
  double in_range(const char* key, double lo, double hi, double fallback) const {
    const Value* v = find(key);
    return v ? v->reader->in_range(v->field, lo, hi) : fallback;
  }
  // An integer in [lo, hi]. A number written with an exponent (n: 1e5) is taken when it is a whole number.
  long integer(const char* key, long lo, long hi, long fallback) const {
    const Value* v = find(key);
    if (!v) return fallback;
    long x = 0;
    if (!v->field.node.IsScalar() || !YAML::convert<long>::decode(v->field.node, x)) {
      double d = 0.0;
      if (!v->field.node.IsScalar() || !YAML::convert<double>::decode(v->field.node, d) || !std::isfinite(d) ||
          d != std::floor(d))
        v->reader->fail(v->field, "is " + describe(v->field.node) + " (expected an integer)");
      // Beyond the range of long: reported against hi below (hi < 2^63 always).
      x = std::abs(d) < 9.2e18 ? static_cast<long>(d) : (d > 0 ? std::numeric_limits<long>::max() : std::numeric_limits<long>::min());
    }
    if (x < lo) v->reader->fail(v->field, "is " + std::to_string(x) + " (expected an integer >= " + std::to_string(lo) + ")");
    if (x > hi)
      v->reader->fail(v->field, "is " + v->field.node.Scalar() + " (expected an integer <= " + std::to_string(hi) + ")");
    return x;
  }
  std::string text(const char* key, const std::string& fallback) const {
    const Value* v = find(key);
    return v ? v->reader->string(v->field) : fallback;
  }
  std::string choice(const char* key, std::initializer_list<std::string_view> names, const std::string& fallback) const {
    return choice_of(key, names, fallback);
  }
  std::string choice(const char* key, const std::vector<std::string>& names, const std::string& fallback) const {
    return choice_of(key, names, fallback);
  }

 private:
  template <class Names>
  std::string choice_of(const char* key, const Names& names, const std::string& fallback) const {
    const std::string s = text(key, fallback);
    std::string expected;
    for (std::string_view n : names) {
      if (s == n) return s;
      expected += (expected.empty() ? "" : ", ") + std::string(n);
    }
    fail(key, "unknown value '" + s + "' (expected one of: " + expected + ")");
  }
  static std::string describe(const YAML::Node& n) { return n.IsScalar() ? "'" + n.Scalar() + "'" : "not a scalar"; }
  const Value* find(const char* key) const {
    assert(std::find(kKeys.begin(), kKeys.end(), std::string_view(key)) != kKeys.end());
    const auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
  }

  SceneReader file_reader_;
  std::deque<SceneReader> set_readers_;  // stable addresses: values point to their reader
  Field granular_;
  std::map<std::string, Value, std::less<>> values_;
};

// The sizes the scene asks for, against the memory, before the generator allocates anything.
// `field` is the key that decides the count (n, or a drum's radius_diameters).
void check_sizes(const Settings& s, const BeadSpec& b, std::uint64_t max_memory, const char* field = "n") {
  const double capsules = std::ceil(b.capsule_fraction * static_cast<double>(b.n));
  const double beads = static_cast<double>(b.n) - capsules + 1.0;  // + the ball of perturbed_stack
  const std::uint64_t need = granular_memory_estimate(beads, capsules);
  const std::uint64_t have = max_memory > 0 ? max_memory : available_memory().value_or(0);
  if (have > 0 && need > have) {
    const std::string what = std::to_string(b.n) + " bodies need about " + format_bytes(double(need)) + " (" +
                             std::to_string(kBytesPerBead) + " B per bead" +
                             (capsules > 0 ? ", " + std::to_string(kBytesPerCapsule) + " B per capsule" : "") +
                             "), more than the " + format_bytes(double(have)) +
                             (max_memory > 0 ? " allowed by --max-memory" : " of memory available") +
                             " (expected fewer beads, or a larger --max-memory)";
    if (s.has(field)) s.fail(field, what);
    s.fail_scene(std::string("granular.") + field + ": " + what);
  }
  // Bodies are indexed with int in the engine (and the ball is added to the beads).
  if (b.n > std::numeric_limits<int>::max() - 1)
    s.fail(field, "asks for " + std::to_string(b.n) + " bodies (expected at most " + std::to_string(std::numeric_limits<int>::max() - 1) +
                    ": bodies are indexed with 32-bit integers)");
}

// The contact laws per pair of materials (docs/granular.md, engine/Materials.hpp): mu, mu_wall and restitution
// are the laws of the predefined materials "bead" and "wall"; materials: adds named ones and says which
// generated beads take them; wall_material / floor_material name the obstacles' material; contact_laws: sets
// pairs. A pair not listed takes (mu_wall, restitution) when one side is an obstacle's material and the other
// is not, else (mu, restitution); rolling_friction (rolling_friction_wall for the bead–obstacle pairs) is every
// pair's rolling resistance, 0 unless given. Every error names the field where it is (FILE:LINE:COL).
void read_materials(const Settings& s, const BeadSpec& b, Model& m) {
  const double mu_wall = s.non_negative("mu_wall", b.mu);
  MaterialTable& t = m.materials;
  t.set_defaults(b.mu, mu_wall, b.restitution);
  t.default_law = {b.mu, b.restitution};
  std::vector<BeadMaterialRule> rules;
  if (const Settings::Value* v = s.value("materials")) {
    const SceneReader& r = *v->reader;
    double shares = 0.0;
    for (const Field& item : r.list(v->field)) {
      r.expect_map(item, {"name", "fraction", "radius"});
      const Field name = r.required(item, "name");
      const std::string text = r.string(name);
      if (t.find(text) >= 0)
        r.fail(name, "'" + text + "' is defined twice (\"bead\" and \"wall\" are predefined: the beads' and the "
                     "obstacles' default materials)");
      if (t.count() >= kMaxMaterials) r.fail(name, "more than " + std::to_string(kMaxMaterials) + " materials");
      BeadMaterialRule rule;
      rule.material = t.add(text);
      const auto fraction = r.optional(item, "fraction");
      const auto radius = r.optional(item, "radius");
      if (!fraction && !radius) continue;  // a material for obstacles or for contact_laws only
      if (fraction) {
        rule.fraction = r.in_range(*fraction, 0.0, 1.0);
        shares += rule.fraction;
        if (shares > 1.0 + 1e-12)
          r.fail(*fraction, "brings the beads' shares to " + std::to_string(shares) + " (expected at most 1 in all)");
      }
      if (radius) {
        const Vector range = r.vector(*radius, 2, "[smallest, largest] radius in m");
        if (!(range[0] >= 0.0 && range[0] <= range[1])) r.fail(*radius, "expected 0 <= smallest <= largest radius");
        rule.r_min = range[0], rule.r_max = range[1];
      }
      rules.push_back(rule);
    }
  }
  // The obstacles' materials: every wall, box and drum, then the floor (the first wall) when named apart.
  std::vector<char> obstacle(t.count(), 0);
  obstacle[kWallMaterial] = 1;
  auto material = [&](const char* key) -> int {
    if (!s.has(key)) return -1;
    const std::string name = s.text(key, "");
    const int id = t.find(name);
    if (id < 0) {
      std::string known;
      for (const std::string& n : t.names) known += (known.empty() ? "" : ", ") + n;
      s.fail(key, "unknown material '" + name + "' (expected one of: " + known + ")");
    }
    obstacle[id] = 1;
    return id;
  };
  if (const int w = material("wall_material"); w >= 0) {
    m.wall_material.assign(m.walls.size(), static_cast<MaterialId>(w));
    m.box_material.assign(m.boxes.size(), static_cast<MaterialId>(w));
    m.drum_material.assign(m.drums.size(), static_cast<MaterialId>(w));
  }
  if (const int f = material("floor_material"); f >= 0) {
    if (m.walls.empty()) s.fail("floor_material", "this scene has no floor (a drum: use wall_material)");
    if (m.wall_material.empty()) m.wall_material.assign(m.walls.size(), kWallMaterial);
    m.wall_material[0] = static_cast<MaterialId>(f);
  }
  for (int a = 0; a < t.count(); ++a)
    for (int c = std::max(a, 2); c < t.count(); ++c)
      t.law(a, c) = {obstacle[a] != obstacle[c] ? mu_wall : b.mu, b.restitution};
  const double rolling = s.non_negative("rolling_friction", 0.0);
  const double rolling_wall = s.non_negative("rolling_friction_wall", rolling);
  t.default_law.rolling = rolling;
  for (int a = 0; a < t.count(); ++a)
    for (int c = a; c < t.count(); ++c) t.law(a, c).rolling = obstacle[a] != obstacle[c] ? rolling_wall : rolling;
  if (const Settings::Value* v = s.value("contact_laws")) {
    const SceneReader& r = *v->reader;
    std::vector<std::pair<std::size_t, Field>> given;
    for (const Field& item : r.list(v->field)) {
      r.expect_map(item, {"pair", "mu", "e", "rolling_friction"});
      const Field pair = r.required(item, "pair");
      const std::vector<Field> names = r.list(pair);
      if (names.size() != 2) r.fail(pair, "has " + std::to_string(names.size()) + " entries (expected two material names)");
      int id[2];
      for (int k = 0; k < 2; ++k) {
        const std::string name = r.string(names[k]);
        id[k] = t.find(name);
        if (id[k] < 0) {
          std::string known;
          for (const std::string& n : t.names) known += (known.empty() ? "" : ", ") + n;
          r.fail(names[k], "unknown material '" + name + "' (expected one of: " + known + ")");
        }
      }
      const std::size_t at = MaterialTable::pair_index(id[0], id[1]);
      for (const auto& [k, first] : given)
        if (k == at) {
          const SourcePosition p = r.position(first.mark);
          r.fail(pair, "the pair " + t.names[id[0]] + "/" + t.names[id[1]] + " is given twice (first at line " +
                           std::to_string(p.line) + ")");
        }
      given.emplace_back(at, pair);
      ContactLaw& law = t.law(id[0], id[1]);
      if (const auto mu = r.optional(item, "mu")) law.mu = r.non_negative(*mu);
      if (const auto e = r.optional(item, "e")) law.e = r.in_range(*e, 0.0, 1.0);
      if (const auto k = r.optional(item, "rolling_friction")) law.rolling = r.non_negative(*k);
    }
  }
  try {
    assign_bead_materials(m, rules, b.seed);
  } catch (const std::invalid_argument& e) {
    s.fail_scene(e.what());
  }
}

std::string known_names(const std::vector<std::string>& names) {
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  return known;
}

// Explicit capsules and the joints that hold them (docs/granular.md "Joints and mechanisms"), after the generated
// bodies and the materials (a capsule names its material). The capsules go at the end of the capsule group; a
// joint names one or two of them (one: jointed to the world). Anchors and axes are in world coordinates at the
// scene's poses. Every error names its field (FILE:LINE:COL).
void read_mechanism(const Settings& s, const BeadSpec& spec, const SceneEvents& events, Model& m) {
  std::vector<std::string> names;
  std::vector<int> index;
  if (const Settings::Value* v = s.value("capsules")) {
    const SceneReader& r = *v->reader;
    for (const Field& item : r.list(v->field)) {
      r.expect_map(item, {"name", "position", "axis", "radius", "half_length", "density", "velocity",
                          "angular_velocity", "material"});
      const Field name = r.required(item, "name");
      const std::string text = r.string(name);
      if (std::find(names.begin(), names.end(), text) != names.end()) r.fail(name, "'" + text + "' names two capsules");
      const Eigen::Vector3d x = r.vector(r.required(item, "position"), 3, "[x, y, z] in m");
      Eigen::Vector3d axis = Eigen::Vector3d::UnitZ(), velocity = Eigen::Vector3d::Zero(), omega = Eigen::Vector3d::Zero();
      if (const auto a = r.optional(item, "axis")) {
        axis = r.vector(*a, 3, "a direction [x, y, z]");
        if (!(axis.norm() > 0.0)) r.fail(*a, "is zero (expected a direction)");
      }
      const double radius = r.positive(r.required(item, "radius"));
      const double half = r.positive(r.required(item, "half_length"));
      const auto rho = r.optional(item, "density");
      const double density = rho ? r.positive(*rho) : spec.density;
      if (const auto f = r.optional(item, "velocity")) velocity = r.vector(*f, 3, "[vx, vy, vz] in m/s");
      if (const auto f = r.optional(item, "angular_velocity")) omega = r.vector(*f, 3, "[wx, wy, wz] in rad/s (world)");
      MaterialId material = kBeadMaterial;
      if (const auto f = r.optional(item, "material")) {
        const int id = m.materials.find(r.string(*f));
        if (id < 0) r.fail(*f, "unknown material '" + r.string(*f) + "' (expected one of: " + known_names(m.materials.names) + ")");
        material = static_cast<MaterialId>(id);
      }
      m.bodies.add_capsule(x, axis, half, radius, density, velocity);
      const int k = m.bodies.capsule(m.bodies.capsules() - 1);
      m.bodies.w[k] = omega;
      m.bodies.material[k] = material;
      names.push_back(text);
      index.push_back(m.bodies.capsules() - 1);
    }
  }
  // A capsule placed into a generated bed would start deep inside beads: those it overlaps are removed.
  if (!names.empty()) {
    RigidBodies& b = m.bodies;
    std::vector<char> flags(b.count(), 0);
    long overlapping = 0;
    for (int i = 0; i < b.spheres(); ++i)
      for (int k : index) {
        const int c = b.capsule(k);
        const Eigen::Vector3d axis = b.axis(c), e = b.x[i] - b.x[c];
        const double along = std::clamp(e.dot(axis), -b.half_length[c], b.half_length[c]);
        if ((e - along * axis).norm() < b.radius[i] + b.radius[c]) flags[i] = 1;
      }
    for (char f : flags) overlapping += f;
    if (overlapping > 0) b.remove(flags);
  }
  const Settings::Value* v = s.value("joints");
  if (!v) return;
  const SceneReader& r = *v->reader;
  const std::vector<Field> items = r.list(v->field);
  if (!items.empty() && (events.drop_time >= 0.0 || std::isfinite(events.remove_below_z) || std::isfinite(events.remove_beyond_x)))
    r.fail(v->field, "this scene adds or removes bodies while it runs (expected a scene whose bodies stay: bead_stack, "
                     "lattice_stack, packed_box or drum)");
  const std::vector<std::string> types{"spherical_joint", "revolute_joint", "prismatic_joint", "driver"};
  const JointKind kinds[] = {JointKind::Spherical, JointKind::Revolute, JointKind::Prismatic, JointKind::Driver};
  std::vector<std::string> joint_names;
  for (const Field& item : items) {
    // The keys of a single scene's joints (docs/scene-format.md "Joints"): `systems` names the bodies.
    r.expect_map(item, {"name", "type", "systems", "anchor", "axis", "rate"});
    const Field name = r.required(item, "name");
    const std::string text = r.string(name);
    if (std::find(joint_names.begin(), joint_names.end(), text) != joint_names.end())
      r.fail(name, "'" + text + "' names two joints");
    joint_names.push_back(text);
    const Field type = r.required(item, "type");
    const std::string t = r.string(type);
    const auto it = std::find(types.begin(), types.end(), t);
    if (it == types.end()) r.fail(type, "unknown joint type '" + t + "' (expected one of: " + known_names(types) + ")");
    const JointKind kind = kinds[it - types.begin()];
    const Field bodies = r.required(item, "systems");
    const std::vector<Field> sides = r.list(bodies);
    if (sides.empty() || sides.size() > 2)
      r.fail(bodies, "has " + std::to_string(sides.size()) + " entries (expected [capsule] for a joint to the world, or [capsule, capsule])");
    int ends[2] = {-1, -1};
    for (std::size_t k = 0; k < sides.size(); ++k) {
      const std::string body = r.string(sides[k]);
      const auto found = std::find(names.begin(), names.end(), body);
      if (found == names.end())
        r.fail(sides[k], "unknown capsule '" + body + "' (expected one of the capsules: list's names: " +
                             (names.empty() ? std::string("none given") : known_names(names)) + ")");
      ends[k] = m.bodies.capsule(index[found - names.begin()]);
    }
    if (ends[0] == ends[1]) r.fail(bodies, "names the same capsule twice");
    // A driver turns about its axis only (as in single scenes): its anchor is optional.
    Eigen::Vector3d anchor = m.bodies.x[ends[0]];
    if (const auto f = kind == JointKind::Driver ? r.optional(item, "anchor") : r.required(item, "anchor"))
      anchor = r.vector(*f, 3, "[x, y, z] in m");
    Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
    const auto a = r.optional(item, "axis");
    if (kind != JointKind::Spherical) {
      if (!a) r.fail(item, std::string("a ") + t + " needs an axis");
      axis = r.vector(*a, 3, "a direction [x, y, z]");
      if (!(axis.norm() > 0.0)) r.fail(*a, "is zero (expected a direction)");
    }
    const auto rate = r.optional(item, "rate");
    if (rate && kind != JointKind::Driver) r.fail(*rate, "only a driver has a rate");
    if (!rate && kind == JointKind::Driver) r.fail(item, "a driver needs a rate (rad/s)");
    Interaction in;
    in.name = text;
    in.systems.push_back({SystemFamily::Rigid, ends[0]});
    if (ends[1] >= 0) in.systems.push_back({SystemFamily::Rigid, ends[1]});
    try {
      in.relation = make_joint(kind, m.bodies, ends[0], ends[1], anchor, axis, rate ? r.number(*rate) : 0.0, m.time);
    } catch (const std::invalid_argument& e) {
      r.fail(item, e.what());
    }
    in.law = EqualityLaw{joint_rows(kind)};
    m.interactions.push_back(std::move(in));
  }
}

// Which share of the generated beads a process builds (GranularFlags::share): `taken` says whether it did (a scene
// with capsules, or a drum, is built whole).
struct BeadShare {
  int share = 0, shares = 1;
  bool taken = false;
};

GranularScene build_scene_bodies(const Settings& s, std::string& kind, std::uint64_t max_memory, BeadSpec& b,
                                 BeadShare& share);

GranularScene build_scene(const Settings& s, std::string& kind, std::uint64_t max_memory, BeadShare& share) {
  BeadSpec b;
  GranularScene sc = build_scene_bodies(s, kind, max_memory, b, share);
  read_materials(s, b, sc.model);
  read_mechanism(s, b, sc.events, sc.model);
  return sc;
}

GranularScene build_scene_bodies(const Settings& s, std::string& kind, std::uint64_t max_memory, BeadSpec& b,
                                 BeadShare& share) {
  b.n = s.integer("n", 1, std::numeric_limits<long>::max(), b.n);
  b.radius = s.positive("radius", b.radius);
  b.polydispersity = s.in_range("polydispersity", 0.0, 0.099, b.polydispersity);
  b.density = s.positive("density", b.density);
  b.mu = s.non_negative("mu", b.mu);
  b.restitution = s.in_range("restitution", 0.0, 1.0, b.restitution);
  b.spacing = s.positive("spacing", b.spacing);
  b.jitter = s.non_negative("jitter", b.jitter);
  b.seed = static_cast<std::uint64_t>(s.integer("seed", 0, std::numeric_limits<long>::max(), static_cast<long>(b.seed)));
  b.capsule_fraction = s.in_range("capsule_fraction", 0.0, 1.0, b.capsule_fraction);
  kind = s.choice("scene", {"bead_stack", "perturbed_stack", "silo", "chute", "drum", "lattice_stack", "packed_box"},
                  "bead_stack");
  // This process's share of `total` generated beads (beads only), and the memory estimate `estimate` cut to it.
  auto take_share = [&](long total, BeadSpec& estimate) {
    share.taken = share.shares > 1 && b.capsule_fraction == 0.0 && kind != "drum";
    if (!share.taken) return;
    b.keep_begin = total * share.share / share.shares;
    b.keep_end = total * (share.share + 1) / share.shares;
    estimate.n = b.keep_end - b.keep_begin;
  };
  if (kind == "lattice_stack" || kind == "packed_box") {
    // Beds of a given footprint and depth (GranularScenes.hpp): lattice_stack's beads fall a little and settle
    // into a loose bed; packed_box's are a crystal at rest whose walls touch it (rigid: nothing can enter it).
    const int width = static_cast<int>(s.integer("width", 2, 4096, 16));
    const int layers = static_cast<int>(s.integer("layers", 1, 4096, 8));
    BeadSpec estimate = b;
    estimate.n = kind == "packed_box" ? packed_box_beads(width, layers) : static_cast<long>(width) * width * layers;
    take_share(estimate.n, estimate);
    check_sizes(s, estimate, max_memory, "width");
    try {
      return kind == "packed_box" ? packed_box(b, width, layers) : lattice_stack(b, width, layers);
    } catch (const std::invalid_argument& e) {
      s.fail_scene(e.what());
    }
  }
  if (kind == "drum") {
    const double radius = s.positive("radius_diameters", 10.0), thickness = s.positive("thickness_diameters", 4.0);
    const double fill = s.in_range("fill", 0.0, 0.6, 0.35), froude = s.in_range("froude", 0.0, 0.999, 1e-2);
    // The lattice's count, bounded before anything is allocated (n does not apply).
    BeadSpec estimate = b;
    const double per_diameter = 2.0 / std::max(b.spacing, 1e-3);
    estimate.n = static_cast<long>(std::min(
        1e15, std::ceil(fill * std::numbers::pi * std::pow(radius * per_diameter, 2) * (thickness * per_diameter + 1.0))));
    check_sizes(s, estimate, max_memory, "radius_diameters");
    try {
      return drum(b, radius, thickness, fill, froude);
    } catch (const std::invalid_argument& e) {
      s.fail_scene(e.what());
    }
  }
  BeadSpec estimate = b;
  take_share(b.n, estimate);
  check_sizes(s, estimate, max_memory);
  try {
    if (kind == "bead_stack") return bead_stack(b);
    if (kind == "perturbed_stack")
      return perturbed_stack(b, s.positive("ball_radius_factor", 4.0), s.positive("ball_density", 7800.0),
                             s.non_negative("drop_time", 0.5), s.non_negative("impact_speed", 2.0));
    if (kind == "silo") return silo(b, s.positive("orifice_diameters", 5.0));
    return chute(b, s.in_range("angle", -89.0, 89.0, 25.0), s.positive("length_diameters", 60.0),
                 s.choice("periodic", {"true", "false"}, "true") == "true", s.non_negative("obstacle_diameters", 0.0));
  } catch (const std::invalid_argument& e) {
    s.fail_scene(e.what());
  }
}

// The run's parameters besides the scene; checked against GranularStepper's own requirements.
struct RunSettings {
  std::string name;
  GranularParameters params;
  double t_end = 0.0, frame_every = 0.02;
  long dump_step = 100;
  std::string restart;
  std::optional<Region> measure_region;  // measures.csv's box; none: the bulk of each frame
};

RunSettings read_run_settings(const Settings& s, const GranularScene& sc, const fs::path& scene_file) {
  RunSettings r;
  r.name = s.text("name", scene_file.stem().string());
  for (char c : r.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      s.fail("name", "'" + r.name + "' has the character '" + std::string(1, c) +
                         "' (expected letters, digits, '_' or '-': it names the output directory)");
  GranularParameters& p = r.params;
  p.h = s.positive("h", sc.h);
  p.tolerance = s.positive("tolerance", p.tolerance);
  constexpr long kIntMax = std::numeric_limits<int>::max();
  p.max_sweeps = static_cast<int>(s.integer("max_sweeps", 1, kIntMax, p.max_sweeps));
  p.threads = static_cast<int>(s.integer("threads", 1, kMaxThreads, p.threads));
  if (s.has("threads")) {
    const long cores = std::max(1u, std::thread::hardware_concurrency());
    if (p.threads > kThreadsPerCore * cores)
      s.fail("threads", "is " + std::to_string(p.threads) + " (expected at most " + std::to_string(kThreadsPerCore) +
                            " × the " + std::to_string(cores) + " cores of this machine: more threads only wait)");
  }
  p.resort_every = static_cast<int>(s.integer("resort_every", 0, kIntMax, p.resort_every));
  // Sweep blocks (solvers/matrixfree/SweepPartition.hpp); 0: by the bead count, and at least one per MPI rank.
  // The result depends on the blocks, never on the thread or rank count: the same value gives the same bits.
  p.partitions = static_cast<int>(s.integer("partitions", 0, 4096, p.partitions));
  {
    p.solver = granular_solver_from_name(
        s.choice("solver", granular_solver_names(), granular_solver_name(GranularSolver::Anderson)));
    p.anderson_memory = static_cast<int>(
        s.integer("anderson_memory", 1, AndersonWorkspace::kMaxMemory, p.anderson_memory));
    p.anderson_every = static_cast<int>(s.integer("anderson_every", 1, 4, p.anderson_every));
    // Opt-in settings measured in docs/stack-height.md ("Plain sweeps for a good warm start", "Sweep order by
    // height"): the defaults keep every run's bits.
    p.anderson_warm = s.non_negative("anderson_warm", p.anderson_warm);
    // The multilevel cycle (solvers/matrixfree/MultilevelNsgs.hpp; docs/stack-height.md, "The multilevel cycle's
    // settings" and "Routing a bead's need over all its contacts toward the root").
    auto& ml = p.multilevel;
    ml.pre_sweeps = static_cast<int>(s.integer("multilevel_pre_sweeps", 0, 1000, ml.pre_sweeps));
    ml.post_sweeps = static_cast<int>(s.integer("multilevel_post_sweeps", 0, 1000, ml.post_sweeps));
    ml.plain_first = static_cast<int>(s.integer("multilevel_plain_first", 0, kIntMax, ml.plain_first));
    ml.spread_routing = s.choice("multilevel_routing", {"spread", "tree"}, "spread") == "spread";
    const std::string order = s.choice("contact_order", {"detection", "bottom_up", "top_down"}, "detection");
    p.contact_order = order == "bottom_up"  ? GranularParameters::ContactOrder::BottomUp
                      : order == "top_down" ? GranularParameters::ContactOrder::TopDown
                                            : GranularParameters::ContactOrder::Detection;
    const std::string scheme = s.choice("scheme", {"moreau_jean", "generalized_alpha"}, "moreau_jean");
    if (scheme == "generalized_alpha") p.scheme = GranularScheme::GeneralizedAlpha;
  }
  r.t_end = s.positive("t_end", sc.t_end);
  r.frame_every = s.positive("frame_every", r.frame_every);
  if (const Settings::Value* v = s.value("measure_region")) {
    const SceneReader& reader = *v->reader;
    const Vector box = reader.vector(v->field, 6, "[x0, y0, z0, x1, y1, z1] in m");
    const Region region{box.head<3>(), box.tail<3>()};
    if (!((region.hi - region.lo).array() > 0.0).all())
      reader.fail(v->field, "is an empty box (expected x0 < x1, y0 < y1 and z0 < z1)");
    r.measure_region = region;
  }
  r.dump_step = s.integer("dump_fclib_step", 1, std::numeric_limits<long>::max(), r.dump_step);
  r.restart = s.text("restart", "");
  if (!r.restart.empty() && !fs::is_regular_file(r.restart)) s.fail("restart", "'" + r.restart + "': no such file");
  return r;
}

// Where a problem of a setting is reported: the granular: map's key, or the flag that replaced it.
SettingFailure settings_failure(const Settings& s) {
  return [&s](const char* key, const std::string& what) { s.fail(key, what); };
}

// The scene's file with its overrides and flags: the flags are overrides named after themselves.
Settings read_settings(const fs::path& scene_file, const std::vector<std::string>& sets, const GranularFlags& f) {
  std::vector<Settings::Flag> flags;
  if (!f.restart.empty()) flags.push_back({"--restart " + f.restart.string(), "restart", f.restart.string()});
  if (f.dump_step > 0)
    flags.push_back({"--dump-step " + std::to_string(f.dump_step), "dump_fclib_step", std::to_string(f.dump_step)});
  if (f.t_end > 0) flags.push_back({"--t-end " + exact_number_text(f.t_end), "t_end", exact_number_text(f.t_end)});
  if (f.h > 0) flags.push_back({"--h " + exact_number_text(f.h), "h", exact_number_text(f.h)});
  return Settings(scene_file, sets, flags);
}

// A granular scene's step-count problem, named where h and t_end came from.
long planned_steps(const Settings& s, const RunSettings& r, double t0) {
  return large_path_steps(
      [&](const std::string& what) {
        if (s.has("h")) s.fail("h", what);
        if (s.has("t_end")) s.fail("t_end", what);
        s.fail_scene(what);
      },
      r.t_end, r.params.h, t0);
}

}  // namespace

std::uint64_t granular_memory_estimate(double beads, double capsules) {
  const double b = std::max(0.0, beads) * kBytesPerBead + std::max(0.0, capsules) * kBytesPerCapsule;
  return b >= 1.8e19 || !std::isfinite(b) ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(b);
}

bool is_granular_scene(const fs::path& file) {
  try {
    const YAML::Node root = YAML::LoadFile(file.string());
    return root.IsMap() && root["granular"];
  } catch (...) {
    return false;
  }
}

Scene load_granular_scene(const fs::path& scene_file, const std::vector<std::string>& sets, std::uint64_t max_memory,
                          const GranularFlags& flags) {
  const Settings s = read_settings(scene_file, sets, flags);
  std::string kind;
  BeadShare share{flags.share, flags.unsupported ? flags.shares : 1};
  GranularScene sc = build_scene(s, kind, max_memory, share);
  RunSettings r = read_run_settings(s, sc, scene_file);
  // A share only where the run will partition the model from it: not where the partitioned model refuses the scene
  // (then every process holds all of it).
  const bool partitioned = flags.unsupported && flags.shares > 1 && flags.unsupported(sc.model, r.params).empty();
  if (share.taken && !partitioned) {
    share = BeadShare{};
    sc = build_scene(s, kind, max_memory, share);
    r = read_run_settings(s, sc, scene_file);
  }
  Scene scene;
  scene.name = r.name;
  scene.description = "granular scene '" + kind + "'";
  scene.file = scene_file;
  scene.model = std::move(sc.model);
  scene.t_end = r.t_end;
  scene.scheme.kind = SchemeKind::Granular;
  scene.scheme.h = scene.integrator.h = r.params.h;
  LargePathSettings large;
  large.params = r.params;
  large.frame_every = r.frame_every;
  large.events = sc.events;
  large.generator = kind;
  large.seed = s.has("seed") ? static_cast<std::uint64_t>(s.integer("seed", 0, std::numeric_limits<long>::max(), 0))
                             : BeadSpec{}.seed;
  large.measure_region = r.measure_region;
  large.dump_step = r.dump_step;
  large.shares = share.taken ? share.shares : 1;
  scene.large_path = std::move(large);
  // A restart replaces the beads the scene built by the archive's: a partitioned run's process reads its share of
  // them (and of the warm starts), whether the scene built a share or, where its generator cannot, all of them.
  if (!r.restart.empty())
    restore_large_path_scene(scene, r.restart, settings_failure(s),
                             partitioned ? ArchiveShare{flags.share, flags.shares} : ArchiveShare{});
  planned_steps(s, r, scene.model.time);
  return scene;
}

GranularSceneSummary check_granular_scene(const fs::path& scene_file, const std::vector<std::string>& sets,
                                          std::uint64_t max_memory) {
  Scene scene = load_granular_scene(scene_file, sets, max_memory);
  try {
    GranularStepper stepper(scene.model, scene.large_path->params);  // the stepper's own parameter checks
  } catch (const std::invalid_argument& e) {
    read_settings(scene_file, sets, {}).fail_scene(e.what());
  }
  GranularSceneSummary out;
  out.name = scene.name;
  out.kind = scene.large_path->generator;
  out.beads = scene.model.bodies.spheres();
  out.walls = static_cast<int>(scene.model.walls.size());
  out.h = scene.large_path->params.h;
  out.t_end = scene.t_end;
  return out;
}

}  // namespace talus::app
