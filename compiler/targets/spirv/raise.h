#pragma once
// The SPIR-V target's pass list: what runs on the IR between lowering and the writer,
// in order. There is no pass manager beyond this list.

#include <functional>
#include <string_view>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/ir/ir.h"

namespace slope::targets::spirv {

/// Called after each pass with its name and the module as the pass left it.
using AfterPass = std::function<void(std::string_view pass, const ir::Module& module)>;

/// The names of the passes Raise runs, in order (a name may repeat).
const std::vector<std::string_view>& RaisePassNames();

/// Runs the SPIR-V pass list on `module`, then calls `after_pass` after each pass when
/// set. The IR is verified at the end, and with `verify_each` after every pass too (a
/// failure is an internal compiler error naming the pass). User errors passes find are
/// reported to `diags`; the list stops after the pass that reported one.
void Raise(ir::Module& module, const AfterPass& after_pass = {},
           diag::DiagEngine* diags = nullptr, bool verify_each = false);

}  // namespace slope::targets::spirv
