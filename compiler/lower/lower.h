#pragma once
// Lowering: a checked AST in, an IR module out. Local variables become `var` slots with
// loads and stores (mem2reg turns them into SSA values later); && || and ?: become
// structured control flow; every implicit conversion becomes explicit instructions.

#include <memory>

#include "compiler/ast/ast.h"
#include "compiler/ir/ir.h"
#include "compiler/lower/bindings.h"
#include "compiler/sema/check.h"

namespace slope::lower {

/// Lowers a module that passed semantic checking (lowering reports no diagnostics).
/// Every non-generic function is lowered; with `reachable_only` (when code is written for
/// the entry points), only those the entry points reach, as the writers would keep.
std::unique_ptr<ir::Module> LowerModule(const sema::CheckedModule& checked,
                                        const source::SourceManager& sources,
                                        bool reachable_only = false,
                                        const BindingOptions& bindings = {});

}  // namespace slope::lower
