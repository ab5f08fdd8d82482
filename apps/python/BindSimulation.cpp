// talus.Simulation, talus.Scene and their settings (docs/python.md, "Running"): a model and the integrator that
// steps it, built from a scene file or from typed settings, on either path:
//   large  the granular stepper (engine/granular/GranularStepper.hpp; beads, capsules, joints between capsules,
//          walls, boxes, drums), through GranularIntegrator;
//   small  the small-system schemes (Moreau–Jean, Newmark/HHT, generalized-α, Schatzman–Paoli, event-driven,
//          adaptive), through make_integrator or, for a scene, the settings of its integrator section.
// Both are stepped through the one integrator contract (engine/Integrator.hpp), with the GIL released while the
// engine works. Between steps the simulation applies a scene's pours at a rate and its outflow, as `talus run`
// does (apps/LargePathRun.cpp), so a scene stepped from Python and the same scene run by the CLI agree.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

#include "apps/Cli.hpp"
#include "apps/FrameSeries.hpp"
#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "apps/GranularSceneFile.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/SceneRestart.hpp"
#include "apps/SceneRun.hpp"
#include "apps/TimeSeries.hpp"
#include "apps/python/Bindings.hpp"
#include "apps/python/ContactList.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/analysis/ObstacleLoads.hpp"
#include "engine/granular/ObstacleBodies.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/RegionFill.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/GranularIntegrator.hpp"
#include "engine/schemes/SchemeSelection.hpp"
#include "solvers/fc/FclibIO.hpp"

namespace talus::python {

namespace fs = std::filesystem;
using granular::GranularParameters;
using granular::GranularStepReport;

namespace {

const char* policy_name(FailurePolicy p) { return p == FailurePolicy::Keep ? "keep" : "roll_back"; }
FailurePolicy policy_from(const std::string& s) {
  if (s == "keep") return FailurePolicy::Keep;
  if (s == "roll_back") return FailurePolicy::RollBack;
  throw std::invalid_argument("on_failure must be 'roll_back' or 'keep', not '" + s + "'");
}

// Keyword arguments as attribute assignments: an unknown name raises AttributeError naming it.
template <class T>
void apply_kwargs(py::object self, const py::kwargs& kw) {
  for (auto item : kw) {
    const std::string key = py::str(item.first);
    if (!py::hasattr(self, key.c_str()))
      throw py::attribute_error("unknown setting '" + key + "' (see help(talus." +
                                py::str(self.get_type().attr("__name__")).cast<std::string>() + "))");
    self.attr(key.c_str()) = item.second;
  }
}

py::dict phase_dict(const PhaseSeconds& s) {
  py::dict d;
  for (int k = 0; k < kPhaseCount; ++k) d[to_string(static_cast<Phase>(k))] = s[k];
  return d;
}

}  // namespace

// A model with its integrator and what happens between steps.
class Simulation {
 public:
  Simulation(std::shared_ptr<Model> model, const GranularParameters& params) : model_(std::move(model)) {
    auto g = std::make_unique<GranularIntegrator>(*model_, params, "granular");
    granular_ = g.get();
    h_ = params.h;
    integrator_ = std::move(g);
  }
  Simulation(std::shared_ptr<Model> model, const SchemeChoice& choice) : model_(std::move(model)) {
    if (choice.kind == SchemeKind::Granular)
      throw std::invalid_argument("scheme 'granular': build the large path with talus.GranularSettings");
    integrator_ = make_integrator(*model_, choice);
    h_ = choice.h;
    if (auto* mj = dynamic_cast<SchemeIntegrator<MoreauJean>*>(integrator_.get())) moreau_jean_ = &mj->scheme();
  }
  explicit Simulation(std::shared_ptr<app::Scene> scene)
      : scene_(scene), model_(std::shared_ptr<Model>(scene, &scene->model)) {
    t_end_ = scene->t_end;
    if (scene->large_path) {
      const app::LargePathSettings& l = *scene->large_path;
      auto g = std::make_unique<GranularIntegrator>(*model_, l.params, "granular");
      granular_ = g.get();
      integrator_ = std::move(g);
      h_ = l.params.h;
      events_ = l.events;
      pours_ = l.pours;
      // A scene restored when it was loaded (its `restart:` key) continues as `talus run` continues it: with the
      // archive's warm starts and counters.
      if (l.restored) {
        app::restore_stepper(*l.restored, granular_->stepper());
        if (l.restored->has_counters) removed_ = l.restored->counters.removed, dropped_ = l.restored->counters.dropped;
      }
    } else {
      build_scene_integrator();
      h_ = scene->scheme.h;
      series_.emplace(*scene);  // its energy sums and column names, for restart archives
    }
  }

