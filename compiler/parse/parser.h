#pragma once
// The parser: tokens in, an ast::Module out. Recursive descent with a nesting limit (no
// stack overflow at any input depth) and resynchronisation after errors so that one
// mistake does not cascade into many.

#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/preprocess/lexer.h"

namespace slope::parse {

/// Deepest nesting of expressions, statements and types the parser accepts.
inline constexpr int kMaxNestingDepth = 256;

/// Parses a whole file. Errors go to `diags`; the module holds whatever parsed cleanly.
ast::Module* ParseModule(const std::vector<preprocess::Token>& tokens, ast::AstContext& ctx,
                         diag::DiagEngine& diags);

}  // namespace slope::parse
