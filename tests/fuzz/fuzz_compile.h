#pragma once
// The oracle the Slang fuzzers share: compile one input to one target and abort on what
// is a bug of Slope (compile_fuzzer.cpp, struct_fuzzer.cpp).

#include <string_view>

#include "compiler/driver/compile.h"

namespace slope::fuzz {

/// Compiles `source` as the file fuzz.slang to `target`. Crashes and sanitizer reports
/// end the process by themselves, and an internal compiler error aborts (the fuzz build
/// lets InternalError through); this also aborts when the compile fails without a
/// diagnostic or reports E0005 (SPIR-V that fails validation).
void CompileOrAbort(std::string_view source, driver::Target target);

}  // namespace slope::fuzz
