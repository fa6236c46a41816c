// Broken case files: each message must name the file, line, column, key and what was expected.
#include <algorithm>
#include <cstring>
#include <string>

#include "catch_compat.hpp"
#include "test_case_toy.hpp"

using tessera::Case;
using tessera::CaseError;
using tessera::Diagnostic;
using tessera::test::case_path;
using tessera::test::toy_schema;

namespace {
// Loads `file` (with overrides) expecting failure; returns the diagnostics.
std::vector<Diagnostic> errors_of(const std::string& file, const std::vector<std::string>& overrides = {}) {
  try {
    (void)Case::load(case_path(file), toy_schema(), overrides);
  } catch (const CaseError& e) {
    return e.diagnostics();
  }
  FAIL("'" << file << "' loaded but should have been rejected");
  return {};
}

// Exactly one diagnostic, whose text is "<cases dir>/<expected>".
void expect_one(const std::string& file, const std::string& expected) {
  const auto d = errors_of(file);
  INFO(file);
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == case_path(expected));
}
}  // namespace

TEST_CASE("unknown key: position and the closest known key", "[case]") {
  expect_one("bad_unknown_key.yaml",
             "bad_unknown_key.yaml:6:3: key 'physics.viscosty': unknown key (did you mean 'physics.viscosity'?)");
}

TEST_CASE("wrong type", "[case]") {
  expect_one("bad_type.yaml", "bad_type.yaml:5:10: key 'time.steps': expected an integer >= 1, got 'many'");
}

TEST_CASE("missing required key points at its section", "[case]") {
  expect_one("bad_missing_required.yaml",
             "bad_missing_required.yaml:3:1: key 'time.dt': missing required key: expected a number > 0 [s] (Time step)");
}

TEST_CASE("out of range", "[case]") {
  expect_one("bad_range.yaml",
             "bad_range.yaml:6:14: key 'physics.viscosity': expected a number > 0 [m^2/s], got '-1.0e-3'");
}

TEST_CASE("bad enum value with suggestion", "[case]") {
  expect_one("bad_enum.yaml",
             "bad_enum.yaml:6:10: key 'collision.model': expected one of bgk, trt, mrt, got 'bkg' (did you mean 'bgk'?)");
}

TEST_CASE("wrong array length", "[case]") {
  expect_one("bad_array_length.yaml",
             "bad_array_length.yaml:2:10: key 'domain.cells': expected a list of 3 integers, each >= 1, got a list of 2 items");
}

TEST_CASE("negative size in an array element", "[case]") {
  expect_one("bad_negative_size.yaml",
             "bad_negative_size.yaml:2:14: key 'domain.cells[1]': expected an integer >= 1, got '-4'");
}

TEST_CASE("YAML syntax error has file:line:column", "[case]") {
  const auto d = errors_of("bad_syntax.yaml");
  REQUIRE(d.size() == 1);
  CHECK(d[0].source == case_path("bad_syntax.yaml"));
  CHECK(d[0].line >= 2);  // the unclosed '[' opens on line 2; the parser notices it at or after that line
  CHECK(d[0].line <= 4);
  CHECK(d[0].column >= 1);
  CHECK(d[0].message.rfind("YAML syntax error: ", 0) == 0);
}

TEST_CASE("list entry with a bad key", "[case]") {
  expect_one("bad_list_entry.yaml",
             "bad_list_entry.yaml:10:5: key 'obstacles[1].radus': unknown key (did you mean 'obstacles[1].radius'?)");
}

TEST_CASE("cross-check failure names its keys", "[case]") {
  const auto d = errors_of("bad_cross_check.yaml");
  REQUIRE(d.size() == 1);
  CHECK(d[0].source == case_path("bad_cross_check.yaml"));
  CHECK(d[0].line == 7);
  CHECK(d[0].column == 7);
  CHECK(d[0].key == "time.dt");
  CHECK(d[0].message.find("diffusion number nu*dt/dx^2 = 0.64") == 0);
  CHECK(d[0].message.find("[check 'diffusion-number' on time.dt physics.viscosity domain.cells domain.length]") !=
        std::string::npos);
}

TEST_CASE("cross-check of a list entry", "[case]") {
  const auto d = errors_of("bad_entry_check.yaml");
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == case_path("bad_entry_check.yaml") +
                          ":6:12: key 'obstacles[0].shape': a box needs 'size' [sx, sy, sz] [check 'box-size' on "
                          "obstacles[0].shape obstacles[0].size]");
}

TEST_CASE("duplicate key", "[case]") {
  expect_one("bad_duplicate.yaml", "bad_duplicate.yaml:6:3: key 'time.dt': duplicate key (first given at line 4): keep one");
}

TEST_CASE("a section given a scalar", "[case]") {
  const auto d = errors_of("bad_section.yaml");
  REQUIRE(d.size() == 2);  // the section itself, and then its required key is missing
  CHECK(d[0].str() == case_path("bad_section.yaml:1:1: key 'domain': expected a map of keys (a section), got '8'"));
  CHECK(d[1].key == "domain.cells");
  CHECK(d[1].message.find("missing required key") == 0);
}

