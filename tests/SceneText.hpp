#pragma once
// Scene files as text for the tests that load an example with a change (any test area): the file read from
// the source tree, one exact replacement that must find its target (so a test cannot silently load the
// unchanged scene after the example was edited), and the error a malformed scene gives.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"

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

// The one line a malformed scene gives (load_scene_from_string, `file_name` naming it in the message), or
// `accepted` when it loads.
inline std::string scene_error(const std::string& text, const std::string& file_name,
                               const std::string& accepted = "") {
  try {
    app::load_scene_from_string(text, file_name);
  } catch (const app::SceneError& e) {
    return e.what();
  }
  return accepted;
}

}  // namespace talus::test