  std::shared_ptr<Model> model() const { return model_; }
  bool large() const { return granular_ != nullptr; }
  double h() const { return h_; }
  double t_end() const { return t_end_; }
  const std::string& name() const { return integrator_->name(); }
  long removed() const { return removed_; }

  // Takes n steps (pours and outflow between them) and returns the last report. The GIL is released meanwhile.
  py::object step(long n) {
    if (n < 1) throw std::invalid_argument("step(n): n must be >= 1");
    const StepReport* report = nullptr;
    {
      py::gil_scoped_release release;
      for (long k = 0; k < n; ++k) report = &one_step();
    }
    return report_object(*report);
  }

  py::object last_report() const { return last_ ? report_object(*last_) : py::object(py::none()); }

  ContactList contacts() const {
    if (!granular_) throw std::invalid_argument("contacts(): the contact list is the large path's (the small path's "
                                                "interactions carry their impulses: model interactions)");
    ContactList list;
    if (contacts_valid_) granular_contact_forces(*model_, granular_->stepper(), list.items);
    return list;
  }

  // Each obstacle's mean load over the steps since the last reset (engine/analysis/ObstacleLoads.hpp).
  py::list obstacle_loads(bool reset) {
    if (!granular_)
      throw std::invalid_argument("obstacle_loads(): the loads on the large path's obstacles (the small path's "
                                  "interactions carry their impulses: model interactions)");
    if (loads_.obstacles != granular::model_obstacles(*model_)) loads_.reset(*model_);  // before the first step
    const std::vector<std::string> none;
    const std::vector<std::string>& names = scene_ ? scene_->obstacle_names : none;
    auto vec = [](const Eigen::Vector3d& v) {
      py::array_t<double> a(3);
      for (int k = 0; k < 3; ++k) a.mutable_at(k) = v[k];
      return a;
    };
    py::list out;
    for (std::size_t k = 0; k < loads_.obstacles.size(); ++k) {
      const ObstacleRef o = loads_.obstacles[k];
      py::dict d;
      d["name"] = names.size() == loads_.obstacles.size() ? names[k] : obstacle_label(o);
      d["kind"] = obstacle_kind_name(o.kind);
      d["index"] = o.index;
      d["force"] = vec(loads_.mean_force(static_cast<int>(k)));
      d["torque"] = vec(loads_.mean_torque(static_cast<int>(k)));
      d["point"] = vec(loads_.reference[k]);
      d["seconds"] = loads_.time;
      out.append(d);
    }
    if (reset) loads_.reset(*model_);
    return out;
  }

  void keep_trace(bool keep) { integrator_->keep_trace(keep); }
  void write_trace(const std::string& file) const { integrator_->profile().write_chrome_trace(file); }
  std::string profile_table() const {
    std::ostringstream out;
    integrator_->profile().print_summary(out);
    return out.str();
  }
  py::dict phase_totals() const {
    PhaseSeconds s{};
    for (int k = 0; k < kPhaseCount; ++k) s[k] = integrator_->profile().total(static_cast<Phase>(k));
    return phase_dict(s);
  }

  // A ParaView frame into `folder`, with the .pvd collections: the runs' frame writer (apps/FrameSeries.hpp), so the
  // series are those a run of this model writes (beads and contacts on the large path; bodies, beams and
  // contacts on the small path; capsules, meshes). A new folder starts a new series.
  std::string write_vtk(const std::string& folder) {
    const fs::path dir(folder);
    fs::create_directories(dir);
    if (!vtk_ || dir != vtk_dir_) vtk_ = std::make_unique<app::FrameSeries>(dir, *model_, granular_ != nullptr), vtk_dir_ = dir;
    const app::FrameContacts c =
        app::frame_contacts(granular_ && contacts_valid_ ? &granular_->stepper() : nullptr);
    if (vtk_->empty()) throw std::invalid_argument("write_vtk: this model has no bodies, beams or contacts to draw");
    vtk_->write(*model_, c, h_);
    for (const char* stem : {"beads", "bodies", "beams", "contacts"})
      if (const std::string f = vtk_->last_frame(stem); !f.empty()) return (dir / f).string();
    return dir.string();
  }

