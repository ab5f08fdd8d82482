#include "apps/PythonInterpreter.hpp"

#include <cstdlib>
#include <filesystem>

namespace talus::app {

std::string python_interpreter() {
  if (const char* env = std::getenv("TALUS_PYTHON"); env && *env) return env;
  std::error_code ec;
  if (std::filesystem::exists("/usr/bin/python3", ec)) return "/usr/bin/python3";
  return "python3";
}

}  // namespace talus::app
