#pragma once
// Internals of the preprocessor, shared by preprocessor.cpp (token sources, files,
// directives) and macro_expander.cpp (#define, expansion). Not part of the API.

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/preprocess/preprocessor.h"

namespace slope::preprocess::detail {

/// A token on its way through the preprocessor.
struct PpToken {
  Token tok;
  /// Set on a macro name met while that macro was being expanded: it is never expanded
  /// later either (C's "painted blue" rule).
  bool no_expand = false;
  /// True when read straight from a file (a `#` there at line start is a directive).
  bool from_file = false;
};

/// One token of a macro body, with its role decided when the macro is defined.
struct BodyToken {
  Token tok;
  int param = -1;          ///< index of the parameter this token names, or -1
  bool stringize = false;  ///< `#param`: `tok` is the parameter's name
  bool paste = false;      ///< the `##` operator
};

/// A `#define`d macro.
struct Macro {
  std::string name;
  source::SourceRange def_range;  ///< the name in the #define, for notes
  bool function_like = false;
  bool variadic = false;             ///< the last parameter is `__VA_ARGS__`
  std::vector<std::string> params;
  std::vector<BodyToken> body;
  bool disabled = false;  ///< true while its own expansion is being read
};

/// Tokens being read back from a macro expansion (or a barrier around tokens expanded
/// on their own: a macro argument, a `#if` line).
struct MacroContext {
  std::vector<PpToken> tokens;
  size_t pos = 0;
  Macro* macro = nullptr;  ///< re-enabled when the context is popped
  bool barrier = false;    ///< reading stops at its end instead of popping it
};

/// A file being read: the current one and each file that #included it.
struct FileState {
  source::FileId file = 0;
  std::unique_ptr<Lexer> lexer;
  std::optional<Token> pending;    ///< a token read ahead and put back
  source::SourceLoc include_loc;   ///< the #include that entered it (invalid for the main file)
};

/// One open `#if` ... `#endif`.
struct Conditional {
  source::SourceRange range;  ///< the directive name that opened it
  std::string directive;      ///< "if", "ifdef" or "ifndef"
  bool taken = false;         ///< some branch has been (or is being) used
  bool seen_else = false;
  source::SourceRange else_range;
  size_t file_depth = 0;      ///< index in the file stack of the file that opened it
};

/// How messages name a token: "'x'" for names and literals, "the end of the line".
std::string DescribeToken(const Token& t);
/// The location just past `t`.
inline source::SourceLoc EndOf(const Token& t) { return t.Range().end; }

class Preprocessor {
 public:
  Preprocessor(source::SourceManager& sources, const PreprocessOptions& options,
               diag::DiagEngine& diags, PreprocessResult* result);

  /// Runs over `main` (after the command-line defines) and returns every token.
  std::vector<Token> Run(source::FileId main);

 private:
  // --- Token sources (preprocessor.cpp) ---
  /// The next token with macros expanded, directives run and skipped blocks skipped.
  PpToken Next();
  /// The next unexpanded token. At the end of a barrier context, of the main file or
  /// after a fatal error: EndOfFile. Directives are run unless `in_args`; with it, the
  /// end of any file is EndOfFile and the file is not left.
  PpToken RawNext(bool in_args);
  /// Reads the next token of file `f` (the put-back one first).
  Token NextFileToken(FileState& f);
  /// True when the next token of `f` starts a new line (or the file ended).
  bool AtLineEnd(FileState& f);
  /// The rest of the current directive line.
  std::vector<Token> ReadLine(FileState& f);
  /// Pops the top macro context, re-enabling its macro.
  void PopMacroContext();
  /// Stops all preprocessing (after a fatal error has been reported).
  void Abort() { aborted_ = true; }
  bool Stopped() const { return aborted_ || diags_.LimitReached(); }

