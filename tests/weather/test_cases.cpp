// Every case file under cases/weather/ validates against the schema (so the shipped cases never rot),
// and the schema rejects what it must: unknown keys, beta with periodic y, dry topography.
#include <filesystem>

#include "catch_compat.hpp"
#include "tessera/weather_solver/config.hpp"

using namespace tessera;
using namespace tessera::weather;

TEST_CASE("shipped weather cases validate", "[weather][cases]") {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(TESSERA_WEATHER_CASES)) {
    if (e.path().extension() != ".yaml") continue;
    INFO(e.path().string());
    const Case c = Case::load(e.path().string(), schema());
    const Config k = read_config(c);
    CHECK(k.nx > 0);
    ++n;
  }
  CHECK(n >= 7);
}

TEST_CASE("weather schema rejects bad cases with the key named", "[weather][cases]") {
  const std::string base = "grid: {cells: [8, 8], length: [1.0, 1.0]}\ntime: {end: 1.0}\n";
  CHECK_NOTHROW(case_from_string(base));
  try {
    case_from_string(base + "physics: {beta: 1.0e-11}\n");
    FAIL("beta with periodic y accepted");
  } catch (const CaseError& e) {
    CHECK(std::string(e.what()).find("boundary_y") != std::string::npos);
  }
  CHECK_THROWS_AS(case_from_string(base + "physics: {gravty: 9.81}\n"), CaseError);
  CHECK_THROWS_AS(case_from_string(base + "initial: {depth: -1.0}\n"), CaseError);
  try {
    read_config(case_from_string(base + "topography: {type: gaussian, height: 20.0}\ninitial: {depth: 10.0}\n"));
    FAIL("dry topography accepted");
  } catch (const CaseError& e) {
    CHECK(std::string(e.what()).find("topography.height") != std::string::npos);
  }
}
