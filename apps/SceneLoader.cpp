#include "apps/SceneLoader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "apps/GranularSceneFile.hpp"
#include "apps/MeshFile.hpp"
#include "apps/ParticleFile.hpp"
#include "apps/ResourceLimits.hpp"
#include "apps/SceneReader.hpp"
#include "engine/granular/MovingMeshContacts.hpp"
#include "engine/granular/ObstacleBodies.hpp"
#include "engine/PlanarBlock.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/RegionFill.hpp"
#include "engine/schemes/CorotationalBeam.hpp"
#include "engine/schemes/FiniteElementBeams.hpp"

namespace talus::app {

namespace {

// What a name in the scene refers to: systems (LTI, sphere, planar block), static planes and interactions
// share one namespace, because output columns are named after them.
enum class EntityKind { Lti, Sphere, Plane, Block, Beam, Interaction, Obstacle, Capsule };

struct Entity {
  EntityKind kind;
  Index index;       // into Model::lti, body index, plane index, Model::nonlinear, Model::interactions
  std::string path;  // where it was defined, for "already used" messages
};

struct Plane {
  Eigen::Vector3d normal;
  double offset;
};

const char* kind_name(EntityKind k) {
  switch (k) {
    case EntityKind::Lti: return "an LTI system";
    case EntityKind::Sphere: return "a sphere";
    case EntityKind::Plane: return "a plane";
    case EntityKind::Block: return "a planar block";
    case EntityKind::Beam: return "a co-rotational beam";
    case EntityKind::Interaction: return "an interaction";
    case EntityKind::Obstacle: return "an obstacle";
    case EntityKind::Capsule: return "a capsule";
  }
  return "";
}

struct ForcingTerms {
  std::vector<Vector> ramp_f1;  // f1 t
  struct Sine {
    Vector amplitude;
    double omega, phase;
  };
  std::vector<Sine> sine;  // amplitude sin(ω t + φ)
};

// Bytes a scene's parts take once built, for the memory bound checked before they are allocated. Rough upper
// estimates of the engine's storage (they only have to catch sizes off by orders of magnitude).
constexpr double kBytesPerInteraction = 512.0;  // name, systems, relation, law, gap/velocity/impulse vectors
constexpr double kBytesPerBody = 512.0;         // structure-of-arrays columns, name, output columns
// The co-rotational beam's tangent stiffness is dense (engine/schemes/CorotationalBeam.cpp), and the
// iteration matrix and its factorisation are as large: about four dense n×n matrices of n = 3 (elements + 1).
constexpr double kBeamDenseMatrices = 4.0;
// More steps than this cannot be counted exactly by the run's double clock and long step counters.
constexpr double kMaxSteps = 1e15;

class SceneBuilder {
 public:
  SceneBuilder(std::string file, const LoadOptions& options) : in_(std::move(file)), options_(options) {
    memory_limit_ = options.max_memory;
    if (memory_limit_ == 0) memory_limit_ = available_memory().value_or(0);
  }

  Scene build(const Field& root, const std::string& default_name);

 private:
  void read_laws(const Field& f);
  NonsmoothLaw law_of(const Field& f);
  NonsmoothLaw parse_law(const Field& f);
  std::string new_name(const Field& f, EntityKind kind, Index index);
  // Registers a name given (or generated) at f: letters, digits, '_' or '-', unique.
  void add_name(const Field& f, const std::string& name, EntityKind kind, Index index);
  void read_lti(const Field& f);
  void read_sphere(const Field& f);
  void read_lattice(const Field& f);
  void read_drum_lattice(const Field& f);
  void read_pour(const Field& f);
  // Generated beads (a lattice's, a pour's), named BASE_0, BASE_1, … and marked as generated; each moving at
  // `velocity`, or at its own (`velocities`, one per bead: a particle file's).
  void add_generated_beads(const Field& name_field, const std::string& base,
                           const std::vector<granular::PlacedSphere>& beads, double density,
                           const Eigen::Vector3d& velocity, MaterialId material,
                           const std::vector<Eigen::Vector3d>* velocities = nullptr);
  void read_capsule(const Field& f);
  void read_particles(const Field& f);
  // Generated beads (lattices, pours) that a capsule overlaps are removed, as the granular scenes do; a listed
  // sphere it overlaps is an error at the capsule.
  void clear_capsules(const std::vector<Field>& capsules);
  granular::SizeDistribution read_sizes(const Field& pour);
  void read_plane(const Field& f);
  // The large path's obstacles and bounds (contact/Shapes.hpp, contact/Periodicity.hpp) and its outflow.
  void read_box(const Field& f);
  void read_drum(const Field& f);
  void read_cone(const Field& f);
  void read_mesh(const Field& f);
  void read_periodic(const Field& f);
  void read_outflow(const Field& f);
  // The large path's materials (engine/Materials.hpp): `materials:` names them, `material:` gives a body's or an
  // obstacle's, `contacts.pairs` a pair's law. Returns the id of a body's or obstacle's `material` key, or
  // `fallback` where it has none.
  void read_materials(const Field& f);
  MaterialId material_of(const Field& item, MaterialId fallback);
  NonsmoothLaw read_large_path_law(const Field& law_field);
  void read_block(const Field& f);
  void read_corotational_beam(const Field& f);
  void read_beam(const Field& f);
  void read_interaction(const Field& f);
  void read_joint(const Field& f, JointKind kind, const std::string& name, const Field& systems_field);
  void read_contacts(const Field& f);
  void read_integrator(const Field& f);
  void read_large_path_integrator(const Field& f);
  // A solid sphere of density rho: a general body on the small path, a bead of the sphere group on the large
  // one. Returns its body index.
  int add_sphere_body(const Eigen::Vector3d& x, double radius, double rho);
  void read_event_driven(const Field& f);
  void read_output(const Field& f);
  void check_time(const Field& integrator);
  void check_unused_laws() const;
  // Adds `bytes` to the scene's estimate and refuses the scene at `at` when it exceeds the memory limit.
  void reserve(const Field& at, double bytes, std::string_view what);
  void record_law(const Field& at, const NonsmoothLaw& law, const std::string& interaction);
  void check_law_mix() const;
  const Entity& entity(const Field& name_field, std::initializer_list<EntityKind> allowed, std::string_view why);
  void add_sphere_contact(const std::string& name, Index sphere, const Plane* plane, std::optional<Index> other,
                          const NonsmoothLaw& law, const Field& law_field);

