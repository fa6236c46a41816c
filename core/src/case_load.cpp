// Case validation: YAML text + --set overrides -> resolved values, or a list of diagnostics with
// file:line:column, key, what was expected and what was found. Every problem is collected; nothing
// stops at the first one (except a YAML syntax error, after which there is no document to check).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "case_loader.hpp"
#include "yaml_text.hpp"

namespace tessera::detail {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool quoted(const YAML::Node& n) { return n.Tag() == "!"; }  // yaml-cpp tags quoted scalars "!"

// What the file holds, for "got ..." in messages.
std::string got(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing (null)";
  if (n.IsScalar()) return quoted(n) ? "the quoted string \"" + n.Scalar() + "\"" : "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list of " + std::to_string(n.size()) + " item" + (n.size() == 1 ? "" : "s");
  if (n.IsMap()) return "a map";
  return "an unknown node";
}

std::optional<double> parse_float(const YAML::Node& n) {
  if (!n.IsScalar() || quoted(n)) return std::nullopt;
  std::string s = n.Scalar();
  const std::string l = lower(s);
  if (l == ".inf" || l == "+.inf") return HUGE_VAL;
  if (l == "-.inf") return -HUGE_VAL;
  if (l == ".nan") return std::nan("");
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Integers: decimal, or a float that is exactly integral ("1e6" for a step count).
std::optional<std::int64_t> parse_int(const YAML::Node& n) {
  if (!n.IsScalar() || quoted(n)) return std::nullopt;
  std::string s = n.Scalar();
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  std::int64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty()) return v;
  const auto f = parse_float(n);
  if (f && std::isfinite(*f) && *f == std::floor(*f) && std::fabs(*f) < 9.2e18) return static_cast<std::int64_t>(*f);
  return std::nullopt;
}

std::optional<bool> parse_bool(const YAML::Node& n) {
  if (!n.IsScalar() || quoted(n)) return std::nullopt;
  const std::string l = lower(n.Scalar());
  if (l == "true") return true;
  if (l == "false") return false;
  return std::nullopt;
}

std::string element_expectation(const KeySpec& k) {
  std::string e = k.type() == KeyType::IntArray ? "an integer" : "a number";
  if (!k.bounds().str().empty()) e += " " + k.bounds().str();
  if (!k.unit_str().empty() && k.unit_str() != "1") e += " [" + k.unit_str() + "]";
  return e;
}

}  // namespace


std::optional<Value> Loader::value(const KeySpec& k, const YAML::Node& v, const std::string& full, const Origin& o) {
  auto bad = [&](const std::string& extra = "") {
    error(o, full, "expected " + k.expectation() + ", got " + got(v) + extra);
    return std::optional<Value>();
  };
  switch (k.type()) {
    case KeyType::Bool: {
      const auto b = parse_bool(v);
      return b ? std::optional<Value>(*b) : bad();
    }
    case KeyType::Int: {
      const auto i = parse_int(v);
      if (!i || !k.bounds().contains(double(*i))) return bad();
      return Value(*i);
    }
    case KeyType::Float: {
      const auto f = parse_float(v);
      if (!f || std::isnan(*f) || !k.bounds().contains(*f)) return bad();
      return Value(*f);
    }
    case KeyType::String:
      if (!v.IsScalar()) return bad();
      return Value(v.Scalar());
    case KeyType::Enum: {
      if (!v.IsScalar()) return bad();
      const auto& al = k.allowed();
      if (std::find(al.begin(), al.end(), v.Scalar()) != al.end()) return Value(v.Scalar());
      std::string best;
      std::size_t bd = 3;  // suggest an allowed value within edit distance 2
      for (const auto& a : al)
        if (const auto dd = edit_distance(lower(v.Scalar()), lower(a)); dd < bd) bd = dd, best = a;
      return bad(best.empty() ? "" : " (did you mean '" + best + "'?)");
    }
    case KeyType::IntArray:
    case KeyType::FloatArray: {
      if (!v.IsSequence() || (k.length() && v.size() != k.length())) return bad();
      bool ok = true;
      std::vector<std::int64_t> iv;
      std::vector<double> fv;
      for (std::size_t i = 0; i < v.size(); ++i) {
        const YAML::Node e = v[i];
        const std::string ek = full + "[" + std::to_string(i) + "]";
        const Origin eo = origin(full, mark_of(e, e.Mark()));
        if (k.type() == KeyType::IntArray) {
          const auto x = parse_int(e);
          if (x && k.bounds().contains(double(*x))) { iv.push_back(*x); continue; }
        } else {
          const auto x = parse_float(e);
          if (x && !std::isnan(*x) && k.bounds().contains(*x)) { fv.push_back(*x); continue; }
        }
        error(eo, ek, "expected " + element_expectation(k) + ", got " + got(e));
        ok = false;
      }
      if (!ok) return std::nullopt;
      return k.type() == KeyType::IntArray ? Value(iv) : Value(fv);
    }
    case KeyType::List: {
      if (v.IsNull()) return Value(Entries{});
      if (!v.IsSequence()) return bad();
      if (v.size() < k.items_min() || (k.items_max() && v.size() > k.items_max())) return bad();
      Entries out;
      bool ok = true;
      for (std::size_t i = 0; i < v.size(); ++i) {
        const YAML::Node e = v[i];
        const std::string ep = full + "[" + std::to_string(i) + "]";
        const Origin eo = origin(ep, e.Mark());
        if (!e.IsMap()) {
          std::string keys;
          for (const auto& ek : k.entry_schema()->keys()) keys += (keys.empty() ? "" : ", ") + ek->path();
          error(eo, ep, "expected a map with keys (" + keys + "), got " + got(e));
          ok = false;
          continue;
        }
        auto d = map(e, *k.entry_schema(), ep + ".", eo);
        if (!d) ok = false;
        out.push_back(d);
      }
      if (!ok) return std::nullopt;
      return Value(std::move(out));
    }
  }
  return std::nullopt;
}

