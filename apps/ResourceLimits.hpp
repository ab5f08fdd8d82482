#pragma once
// Sizes read from a scene, an override or a flag are bounded before anything is allocated (issue 12 item 1):
// a scene that asks for more memory than the machine has (or than --max-memory allows) is refused with one
// line naming the field and the estimate, instead of growing until the kernel kills the process.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace talus::app {

// "4G", "512M", "1.5GiB", "2000000" (bytes), "64k": binary multiples (K = 1024). Throws std::invalid_argument
// naming the text when it is not a positive size.
std::uint64_t parse_memory_size(std::string_view text);

// MemAvailable of /proc/meminfo (what the kernel can give without swapping); nullopt where it is unknown.
std::optional<std::uint64_t> available_memory();

// "1.5 GiB", "812 MiB", "640 B".
std::string format_bytes(double bytes);

// a·b and a + b on sizes, nullopt on overflow (checked arithmetic for every size read from a file).
std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b);
std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b);

}  // namespace talus::app
