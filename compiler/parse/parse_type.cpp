// Types, generic parameter lists and generic argument lists, and the token scanners
// that decide whether a type (rather than an expression) starts here.

#include "compiler/parse/parser_impl.h"

namespace slope::parse {

using diag::DiagId;

ast::TypeExpr* Parser::ParseType() {
  DepthGuard guard(*this);
  if (!guard.Ok()) return nullptr;
  // Variadic generics: `expand P` (P names packs as `each T`) and `each T`.
  if ((AtIdent("expand") || AtIdent("each")) &&
      (Peek(1).Is(TokenKind::Identifier) || Peek(1).Is(TokenKind::ColonColon))) {
    source::SourceLoc begin = Cur().loc;
    bool expand = Advance().text == "expand";
    ast::TypeExpr* inner = ParseType();
    if (inner == nullptr) return nullptr;
    if (!expand) {
      if (inner->pack != ast::TypeExpr::kNoPack) return inner;  // `each each T`: sema reports
      inner->pack = ast::TypeExpr::kEach;
      inner->range = From(begin);
      return inner;
    }
    auto* type = ctx_.New<ast::TypeExpr>();
    type->name = "expand";
    type->pack = ast::TypeExpr::kExpand;
    type->type_args.push_back(inner);
    type->range = From(begin);
    return type;
  }
  // `some IFoo`, `dyn IFoo`: an interface type, written as Slang 2025 asks.
  if ((AtIdent("some") || AtIdent("dyn")) &&
      (Peek(1).Is(TokenKind::Identifier) || Peek(1).Is(TokenKind::ColonColon))) {
    source::SourceLoc begin = Cur().loc;
    bool some = Advance().text == "some";
    ast::TypeExpr* inner = ParseType();
    if (inner == nullptr) return nullptr;
    inner->existential = some ? ast::TypeExpr::kSome : ast::TypeExpr::kDyn;
    inner->range = From(begin);
    return inner;
  }
  // `::ns::T`: looked up from the global scope.
  bool global = At(TokenKind::ColonColon) && Peek(1).Is(TokenKind::Identifier);
  const Token& first = Cur();
  if (global) Advance();
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedType, Cur().Range(), Describe(Cur()));
    return nullptr;
  }
  const Token& name = Advance();
  auto* type = ctx_.New<ast::TypeExpr>();
  type->name = (global ? "::" : "") + std::string(name.text);
  while (true) {
    if (At(TokenKind::Less)) {
      if (!ParseGenericArgs(type->type_args, &type->value_args)) return nullptr;
    }
    // A qualified name: `geo::Ray`, `Outer<T>::Inner`, `T.Differential`.
    if ((At(TokenKind::ColonColon) || At(TokenKind::Dot)) && Peek(1).Is(TokenKind::Identifier)) {
      std::string separator = At(TokenKind::Dot) ? "." : "::";
      Advance();
      type->name += separator + std::string(Advance().text);
      continue;
    }
    break;
  }
  // `float[4]`, `int[]`: array dimensions written after the element type.
  while (At(TokenKind::LBracket) &&
         (Peek(1).Is(TokenKind::RBracket) || !Peek(1).Is(TokenKind::LBracket))) {
    Advance();
    type->array_dims.push_back(At(TokenKind::RBracket) ? nullptr : ParseAssignment());
    if (!Expect(TokenKind::RBracket)) return nullptr;
  }
  // `T*`, `T**`: pointers (resolved by sema, which also reads `Ptr<T>`).
  while (At(TokenKind::Star)) {
    Advance();
    ++type->pointer_depth;
  }
  type->range = From(global ? first.loc : name.loc);
  return type;
}

bool Parser::ParseGenericArgs(std::vector<ast::TypeExpr*>& types,
                              std::vector<ast::Expr*>* values) {
  Advance();  // '<'
  if (At(TokenKind::Greater)) return ExpectClosingAngle();
  do {
    // An argument is a type when a type scan ends at ',' or '>'; otherwise a value.
    size_t start = pos_;
    while ((tokens_[start].text == "each" || tokens_[start].text == "expand") &&
           tokens_[start].Is(TokenKind::Identifier) && start + 1 < tokens_.size() &&
           tokens_[start + 1].Is(TokenKind::Identifier)) {
      ++start;
    }
    size_t end = ScanType(start);
    while (end != 0 && end < tokens_.size() && tokens_[end].Is(TokenKind::Star)) ++end;
    bool is_type = end != 0 && end < tokens_.size() &&
                   (tokens_[end].Is(TokenKind::Comma) || tokens_[end].Is(TokenKind::Greater) ||
                    tokens_[end].Is(TokenKind::GreaterGreater));
    bool is_literal_like = At(TokenKind::IntLiteral) || At(TokenKind::FloatLiteral) ||
                           At(TokenKind::LParen) || At(TokenKind::Minus) || AtIdent("true") ||
                           AtIdent("false");
    if (is_type && !is_literal_like) {
      ast::TypeExpr* arg = ParseType();
      if (arg == nullptr) return false;
      types.push_back(arg);
    } else if (values != nullptr) {
      values->push_back(ParseBinary(/*additive and tighter: no shifts or comparisons*/ 9));
    } else {
      Error(DiagId::ExpectedType, Cur().Range(), Describe(Cur()));
      return false;
    }
  } while (Consume(TokenKind::Comma));
  return ExpectClosingAngle();
}

