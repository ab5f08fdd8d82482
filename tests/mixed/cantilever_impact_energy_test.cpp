// A cluster of beads falling onto a flexible cantilever (bead–bead and bead–beam contacts found by the detection
// stage, e = 0, frictionless): the discrete energy balance of the seeds.
//  - Moreau–Jean (seed 000 eq 84): ΔE − W̄ᵉˣᵗ = (½ − θ)[‖Δv‖²_M + ‖Δq‖²_K] + U_{k+θ}ᵀ P_{k+1} holds to round-off at
//    every step, the beam's strain energy ½ qᵀ K q included. With θ = 1 and e = 0 the contact work U_{k+1}ᵀ P is
//    zero by complementarity and ΔE − W̄ᵉˣᵗ <= 0 at every step (eqs 85–86): the impacts on the beam never create
//    energy. With θ = ½ the contact work is ½ U_kᵀ P: eq 86's bound assumes every impulse acts on an
//    approaching contact (U_k <= 0), which a stack breaks — a contact the forecast g + h U_k activates while it
//    separates out of a small overlap (U_k > 0) takes a little positive work. There the run as a whole must
//    dissipate, and the positive steps stay small (bound below).
//  - Generalized-α (seed 000 eqs 81–82 with v⁻ = ṽ): the work ½ (ṽ + v)ᵀ Jᵀ Λ of the velocity jumps is never
//    positive with e = 0 (the jump is the M-projection of ṽ onto the admissible velocities), and over the run
//    E − W̄ᵉˣᵗ does not grow.
// The beam must really be struck: most of the cluster's energy at impact has to leave, and the beam must take
// some of it as vibration.
#include <catch2/catch.hpp>
#include <cmath>

#include "CantileverModels.hpp"
#include "engine/DiscreteEnergy.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

using namespace talus;

namespace {

constexpr double kRadius = 0.005, kDrop = 0.02;

// A steel strip 0.25 m × 2.4 cm × 2 mm (first mode ≈ 26 Hz), its own weight on; eight glass beads in two
// layers of 2 × 2 over its outer third, the lower layer kDrop above the top face.
Model struck_beam(mixedtest::Cantilever& c) {
  c = mixedtest::steel_strip(0.25, 10, 0.024, 0.002);
  std::vector<Eigen::Vector3d> x;
  for (int layer = 0; layer < 2; ++layer)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        x.emplace_back(0.18 + 0.0105 * i + 0.002 * layer, (j ? 1.0 : -1.0) * 0.0055,
                       c.geometry.half_thickness + kRadius + kDrop + 0.0105 * layer);
  return mixedtest::cantilever_with_beads(c, x, kRadius, 2500.0, NewtonImpactLaw{0.0}, -9.81, true);
}

// Energy of the beam alone: ½ vᵀ M v + ½ qᵀ K q.
double beam_energy(const Model& m) {
  const LagrangianLti& b = m.lti[0];
  return 0.5 * b.v.dot(b.M * b.v) + 0.5 * b.q.dot(b.K * b.q);
}

struct Run {
  double worst_identity = 0.0;     // MJ: |ΔE − W − (dissipation + contact)| / max(1e-3, E)
  double most_contact_work = -1e300;  // the largest per-step contact work
  double contact_work = 0.0;       // summed
  double supply_excess = 0.0;      // Σ (ΔE − W̄ext) over the run
  double worst_step_supply = -1e300;  // max over steps of ΔE − W̄ext
  double beam_peak = 0.0;          // the beam's largest energy
  double impact_energy = 0.0;      // ½ Σ m v² of the beads just before the first contact impulse
  int beam_contacts = 0;           // steps with a positive impulse on a bead–beam contact
};

template <class Scheme>
Run run(Model& m, Scheme& scheme, int steps) {
  Run r;
  double E = total_energy(m);
  for (int k = 0; k < steps; ++k) {
    double falling = 0.0;
    for (int i = 0; i < m.bodies.count(); ++i) falling += 0.5 * m.bodies.mass[i] * m.bodies.v[i].squaredNorm();
    const EnergyReport& e = scheme.step().energy;
    const double E1 = e.total();
    const double lhs = E1 - E - e.external_work;
    r.worst_identity = std::max(r.worst_identity, std::abs(lhs - (e.numerical_dissipation + e.contact_work +
                                                                  e.damping_work)) / std::max(1e-3, std::abs(E1)));
    r.most_contact_work = std::max(r.most_contact_work, e.contact_work);
    r.contact_work += e.contact_work;
    r.supply_excess += lhs;
    r.worst_step_supply = std::max(r.worst_step_supply, lhs);
    bool struck = false;
    for (const Interaction& in : m.interactions)
      if (std::holds_alternative<BeamSphereContactRelation>(in.relation) && in.impulse.size() && in.impulse[0] > 0.0)
        struck = true;
    if (struck) {
      ++r.beam_contacts;
      if (r.impact_energy == 0.0) r.impact_energy = falling;
    }
    r.beam_peak = std::max(r.beam_peak, beam_energy(m));
    E = E1;
  }
  return r;
}

void report(const char* what, const Run& r) {
  WARN(what << ": identity residual " << r.worst_identity << ", largest step contact work " << r.most_contact_work
            << " J, contact work " << r.contact_work << " J, Σ(ΔE − W) " << r.supply_excess << " J (largest step "
            << r.worst_step_supply << " J); beads' energy at impact "
            << r.impact_energy << " J, beam's peak energy " << r.beam_peak << " J, " << r.beam_contacts
            << " steps with a bead–beam impulse");
}

}  // namespace

