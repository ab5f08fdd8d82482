#pragma once
// A malformed scene is reported on ONE line that a user (or an editor's error parser) can jump to:
//   FILE:LINE:COL: field 'a.b.c': what is wrong (expected …)
// Lines and columns are 1-based. Every check of the scene loader throws this type, so the command prints
// `what()` and nothing else.
#include <stdexcept>
#include <string>
#include <string_view>

namespace talus::app {

struct SourcePosition {
  std::string file;
  int line = 0;    // 1-based; 0 = unknown (the whole file)
  int column = 0;  // 1-based; 0 = unknown
};

class SceneError : public std::runtime_error {
 public:
  // `field` may be empty (syntax errors, a scene that is not a map).
  SceneError(const SourcePosition& at, std::string_view field, std::string_view what);

  const SourcePosition& position() const { return position_; }
  const std::string& field() const { return field_; }

 private:
  SourcePosition position_;
  std::string field_;
};

}  // namespace talus::app
