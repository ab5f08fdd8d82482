#pragma once
// Numbers as text. In messages: six significant digits in whatever notation is shorter (%.6g). std::to_string
// prints a double with %f, so a residual of 1e-7 read "0.000000" and a tolerance of 1e-12 "0.000000" in failure
// messages. For values handed on (a flag echoed in run.json, an override passed to the loader): the shortest text
// that reads back as the same double (0.2, not 0.20000000000000001).
#include <charconv>
#include <cstdio>
#include <string>

namespace talus {

inline std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

inline std::string exact_number_text(double x) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, x).ptr;
  return std::string(text, end);
}

}  // namespace talus
