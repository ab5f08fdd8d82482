#include "apps/SceneRun.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "apps/ProgressMeter.hpp"
#include "apps/RunOutputs.hpp"
#include "apps/TimeSeries.hpp"
#include "apps/Version.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/eventdriven/EventDriven.hpp"

namespace talus::app {

namespace {

constexpr auto kFlushPeriod = std::chrono::seconds(1);

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Completed: return "completed";
    case RunStatus::StepFailed: return "step_failed";
    case RunStatus::Interrupted: return "interrupted";
  }
  return "unknown";
}

long planned_steps(const Scene& scene) {
  return static_cast<long>(std::ceil(scene.t_end / scene.integrator.h - 1e-9));
}

namespace {

// The event-driven path (engine/eventdriven, issue 6) sampled on the output grid: one "step" advances to the
// next grid time t₀ + k h, the impulses of the impacts inside that interval are the interactions' impulses of
// the row, and every event (impact, closing, release, rest) is listed in events.csv beside the time series.
RunResult run_event_driven(Scene& scene, const RunOptions& options) {
  eventdriven::EventDrivenParameters p;
  p.dae.method = eventdriven::parse_dae_method(scene.scheme.dae_method);
  p.dae.control.tolerance = scene.scheme.dae_tolerance;
  eventdriven::EventDriven ed(scene.model, p);  // throws std::invalid_argument before any output is touched
  std::vector<eventdriven::EventRecord> events;
  Model& model = scene.model;
  // Energy columns: the event-driven path integrates the smooth phases exactly to its tolerance and reports
  // no discrete supply, so only the impacts' contact work is filled in (external and damping work stay 0).
  StepReport report;
  ed.on_event = [&](const eventdriven::EventRecord& r) {
    events.push_back(r);
    // Work of an impact on its normal row: ½ (U⁻ + U⁺) P (seed 000 eq 81), exact for Newton's law.
    if (r.kind == eventdriven::EventKind::Impact) report.energy.contact_work += 0.5 * (r.U_minus + r.U_plus) * r.impulse;
    if (r.kind != eventdriven::EventKind::Impact && r.kind != eventdriven::EventKind::Rest) return;
    Vector& P = model.interactions[static_cast<size_t>(r.interaction)].impulse;
    if (P.size() > 0) P[0] += r.impulse;
  };
  const double t0 = model.time, h = scene.integrator.h;
  long k = 0;
  const RunResult result = run_scene(scene, options, [&]() -> const StepReport& {
    for (Interaction& in : model.interactions) in.impulse = Vector::Zero(law_rows(in.law));
    report.energy = {};
    ed.advance_to(t0 + static_cast<double>(++k) * h);
    report.time = model.time;
    report.step = k;
    report.active = static_cast<int>(ed.closed_interactions().size());
    report.solver.status = solvers::SolverStatus::Converged;
    return report;
  });
  const std::filesystem::path file = options.out_dir / "events.csv";
  std::ofstream out(file);
  out << "time,kind,interaction,name,U_minus,U_plus,impulse\n";
  out.precision(17);
  for (const eventdriven::EventRecord& e : events)
    out << e.time << ',' << eventdriven::to_string(e.kind) << ',' << e.interaction << ','
        << model.interactions[static_cast<size_t>(e.interaction)].name << ',' << e.U_minus << ',' << e.U_plus << ','
        << e.impulse << '\n';
  if (!out) throw std::runtime_error("cannot write " + file.string());
  return result;
}

}  // namespace

RunResult run_scene(Scene& scene, const RunOptions& options) {
  if (scene.scheme.kind == SchemeKind::EventDriven) return run_event_driven(scene, options);
  if (scene.scheme.kind == SchemeKind::MoreauJean) {
    MoreauJean integrator(scene.model, scene.integrator);
    return run_scene(scene, options, [&integrator]() -> const StepReport& { return integrator.step(); });
  }
  scene.scheme.h = scene.integrator.h;  // --h overrides the file for every scheme
  const Integrator integrator = make_integrator(scene.model, scene.scheme);
  return run_scene(scene, options, [&integrator]() -> const StepReport& { return integrator.step(); });
}

