// Case: loading entry points, typed access, locations, resolved YAML and its hash.
// Validation lives in case_load.cpp.
#include "tessera/core/case.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "case_data.hpp"
#include "yaml_text.hpp"

namespace tessera {

// ---------------------------------------------------------------- diagnostics
std::string Diagnostic::str() const {
  std::string s = source;
  // Appends one piece at a time (g++ 12 warns falsely on "literal" + std::string chains).
  if (line > 0) {
    s += ':';
    s += std::to_string(line);
    s += ':';
    s += std::to_string(column);
  }
  s += ": ";
  if (!key.empty()) {
    s += "key '";
    s += key;
    s += "': ";
  }
  s += message;
  return s;
}

namespace {
std::string join_diags(const std::vector<Diagnostic>& d) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i) s += '\n';
    s += d[i].str();
  }
  return s;
}
}  // namespace

CaseError::CaseError(std::vector<Diagnostic> d) : Error(join_diags(d)), diags_(std::move(d)) {}

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// ---------------------------------------------------------------- loading
Case::Case(std::shared_ptr<const Shared> s, std::shared_ptr<const detail::CaseData> d, const Schema* schema,
           std::string prefix)
    : shared_(std::move(s)), data_(std::move(d)), schema_(schema), prefix_(std::move(prefix)) {}

namespace {
// Cross-checks run on the complete, valid case: the root's checks and every list entry's, recursively.
void run_checks(const Case& view, const detail::CaseData& d, std::vector<Diagnostic>& diags) {
  const Schema& s = *d.schema;
  for (const CrossCheck& c : s.checks()) {
    std::string msg;
    try {
      msg = c.fn(view);
    } catch (const std::exception& e) {
      msg = std::string("check could not be evaluated: ") + e.what();
    }
    if (msg.empty()) continue;
    Diagnostic dg;
    dg.source = view.source();
    if (!c.keys.empty()) {
      dg.key = view.prefix() + c.keys.front();
      const auto it = d.slots.find(c.keys.front());
      if (it != d.slots.end()) {
        const detail::Origin& o = it->second.origin;
        dg.source = o.is_default ? view.source() : o.source;
        dg.line = o.line;
        dg.column = o.column;
        if (o.is_default) msg += " (the default value is in effect)";
      }
    }
    if (c.keys.size() > 1) {
      msg += " [check '" + c.name + "' on";
      for (const auto& k : c.keys) msg += " " + view.prefix() + k;
      msg += "]";
    }
    dg.message = msg;
    diags.push_back(std::move(dg));
  }
  for (const auto& kp : s.keys()) {
    if (kp->type() != KeyType::List) continue;
    const auto it = d.slots.find(kp->path());
    if (it == d.slots.end()) continue;
    const auto& entries = std::get<detail::Entries>(it->second.value);
    const std::vector<Case> views = view.list(kp->path());
    for (std::size_t i = 0; i < entries.size(); ++i) run_checks(views[i], *entries[i], diags);
  }
}
}  // namespace

Case Case::from_string(const std::string& yaml, const Schema& schema, const std::string& source,
                       const std::vector<std::string>& overrides) {
  schema.verify();
  std::vector<Diagnostic> diags;
  auto data = detail::load_case(yaml, source, schema, overrides, diags);
  if (!diags.empty() || !data) throw CaseError(std::move(diags));
  auto shared = std::make_shared<Shared>();
  shared->source = source;
  shared->overrides = overrides;
  shared->yaml = detail::emit_yaml(*data);
  shared->hash = fnv1a64(shared->yaml);
  Case c(shared, data, &schema, "");
  run_checks(c, *data, diags);
  if (!diags.empty()) throw CaseError(std::move(diags));
  return c;
}

Case Case::load(const std::string& path, const Schema& schema, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw CaseError({Diagnostic{path, 0, 0, "",
                                std::string("cannot open the case file: ") + std::strerror(err) +
                                    " (check the path; run '" + schema.name() + " --help' for usage)"}});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return from_string(ss.str(), schema, path, overrides);
}

// ---------------------------------------------------------------- typed access
namespace {
[[noreturn]] void access_error(const Case& c, std::string_view key, const std::string& what) {
  TESSERA_THROW("case key '" + c.prefix() + std::string(key) + "' (schema '" + c.schema().name() + "'): " + what);
}

const detail::Slot& slot_of(const Case& c, const detail::CaseData& d, std::string_view key) {
  if (!c.schema().find(key)) access_error(c, key, "not declared in the schema (declare it, or fix the key name)");
  const auto it = d.slots.find(key);
  if (it == d.slots.end()) access_error(c, key, "has no value: it is optional and not set (check has() first)");
  return it->second;
}

template <class T>
const T& as(const Case& c, const detail::Slot& s, std::string_view key, const char* asked) {
  if (const T* v = std::get_if<T>(&s.value)) return *v;
  access_error(c, key, std::string("is declared as ") + to_string(c.schema().find(key)->type()) + ", read as " + asked);
}
}  // namespace

