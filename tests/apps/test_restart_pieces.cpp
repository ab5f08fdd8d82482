// A restart archive in pieces (apps/RestartPieces.hpp, issue 15 item 4), written through its protocol by one process
// whose partition holds every bead: the index reads back as the archive write_restart gives of the same state, bit
// for bit (beads in id order), the rolling resistance's and generalized-α's position warm starts included; the next
// archive replaces the pieces of the one before; a piece that cannot be written fails the call and leaves the
// archive in place readable; a missing piece, a piece of another step and a piece read alone are refused,
// each naming the file. (Several ranks: tests/distributed/talus_mpirun.sh.)
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <cstring>
#include <filesystem>

#include "apps/LargePathRestart.hpp"
#include "apps/RestartPieces.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/SameBits.hpp"

using namespace talus;
using namespace talus::granular;
using namespace talus::app;
namespace fs = std::filesystem;

namespace {

using talus::test::same_bits;

// One process holding the whole model: every bead its own, every contact reported, the reductions the values.
class WholePartition final : public ModelPartition, public SpreadBodies {
 public:
  explicit WholePartition(const Model& m) : m_(m) {}
  std::string unsupported(const Model&, const GranularParameters&) const override { return {}; }
  GranularParameters begin(Model&, const GranularParameters& p, bool) override { return p; }
  void prepare_step(GranularStepper&) override {}
  int own_beads() const override { return m_.bodies.spheres(); }
  bool counts_contact(int) const override { return true; }
  void remove_own(const std::vector<char>&) override {}
  void sum(double*, int) override {}
  void max(double*, int) override {}
  void gather(Model&, const contact::ContactCache&, contact::ContactCache&) override {}
  void gather_cache(const contact::ContactCache&, contact::ContactCache&) override {}
  SpreadBodies& spread() override { return *this; }
  PourSpread& pours() override { throw std::logic_error("WholePartition: no beads are added in these tests"); }
  void piece_cache(const contact::ContactCache& of, std::vector<contact::ContactKey>& keys,
                   std::vector<Eigen::Vector3d>& impulses) const override {
    keys = of.keys(), impulses = of.impulses();
  }
  void route_warm_start(contact::ContactCache&, std::uint32_t) override {}  // one process holds every entry
  std::string summary() override { return {}; }
  // SpreadBodies
  int own_spheres() const override { return m_.bodies.spheres(); }
  bool reports(int) const override { return true; }
  void min(double*, int) override {}
  void to_copies(const double*, double*) override {}

