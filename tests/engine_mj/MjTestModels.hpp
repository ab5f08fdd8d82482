#pragma once
// Small models shared by the Moreau–Jean tests: a 1-dof LTI system against a stop, spheres on planes.
#include "engine/Model.hpp"

namespace talus::mjtest {

inline SparseMatrix scalar_matrix(double a) {
  SparseMatrix A(1, 1);
  if (a != 0.0) A.insert(0, 0) = a;
  return A;
}

// m q̈ + k q = f(t) + λ,  0 <= q − stop ⟂ λ >= 0 (Newton impact with restitution e).
inline Model oscillator_on_stop(double m, double k, double q0, double v0, double stop, double e) {
  Model model;
  LagrangianLti s;
  s.name = "oscillator";
  s.M = scalar_matrix(m);
  if (k != 0.0) s.K = scalar_matrix(k);
  s.q = Vector::Constant(1, q0);
  s.v = Vector::Constant(1, v0);
  model.lti.push_back(s);
  Interaction in;
  in.name = "stop";
  in.systems = {SystemRef{SystemFamily::Lti, 0}};
  in.relation = LinearRelation{Matrix::Constant(1, 1, 1.0), Vector::Constant(1, -stop)};
  in.law = NewtonImpactLaw{e};
  model.interactions.push_back(in);
  return model;
}

}  // namespace talus::mjtest
