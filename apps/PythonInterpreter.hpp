#pragma once
// Which python3 runs the plotting scripts. Debian's python3-matplotlib installs into the system interpreter,
// while a user's PATH may put another python3 first (pyenv, conda) that lacks it; so the system one is
// preferred, and TALUS_PYTHON overrides both.
#include <string>

namespace talus::app {

// $TALUS_PYTHON if set, else /usr/bin/python3 if it exists, else "python3" (looked up on PATH).
std::string python_interpreter();

}  // namespace talus::app
