// Internal: the case validator's state, shared by case_load.cpp (the file) and case_override.cpp (--set).
#pragma once
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "case_data.hpp"

namespace tessera::detail {

struct Loader {
  std::string file;
  std::vector<Diagnostic>& diags;
  std::vector<std::pair<std::string, std::string>> set_sources;  // full key path -> "--set 'k=v'"

  Origin origin(const std::string& full, const YAML::Mark& m) const {
    for (const auto& [p, src] : set_sources)
      if (full == p || (full.size() > p.size() && full.compare(0, p.size(), p) == 0 &&
                        (full[p.size()] == '.' || full[p.size()] == '[')))
        return Origin{src, 0, 0, false};
    if (m.is_null()) return Origin{file, 0, 0, false};
    return Origin{file, m.line + 1, m.column + 1, false};
  }
  void error(const Origin& o, const std::string& key, const std::string& msg) {
    diags.push_back(Diagnostic{o.source, o.line, o.column, key, msg});
  }
  // The mark of a value, or of its key when the value has none (an empty value).
  static YAML::Mark mark_of(const YAML::Node& v, const YAML::Mark& key_mark) {
    const YAML::Mark m = v.Mark();
    return m.is_null() ? key_mark : m;
  }

  std::optional<Value> value(const KeySpec& k, const YAML::Node& v, const std::string& full, const Origin& o);
  std::shared_ptr<const CaseData> map(const YAML::Node& node, const Schema& s, const std::string& prefix,
                                      const Origin& map_origin);
  void walk(const YAML::Node& node, const Schema& s, const std::string& rel, const std::string& prefix,
            CaseData& d, std::vector<std::pair<std::string, Origin>>& sections);
};

// Applies one --set KEY=VALUE to the document; reports (and skips) a bad key or value.
void apply_override(Loader& L, YAML::Node& root, const Schema& schema, const std::string& ov);

}  // namespace tessera::detail
