#include "compiler/targets/ctext/names.h"

namespace slope::targets::ctext {

NameTable::NameTable(std::vector<std::string_view> reserved_words,
                     std::vector<std::string_view> reserved_prefixes) {
  for (std::string_view w : reserved_words) reserved_words_.emplace(w);
  for (std::string_view p : reserved_prefixes) reserved_prefixes_.emplace_back(p);
}

bool NameTable::Reserved(const std::string& name) const {
  if (reserved_words_.count(name) != 0) return true;
  for (const std::string& p : reserved_prefixes_) {
    if (name.compare(0, p.size(), p) == 0) return true;
  }
  return false;
}

std::string NameTable::Legal(std::string_view hint) const {
  std::string out;
  for (char c : hint) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    char put = ok ? c : '_';
    // Two underscores in a row are reserved in GLSL and C++.
    if (put == '_' && !out.empty() && out.back() == '_') continue;
    out.push_back(put);
  }
  while (out.size() > 1 && out.back() == '_') out.pop_back();
  if (out.empty() || out == "_") out = "v";
  if (out[0] >= '0' && out[0] <= '9') out = "v" + out;
  // A leading underscore followed by a capital is reserved in C++; keep names plain.
  if (out[0] == '_') out = "v" + out;
  if (Reserved(out)) out = "v_" + out;
  return out;
}

std::string NameTable::Make(std::string_view hint) {
  std::string base = Legal(hint);
  std::string name = base;
  for (int n = 1; taken_.count(name) != 0 || Reserved(name); ++n) {
    name = base + "_" + std::to_string(n);
  }
  taken_.insert(name);
  return name;
}

}  // namespace slope::targets::ctext
