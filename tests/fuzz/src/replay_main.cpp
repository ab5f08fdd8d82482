// Replays files through a harness's LLVMFuzzerTestOneInput without libFuzzer (the normal build's ctest): each
// argument is a file or a folder of files (sorted; README* skipped). A harness that finds a fault aborts, so the
// test fails naming the input last printed.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int a = 1; a < argc; ++a) {
    const fs::path arg = argv[a];
    if (fs::is_directory(arg)) {
      for (const auto& e : fs::directory_iterator(arg))
        if (e.is_regular_file() && e.path().filename().string().rfind("README", 0) != 0) inputs.push_back(e.path());
    } else if (fs::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[a]);
      return 1;
    }
  }
  std::sort(inputs.begin(), inputs.end());
  for (const auto& file : inputs) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("replay: %s (%zu bytes)\n", file.string().c_str(), bytes.size());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu inputs, no fault\n", inputs.size());
  return inputs.empty() ? 1 : 0;  // an empty corpus would make the test pass without reading anything
}
