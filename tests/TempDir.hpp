#pragma once
// A folder of its own under the system's temporary directory for a test (any area), created empty and removed
// with everything in it when the test ends; write() puts a text file into it.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace talus::test {

struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& prefix = "talus_test") {
    static int counter = 0;
    dir = std::filesystem::temp_directory_path() /
          (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
};

}  // namespace talus::test
