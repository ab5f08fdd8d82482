#include "apps/GranularRun.hpp"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "apps/GranularOutput.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/fc/FclibIO.hpp"

namespace talus::app {

namespace fs = std::filesystem;
using namespace talus::granular;

namespace {

const char* const kKeys[] = {"scene", "name", "n", "radius", "polydispersity", "density", "mu", "restitution",
                             "spacing", "jitter", "seed", "h", "t_end", "tolerance", "max_sweeps", "threads",
                             "frame_every", "solver", "resort_every", "orifice_diameters", "angle",
                             "length_diameters", "ball_radius_factor", "ball_density", "drop_time", "impact_speed",
                             "restart", "dump_fclib_step"};

struct Settings {
  YAML::Node node;
  std::string file;
  template <class T>
  T get(const char* key, T fallback) const {
    if (!node[key]) return fallback;
    try {
      return node[key].as<T>();
    } catch (const YAML::Exception&) {
      throw std::invalid_argument(file + ": granular." + key + ": cannot read '" + node[key].as<std::string>() + "'");
    }
  }
};

Settings load_settings(const fs::path& path, const std::vector<std::string>& sets) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(path.string() + ": " + e.what());
  }
  Settings s{root["granular"], path.string()};
  if (!s.node || !s.node.IsMap()) throw std::invalid_argument(path.string() + ": 'granular' must be a map");
  for (const std::string& kv : sets) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--set " + kv + ": expected key=value");
    s.node[kv.substr(0, eq)] = YAML::Load(kv.substr(eq + 1));
  }
  for (const auto& item : s.node) {
    const std::string key = item.first.as<std::string>();
    bool known = false;
    for (const char* k : kKeys) known = known || key == k;
    if (!known) throw std::invalid_argument(path.string() + ": granular." + key + ": unknown key (see docs/granular.md)");
  }
  return s;
}

GranularScene build_scene(const Settings& s, std::string& kind) {
  BeadSpec b;
  b.n = s.get<long>("n", b.n);
  b.radius = s.get("radius", b.radius);
  b.polydispersity = s.get("polydispersity", b.polydispersity);
  b.density = s.get("density", b.density);
  b.mu = s.get("mu", b.mu);
  b.restitution = s.get("restitution", b.restitution);
  b.spacing = s.get("spacing", b.spacing);
  b.jitter = s.get("jitter", b.jitter);
  b.seed = s.get<std::uint64_t>("seed", b.seed);
  kind = s.get<std::string>("scene", "bead_stack");
  if (kind == "bead_stack") return bead_stack(b);
  if (kind == "perturbed_stack")
    return perturbed_stack(b, s.get("ball_radius_factor", 4.0), s.get("ball_density", 7800.0), s.get("drop_time", 0.5),
                           s.get("impact_speed", 2.0));
  if (kind == "silo") return silo(b, s.get("orifice_diameters", 5.0));
  if (kind == "chute") return chute(b, s.get("angle", 25.0), s.get("length_diameters", 60.0));
  throw std::invalid_argument(s.file + ": granular.scene: unknown scene '" + kind +
                              "' (bead_stack, perturbed_stack, silo, chute)");
}

std::string frame_name(const char* stem, int frame) {
  char b[64];
  std::snprintf(b, sizeof b, "%s_%05d.vtp", stem, frame);
  return b;
}

}  // namespace

bool is_granular_scene(const fs::path& file) {
  try {
    const YAML::Node root = YAML::LoadFile(file.string());
    return root.IsMap() && root["granular"];
  } catch (...) {
    return false;
  }
}

