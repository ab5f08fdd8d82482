#pragma once
// Contact laws per pair of materials (issue 11 item 1; issue 14 builds on it): the model names its materials
// and keeps one Coulomb–Newton law (μ, e) per unordered pair of them; every body carries a material id
// (RigidBodies::material, one byte per body, because the granular path is counted in bytes per bead) and so
// does every obstacle (Model::wall_material, box_material, drum_material). The detection stages look a
// contact's law up once, in the narrow phase, and hand the sweeps a contact that already holds its μ and its
// Newton target: nothing here is read inside a sweep.
//
// A fresh table holds the two materials every scene had before materials existed, "bead" (id 0, the default
// of every body) and "wall" (id 1, the default of every obstacle), with the laws of the former scalars
// (μ = 0.3 for both pairs, e = 0), so a scene that names no material behaves bitwise as before.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace talus {

using MaterialId = std::uint8_t;
constexpr MaterialId kBeadMaterial = 0, kWallMaterial = 1;
constexpr int kMaxMaterials = 256;  // ids are one byte

// Coulomb's friction coefficient and Newton's restitution coefficient of a pair of surfaces, and their rolling
// resistance: the rolling torque is bounded by rolling R* r_N (solvers/matrixfree/RollingResistance.hpp; bead
// contacts of the granular path). 0, the default, leaves spheres free to roll, as before the law existed.
struct ContactLaw {
  double mu = 0.3;       // >= 0
  double e = 0.0;        // in [0, 1]
  double rolling = 0.0;  // μ_r >= 0, dimensionless
};

struct MaterialTable {
  std::vector<std::string> names{"bead", "wall"};
  // The law of pair (a, b), a <= b, at index b (b + 1) / 2 + a: a packed triangle, so the table is symmetric
  // by construction and a law set for (a, b) is the law of (b, a).
  std::vector<ContactLaw> laws{ContactLaw{}, ContactLaw{}, ContactLaw{}};
  // The law given to the pairs of a material added later, until they are set.
  ContactLaw default_law;

  int count() const { return static_cast<int>(names.size()); }
  static std::size_t pair_index(int a, int b) {
    if (a > b) std::swap(a, b);
    return static_cast<std::size_t>(b) * (b + 1) / 2 + a;
  }
  ContactLaw& law(int a, int b) { return laws[pair_index(a, b)]; }
  const ContactLaw& law(int a, int b) const { return laws[pair_index(a, b)]; }
  // The id of a name, or −1.
  int find(const std::string& name) const {
    for (int k = 0; k < count(); ++k)
      if (names[k] == name) return k;
    return -1;
  }
  // Appends a material whose pairs take default_law; returns its id. Throws std::invalid_argument for an empty
  // or known name and beyond kMaxMaterials.
  MaterialId add(const std::string& name) {
    if (name.empty()) throw std::invalid_argument("materials: a material needs a name");
    if (find(name) >= 0) throw std::invalid_argument("materials: '" + name + "' is defined twice");
    if (count() >= kMaxMaterials)
      throw std::invalid_argument("materials: at most " + std::to_string(kMaxMaterials) + " materials (ids are one byte)");
    names.push_back(name);
    laws.resize(pair_index(count() - 1, count() - 1) + 1, default_law);
    return static_cast<MaterialId>(count() - 1);
  }
  // Every pair's rolling resistance μ_r, and that of the materials added later (a scene's `rolling_friction`
  // without a separate wall value).
  void set_rolling(double mu_r) {
    default_law.rolling = mu_r;
    for (ContactLaw& l : laws) l.rolling = mu_r;
  }
  // The former scalars: μ bead–bead, μ bead–wall and one e for both pairs (wall–wall never meets).
  void set_defaults(double mu_bead, double mu_wall, double restitution) {
    law(kBeadMaterial, kBeadMaterial) = {mu_bead, restitution};
    law(kBeadMaterial, kWallMaterial) = {mu_wall, restitution};
    law(kWallMaterial, kWallMaterial) = {mu_wall, restitution};
  }
};

}  // namespace talus
