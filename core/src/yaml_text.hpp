// Internal: how numbers and strings are written in resolved case YAML, so that printing, hashing and
// re-loading agree (shortest round-trip floats, deterministic quoting).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::yaml_text {

// Shortest decimal that reads back to the same double, always recognisable as a float ("1.0", "1e-06"
// -> "1e-06", "0.1"); infinities as ".inf" / "-.inf" (YAML 1.2 core schema).
std::string number(double v);
std::string integer(std::int64_t v);
// A plain scalar when it cannot be misread (identifier-like and not a YAML keyword such as true/null),
// otherwise double-quoted with escapes.
std::string string(std::string_view s);
std::string int_list(const std::vector<std::int64_t>& v);  // "[1, 2, 3]"
std::string float_list(const std::vector<double>& v);      // "[0.5, 1.0, 2.0]"

}  // namespace tessera::yaml_text
