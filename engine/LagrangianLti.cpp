#include "engine/LagrangianLti.hpp"

namespace talus {

Vector LagrangianLti::external_force(double t) const {
  Vector f;
  external_force(t, f);
  return f;
}

void LagrangianLti::external_force(double t, Vector& out) const {
  if (f_const.size())
    out = f_const;
  else
    out.setZero(dofs());
  if (f_time) f_time(t, out);
}

}  // namespace talus
