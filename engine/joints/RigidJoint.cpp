// Gaps and velocity-coordinate Jacobians of the rigid joints (derivations in RigidJoint.hpp).
#include "engine/joints/RigidJoint.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "engine/bodies/RigidBodies.hpp"

namespace talus {

namespace {

Eigen::Matrix3d skew(const Eigen::Vector3d& s) {
  Eigen::Matrix3d S;
  S << 0.0, -s.z(), s.y(), s.z(), 0.0, -s.x(), -s.y(), s.x(), 0.0;
  return S;
}

// Two unit vectors completing u to an orthonormal basis; which pair does not matter, only that they stay fixed
// in the body they were made in.
void normals_of(const Eigen::Vector3d& u, Eigen::Vector3d& n1, Eigen::Vector3d& n2) {
  const Eigen::Vector3d helper = std::abs(u.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  n1 = u.cross(helper).normalized();
  n2 = u.cross(n1);
}

// The spherical rows' blocks: anchors p = x + R s, and ṗ = v − R [s]× Ω.
void spherical_rows(const JointRelation& j, const JointPose& a, const JointPose& b, const Eigen::Matrix3d& Ra,
                    const Eigen::Matrix3d& Rb, bool body_b, Eigen::Ref<Eigen::VectorXd> g,
                    Eigen::Ref<Eigen::MatrixXd> Ja, Eigen::Ref<Eigen::MatrixXd> Jb) {
  g.head<3>() = a.x + Ra * j.anchor_a - (b.x + Rb * j.anchor_b);
  Ja.block<3, 3>(0, 0).setIdentity();
  Ja.block<3, 3>(0, 3) = -Ra * skew(j.anchor_a);
  if (body_b) {
    Jb.block<3, 3>(0, 0) = -Eigen::Matrix3d::Identity();
    Jb.block<3, 3>(0, 3) = Rb * skew(j.anchor_b);
  }
}

}  // namespace

int joint_rows(JointKind kind) {
  switch (kind) {
    case JointKind::Spherical: return 3;
    case JointKind::Revolute: return 5;
    case JointKind::Prismatic: return 5;
    case JointKind::Driver: return 1;
  }
  return 0;
}

const char* to_string(JointKind kind) {
  switch (kind) {
    case JointKind::Spherical: return "spherical";
    case JointKind::Revolute: return "revolute";
    case JointKind::Prismatic: return "prismatic";
    case JointKind::Driver: return "driver";
  }
  return "unknown";
}

JointRelation make_joint(JointKind kind, const RigidBodies& bodies, int a, int b, const Eigen::Vector3d& anchor,
                         const Eigen::Vector3d& axis, double drive_rate, double time) {
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument(std::string(to_string(kind)) + " joint: " + what);
  };
  if (a < 0 || a >= bodies.count()) bad("body " + std::to_string(a) + " does not exist");
  // The second body may be an obstacle body (the store's last group: static or kinematic, RigidBodies.hpp).
  if (b >= bodies.stored()) bad("body " + std::to_string(b) + " does not exist");
  if (a == b) bad("both sides are the same body");
  if (!anchor.allFinite()) bad("the anchor is not finite");
  if (!std::isfinite(drive_rate) || !std::isfinite(time)) bad("the drive rate or the time is not finite");
  const bool needs_axis = kind != JointKind::Spherical;
  const double length = axis.norm();
  if (needs_axis && !(length > 0.0 && std::isfinite(length))) bad("the axis is zero or not finite");
  const Eigen::Vector3d u = needs_axis ? Eigen::Vector3d(axis / length) : Eigen::Vector3d::UnitZ();