  // The one restart archive (apps/RestartArchive.hpp): a large-path model's, or a small-path scene's (its steps,
  // energy sums and the vectors its scheme carries included), as `talus run` writes and reads them.
  void write_restart(const std::string& file) {
    if (granular_) {
      granular::GranularStepper& s = granular_->stepper();
      const app::StepperArchive state = app::stepper_archive(s);
      const app::ArchiveHeader header = app::large_path_header(scene_ ? scene_->name : "", s.parameters());
      app::RunCounters counters;
      counters.removed = removed_, counters.dropped = dropped_;
      app::write_restart(file, *model_, &state, &counters, &header, s.parameters().h);
      return;
    }
    if (!scene_)
      throw std::invalid_argument("write_restart: a small-path model's archive names its scene (its systems, interactions "
                                  "and settings): build the simulation from talus.load_scene");
    std::string why;
    if (!app::restartable(*scene_, &why)) throw std::invalid_argument("write_restart: " + why);
    app::RestartState state;
    state.step = steps_;
    state.energy = series_->sums();
    if (!app::capture_scheme_state(*integrator_, scene_->scheme.kind, state))
      throw std::invalid_argument("write_restart: the integrator is not the scene's " +
                                  std::string(to_string(scene_->scheme.kind)));
    app::write_scene_restart(file, *scene_, state, series_->columns());
  }
  void read_restart(const std::string& file) {
    if (granular_) {
      app::RestartExtras extras;
      app::read_restart(file, *model_, &extras);
      app::restore_stepper(extras, granular_->stepper());
      if (extras.has_counters) removed_ = extras.counters.removed, dropped_ = extras.counters.dropped;
      contacts_valid_ = false;
      return;
    }
    if (!scene_)
      throw std::invalid_argument("read_restart: a small-path archive is read into the scene it was written from: build "
                                  "the simulation from talus.load_scene");
    const app::RestartState state = app::read_scene_restart(file, *scene_, series_->columns());
    // The integrator starts from the restored state, as `talus run --restart` builds it.
    build_scene_integrator();
    app::restore_scheme_state(*integrator_, state);
    series_->set_sums(state.energy);
    steps_ = state.step;
    last_ = nullptr;
  }

  void keep_problem() {
    if (moreau_jean_) return moreau_jean_->keep_next_problem();
    if (!granular_)
      throw std::invalid_argument("keep_problem: the large path's and the small path's Moreau-Jean one-step problems "
                                  "only (this model steps with " + integrator_->name() + ")");
    granular_->stepper().keep_next_problem();
  }
  void write_fclib(const std::string& file, bool global, const std::string& title) const {
    if (moreau_jean_) {
      // The small path's assembled problem: FCLIB's local form only (its global form would need M and H of
      // every system; apps/SceneRun.cpp writes the same for `talus run --dump-fclib`).
      if (global) throw std::invalid_argument("write_fclib: a small-path step is written in the local form only");
      const solvers::FrictionContactProblem* p = moreau_jean_->kept_problem();
      if (!p)
        throw std::invalid_argument("write_fclib: no friction-contact problem kept (call keep_problem() before the "
                                    "step; a step without active contacts, a frictionless step or one with joints "
                                    "has none)");
      solvers::write_fclib_local(file, *p, {title, "Talus small-path Moreau-Jean step", std::to_string(p->dim) + "D"});
      return;
    }
    if (!granular_) throw std::invalid_argument("write_fclib: no one-step problem kept by " + integrator_->name());
    const granular::GranularStepper& s = granular_->stepper();
    if (s.last_problem().mu.size() == 0)
      throw std::invalid_argument("write_fclib: no problem kept (call keep_problem() before the step to dump, and "
                                  "step: a step without contacts has none)");
    const solvers::FclibInfo info{title, "Talus granular step " + std::to_string(model_->step) + ", " +
                                             std::to_string(model_->bodies.spheres()) + " beads", "3D"};
    if (global)
      solvers::write_fclib_global(file, s.last_global_problem(), info);
    else
      solvers::write_fclib_local(file, s.last_problem(), info);
  }

