#include "apps/SceneReader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <cstdio>
#include <sstream>

namespace talus::app {

namespace {

const char* kind_name(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "nothing (null)";
    default: return "an undefined value";
  }
}

std::string describe(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  return kind_name(n);
}

// Edit distance, to suggest the key a typo meant.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string size_expectation(Index n, std::string_view why) {
  std::string s = "expected " + std::to_string(n);
  if (!why.empty()) s += ": " + std::string(why);
  return s;
}

}  // namespace

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return std::string(parent) + "." + std::string(key);
}

std::string index_path(std::string_view parent, std::size_t i) {
  return std::string(parent) + "[" + std::to_string(i) + "]";
}

SourcePosition SceneReader::position(const YAML::Mark& mark) const {
  if (mark.is_null()) return {file_, 0, 0};
  return {file_, mark.line + 1, mark.column + 1};
}

void SceneReader::fail(const Field& at, std::string_view what) const {
  throw SceneError(position(at.mark), at.path, what);
}

Field SceneReader::load() const {
  std::ifstream in(file_);
  if (!in) throw SceneError({file_, 0, 0}, "", "cannot open the scene file");
  std::stringstream text;
  text << in.rdbuf();
  return load_string(text.str());
}

namespace {

// The 1-based line of the marker that opens the second document: a `---` after content, or any content after a
// `...` end marker. A leading `---` before the first content (an explicit start of the only document) is fine.
int second_document_line(const std::string& text) {
  bool content = false, ended = false;
  int line = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view l(text.data() + pos, eol - pos);
    ++line;
    const auto marker = [&](std::string_view m) {
      return l.substr(0, 3) == m && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    };
    const std::size_t first = l.find_first_not_of(" \t\r");
    const bool blank = first == std::string_view::npos || l[first] == '#';
    if (marker("---")) {
      if (content || ended) return line;
      // `--- value` carries content on the marker line itself.
      const std::size_t rest = l.find_first_not_of(" \t\r", 3);
      if (rest != std::string_view::npos && l[rest] != '#') content = true;
    } else if (marker("...")) {
      ended = true;
    } else if (!blank) {
      if (ended) return line;
      content = true;
    }
    pos = eol + 1;
  }
  return 0;
}

// The first byte that YAML's character set does not allow (a C0 control other than tab, LF and CR, DEL, or a
// byte that is not part of valid UTF-8), with its 1-based line and column; false when there is none. Checked
// before parsing because yaml-cpp 0.7 never returns on some such inputs (found by the scene fuzzer:
// tests/fuzz/crashers/scene/hang-yaml-cpp-*), and a scene with them is not text anyway.
bool first_unprintable(const std::string& text, int& line, int& column, unsigned& byte) {
  line = 1, column = 1;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = s[i];
    byte = c;
    if (c == '\n') {
      ++line, column = 1, ++i;
      continue;
    }
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F) return true;
    std::size_t len = 1;
    if (c >= 0x80) {
      // UTF-8: C2..DF one continuation byte, E0..EF two, F0..F4 three (no overlongs, no surrogates).
      if (c >= 0xC2 && c <= 0xDF) len = 2;
      else if (c >= 0xE0 && c <= 0xEF) len = 3;
      else if (c >= 0xF0 && c <= 0xF4) len = 4;
      else return true;
      if (i + len > n) return true;
      for (std::size_t k = 1; k < len; ++k)
        if ((s[i + k] & 0xC0) != 0x80) return true;
      if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] >= 0xA0) || (c == 0xF0 && s[i + 1] < 0x90) ||
          (c == 0xF4 && s[i + 1] >= 0x90))
        return true;
    }
    i += len, ++column;
  }
  return false;
}

}  // namespace

