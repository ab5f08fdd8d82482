#include "apps/GranularRun.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "apps/GranularOutput.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneReader.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/fc/FclibIO.hpp"

namespace talus::app {

namespace fs = std::filesystem;
using namespace talus::granular;

namespace {

// Every key a granular: map may hold (docs/granular.md); a key read below but missing here is a programmer error.
const std::initializer_list<std::string_view> kKeys = {
    "scene",        "name",          "n",          "radius",         "polydispersity",     "density",
    "mu",           "restitution",   "spacing",    "jitter",         "seed",               "h",
    "t_end",        "tolerance",     "max_sweeps", "threads",        "frame_every",        "solver",
    "resort_every", "orifice_diameters", "angle",  "length_diameters", "ball_radius_factor", "ball_density",
    "drop_time",    "impact_speed",  "restart",    "dump_fclib_step", "periodic", "obstacle_diameters",
    "capsule_fraction"};

// The granular: map of a scene file with the --set overrides applied, each value kept with the reader that
// names its origin (FILE:LINE:COL for the file, "--set key=value" for an override), so that every typed read
// below reports a bad value where it came from (apps/SceneError.hpp).
class Settings {
 public:
  Settings(const fs::path& path, const std::vector<std::string>& sets) : file_reader_(path.string()) {
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
  }

  const std::string& file() const { return file_reader_.file(); }
  // Where a failure of the scene as a whole (a generator's own check) is reported: the granular: map.
  [[noreturn]] void fail_scene(std::string_view what) const { file_reader_.fail(granular_, what); }
  [[noreturn]] void fail(const char* key, std::string_view what) const {
    const Value& v = values_.at(key);
    v.reader->fail(v.field, what);
  }
  bool has(const char* key) const { return find(key) != nullptr; }

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
  // An integer >= lo.
  long integer(const char* key, long lo, long fallback) const {
    const Value* v = find(key);
    if (!v) return fallback;
    long x = 0;
    if (!v->field.node.IsScalar() || !YAML::convert<long>::decode(v->field.node, x))
      v->reader->fail(v->field, "is " + describe(v->field.node) + " (expected an integer)");
    if (x < lo) v->reader->fail(v->field, "is " + std::to_string(x) + " (expected an integer >= " + std::to_string(lo) + ")");
    return x;
  }
  std::string text(const char* key, const std::string& fallback) const {
    const Value* v = find(key);
    return v ? v->reader->string(v->field) : fallback;
  }
  std::string choice(const char* key, std::initializer_list<std::string_view> names, const std::string& fallback) const {
    const std::string s = text(key, fallback);
    std::string expected;
    for (std::string_view n : names) {
      if (s == n) return s;
      expected += (expected.empty() ? "" : ", ") + std::string(n);
    }
    fail(key, "unknown value '" + s + "' (expected one of: " + expected + ")");
  }

