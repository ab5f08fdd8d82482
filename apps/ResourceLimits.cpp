#include "apps/ResourceLimits.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace talus::app {

std::uint64_t parse_memory_size(std::string_view text) {
  const std::string s(text);
  const auto bad = [&]() -> std::uint64_t {
    throw std::invalid_argument("'" + s + "' is not a memory size (expected a number of bytes with an optional "
                                "unit K, M, G or T, e.g. 512M or 4G)");
  };
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    bad();
  }
  std::string unit = s.substr(used);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 1.0;
  if (unit.empty() || unit == "B") scale = 1.0;
  else if (unit == "K" || unit == "KB" || unit == "KIB") scale = 1024.0;
  else if (unit == "M" || unit == "MB" || unit == "MIB") scale = 1024.0 * 1024.0;
  else if (unit == "G" || unit == "GB" || unit == "GIB") scale = 1024.0 * 1024.0 * 1024.0;
  else if (unit == "T" || unit == "TB" || unit == "TIB") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  else bad();
  const double bytes = value * scale;
  // 2^63 is far above any machine and keeps the conversion exact-safe.
  if (!std::isfinite(bytes) || !(bytes >= 1.0) || bytes > 9.2e18) bad();
  return static_cast<std::uint64_t>(bytes);
}

std::optional<std::uint64_t> available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return std::nullopt;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, ++u;
  char buf[48];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace talus::app
