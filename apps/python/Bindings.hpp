#pragma once
// The parts of the compiled module `talus._talus` (docs/python.md), one file per area: the model and its
// builders (BindModel.cpp), integrators, scenes and outputs (BindSimulation.cpp), the granular measurements
// (BindMeasures.cpp) and the friction-contact solvers on their own (BindSolvers.cpp).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "engine/Model.hpp"

namespace talus::python {

namespace py = pybind11;

void bind_model(py::module_& m);
void bind_simulation(py::module_& m);
void bind_measures(py::module_& m);
void bind_solvers(py::module_& m);

// A material given by name or id: its id in model.materials; throws std::invalid_argument naming the known ones.
MaterialId material_id(const Model& model, const py::object& material);

// A zero-copy numpy view of `count` rows of `cols` doubles starting at `data`, rows `row_bytes` apart (the
// Eigen vectors of a std::vector), kept alive by `owner`. cols == 0: a 1-D array.
py::array view_rows(double* data, py::ssize_t count, py::ssize_t cols, py::ssize_t row_bytes, py::handle owner,
                    bool writeable);

}  // namespace talus::python
