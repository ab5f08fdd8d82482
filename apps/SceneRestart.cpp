#include "apps/SceneRestart.hpp"

#include <hdf5.h>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "apps/Hdf5File.hpp"
#include "apps/RunOutputs.hpp"
#include "apps/SceneRun.hpp"
#include "apps/Version.hpp"
#include "engine/DofLayout.hpp"

namespace talus::app {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "talus-scene-restart-1";
// Optional dataset (absent from archives written before the small path's bodies moved to RigidBodies).
constexpr const char* kWorldAngularVelocity = "rigid_angular_velocity_world";

// Closes an HDF5 handle on scope exit.
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Handle(Handle&& o) noexcept : id(o.id), close(o.close) { o.id = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id >= 0) close(id);
  }
};

class Writer {
 public:
  explicit Writer(const fs::path& file) : file_(file) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    id_ = create_hdf5_file(file);
    if (id_ < 0) throw std::runtime_error("cannot create " + file.string());
  }
  ~Writer() {
    if (id_ >= 0) H5Fclose(id_);
  }
  void group(const char* name) {
    Handle g{H5Gcreate2(id_, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    check(g.id, name);
  }
  void doubles(const char* name, const double* x, hsize_t n, bool scalar = false) {
    Handle space{scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose};
    Handle d{H5Dcreate2(id_, name, H5T_IEEE_F64LE, space.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    check(d.id, name);
    if (n > 0) check(H5Dwrite(d.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x), name);
  }
  void longs(const char* name, const std::vector<long long>& x, bool scalar = false) {
    const hsize_t n = x.size();
    Handle space{scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose};
    Handle d{H5Dcreate2(id_, name, H5T_STD_I64LE, space.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    check(d.id, name);
    if (n > 0) check(H5Dwrite(d.id, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data()), name);
  }
  void strings(const char* name, const std::vector<std::string>& values) {
    std::vector<const char*> ptrs;
    for (const auto& v : values) ptrs.push_back(v.c_str());
    const hsize_t n = ptrs.size();
    Handle type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type.id, H5T_VARIABLE);
    H5Tset_cset(type.id, H5T_CSET_UTF8);
    Handle space{H5Screate_simple(1, &n, nullptr), H5Sclose};
    Handle a{H5Acreate2(id_, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    check(a.id, name);
    check(H5Awrite(a.id, type.id, ptrs.data()), name);
  }
  void finish() {
    const herr_t s = H5Fclose(id_);
    id_ = -1;
    if (s < 0) throw std::runtime_error("cannot close " + file_.string());
  }

 private:
  void check(long long status, const char* what) const {
    if (status < 0) throw std::runtime_error("cannot write '" + std::string(what) + "' in " + file_.string());
  }
  fs::path file_;
  hid_t id_ = -1;
};

class Reader {
 public:
  explicit Reader(const fs::path& file) : file_(file.string()) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    if (!fs::exists(file)) fail("", "no such file");
    if (H5Fis_hdf5(file_.c_str()) <= 0) fail("", "is not an HDF5 file");
    id_ = H5Fopen(file_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id_ < 0) fail("", "cannot be opened");
  }
  ~Reader() {
    if (id_ >= 0) H5Fclose(id_);
  }
  [[noreturn]] void fail(const std::string& dataset, const std::string& what) const {
    throw std::runtime_error("restart archive " + file_ + (dataset.empty() ? "" : ": dataset '" + dataset + "'") +
                             ": " + what);
  }
  // The dataset `name`, which must hold `expected` values (`meaning` says what they are).
  Handle open_sized(const char* name, std::size_t expected, const char* meaning) const {
    Handle d{H5Dopen2(id_, name, H5P_DEFAULT), H5Dclose};
    if (d.id < 0) fail(name, "missing");
    Handle space{H5Dget_space(d.id), H5Sclose};
    const hssize_t n = H5Sget_simple_extent_npoints(space.id);
    if (n < 0 || static_cast<std::size_t>(n) != expected)
      fail(name, "has " + std::to_string(n) + " values (expected " + std::to_string(expected) + ": " + meaning + ")");
    return d;
  }
  std::vector<double> doubles(const char* name, std::size_t expected, const char* meaning) const {
    const Handle d = open_sized(name, expected, meaning);
    std::vector<double> x(expected);
    if (expected > 0 && H5Dread(d.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data()) < 0)
      fail(name, "cannot be read as numbers");
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!std::isfinite(x[i])) fail(name, "value " + std::to_string(i) + " is not finite");
    return x;
  }
  std::vector<long long> longs(const char* name, std::size_t expected, const char* meaning) const {
    const Handle d = open_sized(name, expected, meaning);
    std::vector<long long> x(expected);
    if (expected > 0 && H5Dread(d.id, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data()) < 0)
      fail(name, "cannot be read as integers");
    return x;
  }
  bool has_attribute(const char* name) const { return H5Aexists(id_, name) > 0; }
  bool has_dataset(const char* name) const { return H5Lexists(id_, name, H5P_DEFAULT) > 0; }
  std::vector<std::string> strings(const char* name) const {
    if (H5Aexists(id_, name) <= 0) fail(std::string("/@") + name, "missing attribute");
    Handle a{H5Aopen(id_, name, H5P_DEFAULT), H5Aclose};
    Handle type{H5Aget_type(a.id), H5Tclose};
    Handle space{H5Aget_space(a.id), H5Sclose};
    if (H5Tget_class(type.id) != H5T_STRING || H5Tis_variable_str(type.id) <= 0)
      fail(std::string("/@") + name, "is not a list of strings");
    const hssize_t n = H5Sget_simple_extent_npoints(space.id);
    std::vector<char*> ptrs(static_cast<std::size_t>(std::max<hssize_t>(n, 0)));
    Handle mem{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(mem.id, H5T_VARIABLE);
    H5Tset_cset(mem.id, H5T_CSET_UTF8);
    if (H5Aread(a.id, mem.id, ptrs.data()) < 0) fail(std::string("/@") + name, "cannot be read");
    std::vector<std::string> out;
    for (char* p : ptrs) out.emplace_back(p ? p : "");
    H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, ptrs.data());
    return out;
  }

 private:
  std::string file_;
  hid_t id_ = -1;
};

// Each interaction's vectors concatenated, with their sizes.
// Listed interactions only: detected contacts (engine/detection) are found again by the restarted run's first
// step, from zero impulses.
void flatten(const Model& m, Vector Interaction::*field, std::vector<double>& flat, std::vector<long long>& sizes) {
  for (std::size_t i = 0; i < m.listed_interactions(); ++i) {
    const Vector& x = m.interactions[i].*field;
    sizes.push_back(x.size());
    flat.insert(flat.end(), x.data(), x.data() + x.size());
  }
}

// Every setting the scheme's step reads besides h, as text with all digits: an archive continues bit for bit
// only under the settings it was written with (a changed ρ∞ or Newton tolerance would take other steps).
std::string step_settings(const Scene& scene) {
  const MoreauJeanParameters& p = scene.integrator;
  std::ostringstream o;
  o.precision(17);
  o << to_string(scene.scheme.kind);
  if (scene.scheme.kind == SchemeKind::MoreauJean)
    o << " theta=" << p.theta << " gamma=" << p.gamma << " variant=" << to_string(p.variant)
      << " solver=" << to_string(p.solver) << " tolerance=" << p.solver_tolerance
      << " max_iterations=" << p.solver_max_iterations;
  else
    o << " rho_infinity=" << scene.scheme.rho_infinity;
  o << " newton_tolerance=" << p.newton_tolerance << " newton_max_iterations=" << p.newton_max_iterations;
  return o.str();
}

}  // namespace

bool restartable(const Scene& scene, std::string* why) {
  const SchemeKind k = scene.scheme.kind;
  if (k == SchemeKind::MoreauJean || k == SchemeKind::GeneralizedAlpha) return true;
  if (why)
    *why = std::string("scheme ") + to_string(k) +
           (k == SchemeKind::EventDriven ? " keeps its DAE integrator's step-size history outside the model"
            : k == SchemeKind::SchatzmanPaoli
                ? " keeps the previous coordinates inside the integrator, which the engine does not let a new run "
                  "start from"
                : " keeps its acceleration-like variable inside the integrator, which the engine does not let a new "
                  "run start from") +
           ": only moreau_jean and generalized_alpha scenes restart bit for bit";
  return false;
}

bool restart_needs_accelerations(const Scene& scene) { return scene.scheme.kind == SchemeKind::GeneralizedAlpha; }

void write_scene_restart(const fs::path& file, const Scene& scene, const RestartState& state,
                         const std::vector<std::string>& columns) {
  std::string tmp_name = ".";  // appended, not `"." + name`: GCC 12 warns falsely (-Wrestrict) on the latter
  tmp_name += file.filename().string();
  tmp_name += ".partial";
  const fs::path tmp = file.parent_path() / tmp_name;
  try {
    const Model& m = scene.model;
    const DofLayout layout = make_dof_layout(m);
    Vector q, v;
    gather_coordinates(m, layout, q);
    gather_velocities(m, layout, v);
    Writer w(tmp);
    w.strings("format", {kFormat});
    w.strings("scene", {scene.name});
    w.strings("scheme", {to_string(scene.scheme.kind)});
    w.strings("settings", {step_settings(scene)});
    w.strings("talus_version", {version()});
    w.strings("columns", columns);
    w.doubles("time", &m.time, 1, true);
    w.longs("step", {state.step}, true);
    w.doubles("h", &scene.integrator.h, 1, true);
    w.doubles("q", q.data(), q.size());
    w.doubles("v", v.data(), v.size());
    // v holds the body-frame ω of the global velocity vector (the archive's meaning since format 1); the store
    // keeps the world-frame ω, and R(q) Rᵀ(q) ω is ω only up to round-off. So the world ω is written too, for
    // the restarted run to start from the very bits the straight run had (old archives lack it: see the reader).
    std::vector<double> world_w;
    for (const Eigen::Vector3d& x : m.bodies.w) world_w.insert(world_w.end(), x.data(), x.data() + 3);
    w.doubles(kWorldAngularVelocity, world_w.data(), world_w.size());
    w.group("interactions");
    for (auto [name, field] : {std::pair{"gap", &Interaction::gap}, std::pair{"velocity", &Interaction::velocity},
                               std::pair{"impulse", &Interaction::impulse}}) {
      std::vector<double> flat;
      std::vector<long long> sizes;
      flatten(m, field, flat, sizes);
      const std::string path = std::string("interactions/") + name;
      w.doubles(path.c_str(), flat.data(), flat.size());
      w.longs((path + "_size").c_str(), sizes);
    }
    w.doubles("energy", state.energy.data(), state.energy.size());
    if (restart_needs_accelerations(scene)) {
      const auto n = static_cast<Index>(layout.n_vels);
      if (state.acceleration.size() != n || state.smooth_acceleration.size() != n)
        throw std::runtime_error("cannot write " + file.string() +
                                 ": the generalized_alpha accelerations were not given (one per velocity expected)");
      w.group("generalized_alpha");
      w.doubles("generalized_alpha/acceleration", state.acceleration.data(), state.acceleration.size());
      w.doubles("generalized_alpha/smooth_acceleration", state.smooth_acceleration.data(),
                state.smooth_acceleration.size());
    }
    w.finish();
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) throw std::runtime_error("cannot move " + tmp.string() + " into place: " + ec.message());
}

RestartState read_scene_restart(const fs::path& file, Scene& scene, const std::vector<std::string>& columns) {
  std::string why;
  if (!restartable(scene, &why)) throw std::runtime_error("cannot restart " + scene.file.string() + ": " + why);
  const Reader r(file);
  if (r.strings("format") != std::vector<std::string>{kFormat})
    r.fail("/@format", std::string("is not ") + kFormat + " (expected an archive written by talus run for a single scene)");
  if (const std::vector<std::string> scheme = r.strings("scheme");
      scheme != std::vector<std::string>{to_string(scene.scheme.kind)})
    r.fail("/@scheme", "is " + (scheme.empty() ? std::string("empty") : scheme.front()) + " (expected the scheme of " +
                           scene.file.string() + ", " + to_string(scene.scheme.kind) +
                           ": a restart continues with the scheme it was written with)");
  // Archives written before the settings were recorded have none: they are taken on trust.
  if (r.has_attribute("settings"))
    if (const std::vector<std::string> settings = r.strings("settings");
        settings != std::vector<std::string>{step_settings(scene)})
      r.fail("/@settings", "is '" + (settings.empty() ? std::string() : settings.front()) + "' (expected the settings of " +
                               scene.file.string() + ", '" + step_settings(scene) +
                               "': a restart continues with the settings it was written with)");
  if (r.strings("columns") != columns)
    r.fail("/@columns", "names other systems or interactions than " + scene.file.string() +
                            " (expected an archive of the same scene)");
  Model& m = scene.model;
  const DofLayout layout = make_dof_layout(m);
  const double time = r.doubles("time", 1, "the clock")[0];
  const long long step = r.longs("step", 1, "the step count")[0];
  const double h = r.doubles("h", 1, "the step size")[0];
  if (h != scene.integrator.h) {
    std::ostringstream o;
    o << "is " << h << " (expected the scene's h = " << scene.integrator.h
      << ": a restart continues with the step it was written with)";
    r.fail("h", o.str());
  }
  if (step < 0) r.fail("step", "is " + std::to_string(step) + " (expected a step count >= 0)");
  if (time < 0.0) {
    std::ostringstream o;
    o << "is " << time << " (expected a time >= 0)";
    r.fail("time", o.str());
  }
  // The clock is the sum of `step` steps of h: equal to step·h up to the round-off of those sums.
  if (std::abs(time - static_cast<double>(step) * h) > 1e-9 * std::max(1.0, static_cast<double>(step)) * h) {
    std::ostringstream o;
    o << "is " << time << " after " << step << " steps of h = " << h << " (expected about " << step * h << ")";
    r.fail("time", o.str());
  }
  if (step >= planned_steps(scene)) {
    std::ostringstream o;
    o << "is " << time << " (expected a time before t_end = " << scene.t_end << ": nothing is left to run)";
    r.fail("time", o.str());
  }
  const std::vector<double> q = r.doubles("q", layout.n_coords, "one per coordinate of the scene");
  const std::vector<double> v = r.doubles("v", layout.n_vels, "one per velocity of the scene");
  std::vector<double> world_w;
  if (r.has_dataset(kWorldAngularVelocity))
    world_w = r.doubles(kWorldAngularVelocity, 3 * static_cast<std::size_t>(layout.bodies),
                        "the world-frame angular velocity, three per rigid body of the scene");
  const std::size_t n_int = m.listed_interactions();
  std::array<std::vector<double>, 3> values;
  std::array<std::vector<long long>, 3> sizes;
  const char* names[3] = {"interactions/gap", "interactions/velocity", "interactions/impulse"};
  for (int k = 0; k < 3; ++k) {
    const std::string size_name = std::string(names[k]) + "_size";
    sizes[k] = r.longs(size_name.c_str(), n_int, "one per interaction");
    long long total = 0;
    for (std::size_t i = 0; i < n_int; ++i) {
      const long long rows = law_rows(m.interactions[i].law);
      if (sizes[k][i] != 0 && sizes[k][i] != rows && !(k == 0 && sizes[k][i] == 1))
        r.fail(size_name, "gives " + std::to_string(sizes[k][i]) + " rows to '" + m.interactions[i].name +
                              "' (expected 0 or " + std::to_string(rows) + ")");
      total += sizes[k][i];
    }
    values[k] = r.doubles(names[k], static_cast<std::size_t>(total), "the sum of the sizes");
  }
  const std::vector<double> energy = r.doubles("energy", 4, "external, contact, dissipated and damping work");
  std::vector<double> acceleration, smooth_acceleration;
  if (restart_needs_accelerations(scene)) {
    acceleration = r.doubles("generalized_alpha/acceleration", layout.n_vels,
                             "the acceleration-like variable a_n, one per velocity of the scene");
    smooth_acceleration = r.doubles("generalized_alpha/smooth_acceleration", layout.n_vels,
                                    "the smooth acceleration, one per velocity of the scene");
  }

  // Everything checked: only now is the model touched.
  m.time = time;
  // Coordinates first: the archive's ω is body frame, rotated to the store's world frame by the restored q.
  scatter_state(layout, Eigen::Map<const Vector>(q.data(), static_cast<Index>(q.size())),
                Eigen::Map<const Vector>(v.data(), static_cast<Index>(v.size())), m);
  // The world ω the archive's writer had, when recorded: the store then holds the same bits as the straight run
  // (R Rᵀ ω differs from ω at round-off), so the restart stays bitwise for spinning bodies. Older archives: the
  // rotated body-frame ω above, equal up to round-off.
  for (Index k = 0; k < layout.bodies && !world_w.empty(); ++k)
    m.bodies.w[k] = Eigen::Vector3d(world_w[3 * k], world_w[3 * k + 1], world_w[3 * k + 2]);
  Vector Interaction::*fields[3] = {&Interaction::gap, &Interaction::velocity, &Interaction::impulse};
  for (int k = 0; k < 3; ++k) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < n_int; ++i) {
      const auto n = static_cast<std::size_t>(sizes[k][i]);
      m.interactions[i].*fields[k] = Eigen::Map<const Vector>(values[k].data() + at, static_cast<Index>(n));
      at += n;
    }
  }
  RestartState state;
  state.step = static_cast<long>(step);
  for (int k = 0; k < 4; ++k) state.energy[k] = energy[k];
  state.acceleration = Eigen::Map<const Vector>(acceleration.data(), static_cast<Index>(acceleration.size()));
  state.smooth_acceleration =
      Eigen::Map<const Vector>(smooth_acceleration.data(), static_cast<Index>(smooth_acceleration.size()));
  return state;
}

}  // namespace talus::app
