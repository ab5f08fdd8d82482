#pragma once
// Random sequential insertion of spheres without overlap into a box region (issue 11 item 5, "pours"): the
// beads of a pour placed at t = 0, e.g. a cloud above a container that falls into it. Radii are drawn from a
// SizeDistribution first and placed largest first (small beads fill the gaps the large ones leave; the other
// order jams far below the same fraction), each at uniformly random centres inside the region until one
// overlaps nothing placed before it, nor the spheres given as already there, nor the planes, cones and meshes
// given, and lies inside every drum given (a drum is the inside of a cylinder: a bead outside it would be deep in
// its wall), so a pour fills a drum's bed from a box around the drum. The seed
// fixes the result on every platform (mt19937_64 and inverse-transform draws only).
#include <cstdint>
#include <memory>
#include <vector>

#include "contact/Shapes.hpp"
#include "engine/Model.hpp"
#include "engine/granular/SizeDistribution.hpp"

namespace talus::granular {

struct RegionFill {
  Eigen::Vector3d lower = Eigen::Vector3d::Zero(), upper = Eigen::Vector3d::Ones();  // the region [m]
  long count = 0;
  SizeDistribution sizes;
  std::uint64_t seed = 1;
  long tries_per_bead = 2000;  // centres tried for one bead before the fill is given up
};

struct PlacedSphere {
  Eigen::Vector3d x;
  double radius;
};

// The fixed shapes a fill avoids besides its walls: cones and meshes (a moving or carried mesh where it is now),
// and drums, whose inside it keeps to. Empty by default; obstacles_of(model) takes the model's.
struct FillObstacles {
  const std::vector<contact::Cone>* cones = nullptr;
  const std::vector<contact::Drum>* drums = nullptr;
  const std::vector<std::shared_ptr<const contact::TriangleMesh>>* meshes = nullptr;
  // Where each mesh is (world = R X + t; MovingMeshContacts.hpp mesh_pose) and the volume it encloses
  // (contact::signed_volume), filled by obstacles_of; empty: every mesh fixed, open.
  std::vector<Eigen::Matrix3d> mesh_rotation;
  std::vector<Eigen::Vector3d> mesh_translation;
  std::vector<double> mesh_volume;

  // Whether the sphere (x, r) overlaps none of them, lies in no closed mesh's material (contact/MeshInside.hpp:
  // inside a rock, outside a drum) and lies wholly inside every drum.
  bool clear(const Eigen::Vector3d& x, double r) const;
};
FillObstacles obstacles_of(const Model& model);

// The spheres, in placement order (radii non-increasing). Throws std::invalid_argument for an empty or
// inverted region, a region too small for the largest bead, an invalid distribution, or when a bead finds no
// free place after tries_per_bead centres; that message says how many were placed and the fraction of the
// region they fill (a random loose packing stops near 0.3–0.4 for this insertion).
std::vector<PlacedSphere> fill_region(RegionFill fill, const std::vector<PlacedSphere>& already = {},
                                      const std::vector<contact::Wall>& walls = {}, const FillObstacles& obstacles = {});

// A pour at a rate (a rain, issue 14 item 3): fill.count beads enter fill's region from `start` on, `rate`
// per second, each at the first of its random centres that overlaps no bead and no wall present when it
// enters (a bead that finds no place waits for the next step; the others keep their order). Bead k's radius
// and centres come from a generator of its own (seed, k), so a run restarted at time t inserts the same beads
// as a straight run: it only needs `inserted` = due(t).
struct TimedPour {
  RegionFill fill;
  double rate = 0.0;   // beads per second, > 0
  double start = 0.0;  // [s]
  double density = 2500.0;
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  std::uint8_t material = 0;  // engine/Materials.hpp id
  long inserted = 0;          // beads in so far

  // The beads that should be in by time t (all fill.count once their time has come).
  long due(double t) const;
};

// Where the beads of a model spread over processes are (a partitioned model, engine/distributed/BeadDomain.hpp),
// as a pour needs it: every process places the same beads, checked against the beads near the pour over all
// processes, and each keeps those whose centres lie in its region. So a pour gives every bead the id and the place
// it has in a one-process run, whatever the number of processes.
class PourSpread {
 public:
  virtual ~PourSpread() = default;
  // This process's own beads, which lead the sphere group (copies of other processes' beads may follow them).
  virtual int own_spheres() const = 0;
  // The largest of `value` over the processes (collective).
  virtual double max_over_processes(double value) = 0;
  // In place: the spheres every process lists, the same list on every process (collective).
  virtual void gather_spheres(std::vector<PlacedSphere>& spheres) = 0;
  // A new bead (every process calls it with the same bead): added to this process's model when its centre lies in
  // this process's region, its id taken on every process (ids stay those of one process). Returns the id.
  virtual std::uint32_t add_sphere(const Eigen::Vector3d& centre, double radius, double density,
                                   const Eigen::Vector3d& velocity, std::uint8_t material) = 0;
};

// Inserts into the sphere group of `model` the beads of `pour` due by model.time that find a place, and
// returns how many. Its walls, cones and meshes are avoided; capsules, boxes and drums are not checked (a pour's
// region should be clear of them). With `spread` (collective then): the model is a partitioned one (above); the
// count returned is that of every process.
long pour_due(Model& model, TimedPour& pour, PourSpread* spread = nullptr);

}  // namespace talus::granular
