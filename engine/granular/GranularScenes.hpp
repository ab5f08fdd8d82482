#pragma once
// The granular scenes of issue 4 item 5, generated from a few parameters (STYLE.md practice 12: scenes defined
// once, reused by examples, tests and the bench):
//   bead_stack       the reference scene: N beads on a cubic lattice of spacing 2.2 r with a small horizontal
//                    jitter, in a square box (floor + 4 walls) just wide enough for ⌈N^(1/3)⌉ beads per side;
//                    with capsule_fraction > 0 that fraction of the sites holds a capsule instead (rockfall-like
//                    blocks: radius r/2, length 2 r, random orientation);
//   perturbed_stack  the same, hit after settling by a heavy ball dropped on its centre (seed 004's example);
//   silo             a flat-bottom box whose floor has a circular orifice of diameter D; beads leaving are
//                    removed and counted (discharge rate);
//   chute            a rough inclined channel (gravity tilted by the angle), periodic in the flow direction
//                    (or open at its lower end), optionally with a box obstacle across it;
//   drum             a rotating drum (issue 11 item 6): a cylinder of radius R about the y axis, periodic along
//                    it, a fraction of its cross-section filled with beads on a lattice, turning at the rate
//                    of a given Froude number Fr = Ω² R / g (rolling regime below ~1e-2, cascading above,
//                    centrifuging at 1); drum_repose_angle measures the bed's inclination;
// and the stack-height scenes of issue 10 (bench/stack_height, docs/stack-height.md), where the cost of the
// friction-contact solve is measured against the number of layers L:
//   bead_column      L beads in one vertical column on a floor, every gap exactly 0 (a static problem whose
//                    answer is known: the contact k beads from the top carries k m g h per step);
//   packed_box       L layers of face-centred cubic packing in its (100) orientation, at rest in a box whose
//                    walls touch the outer beads: k × k beads on a square grid of spacing 2 r, then (k−1) ×
//                    (k−1) beads in the hollows (each resting on four below), alternately; every neighbour
//                    touches exactly, the hard static problem of a cold start;
//   lattice_stack    bead_stack's lattice (spacing and jitter from the spec) with an explicit k × k footprint
//                    and L layers, in a box just wide enough: the collapse of a column of given height;
//   pyramid          a square pyramid of L layers of face-centred cubic packing on a floor, no walls: L × L
//                    beads at the base, (L−1) × (L−1) in its hollows, …, one at the top; every neighbour touches
//                    exactly (issue 10's close-packed pyramid: a cold start's static problem held by friction).
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/Model.hpp"