TEST_CASE("every problem is reported at once", "[case]") {
  const auto d = errors_of("bad_many.yaml");
  REQUIRE(d.size() == 5);
  CHECK(d[0].str() == case_path("bad_many.yaml:3:17: key 'domain.cells[2]': expected an integer >= 1, got '0'"));
  CHECK(d[1].str() == case_path("bad_many.yaml:5:7: key 'time.dt': expected a number > 0 [s], got '0'"));
  CHECK(d[2].str() == case_path("bad_many.yaml:6:3: key 'time.stesp': unknown key (did you mean 'time.steps'?)"));
  CHECK(d[3].str() == case_path("bad_many.yaml:8:11: key 'output.format': expected one of hdf5, vtk, got 'png'"));
  CHECK(d[4].str() == case_path("bad_many.yaml:9:10: key 'output.every': expected an integer >= 0, got 'yes'"));
  // what() carries them all, one per line.
  try {
    (void)Case::load(case_path("bad_many.yaml"), toy_schema());
  } catch (const CaseError& e) {
    CHECK(std::string(e.what()).find(d[4].str()) != std::string::npos);
    CHECK(std::count(e.what(), e.what() + std::strlen(e.what()), '\n') == 4);
  }
}

TEST_CASE("a missing file says so", "[case]") {
  const auto d = errors_of("no_such_case.yaml");
  REQUIRE(d.size() == 1);
  CHECK(d[0].line == 0);
  CHECK(d[0].message.find("cannot open the case file") == 0);
}

TEST_CASE("--set errors name --set as the source", "[case]") {
  SECTION("unknown key") {
    const auto d = errors_of("minimal.yaml", {"physics.viscosty=1"});
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == "--set 'physics.viscosty=1': key 'physics.viscosty': unknown key (did you mean 'physics.viscosity'?)");
  }
  SECTION("bad value") {
    const auto d = errors_of("minimal.yaml", {"physics.viscosity=abc"});
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == "--set 'physics.viscosity=abc': key 'physics.viscosity': expected a number > 0 [m^2/s], got 'abc'");
  }
  SECTION("value that is not YAML") {
    const auto d = errors_of("minimal.yaml", {"domain.cells=[1, 2"});
    REQUIRE(d.size() == 1);
    CHECK(d[0].source == "--set 'domain.cells=[1, 2'");
    CHECK(d[0].message.find("cannot read the value '[1, 2' as YAML") == 0);
  }
  SECTION("no '='") {
    const auto d = errors_of("minimal.yaml", {"time.dt"});
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == "--set 'time.dt': expected KEY=VALUE, e.g. --set physics.viscosity=1e-5");
  }
  SECTION("list index out of range") {
    const auto d = errors_of("good.yaml", {"obstacles[5].radius=0.3"});
    REQUIRE(d.size() == 1);
    CHECK(d[0].message == "list 'obstacles' has 2 entries in the case file: index 5 is out of range");
  }
  SECTION("bad key inside a list entry") {
    const auto d = errors_of("good.yaml", {"obstacles[0].radus=0.3"});
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == "--set 'obstacles[0].radus=0.3': key 'obstacles[0].radus': unknown key (did you mean "
                        "'obstacles[0].radius'?)");
  }
  SECTION("a file error and a --set error together") {
    const auto d = errors_of("bad_range.yaml", {"time.steps=0"});
    REQUIRE(d.size() == 2);
    CHECK(d[0].str() == "--set 'time.steps=0': key 'time.steps': expected an integer >= 1, got '0'");
    CHECK(d[1].key == "physics.viscosity");
  }
}

TEST_CASE("quoted numbers and null values are type errors", "[case]") {
  const std::string base = "domain:\n  cells: [8, 8, 8]\ntime:\n  dt: 0.001\n";
  auto one = [&](const std::string& extra) {
    try {
      (void)Case::from_string(base + extra, toy_schema(), "inline.yaml");
    } catch (const CaseError& e) {
      REQUIRE(e.diagnostics().size() == 1);
      return e.diagnostics()[0].str();
    }
    return std::string("accepted");
  };
  CHECK(one("  steps: \"5\"\n") == "inline.yaml:5:10: key 'time.steps': expected an integer >= 1, got the quoted string \"5\"");
  CHECK(one("  steps:\n") == "inline.yaml:5:3: key 'time.steps': expected an integer >= 1, got nothing (null)");
  CHECK(one("  steps: 2.5\n") == "inline.yaml:5:10: key 'time.steps': expected an integer >= 1, got '2.5'");
  CHECK(one("domain.periodic: true\n") ==
        "inline.yaml:5:1: key 'domain.periodic': unknown key: write dotted names as nested maps ('domain:' "
        "then 'periodic:' indented below it)");
  CHECK(one("physics:\n  viscosity: .nan\n") ==
        "inline.yaml:6:14: key 'physics.viscosity': expected a number > 0 [m^2/s], got '.nan'");
  CHECK(one("collision:\n  magic: 1\n") ==
        "inline.yaml:6:10: key 'collision.magic': expected a number in (0, 1), got '1'");
  CHECK(one("- 1\n") != "accepted");
}
