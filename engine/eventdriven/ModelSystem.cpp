// The Model as a MechanicalSystem (see ModelSystem.hpp).
#include "engine/eventdriven/ModelSystem.hpp"

#include <stdexcept>
#include <string>
#include <variant>

#include "engine/ConstraintAssembly.hpp"
#include "engine/SystemMatrices.hpp"

namespace talus::eventdriven {

namespace {

// What the callbacks share; held by shared_ptr so that the MechanicalSystem can be copied and moved freely.
struct Context {
  const Model* model = nullptr;
  DofLayout layout;
  std::vector<int> interactions;   // all, for assemble_constraints
  std::vector<ConstraintRow> rows;
  std::vector<Index> fixed_dofs;
  ConstraintRows assembled;
  Vector q_local, g_local;
};

void gather_local(const Context& c, const Interaction& in, const Vector& q, Vector& ql) {
  Index n = 0;
  for (const SystemRef& s : in.systems) n += c.layout.coord_size(s, *c.model);
  ql.resize(n);
  Index o = 0;
  for (const SystemRef& s : in.systems) {
    const Index m = c.layout.coord_size(s, *c.model);
    ql.segment(o, m) = q.segment(c.layout.coord_offset(s), m);
    o += m;
  }
}

// Gaps of every row. ConstraintAssembly reports only the normal gap of each interaction (every row of a joint),
// so bilateral interactions with several rows are evaluated here from their relation. The time passed to the
// assembly is not read: drivers, the only relations that depend on it, are refused by make_model_system.
void evaluate_gaps(Context& c, const Vector& q, Vector& g) {
  const Model& model = *c.model;
  assemble_constraints(model, c.layout, q, c.interactions, c.assembled, 0.0);
  for (size_t r = 0; r < c.rows.size(); ++r) {
    const ConstraintRow& row = c.rows[r];
    if (row.local_row == 0 || std::holds_alternative<JointRelation>(model.interactions[row.interaction].relation)) {
      g[static_cast<Index>(r)] = c.assembled.gap[c.assembled.row_offset[row.interaction] + row.local_row];
      continue;
    }
    const Interaction& in = model.interactions[row.interaction];
    gather_local(c, in, q, c.q_local);
    if (const auto* lin = std::get_if<LinearRelation>(&in.relation)) {
      g[static_cast<Index>(r)] = lin->C.row(row.local_row).dot(c.q_local) + lin->b[row.local_row];
    } else {
      const auto& nl = std::get<NonlinearRelation>(in.relation);
      c.g_local.setZero(nl.rows);
      nl.gap(c.q_local, c.g_local);
      g[static_cast<Index>(r)] = c.g_local[row.local_row];
    }
  }
}

void evaluate_jacobian(Context& c, const Vector& q, Matrix& G) {
  assemble_constraints(*c.model, c.layout, q, c.interactions, c.assembled, 0.0);
  const SparseMatrix& J = c.assembled.J;
  G.setZero(static_cast<Index>(c.rows.size()), c.layout.n_vels);
  for (size_t r = 0; r < c.rows.size(); ++r) {
    const Index src = c.assembled.row_offset[c.rows[r].interaction] + c.rows[r].local_row;
    for (SparseMatrix::InnerIterator it(J, src); it; ++it) G(static_cast<Index>(r), it.col()) = it.value();
  }
  for (Index d : c.fixed_dofs) G.col(d).setZero();
}

}  // namespace

ModelSystem make_model_system(const Model& model) {
  model.validate();
  auto ctx = std::make_shared<Context>();
  ctx->model = &model;
  ctx->layout = make_dof_layout(model);
  ctx->interactions = all_interactions(model);
  ctx->fixed_dofs = fixed_velocity_dofs(model, ctx->layout);

  ModelSystem out;
  out.layout = ctx->layout;
  for (int i = 0; i < static_cast<int>(model.interactions.size()); ++i) {
    const Interaction& in = model.interactions[i];
    if (const auto* j = std::get_if<JointRelation>(&in.relation); j && j->kind == JointKind::Driver)
      throw std::invalid_argument("event-driven path: interaction '" + in.name +
                                  "' is a driver (a rheonomous constraint), which this path does not handle");
    if (const auto* eq = std::get_if<EqualityLaw>(&in.law)) {
      for (int k = 0; k < eq->rows; ++k) {
        out.bilateral_rows.push_back(static_cast<Index>(out.rows.size()));
        out.rows.push_back({i, k, false, 0.0});
      }
    } else if (const auto* nl = std::get_if<NewtonImpactLaw>(&in.law)) {
      out.unilateral_rows.push_back(static_cast<Index>(out.rows.size()));
      out.rows.push_back({i, 0, true, nl->e});
    } else {
      const auto& fr = std::get<NewtonImpactFrictionLaw>(in.law);
      if (fr.mu != 0.0)
        throw std::invalid_argument("event-driven path: interaction '" + in.name +
                                    "' has Coulomb friction (mu > 0), which this path does not handle");
      out.unilateral_rows.push_back(static_cast<Index>(out.rows.size()));
      out.rows.push_back({i, 0, true, fr.e});
    }
  }
  ctx->rows = out.rows;

  MechanicalSystem& s = out.system;
  s.nq = ctx->layout.n_coords;
  s.nv = ctx->layout.n_vels;
  s.rows = static_cast<Index>(out.rows.size());
  s.constant_mass = model.nonlinear.empty();
  s.mass = [ctx](const Vector& q, Matrix& M) {
    M = Matrix(global_mass(*ctx->model, ctx->layout, q));
    for (Index d : ctx->fixed_dofs) M(d, d) = 1.0;
  };
  s.force = [ctx](double t, const Vector& q, const Vector& v, Vector& F) {
    smooth_force(*ctx->model, ctx->layout, t, q, v, F);
    for (Index d : ctx->fixed_dofs) F[d] = 0.0;
  };
  s.gap = [ctx](const Vector& q, Vector& g) { evaluate_gaps(*ctx, q, g); };
  s.jacobian = [ctx](const Vector& q, Matrix& G) { evaluate_jacobian(*ctx, q, G); };
  if (ctx->layout.bodies > 0) {
    s.velocity_map = [ctx](const Vector& q, const Vector& v, Vector& qdot) {
      const DofLayout& l = ctx->layout;
      qdot.resize(l.n_coords);
      qdot.head(l.rigid_coord_offset) = v.head(l.rigid_vel_offset);
      for (Index b = 0; b < l.bodies; ++b) {
        const Index cq = l.rigid_coord_offset + 7 * b, cv = l.rigid_vel_offset + 6 * b;
        qdot.segment<3>(cq) = v.segment<3>(cv);
        qdot.segment<4>(cq + 3) = quaternion_rate_matrix(q.segment<4>(cq + 3)) * v.segment<3>(cv + 3);
      }
    };
    s.normalize = [ctx](Vector& q) {
      const DofLayout& l = ctx->layout;
      for (Index b = 0; b < l.bodies; ++b) q.segment<4>(l.rigid_coord_offset + 7 * b + 3).normalize();
    };
  }
  return out;
}

}  // namespace talus::eventdriven
