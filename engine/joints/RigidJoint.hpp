#pragma once
// Bilateral joints between two rigid bodies of Model::bodies, or between one body and the world (issue 11: a
// jointed mechanism in the same model as beads). A joint is a relation (Relation.hpp) with an equality law: its
// rows are gaps g(q, t) that the joint keeps at zero, and its Jacobian is written directly in the velocity
// coordinates of DofLayout.hpp (world linear velocity v, body-frame angular velocity Ω), as the sphere contact's
// is, so that no quaternion column ever reaches the solvers.
//
// Body a is the interaction's system 0; body b is system 1, or the world (x = 0, R = I, at rest) when there is
// one system. With p = x + R s a body point and ω_world = R Ω, ṗ = v − R [s]× Ω: that is where the
// −R [s]× blocks below come from.
//
// Rows (each vanishes on the joint's manifold and its gradient has full rank there):
//  - spherical (3): p_a − p_b, the two anchors in world coordinates.
//  - revolute (5): the spherical rows, then (R_a u_a)·(R_b n_i) for the two unit normals n_1, n_2 ⟂ u_b fixed in
//    b: zero when the axes are parallel. Their rate is (ω_a − ω_b)·(a × c), exactly.
//  - prismatic (5): (p_a − p_b)·(R_b n_i), i = 1, 2 (p_a on the line through p_b along R_b u_b), then the three
//    rows 2 vec(r) of the relative-rotation error r = q_b* ⊗ q_a ⊗ q_rest* (q_rest the relative orientation when
//    the joint was made): r = 1 exactly when no relative rotation took place. Its rate is
//    ṙ_v = ½ [(r_w I + [r_v]×) R_rest Ω_a − (r_w I − [r_v]×) Ω_b], from q̇ = ½ q ⊗ (0, Ω).
//  - driver (1): θ + θ₀ − ω_drive t, θ the angle of a relative to b about u_b read from r (r = rot(u_b, θ) on a
//    revolute joint's manifold), taken modulo 2π onto (−π, π] so that a driver may turn for any number of
//    revolutions. It is rheonomous: ∂g/∂t = −ω_drive, which the schemes add to J v (ConstraintRows::rate).
//    Used with a revolute joint on the same pair, which holds the other five relative motions.
//
// Anchors and axes are given in world coordinates at the poses the bodies have when the joint is made
// (make_joint) and stored in the body frames, so a joint is fixed to the bodies from then on.
#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace talus {

struct RigidBodies;

enum class JointKind { Spherical, Revolute, Prismatic, Driver };

struct JointRelation {
  JointKind kind = JointKind::Spherical;
  Eigen::Vector3d anchor_a = Eigen::Vector3d::Zero();  // body a frame, from its centre of mass
  Eigen::Vector3d anchor_b = Eigen::Vector3d::Zero();  // body b frame (world coordinates for the world)
  Eigen::Vector3d axis_a = Eigen::Vector3d::UnitZ();   // unit, body a frame
  Eigen::Vector3d axis_b = Eigen::Vector3d::UnitZ();   // unit, body b frame
  Eigen::Vector3d normal_b1 = Eigen::Vector3d::UnitX();  // unit, ⟂ axis_b and each other, body b frame
  Eigen::Vector3d normal_b2 = Eigen::Vector3d::UnitY();
  Eigen::Quaterniond rest = Eigen::Quaterniond::Identity();  // q_b* ⊗ q_a when the joint was made
  double drive_rate = 0.0;   // ω_drive [rad/s] (driver)
  double drive_phase = 0.0;  // θ₀ = ω_drive t_made, so that g = 0 at the poses the joint was made at
};

// Rows of a joint of this kind.
int joint_rows(JointKind kind);
const char* to_string(JointKind kind);

// A joint between bodies a and b (b < 0: the world) at their current poses in `bodies`, with the anchor point
// and the axis in world coordinates (the axis is ignored by a spherical joint; any length > 0, it is
// normalised). For a driver, `time` is the current time and θ(time) = ω_drive time is taken as the present
// relative angle, so the driver starts without a jump. Throws std::invalid_argument for a body index out of
// range, a = b, a zero or non-finite axis, or a non-finite anchor.
JointRelation make_joint(JointKind kind, const RigidBodies& bodies, int a, int b, const Eigen::Vector3d& anchor,
                         const Eigen::Vector3d& axis, double drive_rate = 0.0, double time = 0.0);

// Pose of one side of a joint.
struct JointPose {
  Eigen::Vector3d x = Eigen::Vector3d::Zero();
  Eigen::Quaterniond q = Eigen::Quaterniond::Identity();
};

// Gaps g (joint_rows entries), the Jacobian blocks Ja, Jb (rows × 6, columns [v, Ω] of bodies a and b; Jb is
// left untouched when b is the world, b == nullptr) and ∂g/∂t (rows) at time t.
void evaluate_joint(const JointRelation& joint, const JointPose& a, const JointPose* b, double t,
                    Eigen::Ref<Eigen::VectorXd> g, Eigen::Ref<Eigen::MatrixXd> Ja, Eigen::Ref<Eigen::MatrixXd> Jb,
                    Eigen::Ref<Eigen::VectorXd> dgdt);

}  // namespace talus
