// The talus executable: everything it does is apps/Cli.cpp (docs/cli.md).
#include "apps/Cli.hpp"

int main(int argc, char** argv) { return talus::app::cli_main(argc, argv); }
