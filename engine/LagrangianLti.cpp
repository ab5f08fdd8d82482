#include "engine/LagrangianLti.hpp"

namespace talus {

Vector LagrangianLti::external_force(double t) const {
  Vector f = f_const.size() ? f_const : Vector::Zero(dofs());
  if (f_time) f_time(t, f);
  return f;
}

}  // namespace talus
