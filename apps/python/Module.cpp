// The compiled part of `import talus` (docs/python.md). C++ exceptions become Python exceptions with the same
// message: a scene error (FILE:LINE:COL: field '…': …) a talus.SceneError, a failed step a talus.StepFailure,
// a bad argument a ValueError, anything else a RuntimeError (pybind11's default translation).
#include "apps/python/Bindings.hpp"

#include "apps/SceneError.hpp"
#include "apps/Version.hpp"
#include "engine/StepReport.hpp"

PYBIND11_MODULE(_talus, m) {
  namespace py = pybind11;
  m.doc() = "Talus: nonsmooth contact dynamics (the compiled core of the talus package)";
  m.attr("__version__") = talus::app::version();
  static py::exception<talus::app::SceneError> scene_error(m, "SceneError", PyExc_ValueError);
  static py::exception<talus::StepFailure> step_failure(m, "StepFailure", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const talus::app::SceneError& e) {
      scene_error(e.what());
    } catch (const talus::StepFailure& e) {
      step_failure(e.what());
    }
  });
  talus::python::bind_model(m);
  talus::python::bind_simulation(m);
  talus::python::bind_measures(m);
  talus::python::bind_solvers(m);
}
