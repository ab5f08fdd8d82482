// Quintic / cubic Hermite dense output of one DAE step (see DenseOutput.hpp).
#include "engine/eventdriven/DenseOutput.hpp"

#include <cmath>

namespace talus::eventdriven {

double weighted_rms(const Vector& dq, const Vector& dv, const DaeState& s0, const DaeState& s1, double tol) {
  double sum = 0.0;
  for (Index i = 0; i < dq.size(); ++i) {
    const double sk = tol * (1.0 + std::max(std::abs(s0.q[i]), std::abs(s1.q[i])));
    sum += (dq[i] / sk) * (dq[i] / sk);
  }
  for (Index i = 0; i < dv.size(); ++i) {
    const double sk = tol * (1.0 + std::max(std::abs(s0.v[i]), std::abs(s1.v[i])));
    sum += (dv[i] / sk) * (dv[i] / sk);
  }
  const Index n = dq.size() + dv.size();
  return n ? std::sqrt(sum / static_cast<double>(n)) : 0.0;
}

void make_segment(const ConstrainedEvaluator& ev, const DaeState& s0, const DaeState& s1, DenseSegment& seg) {
  seg.t0 = s0.t;
  seg.h = s1.t - s0.t;
  seg.identity_kinematics = ev.system().identity_kinematics();
  seg.q0 = s0.q;
  seg.q1 = s1.q;
  seg.v0 = s0.v;
  seg.v1 = s1.v;
  seg.a0 = s0.a;
  seg.a1 = s1.a;
  ev.coordinate_rate(s0.q, s0.v, seg.qd0);
  ev.coordinate_rate(s1.q, s1.v, seg.qd1);
  ev.coordinate_acceleration(s0.q, s0.v, s0.a, seg.qdd0);
  ev.coordinate_acceleration(s1.q, s1.v, s1.a, seg.qdd1);
}

void DenseSegment::coordinates(double s, Vector& q) const {
  const double s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
  const double H0 = 1.0 - 10.0 * s3 + 15.0 * s4 - 6.0 * s5;
  const double H1 = s - 6.0 * s3 + 8.0 * s4 - 3.0 * s5;
  const double H2 = 0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5;
  const double H3 = 10.0 * s3 - 15.0 * s4 + 6.0 * s5;
  const double H4 = -4.0 * s3 + 7.0 * s4 - 3.0 * s5;
  const double H5 = 0.5 * s3 - s4 + 0.5 * s5;
  q = H0 * q0 + (H1 * h) * qd0 + (H2 * h * h) * qdd0 + H3 * q1 + (H4 * h) * qd1 + (H5 * h * h) * qdd1;
}

void DenseSegment::velocities(double s, Vector& v) const {
  const double s2 = s * s, s3 = s2 * s, s4 = s3 * s;
  if (identity_kinematics) {
    // d/dt of the quintic above: derivatives of the basis divided by h.
    const double D0 = (-30.0 * s2 + 60.0 * s3 - 30.0 * s4) / h;
    const double D1 = 1.0 - 18.0 * s2 + 32.0 * s3 - 15.0 * s4;
    const double D2 = (s - 4.5 * s2 + 6.0 * s3 - 2.5 * s4) * h;
    const double D4 = -12.0 * s2 + 28.0 * s3 - 15.0 * s4;
    const double D5 = (1.5 * s2 - 4.0 * s3 + 2.5 * s4) * h;
    v = D0 * (q0 - q1) + D1 * qd0 + D2 * qdd0 + D4 * qd1 + D5 * qdd1;
    return;
  }
  const double h00 = 2.0 * s3 - 3.0 * s2 + 1.0, h10 = s3 - 2.0 * s2 + s;
  const double h01 = -2.0 * s3 + 3.0 * s2, h11 = s3 - s2;
  v = h00 * v0 + (h10 * h) * a0 + h01 * v1 + (h11 * h) * a1;
}

}  // namespace talus::eventdriven
