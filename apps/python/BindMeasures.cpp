// The granular measurements (engine/analysis/GranularMeasures.hpp; docs/measurements.md) and the contact list,
// as the Python module exposes them (docs/python.md, "Measurements"): the same functions `talus run` writes to
// measures.csv and run.json, so a script and the CLI report the same numbers.
#include "apps/GranularMeasureSeries.hpp"
#include "apps/python/Bindings.hpp"
#include "apps/python/ContactList.hpp"
#include "engine/analysis/GranularMeasures.hpp"

namespace talus::python {

namespace {

template <class Get>
py::array_t<double> rows3(const ContactList& c, Get get) {
  py::array_t<double> a({static_cast<py::ssize_t>(c.items.size()), static_cast<py::ssize_t>(3)});
  auto r = a.mutable_unchecked<2>();
  for (std::size_t k = 0; k < c.items.size(); ++k) {
    const Eigen::Vector3d v = get(c.items[k]);
    for (int j = 0; j < 3; ++j) r(k, j) = v[j];
  }
  return a;
}

template <class T, class Get>
py::array_t<T> column(const ContactList& c, Get get) {
  py::array_t<T> a(static_cast<py::ssize_t>(c.items.size()));
  auto r = a.template mutable_unchecked<1>();
  for (std::size_t k = 0; k < c.items.size(); ++k) r(k) = get(c.items[k]);
  return a;
}

Region region_of(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) {
  if (!(lo.array() < hi.array()).all()) throw std::invalid_argument("region: expected lower < upper along every axis");
  return Region{lo, hi};
}

}  // namespace

void bind_measures(py::module_& m) {
  py::class_<ContactList>(m, "ContactList",
                          "The contacts of the last step with their forces (impulse / h), one row per contact. Each "
                          "property is a numpy copy.")
      .def("__len__", [](const ContactList& c) { return c.items.size(); })
      .def_property_readonly("a", [](const ContactList& c) { return column<std::int32_t>(c, [](const ContactForce& f) { return f.a; }); },
                             "Body index of the first side, −1 for an obstacle (wall, box, drum).")
      .def_property_readonly("b", [](const ContactList& c) { return column<std::int32_t>(c, [](const ContactForce& f) { return f.b; }); },
                             "Body index of the second side (always a body).")
      .def_property_readonly("points", [](const ContactList& c) { return rows3(c, [](const ContactForce& f) { return f.point; }); },
                             "(K, 3) contact points on b's surface [m].")
      .def_property_readonly("normals", [](const ContactList& c) { return rows3(c, [](const ContactForce& f) { return f.normal; }); },
                             "(K, 3) unit normals from a to b.")
      .def_property_readonly("forces", [](const ContactList& c) { return rows3(c, [](const ContactForce& f) { return f.force; }); },
                             "(K, 3) force on b [N] (its opposite acts on a).")
      .def_property_readonly("normal_forces", [](const ContactList& c) { return column<double>(c, [](const ContactForce& f) { return f.normal_force(); }); },
                             "(K,) normal force [N], >= 0.")
      .def_property_readonly(
          "tangential_forces",
          [](const ContactList& c) {
            return rows3(c, [](const ContactForce& f) { return Eigen::Vector3d(f.force - f.normal_force() * f.normal); });
          },
          "(K, 3) friction force on b [N].")
      .def_property_readonly("gaps", [](const ContactList& c) { return column<double>(c, [](const ContactForce& f) { return f.gap; }); },
                             "(K,) surface distance at the step's start [m]; NaN where the geometry does not give it "
                             "exactly (capsules, obstacles).");

  py::class_<Region>(m, "Region", "An axis-aligned box [lower, upper] in which a measurement is taken.")
      .def(py::init(&region_of), py::arg("lower"), py::arg("upper"))
      .def_readonly("lower", &Region::lo)
      .def_readonly("upper", &Region::hi)
      .def_property_readonly("volume", &Region::volume);

  m.def("bulk_region", [](const Model& model) -> py::object {
          const std::optional<Region> r = app::bulk_region(model.bodies);
          return r ? py::cast(*r) : py::none();
        },
        py::arg("model"),
        "The bulk of an assembly (the box of the bead centres shrunk by 3 mean radii, and below the free surface "
        "by 5): the region `talus run` measures in; None for fewer than 8 beads.");
  m.def("packing_fraction", [](const Model& model, const Region& r) { return packing_fraction(model.bodies, r); },
        py::arg("model"), py::arg("region"), "Solid volume of the bodies inside the region over its volume (spheres exactly).");
  m.def(
      "coordination",
      [](const Model& model, const ContactList& c, double force_fraction, int rattler_below, double gap_tolerance) {
        CoordinationOptions o;
        o.force_fraction = force_fraction, o.rattler_below = rattler_below, o.gap_tolerance = gap_tolerance;
        const Coordination z = coordination(model.bodies, c.items, o);
        py::dict d;
        d["mean"] = z.mean, d["mechanical"] = z.mechanical, d["geometric"] = z.geometric;
        d["bodies"] = z.bodies, d["body_contacts"] = z.body_contacts, d["obstacle_contacts"] = z.obstacle_contacts;
        d["rattlers"] = z.rattlers;
        return d;
      },
      py::arg("model"), py::arg("contacts"), py::arg("force_fraction") = 1e-6, py::arg("rattler_below") = 1,
      py::arg("gap_tolerance") = 1e-9,
      "Coordination numbers: mean (contacts that push per body), mechanical (rattlers removed) and geometric "
      "(touching sphere pairs, gap <= gap_tolerance, whatever their force).");
  m.def(
      "force_distribution",
      [](const ContactList& c, int bins, double max_ratio, double force_fraction) {
        const ForceDistribution f = normal_force_distribution(c.items, bins, max_ratio, force_fraction);
        py::dict d;
        d["contacts"] = f.contacts, d["mean"] = f.mean, d["max"] = f.max, d["above_mean"] = f.above_mean;
        d["edges"] = py::array_t<double>(static_cast<py::ssize_t>(f.edges.size()), f.edges.data());
        d["density"] = py::array_t<double>(static_cast<py::ssize_t>(f.density.size()), f.density.data());
        return d;
      },
      py::arg("contacts"), py::arg("bins") = 20, py::arg("max_ratio") = 5.0, py::arg("force_fraction") = 1e-6,
      "Probability density of f/<f> over the contacts that push, in `bins` bins on [0, max_ratio].");
  m.def("love_weber_stress",
        [](const Model& model, const ContactList& c, const Region& r) { return love_weber_stress(model.bodies, c.items, r, nullptr, &model.periodic); },
        py::arg("model"), py::arg("contacts"), py::arg("region"),
        "Love–Weber stress tensor of the region [Pa], compression positive (3×3).");
  m.def("kinetic_stress", [](const Model& model, const Region& r) { return kinetic_stress(model.bodies, r); },
        py::arg("model"), py::arg("region"), "(1/V) Σ m (v − v̄) ⊗ (v − v̄) over the bodies in the region [Pa].");
  m.def(
      "kinetic_energy",
      [](const Model& model) {
        const KineticEnergy e = kinetic_energy_parts(model.bodies);
        py::dict d;
        d["translation"] = e.translation, d["rotation"] = e.rotation, d["total"] = e.total();
        return d;
      },
      py::arg("model"), "Kinetic energy of the dynamic bodies by translation and rotation [J].");
  m.def(
      "measure",
      [](const Model& model, const ContactList& c, const py::object& region) {
        std::optional<Region> r = region.is_none() ? app::bulk_region(model.bodies) : std::optional<Region>(region.cast<Region>());
        const app::MeasureRow row = app::measure_row(model, c.items, r ? &*r : nullptr);
        py::dict d;
        d["time"] = row.time, d["beads"] = row.beads, d["packing_fraction"] = row.packing_fraction;
        d["coordination"] = row.coordination, d["mechanical_coordination"] = row.mechanical_coordination;
        d["mean_normal_force"] = row.mean_normal_force, d["above_mean"] = row.above_mean;
        d["pressure"] = row.pressure, d["deviatoric"] = row.deviatoric;
        d["ke_translation"] = row.ke_translation, d["ke_rotation"] = row.ke_rotation;
        return d;
      },
      py::arg("model"), py::arg("contacts"), py::arg("region") = py::none(),
      "One row of measures.csv (what `talus run` records per frame): packing fraction, coordination, forces, "
      "pressure and deviatoric stress in the region (default: bulk_region), kinetic energies.");

  py::class_<MassFlowMeter>(m, "MassFlowMeter",
                            "Net mass through a plane, from the side the normal points to towards the other (a silo's "
                            "outlet: normal up). Call record(model) after the steps.")
      .def(py::init<const Eigen::Vector3d&, const Eigen::Vector3d&>(), py::arg("point"), py::arg("normal"))
      .def(
          "record",
          [](MassFlowMeter& f, py::object of) {
            // A Simulation (as a run callback) or a Model.
            const Model& model = py::isinstance<Model>(of) ? of.cast<const Model&>() : of.attr("model").cast<const Model&>();
            f.record(model.bodies, model.time);
          },
          py::arg("model"), "Records the bodies' sides of the plane now; `model` may be a Model or a Simulation.")
      .def_property_readonly("mass", &MassFlowMeter::mass, "Net mass crossed since the first record [kg].")
      .def_property_readonly("rate", &MassFlowMeter::rate, "Mean mass flow between the first and the last record [kg/s].");
}

}  // namespace talus::python