RunResult run_scene(Scene& scene, const RunOptions& options, const Stepper& step) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  Model& model = scene.model;
  TimeSeries series(scene);
  RunOutputs outputs(options.out_dir, series.columns(),
                     {{"scene", scene.name}, {"talus_version", version()}});
  std::ostringstream sink;
  ProgressMeter progress(options.log ? *options.log : sink, options.tty, options.progress && options.log,
                         scene.t_end);

  RunResult result;
  result.planned_steps = planned_steps(scene);
  outputs.append(series.row(model, nullptr));
  result.rows = 1;
  long written_step = 0;
  const StepReport* last = nullptr;
  auto last_flush = start;
  for (long k = 1; k <= result.planned_steps; ++k) {
    if (options.stop && options.stop->load(std::memory_order_relaxed)) {
      result.status = RunStatus::Interrupted;
      break;
    }
    try {
      last = &step();
    } catch (const std::exception& e) {
      result.status = RunStatus::StepFailed;
      result.failed_step = k;
      result.failed_time = model.time;
      result.failure = e.what();
      break;
    }
    result.steps = k;
    series.accumulate(*last);
    progress.update(*last);
    if (k % scene.output_every == 0 || k == result.planned_steps) {
      outputs.append(series.row(model, last));
      ++result.rows;
      written_step = k;
    }
    if (const auto now = Clock::now(); now - last_flush >= kFlushPeriod) {
      outputs.flush();
      last_flush = now;
    }
  }
  // A run that stopped early still ends on its last good state.
  if (result.steps > written_step && last) {
    outputs.append(series.row(model, last));
    ++result.rows;
  }
  progress.finish();
  result.time = model.time;
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  outputs.commit(run_json(scene, result, series.columns().size()));
  return result;
}

std::string run_json(const Scene& scene, const RunResult& r, std::size_t columns) {
  const MoreauJeanParameters& p = scene.integrator;
  std::ostringstream o;
  o << "{\n"
    << "  \"talus_version\": " << json_string(version()) << ",\n"
    << "  \"scene\": " << json_string(scene.name) << ",\n"
    << "  \"scene_file\": " << json_string(scene.file.string()) << ",\n"
    << "  \"description\": " << json_string(scene.description) << ",\n"
    << "  \"status\": " << json_string(to_string(r.status)) << ",\n";
  if (r.status == RunStatus::StepFailed)
    o << "  \"failure\": {\"step\": " << r.failed_step << ", \"time\": " << json_number(r.failed_time)
      << ", \"message\": " << json_string(r.failure) << "},\n";
  o << "  \"parameters\": {\n"
    << "    \"scheme\": " << json_string(to_string(scene.scheme.kind)) << ",\n"
    << "    \"scheme_parameters\": " << json_string(describe(scene.scheme)) << ",\n"
    << "    \"h\": " << json_number(p.h) << ",\n"
    << "    \"theta\": " << json_number(p.theta) << ",\n"
    << "    \"gamma\": " << json_number(p.gamma) << ",\n"
    << "    \"variant\": " << json_string(to_string(p.variant)) << ",\n"
    << "    \"solver\": " << json_string(to_string(p.solver)) << ",\n"
    << "    \"tolerance\": " << json_number(p.solver_tolerance) << ",\n"
    << "    \"max_iterations\": " << p.solver_max_iterations << ",\n"
    << "    \"newton_tolerance\": " << json_number(p.newton_tolerance) << ",\n"
    << "    \"newton_max_iterations\": " << p.newton_max_iterations << ",\n"
    << "    \"t_end\": " << json_number(scene.t_end) << ",\n"
    << "    \"output_every\": " << scene.output_every << "\n"
    << "  },\n"
    << "  \"systems\": {\"lti\": " << scene.model.lti.size() << ", \"nonlinear\": " << scene.model.nonlinear.size()
    << ", \"rigid_bodies\": " << scene.model.bodies.size()
    << ", \"interactions\": " << scene.model.interactions.size() << "},\n"
    << "  \"steps\": " << r.steps << ",\n"
    << "  \"planned_steps\": " << r.planned_steps << ",\n"
    << "  \"final_time\": " << json_number(r.time) << ",\n"
    << "  \"rows\": " << r.rows << ",\n"
    << "  \"columns\": " << columns << ",\n"
    << "  \"wall_seconds\": " << json_number(r.wall_seconds) << ",\n"
    << "  \"steps_per_second\": " << json_number(r.wall_seconds > 0 ? r.steps / r.wall_seconds : 0.0) << ",\n"
    << "  \"files\": [" << json_string(kCsvFile) << ", " << json_string(kHdf5File) << "]\n"
    << "}\n";
  return o.str();
}

}  // namespace talus::app
