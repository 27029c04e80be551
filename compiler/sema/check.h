#pragma once
// Semantic checking: a parsed ast::Module in, the same tree with every expression typed,
// every name resolved and every implicit conversion made explicit (ImplicitCastExpr).
// After a successful check, lowering can assume the tree is well formed.

#include <array>
#include <string_view>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/sema/types.h"

namespace slope::sema {

/// What lowering needs from a checked module.
struct CheckedModule {
  std::vector<ast::FuncDecl*> functions;     ///< every function with a body, in source order
  std::vector<ast::FuncDecl*> entry_points;  ///< functions marked [shader("compute")]
  std::vector<ast::VarDecl*> buffers;        ///< global buffer resources, in source order
  TypeContext* types = nullptr;              ///< the session's types (lowering specializes)
};

/// Checks `module`. Returns false when an error was reported.
bool CheckModule(ast::Module& module, ast::AstContext& ctx, TypeContext& types,
                 diag::DiagEngine& diags, CheckedModule* out);

/// Parses a built-in type name ("float3", "uint") into a type, or null.
const Type* LookupBuiltinTypeName(TypeContext& types, std::string_view name);

/// The thread-group size written in [numthreads(x, y, z)]; checked by CheckModule.
std::array<uint32_t, 3> NumThreadsOf(const ast::FuncDecl& entry);

}  // namespace slope::sema
