// Scheme selection by name and parameters (see the header).
#include "engine/schemes/SchemeSelection.hpp"

#include <sstream>
#include <stdexcept>

#include "engine/MoreauJean.hpp"
#include "engine/adaptive/AdaptiveIntegrators.hpp"
#include "engine/eventdriven/EventDrivenIntegrator.hpp"
#include "engine/schemes/GranularIntegrator.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"
#include "engine/schemes/SchatzmanPaoli.hpp"

namespace talus {

namespace {

constexpr SchemeKind kKinds[] = {SchemeKind::MoreauJean,         SchemeKind::Newmark,
                                 SchemeKind::Hht,                SchemeKind::GeneralizedAlpha,
                                 SchemeKind::SchatzmanPaoli,     SchemeKind::EventDriven,
                                 SchemeKind::AdaptiveMoreauJean, SchemeKind::EventCapturingRk,
                                 SchemeKind::Granular};

void refuse_keep(const SchemeChoice& c, const char* why) {
  if (c.on_failure == FailurePolicy::Keep)
    throw std::invalid_argument(std::string("make_integrator: ") + to_string(c.kind) +
                                " cannot keep a failed step (FailurePolicy::Keep): " + why);
}

}  // namespace

const char* to_string(SchemeKind k) {
  switch (k) {
    case SchemeKind::MoreauJean: return "moreau_jean";
    case SchemeKind::Newmark: return "newmark";
    case SchemeKind::Hht: return "hht";
    case SchemeKind::GeneralizedAlpha: return "generalized_alpha";
    case SchemeKind::SchatzmanPaoli: return "schatzman_paoli";
    case SchemeKind::EventDriven: return "event_driven";
    case SchemeKind::AdaptiveMoreauJean: return "adaptive_moreau_jean";
    case SchemeKind::EventCapturingRk: return "event_capturing_rk";
    case SchemeKind::Granular: return "granular";
  }
  return "?";
}

SchemeKind parse_scheme_kind(const std::string& name) {
  std::string names;
  for (SchemeKind k : kKinds) {
    if (name == to_string(k)) return k;
    names += (names.empty() ? "" : ", ") + std::string(to_string(k));
  }
  throw std::invalid_argument("unknown scheme '" + name + "' (" + names + ")");
}

std::string describe(const SchemeChoice& c) {
  std::ostringstream s;
  s << to_string(c.kind) << "(";
  switch (c.kind) {
    case SchemeKind::MoreauJean: s << "theta=" << c.theta; break;
    case SchemeKind::Newmark: s << "gamma=" << c.gamma << ",beta=" << c.beta; break;
    case SchemeKind::Hht: s << "alpha=" << c.alpha; break;
    case SchemeKind::GeneralizedAlpha: s << "rho=" << c.rho_infinity; break;
    case SchemeKind::SchatzmanPaoli: s << "theta=" << c.sp_theta; break;
    case SchemeKind::EventDriven: s << "dae=" << c.dae_method << ",tol=" << c.dae_tolerance; break;
    case SchemeKind::AdaptiveMoreauJean:
      s << "theta=" << c.theta << ",atol=" << c.adaptive_atol << ",rtol=" << c.adaptive_rtol;
      break;
    case SchemeKind::EventCapturingRk: s << "theta=" << c.theta; break;
    case SchemeKind::Granular: s << "moreau_jean"; break;
  }
  s << ")";
  return s.str();
}

std::unique_ptr<Integrator> make_integrator(Model& model, const SchemeChoice& c) {
  const std::string name = describe(c);
  switch (c.kind) {
    case SchemeKind::MoreauJean: {
      MoreauJeanParameters p;
      p.h = c.h;
      p.theta = c.theta;
      p.on_failure = c.on_failure;
      return make_scheme_integrator<MoreauJean>(model, p, name);
    }
    case SchemeKind::Newmark: {
      NonsmoothNewmarkParameters p;
      p.h = c.h;
      p.gamma = c.gamma;
      p.beta = c.beta;
      p.on_failure = c.on_failure;
      return make_scheme_integrator<NonsmoothNewmark>(model, p, name);
    }
    case SchemeKind::Hht: {
      NonsmoothNewmarkParameters p = hht_parameters(c.h, c.alpha);
      p.on_failure = c.on_failure;
      return make_scheme_integrator<NonsmoothNewmark>(model, p, name);
    }
    case SchemeKind::GeneralizedAlpha: {
      NonsmoothGeneralizedAlphaParameters p;
      p.h = c.h;
      p.coefficients = generalized_alpha_coefficients(c.rho_infinity);
      p.on_failure = c.on_failure;
      return make_scheme_integrator<NonsmoothGeneralizedAlpha>(model, p, name);
    }
    case SchemeKind::SchatzmanPaoli: {
      SchatzmanPaoliParameters p;
      p.h = c.h;
      p.theta = c.sp_theta;
      p.on_failure = c.on_failure;
      return make_scheme_integrator<SchatzmanPaoli>(model, p, name);
    }
    case SchemeKind::EventDriven: {
      refuse_keep(c, "it stops at the event it cannot handle, inside the step");
      eventdriven::EventDrivenParameters p;
      p.dae.method = eventdriven::parse_dae_method(c.dae_method);
      p.dae.control.tolerance = c.dae_tolerance;
      return std::make_unique<eventdriven::EventDrivenIntegrator>(model, p, c.h, name);
    }
    case SchemeKind::AdaptiveMoreauJean: {
      refuse_keep(c, "it retries a failed try with a smaller step, and fails only below h_min");
      AdaptiveMoreauJeanParameters p;
      p.scheme.h = c.h;
      p.scheme.theta = c.theta;
      p.atol = c.adaptive_atol;
      p.rtol = c.adaptive_rtol;
      return std::make_unique<AdaptiveMoreauJeanIntegrator>(model, p, name);
    }
    case SchemeKind::EventCapturingRk: {
      refuse_keep(c, "it stops at the sub-interval it cannot integrate, inside the step");
      EventCapturingParameters p;
      p.h = c.h;
      p.moreau_jean.theta = c.theta;
      return std::make_unique<EventCapturingIntegrator>(model, p, name);
    }
    case SchemeKind::Granular: {
      granular::GranularParameters p;
      p.h = c.h;
      p.on_failure = c.on_failure;
      return std::make_unique<GranularIntegrator>(model, p, name);
    }
  }
  throw std::invalid_argument("make_integrator: unknown scheme kind");
}

}  // namespace talus
