// The environment knobs' parsers (tessera/core/knob.hpp): the fallback where unset or empty, other
// spellings after '|', and an error that names the knob, the value, every accepted name and the default.
#include "tessera/core/knob.hpp"

#include <string>
#include <utility>

#include "catch_compat.hpp"

using tessera::knob_choice;
using tessera::knob_name;
using tessera::test::ScopedEnv;

TEST_CASE("knob_choice: the fallback where unset or empty, each spelling of a name, the canonical name", "[core]") {
  const char* var = "TESSERA_TEST_KNOB";
  unsetenv(var);
  const auto choose = [&] { return knob_choice(var, {"on|1", "off|0", "auto"}, "auto", "auto"); };
  REQUIRE(choose() == 2);
  for (const auto& [value, index] : {std::pair{"", 2}, std::pair{"auto", 2}, std::pair{"on", 0}, std::pair{"1", 0},
                                     std::pair{"off", 1}, std::pair{"0", 1}}) {
    INFO(var << "='" << value << "'");
    const ScopedEnv e(var, value);
    CHECK(choose() == index);
  }
  {
    const ScopedEnv e(var, "0");
    CHECK(knob_name(var, {"on|1", "off|0", "auto"}, "auto", "auto") == "off");
  }
  // A fallback that is not the last name, and names that are prefixes of one another.
  const auto shape = [&] { return knob_choice(var, {"strip8", "strip8f", "strip8f8"}, "strip8f", "strip8f"); };
  CHECK(shape() == 1);
  {
    const ScopedEnv e(var, "strip8f8");
    CHECK(shape() == 2);
  }
}

TEST_CASE("knob_choice refuses any other value, naming the knob, the value, the first spellings and the default",
          "[core]") {
  const char* var = "TESSERA_TEST_KNOB";
  for (const char* bad : {"yes", "ON", "on|1", "1 ", "o"}) {
    INFO(var << "='" << bad << "'");
    const ScopedEnv e(var, bad);
    try {
      knob_choice(var, {"on|1", "odd", "off|0", "auto"}, "auto", "auto, off here");
      FAIL("accepted");
    } catch (const tessera::Error& err) {
      const std::string what = err.what();
      CHECK(what.find(std::string(var) + "='" + bad + "': expected on, odd, off or auto (unset: auto, off here)") !=
            std::string::npos);
      CHECK(what.find('|', what.find("expected")) == std::string::npos);  // the names without other spellings
    }
  }
}

TEST_CASE("knob_integer: the fallback where unset or empty, the value, and an error for anything else", "[core]") {
  const char* var = "TESSERA_TEST_KNOB";
  unsetenv(var);
  CHECK(tessera::knob_integer(var, 7, 2, "an integer >= 2") == 7);
  for (const auto& [value, expect] : {std::pair{"", 7L}, std::pair{"2", 2L}, std::pair{"4096", 4096L}}) {
    const ScopedEnv e(var, value);
    CHECK(tessera::knob_integer(var, 7, 2, "an integer >= 2") == expect);
  }
  for (const char* bad : {"1", "-3", "x", "4k", " "}) {
    INFO(var << "='" << bad << "'");
    const ScopedEnv e(var, bad);
    try {
      tessera::knob_integer(var, 7, 2, "an integer >= 2");
      FAIL("accepted");
    } catch (const tessera::Error& err) {
      CHECK(std::string(err.what()).find(std::string(var) + "='" + bad + "': expected an integer >= 2") !=
            std::string::npos);
    }
  }
}
