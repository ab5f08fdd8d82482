#include "apps/MpiLaunch.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iomanip>
#include <stdexcept>
#include <sstream>
#include <vector>

#include "apps/ModelPartition.hpp"

#ifdef TALUS_HAVE_MPI
#include <mpi.h>

#include "engine/distributed/BeadDomain.hpp"
#include "solvers/distributed/DistributedNsgs.hpp"
#include "solvers/distributed/FixedOrderSum.hpp"
#include "solvers/distributed/InterfaceNsgs.hpp"
#endif

namespace talus::app {

namespace {

bool started_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

}  // namespace

#ifdef TALUS_HAVE_MPI

namespace {

// The partitioned model of a run (ModelPartition.hpp) over engine/distributed/BeadDomain.hpp.
class MpiModelPartition final : public ModelPartition {
 public:
  std::string unsupported(const Model& model, const granular::GranularParameters& p) const override {
    return distributed::BeadDomain::unsupported(model, p);
  }
  granular::GranularParameters begin(Model& model, const granular::GranularParameters& p, bool shares) override {
    domain_ = std::make_unique<distributed::BeadDomain>(model, solve_, p.resort_every > 0 ? p.resort_every : 50,
                                                        MPI_COMM_WORLD, shares);
    return domain_->stepper_parameters(p);
  }
  void prepare_step(granular::GranularStepper& stepper) override { domain_->prepare_step(stepper); }
  int own_beads() const override { return domain_->owned(); }
  bool counts_contact(int i) const override { return solve_.counts_contact(i); }
  void remove_own(const std::vector<char>& flags) override { domain_->remove_own(flags); }
  void sum(double* values, int n) override {
    // The fixed tree (FixedOrderSum.hpp): the same bits on every rank and from run to run.
    distributed::fixed_order_sum(MPI_COMM_WORLD, values, n, values, scratch_);
  }
  void max(double* values, int n) override { MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); }
  void gather(Model& whole, const contact::ContactCache& cache_of, contact::ContactCache& cache) override {
    domain_->gather_model(whole, nullptr, nullptr, &cache_of, &cache);
  }
  void gather_cache(const contact::ContactCache& cache_of, contact::ContactCache& cache) override {
    domain_->gather_cache(cache_of, cache);
  }
  SpreadBodies& spread() override { return *domain_; }
  granular::PourSpread& pours() override { return *domain_; }
  void piece_cache(const contact::ContactCache& cache_of, std::vector<contact::ContactKey>& keys,
                   std::vector<Eigen::Vector3d>& impulses) const override {
    domain_->piece_cache_entries(cache_of, keys, impulses);
  }
  void route_warm_start(contact::ContactCache& cache, std::uint32_t ids_below) override {
    std::vector<contact::ContactKey> keys(cache.keys().begin(), cache.keys().end());
    std::vector<Eigen::Vector3d> impulses(cache.impulses().begin(), cache.impulses().end());
    domain_->route_warm_start(keys, impulses, ids_below);
    cache.store(keys.data(), impulses.data(), keys.size());
  }
  std::string summary() override {
    if (!domain_) return {};
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const distributed::SolveTimes& t = solve_.times();
    const distributed::DomainTimes& d = domain_->times();
    constexpr int kFields = 10;
    const double mine[kFields] = {t.sweep, t.exchange, t.reduce, t.gather, d.ghosts, d.rebalance,
                                  static_cast<double>(t.bytes_sent + d.bytes_sent), static_cast<double>(t.messages),
                                  static_cast<double>(domain_->owned()), static_cast<double>(d.migrated)};
    std::vector<double> all(kFields * static_cast<std::size_t>(size));
    MPI_Gather(mine, kFields, MPI_DOUBLE, all.data(), kFields, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    long sums[2] = {static_cast<long>(t.interface_contacts), static_cast<long>(t.contacts)}, total[2] = {0, 0};
    MPI_Reduce(sums, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0) return {};
    std::ostringstream s;
    s << std::fixed << std::setprecision(1);
    s << "talus: partitioned over " << size << " ranks: " << t.solves << " solves, " << t.sweeps
      << " sweeps; contacts between ranks " << (total[1] > 0 ? 100.0 * total[0] / total[1] : 0.0) << " %; "
      << d.rebalances << " rebalances\n";
    s << std::setprecision(2);
    s << "  rank     beads  migrated   sweep s  exchange s  reduce s  impulses s  ghosts s  rebalance s   MB sent  messages\n";
    for (int r = 0; r < size; ++r) {
      const double* a = &all[kFields * static_cast<std::size_t>(r)];
      s << "  " << std::setw(4) << r << std::setw(10) << static_cast<long>(a[8]) << std::setw(10)
        << static_cast<long>(a[9]) << std::setw(10) << a[0] << std::setw(12) << a[1] << std::setw(10) << a[2]
        << std::setw(12) << a[3] << std::setw(10) << a[4] << std::setw(13) << a[5] << std::setw(10) << a[6] / 1e6
        << std::setw(10) << static_cast<long long>(a[7]) << '\n';
    }
    return s.str();
  }
  bool used() const { return domain_ != nullptr; }

 private:
  distributed::InterfaceNsgs solve_{MPI_COMM_WORLD};
  std::unique_ptr<distributed::BeadDomain> domain_;
  std::vector<double> scratch_;
};

}  // namespace

struct MpiLaunch::State {
  std::unique_ptr<distributed::DistributedNsgs> solve;
  std::unique_ptr<MpiModelPartition> partition;
};

MpiLaunch::MpiLaunch() {
  if (!started_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  state_ = std::make_unique<State>();
  state_->solve = std::make_unique<distributed::DistributedNsgs>(MPI_COMM_WORLD);
  state_->partition = std::make_unique<MpiModelPartition>();
}

MpiLaunch::~MpiLaunch() {
  std::error_code ec;
  if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ec);
  if (active()) {
    state_.reset();  // the solves' communicators and buffers before MPI goes
    MPI_Finalize();
  }
}

matrixfree::PartitionedSolve* MpiLaunch::solve() const { return state_ ? state_->solve.get() : nullptr; }

ModelPartition* MpiLaunch::partition() const { return state_ ? state_->partition.get() : nullptr; }

void MpiLaunch::barrier() const {
  if (active()) MPI_Barrier(MPI_COMM_WORLD);
}

bool MpiLaunch::any(bool mine) const {
  if (!active()) return mine;
  int flag = mine ? 1 : 0, all = 0;
  MPI_Allreduce(&flag, &all, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  return all != 0;
}

std::string MpiLaunch::first_message(const std::string& mine) const {
  if (!active()) return mine;
  int from = mine.empty() ? size_ : rank_;
  MPI_Allreduce(MPI_IN_PLACE, &from, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (from == size_) return {};
  long length = rank_ == from ? static_cast<long>(mine.size()) : 0;
  MPI_Bcast(&length, 1, MPI_LONG, from, MPI_COMM_WORLD);
  std::string text = rank_ == from ? mine : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, from, MPI_COMM_WORLD);
  return text + " (rank " + std::to_string(from) + ")";
}

std::string MpiLaunch::summary() {
  if (!active()) return {};
  if (state_->partition->used()) return state_->partition->summary();
  const distributed::SolveTimes& t = state_->solve->times();
  const double mine[7] = {t.sweep, t.exchange, t.reduce, t.gather, t.plan, static_cast<double>(t.bytes_sent),
                          static_cast<double>(t.messages)};
  std::vector<double> all(7 * static_cast<std::size_t>(size_));
  MPI_Gather(mine, 7, MPI_DOUBLE, all.data(), 7, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank_ != 0) return {};
  std::ostringstream s;
  s << std::fixed << std::setprecision(2);
  s << "talus: distributed solve over " << size_ << " ranks: " << t.solves << " solves, " << t.sweeps
    << " sweeps; interface " << std::setprecision(1)
    << (t.contacts > 0 ? 100.0 * static_cast<double>(t.interface_contacts) / static_cast<double>(t.contacts) : 0.0)
    << " % of the contacts\n";
  s << std::setprecision(2);
  s << "  rank   sweep s  exchange s  reduce s  gather s  plan s   MB sent  messages\n";
  for (int r = 0; r < size_; ++r) {
    const double* a = &all[7 * static_cast<std::size_t>(r)];
    s << "  " << std::setw(4) << r << std::setw(10) << a[0] << std::setw(12) << a[1] << std::setw(10) << a[2]
      << std::setw(10) << a[3] << std::setw(8) << a[4] << std::setw(10) << a[5] / 1e6 << std::setw(10)
      << static_cast<long long>(a[6]) << '\n';
  }
  return s.str();
}

#else

struct MpiLaunch::State {};

MpiLaunch::MpiLaunch() {
  // Several copies of a talus without MPI would each run the whole scene into the same output folder.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name); v && std::atoi(v) > 1)
      throw std::runtime_error("talus was built without MPI (TALUS_MPI, Debian's libopenmpi-dev): run it without "
                               "mpirun, or rebuild with MPI");
}

MpiLaunch::~MpiLaunch() {
  std::error_code ec;
  if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ec);
}

matrixfree::PartitionedSolve* MpiLaunch::solve() const { return nullptr; }

ModelPartition* MpiLaunch::partition() const { return nullptr; }

void MpiLaunch::barrier() const {}

bool MpiLaunch::any(bool mine) const { return mine; }

std::string MpiLaunch::first_message(const std::string& mine) const { return mine; }

std::string MpiLaunch::summary() { return {}; }

#endif

const std::filesystem::path& MpiLaunch::scratch_folder() {
  if (scratch_.empty()) {
    scratch_ = std::filesystem::temp_directory_path() /
               ("talus-rank" + std::to_string(rank_) + "-" + std::to_string(static_cast<long>(getpid())));
    std::filesystem::create_directories(scratch_);
  }
  return scratch_;
}

}  // namespace talus::app
