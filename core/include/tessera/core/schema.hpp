// Case-file schema: every key a solver accepts, declared in code in one place (one Schema per solver).
//
// A key has a dotted path ("domain.cells", "physics.viscosity"), a type, a default (or is required, or
// optional without default), an allowed range, a unit string (documentation only: values are SI as
// written) and a one-line description. Intermediate path components are sections (YAML maps) and are
// created implicitly. Lists of sub-maps ("obstacles: [{shape: box, ...}, ...]") carry their own Schema
// for the entries. Cross-key checks are callbacks on the validated case that may reject it with a
// message naming the keys involved.
//
//   Schema s("lbm", "Lattice-Boltzmann fluid solver");
//   s.section("domain", "Simulation box");
//   s.add_int_array("domain.cells", 3).required().min(1).describe("Lattice cells per axis [nx, ny, nz]");
//   s.add_float("physics.viscosity").default_value(1.0e-6).greater_than(0).unit("m^2/s")
//       .describe("Kinematic viscosity");
//   s.add_enum("collision.model", {"bgk", "trt"}).default_value("bgk").describe("Collision operator");
//   Schema& ob = s.add_list("obstacles").describe("Solid bodies").entries();
//   ob.add_enum("shape", {"box", "sphere"}).required().describe("Body shape");
//   ob.add_float_array("center", 3).required().unit("m").describe("Centre [x, y, z]");
//   s.add_check("tau", {"physics.viscosity", "time.dt"}, [](const Case& c) -> std::string {
//     return tau(c) < 0.51 ? "tau = ... is too close to 0.5 (unstable): lower dt or raise viscosity" : "";
//   });
//
// Declaring a key twice, a default of the wrong type, or a default outside the range is a bug in the
// schema: verify() (called by every Case load) throws tessera::Error naming the key.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera {

class Case;
class Schema;

enum class KeyType { Bool, Int, Float, String, Enum, IntArray, FloatArray, List };
const char* to_string(KeyType t);  // "bool", "int", "float", "string", "enum", "int[]", "float[]", "list"

// A default value as declared (arrays are held as vector<int64_t> / vector<double>).
using DefaultValue = std::variant<std::monostate, bool, std::int64_t, double, std::string,
                                  std::vector<std::int64_t>, std::vector<double>>;

// Inclusive or exclusive bounds; for arrays they apply to every element; for strings and lists they
// do not apply (lists have min_items / max_items).
struct Bounds {
  std::optional<double> lo, hi;
  bool lo_exclusive = false, hi_exclusive = false;
  bool contains(double v) const;
  std::string str() const;  // ">= 1", "> 0", "in [0, 1)", "" when unbounded
};

class KeySpec {
 public:
  enum class Presence { Default, Required, Optional };

  // ---- builder (chainable) ----
  KeySpec& required();
  KeySpec& optional();  // no default; Case::has(key) is false when the file does not set it
  KeySpec& default_value(bool v);
  KeySpec& default_value(int v);
  KeySpec& default_value(long v);
  KeySpec& default_value(long long v);
  KeySpec& default_value(double v);
  KeySpec& default_value(const char* v);
  KeySpec& default_value(std::string v);
  // Arrays: default_array({64, 64, 64}); values must be integral for int arrays.
  KeySpec& default_array(std::initializer_list<double> v);
  KeySpec& default_array(std::vector<double> v);
  KeySpec& min(double v);           // value >= v
  KeySpec& max(double v);           // value <= v
  KeySpec& greater_than(double v);  // value > v
  KeySpec& less_than(double v);     // value < v
  KeySpec& unit(std::string u);     // e.g. "m/s", "1" for dimensionless; documentation only
  KeySpec& describe(std::string d); // one line
  KeySpec& min_items(std::size_t n);  // lists only
  KeySpec& max_items(std::size_t n);  // lists only
  // Lists only: the schema of each entry (keys relative to the entry, e.g. "shape", "center").
  Schema& entries();