std::vector<ast::GenericParamDecl*> Parser::ParseGenericParams() {
  std::vector<ast::GenericParamDecl*> params;
  Advance();  // '<'
  do {
    // `each T`: a type pack parameter.
    bool is_pack = AtIdent("each") && Peek(1).Is(TokenKind::Identifier);
    if (is_pack) Advance();
    bool is_value = !is_pack && ConsumeIdent("let");
    // `<int N>`, `<uint N>`, `<bool B>`: a value parameter written with its type first,
    // the same as `<let N : int>`.
    ast::TypeExpr* typed_value = nullptr;
    if (!is_value && At(TokenKind::Identifier) && Peek(1).Is(TokenKind::Identifier) &&
        (Cur().text == "int" || Cur().text == "uint" || Cur().text == "bool")) {
      typed_value = ParseType();
      is_value = true;
    }
    if (!At(TokenKind::Identifier)) {
      Error(DiagId::ExpectedToken, Cur().Range(), "a generic parameter name", Describe(Cur()));
      return params;
    }
    const Token& name = Advance();
    auto* param = ctx_.New<ast::GenericParamDecl>(std::string(name.text), name.Range());
    param->is_value = is_value;
    param->is_pack = is_pack;
    param->constraint = typed_value;
    if (typed_value == nullptr && Consume(TokenKind::Colon)) {
      if (is_value) {
        param->constraint = ParseType();
      } else {
        ParseConstraintList(param->constraint, param->more_constraints);
      }
    }
    if (Consume(TokenKind::Equal)) {
      if (is_value) {
        param->default_value = ParseBinary(9);
      } else {
        param->default_type = ParseType();
      }
    }
    params.push_back(param);
  } while (Consume(TokenKind::Comma) && !panic_);
  ExpectClosingAngle();
  return params;
}

void Parser::ParseConstraintList(ast::TypeExpr*& first, std::vector<ast::TypeExpr*>& more) {
  first = ParseType();
  while (first != nullptr && Consume(TokenKind::Amp)) {
    ast::TypeExpr* next = ParseType();
    if (next == nullptr) return;
    more.push_back(next);
  }
}

void Parser::ParseWhereClauses(std::vector<ast::WhereClause>& out) {
  while (AtIdent("where") && !panic_) {
    Advance();
    do {
      ast::WhereClause clause;
      // `where optional T : IFoo`: `optional` followed by the subject's name.
      if (AtIdent("optional") && pos_ + 1 < tokens_.size() &&
          tokens_[pos_ + 1].Is(TokenKind::Identifier)) {
        clause.optional = true;
        clause.optional_range = Advance().Range();
      }
      clause.subject = ParseType();
      if (clause.subject != nullptr && At(TokenKind::EqualEqual)) {
        // `where T.Element == float`: Slang's type equality constraint.
        Advance();
        clause.equals = ParseType();
        if (clause.equals == nullptr) return;
        out.push_back(std::move(clause));
        continue;
      }
      if (clause.subject == nullptr || !Expect(TokenKind::Colon)) return;
      ast::TypeExpr* first = nullptr;
      ParseConstraintList(first, clause.constraints);
      if (first == nullptr) return;
      clause.constraints.insert(clause.constraints.begin(), first);
      // `where T : IA, IB`: a further constraint of T unless a new `U :` (or `U ==`)
      // follows.
      while (At(TokenKind::Comma)) {
        if (pos_ + 1 < tokens_.size() && tokens_[pos_ + 1].Is(TokenKind::Identifier) &&
            tokens_[pos_ + 1].text == "where") {
          break;  // `where T : IA, where U : IB`: the clauses separated by commas too
        }
        if (pos_ + 2 < tokens_.size() && tokens_[pos_ + 1].Is(TokenKind::Identifier) &&
            tokens_[pos_ + 1].text == "optional" && tokens_[pos_ + 2].Is(TokenKind::Identifier)) {
          break;  // `, optional U : IBar`: the next clause
        }
        size_t end = ScanType(pos_ + 1);
        if (end != 0 && end < tokens_.size() &&
            (tokens_[end].Is(TokenKind::Colon) || tokens_[end].Is(TokenKind::EqualEqual))) {
          break;
        }
        Advance();
        ast::TypeExpr* more = ParseType();
        if (more == nullptr) return;
        clause.constraints.push_back(more);
      }
      out.push_back(std::move(clause));
    } while (Consume(TokenKind::Comma) && !AtIdent("where"));
  }
}

