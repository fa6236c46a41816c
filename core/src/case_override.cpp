// --set KEY=VALUE overrides: checked against the schema, parsed as YAML, inserted into the document
// before validation; values set this way report "--set 'KEY=VALUE'" as their source.
#include <charconv>

#include "case_loader.hpp"

namespace tessera::detail {

namespace {
// "obstacles[1].radius" -> {("obstacles", 1), ("radius", -1)}; empty on a malformed path.
std::vector<std::pair<std::string, long>> split_key(const std::string& key) {
  std::vector<std::pair<std::string, long>> out;
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t dot = key.find('.', start);
    std::string seg = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    long idx = -1;
    if (const auto lb = seg.find('['); lb != std::string::npos) {
      if (seg.back() != ']') return {};
      const std::string num = seg.substr(lb + 1, seg.size() - lb - 2);
      const auto r = std::from_chars(num.data(), num.data() + num.size(), idx);
      if (r.ec != std::errc() || r.ptr != num.data() + num.size() || idx < 0) return {};
      seg.resize(lb);
    }
    if (seg.empty()) return {};
    out.emplace_back(seg, idx);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

void apply_override(Loader& L, YAML::Node& root, const Schema& schema, const std::string& ov) {
  const std::string src = "--set '" + ov + "'";
  const Origin o{src, 0, 0, false};
  const auto eq = ov.find('=');
  if (eq == std::string::npos || trim(ov.substr(0, eq)).empty())
    return L.error(o, "", "expected KEY=VALUE, e.g. --set physics.viscosity=1e-5");
  const std::string key = trim(ov.substr(0, eq));
  const std::string text = ov.substr(eq + 1);
  const auto segs = split_key(key);
  if (segs.empty()) return L.error(o, key, "malformed key (use dotted names, list entries as name[i].key)");
  // Check the key against the schema, descending into list entries.
  const Schema* s = &schema;
  std::string rel, prefix;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    rel = rel.empty() ? segs[i].first : rel + "." + segs[i].first;
    const KeySpec* k = s->find(rel);
    const bool last = i + 1 == segs.size();
    if (k && k->type() == KeyType::List && segs[i].second >= 0) {
      prefix += rel + "[" + std::to_string(segs[i].second) + "].";
      s = k->entry_schema();
      rel.clear();
      if (last) return L.error(o, key, "name a key of the entry (e.g. " + key + ".KEY), or set the whole list");
      continue;
    }
    if (segs[i].second >= 0) return L.error(o, prefix + rel, "is not a list: it takes no [index]");
    if (k && !last) return L.error(o, prefix + rel, "is a " + std::string(to_string(k->type())) + " key, not a section");
    if (!k && !s->is_section(rel)) {
      const std::string sug = s->suggest(rel);
      return L.error(o, key, "unknown key" + (sug.empty() ? std::string() : " (did you mean '" + prefix + sug + "'?)"));
    }
  }
  YAML::Node value;
  const KeySpec* leaf = s->find(rel);
  const std::string ttext = trim(text);
  try {
    // A string key takes the text as written ("run 7: test"), unless it is quoted YAML.
    if (leaf && leaf->type() == KeyType::String && !ttext.empty() && ttext[0] != '"' && ttext[0] != '\'')
      value = YAML::Node(ttext);
    else
      value = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return L.error(o, key, "cannot read the value '" + text + "' as YAML: " + e.msg);
  }
  // Insert into the document, creating sections as needed.
  YAML::Node cur = root;
  std::string full;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const auto& [name, idx] = segs[i];
    full += (full.empty() || full.back() == '.' ? "" : ".") + name;
    if (i + 1 == segs.size()) {
      cur[name] = value;
      break;
    }
    if (idx >= 0) {
      const YAML::Node list = cur[name];
      if (!list.IsSequence() || long(list.size()) <= idx)
        return L.error(o, key, "list '" + full + "' has " + std::to_string(list.IsSequence() ? list.size() : 0) +
                                   " entries in the case file: index " + std::to_string(idx) + " is out of range");
      full += '[';  // piecewise: g++ 12 warns falsely (-Wrestrict) on "literal" + std::string chains
      full += std::to_string(idx);
      full += "].";
      YAML::Node next = list[idx];
      cur.reset(next);
      continue;
    }
    if (!cur[name].IsMap()) cur[name] = YAML::Node(YAML::NodeType::Map);
    YAML::Node next = cur[name];
    cur.reset(next);
  }
  L.set_sources.emplace_back(full, src);
}


}  // namespace tessera::detail