void Case::read(std::string_view key, bool& out) const { out = as<bool>(*this, slot_of(*this, *data_, key), key, "bool"); }

void Case::read(std::string_view key, long long& out) const {
  out = as<std::int64_t>(*this, slot_of(*this, *data_, key), key, "an integer");
}
void Case::read(std::string_view key, long& out) const {
  out = static_cast<long>(as<std::int64_t>(*this, slot_of(*this, *data_, key), key, "an integer"));
}
void Case::read(std::string_view key, int& out) const {
  const std::int64_t v = as<std::int64_t>(*this, slot_of(*this, *data_, key), key, "int");
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    access_error(*this, key, "value " + std::to_string(v) + " does not fit in int: read it as int64_t");
  out = static_cast<int>(v);
}
void Case::read(std::string_view key, double& out) const {
  const detail::Slot& s = slot_of(*this, *data_, key);
  if (const auto* i = std::get_if<std::int64_t>(&s.value)) out = static_cast<double>(*i);
  else out = as<double>(*this, s, key, "double");
}
void Case::read(std::string_view key, float& out) const {
  double d = 0;
  read(key, d);
  out = static_cast<float>(d);
}
void Case::read(std::string_view key, std::string& out) const {
  out = as<std::string>(*this, slot_of(*this, *data_, key), key, "std::string");
}
void Case::read(std::string_view key, std::vector<std::int64_t>& out) const {
  out = as<std::vector<std::int64_t>>(*this, slot_of(*this, *data_, key), key, "std::vector<int64_t>");
}
void Case::read(std::string_view key, std::vector<double>& out) const {
  const detail::Slot& s = slot_of(*this, *data_, key);
  if (const auto* iv = std::get_if<std::vector<std::int64_t>>(&s.value)) out.assign(iv->begin(), iv->end());
  else out = as<std::vector<double>>(*this, s, key, "std::vector<double>");
}
void Case::check_array_size(std::string_view key, std::size_t got, std::size_t want) const {
  if (got != want)
    access_error(*this, key, "holds " + std::to_string(got) + " values, read as std::array of " + std::to_string(want));
}

bool Case::has(std::string_view key) const {
  if (!schema_->find(key)) access_error(*this, key, "not declared in the schema");
  return data_->slots.count(key) > 0;
}
bool Case::given(std::string_view key) const {
  if (!schema_->find(key)) access_error(*this, key, "not declared in the schema");
  const auto it = data_->slots.find(key);
  return it != data_->slots.end() && it->second.given;
}

std::vector<Case> Case::list(std::string_view key) const {
  const KeySpec* k = schema_->find(key);
  if (!k || k->type() != KeyType::List) access_error(*this, key, "is not a list key in the schema");
  const auto& entries = as<detail::Entries>(*this, slot_of(*this, *data_, key), key, "a list");
  std::vector<Case> out;
  for (std::size_t i = 0; i < entries.size(); ++i)
    out.push_back(Case(shared_, entries[i], k->entry_schema(), prefix_ + std::string(key) + "[" + std::to_string(i) + "]."));
  return out;
}
std::size_t Case::list_size(std::string_view key) const { return list(key).size(); }

std::string Case::location(std::string_view key) const {
  if (!schema_->find(key)) access_error(*this, key, "not declared in the schema");
  const auto it = data_->slots.find(key);
  if (it == data_->slots.end()) return "not set";
  const detail::Origin& o = it->second.origin;
  if (o.is_default) return "default";
  return o.line > 0 ? o.source + ":" + std::to_string(o.line) + ":" + std::to_string(o.column) : o.source;
}

void Case::fail(std::string_view key, const std::string& message) const {
  Diagnostic d{shared_->source, 0, 0, prefix_ + std::string(key), message};
  const auto it = data_->slots.find(key);
  if (it != data_->slots.end()) {
    const detail::Origin& o = it->second.origin;
    if (o.is_default) {
      d.message += " (the default value is in effect: set the key in the case file)";
    } else {
      d.source = o.source;
      d.line = o.line;
      d.column = o.column;
    }
  }
  throw CaseError({d});
}

std::string Case::yaml() const { return prefix_.empty() ? shared_->yaml : detail::emit_yaml(*data_); }
std::uint64_t Case::hash() const { return shared_->hash; }
std::string Case::hash_hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(shared_->hash));
  return buf;
}
const std::string& Case::source() const { return shared_->source; }
const std::vector<std::string>& Case::overrides() const { return shared_->overrides; }

}  // namespace tessera
