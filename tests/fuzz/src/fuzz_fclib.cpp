// libFuzzer harness: the FCLIB reader (solvers/fc/FclibIO.hpp), local and global, on HDF5 files built from the
// input text (Hdf5Text.hpp; seeds in tests/fuzz/corpus/fclib). The reader entry points run with a 64 MiB memory
// bound, so that a size the reader fails to check shows as a malloc over libFuzzer's limit.
#include <cstddef>
#include <cstdint>
#include <string>

#include "solvers/fc/FclibIO.hpp"
#include "tests/fuzz/src/FuzzSupport.hpp"
#include "tests/fuzz/src/Hdf5Text.hpp"

using namespace talus::solvers;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = talus::fuzz::scratch_file("fclib.hdf5");
  if (!talus::fuzz::write_hdf5_from_text(std::string(reinterpret_cast<const char*>(data), size), path)) return 0;
  const FclibLimits limits{64u << 20};
  using talus::fuzz::expect_clean;
  // Each entry point opens the file again (a few ms under ASan): read_fclib_problem is fclib_kind followed by the
  // local reader, or by the global one and the condensation; the local reader also reports a file that is
  // neither (the error path of a foreign file).
  switch (fclib_kind(path)) {  // never throws
    case FclibKind::Local:
      expect_clean("read_fclib_local", path, [&] { read_fclib_local(path, limits); });
      expect_clean("read_fclib_solution_r", path, [&] { read_fclib_solution_r(path, limits); });
      break;
    case FclibKind::Global:
      expect_clean("read_fclib_problem", path, [&] { read_fclib_problem(path, limits); });
      break;
    case FclibKind::NotFclib:
      expect_clean("read_fclib_global", path, [&] { read_fclib_global(path, limits); });
      break;
  }
  return 0;
}
