#pragma once
// The core library's source text, compiled into the compiler.

#include <string_view>

namespace slope::stdlib {

/// The text of stdlib/core.slang.
std::string_view CoreLibrarySource();

/// The path diagnostics use for it.
inline constexpr std::string_view kCoreLibraryPath = "<core>/core.slang";

}  // namespace slope::stdlib
