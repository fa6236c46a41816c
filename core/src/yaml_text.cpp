#include "yaml_text.hpp"

#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace tessera::yaml_text {

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  if (std::isnan(v)) return ".nan";
  char buf[64];
  // std::to_chars without a format gives the shortest string that round-trips exactly.
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // keep it a float when read back by eye
  return s;
}

std::string integer(std::int64_t v) { return std::to_string(v); }

namespace {
bool plain_safe(std::string_view s) {
  if (s.empty()) return false;
  const unsigned char c0 = static_cast<unsigned char>(s[0]);
  if (!(std::isalpha(c0) || c0 == '_' || c0 == '/')) return false;  // digits would read as numbers
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/')) return false;
  }
  // YAML 1.1 booleans/null that yaml-cpp would convert.
  static const char* const kWords[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
  std::string low;
  for (char ch : s) low += char(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* w : kWords)
    if (low == w) return false;
  return true;
}
}  // namespace

std::string string(std::string_view s) {
  if (plain_safe(s)) return std::string(s);
  std::string out = "\"";
  for (char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string int_list(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + integer(v[i]);
  return s + "]";
}

std::string float_list(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + number(v[i]);
  return s + "]";
}

}  // namespace tessera::yaml_text
