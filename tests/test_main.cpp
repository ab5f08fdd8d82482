#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TALUS_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(TALUS_TEST_ASAN)
// LeakSanitizer reads this at start-up in every sanitized test binary, however ctest or a user runs it.
// Debian's Assimp 5.2.5 leaks the aiMesh and aiNode it has allocated when its ASCII STL reader throws on a
// truncated file (reproduced outside Talus with a bare Importer::ReadFile); apps/MeshFile.cpp owns only the
// Importer, which frees everything else. Leaks allocated inside libassimp are therefore Assimp's, not ours.
extern "C" const char* __lsan_default_suppressions() { return "leak:libassimp.so\n"; }
#endif
