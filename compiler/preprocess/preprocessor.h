#pragma once
// The C preprocessor: one file's tokens in (pulled from the Lexer), the tokens the
// parser sees out. It runs directives (#include, #define, #if, #line, ...), expands
// macros with C's rules, and stops with a numbered diagnostic at every limit below
// instead of hanging or running out of memory.
//
// Tokens made by a macro expansion carry the location of the macro use; tokens made by
// `##`, `#`, `__LINE__` and `__FILE__` get their text from the SourceManager's scratch
// storage, so `Token::text` stays valid as long as the SourceManager does.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/preprocess/lexer.h"
#include "compiler/source/source_manager.h"

namespace slope::preprocess {

/// How deep `#include` may nest.
inline constexpr uint32_t kMaxIncludeDepth = 200;
/// How many times files may be entered by `#include` in one compile.
inline constexpr uint32_t kMaxIncludedFiles = 65536;
/// Macros defined at once (10^5 of them held 30 MiB and took a second; 10^6, 300 MiB).
/// The `#define` of a new name past the limit gets E0703 and preprocessing stops.
inline constexpr size_t kMaxMacros = 65536;
/// How deep `#if` blocks may nest.
inline constexpr uint32_t kMaxIfNesting = 256;
/// Tokens one compile's source may hold after preprocessing (10 MB of source, 200,000
/// lines of code): every token is held until the syntax tree is built, so past this the
/// tokens alone take hundreds of MiB. The token past the limit gets E0702 and nothing
/// is parsed.
inline constexpr size_t kMaxSourceTokens = size_t{1} << 21;
/// Tokens all macro expansions of one compile may produce together (a pasted or
/// stringized token also counts one per 16 bytes of its text).
inline constexpr uint64_t kMaxExpansionTokens = uint64_t{1} << 20;
/// How deep macro invocations may nest inside each other's arguments.
inline constexpr uint32_t kMaxMacroArgNesting = 256;
/// How deep parentheses and operators may nest in a `#if` expression.
inline constexpr uint32_t kMaxIfExprDepth = 256;

/// Settings of one preprocessor run.
struct PreprocessOptions {
  /// Directories searched, in order, for `#include "x"` (after the including file's own
  /// directory) and for `#include <x>`.
  std::vector<std::string> include_paths;
  /// Command-line macros, applied in order before the main file: "NAME" defines NAME as
  /// 1, "NAME=VALUE" as VALUE ("F(x)=x" defines a function-like macro).
  std::vector<std::string> defines;
  /// The Slang language version the file is read as until a `#language` line says
  /// otherwise (slopec -std): 2018 (legacy), 2025, 2026 or 2027 (202c, in development).
  int language_version = 2018;
};

/// What a run learned besides its tokens.
struct PreprocessResult {
  /// Every file read by `#include`, once each, in the order first read (for depfiles).
  std::vector<std::string> included_files;
  /// The language version: PreprocessOptions::language_version, or what `#language slang
  /// VERSION` chose (ParseLanguageVersion).
  int language_version = 2018;
};

/// The language version a `#language` line or `-std` names: 2018 for "legacy",
/// "default" and "2018"; 2025 for "2025" and "202a"; 2026 for "2026", "202b" and
/// "latest"; 2027 for "202c" and "next"; 0 for anything else.
int ParseLanguageVersion(std::string_view name);

/// Preprocesses `file` (already loaded into `sources`). Every problem is a diagnostic
/// in `diags`. After an error that stops preprocessing (a limit, the error limit) only
/// EndOfFile is returned, so that the parser adds no errors about a cut-off stream.
/// The result always ends with EndOfFile.
std::vector<Token> Preprocess(source::SourceManager& sources, source::FileId file,
                              const PreprocessOptions& options, diag::DiagEngine& diags,
                              PreprocessResult* result = nullptr);

/// Prints preprocessed tokens as source text for `slopec -E`: one output line per
/// source line, a `#line N "file"` marker where the file changes or lines jump.
std::string PrintTokens(const std::vector<Token>& tokens, const source::SourceManager& sources);

/// Evaluates the tokens of a `#if`/`#elif` line once `defined` and macros have been
/// replaced. Identifiers left over count as 0 (`true` as 1). Arithmetic is C's on 64-bit
/// integers (unsigned when an operand is). `directive` ("if", "elif") names the
/// directive in messages; `line_end` is where "end of line" errors point. Returns false
/// after reporting an error.
bool EvaluateIfExpression(const std::vector<Token>& tokens, std::string_view directive,
                          source::SourceLoc line_end, diag::DiagEngine& diags, int64_t* value);

}  // namespace slope::preprocess
