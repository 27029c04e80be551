// Token handling, error recovery, attributes and modifiers, and the module loop.

#include <unordered_map>

#include "compiler/parse/parser_impl.h"

namespace slope::parse {

using diag::DiagId;

const Token& Parser::Advance() {
  if (has_split_) {
    has_split_ = false;
    return split_;
  }
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Parser::Consume(TokenKind kind) {
  if (!At(kind)) return false;
  Advance();
  return true;
}

bool Parser::ConsumeIdent(std::string_view s) {
  if (!AtIdent(s)) return false;
  Advance();
  return true;
}

std::string Parser::Describe(const Token& t) const {
  switch (t.kind) {
    case TokenKind::Identifier:
    case TokenKind::IntLiteral:
    case TokenKind::FloatLiteral:
      return "'" + std::string(t.text) + "'";
    default:
      return preprocess::TokenKindSpelling(t.kind);
  }
}

source::SourceLoc Parser::PrevEnd() const {
  return pos_ == 0 ? Cur().loc : tokens_[pos_ - 1].Range().end;
}

bool Parser::Expect(TokenKind kind) {
  if (Consume(kind)) return true;
  // Point just after the previous token when something is missing at a line end.
  source::SourceRange where = Cur().Range();
  if (kind == TokenKind::Semicolon && pos_ > 0 && Cur().at_line_start) {
    where = source::SourceRange(PrevEnd());
  }
  Error(DiagId::ExpectedToken, where, preprocess::TokenKindSpelling(kind), Describe(Cur()));
  return false;
}

bool Parser::ExpectClosingAngle() {
  if (At(TokenKind::GreaterGreater) || At(TokenKind::GreaterEqual) ||
      At(TokenKind::GreaterGreaterEqual)) {
    // `A<B<C>>`: the first '>' closes this list; the rest stays as the current token.
    Token rest = Cur();
    rest.text = rest.text.substr(1);
    rest.loc.offset += 1;
    rest.at_line_start = false;
    rest.kind = rest.text == ">"   ? TokenKind::Greater
                : rest.text == "=" ? TokenKind::Equal
                                   : TokenKind::GreaterEqual;
    Advance();
    split_ = rest;
    has_split_ = true;
    return true;
  }
  return Expect(TokenKind::Greater);
}

void Parser::SyncToStatementEnd() {
  // A statement that still reached its ';' or '}' needs no skipping.
  if (pos_ > 0 && (tokens_[pos_ - 1].Is(TokenKind::Semicolon) ||
                   tokens_[pos_ - 1].Is(TokenKind::RBrace))) {
    panic_ = false;
    return;
  }
  int depth = 0;
  while (!At(TokenKind::EndOfFile)) {
    if (depth == 0 && At(TokenKind::Semicolon)) {
      Advance();
      break;
    }
    if (At(TokenKind::LBrace)) ++depth;
    if (At(TokenKind::RBrace)) {
      if (depth == 0) break;  // leave the block's '}' to its owner
      if (--depth == 0) {
        Advance();
        break;
      }
    }
    Advance();
  }
  panic_ = false;
}

void Parser::SyncToDeclarationEnd() {
  int depth = 0;
  while (!At(TokenKind::EndOfFile)) {
    if (depth == 0 && At(TokenKind::Semicolon)) {
      Advance();
      break;
    }
    if (At(TokenKind::LBrace)) ++depth;
    if (At(TokenKind::RBrace)) {
      if (depth == 0) break;  // the enclosing declaration's '}'
      Advance();
      if (--depth == 0) break;
      continue;
    }
    Advance();
  }
  panic_ = false;
}

void Parser::ReportBranchChain() {
  if (branch_reported_ || panic_) return;
  diags_.Report(DiagId::BranchChainTooLong, Cur().Range(), kMaxBranchChain);
  branch_reported_ = true;
}

bool Parser::DepthGuard::Ok() {
  if (p_.depth_ <= kMaxNestingDepth) return true;
  if (!p_.depth_reported_) {
    p_.diags_.Report(DiagId::NestingTooDeep, p_.Cur().Range(), kMaxNestingDepth);
    p_.depth_reported_ = true;
    p_.panic_ = true;
  }
  return false;
}

ast::Module* Parser::ParseModule() {
  auto* module = ctx_.New<ast::Module>();
  while (!At(TokenKind::EndOfFile) && !diags_.LimitReached()) {
    size_t before = pos_;
    if (At(TokenKind::RBrace)) {
      Error(DiagId::ExpectedDeclaration, Cur().Range(), Describe(Cur()));
      Advance();
      panic_ = false;
      continue;
    }
    ParseDeclInto(module->decls, DeclContext::TopLevel);
    if (panic_) SyncToDeclarationEnd();
    if (pos_ == before) Advance();  // always make progress
  }
  HoistNestedTypes(ctx_, *module);
  RewriteStaticConstRequirements(ctx_, *module);
  return module;
}

std::vector<ast::Attribute> Parser::ParseAttributes() {
  std::vector<ast::Attribute> attrs;
  while (At(TokenKind::LBracket)) {
    if (!ParseAttribute(attrs)) break;
  }
  return attrs;
}

bool Parser::ParseAttribute(std::vector<ast::Attribute>& out) {
  source::SourceLoc begin = Cur().loc;
  bool doubled = Peek(1).Is(TokenKind::LBracket);
  Advance();
  if (doubled) Advance();
  // `[A, B(1)]` and `[[A, B]]` hold several attributes.
  size_t first = out.size();
  do {
    if (!At(TokenKind::Identifier)) {
      Error(DiagId::ExpectedToken, Cur().Range(), "an attribute name", Describe(Cur()));
      return false;
    }
    source::SourceLoc name_begin = Cur().loc;
    ast::Attribute attr;
    attr.name = std::string(Advance().text);
    while (At(TokenKind::ColonColon) && Peek(1).Is(TokenKind::Identifier)) {
      Advance();
      attr.name += "::" + std::string(Advance().text);
    }
    if (Consume(TokenKind::LParen)) {
      if (!At(TokenKind::RParen)) {
        do {
          attr.args.push_back(ParseAssignment());
        } while (Consume(TokenKind::Comma) && !panic_);
      }
      if (!Expect(TokenKind::RParen)) return false;
    }
    attr.range = From(name_begin);
    out.push_back(std::move(attr));
  } while (Consume(TokenKind::Comma));
  if (!Expect(TokenKind::RBracket)) return false;
  if (doubled && !Expect(TokenKind::RBracket)) return false;
  // A lone attribute's range covers its brackets, as diagnostics have always shown it.
  if (out.size() == first + 1) out.back().range = From(begin);
  return true;
}

namespace {
const std::unordered_map<std::string_view, uint32_t>& ModifierTable() {
  static const std::unordered_map<std::string_view, uint32_t> kTable = {
      {"static", ast::kModStatic},       {"const", ast::kModConst},
      {"uniform", ast::kModUniform},     {"in", ast::kModIn},
      {"out", ast::kModOut},             {"inout", ast::kModInOut},
      {"groupshared", ast::kModGroupShared}, {"no_diff", ast::kModNoDiff},
      {"public", ast::kModPublic},       {"internal", ast::kModInternal},
      {"private", ast::kModPrivate},     {"extern", ast::kModExtern},
      {"export", ast::kModExport},
      {"inline", ast::kModInline},       {"override", ast::kModOverride},
      {"nointerpolation", ast::kModNoInterpolation}, {"precise", ast::kModPrecise},
      {"row_major", ast::kModRowMajor},  {"column_major", ast::kModColumnMajor},
  };
  return kTable;
}
}  // namespace

bool Parser::AtModifier() const {
  return At(TokenKind::Identifier) && ModifierTable().count(Cur().text) != 0;
}

uint32_t Parser::ParseModifiers() {
  uint32_t mods = 0;
  while (AtModifier()) mods |= ModifierTable().at(Advance().text);
  return mods;
}

ast::Module* ParseModule(const std::vector<Token>& tokens, ast::AstContext& ctx,
                         diag::DiagEngine& diags, const ParseOptions& options) {
  ast::Module* module = Parser(tokens, ctx, diags, options).ParseModule();
  module->language_version = options.language_version;
  return module;
}

void ParseDeferredBody(const std::vector<Token>& tokens, size_t at, ast::BlockStmt* block,
                       ast::AstContext& ctx, diag::DiagEngine& diags,
                       const ParseOptions& options) {
  ParseOptions eager = options;
  eager.deferred_bodies = nullptr;
  ast::BlockStmt* parsed = Parser(tokens, ctx, diags, eager).ParseBlockAt(at);
  block->stmts = std::move(parsed->stmts);
  block->range = parsed->range;
}

}  // namespace slope::parse
