#include "apps/MpiLaunch.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iomanip>
#include <stdexcept>
#include <sstream>
#include <vector>

#ifdef TALUS_HAVE_MPI
#include <mpi.h>

#include "solvers/distributed/DistributedNsgs.hpp"
#endif

namespace talus::app {

namespace {

bool started_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

}  // namespace

#ifdef TALUS_HAVE_MPI

struct MpiLaunch::State {
  std::unique_ptr<distributed::DistributedNsgs> solve;
};

MpiLaunch::MpiLaunch() {
  if (!started_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  state_ = std::make_unique<State>();
  state_->solve = std::make_unique<distributed::DistributedNsgs>(MPI_COMM_WORLD);
}

MpiLaunch::~MpiLaunch() {
  std::error_code ec;
  if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ec);
  if (active()) MPI_Finalize();
}

matrixfree::PartitionedSolve* MpiLaunch::solve() const { return state_ ? state_->solve.get() : nullptr; }

void MpiLaunch::barrier() const {
  if (active()) MPI_Barrier(MPI_COMM_WORLD);
}

std::string MpiLaunch::summary() {
  if (!active()) return {};
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

void MpiLaunch::barrier() const {}

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
