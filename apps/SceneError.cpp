#include "apps/SceneError.hpp"

namespace talus::app {

namespace {
std::string format_line(const SourcePosition& at, std::string_view field, std::string_view what) {
  std::string s = at.file;
  if (at.line > 0) {
    s += ':' + std::to_string(at.line);
    if (at.column > 0) s += ':' + std::to_string(at.column);
  }
  s += ": ";
  if (!field.empty()) {
    s += "field '";
    s += field;
    s += "': ";
  }
  s += what;
  // One line, whatever the message carried (YAML parser messages, user strings echoed back).
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
}  // namespace

SceneError::SceneError(const SourcePosition& at, std::string_view field, std::string_view what)
    : std::runtime_error(format_line(at, field, what)), position_(at), field_(field) {}

}  // namespace talus::app
