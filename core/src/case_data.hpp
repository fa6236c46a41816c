// Internal: the resolved values of a case (one CaseData per map: the root and each list entry).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tessera/core/case.hpp"

namespace tessera {

namespace detail {

// Where a value came from. line/column 1-based, 0 when unknown; is_default for schema defaults.
struct Origin {
  std::string source;
  int line = 0, column = 0;
  bool is_default = false;
};

using Entries = std::vector<std::shared_ptr<const CaseData>>;
using Value = std::variant<std::monostate, bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                           std::vector<double>, Entries>;

struct Slot {
  Value value;
  Origin origin;
  bool given = false;  // from the file or --set
};

struct CaseData {
  const Schema* schema = nullptr;
  std::map<std::string, Slot, std::less<>> slots;  // keyed by path relative to this map
};

// The resolved YAML of one map, keys in schema order, nested sections as block maps, lists as
// block sequences of maps, indented by `indent` spaces.
std::string emit_yaml(const CaseData& d, int indent = 0);

// Validates YAML text plus overrides against a schema; fills `diags` (never throws for bad input).
std::shared_ptr<const CaseData> load_case(const std::string& text,
                                          const std::string& source, const Schema& schema,
                                          const std::vector<std::string>& overrides, std::vector<Diagnostic>& diags);

}  // namespace detail

struct Case::Shared {
  std::string source;
  std::vector<std::string> overrides;
  std::string yaml;
  std::uint64_t hash = 0;
};

// Builds Case views (Case's constructor is private).
struct CaseBuilder {
  static Case make(std::shared_ptr<const Case::Shared> s, std::shared_ptr<const detail::CaseData> d,
                   const Schema* schema, std::string prefix) {
    return Case(std::move(s), std::move(d), schema, std::move(prefix));
  }
};

}  // namespace tessera
