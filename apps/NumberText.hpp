#pragma once
// A double as the shortest text that reads back as the same double (0.2, not 0.20000000000000001): how a flag's
// value is echoed in messages and run.json, and handed on as an override without losing a bit.
#include <charconv>
#include <string>

namespace talus::app {

inline std::string number_text(double x) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, x).ptr;
  return std::string(buf, end);
}

}  // namespace talus::app
