#pragma once
// The lexer: source text in, a vector of tokens out (ending with EndOfFile).
// Numeric literals are validated and converted here; an out-of-range literal is an
// error at its location, never silently wrapped or rounded.

#include <cstdint>
#include <string_view>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/source/source_manager.h"

namespace slope::preprocess {

enum class TokenKind : uint8_t {
#define TOKEN(name, spelling) name,
#include "compiler/preprocess/tokens.def"
#undef TOKEN
};

/// "identifier", "'('", ...: how diagnostics name a token kind.
const char* TokenKindSpelling(TokenKind kind);

/// The type a numeric literal's suffix selects.
enum class LiteralType : uint8_t { Int, UInt, Int64, UInt64, Half, Float, Double };

/// One token. `text` points into the SourceManager's copy of the file. A source may
/// hold 2^21 of them at once (kMaxSourceTokens), so they are kept small: 40 bytes.
struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  LiteralType literal_type = LiteralType::Int;
  bool at_line_start = false;
  source::SourceLoc loc;
  union {
    uint64_t int_value = 0;  ///< IntLiteral (and the other kinds: 0)
    double float_value;      ///< FloatLiteral
  };
  std::string_view text;

  source::SourceRange Range() const {
    return {loc, source::SourceLoc{loc.file, loc.offset + static_cast<uint32_t>(text.size())}};
  }
  bool Is(TokenKind k) const { return kind == k; }
  bool IsIdent(std::string_view spelling) const {
    return kind == TokenKind::Identifier && text == spelling;
  }
};
static_assert(sizeof(Token) <= 40, "a token's size multiplies by 2^21");

/// Produces the tokens of one file one at a time. The preprocessor drives it so that
/// text in skipped `#if` blocks is lexed quietly (no diagnostics) and so that it can tell
/// where a directive's line ends.
class Lexer {
 public:
  Lexer(const source::SourceManager& sources, source::FileId file, diag::DiagEngine& diags);

  /// The next token; EndOfFile (repeatedly) at the end of the file.
  Token Next();
  /// True when the next token starts a new line or the file has ended.
  bool AtLineStart();
  /// While quiet, lexical errors are not reported (used for skipped `#if` blocks).
  void SetQuiet(bool quiet) { quiet_ = quiet; }
  bool IsQuiet() const { return quiet_; }

 private:
  source::SourceLoc Loc(size_t offset) const {
    return {file_, static_cast<uint32_t>(offset)};
  }
  source::SourceRange Range(size_t begin, size_t end) const { return {Loc(begin), Loc(end)}; }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  template <typename... Args>
  void Error(diag::DiagId id, source::SourceRange range, const Args&... args) {
    if (!quiet_) diags_.Report(id, range, args...);
  }

  void SkipTrivia();
  /// Skips a non-ASCII byte sequence in a comment or string, checking it is UTF-8.
  void SkipNonAscii();
  void LexNumber(Token& tok);
  void LexPunctuation(Token& tok);

  source::FileId file_;
  std::string_view text_;
  diag::DiagEngine& diags_;
  size_t pos_ = 0;
  bool at_line_start_ = true;
  bool quiet_ = false;
  /// `spirv_asm` blocks, where `$` is a token: 1 right after the keyword, then 2 + the
  /// depth of braces inside the block; 0 elsewhere.
  int asm_state_ = 0;
  /// Follows `spirv_asm {` ... `}` across the tokens returned.
  void TrackAsmBlock(const Token& tok);
};

/// Splits one file into tokens, reporting lexical errors to `diags`.
std::vector<Token> Lex(const source::SourceManager& sources, source::FileId file,
                       diag::DiagEngine& diags);

}  // namespace slope::preprocess
