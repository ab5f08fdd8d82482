#pragma once
// Restart archives of single scenes (issue 12 item 4, small systems): restart.h5 holds everything the next
// Moreau–Jean step reads — the clock, every coordinate and velocity (DofLayout order), each interaction's last
// gap, relative velocity and impulse (the impulses warm-start the next solve) — plus what the time series
// carries over (the step count and the cumulated energy terms). A run to T and a run to T/2 + restart to T end
// in bitwise-identical states (tests/apps/test_strict_restart.cpp).
//
// Only moreau_jean keeps its whole state in the model. The second-order schemes keep an acceleration-like
// variable a_n (Newmark, HHT, generalized-α) or the previous coordinates (Schatzman–Paoli) inside the
// integrator, which the engine neither exposes for writing nor lets a new integrator start from, and the
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
#include <array>
#include <filesystem>

#include "apps/Scene.hpp"

namespace talus::app {

inline constexpr const char* kRestartFile = "restart.h5";

struct RestartState {
  long step = 0;
  std::array<double, 4> energy{};  // the TimeSeries sums, in the order above
};

// Whether the scene's scheme can be restarted bit for bit; `why` says why not.
bool restartable(const Scene& scene, std::string* why = nullptr);

// Writes the archive of the scene's current state to `file` (through a temporary file and a rename).
// Throws std::runtime_error naming the file.
void write_scene_restart(const std::filesystem::path& file, const Scene& scene, const RestartState& state,
                         const std::vector<std::string>& columns);

// Validates the archive against the scene (same systems, interactions and step size; finite values; a clock
// consistent with the step count and before t_end) and loads it into scene.model. Every problem is thrown as
// std::runtime_error naming the archive and the dataset.
RestartState read_scene_restart(const std::filesystem::path& file, Scene& scene, const std::vector<std::string>& columns);

}  // namespace talus::app