  void add_timed_pour(const granular::TimedPour& p) { pours_.push_back(p); }
  void set_outflow(double below_z, double beyond_x) {
    events_.remove_below_z = below_z, events_.remove_beyond_x = beyond_x;
  }

 private:
  void build_scene_integrator() {
    integrator_ = app::make_scene_integrator(*scene_);
    moreau_jean_ = nullptr;
    if (auto* mj = dynamic_cast<SchemeIntegrator<MoreauJean>*>(integrator_.get())) moreau_jean_ = &mj->scheme();
  }

  const StepReport& one_step() {
    Model& m = *model_;
    // perturbed_stack's ball, dropped once its time has come (the granular runner's event).
    if (granular_ && !dropped_ && events_.drop_time >= 0.0 && m.time >= events_.drop_time - 1e-12) {
      m.bodies.add_sphere(events_.drop_position, events_.drop_radius, events_.drop_density, events_.drop_velocity);
      dropped_ = true;
    }
    for (granular::TimedPour& pour : pours_) granular::pour_due(m, pour);
    contacts_valid_ = false;  // until the step below succeeds
    const StepReport& r = integrator_->step(m);
    last_ = &r;
    contacts_valid_ = true;
    if (granular_) add_obstacle_impulses(m, granular_->stepper(), loads_);
    if (series_) series_->accumulate(r), ++steps_;
    if (granular_ && (std::isfinite(events_.remove_below_z) || std::isfinite(events_.remove_beyond_x))) {
      const int before = m.bodies.count();
      granular::remove_escaped_bodies(m, events_, flags_);
      if (m.bodies.count() != before) removed_ += before - m.bodies.count(), contacts_valid_ = false;
    }
    return r;
  }

  py::object report_object(const StepReport& r) const {
    if (granular_) return py::cast(granular_->last_report());
    return py::cast(r);
  }

