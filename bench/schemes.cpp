// The second-order schemes bench (issue 5): every time-stepping scheme side by side on the problems of seeds 000
// and 004, each measured against an exact solution or an invariant:
//  1. order table: L1 grid error (seed 000 eq 48) and least-squares order (eq 50) on the bouncing ball, the
//     impacting linear oscillator and the oscillator's free flight before its first impact;
//  2. two-ball oscillator (seed 000 slides 66–68, h = 2e−3, elastic impacts): mechanical energy of Moreau θ = 1,
//     Newmark γ = 1, β = ½, HHT α = 0.1, generalized-α and Schatzman–Paoli;
//  3. impacting elastic bar (seed 004: E = 900 Pa, ρ = 1, L = 10 m, h₀ = 5 m, v₀ = 10 m/s, e = 0, 200 elements,
//     h = 2e−3; ρ∞ = 0.6, θ = 1, Newmark γ = 1, β = 0.5625): errors against the wave solution
//     (engine/schemes/ElasticBarImpactSolution.hpp);
//  4. bouncing rigid pendulum (seed 004: e = 0.8, h = 2e−3, Moreau θ = 1/1.8, generalized-α ρ∞ = 0.8): drift
//     of the bilateral constraints at position and velocity level;
//  5. flexible rotating beam striking a stop (seed 000 fig. 10; examples/rotating_beam.yaml, e = 0, h = 2e−4):
//     energy before the impact (the free rotation conserves it), penetration, impulse, rebound.
// Prints the tables; --json FILE writes them; --figures DIR writes CSV time series there and runs
// scripts/plot_schemes.py to draw the PNG figures. docs/schemes.md explains every number.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/JsonOutput.hpp"
#include "apps/PythonInterpreter.hpp"
#include "engine/AnalyticSolutions.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/schemes/ElasticBarImpactSolution.hpp"
#include "engine/schemes/SchemeBenchmarkModels.hpp"
#include "engine/schemes/SchemeSelection.hpp"

using namespace talus;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A number for messages (the JSON file keeps full precision through nlohmann-json).
std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", x);
  return b;
}

SchemeChoice moreau(double theta) {
  SchemeChoice c;
  c.kind = SchemeKind::MoreauJean;
  c.theta = theta;
  return c;
}
SchemeChoice newmark(double gamma, double beta) {
  SchemeChoice c;
  c.kind = SchemeKind::Newmark;
  c.gamma = gamma;
  c.beta = beta;
  return c;
}
SchemeChoice hht(double alpha) {
  SchemeChoice c;
  c.kind = SchemeKind::Hht;
  c.alpha = alpha;
  return c;
}
SchemeChoice generalized_alpha(double rho) {
  SchemeChoice c;
  c.kind = SchemeKind::GeneralizedAlpha;
  c.rho_infinity = rho;
  return c;
}
SchemeChoice schatzman_paoli(double theta) {
  SchemeChoice c;
  c.kind = SchemeKind::SchatzmanPaoli;
  c.sp_theta = theta;
  return c;
}

double order_or_nan(const std::vector<double>& h, const std::vector<double>& e) {
  try {
    return fitted_order(h, e);
  } catch (const std::invalid_argument&) {
    return kNaN;
  }
}

// ------------------------------------------------------------------------------------------- 1. order table
struct OrderRecord {
  std::string problem, scheme;
  std::vector<double> h, error_q, error_v;
  double order_q = kNaN, order_v = kNaN;
  std::string failure;
};

GridTrajectory run_grid(Model& model, SchemeChoice c, double h, double horizon) {
  c.h = h;
  const long steps = std::lround(horizon / h);
  GridTrajectory g;
  g.h = h;
  g.q.push_back(model.lti[0].q[0]);
  g.v.push_back(model.lti[0].v[0]);
  const std::unique_ptr<Integrator> integrator = make_integrator(model, c);
  for (long i = 0; i < steps; ++i) {
    integrator->step(model);
    g.q.push_back(model.lti[0].q[0]);
    g.v.push_back(model.lti[0].v[0]);
  }
  return g;
}

