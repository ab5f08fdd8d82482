// Gap evaluation and sparse Jacobian assembly for a list of interactions (conventions in
// ConstraintAssembly.hpp).
#include "engine/ConstraintAssembly.hpp"

#include <cassert>
#include <variant>

#include "contact/SphereContact.hpp"

namespace talus {

namespace {

contact::SpherePose sphere_pose(const Model& model, const DofLayout& layout, const Vector& q, Index body) {
  const Index o = layout.rigid_coord_offset + 7 * body;
  return {q.segment<3>(o), q.segment<4>(o + 3), model.bodies.radius[body]};
}

void gather_local_coordinates(const Model& model, const DofLayout& layout, const Vector& q,
                              const Interaction& in, Vector& ql) {
  Index n = 0;
  for (const SystemRef& s : in.systems) n += layout.coord_size(s, model);
  ql.resize(n);
  Index o = 0;
  for (const SystemRef& s : in.systems) {
    const Index m = layout.coord_size(s, model);
    ql.segment(o, m) = q.segment(layout.coord_offset(s), m);
    o += m;
  }
}

// Appends the rows [row0, row0 + rows) of a Jacobian written in the interaction's local coordinates,
// converting rigid bodies' coordinate columns to velocity columns.
void append_coordinate_jacobian(const Model& model, const DofLayout& layout, const Vector& q,
                                const Interaction& in, const Matrix& Jc, Index row0, Index rows,
                                std::vector<Triplet>& t) {
  Index c = 0;
  for (const SystemRef& s : in.systems) {
    const Index vo = layout.vel_offset(s);
    if (s.family != SystemFamily::Rigid) {
      const Index m = layout.coord_size(s, model);
      for (Index r = 0; r < rows; ++r)
        for (Index j = 0; j < m; ++j)
          if (Jc(r, c + j) != 0.0) t.emplace_back(int(row0 + r), int(vo + j), Jc(r, c + j));
      c += m;
      continue;
    }
    const Eigen::Matrix<double, 4, 3> G = quaternion_rate_matrix(q.segment<4>(layout.coord_offset(s) + 3));
    for (Index r = 0; r < rows; ++r) {
      for (Index j = 0; j < 3; ++j)
        if (Jc(r, c + j) != 0.0) t.emplace_back(int(row0 + r), int(vo + j), Jc(r, c + j));
      const Eigen::RowVector3d jw = Jc.block<1, 4>(r, c + 3) * G;
      for (Index j = 0; j < 3; ++j)
        if (jw[j] != 0.0) t.emplace_back(int(row0 + r), int(vo + 3 + j), jw[j]);
    }
    c += 7;
  }
}

// Gaps, Jacobian blocks and ∂g/∂t of a joint (RigidJoint.hpp) at the poses in q.
void evaluate_joint_at(const Model& model, const DofLayout& layout, const Vector& q, const Interaction& in,
                       const JointRelation& joint, double t, Eigen::Ref<Eigen::VectorXd> g, Matrix& Ja, Matrix& Jb,
                       Eigen::Ref<Eigen::VectorXd> rate) {
  const auto pose = [&](const SystemRef& s) {
    const Index o = layout.coord_offset(s);
    const Eigen::Vector4d& w = q.segment<4>(o + 3);
    return JointPose{q.segment<3>(o), Eigen::Quaterniond(w[0], w[1], w[2], w[3])};
  };
  const Index rows = joint_rows(joint.kind);
  Ja.resize(rows, 6);
  Jb.resize(rows, 6);
  const JointPose a = pose(in.systems[0]);
  if (in.systems.size() == 2) {
    const JointPose b = pose(in.systems[1]);
    evaluate_joint(joint, a, &b, t, g, Ja, Jb, rate);
  } else {
    evaluate_joint(joint, a, nullptr, t, g, Ja, Jb, rate);
  }
}

// A sphere (system 0) against a linear beam (system 1, an LTI system) at the coordinates in q.
BeamSphereContact beam_sphere_at(const Model& model, const DofLayout& layout, const Vector& q, const Interaction& in,
                                 const BeamSphereContactRelation& rel) {
  const SystemRef& beam = in.systems[1];
  return beam_sphere_contact(rel.beam, rel.side, q.segment(layout.coord_offset(beam), layout.coord_size(beam, model)),
                             sphere_pose(model, layout, q, in.systems[0].index));
}

void append_dense_block(const Matrix& B, Index row0, Index vo, std::vector<Triplet>& t) {
  for (Index r = 0; r < B.rows(); ++r)
    for (Index j = 0; j < B.cols(); ++j)
      if (B(r, j) != 0.0) t.emplace_back(int(row0 + r), int(vo + j), B(r, j));
}

void append_block(const contact::JacobianBlock& B, Index rows, Index row0, Index vo, std::vector<Triplet>& t) {
  for (Index r = 0; r < rows; ++r)
    for (Index j = 0; j < 6; ++j)
      if (B(r, j) != 0.0) t.emplace_back(int(row0 + r), int(vo + j), B(r, j));
}

}  // namespace

void assemble_constraints(const Model& model, const DofLayout& layout, const Vector& q,
                          const std::vector<int>& which, ConstraintRows& out, double t) {
  out.interactions = which;
  out.row_offset.resize(which.size() + 1);
  out.row_offset[0] = 0;
  for (size_t i = 0; i < which.size(); ++i)
    out.row_offset[i + 1] = out.row_offset[i] + law_rows(model.interactions[which[i]].law);
  const Index m = out.rows();
  out.gap.setZero(m);
  out.rate.setZero(m);
  out.triplets_.clear();

  for (size_t i = 0; i < which.size(); ++i) {
    const Interaction& in = model.interactions[which[i]];
    const Index row0 = out.row_offset[i], rows = out.row_offset[i + 1] - row0;
    if (const auto* rel = std::get_if<SphereContactRelation>(&in.relation)) {
      const Index b0 = in.systems[0].index;
      const contact::SpherePose a = sphere_pose(model, layout, q, b0);
      if (in.systems.size() == 1) {
        const contact::SpherePlaneContact c = contact::sphere_plane(a, rel->plane_normal, rel->plane_offset);
        out.gap[row0] = c.gap;
        append_block(c.J, rows, row0, layout.vel_offset(in.systems[0]), out.triplets_);
      } else {
        const Index b1 = in.systems[1].index;
        const contact::SphereSphereContact c = contact::sphere_sphere(a, sphere_pose(model, layout, q, b1));
        out.gap[row0] = c.gap;
        append_block(c.Ja, rows, row0, layout.vel_offset(in.systems[0]), out.triplets_);
        append_block(c.Jb, rows, row0, layout.vel_offset(in.systems[1]), out.triplets_);
      }
      continue;
    }
    if (const auto* rel = std::get_if<BeamSphereContactRelation>(&in.relation)) {
      const BeamSphereContact c = beam_sphere_at(model, layout, q, in, *rel);
      out.gap[row0] = c.gap;
      append_block(c.J_sphere, rows, row0, layout.vel_offset(in.systems[0]), out.triplets_);
      const Index vo = layout.vel_offset(in.systems[1]);
      for (Index r = 0; r < rows; ++r)
        for (int j = 0; j < 4; ++j)
          if (c.beam_dof[j] >= 0 && c.J_beam(r, j) != 0.0)
            out.triplets_.emplace_back(int(row0 + r), int(vo + c.beam_dof[j]), c.J_beam(r, j));
      continue;
    }
    if (const auto* joint = std::get_if<JointRelation>(&in.relation)) {
      evaluate_joint_at(model, layout, q, in, *joint, t, out.gap.segment(row0, rows), out.J_local_, out.Jb_local_,
                        out.rate.segment(row0, rows));
      append_dense_block(out.J_local_, row0, layout.vel_offset(in.systems[0]), out.triplets_);
      if (in.systems.size() == 2)
        append_dense_block(out.Jb_local_, row0, layout.vel_offset(in.systems[1]), out.triplets_);
      continue;
    }
    gather_local_coordinates(model, layout, q, in, out.q_local_);
    if (const auto* rel = std::get_if<LinearRelation>(&in.relation)) {
      out.gap[row0] = rel->C.row(0).dot(out.q_local_) + rel->b[0];
      append_coordinate_jacobian(model, layout, q, in, rel->C, row0, rows, out.triplets_);
    } else {
      const auto& nl = std::get<NonlinearRelation>(in.relation);
      out.g_local_.setZero(rows);
      nl.gap(out.q_local_, out.g_local_);
      out.gap[row0] = out.g_local_[0];
      out.J_local_.setZero(rows, out.q_local_.size());
      nl.jacobian(out.q_local_, out.J_local_);
      append_coordinate_jacobian(model, layout, q, in, out.J_local_, row0, rows, out.triplets_);
    }
  }
  out.J.resize(m, layout.n_vels);
  out.J.setFromTriplets(out.triplets_.begin(), out.triplets_.end());
}

void evaluate_normal_gaps(const Model& model, const DofLayout& layout, const Vector& q,
                          const std::vector<int>& which, Vector& g, double t) {
  g.resize(static_cast<Index>(which.size()));
  Vector ql, gl, rate;
  Matrix Ja, Jb;
  for (size_t i = 0; i < which.size(); ++i) {
    const Interaction& in = model.interactions[which[i]];
    if (const auto* rel = std::get_if<SphereContactRelation>(&in.relation)) {
      const contact::SpherePose a = sphere_pose(model, layout, q, in.systems[0].index);
      if (in.systems.size() == 1) {
        g[i] = rel->plane_normal.dot(a.x) - rel->plane_offset - a.radius;
      } else {
        const contact::SpherePose b = sphere_pose(model, layout, q, in.systems[1].index);
        g[i] = (b.x - a.x).norm() - a.radius - b.radius;
      }
      continue;
    }
    if (const auto* rel = std::get_if<BeamSphereContactRelation>(&in.relation)) {
      g[i] = beam_sphere_at(model, layout, q, in, *rel).gap;
      continue;
    }
    if (const auto* joint = std::get_if<JointRelation>(&in.relation)) {
      const Index rows = joint_rows(joint->kind);
      gl.resize(rows);
      rate.resize(rows);
      evaluate_joint_at(model, layout, q, in, *joint, t, gl, Ja, Jb, rate);
      g[i] = gl[0];
      continue;
    }
    gather_local_coordinates(model, layout, q, in, ql);
    if (const auto* rel = std::get_if<LinearRelation>(&in.relation)) {
      g[i] = rel->C.row(0).dot(ql) + rel->b[0];
    } else {
      const auto& nl = std::get<NonlinearRelation>(in.relation);
      gl.setZero(nl.rows);
      nl.gap(ql, gl);
      g[i] = gl[0];
    }
  }
}

void select_interactions(const ConstraintRows& all, const std::vector<Index>& positions, ConstraintRows& out) {
  assert(&all != &out);
  out.interactions.resize(positions.size());
  out.row_offset.resize(positions.size() + 1);
  out.row_offset[0] = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    const Index p = positions[i];
    out.interactions[i] = all.interactions[p];
    out.row_offset[i + 1] = out.row_offset[i] + all.row_offset[p + 1] - all.row_offset[p];
  }
  const Index m = out.rows();
  out.gap.resize(m);
  out.rate.resize(m);
  out.triplets_.clear();
  for (size_t i = 0; i < positions.size(); ++i) {
    const Index src = all.row_offset[positions[i]], dst = out.row_offset[i];
    for (Index k = 0; k < out.row_offset[i + 1] - dst; ++k) {
      out.gap[dst + k] = all.gap[src + k];
      out.rate[dst + k] = all.rate[src + k];
      for (SparseMatrix::InnerIterator it(all.J, src + k); it; ++it)
        out.triplets_.emplace_back(static_cast<int>(dst + k), static_cast<int>(it.col()), it.value());
    }
  }
  out.J.resize(m, all.J.cols());
  out.J.setFromTriplets(out.triplets_.begin(), out.triplets_.end());
}

std::vector<int> all_interactions(const Model& model) {
  std::vector<int> w(model.interactions.size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int>(i);
  return w;
}

}  // namespace talus
