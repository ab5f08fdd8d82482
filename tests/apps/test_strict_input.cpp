// Strict scene input (issue 12 item 6 and the sizes of item 1): a second YAML document, keys the chosen scheme
// does not read, laws nothing uses, h against t_end and sizes whose memory estimate exceeds the limit are all
// refused with one line naming the place; overrides (--set, --h, --t-end) go through the same checks and
// their problems name the override.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "apps/GranularSceneFile.hpp"
#include "apps/ResourceLimits.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/SceneRun.hpp"

using namespace talus;
using namespace talus::app;

namespace {

// A valid one-ball scene; line numbers below refer to it.
const std::string kBall =
    "name: ball\n"                             // 1
    "lti_systems:\n"                           // 2
    "  - name: ball\n"                         // 3
    "    M: [[1.0]]\n"                         // 4
    "    f_const: [-2.0]\n"                    // 5
    "    q0: [1.0]\n"                          // 6
    "interactions:\n"                          // 7
    "  - name: floor\n"                        // 8
    "    type: linear\n"                       // 9
    "    systems: [ball]\n"                    // 10
    "    C: [[1.0]]\n"                         // 11
    "    law: {type: newton, e: 0.5}\n"        // 12
    "integrator:\n"                            // 13
    "  h: 0.001\n"                             // 14
    "  t_end: 1.0\n";                          // 15

std::string error_of(const std::string& text, const LoadOptions& options = {}) {
  try {
    load_scene_from_string(text, "s.yaml", options);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "(accepted)";
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

LoadOptions with(std::initializer_list<const char*> sets) {
  LoadOptions o;
  for (const char* s : sets) o.overrides.push_back(parse_override(s));
  return o;
}

}  // namespace

TEST_CASE("a second YAML document is refused at its marker, syntax errors after it included", "[apps][strict]") {
  CHECK(error_of(kBall + "---\nname: other\n") ==
        "s.yaml:16:1: a second YAML document starts here (expected one scene per file: remove the '---' and what "
        "follows, or put it in its own file)");
  CHECK(starts(error_of(kBall + "---\n"), "s.yaml:16:1: a second YAML document"));
  CHECK(starts(error_of(kBall + "...\nname: x\n"), "s.yaml:17:1: a second YAML document"));
  // A syntax error in the ignored part used to pass: the second document is refused at its marker.
  CHECK(starts(error_of(kBall + "---\nkey: [unclosed\n"), "s.yaml:16:1: a second YAML document"));
  // A syntax error in the one document is reported with its position.
  CHECK(error_of(kBall + "key: [unclosed\n").find("YAML syntax error") != std::string::npos);
  // yaml-cpp 0.7's LoadAll never returned on a lone ',' (the scene fuzzer's hang): refused at once.
  CHECK(starts(error_of(","), "s.yaml:1:1: the scene is"));
  // An explicit start of the only document is fine, comments before it too.
  CHECK_NOTHROW(load_scene_from_string("# a scene\n---\n" + kBall, "s.yaml"));
  CHECK_NOTHROW(load_scene_from_string(kBall + "...\n# trailing comment\n", "s.yaml"));
}

TEST_CASE("integrator keys the chosen scheme does not read are refused at their position", "[apps][strict]") {
  CHECK(starts(error_of(kBall + "  rho_infinity: 0.5\n"),
               "s.yaml:16:3: field 'integrator.rho_infinity': is not read by scheme moreau_jean (its keys: scheme, h, "
               "t_end, theta"));
  CHECK(starts(error_of(kBall + "  scheme: generalized_alpha\n  theta: 1.0\n"),
               "s.yaml:17:3: field 'integrator.theta': is not read by scheme generalized_alpha"));
  CHECK(starts(error_of(kBall + "  scheme: newmark\n  hht_alpha: 0.1\n"),
               "s.yaml:17:3: field 'integrator.hht_alpha': is not read by scheme newmark"));
  // Every scheme's own keys pass, Newton's settings for the second-order schemes included.
  CHECK_NOTHROW(load_scene_from_string(kBall + "  scheme: hht\n  hht_alpha: 0.1\n  newton_tolerance: 1e-9\n", "s.yaml"));
  CHECK_NOTHROW(load_scene_from_string(kBall + "  scheme: generalized_alpha\n  rho_infinity: 0.5\n", "s.yaml"));
  // Under event_driven the Moreau–Jean keys are ignored with a warning (the example scenes switch the scheme
  // line only); keys of the other schemes are refused.
  std::vector<std::string> warnings;
  LoadOptions o;
  o.warnings = &warnings;
  CHECK_NOTHROW(load_scene_from_string(kBall + "  scheme: event_driven\n  theta: 0.5\n", "s.yaml", o));
  REQUIRE(warnings.size() == 1);
  CHECK(starts(warnings[0], "s.yaml:17:3: field 'integrator.theta': is not read by scheme event_driven"));
  CHECK(starts(error_of(kBall + "  scheme: event_driven\n  sp_theta: 0.2\n"),
               "s.yaml:17:3: field 'integrator.sp_theta': is not read by scheme event_driven"));
}

TEST_CASE("a law defined under laws: that nothing uses is refused", "[apps][strict]") {
  const std::string text = "laws:\n  spare: {type: newton, e: 0.1}\n" + kBall;
  CHECK(starts(error_of(text), "s.yaml:2:3: field 'laws.spare': law 'spare' is defined but no interaction"));
  const std::string used = replace_once(text, "law: {type: newton, e: 0.5}", "law: spare");
  CHECK_NOTHROW(load_scene_from_string(used, "s.yaml"));
}

TEST_CASE("h is checked against t_end, and a run never ends past t_end", "[apps][strict]") {
  const std::string big_h = replace_once(kBall, "h: 0.001", "h: 2.0");
  CHECK(error_of(big_h) == "s.yaml:14:6: field 'integrator.h': is 2, larger than t_end = 1 (expected h <= t_end: "
                           "the run would take no step, or end past t_end)");
  CHECK(starts(error_of(replace_once(kBall, "h: 0.001", "h: 1e300")), "s.yaml:14:6: field 'integrator.h': is 1e+300, larger"));
  CHECK(starts(error_of(replace_once(kBall, "h: 0.001", "h: 1e-300")),
               "s.yaml:14:6: field 'integrator.h': is 1e-300: t_end / h = 1e+300 steps (expected at most 1e+15"));
  // h = t_end is one step; t_end not a multiple of h stops short of t_end, never past it.
  Scene one = load_scene_from_string(replace_once(kBall, "h: 0.001", "h: 1.0"), "s.yaml");
  CHECK(planned_steps(one) == 1);
  Scene odd = load_scene_from_string(replace_once(kBall, "h: 0.001", "h: 0.3"), "s.yaml");
  CHECK(planned_steps(odd) == 3);
  CHECK(3 * 0.3 <= odd.t_end);
  Scene exact = load_scene_from_string(kBall, "s.yaml");
  CHECK(planned_steps(exact) == 1000);  // 1 / 0.001 is 999.9999999999999 in doubles
}

TEST_CASE("sizes are bounded by a memory estimate before anything is allocated", "[apps][strict]") {
  const std::string beam =
      "corotational_beams:\n"
      "  - {name: beam, length: 1.0, elements: 100000000, EA: 1.0e4, EI: 2.0, rho_A: 1.0}\n"
      "integrator: {scheme: generalized_alpha, h: 1.0e-3, t_end: 1.0}\n";
  LoadOptions limit;
  limit.max_memory = parse_memory_size("1G");
  const std::string e = error_of(beam, limit);
  CHECK(starts(e, "s.yaml:2:41: field 'corotational_beams[0].elements': 100000000 elements (300000003 coordinates, "
                  "dense tangent and iteration matrices) needs about "));
  CHECK(e.find("more than the 1 GiB allowed by --max-memory") != std::string::npos);
  // Without --max-memory the bound is the machine's available memory: 10^8 elements exceed any machine.
  CHECK(error_of(beam).find("of memory available") != std::string::npos);
  // A size that is not an integer (1e8) or overflows an int is refused as such.
  CHECK(error_of(replace_once(beam, "100000000", "1e8")).find("(expected an integer)") != std::string::npos);
  CHECK(error_of(replace_once(beam, "100000000", "4294967297")).find("(expected an integer)") != std::string::npos);
  // The pairs generated by contacts: are quadratic in the spheres.
  std::string spheres = "spheres:\n";
  for (int i = 0; i < 200; ++i)
    spheres += "  - {name: s" + std::to_string(i) + ", position: [" + std::to_string(3 * i) +
               ", 0, 0], radius: 1, mass: 1}\n";
  const std::string pile = spheres + "contacts: {law: {type: newton, e: 0.5}, sphere_sphere: true}\n" +
                           "integrator: {h: 1.0e-3, t_end: 1.0}\n";
  LoadOptions small;
  small.max_memory = parse_memory_size("1M");
  CHECK(error_of(pile, small).find("field 'contacts': 19900 generated contact interactions needs about 9.72 MiB") !=
        std::string::npos);
  CHECK_NOTHROW(load_scene_from_string(pile, "s.yaml"));
}

TEST_CASE("memory sizes parse with units and checked arithmetic catches overflow", "[apps][strict]") {
  CHECK(parse_memory_size("4G") == 4ull << 30);
  CHECK(parse_memory_size("512M") == 512ull << 20);
  CHECK(parse_memory_size("1.5GiB") == 3ull << 29);
  CHECK(parse_memory_size("2000") == 2000);
  CHECK_THROWS_AS(parse_memory_size("abc"), std::invalid_argument);
  CHECK_THROWS_AS(parse_memory_size("-1G"), std::invalid_argument);
  CHECK_THROWS_AS(parse_memory_size("4Q"), std::invalid_argument);
  CHECK_THROWS_AS(parse_memory_size("1e300"), std::invalid_argument);
  CHECK(!checked_mul(1ull << 32, 1ull << 32));
  CHECK(checked_mul(1ull << 31, 1ull << 32) == (1ull << 63));
  CHECK(!checked_add(~0ull, 1));
  CHECK(available_memory().value_or(1) > 0);
}

TEST_CASE("overrides go through the loader's checks and name themselves", "[apps][strict]") {
  Scene s = load_scene_from_string(kBall, "s.yaml", with({"integrator.h=2e-3", "lti_systems[0].q0=[3.0]"}));
  CHECK(s.integrator.h == 2e-3);
  CHECK(s.model.lti[0].q[0] == 3.0);
  // A key the file left out is added; a section too.
  Scene t = load_scene_from_string(kBall, "s.yaml", with({"integrator.theta=1", "output.every=10"}));
  CHECK(t.integrator.theta == 1.0);
  CHECK(t.output_every == 10);
  CHECK(error_of(kBall, with({"integrator.h=abc"})) ==
        "--set integrator.h=abc: field 'integrator.h': is 'abc' (expected a positive number)");
  CHECK(error_of(kBall, with({"integrator.h=5"})) ==
        "--set integrator.h=5: field 'integrator.h': is 5, larger than t_end = 1 (expected h <= t_end: the run "
        "would take no step, or end past t_end)");
  CHECK(starts(error_of(kBall, with({"integrator.thetta=1"})),
               "--set integrator.thetta=1: field 'integrator.thetta': unknown key (did you mean 'theta'?"));
  CHECK(starts(error_of(kBall, with({"integrator.rho_infinity=0.5"})),
               "--set integrator.rho_infinity=0.5: field 'integrator.rho_infinity': is not read by scheme moreau_jean"));
  CHECK(error_of(kBall, with({"lti_systems[3].q0=[1]"})) ==
        "--set lti_systems[3].q0=[1]: field 'lti_systems[3]': no such entry (the list has 1 entries)");
  // A list indexed with a dot, as some tools write it, is told how to write it.
  CHECK(error_of(kBall, with({"lti_systems.0.q0=[1]"})) ==
        "--set lti_systems.0.q0=[1]: field 'lti_systems.0': its parent is a list: an entry is written lti_systems[0], "
        "not lti_systems.0");
  CHECK(error_of(kBall, with({"integrator.h=[1"})).rfind("--set integrator.h=[1: field 'integrator.h': YAML syntax error", 0) == 0);
  CHECK_THROWS_AS(parse_override("novalue"), SceneError);
  // The last override of a key wins, and is the one an error names.
  CHECK(starts(error_of(kBall, with({"integrator.h=1e-3", "integrator.h=x"})), "--set integrator.h=x: "));
}

TEST_CASE("granular scenes go through the same reader: a second document is refused there too", "[apps][strict]") {
  const auto file = std::filesystem::temp_directory_path() / ("talus_strict_" + std::to_string(::getpid()) + "_g.yaml");
  std::ofstream(file) << "granular:\n  scene: bead_stack\n  n: 100\n---\ngranular:\n  n: 5\n";
  std::string message;
  try {
    check_granular_scene(file);
  } catch (const SceneError& e) {
    message = e.what();
  }
  std::filesystem::remove(file);
  CHECK(message == file.string() + ":4:1: a second YAML document starts here (expected one scene per file: remove the "
                                   "'---' and what follows, or put it in its own file)");
}

TEST_CASE("bytes that are not text are refused before parsing, naming line, column and byte", "[apps][strict]") {
  // yaml-cpp 0.7 never returned on fuzzed scenes with such bytes (tests/fuzz/crashers/scene/hang-*).
  CHECK(error_of(replace_once(kBall, "ball\n", std::string("ba\x10ll\n"))) ==
        "s.yaml:1:9: byte 0x10 is not text (expected UTF-8 without control characters other than tab and line "
        "breaks)");
  CHECK(starts(error_of(replace_once(kBall, "M: [[1.0]]", "M: [[1.0]] \xEC\x80")), "s.yaml:4:16: byte 0xEC is not text"));
  CHECK(starts(error_of(kBall + std::string("#\x7F\n")), "s.yaml:16:2: byte 0x7F"));
  CHECK(starts(error_of(kBall + std::string("# \xC0\xAF overlong\n")), "s.yaml:16:3: byte 0xC0"));
  // UTF-8 text, tabs and CR LF line ends are text.
  CHECK_NOTHROW(load_scene_from_string(kBall + "# caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x99\x82\t\r\n", "s.yaml"));
}
