// Slang constructs Slope does not compile yet, recognized where they start so that the
// error names the construct at its position instead of a parse error further on:
// `spirv_asm { ... }`. Also the lookahead that finds a lambda `(params) => body` (parsed
// by ParseLambda).

#include "compiler/parse/parser_impl.h"

namespace slope::parse {

using diag::DiagId;

void Parser::Unsupported(source::SourceRange range, const std::string& what) {
  // The construct is consumed whole, so parsing goes on without resynchronising.
  if (!panic_) diags_.Report(DiagId::UnsupportedConstruct, range, what, "are");
}

void Parser::SkipBraced() {
  if (!At(TokenKind::LBrace)) return;
  int depth = 0;
  while (!At(TokenKind::EndOfFile)) {
    if (At(TokenKind::LBrace)) ++depth;
    if (At(TokenKind::RBrace) && --depth == 0) {
      Advance();
      return;
    }
    Advance();
  }
}

bool Parser::AtLambda() const {
  // `(` ... matching `)` then `=>` (lexed as '=' and '>').
  int depth = 0;
  for (size_t i = pos_; i < tokens_.size(); ++i) {
    if (tokens_[i].Is(TokenKind::LParen)) ++depth;
    if (tokens_[i].Is(TokenKind::RParen) && --depth == 0) {
      return i + 2 < tokens_.size() && tokens_[i + 1].Is(TokenKind::Equal) &&
             tokens_[i + 2].Is(TokenKind::Greater);
    }
    if (tokens_[i].Is(TokenKind::Semicolon) || tokens_[i].Is(TokenKind::LBrace) ||
        tokens_[i].Is(TokenKind::EndOfFile)) {
      return false;
    }
  }
  return false;
}

ast::Expr* Parser::ParseUnsupportedPrimary() {
  source::SourceLoc begin = Cur().loc;
  if (AtIdent("spirv_asm") && Peek(1).Is(TokenKind::LBrace)) {
    Unsupported(Cur().Range(), "'spirv_asm' blocks");
    Advance();
    SkipBraced();
    return ErrorExpr(From(begin));
  }
  if (At(TokenKind::LParen) && AtLambda()) return ParseLambda();
  return nullptr;
}

}  // namespace slope::parse
