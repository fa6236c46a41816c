// Schema declaration (builder), inspection, suggestions and self-verification.
// The Markdown reference lives in schema_markdown.cpp.
#include "tessera/core/schema.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "tessera/core/error.hpp"
#include "yaml_text.hpp"

namespace tessera {

const char* to_string(KeyType t) {
  switch (t) {
    case KeyType::Bool: return "bool";
    case KeyType::Int: return "int";
    case KeyType::Float: return "float";
    case KeyType::String: return "string";
    case KeyType::Enum: return "enum";
    case KeyType::IntArray: return "int[]";
    case KeyType::FloatArray: return "float[]";
    case KeyType::List: return "list";
  }
  return "?";
}

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

// ---------------------------------------------------------------- Schema
Schema::Schema(std::string name, std::string summary) : name_(std::move(name)), summary_(std::move(summary)) {}

namespace {
bool valid_segment(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}
bool valid_path(std::string_view p) {
  std::size_t start = 0;
  while (true) {
    const auto dot = p.find('.', start);
    if (!valid_segment(p.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}
bool is_prefix_path(std::string_view prefix, std::string_view path) {  // "a.b" of "a.b.c"
  return path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix && path[prefix.size()] == '.';
}
std::string_view last_segment(std::string_view p) {
  const auto dot = p.rfind('.');
  return dot == std::string_view::npos ? p : p.substr(dot + 1);
}
}  // namespace

KeySpec& Schema::add(const std::string& path, KeyType t) {
  if (!valid_path(path)) schema_bug(path, "invalid path (segments of letters, digits, '_' or '-', joined by '.')");
  for (const auto& k : keys_) {
    if (k->path() == path) schema_bug(path, "declared twice in schema '" + name_ + "'");
    if (is_prefix_path(k->path(), path) || is_prefix_path(path, k->path()))
      schema_bug(path, "conflicts with key '" + k->path() + "' (a key cannot also be a section)");
  }
  keys_.push_back(std::unique_ptr<KeySpec>(new KeySpec(path, t)));
  KeySpec& k = *keys_.back();
  if (t == KeyType::List) {
    k.entries_ = std::make_shared<Schema>(name_ + "." + path + "[]");
    k.presence_ = KeySpec::Presence::Default;  // an absent list is an empty list unless required()
  }
  return k;
}

Schema& Schema::section(const std::string& path, std::string description) {
  if (!valid_path(path)) schema_bug(path, "invalid section path");
  sections_.emplace_back(path, std::move(description));
  return *this;
}

KeySpec& Schema::add_bool(const std::string& p) { return add(p, KeyType::Bool); }
KeySpec& Schema::add_int(const std::string& p) { return add(p, KeyType::Int); }
KeySpec& Schema::add_float(const std::string& p) { return add(p, KeyType::Float); }
KeySpec& Schema::add_string(const std::string& p) { return add(p, KeyType::String); }
KeySpec& Schema::add_enum(const std::string& p, std::vector<std::string> allowed) {
  KeySpec& k = add(p, KeyType::Enum);
  k.allowed_ = std::move(allowed);
  return k;
}
KeySpec& Schema::add_int_array(const std::string& p, std::size_t n) {
  KeySpec& k = add(p, KeyType::IntArray);
  k.length_ = n;
  return k;
}
KeySpec& Schema::add_float_array(const std::string& p, std::size_t n) {
  KeySpec& k = add(p, KeyType::FloatArray);
  k.length_ = n;
  return k;
}
KeySpec& Schema::add_list(const std::string& p) { return add(p, KeyType::List); }

Schema& Schema::add_check(std::string name, std::vector<std::string> keys, CrossCheckFn fn, std::string description) {
  checks_.push_back(CrossCheck{std::move(name), std::move(keys), std::move(fn), std::move(description)});
  return *this;
}

const KeySpec* Schema::find(std::string_view path) const {
  for (const auto& k : keys_)
    if (k->path() == path) return k.get();
  return nullptr;
}

bool Schema::is_section(std::string_view path) const {
  return std::any_of(keys_.begin(), keys_.end(), [&](const auto& k) { return is_prefix_path(path, k->path()); });
}

std::string Schema::section_description(std::string_view path) const {
  for (const auto& [p, d] : sections_)
    if (p == path) return d;
  return "";
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Schema::suggest(std::string_view path) const {
  // Candidates: every key and every section. Score: distance of the whole path, or of the last segment
  // (catches a right key under the wrong section, e.g. "viscosity" for "physics.viscosity").
  std::vector<std::string> cands;
  for (const auto& k : keys_) {
    cands.push_back(k->path());
    for (auto dot = k->path().find('.'); dot != std::string::npos; dot = k->path().find('.', dot + 1))
      cands.push_back(k->path().substr(0, dot));
  }
  const std::string_view last = last_segment(path);
  std::string best;
  std::size_t best_score = std::string::npos;
  for (const auto& c : cands) {
    const std::size_t s = std::min(edit_distance(path, c), edit_distance(last, last_segment(c)) + (c == path ? 0 : 1));
    if (s < best_score) {
      best_score = s;
      best = c;
    }
  }
  const std::size_t limit = std::max<std::size_t>(2, last.size() / 3);
  return best_score <= limit && best != path ? best : "";
}

void Schema::verify() const {
  for (const auto& kp : keys_) {
    const KeySpec& k = *kp;
    if (k.type() == KeyType::Enum && k.allowed().empty()) schema_bug(k.path(), "enum without allowed values");
    const DefaultValue& d = k.default_val();
    if (const auto* s = std::get_if<std::string>(&d); s && k.type() == KeyType::Enum &&
        std::find(k.allowed().begin(), k.allowed().end(), *s) == k.allowed().end())
      schema_bug(k.path(), "default '" + *s + "' is not one of the allowed values");
    auto in_bounds = [&](double v) {
      if (!k.bounds().contains(v))
        schema_bug(k.path(), "default " + yaml_text::number(v) + " is outside the range " + k.bounds().str());
    };
    if (const auto* i = std::get_if<std::int64_t>(&d)) in_bounds(double(*i));
    if (const auto* f = std::get_if<double>(&d)) in_bounds(*f);
    if (const auto* iv = std::get_if<std::vector<std::int64_t>>(&d)) {
      if (k.length() && iv->size() != k.length()) schema_bug(k.path(), "default has the wrong length");
      for (auto x : *iv) in_bounds(double(x));
    }
    if (const auto* fv = std::get_if<std::vector<double>>(&d)) {
      if (k.length() && fv->size() != k.length()) schema_bug(k.path(), "default has the wrong length");
      for (auto x : *fv) in_bounds(x);
    }
    if (k.type() == KeyType::List) {
      if (k.items_max() && k.items_min() > k.items_max()) schema_bug(k.path(), "min_items > max_items");
      k.entry_schema()->verify();
    }
  }
  for (const auto& c : checks_) {
    if (!c.fn) schema_bug(c.name, "cross-check without a function");
    for (const auto& key : c.keys)
      if (!find(key)) schema_bug(key, "named by cross-check '" + c.name + "' but not declared");
  }
}

}  // namespace tessera
