#pragma once
// Reflection: what a host binds for a lowered module (entry points, buffers, textures,
// samplers and uniform blocks, with their memory layouts), as targets/layout lays them
// out. The same for every target; the C-like targets pass the scalar rules.

#include <string>
#include <vector>

#include "compiler/driver/reflection.h"
#include "compiler/ir/ir.h"
#include "compiler/targets/layout/layout.h"

namespace slope::driver {

/// The reflection of `module` for the entry points `entries` (all when empty), with
/// buffers laid out by `buffers` and matrices `matrices` unless a member says otherwise.
Reflection Reflect(const ir::Module& module, const std::vector<std::string>& entries,
                   targets::BufferLayout buffers, ir::MatrixLayout matrices);

}  // namespace slope::driver
