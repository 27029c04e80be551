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

/// One token. `text` points into the SourceManager's copy of the file.
struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  source::SourceLoc loc;
  std::string_view text;
  LiteralType literal_type = LiteralType::Int;
  uint64_t int_value = 0;   ///< IntLiteral
  double float_value = 0;   ///< FloatLiteral
  bool at_line_start = false;

  source::SourceRange Range() const {
    return {loc, source::SourceLoc{loc.file, loc.offset + static_cast<uint32_t>(text.size())}};
  }
  bool Is(TokenKind k) const { return kind == k; }
  bool IsIdent(std::string_view spelling) const {
    return kind == TokenKind::Identifier && text == spelling;
  }
};

/// Splits one file into tokens, reporting lexical errors to `diags`.
std::vector<Token> Lex(const source::SourceManager& sources, source::FileId file,
                       diag::DiagEngine& diags);

}  // namespace slope::preprocess