std::vector<OrderRecord> order_table(const std::vector<SchemeChoice>& schemes, const std::vector<double>& steps) {
  struct Problem {
    std::string name;
    double horizon;
    std::function<Model()> build;
    std::function<GridError(const GridTrajectory&)> error;
  };
  auto ball = std::make_shared<BouncingBallSolution>();
  const LinearOscillatorParameters lp;
  auto oscillator = std::make_shared<LinearOscillatorSolution>(lp, 3.0);
  auto flight = std::make_shared<LinearOscillatorSolution>(lp, 0.25);
  const std::vector<Problem> problems = {
      {"bouncing_ball", 4.0, [] { return make_bouncing_ball(); },
       [ball](const GridTrajectory& g) { return l1_grid_error(g, *ball); }},
      {"linear_oscillator", 3.0, [lp] { return make_linear_oscillator(lp); },
       [oscillator](const GridTrajectory& g) { return l1_grid_error(g, *oscillator); }},
      {"free_flight", 0.25, [lp] { return make_linear_oscillator(lp); },
       [flight](const GridTrajectory& g) { return l1_grid_error(g, *flight); }},
  };
  std::vector<OrderRecord> out;
  for (const Problem& p : problems)
    for (const SchemeChoice& s : schemes) {
      OrderRecord r;
      r.problem = p.name;
      r.scheme = describe(s);
      for (double h : steps) {
        try {
          Model model = p.build();
          const GridError e = p.error(run_grid(model, s, h, p.horizon));
          r.h.push_back(h);
          r.error_q.push_back(e.q);
          r.error_v.push_back(e.v);
        } catch (const std::exception& ex) {
          r.failure = "h = " + num(h) + ": " + ex.what();
          break;
        }
      }
      r.order_q = order_or_nan(r.h, r.error_q);
      r.order_v = order_or_nan(r.h, r.error_v);
      out.push_back(r);
    }
  return out;
}

void print_order_table(const std::vector<OrderRecord>& records, const std::vector<SchemeChoice>& schemes) {
  std::printf("\n1. Empirical order (L1 grid error, seed 000 eqs 48-50): order_q / order_v, finest error on q\n");
  std::printf("  %-34s", "scheme");
  for (const char* p : {"bouncing_ball", "linear_oscillator", "free_flight"}) std::printf("  %-30s", p);
  std::printf("\n");
  for (const SchemeChoice& s : schemes) {
    std::printf("  %-34s", describe(s).c_str());
    for (const char* p : {"bouncing_ball", "linear_oscillator", "free_flight"})
      for (const OrderRecord& r : records)
        if (r.problem == p && r.scheme == describe(s)) {
          char cell[64];
          if (!r.failure.empty())
            std::snprintf(cell, sizeof cell, "FAILED");
          else
            std::snprintf(cell, sizeof cell, "%5.2f / %5.2f  (%.2e)", r.order_q, r.order_v,
                          r.error_q.empty() ? kNaN : r.error_q.back());
          std::printf("  %-30s", cell);
        }
    std::printf("\n");
  }
  for (const OrderRecord& r : records)
    if (!r.failure.empty()) std::printf("  FAILED %s %s: %s\n", r.problem.c_str(), r.scheme.c_str(), r.failure.c_str());
}

// ----------------------------------------------------------------------------------------- time series (CSV)
struct Series {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  void write(const std::filesystem::path& path) const {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path.string());
    for (size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << '"' << columns[i] << '"';  // names hold commas
    out << "\n";
    char b[32];
    for (const auto& r : rows) {
      for (size_t i = 0; i < r.size(); ++i) {
        std::snprintf(b, sizeof b, "%.9g", r[i]);
        out << (i ? "," : "") << b;
      }
      out << "\n";
    }
  }
};

// ------------------------------------------------------------------------------------- 2. two-ball energy
struct EnergyRecord {
  std::string scheme;
  double e0 = kNaN, e_after_first_impact = kNaN, e_final = kNaN;
  double vibration_final = kNaN;  // ½ μ (ẏ₂ − ẏ₁)² + ½ k (y₂ − y₁ − ℓ)²: the energy of the relative mode
  std::string failure;
};

