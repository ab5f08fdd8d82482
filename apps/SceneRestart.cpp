#include "apps/SceneRestart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <tuple>
#include <sstream>
#include <stdexcept>

#include "apps/RestartArchive.hpp"
#include "apps/RunOutputs.hpp"
#include "apps/SceneRun.hpp"
#include "engine/DofLayout.hpp"
#include "engine/detection/SmallPathDetection.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"
#include "engine/schemes/SchatzmanPaoli.hpp"

namespace talus::app {

namespace fs = std::filesystem;

namespace {

// Each listed interaction's vectors concatenated, with their sizes (the detected contacts: /contacts/detected).
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
  if (k == SchemeKind::MoreauJean || k == SchemeKind::Newmark || k == SchemeKind::Hht ||
      k == SchemeKind::GeneralizedAlpha || k == SchemeKind::SchatzmanPaoli)
    return true;
  if (why)
    *why = std::string("scheme ") + to_string(k) +
           (k == SchemeKind::EventDriven ? " keeps its DAE integrator's step-size history outside the model"
                                         : " adapts its step size, which the archive's clock does not record") +
           ": the fixed-step schemes (moreau_jean, newmark, hht, generalized_alpha, schatzman_paoli) restart bit "
           "for bit";
  return false;
}

const std::vector<CarriedVector>& carried_vectors(SchemeKind kind) {
  static const std::vector<CarriedVector> none;
  static const std::vector<CarriedVector> ga = {
      {"acceleration", "the acceleration-like variable a_n", "(per velocity)/s", false},
      {"smooth_acceleration", "the smooth acceleration", "(per velocity)/s", false}};
  static const std::vector<CarriedVector> newmark = {
      {"acceleration", "the acceleration a_n", "(per velocity)/s", false},
      {"weighted_external_force", "the α-weighted external force F̂_n", "(per velocity) force", false},
      {"weighted_damping_force", "the α-weighted damping force (C v)^_n", "(per velocity) force", false},
      {"last_increment", "the last increment q_n − q_{n−1}", "(per coordinate)", false}};
  static const std::vector<CarriedVector> sp = {
      {"previous_position", "the previous coordinates q_{n−1}", "(per coordinate)", true},
      {"previous_external_force", "the LTI systems' external force at t_{n−1}", "(per velocity) force", false}};
  switch (kind) {
    case SchemeKind::GeneralizedAlpha: return ga;
    case SchemeKind::Newmark:
    case SchemeKind::Hht: return newmark;
    case SchemeKind::SchatzmanPaoli: return sp;
    default: return none;
  }
}

bool restart_needs_scheme_state(const Scene& scene) { return !carried_vectors(scene.scheme.kind).empty(); }

bool capture_scheme_state(const Integrator& integrator, SchemeKind kind, RestartState& state) {
  state.carried.clear();
  if (carried_vectors(kind).empty()) return true;
  if (const auto* ga = dynamic_cast<const SchemeIntegrator<NonsmoothGeneralizedAlpha>*>(&integrator)) {
    if (kind != SchemeKind::GeneralizedAlpha) return false;
    state.carried = {ga->scheme().acceleration(), ga->scheme().smooth_acceleration()};
    state.velocity = ga->scheme().velocity();
    return true;
  }
  if (const auto* nm = dynamic_cast<const SchemeIntegrator<NonsmoothNewmark>*>(&integrator)) {
    if (kind != SchemeKind::Newmark && kind != SchemeKind::Hht) return false;
    const NonsmoothNewmark::CarriedState c = nm->scheme().carried_state();
    state.carried = {c.acceleration, c.weighted_external_force, c.weighted_damping_force, c.last_increment};
    return true;
  }
  if (const auto* sp = dynamic_cast<const SchemeIntegrator<SchatzmanPaoli>*>(&integrator)) {
    if (kind != SchemeKind::SchatzmanPaoli) return false;
    state.carried = {sp->scheme().previous_position(), sp->scheme().previous_external_force()};
    return true;
  }
  return false;
}

void restore_scheme_state(Integrator& integrator, const RestartState& state) {
  if (auto* ga = dynamic_cast<SchemeIntegrator<NonsmoothGeneralizedAlpha>*>(&integrator)) {
    ga->scheme().restore_velocity(state.velocity);
    ga->scheme().restore_accelerations(state.carried.at(0), state.carried.at(1));
  } else if (auto* nm = dynamic_cast<SchemeIntegrator<NonsmoothNewmark>*>(&integrator)) {
    nm->scheme().restore_carried_state({state.carried.at(0), state.carried.at(1), state.carried.at(2), state.carried.at(3)});
  } else if (auto* sp = dynamic_cast<SchemeIntegrator<SchatzmanPaoli>*>(&integrator)) {
    sp->scheme().restore_previous(state.carried.at(0), state.carried.at(1));
  }
}

void write_scene_restart(const fs::path& file, const Scene& scene, const RestartState& state,
                         const std::vector<std::string>& columns) {
  const Model& m = scene.model;
  const DofLayout layout = make_dof_layout(m);
  const std::vector<CarriedVector>& carried = carried_vectors(scene.scheme.kind);
  if (state.carried.size() != carried.size())
    throw std::runtime_error("restart archive " + file.string() + ": not written: the scheme's state was not given (" +
                             std::to_string(carried.size()) + " vectors expected for " + to_string(scene.scheme.kind) + ")");
  for (std::size_t k = 0; k < carried.size(); ++k) {
    const auto n = static_cast<Index>(carried[k].per_coordinate ? layout.n_coords : layout.n_vels);
    if (state.carried[k].size() != n)
      throw std::runtime_error("restart archive " + file.string() + ": not written: " + carried[k].meaning + " has " +
                               std::to_string(state.carried[k].size()) + " entries (expected " + std::to_string(n) + ")");
  }
  Vector q, v;
  gather_coordinates(m, layout, q);
  gather_velocities(m, layout, v);
  if (state.velocity.size() > 0) {
    if (state.velocity.size() != v.size())
      throw std::runtime_error("restart archive " + file.string() + ": not written: the scheme's velocities have " +
                               std::to_string(state.velocity.size()) + " entries (expected " + std::to_string(v.size()) + ")");
    v = state.velocity;
  }
  write_archive(file, [&](hid_t f) {
    ArchiveHeader head;
    head.path = "small";
    head.scene = scene.name;
    head.scheme = to_string(scene.scheme.kind);
    head.settings = step_settings(scene);
    head.columns = columns;
    write_header(f, head, file);
    write_clock(f, file, m.time, state.step, scene.integrator.h, m.bodies.next_id[0], m.bodies.next_id[1]);
    {
      ArchiveGroup g(f, "systems", true, file);
      ArchiveWriter w{g.id, "/systems/", file, {}};
      w.matrix("q", q.data(), q.size(), 1, "(per coordinate)",
               "every coordinate, in the small-system integrators' order (DofLayout: LTI, nonlinear, then each rigid "
               "body's x and quaternion w x y z)");
      w.matrix("v", v.data(), v.size(), 1, "(per velocity)",
               "every velocity, in the same order (rigid bodies: v, then ω in the body frame), as the scheme holds "
               "them");
      // v holds the body-frame ω the small integrators work with; the store keeps the world-frame ω, and
      // R(q) Rᵀ(q) ω is ω only up to round-off: the world ω too, for the restarted run to start from the very bits
      // the straight run had.
      w.vectors("angular_velocity", m.bodies.w, "rad/s", "every rigid body's angular velocity, world frame");
    }
    {
      ArchiveGroup g(f, "interactions", true, file);
      ArchiveWriter w{g.id, "/interactions/", file, {}};
      for (auto [name, field, units] :
           {std::tuple{"gap", &Interaction::gap, "m or rad"}, std::tuple{"velocity", &Interaction::velocity, "m/s"},
            std::tuple{"impulse", &Interaction::impulse, "N s"}}) {
        std::vector<double> flat;
        std::vector<long long> sizes;
        flatten(m, field, flat, sizes);
        w.matrix(name, flat.data(), flat.size(), 1, units,
                 std::string("each listed interaction's last ") + name + ", concatenated in the scene's order");
        w.integers((std::string(name) + "_size").c_str(), sizes, "1",
                   std::string("rows of each listed interaction in ") + name);
      }
    }
    if (m.detection.enabled) {
      // The detected contacts of the last step, in their order: the next step's detection keeps them, with the
      // warm start of their impulses, as the straight run does.
      ArchiveGroup c(f, "contacts", true, file);
      ArchiveGroup g(c.id, "detected", true, file, "/contacts/");
      ArchiveWriter w{g.id, "/contacts/detected/", file, {}};
      std::vector<double> with, body, other, side, gap, vel, imp;
      const Index rows = law_rows(m.detection.law);
      for (std::size_t i = m.listed_interactions(); i < m.interactions.size(); ++i) {
        const Interaction& in = m.interactions[i];
        const DetectedContact d = describe_detected_contact(m, in);
        with.push_back(static_cast<double>(d.with)), body.push_back(d.body), other.push_back(d.other);
        side.push_back(d.side);
        gap.insert(gap.end(), in.gap.data(), in.gap.data() + rows);
        vel.insert(vel.end(), in.velocity.data(), in.velocity.data() + rows);
        imp.insert(imp.end(), in.impulse.data(), in.impulse.data() + rows);
      }
      const hsize_t n = with.size();
      w.matrix("with", with.data(), n, 1, "1", "what each contact's sphere touches: 0 a plane, 1 a sphere, 2 a beam");
      w.matrix("body", body.data(), n, 1, "1", "the sphere's index among the rigid bodies");
      w.matrix("other", other.data(), n, 1, "1",
               "the plane's or beam's index among the detection's, or the other sphere's body index");
      w.matrix("side", side.data(), n, 1, "1", "beam contacts: the side of the centreline (+1 or -1)");
      w.matrix("gap", gap.data(), n, static_cast<hsize_t>(rows), "m", "each contact's last gap (normal, tangential rows)");
      w.matrix("velocity", vel.data(), n, static_cast<hsize_t>(rows), "m/s", "each contact's last relative velocity");
      w.matrix("impulse", imp.data(), n, static_cast<hsize_t>(rows), "N s",
               "each contact's last impulse: the warm start of the next solve");
    }
    ArchiveWriter root{f, "/", file, {}};
    root.matrix("energy", state.energy.data(), state.energy.size(), 1, "J",
                "the time series' running sums: external work, contact work, numerical dissipation, damping work");
    if (!carried.empty()) {
      const std::string group = to_string(scene.scheme.kind);
      ArchiveGroup g(f, group.c_str(), true, file);
      ArchiveWriter w{g.id, "/" + group + "/", file, {}};
      for (std::size_t k = 0; k < carried.size(); ++k)
        w.matrix(carried[k].name, state.carried[k].data(), state.carried[k].size(), 1, carried[k].units,
                 std::string(carried[k].meaning) + ", in the order of /systems/" + (carried[k].per_coordinate ? "q" : "v"));
    }
  });
}

RestartState read_scene_restart(const fs::path& file, Scene& scene, const std::vector<std::string>& columns) {
  std::string why;
  if (!restartable(scene, &why)) throw std::runtime_error("cannot restart " + scene.file.string() + ": " + why);
  RestartState state;
  read_archive(file, [&](hid_t f) {
    const ArchiveHeader header = read_header(f, file);
    expect_path(header, "small", file);
    const auto fail_attr = [&](const char* name, const std::string& what) {
      throw std::runtime_error("restart archive " + file.string() + ": attribute /@" + name + ": " + what);
    };
    if (header.scheme != to_string(scene.scheme.kind))
      fail_attr("scheme", "is " + (header.scheme.empty() ? std::string("empty") : header.scheme) +
                              " (expected the scheme of " + scene.file.string() + ", " + to_string(scene.scheme.kind) +
                              ": a restart continues with the scheme it was written with)");
    // Archives written before the settings were recorded have none: they are taken on trust.
    if (!header.settings.empty() && header.settings != step_settings(scene))
      fail_attr("settings", "is '" + header.settings + "' (expected the settings of " + scene.file.string() + ", '" +
                                step_settings(scene) + "': a restart continues with the settings it was written with)");
    if (header.columns != columns)
      throw std::runtime_error("restart archive " + file.string() + ": dataset " +
                               (header.legacy() ? "/@columns" : "/columns") +
                               ": names other systems or interactions than " + scene.file.string() +
                               " (expected an archive of the same scene)");
    const bool legacy = header.legacy();
    const ArchiveReader root{f, "/", file};
    Model& m = scene.model;
    const DofLayout layout = make_dof_layout(m);
    double time = 0.0, h = 0.0, step = 0.0;
    if (legacy) {
      time = root.finite_doubles("time", 1, 1)[0];
      step = static_cast<double>(root.integers("step", 1)[0]);
      h = root.finite_doubles("h", 1, 1)[0];
    } else {
      const std::vector<double> clock = root.finite_doubles("clock", 4, 1);
      time = clock[0];
      step = root.integral("clock", clock[1], 0.0, kMaxExactInteger, "step");
      h = root.finite_doubles("step_size", 1, 1)[0];
    }
    const char* time_name = legacy ? "time" : "clock";
    if (h != scene.integrator.h) {
      std::ostringstream o;
      o << "is " << h << " (expected the scene's h = " << scene.integrator.h
        << ": a restart continues with the step it was written with)";
      root.fail(legacy ? "h" : "step_size", o.str());
    }
    if (step < 0) root.fail(legacy ? "step" : "clock", "step is " + ArchiveReader::num(step) + " (expected a step count >= 0)");
    if (time < 0.0) {
      std::ostringstream o;
      o << "time is " << time << " (expected a time >= 0)";
      root.fail(time_name, o.str());
    }
    // The clock is the sum of `step` steps of h: equal to step·h up to the round-off of those sums.
    if (std::abs(time - step * h) > 1e-9 * std::max(1.0, step) * h) {
      std::ostringstream o;
      o << "time is " << time << " after " << step << " steps of h = " << h << " (expected about " << step * h << ")";
      root.fail(time_name, o.str());
    }
    if (step >= static_cast<double>(planned_steps(scene))) {
      std::ostringstream o;
      o << "time is " << time << " (expected a time before t_end = " << scene.t_end << ": nothing is left to run)";
      root.fail(time_name, o.str());
    }
    // The systems' state and the listed interactions' outputs, under either layout's names.
    std::vector<double> q, v, world_w;
    {
      const std::string sys = legacy ? "/" : "/systems/";
      std::optional<ArchiveGroup> g;
      if (!legacy) g.emplace(f, "systems", false, file);
      const ArchiveReader r{legacy ? f : g->id, sys, file};
      q = r.finite_doubles("q", layout.n_coords, 1, "one per coordinate of the scene");
      v = r.finite_doubles("v", layout.n_vels, 1, "one per velocity of the scene");
      const char* w_name = legacy ? "rigid_angular_velocity_world" : "angular_velocity";
      // Archives of format 1 written before the small path's bodies moved to RigidBodies lack the world ω.
      if (!legacy || r.has(w_name))
        world_w = legacy ? r.finite_doubles(w_name, 3 * static_cast<hsize_t>(layout.bodies), 1, "three per rigid body")
                         : r.finite_doubles(w_name, static_cast<hsize_t>(layout.bodies), 3, "one row per rigid body");
    }
    const std::size_t n_int = m.listed_interactions();
    std::array<std::vector<double>, 3> values;
    std::array<std::vector<long long>, 3> sizes;
    {
      const ArchiveGroup g(f, "interactions", false, file);
      const ArchiveReader r{g.id, "/interactions/", file};
      const char* names[3] = {"gap", "velocity", "impulse"};
      for (int k = 0; k < 3; ++k) {
        const std::string size_name = std::string(names[k]) + "_size";
        sizes[k] = r.integers(size_name.c_str(), n_int, "one per listed interaction");
        long long total = 0;
        for (std::size_t i = 0; i < n_int; ++i) {
          const long long rows = law_rows(m.interactions[i].law);
          if (sizes[k][i] != 0 && sizes[k][i] != rows && !(k == 0 && sizes[k][i] == 1))
            r.fail(size_name.c_str(), "row " + std::to_string(i) + " gives " + std::to_string(sizes[k][i]) +
                                          " rows to '" + m.interactions[i].name + "' (expected 0 or " +
                                          std::to_string(rows) + ")");
          total += sizes[k][i];
        }
        values[k] = r.finite_doubles(names[k], static_cast<hsize_t>(total), 1, "the sum of the sizes");
      }
    }
    // The detected contacts (archives of format 1 have none: the first step finds them from zero impulses).
    std::vector<Interaction> detected;
    // An archive without them (format 1, or the group removed) restarts cold, as a new run would.
    const bool has_detected = !legacy && has_link(f, "contacts") && has_link(f, "contacts/detected");
    if (m.detection.enabled && has_detected) {
      const ArchiveGroup c(f, "contacts", false, file);
      const ArchiveGroup g(c.id, "detected", false, file, "/contacts/");
      const ArchiveReader r{g.id, "/contacts/detected/", file};
      const hsize_t n = r.rows("with");
      const auto rows = static_cast<hsize_t>(law_rows(m.detection.law));
      const auto with = r.finite_doubles("with", n, 1), body = r.finite_doubles("body", n, 1);
      const auto other = r.finite_doubles("other", n, 1), side = r.finite_doubles("side", n, 1);
      const auto gap = r.finite_doubles("gap", n, rows), vel = r.finite_doubles("velocity", n, rows);
      const auto imp = r.finite_doubles("impulse", n, rows);
      for (hsize_t i = 0; i < n; ++i) {
        DetectedContact d;
        d.with = static_cast<DetectedContact::With>(static_cast<int>(r.integral("with", with[i], 0.0, 2.0, "a kind")));
        d.body = static_cast<int>(r.integral("body", body[i], 0.0, 2147483647.0, "a body index"));
        d.other = static_cast<int>(r.integral("other", other[i], 0.0, 2147483647.0, "an index"));
        d.side = side[i];
        try {
          detected.push_back(make_detected_contact(m, d));
        } catch (const std::invalid_argument& e) {
          r.fail("body", "row " + std::to_string(i) + ": " + e.what() + " (expected an archive of this scene)");
        }
        Interaction& in = detected.back();
        const auto at = static_cast<std::ptrdiff_t>(i * rows);
        std::copy(gap.begin() + at, gap.begin() + at + static_cast<std::ptrdiff_t>(rows), in.gap.data());
        std::copy(vel.begin() + at, vel.begin() + at + static_cast<std::ptrdiff_t>(rows), in.velocity.data());
        std::copy(imp.begin() + at, imp.begin() + at + static_cast<std::ptrdiff_t>(rows), in.impulse.data());
      }
    }
    const std::vector<double> energy =
        root.finite_doubles("energy", 4, 1, "external, contact, dissipated and damping work");
    const std::vector<CarriedVector>& carried = carried_vectors(scene.scheme.kind);
    std::vector<std::vector<double>> carried_values;
    if (!carried.empty()) {
      const std::string group = to_string(scene.scheme.kind);
      const ArchiveGroup g(f, group.c_str(), false, file);
      const ArchiveReader r{g.id, "/" + group + "/", file};
      for (const CarriedVector& c : carried) {
        const std::string meaning =
            std::string(c.meaning) + (c.per_coordinate ? ", one per coordinate of the scene" : ", one per velocity of the scene");
        carried_values.push_back(
            r.finite_doubles(c.name, c.per_coordinate ? layout.n_coords : layout.n_vels, 1, meaning.c_str()));
      }
    }
    // Everything checked: only now is the model touched.
    m.time = time;
    // Coordinates first: the archive's ω is body frame, rotated to the store's world frame by the restored q.
    scatter_state(layout, Eigen::Map<const Vector>(q.data(), static_cast<Index>(q.size())),
                  Eigen::Map<const Vector>(v.data(), static_cast<Index>(v.size())), m);
    // The world ω the archive's writer had: the store then holds the same bits as the straight run (R Rᵀ ω
    // differs from ω at round-off), so the restart stays bitwise for spinning bodies. Older archives without it:
    // the rotated body-frame ω above, equal up to round-off.
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
    if (m.detection.enabled && has_detected) {
      m.interactions.resize(n_int);
      m.detection.first = static_cast<int>(n_int);
      for (Interaction& in : detected) m.interactions.push_back(std::move(in));
    }
    state.step = static_cast<long>(step);
    state.settings = header.settings;
    state.velocity = Eigen::Map<const Vector>(v.data(), static_cast<Index>(v.size()));
    for (int k = 0; k < 4; ++k) state.energy[k] = energy[k];
    for (const std::vector<double>& x : carried_values)
      state.carried.push_back(Eigen::Map<const Vector>(x.data(), static_cast<Index>(x.size())));
  });
  return state;
}

}  // namespace talus::app
