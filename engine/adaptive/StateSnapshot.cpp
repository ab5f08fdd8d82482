// Saving and restoring a Model's integrator state (StateSnapshot.hpp).
#include "engine/adaptive/StateSnapshot.hpp"

#include <cassert>

namespace talus {

void StateSnapshot::save(const Model& model, const DofLayout& layout) {
  gather_coordinates(model, layout, q);
  gather_velocities(model, layout, v);
  time = model.time;
  const size_t n = model.interactions.size();
  gap.resize(n);
  velocity.resize(n);
  impulse.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Interaction& in = model.interactions[i];
    gap[i] = in.gap;
    velocity[i] = in.velocity;
    impulse[i] = in.impulse;
  }
}

void StateSnapshot::restore(Model& model, const DofLayout& layout) const {
  assert(model.interactions.size() == gap.size());
  assert(q.size() == layout.n_coords && v.size() == layout.n_vels);
  scatter_state(layout, q, v, model);  // coordinates first (DofLayout.hpp: ω_world = R(q) ω_body)
  model.time = time;
  for (size_t i = 0; i < gap.size(); ++i) {
    Interaction& in = model.interactions[i];
    in.gap = gap[i];
    in.velocity = velocity[i];
    in.impulse = impulse[i];
  }
}

}  // namespace talus
