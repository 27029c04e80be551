#pragma once
// The parser: tokens in, an ast::Module out. Recursive descent with a nesting limit (no
// stack overflow at any input depth) and resynchronisation after errors so that one
// mistake does not cascade into many.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/preprocess/lexer.h"

namespace slope::parse {

/// Deepest nesting of expressions, statements and types the parser accepts.
inline constexpr int kMaxNestingDepth = 256;

/// Tallest expression tree the parser builds: flat chains (`a + b + ...`, `c ? x : ...`,
/// `- - x`, `a.b.c`) are not nesting, but each operator adds a level that later stages walk
/// recursively, so the height of the whole tree is bounded here, with its own diagnostic.
inline constexpr uint32_t kMaxExprHeight = 4096;

/// Longest chain of `else if` or `?:` branches, the branches of all enclosing chains
/// counted together: each branch becomes a selection nested in the previous one, and
/// SPIR-V allows 1023 levels of structured control flow.
inline constexpr int kMaxBranchChain = 1000;

/// What a compile tells the parser about itself.
struct ParseOptions {
  /// The `__target_switch` cases the compile's target takes ("spirv", "cuda", "cpp"),
  /// most specific first; empty when no code is generated (its `default` case is read).
  std::vector<std::string> target_cases;
  /// When set, the bodies of functions and methods are not parsed: each gets an empty
  /// block covering its braces, recorded here with the index of its '{', for
  /// ParseDeferredBody to fill when the body is needed (the core library's).
  std::unordered_map<const ast::BlockStmt*, size_t>* deferred_bodies = nullptr;
};

/// The `__target_switch` case names a Slang program may use.
bool IsKnownTargetCase(std::string_view name);

/// Parses a whole file. Errors go to `diags`; the module holds whatever parsed cleanly.
ast::Module* ParseModule(const std::vector<preprocess::Token>& tokens, ast::AstContext& ctx,
                         diag::DiagEngine& diags, const ParseOptions& options = {});

/// Parses the body ParseModule left at `tokens[at]` (ParseOptions::deferred_bodies) into
/// `block`, the empty block that stands for it, so that every holder of the block sees
/// the statements.
void ParseDeferredBody(const std::vector<preprocess::Token>& tokens, size_t at,
                       ast::BlockStmt* block, ast::AstContext& ctx, diag::DiagEngine& diags,
                       const ParseOptions& options);

}  // namespace slope::parse
