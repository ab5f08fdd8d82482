#include "apps/GranularRun.hpp"

#include "apps/LinearBeamCheck.hpp"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <cstdio>
#include <signal.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <regex>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "apps/FrameSeries.hpp"
#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "apps/ProgressMeter.hpp"
#include "apps/ResourceLimits.hpp"
#include "apps/RunLoop.hpp"
#include "apps/RunOutputs.hpp"
#include "apps/RunSummary.hpp"
#include "apps/JsonOutput.hpp"
#include "apps/Scene.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneReader.hpp"
#include "apps/GranularMeasureSeries.hpp"
#include "apps/Version.hpp"
#include "engine/analysis/ObstacleLoads.hpp"
#include "engine/granular/ObstacleBodies.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/matrixfree/PartitionedSolve.hpp"
#include "engine/joints/RigidJoint.hpp"
#include "solvers/fc/FclibIO.hpp"

namespace talus::app {

namespace fs = std::filesystem;
using namespace talus::granular;

namespace {

constexpr long kMaxThreads = 1024;
constexpr long kThreadsPerCore = 16;
constexpr std::uint64_t kBytesPerBead = 2200, kBytesPerCapsule = 4400;
// More steps than this is a mistake (h far too small for t_end): it would also outlast the clock's resolution.
constexpr double kMaxSteps = 1e9;

// Every key a granular: map may hold (docs/granular.md); a key read below but missing here is a programmer error.
const std::initializer_list<std::string_view> kKeys = {
    "scene",        "name",          "n",          "radius",         "polydispersity",     "density",
    "mu",           "restitution",   "spacing",    "jitter",         "seed",               "h",
    "t_end",        "tolerance",     "max_sweeps", "threads",        "frame_every",        "solver",
    "resort_every", "orifice_diameters", "angle",  "length_diameters", "ball_radius_factor", "ball_density",
    "drop_time",    "impact_speed",  "restart",    "dump_fclib_step", "periodic", "obstacle_diameters",
    "capsule_fraction", "scheme", "radius_diameters", "thickness_diameters", "fill", "froude", "anderson_memory", "anderson_every",
    "mu_wall", "rolling_friction", "rolling_friction_wall", "materials", "contact_laws", "wall_material", "floor_material", "width", "layers", "capsules", "joints", "measure_region", "partitions",
    "contact_order", "anderson_warm"};

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

GranularScene build_scene_bodies(const Settings& s, std::string& kind, std::uint64_t max_memory, BeadSpec& b);

GranularScene build_scene(const Settings& s, std::string& kind, std::uint64_t max_memory) {
  BeadSpec b;
  GranularScene sc = build_scene_bodies(s, kind, max_memory, b);
  read_materials(s, b, sc.model);
  read_mechanism(s, b, sc.events, sc.model);
  return sc;
}

GranularScene build_scene_bodies(const Settings& s, std::string& kind, std::uint64_t max_memory, BeadSpec& b) {
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
  if (kind == "lattice_stack" || kind == "packed_box") {
    // Beds of a given footprint and depth (GranularScenes.hpp): lattice_stack's beads fall a little and settle
    // into a loose bed; packed_box's are a crystal at rest whose walls touch it (rigid: nothing can enter it).
    const int width = static_cast<int>(s.integer("width", 2, 4096, 16));
    const int layers = static_cast<int>(s.integer("layers", 1, 4096, 8));
    BeadSpec estimate = b;
    estimate.n = kind == "packed_box" ? packed_box_beads(width, layers) : static_cast<long>(width) * width * layers;
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
  check_sizes(s, b, max_memory);
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

RunSettings read_run_settings(const Settings& s, const GranularScene& sc, const fs::path& scene_file,
                              const GranularRunOptions& o) {
  RunSettings r;
  r.name = s.text("name", scene_file.stem().string());
  for (char c : r.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      s.fail("name", "'" + r.name + "' has the character '" + std::string(1, c) +
                         "' (expected letters, digits, '_' or '-': it names the output directory)");
  GranularParameters& p = r.params;
  p.h = o.h > 0 ? o.h : s.positive("h", sc.h);
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
    const std::string order = s.choice("contact_order", {"detection", "bottom_up", "top_down"}, "detection");
    p.contact_order = order == "bottom_up"  ? GranularParameters::ContactOrder::BottomUp
                      : order == "top_down" ? GranularParameters::ContactOrder::TopDown
                                            : GranularParameters::ContactOrder::Detection;
    const std::string scheme = s.choice("scheme", {"moreau_jean", "generalized_alpha"}, "moreau_jean");
    if (scheme == "generalized_alpha") p.scheme = GranularScheme::GeneralizedAlpha;
  }
  r.t_end = o.t_end > 0 ? o.t_end : s.positive("t_end", sc.t_end);
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

// Where a problem of a setting is reported: a granular scene's key ("restart", "h"), a single scene's flag.
using FailAt = std::function<void(const char* key, const std::string& what)>;
FailAt settings_failure(const Settings& s) {
  return [&s](const char* key, const std::string& what) { s.fail(key, what); };
}

// The archive's state into the scene's model. The joints were made at the scene's poses and hold capsules by
// store index; the archive may hold another number of beads before the capsules, so their indices follow.
void restore(const FailAt& fail, const std::string& restart, Model& m, RestartExtras* extras = nullptr) {
  const int capsules_begin = m.bodies.nonsphere_begin(), scene_capsules = m.bodies.capsules();
  read_restart(restart, m, extras);
  if (m.interactions.empty()) return;
  if (m.bodies.capsules() != scene_capsules)
    fail("restart", "'" + restart + "' holds " + std::to_string(m.bodies.capsules()) +
                        " capsules where the scene's joints expect " + std::to_string(scene_capsules));
  for (Interaction& in : m.interactions)
    for (SystemRef& ref : in.systems) ref.index += m.bodies.nonsphere_begin() - capsules_begin;
}

std::string num(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", x);
  return b;
}

// h against t_end and the start time (a restart archive's): at least one step, at most kMaxSteps; the run
// takes the whole steps that fit, never ending past t_end. Returns the number of steps.
long planned_steps(const std::function<void(const std::string&)>& fail, const RunSettings& r, double t0) {
  const double h = r.params.h;
  const double steps = std::floor((r.t_end - t0) / h + 1e-6);
  const std::string span = "t_end = " + num(r.t_end) + (t0 > 0 ? " after the restart archive's t = " + num(t0) : "");
  if (!(steps >= 1.0)) fail("h = " + num(h) + " is larger than the time to run (" + span + "): no step would run");
  if (steps > kMaxSteps)
    fail("h = " + num(h) + " and " + span + " make " + num(steps) + " steps (expected at most " + num(kMaxSteps) +
         ": is h too small?)");
  return static_cast<long>(steps);
}

// A granular scene's step-count problem, named where h and t_end came from.
long planned_steps(const Settings& s, const GranularRunOptions& o, const RunSettings& r, double t0) {
  return planned_steps(
      [&](const std::string& what) {
        if (o.h > 0) throw SceneError({"--h " + num(o.h)}, "granular.h", what);
        if (s.has("h")) s.fail("h", what);
        if (o.t_end > 0) throw SceneError({"--t-end " + num(o.t_end)}, "granular.t_end", what);
        if (s.has("t_end")) s.fail("t_end", what);
        s.fail_scene(what);
      },
      r, t0);
}

// A file a granular run was stopped in the middle of writing (GranularOutput.hpp's .NAME.tmp, the snapshot's
// .snapshot.tmp.png).
bool is_temporary_run_file(const std::string& name) {
  if (name == ".snapshot.tmp.png") return true;
  constexpr std::string_view suffix = ".tmp";
  if (name.size() <= 1 + suffix.size() || name[0] != '.' || !name.ends_with(suffix)) return false;
  return is_run_file(name.substr(1, name.size() - 1 - suffix.size()));
}

// An earlier run's files in dir: those named like a run's, those its run.json lists (a trace, for instance; an
// older large-path run's granular.json likewise, under "outputs"), and a single-scene run's (RunOutputs.hpp), so
// that a folder never mixes two runs of any kind.
std::vector<fs::path> earlier_granular_files(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return found;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (is_temporary_run_file(e.path().filename().string())) found.push_back(e.path());
  for (const std::string& name : earlier_run_files(dir)) found.push_back(dir / name);
  for (const auto& [summary, key] : {std::pair{kRunJsonFile, "files"}, std::pair{"granular.json", "outputs"}}) {
    try {
      std::ifstream in(dir / summary);
      if (!in) continue;
      const nlohmann::json j = nlohmann::json::parse(in);
      if (j.contains(key) && j[key].is_array())
        for (const auto& f : j[key])
          if (f.is_string()) {
            const fs::path p = dir / f.get<std::string>();
            // Only plain names inside dir: a list edited by hand must not remove anything elsewhere.
            if (fs::path(f.get<std::string>()).has_parent_path() || !fs::is_regular_file(p, ec)) continue;
            if (std::find(found.begin(), found.end(), p) == found.end()) found.push_back(p);
          }
    } catch (const nlohmann::json::exception&) {
      // An unreadable summary is itself an earlier output (listed above); its list is lost.
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Refuses a folder holding an earlier run, or (overwrite) removes that run's files as one set.
void prepare_output_folder(const fs::path& out, bool overwrite, bool quiet, std::ostream& log) {
  const std::vector<fs::path> earlier = earlier_granular_files(out);
  if (earlier.empty()) return;
  if (!overwrite) {
    long frames = 0, more = 0;
    std::string named;
    for (const fs::path& f : earlier) {
      const std::string n = f.filename().string();
      if (n.size() > 4 && n.compare(n.size() - 4, 4, ".vtp") == 0) {
        ++frames;
      } else if (named.size() < 120) {
        named += (named.empty() ? "" : ", ") + n;
      } else {
        ++more;
      }
    }
    if (more > 0) named += ", " + std::to_string(more) + " more files";
    throw std::runtime_error(out.string() + ": holds the outputs of an earlier run (" + named +
                             (frames ? (named.empty() ? "" : ", ") + std::to_string(frames) + " frame files" : "") +
                             "): choose another output folder, or pass --overwrite to replace them");
  }
  for (const fs::path& f : earlier) {
    std::error_code ec;
    fs::remove(f, ec);
    if (ec) throw std::runtime_error(f.string() + ": cannot remove the earlier run's file: " + ec.message());
  }
  if (!quiet) log << "talus: removed the " << earlier.size() << " files of the earlier run in " << out.string() << '\n';
}

// SIGTERM ends a granular run as SIGINT does. The CLI (apps/Cli.cpp) handles both and sets *stop; a program
// that calls run_granular without a SIGTERM handler of its own (the tests) gets this one for the run, the
// default disposition put back after it.
std::atomic<bool> g_terminate{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
extern "C" void on_terminate(int) {
  g_terminate.store(true, std::memory_order_relaxed);
  std::signal(SIGTERM, SIG_DFL);  // a second SIGTERM ends the process at once
}
struct TerminateHandler {
  using Handler = void (*)(int);
  bool installed = false;
  TerminateHandler() {
    g_terminate.store(false);
    struct sigaction current {};
    if (::sigaction(SIGTERM, nullptr, &current) == 0 && !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL)
      installed = std::signal(SIGTERM, on_terminate) != SIG_ERR;
  }
  ~TerminateHandler() {
    if (installed) std::signal(SIGTERM, SIG_DFL);
  }
  TerminateHandler(const TerminateHandler&) = delete;
  TerminateHandler& operator=(const TerminateHandler&) = delete;
};

}  // namespace

std::uint64_t granular_memory_estimate(double beads, double capsules) {
  const double b = std::max(0.0, beads) * kBytesPerBead + std::max(0.0, capsules) * kBytesPerCapsule;
  return b >= 1.8e19 || !std::isfinite(b) ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(b);
}

namespace {

// Everything the run loop needs, read from a granular scene (run_granular) or a single scene on the large path
// (run_large_path_scene).
struct RunPlan {
  fs::path scene_file;
  std::string kind;        // the generator (bead_stack, silo, ...), or "explicit" for a single scene's bodies
  GranularScene scene;     // the model and its events
  RunSettings settings;
  std::string description;  // run.json's description: the scene's, or the generator's name
  nlohmann::json seed;     // run.json's parameters.seed: the generator's, or null
  RestartExtras extras;    // what the restart archive held besides the model (contact caches, counters)
  long planned = 0;        // steps to run
  std::vector<TimedPour> pours;  // beads inserted between steps (a single scene's pours with a rate)
  std::vector<std::string> obstacle_names;  // a single scene's names of its obstacles (Scene::obstacle_names)
};

int run_plan(RunPlan& plan, const GranularRunOptions& o, std::ostream& log);

}  // namespace

bool is_granular_scene(const fs::path& file) {
  try {
    const YAML::Node root = YAML::LoadFile(file.string());
    return root.IsMap() && root["granular"];
  } catch (...) {
    return false;
  }
}

GranularSceneSummary check_granular_scene(const fs::path& scene_file, const std::vector<std::string>& sets,
                                          std::uint64_t max_memory) {
  const Settings s(scene_file, sets);
  GranularSceneSummary out;
  GranularScene sc = build_scene(s, out.kind, max_memory);
  const RunSettings r = read_run_settings(s, sc, scene_file, {});
  if (!r.restart.empty()) restore(settings_failure(s), r.restart, sc.model);
  planned_steps(s, {}, r, sc.model.time);
  try {
    GranularStepper stepper(sc.model, r.params);  // the stepper's own parameter checks
  } catch (const std::invalid_argument& e) {
    s.fail_scene(e.what());
  }
  out.name = r.name;
  out.beads = sc.model.bodies.spheres();
  out.walls = static_cast<int>(sc.model.walls.size());
  out.h = r.params.h;
  out.t_end = r.t_end;
  return out;
}

Scene load_granular_scene(const fs::path& scene_file, const std::vector<std::string>& sets, std::uint64_t max_memory) {
  const Settings s(scene_file, sets);
  std::string kind;
  GranularScene sc = build_scene(s, kind, max_memory);
  const RunSettings r = read_run_settings(s, sc, scene_file, {});
  if (!r.restart.empty()) restore(settings_failure(s), r.restart, sc.model);
  planned_steps(s, {}, r, sc.model.time);
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
  scene.large_path = large;
  return scene;
}

int run_granular(const fs::path& scene_file, const GranularRunOptions& o, std::ostream& log) {
  std::vector<Settings::Flag> flags;
  if (!o.restart.empty()) flags.push_back({"--restart " + o.restart.string(), "restart", o.restart.string()});
  if (o.dump_step > 0)
    flags.push_back({"--dump-step " + std::to_string(o.dump_step), "dump_fclib_step", std::to_string(o.dump_step)});
  const Settings s(scene_file, o.sets, flags);
  RunPlan plan;
  plan.scene_file = scene_file;
  plan.scene = build_scene(s, plan.kind, o.max_memory);
  plan.settings = read_run_settings(s, plan.scene, scene_file, o);
  if (!plan.settings.restart.empty())
    restore(settings_failure(s), plan.settings.restart, plan.scene.model, &plan.extras);
  plan.planned = planned_steps(s, o, plan.settings, plan.scene.model.time);
  plan.description = "granular scene '" + plan.kind + "'";
  plan.seed = s.has("seed") ? nlohmann::json(s.integer("seed", 0, std::numeric_limits<long>::max(), 0))
                            : nlohmann::json(BeadSpec{}.seed);
  return run_plan(plan, o, log);
}

int run_large_path_scene(Scene& scene, const GranularRunOptions& o, const fs::path& restart, std::ostream& log) {
  if (!scene.large_path) throw std::invalid_argument(scene.file.string() + ": integrator.path is not large");
  RunPlan plan;
  plan.scene_file = scene.file;
  plan.kind = "explicit";
  plan.description = scene.description;
  plan.scene.kind = plan.kind;
  plan.scene.model = std::move(scene.model);
  plan.scene.t_end = scene.t_end;
  plan.scene.h = scene.large_path->params.h;
  plan.scene.events = scene.large_path->events;
  plan.pours = scene.large_path->pours;
  plan.obstacle_names = scene.obstacle_names;
  RunSettings& r = plan.settings;
  r.name = scene.name;
  r.params = scene.large_path->params;
  r.t_end = scene.t_end;
  r.frame_every = scene.large_path->frame_every;
  if (o.dump_step > 0) r.dump_step = o.dump_step;
  r.restart = restart.string();
  // A problem of the archive or of the steps left after it is the --restart flag's (without one, the scene's).
  const std::string origin = r.restart.empty() ? scene.file.string() : "--restart " + r.restart;
  if (!r.restart.empty()) {
    if (!fs::is_regular_file(restart)) throw SceneError({origin}, "", "'" + r.restart + "': no such file");
    restore([&](const char*, const std::string& what) { throw SceneError({origin}, "", what); }, r.restart,
            plan.scene.model, &plan.extras);
  }
  plan.planned = planned_steps([&](const std::string& what) { throw SceneError({origin}, "integrator.t_end", what); },
                               r, plan.scene.model.time);
  // A restarted run's pours are as far as their rate says at the start of the archive's last step, when the run
  // that wrote it inserted its last beads (a bead that had to wait is taken as in; the archive must come from a
  // run with the same h).
  if (plan.scene.model.step > 0)
    for (TimedPour& p : plan.pours) p.inserted = p.due(plan.scene.model.time - r.params.h);
  plan.seed = nullptr;
  // The caller's scene gets its model back, as far as it was stepped, whichever way the run ends.
  int status = 1;
  try {
    status = run_plan(plan, o, log);
  } catch (...) {
    scene.model = std::move(plan.scene.model);
    throw;
  }
  scene.model = std::move(plan.scene.model);
  return status;
}

namespace {

int run_plan(RunPlan& plan, const GranularRunOptions& o, std::ostream& log) {
  GranularScene& sc = plan.scene;
  const RunSettings& rs = plan.settings;
  const fs::path& scene_file = plan.scene_file;
  const std::string& kind = plan.kind;
  const std::string& name = rs.name;
  GranularParameters p = rs.params;
  p.distributed = o.distributed;
  const double t_end = rs.t_end;
  const double frame_every = rs.frame_every;
  const long dump_step = rs.dump_step;
  const std::string& restart = rs.restart;
  RestartExtras& extras = plan.extras;
  const long planned = plan.planned;
  Model& m = sc.model;
  const double t_final = m.time + planned * p.h;  // ≤ t_end: the whole steps that fit

  const fs::path out = o.out_dir.empty() ? fs::path("out") / name : o.out_dir;
  PhaseProfile profile(!o.profile.empty());
  GranularStepper stepper(m, p, &profile);
  prepare_output_folder(out, o.overwrite, o.quiet, log);
  fs::create_directories(out);
  // Under mpirun the other ranks write their frame pieces into rank 0's folder, once it is prepared.
  const fs::path frames_out =
      o.frame_piece.index == 0 ? out : o.frame_dir.empty() ? fs::path("out") / name : o.frame_dir;
  if (o.barrier) o.barrier();
  if (!o.dump_fclib.empty())
    if (const std::string why = stepper.unkeepable_problem(); !why.empty())
      throw std::invalid_argument("--dump-fclib: this scene has " + why);
  if (!o.dump_fclib.empty()) fs::create_directories(o.dump_fclib);
  RunCounters counters;
  restore_stepper(extras, stepper);
  if (extras.has_counters) counters = extras.counters;
  // A large-path archive continues under other settings too (settle, then change the solver or the step), but
  // then not bit for bit: said once, naming both.
  if (!restart.empty() && !o.quiet && !extras.header.legacy() && !extras.header.settings.empty() &&
      extras.header.settings != large_path_header(name, p).settings)
    log << "talus: " << restart << " was written under '" << extras.header.settings << "'; this run steps under '"
        << large_path_header(name, p).settings << "': not a bitwise continuation\n";
  if (!restart.empty() && !o.quiet && !m.lti.empty() && p.scheme == GranularScheme::GeneralizedAlpha &&
      !extras.has_beam_accelerations)
    log << "talus: " << restart << " holds no generalized-alpha beam accelerations (a Moreau-Jean run's archive, or an "
           "older one): the beams start from a_n = M^-1 f(q_n, v_n)\n";
  if (!restart.empty() && !o.quiet && !extras.has_contacts)
    log << "talus: " << restart << " holds no contact cache (an older archive): the first step starts cold\n";
  if (!restart.empty() && !o.quiet && !m.interactions.empty() && !extras.has_joints)
    log << "talus: " << restart << " holds no joint multipliers (an older archive): the joints' first step starts cold\n";
  const TerminateHandler terminate_handler;

  // A scene that starts empty and fills by pours takes them from its first bead.
  double bead_mass = m.bodies.spheres() > 0 ? m.bodies.mass[0] : 0.0;
  double radius = m.bodies.spheres() > 0 ? m.bodies.radius[0] : 0.0;
  long poured = 0;
  const long n0 = m.bodies.spheres(), n_capsules0 = m.bodies.capsules();
  const double t0 = m.time;
  const long step0 = m.step;
  if (!o.quiet) {
    log << "talus: " << name << " (" << kind << "): " << n0 << " beads, "
        << (m.bodies.capsules() > 0 ? std::to_string(m.bodies.capsules()) + " capsules, " : "") << m.walls.size()
        << " walls, h = " << p.h << ", t_end = " << t_end << ", threads = " << p.threads
        << ", tolerance = " << p.tolerance << '\n';
    if (p.distributed) {
      std::string whole;
      if (p.solver != GranularSolver::MatrixFree && p.solver != GranularSolver::Anderson)
        whole = "the " + granular_solver_name(p.solver) + " solver";
      else if (m.bodies.capsules() > 0 || !m.interactions.empty() || stepper.has_rolling_resistance())
        whole = "steps with capsule contacts, joints or rolling resistance";
      log << "talus: " << p.distributed->ranks() << " MPI ranks: the bead contacts' solve is spread over them"
          << (whole.empty() ? "" : "; " + whole + ": solved whole on every rank (docs/distributed.md)") << '\n';
    }
    if (t_final < t_end - 1e-6 * p.h)
      log << "talus: t_end is not a whole number of steps from t = " << t0 << ": the run ends at t = " << t_final << '\n';
  }

  // The files written so far (names relative to out): run.json lists them, and a later run with
  // overwrite removes them as one set.
  std::vector<std::string> outputs;
  auto written = [&](const std::string& f) {
    if (std::find(outputs.begin(), outputs.end(), f) == outputs.end()) outputs.push_back(f);
  };
  const bool trace_inside = !o.profile.empty() && fs::absolute(o.profile).parent_path() == fs::absolute(out);

  FrameSeries frames(frames_out, m, /*large_path=*/true, /*staged=*/false, o.frame_piece);
  // joints.csv: each joint's mean reaction on its first capsule over every output interval (impulses summed
  // over the interval's steps, divided by its time): force and torque about the capsule's centre, world frame,
  // and a driver's torque about its axis.
  const int n_joints = static_cast<int>(m.interactions.size());
  std::vector<double> joint_sums(7 * n_joints, 0.0);
  long joint_steps = 0;
  std::ostringstream joint_rows_csv;
  joint_rows_csv << std::setprecision(9);
  auto add_joint_impulses = [&] {
    const JointSweep& js = stepper.joint_sweep();
    for (int k = 0; k < n_joints; ++k)
      for (int row = js.row_start[k]; row < js.row_start[k + 1]; ++row) {
        const double l = js.impulse[row];
        for (int c = 0; c < 6; ++c) joint_sums[7 * k + c] += l * js.jac_a[row][c];
        if (std::get<JointRelation>(m.interactions[k].relation).kind == JointKind::Driver) joint_sums[7 * k + 6] += l;
      }
    ++joint_steps;
  };
  // obstacle_loads.csv: each obstacle's mean load over every output interval (engine/analysis/ObstacleLoads.hpp):
  // the force the bodies put on it and its torque about the obstacle's reference point, world frame; run.json
  // gives the means over the second half of the run.
  const std::vector<ObstacleRef> obstacles = granular::model_obstacles(m);
  auto obstacle_name = [&](std::size_t k) {
    return plan.obstacle_names.size() == obstacles.size() ? plan.obstacle_names[k] : obstacle_label(obstacles[k]);
  };
  ObstacleLoads interval_loads, late_loads;
  interval_loads.reset(m);
  late_loads.reset(m);
  std::ostringstream obstacle_rows_csv;
  obstacle_rows_csv << std::setprecision(9);
  auto write_obstacle_rows = [&] {
    if (interval_loads.steps == 0) return;
    for (std::size_t k = 0; k < interval_loads.obstacles.size(); ++k) {
      const Eigen::Vector3d f = interval_loads.mean_force(static_cast<int>(k)),
                            t = interval_loads.mean_torque(static_cast<int>(k)), &x = interval_loads.reference[k];
      obstacle_rows_csv << m.time << ',' << obstacle_name(k) << ',' << obstacle_kind_name(interval_loads.obstacles[k].kind)
                        << ',' << interval_loads.obstacles[k].index << ',' << f.x() << ',' << f.y() << ',' << f.z() << ','
                        << t.x() << ',' << t.y() << ',' << t.z() << ',' << x.x() << ',' << x.y() << ',' << x.z() << '\n';
    }
    interval_loads.reset(m);
  };
  auto write_joint_rows = [&] {
    if (n_joints == 0 || joint_steps == 0) return;
    const double span = joint_steps * p.h;
    for (int k = 0; k < n_joints; ++k) {
      const bool driver = std::get<JointRelation>(m.interactions[k].relation).kind == JointKind::Driver;
      joint_rows_csv << m.time << ',' << m.interactions[k].name << ','
                     << to_string(std::get<JointRelation>(m.interactions[k].relation).kind);
      for (int c = 0; c < 6; ++c) joint_rows_csv << ',' << joint_sums[7 * k + c] / span;
      joint_rows_csv << ',';
      if (driver) joint_rows_csv << joint_sums[7 * k + 6] / span;
      joint_rows_csv << '\n';
    }
    std::fill(joint_sums.begin(), joint_sums.end(), 0.0);
    joint_steps = 0;
  };
  // The last step's contacts index the bodies as they were; after an outflow removal, or a failed step undone,
  // they are left out.
  bool contacts_valid = false;
  long restart_step = -1;  // m.step of the state in restart.h5
  // measures.csv (GranularMeasureSeries.hpp): one row per frame, in the scene's measure_region or the bulk of
  // the beads as they are at that frame.
  const std::optional<Region> fixed_region = rs.measure_region;
  std::vector<MeasureRow> measures;
  std::vector<ContactForce> contact_forces;
  auto record_measures = [&] {
    if (contacts_valid) granular_contact_forces(m, stepper, contact_forces);
    else contact_forces.clear();
    const std::optional<Region> region = fixed_region ? fixed_region : bulk_region(m.bodies);
    measures.push_back(measure_row(m, contact_forces, region ? &*region : nullptr));
  };
  auto write_frame = [&] {
    const auto t0 = ProfileClock::now();
    write_joint_rows();
    write_obstacle_rows();
    record_measures();
    frames.write(m, frame_contacts(contacts_valid ? &stepper : nullptr), p.h);
    profile.record(Phase::Output, t0, ProfileClock::now(), m.step);
  };
  // The archive is written after the step's outflow (the frame shows the bodies before it, with the step's
  // contacts): it is the state the next step starts from.
  auto save_restart = [&] {
    const auto t0 = ProfileClock::now();
    const StepperArchive state = stepper_archive(stepper);
    const ArchiveHeader header = large_path_header(name, p);
    write_restart(out / "restart.h5", m, &state, &counters, &header, p.h);
    written("restart.h5");
    restart_step = m.step;
    profile.record(Phase::Output, t0, ProfileClock::now(), m.step);
  };

  long worst_sweeps = 0, total_sweeps = 0, steps = 0, beam_resolves = 0;
  double worst_residual = 0.0, worst_penetration = 0.0;
  counters.dropped = counters.dropped || sc.events.drop_time < 0;
  int status = -1;  // running
  std::string failure;
  long failed_step = -1;
  double failed_time = 0.0;
  const auto wall_start = std::chrono::steady_clock::now();
  double rate = 0.0, ke_ratio = 0.0, angle_sum = 0.0;
  long angle_count = 0;

  // run.json (RunSummary.hpp, the layout both paths share): the run's inputs, its units and its results;
  // written at the start (status "running") and at the end, so that a killed run says so.
  auto write_summary = [&] {
    RunSummary su;
    su.path = "large";
    su.scene = name;
    su.scene_file = scene_file.string();
    su.description = plan.description;
    // Spelled as the small path spells them (apps/Cli.cpp): --set first, then the flags.
    for (const std::string& kv : o.sets) su.overrides.push_back("--set " + kv);
    if (o.t_end > 0) su.overrides.push_back("--t-end " + num(o.t_end));
    if (o.h > 0) su.overrides.push_back("--h " + num(o.h));
    su.restart_file = restart, su.restart_step = step0;
    su.restart_settings = extras.header.settings;
    su.restart_same_settings = extras.header.settings == large_path_header(name, p).settings;
    su.status = status < 0 ? "running" : status == 0 ? "completed" : status == 2 ? "step_failed" : "interrupted";
    if (status == 2) su.failed_step = failed_step, su.failed_time = failed_time, su.failure = failure;
    su.parameters = common_parameters(p.scheme == GranularScheme::GeneralizedAlpha ? "generalized_alpha" : "moreau_jean",
                                      p.h, t_end, granular_solver_name(p.solver), p.tolerance, frame_every);
    nlohmann::ordered_json& pa = su.parameters;
    pa["generator"] = kind;
    pa["seed"] = plan.seed;
    pa["threads"] = p.threads;
    if (p.solver == GranularSolver::Anderson) {
      pa["anderson_memory"] = p.anderson_memory, pa["anderson_every"] = p.anderson_every;
      pa["anderson_warm"] = p.anderson_warm;
    }
    pa["contact_order"] = p.contact_order == GranularParameters::ContactOrder::BottomUp  ? "bottom_up"
                          : p.contact_order == GranularParameters::ContactOrder::TopDown ? "top_down"
                                                                                         : "detection";
    if (!m.lti.empty()) {
      if (p.scheme == GranularScheme::GeneralizedAlpha)
        pa["rho_infinity"] = p.rho_infinity;
      else
        pa["theta"] = p.beam_theta;
    }
    su.beads = static_cast<int>(n0), su.capsules = static_cast<int>(n_capsules0);
    su.rigid_bodies = static_cast<int>(n0 + n_capsules0);
    su.lti = static_cast<int>(m.lti.size()), su.nonlinear = static_cast<int>(m.nonlinear.size());
    su.beams = static_cast<int>(m.detection.beams.size()), su.interactions = n_joints;
    su.start_time = t0, su.final_time = m.time;
    su.steps = steps, su.planned_steps = planned, su.final_step = m.step;
    su.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    for (int q = 0; q < kPhaseCount; ++q) su.phase_seconds[q] = profile.total(static_cast<Phase>(q));
    su.frames = frames.frames();
    nlohmann::ordered_json& re = su.results;
    re["beads_left"] = m.bodies.spheres();
    re["capsules_left"] = m.bodies.capsules();
    re["worst_residual"] = worst_residual;
    re["mean_sweeps"] = steps ? double(total_sweeps) / steps : 0.0;
    re["worst_sweeps"] = worst_sweeps;
    if (!m.lti.empty() && p.scheme == GranularScheme::GeneralizedAlpha) re["beam_coupling_resolves"] = beam_resolves;
    re["max_penetration_over_r"] = worst_penetration / std::max(radius, 1e-300);
    re["final_ke_over_Nmgr"] = ke_ratio;
    re["removed_beads"] = counters.removed;
    re["poured_beads"] = poured;
    re["discharge_rate_kg_per_s"] = rate;
    if (!m.drums.empty()) {
      re["drum_froude"] = m.drums[0].angular_velocity * m.drums[0].angular_velocity * m.drums[0].radius / m.gravity.norm();
      re["repose_angle_deg"] = angle_count > 0 ? nlohmann::json(angle_sum / angle_count) : nlohmann::json(nullptr);
      // The first drum's load about its axis over the second half: the torque the bed puts on it, and the power the
      // drive supplies to keep its rate, −torque Ω (positive when the bed resists the rotation).
      const auto first_drum = std::find(late_loads.obstacles.begin(), late_loads.obstacles.end(),
                                        ObstacleRef{ObstacleKind::Drum, 0});
      const int d = static_cast<int>(first_drum - late_loads.obstacles.begin());
      if (late_loads.steps > 0 && first_drum != late_loads.obstacles.end()) {
        const double torque = late_loads.mean_torque(d).dot(m.drums[0].axis);
        re["drum_torque_Nm"] = torque;
        re["drum_power_W"] = -torque * m.drums[0].angular_velocity;
      }
    }
    if (late_loads.steps > 0 && !late_loads.obstacles.empty()) {
      nlohmann::ordered_json loads = nlohmann::ordered_json::array();
      for (std::size_t k = 0; k < late_loads.obstacles.size(); ++k) {
        const Eigen::Vector3d f = late_loads.mean_force(static_cast<int>(k)), t = late_loads.mean_torque(static_cast<int>(k));
        const Eigen::Vector3d& x = late_loads.reference[k];
        loads.push_back({{"name", obstacle_name(k)},
                         {"kind", obstacle_kind_name(late_loads.obstacles[k].kind)},
                         {"force_N", {f.x(), f.y(), f.z()}},
                         {"torque_Nm", {t.x(), t.y(), t.z()}},
                         {"torque_point_m", {x.x(), x.y(), x.z()}}});
      }
      re["obstacle_loads"] = loads;
    }
    if (!measures.empty()) {
      // The last frame's measurements (measures.csv has every frame's; NaN, e.g. no region, becomes null).
      const MeasureRow& last = measures.back();
      re["measures"] = {{"time", last.time},
                        {"region", last.region},
                        {"packing_fraction", last.packing_fraction},
                        {"coordination", last.coordination},
                        {"mechanical_coordination", last.mechanical_coordination},
                        {"mean_normal_force_N", last.mean_normal_force},
                        {"share_above_mean_force", last.above_mean},
                        {"pressure_Pa", last.pressure},
                        {"deviatoric_stress_Pa", last.deviatoric},
                        {"ke_translation_J", last.ke_translation},
                        {"ke_rotation_J", last.ke_rotation}};
    }
    su.units = {{"results.max_penetration_over_r", "bead radius"},
                {"results.discharge_rate_kg_per_s", "kg/s"},
                {"results.final_ke_over_Nmgr", "N m g r"},
                {"results.repose_angle_deg", "degree (drum: mean over the second half of the run)"},
                {"results.drum_torque_Nm", "N m about the drum's axis (mean over the second half of the run)"},
                {"results.drum_power_W", "W (mean over the second half of the run)"},
                {"results.obstacle_loads", "N and N m, world frame, means over the second half of the run"}};
    written(kRunJsonFile);
    su.files = frames.files();
    su.files.insert(su.files.end(), outputs.begin(), outputs.end());
    // NaN and infinities become null (nlohmann's dump): never a bare nan that JSON readers refuse.
    write_json_file(out / kRunJsonFile, run_summary_json(su));
  };
  if (trace_inside) written(o.profile.filename().string());
  write_summary();
  write_frame();
  save_restart();

  std::vector<char> remove_flags;
  ProgressMeter progress(log, o.tty, !o.quiet, t_final);
  double next_frame = m.time + frame_every;
  LoopHooks hooks;
  hooks.stop = [&] { return (o.stop && o.stop->load(std::memory_order_relaxed)) || g_terminate.load(std::memory_order_relaxed); };
  hooks.before_step = [&] {
    if (!counters.dropped && m.time >= sc.events.drop_time - 1e-12) {
      m.bodies.add_sphere(sc.events.drop_position, sc.events.drop_radius, sc.events.drop_density, sc.events.drop_velocity);
      counters.dropped = true;
    }
    for (TimedPour& pour : plan.pours)
      if (const long n = pour_due(m, pour); n > 0) poured += n, contacts_valid = false;
    if (radius == 0.0 && m.bodies.spheres() > 0) radius = m.bodies.radius[0], bead_mass = m.bodies.mass[0];
    if (!o.dump_fclib.empty() && m.step + 1 == dump_step) stepper.keep_next_problem();
  };
  LinearBeamCheck beam_check;
  hooks.after_step = [&](const StepReport& report) {
    const GranularStepReport& r = static_cast<const GranularStepReport&>(report);
    ++steps;
    if (!m.lti.empty()) beam_check.after_step(m, log);
    if (n_joints > 0) add_joint_impulses();
    if (!obstacles.empty()) {
      add_obstacle_impulses(m, stepper, interval_loads);
      if (m.time >= 0.5 * (t0 + t_final)) add_obstacle_impulses(m, stepper, late_loads);
    }
    contacts_valid = true;
    total_sweeps += r.solver.iterations;
    beam_resolves += r.beam_resolves;
    worst_sweeps = std::max<long>(worst_sweeps, r.solver.iterations);
    worst_residual = std::max(worst_residual, r.solver.residual);
    worst_penetration = std::max(worst_penetration, r.max_penetration);
    if (!o.dump_fclib.empty() && r.step == dump_step) {
      const fs::path f = o.dump_fclib / (name + "_step" + std::to_string(r.step) + ".hdf5");
      solvers::FclibInfo info{name + " step " + std::to_string(r.step),
                              "Talus granular scene " + kind + ", " + std::to_string(m.bodies.spheres()) + " beads", "3D"};
      solvers::write_fclib_local(f.string(), stepper.last_problem(), info);
      // The global form beside it (bodies' velocities, M, H, f, w): the same step for global solvers.
      const fs::path fg = o.dump_fclib / (name + "_step" + std::to_string(r.step) + "_global.hdf5");
      solvers::write_fclib_global(fg.string(), stepper.last_global_problem(), info);
      if (!o.quiet)
        log << "\ntalus: wrote " << f.string() << " and " << fg.filename().string() << " (" << r.contacts
            << " contacts)\n";
    }
    bool frame_due = false;
    if (m.time >= next_frame - 1e-9 * p.h) {
      write_frame();
      next_frame += frame_every;
      frame_due = true;
    }
    // Outflow: beads that left the container are removed between steps (ids and the cache stay valid).
    if (std::isfinite(sc.events.remove_below_z) || std::isfinite(sc.events.remove_beyond_x)) {
      remove_flags.assign(m.bodies.count(), 0);
      long gone = 0;
      double mass = 0.0;
      for (int i = 0; i < m.bodies.spheres(); ++i)
        if (m.bodies.x[i].z() < sc.events.remove_below_z || m.bodies.x[i].x() > sc.events.remove_beyond_x)
          remove_flags[i] = 1, ++gone, mass += m.bodies.mass[i];
      if (gone > 0) m.bodies.remove(remove_flags), contacts_valid = false;
      // Capsules (the beads are already out, so only capsules go here).
      if (m.bodies.capsules() > 0)
        if (const double capsules = remove_escaped_bodies(m, sc.events, remove_flags); capsules > 0) contacts_valid = false, mass += capsules;
      // The removed mass is kept beside the count only while every earlier row has one (an archive written before
      // it existed has none: its rate falls back to the count).
      if (counters.discharge_mass.size() == counters.discharge.size())
        counters.discharge_mass.push_back((counters.discharge_mass.empty() ? 0.0 : counters.discharge_mass.back()) + mass);
      counters.removed += gone;
      counters.discharge.emplace_back(m.time, counters.removed);
    }
    // Drums: the dynamic angle of repose, averaged over the second half of the run (the bed's start-up excluded).
    if (!m.drums.empty() && m.bodies.spheres() > 0 && m.time >= 0.5 * (t0 + t_final)) {
      angle_sum += drum_repose_angle(m);
      ++angle_count;
    }
    if (frame_due) save_restart();
    progress.update(r, [&] {
      char detail[120];
      std::snprintf(detail, sizeof detail, "  residual %.1e  penetration %.2e r", r.solver.residual,
                    r.max_penetration / std::max(radius, 1e-300));
      return std::string(detail);
    });
  };
  // A failed step leaves the model as it was (FailurePolicy::RollBack): what is written from here on is the
  // last good state.
  const LoopEnd end = run_steps(
      m.step, planned, [&]() -> const StepReport& { return stepper.step(); }, [&] { return m.time; }, hooks);
  rethrow_unless_step_failure(end);
  progress.finish();
  if (end.status == RunStatus::Interrupted) status = 130;
  if (end.status == RunStatus::StepFailed) {
    status = 2;
    failed_step = end.failed_step;
    failed_time = end.failed_time;  // the time it started from, as the small path's run.json says it
    failure = end.failure;
    contacts_valid = false;
  }
  if (status < 0) status = 0;
  if (frames.last_time() < m.time) write_frame();
  if (o.barrier) o.barrier();  // every rank's pieces are in place before rank 0 lists and draws them
  if (restart_step != m.step) save_restart();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double ke = kinetic_energy(m.bodies, ShapeKind::Sphere);
  ke_ratio = bead_mass > 0 ? ke / (std::max<long>(m.bodies.spheres(), 1) * bead_mass * 9.81 * radius) : 0.0;

  // Discharge rate: slope of the removed mass over the middle half of the outflow.
  const long removed = counters.removed;
  if (removed > 4) {
    // Polydisperse beads: the removed mass itself, where it was recorded; else the count times one bead's mass.
    const bool by_mass = counters.discharge_mass.size() == counters.discharge.size();
    double t1 = -1, t2 = -1, m1 = 0.0, m2 = 0.0;
    for (std::size_t i = 0; i < counters.discharge.size(); ++i) {
      const auto& [t, k] = counters.discharge[i];
      if (t1 < 0 && k >= removed / 4) t1 = t, m1 = by_mass ? counters.discharge_mass[i] : 0.0;
      if (t2 < 0 && k >= 3 * removed / 4) t2 = t, m2 = by_mass ? counters.discharge_mass[i] : 0.0;
    }
    if (t2 > t1) rate = by_mass ? (m2 - m1) / (t2 - t1) : (removed / 2) * bead_mass / (t2 - t1);
  }
  if (!counters.discharge.empty()) {
    const fs::path file = out / "discharge.csv", tmp = temporary_name(file);
    {
      std::ofstream d(tmp);
      const bool by_mass = counters.discharge_mass.size() == counters.discharge.size();
      d << std::setprecision(9) << (by_mass ? "time,removed_beads,removed_mass_kg\n" : "time,removed_beads\n");
      for (std::size_t i = 0; i < counters.discharge.size(); ++i) {
        d << counters.discharge[i].first << ',' << counters.discharge[i].second;
        if (by_mass) d << ',' << counters.discharge_mass[i];
        d << '\n';
      }
      d.close();
      if (!d) throw std::runtime_error(file.string() + ": write failed");
    }
    commit_file(tmp, file);
    written("discharge.csv");
  }
  if (!measures.empty()) {
    write_measure_csv(out / "measures.csv", measures);
    written("measures.csv");
  }
  if (n_joints > 0) {
    const fs::path file = out / "joints.csv", tmp = temporary_name(file);
    {
      std::ofstream d(tmp);
      d << "time,joint,type,force_x,force_y,force_z,torque_x,torque_y,torque_z,drive_torque\n" << joint_rows_csv.str();
      d.close();
      if (!d) throw std::runtime_error(file.string() + ": write failed");
    }
    commit_file(tmp, file);
    written("joints.csv");
  }
  if (!obstacles.empty() && obstacle_rows_csv.tellp() > 0) {
    const fs::path file = out / "obstacle_loads.csv", tmp = temporary_name(file);
    {
      std::ofstream d(tmp);
      d << "time,obstacle,kind,index,force_x,force_y,force_z,torque_x,torque_y,torque_z,point_x,point_y,point_z\n"
        << obstacle_rows_csv.str();
      d.close();
      if (!d) throw std::runtime_error(file.string() + ": write failed");
    }
    commit_file(tmp, file);
    written("obstacle_loads.csv");
  }
  if (!o.profile.empty()) {
    const fs::path tmp = temporary_name(o.profile);
    profile.write_chrome_trace(tmp.string());
    commit_file(tmp, o.profile);
  }
  {
    const fs::path file = out / "profile.txt", tmp = temporary_name(file);
    std::ofstream table(tmp);
    profile.print_summary(table);
    table.close();
    if (!table) throw std::runtime_error(file.string() + ": write failed");
    commit_file(tmp, file);
    written("profile.txt");
  }
  bool snapshot = false;
  if (!o.no_plot) {
    // The system interpreter as a fallback: a user-level python3 (pyenv, venv) may lack matplotlib. The PNG is
    // drawn under a temporary name (matplotlib picks the format from the extension) and renamed.
    const fs::path png = out / "snapshot.png", tmp = out / ".snapshot.tmp.png";
    const std::string args = " '" + std::string(TALUS_SOURCE_DIR) + "/scripts/render_snapshot.py' '" +
                             (out / frames.last_frame("beads")).string() + "' '" + tmp.string() + "' > /dev/null 2>&1";
    const std::string cmd = "python3" + args + " || /usr/bin/python3" + args;
    if (std::system(cmd.c_str()) == 0 && fs::is_regular_file(tmp)) {
      commit_file(tmp, png);
      written("snapshot.png");
      snapshot = true;
    } else {
      std::error_code ec;
      fs::remove(tmp, ec);
    }
  }
  write_summary();

  if (!o.quiet) {
    log << "talus: " << steps << " steps to t = " << m.time << " in " << wall << " s (" << (wall > 0 ? steps / wall : 0)
        << " steps/s, " << (m.time > t0 ? wall / (m.time - t0) : 0) << " s of wall time per simulated s); sweeps mean "
        << (steps ? double(total_sweeps) / steps : 0.0) << ", worst " << worst_sweeps << "; worst residual "
        << worst_residual << "; max penetration " << worst_penetration / std::max(radius, 1e-300)
        << " r; final KE/(N m g r) " << ke_ratio << '\n';
    if (removed > 0) log << "talus: " << removed << " beads left the container; discharge rate " << rate << " kg/s\n";
    profile.print_summary(log);
    std::string series;
    for (const std::string& c : frames.collections()) series += c + ", ";
    log << "talus: outputs in " << out.string() << " (" << series << "restart.h5, run.json, measures.csv, profile.txt" << (counters.discharge.empty() ? "" : ", discharge.csv")
        << (n_joints > 0 ? ", joints.csv" : "") << (obstacle_rows_csv.tellp() > 0 ? ", obstacle_loads.csv" : "")
        << (snapshot ? ", snapshot.png" : "") << (o.profile.empty() ? "" : "; trace " + o.profile.string()) << ")\n";
  }
  if (status == 2)
    log << "talus: step " << failed_step << " failed at t = " << failed_time << ": " << failure
        << "; restart.h5 and the last frame hold the state before it (t = " << m.time << ")\n";
  if (status == 130) log << "talus: interrupted at t = " << m.time << "; the outputs up to it are complete in " << out.string() << '\n';
  if (!o.no_plot && !snapshot)
    log << "talus: no snapshot (python3 + matplotlib needed): scripts/render_snapshot.py "
        << (out / frames.last_frame("beads")).string() << " snapshot.png\n";
  return status;
}

}  // namespace

}  // namespace talus::app
