#pragma once
// The version `talus --version` prints and run.json records, from the CMake project version.
namespace talus::app {
const char* version();
}  // namespace talus::app
