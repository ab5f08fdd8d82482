// libFuzzer harness: the granular restart archive reader (apps/GranularOutput.hpp read_restart) on HDF5 files
// built from the input text (Hdf5Text.hpp; seeds in tests/fuzz/corpus/restart).
#include <cstddef>
#include <cstdint>
#include <string>

#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "tests/fuzz/src/FuzzSupport.hpp"
#include "tests/fuzz/src/Hdf5Text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = talus::fuzz::scratch_file("restart.h5");
  if (!talus::fuzz::write_hdf5_from_text(std::string(reinterpret_cast<const char*>(data), size), path)) return 0;
  talus::Model model;
  talus::fuzz::expect_clean("read_restart", path, [&] { talus::app::read_restart(path, model); });
  return 0;
}