Field SceneReader::load_string(const std::string& text) const {
  int bad_line = 0, bad_column = 0;
  unsigned bad_byte = 0;
  if (first_unprintable(text, bad_line, bad_column, bad_byte)) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", bad_byte);
    throw SceneError({file_, bad_line, bad_column}, "",
                     std::string("byte ") + hex + " is not text (expected UTF-8 without control characters "
                     "other than tab and line breaks)");
  }
  // A second document is refused where it starts, before parsing (so whatever follows it, syntax errors
  // included, never passes silently); the one document is then parsed with YAML::Load, not LoadAll, which in
  // yaml-cpp 0.7 never returns on some one-character inputs such as "," (found by the scene fuzzer:
  // tests/fuzz/crashers/scene/hang-yaml-cpp-LoadAll-comma).
  if (const int line = second_document_line(text); line > 0)
    throw SceneError({file_, line, 1}, "",
                     "a second YAML document starts here (expected one scene per file: remove the '---' "
                     "and what follows, or put it in its own file)");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw SceneError(position(e.mark), "", "YAML syntax error: " + e.msg);
  }
  Field f{root, "", root.Mark()};
  if (!root.IsMap()) {
    if (root.IsNull()) f.mark = YAML::Mark();  // an empty file: point at its start
    throw SceneError(position(f.mark), "",
                     std::string("the scene is ") + kind_name(root) + " (expected a map of sections: name, "
                     "lti_systems, spheres, planes, planar_blocks, laws, interactions, contacts, integrator, …)");
  }
  return f;
}

void SceneReader::expect_map(const Field& f, std::initializer_list<std::string_view> allowed) const {
  if (!f.node.IsMap()) fail(f, std::string("is ") + describe(f.node) + " (expected a map)");
  std::vector<std::string> seen;
  for (auto it = f.node.begin(); it != f.node.end(); ++it) {
    const Field key{it->first, f.path, it->first.Mark()};
    if (!it->first.IsScalar()) fail(key, "a map key must be a plain name");
    const std::string& k = it->first.Scalar();
    if (std::find(seen.begin(), seen.end(), k) != seen.end())
      fail({it->first, join_path(f.path, k), it->first.Mark()}, "duplicate key (expected each key once)");
    seen.push_back(k);
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    std::string expected, suggestion;
    std::size_t best = 3;  // suggest only close matches
    for (std::string_view a : allowed) {
      expected += (expected.empty() ? "" : ", ") + std::string(a);
      const std::size_t d = edit_distance(k, a);
      if (d < best) best = d, suggestion = a;
    }
    std::string msg = "unknown key (";
    if (!suggestion.empty()) msg += "did you mean '" + suggestion + "'? ";
    msg += "expected one of: " + expected + ")";
    fail({it->first, join_path(f.path, k), it->first.Mark()}, msg);
  }
}

std::optional<Field> SceneReader::optional(const Field& map, std::string_view key) const {
  for (auto it = map.node.begin(); it != map.node.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key)
      return Field{it->second, join_path(map.path, key), it->second.Mark()};
  return std::nullopt;
}

Field SceneReader::required(const Field& map, std::string_view key) const {
  if (auto f = optional(map, key)) return *f;
  Field missing{YAML::Node(), join_path(map.path, key), map.mark};
  fail(missing, "missing (required)");
}

std::vector<Field> SceneReader::list(const Field& f) const {
  if (!f.node.IsSequence()) fail(f, std::string("is ") + describe(f.node) + " (expected a list)");
  std::vector<Field> items;
  for (std::size_t i = 0; i < f.node.size(); ++i) {
    const YAML::Node item = f.node[i];
    items.push_back({item, index_path(f.path, i), item.Mark()});
  }
  return items;
}

double SceneReader::scalar_number(const Field& f, std::string_view what_expected) const {
  double x = 0.0;
  if (!f.node.IsScalar() || !YAML::convert<double>::decode(f.node, x))
    fail(f, "is " + describe(f.node) + " (expected " + std::string(what_expected) + ")");
  if (!std::isfinite(x)) fail(f, "is " + describe(f.node) + " (expected a finite number)");
  return x;
}

double SceneReader::number(const Field& f) const { return scalar_number(f, "a number"); }

double SceneReader::positive(const Field& f) const {
  const double x = scalar_number(f, "a positive number");
  if (!(x > 0.0)) fail(f, "is " + f.node.Scalar() + " (expected a positive number)");
  return x;
}

