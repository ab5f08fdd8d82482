#pragma once
// Exact solution of the impacting elastic bar of seed 004 (Chen, Acary, Virlez, Brüls; g = 0): a free bar of
// length L, density ρ, Young modulus E, section A, moving rigidly at −v₀ towards a rigid ground, its lower end
// at height h₀ at t = 0. Derivation (wave propagation, c = sqrt(E/ρ); details in docs/schemes.md):
//  - t < t_c = h₀/v₀: rigid flight.
//  - At t_c the lower end stops; a compression wave of strain −v₀/c (stress σ = −ρ c v₀) travels up, leaving
//    the material behind it at rest. It reflects at the free top end at t_c + L/c as an unloading wave behind
//    which the stress is 0 and the velocity +v₀. That wave reaches the ground at t_c + 2L/c: the whole bar moves
//    at +v₀ unstressed, the contact force would have to pull, so the bar lifts off.
//  - Hence the contact lasts exactly 2L/c with the constant pressure ρ c v₀, the lower end rests on the ground
//    during it, and after it the bar flies off rigidly at +v₀: the energy ½ ρ A L v₀² is conserved although
//    the contact is perfectly plastic (e = 0) at the lower end.
namespace talus {

struct ElasticBarImpact {
  double young = 900.0, density = 1.0, area = 1.0, length = 10.0;
  double height = 5.0;    // h₀: initial height of the lower end
  double velocity = 10.0; // v₀: initial downward speed
};

class ElasticBarImpactSolution {
 public:
  explicit ElasticBarImpactSolution(const ElasticBarImpact& p);

  double wave_speed() const { return c_; }
  double contact_start() const { return t_contact_; }
  double contact_end() const { return t_contact_ + 2.0 * p_.length / c_; }

  double bottom_position(double t) const;  // height of the lower end
  double bottom_velocity(double t) const;  // right limit
  double contact_pressure(double t) const; // σ at the lower end (compressive positive), ρ c v₀ during contact
  double center_of_mass(double t) const;   // height of the centre of mass
  double energy() const;                   // ½ ρ A L v₀², constant

 private:
  ElasticBarImpact p_;
  double c_;
  double t_contact_;
};

}  // namespace talus