int run_granular(const fs::path& scene_file, const GranularRunOptions& o, std::ostream& log) {
  const Settings s = load_settings(scene_file, o.sets);
  std::string kind;
  GranularScene sc = build_scene(s, kind);
  const std::string name = s.get<std::string>("name", scene_file.stem().string());
  GranularParameters p;
  p.h = o.h > 0 ? o.h : s.get("h", sc.h);
  p.tolerance = s.get("tolerance", p.tolerance);
  p.max_sweeps = s.get("max_sweeps", p.max_sweeps);
  p.threads = s.get("threads", p.threads);
  p.resort_every = s.get("resort_every", p.resort_every);
  const std::string solver = s.get<std::string>("solver", "matrix_free");
  if (solver == "assembled") p.solver = GranularSolver::Assembled;
  else if (solver != "matrix_free") throw std::invalid_argument(s.file + ": granular.solver: matrix_free or assembled");
  const double t_end = o.t_end > 0 ? o.t_end : s.get("t_end", sc.t_end);
  const double frame_every = s.get("frame_every", 0.02);
  const long dump_step = s.get("dump_fclib_step", 100L);
  const std::string restart = s.get<std::string>("restart", "");
  if (!restart.empty()) read_restart(restart, sc.model);

  const fs::path out = o.out_dir.empty() ? fs::path("out") / name : o.out_dir;
  fs::create_directories(out);
  if (!o.dump_fclib.empty()) fs::create_directories(o.dump_fclib);
  PhaseProfile profile(!o.profile.empty());
  GranularStepper stepper(sc.model, p, &profile);
  GranularModel& m = sc.model;
  const double bead_mass = m.beads.size() > 0 ? m.beads.mass[0] : 0.0;
  const double radius = m.beads.size() > 0 ? m.beads.radius[0] : 0.0;
  const long n0 = m.beads.size();
  if (!o.quiet)
    log << "talus: " << name << " (" << kind << "): " << n0 << " beads, " << m.walls.size() << " walls, h = " << p.h
        << ", t_end = " << t_end << ", threads = " << p.threads << ", tolerance = " << p.tolerance << '\n';

  std::vector<std::pair<double, std::string>> bead_frames, contact_frames;
  int frame = 0;
  // The last step's contacts index the beads as they were; after an outflow removal they are left out.
  bool contacts_valid = true;
  const std::vector<SweepContact> no_contacts;
  auto write_frame = [&] {
    const auto t0 = ProfileClock::now();
    const std::vector<SweepContact>& contacts = contacts_valid ? stepper.contacts() : no_contacts;
    const std::string bf = frame_name("beads", frame), cf = frame_name("contacts", frame);
    write_beads_vtp(out / bf, m.beads, contacts, p.h);
    write_contacts_vtp(out / cf, m.beads, contacts, p.h);
    bead_frames.emplace_back(m.time, bf);
    contact_frames.emplace_back(m.time, cf);
    write_pvd(out / "beads.pvd", bead_frames);
    write_pvd(out / "contacts.pvd", contact_frames);
    write_restart(out / "restart.h5", m);
    ++frame;
    profile.record(Phase::Output, t0, ProfileClock::now(), m.step);
  };
  write_frame();

  std::vector<char> remove_flags;
  std::vector<std::pair<double, long>> discharge;  // (time, beads removed so far)
  long removed = 0, worst_sweeps = 0, total_sweeps = 0, steps = 0;
  double worst_residual = 0.0, worst_penetration = 0.0;
  bool dropped = sc.events.drop_time < 0;
  int status = 0;
  std::string failure;
  const auto wall_start = std::chrono::steady_clock::now();
  auto last_print = wall_start;
  long last_steps = 0;
  double next_frame = m.time + frame_every;
  while (m.time < t_end - 1e-9 * p.h) {
    if (o.stop && o.stop->load(std::memory_order_relaxed)) {
      status = 130;
      break;
    }
    if (!dropped && m.time >= sc.events.drop_time - 1e-12) {
      m.beads.add(sc.events.drop_position, sc.events.drop_radius, sc.events.drop_density, sc.events.drop_velocity);
      dropped = true;
    }
    if (!o.dump_fclib.empty() && m.step + 1 == dump_step) stepper.keep_next_problem();
    const GranularStepReport& r = stepper.step();
    ++steps;
    contacts_valid = true;
    total_sweeps += r.solver.iterations;
    worst_sweeps = std::max<long>(worst_sweeps, r.solver.iterations);
    worst_residual = std::max(worst_residual, r.solver.residual);
    worst_penetration = std::max(worst_penetration, r.max_penetration);
    if (!o.dump_fclib.empty() && r.step == dump_step) {
      const fs::path f = o.dump_fclib / (name + "_step" + std::to_string(r.step) + ".hdf5");
      solvers::FclibInfo info{name + " step " + std::to_string(r.step),
                              "Talus granular scene " + kind + ", " + std::to_string(m.beads.size()) + " beads", "3D"};
      solvers::write_fclib_local(f.string(), stepper.last_problem(), info);
      if (!o.quiet) log << "\ntalus: wrote " << f.string() << " (" << r.contacts << " contacts)\n";
    }
    if (!r.solver.converged()) {
      status = 2;
      failure = r.solver.message;
      break;
    }
    if (m.time >= next_frame - 1e-9 * p.h) {
      write_frame();
      next_frame += frame_every;
    }
    // Outflow: beads that left the container are removed between steps (ids and the cache stay valid).
    if (std::isfinite(sc.events.remove_below_z) || std::isfinite(sc.events.remove_beyond_x)) {
      remove_flags.assign(m.beads.size(), 0);
      long gone = 0;
      for (int i = 0; i < m.beads.size(); ++i)
        if (m.beads.x[i].z() < sc.events.remove_below_z || m.beads.x[i].x() > sc.events.remove_beyond_x)
          remove_flags[i] = 1, ++gone;
      if (gone > 0) m.beads.remove(remove_flags), contacts_valid = false;
      removed += gone;
      discharge.emplace_back(m.time, removed);
    }
    const auto now = std::chrono::steady_clock::now();
    if (!o.quiet && now - last_print > std::chrono::seconds(o.tty ? 1 : 5)) {
      const double rate = (steps - last_steps) / std::chrono::duration<double>(now - last_print).count();
      char line[256];
      std::snprintf(line, sizeof line,
                    "t = %.4f / %.4f s  %.1f steps/s  %d contacts  %d sweeps  residual %.1e  penetration %.2e r",
                    m.time, t_end, rate, r.contacts, r.solver.iterations, r.solver.residual,
                    r.max_penetration / std::max(radius, 1e-300));
      log << (o.tty ? "\r" : "") << line << (o.tty ? "" : "\n") << std::flush;
      last_print = now, last_steps = steps;
    }
  }
  if (!o.quiet && o.tty) log << '\n';
  if (bead_frames.back().first < m.time) write_frame();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double ke = kinetic_energy(m.beads);
  const double ke_ratio = bead_mass > 0 ? ke / (std::max<long>(m.beads.size(), 1) * bead_mass * 9.81 * radius) : 0.0;

  // Discharge rate: slope of the removed mass over the middle half of the outflow.
  double rate = 0.0;
  if (removed > 4) {
    double t1 = -1, t2 = -1;
    for (const auto& [t, k] : discharge) {
      if (t1 < 0 && k >= removed / 4) t1 = t;
      if (t2 < 0 && k >= 3 * removed / 4) t2 = t;
    }
    if (t2 > t1) rate = (removed / 2) * bead_mass / (t2 - t1);
  }
  std::ofstream j(out / "granular.json");
  j << std::setprecision(9) << "{\n  \"scene\": \"" << name << "\",\n  \"kind\": \"" << kind << "\",\n  \"beads\": " << n0
    << ",\n  \"beads_left\": " << m.beads.size() << ",\n  \"h\": " << p.h << ",\n  \"time\": " << m.time
    << ",\n  \"steps\": " << steps << ",\n  \"threads\": " << p.threads << ",\n  \"wall_seconds\": " << wall
    << ",\n  \"status\": \"" << (status == 0 ? "completed" : status == 2 ? "step_failed" : "interrupted")
    << "\",\n  \"failure\": \"" << failure << "\",\n  \"tolerance\": " << p.tolerance
    << ",\n  \"worst_residual\": " << worst_residual << ",\n  \"mean_sweeps\": "
    << (steps ? double(total_sweeps) / steps : 0.0) << ",\n  \"worst_sweeps\": " << worst_sweeps
    << ",\n  \"max_penetration_over_r\": " << worst_penetration / std::max(radius, 1e-300)
    << ",\n  \"final_ke_over_Nmgr\": " << ke_ratio << ",\n  \"removed_beads\": " << removed
    << ",\n  \"discharge_rate_kg_per_s\": " << rate << ",\n  \"frames\": " << frame << "\n}\n";
  if (!discharge.empty()) {
    std::ofstream d(out / "discharge.csv");
    d << "time,removed_beads\n";
    for (const auto& [t, k] : discharge) d << t << ',' << k << '\n';
  }
  if (!o.profile.empty()) profile.write_chrome_trace(o.profile.string());

  if (!o.quiet) {
    log << "talus: " << steps << " steps to t = " << m.time << " in " << wall << " s (" << (wall > 0 ? steps / wall : 0)
        << " steps/s, " << (m.time > 0 ? wall / m.time : 0) << " s of wall time per simulated s); sweeps mean "
        << (steps ? double(total_sweeps) / steps : 0.0) << ", worst " << worst_sweeps << "; worst residual "
        << worst_residual << "; max penetration " << worst_penetration / std::max(radius, 1e-300)
        << " r; final KE/(N m g r) " << ke_ratio << '\n';
    if (removed > 0) log << "talus: " << removed << " beads left the container; discharge rate " << rate << " kg/s\n";
    profile.print_summary(log);
    log << "talus: outputs in " << out.string() << " (beads.pvd, contacts.pvd, restart.h5, granular.json)\n";
  }
  if (status == 2) log << "talus: step " << m.step << " failed at t = " << m.time << ": " << failure << '\n';
  if (!o.no_plot) {
    // The system interpreter as a fallback: a user-level python3 (pyenv, venv) may lack matplotlib.
    const std::string args = " '" + std::string(TALUS_SOURCE_DIR) + "/scripts/render_snapshot.py' '" +
                             (out / bead_frames.back().second).string() + "' '" + (out / "snapshot.png").string() +
                             "' > /dev/null 2>&1";
    const std::string cmd = "python3" + args + " || /usr/bin/python3" + args;
    if (std::system(cmd.c_str()) == 0) {
      if (!o.quiet) log << "talus: snapshot " << (out / "snapshot.png").string() << '\n';
    } else {
      log << "talus: no snapshot (python3 + matplotlib needed): scripts/render_snapshot.py "
          << (out / bead_frames.back().second).string() << " snapshot.png\n";
    }
  }
  return status;
}

}  // namespace talus::app
