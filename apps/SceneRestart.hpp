#pragma once
// Restart archives of single scenes (issue 12 item 4, small systems): restart.h5 holds everything the next
// Moreau–Jean step reads — the clock, every coordinate and velocity (DofLayout order), each interaction's last
// gap, relative velocity and impulse (the impulses warm-start the next solve) — plus what the time series
// carries over (the step count and the cumulated energy terms). A run to T and a run to T/2 + restart to T end
// in bitwise-identical states (tests/apps/test_strict_restart.cpp).
//
// moreau_jean keeps its whole state in the model. generalized_alpha also carries its acceleration-like
// variable a_n and smooth acceleration ṽ̇_n from step to step, which (q_n, v_n) do not determine: the archive
// holds them and the resumed integrator is given them back (NonsmoothGeneralizedAlpha::restore_accelerations,
// which also says why nothing else of its state needs saving). Newmark and HHT keep a_n too but the engine
// does not let a new integrator start from it, Schatzman–Paoli keeps the previous coordinates, and the
// event-driven path keeps its DAE integrator's step-size history: a restart of those is refused rather than
// continued approximately.
//
// Layout of the archive (HDF5):
//   /            attributes: format "talus-scene-restart-1", scene, scheme, talus_version, columns (the time
//                series' column names: the fingerprint of the scene's systems and interactions)
//   /time        [s] float64 scalar: the model's clock
//   /step        int64 scalar: steps taken since t = 0
//   /h           [s] float64 scalar: the step the steps were taken with
//   /q, /v       float64 [n_coords], [n_vels]
//   /interactions/{gap,velocity,impulse}   float64, concatenated; /interactions/{…}_size int64 per interaction
//   /energy      float64 [4]: external_work, contact_work, numerical_dissipation, damping_work [J]
//   /generalized_alpha/acceleration         float64 [n_vels]: a_n, the acceleration-like variable [velocity unit/s]
//   /generalized_alpha/smooth_acceleration  float64 [n_vels]: ṽ̇_n, the smooth acceleration [velocity unit/s]
//                (generalized_alpha scenes only; velocity order of DofLayout)
#include <array>
#include <filesystem>

#include "apps/Scene.hpp"

namespace talus::app {

inline constexpr const char* kRestartFile = "restart.h5";

struct RestartState {
  long step = 0;
  std::array<double, 4> energy{};  // the TimeSeries sums, in the order above
  // generalized_alpha: a_n and ṽ̇_n (empty for the other schemes).
  Vector acceleration, smooth_acceleration;
};

// Whether the scene's scheme can be restarted bit for bit; `why` says why not.
bool restartable(const Scene& scene, std::string* why = nullptr);

// Whether the scheme's archive needs the integrator's own state (RestartState's accelerations) besides the model.
bool restart_needs_accelerations(const Scene& scene);

// Writes the archive of the scene's current state to `file` (through a temporary file and a rename).
// Throws std::runtime_error naming the file (also when a generalized_alpha state lacks its accelerations).
void write_scene_restart(const std::filesystem::path& file, const Scene& scene, const RestartState& state,
                         const std::vector<std::string>& columns);

// Validates the archive against the scene (same scheme, systems, interactions and step size; finite values; a
// clock consistent with the step count and before t_end) and loads it into scene.model; the integrator's own
// state (generalized_alpha's accelerations) is returned for the caller to give to the integrator it builds. Every problem is thrown as
// std::runtime_error naming the archive and the dataset.
RestartState read_scene_restart(const std::filesystem::path& file, Scene& scene, const std::vector<std::string>& columns);

}  // namespace talus::app
