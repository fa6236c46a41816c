// Resolved-case YAML: every key with a value, in schema declaration order, sections grouped in order of
// first appearance. The text is deterministic (it is hashed) and re-loads to the same values.
#include <algorithm>

#include "case_data.hpp"
#include "yaml_text.hpp"

namespace tessera::detail {

namespace {
std::string scalar_text(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using V = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<V, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<V, std::int64_t>) return yaml_text::integer(x);
        else if constexpr (std::is_same_v<V, double>) return yaml_text::number(x);
        else if constexpr (std::is_same_v<V, std::string>) return yaml_text::string(x);
        else if constexpr (std::is_same_v<V, std::vector<std::int64_t>>) return yaml_text::int_list(x);
        else if constexpr (std::is_same_v<V, std::vector<double>>) return yaml_text::float_list(x);
        else return "";
      },
      v);
}

// Emits the keys under `prefix` ("" or "domain.") at `indent`.
void emit_level(const CaseData& d, const std::string& prefix, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::vector<std::string> children;  // next path segment, in order of first appearance
  for (const auto& k : d.schema->keys()) {
    const std::string& p = k->path();
    if (p.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = p.substr(prefix.size());
    const std::string seg = rest.substr(0, rest.find('.'));
    if (std::find(children.begin(), children.end(), seg) == children.end()) children.push_back(seg);
  }
  for (const auto& seg : children) {
    const std::string path = prefix + seg;
    const auto it = d.slots.find(path);
    if (d.schema->find(path) == nullptr) {  // a section
      std::string inner;
      emit_level(d, path + ".", indent + 2, inner);
      if (!inner.empty()) out += pad + seg + ":\n" + inner;
      continue;
    }
    if (it == d.slots.end()) continue;  // optional key without value
    if (const auto* entries = std::get_if<Entries>(&it->second.value)) {
      if (entries->empty()) {
        out += pad + seg + ": []\n";
        continue;
      }
      out += pad + seg + ":\n";
      for (const auto& e : *entries) {
        std::string inner = emit_yaml(*e, indent + 4);
        if (inner.empty()) {
          out += pad + "  - {}\n";
        } else {
          inner.replace(static_cast<std::size_t>(indent), 4, "  - ");  // first line: "  - key: value"
          out += inner;
        }
      }
      continue;
    }
    out += pad + seg + ": " + scalar_text(it->second.value) + "\n";
  }
}
}  // namespace

std::string emit_yaml(const CaseData& d, int indent) {
  std::string out;
  emit_level(d, "", indent, out);
  return out;
}

}  // namespace tessera::detail