// Elastic impacts (e = 1): the exact motion conserves the mechanical energy, so every loss is the scheme's.
std::vector<EnergyRecord> two_ball_energy_table(const std::vector<SchemeChoice>& schemes, double h, double horizon,
                                                Series& series) {
  TwoBallOscillatorParameters p;
  p.restitution = 1.0;
  std::vector<EnergyRecord> out;
  const long steps = std::lround(horizon / h);
  series.columns = {"t"};
  for (const SchemeChoice& s : schemes) series.columns.push_back(describe(s));
  series.rows.assign(steps + 1, std::vector<double>(schemes.size() + 1, kNaN));
  for (long i = 0; i <= steps; ++i) series.rows[i][0] = i * h;
  for (size_t k = 0; k < schemes.size(); ++k) {
    SchemeChoice c = schemes[k];
    c.h = h;
    EnergyRecord r;
    r.scheme = describe(c);
    Model model = make_two_ball_oscillator(p);
    r.e0 = two_ball_energy(model, p);
    series.rows[0][k + 1] = r.e0;
    try {
      const std::unique_ptr<Integrator> integrator = make_integrator(model, c);
      bool impacted = false;
      for (long i = 1; i <= steps; ++i) {
        integrator->step(model);
        const double e = two_ball_energy(model, p);
        series.rows[i][k + 1] = e;
        // "after the first impact": the first step after the lower ball has left the ground again.
        if (model.interactions[0].impulse[0] > 0.0) impacted = true;
        else if (impacted && std::isnan(r.e_after_first_impact)) r.e_after_first_impact = e;
      }
      r.e_final = two_ball_energy(model, p);
      const LagrangianLti& s = model.lti[0];
      const double mu = p.mass_lower * p.mass_upper / (p.mass_lower + p.mass_upper);
      const double dv = s.v[1] - s.v[0], stretch = s.q[1] - s.q[0] - p.rest_length;
      r.vibration_final = 0.5 * mu * dv * dv + 0.5 * p.stiffness * stretch * stretch;
    } catch (const std::exception& ex) {
      r.failure = ex.what();
    }
    out.push_back(r);
  }
  return out;
}

void print_energy_table(const std::vector<EnergyRecord>& records, double h, double horizon) {
  std::printf("\n2. Two-ball oscillator with elastic impacts (h = %g, %g s, e = 1, exact energy constant): mechanical "
              "energy [J]\n", h, horizon);
  std::printf("  %-34s  %10s  %16s  %10s  %16s\n", "scheme", "E(0)", "E after impact", "E(end)", "vibration(end)");
  for (const EnergyRecord& r : records) {
    if (!r.failure.empty()) {
      std::printf("  %-34s  FAILED: %s\n", r.scheme.c_str(), r.failure.c_str());
      continue;
    }
    std::printf("  %-34s  %10.4f  %16.4f  %10.4f  %16.4e\n", r.scheme.c_str(), r.e0, r.e_after_first_impact, r.e_final,
                r.vibration_final);
  }
}

// --------------------------------------------------------------------------------------- 3. elastic bar
struct BarRecord {
  std::string scheme;
  double contact_start = kNaN, contact_end = kNaN;
  double l1_position = kNaN;   // ∫|x_b − x_b,exact| dt
  double l1_pressure = kNaN;   // ∫|p − p_exact| dt, p = Λ/(h A)
  double impulse_error = kNaN; // (Σ Λ − 2 m v₀) / (2 m v₀)
  double rebound_velocity = kNaN;  // centre-of-mass velocity at the end
  double energy_ratio = kNaN;      // E(end) / E(0)
  double penetration = kNaN;       // most negative bottom position
  std::string failure;
};