double SceneReader::non_negative(const Field& f) const {
  const double x = scalar_number(f, "a number >= 0");
  if (!(x >= 0.0)) fail(f, "is " + f.node.Scalar() + " (expected a number >= 0)");
  return x;
}

double SceneReader::in_range(const Field& f, double lo, double hi) const {
  std::ostringstream range;
  range << "a number in [" << lo << ", " << hi << "]";
  const double x = scalar_number(f, range.str());
  if (x < lo || x > hi) fail(f, "is " + f.node.Scalar() + " (expected " + range.str() + ")");
  return x;
}

int SceneReader::integer(const Field& f) const {
  int x = 0;
  if (!f.node.IsScalar() || !YAML::convert<int>::decode(f.node, x))
    fail(f, "is " + describe(f.node) + " (expected an integer)");
  return x;
}

bool SceneReader::boolean(const Field& f) const {
  bool x = false;
  if (!f.node.IsScalar() || !YAML::convert<bool>::decode(f.node, x))
    fail(f, "is " + describe(f.node) + " (expected true or false)");
  return x;
}

std::string SceneReader::string(const Field& f) const {
  if (!f.node.IsScalar() || f.node.Scalar().empty())
    fail(f, "is " + describe(f.node) + " (expected a non-empty string)");
  return f.node.Scalar();
}

Vector SceneReader::vector(const Field& f, Index size, std::string_view why) const {
  if (!f.node.IsSequence()) {
    std::string expected = size >= 0 ? "a list of " + std::to_string(size) + " numbers" : "a list of numbers";
    if (!why.empty()) expected += ": " + std::string(why);
    fail(f, "is " + describe(f.node) + " (expected " + expected + ")");
  }
  const std::vector<Field> items = list(f);
  if (size >= 0 && static_cast<Index>(items.size()) != size)
    fail(f, "has " + std::to_string(items.size()) + " entries (" + size_expectation(size, why) + ")");
  Vector v(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) v[i] = number(items[i]);
  return v;
}

Matrix SceneReader::matrix(const Field& f, Index rows, Index cols, std::string_view why) const {
  const auto dims = [](Index r, Index c) { return std::to_string(r) + "×" + std::to_string(c); };
  const auto known = [](Index n) { return n >= 0 ? std::to_string(n) : std::string("any"); };
  const std::string expected_dims = known(rows) + "×" + known(cols);
  const auto size_error = [&](Index r, Index c) {
    std::string msg = "is " + dims(r, c) + " (expected " + expected_dims;
    if (!why.empty()) msg += ": " + std::string(why);
    fail(f, msg + ")");
  };
  if (f.node.IsMap()) {
    expect_map(f, {"diag"});
    const Vector d = vector(required(f, "diag"));
    const Index n = d.size();
    if ((rows >= 0 && rows != n) || (cols >= 0 && cols != n)) size_error(n, n);
    return d.asDiagonal();
  }
  if (!f.node.IsSequence())
    fail(f, "is " + describe(f.node) + " (expected a matrix: a list of rows like [[1, 0], [0, 1]], or {diag: [..]})");
  const std::vector<Field> row_fields = list(f);
  if (row_fields.empty()) fail(f, "is empty (expected a matrix with at least one row)");
  std::vector<Vector> row_values;
  for (const Field& r : row_fields) {
    if (!r.node.IsSequence())
      fail(r, "is " + describe(r.node) + " (expected a row: a list of numbers, as in [[1, 0], [0, 1]])");
    row_values.push_back(vector(r));
    if (row_values.back().size() != row_values.front().size())
      fail(r, "has " + std::to_string(row_values.back().size()) + " entries (expected " +
                  std::to_string(row_values.front().size()) + ", like the first row)");
  }
  const Index r = static_cast<Index>(row_values.size()), c = row_values.front().size();
  if ((rows >= 0 && rows != r) || (cols >= 0 && cols != c)) size_error(r, c);
  Matrix m(r, c);
  for (Index i = 0; i < r; ++i) m.row(i) = row_values[i].transpose();
  return m;
}

}  // namespace talus::app
