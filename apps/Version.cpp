#include "apps/Version.hpp"

namespace talus::app {
const char* version() { return TALUS_VERSION; }
}  // namespace talus::app