std::vector<BarRecord> bar_table(const std::vector<SchemeChoice>& schemes, double h, double horizon, Series& position,
                                 Series& pressure, Series& energy) {
  const ImpactingBarParameters bp;
  const ElasticBarImpactSolution exact({bp.bar.young, bp.bar.density, bp.bar.area, bp.bar.length, bp.height, bp.velocity});
  const long steps = std::lround(horizon / h);
  for (Series* s : {&position, &pressure, &energy}) {
    s->columns = {"t", "exact"};
    for (const SchemeChoice& c : schemes) s->columns.push_back(describe(c));
    s->rows.assign(steps + 1, std::vector<double>(schemes.size() + 2, kNaN));
  }
  const double e_exact = exact.energy();
  for (long i = 0; i <= steps; ++i) {
    const double t = i * h;
    position.rows[i][0] = pressure.rows[i][0] = energy.rows[i][0] = t;
    position.rows[i][1] = exact.bottom_position(t);
    // The step (t_{i−1}, t_i] carries the mean pressure over it: compare with the exact mean.
    pressure.rows[i][1] = i == 0 ? 0.0 : exact.contact_pressure(t - 0.5 * h);
    energy.rows[i][1] = e_exact;
  }
  std::vector<BarRecord> out;
  for (size_t k = 0; k < schemes.size(); ++k) {
    SchemeChoice c = schemes[k];
    c.h = h;
    BarRecord r;
    r.scheme = describe(c);
    Model model = make_impacting_bar(bp);
    const LagrangianLti& bar = model.lti[0];
    const Vector mass_row = Matrix(bar.M).colwise().sum().transpose();
    const double mass = mass_row.sum();
    auto bar_energy = [&] { return 0.5 * bar.v.dot(bar.M * bar.v) + 0.5 * bar.q.dot(bar.K * bar.q); };
    const size_t col = k + 2;
    position.rows[0][col] = bp.height + bar.q[0];
    pressure.rows[0][col] = 0.0;
    energy.rows[0][col] = bar_energy();
    try {
      const std::unique_ptr<Integrator> integrator = make_integrator(model, c);
      double impulse = 0.0, l1x = 0.0, l1p = 0.0, lowest = bp.height;
      for (long i = 1; i <= steps; ++i) {
        integrator->step(model);
        const double t = i * h, P = model.interactions[0].impulse[0];
        const double xb = bp.height + bar.q[0], p_num = P / (h * bp.bar.area);
        if (P > 0.0) {
          if (std::isnan(r.contact_start)) r.contact_start = t;
          r.contact_end = t;
        }
        impulse += P;
        l1x += h * std::abs(xb - exact.bottom_position(t));
        l1p += h * std::abs(p_num - pressure.rows[i][1]);
        lowest = std::min(lowest, xb);
        position.rows[i][col] = xb;
        pressure.rows[i][col] = p_num;
        energy.rows[i][col] = bar_energy();
      }
      r.l1_position = l1x;
      r.l1_pressure = l1p;
      r.impulse_error = (impulse - 2.0 * mass * bp.velocity) / (2.0 * mass * bp.velocity);
      r.rebound_velocity = mass_row.dot(bar.v) / mass;
      r.energy_ratio = bar_energy() / e_exact;
      r.penetration = std::min(0.0, lowest);
    } catch (const std::exception& ex) {
      r.failure = ex.what();
    }
    out.push_back(r);
  }
  return out;
}

void print_bar_table(const std::vector<BarRecord>& records, double h, double t_start, double t_end) {
  std::printf("\n3. Impacting elastic bar (seed 004, 200 elements, h = %g): exact contact [%.4f, %.4f] s at %.1f Pa, "
              "rebound +10 m/s, energy conserved\n",
              h, t_start, t_end, 300.0);
  std::printf("  %-34s  %8s  %8s  %10s  %10s  %10s  %9s  %8s  %10s\n", "scheme", "t_on", "t_off", "L1 x_b", "L1 p",
              "impulse", "v_rebound", "E/E0", "min x_b");
  for (const BarRecord& r : records) {
    if (!r.failure.empty()) {
      std::printf("  %-34s  FAILED: %s\n", r.scheme.c_str(), r.failure.c_str());
      continue;
    }
    std::printf("  %-34s  %8.4f  %8.4f  %10.3e  %10.3e  %+10.2e  %9.4f  %8.4f  %10.2e\n", r.scheme.c_str(),
                r.contact_start, r.contact_end, r.l1_position, r.l1_pressure, r.impulse_error, r.rebound_velocity,
                r.energy_ratio, r.penetration);
  }
}

// ----------------------------------------------------------------------------------------- 4. pendulum
struct DriftRecord {
  std::string scheme;
  double drift_position = kNaN, drift_velocity = kNaN, min_gap = kNaN, final_angle = kNaN;
  int impacts = 0;
  std::string failure;
};

