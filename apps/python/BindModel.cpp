// talus.Model (docs/python.md, "Building models"): the one model of the engine (engine/Model.hpp), its bodies
// seen as numpy arrays over the store's own memory, and the builders a scene file has (beads, capsules, walls,
// boxes, drums, periodic bounds, materials and their laws, lattices, pours with size distributions, joints and
// drivers). The builders call the functions the scene loader calls (apps/SceneLoader.cpp), in the same order
// of arguments, so a model built here and the same scene read from YAML step bit for bit alike
// (tests/python/test_model.py).
#include <Eigen/Geometry>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "apps/MeshFile.hpp"
#include "apps/ParticleFile.hpp"
#include "apps/python/Bindings.hpp"
#include "contact/Shapes.hpp"
#include "engine/analysis/ObstacleLoads.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/MovingMeshContacts.hpp"
#include "engine/granular/RegionFill.hpp"
#include "engine/granular/SizeDistribution.hpp"
#include "engine/joints/RigidJoint.hpp"

namespace talus::python {

using granular::SizeDistribution;
using Vec3 = Eigen::Vector3d;

py::array view_rows(double* data, py::ssize_t count, py::ssize_t cols, py::ssize_t row_bytes, py::handle owner,
                    bool writeable) {
  py::array a = cols == 0 ? py::array(py::dtype::of<double>(), {count}, {row_bytes}, data, owner)
                          : py::array(py::dtype::of<double>(), {count, cols},
                                      {row_bytes, static_cast<py::ssize_t>(sizeof(double))}, data, owner);
  if (!writeable) a.attr("flags").attr("writeable") = false;
  return a;
}

// A contact law from Python's arguments, each checked (std::invalid_argument, Python's ValueError).
ContactLaw checked_law(double mu, double e, double rolling) {
  if (!(mu >= 0.0) || !std::isfinite(mu)) throw std::invalid_argument("mu must be finite and >= 0");
  if (!(e >= 0.0 && e <= 1.0)) throw std::invalid_argument("e must be in [0, 1]");
  if (!(rolling >= 0.0) || !std::isfinite(rolling)) throw std::invalid_argument("rolling_friction must be finite and >= 0");
  return ContactLaw{mu, e, rolling};
}

MaterialId material_id(const Model& model, const py::object& material) {
  const MaterialTable& t = model.materials;
  if (py::isinstance<py::str>(material)) {
    const std::string name = material.cast<std::string>();
    const int id = t.find(name);
    if (id < 0) {
      std::string known;
      for (const std::string& n : t.names) known += (known.empty() ? "'" : ", '") + n + "'";
      throw std::invalid_argument("unknown material '" + name + "' (known: " + known + ")");
    }
    return static_cast<MaterialId>(id);
  }
  const int id = material.cast<int>();
  if (id < 0 || id >= t.count())
    throw std::invalid_argument("material id " + std::to_string(id) + " out of range (the model has " +
                                std::to_string(t.count()) + " materials)");
  return static_cast<MaterialId>(id);
}

namespace {

// The view of one field of every body (the store's arrays keep their address until bodies are added or removed):
// the first count() entries, the obstacle bodies after them left out (model.obstacles lists those).
template <class T>
py::array field_view(std::vector<T>& field, const RigidBodies& bodies, int cols, py::handle owner, bool writeable) {
  static_assert(sizeof(T) % sizeof(double) == 0);
  return view_rows(field.empty() ? nullptr : reinterpret_cast<double*>(field.data()),
                   static_cast<py::ssize_t>(bodies.count()), cols, static_cast<py::ssize_t>(sizeof(T)), owner,
                   writeable);
}

Vec3 finite(const Vec3& v, const char* what) {
  if (!v.allFinite()) throw std::invalid_argument(std::string(what) + " must be finite");
  return v;
}

void check_index(const RigidBodies& b, int i, const char* what) {
  if (i < 0 || i >= b.count())
    throw std::invalid_argument(std::string(what) + " " + std::to_string(i) + " out of range (the model has " +
                                std::to_string(b.count()) + " bodies)");
}

// Adds beads (sphere group) as the scene loader's generators do: one solid sphere per placed centre, with its
// velocity and material; returns their indices.
std::vector<int> add_beads(Model& m, const std::vector<granular::PlacedSphere>& beads, double density,
                           const Vec3& velocity, MaterialId material) {
  std::vector<int> out;
  out.reserve(beads.size());
  for (const granular::PlacedSphere& s : beads) {
    m.bodies.add_sphere(s.x, s.radius, density);
    const int i = m.bodies.spheres() - 1;
    m.bodies.v[i] = velocity;
    m.bodies.material[i] = material;
    out.push_back(i);
  }
  return out;
}

// Walls as obstacles of a fill: the planes (an orifice does not make room for a bead).
std::vector<contact::Wall> planes_of(const Model& m) {
  std::vector<contact::Wall> walls;
  for (const contact::Wall& w : m.walls) walls.push_back(contact::Wall{w.normal, w.offset});
  return walls;
}

JointKind joint_kind(const std::string& kind) {
  if (kind == "spherical") return JointKind::Spherical;
  if (kind == "revolute") return JointKind::Revolute;
  if (kind == "prismatic") return JointKind::Prismatic;
  if (kind == "driver") return JointKind::Driver;
  throw std::invalid_argument("unknown joint kind '" + kind + "' (expected spherical, revolute, prismatic or driver)");
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<SizeDistribution>(m, "SizeDistribution",
                               "Radii a generator draws: uniform, log-normal (truncated at ±3σ) or a sieve table "
                               "(engine/granular/SizeDistribution.hpp).")
      .def_static(
          "uniform",
          [](double r_min, double r_max) {
            SizeDistribution d;
            d.kind = SizeDistribution::Kind::Uniform, d.r_min = r_min, d.r_max = r_max;
            d.check();
            return d;
          },
          py::arg("r_min"), py::arg("r_max"), "Radius uniform in [r_min, r_max] [m].")
      .def_static(
          "monodisperse",
          [](double r) {
            SizeDistribution d;
            d.kind = SizeDistribution::Kind::Uniform, d.r_min = d.r_max = r;
            d.check();
            return d;
          },
          py::arg("radius"))
      .def_static(
          "lognormal",
          [](double median, double sigma) {
            SizeDistribution d;
            d.kind = SizeDistribution::Kind::LogNormal, d.median = median, d.sigma = sigma;
            d.check();
            return d;
          },
          py::arg("median"), py::arg("sigma"), "ln r normal with median `median` [m] and standard deviation sigma.")
      .def_static(
          "table",
          [](std::vector<double> radii, std::vector<double> fractions, const std::string& by) {
            SizeDistribution d;
            if (by == "mass") {
              d = granular::table_by_mass(std::move(radii), fractions);
            } else if (by == "number") {
              d.kind = SizeDistribution::Kind::Table, d.radii = std::move(radii), d.fractions = std::move(fractions);
            } else {
              throw std::invalid_argument("by must be 'number' or 'mass', not '" + by + "'");
            }
            d.check();
            return d;
          },
          py::arg("radii"), py::arg("fractions"), py::arg("by") = "number",
          "Discrete radii with their fractions by number or by mass (a sieve analysis).")
      .def_property_readonly("smallest", &SizeDistribution::smallest)
      .def_property_readonly("largest", &SizeDistribution::largest)
      .def("cdf", &SizeDistribution::cdf, py::arg("radius"), "P(radius <= r), by number.");

  py::class_<Model, std::shared_ptr<Model>> model(
      m, "Model",
      "The one model of the engine: rigid bodies (beads = the sphere group, capsules, general bodies) in one "
      "structure of arrays, obstacles, materials and interactions. The array properties are numpy views of the "
      "engine's memory (no copy): writing into positions or velocities moves the bodies. A view stays valid until "
      "bodies are added or removed (outflow, a pour during a run); take it again after that.");
  model.def(py::init<>())
      // ---- state --------------------------------------------------------------------------------------------
      .def_readwrite("time", &Model::time, "Simulated time [s].")
      .def_readwrite("step", &Model::step, "Steps taken since t = 0.")
      .def_property(
          "gravity", [](const Model& x) { return x.gravity; },
          [](Model& x, const Vec3& g) { x.gravity = finite(g, "gravity"); }, "Gravity [m/s²] (a copy; assign to change).")
      .def_property_readonly("body_count", [](const Model& x) { return x.bodies.count(); })
      .def_property_readonly("sphere_count", [](const Model& x) { return x.bodies.spheres(); },
                             "Beads: the sphere group, indices [0, sphere_count).")
      .def_property_readonly("capsule_count", [](const Model& x) { return x.bodies.capsules(); },
                             "Capsules: indices [sphere_count, sphere_count + capsule_count).")
      .def_property_readonly("general_count", [](const Model& x) { return x.bodies.general(); })
      .def("__len__", [](const Model& x) { return x.bodies.count(); })
      // ---- views (zero-copy) -------------------------------------------------------------------------------
      .def_property_readonly(
          "positions", [](py::object self) { return field_view(self.cast<Model&>().bodies.x, self.cast<Model&>().bodies, 3, self, true); },
          "(N, 3) centres of mass [m], world frame; a view (writable).")
      .def_property_readonly(
          "velocities", [](py::object self) { return field_view(self.cast<Model&>().bodies.v, self.cast<Model&>().bodies, 3, self, true); },
          "(N, 3) velocities [m/s]; a view (writable).")
      .def_property_readonly(
          "angular_velocities", [](py::object self) { return field_view(self.cast<Model&>().bodies.w, self.cast<Model&>().bodies, 3, self, true); },
          "(N, 3) angular velocities [rad/s], world frame; a view (writable).")
      .def_property_readonly(
          "orientations", [](py::object self) { return field_view(self.cast<Model&>().bodies.q, self.cast<Model&>().bodies, 4, self, true); },
          "(N, 4) unit quaternions body → world in the store's order (x, y, z, w); a view (writable: keep them unit).")
      .def_property_readonly(
          "radii", [](py::object self) { return field_view(self.cast<Model&>().bodies.radius, self.cast<Model&>().bodies, 0, self, false); },
          "(N,) radii [m] (capsules: of the hemispherical ends; general bodies: a bounding radius); read-only view.")
      .def_property_readonly(
          "half_lengths", [](py::object self) { return field_view(self.cast<Model&>().bodies.half_length, self.cast<Model&>().bodies, 0, self, false); },
          "(N,) half lengths of the capsules' axis segments [m] (0 for spheres); read-only view.")
      .def_property_readonly(
          "masses", [](py::object self) { return field_view(self.cast<Model&>().bodies.mass, self.cast<Model&>().bodies, 0, self, false); },
          "(N,) masses [kg]; read-only view (fixed bodies keep their mass and have inverse mass 0).")
      .def_property_readonly(
          "inverse_masses", [](py::object self) { return field_view(self.cast<Model&>().bodies.inv_mass, self.cast<Model&>().bodies, 0, self, false); },
          "(N,) inverse masses [1/kg], 0 for a fixed body; read-only view.")
      .def_property_readonly(
          "inertias", [](py::object self) { return field_view(self.cast<Model&>().bodies.inertia, self.cast<Model&>().bodies, 3, self, false); },
          "(N, 3) principal moments of inertia [kg m²], body frame; read-only view.")
      .def_property_readonly(
          "ids",
          [](const Model& x) {
            return py::array_t<std::uint32_t>(static_cast<py::ssize_t>(x.bodies.count()), x.bodies.id.data());
          },
          "(N,) body ids, stable while indices change (unique per shape kind); a copy.")
      .def_property_readonly(
          "kinds",
          [](const Model& x) {
            py::array_t<std::uint8_t> k(x.bodies.count());
            auto r = k.mutable_unchecked<1>();
            for (int i = 0; i < x.bodies.count(); ++i) r(i) = static_cast<std::uint8_t>(x.bodies.kind(i));
            return k;
          },
          "(N,) shape kind per body: 0 sphere (bead), 1 capsule, 2 general; a copy.")
      .def_property_readonly(
          "obstacles",
          [](const Model& x) {
            const RigidBodies& b = x.bodies;
            auto vec = [](const Eigen::Vector3d& v) { return std::vector<double>{v.x(), v.y(), v.z()}; };
            py::list out;
            for (int k = 0; k < b.obstacles(); ++k) {
              const int i = b.obstacle_body(k);
              py::dict d;
              d["kind"] = obstacle_kind_name(b.obstacle[k].kind);
              d["index"] = b.obstacle[k].index;
              d["position"] = vec(b.x[i]);
              d["orientation"] = std::vector<double>{b.q[i].w(), b.q[i].x(), b.q[i].y(), b.q[i].z()};
              d["velocity"] = vec(b.v[i]);
              d["angular_velocity"] = vec(b.w[i]);
              d["force"] = vec(b.force_of(i));
              d["torque"] = vec(b.torque_of(i));
              d["material"] = static_cast<int>(b.material[i]);
              out.append(d);
            }
            return out;
          },
          "The obstacle bodies of the store (large path, placed by a Simulation's steps; empty before): one dict per "
          "plane, box, cone, drum and mesh with kind, index (in the model's table of that kind), position, "
          "orientation (w, x, y, z), velocity and angular_velocity from its motion law at the last step's start, "
          "and the force [N] and torque [N m] about its position that the bodies put on it over that step; a copy.")
      .def_property_readonly(
          "body_materials",
          [](const Model& x) {
            return py::array_t<std::uint8_t>(static_cast<py::ssize_t>(x.bodies.count()), x.bodies.material.data());
          },
          "(N,) material id of each body; a copy.")
      .def("kinetic_energy", [](const Model& x) { return kinetic_energy(x.bodies); },
           "½ Σ m|v|² + ½ Σ ωᵀ I ω over every rigid body [J].")
      .def("fix", [](Model& x, int i) {
            check_index(x.bodies, i, "body");
            x.bodies.inv_mass[i] = 0.0;
            if (i < x.bodies.spheres()) x.bodies.inv_inertia[i] = 0.0;
            x.bodies.v[i].setZero(), x.bodies.w[i].setZero();
          }, py::arg("index"), "Makes body `index` fixed (inverse mass and inertia 0, at rest).")
      // ---- materials and laws ------------------------------------------------------------------------------
      .def_property_readonly("material_names", [](const Model& x) { return x.materials.names; })
      .def("add_material", [](Model& x, const std::string& name) { return static_cast<int>(x.materials.add(name)); },
           py::arg("name"), "A new material (its pairs take the default law until set); returns its id.")
      .def(
          "set_law",
          [](Model& x, const py::object& a, const py::object& b, double mu, double e, double rolling) {
            x.materials.law(material_id(x, a), material_id(x, b)) = checked_law(mu, e, rolling);
          },
          py::arg("a"), py::arg("b"), py::arg("mu"), py::arg("e") = 0.0, py::arg("rolling_friction") = 0.0,
          "Coulomb's μ, Newton's e and the rolling resistance μ_r (the rolling torque is at most μ_r R* times the "
          "normal force; bead contacts on the large path) of the contacts between materials a and b (names or ids).")
      .def(
          "set_all_laws",
          [](Model& x, double mu, double e, double rolling) {
            x.materials.default_law = checked_law(mu, e, rolling);
            std::fill(x.materials.laws.begin(), x.materials.laws.end(), x.materials.default_law);
          },
          py::arg("mu"), py::arg("e") = 0.0, py::arg("rolling_friction") = 0.0,
          "One law for every pair of materials (a scene's contacts.law and contacts.rolling_friction).")
      .def(
          "law",
          [](const Model& x, const py::object& a, const py::object& b) {
            const ContactLaw& l = x.materials.law(material_id(x, a), material_id(x, b));
            return py::make_tuple(l.mu, l.e);
          },
          py::arg("a"), py::arg("b"), "(μ, e) of the pair.")
      .def(
          "rolling_friction",
          [](const Model& x, const py::object& a, const py::object& b) {
            return x.materials.law(material_id(x, a), material_id(x, b)).rolling;
          },
          py::arg("a"), py::arg("b"), "The rolling resistance μ_r of the pair.")
      // ---- bodies --------------------------------------------------------------------------------------------
      .def(
          "add_sphere",
          [](Model& x, const Vec3& centre, double radius, double density, const Vec3& velocity,
             const py::object& material, bool fixed) {
            const MaterialId mat = material_id(x, material);
            x.bodies.add_sphere(finite(centre, "centre"), radius, density, finite(velocity, "velocity"));
            const int i = x.bodies.spheres() - 1;
            x.bodies.material[i] = mat;
            if (fixed) x.bodies.inv_mass[i] = 0.0, x.bodies.inv_inertia[i] = 0.0, x.bodies.v[i].setZero();
            return i;
          },
          py::arg("centre"), py::arg("radius"), py::arg("density") = 2500.0, py::arg("velocity") = Vec3::Zero(),
          py::arg("material") = py::str("bead"), py::arg("fixed") = false,
          "A solid bead (sphere group, the large path's body); returns its index (beads are re-sorted along a "
          "space-filling curve during a run: name them by id).")
      .def(
          "add_spheres",
          [](Model& x, const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>& centres,
             const Eigen::VectorXd& radii, double density, const py::object& velocities, const py::object& material) {
            const MaterialId mat = material_id(x, material);
            const Eigen::Index n = centres.rows();
            if (radii.size() != n)
              throw std::invalid_argument("radii has " + std::to_string(radii.size()) + " entries for " +
                                          std::to_string(n) + " centres");
            Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> v = Eigen::MatrixXd::Zero(n, 3);
            if (!velocities.is_none()) {
              v = velocities.cast<Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>>();
              if (v.rows() != n) throw std::invalid_argument("velocities must have one row per centre");
            }
            std::vector<granular::PlacedSphere> beads;
            for (Eigen::Index i = 0; i < n; ++i) beads.push_back({finite(centres.row(i).transpose(), "centre"), radii[i]});
            std::vector<int> out = add_beads(x, beads, density, Vec3::Zero(), mat);
            for (Eigen::Index i = 0; i < n; ++i) x.bodies.v[out[i]] = finite(v.row(i).transpose(), "velocity");
            return out;
          },
          py::arg("centres"), py::arg("radii"), py::arg("density") = 2500.0, py::arg("velocities") = py::none(),
          py::arg("material") = py::str("bead"),
          "Beads from arrays: centres (N, 3), radii (N,), velocities (N, 3) or None (a packing read with numpy, "
          "h5py or pandas); returns their indices.")
      .def(
          "add_particles",
          [](Model& x, const std::string& file, double density, const py::object& material) {
            const MaterialId mat = material_id(x, material);
            const app::ParticleSet set = app::read_particles(file);
            std::vector<granular::PlacedSphere> beads;
            for (std::size_t k = 0; k < set.x.size(); ++k) beads.push_back({set.x[k], set.radius[k]});
            std::vector<int> out = add_beads(x, beads, density, Vec3::Zero(), mat);
            for (std::size_t k = 0; k < set.v.size(); ++k) x.bodies.v[out[k]] = set.v[k];
            return out;
          },
          py::arg("file"), py::arg("density") = 2500.0, py::arg("material") = py::str("bead"),
          "Beads from a particle file (the scene key `particles:`): a CSV with a header x, y, z, radius[, vx, vy, vz] "
          "or an HDF5 file with datasets x (N × 3), radius (N)[, v (N × 3)]; returns their indices.")
      .def(
          "add_rigid_sphere",
          [](Model& x, const Vec3& centre, double radius, double density) {
            return add_general_sphere(x.bodies, finite(centre, "centre"), radius, density);
          },
          py::arg("centre"), py::arg("radius"), py::arg("density") = 2500.0,
          "A solid sphere in the general group (the small path's rigid body, stepped by the small-system schemes); "
          "returns its index.")
      .def(
          "add_capsule",
          [](Model& x, const Vec3& centre, const Vec3& axis, double half_length, double radius, double density,
             const Vec3& velocity, const Vec3& angular_velocity, const py::object& material) {
            const MaterialId mat = material_id(x, material);
            x.bodies.add_capsule(finite(centre, "centre"), finite(axis, "axis"), half_length, radius, density,
                                 finite(velocity, "velocity"));
            const int i = x.bodies.capsule(x.bodies.capsules() - 1);
            x.bodies.w[i] = finite(angular_velocity, "angular_velocity");
            x.bodies.material[i] = mat;
            return i;
          },
          py::arg("centre"), py::arg("axis"), py::arg("half_length"), py::arg("radius"), py::arg("density") = 2500.0,
          py::arg("velocity") = Vec3::Zero(), py::arg("angular_velocity") = Vec3::Zero(),
          py::arg("material") = py::str("bead"),
          "A solid capsule (cylinder of length 2 half_length along `axis`, hemispherical ends); returns its index.")
      .def(
          "add_lattice",
          [](Model& x, const Vec3& corner, std::array<int, 3> counts, double radius, double density, double spacing,
             double jitter, double polydispersity, std::uint64_t seed, const Vec3& velocity, const py::object& material) {
            const MaterialId mat = material_id(x, material);
            for (int c : counts)
              if (c < 1) throw std::invalid_argument("counts must be >= 1 along each axis");
            granular::BeadSpec spec;
            spec.radius = radius, spec.density = density, spec.spacing = spacing, spec.jitter = jitter;
            spec.polydispersity = polydispersity, spec.seed = seed;
            spec.n = static_cast<long>(counts[0]) * counts[1] * counts[2];
            std::vector<granular::PlacedSphere> beads;
            for (const granular::LatticeSite& s : granular::lattice_sites(spec, spec.n, counts[0], counts[1], finite(corner, "corner")))
              beads.push_back({s.x, s.radius});
            return add_beads(x, beads, density, finite(velocity, "velocity"), mat);
          },
          py::arg("corner"), py::arg("counts"), py::arg("radius"), py::arg("density") = 2500.0,
          py::arg("spacing") = 2.2, py::arg("jitter") = 0.0, py::arg("polydispersity") = 0.0, py::arg("seed") = 1,
          py::arg("velocity") = Vec3::Zero(), py::arg("material") = py::str("bead"),
          "Beads on a cubic lattice of counts = (nx, ny, nz) sites `spacing` radii apart from `corner`, filled x "
          "fastest, with horizontal jitter (in radii) and radii r (1 ± polydispersity) drawn from `seed` (the "
          "scene files' `lattices:`); returns their indices.")
      .def(
          "pour",
          [](Model& x, const Vec3& lower, const Vec3& upper, long count, const SizeDistribution& sizes, double density,
             std::uint64_t seed, long tries, const Vec3& velocity, const py::object& material) {
            const MaterialId mat = material_id(x, material);
            if (count < 1) throw std::invalid_argument("count must be >= 1");
            granular::RegionFill fill;
            fill.lower = finite(lower, "lower"), fill.upper = finite(upper, "upper");
            fill.count = count, fill.sizes = sizes, fill.seed = seed, fill.tries_per_bead = tries;
            std::vector<granular::PlacedSphere> present;
            for (int i = 0; i < x.bodies.count(); ++i) present.push_back({x.bodies.x[i], x.bodies.radius[i]});
            return add_beads(x, granular::fill_region(fill, present, planes_of(x), granular::obstacles_of(x)), density, finite(velocity, "velocity"), mat);
          },
          py::arg("lower"), py::arg("upper"), py::arg("count"), py::arg("sizes"), py::arg("density") = 2500.0,
          py::arg("seed") = 1, py::arg("tries") = 2000, py::arg("velocity") = Vec3::Zero(),
          py::arg("material") = py::str("bead"),
          "`count` beads placed at random without overlap in the box [lower, upper], largest first, avoiding the "
          "bodies and planes already there (the scene files' `pours:`); returns their indices.")
      // ---- obstacles (static or kinematic) ------------------------------------------------------------------
      .def(
          "add_wall",
          [](Model& x, const Vec3& normal, const Vec3& point, const py::object& material, const Vec3& hole_centre,
             double hole_radius, double speed, double amplitude, double frequency, double open_at) {
            const MaterialId mat = material_id(x, material);
            if (!(finite(normal, "normal").norm() > 1e-12)) throw std::invalid_argument("normal must not be zero");
            contact::Wall w;
            w.normal = normal.normalized();
            w.offset = w.normal.dot(finite(point, "point"));
            for (int a = 0; a < 3; ++a)
              if (x.periodic.axis[a] && std::abs(w.normal[a]) > 1e-12)
                throw std::invalid_argument(std::string("the wall is not perpendicular to the periodic axis ") + "xyz"[a]);
            if (hole_radius < 0.0) throw std::invalid_argument("hole_radius must be >= 0");
            if (hole_radius > 0.0) {
              if (std::abs(w.normal.dot(finite(hole_centre, "hole_centre")) - w.offset) > 1e-9 * std::max(1.0, hole_centre.norm()))
                throw std::invalid_argument("hole_centre must lie in the plane");
              w.hole_centre = hole_centre, w.hole_radius = hole_radius;
            }
            if (!std::isfinite(speed) || !(amplitude >= 0.0) || !(frequency >= 0.0))
              throw std::invalid_argument("speed must be finite, amplitude and frequency >= 0");
            w.speed = speed, w.amplitude = amplitude, w.frequency = frequency;
            if (!(open_at >= 0.0)) throw std::invalid_argument("open_at must be >= 0");
            w.open_at = open_at;
            // Obstacles before this one without a material of their own are "wall".
            x.wall_material.resize(x.walls.size(), kWallMaterial);
            x.walls.push_back(w);
            x.wall_material.push_back(mat);
            return static_cast<int>(x.walls.size()) - 1;
          },
          py::arg("normal"), py::arg("point"), py::arg("material") = py::str("wall"),
          py::arg("hole_centre") = Vec3::Zero(), py::arg("hole_radius") = 0.0, py::arg("speed") = 0.0,
          py::arg("amplitude") = 0.0, py::arg("frequency") = 0.0,
          py::arg("open_at") = std::numeric_limits<double>::infinity(),
          "A plane through `point` whose normal points to the free side; optionally a circular orifice (a silo's "
          "outlet), a motion along the normal, speed t + amplitude sin(2π frequency t) (a piston, a shaker), and "
          "open_at: the time the plane is removed (a gate). Returns its index.")
      .def(
          "add_box",
          [](Model& x, const Vec3& centre, const Vec3& half_extents, const Vec3& axis, double angle,
             const py::object& material) {
            const MaterialId mat = material_id(x, material);
            if (!(half_extents.minCoeff() > 0.0)) throw std::invalid_argument("half_extents must be > 0");
            if (!(finite(axis, "axis").norm() > 1e-12)) throw std::invalid_argument("axis must not be zero");
            x.box_material.resize(x.boxes.size(), kWallMaterial);
            x.boxes.push_back(contact::rotated_box(finite(centre, "centre"), half_extents, axis.normalized(), angle));
            x.box_material.push_back(mat);
            return static_cast<int>(x.boxes.size()) - 1;
          },
          py::arg("centre"), py::arg("half_extents"), py::arg("axis") = Vec3::UnitZ(), py::arg("angle") = 0.0,
          py::arg("material") = py::str("wall"),
          "A fixed solid box (an obstacle: beads stay outside), rotated by `angle` [rad] about `axis`; returns its index.")
      .def(
          "add_drum",
          [](Model& x, const Vec3& centre, const Vec3& axis, double radius, double angular_velocity,
             const py::object& material) {
            const MaterialId mat = material_id(x, material);
            if (!(radius > 0.0)) throw std::invalid_argument("radius must be > 0");
            if (!(finite(axis, "axis").norm() > 1e-12)) throw std::invalid_argument("axis must not be zero");
            x.drum_material.resize(x.drums.size(), kWallMaterial);
            x.drums.push_back(contact::Drum{finite(centre, "centre"), axis.normalized(), radius, angular_velocity});
            x.drum_material.push_back(mat);
            return static_cast<int>(x.drums.size()) - 1;
          },
          py::arg("centre"), py::arg("axis"), py::arg("radius"), py::arg("angular_velocity") = 0.0,
          py::arg("material") = py::str("wall"),
          "A rotating cylinder holding the beads inside it (a rotating drum); returns its index.")
      .def(
          "add_cone",
          [](Model& x, const Vec3& base, const Vec3& axis, double height, double radius_bottom, double radius_top,
             const py::object& material) {
            const MaterialId mat = material_id(x, material);
            if (!(height > 0.0)) throw std::invalid_argument("height must be > 0");
            if (!(radius_bottom >= 0.0) || !(radius_top >= 0.0) || !(radius_bottom + radius_top > 0.0))
              throw std::invalid_argument("radii must be >= 0 and not both 0");
            if (!(finite(axis, "axis").norm() > 1e-12)) throw std::invalid_argument("axis must not be zero");
            x.cone_material.resize(x.cones.size(), kWallMaterial);
            x.cones.push_back(contact::Cone{finite(base, "base"), axis.normalized(), height, radius_bottom, radius_top});
            x.cone_material.push_back(mat);
            return static_cast<int>(x.cones.size()) - 1;
          },
          py::arg("base"), py::arg("axis"), py::arg("height"), py::arg("radius_bottom"), py::arg("radius_top"),
          py::arg("material") = py::str("wall"),
          "A fixed conical shell (a hopper wall: radius_bottom < radius_top, the lower rim its outlet) or cylindrical "
          "one (equal radii: a silo's wall), from the lower rim's centre `base` along `axis`; beads touch either "
          "side. Returns its index.")
      .def(
          "add_mesh",
          [](Model& x, const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>& vertices,
             const Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor>& triangles, bool closed,
             const std::string& name, const py::object& material) {
            const MaterialId mat = material_id(x, material);
            std::vector<Eigen::Vector3d> v(vertices.rows());
            for (Eigen::Index i = 0; i < vertices.rows(); ++i) v[i] = vertices.row(i).transpose();
            std::vector<std::array<int, 3>> t(triangles.rows());
            for (Eigen::Index i = 0; i < triangles.rows(); ++i) t[i] = {triangles(i, 0), triangles(i, 1), triangles(i, 2)};
            auto mesh = std::make_shared<const contact::TriangleMesh>(
                contact::build_triangle_mesh(name.empty() ? "mesh " + std::to_string(x.meshes.size()) : name,
                                             std::move(v), t, closed));
            x.mesh_material.resize(x.meshes.size(), kWallMaterial);
            x.meshes.push_back(std::move(mesh));
            x.mesh_material.push_back(mat);
            return static_cast<int>(x.meshes.size()) - 1;
          },
          py::arg("vertices"), py::arg("triangles"), py::arg("closed") = false, py::arg("name") = "",
          py::arg("material") = py::str("wall"),
          "A fixed triangle-mesh wall from vertices (N × 3) and triangles (M × 3 vertex indices, counter-clockwise seen "
          "from the normal's side, consistent between neighbours); beads touch either side. Vertices at the same "
          "position are merged; degenerate triangles, non-manifold or inconsistently oriented edges (and with "
          "closed=True a boundary) raise ValueError. Returns its index.")
      .def(
          "add_mesh_file",
          [](Model& x, const std::string& file, double scale, const Vec3& axis, double angle, const Vec3& translation,
             bool closed, const py::object& material) {
            const MaterialId mat = material_id(x, material);
            if (!(scale > 0.0)) throw std::invalid_argument("scale must be > 0");
            if (!(finite(axis, "axis").norm() > 1e-12)) throw std::invalid_argument("axis must not be zero");
            talus::app::MeshPlacement place;
            place.scale = scale;
            place.rotation = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
            place.translation = finite(translation, "translation");
            std::shared_ptr<const contact::TriangleMesh> mesh;
            try {
              mesh = std::make_shared<const contact::TriangleMesh>(talus::app::read_mesh(file, place, closed));
            } catch (const std::runtime_error& e) {
              throw std::invalid_argument(e.what());
            }
            x.mesh_material.resize(x.meshes.size(), kWallMaterial);
            x.meshes.push_back(std::move(mesh));
            x.mesh_material.push_back(mat);
            return static_cast<int>(x.meshes.size()) - 1;
          },
          py::arg("file"), py::arg("scale") = 1.0, py::arg("axis") = Vec3(0.0, 0.0, 1.0), py::arg("angle") = 0.0,
          py::arg("translation") = Vec3::Zero(), py::arg("closed") = false, py::arg("material") = py::str("wall"),
          "A fixed triangle-mesh wall read from an STL (ASCII or binary) or OBJ file, scaled, rotated by `angle` [rad] "
          "about `axis`, then translated, as the scene's `meshes:` entries. Returns its index.")
      .def(
          "set_mesh_motion",
          [](Model& x, int k, double angular_velocity, const Vec3& axis, const Vec3& centre, const Vec3& velocity) {
            if (k < 0 || k >= static_cast<int>(x.meshes.size())) throw std::invalid_argument("no mesh " + std::to_string(k));
            if (!(finite(axis, "axis").norm() > 1e-12)) throw std::invalid_argument("axis must not be zero");
            if (!std::isfinite(angular_velocity)) throw std::invalid_argument("angular_velocity must be finite");
            if (x.bodies.capsules() > 0)
              throw std::invalid_argument("the model holds capsules: capsules meet fixed meshes only");
            x.mesh_motion.resize(x.meshes.size());
            x.mesh_motion[k] = contact::MeshMotion{finite(centre, "centre"), axis.normalized(), angular_velocity,
                                                   finite(velocity, "velocity")};
          },
          py::arg("k"), py::arg("angular_velocity") = 0.0, py::arg("axis") = Vec3(0.0, 0.0, 1.0),
          py::arg("centre") = Vec3::Zero(), py::arg("velocity") = Vec3::Zero(),
          "Makes mesh k move from where it is now (t = 0): a turn at angular_velocity [rad/s] about `axis` through "
          "`centre`, and a translation at `velocity` [m/s], as the scene's `motion:` key. Its contacts then carry the "
          "surface's velocity and need the matrix_free or anderson solver.")
      .def(
          "attach_mesh",
          [](Model& x, int k, int body) { granular::attach_mesh_to_capsule(x, k, body); },
          py::arg("k"), py::arg("capsule"),
          "Makes capsule `capsule` (the index add_capsule returned) carry mesh k from where both are now: the mesh "
          "moves with it, and its contacts with beads push the capsule back (a paddle's blade on a driven joint). "
          "The mesh adds no mass; beads only.")
      .def(
          "mesh",
          [](const Model& x, int k) {
            if (k < 0 || k >= static_cast<int>(x.meshes.size())) throw std::invalid_argument("no mesh " + std::to_string(k));
            const contact::TriangleMesh& m = *x.meshes[k];
            Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> v(m.vertices.size(), 3);
            for (std::size_t i = 0; i < m.vertices.size(); ++i) v.row(i) = m.vertices[i].transpose();
            Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor> t(m.faces(), 3);
            for (int i = 0; i < m.faces(); ++i) t.row(i) << m.triangles[i][0], m.triangles[i][1], m.triangles[i][2];
            py::dict d;
            d["name"] = m.name, d["vertices"] = v, d["triangles"] = t, d["boundary_edges"] = m.boundary_edges;
            d["area"] = m.area();
            return d;
          },
          py::arg("k"),
          "Mesh k as built (welded): a dict of name, vertices, triangles, boundary_edges (0: closed) and area [m²].")
      .def_property_readonly("mesh_count", [](const Model& x) { return static_cast<int>(x.meshes.size()); })
      .def(
          "set_periodic",
          [](Model& x, int axis, double lower, double upper) {
            if (axis < 0 || axis > 2) throw std::invalid_argument("axis must be 0, 1 or 2");
            if (!(upper > lower)) throw std::invalid_argument("upper must be > lower");
            for (const contact::Wall& w : x.walls)
              if (std::abs(w.normal[axis]) > 1e-12)
                throw std::invalid_argument("a wall cuts the periodic axis (add periodic bounds before the walls)");
            x.periodic.axis[axis] = true;
            x.periodic.lower[axis] = lower, x.periodic.length[axis] = upper - lower;
          },
          py::arg("axis"), py::arg("lower"), py::arg("upper"), "Periodic bounds along axis 0 (x), 1 (y) or 2 (z).")
      .def(
          "remove_wall",
          [](Model& x, int w) {
            if (w < 0 || w >= static_cast<int>(x.walls.size())) throw std::invalid_argument("no wall " + std::to_string(w));
            x.walls.erase(x.walls.begin() + w);
            if (w < static_cast<int>(x.wall_material.size())) x.wall_material.erase(x.wall_material.begin() + w);
          },
          py::arg("wall"),
          "Removes wall `wall` (a gate opened). The walls after it move down one index, so for one step their contacts "
          "are warm-started from the cache entries of the wall before them (only the solver's start changes); "
          "remove the last wall to avoid that.")
      .def_property_readonly("wall_count", [](const Model& x) { return static_cast<int>(x.walls.size()); })
      .def_property_readonly("box_count", [](const Model& x) { return static_cast<int>(x.boxes.size()); })
      .def_property_readonly("cone_count", [](const Model& x) { return static_cast<int>(x.cones.size()); })
      .def_property_readonly("drum_count", [](const Model& x) { return static_cast<int>(x.drums.size()); })
      .def(
          "set_drum_speed",
          [](Model& x, int d, double w) {
            if (d < 0 || d >= static_cast<int>(x.drums.size())) throw std::invalid_argument("no drum " + std::to_string(d));
            x.drums[d].angular_velocity = w;
          },
          py::arg("drum"), py::arg("angular_velocity"))
      // ---- joints and drivers ------------------------------------------------------------------------------
      .def(
          "add_joint",
          [](Model& x, const std::string& kind, int a, py::object b, const Vec3& anchor, const Vec3& axis,
             double rate, std::string name) {
            const JointKind k = joint_kind(kind);
            const int bi = b.is_none() ? -1 : b.cast<int>();
            check_index(x.bodies, a, "body");
            if (bi >= 0) check_index(x.bodies, bi, "body");
            for (int i : {a, bi})
              if (i >= 0 && x.bodies.kind(i) == ShapeKind::Sphere)
                throw std::invalid_argument("body " + std::to_string(i) +
                                            " is a bead: joints join capsules or general bodies (a bead's index "
                                            "changes when the beads are re-sorted)");
            Interaction in;
            in.name = name.empty() ? kind + "_" + std::to_string(x.interactions.size()) : std::move(name);
            in.systems.push_back({SystemFamily::Rigid, a});
            if (bi >= 0) in.systems.push_back({SystemFamily::Rigid, bi});
            in.relation = make_joint(k, x.bodies, a, bi, finite(anchor, "anchor"), finite(axis, "axis"), rate, x.time);
            in.law = EqualityLaw{joint_rows(k)};
            x.interactions.push_back(std::move(in));
            return static_cast<int>(x.interactions.size()) - 1;
          },
          py::arg("kind"), py::arg("a"), py::arg("b") = py::none(), py::arg("anchor") = Vec3::Zero(),
          py::arg("axis") = Vec3::UnitZ(), py::arg("rate") = 0.0, py::arg("name") = "",
          "A bilateral joint between bodies a and b (None: the world): 'spherical' at `anchor`, 'revolute' or "
          "'prismatic' along `axis`, or a 'driver' turning a relative to b about `axis` at `rate` [rad/s]. Anchor "
          "and axis in world coordinates at the present poses. Returns its interaction index.")
      .def_property_readonly("interaction_count", [](const Model& x) { return static_cast<int>(x.interactions.size()); })
      .def("validate", &Model::validate, "Raises ValueError naming the system or interaction that is inconsistent.")
      .def("copy", [](const Model& x) { return std::make_shared<Model>(x); }, "A deep copy of the model.")
      .def("__repr__", [](const Model& x) {
        return "<talus.Model t=" + std::to_string(x.time) + " beads=" + std::to_string(x.bodies.spheres()) +
               " capsules=" + std::to_string(x.bodies.capsules()) + " general=" + std::to_string(x.bodies.general()) +
               " walls=" + std::to_string(x.walls.size()) + ">";
      });
}

}  // namespace talus::python
