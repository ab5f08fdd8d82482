#pragma once
// Small models shared by the Moreau–Jean tests: a 1-dof LTI system against a stop, a chain of touching beads.
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

// n unit beads on a line, all touching, bead 0 touching a wall, all moving towards the wall (the last one
// twice as fast): every contact is active at once and W is the tridiagonal chain-of-beads matrix, which one
// projected Gauss–Seidel sweep does not solve.
inline Model bead_chain(int n, double e) {
  Model model;
  LagrangianLti s;
  s.name = "beads";
  s.M.resize(n, n);
  for (int i = 0; i < n; ++i) s.M.insert(i, i) = 1.0;
  s.q = Vector::LinSpaced(n, 0.0, n - 1.0);
  s.v = Vector::Constant(n, -1.0);
  s.v[n - 1] = -2.0;
  model.lti.push_back(s);
  for (int i = 0; i < n; ++i) {
    Interaction in;
    in.name = "contact " + std::to_string(i);
    in.systems = {SystemRef{SystemFamily::Lti, 0}};
    Matrix C = Matrix::Zero(1, n);
    C(0, i) = 1.0;
    if (i > 0) C(0, i - 1) = -1.0;
    in.relation = LinearRelation{C, Vector::Constant(1, i > 0 ? -1.0 : 0.0)};
    in.law = NewtonImpactLaw{e};
    model.interactions.push_back(in);
  }
  return model;
}

}  // namespace talus::mjtest