 private:
  struct Value {
    Field field;
    const SceneReader* reader;
  };
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

GranularScene build_scene(const Settings& s, std::string& kind) {
  BeadSpec b;
  b.n = s.integer("n", 1, b.n);
  b.radius = s.positive("radius", b.radius);
  b.polydispersity = s.in_range("polydispersity", 0.0, 0.099, b.polydispersity);
  b.density = s.positive("density", b.density);
  b.mu = s.non_negative("mu", b.mu);
  b.restitution = s.in_range("restitution", 0.0, 1.0, b.restitution);
  b.spacing = s.positive("spacing", b.spacing);
  b.jitter = s.non_negative("jitter", b.jitter);
  b.seed = static_cast<std::uint64_t>(s.integer("seed", 0, static_cast<long>(b.seed)));
  b.capsule_fraction = s.in_range("capsule_fraction", 0.0, 1.0, b.capsule_fraction);
  kind = s.choice("scene", {"bead_stack", "perturbed_stack", "silo", "chute"}, "bead_stack");
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
  p.max_sweeps = static_cast<int>(s.integer("max_sweeps", 1, p.max_sweeps));
  p.threads = static_cast<int>(s.integer("threads", 1, p.threads));
  p.resort_every = static_cast<int>(s.integer("resort_every", 0, p.resort_every));
  if (s.choice("solver", {"matrix_free", "assembled"}, "matrix_free") == "assembled") p.solver = GranularSolver::Assembled;
  r.t_end = o.t_end > 0 ? o.t_end : s.positive("t_end", sc.t_end);
  r.frame_every = s.positive("frame_every", r.frame_every);
  r.dump_step = s.integer("dump_fclib_step", 1, r.dump_step);
  r.restart = s.text("restart", "");
  if (!r.restart.empty() && !fs::is_regular_file(r.restart)) s.fail("restart", "'" + r.restart + "': no such file");
  return r;
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

GranularSceneSummary check_granular_scene(const fs::path& scene_file, const std::vector<std::string>& sets) {
  const Settings s(scene_file, sets);
  GranularSceneSummary out;
  GranularScene sc = build_scene(s, out.kind);
  const RunSettings r = read_run_settings(s, sc, scene_file, {});
  if (!r.restart.empty()) read_restart(r.restart, sc.model);
  try {
    GranularStepper stepper(sc.model, r.params);  // the stepper's own parameter checks
  } catch (const std::invalid_argument& e) {
    s.fail_scene(e.what());
  }
  out.name = r.name;
  out.beads = sc.model.beads.size();
  out.walls = static_cast<int>(sc.model.walls.size());
  out.h = r.params.h;
  out.t_end = r.t_end;
  return out;
}

int run_granular(const fs::path& scene_file, const GranularRunOptions& o, std::ostream& log) {
  const Settings s(scene_file, o.sets);
  std::string kind;
  GranularScene sc = build_scene(s, kind);
  const RunSettings rs = read_run_settings(s, sc, scene_file, o);
  const std::string& name = rs.name;
  GranularParameters p = rs.params;
  const double t_end = rs.t_end;
  const double frame_every = rs.frame_every;
  const long dump_step = rs.dump_step;
  const std::string& restart = rs.restart;
  if (!restart.empty()) read_restart(restart, sc.model);

  const fs::path out = o.out_dir.empty() ? fs::path("out") / name : o.out_dir;
  fs::create_directories(out);
  if (!o.dump_fclib.empty()) fs::create_directories(o.dump_fclib);
  PhaseProfile profile(!o.profile.empty());
  GranularStepper stepper(sc.model, p, &profile);
  GranularModel& m = sc.model;
  const double bead_mass = m.beads.size() > 0 ? m.beads.mass[0] : 0.0;
  const double radius = m.beads.size() > 0 ? m.beads.radius[0] : 0.0;
  const long n0 = m.beads.size(), n_capsules0 = m.capsules.size();
  if (!o.quiet)
    log << "talus: " << name << " (" << kind << "): " << n0 << " beads, "
        << (m.capsules.size() > 0 ? std::to_string(m.capsules.size()) + " capsules, " : "") << m.walls.size()
        << " walls, h = " << p.h
        << ", t_end = " << t_end << ", threads = " << p.threads << ", tolerance = " << p.tolerance << '\n';

  std::vector<std::pair<double, std::string>> bead_frames, contact_frames, capsule_frames;
  int frame = 0;
  // The capsule series exists when the scene starts with capsules (and goes on once they have all left).
  const bool capsule_series = m.capsules.size() > 0;
  // The last step's contacts index the bodies as they were; after an outflow removal they are left out.
  bool contacts_valid = true;
  const std::vector<SweepContact> no_contacts;
  const std::vector<GeneralContact> no_general;
  auto write_frame = [&] {
    const auto t0 = ProfileClock::now();
    const FrameContacts contacts{contacts_valid ? stepper.contacts() : no_contacts,
                                 contacts_valid ? stepper.general_contacts().contacts : no_general};
    const std::string bf = frame_name("beads", frame), cf = frame_name("contacts", frame);
    write_beads_vtp(out / bf, m, contacts, p.h);
    write_contacts_vtp(out / cf, m, contacts, p.h);
    bead_frames.emplace_back(m.time, bf);
    contact_frames.emplace_back(m.time, cf);
    write_pvd(out / "beads.pvd", bead_frames);
    write_pvd(out / "contacts.pvd", contact_frames);
    if (capsule_series) {
      const std::string kf = frame_name("capsules", frame);
      write_capsules_vtp(out / kf, m, contacts, p.h);
      capsule_frames.emplace_back(m.time, kf);
      write_pvd(out / "capsules.pvd", capsule_frames);
    }
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
      // Capsules (the beads are already out, so only capsules go here).
      if (m.capsules.size() > 0 && remove_escaped_bodies(m, sc.events, remove_flags) > 0) contacts_valid = false;
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
    << ",\n  \"beads_left\": " << m.beads.size() << ",\n  \"capsules\": " << n_capsules0
    << ",\n  \"capsules_left\": " << m.capsules.size() << ",\n  \"h\": " << p.h << ",\n  \"time\": " << m.time
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
  {
    std::ofstream table(out / "profile.txt");
    profile.print_summary(table);
    if (!table) throw std::runtime_error((out / "profile.txt").string() + ": write failed");
  }

  if (!o.quiet) {
    log << "talus: " << steps << " steps to t = " << m.time << " in " << wall << " s (" << (wall > 0 ? steps / wall : 0)
        << " steps/s, " << (m.time > 0 ? wall / m.time : 0) << " s of wall time per simulated s); sweeps mean "
        << (steps ? double(total_sweeps) / steps : 0.0) << ", worst " << worst_sweeps << "; worst residual "
        << worst_residual << "; max penetration " << worst_penetration / std::max(radius, 1e-300)
        << " r; final KE/(N m g r) " << ke_ratio << '\n';
    if (removed > 0) log << "talus: " << removed << " beads left the container; discharge rate " << rate << " kg/s\n";
    profile.print_summary(log);
    log << "talus: outputs in " << out.string()
        << " (beads.pvd, contacts.pvd" << (capsule_series ? ", capsules.pvd" : "")
        << ", restart.h5, granular.json, profile.txt"
        << (o.profile.empty() ? "" : "; trace " + o.profile.string()) << ")\n";
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