 private:
  const Model& m_;
};

fs::path scratch(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("talus_restart_pieces_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read_error(const fs::path& file, const Model& like) {
  Model m = like;
  try {
    read_restart(file, m);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// What read_restart gives back of an archive: the beads (id order) and the warm start.
struct State {
  Model model;
  RestartExtras extras;
};
State read_state(const fs::path& file, const Model& like) {
  State s{like, {}};
  read_restart(file, s.model, &s.extras);
  return s;
}

// The same beads with the same bits, in id order (an archive in pieces reads back in id order; a one-process
// archive holds the store's order, which the stepper's re-sorts keep along a Morton curve).
std::vector<Eigen::Vector3d> by_id(const RigidBodies& b, const std::vector<Eigen::Vector3d>& values) {
  std::vector<std::pair<std::uint32_t, int>> order;
  for (int i = 0; i < b.spheres(); ++i) order.emplace_back(b.id[i], i);
  std::sort(order.begin(), order.end());
  std::vector<Eigen::Vector3d> out;
  for (const auto& [id, i] : order) out.push_back(values[i]);
  return out;
}

void require_same(const State& a, const State& b) {
  const RigidBodies &x = a.model.bodies, &y = b.model.bodies;
  REQUIRE(x.spheres() == y.spheres());
  CHECK(std::is_sorted(x.id.begin(), x.id.begin() + x.spheres()));  // a (the pieces): id order
  CHECK(same_bits(by_id(x, x.x), by_id(y, y.x)));
  CHECK(same_bits(by_id(x, x.v), by_id(y, y.v)));
  CHECK(same_bits(by_id(x, x.w), by_id(y, y.w)));
  CHECK(a.model.step == b.model.step);
  CHECK(a.extras.cache.keys == b.extras.cache.keys);
  CHECK(same_bits(a.extras.cache.impulses, b.extras.cache.impulses));
  CHECK(a.extras.has_rolling_cache == b.extras.has_rolling_cache);
  CHECK(a.extras.rolling_cache.keys == b.extras.rolling_cache.keys);
  CHECK(same_bits(a.extras.rolling_cache.impulses, b.extras.rolling_cache.impulses));
  CHECK(a.extras.has_position_cache == b.extras.has_position_cache);
  CHECK(a.extras.position_cache.keys == b.extras.position_cache.keys);
  CHECK(same_bits(a.extras.position_cache.impulses, b.extras.position_cache.impulses));
}

// 64 beads of bead_stack settled 60 steps (rolling resistance μ_r on every pair when > 0; under generalized-α
// with `ga`), with what writing its archive in pieces takes: the scene before stepping (to read archives into), the
// one-process partition, the counters, header and step.
struct SettledRun {
  GranularScene sc;
  Model blank;
  GranularStepper stepper;
  WholePartition part;
  RunCounters counters;
  ArchiveHeader header;
  double h;
  static GranularScene scene(double rolling) {
    BeadSpec spec;
    spec.n = 64;
    GranularScene sc = bead_stack(spec);
    sc.model.materials.set_rolling(rolling);
    return sc;
  }
  static GranularParameters parameters(bool ga) {
    GranularParameters p;
    if (ga) p.scheme = GranularScheme::GeneralizedAlpha;
    return p;
  }
  explicit SettledRun(double rolling = 0.0, bool ga = false)
      : sc(scene(rolling)), blank(sc.model), stepper(sc.model, parameters(ga)), part(sc.model),
        header(large_path_header("bead_stack", stepper.parameters())), h(stepper.parameters().h) {
    for (int k = 0; k < 60; ++k) REQUIRE(stepper.step().solver.converged());
    REQUIRE(stepper.contact_cache().size() > 0);
  }
};

}  // namespace

TEST_CASE("restart archive in pieces: the index reads back as the whole archive, and replaces its pieces",
          "[apps][restart][pieces]") {
  const fs::path dir = scratch("protocol");
  SettledRun run;
  GranularScene& sc = run.sc;
  const Model& blank = run.blank;
  GranularStepper& stepper = run.stepper;
  WholePartition& part = run.part;
  PiecedRestart pieced{dir, 0, 1, {}};
  RunCounters& counters = run.counters;
  const ArchiveHeader& header = run.header;
  const double h = run.h;
  StepperArchive warm;  // Moreau–Jean without rolling resistance: the one cache
  warm.cache = &stepper.contact_cache();

  const auto files = write_pieced_restart(pieced, part, sc.model, warm, counters, header, h);
  const std::string first_piece = restart_piece_name(sc.model.step, 0);
  CHECK(files == std::vector<std::string>{kRestartFile, first_piece});
  REQUIRE(fs::is_regular_file(dir / first_piece));
  const StepperArchive whole_state = stepper_archive(stepper);
  write_restart(dir / "whole.h5", sc.model, &whole_state, &counters, &header, h);
  require_same(read_state(dir / kRestartFile, blank), read_state(dir / "whole.h5", blank));

  SECTION("the next archive replaces the pieces of the one before") {
    for (int k = 0; k < 5; ++k) REQUIRE(stepper.step().solver.converged());
    write_pieced_restart(pieced, part, sc.model, warm, counters, header, h);
    CHECK_FALSE(fs::exists(dir / first_piece));
    CHECK(fs::is_regular_file(dir / restart_piece_name(sc.model.step, 0)));
    CHECK(read_state(dir / kRestartFile, blank).model.step == sc.model.step);
  }
  SECTION("a piece that cannot be written fails the call and leaves the archive in place") {
    for (int k = 0; k < 5; ++k) REQUIRE(stepper.step().solver.converged());
    fs::create_directories(dir / restart_piece_name(sc.model.step, 0) / "blocked");  // the piece's path is taken
    CHECK_THROWS_WITH(write_pieced_restart(pieced, part, sc.model, warm, counters, header, h),
                      Catch::Contains(restart_piece_name(sc.model.step, 0)));
    require_same(read_state(dir / kRestartFile, blank), read_state(dir / "whole.h5", blank));
    CHECK(fs::is_regular_file(dir / first_piece));
  }
  SECTION("a missing piece, a piece of another step and a piece read alone are refused, naming the file") {
    fs::copy_file(dir / first_piece, dir / "kept.h5");
    fs::remove(dir / first_piece);
    CHECK_THAT(read_error(dir / kRestartFile, blank),
               Catch::Contains("piece 0 (" + first_piece + "): no such file beside the index"));
    // Another step's piece under this name: its clock says so.
    for (int k = 0; k < 5; ++k) REQUIRE(stepper.step().solver.converged());
    WholePartition later(sc.model);
    PiecedRestart other{scratch("other"), 0, 1, {}};
    write_pieced_restart(other, later, sc.model, warm, counters, header, h);
    fs::copy_file(other.dir / restart_piece_name(sc.model.step, 0), dir / first_piece);
    CHECK_THAT(read_error(dir / kRestartFile, blank), Catch::Contains("expected the pieces written with this index"));
    fs::remove(dir / first_piece);
    fs::rename(dir / "kept.h5", dir / first_piece);
    CHECK(read_error(dir / kRestartFile, blank).empty());
    CHECK_THAT(read_error(dir / first_piece, blank), Catch::Contains("is one process's piece of the archive"));
  }
}

TEST_CASE("restart archive in pieces: the rolling and position warm starts go into the pieces and read back whole",
          "[apps][restart][pieces]") {
  const bool ga = GENERATE(false, true);
  const double rolling = GENERATE(0.0, 0.1);
  CAPTURE(ga, rolling);
  const std::string name = std::string("optional") + (ga ? "_ga" : "") + (rolling > 0.0 ? "_rolling" : "");
  const fs::path dir = scratch(name.c_str());
  SettledRun run(rolling, ga);
  GranularStepper& stepper = run.stepper;
  REQUIRE(stepper.has_rolling_resistance() == (rolling > 0.0));
  if (rolling > 0.0) REQUIRE(stepper.rolling_cache().size() > 0);
  if (ga) REQUIRE(stepper.position_cache().size() > 0);
  PiecedRestart pieced{dir, 0, 1, {}};
  const StepperArchive whole_state = stepper_archive(stepper);
  CHECK((whole_state.position_cache != nullptr) == ga);
  CHECK((whole_state.rolling_cache != nullptr) == (rolling > 0.0));
  write_pieced_restart(pieced, run.part, run.sc.model, whole_state, run.counters, run.header, run.h);
  write_restart(dir / "whole.h5", run.sc.model, &whole_state, &run.counters, &run.header, run.h);
  const State pieces = read_state(dir / kRestartFile, run.blank);
  CHECK(pieces.extras.has_rolling_cache == (rolling > 0.0));
  CHECK(pieces.extras.rolling_cache.keys.size() == (rolling > 0.0 ? stepper.rolling_cache().size() : 0));
  CHECK(pieces.extras.has_position_cache == ga);
  CHECK(pieces.extras.position_cache.keys.size() == (ga ? stepper.position_cache().size() : 0));
  require_same(pieces, read_state(dir / "whole.h5", run.blank));
}

// A partitioned run's processes read their shares of the archive (read_restart's ArchiveShare): together, the
// whole archive's beads and warm starts, each row once, for an archive in pieces (through its index) and a whole one.
TEST_CASE("restart archive read in shares: the shares together are the whole archive", "[apps][restart][pieces]") {
  const fs::path dir = scratch("shares");
  SettledRun run(0.1, true);  // rolling resistance under generalized-α: the three warm starts
  PiecedRestart pieced{dir, 0, 1, {}};
  const StepperArchive whole_state = stepper_archive(run.stepper);
  write_pieced_restart(pieced, run.part, run.sc.model, whole_state, run.counters, run.header, run.h);
  write_restart(dir / "whole.h5", run.sc.model, &whole_state, &run.counters, &run.header, run.h);
  for (const fs::path file : {dir / kRestartFile, dir / "whole.h5"}) {
    const State all = read_state(file, run.blank);
    for (const int shares : {1, 2, 3, 7}) {
      CAPTURE(file, shares);
      State joined{run.blank, {}};
      joined.model.bodies.resize_spheres(0);
      std::vector<std::pair<contact::ContactKey, Eigen::Vector3d>> cache, rolling, position;
      for (int k = 0; k < shares; ++k) {
        State part{run.blank, {}};
        read_restart(file, part.model, &part.extras, ArchiveShare{k, shares});
        const RigidBodies& b = part.model.bodies;
        // Equal shares: a process's rows are its window of the archive's.
        const int n = all.model.bodies.spheres();
        CHECK(b.spheres() == n * (k + 1) / shares - n * k / shares);
        CHECK(part.model.step == all.model.step);
        CHECK(b.next_id[0] == all.model.bodies.next_id[0]);
        for (int i = 0; i < b.spheres(); ++i) {
          RigidBodies& j = joined.model.bodies;
          j.add_sphere(b.x[i], b.radius[i], 1.0, b.v[i]);
          const int at = j.spheres() - 1;
          j.w[at] = b.w[i], j.id[at] = b.id[i];
        }
        for (std::size_t e = 0; e < part.extras.cache.keys.size(); ++e)
          cache.emplace_back(part.extras.cache.keys[e], part.extras.cache.impulses[e]);
        for (std::size_t e = 0; e < part.extras.rolling_cache.keys.size(); ++e)
          rolling.emplace_back(part.extras.rolling_cache.keys[e], part.extras.rolling_cache.impulses[e]);
        for (std::size_t e = 0; e < part.extras.position_cache.keys.size(); ++e)
          position.emplace_back(part.extras.position_cache.keys[e], part.extras.position_cache.impulses[e]);
        CHECK(part.extras.has_rolling_cache);
        CHECK(part.extras.has_position_cache);
      }
      const RigidBodies &x = joined.model.bodies, &y = all.model.bodies;
      REQUIRE(x.spheres() == y.spheres());
      CHECK(same_bits(by_id(x, x.x), by_id(y, y.x)));
      CHECK(same_bits(by_id(x, x.v), by_id(y, y.v)));
      CHECK(same_bits(by_id(x, x.w), by_id(y, y.w)));
      auto keys_of = [](std::vector<std::pair<contact::ContactKey, Eigen::Vector3d>>& c,
                        std::vector<contact::ContactKey>& keys, std::vector<Eigen::Vector3d>& impulses) {
        std::sort(c.begin(), c.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
        for (const auto& [key, impulse] : c) keys.push_back(key), impulses.push_back(impulse);
      };
      keys_of(cache, joined.extras.cache.keys, joined.extras.cache.impulses);
      keys_of(rolling, joined.extras.rolling_cache.keys, joined.extras.rolling_cache.impulses);
      keys_of(position, joined.extras.position_cache.keys, joined.extras.position_cache.impulses);
      CHECK(joined.extras.cache.keys == all.extras.cache.keys);
      CHECK(same_bits(joined.extras.cache.impulses, all.extras.cache.impulses));
      CHECK(joined.extras.rolling_cache.keys == all.extras.rolling_cache.keys);
      CHECK(same_bits(joined.extras.rolling_cache.impulses, all.extras.rolling_cache.impulses));
      REQUIRE(!all.extras.position_cache.keys.empty());
      CHECK(joined.extras.position_cache.keys == all.extras.position_cache.keys);
      CHECK(same_bits(joined.extras.position_cache.impulses, all.extras.position_cache.impulses));
    }
  }
  CHECK_THROWS_WITH(read_restart(dir / "whole.h5", *std::make_unique<Model>(run.blank), nullptr, ArchiveShare{2, 2}),
                    Catch::Contains("share 2 of 2"));
}
