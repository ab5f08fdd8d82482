#include "apps/LargePathRun.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <signal.h>
#include <sstream>
#include <stdexcept>

#include "apps/FrameSeries.hpp"
#include "apps/GranularMeasureSeries.hpp"
#include "apps/GranularOutput.hpp"
#include "apps/JsonOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "apps/LinearBeamCheck.hpp"
#include "apps/ModelPartition.hpp"
#include "apps/RestartPieces.hpp"
#include "apps/ProgressMeter.hpp"
#include "apps/RunLoop.hpp"
#include "apps/RunOutputs.hpp"
#include "apps/RunSummary.hpp"
#include "apps/SceneError.hpp"
#include "engine/analysis/ObstacleLoads.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "engine/granular/ObstacleBodies.hpp"
#include "engine/joints/RigidJoint.hpp"
#include "solvers/core/NumberText.hpp"
#include "solvers/fc/FclibIO.hpp"
#include "solvers/matrixfree/PartitionedSolve.hpp"

namespace talus::app {

namespace fs = std::filesystem;
using namespace talus::granular;

namespace {

// More steps than this is a mistake (h far too small for t_end): it would also outlast the clock's resolution.
constexpr double kMaxSteps = 1e9;

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
// that calls run_scene without a SIGTERM handler of its own (the tests) gets this one for the run, the
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

void restore_large_path_scene(Scene& scene, const fs::path& archive, const SettingFailure& fail, ArchiveShare share) {
  Model& m = scene.model;
  LargePathSettings& lp = *scene.large_path;
  auto extras = std::make_shared<RestartExtras>();
  // The joints were made at the scene's poses and hold capsules by store index; the archive may hold another
  // number of beads before the capsules, so their indices follow.
  const int capsules_begin = m.bodies.nonsphere_begin(), scene_capsules = m.bodies.capsules();
  read_restart(archive, m, extras.get(), share);
  lp.shares = share.shares;
  if (!m.interactions.empty()) {
    if (m.bodies.capsules() != scene_capsules)
      fail("restart", "'" + archive.string() + "' holds " + std::to_string(m.bodies.capsules()) +
                          " capsules where the scene's joints expect " + std::to_string(scene_capsules));
    for (Interaction& in : m.interactions)
      for (SystemRef& ref : in.systems) ref.index += m.bodies.nonsphere_begin() - capsules_begin;
  }
  // The pours are as far as their rate says at the start of the archive's last step, when the run that wrote it
  // inserted its last beads (a bead that had to wait is taken as in; the archive must come from a run with the
  // same h).
  if (m.step > 0)
    for (TimedPour& p : lp.pours) p.inserted = p.due(m.time - lp.params.h);
  lp.restored_from = archive;
  lp.restored = std::move(extras);
}

long large_path_steps(const std::function<void(const std::string&)>& fail, double t_end, double h, double t0) {
  const double steps = std::floor((t_end - t0) / h + 1e-6);
  const std::string span = "t_end = " + number_text(t_end) + (t0 > 0 ? " after the restart archive's t = " + number_text(t0) : "");
  if (!(steps >= 1.0)) fail("h = " + number_text(h) + " is larger than the time to run (" + span + "): no step would run");
  if (steps > kMaxSteps)
    fail("h = " + number_text(h) + " and " + span + " make " + number_text(steps) + " steps (expected at most " + number_text(kMaxSteps) +
         ": is h too small?)");
  return static_cast<long>(steps);
}

RunResult run_large_path(Scene& scene, const RunOptions& o) {
  LargePathSettings& lp = *scene.large_path;
  const std::string& kind = lp.generator;
  const std::string& name = scene.name;
  GranularParameters p = lp.params;
  p.distributed = o.distributed;
  const double t_end = scene.t_end;
  const double frame_every = lp.frame_every;
  const long dump_step = o.dump_step > 0 ? o.dump_step : lp.dump_step;
  const std::string restart = lp.restored_from.string();
  static const RestartExtras kNothingRestored;
  const RestartExtras& extras = lp.restored ? *lp.restored : kNothingRestored;
  const granular::SceneEvents& events = lp.events;
  Model& m = scene.model;
  // A problem of the steps left is the --restart flag's when there is one, else the scene's.
  const long planned = large_path_steps(
      [&](const std::string& what) {
        throw SceneError({restart.empty() ? scene.file.string() : "--restart " + restart}, "integrator.t_end", what);
      },
      t_end, p.h, m.time);
  const double t_final = m.time + planned * p.h;  // ≤ t_end: the whole steps that fit
  const bool quiet = !o.progress || !o.log;
  std::ostringstream silent;
  std::ostream& log = o.log ? *o.log : silent;

  const fs::path out = o.out_dir.empty() ? fs::path("out") / name : o.out_dir;
  const bool root = o.frame_piece.index == 0;  // the process that logs and keeps the outputs (under mpirun: rank 0)
  // Under mpirun, a partitioned model where the scene allows it (ModelPartition.hpp): each process keeps its beads
  // and fetches ghosts of its neighbours' before each step. Else every process holds the whole model and the
  // bead contacts' solve is spread (DistributedNsgs.hpp).
  ModelPartition* part = nullptr;
  std::string whole_why;  // why a run under mpirun holds the whole model on every process
  long beads_in_scene = m.bodies.spheres();
  // A scene that starts empty and fills by pours takes them from its first bead.
  double bead_mass = m.bodies.spheres() > 0 ? m.bodies.mass[0] : 0.0;
  double radius = m.bodies.spheres() > 0 ? m.bodies.radius[0] : 0.0;
  if (lp.shares > 1) {
    // This process built, or read from an archive, one share of the beads (GranularFlags::share): the scene's
    // count and first bead (the one of least id, as the whole model would hold it first) are the processes'
    // together.
    if (!o.partition || !o.partition->unsupported(m, p).empty())
      throw std::logic_error("a share of the scene's beads was built for a run that does not partition them");
    double least = -std::numeric_limits<double>::infinity();  // −(the least id here), exact in a double
    int first = -1;
    for (int i = 0; i < m.bodies.spheres(); ++i)
      if (-static_cast<double>(m.bodies.id[i]) > least) least = -static_cast<double>(m.bodies.id[i]), first = i;
    double over_all = least;
    o.partition->max(&over_all, 1);
    const bool first_here = first >= 0 && least == over_all;
    double whole[3] = {static_cast<double>(beads_in_scene), first_here ? m.bodies.mass[first] : 0.0,
                       first_here ? m.bodies.radius[first] : 0.0};
    o.partition->sum(whole, 3);
    beads_in_scene = static_cast<long>(whole[0]), bead_mass = whole[1], radius = whole[2];
  }
  const std::uint32_t ids_below = m.bodies.next_id[0];
  if (!o.dump_fclib.empty() && (p.distributed || o.partition)) {
    whole_why = "--dump-fclib";  // no rank was given the partition (apps/Cli.cpp, spread_over_ranks)
  } else if (o.partition) {
    whole_why = o.partition->unsupported(m, p);
    if (whole_why.empty()) {
      part = o.partition;
      p = part->begin(m, p, lp.shares > 1);
    }
  }
  PhaseProfile profile(!o.profile.empty());
  GranularStepper stepper(m, p, &profile);
  // A partitioned run's whole model and warm start, gathered on process 0 for an archive with --whole-restart.
  Model whole;
  contact::ContactCache whole_cache, whole_position, whole_rolling;
  std::vector<char> counted;  // the step's bead contacts this process reports (frames)
  auto sum = [&](std::initializer_list<double*> values) {
    if (!part) return;
    std::vector<double> v;
    for (double* x : values) v.push_back(*x);
    part->sum(v.data(), static_cast<int>(v.size()));
    int k = 0;
    for (double* x : values) *x = v[k++];
  };
  // Every process has read the scene (and any restart archive, perhaps in pieces in this folder) before process 0
  // clears the folder.
  if (o.barrier) o.barrier();
  // Under mpirun only rank 0 prepares the run's folder (the others' is scratch): if it cannot (an earlier run's
  // outputs there without --overwrite), every rank stops with its message.
  std::string folder_failure;
  try {
    prepare_output_folder(out, o.overwrite, quiet, log);
    fs::create_directories(out);
  } catch (const std::exception& e) {
    if (!o.first_failure) throw;
    folder_failure = std::string("talus: ") + e.what();
  }
  // Under mpirun the other ranks write their frame pieces into rank 0's folder, once it is prepared (the exchange
  // of the outcome, or the barrier, waits for it).
  const fs::path frames_out =
      o.frame_piece.index == 0 ? out : o.frame_dir.empty() ? fs::path("out") / name : o.frame_dir;
  if (o.first_failure) {
    if (const std::string first = o.first_failure(folder_failure); !first.empty()) throw RanksFailure(first, root);
  } else if (o.barrier) {
    o.barrier();
  }
  if (!o.dump_fclib.empty())
    if (const std::string why = stepper.unkeepable_problem(); !why.empty())
      throw std::invalid_argument("--dump-fclib: this scene has " + why);
  if (!o.dump_fclib.empty()) fs::create_directories(o.dump_fclib);
  RunCounters counters;
  restore_stepper(extras, stepper);
  // Read in shares: each process's rows of the archive's warm starts go to the owners of the beads they name.
  if (part && lp.shares > 1 && lp.restored) {
    part->route_warm_start(stepper.contact_cache(), ids_below);
    part->route_warm_start(stepper.position_cache(), ids_below);
    part->route_warm_start(stepper.rolling_cache(), ids_below);
  }
  if (extras.has_counters) counters = extras.counters;
  // A large-path archive continues under other settings too (settle, then change the solver or the step), but
  // then not bit for bit: said once, naming both.
  if (!restart.empty() && !quiet && !extras.header.legacy() && !extras.header.settings.empty() &&
      extras.header.settings != large_path_header(name, p).settings)
    log << "talus: " << restart << " was written under '" << extras.header.settings << "'; this run steps under '"
        << large_path_header(name, p).settings << "': not a bitwise continuation\n";
  if (!restart.empty() && !quiet && !m.lti.empty() && p.scheme == GranularScheme::GeneralizedAlpha &&
      !extras.has_beam_accelerations)
    log << "talus: " << restart << " holds no generalized-alpha beam accelerations (a Moreau-Jean run's archive, or an "
           "older one): the beams start from a_n = M^-1 f(q_n, v_n)\n";
  if (!restart.empty() && !quiet && !extras.has_contacts)
    log << "talus: " << restart << " holds no contact cache (an older archive): the first step starts cold\n";
  if (!restart.empty() && !quiet && !m.interactions.empty() && !extras.has_joints)
    log << "talus: " << restart << " holds no joint multipliers (an older archive): the joints' first step starts cold\n";
  const TerminateHandler terminate_handler;

  long poured = 0;
  const long n0 = part ? beads_in_scene : m.bodies.spheres(), n_capsules0 = m.bodies.capsules();
  const double t0 = m.time;
  const long step0 = m.step;
  if (!quiet) {
    log << "talus: " << name << " (" << kind << "): " << n0 << " beads, "
        << (m.bodies.capsules() > 0 ? std::to_string(m.bodies.capsules()) + " capsules, " : "") << m.walls.size()
        << " walls, h = " << p.h << ", t_end = " << t_end << ", threads = " << p.threads
        << ", tolerance = " << p.tolerance << '\n';
    if (part) {
      log << "talus: " << p.distributed->ranks() << " MPI ranks: the model is partitioned (each rank "
          << (lp.shares <= 1  ? ""
              : lp.restored ? "read only its share of the restart archive's beads and warm starts, and "
                            : "built only its share of the scene's beads, and ")
          << "holds its beads "
          << "and copies of its neighbours' near them; docs/distributed.md)\n";
    } else if (p.distributed) {
      std::string whole;
      if (p.solver != GranularSolver::MatrixFree && p.solver != GranularSolver::Anderson)
        whole = "the " + granular_solver_name(p.solver) + " solver";
      else if (m.bodies.capsules() > 0 || !m.interactions.empty() || stepper.has_rolling_resistance())
        whole = "steps with capsule contacts, joints or rolling resistance";
      log << "talus: " << p.distributed->ranks() << " MPI ranks: the bead contacts' solve is spread over them"
          << (whole.empty() ? "" : "; " + whole + ": solved whole on every rank (docs/distributed.md)") << '\n';
      if (!whole_why.empty())
        log << "talus: every rank holds the whole model: " << whole_why << " cannot be partitioned yet "
            << "(docs/distributed.md)\n";
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
    return scene.obstacle_names.size() == obstacles.size() ? scene.obstacle_names[k] : obstacle_label(obstacles[k]);
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
  const std::optional<Region> fixed_region = lp.measure_region;
  std::vector<MeasureRow> measures;
  std::vector<ContactForce> contact_forces;
  auto record_measures = [&] {
    // A partitioned model: each process measures its own beads and the contacts it counts, reduced over the
    // processes (engine/analysis/SpreadBodies.hpp); nothing is gathered.
    SpreadBodies* spread = part ? &part->spread() : nullptr;
    if (contacts_valid) granular_contact_forces(m, stepper, contact_forces);
    else contact_forces.clear();
    const std::optional<Region> region = fixed_region ? fixed_region : bulk_region(m.bodies, spread);
    const MeasureRow row = measure_row(m, contact_forces, region ? &*region : nullptr, spread);
    if (root) measures.push_back(row);
  };
  auto write_frame = [&] {
    const auto t0 = ProfileClock::now();
    write_joint_rows();
    write_obstacle_rows();
    record_measures();
    FrameContacts fc = frame_contacts(contacts_valid ? &stepper : nullptr);
    if (part) {
      frames.set_own_beads(part->own_beads());
      counted.assign(fc.beads.size(), 0);
      for (std::size_t k = 0; k < counted.size(); ++k) counted[k] = part->counts_contact(static_cast<int>(k));
      fc.counted = &counted;
    }
    frames.write(m, fc, p.h);
    profile.record(Phase::Output, t0, ProfileClock::now(), m.step);
  };
  // The archive is written after the step's outflow (the frame shows the bodies before it, with the step's
  // contacts): it is the state the next step starts from.
  PiecedRestart pieced{out, o.frame_piece.index, o.frame_piece.count, {}};
  if (!root) pieced.dir = frames_out;  // rank 0's folder
  auto save_restart = [&] {
    const auto t0 = ProfileClock::now();
    const ArchiveHeader header = large_path_header(name, p);
    if (part && !o.whole_restart) {
      // Each process writes its piece, process 0 the index (apps/RestartPieces.hpp): no process holds the whole model.
      const std::vector<std::string> files =
          write_pieced_restart(pieced, *part, m, stepper_archive(stepper), counters, header, p.h);
      outputs.erase(std::remove_if(outputs.begin(), outputs.end(), [](const std::string& f) { return is_restart_piece(f); }),
                    outputs.end());
      for (const std::string& f : files) written(f);
    } else if (part) {
      // The whole model and the warm start of every contact, written by process 0: the archive of a one-process
      // run, so any number of processes continues from it.
      const StepperArchive own = stepper_archive(stepper);
      part->gather(whole, *own.cache, whole_cache);
      if (own.position_cache) part->gather_cache(*own.position_cache, whole_position);
      if (own.rolling_cache) part->gather_cache(*own.rolling_cache, whole_rolling);
      if (root) {
        StepperArchive state;
        state.cache = &whole_cache;
        if (own.position_cache) state.position_cache = &whole_position;
        if (own.rolling_cache) state.rolling_cache = &whole_rolling;
        write_restart(out / "restart.h5", whole, &state, &counters, &header, p.h);
      }
    } else {
      const StepperArchive state = stepper_archive(stepper);
      write_restart(out / "restart.h5", m, &state, &counters, &header, p.h);
    }
    written("restart.h5");
    restart_step = m.step;
    profile.record(Phase::Output, t0, ProfileClock::now(), m.step);
  };

  long worst_sweeps = 0, total_sweeps = 0, steps = 0, beam_resolves = 0, cold_retries = 0;
  long beads_total = n0;  // beads of all processes (run.json), as of the last count
  std::string fclib_written;
  double worst_residual = 0.0, worst_penetration = 0.0;
  counters.dropped = counters.dropped || events.drop_time < 0;
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
    su.scene_file = scene.file.string();
    su.description = scene.description;
    su.overrides = o.overrides;
    su.restart_file = restart, su.restart_step = step0;
    su.restart_settings = extras.header.settings;
    su.restart_same_settings = extras.header.settings == large_path_header(name, p).settings;
    su.status = status < 0 ? "running" : status == 0 ? "completed" : status == 2 ? "step_failed" : "interrupted";
    if (status == 2) su.failed_step = failed_step, su.failed_time = failed_time, su.failure = failure;
    su.parameters = common_parameters(p.scheme == GranularScheme::GeneralizedAlpha ? "generalized_alpha" : "moreau_jean",
                                      p.h, t_end, granular_solver_name(p.solver), p.tolerance, frame_every);
    nlohmann::ordered_json& pa = su.parameters;
    pa["generator"] = kind;
    pa["seed"] = lp.seed ? nlohmann::json(*lp.seed) : nlohmann::json(nullptr);
    pa["threads"] = p.threads;
    // Under mpirun: how many processes ran and how the model was spread over them (docs/distributed.md).
    pa["processes"] = p.distributed ? p.distributed->ranks() : 1;
    pa["model_spread"] = part ? "partitioned" : p.distributed ? "replicated" : "one process";
    if (p.solver == GranularSolver::Anderson) {
      pa["anderson_memory"] = p.anderson_memory, pa["anderson_every"] = p.anderson_every;
      pa["anderson_warm"] = p.anderson_warm;
    }
    if (p.solver == GranularSolver::Multilevel) {
      pa["multilevel_pre_sweeps"] = p.multilevel.pre_sweeps, pa["multilevel_post_sweeps"] = p.multilevel.post_sweeps;
      pa["multilevel_plain_first"] = p.multilevel.plain_first;
      pa["multilevel_routing"] = p.multilevel.spread_routing ? "spread" : "tree";
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
    re["beads_left"] = beads_total;
    re["capsules_left"] = m.bodies.capsules();
    re["worst_residual"] = worst_residual;
    re["mean_sweeps"] = steps ? double(total_sweeps) / steps : 0.0;
    re["worst_sweeps"] = worst_sweeps;
    re["cold_retries"] = cold_retries;  // solves done again from zero impulses (GranularParameters::cold_retry)
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
  ProgressMeter progress(log, o.tty, !quiet, t_final);
  double next_frame = m.time + frame_every;
  LoopHooks hooks;
  hooks.stop = [&] {
    const bool mine = (o.stop && o.stop->load(std::memory_order_relaxed)) || g_terminate.load(std::memory_order_relaxed);
    return o.any_rank ? o.any_rank(mine) : mine;
  };
  hooks.before_step = [&] {
    // A partitioned model: every process places the same beads and keeps those in its region (RegionFill.hpp).
    if (!counters.dropped && m.time >= events.drop_time - 1e-12) {
      if (part)
        part->pours().add_sphere(events.drop_position, events.drop_radius, events.drop_density, events.drop_velocity,
                                 kBeadMaterial);
      else
        m.bodies.add_sphere(events.drop_position, events.drop_radius, events.drop_density, events.drop_velocity);
      counters.dropped = true, contacts_valid = false;
    }
    for (TimedPour& pour : lp.pours)
      if (const long n = pour_due(m, pour, part ? &part->pours() : nullptr); n > 0) poured += n, contacts_valid = false;
    if (radius == 0.0) {
      // A scene that starts empty takes the first bead poured (the lowest id): on a partitioned model, from
      // whichever process holds it.
      const RigidBodies& b = m.bodies;
      const int own = part ? part->own_beads() : b.spheres();
      int first = -1;
      for (int i = 0; i < own; ++i)
        if (first < 0 || b.id[i] < b.id[first]) first = i;
      if (!part) {
        if (first >= 0) radius = b.radius[first], bead_mass = b.mass[first];
      } else {
        double id = first >= 0 ? static_cast<double>(b.id[first]) : INFINITY;
        part->spread().min(&id, 1);
        const bool mine = first >= 0 && static_cast<double>(b.id[first]) == id;
        double got[2] = {mine ? b.radius[first] : 0.0, mine ? b.mass[first] : 0.0};
        part->max(got, 2);
        radius = got[0], bead_mass = got[1];
      }
    }
    if (!o.dump_fclib.empty() && m.step + 1 == dump_step) stepper.keep_next_problem();
  };
  // --dump-fclib: the kept step's problem, local and global forms. `failed`: a note that its solve failed (the
  // problem a user most wants to replay).
  auto write_dump = [&](long step, const std::string& failed) {
    const fs::path f = o.dump_fclib / (name + "_step" + std::to_string(step) + ".hdf5");
    solvers::FclibInfo info{name + " step " + std::to_string(step) + failed,
                            "Talus granular scene " + kind + ", " + std::to_string(m.bodies.spheres()) + " beads", "3D"};
    solvers::write_fclib_local(f.string(), stepper.last_problem(), info);
    fclib_written = f.string();
    // The global form beside it (bodies' velocities, M, H, f, w): the same step for global solvers.
    const fs::path fg = o.dump_fclib / (name + "_step" + std::to_string(step) + "_global.hdf5");
    solvers::write_fclib_global(fg.string(), stepper.last_global_problem(), info);
    if (!quiet)
      log << "\ntalus: wrote " << f.string() << " and " << fg.filename().string() << " ("
          << stepper.last_problem().contacts() << " contacts" << failed << ")\n";
  };
  LinearBeamCheck beam_check;
  hooks.after_step = [&](const StepReport& report) {
    const GranularStepReport& r = static_cast<const GranularStepReport&>(report);
    ++steps;
    if (!m.lti.empty()) beam_check.after_step(m, log);
    if (n_joints > 0) add_joint_impulses();
    if (!obstacles.empty()) {
      if (part) {
        // Each process's obstacle bodies hold the loads of the contacts it counts: summed over the processes.
        RigidBodies& b = m.bodies;
        std::vector<double> ft;
        for (int k = 0; k < b.obstacles(); ++k)
          for (const Eigen::Vector3d* v : {&b.force_of(b.obstacle_body(k)), &b.torque_of(b.obstacle_body(k))})
            ft.insert(ft.end(), {v->x(), v->y(), v->z()});
        part->sum(ft.data(), static_cast<int>(ft.size()));
        for (int k = 0; k < b.obstacles(); ++k) {
          const double* f = &ft[6 * static_cast<std::size_t>(k)];
          b.force_of(b.obstacle_body(k)) = Eigen::Vector3d(f[0], f[1], f[2]);
          b.torque_of(b.obstacle_body(k)) = Eigen::Vector3d(f[3], f[4], f[5]);
        }
      }
      add_obstacle_impulses(m, stepper, interval_loads);
      if (m.time >= 0.5 * (t0 + t_final)) add_obstacle_impulses(m, stepper, late_loads);
    }
    contacts_valid = true;
    total_sweeps += r.solver.iterations;
    beam_resolves += r.beam_resolves;
    cold_retries += r.cold_retries;
    worst_sweeps = std::max<long>(worst_sweeps, r.solver.iterations);
    worst_residual = std::max(worst_residual, r.solver.residual);
    worst_penetration = std::max(worst_penetration, r.max_penetration);
    if (!o.dump_fclib.empty() && r.step == dump_step) write_dump(r.step, "");
    bool frame_due = false;
    if (m.time >= next_frame - 1e-9 * p.h) {
      write_frame();
      next_frame += frame_every;
      frame_due = true;
    }
    // Outflow: beads that left the container are removed between steps (ids and the cache stay valid).
    if (std::isfinite(events.remove_below_z) || std::isfinite(events.remove_beyond_x)) {
      remove_flags.assign(m.bodies.count(), 0);
      long gone = 0;
      double mass = 0.0;
      // A partitioned model: each process removes its own beads (its ghosts are its neighbours').
      const int candidates = part ? part->own_beads() : m.bodies.spheres();
      for (int i = 0; i < candidates; ++i)
        if (m.bodies.x[i].z() < events.remove_below_z || m.bodies.x[i].x() > events.remove_beyond_x)
          remove_flags[i] = 1, ++gone, mass += m.bodies.mass[i];
      if (part) {
        if (gone > 0) part->remove_own(remove_flags);
        double all_gone = static_cast<double>(gone);
        sum({&all_gone, &mass});
        gone = static_cast<long>(all_gone);
        if (gone > 0) contacts_valid = false;
      } else if (gone > 0) {
        m.bodies.remove(remove_flags), contacts_valid = false;
      }
      // Capsules (the beads are already out, so only capsules go here).
      if (m.bodies.capsules() > 0)
        if (const double capsules = remove_escaped_bodies(m, events, remove_flags); capsules > 0) contacts_valid = false, mass += capsules;
      // The removed mass is kept beside the count only while every earlier row has one (an archive written before
      // it existed has none: its rate falls back to the count).
      if (counters.discharge_mass.size() == counters.discharge.size())
        counters.discharge_mass.push_back((counters.discharge_mass.empty() ? 0.0 : counters.discharge_mass.back()) + mass);
      counters.removed += gone;
      counters.discharge.emplace_back(m.time, counters.removed);
    }
    // Drums: the dynamic angle of repose, averaged over the second half of the run (the bed's start-up excluded).
    // A partitioned model: the bed's centroid from every process's own beads.
    if (!m.drums.empty() && m.time >= 0.5 * (t0 + t_final)) {
      const int own = part ? part->own_beads() : m.bodies.spheres();
      double c[4] = {0.0, 0.0, 0.0, static_cast<double>(own)};
      for (int i = 0; i < own; ++i)
        for (int d = 0; d < 3; ++d) c[d] += m.bodies.x[i][d];
      sum({&c[0], &c[1], &c[2], &c[3]});
      if (c[3] > 0) {
        angle_sum += drum_repose_angle(m, Eigen::Vector3d(c[0], c[1], c[2]) / c[3]);
        ++angle_count;
      }
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
      m.step, planned,
      [&]() -> const StepReport& {
        if (part) part->prepare_step(stepper);
        return stepper.step();
      },
      [&] { return m.time; }, hooks);
  rethrow_unless_step_failure(end);
  progress.finish();
  if (end.status == RunStatus::Interrupted) status = 130;
  if (end.status == RunStatus::StepFailed) {
    status = 2;
    failed_step = end.failed_step;
    failed_time = end.failed_time;  // the time it started from, as the small path's run.json says it
    failure = end.failure;
    contacts_valid = false;
    // The failed step's problem was kept when it was the one asked for: it is written all the same.
    if (!o.dump_fclib.empty() && failed_step == dump_step && stepper.last_problem().contacts() > 0)
      write_dump(failed_step, ", whose solve failed");
  }
  if (status < 0) status = 0;
  if (frames.last_time() < m.time) write_frame();
  if (o.barrier) o.barrier();  // every rank's pieces are in place before rank 0 lists and draws them
  if (restart_step != m.step) save_restart();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  double ke = 0.0, beads_left = m.bodies.spheres();
  if (part) {
    // Over the own beads of every process (the store also holds ghosts).
    const RigidBodies& b = m.bodies;
    for (int i = 0; i < part->own_beads(); ++i)
      if (b.inv_mass[i] > 0.0) ke += 0.5 * b.mass[i] * b.v[i].squaredNorm() + 0.5 / b.inv_inertia[i] * b.w[i].squaredNorm();
    beads_left = part->own_beads();
    sum({&ke, &beads_left});
    part->max(&worst_penetration, 1);
  } else {
    ke = kinetic_energy(m.bodies, ShapeKind::Sphere);
  }
  beads_total = static_cast<long>(beads_left);
  ke_ratio = bead_mass > 0 ? ke / (std::max<long>(beads_total, 1) * bead_mass * 9.81 * radius) : 0.0;

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
  if (o.plot) {
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

  if (!quiet) {
    log << "talus: " << steps << " steps to t = " << m.time << " in " << wall << " s (" << (wall > 0 ? steps / wall : 0)
        << " steps/s, " << (m.time > t0 ? wall / (m.time - t0) : 0) << " s of wall time per simulated s); sweeps mean "
        << (steps ? double(total_sweeps) / steps : 0.0) << ", worst " << worst_sweeps << "; worst residual "
        << worst_residual << "; max penetration " << worst_penetration / std::max(radius, 1e-300)
        << " r; final KE/(N m g r) " << ke_ratio << '\n';
    if (removed > 0) log << "talus: " << removed << " beads left the container; discharge rate " << rate << " kg/s\n";
    if (cold_retries > 0)
      log << "talus: " << cold_retries << (cold_retries == 1 ? " solve" : " solves")
          << " failed from the warm start and converged from zero impulses (cold_retry; their sweeps count in both)\n";
    profile.print_summary(log);
    std::string series;
    for (const std::string& c : frames.collections()) series += c + ", ";
    log << "talus: outputs in " << out.string() << " (" << series << "restart.h5, run.json, measures.csv, profile.txt" << (counters.discharge.empty() ? "" : ", discharge.csv")
        << (n_joints > 0 ? ", joints.csv" : "") << (obstacle_rows_csv.tellp() > 0 ? ", obstacle_loads.csv" : "")
        << (snapshot ? ", snapshot.png" : "") << (o.profile.empty() ? "" : "; trace " + o.profile.string()) << ")\n";
  }
  // Under mpirun every process ends alike and with the same message: rank 0 says it.
  if (status == 2 && root)
    log << "talus: step " << failed_step << " failed at t = " << failed_time << ": " << failure
        << "; restart.h5 and the last frame hold the state before it (t = " << m.time << ")\n";
  if (status == 130 && root) log << "talus: interrupted at t = " << m.time << "; the outputs up to it are complete in " << out.string() << '\n';
  if (o.plot && !snapshot)
    log << "talus: no snapshot (python3 + matplotlib needed): scripts/render_snapshot.py "
        << (out / frames.last_frame("beads")).string() << " snapshot.png\n";
  RunResult result;
  result.status = end.status;
  result.steps = m.step;
  result.first_step = step0;
  result.planned_steps = step0 + planned;
  result.start_time = t0;
  result.time = m.time;
  result.wall_seconds = wall;
  result.failed_step = failed_step, result.failed_time = failed_time, result.failure = failure;
  result.restart_settings = extras.header.settings;
  result.restart_written = true;
  for (int q = 0; q < kPhaseCount; ++q) result.phase_seconds[q] = profile.total(static_cast<Phase>(q));
  result.frames = frames.frames();
  result.frame_collections = frames.collections();
  result.fclib_file = fclib_written;
  return result;
}

}  // namespace talus::app
