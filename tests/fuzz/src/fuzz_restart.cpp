// libFuzzer harness: the restart archive readers of both paths (apps/RestartArchive.hpp's one layout) on HDF5
// files built from the input text (Hdf5Text.hpp; seeds in tests/fuzz/corpus/restart): the large path's
// read_restart (apps/LargePathRestart.hpp) into an empty model, and the small path's read_scene_restart
// (apps/SceneRestart.hpp) into the scene below (a paddle on a revolute joint and a driver, two beads found by
// the detection stage, generalized-α: listed and detected interactions and the scheme's accelerations). Each
// reader refuses the other path's archive, so every input goes through both.
#include <cstddef>
#include <cstdint>
#include <string>

#include "apps/LargePathRestart.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/SceneRestart.hpp"
#include "apps/TimeSeries.hpp"
#include "tests/fuzz/src/FuzzSupport.hpp"
#include "tests/fuzz/src/Hdf5Text.hpp"

namespace {

// The scene of the small-path seeds (tests/fuzz/corpus/restart/small_*.txt were written from its archives).
constexpr const char* kScene = R"(name: fuzz_paddle
gravity: [0.0, 0.0, -9.81]
spheres:
  - {name: paddle, position: [0.1, 0.0, 0.03], radius: 0.02, density: 7800, velocity: [0.0, 0.2, 0.0],
     angular_velocity: [0.0, 0.0, 2.0]}
  - {name: b00, position: [0.07459, 0.04075, 0.009], radius: 0.009, density: 2500}
  - {name: b01, position: [0.06219, 0.05794, 0.009], radius: 0.009, density: 2500}
planes:
  - {name: floor, normal: [0.0, 0.0, 1.0], offset: 0.0}
interactions:
  - {name: hinge, type: revolute_joint, systems: [paddle], anchor: [0.0, 0.0, 0.03], axis: [0.0, 0.0, 1.0]}
  - {name: drive, type: driver, systems: [paddle], axis: [0.0, 0.0, 1.0], rate: 2.0}
contacts:
  law: {type: newton_friction, e: 0.0, mu: 0.3, dim: 3}
  detect: true
integrator:
  scheme: generalized_alpha
  h: 1.0e-3
  t_end: 1.0
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = talus::fuzz::scratch_file("restart.h5");
  static const talus::app::Scene scene = talus::app::load_scene_from_string(kScene, "fuzz_paddle.yaml");
  static const std::vector<std::string> columns = talus::app::TimeSeries(scene).columns();
  if (!talus::fuzz::write_hdf5_from_text(std::string(reinterpret_cast<const char*>(data), size), path)) return 0;
  talus::Model model;
  talus::fuzz::expect_clean("read_restart", path, [&] { talus::app::read_restart(path, model); });
  talus::app::Scene small = scene;
  talus::fuzz::expect_clean("read_scene_restart", path,
                            [&] { talus::app::read_scene_restart(path, small, columns); });
  return 0;
}
