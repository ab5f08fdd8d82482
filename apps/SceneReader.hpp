#pragma once
// Typed, position-aware access to a parsed YAML scene. Every accessor either returns a checked value or throws
// SceneError naming the file, line, column and dotted field path ("spheres[2].radius"), so the scene loader
// reads like a schema and no malformed input slips through: wrong types, wrong sizes, unknown or duplicated
// keys (typos) and missing required fields are all errors.
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apps/SceneError.hpp"
#include "solvers/core/SparseTypes.hpp"

namespace talus::app {

// A YAML node with its field path and source position (for an absent key: the position of its parent map).
struct Field {
  YAML::Node node;
  std::string path;
  YAML::Mark mark;
};

class SceneReader {
 public:
  explicit SceneReader(std::string file) : file_(std::move(file)) {}

  // Parses the file; a YAML syntax error or an empty document becomes a SceneError.
  Field load() const;
  // Parses text in memory (tests, embedded scenes); `file` names it in messages.
  Field load_string(const std::string& text) const;

  [[noreturn]] void fail(const Field& at, std::string_view what) const;
  SourcePosition position(const YAML::Mark& mark) const;
  const std::string& file() const { return file_; }

  // Checks that `f` is a map whose keys are all in `allowed`, each at most once.
  void expect_map(const Field& f, std::initializer_list<std::string_view> allowed) const;
  Field required(const Field& map, std::string_view key) const;
  std::optional<Field> optional(const Field& map, std::string_view key) const;
  std::vector<Field> list(const Field& f) const;  // a sequence (an empty one is fine)

  double number(const Field& f) const;             // finite
  double positive(const Field& f) const;           // > 0
  double non_negative(const Field& f) const;       // >= 0
  double in_range(const Field& f, double lo, double hi) const;  // lo <= x <= hi
  int integer(const Field& f) const;
  bool boolean(const Field& f) const;
  std::string string(const Field& f) const;        // a non-empty scalar
  // `size` < 0 accepts any length; `why` explains an expected size in the message ("one per coordinate").
  Vector vector(const Field& f, Index size = -1, std::string_view why = {}) const;
  // A dense list of rows, or {diag: [..]}. `rows`/`cols` < 0 accept any size (rows all of the same length).
  Matrix matrix(const Field& f, Index rows = -1, Index cols = -1, std::string_view why = {}) const;

  // A string among named choices: variant: standard|dissipative|paoli.
  template <class E>
  E choice(const Field& f, std::initializer_list<std::pair<std::string_view, E>> choices) const {
    const std::string s = string(f);
    for (const auto& [name, value] : choices)
      if (s == name) return value;
    std::string expected;
    for (const auto& c : choices) expected += (expected.empty() ? "" : ", ") + std::string(c.first);
    fail(f, "unknown value '" + s + "' (expected one of: " + expected + ")");
  }

 private:
  double scalar_number(const Field& f, std::string_view what_expected) const;
  std::string file_;
};

// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
std::string join_path(std::string_view parent, std::string_view key);
std::string index_path(std::string_view parent, std::size_t i);  // "a.b[3]"

}  // namespace talus::app
