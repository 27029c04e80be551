#pragma once
// printf formats for targets whose printf is C's (CUDA C++, PTX's vprintf): the Vulkan
// debug-printf spelling `%v3f` (three components separated by ", ", as the layer and the
// CPU runtime print them) becomes three conversions, and each vector argument is passed
// as its components. Sema has checked the format (compiler/sema/check_printf.cpp).

#include <string>

namespace slope::base {

/// `format` with every `%[flags][width][.precision]vN<conversion>` written out as N
/// copies of `%[flags][width][.precision]<conversion>` joined by ", ".
inline std::string ExpandVectorConversions(const std::string& format) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += "%%";
      ++i;
      continue;
    }
    size_t start = i++;
    while (i < format.size() && std::string("-+ #0123456789.").find(format[i]) != std::string::npos) {
      ++i;
    }
    std::string spec = format.substr(start, i - start);
    unsigned components = 1;
    if (i + 1 < format.size() && format[i] == 'v' && format[i + 1] >= '1' && format[i + 1] <= '4') {
      components = static_cast<unsigned>(format[i + 1] - '0');
      i += 2;
    }
    if (i >= format.size()) {
      out += spec;
      break;
    }
    for (unsigned k = 0; k < components; ++k) {
      if (k > 0) out += ", ";
      out += spec;
      out += format[i];
    }
  }
  return out;
}

}  // namespace slope::base
