#include "apps/SceneRun.hpp"

#include "apps/LinearBeamCheck.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <cmath>
#include <sstream>

#include "apps/FrameSeries.hpp"
#include "apps/LargePathRun.hpp"
#include "apps/ModelPartition.hpp"
#include "apps/PlotScript.hpp"
#include "apps/ProgressMeter.hpp"
#include "apps/RunOutputs.hpp"
#include "apps/RunSummary.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneRestart.hpp"
#include "apps/TimeSeries.hpp"
#include "apps/Version.hpp"
#include "solvers/fc/FclibIO.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/Integrator.hpp"
#include "engine/eventdriven/EventDrivenIntegrator.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"
#include "engine/schemes/SchatzmanPaoli.hpp"

namespace talus::app {

namespace {

constexpr auto kFlushPeriod = std::chrono::seconds(1);
// Frames of a run whose scene does not set output.frame_every (besides the initial one).
constexpr double kDefaultFrames = 100;
// The step --dump-fclib writes from when neither the flag nor the scene names one.
constexpr long kDefaultDumpStep = 100;

}  // namespace

long planned_steps(const Scene& scene) {
  return static_cast<long>(std::floor(scene.t_end / scene.integrator.h * (1.0 + 1e-12)));
}

namespace {

// The scene's generalized-α parameters.
NonsmoothGeneralizedAlphaParameters generalized_alpha_parameters(const Scene& scene) {
  NonsmoothGeneralizedAlphaParameters p;
  p.h = scene.scheme.h;
  p.newton_tolerance = scene.integrator.newton_tolerance;
  p.newton_max_iterations = scene.integrator.newton_max_iterations;
  p.coefficients = generalized_alpha_coefficients(scene.scheme.rho_infinity);
  return p;
}

eventdriven::EventDrivenParameters event_driven_parameters(const Scene& scene) {
  eventdriven::EventDrivenParameters p;
  p.dae.method = eventdriven::parse_dae_method(scene.scheme.dae_method);
  p.dae.control.tolerance = scene.scheme.dae_tolerance;
  return p;
}

// make_integrator (engine/schemes/SchemeSelection.hpp) with the scene's settings that SchemeChoice does not
// carry: Moreau–Jean's whole integrator section (variant, solver, tolerances), and integrator.newton_tolerance and
// newton_max_iterations, which every second-order scheme reads (generalized-α: run_scene builds it itself, to
// restore it).
std::unique_ptr<Integrator> make_time_stepping_integrator(Scene& scene) {
  const SchemeChoice& c = scene.scheme;
  const MoreauJeanParameters& mj = scene.integrator;
  const std::string name = describe(c);
  const auto newton = [&](auto& p) {
    p.h = c.h;
    p.newton_tolerance = mj.newton_tolerance;
    p.newton_max_iterations = mj.newton_max_iterations;
  };
  switch (c.kind) {
    case SchemeKind::MoreauJean: return make_scheme_integrator<MoreauJean>(scene.model, mj, name);
    case SchemeKind::Newmark: {
      NonsmoothNewmarkParameters p;
      newton(p);
      p.gamma = c.gamma;
      p.beta = c.beta;
      return make_scheme_integrator<NonsmoothNewmark>(scene.model, p, name);
    }
    case SchemeKind::Hht: {
      NonsmoothNewmarkParameters p = hht_parameters(c.h, c.alpha);
      newton(p);
      return make_scheme_integrator<NonsmoothNewmark>(scene.model, p, name);
    }
    case SchemeKind::SchatzmanPaoli: {
      SchatzmanPaoliParameters p;
      newton(p);
      p.theta = c.sp_theta;
      return make_scheme_integrator<SchatzmanPaoli>(scene.model, p, name);
    }
    default: return make_integrator(scene.model, c);
  }
}

// Fills the integrator's own state (RestartState::carried) into the archive's state at the end of a run.
using SchemeStateSource = std::function<void(RestartState&)>;

RunResult run_loop(Scene& scene, const RunOptions& options, const Stepper& step, const RestartState& resume,
                   const SchemeStateSource& scheme_state = {});

RestartState read_restart(Scene& scene, const RunOptions& options) {
  if (options.restart.empty()) return {};
  return read_scene_restart(options.restart, scene, TimeSeries(scene).columns());
}

// The event-driven scheme's events (impact, closing, release, rest), listed in events.csv beside the time series.
void write_events(const Scene& scene, const RunOptions& options,
                  const std::vector<eventdriven::EventRecord>& events) {
  std::ostringstream out;
  out << "time,kind,interaction,name,U_minus,U_plus,impulse\n";
  out.precision(17);
  for (const eventdriven::EventRecord& e : events)
    out << e.time << ',' << eventdriven::to_string(e.kind) << ',' << e.interaction << ','
        << scene.model.interactions[static_cast<size_t>(e.interaction)].name << ',' << e.U_minus << ',' << e.U_plus
        << ',' << e.impulse << '\n';
  write_file_atomically(options.out_dir / kEventsFile, out.str());
}

}  // namespace

namespace {

// The end of a small-path run in the log: what was done, or the failed step and what was kept.
void say_how_it_ended(std::ostream& log, const RunOptions& options, const RunResult& r) {
  const std::string dir = options.out_dir.string();
  if (!options.dump_fclib.empty() && options.progress)
    log << "talus: "
        << (r.fclib_file.empty() ? "--dump-fclib: no step from step " + std::to_string(options.dump_step) +
                                       " on had a friction-contact problem (frictionless steps are LCPs, "
                                       "steps with joints mixed problems): nothing written"
                                 : "wrote " + r.fclib_file)
        << '\n';
  switch (r.status) {
    case RunStatus::Completed:
      if (options.progress)
        log << "talus: " << r.steps - r.first_step << " steps to t = " << r.time << " in " << r.wall_seconds << " s ("
            << (r.wall_seconds > 0 ? (r.steps - r.first_step) / r.wall_seconds : 0.0) << " steps/s); outputs in " << dir
            << '\n';
      break;
    case RunStatus::StepFailed:
      log << "talus: step " << r.failed_step << " failed at t = " << r.failed_time << ": " << r.failure << "; "
          << r.rows << " rows up to t = " << r.time << " kept in " << dir << '\n';
      break;
    case RunStatus::Interrupted:
      log << "talus: interrupted at t = " << r.time << "; " << r.rows << " rows kept in " << dir << '\n';
      break;
  }
}

// Every scheme steps through the one integrator contract (engine/Integrator.hpp); the event-driven scheme
// advances on the output grid (engine/eventdriven/EventDrivenIntegrator.hpp: one step to the next time t₀ + k h).
RunResult run_small_path(Scene& scene, const RunOptions& options) {
  const bool event_driven = scene.scheme.kind == SchemeKind::EventDriven;
  // The archive is loaded before the integrator is built, so that it starts from the restored state; the schemes
  // that cannot restart refuse it here, naming why.
  const RestartState resume = read_restart(scene, options);
  if (event_driven && !options.profile.empty())
    throw std::invalid_argument("--profile: an event_driven scene has no time steps whose stages could be timed "
                                "(it advances from event to event); profile a time-stepping scheme");
  // The one builder of a scene's integrator (runs and scripts alike); what a run needs of particular schemes is
  // asked of the integrator it built.
  std::unique_ptr<Integrator> integrator = make_scene_integrator(scene);
  // The vectors the scheme carries from step to step, which (q_n, v_n) do not determine, given back.
  if (!options.restart.empty()) restore_scheme_state(*integrator, resume);
  const SchemeStateSource scheme_state = [&integrator, kind = scene.scheme.kind](RestartState& state) {
    if (!capture_scheme_state(*integrator, kind, state))
      throw std::logic_error("the integrator built for the scene cannot give its state");
  };
  const auto* events = dynamic_cast<const eventdriven::EventDrivenIntegrator*>(integrator.get());
  // --dump-fclib: the Moreau–Jean scheme keeps its one-step problem.
  MoreauJean* dump_scheme = nullptr;
  if (!options.dump_fclib.empty()) {
    auto* mj = dynamic_cast<SchemeIntegrator<MoreauJean>*>(integrator.get());
    if (!mj)
      throw std::invalid_argument(std::string("--dump-fclib: the small path dumps moreau_jean's one-step problems (") +
                                  scene.file.string() + " runs " + to_string(scene.scheme.kind) + ")");
    dump_scheme = &mj->scheme();
  }
  long k = resume.step;
  std::string fclib_file;
  if (dump_scheme) std::filesystem::create_directories(options.dump_fclib);
  const auto step = [&]() -> const StepReport& {
    const bool dump = dump_scheme && fclib_file.empty() && k + 1 >= options.dump_step;
    if (dump) dump_scheme->keep_next_problem();
    const StepReport& r = integrator->step(scene.model);
    ++k;
    if (dump && dump_scheme->kept_problem()) {
      const std::string stem = scene.name + "_step" + std::to_string(k);
      fclib_file = (options.dump_fclib / (stem + ".hdf5")).string();
      solvers::write_fclib_local(fclib_file, *dump_scheme->kept_problem(),
                                 {scene.name + " step " + std::to_string(k),
                                  "Talus scene " + scene.file.filename().string() + ", Moreau-Jean, " +
                                      std::to_string(r.active) + " active contacts",
                                  std::to_string(dump_scheme->kept_problem()->dim) + "D"});
    }
    return r;
  };
  RunResult result = run_loop(scene, options, step, resume, scheme_state);
  result.fclib_file = fclib_file;
  if (events) write_events(scene, options, events->events());
  if (options.log) say_how_it_ended(*options.log, options, result);
  // The figures are drawn after run.json was committed: listed in it once they exist.
  std::ostringstream silent;
  if (options.plot && run_plot_script(options.out_dir, options.log ? *options.log : silent))
    list_in_run_summary(options.out_dir, plot_files());
  return result;
}

}  // namespace

int RunResult::exit_status() const {
  switch (status) {
    case RunStatus::Completed: return 0;
    case RunStatus::StepFailed: return 2;
    case RunStatus::Interrupted: return 130;
  }
  return 1;
}

RunResult run_scene(Scene& scene, const RunOptions& options) {
  RunOptions o = options;
  if (o.out_dir.empty()) o.out_dir = std::filesystem::path("out") / scene.name;
  if (scene.large_path) {
    if (!o.restart.empty()) {
      const std::string origin = "--restart " + o.restart.string();
      if (!scene.large_path->restored_from.empty())
        throw std::invalid_argument(origin + ": the scene was restored from " +
                                    scene.large_path->restored_from.string() + " when it was loaded");
      if (!std::filesystem::is_regular_file(o.restart)) throw SceneError({origin}, "", "'" + o.restart.string() + "': no such file");
      // A partitioned run's process reads its share of the archive (the partition sends the beads to their owners).
      ArchiveShare share;
      if (o.partition && o.frame_piece.count > 1 &&
          o.partition->unsupported(scene.model, scene.large_path->params).empty())
        share = {o.frame_piece.index, o.frame_piece.count};
      restore_large_path_scene(
          scene, o.restart, [&](const char*, const std::string& what) { throw SceneError({origin}, "", what); }, share);
      o.restart.clear();
    }
    return run_large_path(scene, o);
  }
  if (o.distributed)
    throw std::invalid_argument("mpirun: " + scene.file.string() + " is a single scene on the small path, which runs "
                                "on one process; granular scenes and integrator.path: large are spread over ranks");
  if (o.dump_step <= 0) o.dump_step = kDefaultDumpStep;
  return run_small_path(scene, o);
}



std::unique_ptr<Integrator> make_scene_integrator(Scene& scene) {
  if (scene.large_path)
    throw std::invalid_argument("make_scene_integrator: the scene's integrator.path is large (its stepper is the "
                                "granular one, built from scene.large_path->params)");
  scene.scheme.h = scene.integrator.h;
  if (scene.scheme.kind == SchemeKind::GeneralizedAlpha)
    return make_scheme_integrator<NonsmoothGeneralizedAlpha>(scene.model, generalized_alpha_parameters(scene),
                                                             describe(scene.scheme));
  if (scene.scheme.kind == SchemeKind::EventDriven)
    return std::make_unique<eventdriven::EventDrivenIntegrator>(scene.model, event_driven_parameters(scene),
                                                               scene.scheme.h, describe(scene.scheme));
  return make_time_stepping_integrator(scene);
}

RunResult run_scene(Scene& scene, const RunOptions& options, const Stepper& step) {
  if (scene.large_path)
    throw std::invalid_argument("run_scene with a stepper: " + scene.file.string() +
                                " is on the large path (run it with run_scene(scene, options))");
  RunOptions o = options;
  if (o.out_dir.empty()) o.out_dir = std::filesystem::path("out") / scene.name;
  const RestartState resume = read_restart(scene, o);
  return run_loop(scene, o, step, resume);
}

namespace {

RunResult run_loop(Scene& scene, const RunOptions& options, const Stepper& step, const RestartState& resume,
                   const SchemeStateSource& scheme_state) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  Model& model = scene.model;
  TimeSeries series(scene);
  std::string overrides;
  for (const std::string& o : options.overrides) overrides += (overrides.empty() ? "" : "\n") + o;
  RunOutputs outputs(options.out_dir, series.column_info(),
                     {{"scene", scene.name},
                      {"scene_file", scene.file.string()},
                      {"overrides", overrides},
                      {"talus_version", version()},
                      {"time_unit", "s"},
                      {"time_step", std::to_string(scene.integrator.h)}},
                     options.overwrite);
  std::ostringstream sink;
  ProgressMeter progress(options.log ? *options.log : sink, options.tty, options.progress && options.log,
                         scene.t_end);

