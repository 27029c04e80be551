#pragma once
// A stable, readable text dump of the syntax tree (`slopec -dump-ast`): one node a
// line, children indented by two spaces, expressions written inline and fully
// parenthesised so that precedence is visible.

#include <string>

#include "compiler/ast/ast.h"

namespace slope::ast {

/// Dumps a whole module.
std::string DumpModule(const Module& module);
/// Writes one expression inline: `(a + (b * c))`.
std::string DumpExpr(const Expr* expr);
/// Writes a type as written: `vector<float, 3>`, `float[4]`.
std::string DumpType(const TypeExpr* type);

}  // namespace slope::ast
