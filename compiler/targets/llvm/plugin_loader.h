#pragma once
// Finds and opens the LLVM plugin (plugin_api.h) on first use, once per process.
// Searched: $SLOPE_LLVM_PLUGIN, then libslope_llvm.so beside the running program, in
// ../lib/slope/ from it (an installed tree), and where the build put it.

#include <string>

#include "compiler/targets/llvm/plugin_api.h"

namespace slope::targets::llvm {

/// The plugin's interface, or nullptr with `*error` saying where it was looked for.
const Api* LoadLlvmPlugin(std::string* error);

}  // namespace slope::targets::llvm