  SceneReader in_;
  const LoadOptions& options_;
  std::uint64_t memory_limit_ = 0;  // 0: unknown (no bound)
  double estimated_bytes_ = 0.0;
  std::map<std::string, Field> law_definitions_;
  std::set<std::string> used_law_names_;
  Scene scene_;
  std::map<std::string, Entity> names_;
  std::map<std::string, NonsmoothLaw> laws_;
  std::vector<Plane> planes_;
  // Meshes carried by a capsule (`body:`), attached once the capsules are read: the mesh's index and the field.
  std::vector<std::pair<int, Field>> carried_meshes_;
  void attach_carried_meshes();
  std::vector<std::string> plane_names_;
  std::vector<std::string> box_names_, cone_names_, drum_names_, mesh_names_;  // in the model's order
  struct UsedLaw {
    Field at;
    NonsmoothLaw law;
    std::string interaction;
  };
  std::vector<UsedLaw> used_laws_;  // one per interaction (or generated group), for the cross-checks
  Eigen::Vector3d gravity_ = Eigen::Vector3d::Zero();
  std::optional<Field> detect_field_;  // `contacts:` when it asks for detection
  std::vector<ContactBeam> beams_;     // the `beams:` entries, for the detection stage
  bool large_ = false;                 // integrator.path: large (read before the sections it shapes)
  granular::SceneEvents outflow_;      // `outflow:` (large path)
  std::vector<char> generated_;        // per body: placed by a lattice or a pour (a capsule may displace it)
  // LoadOptions::share: whether this process builds a share of the beads, and the beads of the whole scene so far
  // (the next one's id).
  bool in_shares_ = false;
  long scene_spheres_ = 0;
  std::vector<granular::TimedPour> timed_pours_;  // pours with a rate (large path)
};

std::string quoted_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none defined" : s;
}

Scene SceneBuilder::build(const Field& root, const std::string& default_name) {
  in_.expect_map(root, {"name", "description", "gravity", "laws", "materials", "lti_systems", "spheres", "lattices",
                        "pours", "particles", "capsules", "planes", "boxes", "drums", "cones", "meshes", "periodic", "outflow", "planar_blocks",
                        "corotational_beams", "beams", "interactions", "contacts", "integrator", "output"});
  // integrator.path decides where spheres and planes are stored, so it is read before them.
  if (auto integrator = in_.optional(root, "integrator"); integrator && integrator->node.IsMap())
    if (auto path = in_.optional(*integrator, "path"))
      large_ = in_.choice<bool>(*path, {{"small", false}, {"large", true}});
  if (large_)
    for (const char* key : {"lti_systems", "planar_blocks", "corotational_beams"})
      if (auto f = in_.optional(root, key))
        in_.fail(*f, std::string("is not stepped by the large path (integrator.path: large steps spheres, "
                                 "capsules, their joints, FE beams and the contacts it detects; expected path: small "
                                 "for ") + key + ")");
  if (!large_)
    for (const char* key : {"materials", "periodic", "boxes", "drums", "cones", "meshes", "outflow", "capsules"})
      if (auto f = in_.optional(root, key))
        in_.fail(*f, "is only read with integrator.path: large (a section of the granular stepper's scenes: "
                     "docs/scene-format.md, \"The large path\")");
  // A share of the beads (LoadOptions::share) where they do not depend on each other: no capsule displaces them, no
  // pour is placed among them, and nothing the partitioned model refuses holds them.
  if (large_ && options_.shares > 1) {
    in_shares_ = true;
    for (const char* key : {"capsules", "drums", "interactions", "beams"})
      if (root.node[key] && !(root.node[key].IsSequence() && root.node[key].size() == 0)) in_shares_ = false;
    if (const YAML::Node pours = root.node["pours"]; pours && pours.IsSequence())
      for (const YAML::Node& p : pours)
        if (!(p.IsMap() && p["rate"])) in_shares_ = false;
  }
  // The periodic bounds first: the planes are checked against them; the materials before the bodies that name them.
  if (auto f = in_.optional(root, "periodic")) read_periodic(*f);
  if (auto f = in_.optional(root, "materials")) read_materials(*f);
  scene_.name = default_name;
  if (auto f = in_.optional(root, "name")) {
    scene_.name = in_.string(*f);
    // It names the default output directory out/<name>: no path separators, no "..".
    for (char c : scene_.name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
        in_.fail(*f, "'" + scene_.name + "' has the character '" + std::string(1, c) +
                         "' (expected letters, digits, '_' or '-': it names the output directory)");
  }
  if (auto f = in_.optional(root, "description")) scene_.description = in_.string(*f);
  if (auto f = in_.optional(root, "gravity")) gravity_ = in_.vector(*f, 3, "(gx, gy, gz)");
  scene_.model.gravity = gravity_;
  if (auto f = in_.optional(root, "laws")) read_laws(*f);
  if (auto f = in_.optional(root, "lti_systems"))
    for (const Field& item : in_.list(*f)) read_lti(item);
  if (auto f = in_.optional(root, "spheres"))
    for (const Field& item : in_.list(*f)) read_sphere(item);
  // A lattice in a drum (`drum:`) is read once the drums are.
  std::vector<Field> drum_lattices;
  if (auto f = in_.optional(root, "lattices"))
    for (const Field& item : in_.list(*f)) {
      if (item.node.IsMap() && item.node["drum"]) drum_lattices.push_back(item);
      else read_lattice(item);
    }
  if (auto f = in_.optional(root, "particles"))
    for (const Field& item : in_.list(*f)) read_particles(item);
  if (auto f = in_.optional(root, "planes"))
    for (const Field& item : in_.list(*f)) read_plane(item);
  if (auto f = in_.optional(root, "boxes"))
    for (const Field& item : in_.list(*f)) read_box(item);
  if (auto f = in_.optional(root, "drums"))
    for (const Field& item : in_.list(*f)) read_drum(item);
  for (const Field& item : drum_lattices) read_drum_lattice(item);
  if (auto f = in_.optional(root, "cones"))
    for (const Field& item : in_.list(*f)) read_cone(item);
  if (auto f = in_.optional(root, "meshes"))
    for (const Field& item : in_.list(*f)) read_mesh(item);
  if (auto f = in_.optional(root, "outflow")) read_outflow(*f);
  // After every listed sphere, lattice and plane, which the pours' beads must not overlap.
  if (auto f = in_.optional(root, "pours"))
    for (const Field& item : in_.list(*f)) read_pour(item);
  // Capsules last among the bodies: the capsule group follows the spheres, so their indices no longer move.
  if (auto f = in_.optional(root, "capsules")) {
    const std::vector<Field> items = in_.list(*f);
    for (const Field& item : items) read_capsule(item);
    clear_capsules(items);
  }
  attach_carried_meshes();
  if (auto f = in_.optional(root, "planar_blocks"))
    for (const Field& item : in_.list(*f)) read_block(item);
  if (auto f = in_.optional(root, "corotational_beams"))
    for (const Field& item : in_.list(*f)) read_corotational_beam(item);
  if (auto f = in_.optional(root, "beams"))
    for (const Field& item : in_.list(*f)) read_beam(item);
  if (scene_.model.lti.empty() && scene_.model.nonlinear.empty() && scene_.model.bodies.count() == 0 &&
      scene_spheres_ == 0 && timed_pours_.empty())
    in_.fail(root, "the scene has no dynamical system (expected at least one entry in lti_systems, spheres, "
                   "lattices, pours, planar_blocks, corotational_beams or beams)");
  if (auto f = in_.optional(root, "interactions");
      f && large_ && f->node.IsSequence() && f->node.size() > 0 &&
      (std::isfinite(outflow_.remove_below_z) || std::isfinite(outflow_.remove_beyond_x) || !timed_pours_.empty()))
    in_.fail(*f, "holds joints, but '" + std::string(timed_pours_.empty() ? "outflow" : "pours") +
                     "' removes or adds bodies while the scene runs (expected one of them: a joint holds its "
                     "capsules by store index)");
  if (auto f = in_.optional(root, "interactions"))
    for (const Field& item : in_.list(*f)) read_interaction(item);
  if (auto f = in_.optional(root, "contacts")) read_contacts(*f);
  if (large_ && !detect_field_)
    in_.fail(root, "integrator.path is large, but the scene has no 'contacts' section (expected contacts: {detect: "
                   "true, law: ...}: the large path detects the sphere and plane contacts each step)");
  check_law_mix();
  read_integrator(in_.required(root, "integrator"));
  if (auto f = in_.optional(root, "output")) read_output(*f);
  check_unused_laws();
  if (in_shares_) {
    // Beads added later (pours, restarts) take the ids after the whole scene's, on every process alike.
    scene_.model.bodies.next_id[static_cast<int>(ShapeKind::Sphere)] = static_cast<std::uint32_t>(scene_spheres_);
    scene_.large_path->shares = options_.shares;
  }
  if (large_)
    for (const auto* names : {&plane_names_, &box_names_, &cone_names_, &drum_names_, &mesh_names_})
      scene_.obstacle_names.insert(scene_.obstacle_names.end(), names->begin(), names->end());
  try {
    scene_.model.validate();  // the engine's own checks: anything the loader missed is still reported
  } catch (const std::invalid_argument& e) {
    in_.fail(root, e.what());
  }
  return std::move(scene_);
}

void SceneBuilder::reserve(const Field& at, double bytes, std::string_view what) {
  estimated_bytes_ += bytes;
  if (memory_limit_ == 0 || estimated_bytes_ <= static_cast<double>(memory_limit_)) return;
  in_.fail(at, std::string(what) + " needs about " + format_bytes(bytes) + " (the scene: about " +
                   format_bytes(estimated_bytes_) + "), more than the " + format_bytes(static_cast<double>(memory_limit_)) +
                   (options_.max_memory ? " allowed by --max-memory" : " of memory available") +
                   " (expected a smaller size, or a larger --max-memory)");
}

// A law defined under `laws:` that nothing uses is a key the scene does not read: most often a typo in the
// name of the law an interaction meant, or a leftover.
void SceneBuilder::check_unused_laws() const {
  for (const auto& [name, at] : law_definitions_)
    if (!used_law_names_.count(name))
      in_.fail(at, "law '" + name + "' is defined but no interaction, contact group, block or stop uses it "
                   "(expected every law under 'laws' to be used: remove it or name it in a 'law:' field)");
}

void SceneBuilder::record_law(const Field& at, const NonsmoothLaw& law, const std::string& interaction) {
  used_laws_.push_back({at, law, interaction});
}

// The one-step solvers (engine/OneStepSolve.hpp) cannot mix 2-D with 3-D friction in one problem; a scene that
// could bring them together is refused here, where the law can still be named, rather than at the step where the
// contacts first meet. (Equalities beside friction are solved together by the mixed NSGS, solvers/fc/MixedNsgs.)
void SceneBuilder::check_law_mix() const {
  const UsedLaw* friction = nullptr;
  for (const UsedLaw& u : used_laws_)
    if (std::holds_alternative<NewtonImpactFrictionLaw>(u.law)) {
      friction = &u;
      break;
    }
  if (!friction) return;
  const int dim = std::get<NewtonImpactFrictionLaw>(friction->law).dim;
  for (const UsedLaw& u : used_laws_) {
    if (const auto* f = std::get_if<NewtonImpactFrictionLaw>(&u.law); f && f->dim != dim)
      in_.fail(u.at, "has friction dim " + std::to_string(f->dim) + " (expected " + std::to_string(dim) +
                         " like '" + friction->interaction + "': one scene uses one friction dimension)");
  }
}

// ---- names and laws -------------------------------------------------------------------------------------

std::string SceneBuilder::new_name(const Field& f, EntityKind kind, Index index) {
  const std::string name = in_.string(f);
  add_name(f, name, kind, index);
  return name;
}

void SceneBuilder::add_name(const Field& f, const std::string& name, EntityKind kind, Index index) {
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      in_.fail(f, "'" + name + "' has the character '" + std::string(1, c) +
                      "' (expected letters, digits, '_' or '-': names become output column prefixes)");
  if (auto it = names_.find(name); it != names_.end())
    in_.fail(f, "name '" + name + "' is already used by " + it->second.path + " (expected unique names)");
  const std::string owner = f.path.substr(0, f.path.rfind('.'));
  names_.emplace(name, Entity{kind, index, owner});
}

const Entity& SceneBuilder::entity(const Field& f, std::initializer_list<EntityKind> allowed,
                                   std::string_view why) {
  const std::string name = in_.string(f);
  std::string expected;
  std::vector<std::string> candidates;
  for (EntityKind k : allowed) expected += (expected.empty() ? "" : " or ") + std::string(kind_name(k));
  for (const auto& [n, e] : names_)
    for (EntityKind k : allowed)
      if (e.kind == k) candidates.push_back(n);
  const auto it = names_.find(name);
  if (it == names_.end())
    in_.fail(f, "unknown system '" + name + "' (expected the name of " + expected + ": " +
                    quoted_list(candidates) + ")");
  for (EntityKind k : allowed)
    if (it->second.kind == k) return it->second;
  in_.fail(f, "'" + name + "' is " + kind_name(it->second.kind) + " (expected " + expected + std::string(why) +
                  ")");
}

NonsmoothLaw SceneBuilder::parse_law(const Field& f) {
  if (!f.node.IsMap()) in_.fail(f, "is not a map (expected a law such as {type: newton, e: 0.5})");
  const std::string type = in_.string(in_.required(f, "type"));
  if (type == "newton") {
    in_.expect_map(f, {"type", "e"});
    return NewtonImpactLaw{in_.in_range(in_.required(f, "e"), 0.0, 1.0)};
  }
  if (type == "newton_friction") {
    in_.expect_map(f, {"type", "e", "mu", "dim"});
    NewtonImpactFrictionLaw law;
    law.e = in_.in_range(in_.required(f, "e"), 0.0, 1.0);
    law.mu = in_.non_negative(in_.required(f, "mu"));
    const Field dim = in_.required(f, "dim");
    law.dim = in_.integer(dim);
    if (law.dim != 2 && law.dim != 3)
      in_.fail(dim, "is " + std::to_string(law.dim) + " (expected 2 for planar friction or 3 for spatial)");
    return law;
  }
  if (type == "equality") {
    in_.expect_map(f, {"type", "rows"});
    EqualityLaw law;
    if (auto rows = in_.optional(f, "rows")) {
      law.rows = in_.integer(*rows);
      if (law.rows < 1) in_.fail(*rows, "is " + std::to_string(law.rows) + " (expected a row count >= 1)");
    }
    return law;
  }
  in_.fail(in_.required(f, "type"), "unknown law '" + type + "' (expected one of: newton, newton_friction, equality)");
}

void SceneBuilder::read_laws(const Field& f) {
  if (!f.node.IsMap()) in_.fail(f, "is not a map (expected law names mapped to laws, e.g. ground: {type: newton, e: 0.5})");
  for (auto it = f.node.begin(); it != f.node.end(); ++it) {
    const Field key{it->first, join_path(f.path, it->first.Scalar()), it->first.Mark()};
    const std::string name = in_.string(key);
    if (laws_.count(name)) in_.fail(key, "duplicate law name (expected each law once)");
    law_definitions_.emplace(name, key);
    laws_.emplace(name, parse_law(Field{it->second, key.path, it->second.Mark()}));
  }
}

NonsmoothLaw SceneBuilder::law_of(const Field& f) {
  if (f.node.IsMap()) return parse_law(f);
  const std::string name = in_.string(f);
  if (auto it = laws_.find(name); it != laws_.end()) {
    used_law_names_.insert(name);
    return it->second;
  }
  std::vector<std::string> known;
  for (const auto& [n, l] : laws_) known.push_back(n);
  in_.fail(f, "unknown law '" + name + "' (expected a name defined under 'laws': " + quoted_list(known) +
                  ", or an inline law such as {type: newton, e: 0.5})");
}

// ---- systems ------------------------------------------------------------------------------------------

void check_mass_matrix(const SceneReader& in, const Field& f, const Matrix& M) {
  if (M.rows() != M.cols())
    in.fail(f, "is " + std::to_string(M.rows()) + "×" + std::to_string(M.cols()) + " (expected a square matrix)");
  if (!M.isApprox(M.transpose(), 1e-12))
    in.fail(f, "is not symmetric (expected a symmetric positive definite mass matrix)");
  if (Eigen::LLT<Matrix>(M).info() != Eigen::Success)
    in.fail(f, "is not positive definite (expected positive masses: a symmetric positive definite matrix)");
}

void SceneBuilder::read_lti(const Field& f) {
  in_.expect_map(f, {"name", "M", "K", "C", "f_const", "forcing", "q0", "v0"});
  LagrangianLti sys;
  sys.name = new_name(in_.required(f, "name"), EntityKind::Lti, static_cast<Index>(scene_.model.lti.size()));
  const Field mf = in_.required(f, "M");
  const Matrix M = in_.matrix(mf);
  check_mass_matrix(in_, mf, M);
  const Index n = M.rows();
  const std::string n_why = "the size of M";
  sys.M = M.sparseView();
  if (auto k = in_.optional(f, "K")) sys.K = in_.matrix(*k, n, n, n_why).sparseView();
  if (auto c = in_.optional(f, "C")) sys.C = in_.matrix(*c, n, n, n_why).sparseView();
  if (auto fc = in_.optional(f, "f_const")) sys.f_const = in_.vector(*fc, n, n_why);
  sys.q = Vector::Zero(n);
  sys.v = Vector::Zero(n);
  if (auto q0 = in_.optional(f, "q0")) sys.q = in_.vector(*q0, n, n_why);
  if (auto v0 = in_.optional(f, "v0")) sys.v = in_.vector(*v0, n, n_why);
  if (auto forcing = in_.optional(f, "forcing")) {
    ForcingTerms terms;
    for (const Field& term : in_.list(*forcing)) {
      if (!term.node.IsMap())
        in_.fail(term, "is not a map (expected a forcing term such as {type: sine, amplitude: [1], omega: 2})");
      const Field type = in_.required(term, "type");
      const std::string t = in_.string(type);
      if (t == "ramp") {
        in_.expect_map(term, {"type", "f1"});
        terms.ramp_f1.push_back(in_.vector(in_.required(term, "f1"), n, n_why));
      } else if (t == "sine") {
        in_.expect_map(term, {"type", "amplitude", "omega", "phase"});
        ForcingTerms::Sine s;
        s.amplitude = in_.vector(in_.required(term, "amplitude"), n, n_why);
        s.omega = in_.number(in_.required(term, "omega"));
        s.phase = 0.0;
        if (auto p = in_.optional(term, "phase")) s.phase = in_.number(*p);
        terms.sine.push_back(std::move(s));
      } else {
        in_.fail(type, "unknown forcing '" + t + "' (expected one of: ramp, sine)");
      }
    }
    // Adds to the buffer it is given (LagrangianLti::external_force passes f_const in it).
    sys.f_time = [terms = std::move(terms)](double t, Eigen::Ref<Vector> out) {
      for (const Vector& f1 : terms.ramp_f1) out += t * f1;
      for (const auto& s : terms.sine) out += std::sin(s.omega * t + s.phase) * s.amplitude;
    };
  }
  scene_.model.lti.push_back(std::move(sys));
}

void SceneBuilder::read_sphere(const Field& f) {
  in_.expect_map(f, {"name", "position", "radius", "density", "mass", "velocity", "angular_velocity", "material"});
  reserve(f, large_ ? static_cast<double>(granular_memory_estimate(1.0, 0.0)) : kBytesPerBody, "a sphere");
  RigidBodies& bodies = scene_.model.bodies;
  const std::string name = new_name(in_.required(f, "name"), EntityKind::Sphere, bodies.count());
  const Eigen::Vector3d x = in_.vector(in_.required(f, "position"), 3, "(x, y, z)");
  const double r = in_.positive(in_.required(f, "radius"));
  const auto density = in_.optional(f, "density");
  const auto mass = in_.optional(f, "mass");
  if (density.has_value() == mass.has_value())
    in_.fail(density ? *density : f, "expected exactly one of 'density' or 'mass'");
  // A general body of the one store (its contacts are the relations below, not the store's detection), or a
  // bead on the large path (a solid sphere of the mass's density: the same m and 2/5 m r² to round-off).
  int i;
  if (large_) {
    const double rho = density ? in_.positive(*density) : in_.positive(*mass) / (4.0 / 3.0 * std::numbers::pi * r * r * r);
    i = add_sphere_body(x, r, rho);
    if (i < 0) {  // another process's share: read for its errors, not kept
      if (auto v = in_.optional(f, "velocity")) in_.vector(*v, 3, "(vx, vy, vz)");
      if (auto w = in_.optional(f, "angular_velocity")) in_.vector(*w, 3, "(ωx, ωy, ωz)");
      material_of(f, kBeadMaterial);
      return;
    }
  } else if (density) {
    i = add_general_sphere(bodies, x, r, in_.positive(*density));
  } else {
    const double m = in_.positive(*mass);
    i = bodies.add_general(x, Eigen::Quaterniond::Identity(), m, Eigen::Vector3d::Constant(0.4 * m * r * r), r);
  }
  if (auto v = in_.optional(f, "velocity")) bodies.v[i] = in_.vector(*v, 3, "(vx, vy, vz)");
  // The key is the body-frame ω; the initial orientation is the identity, so body and world frames coincide at
  // t = 0 and the store's world-frame ω (q ω_body) is the same vector.
  if (auto w = in_.optional(f, "angular_velocity")) bodies.w[i] = bodies.q[i] * Eigen::Vector3d(in_.vector(*w, 3, "(ωx, ωy, ωz)"));
  bodies.material[i] = material_of(f, kBeadMaterial);
  scene_.body_names.push_back(name);
}

// A block of spheres on a lattice, the granular scenes' generator (engine/granular/GranularScenes.hpp
// lattice_sites: the same sites for the same spec): counts nx × ny × nz sites of spacing `spacing` r from the
// block's lower corner, horizontal jitter and radii uniform in r (1 ± polydispersity) drawn from `seed`. The
// spheres are general bodies named NAME_0, NAME_1, … in lattice order (x fastest, then y, then z), stepped and
// detected like listed spheres.
void SceneBuilder::read_lattice(const Field& f) {
  in_.expect_map(f, {"name", "corner", "counts", "radius", "density", "spacing", "jitter", "polydispersity", "seed",
                     "velocity", "material"});
  const Field name_field = in_.required(f, "name");
  const std::string base = in_.string(name_field);
  const Eigen::Vector3d corner = in_.vector(in_.required(f, "corner"), 3, "(x, y, z) of the block's lower corner");
  const Field counts_field = in_.required(f, "counts");
  const Vector counts = in_.vector(counts_field, 3, "(nx, ny, nz) sites along x, y and z");
  for (int k = 0; k < 3; ++k)
    if (!(counts[k] >= 1.0) || counts[k] != std::floor(counts[k]) || counts[k] > 1e6)
      in_.fail(counts_field, "entry " + std::to_string(k) + " is " + std::to_string(counts[k]) +
                                 " (expected a whole number of sites, 1 to 1000000)");
  granular::BeadSpec spec;
  spec.radius = in_.positive(in_.required(f, "radius"));
  spec.density = in_.positive(in_.required(f, "density"));
  spec.jitter = 0.0;
  if (auto v = in_.optional(f, "spacing")) spec.spacing = in_.positive(*v);
  if (auto v = in_.optional(f, "jitter")) spec.jitter = in_.non_negative(*v);
  if (auto v = in_.optional(f, "polydispersity")) spec.polydispersity = in_.non_negative(*v);
  if (auto v = in_.optional(f, "seed")) spec.seed = static_cast<std::uint64_t>(in_.integer(*v));
  const int nx = static_cast<int>(counts[0]), ny = static_cast<int>(counts[1]);
  const double sites = counts[0] * counts[1] * counts[2];
  // A process building a share of the beads holds about that share of them (LoadOptions::share).
  const double held = in_shares_ ? std::ceil(sites / options_.shares) : sites;
  reserve(f, large_ ? static_cast<double>(granular_memory_estimate(held, 0.0)) : kBytesPerBody * sites, "the lattice");
  spec.n = static_cast<long>(sites);
  std::vector<granular::LatticeSite> lattice;
  try {
    lattice = granular::lattice_sites(spec, spec.n, nx, ny, corner);
  } catch (const std::invalid_argument& e) {
    in_.fail(f, e.what());
  }
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  if (auto v = in_.optional(f, "velocity")) velocity = in_.vector(*v, 3, "(vx, vy, vz)");
  std::vector<granular::PlacedSphere> beads;
  for (const granular::LatticeSite& site : lattice) beads.push_back({site.x, site.radius});
  add_generated_beads(name_field, base, beads, spec.density, velocity, material_of(f, kBeadMaterial));
}

// A lattice filling a drum's bed: the fill rule of the `drum` granular scene (engine/granular/GranularScenes.hpp
// drum_bed_sites), with that scene's defaults for spacing and jitter, so that its drum spelled out here steps bit
// for bit as the generator's.
void SceneBuilder::read_drum_lattice(const Field& f) {
  in_.expect_map(f, {"name", "drum", "fill", "radius", "density", "spacing", "jitter", "polydispersity", "seed",
                     "velocity", "material"});
  const Field name_field = in_.required(f, "name");
  const std::string base = in_.string(name_field);
  const Field drum_field = in_.required(f, "drum");
  const std::string drum = in_.string(drum_field);
  const auto it = std::find(drum_names_.begin(), drum_names_.end(), drum);
  if (it == drum_names_.end())
    in_.fail(drum_field, "'" + drum + "' is not a drum of the scene (expected the name of an entry of 'drums')");
  granular::BeadSpec spec;
  spec.radius = in_.positive(in_.required(f, "radius"));
  spec.density = in_.positive(in_.required(f, "density"));
  if (auto v = in_.optional(f, "spacing")) spec.spacing = in_.positive(*v);
  if (auto v = in_.optional(f, "jitter")) spec.jitter = in_.non_negative(*v);
  if (auto v = in_.optional(f, "polydispersity")) spec.polydispersity = in_.non_negative(*v);
  if (auto v = in_.optional(f, "seed")) spec.seed = static_cast<std::uint64_t>(in_.integer(*v));
  const Field fill_field = in_.required(f, "fill");
  const double fill = in_.number(fill_field);
  if (!(fill > 0.0 && fill <= 0.6)) in_.fail(fill_field, "is " + std::to_string(fill) + " (expected the filled share of the drum's cross-section, in (0, 0.6])");
  std::vector<granular::LatticeSite> sites;
  try {
    sites = granular::drum_bed_sites(scene_.model, static_cast<int>(it - drum_names_.begin()), spec, fill);
  } catch (const std::invalid_argument& e) {
    in_.fail(f, e.what());
  }
  reserve(f, static_cast<double>(granular_memory_estimate(static_cast<double>(sites.size()), 0.0)), "the lattice");
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  if (auto v = in_.optional(f, "velocity")) velocity = in_.vector(*v, 3, "(vx, vy, vz)");
  std::vector<granular::PlacedSphere> beads;
  for (const granular::LatticeSite& site : sites) beads.push_back({site.x, site.radius});
  add_generated_beads(name_field, base, beads, spec.density, velocity, material_of(f, kBeadMaterial));
}

void SceneBuilder::add_generated_beads(const Field& name_field, const std::string& base,
                                       const std::vector<granular::PlacedSphere>& beads, double density,
                                       const Eigen::Vector3d& velocity, MaterialId material,
                                       const std::vector<Eigen::Vector3d>* velocities) {
  RigidBodies& bodies = scene_.model.bodies;
  for (std::size_t k = 0; k < beads.size(); ++k) {
    const int i = add_sphere_body(beads[k].x, beads[k].radius, density);
    if (i < 0) continue;  // another process's share
    bodies.v[i] = velocities ? (*velocities)[k] : velocity;
    bodies.material[i] = material;
    generated_.resize(bodies.count(), 0);
    generated_[i] = 1;
    const std::string name = base + "_" + std::to_string(k);
    add_name(name_field, name, EntityKind::Sphere, i);
    scene_.body_names.push_back(name);
  }
}

// Particles from a file (apps/ParticleFile.hpp): a CSV with a header x, y, z, radius[, vx, vy, vz] or an HDF5 file
// with datasets x, radius[, v], a path relative to the scene's folder. Named NAME_0, NAME_1, … in file order; the
// file's velocities, else `velocity`. A problem in the file names the file's line or dataset after the field.
void SceneBuilder::read_particles(const Field& f) {
  in_.expect_map(f, {"name", "file", "density", "velocity", "material"});
  const Field name_field = in_.required(f, "name");
  const std::string base = in_.string(name_field);
  const Field file_field = in_.required(f, "file");
  std::filesystem::path path = in_.string(file_field);
  if (path.is_relative()) path = std::filesystem::path(in_.file()).parent_path() / path;
  const double density = in_.positive(in_.required(f, "density"));
  ParticleSet set;
  try {
    set = talus::app::read_particles(path);
  } catch (const std::runtime_error& e) {
    in_.fail(file_field, e.what());
  }
  reserve(f, large_ ? static_cast<double>(granular_memory_estimate(
                          std::ceil(static_cast<double>(set.x.size()) / (in_shares_ ? options_.shares : 1)), 0.0))
                    : kBytesPerBody * static_cast<double>(set.x.size()), "the particle file");
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  if (auto v = in_.optional(f, "velocity")) {
    if (!set.v.empty()) in_.fail(*v, "is given, but the file has velocities (expected one of the two)");
    velocity = in_.vector(*v, 3, "(vx, vy, vz)");
  }
  std::vector<granular::PlacedSphere> beads;
  for (std::size_t k = 0; k < set.x.size(); ++k) beads.push_back({set.x[k], set.radius[k]});
  add_generated_beads(name_field, base, beads, density, velocity, material_of(f, kBeadMaterial),
                      set.v.empty() ? nullptr : &set.v);
}

// A pour: `count` beads placed at random without overlap in the box `region` (engine/granular/RegionFill.hpp),
// radii from a size distribution, named NAME_0, NAME_1, … largest first. The beads avoid every sphere listed or
// generated before them and every plane.
void SceneBuilder::read_pour(const Field& f) {
  in_.expect_map(f, {"name", "region", "count", "radius", "radii", "density", "seed", "velocity", "material", "tries",
                     "rate", "start"});
  const Field name_field = in_.required(f, "name");
  const std::string base = in_.string(name_field);
  granular::RegionFill fill;
  const Field region_field = in_.required(f, "region");
  const Vector region = in_.vector(region_field, 6, "[x0, y0, z0, x1, y1, z1] in m");
  fill.lower = region.head<3>(), fill.upper = region.tail<3>();
  const Field count_field = in_.required(f, "count");
  fill.count = in_.integer(count_field);
  if (fill.count < 1 || fill.count > 100000000)
    in_.fail(count_field, "is " + std::to_string(fill.count) + " (expected 1 to 100000000 beads)");
  fill.sizes = read_sizes(f);
  if (auto x = in_.optional(f, "seed")) fill.seed = static_cast<std::uint64_t>(in_.integer(*x));
  if (auto x = in_.optional(f, "tries")) {
    fill.tries_per_bead = in_.integer(*x);
    if (fill.tries_per_bead < 1) in_.fail(*x, "expected an integer >= 1");
  }
  const double density = in_.positive(in_.required(f, "density"));
  const double beads = static_cast<double>(fill.count);
  reserve(f, large_ ? static_cast<double>(granular_memory_estimate(beads, 0.0)) : kBytesPerBody * beads, "the pour");
  // A pour at a rate enters during the run (the granular runner inserts its beads between steps).
  if (auto rate = in_.optional(f, "rate")) {
    if (!large_) in_.fail(*rate, "is only read with integrator.path: large (the granular runner inserts the beads)");
    granular::TimedPour pour;
    pour.fill = fill;
    pour.rate = in_.positive(*rate);
    if (auto x = in_.optional(f, "start")) pour.start = in_.non_negative(*x);
    pour.density = density;
    if (auto v = in_.optional(f, "velocity")) pour.velocity = in_.vector(*v, 3, "(vx, vy, vz)");
    pour.material = material_of(f, kBeadMaterial);
    if (const std::string why = pour.fill.sizes.problem(); !why.empty()) in_.fail(f, why);
    pour.fill.sizes.check();
    if ((fill.upper - fill.lower).minCoeff() < 2.0 * pour.fill.sizes.largest())
      in_.fail(region_field, "is narrower than the largest bead's diameter");
    timed_pours_.push_back(pour);
    return;
  }
  if (auto x = in_.optional(f, "start")) in_.fail(*x, "is only read with 'rate' (a pour during the run)");
  RigidBodies& bodies = scene_.model.bodies;
  std::vector<granular::PlacedSphere> present;
  for (int i = 0; i < bodies.count(); ++i) present.push_back({bodies.x[i], bodies.radius[i]});
  std::vector<contact::Wall> walls;
  for (const Plane& p : planes_) walls.push_back(contact::Wall{p.normal, p.offset});
  std::vector<granular::PlacedSphere> placed;
  try {
    placed = granular::fill_region(fill, present, walls, granular::obstacles_of(scene_.model));
  } catch (const std::invalid_argument& e) {
    in_.fail(f, e.what());
  }
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  if (auto v = in_.optional(f, "velocity")) velocity = in_.vector(*v, 3, "(vx, vy, vz)");
  add_generated_beads(name_field, base, placed, density, velocity, material_of(f, kBeadMaterial));
}

// A capsule (the large path's rigid body with an orientation, the link of a mechanism): a cylinder of radius r
// and length 2 half_length along `axis` with hemispherical ends, solid, of `density`.
void SceneBuilder::read_capsule(const Field& f) {
  in_.expect_map(f, {"name", "position", "axis", "radius", "half_length", "density", "velocity", "angular_velocity",
                     "material"});
  RigidBodies& bodies = scene_.model.bodies;
  const std::string name = new_name(in_.required(f, "name"), EntityKind::Capsule, bodies.capsules());
  const Eigen::Vector3d x = in_.vector(in_.required(f, "position"), 3, "(x, y, z) of the centre");
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
  if (auto a = in_.optional(f, "axis")) {
    axis = in_.vector(*a, 3, "(ax, ay, az)");
    if (!(axis.norm() > 1e-12)) in_.fail(*a, "is zero (expected a non-zero direction)");
  }
  const double r = in_.positive(in_.required(f, "radius"));
  const double half = in_.positive(in_.required(f, "half_length"));
  const double rho = in_.positive(in_.required(f, "density"));
  reserve(f, static_cast<double>(granular_memory_estimate(0.0, 1.0)), "a capsule");
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  if (auto x2 = in_.optional(f, "velocity")) v = in_.vector(*x2, 3, "(vx, vy, vz)");
  bodies.add_capsule(x, axis, half, r, rho, v);
  const int i = bodies.capsule(bodies.capsules() - 1);
  if (auto w = in_.optional(f, "angular_velocity")) bodies.w[i] = in_.vector(*w, 3, "(ωx, ωy, ωz) in the world frame");
  bodies.material[i] = material_of(f, kBeadMaterial);
  scene_.body_names.push_back(name);
}

void SceneBuilder::clear_capsules(const std::vector<Field>& capsules) {
  RigidBodies& b = scene_.model.bodies;
  generated_.resize(b.count(), 0);
  std::vector<char> flags(b.count(), 0);
  long removed = 0;
  for (int i = 0; i < b.spheres(); ++i)
    for (int k = 0; k < b.capsules(); ++k) {
      const int c = b.capsule(k);
      const Eigen::Vector3d axis = b.axis(c), e = b.x[i] - b.x[c];
      const double along = std::clamp(e.dot(axis), -b.half_length[c], b.half_length[c]);
      if ((e - along * axis).norm() >= b.radius[i] + b.radius[c]) continue;
      if (!generated_[i])
        in_.fail(capsules[k], "overlaps the sphere '" + scene_.body_names[i] +
                                  "' (expected listed bodies apart: only generated beads make way for a capsule)");
      if (!flags[i]) ++removed;
      flags[i] = 1;
    }
  if (removed == 0) return;
  // The spheres after a removed one move down: their names and the entities that point at them follow.
  std::vector<Index> new_index(b.count(), -1);
  Index next = 0;
  for (int i = 0; i < b.count(); ++i)
    if (!flags[i]) new_index[i] = next++;
  for (auto it = names_.begin(); it != names_.end();) {
    if (it->second.kind == EntityKind::Sphere) {
      if (new_index[it->second.index] < 0) {
        it = names_.erase(it);
        continue;
      }
      it->second.index = new_index[it->second.index];
    }
    ++it;
  }
  std::vector<std::string> names;
  for (int i = 0; i < b.count(); ++i)
    if (!flags[i]) names.push_back(scene_.body_names[i]);
  scene_.body_names = std::move(names);
  b.remove(flags);
}

// `radius: R`, or `radii:` one of {uniform: [r_min, r_max]}, {lognormal: {median: r_50, sigma: σ}},
// {table: [[r, fraction], …], by: number | mass} (engine/granular/SizeDistribution.hpp).
granular::SizeDistribution SceneBuilder::read_sizes(const Field& pour) {
  using granular::SizeDistribution;
  const auto radius = in_.optional(pour, "radius");
  const auto radii = in_.optional(pour, "radii");
  if (radius.has_value() == radii.has_value()) in_.fail(radius ? *radius : pour, "expected exactly one of 'radius' or 'radii'");
  SizeDistribution d;
  if (radius) {
    d.r_min = d.r_max = in_.positive(*radius);
    return d;
  }
  in_.expect_map(*radii, {"uniform", "lognormal", "table", "by"});
  const auto uniform = in_.optional(*radii, "uniform");
  const auto lognormal = in_.optional(*radii, "lognormal");
  const auto table = in_.optional(*radii, "table");
  if (int(uniform.has_value()) + int(lognormal.has_value()) + int(table.has_value()) != 1)
    in_.fail(*radii, "expected exactly one of 'uniform', 'lognormal' or 'table'");
  const auto by = in_.optional(*radii, "by");
  if (by && !table) in_.fail(*by, "is only read with 'table'");
  if (uniform) {
    const Vector r = in_.vector(*uniform, 2, "[smallest, largest] radius in m");
    d.r_min = r[0], d.r_max = r[1];
    if (const std::string why = d.problem(); !why.empty()) in_.fail(*uniform, why);
  } else if (lognormal) {
    in_.expect_map(*lognormal, {"median", "sigma"});
    d.kind = SizeDistribution::Kind::LogNormal;
    d.median = in_.positive(in_.required(*lognormal, "median"));
    const Field s = in_.required(*lognormal, "sigma");
    d.sigma = in_.in_range(s, 0.0, 2.0);
  } else {
    std::vector<double> r, fraction;
    for (const Field& row : in_.list(*table)) {
      const Vector v = in_.vector(row, 2, "[radius, fraction]");
      r.push_back(v[0]), fraction.push_back(v[1]);
    }
    const bool mass = by && in_.choice<bool>(*by, {{"number", false}, {"mass", true}});
    if (mass) {
      d = granular::table_by_mass(r, fraction);
    } else {
      d.kind = SizeDistribution::Kind::Table;
      d.radii = r, d.fractions = fraction;
    }
    if (const std::string why = d.problem(); !why.empty()) in_.fail(*table, why);
  }
  return d;
}

int SceneBuilder::add_sphere_body(const Eigen::Vector3d& x, double radius, double rho) {
  RigidBodies& bodies = scene_.model.bodies;
  if (!large_) return add_general_sphere(bodies, x, radius, rho);
  const long k = scene_spheres_++;
  if (in_shares_) {
    if (k % options_.shares != options_.share) return -1;
    bodies.next_id[static_cast<int>(ShapeKind::Sphere)] = static_cast<std::uint32_t>(k);  // its id in the whole scene
  }
  bodies.add_sphere(x, radius, rho);
  return bodies.spheres() - 1;  // the large path's model holds spheres only: the sphere group is the store
}

void SceneBuilder::read_plane(const Field& f) {
  in_.expect_map(f, {"name", "normal", "offset", "point", "hole", "speed", "amplitude", "frequency", "material", "open_at"});
  const std::string name =
      new_name(in_.required(f, "name"), EntityKind::Plane, static_cast<Index>(planes_.size()));
  if (!large_)
    for (const char* key : {"hole", "speed", "amplitude", "frequency", "material", "open_at"})
      if (auto x = in_.optional(f, key))
        in_.fail(*x, "is only read with integrator.path: large (the small path's planes are fixed and whole)");
  const Field nf = in_.required(f, "normal");
  const Eigen::Vector3d n = in_.vector(nf, 3, "(nx, ny, nz)");
  if (n.norm() < 1e-12) in_.fail(nf, "is zero (expected a non-zero normal pointing to the free side)");
  Plane p{n.normalized(), 0.0};
  const auto offset = in_.optional(f, "offset");
  const auto point = in_.optional(f, "point");
  if (offset && point) in_.fail(*point, "expected either 'offset' or 'point', not both");
  if (offset) p.offset = in_.number(*offset);
  if (point) p.offset = p.normal.dot(Eigen::Vector3d(in_.vector(*point, 3, "(x, y, z)")));
  planes_.push_back(p);
  plane_names_.push_back(name);
  if (!large_) return;
  contact::Wall w{p.normal, p.offset};
  const contact::Periodicity& per = scene_.model.periodic;
  for (int a = 0; a < 3; ++a)
    if (per.axis[a] && std::abs(w.normal[a]) > 1e-12)
      in_.fail(nf, std::string("is not perpendicular to the periodic axis ") + "xyz"[a] +
                       " (expected a plane the periodic copies do not cut)");
  // A circular opening (a silo's orifice): beads pass through it. Its centre lies in the plane.
  if (auto hole = in_.optional(f, "hole")) {
    in_.expect_map(*hole, {"centre", "radius"});
    const Field cf = in_.required(*hole, "centre");
    w.hole_centre = in_.vector(cf, 3, "(x, y, z) in the plane");
    if (std::abs(w.normal.dot(w.hole_centre) - w.offset) > 1e-9 * std::max(1.0, w.hole_centre.norm()))
      in_.fail(cf, "is " + std::to_string(w.normal.dot(w.hole_centre) - w.offset) +
                       " m off the plane (expected a point of the plane)");
    w.hole_radius = in_.positive(in_.required(*hole, "radius"));
  }
  // Motion along the normal (a piston, a shaken floor): offset + speed t + amplitude sin(2π frequency t).
  if (auto x = in_.optional(f, "speed")) w.speed = in_.number(*x);
  if (auto x = in_.optional(f, "amplitude")) w.amplitude = in_.non_negative(*x);
  if (auto x = in_.optional(f, "frequency")) w.frequency = in_.non_negative(*x);
  // A gate: the plane is removed at this time (a hopper's outlet opened once it is filled).
  if (auto x = in_.optional(f, "open_at")) w.open_at = in_.non_negative(*x);
  scene_.model.walls.push_back(w);
  scene_.model.wall_material.push_back(material_of(f, kWallMaterial));
}

void SceneBuilder::read_box(const Field& f) {
  in_.expect_map(f, {"name", "centre", "half_extents", "rotation", "material"});
  box_names_.push_back(new_name(in_.required(f, "name"), EntityKind::Obstacle, static_cast<Index>(scene_.model.boxes.size())));
  const Eigen::Vector3d centre = in_.vector(in_.required(f, "centre"), 3, "(x, y, z)");
  const Field hf = in_.required(f, "half_extents");
  const Eigen::Vector3d half = in_.vector(hf, 3, "half lengths along the box's axes");
  if (!(half.minCoeff() > 0.0)) in_.fail(hf, "expected three half lengths > 0");
  contact::Box b;
  b.centre = centre, b.half_extent = half;
  // A rotation of the world axes about `axis` by `angle` [rad].
  if (auto r = in_.optional(f, "rotation")) {
    in_.expect_map(*r, {"axis", "angle"});
    const Field af = in_.required(*r, "axis");
    const Eigen::Vector3d axis = in_.vector(af, 3, "(ax, ay, az)");
    if (!(axis.norm() > 1e-12)) in_.fail(af, "is zero (expected a non-zero direction)");
    b = contact::rotated_box(centre, half, axis.normalized(), in_.number(in_.required(*r, "angle")));
  }
  scene_.model.boxes.push_back(b);
  scene_.model.box_material.push_back(material_of(f, kWallMaterial));
}

void SceneBuilder::read_drum(const Field& f) {
  in_.expect_map(f, {"name", "centre", "axis", "radius", "angular_velocity", "material"});
  drum_names_.push_back(new_name(in_.required(f, "name"), EntityKind::Obstacle, static_cast<Index>(scene_.model.drums.size())));
  contact::Drum d;
  d.centre = in_.vector(in_.required(f, "centre"), 3, "(x, y, z) on the axis");
  const Field af = in_.required(f, "axis");
  const Eigen::Vector3d axis = in_.vector(af, 3, "(ax, ay, az)");
  if (!(axis.norm() > 1e-12)) in_.fail(af, "is zero (expected a non-zero direction)");
  d.axis = axis.normalized();
  d.radius = in_.positive(in_.required(f, "radius"));
  if (auto w = in_.optional(f, "angular_velocity")) d.angular_velocity = in_.number(*w);
  // The drum has no ends: the beads must not leave along its axis (docs/granular.md, "Rotating drum").
  const contact::Periodicity& per = scene_.model.periodic;
  int along = -1;
  for (int a = 0; a < 3; ++a)
    if (std::abs(d.axis[a]) > 1.0 - 1e-12) along = a;
  if (along < 0 || !per.axis[along])
    in_.fail(af, "expected a coordinate axis that 'periodic' wraps (the drum is open along its axis)");
  scene_.model.drums.push_back(d);
  scene_.model.drum_material.push_back(material_of(f, kWallMaterial));
}

// A conical or cylindrical shell (contact/Shapes.hpp Cone): `base` is the centre of the lower rim, `axis` points
// to the upper rim `height` away, `radius_bottom` and `radius_top` the rims' radii (a cylinder: `radius` alone).
void SceneBuilder::read_cone(const Field& f) {
  in_.expect_map(f, {"name", "base", "axis", "height", "radius_bottom", "radius_top", "radius", "material"});
  cone_names_.push_back(new_name(in_.required(f, "name"), EntityKind::Obstacle, static_cast<Index>(scene_.model.cones.size())));
  contact::Cone k;
  k.base = in_.vector(in_.required(f, "base"), 3, "(x, y, z) of the lower rim's centre");
  if (auto af = in_.optional(f, "axis")) {
    const Eigen::Vector3d axis = in_.vector(*af, 3, "(ax, ay, az)");
    if (!(axis.norm() > 1e-12)) in_.fail(*af, "is zero (expected a non-zero direction)");
    k.axis = axis.normalized();
  }
  k.height = in_.positive(in_.required(f, "height"));
  const auto radius = in_.optional(f, "radius");
  const auto bottom = in_.optional(f, "radius_bottom"), top = in_.optional(f, "radius_top");
  if (radius && (bottom || top))
    in_.fail(*radius, "is given with radius_bottom or radius_top (expected 'radius' for a cylinder, or both rims' radii)");
  if (radius) {
    k.radius_bottom = k.radius_top = in_.positive(*radius);
  } else {
    if (!bottom || !top) in_.fail(f, "expected 'radius' (a cylinder) or both 'radius_bottom' and 'radius_top'");
    k.radius_bottom = in_.non_negative(*bottom);
    k.radius_top = in_.non_negative(*top);
    if (k.radius_bottom == 0.0 && k.radius_top == 0.0) in_.fail(*top, "is 0 like radius_bottom (expected a surface)");
  }
  scene_.model.cones.push_back(k);
  scene_.model.cone_material.push_back(material_of(f, kWallMaterial));
}

// A triangle-mesh wall read from a file (apps/MeshFile.hpp: STL, OBJ, …), placed by `scale`, then `rotation`
// (axis, angle in rad, as for boxes), then `translation`; `closed: true` refuses a surface with a boundary;
// `motion` makes it turn or translate.
void SceneBuilder::read_mesh(const Field& f) {
  in_.expect_map(f, {"name", "file", "scale", "rotation", "translation", "closed", "material", "motion", "body"});
  mesh_names_.push_back(new_name(in_.required(f, "name"), EntityKind::Obstacle, static_cast<Index>(scene_.model.meshes.size())));
  const Field file_field = in_.required(f, "file");
  std::filesystem::path path = in_.string(file_field);
  if (path.is_relative()) path = std::filesystem::path(in_.file()).parent_path() / path;
  talus::app::MeshPlacement place;
  if (auto x = in_.optional(f, "scale")) place.scale = in_.positive(*x);
  if (auto r = in_.optional(f, "rotation")) {
    in_.expect_map(*r, {"axis", "angle"});
    const Field af = in_.required(*r, "axis");
    const Eigen::Vector3d axis = in_.vector(af, 3, "(ax, ay, az)");
    if (!(axis.norm() > 1e-12)) in_.fail(af, "is zero (expected a non-zero direction)");
    place.rotation = Eigen::AngleAxisd(in_.number(in_.required(*r, "angle")), axis.normalized()).toRotationMatrix();
  }
  if (auto x = in_.optional(f, "translation")) place.translation = in_.vector(*x, 3, "(x, y, z) in m");
  const bool closed = in_.optional(f, "closed") ? in_.boolean(*in_.optional(f, "closed")) : false;
  try {
    scene_.model.meshes.push_back(
        std::make_shared<const contact::TriangleMesh>(talus::app::read_mesh(path, place, closed)));
  } catch (const std::runtime_error& e) {
    in_.fail(file_field, e.what());
  }
  scene_.model.mesh_material.push_back(material_of(f, kWallMaterial));
  // A prescribed motion (contact/MeshMotion.hpp): a turn at `angular_velocity` about `axis` through `centre`, and
  // a translation at `velocity`, from where the placement put the mesh.
  contact::MeshMotion motion;
  if (auto mf = in_.optional(f, "motion")) {
    in_.expect_map(*mf, {"angular_velocity", "axis", "centre", "velocity"});
    if (auto w = in_.optional(*mf, "angular_velocity")) motion.angular_velocity = in_.number(*w);
    if (auto af = in_.optional(*mf, "axis")) {
      const Eigen::Vector3d axis = in_.vector(*af, 3, "(ax, ay, az)");
      if (!(axis.norm() > 1e-12)) in_.fail(*af, "is zero (expected a non-zero direction)");
      motion.axis = axis.normalized();
    }
    if (auto c = in_.optional(*mf, "centre")) motion.centre = in_.vector(*c, 3, "(x, y, z) on the axis");
    if (auto v = in_.optional(*mf, "velocity")) motion.velocity = in_.vector(*v, 3, "(vx, vy, vz) in m/s");
  }
  if (motion.moves() || !scene_.model.mesh_motion.empty()) {
    scene_.model.mesh_motion.resize(scene_.model.meshes.size() - 1);
    scene_.model.mesh_motion.push_back(motion);
  }
  if (auto bf = in_.optional(f, "body")) {
    if (motion.moves()) in_.fail(*bf, "is given with 'motion' (expected one: a carried mesh moves with its capsule)");
    carried_meshes_.emplace_back(static_cast<int>(scene_.model.meshes.size()) - 1, *bf);
  }
}

// A carried mesh (`body: CAPSULE`): its vertices, placed in the world at t = 0, go into the capsule's frame, and
// its contacts become the capsule's (engine/granular/MovingMeshContacts.hpp).
void SceneBuilder::attach_carried_meshes() {
  Model& m = scene_.model;
  for (const auto& [k, bf] : carried_meshes_) {
    const Entity& e = entity(bf, {EntityKind::Capsule}, ": a mesh is carried by a capsule");
    try {
      granular::attach_mesh_to_capsule(m, k, m.bodies.capsule(static_cast<int>(e.index)));
    } catch (const std::invalid_argument& err) {
      in_.fail(bf, err.what());
    }
  }
}

NonsmoothLaw SceneBuilder::read_large_path_law(const Field& law_field) {
  const NonsmoothLaw law = law_of(law_field);
  if (const auto* fl = std::get_if<NewtonImpactFrictionLaw>(&law); fl && fl->dim != 3)
    in_.fail(law_field, "has dim " + std::to_string(fl->dim) +
                            " friction (expected dim: 3: the large path's Coulomb cones are three-dimensional)");
  if (std::holds_alternative<EqualityLaw>(law))
    in_.fail(law_field, "is an equality law (expected newton or newton_friction for sphere contacts)");
  return law;
}

// materials: [steel, rubber, ...]: named materials besides the predefined "bead" (every sphere's unless named)
// and "wall" (every obstacle's unless named).
void SceneBuilder::read_materials(const Field& f) {
  MaterialTable& t = scene_.model.materials;
  for (const Field& item : in_.list(f)) {
    const std::string name = in_.string(item);
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
        in_.fail(item, "'" + name + "' has the character '" + std::string(1, c) + "' (expected letters, digits, '_' or '-')");
    if (t.find(name) >= 0)
      in_.fail(item, "'" + name + "' is defined twice (\"bead\" and \"wall\" are predefined: the spheres' and the "
                                  "obstacles' default materials)");
    if (t.count() >= kMaxMaterials) in_.fail(item, "more than " + std::to_string(kMaxMaterials) + " materials");
    t.add(name);
  }
}

MaterialId SceneBuilder::material_of(const Field& item, MaterialId fallback) {
  const auto f = in_.optional(item, "material");
  if (!f) return fallback;
  if (!large_) in_.fail(*f, "is only read with integrator.path: large (the small path's contacts take one law)");
  const std::string name = in_.string(*f);
  const int id = scene_.model.materials.find(name);
  if (id < 0)
    in_.fail(*f, "unknown material '" + name + "' (expected one of: " + quoted_list(scene_.model.materials.names) +
                     ", or a name added under 'materials')");
  return static_cast<MaterialId>(id);
}

// periodic: {x: [lower, upper], ...}: each named axis wraps with period upper − lower.
void SceneBuilder::read_periodic(const Field& f) {
  in_.expect_map(f, {"x", "y", "z"});
  contact::Periodicity& per = scene_.model.periodic;
  for (int a = 0; a < 3; ++a) {
    const auto range = in_.optional(f, std::string(1, "xyz"[a]));
    if (!range) continue;
    const Vector v = in_.vector(*range, 2, "[lower, upper] of the period");
    if (!(v[1] > v[0])) in_.fail(*range, "expected lower < upper");
    per.axis[a] = true;
    per.lower[a] = v[0];
    per.length[a] = v[1] - v[0];
  }
}

// outflow: {below_z: Z, beyond_x: X}: beads that leave the container there are removed between steps.
void SceneBuilder::read_outflow(const Field& f) {
  in_.expect_map(f, {"below_z", "beyond_x"});
  if (auto z = in_.optional(f, "below_z")) outflow_.remove_below_z = in_.number(*z);
  if (auto x = in_.optional(f, "beyond_x")) {
    if (scene_.model.periodic.axis[0]) in_.fail(*x, "is along the periodic axis x (nothing leaves through it)");
    outflow_.remove_beyond_x = in_.number(*x);
  }
}

void SceneBuilder::read_block(const Field& f) {
  in_.expect_map(f, {"name", "width", "height", "mass", "inertia", "q0", "v0", "ground", "law"});
  PlanarBlock b;
  b.name = new_name(in_.required(f, "name"), EntityKind::Block, static_cast<Index>(scene_.model.nonlinear.size()));
  b.width = in_.positive(in_.required(f, "width"));
  b.height = in_.positive(in_.required(f, "height"));
  b.mass = in_.positive(in_.required(f, "mass"));
  if (auto i = in_.optional(f, "inertia")) b.inertia = in_.positive(*i);
  b.gravity = gravity_.head<2>();
  if (auto g = in_.optional(f, "ground")) b.ground = in_.number(*g);
  if (auto q0 = in_.optional(f, "q0")) b.q0 = in_.vector(*q0, 3, "(x, y, θ)");
  if (auto v0 = in_.optional(f, "v0")) b.v0 = in_.vector(*v0, 3, "(ẋ, ẏ, θ̇)");
  const Field lf = in_.required(f, "law");
  const NonsmoothLaw law = law_of(lf);
  const auto* friction = std::get_if<NewtonImpactFrictionLaw>(&law);
  if (!std::holds_alternative<NewtonImpactLaw>(law) && !(friction && friction->dim == 2))
    in_.fail(lf, "is not usable at the corners of a planar block (expected a newton law, or newton_friction "
                 "with dim: 2)");
  const Index first = static_cast<Index>(scene_.model.interactions.size());
  add_planar_block(scene_.model, b, law);
  record_law(lf, law, b.name + ".corner0");
  for (Index k = first; k < static_cast<Index>(scene_.model.interactions.size()); ++k) {
    const std::string& corner = scene_.model.interactions[k].name;
    if (names_.count(corner)) in_.fail(f, "the corner interaction name '" + corner + "' is already used");
    names_.emplace(corner, Entity{EntityKind::Interaction, k, f.path});
  }
}

// A hinged co-rotational beam (engine/schemes/CorotationalBeam.hpp), optionally with a stop for its tip.
void SceneBuilder::read_corotational_beam(const Field& f) {
  in_.expect_map(f, {"name", "length", "elements", "EA", "EI", "rho_A", "hinge", "angle", "angular_velocity", "stop"});
  CorotationalBeam b;
  b.name = new_name(in_.required(f, "name"), EntityKind::Beam, static_cast<Index>(scene_.model.nonlinear.size()));
  b.length = in_.positive(in_.required(f, "length"));
  const Field ef = in_.required(f, "elements");
  b.elements = in_.integer(ef);
  if (b.elements < 1) in_.fail(ef, "is " + std::to_string(b.elements) + " (expected an integer >= 1)");
  {
    const double n = 3.0 * (static_cast<double>(b.elements) + 1.0);
    reserve(ef, kBeamDenseMatrices * 8.0 * n * n + 256.0 * n,
            std::to_string(b.elements) + " elements (" + std::to_string(static_cast<long long>(n)) +
                " coordinates, dense tangent and iteration matrices)");
  }
  b.axial_stiffness = in_.positive(in_.required(f, "EA"));
  b.bending_stiffness = in_.positive(in_.required(f, "EI"));
  b.mass_per_length = in_.positive(in_.required(f, "rho_A"));
  if (auto h = in_.optional(f, "hinge")) b.hinge = in_.vector(*h, 2, "(x, y)");
  if (auto a = in_.optional(f, "angle")) b.angle = in_.number(*a);
  if (auto w = in_.optional(f, "angular_velocity")) b.angular_velocity = in_.number(*w);
  b.gravity = gravity_.head<2>();
  const Index sys = add_corotational_beam(scene_.model, b);
  if (auto stop = in_.optional(f, "stop")) {
    in_.expect_map(*stop, {"angle", "law"});
    const Field lf = in_.required(*stop, "law");
    const NonsmoothLaw law = law_of(lf);
    if (!std::holds_alternative<NewtonImpactLaw>(law))
      in_.fail(lf, "is not usable at the tip stop (expected a newton law: the stop is frictionless)");
    const Field af = in_.required(*stop, "angle");
    const std::string name = b.name + ".stop";
    if (names_.count(name)) in_.fail(*stop, "the stop interaction name '" + name + "' is already used");
    try {
      add_corotational_tip_stop(scene_.model, sys, b, in_.number(af), law, name);
    } catch (const std::invalid_argument& e) {
      in_.fail(af, e.what());
    }
    names_.emplace(name, Entity{EntityKind::Interaction, static_cast<Index>(scene_.model.interactions.size()) - 1,
                                stop->path});
    record_law(lf, law, name);
  }
}

// A linear Euler–Bernoulli beam (engine/schemes/FiniteElementBeams.hpp) placed in space, with a rectangular section,
// that the detected spheres can touch (engine/detection/BeamSphereContact.hpp). It is an LTI system: its name
// names the system in interactions and outputs (q = nodal w, θ of the free nodes).
void SceneBuilder::read_beam(const Field& f) {
  in_.expect_map(f, {"name", "origin", "axis", "deflection", "length", "elements", "width", "thickness", "young",
                     "density", "clamped", "rayleigh_mass", "rayleigh_stiffness"});
  EulerBernoulliBeamParameters p;
  BeamContactGeometry g;
  const std::string name =
      new_name(in_.required(f, "name"), EntityKind::Lti, static_cast<Index>(scene_.model.lti.size()));
  g.origin = in_.vector(in_.required(f, "origin"), 3, "(x, y, z)");
  const Field af = in_.required(f, "axis"), df = in_.required(f, "deflection");
  const Eigen::Vector3d axis = in_.vector(af, 3, "(x, y, z)"), defl = in_.vector(df, 3, "(x, y, z)");
  if (!(axis.norm() > 1e-12)) in_.fail(af, "is zero (expected the direction of the beam from its origin)");
  if (!(defl.norm() > 1e-12)) in_.fail(df, "is zero (expected the direction of the deflection w)");
  g.axis = axis.normalized();
  g.deflection = defl.normalized();
  if (!(std::abs(g.axis.dot(g.deflection)) <= 1e-9))
    in_.fail(df, "is not normal to axis (axis·deflection = " + std::to_string(g.axis.dot(g.deflection)) +
                     "; expected a direction normal to the beam: the beam bends in the plane of the two)");
  p.length = g.length = in_.positive(in_.required(f, "length"));
  const Field ef = in_.required(f, "elements");
  p.elements = g.elements = in_.integer(ef);
  if (p.elements < 1) in_.fail(ef, "is " + std::to_string(p.elements) + " (expected an integer >= 1)");
  reserve(ef, 2.0 * 8.0 * 16.0 * 3.0 * (p.elements + 1.0), std::to_string(p.elements) + " beam elements");
  const double width = in_.positive(in_.required(f, "width"));
  const double thickness = in_.positive(in_.required(f, "thickness"));
  g.half_width = 0.5 * width;
  g.half_thickness = 0.5 * thickness;
  // A rectangular section bending about its width: A = b t, I = b t³ / 12.
  p.area = width * thickness;
  p.second_moment = width * thickness * thickness * thickness / 12.0;
  p.young = in_.positive(in_.required(f, "young"));
  p.density = in_.positive(in_.required(f, "density"));
  if (auto c = in_.optional(f, "clamped")) p.clamped_left = in_.boolean(*c);
  g.clamped_left = p.clamped_left;
  if (auto x = in_.optional(f, "rayleigh_mass")) p.rayleigh_mass = in_.non_negative(*x);
  if (auto x = in_.optional(f, "rayleigh_stiffness")) p.rayleigh_stiffness = in_.non_negative(*x);
  // The beam's own weight: the component of gravity along the deflection. The linear beam has no axial and no
  // out-of-plane unknowns, so the other components do not load it (a planar beam; docs/scene-format.md).
  p.transverse_load = p.density * p.area * gravity_.dot(g.deflection);
  LagrangianLti beam = make_euler_bernoulli_beam(p);
  beam.name = name;
  beams_.push_back({static_cast<Index>(scene_.model.lti.size()), g});
  scene_.model.lti.push_back(std::move(beam));
}

// ---- interactions -------------------------------------------------------------------------------------

void SceneBuilder::add_sphere_contact(const std::string& name, Index sphere, const Plane* plane,
                                      std::optional<Index> other, const NonsmoothLaw& law, const Field& law_field) {
  if (std::holds_alternative<EqualityLaw>(law))
    in_.fail(law_field, "is an equality law (expected newton or newton_friction for a sphere contact)");
  Interaction in;
  in.name = name;
  in.systems.push_back({SystemFamily::Rigid, sphere});
  SphereContactRelation rel;
  if (plane) {
    rel.plane_normal = plane->normal;
    rel.plane_offset = plane->offset;
  } else {
    in.systems.push_back({SystemFamily::Rigid, *other});
  }
  in.relation = rel;
  in.law = law;
  scene_.model.interactions.push_back(std::move(in));
}

void SceneBuilder::read_interaction(const Field& f) {
  if (!f.node.IsMap()) in_.fail(f, "is not a map (expected an interaction with name, type, systems, law)");
  const Field type_field = in_.required(f, "type");
  const std::string type = in_.string(type_field);
  if (type == "linear") {
    in_.expect_map(f, {"name", "type", "systems", "law", "C", "b"});
  } else if (type == "sphere_plane" || type == "sphere_sphere") {
    in_.expect_map(f, {"name", "type", "systems", "law"});
  } else if (type == "spherical_joint") {
    in_.expect_map(f, {"name", "type", "systems", "anchor"});
  } else if (type == "revolute_joint" || type == "prismatic_joint") {
    in_.expect_map(f, {"name", "type", "systems", "anchor", "axis"});
  } else if (type == "driver") {
    in_.expect_map(f, {"name", "type", "systems", "axis", "rate"});
  } else {
    in_.fail(type_field, "unknown interaction type '" + type +
                             "' (expected one of: linear, sphere_plane, sphere_sphere, spherical_joint, "
                             "revolute_joint, prismatic_joint, driver)");
  }
  const Index index = static_cast<Index>(scene_.model.interactions.size());
  const std::string name = new_name(in_.required(f, "name"), EntityKind::Interaction, index);
  if (large_ && !(type.ends_with("_joint") || type == "driver"))
    in_.fail(type_field, "is " + type + " (expected a joint or a driver: on the large path the contacts are "
                                        "detected, and interactions join capsules)");
  if (type.ends_with("_joint") || type == "driver") {
    const JointKind kind = type == "spherical_joint"   ? JointKind::Spherical
                           : type == "revolute_joint"  ? JointKind::Revolute
                           : type == "prismatic_joint" ? JointKind::Prismatic
                                                       : JointKind::Driver;
    read_joint(f, kind, name, in_.required(f, "systems"));
    return;
  }
  const Field law_field = in_.required(f, "law");
  const NonsmoothLaw law = law_of(law_field);
  record_law(law_field, law, name);
  const Field systems_field = in_.required(f, "systems");
  const std::vector<Field> systems = in_.list(systems_field);

  if (type == "linear") {
    if (systems.empty() || systems.size() > 2)
      in_.fail(systems_field, "has " + std::to_string(systems.size()) + " names (expected 1 or 2 systems)");
    Interaction in;
    in.name = name;
    Index cols = 0;
    for (const Field& s : systems) {
      const Entity& e = entity(s, {EntityKind::Lti, EntityKind::Block, EntityKind::Beam},
                               ": spheres take part in sphere_plane and sphere_sphere interactions");
      if (e.kind == EntityKind::Lti) {
        in.systems.push_back({SystemFamily::Lti, e.index});
        cols += scene_.model.lti[e.index].dofs();
      } else {
        in.systems.push_back({SystemFamily::Nonlinear, e.index});
        cols += scene_.model.nonlinear[e.index].dofs();
      }
    }
    if (systems.size() == 2 && in_.string(systems[0]) == in_.string(systems[1]))
      in_.fail(systems[1], "names the same system twice (expected two different systems)");
    const Index rows = law_rows(law);
    const std::string why = std::to_string(rows) + " rows for the law, " + std::to_string(cols) +
                            " columns for the coordinates of the systems";
    LinearRelation rel;
    rel.C = in_.matrix(in_.required(f, "C"), rows, cols, why);
    rel.b = Vector::Zero(rows);
    if (auto b = in_.optional(f, "b")) rel.b = in_.vector(*b, rows, "one per row of the law");
    in.relation = std::move(rel);
    in.law = law;
    scene_.model.interactions.push_back(std::move(in));
    return;
  }

  if (systems.size() != 2)
    in_.fail(systems_field, "has " + std::to_string(systems.size()) + " names (expected 2: " +
                                (type == "sphere_plane" ? "[sphere, plane]" : "[sphere, sphere]") + ")");
  const Entity& a = entity(systems[0], {EntityKind::Sphere}, "");
  if (type == "sphere_plane") {
    const Entity& p = entity(systems[1], {EntityKind::Plane}, "");
    add_sphere_contact(name, a.index, &planes_[p.index], std::nullopt, law, law_field);
  } else {
    const Entity& b = entity(systems[1], {EntityKind::Sphere}, "");
    if (a.index == b.index) in_.fail(systems[1], "names the same sphere twice (expected two different spheres)");
    add_sphere_contact(name, a.index, nullptr, b.index, law, law_field);
  }
}

// A joint's law is implied (an equality on its rows), so it has no `law` key; it is still recorded with the
// scene's other laws, as written ones are.
void SceneBuilder::read_joint(const Field& f, JointKind kind, const std::string& name, const Field& systems_field) {
  const std::vector<Field> systems = in_.list(systems_field);
  if (systems.empty() || systems.size() > 2)
    in_.fail(systems_field, "has " + std::to_string(systems.size()) +
                                " names (expected 1 or 2 spheres: [body] joins the body to the world, [body_a, "
                                "body_b] joins two bodies)");
  // On the large path joints hold capsules (a bead's index changes when the beads are re-sorted).
  const std::string_view why = large_ ? ": on the large path joints join capsules to each other, to an obstacle or "
                                        "to the world"
                                      : ": joints join spheres to each other or to the world";
  const EntityKind joined = large_ ? EntityKind::Capsule : EntityKind::Sphere;
  const auto body = [&](const Field& x) {
    const Entity& e = entity(x, {joined}, why);
    return large_ ? static_cast<Index>(scene_.model.bodies.capsule(static_cast<int>(e.index))) : e.index;
  };
  // The second body may also be an obstacle on the large path (a piston's rod on a moving plane, a wheel's axle on
  // a box): its store index once the obstacles are bodies (engine/granular/ObstacleBodies.hpp; placed here at the
  // scene's time, as the stepper will).
  const auto second = [&](const Field& x) -> Index {
    if (!large_) return body(x);
    const Entity& e = entity(x, {EntityKind::Capsule, EntityKind::Plane, EntityKind::Obstacle},
                             ": on the large path a joint's second body is a capsule, a plane, a box, a cone, a drum "
                             "or a mesh");
    if (e.kind == EntityKind::Capsule) return scene_.model.bodies.capsule(static_cast<int>(e.index));
    const std::string n = in_.string(x);
    ObstacleRef ref{ObstacleKind::Wall, static_cast<int>(e.index)};
    const std::pair<const std::vector<std::string>*, ObstacleKind> tables[] = {
        {&box_names_, ObstacleKind::Box}, {&cone_names_, ObstacleKind::Cone}, {&drum_names_, ObstacleKind::Drum},
        {&mesh_names_, ObstacleKind::Mesh}};
    if (e.kind == EntityKind::Obstacle)
      for (const auto& [names, kind] : tables)
        if (const auto it = std::find(names->begin(), names->end(), n); it != names->end())
          ref = {kind, static_cast<int>(it - names->begin())};
    if (ref.kind == ObstacleKind::Mesh && scene_.model.mesh_carrier(ref.index) >= 0)
      in_.fail(x, "'" + n + "' is a mesh carried by a capsule (expected a joint to that capsule instead)");
    granular::place_obstacle_bodies(scene_.model, scene_.model.time, 0.0);
    const std::vector<ObstacleRef> all = granular::model_obstacles(scene_.model);
    const int k = static_cast<int>(std::find(all.begin(), all.end(), ref) - all.begin());
    return scene_.model.bodies.obstacle_body(k);
  };
  const Index a = body(systems[0]);
  Index b = -1;
  if (systems.size() == 2) {
    b = second(systems[1]);
    if (a == b)
      in_.fail(systems[1], std::string("names the same ") + (large_ ? "capsule" : "sphere") +
                               " twice (expected two different bodies)");
  }
  Eigen::Vector3d anchor = Eigen::Vector3d::Zero(), axis = Eigen::Vector3d::Zero();
  double rate = 0.0;
  if (kind != JointKind::Driver) anchor = in_.vector(in_.required(f, "anchor"), 3, "(x, y, z) in the world at t = 0");
  if (kind != JointKind::Spherical) {
    const Field af = in_.required(f, "axis");
    axis = in_.vector(af, 3, "(ax, ay, az) in the world at t = 0");
    if (!(axis.norm() > 1e-12)) in_.fail(af, "is zero (expected a non-zero direction)");
  }
  if (kind == JointKind::Driver) rate = in_.number(in_.required(f, "rate"));
  Interaction in;
  in.name = name;
  in.systems.push_back({SystemFamily::Rigid, a});
  if (b >= 0) in.systems.push_back({SystemFamily::Rigid, b});
  try {
    in.relation = make_joint(kind, scene_.model.bodies, static_cast<int>(a), static_cast<int>(b), anchor, axis, rate,
                             scene_.model.time);
  } catch (const std::invalid_argument& e) {
    in_.fail(f, e.what());
  }
  in.law = EqualityLaw{joint_rows(kind)};
  record_law(f, in.law, name);
  scene_.model.interactions.push_back(std::move(in));
}

void SceneBuilder::read_contacts(const Field& f) {
  in_.expect_map(f, {"law", "sphere_plane", "sphere_sphere", "detect", "margin", "pairs", "rolling_friction"});
  const Field law_field = in_.required(f, "law");
  const NonsmoothLaw law = law_of(law_field);
  record_law(law_field, law, "contacts");
  if (large_) {
    // The granular stepper detects every sphere-sphere and sphere-wall pair itself, each step, and takes its
    // law from the material table: the one law here is the bead-bead and bead-wall law.
    for (const char* key : {"sphere_plane", "sphere_sphere", "margin"})
      if (auto x = in_.optional(f, key))
        in_.fail(*x, "is not read by the large path (expected detect: true alone: it detects the sphere-sphere and "
                     "sphere-plane pairs each step, with its own margin)");
    const auto d = in_.optional(f, "detect");
    if (!d || !in_.boolean(*d))
      in_.fail(d ? *d : f, "expected detect: true (integrator.path: large detects the contacts each step)");
    // `law` is every pair's; `pairs` overrides some: {materials: [a, b], law: NAME}.
    MaterialTable& t = scene_.model.materials;
    const auto as_contact_law = [](const NonsmoothLaw& l) {
      if (const auto* n = std::get_if<NewtonImpactLaw>(&l)) return ContactLaw{0.0, n->e};
      const auto& fl = std::get<NewtonImpactFrictionLaw>(l);
      return ContactLaw{fl.mu, fl.e};
    };
    // rolling_friction: the rolling resistance μ_r of every pair (engine/Materials.hpp), unless a pair gives its own.
    ContactLaw all = as_contact_law(read_large_path_law(law_field));
    if (auto k = in_.optional(f, "rolling_friction")) all.rolling = in_.non_negative(*k);
    t.default_law = all;
    std::fill(t.laws.begin(), t.laws.end(), all);
    if (auto pairs = in_.optional(f, "pairs")) {
      std::vector<std::pair<std::size_t, Field>> given;
      for (const Field& item : in_.list(*pairs)) {
        in_.expect_map(item, {"materials", "law", "rolling_friction"});
        const Field names_field = in_.required(item, "materials");
        const std::vector<Field> names = in_.list(names_field);
        if (names.size() != 2)
          in_.fail(names_field, "has " + std::to_string(names.size()) + " entries (expected two material names)");
        int id[2];
        for (int k = 0; k < 2; ++k) {
          const std::string name = in_.string(names[k]);
          id[k] = t.find(name);
          if (id[k] < 0) in_.fail(names[k], "unknown material '" + name + "' (expected one of: " + quoted_list(t.names) + ")");
        }
        const std::size_t at = MaterialTable::pair_index(id[0], id[1]);
        for (const auto& [k, first] : given)
          if (k == at)
            in_.fail(names_field, "the pair " + t.names[id[0]] + "/" + t.names[id[1]] + " is given twice (first at line " +
                                      std::to_string(in_.position(first.mark).line) + ")");
        given.emplace_back(at, names_field);
        const Field pair_law = in_.required(item, "law");
        const NonsmoothLaw l = read_large_path_law(pair_law);
        record_law(pair_law, l, "contacts.pairs");
        ContactLaw& pair_law_of = t.law(id[0], id[1]);
        pair_law_of = as_contact_law(l);
        pair_law_of.rolling = all.rolling;
        if (auto k = in_.optional(item, "rolling_friction")) pair_law_of.rolling = in_.non_negative(*k);
      }
    }
    // The beams the beads touch (engine/granular/BeamContacts.hpp).
    scene_.model.detection.beams = beams_;
    detect_field_ = f;
    return;
  }
  if (auto k = in_.optional(f, "rolling_friction"))
    in_.fail(*k, "is only read with integrator.path: large (the small path's contacts have no rolling resistance)");
  bool with_planes = false, with_spheres = false;
  if (auto sp = in_.optional(f, "sphere_plane")) with_planes = in_.boolean(*sp);
  if (auto ss = in_.optional(f, "sphere_sphere")) with_spheres = in_.boolean(*ss);
  // Detection (engine/detection/SmallPathDetection.hpp): the pairs close enough are listed anew every step,
  // in place of the N² pairs generated below.
  if (auto d = in_.optional(f, "detect"); d && in_.boolean(*d)) {
    if (std::holds_alternative<EqualityLaw>(law))
      in_.fail(law_field, "is an equality law (expected newton or newton_friction for sphere contacts)");
    for (const char* key : {"sphere_plane", "sphere_sphere"})
      if (auto x = in_.optional(f, key); x && in_.boolean(*x))
        in_.fail(*x, std::string("is true together with detect: true (expected one of them: detection already "
                                 "finds the sphere-sphere and sphere-plane pairs each step)"));
    ContactDetectionSettings& det = scene_.model.detection;
    det.enabled = true;
    det.law = law;
    for (Index i = 0; i < scene_.model.bodies.count(); ++i) det.spheres.push_back(static_cast<int>(i));
    for (const Plane& p : planes_) det.planes.push_back({p.normal, p.offset});
    det.beams = beams_;
    if (auto m = in_.optional(f, "margin")) det.margin = in_.non_negative(*m);
    detect_field_ = f;
    return;
  }
  if (auto m = in_.optional(f, "margin")) in_.fail(*m, "is only read with detect: true");
  if (auto x = in_.optional(f, "pairs")) in_.fail(*x, "is only read with integrator.path: large (the small path's contacts take one law)");
  if (!beams_.empty() && scene_.model.bodies.count() != 0)
    in_.fail(f, "lists sphere contacts without detect: true, but the scene has the beam '" +
                    scene_.model.lti[beams_[0].lti].name +
                    "' (expected detect: true: only the detection stage finds sphere-beam contacts)");
  const auto add = [&](const std::string& name, Index a, const Plane* plane, std::optional<Index> b) {
    if (auto it = names_.find(name); it != names_.end())
      in_.fail(f, "the generated contact name '" + name + "' is already used by " + it->second.path +
                      " (expected unique names)");
    names_.emplace(name, Entity{EntityKind::Interaction, static_cast<Index>(scene_.model.interactions.size()), f.path});
    add_sphere_contact(name, a, plane, b, law, law_field);
  };
  const Index n = scene_.model.bodies.count();
  // One interaction per pair: quadratic in the number of spheres, so checked before any is generated.
  const double pairs = (with_planes ? static_cast<double>(n) * static_cast<double>(planes_.size()) : 0.0) +
                       (with_spheres ? 0.5 * static_cast<double>(n) * static_cast<double>(n - 1) : 0.0);
  reserve(f, pairs * kBytesPerInteraction,
          std::to_string(static_cast<long long>(pairs)) + " generated contact interactions");
  if (with_planes)
    for (Index i = 0; i < n; ++i)
      for (std::size_t p = 0; p < planes_.size(); ++p)
        add(scene_.body_names[i] + "-" + plane_names_[p], i, &planes_[p], std::nullopt);
  if (with_spheres)
    for (Index i = 0; i < n; ++i)
      for (Index j = i + 1; j < n; ++j) add(scene_.body_names[i] + "-" + scene_.body_names[j], i, nullptr, j);
}

// ---- run settings -------------------------------------------------------------------------------------

// The integrator keys each scheme reads (apps/SceneRun.cpp passes them on); any other key of the section is
// refused at its position, so a parameter that would silently do nothing (rho_infinity under moreau_jean) is
// caught like a typo.
std::vector<std::string_view> scheme_keys(SchemeKind k) {
  std::vector<std::string_view> keys{"scheme", "h", "t_end"};
  const auto add = [&](std::initializer_list<std::string_view> more) { keys.insert(keys.end(), more); };
  switch (k) {
    case SchemeKind::MoreauJean:
      add({"theta", "gamma", "variant", "solver", "tolerance", "max_iterations", "newton_tolerance",
           "newton_max_iterations"});
      break;
    case SchemeKind::Newmark: add({"newmark_gamma", "newmark_beta", "newton_tolerance", "newton_max_iterations"}); break;
    case SchemeKind::Hht: add({"hht_alpha", "newton_tolerance", "newton_max_iterations"}); break;
    case SchemeKind::GeneralizedAlpha: add({"rho_infinity", "newton_tolerance", "newton_max_iterations"}); break;
    case SchemeKind::SchatzmanPaoli: add({"sp_theta", "newton_tolerance", "newton_max_iterations"}); break;
    case SchemeKind::EventDriven: add({"dae_method", "dae_tolerance"}); break;
    // Reached through make_integrator only: read_integrator's choice list never yields them.
    case SchemeKind::AdaptiveMoreauJean:
    case SchemeKind::EventCapturingRk:
    case SchemeKind::Granular: break;
  }
  return keys;
}

// Moreau–Jean's keys under event_driven: the event-driven example scenes are the Moreau–Jean ones with the
// scheme line switched (tests/eventdriven), so these are reported as warnings rather than refused.
bool moreau_jean_only_key(std::string_view k) {
  for (std::string_view m : {"theta", "gamma", "variant", "solver", "tolerance", "max_iterations", "newton_tolerance",
                             "newton_max_iterations"})
    if (k == m) return true;
  return false;
}

void SceneBuilder::read_integrator(const Field& f) {
  in_.expect_map(f, {"scheme", "path", "h", "theta", "gamma", "variant", "solver", "tolerance", "max_iterations",
                     "newton_tolerance", "newton_max_iterations", "t_end", "newmark_gamma", "newmark_beta",
                     "hht_alpha", "rho_infinity", "sp_theta", "dae_method", "dae_tolerance", "max_sweeps", "threads",
                     "anderson_memory", "anderson_every", "anderson_warm", "contact_order", "partitions",
                     "multilevel_pre_sweeps", "multilevel_post_sweeps", "multilevel_plain_first", "multilevel_routing"});
  if (large_) return read_large_path_integrator(f);
  SchemeChoice& c = scene_.scheme;
  c.kind = SchemeKind::MoreauJean;
  if (auto s = in_.optional(f, "scheme"))
    c.kind = in_.choice<SchemeKind>(*s, {{"moreau_jean", SchemeKind::MoreauJean},
                                         {"newmark", SchemeKind::Newmark},
                                         {"hht", SchemeKind::Hht},
                                         {"generalized_alpha", SchemeKind::GeneralizedAlpha},
                                         {"schatzman_paoli", SchemeKind::SchatzmanPaoli},
                                         {"event_driven", SchemeKind::EventDriven}});
  std::vector<std::string_view> keys = scheme_keys(c.kind);
  keys.push_back("path");
  for (auto it = f.node.begin(); it != f.node.end(); ++it) {
    const std::string k = it->first.Scalar();
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
    const Field key{it->first, join_path(f.path, k), it->first.Mark()};
    std::string list;
    for (std::string_view x : keys) list += (list.empty() ? "" : ", ") + std::string(x);
    const std::string what = std::string("is not read by scheme ") + to_string(c.kind) + " (its keys: " + list + ")";
    if (c.kind == SchemeKind::EventDriven && moreau_jean_only_key(k)) {
      if (options_.warnings) {
        const SourcePosition at = in_.position(key.mark);
        options_.warnings->push_back(SceneError(at, key.path, what + "; ignored").what());
      }
      continue;
    }
    if (k == "dae_method" || k == "dae_tolerance") in_.fail(key, "is only read with scheme: event_driven");
    for (std::string_view large_key :
         {"max_sweeps", "threads", "anderson_memory", "anderson_every", "anderson_warm", "contact_order", "partitions",
          "multilevel_pre_sweeps", "multilevel_post_sweeps", "multilevel_plain_first", "multilevel_routing"})
      if (k == large_key) in_.fail(key, "is only read with path: large (the granular stepper's setting)");
    in_.fail(key, what);
  }
  // The second-order schemes update q by vector arithmetic and solve frictionless MLCPs
  // (engine/schemes/SecondOrderSystem.hpp): refuse here, at the field, what they would refuse at the first step.
  if (c.kind == SchemeKind::EventDriven) {
    read_event_driven(f);
  } else {
    for (const char* key : {"dae_method", "dae_tolerance"})
      if (auto x = in_.optional(f, key)) in_.fail(*x, "is only read with scheme: event_driven");
  }
  if (c.kind != SchemeKind::MoreauJean && c.kind != SchemeKind::EventDriven) {
    const Field s = in_.required(f, "scheme");
    const std::string name = in_.string(s);
    for (const UsedLaw& u : used_laws_)
      if (const auto* fl = std::get_if<NewtonImpactFrictionLaw>(&u.law); fl && c.kind != SchemeKind::GeneralizedAlpha)
        in_.fail(s, "is " + name + ", but '" + u.interaction + "' has " + std::to_string(fl->dim) +
                        "-D Coulomb friction (expected moreau_jean or generalized_alpha: Newmark, HHT and "
                        "Schatzman–Paoli handle frictionless contact and equalities only)");
  }
  // Parameters of the second-order schemes (engine/schemes/SchemeSelection.hpp; defaults are the seeds').
  if (auto x = in_.optional(f, "newmark_gamma")) c.gamma = in_.in_range(*x, 0.0, 1.0);
  if (auto x = in_.optional(f, "newmark_beta")) c.beta = in_.in_range(*x, 0.0, 1.0);
  if (auto x = in_.optional(f, "hht_alpha")) c.alpha = in_.in_range(*x, 0.0, 1.0 / 3.0);
  if (auto x = in_.optional(f, "rho_infinity")) c.rho_infinity = in_.in_range(*x, 0.0, 1.0);
  if (auto x = in_.optional(f, "sp_theta")) c.sp_theta = in_.in_range(*x, 0.0, 0.5);
  MoreauJeanParameters& p = scene_.integrator;
  p.h = in_.positive(in_.required(f, "h"));
  c.h = p.h;
  scene_.t_end = in_.positive(in_.required(f, "t_end"));
  if (auto x = in_.optional(f, "theta")) c.theta = p.theta = in_.in_range(*x, 0.0, 1.0);
  if (auto x = in_.optional(f, "gamma")) p.gamma = in_.in_range(*x, 0.0, 1.0);
  if (auto x = in_.optional(f, "variant"))
    p.variant = in_.choice<MoreauJeanVariant>(*x, {{"standard", MoreauJeanVariant::Standard},
                                                   {"dissipative", MoreauJeanVariant::Dissipative},
                                                   {"paoli", MoreauJeanVariant::Paoli}});
  if (auto x = in_.optional(f, "solver"))
    p.solver = in_.choice<OneStepSolverKind>(
        *x, {{"lemke", OneStepSolverKind::Lemke}, {"psor", OneStepSolverKind::Psor}, {"nsgs", OneStepSolverKind::Nsgs}});
  if (auto x = in_.optional(f, "tolerance")) p.solver_tolerance = in_.positive(*x);
  const auto count = [&](const Field& x) {
    const int n = in_.integer(x);
    if (n < 1) in_.fail(x, "is " + std::to_string(n) + " (expected an integer >= 1)");
    return n;
  };
  if (auto x = in_.optional(f, "max_iterations")) p.solver_max_iterations = count(*x);
  if (auto x = in_.optional(f, "newton_tolerance")) p.newton_tolerance = in_.positive(*x);
  if (auto x = in_.optional(f, "newton_max_iterations")) p.newton_max_iterations = count(*x);
  check_time(f);
}

// The large path's settings (engine/granular/GranularStepper.hpp GranularParameters; the keys and defaults
// of the granular scenes, docs/granular.md): its two schemes and its matrix-free solvers.
void SceneBuilder::read_large_path_integrator(const Field& f) {
  static constexpr std::string_view keys[] = {"scheme",         "path",          "h",          "t_end",
                                              "solver",         "tolerance",     "max_sweeps", "threads",
                                              "anderson_memory", "anderson_every", "anderson_warm", "contact_order",
                                              "partitions",     "multilevel_pre_sweeps", "multilevel_post_sweeps",
                                              "multilevel_plain_first", "multilevel_routing"};
  for (auto it = f.node.begin(); it != f.node.end(); ++it) {
    const std::string k = it->first.Scalar();
    if (std::find(std::begin(keys), std::end(keys), k) != std::end(keys)) continue;
    if ((k == "theta" || k == "rho_infinity") && !beams_.empty()) continue;  // the beams' θ or ρ∞ (below)
    std::string list;
    for (std::string_view x : keys) list += (list.empty() ? "" : ", ") + std::string(x);
    if (!beams_.empty()) list += ", theta (moreau_jean), rho_infinity (generalized_alpha)";
    in_.fail({it->first, join_path(f.path, k), it->first.Mark()}, "is not read by path: large (its keys: " + list + ")");
  }
  LargePathSettings large;
  granular::GranularParameters& p = large.params;
  p.solver = granular::GranularSolver::Anderson;  // the granular scenes' default (docs/stack-height.md)
  if (auto x = in_.optional(f, "scheme"))
    p.scheme = in_.choice<granular::GranularScheme>(*x, {{"moreau_jean", granular::GranularScheme::MoreauJean},
                                                         {"generalized_alpha", granular::GranularScheme::GeneralizedAlpha}});
  p.h = in_.positive(in_.required(f, "h"));
  scene_.integrator.h = scene_.scheme.h = p.h;
  scene_.scheme.kind = SchemeKind::Granular;
  scene_.t_end = in_.positive(in_.required(f, "t_end"));
  if (auto x = in_.optional(f, "solver")) {
    const std::string name = in_.string(*x);
    const std::vector<std::string>& names = granular::granular_solver_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
      in_.fail(*x, "unknown value '" + name + "' (expected one of: " + quoted_list(names) + ")");
    p.solver = granular::granular_solver_from_name(name);
  }
  if (auto x = in_.optional(f, "tolerance")) p.tolerance = in_.positive(*x);
  const auto count = [&](const Field& x, int lo, int hi) {
    const int n = in_.integer(x);
    if (n < lo || n > hi)
      in_.fail(x, "is " + std::to_string(n) + " (expected an integer from " + std::to_string(lo) + " to " +
                      std::to_string(hi) + ")");
    return n;
  };
  if (auto x = in_.optional(f, "max_sweeps")) p.max_sweeps = count(*x, 1, std::numeric_limits<int>::max());
  if (auto x = in_.optional(f, "threads")) {
    // More threads than 16 per core only wait (the granular scenes' bound).
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    p.threads = count(*x, 1, 16 * cores);
  }
  if (auto x = in_.optional(f, "anderson_memory"))
    p.anderson_memory = count(*x, 1, matrixfree::AndersonWorkspace::kMaxMemory);
  if (auto x = in_.optional(f, "anderson_every")) p.anderson_every = count(*x, 1, 4);
  if (auto x = in_.optional(f, "anderson_warm")) p.anderson_warm = in_.non_negative(*x);
  if (auto x = in_.optional(f, "contact_order"))
    p.contact_order = in_.choice<granular::GranularParameters::ContactOrder>(
        *x, {{"detection", granular::GranularParameters::ContactOrder::Detection},
             {"bottom_up", granular::GranularParameters::ContactOrder::BottomUp},
             {"top_down", granular::GranularParameters::ContactOrder::TopDown}});
  if (auto x = in_.optional(f, "partitions")) p.partitions = count(*x, 0, 4096);
  if (auto x = in_.optional(f, "multilevel_pre_sweeps")) p.multilevel.pre_sweeps = count(*x, 0, 1000);
  if (auto x = in_.optional(f, "multilevel_post_sweeps")) p.multilevel.post_sweeps = count(*x, 0, 1000);
  if (auto x = in_.optional(f, "multilevel_plain_first"))
    p.multilevel.plain_first = count(*x, 0, std::numeric_limits<int>::max());
  if (auto x = in_.optional(f, "multilevel_routing"))
    p.multilevel.spread_routing = in_.choice<bool>(*x, {{"spread", true}, {"tree", false}});
  // The FE beams' own parameter under each scheme (engine/granular/BeamContacts.hpp): θ of their θ-method under
  // Moreau–Jean (the beads keep θ = 1), ρ∞ under generalized-α (beads and capsules do not depend on it). Each is
  // refused under the other scheme, where it would do nothing.
  const bool ga = p.scheme == granular::GranularScheme::GeneralizedAlpha;
  if (auto x = in_.optional(f, "theta")) {
    if (ga) in_.fail(*x, "is the FE beams' theta under moreau_jean: generalized_alpha reads rho_infinity instead");
    p.beam_theta = in_.number(*x);
    if (!(p.beam_theta >= 0.0 && p.beam_theta <= 1.0))
      in_.fail(*x, "is " + std::to_string(p.beam_theta) + " (expected 0 <= theta <= 1)");
  }
  if (auto x = in_.optional(f, "rho_infinity")) {
    if (!ga) in_.fail(*x, "is the FE beams' spectral radius under generalized_alpha: moreau_jean reads theta instead");
    p.rho_infinity = in_.in_range(*x, 0.0, 1.0);
  }
  if (!beams_.empty() && p.solver != granular::GranularSolver::MatrixFree &&
      p.solver != granular::GranularSolver::Anderson)
    in_.fail(*in_.optional(f, "solver"), "is " + granular::granular_solver_name(p.solver) +
                                             ", which does not step FE beams (expected matrix_free or anderson)");
  large.events = outflow_;
  large.pours = timed_pours_;
  scene_.large_path = large;
  check_time(f);
}

// h and t_end against each other: a run takes at least one step and never ends past t_end (SceneRun takes
// floor(t_end / h) steps), and its step count stays exact in a double and a long.
void SceneBuilder::check_time(const Field& f) {
  const Field hf = in_.required(f, "h"), tf = in_.required(f, "t_end");
  const double h = scene_.integrator.h, t_end = scene_.t_end;
  const auto num = [](double x) {
    std::ostringstream o;
    o << x;
    return o.str();
  };
  if (h > t_end * (1.0 + 1e-9))
    in_.fail(hf, "is " + num(h) + ", larger than t_end = " + num(t_end) +
                     " (expected h <= t_end: the run would take no step, or end past t_end)");
  if (t_end / h > kMaxSteps)
    in_.fail(hf, "is " + num(h) + ": t_end / h = " + num(t_end / h) + " steps (expected at most " + num(kMaxSteps) +
                     " steps)");
  (void)tf;
}

// The event-driven path (engine/eventdriven, issue 6) integrates frictionless contacts and equalities only.
void SceneBuilder::read_event_driven(const Field& f) {
  SchemeChoice& c = scene_.scheme;
  if (detect_field_)
    in_.fail(*detect_field_, "asks for detect: true, but integrator.scheme is event_driven (expected moreau_jean or "
                             "generalized_alpha: the event-driven path does not run the detection stage)");
  for (const UsedLaw& u : used_laws_)
    if (const auto* fl = std::get_if<NewtonImpactFrictionLaw>(&u.law); fl && fl->mu > 0.0)
      in_.fail(u.at, "has Coulomb friction (mu = " + std::to_string(fl->mu) + ") on '" + u.interaction +
                         "', but integrator.scheme is event_driven (expected mu: 0 or a newton law: the event-driven "
                         "path is frictionless; use moreau_jean for friction)");
  if (auto x = in_.optional(f, "dae_method")) {
    c.dae_method = in_.choice<std::string>(*x, {{"hem5", "hem5"}, {"rkf45", "rkf45"},
                                                {"generalized_alpha", "generalized_alpha"}});
    if (c.dae_method == "generalized_alpha" && scene_.model.bodies.count() != 0)
      in_.fail(*x, "is generalized_alpha, but '" + scene_.body_names[0] +
                       "' is a rigid body (expected hem5 or rkf45: the index-3 scheme needs q̇ = v, no quaternions)");
  }
  if (auto x = in_.optional(f, "dae_tolerance")) c.dae_tolerance = in_.positive(*x);
}

void SceneBuilder::read_output(const Field& f) {
  in_.expect_map(f, {"every", "frame_every"});
  if (auto e = in_.optional(f, "frame_every")) {
    if (scene_.large_path) scene_.large_path->frame_every = in_.positive(*e);
    else scene_.frame_every = in_.positive(*e);
  }
  if (auto e = in_.optional(f, "every")) {
    if (scene_.large_path)
      in_.fail(*e, "is not read by integrator.path: large (expected frame_every: the seconds between ParaView frames)");
    scene_.output_every = in_.integer(*e);
    if (scene_.output_every < 1)
      in_.fail(*e, "is " + std::to_string(scene_.output_every) + " (expected an integer >= 1: one row every N steps)");
  }
}


// Applies one override to the parsed file: walks the dotted path (creating missing maps, so an override may
// add a key the file left out), then replaces the value. Returns the override's field path as the loader
// names it ("spheres[0].radius"), so that errors at that path can be attributed to the override.
std::string apply_override(YAML::Node root, const SceneOverride& o) {
  const SourcePosition at{o.origin, 0, 0};
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    throw SceneError(at, o.key, "YAML syntax error: " + e.msg);
  }
  // Segments: names and [i] indices.
  struct Segment {
    std::string key;
    long index = -1;
  };
  std::vector<Segment> path;
  std::string name;
  const auto bad = [&](const std::string& why) -> SceneError { return SceneError(at, "", why); };
  for (std::size_t i = 0; i < o.key.size(); ++i) {
    const char c = o.key[i];
    if (c == '.') {
      if (name.empty() && (path.empty() || path.back().index < 0)) throw bad("empty name in the key '" + o.key + "'");
      if (!name.empty()) path.push_back({name}), name.clear();
    } else if (c == '[') {
      if (!name.empty()) path.push_back({name}), name.clear();
      const std::size_t close = o.key.find(']', i);
      if (close == std::string::npos || close == i + 1) throw bad("unclosed or empty [index] in the key '" + o.key + "'");
      const std::string digits = o.key.substr(i + 1, close - i - 1);
      if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
        throw bad("index '" + digits + "' in the key '" + o.key + "' (expected a list index 0, 1, …)");
      if (path.empty()) throw bad("the key '" + o.key + "' starts with an index (expected a section name first)");
      path.push_back({"", std::stol(digits)});
      i = close;
    } else {
      name += c;
    }
  }
  if (!name.empty()) path.push_back({name});
  if (path.empty()) throw bad("empty key (expected key=value, e.g. --set integrator.h=1e-3)");
  std::string field;
  YAML::Node node = root;
  for (std::size_t s = 0; s < path.size(); ++s) {
    const bool last = s + 1 == path.size();
    const Segment& seg = path[s];
    if (seg.index >= 0) {
      field = index_path(field, static_cast<std::size_t>(seg.index));
      if (!node.IsSequence() || seg.index >= static_cast<long>(node.size()))
        throw SceneError(at, field, node.IsSequence() ? "no such entry (the list has " + std::to_string(node.size()) +
                                                            " entries)"
                                                      : "is not a list in the scene (expected an index into a list)");
      if (last) {
        node[static_cast<std::size_t>(seg.index)] = value;
      } else {
        YAML::Node child = node[static_cast<std::size_t>(seg.index)];
        node.reset(child);
      }
      continue;
    }
    const std::string parent = field;
    field = join_path(field, seg.key);
    if (node.IsSequence() && !seg.key.empty() && seg.key.find_first_not_of("0123456789") == std::string::npos)
      throw SceneError(at, field, "its parent is a list: an entry is written " + parent + "[" + seg.key + "], not " +
                                      parent + "." + seg.key);
    if (!node.IsMap() && !node.IsNull())
      throw SceneError(at, field, "its parent is not a map in the scene (expected a path through maps and lists)");
    if (last) {
      node[seg.key] = value;
    } else {
      if (!node[seg.key]) node[seg.key] = YAML::Node(YAML::NodeType::Map);
      YAML::Node child = node[seg.key];
      node.reset(child);
    }
  }
  return field;
}

bool within(const std::string& field, const std::string& prefix) {
  return field == prefix || (field.size() > prefix.size() && field.compare(0, prefix.size(), prefix) == 0 &&
                             (field[prefix.size()] == '.' || field[prefix.size()] == '['));
}

Scene build_with_overrides(const SceneReader& reader, const std::string& text, const std::string& file_name,
                           const std::string& default_name, const LoadOptions& options) {
  const Field root = text.empty() ? reader.load() : reader.load_string(text);
  std::vector<std::pair<std::string, const SceneOverride*>> applied;
  for (const SceneOverride& o : options.overrides) applied.emplace_back(apply_override(root.node, o), &o);
  SceneBuilder builder(file_name, options);
  try {
    return builder.build(root, default_name);
  } catch (const SceneError& e) {
    // The last override of a path wins, so the last one that covers the failing field is the one to name.
    for (auto it = applied.rbegin(); it != applied.rend(); ++it)
      if (within(e.field(), it->first)) {
        const std::string what = e.what();
        const std::string prefix = "field '" + e.field() + "': ";
        const std::size_t at = what.find(prefix);
        throw SceneError({it->second->origin, 0, 0}, e.field(),
                         at == std::string::npos ? what : what.substr(at + prefix.size()));
      }
    throw;
  }
}

}  // namespace

SceneOverride parse_override(const std::string& kv) {
  const std::string origin = "--set " + kv;
  const std::size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0)
    throw SceneError({origin, 0, 0}, "", "expected key=value, e.g. --set integrator.h=1e-3");
  return {origin, kv.substr(0, eq), kv.substr(eq + 1)};
}

Scene load_scene_from_string(const std::string& text, const std::string& file_name, const LoadOptions& options) {
  // An empty text is still a scene (an empty one, refused by the reader): give it a comment so that
  // build_with_overrides parses the text rather than opening a file.
  Scene scene = build_with_overrides(SceneReader(file_name), text.empty() ? "#" : text, file_name,
                                     std::filesystem::path(file_name).stem().string(), options);
  scene.file = file_name;
  return scene;
}

Scene load_scene(const std::filesystem::path& file, const LoadOptions& options) {
  Scene scene = build_with_overrides(SceneReader(file.string()), "", file.string(), file.stem().string(), options);
  scene.file = file;
  return scene;
}

}  // namespace talus::app