namespace talus::granular {

struct BeadSpec {
  long n = 1000;               // beads
  double radius = 0.01;        // [m]
  double polydispersity = 0.0; // radii uniform in r (1 ± p)
  double density = 2500.0;     // [kg/m³]
  double mu = 0.3;             // bead–bead and bead–wall (the laws of the default materials "bead", "wall")
  double restitution = 0.0;
  double spacing = 2.2;        // lattice spacing / r
  double jitter = 0.05;        // horizontal jitter amplitude / r
  std::uint64_t seed = 1;
  double capsule_fraction = 0.0;  // bead_stack: share of lattice sites holding a capsule
  // The generated beads the model keeps, by their place in the generator's order (which is also their id):
  // [keep_begin, keep_end). A partitioned run's processes each build one share of the scene (issue 15: no
  // process holds every bead, not even at start-up) and the regions are cut from there. The others are drawn
  // (the same random sequences) but not stored; walls and events are the whole scene's. Beads only: a spec with
  // capsule_fraction > 0 must keep every site.
  long keep_begin = 0;
  long keep_end = std::numeric_limits<long>::max();
  bool keeps_all() const { return keep_begin <= 0 && keep_end == std::numeric_limits<long>::max(); }
};

// One site of a lattice: a bead of `radius` at x, or (capsule_fraction) a capsule along `axis`.
struct LatticeSite {
  Eigen::Vector3d x = Eigen::Vector3d::Zero();
  double radius = 0.0;
  bool capsule = false;
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
};

// The generator of every lattice scene, and of the `lattices:` of single scenes (apps/SceneLoader.cpp): n sites
// on nx × ny columns of spacing `spacing` r from `corner` (the block's lower corner), filled layer by layer, x
// fastest; horizontal jitter, radii and capsule sites drawn from `seed` (the same sites on every platform).
// Throws std::invalid_argument for a spec whose beads do not fit the lattice (spacing, polydispersity,
// jitter) or an empty footprint.
std::vector<LatticeSite> lattice_sites(const BeadSpec& spec, long n, int nx, int ny, const Eigen::Vector3d& corner);
// The same sites one at a time, in order (site k, its index), without storing them.
void for_each_lattice_site(const BeadSpec& spec, long n, int nx, int ny, const Eigen::Vector3d& corner,
                           const std::function<void(long, const LatticeSite&)>& visit);

// Things that happen during a run besides stepping (the runner applies them between steps).
struct SceneEvents {
  double drop_time = -1.0;  // perturbed_stack: when the ball is added (< 0: never)
  double drop_radius = 0.0, drop_density = 0.0;
  Eigen::Vector3d drop_position = Eigen::Vector3d::Zero(), drop_velocity = Eigen::Vector3d::Zero();
  double remove_below_z = -std::numeric_limits<double>::infinity();  // outflow: beads below are removed
  double remove_beyond_x = std::numeric_limits<double>::infinity();
};

struct GranularScene {
  std::string kind;
  Model model;
  SceneEvents events;
  double t_end = 1.0;
  double h = 1e-3;
};

// Outflow between steps: removes the beads and capsules below events.remove_below_z or beyond
// events.remove_beyond_x (ids of the others, and so the contact cache, stay valid). Returns the mass removed;
// `flags` is reused storage. Along a periodic axis nothing ever leaves.
double remove_escaped_bodies(Model& model, const SceneEvents& events, std::vector<char>& flags);

// Which generated beads take a material (engine/Materials.hpp): those whose radius lies in [r_min, r_max],
// a share `fraction` of them drawn per bead.
struct BeadMaterialRule {
  MaterialId material = kBeadMaterial;
  double fraction = 1.0;
  double r_min = 0.0, r_max = std::numeric_limits<double>::infinity();
};
// Gives each bead (sphere group, in its current order) the material of the rules by one uniform draw u per
// bead from `seed`: the rules whose radius range holds the bead take consecutive shares of [0, 1), in order
// (u below the first's fraction: the first; below the sum of the first two: the second; ...); a bead left
// over keeps its material. Throws std::invalid_argument for an unknown material, a fraction outside [0, 1]
// or r_min > r_max.
void assign_bead_materials(Model& model, const std::vector<BeadMaterialRule>& rules, std::uint64_t seed);

// Throws std::invalid_argument for non-positive sizes.
GranularScene bead_stack(const BeadSpec& spec);
GranularScene perturbed_stack(const BeadSpec& spec, double ball_radius_factor = 4.0, double ball_density = 7800.0,
                              double drop_time = 0.5, double impact_speed = 2.0);
// Orifice diameter in bead diameters; the box is `width_factor` orifice diameters wide (at least the lattice).
GranularScene silo(const BeadSpec& spec, double orifice_diameters = 5.0);
// Inclination angle in degrees; channel length in bead diameters (the period when periodic); beads start as a
// lattice block at x = 0. obstacle_diameters > 0 puts a box that high (in bead diameters, 4 diameters long)
// across the channel at mid-length.
GranularScene chute(const BeadSpec& spec, double angle_degrees = 25.0, double length_diameters = 60.0,
                    bool periodic = true, double obstacle_diameters = 0.0);

// radius_diameters (R / bead diameter) >= 4, thickness_diameters (the period along the axis) >= 4, fill in
// (0, 0.6], froude in [0, 1). The spec's n is ignored (the count follows from the fill). The drum's surface has
// the law of the pair bead/wall (Model::materials).
GranularScene drum(const BeadSpec& spec, double radius_diameters = 10.0, double thickness_diameters = 4.0,
                   double fill = 0.35, double froude = 1e-2);
// The drum scene's bed (its fill rule, which single scenes reach through `lattices:` with `drum:`): beads on
// columns of spec.spacing r, symmetric about the axis of the model's drum `d`, in rows from the drum's bottom up
// to the chord below which the cross-section holds `fill` of its area, and along the axis across its periodic
// length; radii r (1 ± polydispersity) and a horizontal jitter of ±jitter r drawn from spec.seed; a site is kept
// when its bead, enlarged by both, stays inside the drum. The drum's axis must be a periodic coordinate axis and
// gravity must have a part across it, which sets "down". spec.n and capsule_fraction are ignored. Throws
// std::invalid_argument for a fill outside (0, 0.6], a drum or period under 4 bead diameters, such an axis or
// gravity, or a bed in which no bead fits.
std::vector<LatticeSite> drum_bed_sites(const Model& model, int d, const BeadSpec& spec, double fill);
// The dynamic angle of repose of the bed in the model's first drum [deg]: the angle between the downward
// vertical and the direction from the drum's axis to the beads' centroid in the plane across the axis. A bed
// whose cross-section is a circular segment has its centroid on the perpendicular through the axis to its
// free surface, so this is the free surface's inclination (its mean inclination when the surface is curved,
// as in the cascading regime); positive when the bed is lifted by a positive rotation.
double drum_repose_angle(const Model& model);
// The same from the beads' centroid (a partitioned model's, reduced over the processes).
double drum_repose_angle(const Model& model, const Eigen::Vector3d& centroid);

// Stack-height scenes (issue 10). The spec's radius, density, mu and restitution apply; its n is ignored (the
// counts follow from width and layers). bead_column, packed_box and pyramid need monodisperse beads and no capsules
// (exact contact); lattice_stack uses spacing, jitter, polydispersity, seed and capsule_fraction like
// bead_stack. Throw std::invalid_argument for width or layers < 1 and for the specs they cannot honour.
GranularScene bead_column(const BeadSpec& spec, int layers);
GranularScene packed_box(const BeadSpec& spec, int width, int layers);
GranularScene lattice_stack(const BeadSpec& spec, int width, int layers);
GranularScene pyramid(const BeadSpec& spec, int layers);
// Beads of packed_box(spec, width, layers): ⌈L/2⌉ k² + ⌊L/2⌋ (k−1)².
long packed_box_beads(int width, int layers);

}  // namespace talus::granular
