#pragma once
// Lowering: a checked AST in, an IR module out. Local variables become `var` slots with
// loads and stores (mem2reg turns them into SSA values later); && || and ?: become
// structured control flow; every implicit conversion becomes explicit instructions.

#include <memory>

#include "compiler/ast/ast.h"
#include "compiler/ir/ir.h"
#include "compiler/sema/check.h"

namespace slope::lower {

/// Lowers a module that passed semantic checking (lowering reports no diagnostics).
std::unique_ptr<ir::Module> LowerModule(const sema::CheckedModule& checked,
                                        const source::SourceManager& sources);

}  // namespace slope::lower
