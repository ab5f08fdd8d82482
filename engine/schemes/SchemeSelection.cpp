// Scheme selection by name and parameters (see the header).
#include "engine/schemes/SchemeSelection.hpp"

#include <sstream>
#include <stdexcept>

#include "engine/MoreauJean.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"
#include "engine/schemes/SchatzmanPaoli.hpp"

namespace talus {

namespace {


}  // namespace

const char* to_string(SchemeKind k) {
  switch (k) {
    case SchemeKind::MoreauJean: return "moreau_jean";
    case SchemeKind::Newmark: return "newmark";
    case SchemeKind::Hht: return "hht";
    case SchemeKind::GeneralizedAlpha: return "generalized_alpha";
    case SchemeKind::SchatzmanPaoli: return "schatzman_paoli";
    case SchemeKind::EventDriven: return "event_driven";
  }
  return "?";
}

SchemeKind parse_scheme_kind(const std::string& name) {
  for (SchemeKind k : {SchemeKind::MoreauJean, SchemeKind::Newmark, SchemeKind::Hht, SchemeKind::GeneralizedAlpha,
                       SchemeKind::SchatzmanPaoli, SchemeKind::EventDriven})
    if (name == to_string(k)) return k;
  throw std::invalid_argument("unknown scheme '" + name +
                              "' (moreau_jean, newmark, hht, generalized_alpha, schatzman_paoli, event_driven)");
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
  }
  s << ")";
  return s.str();
}

Integrator make_integrator(Model& model, const SchemeChoice& c) {
  switch (c.kind) {
    case SchemeKind::MoreauJean: {
      MoreauJeanParameters p;
      p.h = c.h;
      p.theta = c.theta;
      return wrap_scheme<MoreauJean>(model, p);
    }
    case SchemeKind::Newmark: {
      NonsmoothNewmarkParameters p;
      p.h = c.h;
      p.gamma = c.gamma;
      p.beta = c.beta;
      return wrap_scheme<NonsmoothNewmark>(model, p);
    }
    case SchemeKind::Hht: return wrap_scheme<NonsmoothNewmark>(model, hht_parameters(c.h, c.alpha));
    case SchemeKind::GeneralizedAlpha: {
      NonsmoothGeneralizedAlphaParameters p;
      p.h = c.h;
      p.coefficients = generalized_alpha_coefficients(c.rho_infinity);
      return wrap_scheme<NonsmoothGeneralizedAlpha>(model, p);
    }
    case SchemeKind::SchatzmanPaoli: {
      SchatzmanPaoliParameters p;
      p.h = c.h;
      p.theta = c.sp_theta;
      return wrap_scheme<SchatzmanPaoli>(model, p);
    }
    case SchemeKind::EventDriven:
      throw std::invalid_argument(
          "make_integrator: event_driven is not a time-stepping scheme (apps/SceneRun runs "
          "talus::eventdriven::EventDriven on the output grid)");
  }
  throw std::invalid_argument("make_integrator: unknown scheme kind");
}

}  // namespace talus
