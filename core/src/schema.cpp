// Schema: declaring keys, finding them, "did you mean" suggestions and self-verification.
// KeySpec (one key) lives in keyspec.cpp, the Markdown reference in schema_markdown.cpp.
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

// ---------------------------------------------------------------- Schema
namespace {
[[noreturn]] void schema_bug(const std::string& key, const std::string& what) {
  TESSERA_THROW("schema key '" + key + "': " + what + " (this is a bug in the solver's schema declaration)");
}
}  // namespace

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