void Loader::walk(const YAML::Node& node, const Schema& s, const std::string& rel, const std::string& prefix,
                  CaseData& d, std::vector<std::pair<std::string, Origin>>& sections) {
  std::map<std::string, int> seen;  // key -> line of first occurrence (yaml-cpp keeps duplicates)
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node kn = it->first;  // copies: it-> yields a temporary proxy (a reference would dangle)
    const YAML::Node vn = it->second;
    const std::string name = kn.IsScalar() ? kn.Scalar() : std::string("<non-scalar key>");
    const std::string path = rel.empty() ? name : rel + "." + name;
    const std::string full = prefix + path;
    const Origin ko = origin(full, kn.Mark());
    if (auto [pos, fresh] = seen.emplace(name, ko.line); !fresh) {
      error(ko, full, "duplicate key (first given at line " + std::to_string(pos->second) + "): keep one");
      continue;
    }
    if (const auto dot = name.find('.'); dot != std::string::npos) {  // "domain.cells:" as one key
      const auto ld = name.rfind('.');
      error(ko, full, "unknown key: write dotted names as nested maps ('" + name.substr(0, ld) + ":' then '" +
                          name.substr(ld + 1) + ":' indented below it)");
      continue;
    }
    if (const KeySpec* k = s.find(path)) {
      // An empty value has no useful mark of its own (yaml-cpp puts it on the next line): use the key's.
      const Origin vo = origin(full, vn.IsNull() ? kn.Mark() : mark_of(vn, kn.Mark()));
      if (auto v = value(*k, vn, full, vo)) d.slots[path] = Slot{std::move(*v), vo, true};
      else d.slots[path] = Slot{std::monostate{}, vo, true};  // invalid: not reported as missing
    } else if (s.is_section(path)) {
      sections.emplace_back(path, ko);
      if (vn.IsMap()) walk(vn, s, path, prefix, d, sections);
      else if (!vn.IsNull()) error(ko, full, "expected a map of keys (a section), got " + got(vn));
    } else {
      const std::string sug = s.suggest(path);
      std::string msg = "unknown key";
      if (!sug.empty()) {
        msg += " (did you mean '" + prefix + sug + "'?)";
      } else {
        std::set<std::string> here;  // the keys known at this level
        for (const auto& k : s.keys())
          if (rel.empty() || k->path().compare(0, rel.size() + 1, rel + ".") == 0) {
            const std::string rest = rel.empty() ? k->path() : k->path().substr(rel.size() + 1);
            here.insert(rest.substr(0, rest.find('.')));
          }
        msg += "; known keys here:";
        for (const auto& h : here) msg += " " + h;
      }
      error(ko, full, msg);
    }
  }
}

std::shared_ptr<const CaseData> Loader::map(const YAML::Node& node, const Schema& s, const std::string& prefix,
                                            const Origin& map_origin) {
  auto d = std::make_shared<CaseData>();
  d->schema = &s;
  const std::size_t before = diags.size();
  std::vector<std::pair<std::string, Origin>> sections;
  if (node.IsMap()) walk(node, s, "", prefix, *d, sections);
  for (const auto& kp : s.keys()) {
    const KeySpec& k = *kp;
    if (d->slots.count(k.path())) continue;
    if (k.presence() == KeySpec::Presence::Required) {
      // Point at the innermost section that is present, else at the enclosing map.
      Origin o = map_origin;
      std::size_t best = 0;
      for (const auto& [sp, so] : sections)
        if (k.path().compare(0, sp.size() + 1, sp + ".") == 0 && sp.size() > best) best = sp.size(), o = so;
      error(o, prefix + k.path(), "missing required key: expected " + k.expectation() +
                                      (k.description().empty() ? "" : " (" + k.description() + ")"));
      continue;
    }
    if (k.presence() == KeySpec::Presence::Optional) continue;
    Slot slot;
    slot.origin = Origin{file, 0, 0, true};
    std::visit(
        [&](const auto& x) {
          using V = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<V, std::monostate>) slot.value = Entries{};  // lists default to empty
          else slot.value = x;
        },
        k.default_val());
    d->slots[k.path()] = std::move(slot);
  }
  if (diags.size() != before) return nullptr;
  return d;
}

std::shared_ptr<const CaseData> load_case(const std::string& text, const std::string& source, const Schema& schema,
                                          const std::vector<std::string>& overrides, std::vector<Diagnostic>& diags) {
  Loader L{source, diags, {}};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    diags.push_back(Diagnostic{source, e.mark.line + 1, e.mark.column + 1, "", "YAML syntax error: " + e.msg});
    return nullptr;
  } catch (const YAML::Exception& e) {
    diags.push_back(Diagnostic{source, 0, 0, "", "cannot read YAML: " + e.msg});
    return nullptr;
  }
  if (root.IsNull() || !root.IsDefined()) root.reset(YAML::Node(YAML::NodeType::Map));
  if (!root.IsMap()) {
    diags.push_back(Diagnostic{source, 1, 1, "", "expected a map of keys at the top of the case file, got " + got(root)});
    return nullptr;
  }
  for (const auto& ov : overrides) apply_override(L, root, schema, ov);
  return L.map(root, schema, "", Origin{source, 1, 1, false});
}

}  // namespace tessera::detail
