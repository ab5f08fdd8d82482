#pragma once
// What the small path's contact detection (SmallPathDetection.hpp) looks for: which rigid bodies are spheres,
// the static planes and the finite-element beams they may touch, and the one law of the contacts it finds. Kept
// in the Model beside the listed interactions, so that every small-path integrator that steps the model detects
// the same contacts (issue 11; STYLE.md practice 0). A plain value: the detection's working buffers belong to each integrator.
#include <Eigen/Dense>
#include <vector>

#include "engine/NonsmoothLaw.hpp"
#include "engine/detection/BeamSphereContact.hpp"

namespace talus {

// The half-space {x : normal·x >= offset}; spheres live on the side the unit normal points to.
struct ContactPlane {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  double offset = 0.0;
};

// A finite-element beam the spheres may touch: LTI system `lti` of the model (make_euler_bernoulli_beam), placed
// in space by `geometry` (engine/detection/BeamSphereContact.hpp).
struct ContactBeam {
  Index lti = 0;
  BeamContactGeometry geometry;
};

struct ContactDetectionSettings {
  bool enabled = false;
  NonsmoothLaw law = NewtonImpactLaw{};
  // Body indices (Model::bodies, general group, increasing) whose shape is the sphere of radius
  // bodies.radius: the small path's general bodies carry only a bounding radius, so the caller says which of
  // them are spheres.
  std::vector<int> spheres;
  std::vector<ContactPlane> planes;
  std::vector<ContactBeam> beams;
  // [m] How far apart two surfaces may be and still be listed, beyond the 2 h max|v| they can close in one
  // step (the bound of Moreau–Jean's forecast g + γ h U). Below zero: a tenth of the smallest radius, which
  // also covers the h² terms of generalized-α's forecast for any sensible h.
  double margin = -1.0;
  // Model::interactions[first, end) are the detected contacts, rebuilt every step; the ones before are the
  // listed interactions (joints included), which detection never touches. −1 until the first detection.
  int first = -1;
};

}  // namespace talus