std::vector<DriftRecord> pendulum_table(const std::vector<SchemeChoice>& schemes, double h, double horizon,
                                        Series& drift) {
  const BouncingPendulumParameters pp;
  const long steps = std::lround(horizon / h);
  drift.columns = {"t"};
  for (const SchemeChoice& c : schemes) {
    drift.columns.push_back(describe(c) + " |g|");
    drift.columns.push_back(describe(c) + " |dg/dt|");
  }
  drift.rows.assign(steps + 1, std::vector<double>(2 * schemes.size() + 1, kNaN));
  for (long i = 0; i <= steps; ++i) drift.rows[i][0] = i * h;
  std::vector<DriftRecord> out;
  for (size_t k = 0; k < schemes.size(); ++k) {
    SchemeChoice c = schemes[k];
    c.h = h;
    DriftRecord r;
    r.scheme = describe(c);
    Model model = make_bouncing_pendulum(pp);
    drift.rows[0][2 * k + 1] = drift.rows[0][2 * k + 2] = 0.0;
    try {
      const std::unique_ptr<Integrator> integrator = make_integrator(model, c);
      double dq = 0.0, dv = 0.0, gmin = 1.0;
      for (long i = 1; i <= steps; ++i) {
        const double xdot = model.lti[0].v[0];
        integrator->step(model);
        // Evaluated from the state, independently of what each scheme stores in the interactions.
        const Vector& q = model.lti[0].q;
        const Vector& v = model.lti[0].v;
        const double l = pp.length, s = std::sin(q[2]), co = std::cos(q[2]);
        const double g = std::max(std::abs(q[0] - l * co), std::abs(q[1] - l * s));
        const double gd = std::max(std::abs(v[0] + l * s * v[2]), std::abs(v[1] - l * co * v[2]));
        dq = std::max(dq, g);
        dv = std::max(dv, gd);
        gmin = std::min(gmin, q[0] - pp.stop);
        if (model.interactions[1].impulse.size() && model.interactions[1].impulse[0] > 0.0 && xdot < -0.05) ++r.impacts;
        drift.rows[i][2 * k + 1] = g;
        drift.rows[i][2 * k + 2] = gd;
      }
      r.drift_position = dq;
      r.drift_velocity = dv;
      r.min_gap = gmin;
      r.final_angle = model.lti[0].q[2];
    } catch (const std::exception& ex) {
      r.failure = ex.what();
    }
    out.push_back(r);
  }
  return out;
}

void print_pendulum_table(const std::vector<DriftRecord>& records, double h, double horizon) {
  std::printf("\n4. Bouncing rigid pendulum (seed 004, e = 0.8, h = %g, %g s): drift of x = l cos θ, y = l sin θ\n", h,
              horizon);
  std::printf("  %-34s  %12s  %12s  %12s  %8s  %12s\n", "scheme", "max |g|", "max |dg/dt|", "min x - x0", "impacts",
              "theta(end)");
  for (const DriftRecord& r : records) {
    if (!r.failure.empty()) {
      std::printf("  %-34s  FAILED: %s\n", r.scheme.c_str(), r.failure.c_str());
      continue;
    }
    std::printf("  %-34s  %12.3e  %12.3e  %12.3e  %8d  %12.6f\n", r.scheme.c_str(), r.drift_position, r.drift_velocity,
                r.min_gap, r.impacts, r.final_angle);
  }
}

// ------------------------------------------------------------------------------------ 5. rotating beam
struct BeamRecord {
  std::string scheme;
  double impact_time = kNaN;     // first step with a positive impulse
  double free_energy_drift = kNaN;  // max |E/E₀ − 1| before the impact (a free rotation conserves E)
  double min_gap = kNaN;         // most negative tip gap
  double impulse = kNaN;         // Σ Λ on the stop
  double contact_work = kNaN;    // Σ contact work (≤ 0 for e = 0)
  double energy_ratio = kNaN;    // E(end)/E₀
  double momentum_ratio = kNaN;  // angular momentum about the hinge at the end / at the start (< 0: thrown back)
  double newton = kNaN;          // mean Newton iterations per step
  std::string failure;
};

