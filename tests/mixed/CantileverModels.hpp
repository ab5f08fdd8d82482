#pragma once
// A clamped Euler–Bernoulli cantilever (engine/schemes/FiniteElementBeams.hpp) placed in space with the contact
// geometry of engine/detection/BeamSphereContact.hpp, and beads that detection puts in contact with it: the
// models of the tests in this folder.
#include <vector>

#include "engine/Model.hpp"
#include "engine/schemes/FiniteElementBeams.hpp"

namespace talus::mixedtest {

struct Cantilever {
  EulerBernoulliBeamParameters beam;
  BeamContactGeometry geometry;
};

// A steel strip L × b × t along +x from the origin, bending along +z, clamped at x = 0.
inline Cantilever steel_strip(double length, int elements, double width, double thickness) {
  Cantilever c;
  c.beam.length = c.geometry.length = length;
  c.beam.elements = c.geometry.elements = elements;
  c.beam.young = 2.0e11;
  c.beam.density = 7800.0;
  c.beam.area = width * thickness;
  c.beam.second_moment = width * thickness * thickness * thickness / 12.0;
  c.geometry.half_width = 0.5 * width;
  c.geometry.half_thickness = 0.5 * thickness;
  return c;
}

// The model: the beam as LTI system 0 (its own weight when with_weight, from model gravity g_z), the beads as
// general spheres, detection on with the law and the beam.
inline Model cantilever_with_beads(Cantilever& c, const std::vector<Eigen::Vector3d>& centres, double radius,
                                   double density, const NonsmoothLaw& law, double gz, bool with_weight) {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, gz);
  c.beam.transverse_load = with_weight ? c.beam.density * c.beam.area * gz : 0.0;
  m.lti.push_back(make_euler_bernoulli_beam(c.beam));
  for (const Eigen::Vector3d& x : centres) add_general_sphere(m.bodies, x, radius, density);
  m.detection.enabled = true;
  m.detection.law = law;
  for (int i = 0; i < m.bodies.count(); ++i) m.detection.spheres.push_back(i);
  m.detection.beams.push_back({0, c.geometry});
  return m;
}

}  // namespace talus::mixedtest