  RunResult result;
  result.planned_steps = planned_steps(scene);
  result.first_step = resume.step;
  result.restart_settings = resume.settings;
  result.start_time = model.time;
  result.steps = resume.step;
  series.set_sums(resume.energy);
  outputs.append(series.row(model, nullptr));
  result.rows = 1;
  // ParaView frames of the model's rigid bodies (FrameSeries.hpp), every frame_every seconds of the run.
  FrameSeries frames(options.out_dir, model, /*large_path=*/false, /*staged=*/true);
  auto write_frame = [&] {
    if (!frames.empty()) frames.write(model, frame_contacts(nullptr), scene.integrator.h);
  };
  const double frame_every = scene.frame_every > 0 ? scene.frame_every : scene.t_end / kDefaultFrames;
  double next_frame = model.time + frame_every;
  write_frame();
  long written_step = resume.step;
  const StepReport* last = nullptr;
  PhaseProfile profile(!options.profile.empty());
  auto last_flush = start;
  LoopHooks hooks;
  hooks.stop = [&] { return options.stop && options.stop->load(std::memory_order_relaxed); };
  LinearBeamCheck beam_check;
  hooks.after_step = [&](const StepReport& report) {
    last = &report;
    const long k = ++result.steps;
    if (!model.detection.beams.empty()) beam_check.after_step(model, options.log ? *options.log : sink);
    series.accumulate(report);
    progress.update(report);
    if (k % scene.output_every == 0 || k == result.planned_steps) {
      const auto output_start = Clock::now();
      outputs.append(series.row(model, &report));
      ++result.rows;
      written_step = k;
      profile.record(Phase::Output, output_start, Clock::now(), k);
    }
    if (model.time >= next_frame - 1e-9 * scene.integrator.h) {
      const auto output_start = Clock::now();
      write_frame();
      next_frame += frame_every;
      profile.record(Phase::Output, output_start, Clock::now(), k);
    }
    if (const auto now = Clock::now(); now - last_flush >= kFlushPeriod) {
      outputs.flush();
      last_flush = now;
    }
  };
  auto step_start = Clock::now();
  const LoopEnd end = run_steps(
      resume.step, result.planned_steps - resume.step,
      [&]() -> const StepReport& {
        step_start = Clock::now();
        const StepReport& r = step();
        profile.record_step(step_start, r.phase_seconds, result.steps + 1);
        return r;
      },
      [&] { return model.time; }, hooks);
  result.status = end.status;
  result.failed_step = end.failed_step;
  result.failed_time = end.failed_time;
  result.failure = end.failure;
  // A run that stopped early still ends on its last good state.
  if (result.steps > written_step && last) {
    outputs.append(series.row(model, last));
    ++result.rows;
  }
  if (frames.last_time() < model.time) write_frame();
  progress.finish();
  result.time = model.time;
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (int q = 0; q < kPhaseCount; ++q) result.phase_seconds[q] = profile.total(static_cast<Phase>(q));
  // A stepper that cannot give its own state (run_scene with a Stepper) writes no archive that needs it.
  result.restart_written = restartable(scene) && (!restart_needs_scheme_state(scene) || scheme_state);
  result.frames = frames.frames();
  result.frame_collections = frames.collections();
  outputs.commit(run_json(scene, result, series.columns().size(), options.overrides, options.restart.string()));
  frames.commit();
  // After the commit, which removed an earlier run's archive with its other files.
  if (result.restart_written) {
    RestartState state;
    state.step = result.steps;
    state.energy = series.sums();
    if (scheme_state) scheme_state(state);
    write_scene_restart(options.out_dir / kRestartFile, scene, state, series.columns());
  }
  if (!options.profile.empty()) {
    profile.write_chrome_trace(options.profile.string());
    if (options.log) profile.print_summary(*options.log);
  }
  return result;
}

}  // namespace