  std::shared_ptr<app::Scene> scene_;  // the scene the model belongs to, kept alive
  std::shared_ptr<Model> model_;
  std::unique_ptr<Integrator> integrator_;
  GranularIntegrator* granular_ = nullptr;
  double h_ = 0.0, t_end_ = 0.0;
  granular::SceneEvents events_;
  std::vector<granular::TimedPour> pours_;
  std::vector<char> flags_;
  long removed_ = 0;
  bool contacts_valid_ = false, dropped_ = false;
  ObstacleLoads loads_;  // summed since the last obstacle_loads(reset=True)
  const StepReport* last_ = nullptr;  // the integrator's last report (valid until its next step)
  fs::path vtk_dir_;
  std::unique_ptr<app::FrameSeries> vtk_;
  MoreauJean* moreau_jean_ = nullptr;  // the small path's Moreau–Jean scheme, when it steps the model (FCLIB dumps)
  // A small-path scene: the energy sums and step count its restart archive carries (apps/TimeSeries.hpp).
  std::optional<app::TimeSeries> series_;
  long steps_ = 0;
};

void bind_simulation(py::module_& m) {
  py::class_<solvers::SolverStats>(m, "SolverStats", "A solve's outcome (solvers/core/SolverStats.hpp).")
      .def_property_readonly("status", [](const solvers::SolverStats& s) { return std::string(solvers::to_string(s.status)); })
      .def_property_readonly("converged", &solvers::SolverStats::converged)
      .def_readonly("iterations", &solvers::SolverStats::iterations, "Sweeps (Gauss–Seidel), pivots or Newton steps.")
      .def_readonly("residual", &solvers::SolverStats::residual)
      .def_readonly("seconds", &solvers::SolverStats::seconds)
      .def_readonly("message", &solvers::SolverStats::message)
      .def_readonly("residual_history", &solvers::SolverStats::residual_history);

  py::class_<EnergyReport>(m, "EnergyReport", "The discrete energy terms of a small-path step (seed 000 eqs 74–104).")
      .def_readonly("kinetic", &EnergyReport::kinetic)
      .def_readonly("potential", &EnergyReport::potential)
      .def_readonly("external_work", &EnergyReport::external_work)
      .def_readonly("contact_work", &EnergyReport::contact_work)
      .def_readonly("numerical_dissipation", &EnergyReport::numerical_dissipation)
      .def_readonly("damping_work", &EnergyReport::damping_work);

  py::class_<StepReport>(m, "StepReport", "What one step reports (engine/StepReport.hpp).")
      .def_readonly("time", &StepReport::time)
      .def_readonly("step", &StepReport::step)
      .def_readonly("h", &StepReport::h)
      .def_readonly("active", &StepReport::active, "Interactions in the one-step problem.")
      .def_readonly("solver", &StepReport::solver)
      .def_property_readonly("sweeps", [](const StepReport& r) { return r.solver.iterations; })
      .def_property_readonly("residual", [](const StepReport& r) { return r.solver.residual; })
      .def_readonly("newton_iterations", &StepReport::newton_iterations)
      .def_readonly("energy", &StepReport::energy)
      .def_property_readonly("stage_seconds", [](const StepReport& r) { return phase_dict(r.phase_seconds); },
                             "Wall time of each stage of the step [s].")
      .def_property_readonly("stage_cpu_seconds", [](const StepReport& r) { return phase_dict(r.phase_cpu_seconds); });
  py::class_<GranularStepReport, StepReport>(m, "GranularStepReport", "A large-path step's report.")
      .def_readonly("contacts", &GranularStepReport::contacts)
      .def_readonly("colours", &GranularStepReport::colours)
      .def_readonly("max_penetration", &GranularStepReport::max_penetration, "max(−gap) at the step's start [m].")
      .def_readonly("residual_checks", &GranularStepReport::residual_checks)
      .def_readonly("cycles", &GranularStepReport::cycles)
      .def_readonly("position_sweeps", &GranularStepReport::position_sweeps);

  py::class_<GranularParameters>(m, "GranularSettings",
                                 "The large path's settings (engine/granular/GranularStepper.hpp); keyword arguments "
                                 "set attributes: GranularSettings(h=1e-3, solver='anderson', tolerance=1e-4).")
      .def(py::init([](const py::kwargs& kw) {
             GranularParameters p;
             p.solver = granular::GranularSolver::Anderson;  // the scenes' default (docs/stack-height.md)
             py::object self = py::cast(p);
             apply_kwargs<GranularParameters>(self, kw);
             return self.cast<GranularParameters>();
           }))
      .def_readwrite("h", &GranularParameters::h, "Time step [s].")
      .def_readwrite("tolerance", &GranularParameters::tolerance, "Friction-contact residual every step must reach.")
      .def_readwrite("max_sweeps", &GranularParameters::max_sweeps)
      .def_readwrite("threads", &GranularParameters::threads)
      .def_readwrite("resort_every", &GranularParameters::resort_every)
      .def_readwrite("anderson_memory", &GranularParameters::anderson_memory)
      .def_readwrite("anderson_every", &GranularParameters::anderson_every)
      .def_readwrite("record_history", &GranularParameters::record_history)
      // The multilevel cycle (docs/granular.md: the scene keys of the same names).
      .def_property(
          "multilevel_pre_sweeps", [](const GranularParameters& p) { return p.multilevel.pre_sweeps; },
          [](GranularParameters& p, int n) { p.multilevel.pre_sweeps = n; },
          "solver 'multilevel': fine sweeps before the coarse levels in each cycle (6).")
      .def_property(
          "multilevel_post_sweeps", [](const GranularParameters& p) { return p.multilevel.post_sweeps; },
          [](GranularParameters& p, int n) { p.multilevel.post_sweeps = n; },
          "solver 'multilevel': fine sweeps after them (6).")
      .def_property(
          "multilevel_plain_first", [](const GranularParameters& p) { return p.multilevel.plain_first; },
          [](GranularParameters& p, int n) { p.multilevel.plain_first = n; },
          "solver 'multilevel': plain sweeps before the first cycle (16).")
      .def_property(
          "multilevel_routing",
          [](const GranularParameters& p) { return std::string(p.multilevel.spread_routing ? "spread" : "tree"); },
          [](GranularParameters& p, const std::string& s) {
            if (s != "spread" && s != "tree")
              throw std::invalid_argument("multilevel_routing must be 'spread' or 'tree', not '" + s + "'");
            p.multilevel.spread_routing = s == "spread";
          },
          "solver 'multilevel': a bead's need inside its aggregate spread over all its contacts toward the root "
          "('spread', the default) or carried by one ('tree').")
      .def_readwrite("beam_theta", &GranularParameters::beam_theta,
                     "The FE beams' theta under moreau_jean (1 by default; the beads always take 1).")
      .def_readwrite("rho_infinity", &GranularParameters::rho_infinity,
                     "The FE beams' spectral radius at infinity under generalized_alpha (0.8 by default).")
      .def_property(
          "solver", [](const GranularParameters& p) { return granular::granular_solver_name(p.solver); },
          [](GranularParameters& p, const std::string& s) { p.solver = granular::granular_solver_from_name(s); },
          "matrix_free, assembled, multilevel, nncg or anderson (the default).")
      .def_property(
          "scheme",
          [](const GranularParameters& p) {
            return std::string(p.scheme == granular::GranularScheme::MoreauJean ? "moreau_jean" : "generalized_alpha");
          },
          [](GranularParameters& p, const std::string& s) {
            if (s == "moreau_jean") p.scheme = granular::GranularScheme::MoreauJean;
            else if (s == "generalized_alpha") p.scheme = granular::GranularScheme::GeneralizedAlpha;
            else throw std::invalid_argument("scheme must be 'moreau_jean' or 'generalized_alpha', not '" + s + "'");
          })
      .def_property(
          "on_failure", [](const GranularParameters& p) { return std::string(policy_name(p.on_failure)); },
          [](GranularParameters& p, const std::string& s) { p.on_failure = policy_from(s); },
          "'roll_back' (the default: a failed step leaves the model as it was and raises talus.StepFailure) or 'keep'.");

  py::class_<SchemeChoice>(m, "SchemeSettings",
                           "The small path's scheme and its parameters (engine/schemes/SchemeSelection.hpp); keyword "
                           "arguments set attributes: SchemeSettings(scheme='moreau_jean', h=1e-3, theta=0.5).")
      .def(py::init([](const py::kwargs& kw) {
        py::object self = py::cast(SchemeChoice{});
        apply_kwargs<SchemeChoice>(self, kw);
        return self.cast<SchemeChoice>();
      }))
      .def_property(
          "scheme", [](const SchemeChoice& c) { return std::string(to_string(c.kind)); },
          [](SchemeChoice& c, const std::string& s) { c.kind = parse_scheme_kind(s); },
          "moreau_jean, newmark, hht, generalized_alpha, schatzman_paoli, event_driven, adaptive_moreau_jean, "
          "event_capturing_rk.")
      .def_readwrite("h", &SchemeChoice::h)
      .def_readwrite("theta", &SchemeChoice::theta)
      .def_readwrite("gamma", &SchemeChoice::gamma)
      .def_readwrite("beta", &SchemeChoice::beta)
      .def_readwrite("alpha", &SchemeChoice::alpha)
      .def_readwrite("rho_infinity", &SchemeChoice::rho_infinity)
      .def_readwrite("sp_theta", &SchemeChoice::sp_theta)
      .def_readwrite("dae_method", &SchemeChoice::dae_method)
      .def_readwrite("dae_tolerance", &SchemeChoice::dae_tolerance)
      .def_readwrite("adaptive_atol", &SchemeChoice::adaptive_atol)
      .def_readwrite("adaptive_rtol", &SchemeChoice::adaptive_rtol)
      .def_property(
          "on_failure", [](const SchemeChoice& c) { return std::string(policy_name(c.on_failure)); },
          [](SchemeChoice& c, const std::string& s) { c.on_failure = policy_from(s); });

  py::class_<app::Scene, std::shared_ptr<app::Scene>>(m, "Scene", "A scene file read into a model and its settings.")
      .def_readonly("name", &app::Scene::name)
      .def_readonly("description", &app::Scene::description)
      .def_property_readonly("file", [](const app::Scene& s) { return s.file.string(); })
      .def_readwrite("t_end", &app::Scene::t_end)
      .def_property_readonly("h", [](const app::Scene& s) { return s.large_path ? s.large_path->params.h : s.integrator.h; })
      .def_property_readonly("path", [](const app::Scene& s) { return std::string(s.large_path ? "large" : "small"); })
      .def_readonly("body_names", &app::Scene::body_names)
      .def_property_readonly(
          "model", [](std::shared_ptr<app::Scene> s) { return std::shared_ptr<Model>(s, &s->model); },
          "The scene's model (changes to it are what a Simulation of this scene steps).")
      .def_property(
          "granular_settings",
          [](const app::Scene& s) -> py::object {
            return s.large_path ? py::cast(s.large_path->params) : py::none();
          },
          [](app::Scene& s, const GranularParameters& p) {
            if (!s.large_path) throw std::invalid_argument("granular_settings: the scene's path is small");
            s.large_path->params = p;
          },
          "The large path's settings (a copy; assign to change), None on the small path.");

  m.def(
      "load_scene",
      [](const std::string& file, const py::object& overrides) {
        std::vector<std::string> sets;
        if (py::isinstance<py::dict>(overrides)) {
          for (auto item : overrides.cast<py::dict>())
            sets.push_back(py::str(item.first).cast<std::string>() + "=" + py::str(item.second).cast<std::string>());
        } else if (!overrides.is_none()) {
          sets = overrides.cast<std::vector<std::string>>();
        }
        // The granular generators' files (`granular:`) and single scenes: both become the one Scene type.
        if (app::is_granular_scene(file)) return std::make_shared<app::Scene>(app::load_granular_scene(file, sets));
        app::LoadOptions o;
        for (const std::string& kv : sets) o.overrides.push_back(app::parse_override(kv));
        return std::make_shared<app::Scene>(app::load_scene(file, o));
      },
      py::arg("file"), py::arg("overrides") = py::none(),
      "Reads a scene file: a single scene (docs/scene-format.md) or a granular generator's (docs/granular.md). overrides: {'integrator.h': 1e-3} or ['integrator.h=1e-3'], as "
      "--set. A problem raises talus.SceneError with FILE:LINE:COL: field '…': what is wrong.");
  m.def(
      "load_scene_string",
      [](const std::string& text, const std::string& name) {
        return std::make_shared<app::Scene>(app::load_scene_from_string(text, name));
      },
      py::arg("text"), py::arg("name") = "scene.yaml", "The same from YAML text; `name` is used in messages.");

  py::class_<Simulation>(m, "Simulation",
                         "A model and the integrator that steps it. Simulation(scene) takes the scene's scheme and "
                         "settings; Simulation(model, GranularSettings(...)) steps it on the large path, "
                         "Simulation(model, SchemeSettings(...)) on the small path.")
      .def(py::init<std::shared_ptr<app::Scene>>(), py::arg("scene"))
      .def(py::init<std::shared_ptr<Model>, const GranularParameters&>(), py::arg("model"), py::arg("settings"))
      .def(py::init<std::shared_ptr<Model>, const SchemeChoice&>(), py::arg("model"), py::arg("settings"))
      .def_property_readonly("model", &Simulation::model)
      .def_property_readonly("path", [](const Simulation& s) { return std::string(s.large() ? "large" : "small"); })
      .def_property_readonly("h", &Simulation::h, "The step [s] (adaptive schemes: the first one tried).")
      .def_property_readonly("t_end", &Simulation::t_end, "The scene's end time (0 without a scene).")
      .def_property_readonly("integrator", &Simulation::name)
      .def_property_readonly("removed", &Simulation::removed, "Bodies removed by the outflow so far.")
      .def("step", &Simulation::step, py::arg("n") = 1,
           "Takes n steps and returns the last one's report (a GranularStepReport on the large path). Raises "
           "talus.StepFailure, the model left as it was before the failed step (on_failure='roll_back').")
      .def_property_readonly("last_report", &Simulation::last_report, "The last step's report (None before the first).")
      .def("contacts", &Simulation::contacts, "The last step's contacts and their forces (large path): a ContactList.")
      .def("obstacle_loads", &Simulation::obstacle_loads, py::arg("reset") = true,
           "Each obstacle's (plane, box, cone, drum, mesh) mean load over the steps since the last reset (large "
           "path): a list of dicts with name, kind, index, force [N] and torque [N m] the bodies put on it (world "
           "frame; the torque about point [m]) and seconds, the time averaged over. reset=True starts a new sum.")
      .def("keep_trace", &Simulation::keep_trace, py::arg("keep") = true,
           "Keep every stage's time stamp from now on, for write_trace.")
      .def("write_trace", &Simulation::write_trace, py::arg("file"),
           "A Chrome trace (open it in https://ui.perfetto.dev) of the steps since keep_trace().")
      .def("profile_table", &Simulation::profile_table, "Time per stage over the steps so far, as a table.")
      .def("stage_totals", &Simulation::phase_totals, "Seconds per stage over the steps so far.")
      .def("write_vtk", &Simulation::write_vtk, py::arg("folder"),
           "Writes a ParaView frame and the .pvd collections into `folder` (the series a run of this model writes: "
           "beads and contacts, or bodies, beams and contacts, capsules, meshes); returns the beads (or bodies) file.")
      .def("write_restart", &Simulation::write_restart, py::arg("file"),
           "An HDF5 restart archive (the bodies, the clock and the solver's warm start).")
      .def("read_restart", &Simulation::read_restart, py::arg("file"),
           "Continues from an archive of write_restart or `talus run` (bit for bit): a large-path model's, or a "
           "small-path scene's (every fixed-step scheme), into the scene it was written from.")
      .def("keep_problem", &Simulation::keep_problem,
           "Asks the next step to keep its one-step problem (W, q, μ and, on the large path, the global form), for "
           "write_fclib (the large path, and small-path scenes stepped by Moreau-Jean).")
      .def("write_fclib", &Simulation::write_fclib, py::arg("file"), py::arg("global_form") = false,
           py::arg("title") = "talus granular step",
           "Writes the kept problem as an FCLIB file: local (W, q, μ) or, with global_form, global (M, H, f, w, μ).")
      .def(
          "add_pour",
          [](Simulation& s, const Eigen::Vector3d& lower, const Eigen::Vector3d& upper, long count,
             const granular::SizeDistribution& sizes, double rate, double start, double density, std::uint64_t seed,
             const Eigen::Vector3d& velocity, const py::object& material) {
            if (!s.large()) throw std::invalid_argument("add_pour: beads enter during a run on the large path only");
            if (!(rate > 0.0) || count < 1 || !(density > 0.0) || !(start >= 0.0))
              throw std::invalid_argument("add_pour: rate, count and density must be > 0, start >= 0");
            granular::TimedPour p;
            p.fill.lower = lower, p.fill.upper = upper, p.fill.count = count, p.fill.sizes = sizes, p.fill.seed = seed;
            p.rate = rate, p.start = start, p.density = density, p.velocity = velocity;
            p.material = material_id(*s.model(), material);
            s.add_timed_pour(p);
          },
          py::arg("lower"), py::arg("upper"), py::arg("count"), py::arg("sizes"), py::arg("rate"),
          py::arg("start") = 0.0, py::arg("density") = 2500.0, py::arg("seed") = 1,
          py::arg("velocity") = Eigen::Vector3d(Eigen::Vector3d::Zero()), py::arg("material") = py::str("bead"),
          "Beads entering the box [lower, upper] during the run, `rate` per second from `start` (a rain).")
      .def("set_outflow", &Simulation::set_outflow, py::arg("below_z") = -std::numeric_limits<double>::infinity(),
           py::arg("beyond_x") = std::numeric_limits<double>::infinity(),
           "Bodies whose centre falls below z = below_z or beyond x = beyond_x are removed between steps.");

  m.def(
      "run_scene",
      [](const std::string& file, const std::string& out, const std::vector<std::string>& sets, bool overwrite,
         bool quiet, const std::string& profile, bool plot) {
        std::vector<std::string> args{"talus", "run", file};
        if (!out.empty()) args.insert(args.end(), {"--out", out});
        for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
        if (overwrite) args.push_back("--overwrite");
        if (quiet) args.push_back("--quiet");
        if (!profile.empty()) args.insert(args.end(), {"--profile", profile});
        if (!plot) args.push_back("--no-plot");
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        py::gil_scoped_release release;
        return app::cli_main(static_cast<int>(argv.size()), argv.data());
      },
      py::arg("file"), py::arg("out") = "", py::arg("sets") = std::vector<std::string>{}, py::arg("overwrite") = false,
      py::arg("quiet") = false, py::arg("profile") = "", py::arg("plot") = true,
      "Runs a scene file exactly as `talus run` does, with all its outputs (ParaView series, HDF5, run summary, "
      "plots, Chrome trace with profile=FILE); returns its exit status (0 done, 1 bad scene or outputs, 2 a step "
      "failed, 130 interrupted).");
}

}  // namespace talus::python
