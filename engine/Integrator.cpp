// The one integrator contract (Integrator.hpp) and the failure policy's helpers shared by the small-path schemes.
#include "engine/Integrator.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace talus {

Integrator::Integrator(Model& model, std::string name, FailurePolicy policy)
    : model_(model), name_(std::move(name)), policy_(policy), profile_(std::make_unique<PhaseProfile>()) {}

Integrator::~Integrator() = default;

void Integrator::keep_trace(bool keep) { *profile_ = PhaseProfile(keep); }

const StepReport& Integrator::step(Model& model) {
  if (&model != &model_)
    throw std::invalid_argument("integrator " + name_ +
                                ": step() was given a different Model from the one it was built on (the scheme keeps "
                                "that model's accelerations, factorisations and warm starts between steps)");
  const ProfileClock::time_point start = ProfileClock::now();
  const StepReport& report = advance();
  if (!stamps_profile_) profile_->record_step(start, report.phase_seconds, report.step);
  return report;
}

std::string step_context(const char* scheme, long step, double t0, double t1) {
  std::ostringstream os;
  os.precision(12);
  os << scheme << " step " << step << " (t = " << t0 << " -> " << t1 << ")";
  return os.str();
}

void solve_failed(FailurePolicy policy, solvers::SolverStats& stats, const std::string& message) {
  if (policy == FailurePolicy::RollBack) throw StepFailure(message);
  stats.message = message;
}

void step_failed(FailurePolicy policy, StepReport& report, solvers::SolverStatus status, const std::string& message) {
  if (policy == FailurePolicy::RollBack) throw StepFailure(message);
  if (report.solver.converged()) {
    report.solver.status = status;
    report.solver.message = message;
  } else {
    report.solver.message += "; then " + message;
  }
}

std::string non_finite_dof(const Model& model, const DofLayout& layout, const Vector& q, const Vector& v) {
  // Velocity indices map to systems through the velocity offsets; coordinates too, except rigid bodies' 7
  // coordinates per body when q holds coordinates rather than increments.
  const auto owner = [&](Index i, bool coordinates) {
    std::ostringstream os;
    for (size_t s = 0; s < model.lti.size(); ++s) {
      const Index o = layout.lti_offset[s];
      if (i >= o && i < o + model.lti[s].dofs()) {
        os << "LTI system " << s << " '" << model.lti[s].name << "'";
        return os.str();
      }
    }
    for (size_t s = 0; s < model.nonlinear.size(); ++s) {
      const Index o = layout.nonlinear_offset[s];
      if (i >= o && i < o + model.nonlinear[s].dofs()) {
        os << "nonlinear system " << s << " '" << model.nonlinear[s].name << "'";
        return os.str();
      }
    }
    const Index first = coordinates ? layout.rigid_coord_offset : layout.rigid_vel_offset;
    const Index per_body = coordinates ? 7 : 6;
    if (i >= first && layout.bodies > 0) {
      os << "rigid body " << (i - first) / per_body;
      return os.str();
    }
    os << "unknown " << i;
    return os.str();
  };
  for (Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) return owner(i, false) + " (velocity entry " + std::to_string(i) + ")";
  const bool coordinates = q.size() == layout.n_coords && layout.n_coords != layout.n_vels;
  for (Index i = 0; i < q.size(); ++i)
    if (!std::isfinite(q[i])) return owner(i, coordinates) + " (coordinate entry " + std::to_string(i) + ")";
  return "";
}

std::string interaction_label(const Model& model, int i) {
  const Interaction& in = model.interactions[static_cast<size_t>(i)];
  std::string out = std::to_string(i) + " '" + in.name + "'";
  // A detected contact has no name of its own: say what it touches, and where (for ParaView), by the rigid body's
  // index in the store (the scene's order of bodies) and its centre.
  if (in.name != "detected" || in.systems.empty() || in.systems[0].family != SystemFamily::Rigid) return out;
  const Index a = in.systems[0].index;
  std::ostringstream os;
  os.precision(4);
  const Eigen::Vector3d& x = model.bodies.x[a];
  os << " (body " << a << " at (" << x[0] << ", " << x[1] << ", " << x[2] << ") with ";
  if (in.systems.size() == 1) {
    if (const auto* plane = std::get_if<SphereContactRelation>(&in.relation))
      os << "the plane n = (" << plane->plane_normal[0] << ", " << plane->plane_normal[1] << ", "
         << plane->plane_normal[2] << "), offset " << plane->plane_offset;
    else
      os << "the world";
  } else if (in.systems[1].family == SystemFamily::Rigid) {
    os << "body " << in.systems[1].index;
  } else if (in.systems[1].family == SystemFamily::Lti) {
    os << "'" << model.lti[in.systems[1].index].name << "'";
  } else {
    os << "'" << model.nonlinear[in.systems[1].index].name << "'";
  }
  os << ")";
  return out + os.str();
}

std::string interaction_names(const Model& model, const std::vector<int>& interactions) {
  constexpr size_t kListed = 8;
  std::string out;
  for (size_t k = 0; k < interactions.size() && k < kListed; ++k)
    out += (k ? ", " : "") + interaction_label(model, interactions[k]);
  if (interactions.size() > kListed) out += ", … (" + std::to_string(interactions.size()) + " in all)";
  return out.empty() ? "none" : out;
}

}  // namespace talus
