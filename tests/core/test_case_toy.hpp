// A toy solver schema used by the case-file and CLI tests: every key type, defaults, ranges, units,
// a list of sub-maps, a root cross-check and a per-entry cross-check.
#pragma once
#include <algorithm>
#include <array>
#include <exception>
#include <string>

#include "tessera/core/case.hpp"
#include "tessera/core/schema.hpp"

#ifndef TESSERA_TEST_CASES_DIR
#error "TESSERA_TEST_CASES_DIR must point at tests/core/cases"
#endif

namespace tessera::test {

// The message of the exception `f` throws ("" if none): portable across Catch2 2 and 3.
template <class F>
std::string what_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

inline std::string case_path(const std::string& name) { return std::string(TESSERA_TEST_CASES_DIR) + "/" + name; }

inline const Schema& toy_schema() {
  static const Schema s = [] {
    Schema s("toy", "A toy diffusion solver used by the tests");
    s.section("domain", "Simulation box");
    s.add_int_array("domain.cells", 3).required().min(1).describe("Cells per axis [nx, ny, nz]");
    s.add_float_array("domain.length", 3).default_array({1.0, 1.0, 1.0}).greater_than(0).unit("m")
        .describe("Box edge lengths");
    s.add_bool("domain.periodic").default_value(false).describe("Periodic in every direction");
    s.add_float("physics.viscosity").default_value(1.0e-3).greater_than(0).unit("m^2/s").describe("Kinematic viscosity");
    s.add_float("physics.density").default_value(1000.0).greater_than(0).unit("kg/m^3").describe("Density");
    s.add_float_array("physics.gravity", 3).default_array({0.0, 0.0, -9.81}).unit("m/s^2").describe("Body force");
    s.add_float("time.dt").required().greater_than(0).unit("s").describe("Time step");
    s.add_int("time.steps").default_value(100).min(1).describe("Number of steps");
    s.add_enum("collision.model", {"bgk", "trt", "mrt"}).default_value("bgk").describe("Collision operator");
    s.add_float("collision.magic").default_value(0.25).greater_than(0).less_than(1).describe("TRT magic parameter");
    s.add_enum("output.format", {"hdf5", "vtk"}).default_value("hdf5").describe("File format");
    s.add_int("output.every").default_value(10).min(0).describe("Steps between outputs (0: none)");
    s.add_string("output.prefix").default_value("flow").describe("File name prefix");
    s.add_string("output.label").optional().describe("Free text stored in the output");
    Schema& ob = s.add_list("obstacles").describe("Solid bodies").entries();
    ob.add_enum("shape", {"box", "sphere"}).required().describe("Body shape");
    ob.add_float_array("center", 3).required().unit("m").describe("Centre [x, y, z]");
    ob.add_float("radius").default_value(0.1).greater_than(0).unit("m").describe("Sphere radius");
    ob.add_float_array("size", 3).optional().greater_than(0).unit("m").describe("Box edge lengths");
    ob.add_check("box-size", {"shape", "size"}, [](const Case& c) -> std::string {
      return c.get<std::string>("shape") == "box" && !c.has("size") ? "a box needs 'size' [sx, sy, sz]" : "";
    }, "boxes need a size");
    // Explicit diffusion is stable for nu dt / dx^2 <= 1/6 in 3-D (von Neumann analysis, FTCS scheme).
    s.add_check("diffusion-number", {"time.dt", "physics.viscosity", "domain.cells", "domain.length"},
                [](const Case& c) -> std::string {
                  const auto n = c.get<std::array<std::int64_t, 3>>("domain.cells");
                  const auto L = c.get<std::array<double, 3>>("domain.length");
                  double dx = L[0] / double(n[0]);
                  for (int d = 1; d < 3; ++d) dx = std::min(dx, L[d] / double(n[d]));
                  const double r = c.get<double>("physics.viscosity") * c.get<double>("time.dt") / (dx * dx);
                  if (r <= 1.0 / 6.0) return "";
                  return "diffusion number nu*dt/dx^2 = " + std::to_string(r) +
                         " exceeds 1/6 (unstable): lower time.dt or refine less";
                },
                "nu*dt/dx^2 <= 1/6");
    return s;
  }();
  return s;
}

}  // namespace tessera::test