std::vector<BeamRecord> rotating_beam_table(const std::vector<SchemeChoice>& schemes, double h, double horizon,
                                            Series& energy, Series& tip) {
  const RotatingBeamParameters bp;
  const long steps = std::lround(horizon / h);
  energy.columns = tip.columns = {"t"};
  for (const SchemeChoice& c : schemes) energy.columns.push_back(describe(c)), tip.columns.push_back(describe(c));
  energy.rows.assign(steps + 1, std::vector<double>(schemes.size() + 1, kNaN));
  tip.rows = energy.rows;
  for (long i = 0; i <= steps; ++i) energy.rows[i][0] = tip.rows[i][0] = i * h;
  std::vector<BeamRecord> out;
  for (size_t k = 0; k < schemes.size(); ++k) {
    SchemeChoice c = schemes[k];
    c.h = h;
    BeamRecord r;
    r.scheme = describe(c);
    Model model = make_rotating_beam(bp);
    const LagrangianNonlinear& s = model.nonlinear[0];
    const auto mechanical_energy = [&] {
      return 0.5 * s.v.dot(corotational_lumped_mass(bp.beam).cwiseProduct(s.v)) + s.potential(s.q);
    };
    const auto tip_angle = [&] {
      const Eigen::Vector2d p = corotational_node_position(bp.beam, s.q, bp.beam.elements) - bp.beam.hinge;
      return std::atan2(p.y(), p.x());
    };
    const double e0 = mechanical_energy(), l0 = corotational_angular_momentum(bp.beam, s.q, s.v);
    energy.rows[0][k + 1] = e0;
    tip.rows[0][k + 1] = tip_angle();
    try {
      const std::unique_ptr<Integrator> integrator = make_integrator(model, c);
      double drift = 0.0, gmin = 0.0, impulse = 0.0, work = 0.0, newton = 0.0;
      for (long i = 1; i <= steps; ++i) {
        const StepReport& rep = integrator->step(model);
        const double e = mechanical_energy();
        const double lambda = model.interactions[0].impulse.size() ? model.interactions[0].impulse[0] : 0.0;
        if (lambda > 0.0 && std::isnan(r.impact_time)) r.impact_time = i * h;
        if (std::isnan(r.impact_time)) drift = std::max(drift, std::abs(e / e0 - 1.0));
        const Eigen::Vector2d p = corotational_node_position(bp.beam, s.q, bp.beam.elements) - bp.beam.hinge;
        gmin = std::min(gmin, p.norm() * std::sin(bp.stop_angle - std::atan2(p.y(), p.x())));
        impulse += lambda;
        work += rep.energy.contact_work;
        newton += rep.newton_iterations;
        energy.rows[i][k + 1] = e;
        tip.rows[i][k + 1] = tip_angle();
      }
      r.free_energy_drift = drift;
      r.min_gap = gmin;
      r.impulse = impulse;
      r.contact_work = work;
      r.energy_ratio = mechanical_energy() / e0;
      r.momentum_ratio = corotational_angular_momentum(bp.beam, s.q, s.v) / l0;
      r.newton = newton / steps;
    } catch (const std::exception& ex) {
      r.failure = ex.what();
    }
    out.push_back(r);
  }
  return out;
}

void print_rotating_beam_table(const std::vector<BeamRecord>& records, double h, double horizon) {
  const RotatingBeamParameters bp;
  std::printf("\n5. Flexible rotating beam striking a stop (seed 000 fig. 10; co-rotational, %d elements, omega0 = %g "
              "rad/s, stop at %g rad, e = %g, h = %g, %g s)\n", bp.beam.elements, bp.beam.angular_velocity,
              bp.stop_angle, bp.restitution, h, horizon);
  std::printf("  %-34s  %9s  %12s  %11s  %9s  %11s  %9s  %11s  %7s\n", "scheme", "t_impact", "|E/E0-1| pre",
              "min tip gap", "impulse", "contact W", "E(end)/E0", "L(end)/L0", "Newton");
  for (const BeamRecord& r : records) {
    if (!r.failure.empty()) {
      std::printf("  %-34s  FAILED: %s\n", r.scheme.c_str(), r.failure.c_str());
      continue;
    }
    std::printf("  %-34s  %9.4f  %12.2e  %11.2e  %9.4f  %11.2e  %9.4f  %11.4f  %7.2f\n", r.scheme.c_str(), r.impact_time,
                r.free_energy_drift, r.min_gap, r.impulse, r.contact_work, r.energy_ratio, r.momentum_ratio, r.newton);
  }
}

