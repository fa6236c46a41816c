// Environment knobs: the measurement switches of the tuned kernels (TESSERA_LBM_L2HINT, TESSERA_HDIFF_KERNEL,
// TESSERA_SW_TILE, ...; docs/performance.md says what each measured). They are read per call, so that the
// benchmarks and tests can switch them. One parser and one error for all of them:
//   TESSERA_X='value': expected a, b or c (unset: what the default does)
#pragma once
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

// Knob `var`'s value; "" where it is unset.
inline std::string knob_value(const char* var) {
  const char* e = std::getenv(var);
  return e ? e : "";
}

// The error for a value of knob `var` that is none of `names` (first spellings, see knob_choice).
[[noreturn]] inline void knob_refused(const char* var, const std::string& value, const std::vector<std::string_view>& names,
                                      std::string_view unset_note) {
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string_view n = names[i].substr(0, names[i].find('|'));
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(n);
  }
  TESSERA_THROW(std::string(var) + "='" + value + "': expected " + list + " (unset: " + std::string(unset_note) + ")");
}

// The index in `names` of knob `var`'s value, or of `fallback` where the knob is unset or empty. A name may
// carry other spellings after '|' ("on|1" accepts "on" and "1"); the error lists the first one. Any other
// value is refused (knob_refused), with `unset_note` saying what the default does.
inline int knob_choice(const char* var, const std::vector<std::string_view>& names, std::string_view fallback,
                       std::string_view unset_note) {
  const std::string raw = knob_value(var);
  const std::string_view v = raw.empty() ? fallback : std::string_view(raw);
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string_view rest = names[i];
    while (true) {
      const std::size_t bar = rest.find('|');
      if (rest.substr(0, bar) == v) return int(i);
      if (bar == std::string_view::npos) break;
      rest = rest.substr(bar + 1);
    }
  }
  knob_refused(var, raw, names, unset_note);
}

// The same, as the first spelling of the name chosen.
inline std::string_view knob_name(const char* var, const std::vector<std::string_view>& names, std::string_view fallback,
                                  std::string_view unset_note) {
  const std::string_view n = names[std::size_t(knob_choice(var, names, fallback, unset_note))];
  return n.substr(0, n.find('|'));
}

// Knob `var` as an integer >= lo, or `fallback` where it is unset or empty; anything else is refused with
// VAR='value': expected <what>.
inline long knob_integer(const char* var, long fallback, long lo, std::string_view what) {
  const std::string v = knob_value(var);
  if (v.empty()) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v.c_str(), &end, 10);
  TESSERA_REQUIRE(end != v.c_str() && *end == '\0' && x >= lo,
                  std::string(var) + "='" + v + "': expected " + std::string(what));
  return x;
}

}  // namespace tessera