TEST_CASE("beads striking a cantilever: Moreau–Jean's energy balance (eq 84), e = 0 never creates energy",
          "[mixed][beam-contact][energy]") {
  for (double theta : {1.0, 0.5}) {
    mixedtest::Cantilever c;
    Model m = struck_beam(c);
    MoreauJeanParameters p;
    p.h = 5e-4;
    p.theta = theta;
    MoreauJean mj(m, p);
    const Run r = run(m, mj, 400);  // 0.2 s: the fall (64 ms), the impacts, the beam's rebound
    INFO("theta " << theta);
    report(theta == 0.5 ? "Moreau–Jean θ = 1/2" : "Moreau–Jean θ = 1", r);
    CHECK(r.beam_contacts > 10);
    CHECK(r.worst_identity < 1e-11);
    CHECK(r.supply_excess < -0.5 * r.impact_energy);  // E − W̄ext fell by most of the energy brought to the beam
    CHECK(r.beam_peak > 0.05 * r.impact_energy);       // the beam was set vibrating
    if (theta == 1.0) {
      CHECK(r.worst_step_supply <= 1e-15);               // eq 85, at every step
      CHECK(std::abs(r.most_contact_work) <= 1e-15);     // U_{k+1}ᵀ P = 0
    } else {
      CHECK(r.contact_work < -0.5 * r.impact_energy);    // here the impacts' work is the dissipation
      CHECK(r.most_contact_work < 0.01 * r.impact_energy);
    }
  }
}

TEST_CASE("beads striking a cantilever: generalized-α's impulses never do positive work with e = 0",
          "[mixed][beam-contact][energy]") {
  mixedtest::Cantilever c;
  Model m = struck_beam(c);
  NonsmoothGeneralizedAlphaParameters p;
  p.h = 5e-4;
  NonsmoothGeneralizedAlpha ga(m, p);
  const Run r = run(m, ga, 400);
  report("generalized-α ρ∞ = 0.8", r);
  CHECK(r.beam_contacts > 10);
  CHECK(r.most_contact_work <= 1e-12);
  CHECK(r.contact_work < -0.5 * r.impact_energy);
  CHECK(r.supply_excess < -0.5 * r.impact_energy);
  CHECK(r.beam_peak > 0.05 * r.impact_energy);
}
