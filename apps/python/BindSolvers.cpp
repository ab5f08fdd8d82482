// The friction-contact solvers on their own (docs/python.md, "Solvers"): a problem (W, q, μ) from an FCLIB file or
// from a scipy.sparse matrix and numpy vectors, solved by any of Talus' solvers with its settings; the reactions,
// the relative velocities u = W r + q and the statistics (with the residual history) come back.
#include <cmath>

#include "apps/python/Bindings.hpp"
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/fc/Apgd.hpp"
#include "solvers/fc/FclibIO.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "solvers/fc/SemismoothNewton.hpp"

namespace talus::python {

namespace {

using solvers::FrictionContactProblem;
using solvers::SolverStats;

// The solvers by name, each with its library defaults and the shared budget.
SolverStats solve_with(const std::string& name, const FrictionContactProblem& p, Vector& r, Vector& u,
                       const solvers::SolverParameters& budget, int threads) {
  const auto with_budget = [&](auto prm) {
    static_cast<solvers::SolverParameters&>(prm) = budget;
    return prm;
  };
  if (name == "nsgs" || name == "nsgs_plain") {
    solvers::NsgsParameters prm = with_budget(solvers::NsgsParameters{});
    if (name == "nsgs_plain") prm.anderson_memory = 0;
    prm.threads = threads;
    prm.coloured = threads > 1;
    return solvers::nsgs(p, r, u, prm);
  }
  if (name == "apgd") return solvers::apgd(p, r, u, with_budget(solvers::ApgdParameters{}));
  if (name == "semismooth_newton") return solvers::semismooth_newton(p, r, u, with_budget(solvers::SemismoothNewtonParameters{}));
  throw std::invalid_argument("unknown solver '" + name + "' (expected nsgs, nsgs_plain, apgd or semismooth_newton)");
}

py::dict solve_problem(const FrictionContactProblem& p, const std::string& solver, double tolerance,
                       int max_iterations, double time_cap, bool record_history, int threads, const py::object& r0) {
  solvers::validate(p);
  solvers::SolverParameters budget;
  budget.tolerance = tolerance, budget.max_iterations = max_iterations, budget.time_cap_seconds = time_cap;
  budget.record_history = record_history;
  Vector r, u;
  if (!r0.is_none()) {
    r = r0.cast<Vector>();
    if (r.size() != p.q.size())
      throw std::invalid_argument("r0 has " + std::to_string(r.size()) + " entries (expected " + std::to_string(p.q.size()) + ")");
  }
  SolverStats stats;
  {
    py::gil_scoped_release release;
    stats = solve_with(solver, p, r, u, budget, threads);
  }
  py::dict d;
  d["r"] = r;
  d["u"] = Vector(p.W * r + p.q);
  d["stats"] = stats;
  d["residual"] = r.size() == p.q.size() ? solvers::friction_residual(p, r) : std::nan("");
  return d;
}

FrictionContactProblem problem_of(const SparseMatrix& W, const Vector& q, const Vector& mu, int dim) {
  FrictionContactProblem p;
  if (dim != 2 && dim != 3) throw std::invalid_argument("dim must be 2 or 3");
  p.dim = dim, p.W = W, p.q = q, p.mu = mu;
  if (W.rows() != q.size() || W.cols() != q.size() || q.size() != dim * mu.size())
    throw std::invalid_argument("sizes: W is " + std::to_string(W.rows()) + "×" + std::to_string(W.cols()) + ", q has " +
                                std::to_string(q.size()) + " entries and mu " + std::to_string(mu.size()) +
                                " (expected W m×m, q m, mu m/dim)");
  return p;
}

}  // namespace

void bind_solvers(py::module_& m) {
  m.attr("friction_solvers") = std::vector<std::string>{"nsgs", "nsgs_plain", "apgd", "semismooth_newton"};
  m.def(
      "read_fclib",
      [](const std::string& file) {
        const FrictionContactProblem p = solvers::read_fclib_problem(file);
        py::dict d;
        d["W"] = SparseMatrixCol(p.W), d["q"] = p.q, d["mu"] = p.mu, d["dim"] = p.dim;
        return d;
      },
      py::arg("file"),
      "The local problem of an FCLIB file (a global one condensed: W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w) as "
      "{'W': scipy.sparse.csc_matrix, 'q', 'mu', 'dim'}.");
  m.def(
      "solve_fclib",
      [](const std::string& file, const std::string& solver, double tolerance, int max_iterations, double time_cap,
         bool record_history, int threads) {
        return solve_problem(solvers::read_fclib_problem(file), solver, tolerance, max_iterations, time_cap,
                             record_history, threads, py::none());
      },
      py::arg("file"), py::arg("solver") = "nsgs", py::arg("tolerance") = 1e-8, py::arg("max_iterations") = 10000,
      py::arg("time_cap") = 0.0, py::arg("record_history") = false, py::arg("threads") = 1,
      "Solves an FCLIB problem with one of talus.friction_solvers; returns {'r', 'u', 'stats', 'residual'} (stats: "
      "a SolverStats with the residual history when record_history).");
  m.def(
      "solve",
      [](const SparseMatrix& W, const Vector& q, const Vector& mu, int dim, const std::string& solver, double tolerance,
         int max_iterations, double time_cap, bool record_history, int threads, const py::object& r0) {
        return solve_problem(problem_of(W, q, mu, dim), solver, tolerance, max_iterations, time_cap, record_history,
                             threads, r0);
      },
      py::arg("W"), py::arg("q"), py::arg("mu"), py::arg("dim") = 3, py::arg("solver") = "nsgs",
      py::arg("tolerance") = 1e-8, py::arg("max_iterations") = 10000, py::arg("time_cap") = 0.0,
      py::arg("record_history") = false, py::arg("threads") = 1, py::arg("r0") = py::none(),
      "Solves the friction-contact problem u = W r + q, K_μ ∋ r ⟂ u + μ|u_T| ∈ K_μ* (normal first in each block "
      "of dim) with W a scipy.sparse matrix; r0 warm-starts it.");
  m.def(
      "friction_residual",
      [](const SparseMatrix& W, const Vector& q, const Vector& mu, const Vector& r, int dim) {
        const FrictionContactProblem p = problem_of(W, q, mu, dim);
        if (r.size() != q.size()) throw std::invalid_argument("r must have as many entries as q");
        return solvers::friction_residual(p, r);
      },
      py::arg("W"), py::arg("q"), py::arg("mu"), py::arg("r"), py::arg("dim") = 3,
      "The solvers' common residual of r (solvers/core/FrictionContactProblem.hpp).");
}

}  // namespace talus::python
