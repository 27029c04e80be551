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

/// Most statements one function body may hold, nested ones included: every later stage
/// (checking, lowering, the passes, the SPIR-V validator) handles a body as one unit, and
/// past this a body takes seconds and hundreds of MiB to compile. The statement that passes
/// it gets the error (E0700); the rest of the body is skipped.
inline constexpr size_t kMaxBodyStatements = 65536;

/// Most loops (`for`, `while`, `do`) one function body may hold, nested ones included:
/// the SPIR-V validator and optimizer take time quadratic in the loops of a function (each
/// check walks the dominator tree, as deep as the loops in sequence), 2 s at 2,000 loops.
/// The loop that passes it gets the error (E0704); the rest of the body is skipped.
inline constexpr size_t kMaxBodyLoops = 1024;

/// Most function definitions (methods included) one module may hold: 10^5 of them take
/// over a second and 300 MiB before any is checked. The one that passes it gets the error
/// (E0701) and the rest of the file is not read.
inline constexpr size_t kMaxFunctions = 65536;

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
  /// The language version (preprocess::PreprocessResult::language_version): from 2026 on,
  /// `(a, b)` is a tuple rather than the comma operator.
  int language_version = 2018;
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
