// A validated case: a YAML case file checked against a Schema, with defaults filled in and
// command-line overrides (--set key=value) applied.
//
//   const Case c = Case::load("cavity.yaml", lbm_schema(), {"physics.viscosity=1e-5"});
//   auto cells = c.get<std::array<int64_t, 3>>("domain.cells");
//   double nu  = c.get<double>("physics.viscosity");
//   for (const Case& ob : c.list("obstacles")) { auto centre = ob.get<std::array<double, 3>>("center"); }
//
// Loading reports every problem before anything runs, as a CaseError whose lines read
//   cavity.yaml:12:5: key 'physics.viscosity': expected a number > 0 [m^2/s], got -1
//   cavity.yaml:3:3: key 'domain.cels': unknown key (did you mean 'domain.cells'?)
//   --set 'physics.nu=2': key 'physics.nu': unknown key (did you mean 'physics.viscosity'?)
// (lines and columns are 1-based). Unknown keys, wrong types, missing required keys, out-of-range
// values, wrong array lengths, bad enum values, duplicate keys, YAML syntax errors and failed
// cross-checks are all reported; cross-checks run only once every key is valid.
//
// Values keep the units written in the file (SI by convention); the schema's unit is documentation.
// The resolved case (every key, defaults included, in schema order) prints as YAML with yaml(); its
// FNV-1a 64-bit hash identifies the case in output attributes and checkpoints. Re-loading the printed
// YAML gives the same hash.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/schema.hpp"

namespace tessera {

// One problem found in a case. line/column are 1-based; 0 when there is no position (a default value,
// a missing file). source is the file path, or "--set 'k=v'" for an override.
struct Diagnostic {
  std::string source;
  int line = 0, column = 0;
  std::string key;      // dotted path, list entries as "obstacles[1].center"; may be empty
  std::string message;  // "expected ..., got ..." / "unknown key (did you mean ...?)" / ...
  std::string str() const;  // "SOURCE:LINE:COL: key 'KEY': MESSAGE"
};

// Thrown when a case does not validate; what() holds every diagnostic, one per line.
class CaseError : public Error {
 public:
  explicit CaseError(std::vector<Diagnostic> d);
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

 private:
  std::vector<Diagnostic> diags_;
};

namespace detail {
struct CaseData;  // the resolved values of one map (the case root or one list entry)
template <class T> struct is_std_array : std::false_type {};
template <class T, std::size_t N> struct is_std_array<std::array<T, N>> : std::true_type {};
}  // namespace detail

class Case {
 public:
  // Reads and validates `path` against `schema`, then applies `overrides` ("key=value", value parsed as
  // a YAML scalar or flow sequence/map; list entries addressed as "obstacles[0].radius"). Throws
  // CaseError listing every problem. The schema must outlive the Case.
  static Case load(const std::string& path, const Schema& schema, const std::vector<std::string>& overrides = {});
  // Same, from YAML text; `source` names it in messages.
  static Case from_string(const std::string& yaml, const Schema& schema, const std::string& source = "<string>",
                          const std::vector<std::string>& overrides = {});

  // Typed access. T: bool, int, int64_t, double, float, std::string (also enums), std::vector<int64_t>,
  // std::vector<double>, std::array<int64_t|int|double|float, N> (N must equal the array length).
  // Throws tessera::Error if the key is not declared, has no value (optional and unset: check has()),
  // or T does not fit the declared type. Keys are relative to this view (a list entry's own keys).
  template <class T>
  T get(std::string_view key) const {
    if constexpr (detail::is_std_array<T>::value) {
      using E = typename T::value_type;
      using V = std::conditional_t<std::is_integral_v<E>, std::int64_t, double>;
      std::vector<V> v;
      read(key, v);
      T out{};
      check_array_size(key, v.size(), out.size());
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<E>(v[i]);
      return out;
    } else {
      T out{};
      read(key, out);
      return out;
    }
  }
  bool has(std::string_view key) const;    // has a value (from the file, --set or a default)
  bool given(std::string_view key) const;  // set by the file or --set (not a default)
  // List entries, each a view with the same getters and its own keys.
  std::vector<Case> list(std::string_view key) const;
  std::size_t list_size(std::string_view key) const;

  // Where a key's value came from: "cavity.yaml:12:5", "--set 'k=v'" or "default".
  std::string location(std::string_view key) const;
  // For checks a solver makes after loading: throws CaseError with one diagnostic at key's location.
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;

  // The resolved YAML of this view (the whole case for the root), every key in schema order.
  std::string yaml() const;
  // FNV-1a 64 of the whole resolved case's YAML (same for every view of one case), and as 16 hex digits.
  std::uint64_t hash() const;
  std::string hash_hex() const;
  const std::string& source() const;                  // file path (or from_string's source)
  const std::vector<std::string>& overrides() const;  // the --set strings applied
  const Schema& schema() const { return *schema_; }
  const std::string& prefix() const { return prefix_; }  // "" for the root, "obstacles[2]." for an entry

 private:
  struct Shared;  // per-case: source, overrides, resolved YAML text and hash
  Case(std::shared_ptr<const Shared> s, std::shared_ptr<const detail::CaseData> d, const Schema* schema,
       std::string prefix);
  friend struct CaseBuilder;
  void read(std::string_view key, bool& out) const;
  void read(std::string_view key, int& out) const;
  void read(std::string_view key, long& out) const;
  void read(std::string_view key, long long& out) const;
  void read(std::string_view key, double& out) const;
  void read(std::string_view key, float& out) const;
  void read(std::string_view key, std::string& out) const;
  void read(std::string_view key, std::vector<std::int64_t>& out) const;
  void read(std::string_view key, std::vector<double>& out) const;
  void check_array_size(std::string_view key, std::size_t got, std::size_t want) const;

  std::shared_ptr<const Shared> shared_;
  std::shared_ptr<const detail::CaseData> data_;
  const Schema* schema_ = nullptr;
  std::string prefix_;
};

// FNV-1a 64-bit hash (offset basis 14695981039346656037, prime 1099511628211).
std::uint64_t fnv1a64(std::string_view bytes);

}  // namespace tessera