std::string run_json(const Scene& scene, const RunResult& r, std::size_t columns,
                     const std::vector<std::string>& overrides, const std::string& restart_file) {
  using nlohmann::ordered_json;
  const MoreauJeanParameters& p = scene.integrator;
  const auto number = [](double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); };
  RunSummary s;
  s.path = "small";
  s.scene = scene.name;
  s.scene_file = scene.file.string();
  s.description = scene.description;
  s.overrides = overrides;
  s.restart_file = restart_file, s.restart_step = r.first_step;
  s.restart_settings = r.restart_settings;  // a small-path archive under other settings is refused
  s.status = to_string(r.status);
  if (r.status == RunStatus::StepFailed) s.failed_step = r.failed_step, s.failed_time = r.failed_time, s.failure = r.failure;
  s.parameters = common_parameters(to_string(scene.scheme.kind), p.h, scene.t_end, to_string(p.solver), p.solver_tolerance,
                                   scene.frame_every > 0 ? scene.frame_every : scene.t_end / kDefaultFrames);
  s.parameters["scheme_parameters"] = describe(scene.scheme);
  s.parameters["theta"] = number(p.theta);
  s.parameters["gamma"] = number(p.gamma);
  s.parameters["variant"] = to_string(p.variant);
  s.parameters["max_iterations"] = p.solver_max_iterations;
  s.parameters["newton_tolerance"] = number(p.newton_tolerance);
  s.parameters["newton_max_iterations"] = p.newton_max_iterations;
  s.parameters["output_every"] = scene.output_every;
  const Model& m = scene.model;
  s.beads = m.bodies.spheres(), s.capsules = m.bodies.capsules(), s.rigid_bodies = m.bodies.count();
  s.lti = static_cast<int>(m.lti.size()), s.nonlinear = static_cast<int>(m.nonlinear.size());
  s.beams = static_cast<int>(m.detection.beams.size()), s.interactions = static_cast<int>(m.interactions.size());
  s.start_time = r.start_time;
  s.final_time = r.time;
  s.steps = r.steps - r.first_step, s.planned_steps = r.planned_steps - r.first_step, s.final_step = r.steps;
  s.wall_seconds = r.wall_seconds;
  s.phase_seconds = r.phase_seconds;
  s.frames = r.frames;
  s.files = {kCsvFile, kHdf5File};
  if (scene.scheme.kind == SchemeKind::EventDriven) s.files.push_back(kEventsFile);
  if (r.restart_written) s.files.push_back(kRestartFile);
  for (const std::string& c : r.frame_collections) s.files.push_back(c);
  s.files.push_back(kRunJsonFile);
  s.results = {{"rows", r.rows}, {"columns", columns}};
  s.units = {{"parameters.newton_tolerance", "relative increment"}};
  return run_summary_json(s).dump(2) + "\n";
}

}  // namespace talus::app
