// Valid cases: defaults filled, typed access, list entries, --set overrides, resolved YAML and its hash.
#include <array>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "test_case_toy.hpp"

using tessera::Case;
using tessera::CaseError;
using tessera::test::case_path;
using tessera::test::toy_schema;

TEST_CASE("good case: values from the file and defaults, typed access", "[case]") {
  const Case c = Case::load(case_path("good.yaml"), toy_schema());
  // From the file.
  CHECK(c.get<std::array<std::int64_t, 3>>("domain.cells") == std::array<std::int64_t, 3>{32, 16, 8});
  CHECK(c.get<std::array<int, 3>>("domain.cells") == std::array<int, 3>{32, 16, 8});
  CHECK(c.get<std::vector<double>>("domain.length") == std::vector<double>{2.0, 1.0, 0.5});
  CHECK(c.get<double>("physics.viscosity") == 1.0e-4);
  CHECK(c.get<float>("physics.viscosity") == 1.0e-4f);
  CHECK(c.get<std::int64_t>("time.steps") == 1000);  // "1e3" is an exact integer
  CHECK(c.get<int>("time.steps") == 1000);
  // Defaults.
  CHECK(c.get<bool>("domain.periodic") == false);
  CHECK(c.get<double>("physics.density") == 1000.0);
  CHECK(c.get<std::array<double, 3>>("physics.gravity") == std::array<double, 3>{0.0, 0.0, -9.81});
  CHECK(c.get<std::string>("collision.model") == "bgk");
  CHECK(c.get<std::string>("output.prefix") == "flow");
  CHECK(c.get<std::int64_t>("output.every") == 10);
  CHECK(c.get<double>("output.every") == 10.0);  // an int key reads as double too
  // Presence.
  CHECK(c.has("physics.density"));
  CHECK_FALSE(c.given("physics.density"));
  CHECK(c.given("physics.viscosity"));
  CHECK_FALSE(c.has("output.label"));  // optional without default
  CHECK_THROWS_AS(c.get<std::string>("output.label"), tessera::Error);
  // Locations (1-based line:column of the value).
  CHECK(c.location("time.dt") == case_path("good.yaml") + ":8:7");
  CHECK(c.location("physics.density") == "default");
}

TEST_CASE("list entries are views with the same getters", "[case]") {
  const Case c = Case::load(case_path("good.yaml"), toy_schema());
  const auto obs = c.list("obstacles");
  REQUIRE(obs.size() == 2);
  CHECK(c.list_size("obstacles") == 2);
  CHECK(obs[0].get<std::string>("shape") == "sphere");
  CHECK(obs[0].get<double>("radius") == 0.2);
  CHECK_FALSE(obs[0].has("size"));
  CHECK(obs[1].get<std::string>("shape") == "box");
  CHECK(obs[1].get<double>("radius") == 0.1);  // default inside an entry
  CHECK(obs[1].get<std::array<double, 3>>("size") == std::array<double, 3>{0.1, 0.1, 0.1});
  CHECK(obs[1].prefix() == "obstacles[1].");
  CHECK(obs[1].location("center") == case_path("good.yaml") + ":15:13");
  CHECK(obs[1].hash() == c.hash());
  // An absent list is empty.
  const Case m = Case::load(case_path("minimal.yaml"), toy_schema());
  CHECK(m.list("obstacles").empty());
}

TEST_CASE("typed access errors are programming errors with the key", "[case]") {
  const Case c = Case::load(case_path("good.yaml"), toy_schema());
  using tessera::test::what_of;
  CHECK(what_of([&] { (void)c.get<std::string>("physics.viscosity"); })
            .rfind("case key 'physics.viscosity' (schema 'toy'): is declared as float, read as std::string", 0) == 0);
  CHECK(what_of([&] { (void)c.get<double>("physics.viscosityy"); }).find("not declared in the schema") != std::string::npos);
  CHECK(what_of([&] { (void)c.get<std::array<double, 2>>("domain.length"); })
            .find("holds 3 values, read as std::array of 2") != std::string::npos);
  CHECK_THROWS_AS(c.list("physics.viscosity"), tessera::Error);
  CHECK_THROWS_AS(c.get<bool>("time.steps"), tessera::Error);
}