  // ---- inspection ----
  const std::string& path() const { return path_; }
  KeyType type() const { return type_; }
  Presence presence() const { return presence_; }
  const DefaultValue& default_val() const { return default_; }
  const Bounds& bounds() const { return bounds_; }
  const std::string& unit_str() const { return unit_; }
  const std::string& description() const { return desc_; }
  const std::vector<std::string>& allowed() const { return allowed_; }  // enums
  std::size_t length() const { return length_; }  // arrays: fixed length, 0 = any length
  std::size_t items_min() const { return min_items_; }
  std::size_t items_max() const { return max_items_; }  // 0 = unbounded
  const Schema* entry_schema() const { return entries_.get(); }
  // "a number > 0", "one of bgk, trt", "a list of 3 integers >= 1": what a message says is expected.
  std::string expectation() const;
  // The default rendered as YAML ("1e-06", "[64, 64, 64]", "bgk"), or "required" / "(none)".
  std::string default_str() const;

 private:
  friend class Schema;
  KeySpec(std::string path, KeyType t);
  std::string path_;
  KeyType type_;
  Presence presence_ = Presence::Optional;
  bool presence_set_ = false;
  DefaultValue default_;
  Bounds bounds_;
  std::string unit_, desc_;
  std::vector<std::string> allowed_;
  std::size_t length_ = 0, min_items_ = 0, max_items_ = 0;
  std::shared_ptr<Schema> entries_;
};

// A cross-key check: returns "" when the case is acceptable, else a message saying what is wrong and
// what to change. It runs only when every key validated, so Case getters are safe inside it.
using CrossCheckFn = std::function<std::string(const Case&)>;

struct CrossCheck {
  std::string name;               // short id, e.g. "tau"
  std::vector<std::string> keys;  // the keys involved; the first one locates the message
  CrossCheckFn fn;
  std::string description;        // for --print-schema (may be empty)
};

class Schema {
 public:
  explicit Schema(std::string name, std::string summary = "");
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;
  Schema(Schema&&) = default;
  Schema& operator=(Schema&&) = default;

  const std::string& name() const { return name_; }
  const std::string& summary() const { return summary_; }

  // Optional description of a section (an intermediate map such as "domain"); for the reference docs.
  Schema& section(const std::string& path, std::string description);

  KeySpec& add_bool(const std::string& path);
  KeySpec& add_int(const std::string& path);
  KeySpec& add_float(const std::string& path);
  KeySpec& add_string(const std::string& path);
  KeySpec& add_enum(const std::string& path, std::vector<std::string> allowed);
  KeySpec& add_int_array(const std::string& path, std::size_t length);    // length 0: any length
  KeySpec& add_float_array(const std::string& path, std::size_t length);  // length 0: any length
  KeySpec& add_list(const std::string& path);  // a list of maps; declare entry keys on .entries()

  Schema& add_check(std::string name, std::vector<std::string> keys, CrossCheckFn fn,
                    std::string description = "");

  // ---- inspection ----
  const KeySpec* find(std::string_view path) const;  // nullptr if not declared
  bool is_section(std::string_view path) const;      // a strict prefix of some declared key
  std::string section_description(std::string_view path) const;
  const std::vector<std::unique_ptr<KeySpec>>& keys() const { return keys_; }  // declaration order
  const std::vector<CrossCheck>& checks() const { return checks_; }
  // Declared paths (keys and sections) closest to `path` (edit distance on the dotted path and on its
  // last component); empty when nothing is close. Used for "did you mean ...".
  std::string suggest(std::string_view path) const;

  // Throws tessera::Error when the schema itself is inconsistent (bad default, empty enum, ...).
  void verify() const;

  // Markdown reference of every key: one table per section with type, default, unit, range and
  // description, then list-entry tables and the cross-checks. `<solver> --print-schema md` prints it.
  std::string markdown() const;

 private:
  KeySpec& add(const std::string& path, KeyType t);
  void markdown_into(std::string& out, const std::string& prefix, int level) const;
  std::string name_, summary_;
  std::vector<std::unique_ptr<KeySpec>> keys_;
  std::vector<std::pair<std::string, std::string>> sections_;  // path -> description
  std::vector<CrossCheck> checks_;
};

// Edit distance (Levenshtein) between two strings; used for suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace tessera