// ----------------------------------------------------------------------------------------------- JSON output
// One object per table, plus how it was made (command, version) and the units; NaN is written as null and a
// record's "failure" only appears when it failed.
void write_json(const std::string& path, const std::vector<OrderRecord>& orders, const std::vector<EnergyRecord>& energy,
                const std::vector<BarRecord>& bar, const std::vector<DriftRecord>& drift,
                const std::vector<BeamRecord>& beam, int argc, char** argv) {
  using nlohmann::ordered_json;
  const auto rows = [](const auto& records, auto fill) {
    ordered_json list = ordered_json::array();
    for (const auto& r : records) {
      ordered_json j = fill(r);
      if (!r.failure.empty()) j["failure"] = r.failure;
      list.push_back(std::move(j));
    }
    return list;
  };
  ordered_json doc;
  doc["command"] = talus::app::command_record(argc, argv);
  doc["units"] = {{"h", "s"},
                  {"error_q", "L1 grid error of q (seed 000 eq 48)"},
                  {"error_v", "L1 grid error of v"},
                  {"E0", "J"},
                  {"contact_start", "s"},
                  {"contact_end", "s"},
                  {"impact_time", "s"},
                  {"min_bottom_position", "m"},
                  {"min_stop_gap", "m"},
                  {"min_tip_gap", "m"},
                  {"impulse", "N s"},
                  {"contact_work", "J"},
                  {"final_angle", "rad"},
                  {"energy_ratio", "1"},
                  {"newton_per_step", "Newton iterations per step"}};
  doc["order"] = rows(orders, [](const OrderRecord& r) {
    return ordered_json{{"problem", r.problem}, {"scheme", r.scheme},   {"h", r.h},
                        {"error_q", r.error_q}, {"error_v", r.error_v}, {"order_q", r.order_q},
                        {"order_v", r.order_v}};
  });
  doc["two_ball_energy"] = rows(energy, [](const EnergyRecord& r) {
    return ordered_json{{"scheme", r.scheme},
                        {"E0", r.e0},
                        {"E_after_first_impact", r.e_after_first_impact},
                        {"E_end", r.e_final},
                        {"vibration_end", r.vibration_final}};
  });
  doc["elastic_bar"] = rows(bar, [](const BarRecord& r) {
    return ordered_json{{"scheme", r.scheme},
                        {"contact_start", r.contact_start},
                        {"contact_end", r.contact_end},
                        {"l1_bottom_position", r.l1_position},
                        {"l1_pressure", r.l1_pressure},
                        {"impulse_error", r.impulse_error},
                        {"rebound_velocity", r.rebound_velocity},
                        {"energy_ratio", r.energy_ratio},
                        {"min_bottom_position", r.penetration}};
  });
  doc["pendulum_drift"] = rows(drift, [](const DriftRecord& r) {
    return ordered_json{{"scheme", r.scheme},
                        {"max_position_drift", r.drift_position},
                        {"max_velocity_drift", r.drift_velocity},
                        {"min_stop_gap", r.min_gap},
                        {"impacts", r.impacts},
                        {"final_angle", r.final_angle}};
  });
  doc["rotating_beam"] = rows(beam, [](const BeamRecord& r) {
    return ordered_json{{"scheme", r.scheme},
                        {"impact_time", r.impact_time},
                        {"energy_drift_before_impact", r.free_energy_drift},
                        {"min_tip_gap", r.min_gap},
                        {"impulse", r.impulse},
                        {"contact_work", r.contact_work},
                        {"energy_ratio", r.energy_ratio},
                        {"angular_momentum_ratio", r.momentum_ratio},
                        {"newton_per_step", r.newton}};
  });
  talus::app::write_json_file(path, doc);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Second-order nonsmooth schemes side by side (issue 5): order table, two-ball energy, impacting elastic bar "
      "vs its exact solution, bouncing pendulum drift, rotating flexible beam striking a stop"};
  std::vector<double> steps = {1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4};
  std::string json_path, figures_dir, plot_script = "scripts/plot_schemes.py", python = talus::app::python_interpreter();
  bool quick = false;
  app.add_option("--h", steps, "time steps of the order table [s]")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--json", json_path, "write every table to this JSON file");
  app.add_option("--figures", figures_dir, "write CSV time series to this folder and draw the PNG figures there");
  app.add_option("--plot-script", plot_script, "the plotting script run with --figures")->capture_default_str();
  app.add_option("--python", python, "Python interpreter with matplotlib for --figures")->capture_default_str();
  app.add_flag("--quick", quick, "order table on the three coarsest steps only");
  CLI11_PARSE(app, argc, argv);
  if (quick && steps.size() > 3) steps.resize(3);

  try {
    const std::vector<SchemeChoice> order_schemes = {moreau(0.5),       moreau(1.0),    schatzman_paoli(0.25),
                                                     newmark(0.5, 0.25), newmark(1.0, 0.5), hht(0.1),
                                                     generalized_alpha(0.8), generalized_alpha(0.5)};
    const std::vector<OrderRecord> orders = order_table(order_schemes, steps);
    print_order_table(orders, order_schemes);
    std::fflush(stdout);

    Series energy_series, bar_position, bar_pressure, bar_energy, drift_series;
    const std::vector<SchemeChoice> energy_schemes = {moreau(1.0), newmark(1.0, 0.5), hht(0.1), generalized_alpha(0.8),
                                                      schatzman_paoli(0.25)};
    const std::vector<EnergyRecord> energy = two_ball_energy_table(energy_schemes, 2e-3, 3.0, energy_series);
    print_energy_table(energy, 2e-3, 3.0);
    std::fflush(stdout);

    const std::vector<SchemeChoice> bar_schemes = {moreau(1.0), newmark(1.0, 0.5625), hht(0.1), generalized_alpha(0.6),
                                                   schatzman_paoli(0.25)};
    const std::vector<BarRecord> bar = bar_table(bar_schemes, 2e-3, 1.5, bar_position, bar_pressure, bar_energy);
    const ImpactingBarParameters bp;
    const ElasticBarImpactSolution exact({bp.bar.young, bp.bar.density, bp.bar.area, bp.bar.length, bp.height, bp.velocity});
    print_bar_table(bar, 2e-3, exact.contact_start(), exact.contact_end());
    std::fflush(stdout);

    const std::vector<SchemeChoice> drift_schemes = {moreau(1.0 / 1.8), generalized_alpha(0.8), newmark(0.5, 0.25),
                                                     hht(0.1), schatzman_paoli(0.25)};
    const std::vector<DriftRecord> drift = pendulum_table(drift_schemes, 2e-3, 5.0, drift_series);
    print_pendulum_table(drift, 2e-3, 5.0);
    std::fflush(stdout);

    Series beam_energy, beam_tip;
    const std::vector<SchemeChoice> beam_schemes = {moreau(0.5), moreau(1.0), newmark(0.5, 0.25), hht(0.1),
                                                    generalized_alpha(0.8), schatzman_paoli(0.25)};
    const std::vector<BeamRecord> beam = rotating_beam_table(beam_schemes, 2e-4, 1.5, beam_energy, beam_tip);
    print_rotating_beam_table(beam, 2e-4, 1.5);
    std::fflush(stdout);

    if (!json_path.empty()) {
      write_json(json_path, orders, energy, bar, drift, beam, argc, argv);
      std::printf("\nwrote %s\n", json_path.c_str());
    }
    if (!figures_dir.empty()) {
      const std::filesystem::path dir(figures_dir);
      std::filesystem::create_directories(dir);
      energy_series.write(dir / "two_ball_energy.csv");
      bar_position.write(dir / "bar_position.csv");
      bar_pressure.write(dir / "bar_pressure.csv");
      bar_energy.write(dir / "bar_energy.csv");
      drift_series.write(dir / "pendulum_drift.csv");
      beam_energy.write(dir / "rotating_beam_energy.csv");
      beam_tip.write(dir / "rotating_beam_tip.csv");
      const std::string command = "\"" + python + "\" \"" + plot_script + "\" \"" + dir.string() + "\"";
      if (std::system(command.c_str()) != 0) throw std::runtime_error("plotting failed: " + command);
      std::printf("wrote CSV and PNG figures to %s\n", dir.string().c_str());
    }
    for (const auto& r : orders)
      if (!r.failure.empty()) return 1;
    for (const auto& r : energy)
      if (!r.failure.empty()) return 1;
    for (const auto& r : bar)
      if (!r.failure.empty()) return 1;
    for (const auto& r : drift)
      if (!r.failure.empty()) return 1;
    for (const auto& r : beam)
      if (!r.failure.empty()) return 1;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "schemes: %s\n", ex.what());
    return 1;
  }
  return 0;
}