TEST_CASE("--set overrides keys, list entries and whole lists", "[case]") {
  const Case c = Case::load(case_path("good.yaml"), toy_schema(),
                            {"physics.viscosity=2e-5", "collision.model=trt", "domain.cells=[4, 4, 4]",
                             "obstacles[0].radius=0.3", "output.label=run 7: test", "domain.periodic=true"});
  CHECK(c.get<double>("physics.viscosity") == 2e-5);
  CHECK(c.get<std::string>("collision.model") == "trt");
  CHECK(c.get<std::array<std::int64_t, 3>>("domain.cells") == std::array<std::int64_t, 3>{4, 4, 4});
  CHECK(c.list("obstacles")[0].get<double>("radius") == 0.3);
  CHECK(c.get<std::string>("output.label") == "run 7: test");
  CHECK(c.get<bool>("domain.periodic"));
  CHECK(c.location("physics.viscosity") == "--set 'physics.viscosity=2e-5'");
  CHECK(c.overrides().size() == 6);
  // A section absent from the file is created; the whole list can be replaced.
  const Case m = Case::load(case_path("minimal.yaml"), toy_schema(),
                            {"output.every=5", "obstacles=[{shape: sphere, center: [0.1, 0.2, 0.3]}]"});
  CHECK(m.get<std::int64_t>("output.every") == 5);
  REQUIRE(m.list_size("obstacles") == 1);
  CHECK(m.list("obstacles")[0].get<std::array<double, 3>>("center") == std::array<double, 3>{0.1, 0.2, 0.3});
  // The override is validated like the file, cross-checks included.
  CHECK_THROWS_AS(Case::load(case_path("minimal.yaml"), toy_schema(), {"time.dt=100"}), CaseError);
}

TEST_CASE("resolved YAML re-loads to the same values and hash", "[case]") {
  const Case c = Case::load(case_path("good.yaml"), toy_schema(), {"output.label=a \"quoted\" label: yes"});
  const std::string y = c.yaml();
  // Every key with a value appears, defaults included, in schema order.
  CHECK(y.find("  density: 1000.0\n") != std::string::npos);
  CHECK(y.find("  model: bgk\n") != std::string::npos);
  CHECK(y.find("  cells: [32, 16, 8]\n") != std::string::npos);
  CHECK(y.find("domain:") < y.find("physics:"));
  CHECK(y.find("  - shape: box\n    center: [0.5, 0.5, 0.25]\n") != std::string::npos);
  const Case r = Case::from_string(y, toy_schema(), "resolved.yaml");
  CHECK(r.yaml() == y);
  CHECK(r.hash() == c.hash());
  CHECK(r.hash_hex() == c.hash_hex());
  CHECK(r.hash_hex().size() == 16);
  CHECK(r.get<std::string>("output.label") == "a \"quoted\" label: yes");
  CHECK(c.hash() == tessera::fnv1a64(y));
  // Writing a default explicitly does not change the case; changing a value does.
  const Case d1 = Case::load(case_path("minimal.yaml"), toy_schema());
  const Case d2 = Case::load(case_path("minimal.yaml"), toy_schema(), {"physics.density=1000"});
  const Case d3 = Case::load(case_path("minimal.yaml"), toy_schema(), {"physics.density=999.5"});
  CHECK(d1.hash() == d2.hash());
  CHECK(d1.hash() != d3.hash());
}

TEST_CASE("FNV-1a 64 reference values", "[case]") {
  // Reference values of the FNV-1a 64-bit hash (Fowler/Noll/Vo test vectors).
  CHECK(tessera::fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(tessera::fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(tessera::fnv1a64("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("floats print as shortest round-trip text", "[case]") {
  const std::string text = "domain:\n  cells: [3, 3, 3]\n  length: [0.5, 3, 0.25]\nphysics:\n  viscosity: 1e-7\n"
                           "time:\n  dt: 0.30000000000000004\n";
  const Case c = Case::from_string(text, toy_schema(), "floats.yaml");
  CHECK(c.yaml().find("  length: [0.5, 3.0, 0.25]\n") != std::string::npos);
  CHECK(c.yaml().find("  viscosity: 1e-07\n") != std::string::npos);
  CHECK(c.yaml().find("  dt: 0.30000000000000004\n") != std::string::npos);
  CHECK(Case::from_string(c.yaml(), toy_schema()).get<double>("time.dt") == 0.30000000000000004);
}