  const Eigen::Quaterniond qa = bodies.q[a].normalized();
  const Eigen::Quaterniond qb = b >= 0 ? bodies.q[b].normalized() : Eigen::Quaterniond::Identity();
  const Eigen::Vector3d xb = b >= 0 ? bodies.x[b] : Eigen::Vector3d::Zero();
  JointRelation j;
  j.kind = kind;
  j.anchor_a = qa.conjugate() * (anchor - bodies.x[a]);
  j.anchor_b = qb.conjugate() * (anchor - xb);
  j.axis_a = qa.conjugate() * u;
  j.axis_b = qb.conjugate() * u;
  normals_of(j.axis_b, j.normal_b1, j.normal_b2);
  j.rest = qb.conjugate() * qa;
  j.drive_rate = drive_rate;
  j.drive_phase = drive_rate * time;
  return j;
}

void evaluate_joint(const JointRelation& j, const JointPose& a, const JointPose* b_or_world, double t,
                    Eigen::Ref<Eigen::VectorXd> g, Eigen::Ref<Eigen::MatrixXd> Ja, Eigen::Ref<Eigen::MatrixXd> Jb,
                    Eigen::Ref<Eigen::VectorXd> dgdt) {
  const bool body_b = b_or_world != nullptr;
  const JointPose b = body_b ? *b_or_world : JointPose{};
  const Eigen::Matrix3d Ra = a.q.toRotationMatrix(), Rb = b.q.toRotationMatrix();
  Ja.setZero();
  if (body_b) Jb.setZero();
  dgdt.setZero();

  // The relative-rotation error r = q_b* q_a q_rest* and the blocks of ṙ_v (RigidJoint.hpp).
  const Eigen::Quaterniond r = b.q.conjugate() * a.q * j.rest.conjugate();
  const Eigen::Vector3d rv = r.vec();
  const double rw = r.w();
  const Eigen::Matrix3d R0 = j.rest.toRotationMatrix();
  const Eigen::Matrix3d rate_a = 0.5 * (rw * Eigen::Matrix3d::Identity() + skew(rv)) * R0;
  const Eigen::Matrix3d rate_b = -0.5 * (rw * Eigen::Matrix3d::Identity() - skew(rv));

  switch (j.kind) {
    case JointKind::Spherical:
      spherical_rows(j, a, b, Ra, Rb, body_b, g, Ja, Jb);
      break;
    case JointKind::Revolute: {
      spherical_rows(j, a, b, Ra, Rb, body_b, g, Ja, Jb);
      const Eigen::Vector3d axis = Ra * j.axis_a;
      const Eigen::Vector3d n[2] = {Rb * j.normal_b1, Rb * j.normal_b2};
      for (int i = 0; i < 2; ++i) {
        g[3 + i] = axis.dot(n[i]);
        const Eigen::RowVector3d c = axis.cross(n[i]).transpose();
        Ja.block<1, 3>(3 + i, 3) = c * Ra;
        if (body_b) Jb.block<1, 3>(3 + i, 3) = -c * Rb;
      }
      break;
    }
    case JointKind::Prismatic: {
      const Eigen::Vector3d d = a.x + Ra * j.anchor_a - (b.x + Rb * j.anchor_b);
      const Eigen::Vector3d n[2] = {Rb * j.normal_b1, Rb * j.normal_b2};
      for (int i = 0; i < 2; ++i) {
        g[i] = d.dot(n[i]);
        const Eigen::RowVector3d nt = n[i].transpose();
        Ja.block<1, 3>(i, 0) = nt;
        Ja.block<1, 3>(i, 3) = -nt * Ra * skew(j.anchor_a);
        if (body_b) {
          Jb.block<1, 3>(i, 0) = -nt;
          // The line turns with b: d·(ω_b × n) = ω_b·(n × d).
          Jb.block<1, 3>(i, 3) = nt * Rb * skew(j.anchor_b) + n[i].cross(d).transpose() * Rb;
        }
      }
      g.segment<3>(2) = 2.0 * rv;
      Ja.block<3, 3>(2, 3) = 2.0 * rate_a;
      if (body_b) Jb.block<3, 3>(2, 3) = 2.0 * rate_b;
      break;
    }
    case JointKind::Driver: {
      const Eigen::Vector3d& u = j.axis_b;
      const double s = u.dot(rv), c = rw, n2 = s * s + c * c;
      const double theta = 2.0 * std::atan2(s, c);
      g[0] = std::remainder(theta + j.drive_phase - j.drive_rate * t, 2.0 * std::numbers::pi);
      // θ̇ = 2 (c ṡ − s ċ) / (s² + c²), ṡ = u·ṙ_v, ċ = ṙ_w = ½ r_v·(Ω_b − R_rest Ω_a).
      const Eigen::RowVector3d ds_a = u.transpose() * rate_a, ds_b = u.transpose() * rate_b;
      const Eigen::RowVector3d dc_a = -0.5 * rv.transpose() * R0, dc_b = 0.5 * rv.transpose();
      Ja.block<1, 3>(0, 3) = 2.0 * (c * ds_a - s * dc_a) / n2;
      if (body_b) Jb.block<1, 3>(0, 3) = 2.0 * (c * ds_b - s * dc_b) / n2;
      dgdt[0] = -j.drive_rate;
      break;
    }
  }
}

}  // namespace talus
