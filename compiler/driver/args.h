#pragma once
// slangc spells long options with one dash (-entry main, -target=spirv). CLI11 wants
// two. NormalizeArgs rewrites "-name" and "-name=value" to "--name" / "--name=value"
// when `name` is longer than one letter, leaving "-o", "--x", "-5" and plain values alone.
// The preprocessor flags are C's: "-Idir" and "-DNAME=VALUE" are split into "-I" "dir"
// and "-D" "NAME=VALUE", so they are never mistaken for long options.

#include <string>
#include <vector>

namespace slope::driver {

/// Returns argv[1..] with slangc-style single-dash long options doubled.
inline std::vector<std::string> NormalizeArgs(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && (a[1] == 'I' || a[1] == 'D')) {
      out.push_back(a.substr(0, 2));
      out.push_back(a.substr(2));
      continue;
    }
    std::string name = a.substr(0, a.find('='));
    bool letter = a.size() > 1 && ((a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z'));
    if (a[0] == '-' && letter && name.size() > 2) a = "-" + a;
    out.push_back(a);
  }
  return out;
}

}  // namespace slope::driver
