// Schema declarations: self-verification, suggestions and the generated Markdown reference.
#include <string>

#include "catch_compat.hpp"
#include "test_case_toy.hpp"

using tessera::Schema;

TEST_CASE("schema bugs are caught at declaration or by verify()", "[case]") {
  Schema s("bugs");
  s.add_float("a.x").default_value(1.0);
  CHECK_THROWS_AS(s.add_float("a.x"), tessera::Error);   // declared twice
  CHECK_THROWS_AS(s.add_int("a"), tessera::Error);       // "a" is a section
  CHECK_THROWS_AS(s.add_int("a.x.y"), tessera::Error);   // "a.x" is a key
  CHECK_THROWS_AS(s.add_int("bad..path"), tessera::Error);
  CHECK_THROWS_AS(s.add_bool("b").default_value(3), tessera::Error);  // wrong default type
  CHECK_THROWS_AS(s.add_int("c").default_value(2.5), tessera::Error);
  s.verify();
  s.add_float("d").default_value(-1.0).greater_than(0);  // default outside its own range
  CHECK(tessera::test::what_of([&] { s.verify(); }).find("schema key 'd': default -1.0 is outside the range > 0") !=
        std::string::npos);
  Schema e("enum");
  e.add_enum("m", {"x", "y"}).default_value("z");
  CHECK_THROWS_AS(e.verify(), tessera::Error);
  Schema f("check");
  f.add_check("c", {"nope"}, [](const tessera::Case&) { return std::string(); });
  CHECK_THROWS_AS(f.verify(), tessera::Error);
  tessera::test::toy_schema().verify();
}

TEST_CASE("suggestions: typos, right key under the wrong section", "[case]") {
  const Schema& s = tessera::test::toy_schema();
  CHECK(s.suggest("physics.viscosty") == "physics.viscosity");
  CHECK(s.suggest("viscosity") == "physics.viscosity");
  CHECK(s.suggest("domian") == "domain");
  CHECK(s.suggest("completely.unrelated.thing") == "");
  CHECK(tessera::edit_distance("kitten", "sitting") == 3);
  CHECK(tessera::edit_distance("", "abc") == 3);
}

TEST_CASE("expectations and bounds read well", "[case]") {
  const Schema& s = tessera::test::toy_schema();
  CHECK(s.find("physics.viscosity")->expectation() == "a number > 0 [m^2/s]");
  CHECK(s.find("collision.magic")->expectation() == "a number in (0, 1)");
  CHECK(s.find("domain.cells")->expectation() == "a list of 3 integers, each >= 1");
  CHECK(s.find("collision.model")->expectation() == "one of bgk, trt, mrt");
  CHECK(s.find("domain.cells")->default_str() == "required");
  CHECK(s.find("physics.gravity")->default_str() == "[0.0, 0.0, -9.81]");
  CHECK(s.find("output.label")->default_str() == "(none)");
  CHECK(s.find("obstacles")->entry_schema()->find("radius")->default_str() == "0.1");
}

TEST_CASE("Markdown reference lists every key", "[case]") {
  const std::string md = tessera::test::toy_schema().markdown();
  CHECK(md.rfind("# `toy` case-file reference\n", 0) == 0);
  CHECK(md.find("## `domain` — Simulation box") != std::string::npos);
  CHECK(md.find("| `physics.viscosity` | float | 0.001 | m^2/s | > 0 | Kinematic viscosity |") != std::string::npos);
  CHECK(md.find("| `domain.cells` | int[3] | required |  | >= 1 | Cells per axis [nx, ny, nz] |") != std::string::npos);
  CHECK(md.find("| `collision.model` | enum: bgk \\| trt \\| mrt | bgk |") != std::string::npos);
  CHECK(md.find("### Entries of `obstacles` — Solid bodies") != std::string::npos);
  CHECK(md.find("| `obstacles[].radius` | float | 0.1 | m | > 0 | Sphere radius |") != std::string::npos);
  CHECK(md.find("- **diffusion-number** (`time.dt`, `physics.viscosity`, `domain.cells`, `domain.length`): "
                "nu*dt/dx^2 <= 1/6") != std::string::npos);
  CHECK(md.find("- **box-size** (`obstacles[].shape`, `obstacles[].size`): boxes need a size") != std::string::npos);
  // Every declared key appears.
  for (const auto& k : tessera::test::toy_schema().keys())
    CHECK(md.find("`" + k->path() + "`") != std::string::npos);
}
