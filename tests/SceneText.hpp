#pragma once
// Scene files as text for the tests that load an example with a change (any test area): the file read from the
// source tree, and one exact replacement that must find its target (so a test cannot silently load the
// unchanged scene after the example was edited).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

namespace talus::test {

inline std::string read_text(const std::string& relative) {
  std::ifstream in(std::string(TALUS_SOURCE_DIR) + "/" + relative);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace talus::test
