#pragma once
// Static obstacles of the granular path (issue 4 item 1): planes, optionally pierced by a circular orifice
// (silo floors). A box container is five such planes (contact/Shapes.cpp: box_walls). Beads themselves are
// spheres stored in engine/granular/SphereBodies.hpp; walls are few, so they are plain values scanned per bead
// rather than entries of the broad-phase grid.
#include <Eigen/Dense>
#include <vector>

namespace talus::contact {

// The half-space boundary {x : normal·x = offset}; beads live on the side normal points to. With
// hole_radius > 0 the plane has a circular orifice of that radius centred on hole_centre (a point of the
// plane): beads over it fall through and touch its rim (a circle) instead of the plane.
struct Wall {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  // unit
  double offset = 0.0;
  Eigen::Vector3d hole_centre = Eigen::Vector3d::Zero();
  double hole_radius = 0.0;
};

// Floor z = z0 and four side walls of the box [x0, x1] × [y0, y1], normals pointing inwards.
std::vector<Wall> box_walls(const Eigen::Vector3d& lower, const Eigen::Vector3d& upper);

}  // namespace talus::contact