  // --- Directives (preprocessor.cpp, pp_directives.cpp) ---
  void HandleDirective(const Token& hash);
  void HandleInclude(FileState& f, const Token& name);
  void HandleIf(FileState& f, const Token& name);
  void HandleElse(FileState& f, const Token& name);
  void HandleEndif(FileState& f, const Token& name);
  void HandleLine(FileState& f, const Token& name);
  void HandlePragma(FileState& f, const Token& name);
  void HandleWarningPragma(const std::vector<Token>& line, const Token& name);
  void HandleMessage(FileState& f, const Token& name);
  void HandleLanguage(FileState& f, const Token& name);
  /// Reads (quietly) until a branch of the innermost conditional becomes active or its
  /// #endif; leaves EndOfFile put back when the file ends first.
  void SkipBlock(FileState& f);
  /// Evaluates the condition of a #if/#elif line (`defined`, macros, arithmetic).
  bool EvaluateCondition(const std::vector<Token>& line, const Token& name);
  /// Warns when a directive has tokens after what it uses.
  void CheckLineEnd(const std::vector<Token>& line, size_t used, const Token& name);
  /// True when `name` is a macro or a built-in one (`defined NAME`, `#ifdef NAME`).
  bool IsDefined(std::string_view name);
  /// A `#if` line with the object-like macros whose bodies test `defined` replaced.
  std::vector<Token> ExpandDefinedMacros(const std::vector<Token>& line);
  /// Enters `path` as a file included by the directive at `hash`.
  void EnterInclude(const std::string& path, const Token& hash);
  /// Reports the end of file `f`'s conditionals and leaves it.
  void LeaveFile();

  // --- Macros (macro_expander.cpp) ---
  void HandleDefine(FileState& f, const Token& name);
  void HandleUndef(FileState& f, const Token& name);
  /// Defines "NAME" or "NAME=VALUE" from the command line.
  std::string CommandLineDefines() const;
  Macro* FindMacro(std::string_view name);
  /// Expands `name` (a macro use just read). Returns false when it is not expanded and
  /// should be passed on as it is.
  bool ExpandMacro(PpToken& name, Macro& macro);
  /// Reads a function-like macro's arguments after its '('.
  bool CollectArgs(const PpToken& name, const Macro& macro,
                   std::vector<std::vector<PpToken>>* args);
  /// Fully macro-expands `tokens` on their own, as C does for macro arguments.
  std::vector<PpToken> ExpandIsolated(std::vector<PpToken> tokens);
  /// The replacement of one use of `macro`.
  std::vector<PpToken> Substitute(const PpToken& name, const Macro& macro,
                                  const std::vector<std::vector<PpToken>>& args);
  /// `#arg`: the spelling of `arg` as a string literal.
  Token Stringize(const std::vector<PpToken>& arg, source::SourceLoc loc);
  /// `lhs ## rhs`, or false after reporting that they do not form one token.
  bool Paste(const Token& lhs, const Token& rhs, source::SourceLoc loc, Token* out);
  /// `__LINE__` / `__FILE__` at `at`, or false when `at` is neither.
  bool ExpandBuiltin(const PpToken& at, PpToken* out);
  /// True when the peeked next token is '(' (for function-like macro names).
  bool NextIsLParen();
  /// Counts `count` tokens against kMaxExpansionTokens; false (after reporting) past it.
  bool Charge(uint64_t count, const Token& at);
  /// A token with text stored in scratch storage.
  Token MakeToken(TokenKind kind, std::string_view text, source::SourceLoc loc);

  source::SourceManager& sources_;
  const PreprocessOptions& options_;
  diag::DiagEngine& diags_;
  PreprocessResult* result_;
  // `#language`: whether a line chose a version, where, and which.
  bool language_seen_ = false;
  source::SourceRange language_range_;
  int result_version_ = 0;

  std::vector<FileState> files_;
  std::vector<MacroContext> macros_;
  std::vector<Conditional> conditionals_;
  std::unordered_map<std::string, Macro> macro_table_;
  /// Path as found, and canonical path, -> file.
  std::unordered_map<std::string, source::FileId> file_cache_;
  /// Including file + spelling of an #include -> the path found ("" when none).
  std::unordered_map<std::string, std::string> resolved_;
  std::unordered_set<source::FileId> pragma_once_;
  /// Open `#pragma warning(push)`es of each file.
  std::unordered_map<source::FileId, int> warning_pushes_;
  source::FileId command_line_file_ = 0;
  uint32_t files_entered_ = 0;
  uint32_t arg_depth_ = 0;
  uint64_t expansion_used_ = 0;
  bool aborted_ = false;
  Token hash_;  ///< the '#' of the directive being run
  Token main_end_;  ///< EndOfFile of the main file
};

}  // namespace slope::preprocess::detail
