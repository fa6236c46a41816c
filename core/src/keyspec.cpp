// KeySpec: one case key (type, default, bounds, unit, description) and how messages describe it.
#include <cmath>

#include "tessera/core/error.hpp"
#include "tessera/core/schema.hpp"
#include "yaml_text.hpp"

namespace tessera {

// ---------------------------------------------------------------- Bounds
bool Bounds::contains(double v) const {
  if (std::isnan(v)) return false;
  if (lo && (lo_exclusive ? !(v > *lo) : !(v >= *lo))) return false;
  if (hi && (hi_exclusive ? !(v < *hi) : !(v <= *hi))) return false;
  return true;
}

namespace {
std::string num(double v) {
  // Integral bounds print as integers ("1" rather than "1.0") since they also bound int keys.
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(std::int64_t(v));
  return yaml_text::number(v);
}
}  // namespace

std::string Bounds::str() const {
  if (lo && hi)
    return std::string("in ") + (lo_exclusive ? "(" : "[") + num(*lo) + ", " + num(*hi) + (hi_exclusive ? ")" : "]");
  if (lo) return (lo_exclusive ? "> " : ">= ") + num(*lo);
  if (hi) return (hi_exclusive ? "< " : "<= ") + num(*hi);
  return "";
}

// ---------------------------------------------------------------- KeySpec builder
KeySpec::KeySpec(std::string path, KeyType t) : path_(std::move(path)), type_(t) {}

namespace {
[[noreturn]] void schema_bug(const std::string& key, const std::string& what) {
  TESSERA_THROW("schema key '" + key + "': " + what + " (this is a bug in the solver's schema declaration)");
}
}  // namespace

KeySpec& KeySpec::required() {
  presence_ = Presence::Required;
  default_ = std::monostate{};
  return *this;
}
KeySpec& KeySpec::optional() {
  presence_ = Presence::Optional;
  default_ = std::monostate{};
  return *this;
}
KeySpec& KeySpec::default_value(bool v) {
  if (type_ != KeyType::Bool) schema_bug(path_, "a bool default for a " + std::string(to_string(type_)) + " key");
  default_ = v;
  presence_ = Presence::Default;
  return *this;
}
KeySpec& KeySpec::default_value(int v) { return default_value(static_cast<long long>(v)); }
KeySpec& KeySpec::default_value(long v) { return default_value(static_cast<long long>(v)); }
KeySpec& KeySpec::default_value(long long v) {
  if (type_ == KeyType::Int)
    default_ = static_cast<std::int64_t>(v);
  else if (type_ == KeyType::Float)
    default_ = static_cast<double>(v);
  else
    schema_bug(path_, "an integer default for a " + std::string(to_string(type_)) + " key");
  presence_ = Presence::Default;
  return *this;
}
KeySpec& KeySpec::default_value(double v) {
  if (type_ == KeyType::Float) {
    default_ = v;
  } else if (type_ == KeyType::Int && v == std::floor(v) && std::fabs(v) < 9.2e18) {
    default_ = static_cast<std::int64_t>(v);
  } else {
    schema_bug(path_, "a number default " + yaml_text::number(v) + " for a " + std::string(to_string(type_)) + " key");
  }
  presence_ = Presence::Default;
  return *this;
}
KeySpec& KeySpec::default_value(const char* v) { return default_value(std::string(v)); }
KeySpec& KeySpec::default_value(std::string v) {
  if (type_ != KeyType::String && type_ != KeyType::Enum)
    schema_bug(path_, "a string default for a " + std::string(to_string(type_)) + " key");
  default_ = std::move(v);
  presence_ = Presence::Default;
  return *this;
}
KeySpec& KeySpec::default_array(std::initializer_list<double> v) { return default_array(std::vector<double>(v)); }
KeySpec& KeySpec::default_array(std::vector<double> v) {
  if (type_ == KeyType::FloatArray) {
    default_ = std::move(v);
  } else if (type_ == KeyType::IntArray) {
    std::vector<std::int64_t> iv;
    for (double x : v) {
      if (x != std::floor(x)) schema_bug(path_, "non-integral default element " + yaml_text::number(x));
      iv.push_back(static_cast<std::int64_t>(x));
    }
    default_ = std::move(iv);
  } else {
    schema_bug(path_, "an array default for a " + std::string(to_string(type_)) + " key");
  }
  presence_ = Presence::Default;
  return *this;
}
KeySpec& KeySpec::min(double v) { bounds_.lo = v; bounds_.lo_exclusive = false; return *this; }
KeySpec& KeySpec::max(double v) { bounds_.hi = v; bounds_.hi_exclusive = false; return *this; }
KeySpec& KeySpec::greater_than(double v) { bounds_.lo = v; bounds_.lo_exclusive = true; return *this; }
KeySpec& KeySpec::less_than(double v) { bounds_.hi = v; bounds_.hi_exclusive = true; return *this; }
KeySpec& KeySpec::unit(std::string u) { unit_ = std::move(u); return *this; }
KeySpec& KeySpec::describe(std::string d) { desc_ = std::move(d); return *this; }
KeySpec& KeySpec::min_items(std::size_t n) {
  if (type_ != KeyType::List) schema_bug(path_, "min_items on a non-list key");
  min_items_ = n;
  return *this;
}
KeySpec& KeySpec::max_items(std::size_t n) {
  if (type_ != KeyType::List) schema_bug(path_, "max_items on a non-list key");
  max_items_ = n;
  return *this;
}
Schema& KeySpec::entries() {
  if (type_ != KeyType::List) schema_bug(path_, "entries() on a non-list key");
  return *entries_;
}

// ---------------------------------------------------------------- KeySpec inspection
std::string KeySpec::expectation() const {
  std::string e;
  const std::string b = bounds_.str();
  const std::string n = length_ ? std::to_string(length_) + " " : "";
  switch (type_) {
    case KeyType::Bool: e = "true or false"; break;
    case KeyType::Int: e = "an integer" + (b.empty() ? "" : " " + b); break;
    case KeyType::Float: e = "a number" + (b.empty() ? "" : " " + b); break;
    case KeyType::String: e = "a string"; break;
    case KeyType::Enum: {
      e = "one of ";
      for (std::size_t i = 0; i < allowed_.size(); ++i) e += (i ? ", " : "") + allowed_[i];
      break;
    }
    case KeyType::IntArray: e = "a list of " + n + "integers" + (b.empty() ? "" : ", each " + b); break;
    case KeyType::FloatArray: e = "a list of " + n + "numbers" + (b.empty() ? "" : ", each " + b); break;
    case KeyType::List:
      e = "a list of maps";
      if (min_items_ && max_items_) e += " (" + std::to_string(min_items_) + " to " + std::to_string(max_items_) + " entries)";
      else if (min_items_) e += " (at least " + std::to_string(min_items_) + " entries)";
      else if (max_items_) e += " (at most " + std::to_string(max_items_) + " entries)";
      break;
  }
  if (!unit_.empty() && unit_ != "1" && type_ != KeyType::List) e += " [" + unit_ + "]";
  return e;
}

std::string KeySpec::default_str() const {
  if (presence_ == Presence::Required) return "required";
  if (std::holds_alternative<std::monostate>(default_)) return type_ == KeyType::List ? "[]" : "(none)";
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>) return v ? "true" : "false";
        else if constexpr (std::is_same_v<V, std::int64_t>) return yaml_text::integer(v);
        else if constexpr (std::is_same_v<V, double>) return yaml_text::number(v);
        else if constexpr (std::is_same_v<V, std::string>) return yaml_text::string(v);
        else if constexpr (std::is_same_v<V, std::vector<std::int64_t>>) return yaml_text::int_list(v);
        else if constexpr (std::is_same_v<V, std::vector<double>>) return yaml_text::float_list(v);
        else return "(none)";
      },
      default_);
}

}  // namespace tessera
