// Constructs recognized by their first tokens in primary position: `spirv_asm { ... }`
// (parsed by ParseSpirvAsm) and the lookahead that finds a lambda `(params) => body`
// (parsed by ParseLambda). Also the helpers that report a construct Slope does not
// compile yet at its position, instead of a parse error further on.

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
  if (paren_close_.empty()) {
    // A stack of the open '(' not yet matched; a ';', '{' or the end closes none of them.
    paren_close_.assign(tokens_.size(), kNoClose);
    std::vector<uint32_t> open;
    for (size_t i = 0; i < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      if (t.Is(TokenKind::LParen)) {
        open.push_back(static_cast<uint32_t>(i));
      } else if (t.Is(TokenKind::RParen) && !open.empty()) {
        paren_close_[open.back()] = static_cast<uint32_t>(i);
        open.pop_back();
      } else if (t.Is(TokenKind::Semicolon) || t.Is(TokenKind::LBrace) ||
                 t.Is(TokenKind::EndOfFile)) {
        open.clear();
      }
    }
  }
  if (pos_ >= tokens_.size() || !tokens_[pos_].Is(TokenKind::LParen)) return false;
  size_t i = paren_close_[pos_];
  return i != kNoClose && i + 2 < tokens_.size() && tokens_[i + 1].Is(TokenKind::Equal) &&
         tokens_[i + 2].Is(TokenKind::Greater);
}

ast::Expr* Parser::ParseUnsupportedPrimary() {
  if (AtIdent("spirv_asm") && Peek(1).Is(TokenKind::LBrace)) return ParseSpirvAsm();
  if (At(TokenKind::LParen) && AtLambda()) return ParseLambda();
  return nullptr;
}

}  // namespace slope::parse