size_t Parser::ScanGenericArgs(size_t at) const {
  // Only tokens that can appear in types and constant arguments (`N * 2`, `(N + 1)`);
  // anything else means this '<' is a comparison. The scan is bounded, so that many
  // comparisons cost linear time, but wide enough for arguments nested as deep as the
  // nesting limit allows (`W<W<...>>` then gets the nesting error, not a parse error).
  constexpr size_t kWindow = 8 * static_cast<size_t>(kMaxNestingDepth);
  int depth = 0;
  int parens = 0;
  for (size_t i = at; i < tokens_.size() && i < at + kWindow; ++i) {
    switch (tokens_[i].kind) {
      case TokenKind::Less:
        if (parens > 0) return 0;
        ++depth;
        break;
      case TokenKind::Greater:
        if (parens > 0) return 0;
        --depth;
        break;
      case TokenKind::LParen: ++parens; break;
      case TokenKind::RParen:
        if (--parens < 0) return 0;
        break;
      case TokenKind::Plus:
      case TokenKind::Minus:
      case TokenKind::Star:
      case TokenKind::Slash:
      case TokenKind::Percent:
        break;
      case TokenKind::GreaterGreater:
        // `A<B<C>>`: with one list open, the first '>' of '>>' closes it.
        if (parens > 0) break;  // a shift inside `( )`
        if (depth == 1) return i;
        depth -= 2;
        break;
      case TokenKind::Identifier:
      case TokenKind::IntLiteral:
      case TokenKind::Comma:
      case TokenKind::ColonColon:
      case TokenKind::Dot:
      case TokenKind::LBracket:
      case TokenKind::RBracket:
        break;
      default:
        return 0;
    }
    if (depth == 0) return i + 1;
    if (depth < 0) return 0;
  }
  return 0;
}

size_t Parser::ScanType(size_t at) const {
  if (at >= tokens_.size() || !tokens_[at].Is(TokenKind::Identifier)) return 0;
  if ((tokens_[at].text == "some" || tokens_[at].text == "dyn") && at + 1 < tokens_.size() &&
      tokens_[at + 1].Is(TokenKind::Identifier)) {
    ++at;  // `some IFoo`, `dyn IFoo`
  }
  size_t i = at + 1;
  while (true) {
    if (i < tokens_.size() && tokens_[i].Is(TokenKind::Less)) {
      size_t end = ScanGenericArgs(i);
      if (end == 0) return 0;
      i = end;
    }
    if (i + 1 < tokens_.size() &&
        (tokens_[i].Is(TokenKind::ColonColon) || tokens_[i].Is(TokenKind::Dot)) &&
        tokens_[i + 1].Is(TokenKind::Identifier)) {
      i += 2;
      continue;
    }
    break;
  }
  // Array dimensions with simple contents: `[4]`, `[N]`, `[]`.
  while (i + 1 < tokens_.size() && tokens_[i].Is(TokenKind::LBracket)) {
    size_t j = i + 1;
    while (j < tokens_.size() && !tokens_[j].Is(TokenKind::RBracket) &&
           (tokens_[j].Is(TokenKind::IntLiteral) || tokens_[j].Is(TokenKind::Identifier))) {
      ++j;
    }
    if (j >= tokens_.size() || !tokens_[j].Is(TokenKind::RBracket)) break;
    i = j + 1;
  }
  return i;
}

bool Parser::LooksLikeTypedDecl() const {
  size_t i = pos_;
  // `expand f(each v);`, `expand s += each v;`: expressions.
  if (i + 1 < tokens_.size() && tokens_[i].Is(TokenKind::Identifier) &&
      (tokens_[i].text == "expand" || tokens_[i].text == "each") &&
      (tokens_[i + 1].Is(TokenKind::Identifier) || tokens_[i + 1].Is(TokenKind::LParen))) {
    return false;
  }
  // Modifiers first; `no_diff f(x)` (an expression) is told apart by what follows.
  while (i < tokens_.size() && tokens_[i].Is(TokenKind::Identifier)) {
    std::string_view t = tokens_[i].text;
    bool modifier = t == "static" || t == "const" || t == "uniform" || t == "groupshared" ||
                    t == "no_diff" || t == "precise" || t == "in" || t == "out" || t == "inout";
    if (!modifier) break;
    ++i;
  }
  size_t end = ScanType(i);
  if (end == 0 || end >= tokens_.size()) return false;
  // `int* p;`: a pointer declaration, not a product.
  if (tokens_[end].Is(TokenKind::Star) && end + 2 < tokens_.size() &&
      tokens_[end + 1].Is(TokenKind::Identifier) &&
      (tokens_[end + 2].Is(TokenKind::Semicolon) || tokens_[end + 2].Is(TokenKind::Equal))) {
    return true;
  }
  if (!tokens_[end].Is(TokenKind::Identifier)) return false;
  // `a < b > c` could scan as a type; a declaration's name is followed by one of these.
  if (end + 1 >= tokens_.size()) return true;
  switch (tokens_[end + 1].kind) {
    case TokenKind::Semicolon:
    case TokenKind::Equal:
    case TokenKind::Comma:
    case TokenKind::LBracket:
    case TokenKind::Colon:
    case TokenKind::LParen:
      return true;
    default:
      return false;
  }
}

}  // namespace slope::parse
